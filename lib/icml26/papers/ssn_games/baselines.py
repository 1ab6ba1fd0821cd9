"""Baselines of the paper and of the project, on the same cost scale (mat-vec equivalents).

See docs/papers/ssn_games.md §4.

* the regret-matching family RM / RM+ / PRM+ (simultaneous as in the paper's tables, and alternating),
  with last / uniform / linear / quadratic averaging: :class:`RegretMatching` (in ``regret.py``);
* plain DRS iteration ``w <- T(w)`` on the same fixed-point map (ablation, *inferred*): :func:`drs_iterate`;
* semismooth Newton from a cold start without safeguard (ablation, *inferred*): :func:`ssn_cold`;
* restarted PDHG (PDLP-style adaptive restarts; a first-order method with a linear last-iterate rate on
  polyhedral problems, project addition a reviewer asked for): :func:`restarted_pdhg`;
* an LP solve with HiGHS (ground truth and honest second-order competitor, project addition): :func:`lp_solve`.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from icml26 import checks
from icml26.optim import simplex
from icml26.papers.ssn_games.games import _duality_gap, _matvecs, check_games, spectral_norm
from icml26.papers.ssn_games.method import DRSOperator, SSNResult, _check_int, ssn
from icml26.papers.ssn_games.regret import AVERAGINGS, RegretMatching

__all__ = ["AVERAGINGS", "RegretMatching", "drs_iterate", "lp_solve", "restarted_pdhg", "ssn_cold", "uniform_lift"]


def uniform_lift(op: DRSOperator) -> torch.Tensor:
    """The lifted point ``w0 = z - eta M z`` of the uniform strategy pair."""
    if not isinstance(op, DRSOperator):
        raise TypeError(f"op must be a DRSOperator; got {type(op).__name__}")
    x = torch.full((op.B, op.n), 1.0 / op.n, dtype=op.A.dtype, device=op.A.device)
    y = torch.full((op.B, op.m), 1.0 / op.m, dtype=op.A.dtype, device=op.A.device)
    return op.lift(x, y)


def drs_iterate(A: torch.Tensor, eta, iterations: int, record_every: int = 50) -> dict:
    """Plain Douglas-Rachford iteration ``w <- T(w)`` from the uniform lift (docs/papers/ssn_games.md §3.1, §4).

    Cost: the Cholesky factor of ``I + eta^2 A A^T`` and ``A A^T`` once, then 3 mat-vec equivalents
    per iteration (2 products with ``A`` plus the two triangular solves, ~1). Returns the recorded
    ``{"cost": [...], "gap": (R, B) list, "seconds": float}`` (gap evaluations not charged).
    """
    op = DRSOperator(A, eta)
    iterations = _check_int("iterations", iterations, 0)
    record_every = _check_int("record_every", record_every)
    n, m = op.n, op.m
    setup = (n ** 3 / 3 + 2 * n * n * m) / (2 * n * m)
    w = uniform_lift(op)
    out = {"cost": [], "gap": [], "iterations": []}
    t0 = time.perf_counter()
    for t in range(1, iterations + 1):
        w = op.T(w)
        if t % record_every == 0 or t == iterations:
            out["cost"].append(setup + 3 * t)
            out["iterations"].append(t)
            out["gap"].append(op.gap(w).tolist())
    out["seconds"] = time.perf_counter() - t0
    return out


def restarted_pdhg(A: torch.Tensor, iterations: int, *, check_every: int = 50, beta: float = 0.2,
                   artificial: float = 0.36, step: float = 0.9, target: float = 0.0) -> dict:
    """Restarted PDHG (Chambolle-Pock) on ``min_x max_y x^T A y`` over the two simplices, batched.

    The iteration (steps ``tau = sigma = step / ||A||_2``, power iteration, so ``tau sigma ||A||^2 < 1``):
    ``x+ = P(x - tau A y)``, ``y+ = P(y + sigma A^T (2 x+ - x))``; 2 mat-vec equivalents. Restarts follow PDLP
    (Applegate et al. 2021) with the duality gap, exactly computable for matrix games, as the restart measure
    (PDLP uses a normalised gap because LPs have none): every ``check_every`` iterations the gaps of the current
    iterate and of the average since the last restart are evaluated (4 mat-vecs, charged); the better one is the
    candidate; restart from it when its gap is ``<= beta`` x the gap at the last restart (sufficient decay) or
    when the epoch is longer than ``artificial`` x all iterations so far (artificial restart). Defaults are
    PDLP's published ones (0.2, 0.36), not tuned here. The run stops early once every game's candidate gap is
    ``<= target`` (``0``: never). Returns ``{"cost": [...], "gap": (R, B) list (the
    candidate's gap at each check), "restarts": [...], "seconds": float}``.
    """
    A = check_games(A)
    iterations = _check_int("iterations", iterations, 0)
    check_every = _check_int("check_every", check_every)
    for name, v in (("beta", beta), ("artificial", artificial), ("step", step)):
        checks.in_range(name, v, 0.0, 1.0, low_open=True, high_open=True)
    target = checks.nonnegative_number("target", target)
    B, n, m = A.shape
    sigma_A, cost0 = spectral_norm(A)
    tau = (step / sigma_A.clamp(min=1e-12))[:, None]
    x = torch.full((B, n), 1.0 / n, dtype=A.dtype, device=A.device)
    y = torch.full((B, m), 1.0 / m, dtype=A.dtype, device=A.device)
    g_restart = _duality_gap(A, x, y)
    sx, sy = torch.zeros_like(x), torch.zeros_like(y)
    epoch = torch.zeros(B, dtype=A.dtype, device=A.device)
    cost = float(cost0 + 2)
    out = {"cost": [], "gap": [], "restarts": [0] * B}
    t0 = time.perf_counter()
    for t in range(1, iterations + 1):
        Ay, _ = _matvecs(A, x, y)
        x_new = simplex.project(x - tau * Ay, check=False)
        _, Atx = _matvecs(A, 2 * x_new - x, y)
        y = simplex.project(y + tau * Atx, check=False)
        x = x_new
        sx, sy, epoch = sx + x, sy + y, epoch + 1
        cost += 2
        if t % check_every == 0 or t == iterations:
            xa, ya = sx / epoch[:, None], sy / epoch[:, None]
            g_cur, g_avg = _duality_gap(A, x, y), _duality_gap(A, xa, ya)
            cost += 4
            use_avg = g_avg < g_cur
            cand = torch.minimum(g_cur, g_avg)
            restart = (cand <= beta * g_restart) | (epoch >= artificial * t)
            x = torch.where((restart & use_avg)[:, None], xa, x)
            y = torch.where((restart & use_avg)[:, None], ya, y)
            g_restart = torch.where(restart, cand, g_restart)
            keep = (~restart).to(A.dtype)[:, None]
            sx, sy, epoch = sx * keep, sy * keep, epoch * keep[:, 0]
            out["restarts"] = [r + int(v) for r, v in zip(out["restarts"], restart.tolist())]
            out["cost"].append(cost)
            out["gap"].append(cand.tolist())
            if bool((cand <= target).all()):
                break
    out["seconds"] = time.perf_counter() - t0
    return out


def ssn_cold(A: torch.Tensor, eta, max_newton: int = 30, kappa: float = 1e-2, safeguard: bool = False) -> SSNResult:
    """SSN from the uniform strategy (cold start), by default without the safeguard.

    For the claim ``cold_ssn_fails`` (docs/papers/ssn_games.md §4).
    """
    op = DRSOperator(A, eta)
    return ssn(op.A, uniform_lift(op), op.eta, kappa=kappa, max_newton=max_newton, safeguard=safeguard,
               tol=1e-12)


def lp_solve(A) -> dict:
    """Value and equilibrium of each game by linear programming (``scipy.optimize.linprog``, HiGHS).

    Row player: ``min v`` s.t. ``A^T x <= v 1``, ``x in Delta_n``; the column strategy is read from the
    inequality duals. Returns ``{"value": [...], "x": (B, n) tensor, "y": (B, m) tensor, "gap": [...],
    "seconds": float}`` on ``A``'s device. HiGHS tolerances (~1e-8) bound its accuracy.
    """
    from scipy.optimize import linprog

    A = check_games(A)
    B, n, m = A.shape
    An = A.detach().cpu().numpy()
    xs, ys, vals = np.zeros((B, n)), np.zeros((B, m)), []
    t0 = time.perf_counter()
    for b in range(B):
        c = np.zeros(n + 1)
        c[-1] = 1.0
        A_ub = np.hstack([An[b].T, -np.ones((m, 1))])
        A_eq = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
        res = linprog(c, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=[1.0],
                      bounds=[(0, None)] * n + [(None, None)], method="highs")
        if res.status != 0:
            raise ValueError(f"A[{b}]: linprog failed ({res.message})")
        xs[b] = np.clip(res.x[:n], 0, None)
        xs[b] /= xs[b].sum()
        yb = np.clip(-res.ineqlin.marginals, 0, None)
        ys[b] = yb / yb.sum()
        vals.append(float(res.x[-1]))
    x = torch.as_tensor(xs, dtype=A.dtype, device=A.device)
    y = torch.as_tensor(ys, dtype=A.dtype, device=A.device)
    return {"value": vals, "x": x, "y": y, "gap": _duality_gap(A, x, y).tolist(),
            "seconds": time.perf_counter() - t0}


