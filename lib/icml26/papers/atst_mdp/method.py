"""ATST-MDPs: models, Bellman equations, the action-sequence view, the induced feature map, ATST-LSVI-UCB.

Paper: "Reinforcement Learning with Action-Triggered Observations" (arXiv 2510.02149). Section numbers
(§) refer to docs/papers/atst_mdp.md; the paper's body was not available (only its abstracts), so
the sequence formula (§3.3), the finite tail rule (§3.4), the induced feature map (§3.5), the
off-policy estimator of ``M_a`` (§3.6) and the learner's details (§3.7) are derivations marked
*(inferred)* there. All tensors are torch (float64 by default, since the checks are at 1e-10).

Model (§3.1): each action ``a`` reveals the state with a known probability ``beta(a)`` that does not
depend on the state; each step the episode continues with probability ``gamma``. Between two bursts
the agent commits to an action *sequence* ``alpha``; a sequence of length ``L`` is followed by
repeating its last action until a burst (tail rule, §3.4). With ``c_k = prod_{j<k} (1 - beta(a_j))``
and beliefs ``b_1 = e_s``, ``b_{k+1} = b_k P_{a_k}`` (§3.3):

    Q(s, alpha; V) = sum_k gamma^{k-1} c_k b_k.r_{a_k} + sum_k gamma^k c_k beta(a_k) b_k P_{a_k} V
                   = R(s, alpha) + Bseq(s, alpha, :) V.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks, linalg
from icml26.rl.linear import RidgeStats, optimistic_value_iteration, solve_values

DTYPE = torch.float64


# ----------------------------------------------------------------------------------------------
# models
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ATSTMDP:
    """A tabular ATST-MDP (§3.1): kernels ``P`` (A, S, S), rewards ``r`` (S, A) in [0, 1], trigger
    probabilities ``beta`` (A,) and continuation probability ``gamma``."""

    P: torch.Tensor
    r: torch.Tensor
    beta: torch.Tensor
    gamma: float

    def __post_init__(self):
        for name in ("P", "r", "beta"):
            x = getattr(self, name)
            if not isinstance(x, torch.Tensor) or not x.is_floating_point():
                raise ValueError(f"{name} must be a floating torch.Tensor")
            if not bool(torch.isfinite(x).all()):
                raise ValueError(f"{name} must be finite")
            checks.tensor(name, x)                                   # non-empty
        if self.P.ndim != 3 or self.P.shape[1] != self.P.shape[2]:
            raise ValueError(f"P must have shape (A, S, S); got {tuple(self.P.shape)}")
        A, S = self.P.shape[0], self.P.shape[1]
        if bool((self.P < -1e-12).any()) or not torch.allclose(self.P.sum(-1), torch.ones_like(self.P[..., 0]),
                                                               atol=1e-8):
            raise ValueError("P must hold probability rows (non-negative, rows summing to 1)")
        if self.r.shape != (S, A):
            raise ValueError(f"r must have shape (S, A) = ({S}, {A}); got {tuple(self.r.shape)}")
        if bool((self.r < -1e-12).any()) or bool((self.r > 1 + 1e-12).any()):
            raise ValueError("r must lie in [0, 1]")
        if self.beta.shape != (A,) or bool((self.beta < 0).any()) or bool((self.beta > 1).any()):
            raise ValueError(f"beta must have shape ({A},) with entries in [0, 1]; got {self.beta}")
        _check_gamma(self.gamma)

    @property
    def n_states(self) -> int:
        return int(self.P.shape[1])

    @property
    def n_actions(self) -> int:
        return int(self.P.shape[0])

    @property
    def v_max(self) -> float:
        return 1.0 / (1.0 - self.gamma)

    def with_beta(self, beta) -> ATSTMDP:
        return ATSTMDP(self.P, self.r, torch.as_tensor(beta, dtype=self.P.dtype, device=self.P.device), self.gamma)


@dataclass(frozen=True)
class LowRankMDP:
    """A linear MDP (§3.5): ``P(s'|s,a) = phi(s,a)^T mu(s')`` and ``r(s,a) = phi(s,a)^T theta``.

    ``phi`` (S, A, d), ``mu`` (d, S) with probability rows, ``theta`` (d,)."""

    phi: torch.Tensor
    mu: torch.Tensor
    theta: torch.Tensor
    beta: torch.Tensor
    gamma: float

    def tabular(self) -> ATSTMDP:
        P = torch.einsum("sad,dt->ast", self.phi, self.mu)
        return ATSTMDP(P, self.phi @ self.theta, self.beta, self.gamma)

    def __post_init__(self):
        for name in ("phi", "mu", "theta", "beta"):
            x = getattr(self, name)
            if not isinstance(x, torch.Tensor) or not x.is_floating_point():
                raise ValueError(f"{name} must be a floating torch.Tensor")
            checks.tensor(name, x)
        checks.tensor("phi", self.phi, ndim=3)
        S, A, d = self.phi.shape
        checks.tensor("mu", self.mu, shape=(d, S))
        checks.tensor("theta", self.theta, shape=(d,))
        _check_beta_tensor(self.beta, A)
        _check_gamma(self.gamma)

    @property
    def dim(self) -> int:
        return int(self.phi.shape[-1])


def _check_beta(beta, A: int, device):
    try:
        b = torch.as_tensor(beta, dtype=DTYPE, device=device)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"beta must list {A} probabilities in [0, 1]; got {beta!r}") from None
    if b.shape != (A,) or not bool(((b >= 0) & (b <= 1)).all()):            # also rejects NaN
        raise ValueError(f"beta must list {A} probabilities in [0, 1]; got {beta!r}")
    return b


def _check_beta_tensor(beta, A: int | None = None, name: str = "beta") -> torch.Tensor:
    """A 1-d tensor of trigger probabilities (``A`` of them when given)."""
    checks.tensor(name, beta, ndim=1, shape=None if A is None else (A,))
    if not bool(((beta >= 0) & (beta <= 1)).all()):
        raise ValueError(f"{name} must hold probabilities in [0, 1]; got {beta}")
    return beta


def _check_gamma(gamma) -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.floating)) or not 0 < gamma < 1:
        raise ValueError(f"gamma must lie in (0, 1); got {gamma!r}")
    return float(gamma)


def _check_model(model, cls=None):
    cls = ATSTMDP if cls is None else cls
    if not isinstance(model, cls):
        raise TypeError(f"model must be a{'n' if cls is ATSTMDP else ''} {cls.__name__}; got {type(model).__name__}")
    return model


def _posint(name, v, lo=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    return int(v)


def random_tabular(n_states: int, n_actions: int, beta, gamma: float, seed: int = 0, device="cpu") -> ATSTMDP:
    """Random tabular ATST-MDP (§2): ``P_a(s, .) ~ Dirichlet(1)``, ``r ~ U[0, 1]``."""
    S, A = _posint("n_states", n_states), _posint("n_actions", n_actions)
    checks.seed("seed", seed)
    device = checks.device("device", device)
    _check_gamma(gamma)
    beta = _check_beta(beta, A, device)
    rng = np.random.default_rng(seed)
    P = torch.tensor(rng.dirichlet(np.ones(S), size=(A, S)), dtype=DTYPE, device=device)
    r = torch.tensor(rng.uniform(size=(S, A)), dtype=DTYPE, device=device)
    return ATSTMDP(P, r, beta, float(gamma))


def random_low_rank(n_states: int, n_actions: int, dim: int, beta, gamma: float, seed: int = 0,
                    concentration: float = 1.0, device="cpu") -> LowRankMDP:
    """Random low-rank linear MDP (§2): ``mu_i ~ Dir(1_S)``, ``phi(s,a) ~ Dir(concentration 1_d)``,
    ``theta ~ U[0,1]^d``; then ``P = phi mu`` is a kernel and ``r = phi theta`` lies in [0, 1]."""
    S, A, d = _posint("n_states", n_states), _posint("n_actions", n_actions), _posint("dim", dim)
    checks.positive_number("concentration", concentration)
    checks.seed("seed", seed)
    device = checks.device("device", device)
    _check_gamma(gamma)
    _check_beta(beta, A, device)
    rng = np.random.default_rng(seed)
    mu = torch.tensor(rng.dirichlet(np.ones(S), size=d), dtype=DTYPE, device=device)
    phi = torch.tensor(rng.dirichlet(concentration * np.ones(d), size=(S, A)), dtype=DTYPE, device=device)
    theta = torch.tensor(rng.uniform(size=d), dtype=DTYPE, device=device)
    if not 0 < gamma < 1:
        raise ValueError(f"gamma must lie in (0, 1); got {gamma!r}")
    return LowRankMDP(phi, mu, theta, _check_beta(beta, A, device), float(gamma))


def drifting_ring(n_positions: int = 7, slip: float = 0.2, beta_move: float = 0.1, beta_sense: float = 1.0,
                  gamma: float = 0.9, target: int = 0, device="cpu") -> ATSTMDP:
    """The "drifting ring with sensing" (§2, ours): actions left, right, collect (trigger
    ``beta_move``) and sense (trigger ``beta_sense``, reward 0). After the action's intended move
    (left/right by one, none for collect/sense) the position drifts by +-1 with probability ``slip``
    (``slip/2`` each way). Collect pays 1 at ``target``."""
    n = _posint("n_positions", n_positions, 3)
    if not 0 <= slip <= 1:
        raise ValueError(f"slip must lie in [0, 1]; got {slip!r}")
    if not 0 <= target < n:
        raise ValueError(f"target must lie in [0, {n}); got {target!r}")
    checks.nonnegative_int("target", target)
    checks.probability("beta_move", beta_move)
    checks.probability("beta_sense", beta_sense)
    _check_gamma(gamma)
    device = checks.device("device", device)
    idx = torch.arange(n, device=device)
    drift = torch.zeros(n, n, dtype=DTYPE, device=device)
    drift[idx, idx] += 1 - slip
    drift[idx, (idx + 1) % n] += slip / 2
    drift[idx, (idx - 1) % n] += slip / 2
    shift = lambda k: torch.eye(n, dtype=DTYPE, device=device).roll(k, dims=1)  # noqa: E731
    P = torch.stack([shift(-1) @ drift, shift(1) @ drift, drift, drift])
    r = torch.zeros(n, 4, dtype=DTYPE, device=device)
    r[target, 2] = 1.0
    beta = _check_beta([beta_move, beta_move, beta_move, beta_sense], 4, device)
    return ATSTMDP(P, r, beta, float(gamma))


RING_ACTIONS = ("left", "right", "collect", "sense")


# ----------------------------------------------------------------------------------------------
# sequences (§3.3-3.4)
# ----------------------------------------------------------------------------------------------
def enumerate_sequences(n_actions: int, L: int, device="cpu") -> torch.Tensor:
    """All ``n_actions**L`` action sequences of length ``L`` as a (n_actions**L, L) long tensor."""
    A, L = _posint("n_actions", n_actions), _posint("L", L)
    device = checks.device("device", device)
    if A**L > 200_000:
        raise ValueError(f"n_actions**L = {A**L} sequences is too many; keep L small (L <= 5 advised)")
    return torch.tensor(list(itertools.product(range(A), repeat=L)), dtype=torch.long, device=device)


def _check_seqs(seqs, A):
    if not isinstance(seqs, torch.Tensor) or seqs.ndim != 2 or seqs.is_floating_point() or seqs.shape[1] < 1:
        raise ValueError("seqs must be a (n_sequences, L) integer tensor")
    if seqs.shape[0] < 1:
        raise ValueError("seqs must hold at least one sequence; got shape (0, L)")
    if bool(((seqs < 0) | (seqs >= A)).any()):
        raise ValueError(f"seqs must hold actions in [0, {A})")


def tail_inverse(M: torch.Tensor, beta: torch.Tensor, gamma: float) -> torch.Tensor:
    """``(I - gamma (1 - beta_a) M_a)^{-1}`` for every action (the repeat-last tail, §3.4); (A, n, n)."""
    checks.tensor("M", M, ndim=3, dtype_kind="float")
    if M.shape[1] != M.shape[2]:
        raise ValueError(f"M must have shape (A, n, n); got {tuple(M.shape)}")
    _check_beta_tensor(beta, M.shape[0])
    _check_gamma(gamma)
    return _tail_inverse(M, beta, gamma)


def _tail_inverse(M, beta, gamma):
    n = M.shape[-1]
    eye = torch.eye(n, dtype=M.dtype, device=M.device)
    return linalg._inv(eye - gamma * (1 - beta)[:, None, None] * M)


def sequence_model(model: ATSTMDP, seqs: torch.Tensor):
    """``R`` (S, n_seq) and ``Bseq`` (S, n_seq, S) with ``Q(s, alpha; V) = R + Bseq V`` (§3.3, §3.4).

    Batched over all start states and sequences; the last action repeats until a burst (closed
    form through :func:`tail_inverse`)."""
    if not isinstance(model, ATSTMDP):
        raise ValueError("model must be an ATSTMDP")
    _check_seqs(seqs, model.n_actions)
    P, r, beta, g = model.P, model.r, model.beta, model.gamma
    S, (nq, L) = model.n_states, seqs.shape
    b = torch.eye(S, dtype=P.dtype, device=P.device)[:, None, :].expand(S, nq, S)     # b_1 = e_s
    w = torch.ones(nq, dtype=P.dtype, device=P.device)                                # gamma^{k-1} c_k
    R = torch.zeros(S, nq, dtype=P.dtype, device=P.device)
    Bq = torch.zeros(S, nq, S, dtype=P.dtype, device=P.device)
    rT = r.T                                                                            # (A, S)
    for k in range(L - 1):                                   # loop over the (short) sequence length only
        a = seqs[:, k]
        R += w * (b * rT[a][None]).sum(-1)
        bP = torch.einsum("qns,nst->qnt", b, P[a])
        Bq += (g * w * beta[a])[None, :, None] * bP
        w = w * g * (1 - beta[a])
        b = bP
    a = seqs[:, L - 1]
    T = _tail_inverse(P, beta, g)[a]                                                    # (nq, S, S)
    bT = torch.einsum("qns,nst->qnt", b, T)
    R += w * (bT * rT[a][None]).sum(-1)
    Bq += (g * w * beta[a])[None, :, None] * torch.einsum("qns,nst->qnt", bT, P[a])
    return R, Bq


def sequence_q(R: torch.Tensor, Bseq: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """``Q(s, alpha; V) = R + Bseq V`` (shape (S, n_seq))."""
    _check_sequence_model(R, Bseq)
    checks.tensor("V", V)
    if V.ndim != 1 or V.shape[0] != Bseq.shape[-1]:
        raise ValueError(f"V must have shape ({Bseq.shape[-1]},); got {tuple(V.shape)}")
    return _sequence_q(R, Bseq, V)


def _sequence_q(R, Bseq, V):
    return R + Bseq @ V


def _check_sequence_model(R, Bseq, discounted: bool = False) -> None:
    """``R`` (S, n_seq) and ``Bseq`` (S, n_seq, S), finite (and, if ``discounted``, rows of ``Bseq`` summing to < 1)."""
    checks.tensor("R", R, ndim=2, dtype_kind="float")
    S, nq = R.shape
    checks.tensor("Bseq", Bseq, dtype_kind="float")
    if tuple(Bseq.shape) != (S, nq, S):
        raise ValueError(f"Bseq must have shape (S, n_seq, S) = ({S}, {nq}, {S}) to match R of shape {tuple(R.shape)}; "
                         f"got {tuple(Bseq.shape)}")
    if discounted and not bool((Bseq.abs().sum(-1) < 1).all()):
        raise ValueError("Bseq must have absolute row sums < 1 (a discounted burst kernel, as sequence_model gives)")


def policy_matrices(R: torch.Tensor, Bseq: torch.Tensor, policy: torch.Tensor):
    """``(R_pi, B_pi)`` of a sequence policy: (S,) sequence indices or (S, n_seq) probabilities (§3.8)."""
    _check_sequence_model(R, Bseq)
    return _policy_matrices(R, Bseq, policy)


def _policy_matrices(R, Bseq, policy):
    S, nq = R.shape
    if not isinstance(policy, torch.Tensor):
        raise ValueError("policy must be a torch.Tensor")
    if policy.ndim == 1 and not policy.is_floating_point():
        if policy.shape != (S,) or bool(((policy < 0) | (policy >= nq)).any()):
            raise ValueError(f"policy must hold {S} sequence indices in [0, {nq})")
        idx = torch.arange(S, device=R.device)
        return R[idx, policy], Bseq[idx, policy]
    if policy.shape != (S, nq) or bool((policy < -1e-12).any()) or not torch.allclose(
            policy.sum(-1), torch.ones(S, dtype=policy.dtype, device=policy.device), atol=1e-8):
        raise ValueError(f"policy must be (S,) indices or (S, n_seq) = ({S}, {nq}) probability rows")
    pi = policy.to(R)
    return (pi * R).sum(-1), torch.einsum("sq,sqt->st", pi, Bseq)


def evaluate_sequence_policy(R: torch.Tensor, Bseq: torch.Tensor, policy: torch.Tensor) -> torch.Tensor:
    """Exact ``V^pi = (I - B_pi)^{-1} R_pi`` of a sequence policy (§3.8)."""
    _check_sequence_model(R, Bseq, discounted=True)
    return _evaluate_sequence_policy(R, Bseq, policy)


def _evaluate_sequence_policy(R, Bseq, policy):
    return solve_values(*_policy_matrices(R, Bseq, policy))


def sequence_policy_iteration(R: torch.Tensor, Bseq: torch.Tensor, max_iter: int = 1000):
    """Optimal sequence policy by policy iteration over enumerated sequences (exact; §3.3).

    Returns ``(V, policy, Q)``."""
    _check_sequence_model(R, Bseq, discounted=True)
    max_iter = checks.positive_int("max_iter", max_iter)
    S = R.shape[0]
    policy = torch.zeros(S, dtype=torch.long, device=R.device)
    for _ in range(max_iter):
        V = _evaluate_sequence_policy(R, Bseq, policy)
        Q = _sequence_q(R, Bseq, V)
        cur = Q.gather(1, policy[:, None]).squeeze(1)
        improve = Q.max(1).values > cur + 1e-12
        if not bool(improve.any()):
            return V, policy, Q
        policy = torch.where(improve, Q.argmax(1), policy)
    warnings.warn(f"sequence_policy_iteration: the policy still changed after max_iter={max_iter} improvements",
                  checks.IterationCapReached, stacklevel=2)
    return V, policy, Q


def augmented_value_iteration(model: ATSTMDP, L: int, tol: float = 1e-14, max_iter: int = 100_000):
    """Value iteration on the augmented state ``x = (s, a_1..a_k)``, ``k < L`` (§3.2) with the same
    repeat-last rule at depth ``L - 1`` (§3.4). Independent of :func:`sequence_model`: a backward
    pass over the tree of histories with a max at every node. Returns ``V`` at observed states."""
    _check_model(model)
    L = _posint("L", L)
    checks.reachable_tolerance("tol", tol, model.P.dtype)
    max_iter = checks.positive_int("max_iter", max_iter)
    P, r, beta, g = model.P, model.r, model.beta, model.gamma
    S, A = model.n_states, model.n_actions
    eye = torch.eye(S, dtype=P.dtype, device=P.device)
    beliefs = [eye[:, None, :]]                                  # depth k: (S, A^k, S)
    for _ in range(L - 1):
        b = torch.einsum("smu,aut->smat", beliefs[-1], P)
        beliefs.append(b.reshape(S, -1, S))
    T = _tail_inverse(P, beta, g)                                # (A, S, S)
    Tr = torch.einsum("aut,ta->au", T, r)                        # (A, S)
    TP = torch.einsum("aut,atv->auv", T, P)
    V = torch.zeros(S, dtype=P.dtype, device=P.device)
    for _ in range(max_iter):
        PV = torch.einsum("atv,v->at", P, V)                     # (A, S)
        # deepest level: the chosen action repeats until a burst
        b = beliefs[-1]
        Vnode = (torch.einsum("smu,au->sma", b, Tr)
                 + g * beta * torch.einsum("smu,au->sma", b, torch.einsum("auv,v->au", TP, V))).max(-1).values
        for k in range(L - 2, -1, -1):
            b = beliefs[k]
            Vchild = Vnode.reshape(S, -1, A)                    # child (m, a) of node m
            Qk = torch.einsum("smu,ua->sma", b, r) + g * beta * torch.einsum("smu,au->sma", b, PV) \
                + g * (1 - beta) * Vchild
            Vnode = Qk.max(-1).values
        V_new = Vnode[:, 0]
        delta = float((V_new - V).abs().max())
        if delta < tol:
            return V_new
        V = V_new
    warnings.warn(f"augmented_value_iteration: max_iter={max_iter} sweeps ended with a last change of {delta:.3g} "
                  f"> tol={tol:g}", checks.IterationCapReached, stacklevel=2)
    return V


def simulate_returns(model: ATSTMDP, seqs: torch.Tensor, start: int, first_seq: int, policy: torch.Tensor,
                     n_rollouts: int, seed: int = 0) -> torch.Tensor:
    """Monte Carlo returns (batched over rollouts) of committing to ``seqs[first_seq]`` at observed
    ``start`` and then to ``seqs[policy[s]]`` at every revealed ``s``; geometric termination,
    state-independent triggers (§3.1). Returns the (n_rollouts,) total rewards."""
    _check_model(model)
    _check_seqs(seqs, model.n_actions)
    N, L = _posint("n_rollouts", n_rollouts), seqs.shape[1]
    _check_index("start", start, model.n_states)
    _check_index("first_seq", first_seq, seqs.shape[0])
    _check_seq_policy(policy, model.n_states, seqs.shape[0])
    checks.seed("seed", seed)
    dev = model.P.device
    gen = torch.Generator(device=dev)
    gen.manual_seed(int(seed))
    s = torch.full((N,), int(start), dtype=torch.long, device=dev)
    q = torch.full((N,), int(first_seq), dtype=torch.long, device=dev)
    k = torch.zeros(N, dtype=torch.long, device=dev)
    alive = torch.ones(N, dtype=torch.bool, device=dev)
    ret = torch.zeros(N, dtype=model.P.dtype, device=dev)
    cumP, S = model.P.cumsum(-1), model.n_states
    while bool(alive.any()):
        a = seqs[q, k.clamp(max=L - 1)]
        ret += torch.where(alive, model.r[s, a], torch.zeros_like(ret))
        alive &= torch.rand(N, generator=gen, device=dev) < model.gamma
        u = torch.rand(N, 1, generator=gen, device=dev, dtype=cumP.dtype)
        s_next = (cumP[a, s] < u).sum(1).clamp(max=S - 1)                      # inverse-CDF sampling
        burst = torch.rand(N, generator=gen, device=dev) < model.beta[a]     # independent of the state
        q = torch.where(burst, policy[s_next], q)
        k = torch.where(burst, torch.zeros_like(k), k + 1)
        s = s_next
    return ret


def _check_index(name, value, n):
    checks.nonnegative_int(name, value)
    if value >= n:
        raise ValueError(f"{name} must lie in [0, {n}); got {value!r}")
    return int(value)


def _check_seq_policy(policy, S, nq, name="policy"):
    """A deterministic sequence policy: (S,) integer sequence indices in [0, nq)."""
    checks.tensor(name, policy, shape=(S,), dtype_kind="int")
    if bool(((policy < 0) | (policy >= nq)).any()):
        raise ValueError(f"{name} must hold sequence indices in [0, {nq})")
    return policy


class SegmentSimulator:
    """The environment as a learner sees it (§3.1): from an observed state, execute a committed
    sequence until a burst or termination; reveal only the reward *sum*, the burst flag and the
    revealed state. Sequential by nature (one episode at a time), so it runs on NumPy."""

    def __init__(self, model: ATSTMDP, seqs: torch.Tensor, seed: int = 0):
        _check_model(model)
        _check_seqs(seqs, model.n_actions)
        checks.seed("seed", seed)
        self.cumP = np.cumsum(model.P.detach().cpu().numpy(), axis=-1)
        self.r = model.r.detach().cpu().numpy()
        self.beta = model.beta.detach().cpu().numpy()
        self.gamma = model.gamma
        self.seqs = seqs.cpu().numpy()
        self.rng = np.random.default_rng(seed)

    def segment(self, s: int, q: int):
        """Run ``seqs[q]`` from observed ``s``; returns ``(reward_sum, burst, revealed_state or None)``."""
        seq, L, total, k = self.seqs[q], self.seqs.shape[1], 0.0, 0
        while True:
            a = seq[min(k, L - 1)]
            total += self.r[s, a]
            u = self.rng.random(3)
            if u[0] >= self.gamma:
                return total, 0, None
            s = int(min(np.searchsorted(self.cumP[a, s], u[1] * self.cumP[a, s, -1], side="right"),
                        self.cumP.shape[-1] - 1))
            if u[2] < self.beta[a]:
                return total, 1, s
            k += 1


# ----------------------------------------------------------------------------------------------
# induced feature map (§3.5) and its off-policy estimate (§3.6)
# ----------------------------------------------------------------------------------------------
def transition_operators(phi: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """``M_a = sum_{s'} mu(s') phi(s', a)^T`` for every action: (A, d, d) (§3.5)."""
    checks.tensor("phi", phi, dtype_kind="float")
    checks.tensor("mu", mu, dtype_kind="float")
    if phi.ndim != 3 or mu.ndim != 2 or mu.shape != (phi.shape[-1], phi.shape[0]):
        raise ValueError(f"phi must be (S, A, d) and mu (d, S); got {tuple(phi.shape)} and {tuple(mu.shape)}")
    return torch.einsum("ds,sae->ade", mu, phi)


def psi_features(phi: torch.Tensor, M: torch.Tensor, beta: torch.Tensor, gamma: float,
                 seqs: torch.Tensor) -> torch.Tensor:
    """The induced map ``Psi(s, alpha) = [psi_r; psi_b]`` (S, n_seq, 2d) of §3.5:
    ``psi_r = sum_k gamma^{k-1} c_k v_k``, ``psi_b = sum_k gamma^k c_k beta(a_k) v_k`` with
    ``v_1 = phi(s, a_1)``, ``v_k^T = v_{k-1}^T M_{a_k}``; the repeat-last tail uses
    ``(I - gamma (1 - beta_a) M_a)^{-1}``. ``Q(s, alpha; V) = Psi^T [theta; sum_s' mu(s') V(s')]``."""
    checks.tensor("phi", phi, dtype_kind="float")
    checks.tensor("M", M, dtype_kind="float")
    if phi.ndim != 3 or M.ndim != 3 or M.shape != (phi.shape[1], phi.shape[2], phi.shape[2]):
        raise ValueError(f"phi must be (S, A, d) and M (A, d, d); got {tuple(phi.shape)} and {tuple(M.shape)}")
    A = phi.shape[1]
    _check_seqs(seqs, A)
    _check_beta_tensor(beta, A)
    _check_gamma(gamma)
    nq, L = seqs.shape
    v = phi[:, seqs[:, 0], :]                                          # (S, nq, d)
    w = torch.ones(nq, dtype=phi.dtype, device=phi.device)             # gamma^{k-1} c_k
    pr = torch.zeros_like(v)
    pb = torch.zeros_like(v)
    for k in range(L - 1):
        a = seqs[:, k]
        pr += w[None, :, None] * v
        pb += (gamma * w * beta[a])[None, :, None] * v
        w = w * gamma * (1 - beta[a])
        v = torch.einsum("snd,nde->sne", v, M[seqs[:, k + 1]])
    a = seqs[:, L - 1]
    vT = torch.einsum("snd,nde->sne", v, _tail_inverse(M, beta, gamma)[a])
    pr += w[None, :, None] * vT
    pb += (gamma * w * beta[a])[None, :, None] * vT
    return torch.cat([pr, pb], dim=-1)


def estimate_operators(phi: torch.Tensor, s: torch.Tensor, a: torch.Tensor, s_next: torch.Tensor,
                       lam: float = 1.0) -> torch.Tensor:
    """Off-policy ridge estimate ``M_hat_a = (lam I + sum phi_i phi_i^T)^{-1} sum phi_i phi(s'_i, a)^T``
    from fully observed transitions ``(s_i, a_i, s'_i)`` of any behaviour policy (§3.6, inferred)."""
    checks.tensor("phi", phi, dtype_kind="float")
    if phi.ndim != 3:
        raise ValueError(f"phi must be (S, A, d); got {tuple(phi.shape)}")
    for name, x, n in (("s", s, phi.shape[0]), ("a", a, phi.shape[1]), ("s_next", s_next, phi.shape[0])):
        checks.tensor(name, x, ndim=1, dtype_kind="int")
        if bool(((x < 0) | (x >= n)).any()):
            raise ValueError(f"{name} must hold indices in [0, {n})")
    if not (s.shape == a.shape == s_next.shape) or s.ndim != 1 or s.numel() == 0:
        raise ValueError("s, a and s_next must be non-empty 1-d tensors of equal length")
    if not lam > 0:
        raise ValueError(f"lam must be > 0; got {lam!r}")
    checks.positive_number("lam", lam)
    X = phi[s, a]                                                      # (n, d)
    d = X.shape[1]
    G = X.T @ X + lam * torch.eye(d, dtype=X.dtype, device=X.device)
    Y = phi[s_next]                                                    # (n, A, d)
    rhs = torch.einsum("nd,nae->ade", X, Y)                            # (A, d, d)
    return linalg._solve(G[None], rhs)


def sample_offline(model: LowRankMDP, n: int, seed: int = 0):
    """``n`` fully observed transitions from a uniform behaviour policy over (s, a)."""
    _check_model(model, LowRankMDP)
    n = _posint("n", n)
    checks.seed("seed", seed)
    S, A = model.phi.shape[0], model.phi.shape[1]
    gen = torch.Generator(device=model.phi.device)
    gen.manual_seed(int(seed))
    s = torch.randint(S, (n,), generator=gen, device=model.phi.device)
    a = torch.randint(A, (n,), generator=gen, device=model.phi.device)
    probs = model.phi[s, a] @ model.mu
    s_next = torch.multinomial(probs.clamp_min(0), 1, generator=gen).squeeze(1)
    return s, a, s_next


# ----------------------------------------------------------------------------------------------
# ATST-LSVI-UCB (§3.7, inferred details)
# ----------------------------------------------------------------------------------------------
class ATSTLSVIUCB:
    """Optimistic least-squares value iteration on segments with the induced features ``Psi``.

    Each stored segment ``(s_i, alpha_i, R_i, o_i, s'_i)`` enters the ridge statistics with feature
    ``Psi(s_i, alpha_i)`` and target ``R_i + o_i V(s'_i)`` (unbiased for ``Psi^T [theta; w_V]``).
    Planning: optimistic value iteration with bonus ``bonus_scale * ||Psi||_{Lambda^{-1}}``, clipped at
    ``1/(1-gamma)``; the agent commits to ``argmax_alpha Q(s, alpha)`` at each observed state.
    ``bonus_scale = 0`` gives the greedy (no optimism) baseline; ``eps > 0`` an epsilon-greedy one.
    """

    name = "ATST-LSVI-UCB"

    def __init__(self, psi: torch.Tensor, gamma: float, bonus_scale: float = 0.1, lam: float = 1.0,
                 eps: float = 0.0, seed: int = 0, replan: str = "every"):
        if replan not in ("every", "doubling"):
            raise ValueError(f"replan must be 'every' or 'doubling'; got {replan!r}")
        checks.tensor("psi", psi, dtype_kind="float")
        if psi.ndim != 3:
            raise ValueError(f"psi must have shape (S, n_seq, D); got {tuple(psi.shape)}")
        if not 0 <= eps <= 1:
            raise ValueError(f"eps must lie in [0, 1]; got {eps!r}")
        _check_gamma(gamma)
        checks.nonnegative_number("bonus_scale", bonus_scale)
        checks.seed("seed", seed)
        self.psi = psi
        self.S, self.nq, D = psi.shape
        self.stats = RidgeStats(D, self.S, lam=lam, device=psi.device, dtype=psi.dtype)
        self.bonus_scale, self.v_max, self.eps = float(bonus_scale), 1.0 / (1.0 - gamma), float(eps)
        self.V = None
        self.rng = np.random.default_rng(seed)
        self.replan, self._policy, self._logdet_plan, self.n_plans = replan, None, -math.inf, 0

    def plan(self) -> torch.Tensor:
        """Greedy sequence per state under the optimistic Q; returns (S,) indices (or (S, n_seq) probs).

        ``replan="doubling"`` (the rarely switching variant of §3.7) keeps the previous policy object
        until ``det Lambda`` has doubled since the last plan."""
        if self.replan == "doubling" and self._policy is not None \
                and self.stats.logdet < self._logdet_plan + math.log(2.0):
            return self._policy
        Q, self.V, _ = optimistic_value_iteration(self.psi, self.stats, self.bonus_scale, self.v_max, V0=self.V)
        self._logdet_plan, self.n_plans = self.stats.logdet, self.n_plans + 1
        greedy = Q.argmax(1)
        if self.eps == 0:
            self._policy = greedy
            return greedy
        pi = torch.full((self.S, self.nq), self.eps / self.nq, dtype=Q.dtype, device=Q.device)
        pi[torch.arange(self.S), greedy] += 1 - self.eps
        self._policy = pi
        return pi

    def act(self, policy: torch.Tensor, s: int) -> int:
        if policy.ndim == 1:
            return int(policy[s])
        return int(self.rng.choice(self.nq, p=policy[s].cpu().numpy()))

    def observe(self, s: int, q: int, reward_sum: float, burst: int, s_next: int | None) -> None:
        self.stats.update(self.psi[s, q], float(reward_sum), s_next if burst else None)


def run_learner(learner, sim: SegmentSimulator, R: torch.Tensor, Bseq: torch.Tensor, rho0: torch.Tensor,
                V_star: torch.Tensor, K: int) -> np.ndarray:
    """Run ``K`` episodes; return the exact per-episode regret ``rho0^T (V* - V^{pi_k})`` (§3.8).

    Each episode the learner plans once, the start state ``s_1 ~ rho0`` is observed, and segments
    are executed until the episode terminates (no burst before termination)."""
    _check_learner(learner)
    if not isinstance(sim, SegmentSimulator):
        raise TypeError(f"sim must be a SegmentSimulator; got {type(sim).__name__}")
    _check_sequence_model(R, Bseq, discounted=True)
    S = R.shape[0]
    checks.probability_vector("rho0", rho0)
    checks.tensor("rho0", rho0, shape=(S,))
    checks.tensor("V_star", V_star, shape=(S,))
    K = _posint("K", K)
    v_opt = float(rho0 @ V_star)
    rho_np = rho0.cpu().numpy()
    regret = np.empty(K)
    last_policy, last_value = None, 0.0
    for ep in range(K):
        policy = learner.plan()
        if policy is not last_policy:                     # an unchanged policy object keeps its exact value
            last_policy, last_value = policy, float(rho0 @ _evaluate_sequence_policy(R, Bseq, policy))
        regret[ep] = v_opt - last_value
        s = int(sim.rng.choice(len(rho_np), p=rho_np))
        while True:
            q = learner.act(policy, s)
            tot, burst, s_next = sim.segment(s, q)
            learner.observe(s, q, tot, burst, s_next)
            if not burst:
                break
            s = s_next
    return regret


def _check_learner(learner) -> None:
    if not all(callable(getattr(learner, m, None)) for m in ("plan", "act", "observe")):
        raise TypeError(f"learner must have plan, act and observe methods (like ATSTLSVIUCB); "
                        f"got {type(learner).__name__}")


def loglog_slope(x, y) -> float:
    """Least-squares slope of ``log y`` on ``log x`` (positive entries only)."""
    checks.array("x", x, ndim=1)
    checks.array("y", y, ndim=1)
    checks.same_length(("x", "y"), (x, y))
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = (x > 0) & (y > 0)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])


def tail_gap_bound(gamma: float, beta: torch.Tensor, L: int) -> float:
    """``(gamma max_a (1 - beta_a))^L / (1 - gamma)``: bound on ``V*_{L+1} - V*_L`` (§3.4)."""
    _check_gamma(gamma)
    _check_beta_tensor(beta)
    checks.positive_int("L", L)
    return (gamma * float((1 - beta).max())) ** L / (1 - gamma)


__all__ = [
    "ATSTMDP", "LowRankMDP", "ATSTLSVIUCB", "SegmentSimulator", "RING_ACTIONS", "augmented_value_iteration",
    "drifting_ring", "enumerate_sequences", "estimate_operators", "evaluate_sequence_policy", "loglog_slope",
    "policy_matrices", "psi_features", "random_low_rank", "random_tabular", "run_learner", "sample_offline",
    "sequence_model", "sequence_policy_iteration", "sequence_q", "simulate_returns", "tail_gap_bound",
    "tail_inverse", "transition_operators",
]
