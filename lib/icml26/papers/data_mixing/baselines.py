"""Baselines (docs/papers/data_mixing.md §4), on the same fitting machinery as the method (``fitting.fit_law``).

* ``EXP_LAW``  Data Mixing Laws (Ye et al. 2024): L_i = E_i + exp(sum_j T_ij h_j), K^2 + K parameters
  (their k_i folds into T because sum_j h_j = 1; the form of the authors' ``law_exp.py``). No N or D input.
* ``BIMIX``    BiMix (Ge et al. 2024): L_i = A_i h_i^-alpha_i (B_i D^-beta_i + C_i), five coefficients per
  domain, separable (form recalled, not checked against the BiMix paper; the five-coefficient count is confirmed
  by BiMix's abstract).
* ``SHUKOR``   additive law of Shukor et al. 2025, per target domain:
  L_i = E_i + 1 / sum_j C_ij h_j^gamma_ij + A_i N^-alpha_i + B_i D^-beta_i  (2K^2 + 5K parameters; recalled).
* ``LINEAR``   RegMix-style linear regression of each domain loss on h (K^2 + K parameters, with an intercept
  that is folded like DML's: L_i = sum_j W_ij h_j + w_i0).
* ``NOCAP``    the negative control of the headline (not a published law): our 5K+1 law with its capacity term
  removed, L_i = A_i (D h_i)^-a_i + E_i (3K parameters), fitted by the same fitter; a law of the deliberately
  wrong form, which must lose to the competitors if the test can tell a right form from a wrong one.
* ``uniform_mixture`` and ``grid_search`` (best measured mixture on a candidate set) for the mixture search.
Aioli's static law c_i + b_i exp(-sum_j A_ij p_j) is the exponential law up to reparameterisation.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26 import checks

from .fitting import FitResult, LawSpec, Param, check_weights

H_FLOOR = 1e-4


def _exp_predict(p, h, N, D):
    return p["E"] + torch.exp(h @ p["T"].T)


def _exp_init_T(rng, ctx):
    K = ctx["K"]
    # exp(sum_j T_ij h_j) ~ the loss above E at the start: T_ij = log(L_max,i - E_i) + N(0, 0.1)
    base = np.log(np.maximum(np.asarray(ctx["L_max"]) - 0.5 * np.asarray(ctx["L_min"]), 1e-3))
    return base[:, None] + rng.normal(0.0, 0.1, (K, K))


EXP_LAW = LawSpec(
    name="exp law (Ye et al., K^2+K)",
    params=(Param("T", lambda K: (K, K), -50.0, 50.0, _exp_init_T),
            Param("E", lambda K: (K,), 0.0, 10.0, lambda rng, ctx: np.maximum(ctx["L_min"] - 0.1, 0.0)
                  * rng.uniform(0.3, 1.0, ctx["K"]))),
    predict=_exp_predict,
    uses_scale=False,
    notes="L_i = E_i + exp(sum_j T_ij h_j)",
)


def _bimix_predict(p, h, N, D):
    hh = torch.clamp(h, min=H_FLOOR)
    return p["A"] * hh.pow(-p["alpha"]) * (p["B"] * D[:, None].pow(-p["beta"]) + p["C"])


def _u(lo, hi):
    return lambda rng, ctx: rng.uniform(lo, hi, ctx["K"])


BIMIX = LawSpec(
    name="BiMix (Ge et al., 5K)",
    params=(Param("A", lambda K: (K,), 1e-5, 100.0,
                  lambda rng, ctx: np.asarray(ctx["L_min"]) * rng.uniform(0.5, 1, ctx["K"])),
            Param("alpha", lambda K: (K,), 0.0, 3.0, _u(0.05, 0.5)),
            Param("B", lambda K: (K,), 0.0, 100.0, _u(0.1, 2.0)),
            Param("beta", lambda K: (K,), 0.0, 3.0, _u(0.1, 0.6)),
            Param("C", lambda K: (K,), 1e-5, 100.0, _u(0.5, 1.5))),
    predict=_bimix_predict,
    uses_scale=True,
    notes="L_i = A_i h_i^-alpha_i (B_i D^-beta_i + C_i) (recalled form)",
)


def _shukor_predict(p, h, N, D):
    hh = torch.clamp(h, min=H_FLOOR)
    mix = (p["C"][None] * hh[:, None, :].pow(p["gamma"][None])).sum(-1)  # (M, K_target)
    return p["E"] + 1.0 / mix + p["A"] * N[:, None].pow(-p["alpha"]) + p["B"] * D[:, None].pow(-p["beta"])


SHUKOR = LawSpec(
    name="Shukor additive (2K^2+5K)",
    params=(Param("E", lambda K: (K,), 0.0, 10.0, lambda rng, ctx: 0.3 * np.asarray(ctx["L_min"])),
            Param("C", lambda K: (K, K), 1e-5, 1e4,
                  lambda rng, ctx: rng.uniform(0.5, 2.0, (ctx["K"], ctx["K"])) / np.asarray(ctx["L_min"])[:, None]),
            Param("gamma", lambda K: (K, K), 0.0, 3.0, lambda rng, ctx: rng.uniform(0.1, 1.0, (ctx["K"], ctx["K"]))),
            Param("A", lambda K: (K,), 0.0, 100.0, _u(0.01, 0.5)),
            Param("alpha", lambda K: (K,), 0.0, 3.0, _u(0.1, 0.6)),
            Param("B", lambda K: (K,), 0.0, 100.0, _u(0.01, 0.5)),
            Param("beta", lambda K: (K,), 0.0, 3.0, _u(0.1, 0.6))),
    predict=_shukor_predict,
    uses_scale=True,
    notes="L_i = E_i + 1/sum_j C_ij h_j^gamma_ij + A_i N^-alpha_i + B_i D^-beta_i (recalled form)",
)


def _linear_predict(p, h, N, D):
    return h @ p["W"].T + p["w0"]


LINEAR = LawSpec(
    name="linear (RegMix-style, K^2+K)",
    params=(Param("W", lambda K: (K, K), -100.0, 100.0, lambda rng, ctx: rng.normal(0, 0.01, (ctx["K"], ctx["K"]))),
            Param("w0", lambda K: (K,), -100.0, 100.0, lambda rng, ctx: np.asarray(ctx["L_min"], float))),
    predict=_linear_predict,
    uses_scale=False,
    notes="L_i = sum_j W_ij h_j + w0_i",
)

def _nocap_predict(p, h, N, D):
    return p["A"] * (D[:, None] * torch.clamp(h, min=H_FLOOR)).pow(-p["a"]) + p["E"]


NOCAP = LawSpec(
    name="our law without its capacity term (control, 3K)",
    params=(Param("A", lambda K: (K,), 1e-5, 100.0, lambda rng, ctx: rng.uniform(0.25, 2.0, ctx["K"]) * ctx["L_mean"]),
            Param("a", lambda K: (K,), 0.01, 3.0, _u(0.1, 0.6)),
            Param("E", lambda K: (K,), 0.0, 10.0,
                  lambda rng, ctx: np.minimum(rng.uniform(0.1, 1.0, ctx["K"]), 0.5 * ctx["L_min"]))),
    predict=_nocap_predict,
    uses_scale=True,
    notes="L_i = A_i (D h_i)^-a_i + E_i: the 5K+1 law with c_i x_i*(h)^-b_i removed (the headline's control)",
)

LAWS_BASELINE = {"exp": EXP_LAW, "bimix": BIMIX, "shukor": SHUKOR, "linear": LINEAR, "nocap": NOCAP}
COMPETITORS = ("exp", "bimix", "shukor", "linear")
"""The published laws our law is compared with (``nocap`` is the control, never a competitor)."""


def exp_law_n_params(K: int) -> int:
    """Parameter count of the exponential law for K domains: K^2 + K."""
    if not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer >= 2; got {K!r}")
    return int(K) * int(K) + int(K)


def uniform_mixture(K: int) -> np.ndarray:
    """The uniform mixture (1/K, ..., 1/K)."""
    if not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer >= 2; got {K!r}")
    return np.full(int(K), 1.0 / K)


def simplex_grid(K: int, n: int) -> np.ndarray:
    """All mixtures with weights in {0, 1/n, ..., 1} (the grid-search candidates), shape (C(n+K-1, K-1), K)."""
    if not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer >= 2; got {K!r}")
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    size = math.comb(int(n) + int(K) - 1, int(K) - 1)
    if size > GRID_CAP:
        raise ValueError(f"simplex_grid(K={K}, n={n}) would hold {size} mixtures, more than the cap of {GRID_CAP}; "
                         "use fewer domains K or a coarser n")
    pts = list(_compositions(int(K) - 1, int(n)))
    return np.array([[*c, n - sum(c)] for c in pts], float) / n


GRID_CAP = 2_000_000
"""The most mixtures :func:`simplex_grid` builds (C(n+K-1, K-1) grows fast: K=20, n=10 gives 2e7)."""


def _compositions(k: int, budget: int):
    """Every k-tuple of non-negative integers with sum <= budget, in lexicographic order (itertools.product's order
    filtered by the sum, without enumerating the (budget+1)^k product)."""
    if k == 0:
        yield ()
        return
    for v in range(budget + 1):
        for rest in _compositions(k - 1, budget - v):
            yield (v, *rest)


def grid_search(candidates, mean_losses) -> tuple[np.ndarray, int]:
    """The candidate mixture with the lowest measured mean loss (and its index)."""
    cand = check_weights(candidates, name="candidates")
    cand = cand[None] if cand.ndim == 1 else cand
    checks.array("mean_losses", mean_losses)
    ml = np.asarray(mean_losses, float)
    if ml.shape != (cand.shape[0],):
        raise ValueError(f"mean_losses must have one value per candidate ({cand.shape[0]}); got {ml.shape}")
    i = int(np.nanargmin(ml))
    return cand[i], i


def law_optimum(fit, N: float, D: float, *, hull=None, restarts: int = 16, steps: int = 300, seed: int = 0,
                h_min: float = 1e-4) -> np.ndarray:
    """h* of any fitted law (a ``FitResult``) at (N, D): minimise its mean predicted loss on the simplex, or,
    with ``hull`` (n, K) mixtures (e.g. the fit's training mixtures), on their convex hull: h = alpha @ hull with
    alpha on the n-simplex, so h* never leaves the region the law was fitted on."""
    from .fitting import DTYPE, minimize_on_simplex

    if not isinstance(fit, FitResult):
        raise TypeError(f"fit must be a FitResult (from fitting.fit_law); got {type(fit).__name__}")
    checks.positive_number("N", N)
    checks.positive_number("D", D)
    p = {k: torch.as_tensor(v, dtype=DTYPE) for k, v in fit.params.items()}

    def mean_loss(h):
        M = h.shape[0]
        return fit.law.predict(p, h, torch.full((M,), float(N), dtype=DTYPE),
                               torch.full((M,), float(D), dtype=DTYPE)).mean(1)

    if hull is None:
        h, _ = minimize_on_simplex(mean_loss, fit.K, restarts=restarts, steps=steps, h_min=h_min, seed=seed)
        return h
    pts = check_weights(hull, fit.K, name="hull")
    if pts.ndim != 2 or pts.shape[0] < 2:
        raise ValueError(f"hull must hold at least two mixtures, (n >= 2, {fit.K}); got shape {pts.shape}")
    V = torch.as_tensor(pts, dtype=DTYPE)
    alpha, _ = minimize_on_simplex(lambda a: mean_loss(a @ V), int(pts.shape[0]), restarts=restarts, steps=steps,
                                   h_min=0.0, seed=seed)
    h = alpha @ pts
    return h / h.sum()
