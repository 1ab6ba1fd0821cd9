"""The models of docs/papers/tabular_uncertainty.md §4, trained on equal footing by :func:`fit_nn`
(same optimiser, epochs, batch size, width and early stopping on a validation split):

* :class:`MLPRegressor` - plain MLP, or MLP-LR / LRLR / PLR / PLE with an embedding from
  :mod:`.embeddings` (and the paper's triplet term, see :mod:`.method`);
* :class:`TabM` - BatchEnsemble-style parameter-efficient ensemble; ``variant="mini"`` (one
  per-member elementwise adapter on the input, shared backbone, per-member heads) or ``"full"``
  (adapters in every layer). Trained on the **mean of the k member losses**, predicts their mean;
* :func:`knn_predict` - k-nearest-neighbour label averaging (the retrieval mechanism, docs §3.3);
* :class:`ModernNCA` - softmax(-distance) weighted training labels in a learned (embedding + MLP) space,
  with stochastic candidate subsampling during training;
* :func:`fit_gbdt` - scikit-learn ``HistGradientBoostingRegressor`` (the GBDT baseline).
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from torch import nn

from icml26 import checks

from .embeddings import KINDS, make_embedding
from .losses import _triplet_loss

TRIPLET_OPTIONS = ("q", "margin", "normalize", "generator")


def _as_tensor(name, a, device, ndim):
    t = torch.as_tensor(np.asarray(a) if not isinstance(a, torch.Tensor) else a, dtype=torch.float32, device=device)
    if t.ndim != ndim or t.shape[0] < 1:
        raise ValueError(f"{name} must be a non-empty array with {ndim} dimension(s); got shape {tuple(t.shape)}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} must be finite")
    return t


def _check_sizes(**sizes) -> None:
    for name, value in sizes.items():
        checks.positive_int(name, value)


def _check_embedding(embedding) -> None:
    if embedding not in KINDS:
        raise ValueError(f"embedding must be one of {KINDS}; got {embedding!r}")


def _check_dropout(dropout) -> None:
    checks.finite_number("dropout", dropout)
    if not 0 <= dropout < 1:
        raise ValueError(f"dropout must lie in [0, 1); got {dropout!r}")


def _check_generator(generator) -> None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")


def _check_model(model, need_loss: bool = True) -> None:
    if not isinstance(model, nn.Module) or (need_loss and not callable(getattr(model, "loss", None))):
        what = "a torch module with a loss(x, y) method" if need_loss else "a torch module"
        raise TypeError(f"model must be {what}; got {type(model).__name__}")


def _check_triplet_kwargs(kw) -> None:
    checks.config("triplet_kwargs", kw, allowed=TRIPLET_OPTIONS)
    if "q" in kw:
        checks.in_range("triplet_kwargs['q']", kw["q"], 0.0, 0.5, low_open=True)
    if "margin" in kw:
        checks.nonnegative_number("triplet_kwargs['margin']", kw["margin"])
    _check_generator(kw.get("generator"))


def _gbdt_options(name: str, kw) -> None:
    """``kw`` holds only options of ``HistGradientBoostingRegressor`` that :func:`fit_gbdt` does not set itself."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    allowed = set(HistGradientBoostingRegressor().get_params()) - {"max_iter", "random_state", "early_stopping"}
    checks.config(name, kw, allowed=allowed)


def _mlp(d_in: int, width: int, n_blocks: int, dropout: float) -> nn.Sequential:
    layers, d = [], d_in
    for _ in range(n_blocks):
        layers += [nn.Linear(d, width), nn.ReLU()] + ([nn.Dropout(dropout)] if dropout > 0 else [])
        d = width
    return nn.Sequential(*layers)


class MLPRegressor(nn.Module):
    """(Embedding ->) MLP ``n_blocks x width`` -> scalar. ``triplet`` = (weight, kwargs) adds the
    auxiliary triplet loss of docs §3.4 on the flattened embedding (only with an embedding)."""

    def __init__(self, n_features: int, width: int = 64, n_blocks: int = 2, dropout: float = 0.0,
                 embedding: str = "none", d_embedding: int = 16, X_train=None, triplet_weight: float = 0.0,
                 triplet_kwargs: dict | None = None, **emb_kw):
        super().__init__()
        _check_sizes(n_features=n_features, width=width, n_blocks=n_blocks)
        _check_dropout(dropout)
        _check_embedding(embedding)
        checks.nonnegative_number("triplet_weight", triplet_weight)
        if triplet_kwargs is not None:
            _check_triplet_kwargs(triplet_kwargs)
        self.emb = make_embedding(embedding, n_features, d_embedding, X_train=X_train, **emb_kw)
        d_in = n_features * d_embedding if self.emb is not None else n_features
        self.backbone = _mlp(d_in, width, n_blocks, dropout)
        self.head = nn.Linear(width, 1)
        if triplet_weight < 0:
            raise ValueError(f"triplet_weight must be >= 0; got {triplet_weight}")
        if triplet_weight > 0 and self.emb is None:
            raise ValueError("triplet_weight > 0 needs an embedding (embedding != 'none')")
        self.triplet_weight, self.triplet_kwargs = float(triplet_weight), dict(triplet_kwargs or {})

    def embed(self, x):
        """The representation after the embedding module, flattened ``(B, m * d)`` (raw ``x`` for a plain MLP)."""
        return self.emb(x).flatten(1) if self.emb is not None else x

    def hidden(self, x):
        return self.backbone(self.embed(x))

    def forward(self, x):
        return self.head(self.hidden(x)).squeeze(-1)

    def loss(self, x, y):
        z = self.embed(x)
        pred = self.head(self.backbone(z)).squeeze(-1)
        loss = ((pred - y) ** 2).mean()
        if self.triplet_weight > 0:
            loss = loss + self.triplet_weight * _triplet_loss(z, y, **self.triplet_kwargs)
        return loss


class EnsembleLinear(nn.Module):
    """``k`` independent linear maps applied member-wise: ``(B, k, a) -> (B, k, b)``."""

    def __init__(self, k: int, a: int, b: int):
        super().__init__()
        _check_sizes(k=k, a=a, b=b)
        bound = 1 / math.sqrt(a)
        self.weight = nn.Parameter(torch.empty(k, a, b).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.empty(k, b).uniform_(-bound, bound))

    def forward(self, z):
        return torch.einsum("nka,kao->nko", z, self.weight) + self.bias


class BatchEnsembleLinear(nn.Module):
    """Shared ``W`` with per-member adapters: ``((z * r_k) W) * s_k + b_k`` (Wen et al. 2020; TabM)."""

    def __init__(self, k: int, a: int, b: int, generator: torch.Generator | None = None):
        super().__init__()
        _check_sizes(k=k, a=a, b=b)
        _check_generator(generator)
        self.linear = nn.Linear(a, b, bias=False)
        self.r = nn.Parameter(_random_signs((k, a), generator))
        self.s = nn.Parameter(_random_signs((k, b), generator))
        bound = 1 / math.sqrt(a)
        self.bias = nn.Parameter(torch.empty(k, b).uniform_(-bound, bound))

    def forward(self, z):
        return self.linear(z * self.r) * self.s + self.bias


def _random_signs(shape, generator=None):
    return torch.randint(0, 2, shape, generator=generator).float() * 2 - 1


class TabM(nn.Module):
    """TabM / TabM-mini (docs §4): ``forward`` returns member predictions ``(B, k)``; ``loss`` is the
    mean of the ``k`` member MSEs (not the MSE of the mean, docs §4); ``predict`` averages."""

    def __init__(self, n_features: int, k: int = 8, width: int = 64, n_blocks: int = 2, dropout: float = 0.0,
                 variant: str = "mini", embedding: str = "none", d_embedding: int = 16, X_train=None, **emb_kw):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer; got {k!r}")
        if variant not in ("mini", "full"):
            raise ValueError(f"variant must be 'mini' or 'full'; got {variant!r}")
        _check_sizes(n_features=n_features, width=width, n_blocks=n_blocks)
        _check_dropout(dropout)
        _check_embedding(embedding)
        self.k, self.variant = k, variant
        self.emb = make_embedding(embedding, n_features, d_embedding, X_train=X_train, **emb_kw)
        d_in = n_features * d_embedding if self.emb is not None else n_features
        if variant == "mini":
            self.adapter = nn.Parameter(_random_signs((k, d_in)))
            self.backbone = _mlp(d_in, width, n_blocks, dropout)
        else:
            layers, d = [], d_in
            for _ in range(n_blocks):
                layers += [BatchEnsembleLinear(k, d, width), nn.ReLU()] + ([nn.Dropout(dropout)] if dropout else [])
                d = width
            self.backbone = nn.Sequential(*layers)
        self.head = EnsembleLinear(k, width, 1)

    def embed(self, x):
        return self.emb(x).flatten(1) if self.emb is not None else x

    def members(self, x):
        z = self.embed(x)[:, None, :].expand(-1, self.k, -1)
        if self.variant == "mini":
            z = z * self.adapter
        return self.head(self.backbone(z)).squeeze(-1)

    def forward(self, x):
        return self.members(x).mean(1)

    def loss(self, x, y):
        return ((self.members(x) - y[:, None]) ** 2).mean()


class ModernNCA(nn.Module):
    """ModernNCA (Ye et al. 2024, the retrieval model of the paper's Fig. 1): an encoder ``phi`` (optional
    numerical embedding, a linear projection, then ``n_blocks`` ReLU + Linear layers); the prediction is the
    softmax(-||phi(x) - phi(x_j)||) weighted mean of the candidate labels ``y_j`` (Euclidean distance, as in
    ModernNCA). Training candidates: a random ``sample_rate`` fraction of the training set, the batch's own rows
    excluded (stochastic neighbour sampling); inference: the whole training set. ``n_blocks=0`` is the linear
    encoder of our first version."""

    def __init__(self, n_features: int, width: int = 64, n_blocks: int = 1, dropout: float = 0.0,
                 embedding: str = "none", d_embedding: int = 16, X_train=None, sample_rate: float = 0.3, **emb_kw):
        super().__init__()
        _check_sizes(n_features=n_features, width=width)
        checks.nonnegative_int("n_blocks", n_blocks)
        _check_dropout(dropout)
        _check_embedding(embedding)
        if not 0 < sample_rate <= 1:
            raise ValueError(f"sample_rate must be in (0, 1]; got {sample_rate}")
        self.emb = make_embedding(embedding, n_features, d_embedding, X_train=X_train, **emb_kw)
        d_in = n_features * d_embedding if self.emb is not None else n_features
        layers = [nn.Linear(d_in, width)]
        for _ in range(n_blocks):
            layers += [nn.ReLU()] + ([nn.Dropout(dropout)] if dropout > 0 else []) + [nn.Linear(width, width)]
        self.enc = nn.Sequential(*layers)
        self.sample_rate = sample_rate
        self.register_buffer("X_ref", torch.empty(0, n_features))
        self.register_buffer("y_ref", torch.empty(0))

    def set_reference(self, X, y):
        self.X_ref, self.y_ref = X, y
        return self

    def encode(self, x):
        return self.enc(self.emb(x).flatten(1) if self.emb is not None else x)

    def _predict_from(self, q, Xc, yc):
        return torch.softmax(-torch.cdist(self.encode(q), self.encode(Xc)), -1) @ yc

    def forward(self, x, chunk: int = 2048):
        if self.X_ref.shape[0] == 0:
            raise ValueError("call set_reference(X_train, y_train) before predicting")
        return torch.cat([self._predict_from(x[i:i + chunk], self.X_ref, self.y_ref)
                          for i in range(0, x.shape[0], chunk)])

    def loss(self, x, y, idx=None):
        n = self.X_ref.shape[0]
        keep = torch.rand(n, device=self.X_ref.device) < self.sample_rate
        if idx is not None:
            keep[idx] = False
        pred = self._predict_from(x, self.X_ref[keep], self.y_ref[keep])
        return ((pred - y) ** 2).mean()


def fit_nn(model: nn.Module, X, y, X_val, y_val, epochs: int = 40, lr: float = 1e-3, batch_size: int = 256,
           weight_decay: float = 0.0, patience: int | None = None, seed: int = 0, device="cpu") -> dict:
    """Adam on ``model.loss`` with minibatches; keeps the weights with the best validation MSE
    (early stopping after ``patience`` epochs without improvement; ``None`` = never stop early).
    Returns ``{"best_epoch", "val_mse", "epochs_run", "history"}``."""
    _check_model(model)
    checks.device("device", device)
    device = torch.device(device)
    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer; got {v!r}")
    checks.positive_number("lr", lr)
    checks.nonnegative_number("weight_decay", weight_decay)
    if patience is not None:
        checks.positive_int("patience", patience)
    checks.seed("seed", seed)
    X, y = _as_tensor("X", X, device, 2), _as_tensor("y", y, device, 1)
    X_val, y_val = _as_tensor("X_val", X_val, device, 2), _as_tensor("y_val", y_val, device, 1)
    if X.shape[0] != y.shape[0] or X_val.shape[0] != y_val.shape[0]:
        raise ValueError("X and y (and X_val and y_val) must have the same number of rows")
    model.to(device)
    if isinstance(model, ModernNCA):
        model.set_reference(X, y)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    best, best_state, best_epoch, history, bad = math.inf, None, -1, [], 0
    n = X.shape[0]
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(n, generator=gen).to(device)
        for i in range(0, n, batch_size):
            idx = perm[i:i + batch_size]
            loss = model.loss(X[idx], y[idx], idx) if isinstance(model, ModernNCA) else model.loss(X[idx], y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            val = float(((model(X_val) - y_val) ** 2).mean())
        history.append(val)
        if val < best:
            best, best_epoch, bad = val, epoch, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            bad += 1
            if patience is not None and bad >= patience:
                break
    model.load_state_dict(best_state)
    model.eval()
    return {"best_epoch": best_epoch, "val_mse": best, "epochs_run": len(history), "history": history}


@torch.no_grad()
def predict(model: nn.Module, X, device="cpu") -> np.ndarray:
    """``model(X)`` as a float64 NumPy vector."""
    _check_model(model, need_loss=False)
    checks.device("device", device)
    model.eval()
    return model(_as_tensor("X", X, torch.device(device), 2)).double().cpu().numpy()


@torch.no_grad()
def knn_indices(Z_ref: torch.Tensor, Z_q: torch.Tensor, k: int, exclude_self: bool = False,
                chunk: int = 4096) -> torch.Tensor:
    """Indices ``(n_q, k)`` of the ``k`` nearest reference rows (Euclidean), computed in query chunks."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    checks.tensor("Z_ref", Z_ref, dtype_kind="float")
    checks.tensor("Z_q", Z_q, dtype_kind="float")
    checks.positive_int("chunk", chunk)
    if exclude_self and Z_q.shape[0] > Z_ref.shape[0]:
        raise ValueError(f"Z_q must be (a prefix of) Z_ref when exclude_self; got {Z_q.shape[0]} > "
                         f"{Z_ref.shape[0]} rows")
    if Z_ref.ndim != 2 or Z_q.ndim != 2 or Z_ref.shape[1] != Z_q.shape[1]:
        raise ValueError(f"Z_ref and Z_q must be 2-D with equal widths; got {tuple(Z_ref.shape)}, {tuple(Z_q.shape)}")
    if k + int(exclude_self) > Z_ref.shape[0]:
        raise ValueError(f"k={k} exceeds the number of reference rows {Z_ref.shape[0]}")
    out = []
    for i in range(0, Z_q.shape[0], chunk):
        d = torch.cdist(Z_q[i:i + chunk], Z_ref)
        if exclude_self:
            d[torch.arange(d.shape[0]), torch.arange(i, i + d.shape[0])] = math.inf
        out.append(d.topk(k, largest=False).indices)
    return torch.cat(out)


def knn_predict(X_train, y_train, X_query, k: int = 20, device="cpu") -> np.ndarray:
    """k-NN regression: the mean target of the ``k`` nearest training rows (retrieval as label averaging)."""
    checks.device("device", device)
    device = torch.device(device)
    Xt, yt = _as_tensor("X_train", X_train, device, 2), _as_tensor("y_train", y_train, device, 1)
    Xq = _as_tensor("X_query", X_query, device, 2)
    if Xt.shape[0] != yt.shape[0]:
        raise ValueError("X_train and y_train must have the same number of rows")
    if Xq.shape[1] != Xt.shape[1]:
        raise ValueError(f"X_query must have {Xt.shape[1]} columns like X_train; got {Xq.shape[1]}")
    return yt[knn_indices(Xt, Xq, k)].mean(1).double().cpu().numpy()


def fit_gbdt(X, y, max_iter: int = 200, learning_rate: float = 0.1, seed: int = 0, **kw):
    """The GBDT baseline: ``HistGradientBoostingRegressor`` (scikit-learn, bundled)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    checks.positive_number("learning_rate", learning_rate)
    checks.seed("seed", seed)
    checks.array("X", X, ndim=2)
    checks.array("y", y, ndim=1)
    _gbdt_options("kw", kw)
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be (n, d) and y (n,); got {X.shape}, {y.shape}")
    model = HistGradientBoostingRegressor(max_iter=max_iter, learning_rate=learning_rate, random_state=seed,
                                          early_stopping=False, **kw)
    return model.fit(X, y)
