"""Generic scaling-law fitting utilities (kept paper-agnostic so they can move to a shared block).

A law is a :class:`LawSpec`: named parameters with shapes, box bounds and a random initialiser,
plus a torch ``predict(params, h, N, D) -> (M, K)`` function. :func:`fit_law` minimises the MSE
(or a Huber loss) between predicted and observed losses over *active* entries with L-BFGS-B from
several random starts (float64 torch autograd gradients) and keeps the best start **by training
objective** (never by validation error; docs/papers/data_mixing.md §6).
Also here: the held-out metric (MRE, that page §3.6),
a split by mixture, and a batched search on the probability simplex (that page §3.7).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy import optimize

from icml26 import checks

DTYPE = torch.float64


@dataclass(frozen=True)
class Param:
    """One named parameter block: ``shape`` (a function of K), bounds and an initialiser.

    ``lower``/``upper`` are floats or functions of the fitting context (a dict with ``K``,
    ``N_min``, ``L_min`` ...); ``init(rng, ctx)`` returns an array of the block's shape.
    """

    name: str
    shape: Callable[[int], tuple]
    lower: float | Callable[[Mapping], float]
    upper: float | Callable[[Mapping], float]
    init: Callable[[np.random.Generator, Mapping], np.ndarray]


@dataclass(frozen=True)
class LawSpec:
    """A mixing law: its name, parameter blocks and a batched torch predictor."""

    name: str
    params: tuple[Param, ...]
    predict: Callable[[Mapping[str, torch.Tensor], torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]
    uses_scale: bool = True
    notes: str = ""

    def n_params(self, K: int) -> int:
        """Number of free scalars of the law for K domains."""
        return int(sum(math.prod(p.shape(K)) for p in self.params))


@dataclass
class FitResult:
    """Best parameters (numpy), its training objective, and every start's objective."""

    law: LawSpec
    K: int
    params: dict
    train_loss: float
    start_losses: list = field(default_factory=list)
    seconds: float = 0.0

    def predict(self, h, N, D, device="cpu") -> np.ndarray:
        """Predicted losses (M, K) for mixtures ``h`` at sizes ``N`` and data ``D``."""
        h, N, D = as_batch(h, N, D, self.K, device)
        p = {k: torch.as_tensor(v, dtype=DTYPE, device=device) for k, v in self.params.items()}
        with torch.no_grad():
            return self.law.predict(p, h, N, D).cpu().numpy()


def check_weights(h, K: int | None = None, name: str = "h", atol: float = 1e-6) -> np.ndarray:
    """Validate mixture weights: a (K,) or (M, K) array, finite, >= 0, rows summing to one, K >= 2.

    Raises ``ValueError`` naming ``name`` and the expectation.
    """
    if K is not None and checks.positive_int("K", K) < 2:
        raise ValueError(f"K must be an integer >= 2 (the number of domains); got {K!r}")
    checks.nonnegative_number("atol", atol)
    try:
        arr = np.asarray(h.detach().cpu() if isinstance(h, torch.Tensor) else h, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of mixture weights; got {type(h).__name__} ({exc})") from None
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0 or arr.size == 0:
        raise ValueError(f"{name} must be a (K,) or (M, K) array of mixture weights; got shape {arr.shape}")
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} must have K >= 2 domains (a mixture of one domain is no mixture); got K=1")
    if K is not None and arr.shape[-1] != K:
        raise ValueError(f"{name} must have length K={K} (one weight per domain); got {arr.shape[-1]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative; got min {arr.min():.3g}")
    s = arr.sum(-1)
    if np.any(np.abs(s - 1) > atol):
        raise ValueError(f"{name} must sum to one over domains; got sums in [{s.min():.6g}, {s.max():.6g}]")
    return arr


def as_batch(h, N, D, K: int | None = None, device="cpu"):
    """Validate and broadcast (h, N, D) into float64 tensors of shapes (M, K), (M,), (M,)."""
    checks.device("device", device)
    arr = check_weights(h, K)
    arr = arr[None] if arr.ndim == 1 else arr
    M = arr.shape[0]
    out = [torch.as_tensor(arr, dtype=DTYPE, device=device)]
    for nm, v in (("N", N), ("D", D)):
        try:
            a = np.broadcast_to(np.asarray(v, dtype=np.float64), (M,)) if np.ndim(v) <= 1 else None
        except (TypeError, ValueError):
            a = None
        if a is None or a.shape != (M,):
            raise ValueError(f"{nm} must be a scalar or a length-{M} vector; got shape {np.shape(v)}")
        if not np.all(np.isfinite(a)) or np.any(a <= 0):
            raise ValueError(f"{nm} must be finite and positive")
        out.append(torch.tensor(np.array(a), dtype=DTYPE, device=device))
    return tuple(out)


def mre(pred, obs, mask=None) -> float:
    """Mean relative error |pred - obs| / |obs| over the entries where ``mask`` is true (§3.6)."""
    checks.array("pred", pred)
    checks.array("obs", obs)
    pred, obs = np.asarray(pred, float), np.asarray(obs, float)
    if pred.shape != obs.shape:
        raise ValueError(f"pred and obs must have the same shape; got {pred.shape} and {obs.shape}")
    m = np.ones(obs.shape, bool) if mask is None else np.asarray(mask, bool)
    if m.shape != obs.shape:
        raise ValueError(f"mask must have the shape of obs {obs.shape}; got {m.shape}")
    if not m.any():
        raise ValueError("mask must select at least one entry")
    if np.any(obs[m] == 0):
        raise ValueError("obs must be non-zero where mask selects it (the error is relative to obs)")
    return float(np.mean(np.abs(pred[m] - obs[m]) / np.abs(obs[m])))


def split_by_mixture(groups, train_frac: float = 0.7, seed: int = 0):
    """Boolean train mask over rows, holding out whole mixtures (``groups`` = mixture id per row)."""
    if not 0 < train_frac < 1:
        raise ValueError(f"train_frac must lie in (0, 1); got {train_frac}")
    checks.seed("seed", seed)
    checks.array("groups", groups, ndim=1)
    groups = np.asarray(groups)
    uniq = np.unique(groups)
    if len(uniq) < 2:
        raise ValueError("groups must hold at least two distinct mixtures to split")
    rng = np.random.default_rng(seed)
    n_train = min(len(uniq) - 1, max(1, int(round(train_frac * len(uniq)))))
    train_ids = rng.permutation(uniq)[:n_train]
    return np.isin(groups, train_ids)


def _bounds(spec: LawSpec, K: int, ctx: Mapping):
    lo, hi = [], []
    for p in spec.params:
        n = math.prod(p.shape(K))
        a = p.lower(ctx) if callable(p.lower) else p.lower
        b = p.upper(ctx) if callable(p.upper) else p.upper
        lo += [a] * n
        hi += [b] * n
    return np.array(lo, float), np.array(hi, float)


def _unflatten(spec: LawSpec, K: int, theta: torch.Tensor) -> dict:
    out, i = {}, 0
    for p in spec.params:
        shp = p.shape(K)
        n = math.prod(shp)
        out[p.name] = theta[i:i + n].reshape(shp)
        i += n
    return out


def fit_law(spec: LawSpec, h, N, D, L, active=None, *, restarts: int = 8, seed: int = 0, loss: str = "mse",
            huber_delta: float = 1.0, maxiter: int = 500, active_threshold: float = 0.0, device="cpu",
            init: Mapping | None = None) -> FitResult:
    """Fit ``spec`` to observed losses ``L`` (M, K) at mixtures ``h`` (M, K), sizes ``N`` and data ``D``.

    Objective: mean squared (or Huber, or squared log-ratio ``log_mse``) error over active entries
    (``h > active_threshold`` unless an ``active`` mask is given). ``restarts`` random starts of
    L-BFGS-B within the law's bounds, best by training objective.
    ``init`` (a dict of arrays) replaces the first start (a warm start).
    Raises ``ValueError`` when there are fewer active observations than parameters.
    """
    if loss not in ("mse", "huber", "log_mse"):
        raise ValueError(f"loss must be 'mse', 'huber' or 'log_mse'; got {loss!r}")
    if not isinstance(spec, LawSpec):
        raise TypeError(f"spec must be a LawSpec; got {type(spec).__name__}")
    checks.positive_int("restarts", restarts)
    checks.seed("seed", seed)
    checks.positive_number("huber_delta", huber_delta)
    checks.positive_int("maxiter", maxiter)
    checks.in_range("active_threshold", active_threshold, 0.0, 1.0, high_open=True)
    if init is not None:
        checks.config("init", init, required=[p.name for p in spec.params])
    h_t, N_t, D_t = as_batch(h, N, D, None, device)
    K = h_t.shape[1]
    L_np = np.asarray(L, float)
    if L_np.shape != tuple(h_t.shape):
        raise ValueError(f"L must have the shape of h {tuple(h_t.shape)}; got {L_np.shape}")
    if not np.all(np.isfinite(L_np)) or np.any(L_np <= 0):
        raise ValueError("L must be finite and positive (losses)")
    act = (h_t.cpu().numpy() > active_threshold) if active is None else np.asarray(active, bool)
    if act.shape != tuple(h_t.shape):
        raise ValueError(f"active must be a boolean mask of the shape of h {tuple(h_t.shape)}; got {act.shape}")
    n_obs, n_par = int(act.sum()), spec.n_params(K)
    if n_obs < n_par:
        raise ValueError(f"L holds {n_obs} active observations, fewer than the {n_par} parameters of "
                         f"{spec.name}; a fit needs at least as many observations as parameters")
    L_t = torch.as_tensor(L_np, dtype=DTYPE, device=device)
    act_t = torch.as_tensor(act, device=device)
    ctx = {"K": K, "N_min": float(N_t.min()), "N_max": float(N_t.max()), "D_min": float(D_t.min()),
           "L_min": L_np.min(0), "L_max": L_np.max(0), "L_mean": L_np.mean(0)}
    lo, hi = _bounds(spec, K, ctx)

    def objective(theta_np):
        theta = torch.tensor(theta_np, dtype=DTYPE, device=device, requires_grad=True)
        pred = spec.predict(_unflatten(spec, K, theta), h_t, N_t, D_t)
        r = (pred - L_t)[act_t]
        if loss == "mse":
            val = (r ** 2).mean()
        elif loss == "log_mse":  # squared relative error, matched to the MRE metric
            val = ((torch.log(torch.clamp(pred[act_t], min=1e-12)) - torch.log(L_t[act_t])) ** 2).mean()
        else:
            val = torch.nn.functional.huber_loss(pred[act_t], L_t[act_t], delta=huber_delta)
        if not torch.isfinite(val):
            return 1e10, np.zeros_like(theta_np)
        (g,) = torch.autograd.grad(val, theta)
        g = torch.nan_to_num(g, nan=0.0, posinf=0.0, neginf=0.0)
        return float(val.detach()), g.cpu().numpy()

    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    best, losses = None, []
    for r in range(restarts):
        src = init if (r == 0 and init is not None) else {p.name: p.init(rng, ctx) for p in spec.params}
        x0 = np.concatenate([np.broadcast_to(np.asarray(src[p.name], float), p.shape(K)).ravel()
                             for p in spec.params])
        x0 = np.clip(x0, lo, hi)
        res = optimize.minimize(objective, x0, jac=True, method="L-BFGS-B", bounds=list(zip(lo, hi)),
                                options={"maxiter": maxiter, "ftol": 1e-15, "gtol": 1e-10})
        losses.append(float(res.fun))
        if best is None or res.fun < best.fun:
            best = res
    params = {k: v.detach().cpu().numpy() for k, v in _unflatten(spec, K, torch.as_tensor(best.x)).items()}
    return FitResult(spec, K, params, float(best.fun), losses, time.perf_counter() - t0)


def simplex_from_logits(z: torch.Tensor, h_min: float) -> torch.Tensor:
    """h = h_min + (1 - K h_min) softmax(z): a point of the simplex with every weight >= h_min (§3.7)."""
    checks.tensor("z", z, ndim=(1, 2, 3))
    K = z.shape[-1]
    if K < 2:
        raise ValueError(f"z must have K >= 2 logits along its last axis; got shape {tuple(z.shape)}")
    checks.in_range("h_min", h_min, 0.0, 1.0 / K, high_open=True)
    return _simplex_from_logits(z, h_min)


def _simplex_from_logits(z: torch.Tensor, h_min: float) -> torch.Tensor:
    K = z.shape[-1]
    return h_min + (1 - K * h_min) * torch.softmax(z, -1)


def minimize_on_simplex(loss_fn: Callable[[torch.Tensor], torch.Tensor], K: int, *, restarts: int = 16,
                        steps: int = 300, lr: float = 0.1, h_min: float = 1e-4, seed: int = 0,
                        device="cpu") -> tuple[np.ndarray, float]:
    """Minimise ``loss_fn(h) -> (R,)`` over the simplex from ``restarts`` starts at once (batched Adam
    on softmax logits; the starts are independent because the objective is separable). Returns the
    best h (K,) and its loss."""
    if not isinstance(K, int) or K < 2:
        raise ValueError(f"K must be an integer >= 2; got {K!r}")
    if not 0 <= h_min < 1 / K:
        raise ValueError(f"h_min must lie in [0, 1/K); got {h_min}")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable (h -> one loss per row); got {type(loss_fn).__name__}")
    checks.positive_int("restarts", restarts)
    checks.positive_int("steps", steps)
    checks.positive_number("lr", lr)
    checks.seed("seed", seed)
    checks.device("device", device)
    g = torch.Generator(device="cpu").manual_seed(seed)
    z0 = torch.randn(restarts, K, generator=g, dtype=DTYPE)
    z0[0] = 0.0  # the uniform mixture is always one start
    z = z0.to(device).requires_grad_(True)
    opt = torch.optim.Adam([z], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(_simplex_from_logits(z, h_min)).sum().backward()
        opt.step()
    with torch.no_grad():
        h = _simplex_from_logits(z, h_min)
        vals = loss_fn(h)
        i = int(torch.argmin(vals))
    return h[i].cpu().numpy(), float(vals[i])
