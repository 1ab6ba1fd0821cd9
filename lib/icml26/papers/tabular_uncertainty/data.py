"""Offline data with known uncertainty (docs §2): ``hetero_sine``, ``sawtooth`` and a torch prior for the PFN.

Every generator returns ``(X, y, f, var)`` as float64 NumPy arrays: inputs ``(n, d)``, noisy targets,
the noiseless regression function ``f(x)`` and the true noise variance ``Var(y | x)`` (the data
uncertainty ``u`` of docs/papers/tabular_uncertainty.md §3.1), so that excess error against ``f`` can be measured.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26 import checks
from icml26.data.priors import make_generator, standardize


def _check_n(name: str, n, lo: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < lo:
        raise ValueError(f"{name} must be an integer >= {lo}; got {n!r}")
    return int(n)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def sine_params(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Amplitudes ``a_j ~ U[0.5, 1.5]`` and frequencies ``w_j ~ U[1.5, 4]`` fixed by ``seed``."""
    _check_n("d", d)
    checks.seed("seed", seed)
    rng = np.random.default_rng([int(seed), 7])
    return rng.uniform(0.5, 1.5, d), rng.uniform(1.5, 4.0, d)


NOISE_DIRS = ("axis", "combo", "multi")


def hetero_sine(n: int, d: int = 4, seed: int = 0, noise_ratio: float = 20.0, noise_scale: float = 1.0,
                sigma_min: float = 0.05, noise_dir: str = "axis", draw_seed: int | None = None):
    """The ``hetero_sine`` task (docs §2): ``f(x) = sum_j a_j sin(w_j x_j) + 0.5 x_1 x_2`` on ``U[-1,1]^d``.

    ``log sigma(x) = log sigma_min + log(noise_ratio) * sigmoid(4 t)`` with ``t = x_3`` (``noise_dir="axis"``)
    or ``t = (x_3 + x_4) / sqrt 2`` (``"combo"``, docs §6) or ``t = (x_2 + x_3 + x_4 - x_1) / 2`` (``"multi"``: the
    noise depends on every feature, including the two of the interaction term), so sigma runs smoothly from
    ``sigma_min`` to ``sigma_min * noise_ratio`` (0.05 -> 1.0 by default). ``y = f + noise_scale * sigma * eps``
    (``noise_scale`` is the global multiplier ``s`` of claim C3). ``seed`` fixes ``f``; ``draw_seed``
    (default ``seed``) the sample.
    """
    n = _check_n("n", n)
    d = _check_n("d", d, 3)
    if noise_dir not in NOISE_DIRS:
        raise ValueError(f"noise_dir must be one of {', '.join(NOISE_DIRS)}; got {noise_dir!r}")
    if noise_dir != "axis" and d < 4:
        raise ValueError(f"d must be >= 4 for noise_dir={noise_dir!r}; got {d}")
    checks.finite_number("noise_ratio", noise_ratio)
    if not noise_ratio >= 1:
        raise ValueError(f"noise_ratio must be >= 1; got {noise_ratio}")
    checks.nonnegative_number("noise_scale", noise_scale)
    checks.positive_number("sigma_min", sigma_min)
    checks.seed("seed", seed)
    if draw_seed is not None:
        checks.seed("draw_seed", draw_seed)
    a, w = sine_params(d, seed)
    rng = np.random.default_rng([int(seed if draw_seed is None else draw_seed), 11])
    X = rng.uniform(-1.0, 1.0, (n, d))
    f = (a * np.sin(w * X)).sum(1) + 0.5 * X[:, 0] * X[:, 1]
    t = {"axis": lambda: X[:, 2], "combo": lambda: (X[:, 2] + X[:, 3]) / math.sqrt(2),
         "multi": lambda: (X[:, 1] + X[:, 2] + X[:, 3] - X[:, 0]) / 2}[noise_dir]()
    sd = np.exp(math.log(sigma_min) + math.log(noise_ratio) * _sigmoid(4.0 * t))
    var = (noise_scale * sd) ** 2
    y = f + noise_scale * sd * rng.standard_normal(n)
    return X, y, f, var


def sawtooth(n: int, seed: int = 0, k: float = 4.0, sigma_low: float = 0.05, sigma_high: float = 0.5,
             d: int = 2):
    """2-D sawtooth (docs §2, inferred design): ``f = frac(k x_1) + 0.3 x_2`` on ``U[-1,1]^2``.

    The noise sd moves smoothly (sigmoid of ``8 x_2``) from ``sigma_low`` (``x_2 < 0``) to ``sigma_high``.
    With ``d = 1`` the second input is dropped (``f = frac(k x)``, noise from ``x``'s sign), for 1-D plots.
    """
    n = _check_n("n", n)
    if d not in (1, 2):
        raise ValueError(f"d must be 1 or 2; got {d!r}")
    checks.positive_number("k", k)
    checks.positive_number("sigma_low", sigma_low)
    checks.positive_number("sigma_high", sigma_high)
    checks.seed("seed", seed)
    rng = np.random.default_rng([int(seed), 13])
    X = rng.uniform(-1.0, 1.0, (n, d))
    x2 = X[:, 1] if d == 2 else X[:, 0]
    f = (k * X[:, 0]) % 1.0 + (0.3 * X[:, 1] if d == 2 else 0.0)
    sd = sigma_low + (sigma_high - sigma_low) * _sigmoid(8.0 * x2)
    y = f + sd * rng.standard_normal(n)
    return X, y, f, sd ** 2


def diabetes():
    """scikit-learn's bundled diabetes table (442 patients, 10 features, disease progression after one year; shipped
    inside the scikit-learn wheel, nothing is downloaded): features and target standardised. Returns ``(X, y)``;
    the noiseless function and the noise variance are unknown on real data."""
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), (y - y.mean()) / y.std()


REAL_TABLES = {"diabetes": diabetes}
DATASETS = {"hetero_sine": hetero_sine, "sawtooth": sawtooth}


def make_dataset(name: str, n: int, seed: int, **kw):
    """Dispatch to :data:`DATASETS` by ``name``."""
    if name not in DATASETS:
        raise ValueError(f"name must be one of {sorted(DATASETS)}; got {name!r}")
    return DATASETS[name](n, seed=seed, **kw)


def hetero_sine_prior(B: int, n_ctx: int, n_qry: int, d: int, generator: torch.Generator | None = None,
                      seed: int | None = None, device="cpu", noise_ratio=(5.0, 30.0), sigma_min=(0.03, 0.1)):
    """A batched PFN prior of ``hetero_sine``-like regression tasks (claim C6), in the
    :mod:`icml26.data.priors` sampler format ``(X, y, meta)``.

    Per task: ``a ~ U[0.5,1.5]^d``, ``w ~ U[1.5,4]^d``, a random unit direction ``v`` for the noise,
    ``log sigma = log s0 + log(r) sigmoid(4 v.x)`` with ``r ~ U(noise_ratio)``, ``s0 ~ U(sigma_min)``.
    ``X`` is standardised with context statistics, ``y`` with the context mean/sd (kept in ``meta``,
    with the noiseless ``f`` and true variance ``var`` on the same standardised scale).
    """
    for name, v, lo in (("B", B, 1), ("n_ctx", n_ctx, 1), ("n_qry", n_qry, 0), ("d", d, 1)):
        _check_n(name, v, lo)
    for name, pair in (("noise_ratio", noise_ratio), ("sigma_min", sigma_min)):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"{name} must be a (low, high) pair; got {pair!r}")
        for v in pair:
            checks.positive_number(name, v)
        if not pair[0] <= pair[1]:
            raise ValueError(f"{name} must be a (low, high) pair with low <= high; got {pair!r}")
    if seed is not None:
        checks.seed("seed", seed)
    checks.device("device", device)
    g = make_generator(generator, seed, device)
    n = n_ctx + n_qry
    u = lambda shape, lo=0.0, hi=1.0: lo + (hi - lo) * torch.rand(shape, generator=g, device=device)  # noqa: E731
    X = u((B, n, d), -1.0, 1.0)
    a, w = u((B, 1, d), 0.5, 1.5), u((B, 1, d), 1.5, 4.0)
    f = (a * torch.sin(w * X)).sum(-1)
    if d >= 2:
        f = f + 0.5 * X[..., 0] * X[..., 1]
    v = torch.randn((B, d), generator=g, device=device)
    v = v / v.norm(dim=-1, keepdim=True)
    r, s0 = u((B, 1), *noise_ratio), u((B, 1), *sigma_min)
    sd = s0 * torch.exp(torch.log(r) * torch.sigmoid(4.0 * torch.einsum("bnd,bd->bn", X, v)))
    y = f + sd * torch.randn((B, n), generator=g, device=device)
    Xs, _, _ = standardize(X, n_ctx)
    mu = y[:, :n_ctx].mean(1, keepdim=True)
    sdy = y[:, :n_ctx].std(1, keepdim=True).clamp_min(1e-6)
    meta = dict(f=(f - mu) / sdy, var=(sd / sdy) ** 2, y_mean=mu, y_std=sdy)
    return Xs, (y - mu) / sdy, meta
