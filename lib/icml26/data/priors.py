"""Synthetic task priors for training prior-data fitted networks (PFNs), batched in torch.

Every prior is a function ``sample_batch(B, n_ctx, n_qry, d, generator=None, seed=None,
device="cpu", ...) -> (X, y, meta)`` that draws ``B`` independent tasks with ``n_ctx`` context rows
followed by ``n_qry`` query rows:

* ``X``: ``(B, n_ctx + n_qry, d)`` float32, standardised per task with the **context** statistics
  (the same transformation is applied at inference time);
* ``y``: ``(B, n_ctx + n_qry)``: ``int64`` classes for classification, float32 for regression
  (standardised with the context mean/sd, kept in ``meta``);
* ``meta``: a dict of per-task tensors describing the drawn tasks.

Priors (after the tiny-PFN section of the strategic_pfn note, which follows TabPFN v1):

* :func:`linear_logistic` ``w ~ N(0, I/d)``, ``b ~ N(0, 0.5^2)``, ``y ~ Bernoulli(sigmoid(a (w.x + b)))``,
  ``a ~ LogUniform[1, 10]`` (label noise);
* :func:`mlp_scm` random 2-layer MLP (tanh or relu) on a random sparse subset of inputs with Gaussian
  noise injected at the hidden units; classification thresholds a random output unit at a random
  quantile in ``[0.3, 0.7]``; regression returns the raw output plus heteroscedastic noise;
* :func:`gp_rbf` (regression) an RBF-kernel Gaussian process with random length-scale and signal
  variance, noise sd that depends on ``x`` when ``heteroscedastic``.

Inputs are ``N(0, I)`` or uniform on ``[-1, 1]`` (per task) with random per-feature scales.
With ``variable_d=True`` each task uses ``d_eff ~ U{1..d}`` features, the rest zero, rescaled by
``sqrt(d / d_eff)`` so that row norms stay comparable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from icml26 import checks

CLS_TASK, REG_TASK = "cls", "reg"


def _check_sizes(B, n_ctx, n_qry, d):
    for name, v, lo in (("B", B, 1), ("n_ctx", n_ctx, 1), ("n_qry", n_qry, 0), ("d", d, 1)):
        checks.int_at_least(name, v, lo)


def _check_range(name: str, value) -> None:
    """A pair ``(lo, hi)`` of finite numbers with ``0 < lo <= hi``."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"{name} must be a pair (lo, hi); got {value!r}")
    for v in value:
        checks.positive_number(name, v)
    if not value[0] <= value[1]:
        raise ValueError(f"{name} must satisfy 0 < lo <= hi; got {value}")


def _check_common(device, variable_d) -> None:
    checks.device("device", device)
    if not isinstance(variable_d, bool):
        raise TypeError(f"variable_d must be a bool; got {type(variable_d).__name__}")


def make_generator(generator: torch.Generator | None = None, seed: int | None = None,
                   device="cpu") -> torch.Generator:
    """The given ``generator``, or a new one on ``device`` seeded with ``seed`` (default 0)."""
    if generator is not None:
        if not isinstance(generator, torch.Generator):
            raise ValueError(f"generator must be a torch.Generator; got {type(generator).__name__}")
        if seed is not None:
            raise ValueError("pass either generator or seed, not both")
        return generator
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    device = checks.device("device", device)
    g = torch.Generator(device=device)
    g.manual_seed(0 if seed is None else seed)
    return g


def _u(shape, g, device, lo=0.0, hi=1.0):
    return lo + (hi - lo) * torch.rand(shape, generator=g, device=device)


def _n(shape, g, device):
    return torch.randn(shape, generator=g, device=device)


def sample_inputs(B: int, n: int, d: int, g: torch.Generator, device) -> torch.Tensor:
    """Raw inputs ``(B, n, d)``: per task Gaussian or uniform[-1, 1], times random per-feature scales."""
    for name, v in (("B", B), ("n", n), ("d", d)):
        checks.positive_int(name, v)
    if not isinstance(g, torch.Generator):
        raise TypeError(f"g must be a torch.Generator; got {type(g).__name__}")
    checks.device("device", device)
    return _sample_inputs(B, n, d, g, device)


def _sample_inputs(B: int, n: int, d: int, g: torch.Generator, device) -> torch.Tensor:
    gauss = _n((B, n, d), g, device)
    unif = _u((B, n, d), g, device, -1.0, 1.0)
    use_gauss = _u((B, 1, 1), g, device) < 0.5
    scale = torch.exp(_u((B, 1, d), g, device, -1.0, 1.0))
    return torch.where(use_gauss, gauss, unif) * scale


def standardize(X: torch.Tensor, n_ctx: int, eps: float = 1e-6):
    """Standardise ``X (B, n, d)`` per task and feature with the statistics of its first ``n_ctx`` rows."""
    checks.tensor("X", X, ndim=3)
    checks.positive_int("n_ctx", n_ctx)
    checks.positive_number("eps", eps)
    return _standardize(X, n_ctx, eps)


def _standardize(X: torch.Tensor, n_ctx: int, eps: float = 1e-6):
    if X.ndim != 3 or not 1 <= n_ctx <= X.shape[1]:
        raise ValueError(f"X must be (B, n, d) with n >= n_ctx={n_ctx}; got {tuple(X.shape)}")
    ctx = X[:, :n_ctx]
    mean = ctx.mean(1, keepdim=True)
    std = ctx.std(1, keepdim=True, unbiased=False) if n_ctx > 1 else torch.ones_like(mean)
    return (X - mean) / (std + eps), mean, std


def _variable_d(X: torch.Tensor, g, device) -> tuple[torch.Tensor, torch.Tensor]:
    B, _, d = X.shape
    d_eff = torch.randint(1, d + 1, (B,), generator=g, device=device)
    keep = torch.arange(d, device=device)[None, :] < d_eff[:, None]
    X = X * keep[:, None, :] * torch.sqrt(d / d_eff.to(X.dtype))[:, None, None]
    return X, d_eff


def _finish(X, n_ctx, variable_d, g, device, meta):
    X, _, _ = _standardize(X, n_ctx)
    if variable_d:
        X, d_eff = _variable_d(X, g, device)
        meta["d_eff"] = d_eff
    return X.float(), meta


def linear_logistic(B: int, n_ctx: int, n_qry: int, d: int, generator: torch.Generator | None = None,
                    seed: int | None = None, device="cpu", variable_d: bool = False,
                    a_range: tuple[float, float] = (1.0, 10.0)):
    """Linear-logistic classification tasks (binary); ``meta`` holds ``w, b, a``.

    The score is computed on the standardised inputs, so ``w ~ N(0, I/d)`` gives ``w.x`` of unit scale.
    """
    _check_sizes(B, n_ctx, n_qry, d)
    _check_range("a_range", a_range)
    _check_common(device, variable_d)
    g = make_generator(generator, seed, device)
    n = n_ctx + n_qry
    X = _sample_inputs(B, n, d, g, device)
    X, meta = _finish(X, n_ctx, variable_d, g, device, {})
    w = _n((B, d), g, device) / math.sqrt(d)
    b = 0.5 * _n((B,), g, device)
    a = torch.exp(_u((B,), g, device, math.log(a_range[0]), math.log(a_range[1])))
    logit = a[:, None] * (torch.einsum("bnd,bd->bn", X, w) + b[:, None])
    y = (torch.rand((B, n), generator=g, device=device) < torch.sigmoid(logit)).long()
    meta.update(w=w, b=b, a=a)
    return X, y, meta


def _random_mlp(X: torch.Tensor, g, device, hidden: int, noise_sd: float, sparsity: float = 0.5):
    """Forward ``X (B, n, d)`` through a random 2-layer MLP; returns outputs ``(B, n, hidden)`` and the mask."""
    B, n, d = X.shape
    mask = _u((B, d, 1), g, device) < sparsity
    first = torch.randint(0, d, (B,), generator=g, device=device)  # at least one input is used
    mask[torch.arange(B, device=device), first] = True
    W1 = _n((B, d, hidden), g, device) * mask / math.sqrt(max(1.0, sparsity * d))
    W2 = _n((B, hidden, hidden), g, device) / math.sqrt(hidden)
    b1, b2 = 0.5 * _n((B, 1, hidden), g, device), 0.5 * _n((B, 1, hidden), g, device)
    use_tanh = _u((B, 1, 1), g, device) < 0.5
    act = lambda z: torch.where(use_tanh, torch.tanh(z), torch.relu(z))  # noqa: E731
    h = act(X @ W1 + b1)
    h = h + noise_sd * _n(h.shape, g, device)
    out = act(h @ W2 + b2) + noise_sd * _n((B, n, hidden), g, device)
    return out, mask.squeeze(-1)


def mlp_scm(B: int, n_ctx: int, n_qry: int, d: int, generator: torch.Generator | None = None,
            seed: int | None = None, device="cpu", task: str = CLS_TASK, hidden: int = 16,
            noise_sd: float = 0.1, variable_d: bool = False):
    """TabPFN-v1-like MLP structural-causal-model tasks (``task="cls"`` binary, or ``"reg"``).

    Classification thresholds a random output unit at a random quantile ``q ~ U[0.3, 0.7]`` of the
    task's values, so the class balance is ``1 - q`` on average. Regression targets are standardised
    with the context mean/sd (kept in ``meta["y_mean"]``, ``meta["y_std"]``).
    """
    _check_sizes(B, n_ctx, n_qry, d)
    if task not in (CLS_TASK, REG_TASK):
        raise ValueError(f"task must be 'cls' or 'reg'; got {task!r}")
    hidden = checks.int_at_least("hidden", hidden, 2)
    checks.nonnegative_number("noise_sd", noise_sd)
    _check_common(device, variable_d)
    g = make_generator(generator, seed, device)
    n = n_ctx + n_qry
    X = _sample_inputs(B, n, d, g, device)
    X, meta = _finish(X, n_ctx, variable_d, g, device, {})
    out, used = _random_mlp(X, g, device, hidden, noise_sd)
    unit = torch.randint(0, hidden, (B,), generator=g, device=device)
    z = out[torch.arange(B, device=device), :, unit]  # (B, n)
    meta["used_features"] = used
    if task == CLS_TASK:
        q = _u((B,), g, device, 0.3, 0.7)
        idx = (q * (n - 1)).round().long().clamp(0, n - 1)
        thr = z.sort(1).values.gather(1, idx[:, None]).squeeze(1)
        y = (z > thr[:, None]).long()
        meta["quantile"] = q
        return X, y, meta
    sd = 0.1 + 0.3 * torch.sigmoid(out[torch.arange(B, device=device), :, (unit + 1) % hidden])
    z = z + sd * z.std(1, keepdim=True) * _n((B, n), g, device)
    y, y_mean, y_std = _standardize_y(z, n_ctx)
    meta.update(y_mean=y_mean, y_std=y_std, noise_sd=sd)
    return X, y, meta


def _standardize_y(z: torch.Tensor, n_ctx: int, eps: float = 1e-6):
    m = z[:, :n_ctx].mean(1, keepdim=True)
    s = z[:, :n_ctx].std(1, keepdim=True, unbiased=False) if n_ctx > 1 else torch.ones_like(m)
    return ((z - m) / (s + eps)).float(), m.squeeze(1), s.squeeze(1)


def gp_rbf(B: int, n_ctx: int, n_qry: int, d: int, generator: torch.Generator | None = None,
           seed: int | None = None, device="cpu", heteroscedastic: bool = True, variable_d: bool = False,
           lengthscale_range: tuple[float, float] = (0.3, 3.0)):
    """Regression tasks from a Gaussian process with an RBF kernel (``meta``: lengthscale, noise sd).

    ``f ~ GP(0, s^2 exp(-|x - x'|^2 / (2 l^2 d)))`` with ``l ~ LogU(lengthscale_range)``; noise sd is
    ``sigma0`` or, when ``heteroscedastic``, ``sigma0 * (0.5 + sigmoid(v.x))``. Costs one batched
    Cholesky of size ``n_ctx + n_qry``.
    """
    _check_sizes(B, n_ctx, n_qry, d)
    _check_range("lengthscale_range", lengthscale_range)
    _check_common(device, variable_d)
    if not isinstance(heteroscedastic, bool):
        raise TypeError(f"heteroscedastic must be a bool; got {type(heteroscedastic).__name__}")
    g = make_generator(generator, seed, device)
    n = n_ctx + n_qry
    X = _sample_inputs(B, n, d, g, device)
    X, meta = _finish(X, n_ctx, variable_d, g, device, {})
    ls = torch.exp(_u((B,), g, device, math.log(lengthscale_range[0]), math.log(lengthscale_range[1])))
    Xd = X.double()
    sq = torch.cdist(Xd, Xd).pow(2)
    K = torch.exp(-sq / (2 * (ls.double() ** 2)[:, None, None] * d))
    K = K + 1e-6 * torch.eye(n, device=device, dtype=K.dtype)
    L = torch.linalg.cholesky(K)
    f = (L @ _n((B, n, 1), g, device).double()).squeeze(-1).float()
    sigma0 = torch.exp(_u((B,), g, device, math.log(0.05), math.log(0.5)))
    if heteroscedastic:
        v = _n((B, d), g, device) / math.sqrt(d)
        sd = sigma0[:, None] * (0.5 + torch.sigmoid(2 * torch.einsum("bnd,bd->bn", X, v)))
    else:
        sd = sigma0[:, None].expand(B, n)
    z = f + sd * _n((B, n), g, device)
    y, y_mean, y_std = _standardize_y(z, n_ctx)
    meta.update(lengthscale=ls, noise_sd=sd, f=f, y_mean=y_mean, y_std=y_std)
    return X, y, meta


PRIORS: dict[str, Callable] = {"linear_logistic": linear_logistic, "mlp_scm": mlp_scm, "gp_rbf": gp_rbf}
CLS_PRIORS = ("linear_logistic", "mlp_scm")
REG_PRIORS = ("mlp_scm", "gp_rbf")


def mixture(names: Sequence[str], weights: Sequence[float] | None = None, task: str = CLS_TASK,
            **kwargs) -> Callable:
    """A sampler mixing priors: each batch splits its ``B`` tasks among ``names`` by ``weights``.

    Returns ``sample_batch(B, n_ctx, n_qry, d, generator=None, seed=None, device="cpu")``; ``meta``
    holds ``prior`` (index into ``names`` per task). ``kwargs`` are passed to every prior.
    """
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"names must be a list of prior names; got {type(names).__name__}")
    names = list(names)
    allowed = CLS_PRIORS if task == CLS_TASK else REG_PRIORS if task == REG_TASK else None
    if allowed is None:
        raise ValueError(f"task must be 'cls' or 'reg'; got {task!r}")
    if not names or any(nm not in allowed for nm in names):
        raise ValueError(f"names must be a non-empty list drawn from {allowed} for task={task!r}; got {names}")
    if weights is not None:
        checks.array("weights", weights, ndim=1)
    w = torch.ones(len(names)) if weights is None else torch.as_tensor(weights, dtype=torch.float64)
    if w.shape != (len(names),) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"weights must be {len(names)} non-negative numbers with a positive sum; got {weights}")
    w = (w / w.sum()).tolist()

    def sample_batch(B, n_ctx, n_qry, d, generator=None, seed=None, device="cpu"):
        _check_sizes(B, n_ctx, n_qry, d)
        g = make_generator(generator, seed, device)
        counts = [int(math.floor(B * wi)) for wi in w]
        counts[max(range(len(w)), key=lambda i: w[i])] += B - sum(counts)
        Xs, ys, which = [], [], []
        for i, (nm, c) in enumerate(zip(names, counts)):
            if c == 0:
                continue
            extra = dict(kwargs)
            if nm == "mlp_scm":
                extra["task"] = task
            X, y, _ = PRIORS[nm](c, n_ctx, n_qry, d, generator=g, device=device, **extra)
            Xs.append(X)
            ys.append(y)
            which.append(torch.full((c,), i, device=device))
        return torch.cat(Xs), torch.cat(ys), {"prior": torch.cat(which), "names": names}

    return sample_batch
