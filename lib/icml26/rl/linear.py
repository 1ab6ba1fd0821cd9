"""Linear-MDP tooling in torch: ridge statistics, elliptical bonuses, LSVI-UCB, exact evaluation.

Everything here is generic (no paper-specific model) and batched where batching makes sense:

* :func:`sherman_morrison_update` -- ``(A + u u^T)^{-1}`` from ``A^{-1}`` in O(D^2), batched over
  leading dimensions.
* :func:`elliptical_bonus` -- ``||x||_{A^{-1}} = sqrt(x^T A^{-1} x)`` for a batch of feature rows.
* :class:`RidgeStats` -- the sufficient statistics of least-squares value iteration with a tabular
  next-state: ``Lambda = lam I + sum_i x_i x_i^T``, ``c = sum_i x_i y_i`` and ``B = sum_i x_i
  o_i e_{s'_i}^T``, so that the regression of ``y_i + o_i V(s'_i)`` on ``x_i`` has weights
  ``Lambda^{-1}(c + B V)`` for any value vector ``V`` (used by LSVI-UCB-style learners).
* :func:`optimistic_value_iteration` -- the LSVI-UCB backbone for discounted / geometric-horizon
  problems: iterate ``Q = min(x^T Lambda^{-1}(c + B V) + bonus, v_max)``, ``V = max Q``.
* :func:`solve_values`, :func:`evaluate_policy_exact`, :func:`policy_iteration`,
  :func:`bellman_fixed_point` -- exact tabular policy evaluation / control (linear solves), and the
  plain fixed-point iteration as an independent oracle.

Tensors keep the device and dtype they are given; float64 is recommended where exactness is tested.
"""

from __future__ import annotations

import math
import operator
import warnings

import torch

from icml26 import checks, linalg

__all__ = [
    "RidgeStats",
    "bellman_fixed_point",
    "elliptical_bonus",
    "evaluate_policy_exact",
    "optimistic_value_iteration",
    "policy_iteration",
    "sherman_morrison_update",
    "solve_values",
]


def _tensor(name: str, x, ndim_min: int | None = None, ndim: int | None = None) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor; got {type(x).__name__}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions; got shape {tuple(x.shape)}")
    if ndim_min is not None and x.ndim < ndim_min:
        raise ValueError(f"{name} must have at least {ndim_min} dimensions; got shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty; got shape {tuple(x.shape)}")
    if x.is_floating_point() and not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} must be finite (no NaN/inf)")
    return x


def sherman_morrison_update(A_inv: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Return ``(A + u u^T)^{-1}`` given ``A^{-1}`` (symmetric positive definite), batched.

    ``A_inv`` has shape ``(..., D, D)`` and ``u`` shape ``(..., D)`` (broadcast over the leading
    dimensions). Uses ``A^{-1} - (A^{-1}u)(A^{-1}u)^T / (1 + u^T A^{-1} u)``.
    """
    _tensor("A_inv", A_inv, ndim_min=2)
    _tensor("u", u, ndim_min=1)
    if A_inv.shape[-1] != A_inv.shape[-2]:
        raise ValueError(f"A_inv must be square in its last two dimensions; got shape {tuple(A_inv.shape)}")
    if u.shape[-1] != A_inv.shape[-1]:
        raise ValueError(f"u must have last dimension {A_inv.shape[-1]} (that of A_inv); got {tuple(u.shape)}")
    Au = (A_inv @ u.unsqueeze(-1)).squeeze(-1)
    denom = 1.0 + (u * Au).sum(-1, keepdim=True)
    if bool((denom <= 0).any()):
        raise ValueError("A_inv must be positive definite (1 + u^T A_inv u came out <= 0)")
    return _sm(A_inv, Au, denom)


def _sm(A_inv, Au, denom):
    return A_inv - Au.unsqueeze(-1) * Au.unsqueeze(-2) / denom.unsqueeze(-1)


def elliptical_bonus(features: torch.Tensor, A_inv: torch.Tensor) -> torch.Tensor:
    """``sqrt(x^T A^{-1} x)`` for every row ``x`` of ``features`` (shape ``(..., D)``); returns ``(...)``."""
    _tensor("features", features, ndim_min=1)
    _tensor("A_inv", A_inv, ndim=2)
    D = features.shape[-1]
    if A_inv.shape != (D, D):
        raise ValueError(f"A_inv must have shape ({D}, {D}) to match features; got {tuple(A_inv.shape)}")
    quad = ((features @ A_inv) * features).sum(-1)
    return quad.clamp_min(0.0).sqrt()


class RidgeStats:
    """Ridge-regression statistics with a tabular next-state target, updated by Sherman-Morrison.

    Holds ``Lambda^{-1}`` (``lam I + sum x x^T`` inverted), ``c = sum x y`` and ``B = sum x o e_{s'}^T``
    (shape ``(dim, n_states)``). :meth:`weights` returns ``Lambda^{-1}(c + B V)``: the ridge fit of the
    targets ``y_i + o_i V(s'_i)`` for any ``V``. ``logdet`` tracks ``log det Lambda`` (for rarely
    switching schedules).
    """

    def __init__(self, dim: int, n_states: int, lam: float = 1.0, device="cpu", dtype=torch.float64):
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise ValueError(f"dim must be a positive integer; got {dim!r}")
        if isinstance(n_states, bool) or not isinstance(n_states, int) or n_states < 1:
            raise ValueError(f"n_states must be a positive integer; got {n_states!r}")
        lam = checks.positive_number("lam", lam)
        device = checks.device("device", device)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
        self.dim, self.n_states, self.lam = dim, n_states, float(lam)
        self.Lambda_inv = torch.eye(dim, device=device, dtype=dtype) / lam
        self.c = torch.zeros(dim, device=device, dtype=dtype)
        self.B = torch.zeros(dim, n_states, device=device, dtype=dtype)
        self.logdet = dim * math.log(lam)
        self.n = 0

    def update(self, x: torch.Tensor, y: float, next_state: int | None = None, weight: float = 1.0) -> None:
        """Add one sample: feature ``x`` (shape ``(dim,)``), scalar target ``y`` and, when
        ``next_state`` is given, ``weight * V(next_state)`` added to the target."""
        _tensor("x", x, ndim=1)
        if x.shape[0] != self.dim:
            raise ValueError(f"x must have shape ({self.dim},); got {tuple(x.shape)}")
        if not isinstance(y, (int, float)) or not math.isfinite(y):
            raise ValueError(f"y must be a finite number; got {y!r}")
        if next_state is not None:
            try:
                ok = not isinstance(next_state, bool) and 0 <= operator.index(next_state) < self.n_states
            except TypeError:
                ok = False
            if not ok:
                raise ValueError(f"next_state must be an integer in [0, {self.n_states}) or None; got {next_state!r}")
        weight = checks.finite_number("weight", weight)
        x = x.to(self.c)
        Ax = self.Lambda_inv @ x
        quad = x @ Ax
        self.logdet += math.log1p(float(quad))
        self.Lambda_inv = _sm(self.Lambda_inv, Ax, (1.0 + quad).reshape(1))
        self.c += y * x
        if next_state is not None:
            self.B[:, int(next_state)] += weight * x
        self.n += 1

    def weights(self, V: torch.Tensor) -> torch.Tensor:
        """``Lambda^{-1}(c + B V)`` for a value vector ``V`` of shape ``(n_states,)``."""
        _tensor("V", V, ndim=1)
        if V.shape[0] != self.n_states:
            raise ValueError(f"V must have shape ({self.n_states},); got {tuple(V.shape)}")
        return self.Lambda_inv @ (self.c + self.B @ V.to(self.c))


def optimistic_value_iteration(features: torch.Tensor, stats: RidgeStats, bonus_scale: float, v_max: float,
                               V0: torch.Tensor | None = None, tol: float = 1e-8, max_iter: int = 500):
    """LSVI-UCB value iteration on a finite state set (discounting lives in the features/targets).

    ``features`` has shape ``(S, n_options, D)``: the regression feature of every (state, option)
    pair. Iterates ``Q(s,o) = min(features[s,o]^T Lambda^{-1}(c + B V) + bonus(s,o), v_max)`` with
    ``bonus = bonus_scale * ||features[s,o]||_{Lambda^{-1}}`` and ``V(s) = max_o Q(s,o)`` until the
    sup-change is below ``tol``. Returns ``(Q, V, n_iter)``; warns (:class:`icml26.checks.IterationCapReached`)
    when ``max_iter`` iterations end above ``tol``.
    """
    _tensor("features", features, ndim=3)
    if not isinstance(stats, RidgeStats):
        raise ValueError(f"stats must be a RidgeStats; got {type(stats).__name__}")
    S, _, D = features.shape
    if D != stats.dim or S != stats.n_states:
        raise ValueError(f"features must have shape (n_states={stats.n_states}, n_options, dim={stats.dim}); "
                         f"got {tuple(features.shape)}")
    if not isinstance(bonus_scale, (int, float)) or bonus_scale < 0 or not math.isfinite(bonus_scale):
        raise ValueError(f"bonus_scale must be a finite number >= 0; got {bonus_scale!r}")
    v_max = checks.positive_number("v_max", v_max)
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    tol = checks.positive_number("tol", tol)
    if V0 is not None:
        _tensor("V0", V0, ndim=1)
        if V0.shape[0] != S:
            raise ValueError(f"V0 must have shape ({S},); got {tuple(V0.shape)}")
    F = features.to(stats.c)
    FL = F @ stats.Lambda_inv                         # (S, O, D)
    g0 = FL @ stats.c                                 # (S, O)
    G = FL @ stats.B                                  # (S, O, S)
    bonus = bonus_scale * ((FL * F).sum(-1).clamp_min(0.0).sqrt())
    base = g0 + bonus
    V = torch.zeros(S, dtype=F.dtype, device=F.device) if V0 is None else V0.to(F).clone()
    it, delta = 0, math.inf
    for it in range(1, max_iter + 1):  # noqa: B007 -- a fixed-point loop; each step is one batched matvec
        Q = torch.clamp(base + G @ V, max=v_max)
        V_new = Q.max(dim=1).values
        # read the change back (a device sync) only every 4th step
        if it % 4 == 0 or it == max_iter:
            delta = float((V_new - V).abs().max())
            V = V_new
            if delta < tol:
                break
        else:
            V = V_new
    if delta >= tol:
        _cap_warning("optimistic_value_iteration", max_iter, delta, tol)
    Q = torch.clamp(base + G @ V, max=v_max)
    return Q, Q.max(dim=1).values, it


def _cap_warning(fn: str, max_iter: int, delta: float, tol: float) -> None:
    warnings.warn(f"{fn} stopped at max_iter={max_iter} with a change of {delta:.3g} >= tol={tol:g}",
                  checks.IterationCapReached, stacklevel=3)


def solve_values(R: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Solve ``V = R + B V`` exactly: ``V = (I - B)^{-1} R`` (``B``: sub-stochastic, spectral radius < 1).

    ``R`` has shape ``(..., S)`` and ``B`` shape ``(..., S, S)`` (batched).
    """
    _tensor("R", R, ndim_min=1)
    _tensor("B", B, ndim_min=2)
    S = R.shape[-1]
    if B.shape[-2:] != (S, S):
        raise ValueError(f"B must end in shape ({S}, {S}) to match R; got {tuple(B.shape)}")
    if bool((B.abs().sum(-1) >= 1.0).any()):
        raise ValueError("B must have absolute row sums < 1 (a discounted / terminating transition matrix)")
    eye = torch.eye(S, dtype=B.dtype, device=B.device)
    return linalg._solve(eye - B, R.unsqueeze(-1)).squeeze(-1)


def _check_mdp(P: torch.Tensor, r: torch.Tensor, gamma: float):
    _tensor("P", P, ndim=3)
    _tensor("r", r, ndim=2)
    A, S, S2 = P.shape
    if S != S2:
        raise ValueError(f"P must have shape (A, S, S); got {tuple(P.shape)}")
    if r.shape != (S, A):
        raise ValueError(f"r must have shape (S, A) = ({S}, {A}); got {tuple(r.shape)}")
    if bool((P < -1e-12).any()) or not torch.allclose(P.sum(-1), torch.ones_like(P.sum(-1)), atol=1e-8):
        raise ValueError("P must hold probability rows (non-negative, each row summing to 1)")
    if not isinstance(gamma, (int, float)) or not 0 <= gamma < 1:
        raise ValueError(f"gamma must lie in [0, 1); got {gamma!r}")
    return A, S


def _policy_matrices(P, r, policy):
    A, S = P.shape[0], P.shape[1]
    if not isinstance(policy, torch.Tensor):
        raise ValueError("policy must be a torch.Tensor: (S,) integer actions or (S, A) probabilities")
    if policy.ndim == 1 and not policy.is_floating_point():
        if policy.shape != (S,) or bool(((policy < 0) | (policy >= A)).any()):
            raise ValueError(f"policy must hold S={S} actions in [0, {A}); got {policy}")
        idx = torch.arange(S, device=P.device)
        return P[policy, idx], r[idx, policy]
    if policy.shape != (S, A) or bool((policy < 0).any()) or not torch.allclose(
            policy.sum(-1), torch.ones(S, dtype=policy.dtype, device=policy.device), atol=1e-8):
        raise ValueError(f"policy must be (S,) integer actions or (S, A)=({S}, {A}) probability rows")
    pi = policy.to(P)
    return torch.einsum("sa,ast->st", pi, P), (pi * r).sum(-1)


def evaluate_policy_exact(P: torch.Tensor, r: torch.Tensor, gamma: float, policy: torch.Tensor) -> torch.Tensor:
    """``V^pi = (I - gamma P_pi)^{-1} r_pi`` for a deterministic ``(S,)`` or stochastic ``(S, A)`` policy.

    ``P`` has shape ``(A, S, S)`` and ``r`` shape ``(S, A)``.
    """
    _check_mdp(P, r, gamma)
    P_pi, r_pi = _policy_matrices(P, r, policy)
    return solve_values(r_pi, gamma * P_pi)


def bellman_fixed_point(P: torch.Tensor, r: torch.Tensor, gamma: float, policy: torch.Tensor | None = None,
                        tol: float = 1e-13, max_iter: int = 100_000) -> torch.Tensor:
    """Iterate the Bellman operator (of ``policy``, or the optimality operator when ``None``) to ``tol``.

    An independent oracle for :func:`evaluate_policy_exact` and :func:`policy_iteration`. ``tol`` must be
    resolvable in ``P``'s dtype; warns (:class:`icml26.checks.IterationCapReached`) when ``max_iter`` is hit.
    """
    A, S = _check_mdp(P, r, gamma)
    tol = checks.reachable_tolerance("tol", tol, P.dtype) if P.is_floating_point() else \
        checks.positive_number("tol", tol)
    max_iter = checks.positive_int("max_iter", max_iter)
    V = torch.zeros(S, dtype=P.dtype, device=P.device)
    if policy is not None:
        P_pi, r_pi = _policy_matrices(P, r, policy)
    delta = math.inf
    for _ in range(max_iter):
        if policy is None:
            V_new = (r + gamma * torch.einsum("ast,t->sa", P, V)).max(dim=1).values
        else:
            V_new = r_pi + gamma * P_pi @ V
        delta = float((V_new - V).abs().max())
        if delta < tol:
            return V_new
        V = V_new
    _cap_warning("bellman_fixed_point", max_iter, delta, tol)
    return V


def policy_iteration(P: torch.Tensor, r: torch.Tensor, gamma: float, max_iter: int = 1000):
    """Exact optimal control of a tabular discounted MDP by Howard's policy iteration.

    Returns ``(Q, V, policy)`` with ``Q`` of shape ``(S, A)``; warns (:class:`icml26.checks.IterationCapReached`)
    when ``max_iter`` improvement steps end without a stable policy.
    """
    A, S = _check_mdp(P, r, gamma)
    max_iter = checks.positive_int("max_iter", max_iter)
    policy = torch.zeros(S, dtype=torch.long, device=P.device)
    for _ in range(max_iter):
        V = evaluate_policy_exact(P, r, gamma, policy)
        Q = r + gamma * torch.einsum("ast,t->sa", P, V)
        best = Q.max(dim=1).values
        # keep the current action unless another is strictly better (avoids cycling on ties)
        improve = best > Q.gather(1, policy[:, None]).squeeze(1) + 1e-12
        if not bool(improve.any()):
            return Q, V, policy
        policy = torch.where(improve, Q.argmax(dim=1), policy)
    warnings.warn(f"policy_iteration stopped at max_iter={max_iter} before its policy stopped changing",
                  checks.IterationCapReached, stacklevel=2)
    return Q, V, policy
