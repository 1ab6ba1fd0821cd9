"""The paper's method: DRS fixed-point residual solved by a regularized semismooth Newton method,
globalised by a PRM+ warm start (hybrid, Algorithm 1 of the paper; formulas inferred: docs/papers/ssn_games.md §3).

Notation (docs/papers/ssn_games.md §3.1-§3.2). ``z = (x, y)``, ``M = [[0, A], [-A^T, 0]]``, ``P`` = block-wise simplex
projection, ``R = (I + eta M)^{-1}``. The DRS operator on the *lifted* variable ``w in R^{n+m}`` is
``T(w) = w - P(w) + R(2P(w) - w)`` and ``z* = P(w*)`` at a fixed point. Its residual
``F(w) = w - T(w)`` has the same zeros as the normal map ``G(w) = (I + eta M) F(w) = w - P(w) + eta M P(w)``
(inverse-free). A generalized Jacobian of ``G`` is ``V = I - D + eta M D`` with
``D = blkdiag(D_n, D_m)`` the simplex-projection Jacobians (:mod:`icml26.optim.simplex`).

Newton step (docs/papers/ssn_games.md §3.3, *inferred* from the regularized SSN of Xiao, Li, Wen & Zhang 2018):
``regularize="normal_map"``: ``(V + mu I) d = -G`` with ``mu = kappa ||G||``;
``regularize="drs"``:        ``(V + mu (I + eta M)) d = -G`` with ``mu = kappa ||F||``.
Safeguard (*inferred*): accept ``w + d`` only if ``||G(w + d)|| <= nu ||G(w)||``; otherwise stop and
hand control back to PRM+ (``globalization="fallback"``). The certificate is always the duality gap of
``P(w)``, which is feasible.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import torch

from icml26 import checks, linalg
from icml26.optim import simplex
from icml26.papers.ssn_games.games import _duality_gap, _split, check_games, newton_solve_cost, spectral_norm
from icml26.papers.ssn_games.regret import RegretMatching

REGULARIZATIONS = ("normal_map", "drs")
GLOBALIZATIONS = ("linesearch", "fallback")
SWITCHES = ("adaptive", "threshold")
WARM_STARTS = ("average", "last")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _check_eta(eta, B: int, A: torch.Tensor) -> torch.Tensor:
    if isinstance(eta, torch.Tensor):
        eta = eta.to(device=A.device, dtype=A.dtype)
        if eta.dim() == 0:
            eta = eta.expand(B)
        if eta.shape != (B,):
            raise ValueError(f"eta must be a number or a tensor of shape ({B},); got shape {tuple(eta.shape)}")
    elif isinstance(eta, (int, float)) and not isinstance(eta, bool):
        eta = torch.full((B,), float(eta), dtype=A.dtype, device=A.device)
    else:
        raise ValueError(f"eta must be a positive number or a tensor of positive numbers; got {eta!r}")
    if not bool(torch.isfinite(eta).all()) or not bool((eta > 0).all()):
        raise ValueError("eta must be positive and finite")
    return eta


def default_eta(A: torch.Tensor, scale: float = 1.0, iterations: int = 30) -> tuple[torch.Tensor, int]:
    """``eta = scale / ||A||_2`` per game (power iteration) and its cost in mat-vec equivalents.

    See docs/papers/ssn_games.md §3.1.
    """
    if not isinstance(scale, (int, float)) or isinstance(scale, bool) or not scale > 0 or math.isinf(scale):
        raise ValueError(f"scale must be a positive finite number; got {scale!r}")
    sigma, cost = spectral_norm(A, iterations)
    return scale / sigma.clamp(min=1e-12), cost


class DRSOperator:
    """The DRS fixed-point map (docs/papers/ssn_games.md §3.1) for a batch of games, with its residuals and Jacobian.

    ``A``: ``(B, n, m)`` or ``(n, m)``; ``eta``: number or ``(B,)`` tensor. The resolvent ``R`` uses a
    Cholesky factor of ``I + eta^2 A A^T`` (Schur complement), built on first use.
    """

    def __init__(self, A: torch.Tensor, eta):
        self.A = check_games(A)
        self.B, self.n, self.m = self.A.shape
        self.eta = _check_eta(eta, self.B, self.A)
        self.At = self.A.transpose(1, 2).contiguous()
        self._chol = None

    def _check_w(self, w: torch.Tensor, name: str = "w") -> torch.Tensor:
        if not isinstance(w, torch.Tensor) or w.shape != (self.B, self.n + self.m):
            raise ValueError(f"{name} must be a tensor of shape ({self.B}, {self.n + self.m}); "
                             f"got {getattr(w, 'shape', type(w).__name__)}")
        return w

    def P(self, w: torch.Tensor) -> torch.Tensor:
        """Block-wise projection onto ``Delta_n x Delta_m``."""
        wx, wy = _split(self._check_w(w), self.n)
        return torch.cat([simplex.project(wx, check=False), simplex.project(wy, check=False)], dim=-1)

    def M(self, z: torch.Tensor) -> torch.Tensor:
        """``M z = (A y, -A^T x)`` (2 mat-vec equivalents)."""
        x, y = _split(z, self.n)
        Ay = torch.bmm(y.unsqueeze(1), self.At).squeeze(1)
        Atx = torch.bmm(x.unsqueeze(1), self.A).squeeze(1)
        return torch.cat([Ay, -Atx], dim=-1)

    def R(self, b: torch.Tensor) -> torch.Tensor:
        """Resolvent ``(I + eta M)^{-1} b`` via the Schur complement ``(I + eta^2 A A^T) v_x = b_x - eta A b_y``."""
        if self._chol is None:
            eye = torch.eye(self.n, dtype=self.A.dtype, device=self.A.device)
            S = eye + self.eta[:, None, None] ** 2 * torch.bmm(self.A, self.A.transpose(1, 2))
            self._chol = torch.linalg.cholesky(S)
        bx, by = _split(b, self.n)
        e = self.eta[:, None]
        rhs = bx - e * torch.bmm(by.unsqueeze(1), self.At).squeeze(1)
        vx = torch.cholesky_solve(rhs.unsqueeze(-1), self._chol).squeeze(-1)
        vy = by + e * torch.bmm(vx.unsqueeze(1), self.A).squeeze(1)
        return torch.cat([vx, vy], dim=-1)

    def T(self, w: torch.Tensor) -> torch.Tensor:
        """The DRS map ``w - P(w) + R(2 P(w) - w)``."""
        p = self.P(w)
        return w - p + self.R(2 * p - w)

    def F(self, w: torch.Tensor) -> torch.Tensor:
        """DRS residual ``w - T(w) = P(w) - R(2P(w) - w)``."""
        p = self.P(w)
        return p - self.R(2 * p - w)

    def G(self, w: torch.Tensor) -> torch.Tensor:
        """Normal-map residual ``w - P(w) + eta M P(w) = (I + eta M) F(w)``."""
        p = self.P(w)
        return w - p + self.eta[:, None] * self.M(p)

    def lift(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Warm start ``w0 = z - eta M z = (x - eta A y, y + eta A^T x)``; ``P(w0) = z`` if z is an equilibrium.

        See docs/papers/ssn_games.md §3.5.
        """
        z = torch.cat([x, y], dim=-1)
        return z - self.eta[:, None] * self.M(z)

    def D(self, w: torch.Tensor) -> torch.Tensor:
        """``blkdiag(D_n(w_x), D_m(w_y))`` of shape ``(B, n+m, n+m)``."""
        wx, wy = _split(self._check_w(w), self.n)
        return _blkdiag(simplex.jacobian(wx), simplex.jacobian(wy))

    def V(self, w: torch.Tensor) -> torch.Tensor:
        """Generalized Jacobian ``V = I - D + eta M D`` of ``G`` at ``w``, dense ``(B, N, N)``.

        Built from supports in ``O(nm)`` per game: ``A D_m = A[:, S] - (A s) s^T / |S|``.
        """
        wx, wy = _split(self._check_w(w), self.n)
        n, m = self.n, self.m
        sx = simplex.support(wx, check=False).to(self.A.dtype)
        sy = simplex.support(wy, check=False).to(self.A.dtype)
        Dx = torch.diag_embed(sx) - sx.unsqueeze(-1) * sx.unsqueeze(-2) / sx.sum(-1)[:, None, None]
        Dy = torch.diag_embed(sy) - sy.unsqueeze(-1) * sy.unsqueeze(-2) / sy.sum(-1)[:, None, None]
        e = self.eta[:, None, None]
        Asy = torch.bmm(sy.unsqueeze(1), self.At).squeeze(1)  # A s_y
        Atsx = torch.bmm(sx.unsqueeze(1), self.A).squeeze(1)  # A^T s_x
        ADy = self.A * sy.unsqueeze(1) - Asy.unsqueeze(-1) * sy.unsqueeze(1) / sy.sum(-1)[:, None, None]
        AtDx = self.At * sx.unsqueeze(1) - Atsx.unsqueeze(-1) * sx.unsqueeze(1) / sx.sum(-1)[:, None, None]
        V = torch.zeros(self.B, n + m, n + m, dtype=self.A.dtype, device=self.A.device)
        V[:, :n, :n] = torch.eye(n, dtype=self.A.dtype, device=self.A.device) - Dx
        V[:, n:, n:] = torch.eye(m, dtype=self.A.dtype, device=self.A.device) - Dy
        V[:, :n, n:] = e * ADy
        V[:, n:, :n] = -e * AtDx
        return V

    def IetaM(self) -> torch.Tensor:
        """Dense ``I + eta M`` (for the ``"drs"`` regularization)."""
        n, m = self.n, self.m
        out = torch.eye(n + m, dtype=self.A.dtype, device=self.A.device).repeat(self.B, 1, 1)
        out[:, :n, n:] = self.eta[:, None, None] * self.A
        out[:, n:, :n] = -self.eta[:, None, None] * self.A.transpose(1, 2)
        return out

    def gap(self, w: torch.Tensor) -> torch.Tensor:
        """Duality gap of the feasible pair ``P(w)`` (the certificate, docs/papers/ssn_games.md §3.3)."""
        x, y = _split(self.P(w), self.n)
        return _duality_gap(self.A, x, y)


def _blkdiag(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    B, n, m = a.shape[0], a.shape[-1], b.shape[-1]
    out = torch.zeros(B, n + m, n + m, dtype=a.dtype, device=a.device)
    out[:, :n, :n] = a
    out[:, n:, n:] = b
    return out


@dataclass
class SSNResult:
    """Per-game outcome of :func:`ssn` (lists have one entry per game)."""

    w: torch.Tensor
    gap: list
    converged: list
    steps: list          # accepted Newton steps
    cost: list           # mat-vec equivalents
    gaps: list = field(default_factory=list)        # per game: gap before each step and after the last
    residuals: list = field(default_factory=list)   # per game: ||G|| at the same points
    accepted: list = field(default_factory=list)    # per game: was each step a full (undamped) Newton step
    costs: list = field(default_factory=list)       # per game: cumulative cost at each entry of ``gaps``


def _check_pos(name: str, v, lo_open: float = 0.0, hi: float | None = None) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not v > lo_open \
            or (hi is not None and v > hi):
        rng = f"in ({lo_open}, {hi}]" if hi is not None else f"> {lo_open}"
        raise ValueError(f"{name} must be a finite number {rng}; got {v!r}")
    return float(v)


def _check_int(name: str, v, lo: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    return v


def _check_newton(dtype, kappa, nu, tol, max_newton, regularize, globalization):
    """The Newton settings shared by :func:`ssn` and :func:`hybrid`; ``tol`` must be reachable in ``dtype``."""
    if isinstance(kappa, bool) or not isinstance(kappa, (int, float)) or not 0 <= kappa < math.inf:
        raise ValueError(f"kappa must be a finite number >= 0; got {kappa!r}")
    nu = _check_pos("nu", nu, 0.0, 1.0)
    try:
        tol = checks.reachable_tolerance("tol", _check_pos("tol", tol), dtype)
    except ValueError as exc:
        raise ValueError(f"{exc} (the games A are {dtype})") from None
    max_newton = _check_int("max_newton", max_newton, 0)
    if regularize not in REGULARIZATIONS:
        raise ValueError(f"regularize must be one of {REGULARIZATIONS}; got {regularize!r}")
    if globalization not in GLOBALIZATIONS:
        raise ValueError(f"globalization must be one of {GLOBALIZATIONS}; got {globalization!r}")
    return nu, tol, max_newton


def ssn(A: torch.Tensor, w0: torch.Tensor, eta, *, kappa: float = 1e-2, nu: float = 0.9, tol: float = 1e-12,
        max_newton: int = 30, regularize: str = "normal_map", safeguard: bool = True,
        globalization: str = "linesearch", sigma: float = 1e-4, max_backtracks: int = 30) -> SSNResult:
    """Regularized semismooth Newton on the DRS residual from ``w0`` for a batch of games.

    See docs/papers/ssn_games.md §3.3.

    Every game iterates until its gap ``gap(P(w)) <= tol`` (converged), a step is rejected by the
    safeguard (failed; only with ``safeguard=True``), the linear solve fails or produces non-finite
    values, or ``max_newton`` steps were attempted.

    Safeguard (``safeguard=True``): the full step is accepted when ``||G(w+d)|| <= nu ||G(w)||``.
    Otherwise ``globalization="fallback"`` stops (hands the game back to PRM+);
    ``globalization="linesearch"`` (*project choice*, a standard damped-Newton globalisation) tries
    ``w + t d`` for ``t = 1/2, 1/4, ...`` (``max_backtracks`` times) and accepts the first with
    ``||G(w + t d)|| <= (1 - sigma t) ||G(w)||``; only if none passes does the game stop. Damped steps
    move ``w`` onto another linear piece, which repairs a wrongly identified support
    (near-degenerate games). Costs per game in mat-vec equivalents: 2 per
    evaluation of ``G`` (which also yields the gap), 2 to form ``V``, plus the dense solve
    (:func:`~icml26.papers.ssn_games.games.newton_solve_cost`), plus the Cholesky factor when
    ``regularize="drs"``.
    """
    op = DRSOperator(A, eta)
    B, n, m = op.B, op.n, op.m
    w = op._check_w(w0, "w0").to(op.A.dtype)
    if not bool(torch.isfinite(w).all()):
        raise ValueError("w0 must be finite")
    nu, tol, max_newton = _check_newton(op.A.dtype, kappa, nu, tol, max_newton, regularize, globalization)
    if not isinstance(safeguard, bool):
        raise ValueError(f"safeguard must be a bool; got {safeguard!r}")
    sigma = _check_pos("sigma", sigma, 0.0, 1.0)
    max_backtracks = _check_int("max_backtracks", max_backtracks, 0)
    solve = newton_solve_cost(n, m)
    cost = torch.zeros(B, dtype=torch.float64)
    if regularize == "drs":
        cost += (n ** 3 / 3 + 2 * n * n * m) / (2 * n * m)
        IeM = op.IetaM()
    G = op.G(w)
    gap = op.gap(w)
    cost += 2
    active = torch.ones(B, dtype=torch.bool, device=w.device)
    converged = gap <= tol
    active &= ~converged
    steps = torch.zeros(B, dtype=torch.long)
    gaps = [[g] for g in gap.tolist()]
    res = [[r] for r in G.norm(dim=-1).tolist()]
    acc = [[] for _ in range(B)]
    costs = [[c] for c in cost.tolist()]
    for _ in range(max_newton):
        if not bool(active.any()):
            break
        gnorm = G.norm(dim=-1)
        V = op.V(w)
        if regularize == "normal_map":
            mu = kappa * gnorm
            K = V + mu[:, None, None] * torch.eye(n + m, dtype=w.dtype, device=w.device)
        else:
            mu = kappa * op.R(G).norm(dim=-1)
            K = V + mu[:, None, None] * IeM
        d, info = linalg._solve_ex(K, -G)
        ok = (info == 0) & torch.isfinite(d).all(dim=-1)
        d = torch.where(ok[:, None], d, torch.zeros_like(d))
        w_try = w + d
        G_try = op.G(w_try)
        gap_try = op.gap(w_try)
        finite = torch.isfinite(G_try).all(dim=-1) & torch.isfinite(gap_try)
        new_norm = torch.where(finite, G_try.norm(dim=-1), torch.full_like(gnorm, math.inf))
        accept = ok & finite & ((new_norm <= nu * gnorm) if safeguard else torch.ones_like(ok))
        accept &= active
        full = accept.clone()
        act_cpu = active.cpu()
        cost += act_cpu.to(torch.float64) * (2 + solve + 2)
        if safeguard and globalization == "linesearch":
            pending = active & ok & ~accept
            t = torch.ones_like(gnorm)
            for _ in range(max_backtracks):
                if not bool(pending.any()):
                    break
                t = torch.where(pending, t / 2, t)
                w_ls = w + t[:, None] * d
                G_ls = op.G(w_ls)
                gap_ls = op.gap(w_ls)
                cost += pending.cpu().to(torch.float64) * 2
                good = pending & torch.isfinite(G_ls).all(dim=-1) & (G_ls.norm(dim=-1) <= (1 - sigma * t) * gnorm)
                w_try = torch.where(good[:, None], w_ls, w_try)
                G_try = torch.where(good[:, None], G_ls, G_try)
                gap_try = torch.where(good, gap_ls, gap_try)
                accept |= good
                pending &= ~good
        w = torch.where(accept[:, None], w_try, w)
        G = torch.where(accept[:, None], G_try, G)
        gap = torch.where(accept, gap_try, gap)
        steps += accept.cpu().long()
        acc_all = accept.tolist()
        acc_l, gap_l, res_l, cost_l = full.tolist(), gap.tolist(), G.norm(dim=-1).tolist(), cost.tolist()
        for b in range(B):
            if act_cpu[b]:
                acc[b].append(acc_l[b])
                if acc_all[b]:
                    gaps[b].append(gap_l[b])
                    res[b].append(res_l[b])
                    costs[b].append(cost_l[b])
        converged |= accept & (gap <= tol)
        failed = active & ~accept & (torch.tensor(True, device=w.device) if safeguard else ~(ok & finite))
        active &= ~converged & ~failed
    return SSNResult(w=w, gap=gap.tolist(), converged=converged.tolist(), steps=steps.tolist(),
                     cost=cost.tolist(), gaps=gaps, residuals=res, accepted=acc, costs=costs)


@dataclass
class HybridResult:
    """Per-game outcome of :func:`hybrid` (lists have one entry per game)."""

    x: torch.Tensor
    y: torch.Tensor
    gap: list
    converged: list
    cost: list                  # mat-vec equivalents until the certificate (or the end)
    prm_iterations: list        # PRM+ iterations used before the successful Newton phase
    newton_steps: list          # accepted Newton steps in the successful attempt
    attempts: list              # Newton phases started (successful or not)
    seconds: float              # wall time of the whole batch
    eta: list
    trace: list                 # per game: list of (cost, gap) points for plotting
    newton_gaps: list           # per game: gaps along the successful Newton phase (from its warm start)
    newton_residuals: list      # per game: ||G|| along the same phase
    newton_full: list           # per game: whether each step of that phase was a full (undamped) step


def hybrid(A: torch.Tensor, *, switch: str = "adaptive", T0="auto", growth: float = 2.0,
           max_iterations: int = 100_000,
           eps_switch: float = 1e-4, check_every: int = 50, warm_starts=WARM_STARTS, averaging: str = "quadratic",
           alternating: bool = True, eta_scale: float = 1.0, kappa: float = 1e-2, nu: float = 0.9,
           tol: float = 1e-12, max_newton: int = 30, regularize: str = "normal_map",
           globalization: str = "linesearch", balance: bool = True, min_newton: int = 8) -> HybridResult:
    """Hybrid PRM+ -> SSN (Algorithm 1 of the paper; switching rules *inferred*), batched.

    See docs/papers/ssn_games.md §3.5.

    ``switch="adaptive"`` (HPSSN-like): run PRM+ in chunks ``T0, g T0, g^2 T0, ...`` (``g = growth``; continuing, not
    restarting); after each chunk try a safeguarded Newton phase from each warm start in
    ``warm_starts`` (the ``averaging`` average and/or the last iterate) and stop on a certificate.
    ``switch="threshold"`` (PSSN-like): check the PRM+ gaps every ``check_every`` iterations (charged,
    4 mat-vecs) and start Newton once the smaller gap is ``<= eps_switch``; after a failed phase the
    game's threshold is divided by 10. Each game stops on its own certificate ``gap <= tol``.

    Cost balance (*inferred*, project choice; the paper's rule is not available): ``T0="auto"`` makes the
    first PRM+ chunk cost about two Newton solves (``max(200, solve cost)`` iterations), and with
    ``balance=True`` a Newton phase may take at most ``max(min_newton, chunk cost / solve cost)`` steps (capped by
    ``max_newton``), so the Newton effort never outgrows the first-order effort before it (a doubling
    trick). Without it, failing line-search phases on large games waste up to ``max_newton`` solves each.
    """
    A = check_games(A)
    B, n, m = A.shape
    if switch not in SWITCHES:
        raise ValueError(f"switch must be one of {SWITCHES}; got {switch!r}")
    solve_cost = newton_solve_cost(n, m)
    T0 = max(200, math.ceil(solve_cost)) if T0 == "auto" else _check_int("T0", T0)
    min_newton = _check_int("min_newton", min_newton)
    if not isinstance(balance, bool):
        raise ValueError(f"balance must be a bool; got {balance!r}")
    max_iterations = _check_int("max_iterations", max_iterations)
    check_every = _check_int("check_every", check_every)
    eps_switch = _check_pos("eps_switch", eps_switch)
    growth = _check_pos("growth", growth, 1.0)
    ws = tuple(warm_starts)
    if not ws or any(s not in WARM_STARTS for s in ws):
        raise ValueError(f"warm_starts must be a non-empty sequence from {WARM_STARTS}; got {warm_starts!r}")
    if averaging not in ("uniform", "linear", "quadratic"):
        raise ValueError(f"averaging must be 'uniform', 'linear' or 'quadratic'; got {averaging!r}")
    _check_newton(A.dtype, kappa, nu, tol, max_newton, regularize, globalization)
    checks.positive_number("eta_scale", eta_scale)
    if not isinstance(alternating, bool) and not (isinstance(alternating, torch.Tensor)
                                                  and alternating.dtype == torch.bool and alternating.shape == (B,)):
        raise ValueError(f"alternating must be a bool or a boolean tensor of shape ({B},); got {alternating!r}")
    newton_kw = dict(kappa=kappa, nu=nu, tol=tol, max_newton=max_newton, regularize=regularize,
                     globalization=globalization)
    _sync(A.device)
    t0 = time.perf_counter()
    eta, eta_cost = default_eta(A, eta_scale)
    rm = RegretMatching(A, predictive=True, plus=True, alternating=alternating)
    cost = [float(eta_cost)] * B
    done = [False] * B
    out = dict(gap=[math.inf] * B, prm_iterations=[0] * B, newton_steps=[0] * B, attempts=[0] * B,
               newton_gaps=[[] for _ in range(B)], newton_residuals=[[] for _ in range(B)],
               newton_full=[[] for _ in range(B)])
    trace = [[] for _ in range(B)]
    xs, ys = rm.x.clone(), rm.y.clone()
    eps = [eps_switch] * B
    chunk = T0 if switch == "adaptive" else check_every

    def attempt(idx: list[int], start: str, steps_done: int) -> None:
        if not idx:
            return
        kw = dict(newton_kw)
        if balance:
            kw["max_newton"] = int(min(max_newton, max(min_newton, (2 * steps_done) // solve_cost)))
        ii = torch.tensor(idx, device=A.device)
        x0, y0 = rm.iterate(averaging if start == "average" else "last")
        x0, y0 = x0[ii], y0[ii]
        sub = DRSOperator(A[ii], eta[ii])
        w0 = sub.lift(x0, y0)
        r = ssn(A[ii], w0, eta[ii], **kw)
        P = sub.P(r.w)
        for k, b in enumerate(idx):
            cost[b] += 2 + r.cost[k]  # +2: the lift w0 = z - eta M z
            out["attempts"][b] += 1
            base = cost[b] - r.cost[k]
            for c, g in zip(r.costs[k], r.gaps[k]):
                trace[b].append((base + c, g))
            if r.converged[k]:
                done[b] = True
                out["gap"][b] = r.gap[k]
                out["prm_iterations"][b] = rm.t
                out["newton_steps"][b] = r.steps[k]
                out["newton_gaps"][b] = r.gaps[k]
                out["newton_residuals"][b] = r.residuals[k]
                out["newton_full"][b] = r.accepted[k]
                xs[b], ys[b] = P[k, :n], P[k, n:]

    while not all(done) and rm.t < max_iterations:
        steps = min(chunk, max_iterations - rm.t)
        for _ in range(steps):
            rm.step()
        for b in range(B):
            if not done[b]:
                cost[b] += 2 * steps
        if switch == "adaptive":
            for start in ws:
                attempt([b for b in range(B) if not done[b]], start, steps)
            chunk = max(1, int(round(chunk * growth)))
        else:
            g = rm.gaps()  # (4, B): last, uniform, linear, quadratic
            g_avg = g[("last", "uniform", "linear", "quadratic").index(averaging)].tolist()
            g_last = g[0].tolist()
            for b in range(B):
                if not done[b]:
                    cost[b] += 4
                    trace[b].append((cost[b], min(g_avg[b], g_last[b])))
            ready = [b for b in range(B) if not done[b] and min(g_avg[b], g_last[b]) <= eps[b]]
            for start in ws:
                attempt([b for b in ready if not done[b]], start, rm.t)
            for b in ready:
                if not done[b]:
                    eps[b] /= 10
    # Games that never certified: report the best PRM+ iterate.
    if not all(done):
        warnings.warn(f"hybrid stopped at max_iterations={max_iterations} PRM+ iterations with "
                      f"{done.count(False)} of {B} games above tol={tol:g}", checks.IterationCapReached,
                      stacklevel=2)
        g = rm.gaps()
        for b in range(B):
            if not done[b]:
                out["gap"][b] = float(g[:, b].min())
                out["prm_iterations"][b] = rm.t
    _sync(A.device)
    return HybridResult(x=xs, y=ys, converged=done, cost=cost, seconds=time.perf_counter() - t0,
                        eta=eta.tolist(), trace=trace, **out)
