"""The paper's analysis tools and its new embedding.

Section numbers below are those of docs/papers/tabular_uncertainty.md (the paper's body was not available to us).

* §3.1 data-uncertainty estimators: :func:`joint_uncertainty` (the paper's joint Gaussian-likelihood fit of
  mean and variance, as Newton-boosted trees), :func:`gbdt_uncertainty` (two-stage, cross-fitted GBDT on
  ``log r^2`` with the log-chi^2 bias correction, our cheap default standing in for CatBoost
  ``RMSEWithUncertainty``) and :func:`hetero_mlp_uncertainty` (two-head MLP trained with the Gaussian
  NLL ``g + (y - f)^2 / (2 exp(2 g))``, beta-NLL weighting, MSE warm start);
* §3.2 uncertainty plots: :func:`uncertainty_curve` (Gaussian-smoothed ``Delta_i = e_B - e_M`` over samples
  sorted by ``u``) and :func:`quintile_shares` (our summary statistic ``S_q``, inferred);
* §3.3 mechanism probes: :func:`neighbour_target_mse` (local target consistency in a representation)
  and :func:`gradient_noise_split` (clean/noisy gradient decomposition, TabM vs MLP);
* §3.4 the new embedding: LRLR + :func:`triplet_loss` (``make_triplet_lrlr``).
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.ndimage import gaussian_filter1d
from torch import nn

from icml26 import checks

from .baselines import (
    MLPRegressor,
    _as_tensor,
    _check_generator,
    _check_model,
    _check_sizes,
    _gbdt_options,
    fit_gbdt,
    fit_nn,
    knn_indices,
)
from .losses import _triplet_loss

LOG_CHI2_BIAS = -1.2703628454614782  # E[log eps^2] for eps ~ N(0, 1) = digamma(1/2) + log 2


def _check_xy(X, y, name_x="X", name_y="y"):
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0] or X.shape[0] < 2:
        raise ValueError(f"{name_x} must be (n, d) and {name_y} (n,) with n >= 2; got {X.shape}, {y.shape}")
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise ValueError(f"{name_x} and {name_y} must be finite")
    return X, y


def _check_train_query(X_train, y_train, X_query):
    """Training rows and targets (:func:`_check_xy`) and query rows with the same columns, as float64 arrays."""
    X, y = _check_xy(X_train, y_train, "X_train", "y_train")
    Xq = checks.array("X_query", np.asarray(X_query, dtype=np.float64), ndim=2)
    if Xq.shape[1] != X.shape[1]:
        raise ValueError(f"X_query must have {X.shape[1]} columns like X_train; got {Xq.shape[1]}")
    return X, y, Xq


VAR_GBDT = dict(learning_rate=0.05, max_leaf_nodes=8, min_samples_leaf=50)


def gbdt_uncertainty(X_train, y_train, X_query, n_folds: int = 5, max_iter: int = 200, delta: float = 1e-6,
                     seed: int = 0, return_train: bool = False, var_kwargs: dict | None = None):
    """Two-stage GBDT estimate of ``u(x) = Var(y | x)`` (§3.1, inferred substitute for CatBoost).

    1. out-of-fold means ``m_oof`` with ``n_folds`` cross-fitting (in-sample residuals of an overfit
       model would be ~0, §6);
    2. a second GBDT regresses ``log((y - m_oof)^2 + delta)``; since ``E[log eps^2] = -1.27`` its
       prediction is shifted by ``+1.27`` and ``u = exp(.)``.
    The second stage is more regularised (``var_kwargs``, default :data:`VAR_GBDT`): its target
    ``log r^2`` has variance ~4.9 on top of the signal. Returns ``u_query`` (and cross-fitted ``u_train``
    when ``return_train``).
    """
    X, y = _check_xy(X_train, y_train, "X_train", "y_train")
    Xq = np.asarray(X_query, dtype=np.float64)
    if Xq.ndim != 2 or Xq.shape[1] != X.shape[1]:
        raise ValueError(f"X_query must be (n_q, {X.shape[1]}); got {Xq.shape}")
    checks.array("X_query", Xq)
    n_folds = checks.int_between("n_folds", n_folds, 2, X.shape[0], what="n =")
    checks.positive_int("max_iter", max_iter)
    checks.positive_number("delta", delta)
    checks.seed("seed", seed)
    if var_kwargs is not None:
        _gbdt_options("var_kwargs", var_kwargs)
    folds = np.random.default_rng(seed).permutation(X.shape[0]) % n_folds
    m_oof = np.empty_like(y)
    for k in range(n_folds):
        te = folds == k
        m_oof[te] = fit_gbdt(X[~te], y[~te], max_iter=max_iter, seed=seed).predict(X[te])
    target = np.log((y - m_oof) ** 2 + delta)
    vkw = dict(VAR_GBDT if var_kwargs is None else var_kwargs)
    u_query = np.exp(fit_gbdt(X, target, max_iter=max_iter, seed=seed, **vkw).predict(Xq) - LOG_CHI2_BIAS)
    if not return_train:
        return u_query
    u_train = np.empty_like(y)
    for k in range(n_folds):
        te = folds == k
        fit = fit_gbdt(X[~te], target[~te], max_iter=max_iter, seed=seed, **vkw)
        u_train[te] = np.exp(fit.predict(X[te]) - LOG_CHI2_BIAS)
    return u_query, u_train


JOINT = dict(n_iter=2000, lr=0.1, lr_var=0.03, max_depth=3, min_samples_leaf=30, val_frac=0.2, patience=100)
"""Settings of :func:`joint_uncertainty`, chosen on development seeds 100-101 (docs/papers/tabular_uncertainty.md)."""


def joint_uncertainty(X_train, y_train, X_query, n_iter: int = 2000, lr: float = 0.1, lr_var: float = 0.03,
                      max_depth: int = 3, min_samples_leaf: int = 30, val_frac: float = 0.2, patience: int = 100,
                      seed: int = 0, return_mean: bool = False):
    """Joint Gaussian-likelihood boosting of mean ``f`` and log-sd ``g`` (§3.1, our stand-in for CatBoost
    ``RMSEWithUncertainty``): minimises ``sum_i g_i + (y_i - f_i)^2 / (2 exp(2 g_i))`` by Newton steps with
    regression trees, one tree per parameter and round:

    * mean: gradient ``-(y - f) / s^2``, hessian ``1 / s^2``: a tree fitted to ``y - f`` with weights ``1 / s^2``
      (low-noise points pull the mean hardest, so the mean fit is best exactly where a leaking mean-fit error
      would hurt the variance most);
    * log-sd: ``0.5 (z^2 - 1)`` with ``z = (y - f) / s`` (Newton step with the expected hessian 2).

    Rounds stop when the held-out (``val_frac``) NLL has not improved for ``patience`` rounds, at most ``n_iter``
    rounds; the predictions of the best round are kept. Returns ``u = exp(2 g)`` on ``X_query`` (and the mean and
    the number of rounds kept, ``== n_iter`` where the cap was hit, when ``return_mean``).
    """
    from sklearn.tree import DecisionTreeRegressor

    X, y, Xq = _check_train_query(X_train, y_train, X_query)
    _check_sizes(n_iter=n_iter, max_depth=max_depth, min_samples_leaf=min_samples_leaf, patience=patience)
    checks.positive_number("lr", lr)
    checks.positive_number("lr_var", lr_var)
    checks.in_range("val_frac", val_frac, 0.0, 1.0, low_open=True, high_open=True)
    checks.seed("seed", seed)
    perm = np.random.default_rng(seed).permutation(len(y))
    n_val = max(1, int(val_frac * len(y)))
    va, tr = perm[:n_val], perm[n_val:]
    if len(tr) < 2:
        raise ValueError(f"X_train needs at least 2 training rows after the validation split; got {len(tr)}")
    start = np.array([y[tr].mean(), np.log(y[tr].std() + 1e-12)])
    F, Q = np.tile(start, (len(y), 1)), np.tile(start, (len(Xq), 1))
    best, best_q, best_round, bad = np.inf, Q.copy(), 0, 0

    def tree(target, weight=None):
        return DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                                     random_state=seed).fit(X[tr], target[tr], sample_weight=weight)

    for it in range(n_iter):
        resid, prec = y - F[:, 0], np.exp(-2 * F[:, 1])
        t = tree(resid, prec[tr])
        F[:, 0] += lr * t.predict(X)
        Q[:, 0] += lr * t.predict(Xq)
        t = tree(0.5 * ((y - F[:, 0]) ** 2 * np.exp(-2 * F[:, 1]) - 1))
        F[:, 1] = np.clip(F[:, 1] + lr_var * t.predict(X), -7.0, 7.0)
        Q[:, 1] = np.clip(Q[:, 1] + lr_var * t.predict(Xq), -7.0, 7.0)
        nll = float(np.mean(F[va, 1] + 0.5 * (y[va] - F[va, 0]) ** 2 * np.exp(-2 * F[va, 1])))
        if nll < best - 1e-6:
            best, best_q, best_round, bad = nll, Q.copy(), it + 1, 0
        else:
            bad += 1
            if bad >= patience:
                break
    u = np.exp(2 * best_q[:, 1])
    return (u, best_q[:, 0], best_round) if return_mean else u


class HeteroMLP(nn.Module):
    """Two-head MLP: mean ``f(x)`` and log-sd ``g(x)`` (clamped to [-7, 7] for stability, §3.1)."""

    def __init__(self, n_features: int, width: int = 64, n_blocks: int = 2):
        super().__init__()
        _check_sizes(n_features=n_features, width=width, n_blocks=n_blocks)
        layers, d = [], n_features
        for _ in range(n_blocks):
            layers += [nn.Linear(d, width), nn.ReLU()]
            d = width
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, 2)
        self.warm = True
        self.beta = 0.5

    def mean_logsd(self, x):
        out = self.head(self.body(x))
        return out[:, 0], out[:, 1].clamp(-7.0, 7.0)

    def forward(self, x):
        return self.mean_logsd(x)[0]

    def loss(self, x, y):
        mean, g = self.mean_logsd(x)
        if self.warm:
            return ((mean - y) ** 2).mean()
        nll = g + (y - mean) ** 2 / (2 * torch.exp(2 * g))
        if self.beta:
            nll = nll * torch.exp(2 * g).detach() ** self.beta  # beta-NLL (Seitzer et al. 2022)
        return nll.mean()


def hetero_mlp_uncertainty(X_train, y_train, X_query, width: int = 64, n_blocks: int = 2, epochs: int = 40,
                           warm_epochs: int = 10, lr: float = 1e-3, batch_size: int = 256, beta: float = 0.5,
                           val_frac: float = 0.2, seed: int = 0, device="cpu") -> np.ndarray:
    """Heteroscedastic-MLP estimate of ``u(x) = exp(2 g(x))`` for ``X_query`` (§3.1 robustness check).

    The mean head is warm-started with MSE for ``warm_epochs``, then both heads minimise the
    (beta-weighted) Gaussian NLL; ``y`` is standardised internally and ``u`` mapped back.
    """
    X, y, Xq = _check_train_query(X_train, y_train, X_query)
    if not 0 < val_frac < 1:
        raise ValueError(f"val_frac must be in (0, 1); got {val_frac}")
    _check_sizes(width=width, n_blocks=n_blocks, epochs=epochs, batch_size=batch_size)
    checks.nonnegative_int("warm_epochs", warm_epochs)
    checks.positive_number("lr", lr)
    checks.nonnegative_number("beta", beta)
    checks.seed("seed", seed)
    checks.device("device", device)
    torch.manual_seed(seed)
    mu, sd = y.mean(), y.std() + 1e-12
    ys = (y - mu) / sd
    n_val = max(1, int(val_frac * len(y)))
    perm = np.random.default_rng(seed).permutation(len(y))
    va, tr = perm[:n_val], perm[n_val:]
    model = HeteroMLP(X.shape[1], width, n_blocks)
    model.beta = beta
    if warm_epochs > 0:
        fit_nn(model, X[tr], ys[tr], X[va], ys[va], epochs=warm_epochs, lr=lr, batch_size=batch_size,
               seed=seed, device=device)
    model.warm = False
    # early stopping on the validation NLL is emulated by keeping the best validation MSE of the mean
    fit_nn(model, X[tr], ys[tr], X[va], ys[va], epochs=epochs, lr=lr, batch_size=batch_size, seed=seed + 1,
           device=device)
    with torch.no_grad():
        _, g = model.mean_logsd(_as_tensor("X_query", X_query, torch.device(device), 2))
    return (torch.exp(2 * g).double().cpu().numpy()) * sd ** 2


def quintile_shares(delta, u, n_groups: int = 5, min_total: float = 1e-12) -> np.ndarray:
    """Signed shares ``S_q = D_q / sum_q' |D_q'|`` of the per-group improvements ``D_q = sum_{i in q} Delta_i``
    over ``n_groups`` equal groups of samples sorted by ``u`` ascending (group ``n_groups - 1`` = highest
    uncertainty). Our summary of the §3.2 plot.

    Where the method beats the baseline in every group this is the plain share of the total gain
    ``D_q / sum D``; it stays defined (and bounded in ``[-1, 1]``) when the method is *worse* somewhere:
    a group where it loses gets a negative share, so "S_5 >= 0.4" can pass or fail for every baseline.
    Only when ``sum_q |D_q| <= min_total * n`` (the two models agree everywhere) are NaNs returned.
    """
    checks.nonnegative_number("min_total", min_total)
    delta, u = np.asarray(delta, dtype=np.float64), np.asarray(u, dtype=np.float64)
    if delta.ndim != 1 or delta.shape != u.shape or len(delta) < n_groups:
        raise ValueError(f"delta and u must be 1-D of equal length >= n_groups; got {delta.shape}, {u.shape}")
    if isinstance(n_groups, bool) or not isinstance(n_groups, int) or n_groups < 1:
        raise ValueError(f"n_groups must be a positive integer; got {n_groups!r}")
    if not (np.isfinite(delta).all() and np.isfinite(u).all()):
        raise ValueError("delta and u must be finite")
    sums = np.array([g.sum() for g in np.array_split(delta[np.argsort(u, kind="stable")], n_groups)])
    scale = np.abs(sums).sum()
    if scale <= min_total * len(delta):
        return np.full(n_groups, np.nan)
    return sums / scale


def overstatement(u, var, n_groups: int = 5) -> tuple[float, np.ndarray]:
    """How much an estimate ``u`` over-states the true noise variance ``var``: the geometric mean of ``u / var``
    over all points and within ``n_groups`` groups sorted by ``var`` (ascending). 1 = calibrated in level."""
    u, var = checks.array("u", u, ndim=1), checks.array("var", var, ndim=1)
    if u.shape != var.shape or len(u) < n_groups or not (u > 0).all() or not (var > 0).all():
        raise ValueError(f"u and var must be positive 1-D arrays of equal length >= n_groups; got {u.shape}, "
                         f"{var.shape}")
    r = np.log(np.asarray(u, dtype=np.float64) / np.asarray(var, dtype=np.float64))
    return float(np.exp(r.mean())), np.exp(group_means(r, var, n_groups))


def group_means(values, u, n_groups: int = 5) -> np.ndarray:
    """Mean of ``values`` within ``n_groups`` equal groups of samples sorted by ``u`` (ascending)."""
    checks.positive_int("n_groups", n_groups)
    values, u = np.asarray(values, dtype=np.float64), np.asarray(u, dtype=np.float64)
    checks.array("values", values)
    checks.array("u", u)
    if values.shape != u.shape or values.ndim != 1 or len(values) < n_groups:
        raise ValueError(f"values and u must be 1-D of equal length >= n_groups; got {values.shape}, {u.shape}")
    return np.array([g.mean() for g in np.array_split(values[np.argsort(u, kind="stable")], n_groups)])


def uncertainty_curve(err_base, err_method, u, sigma_frac: float = 0.01):
    """The uncertainty plot of §3.2: samples sorted by ``u``; returns ``(rank, smoothed Delta, smoothed
    baseline error)`` with ``Delta = err_base - err_method`` and a Gaussian filter of sd
    ``sigma_frac * n`` samples (the paper's sigma is unknown; 1% is inferred)."""
    err_base, err_method, u = (np.asarray(a, dtype=np.float64) for a in (err_base, err_method, u))
    if not (err_base.shape == err_method.shape == u.shape) or err_base.ndim != 1:
        raise ValueError("err_base, err_method and u must be 1-D arrays of the same length")
    for name, a in (("err_base", err_base), ("err_method", err_method), ("u", u)):
        checks.array(name, a)
    checks.positive_number("sigma_frac", sigma_frac)
    order = np.argsort(u, kind="stable")
    s = sigma_frac * len(u)
    smooth = (lambda a: gaussian_filter1d(a, s, mode="nearest")) if s >= 0.1 else (lambda a: a)  # noqa: E731
    delta, base = smooth((err_base - err_method)[order]), smooth(err_base[order])
    return np.arange(len(u)) / max(1, len(u) - 1), delta, base


def neighbour_target_mse(Z_train, y_train, Z_query, y_query, k: int = 10, device="cpu") -> np.ndarray:
    """Local target consistency (§3.3): per query, mean ``(y_q - y_j)^2`` over its ``k`` nearest training
    rows ``j`` in the representation ``Z``. Lower = more target-consistent neighbourhoods."""
    checks.device("device", device)
    device = torch.device(device)
    Zt, Zq = _as_tensor("Z_train", Z_train, device, 2), _as_tensor("Z_query", Z_query, device, 2)
    yt, yq = _as_tensor("y_train", y_train, device, 1), _as_tensor("y_query", y_query, device, 1)
    if Zt.shape[0] != yt.shape[0] or Zq.shape[0] != yq.shape[0]:
        raise ValueError("Z_train and y_train (and Z_query and y_query) must have the same number of rows")
    if Zq.shape[1] != Zt.shape[1]:
        raise ValueError(f"Z_query must have {Zt.shape[1]} columns like Z_train; got {Zq.shape[1]}")
    idx = knn_indices(Zt, Zq, k)
    return ((yt[idx] - yq[:, None]) ** 2).mean(1).double().cpu().numpy()


def triplet_loss(z: torch.Tensor, y: torch.Tensor, q: float = 0.2, margin: float = 0.5, normalize: bool = True,
                 generator: torch.Generator | None = None) -> torch.Tensor:
    """Target-aware triplet loss of §3.4 (mining inferred): every batch row is an anchor ``a``; ``p`` is
    drawn among the ``q``-fraction of other rows with the closest targets, ``n`` among the ``q``-fraction
    with the farthest; loss = ``mean max(0, |z_a - z_p|^2 - |z_a - z_n|^2 + margin)`` on (L2-normalised) ``z``.
    """
    checks.tensor("z", z, dtype_kind="float")
    checks.tensor("y", y, dtype_kind="float")
    checks.finite_number("q", q)
    checks.finite_number("margin", margin)
    _check_generator(generator)
    return _triplet_loss(z, y, q, margin, normalize, generator)


def make_triplet_lrlr(n_features: int, triplet_weight: float = 0.1, q: float = 0.2, margin: float = 0.5, **kw):
    """The paper's new model (§3.4): MLP-LRLR with the auxiliary target-aware triplet loss."""
    checks.in_range("q", q, 0.0, 0.5, low_open=True)
    checks.nonnegative_number("margin", margin)
    return MLPRegressor(n_features, embedding="lrlr", triplet_weight=triplet_weight,
                        triplet_kwargs=dict(q=q, margin=margin), **kw)


def gradient_noise_split(model: nn.Module, X, y, f) -> dict:
    """Clean/noisy decomposition of the training gradient (§3.3, protocol inferred): with ``g(y)`` the
    gradient of ``model.loss`` on noisy targets and ``g_clean = g(f)``, returns
    ``||g(y) - g_clean|| / ||g_clean||`` and ``cos(g(y), g_clean)`` over all parameters."""
    _check_model(model)
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("model must have trainable parameters")
    dev = params[0].device
    X, y, f = (_as_tensor(n, a, dev, d) for n, a, d in (("X", X, 2), ("y", y, 1), ("f", f, 1)))
    if y.shape[0] != X.shape[0] or f.shape[0] != X.shape[0]:
        raise ValueError(f"y and f must have one entry per row of X ({X.shape[0]}); got {y.shape[0]} and {f.shape[0]}")

    def flat(target):
        grads = torch.autograd.grad(model.loss(X, target), params, allow_unused=True)
        return torch.cat([(g if g is not None else torch.zeros_like(p)).reshape(-1) for g, p in zip(grads, params)])

    g_y, g_f = flat(y), flat(f)
    ratio = float((g_y - g_f).norm() / g_f.norm().clamp_min(1e-30))
    cos = float(torch.dot(g_y, g_f) / (g_y.norm() * g_f.norm()).clamp_min(1e-30))
    return {"noise_to_clean": ratio, "cos": cos}


@torch.no_grad()
def pfn_regress(model, X_ctx, y_ctx, X_query, device="cpu") -> np.ndarray:
    """Tiny-PFN regression (§3.3, ICML addition): standardise with context statistics, one forward pass
    with the context encoded once, and map the predicted mean back to the target scale."""
    from icml26.data.priors import standardize

    if not isinstance(model, nn.Module) or not callable(getattr(model, "predict", None)):
        raise TypeError(f"model must be a TinyPFN (a module with predict); got {type(model).__name__}")
    checks.device("device", device)
    device = torch.device(device)
    Xc, Xq = _as_tensor("X_ctx", X_ctx, device, 2), _as_tensor("X_query", X_query, device, 2)
    yc = _as_tensor("y_ctx", y_ctx, device, 1)
    if Xc.shape[0] < 2 or yc.shape[0] != Xc.shape[0]:
        raise ValueError(f"X_ctx and y_ctx must have the same number (>= 2) of rows; got {Xc.shape[0]}, {yc.shape[0]}")
    if Xq.shape[1] != Xc.shape[1]:
        raise ValueError(f"X_query must have {Xc.shape[1]} columns like X_ctx; got {Xq.shape[1]}")
    X = torch.cat([Xc, Xq])[None]
    Xs, _, _ = standardize(X, Xc.shape[0])
    mu, sd = yc.mean(), yc.std().clamp_min(1e-6)
    model.to(device).eval()
    mean, _ = model.predict(Xs[:, :Xc.shape[0]], ((yc - mu) / sd)[None], Xs[:, Xc.shape[0]:])
    return (mean[0] * sd + mu).double().cpu().numpy()


def spearman(a, b) -> float:
    """Spearman rank correlation (scipy)."""
    from scipy.stats import spearmanr

    a_, b_ = checks.array("a", a, ndim=1), checks.array("b", b, ndim=1)
    if len(a_) != len(b_) or len(a_) < 2:
        raise ValueError(f"a and b must have the same length (>= 2); got {len(a_)} and {len(b_)}")

    return float(spearmanr(np.asarray(a), np.asarray(b)).statistic)


def excess(pred, f) -> np.ndarray:
    """Per-sample excess error ``(y_hat - f(x))^2`` against the noiseless function (§6)."""
    pred, f = np.asarray(pred, dtype=np.float64), np.asarray(f, dtype=np.float64)
    if pred.shape != f.shape:
        raise ValueError(f"pred and f must have the same shape; got {pred.shape}, {f.shape}")
    checks.array("pred", pred)
    checks.array("f", f)
    return (pred - f) ** 2


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("math", "np", "torch", "nn", "checks")]
