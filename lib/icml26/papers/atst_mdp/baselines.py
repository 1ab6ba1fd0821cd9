"""Baselines (docs/papers/atst_mdp.md §4), each ignoring the observation process in some way (none is a strawman).

Planning baselines (exact values, §3.8):
* full-observation oracle ``V*_MDP`` (an upper bound: it sees every state);
* QMDP: propagate the belief open-loop and play ``argmax_a b^T Q*_MDP(., a)`` (never senses on purpose);
* stale-state policy: play ``pi*_MDP(s_last)`` as if the last observed state were current.
Both QMDP and stale are open-loop between bursts, so from an observed state they produce a fixed
(infinite) action sequence; :func:`open_loop_values` evaluates it exactly up to a truncation error
``(gamma max(1-beta))^H / (1-gamma)``.

Learning baselines (same simulator, same regret bookkeeping as ATST-LSVI-UCB):
* :class:`StaleLSVIUCB` -- standard LSVI-UCB with features ``phi(s_last, a)``, ignoring ``beta`` and
  elapsed time; since ``s_last`` does not change until a burst, it repeats one action per segment;
* ATST features without optimism -- :class:`~icml26.papers.atst_mdp.method.ATSTLSVIUCB` with
  ``bonus_scale=0`` (greedy, optionally epsilon-greedy);
* :class:`RandomSequences` -- a uniformly random sequence per segment.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26 import checks
from icml26.papers.atst_mdp.method import ATSTMDP, _check_gamma, _check_model, _check_seqs
from icml26.rl.linear import RidgeStats, optimistic_value_iteration, policy_iteration, solve_values


def mdp_oracle(model: ATSTMDP):
    """``(Q*_MDP, V*_MDP, pi*_MDP)`` of the fully observed MDP (exact policy iteration)."""
    if not isinstance(model, ATSTMDP):
        raise ValueError("model must be an ATSTMDP")
    return policy_iteration(model.P, model.r, model.gamma)


def open_loop_values(model: ATSTMDP, rule, horizon: int | None = None, tol: float = 1e-12):
    """Exact values of an open-loop-between-bursts policy whose action at blind step ``k`` is
    ``rule(belief (S, S), start (S,), k) -> (S,) actions`` (batched over observed start states).

    Returns ``(V, actions)`` with ``actions`` the (S, H) blind action sequences played."""
    if not isinstance(model, ATSTMDP):
        raise ValueError("model must be an ATSTMDP")
    if not callable(rule):
        raise TypeError(f"rule must be callable as rule(belief, start, k) -> actions; got {type(rule).__name__}")
    checks.in_range("tol", tol, 0.0, 1.0, low_open=True, high_open=True)
    P, r, beta, g = model.P, model.r, model.beta, model.gamma
    S = model.n_states
    if horizon is None:
        rate = g * float((1 - beta).max())
        horizon = 1 if rate == 0 else int(np.ceil(np.log(tol * (1 - g)) / np.log(rate))) + 1
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
        raise ValueError(f"horizon must be a positive integer; got {horizon!r}")
    start = torch.arange(S, device=P.device)
    b = torch.eye(S, dtype=P.dtype, device=P.device)
    w = torch.ones(S, dtype=P.dtype, device=P.device)            # gamma^{k-1} c_k per start state
    R = torch.zeros(S, dtype=P.dtype, device=P.device)
    Bm = torch.zeros(S, S, dtype=P.dtype, device=P.device)
    acts = []
    for k in range(horizon):                                    # sequential in blind time by nature
        a = rule(b, start, k)
        acts.append(a)
        R += w * (b * r.T[a]).sum(-1)
        bP = torch.einsum("su,sut->st", b, P[a])
        Bm += (g * w * beta[a])[:, None] * bP
        w = w * g * (1 - beta[a])
        b = bP
        if float(w.max()) < tol * (1 - g):
            break
    return solve_values(R, Bm), torch.stack(acts, dim=1)


def qmdp_values(model: ATSTMDP, Q_mdp: torch.Tensor | None = None, **kw):
    """QMDP: ``a_k = argmax_a b_k^T Q*_MDP(., a)`` on the open-loop belief."""
    _check_model(model)
    if Q_mdp is not None:
        checks.tensor("Q_mdp", Q_mdp, shape=(model.n_states, model.n_actions), dtype_kind="float")
    Q = mdp_oracle(model)[0] if Q_mdp is None else Q_mdp
    return open_loop_values(model, lambda b, s0, k: (b @ Q).argmax(1), **kw)


def stale_values(model: ATSTMDP, pi_mdp: torch.Tensor | None = None, **kw):
    """Stale-state policy: ``a_k = pi*_MDP(s_last)`` for every blind step."""
    _check_model(model)
    if pi_mdp is not None:
        checks.tensor("pi_mdp", pi_mdp, shape=(model.n_states,), dtype_kind="int")
        if bool(((pi_mdp < 0) | (pi_mdp >= model.n_actions)).any()):
            raise ValueError(f"pi_mdp must hold actions in [0, {model.n_actions})")
    pi = mdp_oracle(model)[2] if pi_mdp is None else pi_mdp
    return open_loop_values(model, lambda b, s0, k: pi[s0], **kw)


def repeat_index(seqs: torch.Tensor, n_actions: int) -> torch.Tensor:
    """Index of the sequence ``(a, a, ..., a)`` for every action (with the repeat-last tail it means
    "play ``a`` until a burst")."""
    n_actions = checks.positive_int("n_actions", n_actions)
    _check_seqs(seqs, n_actions)
    idx = []
    for a in range(n_actions):
        hit = (seqs == a).all(1).nonzero()
        if hit.numel() == 0:
            raise ValueError(f"seqs lacks the constant sequence of action {a}")
        idx.append(int(hit[0, 0]))
    return torch.tensor(idx, dtype=torch.long, device=seqs.device)


class StaleLSVIUCB:
    """Standard LSVI-UCB with features ``phi(s_last, a)`` (d-dimensional), ignoring ``beta`` and the
    time since the last observation. A segment enters the regression with the feature of its first
    action and target ``R_i + o_i V(s'_i)`` (the same data and bonus rule as ATST-LSVI-UCB)."""

    name = "stale LSVI-UCB"

    def __init__(self, phi: torch.Tensor, seqs: torch.Tensor, gamma: float, bonus_scale: float = 0.1,
                 lam: float = 1.0, replan: str = "every"):
        if replan not in ("every", "doubling"):
            raise ValueError(f"replan must be 'every' or 'doubling'; got {replan!r}")
        checks.tensor("phi", phi, dtype_kind="float")
        if phi.ndim != 3:
            raise ValueError(f"phi must have shape (S, A, d); got {tuple(phi.shape)}")
        _check_gamma(gamma)
        checks.nonnegative_number("bonus_scale", bonus_scale)
        self.phi = phi
        self.S, self.A, d = phi.shape
        self.rep = repeat_index(seqs, self.A)
        self.first = seqs[:, 0]
        self.stats = RidgeStats(d, self.S, lam=lam, device=phi.device, dtype=phi.dtype)
        self.bonus_scale, self.v_max = float(bonus_scale), 1.0 / (1.0 - gamma)
        self.V = None
        self.replan, self._policy, self._logdet_plan, self.n_plans = replan, None, -math.inf, 0

    def plan(self) -> torch.Tensor:
        """Repeat-one-action policy per state; ``replan="doubling"`` replans only when det Lambda doubled."""
        if self.replan == "doubling" and self._policy is not None \
                and self.stats.logdet < self._logdet_plan + math.log(2.0):
            return self._policy
        Q, self.V, _ = optimistic_value_iteration(self.phi, self.stats, self.bonus_scale, self.v_max, V0=self.V)
        self._logdet_plan, self.n_plans = self.stats.logdet, self.n_plans + 1
        self._policy = self.rep[Q.argmax(1)]
        return self._policy

    def act(self, policy: torch.Tensor, s: int) -> int:
        return int(policy[s])

    def observe(self, s: int, q: int, reward_sum: float, burst: int, s_next: int | None) -> None:
        self.stats.update(self.phi[s, int(self.first[q])], float(reward_sum), s_next if burst else None)


class RandomSequences:
    """Uniformly random sequence at every observed state (no learning)."""

    name = "random"

    def __init__(self, n_states: int, n_seq: int, seed: int = 0, device="cpu"):
        checks.positive_int("n_states", n_states)
        checks.positive_int("n_seq", n_seq)
        checks.seed("seed", seed)
        device = checks.device("device", device)
        self.pi = torch.full((n_states, n_seq), 1.0 / n_seq, dtype=torch.float64, device=device)
        self.n_seq = n_seq
        self.rng = np.random.default_rng(seed)

    def plan(self) -> torch.Tensor:
        return self.pi

    def act(self, policy, s: int) -> int:
        return int(self.rng.integers(self.n_seq))

    def observe(self, *args) -> None:
        pass
