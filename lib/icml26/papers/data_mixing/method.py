"""The data mixing law of Dai & Zheng (ICML 2026); section numbers are those of docs/papers/data_mixing.md §3.

    L_i(h, N, D) = c_i x_i*(h)^(-b_i) + A_i (D h_i)^(-a_i) + E_i                     (law, §3.2)
    x*(h) = argmin_x sum_i h_i c_i x_i^(-b_i)  s.t.  sum_i x_i = N + (K-1) H,  x_i >= H   (inner problem)

The inner problem is solved through its KKT conditions (§3.3): x_i(lam) = max(H, (h_i b_i c_i / lam)^(1/(b_i+1)))
and lam is the root of the decreasing g(lam) = sum_i x_i(lam) - (N + (K-1) H), found by a fixed number of
bisection steps in log(lam), batched over mixtures. A final Newton step on g, taken with the bisection
point held constant, makes x*(h) differentiable in (h, b, c, N, H) with the implicit-function gradient.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from icml26 import checks

from .fitting import DTYPE, LawSpec, Param, as_batch, minimize_on_simplex

PARAM_NAMES = ("b", "c", "A", "a", "E", "H")

# The authors' fitted 7-domain SlimPajama parameters (official optimal_mixture.py; docs/papers/data_mixing.md §3.7;
# arxiv, book, c4, github, cc, se, wiki).
AUTHORS_SLIMPAJAMA7 = {
    "b": [1.2931, 0.2504, 0.7759, 4.2533, 0.8209, 2.1420, 0.9245],
    "c": [6.1217, 3.3571, 7.8612, 7.3098, 2.3083, 3.8489, 2.3059],
    "A": [0.3931, 0.4080, 0.7319, 1.2868, 0.7130, 2.0230, 0.8802],
    "a": [0.9685, 1.6999, 0.3088, 0.0827, 1.0596, 0.0777, 0.5132],
    "E": [0.9448, 0.8770, 0.5612, 0.0000, 2.4074, 0.0001, 1.3406],
    "H": 4.877,
}


def n_params(K: int) -> int:
    """Parameter count of the law: 5 per domain (b, c, A, a, E) plus the shared head H (§3.2)."""
    if not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer >= 2; got {K!r}")
    return 5 * int(K) + 1


def solve_allocation(h: torch.Tensor, b: torch.Tensor, c: torch.Tensor, N, H, *, iters: int = 40,
                     newton: int = 3, log_bracket: float = 300.0, return_lambda: bool = False):
    """Capacity allocation x*(h) of the inner problem (§3.3), batched over the rows of ``h`` (M, K).

    ``b``, ``c``: (K,) or broadcastable to (M, K); ``N``: scalar or (M,); ``H``: scalar tensor/float.
    Bisection on mu = log(lam) for ``iters`` steps inside a bracket computed from the data (clipped to
    +-log_bracket), in float64, then ``newton`` safeguarded Newton steps, then one
    differentiable Newton step. When H >= N the problem is degenerate and every x_i = H.
    Returns x (M, K) (and lam (M,) when ``return_lambda``).
    """
    _check_allocation_inputs(h, b, c, N, H)
    checks.positive_int("iters", iters)
    checks.nonnegative_int("newton", newton)
    checks.positive_number("log_bracket", log_bracket)
    return _solve_allocation(h, b, c, N, H, iters, newton, log_bracket, return_lambda)


def _positive_tensor(name, value, ndim=None, allow_zero=False):
    checks.tensor(name, value, ndim=ndim)
    if bool((value < 0).any()) if allow_zero else bool((value <= 0).any()):
        raise ValueError(f"{name} must be {'non-negative' if allow_zero else 'positive'}; got a minimum of "
                         f"{float(value.min()):g}")
    return value


def _check_allocation_inputs(h, b, c, N, H) -> None:
    """h (M, K) non-negative; b, c positive and broadcastable to h; N positive, scalar or (M,); H a positive scalar."""
    _positive_tensor("h", h, ndim=2, allow_zero=True)
    if h.shape[1] < 2:
        raise ValueError(f"h must have K >= 2 domains; got shape {tuple(h.shape)}")
    for name, v in (("b", b), ("c", c)):
        _positive_tensor(name, v)
        try:
            ok = torch.broadcast_shapes(v.shape, h.shape) == h.shape
        except RuntimeError:
            ok = False
        if not ok:
            raise ValueError(f"{name} must be (K,) or broadcastable to h's shape {tuple(h.shape)}; "
                             f"got {tuple(v.shape)}")
    for name, v in (("N", N), ("H", H)):
        if not isinstance(v, (torch.Tensor, float, int, np.floating, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{name} must be a number or a tensor; got {type(v).__name__}")
        _positive_tensor(name, torch.as_tensor(v))
    if torch.as_tensor(N).shape not in ((), (h.shape[0],)):
        raise ValueError(f"N must be a scalar or a ({h.shape[0]},) tensor; got shape {tuple(torch.as_tensor(N).shape)}")
    if torch.as_tensor(H).dim() != 0:
        raise ValueError(f"H must be a scalar; got shape {tuple(torch.as_tensor(H).shape)}")


def _solve_allocation(h, b, c, N, H, iters, newton, log_bracket, return_lambda):
    dt = h.dtype
    N = torch.as_tensor(N, dtype=dt, device=h.device).expand(h.shape[0]) if torch.as_tensor(N).dim() == 0 \
        else torch.as_tensor(N, dtype=dt, device=h.device)
    H = torch.as_tensor(H, dtype=dt, device=h.device)
    K = h.shape[1]
    total = N + (K - 1) * H  # (M,)
    expo = 1.0 / (b + 1.0)  # (K,)
    pos = h > 0
    logq_safe = torch.log(torch.where(pos, h, torch.ones_like(h)) * b * c)  # finite everywhere (no NaN grads)
    with torch.no_grad():
        lq, tot_d, H_d, expo_d = logq_safe.detach(), total.detach(), H.detach(), expo.detach()
        bp1 = (1.0 / expo_d).expand_as(lq)
        big = torch.full_like(lq, float("inf"))
        # bracket: at lo some x_i exceeds the total (g > 0); at hi every free x_i < total/K (g <= 0 unless
        # the floors alone exceed the total, the degenerate case, where any lam gives x = H)
        lo = torch.where(pos, lq - bp1 * torch.log(tot_d)[:, None], big).amin(1) - 1.0
        hi = torch.where(pos, lq - bp1 * torch.log(tot_d / K)[:, None], -big).amax(1) + 1.0
        lo = torch.clamp(lo, -log_bracket, log_bracket)
        hi = torch.clamp(hi, -log_bracket, log_bracket)

        def g_of(mu):
            x = torch.where(pos, torch.clamp(torch.exp((lq - mu[:, None]) * expo_d), min=H_d), H_d)
            return x.sum(1) - tot_d

        for _ in range(iters):
            mid = 0.5 * (lo + hi)
            over = g_of(mid) > 0  # g(mid) > 0: lam too small
            lo = torch.where(over, mid, lo)
            hi = torch.where(over, hi, mid)
        mu0 = 0.5 * (lo + hi)
        for _ in range(newton):  # safeguarded Newton polish inside the final bracket
            fr = torch.exp((lq - mu0[:, None]) * expo_d)
            act = (fr > H_d) & pos
            gv = torch.where(act, fr, H_d).sum(1) - tot_d
            dg = -torch.where(act, fr * expo_d, torch.zeros_like(fr)).sum(1)
            step = torch.where(dg != 0, gv / torch.where(dg != 0, dg, torch.ones_like(dg)), torch.zeros_like(gv))
            cand = mu0 - step
            mu0 = torch.where((cand > lo - 1e-9) & (cand < hi + 1e-9), cand, mu0)
    # differentiable Newton step on g(mu) at the fixed bisection point mu0 (implicit gradient)
    free = torch.exp((logq_safe - mu0[:, None]) * expo)
    active = ((free > H) & pos).detach()
    x0 = torch.where(active, free, H.expand_as(free))
    g = x0.sum(1) - total
    dg = -(torch.where(active, free * expo, torch.zeros_like(free))).sum(1)  # dg/dmu < 0 when any active
    safe = dg.detach().abs() > 0
    mu = mu0 - torch.where(safe, g / torch.where(safe, dg, torch.ones_like(dg)), torch.zeros_like(g))
    x = torch.where(active, torch.exp((logq_safe - mu[:, None]) * expo), H.expand_as(free))
    if return_lambda:
        return x, torch.exp(mu)
    return x


def kkt_residual(x: torch.Tensor, lam: torch.Tensor, h, b, c, N, H) -> dict:
    """Feasibility and KKT residuals of an allocation (used by tests for claim C6).

    ``feas``: |sum x - (N + (K-1) H)| / N; ``floor``: max(H - x, 0); ``stat``: max relative
    stationarity residual |h b c x^-(b+1) - lam| / lam on the free coordinates; ``dual``: max
    violation of lam <= h b c H^-(b+1) ... i.e. the floor multiplier lam - h b c H^-(b+1) must be >= 0.
    """
    _check_allocation_inputs(h, b, c, N, H)
    checks.tensor("x", x, shape=tuple(h.shape))
    _positive_tensor("lam", lam, ndim=1)
    if lam.shape != (h.shape[0],):
        raise ValueError(f"lam must have one multiplier per mixture ({h.shape[0]},); got {tuple(lam.shape)}")
    K = x.shape[1]
    N = torch.as_tensor(N, dtype=x.dtype)
    grad = h * b * c * x.pow(-(b + 1))
    free = x > H * (1 + 1e-9)
    stat = torch.where(free, (grad - lam[:, None]).abs() / lam[:, None], torch.zeros_like(x))
    dual = torch.where(~free, torch.clamp(grad - lam[:, None], min=0) / lam[:, None], torch.zeros_like(x))
    return {"feas": float(((x.sum(1) - (N + (K - 1) * H)).abs() / N).max()),
            "floor": float(torch.clamp(H - x, min=0).max()),
            "stat": float(stat.max()), "dual": float(dual.max())}


def law_terms(p: dict, h: torch.Tensor, N: torch.Tensor, D: torch.Tensor, h_floor: float = 1e-4,
              iters: int = 40) -> dict:
    """The three terms of the law per domain (§3.2): capacity c x^-b, noise A (D h)^-a, and E, plus x."""
    _check_law_inputs(p, h, N, D)
    checks.positive_number("h_floor", h_floor)
    checks.positive_int("iters", iters)
    return _law_terms(p, h, N, D, h_floor, iters)


def _check_law_inputs(p, h, N, D) -> None:
    """p: the law's parameter tensors ((K,) each, H a scalar); h (M, K) mixtures; N, D (M,) positive."""
    checks.config("p", p, required=PARAM_NAMES)
    for k in PARAM_NAMES:
        checks.tensor(f"p[{k!r}]", p[k], ndim=0 if k == "H" else 1)
    K = p["b"].shape[0]
    if any(p[k].shape != (K,) for k in PARAM_NAMES[:5]):
        raise ValueError(f"p's b, c, A, a, E must all have shape ({K},); got "
                         f"{ {k: tuple(p[k].shape) for k in PARAM_NAMES[:5]} }")
    if any(bool((p[k] <= 0).any()) for k in ("b", "c", "H")) or bool((p["A"] < 0).any()):
        raise ValueError("p's b, c, H must be positive and A non-negative")
    _positive_tensor("h", h, ndim=2, allow_zero=True)
    if h.shape[1] != K:
        raise ValueError(f"h must have K={K} columns like p['b']; got shape {tuple(h.shape)}")
    for name, v in (("N", N), ("D", D)):
        _positive_tensor(name, v, ndim=1)
        if v.shape != (h.shape[0],):
            raise ValueError(f"{name} must have one entry per mixture ({h.shape[0]},); got {tuple(v.shape)}")


def _law_terms(p, h, N, D, h_floor, iters):
    x = _solve_allocation(h, p["b"], p["c"], N, p["H"], iters, 3, 300.0, False)
    cap = p["c"] * x.pow(-p["b"])
    noise = p["A"] * (D[:, None] * torch.clamp(h, min=h_floor)).pow(-p["a"])
    return {"x": x, "capacity": cap, "noise": noise, "E": p["E"].expand_as(cap), "loss": cap + noise + p["E"]}


def predict(p: dict, h: torch.Tensor, N: torch.Tensor, D: torch.Tensor) -> torch.Tensor:
    """Per-domain predicted loss L_i(h, N, D), shape (M, K) (§3.2)."""
    _check_law_inputs(p, h, N, D)
    return _predict(p, h, N, D)


def _predict(p, h, N, D):
    return _law_terms(p, h, N, D, 1e-4, 40)["loss"]


def _u(lo, hi):
    return lambda rng, ctx: rng.uniform(lo, hi, ctx["K"])


LAW = LawSpec(
    name="capacity law (ours, 5K+1)",
    params=(
        Param("b", lambda K: (K,), 0.01, 5.0, _u(0.1, 0.6)),
        # c and A start at the scale of each domain's observed loss (the authors' U(1, 8) suits LLM losses ~2-3)
        Param("c", lambda K: (K,), 1e-5, 100.0, lambda rng, ctx: rng.uniform(0.25, 2.0, ctx["K"]) * ctx["L_mean"]),
        Param("A", lambda K: (K,), 1e-5, 100.0, lambda rng, ctx: rng.uniform(0.25, 2.0, ctx["K"]) * ctx["L_mean"]),
        Param("a", lambda K: (K,), 0.01, 3.0, _u(0.1, 0.6)),
        Param("E", lambda K: (K,), 0.0, 10.0,
              lambda rng, ctx: np.minimum(rng.uniform(0.1, 1.0, ctx["K"]), 0.5 * ctx["L_min"])),
        # H (shared head) in N's units; kept below the smallest N so the problem is never degenerate.
        Param("H", lambda K: (), 1e-5, lambda ctx: 0.9 * ctx["N_min"],
              lambda rng, ctx: np.array(ctx["N_min"] / (10 * ctx["K"]))),
    ),
    predict=_predict,
    uses_scale=True,
    notes="L_i = c_i x_i*(h)^-b_i + A_i (D h_i)^-a_i + E_i with the KKT inner solve (§3.2-3.3)",
)


def as_params(params: dict, device="cpu") -> dict:
    """A parameter dict (lists/arrays) as float64 tensors, validated for the law's names and positivity."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of the law's parameters {PARAM_NAMES}; got {type(params).__name__}")
    missing = [k for k in PARAM_NAMES if k not in params]
    if missing:
        raise ValueError(f"params must define {PARAM_NAMES}; missing {missing}")
    checks.device("device", device)
    for k in PARAM_NAMES:
        try:
            arr = np.asarray(params[k], float)
        except (TypeError, ValueError):
            raise TypeError(f"params[{k!r}] must be numeric; got {params[k]!r:.60}") from None
        checks.array(f"params[{k!r}]", arr)
    out = {k: torch.as_tensor(np.asarray(params[k], float), dtype=DTYPE, device=device) for k in PARAM_NAMES}
    K = out["b"].numel()
    for k in PARAM_NAMES[:5]:
        if out[k].shape != (K,):
            raise ValueError(f"params[{k!r}] must have shape ({K},) like params['b']; got {tuple(out[k].shape)}")
    if out["H"].dim() != 0:
        raise ValueError("params['H'] must be a scalar")
    if K < 2:
        raise ValueError(f"params['b'] must have one entry per domain, K >= 2; got K={K}")
    if any(bool((out[k] <= 0).any()) for k in ("b", "c", "H")) or bool((out["A"] < 0).any()):
        raise ValueError("params b, c, H must be positive and A non-negative")
    return out


def evaluate_law(params: dict, h, N, D, device="cpu") -> dict:
    """Validated numpy front end: terms of the law for mixtures ``h`` (K,) or (M, K) at (N, D)."""
    p = as_params(params, device)
    K = p["b"].numel()
    h_t, N_t, D_t = as_batch(h, N, D, K, device)
    with torch.no_grad():
        return {k: v.cpu().numpy() for k, v in _law_terms(p, h_t, N_t, D_t, 1e-4, 40).items()}


def optimal_mixture(params: dict, N: float, D: float, *, weights=None, restarts: int = 16, steps: int = 300,
                    h_min: float = 1e-4, seed: int = 0, device="cpu") -> np.ndarray:
    """h* = argmin over the simplex of the (weighted) mean predicted loss at (N, D) (§3.7).

    Cross-scale extrapolation is this call with parameters fitted at small (N, D) and the target's
    (N, D). ``weights`` (K,) weigh the domains in the objective (default: uniform average).
    """
    p = as_params(params, device)
    K = p["b"].numel()
    w = torch.full((K,), 1.0 / K, dtype=DTYPE, device=device) if weights is None else \
        torch.as_tensor(np.asarray(weights, float), dtype=DTYPE, device=device)
    if w.shape != (K,):
        raise ValueError(f"weights must have length K={K}")
    _positive_tensor("weights", w, allow_zero=True)
    for nm, v in (("N", N), ("D", D)):
        if not np.isfinite(v) or v <= 0:
            raise ValueError(f"{nm} must be finite and positive; got {v}")

    def loss_fn(h):
        M = h.shape[0]
        Nt = torch.full((M,), float(N), dtype=DTYPE, device=device)
        Dt = torch.full((M,), float(D), dtype=DTYPE, device=device)
        return _predict(p, h, Nt, Dt) @ w

    h, _ = minimize_on_simplex(loss_fn, K, restarts=restarts, steps=steps, h_min=h_min, seed=seed, device=device)
    return h


def noise_only_optimum(A, a, D: float) -> np.ndarray:
    """Closed-form minimiser of sum_i A_i (D h_i)^-a_i on the simplex, ignoring capacity (§3.4, inferred):
    stationarity a_i A_i D^-a_i h_i^-(a_i+1) = mu, solved for mu by bisection (exact when all a_i are equal,
    where h_i is proportional to (a_i A_i D^-a_i)^(1/(1+a_i)))."""
    checks.array("A", A, ndim=1)
    checks.array("a", a, ndim=1)
    checks.positive_number("D", D)
    A, a = np.asarray(A, float), np.asarray(a, float)
    if A.shape != a.shape or A.ndim != 1 or len(A) < 2:
        raise ValueError("A and a must be (K,) arrays with K >= 2")
    if np.any(A <= 0) or np.any(a <= 0) or not D > 0:
        raise ValueError("A, a and D must be positive")
    q = a * A * D ** (-a)
    lo, hi = -200.0, 200.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        s = np.exp((np.log(q) - mid) / (a + 1)).sum()
        lo, hi = (mid, hi) if s > 1 else (lo, mid)
    return np.exp((np.log(q) - 0.5 * (lo + hi)) / (a + 1))


def reference_allocation_slsqp(h, b, c, N: float, H: float) -> np.ndarray:
    """An independent reference solve of the inner problem for one mixture with SciPy's SLSQP (slow; tests
    and claim C2 only)."""
    from scipy import optimize

    for name, v in (("h", h), ("b", b), ("c", c)):
        checks.array(name, v, ndim=1)
    if not len(h) == len(b) == len(c) >= 2:
        raise ValueError(f"h, b and c must be (K,) arrays of one length K >= 2; got {len(h)}, {len(b)}, {len(c)}")
    if np.any(np.asarray(h, float) < 0):
        raise ValueError("h must be non-negative mixture weights")
    if np.any(np.asarray(b, float) <= 0) or np.any(np.asarray(c, float) <= 0):
        raise ValueError("b and c must be positive")
    checks.positive_number("N", N)
    checks.positive_number("H", H)
    h, b, c = (np.asarray(v, float) for v in (h, b, c))
    K = len(h)
    T = N + (K - 1) * H
    s = T / (10 * K)
    obj = lambda z: float(np.sum(h * c * (z * s) ** (-b)))
    jac = lambda z: -h * b * c * s * (z * s) ** (-b - 1)
    res = optimize.minimize(obj, np.full(K, T / K / s), jac=jac, method="SLSQP", bounds=[(H / s, T / s)] * K,
                            constraints=[{"type": "eq", "fun": lambda z: z.sum() * s - T,
                                          "jac": lambda z: np.full(K, s)}],
                            options={"ftol": 1e-16, "maxiter": 2000})
    return res.x * s
