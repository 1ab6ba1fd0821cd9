"""Baseline zoo of docs/papers/dag_tsfx.md §4 (compact, generic): DLinear, PatchTST-lite, TimeXer-lite, TiDE, NBEATSx,
and a closed-form ridge reference on the target history and the past and future covariates.

Every model takes ``x (B, T, N + D)`` (endogenous first) and optional ``y_exo (B, F, D)`` and returns
``{"pred": (B, F, N), "aux": 0}`` like :class:`~icml26.papers.dag_tsfx.method.DAG`, so one trainer serves all.
Which inputs each model may use: DLinear, PatchTST: endogenous history only; TimeXer: endogenous + historical
covariates; TiDE, NBEATSx: endogenous + historical and future covariates.
"""

from __future__ import annotations

import torch
from torch import nn

from icml26 import checks
from icml26.nn.attention import attention
from icml26.papers.dag_tsfx.layers import Encoder, FlattenHead, PatchEmbedding, _instance_stats, _moving_average
from icml26.papers.dag_tsfx.method import DAG, check_inputs


class _Base(nn.Module):
    def __init__(self, seq_len, pred_len, n_endo, n_exo):
        super().__init__()
        for name, v in (("seq_len", seq_len), ("pred_len", pred_len), ("n_endo", n_endo), ("n_exo", n_exo)):
            if not isinstance(v, int) or v < 0 or (v == 0 and name != "n_exo"):
                raise ValueError(f"{name} must be a positive integer; got {v!r}")
        self.seq_len, self.pred_len, self.n_endo, self.n_exo = seq_len, pred_len, n_endo, n_exo

    def _split(self, x, y_exo):
        check_inputs(x, y_exo, self.seq_len, self.pred_len, self.n_endo, self.n_exo)
        return x[..., :self.n_endo], x[..., self.n_endo:]

    def _out(self, pred):
        return {"pred": pred, "aux": pred.new_zeros(())}


class DLinear(_Base):
    """Moving-average decomposition + two linear maps T -> F, endogenous only (Zeng et al., 2023)."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, kernel: int = 25, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        checks.positive_int("kernel", kernel)
        self.kernel = kernel
        self.seasonal, self.trend = nn.Linear(seq_len, pred_len), nn.Linear(seq_len, pred_len)

    def forward(self, x, y_exo=None):
        xe, _ = self._split(x, y_exo)
        trend = _moving_average(xe, self.kernel)
        out = self.seasonal((xe - trend).transpose(1, 2)) + self.trend(trend.transpose(1, 2))
        return self._out(out.transpose(1, 2))


class PatchTST(_Base):
    """Channel-independent patch Transformer on the endogenous history with instance norm (Nie et al., 2023)."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_model=32, d_ff=64, n_heads=4, e_layers=1,
                 patch_len=24, stride=24, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        self.emb = PatchEmbedding(seq_len, patch_len, stride, d_model, dropout)
        self.enc = Encoder(d_model, n_heads, d_ff, e_layers, dropout)
        self.head = FlattenHead(self.emb.m, d_model, pred_len)

    def forward(self, x, y_exo=None):
        xe, _ = self._split(x, y_exo)
        mu, sd = _instance_stats(xe)
        z, _ = self.enc(self.emb(((xe - mu) / sd).transpose(1, 2)))
        return self._out(self.head(z, self.n_endo) * sd + mu)


class TimeXer(_Base):
    """TimeXer-lite (Wang et al., 2024): endogenous patch tokens + a learned global token that cross-attends to
    variate tokens of the *historical* covariates; future covariates are not used (docs/papers/dag_tsfx.md §4)."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_model=32, d_ff=64, n_heads=4, e_layers=1,
                 patch_len=24, stride=24, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        self.n_heads = n_heads
        self.emb = PatchEmbedding(seq_len, patch_len, stride, d_model, dropout)
        self.glob = nn.Parameter(torch.randn(1, 1, d_model) * 0.02)
        self.var_tok = nn.Linear(seq_len, d_model)
        self.self_enc = Encoder(d_model, n_heads, d_ff, e_layers, dropout)
        self.q, self.kv = nn.Linear(d_model, d_model), nn.Linear(d_model, 2 * d_model)
        self.o, self.norm = nn.Linear(d_model, d_model), nn.LayerNorm(d_model)
        self.head = FlattenHead(self.emb.m + 1, d_model, pred_len)

    def forward(self, x, y_exo=None):
        xe, xx = self._split(x, y_exo)
        mu, sd = _instance_stats(xe)
        mux, sdx = _instance_stats(xx)
        tok = self.emb(((xe - mu) / sd).transpose(1, 2))  # (B*N, M, d)
        bn, _, d = tok.shape
        z, _ = self.self_enc(torch.cat([tok, self.glob.expand(bn, -1, -1)], dim=1))
        ex = self.var_tok(((xx - mux) / sdx).transpose(1, 2)).repeat_interleave(self.n_endo, 0)  # (B*N, D, d)
        h = self.n_heads
        q = self.q(z[:, -1:]).view(bn, 1, h, -1).transpose(1, 2)
        k, v = self.kv(ex).view(bn, ex.shape[1], 2, h, -1).permute(2, 0, 3, 1, 4)
        g = attention(q, k, v, causal=False).out.transpose(1, 2).reshape(bn, 1, d)
        z = torch.cat([z[:, :-1], self.norm(z[:, -1:] + self.o(g))], dim=1)
        return self._out(self.head(z, self.n_endo) * sd + mu)


class _ResBlock(nn.Module):
    def __init__(self, d_in, d_hidden, d_out, dropout=0.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out), nn.Dropout(dropout))
        self.skip = nn.Linear(d_in, d_out)
        self.norm = nn.LayerNorm(d_out) if d_out > 1 else nn.Identity()  # LayerNorm of width 1 is constant

    def forward(self, x):
        return self.norm(self.net(x) + self.skip(x))


class TiDE(_Base):
    """TiDE (Das et al., 2023): covariate projection, dense encoder/decoder, per-step temporal decoder, linear skip.
    Uses past and future covariates."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_model=32, d_ff=64, proj_dim=4, dec_dim=8, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        for name, v in (("d_model", d_model), ("d_ff", d_ff), ("proj_dim", proj_dim), ("dec_dim", dec_dim)):
            checks.positive_int(name, v)
        checks.probability("dropout", dropout)
        self.dec_dim = dec_dim
        self.feat = _ResBlock(n_exo, d_ff, proj_dim, dropout)
        self.enc = _ResBlock(seq_len + (seq_len + pred_len) * proj_dim, d_ff, d_model, dropout)
        self.dec = _ResBlock(d_model, d_ff, pred_len * dec_dim, dropout)
        self.temporal = _ResBlock(dec_dim + proj_dim, d_ff, 1, dropout)
        self.skip = nn.Linear(seq_len, pred_len)

    def forward(self, x, y_exo=None):
        xe, xx = self._split(x, y_exo)
        if y_exo is None:
            raise ValueError("TiDE needs y_exo (future covariates)")
        mu, sd = _instance_stats(xe)
        y = ((xe - mu) / sd).transpose(1, 2).reshape(-1, self.seq_len)  # (B*N, T)
        cov = self.feat(torch.cat([xx, y_exo], dim=1))  # (B, T+F, p)
        cov_n = cov.repeat_interleave(self.n_endo, 0)
        e = self.enc(torch.cat([y, cov_n.flatten(1)], dim=-1))
        dec = self.dec(e).view(-1, self.pred_len, self.dec_dim)
        out = self.temporal(torch.cat([dec, cov_n[:, self.seq_len:]], dim=-1)).squeeze(-1) + self.skip(y)
        return self._out(out.view(-1, self.n_endo, self.pred_len).transpose(1, 2) * sd + mu)


class NBEATSx(_Base):
    """NBEATSx (Olivares et al., 2023), generic blocks with exogenous inputs (historical + future) fed to each
    block; doubly residual backcast/forecast. ``n_blocks`` blocks of ``n_layers`` ReLU layers."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_ff=64, n_blocks=2, n_layers=2, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        for name, v in (("d_ff", d_ff), ("n_blocks", n_blocks), ("n_layers", n_layers)):
            checks.positive_int(name, v)
        checks.probability("dropout", dropout)
        d_in = seq_len + (seq_len + pred_len) * n_exo

        def block():
            layers, w = [], d_in
            for _ in range(n_layers):
                layers += [nn.Linear(w, d_ff), nn.ReLU(), nn.Dropout(dropout)]
                w = d_ff
            return nn.Sequential(*layers, nn.Linear(w, seq_len + pred_len))

        self.blocks = nn.ModuleList(block() for _ in range(n_blocks))

    def forward(self, x, y_exo=None):
        xe, xx = self._split(x, y_exo)
        if y_exo is None:
            raise ValueError("NBEATSx needs y_exo (future covariates)")
        mu, sd = _instance_stats(xe)
        res = ((xe - mu) / sd).transpose(1, 2).reshape(-1, self.seq_len)
        cov = torch.cat([xx, y_exo], dim=1).flatten(1).repeat_interleave(self.n_endo, 0)
        fc = res.new_zeros(res.shape[0], self.pred_len)
        for blk in self.blocks:  # a handful of blocks, each batched
            theta = blk(torch.cat([res, cov], dim=-1))
            res = res - theta[:, :self.seq_len]
            fc = fc + theta[:, self.seq_len:]
        return self._out(fc.view(-1, self.n_endo, self.pred_len).transpose(1, 2) * sd + mu)


RIDGE_LAMBDAS = (0.1, 1.0, 10.0, 100.0, 1000.0)


def ridge_features(win: dict, hist_exo: bool = True, future: bool = True) -> torch.Tensor:
    """Float64 design matrix of one window set: the flattened target history, [the historical covariates],
    [the future covariates and their squares], and a bias column (docs/papers/dag_tsfx.md §4)."""
    checks.config("win", win, required=("x", "y_exo"))
    checks.tensor("win['x']", win["x"], ndim=3)
    checks.tensor("win['y_exo']", win["y_exo"], ndim=3)
    n_exo = win["y_exo"].shape[-1]
    x = win["x"].double()
    parts = [x[..., :x.shape[-1] - n_exo].flatten(1)]
    if hist_exo:
        parts.append(x[..., x.shape[-1] - n_exo:].flatten(1))
    if future:
        ye = win["y_exo"].double().flatten(1)
        parts += [ye, ye ** 2]
    parts.append(x.new_ones(len(x), 1))
    return torch.cat(parts, 1)


def ridge_solve(a: torch.Tensor, y: torch.Tensor, lam: float) -> torch.Tensor:
    """Closed-form ridge weights ``(A^T A + lam I)^{-1} A^T y`` (the bias is penalised too; inputs are z-scored)."""
    checks.tensor("a", a, ndim=2)
    checks.tensor("y", y, ndim=2, shape=(a.shape[0], None))
    checks.positive_number("lam", lam)
    eye = torch.eye(a.shape[1], dtype=a.dtype, device=a.device)
    return torch.linalg.solve(a.T @ a + lam * eye, a.T @ y.to(a.dtype))


def ridge_reference(wins: dict, lambdas=RIDGE_LAMBDAS, hist_exo: bool = True, future: bool = True) -> dict:
    """Ridge forecaster fitted on the training windows, ``lam`` chosen by validation MSE; returns ``lam`` and the
    test forecast ``pred (W, F, N)`` (the reference that issue 28 measured beating an undertrained DAG)."""
    checks.config("wins", wins, required=("train", "val", "test"))
    if not isinstance(lambdas, (list, tuple)) or not lambdas:
        raise ValueError(f"lambdas must be a non-empty list of positive numbers; got {lambdas!r}")
    for lam in lambdas:
        checks.positive_number("lambdas", lam)
    feats = {k: ridge_features(wins[k], hist_exo, future) for k in ("train", "val", "test")}
    shape = wins["test"]["y"].shape
    ys = {k: wins[k]["y"].transpose(1, 2).flatten(1) if wins[k]["y"].shape[-1] == 1 else None
          for k in ("train", "val")}
    if ys["train"] is None:
        raise ValueError("wins must hold one target channel (y of shape (W, F, 1)) for the ridge reference")
    best = None
    for lam in lambdas:
        w = ridge_solve(feats["train"], ys["train"], lam)
        val = float(((feats["val"] @ w - ys["val"]) ** 2).mean())
        if best is None or val < best[0]:
            best = (val, lam, w)
    pred = (feats["test"] @ best[2]).to(wins["test"]["y"].dtype).view(shape[0], shape[2], shape[1]).transpose(1, 2)
    return {"lam": best[1], "val_mse": best[0], "pred": pred}


MODELS = {"DAG": DAG, "DLinear": DLinear, "PatchTST": PatchTST, "TimeXer": TimeXer, "TiDE": TiDE, "NBEATSx": NBEATSx}
USES_FUTURE = {"DAG": True, "DLinear": False, "PatchTST": False, "TimeXer": False, "TiDE": True, "NBEATSx": True}


def make_model(name: str, seq_len: int, pred_len: int, n_endo: int, n_exo: int, **kwargs) -> nn.Module:
    """Build a model of :data:`MODELS` by name; unused keyword arguments are ignored by the baselines."""
    if name not in MODELS:
        raise ValueError(f"name must be one of {sorted(MODELS)}; got {name!r}")
    if name == "DAG":
        keep = {"d_model", "d_ff", "n_heads", "e_layers", "patch_len", "stride", "dropout", "alpha", "use_t", "use_c",
                "use_t_exog", "use_c_exog", "infer_use_future", "inject_mode"}
        kwargs = {k: v for k, v in kwargs.items() if k in keep}
    return MODELS[name](seq_len, pred_len, n_endo, n_exo, **kwargs)
