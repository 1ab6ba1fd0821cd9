"""Tests of the shared linear-MDP tooling ``icml26.rl.linear``."""

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.rl.linear import (
    RidgeStats,
    bellman_fixed_point,
    elliptical_bonus,
    evaluate_policy_exact,
    optimistic_value_iteration,
    policy_iteration,
    sherman_morrison_update,
    solve_values,
)

D64 = torch.float64


def _mdp(S=3, A=2, seed=0):
    rng = np.random.default_rng(seed)
    P = torch.tensor(rng.dirichlet(np.ones(S), size=(A, S)), dtype=D64)
    r = torch.tensor(rng.uniform(size=(S, A)), dtype=D64)
    return P, r


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 6), n=st.integers(1, 8), lam=st.floats(0.1, 10.0), seed=st.integers(0, 10_000))
def test_sherman_morrison_matches_direct_inverse(d, n, lam, seed):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g, dtype=D64)
    A_inv = torch.eye(d, dtype=D64) / lam
    for x in X:
        A_inv = sherman_morrison_update(A_inv, x)
    direct = torch.linalg.inv(lam * torch.eye(d, dtype=D64) + X.T @ X)
    assert torch.allclose(A_inv, direct, atol=1e-10, rtol=1e-8)


def test_sherman_morrison_batched():
    g = torch.Generator().manual_seed(1)
    A = torch.randn(4, 3, 3, generator=g, dtype=D64)
    A = A @ A.transpose(-1, -2) + torch.eye(3, dtype=D64)
    u = torch.randn(4, 3, generator=g, dtype=D64)
    out = sherman_morrison_update(torch.linalg.inv(A), u)
    assert torch.allclose(out, torch.linalg.inv(A + u[:, :, None] * u[:, None, :]), atol=1e-12)


def test_ridge_stats_weights_and_logdet():
    g = torch.Generator().manual_seed(2)
    S, d, n = 4, 3, 30
    X = torch.randn(n, d, generator=g, dtype=D64)
    y = torch.rand(n, generator=g, dtype=D64)
    nxt = torch.randint(S, (n,), generator=g)
    o = torch.rand(n, generator=g) < 0.6
    stats = RidgeStats(d, S, lam=0.5)
    for i in range(n):
        stats.update(X[i], float(y[i]), int(nxt[i]) if o[i] else None)
    V = torch.randn(S, generator=g, dtype=D64)
    target = y + o.to(D64) * V[nxt]
    Lam = 0.5 * torch.eye(d, dtype=D64) + X.T @ X
    assert torch.allclose(stats.weights(V), torch.linalg.solve(Lam, X.T @ target), atol=1e-10)
    assert abs(stats.logdet - float(torch.logdet(Lam))) < 1e-9
    assert torch.allclose(elliptical_bonus(X, stats.Lambda_inv),
                          torch.sqrt(torch.einsum("nd,de,ne->n", X, torch.linalg.inv(Lam), X)), atol=1e-12)


def test_exact_evaluation_matches_fixed_point_and_brute_force():
    P, r = _mdp(S=3, A=2, seed=3)
    gamma = 0.7
    policy = torch.tensor([1, 0, 1])
    V = evaluate_policy_exact(P, r, gamma, policy)
    assert torch.allclose(V, bellman_fixed_point(P, r, gamma, policy), atol=1e-10)
    # brute force: expected discounted reward summed over every 8-step trajectory (tail < 0.7^8 / 0.3)
    S, H = 3, 8
    brute = torch.zeros(S, dtype=D64)
    Pn, rn, pin = P.numpy(), r.numpy(), policy.tolist()
    for s0 in range(S):
        for path in itertools.product(range(S), repeat=H - 1):
            states = (s0, *path)
            prob, ret = 1.0, 0.0
            for t, s in enumerate(states):
                a = pin[s]
                ret += gamma**t * rn[s, a]
                if t + 1 < H:
                    prob *= Pn[a, s, states[t + 1]]
            brute[s0] += prob * ret
    assert float((V - brute).abs().max()) <= gamma**H / (1 - gamma) + 1e-12


def test_stochastic_policy_and_policy_iteration():
    P, r = _mdp(S=4, A=3, seed=4)
    gamma = 0.9
    Q, V, pi = policy_iteration(P, r, gamma)
    assert torch.allclose(V, bellman_fixed_point(P, r, gamma), atol=1e-9)
    uniform = torch.full((4, 3), 1 / 3, dtype=D64)
    Vu = evaluate_policy_exact(P, r, gamma, uniform)
    assert torch.allclose(Vu, bellman_fixed_point(P, r, gamma, uniform), atol=1e-9)
    assert bool((V >= Vu - 1e-12).all())


def test_iteration_caps_warn_and_unreachable_tolerances_are_refused():
    from icml26.checks import IterationCapReached

    P, r = _mdp(S=4, A=3, seed=4)
    with pytest.warns(IterationCapReached):
        bellman_fixed_point(P, r, 0.99, max_iter=5)
    with pytest.warns(IterationCapReached):
        policy_iteration(P, r, 0.9, max_iter=1)
    with pytest.raises(ValueError, match="tol"):
        bellman_fixed_point(P.float(), r.float(), 0.9)  # 1e-13 cannot be resolved in float32


def test_lsvi_with_exact_tabular_statistics_recovers_optimal_q():
    """Tabular features and noiseless data (each (s,a) once, target r + gamma E V(s')) make the
    LSVI fixed point the optimal Q when lam -> 0 and the bonus is off."""
    P, r = _mdp(S=3, A=2, seed=5)
    gamma, S, A = 0.8, 3, 2
    feats = torch.eye(S * A, dtype=D64).reshape(S, A, S * A)
    stats = RidgeStats(S * A, S, lam=1e-9)
    for s in range(S):
        for a in range(A):
            stats.update(feats[s, a], float(r[s, a]))
    # expected next-state term: B[:, s'] += gamma P(s'|s,a) x_{s,a}
    stats.B += gamma * torch.einsum("sad,ast->dt", feats, P)
    Q, V, _ = optimistic_value_iteration(feats, stats, 0.0, 1 / (1 - gamma), tol=1e-13, max_iter=5000)
    Q_star, V_star, _ = policy_iteration(P, r, gamma)
    assert torch.allclose(Q, Q_star, atol=1e-6)
    # optimism: a positive bonus can only raise Q (and the clip keeps it at most v_max)
    Qb, _, _ = optimistic_value_iteration(feats, stats, 1.0, 1 / (1 - gamma), tol=1e-13, max_iter=5000)
    assert bool((Qb >= Q - 1e-9).all()) and float(Qb.max()) <= 1 / (1 - gamma) + 1e-12


def test_solve_values_batched():
    g = torch.Generator().manual_seed(6)
    Bm = torch.rand(2, 3, 3, generator=g, dtype=D64) * 0.2
    R = torch.rand(2, 3, generator=g, dtype=D64)
    V = solve_values(R, Bm)
    assert torch.allclose(V, R + (Bm @ V[..., None]).squeeze(-1), atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda: sherman_morrison_update(torch.eye(3, dtype=D64), torch.ones(2, dtype=D64)),
    lambda: sherman_morrison_update(torch.ones(2, 3, dtype=D64), torch.ones(3, dtype=D64)),
    lambda: sherman_morrison_update(-torch.eye(2, dtype=D64), torch.ones(2, dtype=D64)),
    lambda: elliptical_bonus(torch.ones(4, 3, dtype=D64), torch.eye(2, dtype=D64)),
    lambda: RidgeStats(0, 3),
    lambda: RidgeStats(2, 3, lam=0.0),
    lambda: RidgeStats(2, 3).update(torch.ones(3, dtype=D64), 1.0),
    lambda: RidgeStats(2, 3).update(torch.ones(2, dtype=D64), 1.0, next_state=5),
    lambda: RidgeStats(2, 3).update(torch.tensor([1.0, float("nan")], dtype=D64), 1.0),
    lambda: solve_values(torch.ones(2, dtype=D64), torch.eye(2, dtype=D64)),
    lambda: evaluate_policy_exact(*_mdp(), 1.0, torch.tensor([0, 0, 0])),
    lambda: evaluate_policy_exact(*_mdp(), 0.5, torch.tensor([0, 5, 0])),
    lambda: evaluate_policy_exact(torch.ones(2, 3, 3, dtype=D64), _mdp()[1], 0.5, torch.tensor([0, 0, 0])),
    lambda: optimistic_value_iteration(torch.ones(3, 2, 4, dtype=D64), RidgeStats(2, 3), 1.0, 5.0),
    lambda: optimistic_value_iteration(torch.ones(3, 2, 2, dtype=D64), RidgeStats(2, 3), -1.0, 5.0),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
