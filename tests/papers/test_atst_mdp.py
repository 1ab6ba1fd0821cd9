"""Tests for paper 17 (ATST-MDPs): Bellman/sequence equivalence, feature map, estimators, learners."""

import copy

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.atst_mdp import baselines as B
from icml26.papers.atst_mdp import claims as C
from icml26.papers.atst_mdp import experiment as E
from icml26.papers.atst_mdp import method as M
from icml26.rl.linear import evaluate_policy_exact

D64 = torch.float64


def test_reproduces_prototype_values():
    """Our first prototype's values (docs/papers/atst_mdp.md §2 testbed):
    |S| = 4, |A| = 3, beta = (0.2, 0.4, 1), gamma = 0.9, L = 4, seed 0."""
    m = M.random_tabular(4, 3, [0.2, 0.4, 1.0], 0.9, seed=0)
    R, Bq = M.sequence_model(m, M.enumerate_sequences(3, 4))
    V = M.sequence_policy_iteration(R, Bq)[0]
    assert np.allclose(V.numpy(), [5.9526, 5.4280, 5.8297, 5.4895], atol=1e-4)
    V_mdp = B.mdp_oracle(m)[1]
    assert np.allclose(V_mdp.numpy(), [6.393, 5.896, 6.352, 5.986], atol=1e-3)


@settings(max_examples=15, deadline=None)
@given(S=st.integers(2, 4), L=st.integers(1, 3), seed=st.integers(0, 1000),
       b0=st.floats(0.0, 1.0), gamma=st.floats(0.3, 0.95))
def test_augmented_vi_equals_sequence_enumeration(S, L, seed, b0, gamma):
    m = M.random_tabular(S, 2, [b0, 1.0], gamma, seed=seed)
    R, Bq = M.sequence_model(m, M.enumerate_sequences(2, L))
    V_enum = M.sequence_policy_iteration(R, Bq)[0]
    assert float((V_enum - M.augmented_value_iteration(m, L)).abs().max()) <= 1e-9


def test_sequence_formula_against_stepwise_unrolling():
    """Independent oracle: unroll the repeat-last tail step by step (no matrix inverse)."""
    m = M.random_tabular(3, 3, [0.3, 0.6, 0.9], 0.85, seed=4)
    seqs = M.enumerate_sequences(3, 2)
    V = torch.linspace(-1.0, 2.0, 3, dtype=D64)
    Q = M.sequence_q(*M.sequence_model(m, seqs), V)
    for q in range(seqs.shape[0]):
        for s in range(3):
            b, w, tot = torch.zeros(3, dtype=D64), 1.0, 0.0
            b[s] = 1.0
            for k in range(400):
                a = int(seqs[q, min(k, 1)])
                tot += w * float(b @ m.r[:, a]) + w * m.gamma * float(m.beta[a]) * float(b @ m.P[a] @ V)
                w *= m.gamma * (1 - float(m.beta[a]))
                b = b @ m.P[a]
            assert abs(tot - float(Q[s, q])) < 1e-10


def test_monte_carlo_matches_sequence_q():
    m = M.random_tabular(3, 3, [0.2, 0.5, 1.0], 0.8, seed=2)
    seqs = M.enumerate_sequences(3, 2)
    R, Bq = M.sequence_model(m, seqs)
    V, pol, Q = M.sequence_policy_iteration(R, Bq)
    ret = M.simulate_returns(m, seqs, 1, 4, pol, 20_000, seed=3)
    z = abs(float(ret.mean()) - float(Q[1, 4])) / float(ret.std() / np.sqrt(ret.numel()))
    assert z < 4.5


def test_segment_simulator_targets_are_unbiased():
    """E[R_i + o_i V(s'_i) | s, alpha] = Q(s, alpha; V) (docs/papers/atst_mdp.md §3.7), with hidden per-step rewards."""
    m = M.random_tabular(3, 2, [0.3, 1.0], 0.75, seed=5)
    seqs = M.enumerate_sequences(2, 2)
    V = torch.tensor([1.0, -2.0, 3.0], dtype=D64)
    Q = M.sequence_q(*M.sequence_model(m, seqs), V)
    sim = M.SegmentSimulator(m, seqs, seed=0)
    vals = []
    for _ in range(20_000):
        tot, o, sn = sim.segment(0, 1)
        vals.append(tot + (float(V[sn]) if o else 0.0))
    vals = np.asarray(vals)
    assert abs(vals.mean() - float(Q[0, 1])) < 4.5 * vals.std() / np.sqrt(len(vals))


def test_linear_representation_and_estimation():
    lr = M.random_low_rank(12, 3, 4, [0.1, 0.5, 1.0], 0.8, seed=1)
    seqs = M.enumerate_sequences(3, 3)
    Mt = M.transition_operators(lr.phi, lr.mu)
    assert torch.allclose(Mt.sum(-1), torch.ones(3, 4, dtype=D64))           # row-stochastic M_a
    psi = M.psi_features(lr.phi, Mt, lr.beta, lr.gamma, seqs)
    assert psi.shape == (12, 27, 8)
    V = torch.randn(12, dtype=D64, generator=torch.Generator().manual_seed(0))
    Q = M.sequence_q(*M.sequence_model(lr.tabular(), seqs), V)
    assert float((psi @ torch.cat([lr.theta, lr.mu @ V]) - Q).abs().max()) < 1e-10
    errs = []
    for n in (2_000, 200_000):
        s, a, sn = M.sample_offline(lr, n, seed=n)
        errs.append(float((M.estimate_operators(lr.phi, s, a, sn) - Mt).abs().max()))
    assert errs[1] < 0.03 and errs[1] < errs[0] / 3


def test_open_loop_baselines_under_full_observation_equal_mdp():
    """With beta = 1 everywhere, QMDP and the stale policy are the MDP-optimal policy."""
    m = M.drifting_ring(5, 0.3, 1.0, 1.0, 0.9)
    Q, V, pi = B.mdp_oracle(m)
    assert torch.allclose(B.qmdp_values(m, Q)[0], V, atol=1e-10)
    assert torch.allclose(B.stale_values(m, pi)[0], V, atol=1e-10)
    assert torch.allclose(evaluate_policy_exact(m.P, m.r, m.gamma, pi), V, atol=1e-10)


def test_ring_ordering_and_sensing():
    out = E.ring_values(L=4)
    mean = out["mean"]
    assert mean["mdp"] >= mean["atst"] >= mean["qmdp"] >= mean["stale"]
    assert "sense" in out["first_sequences"][0]          # at the target: collect a while, then sense


def test_monotone_in_L_and_tail_bound():
    m = M.random_tabular(4, 2, [0.1, 0.7], 0.9, seed=8)
    Vs = [M.sequence_policy_iteration(*M.sequence_model(m, M.enumerate_sequences(2, L)))[0] for L in (1, 2, 3, 4)]
    for L in range(1, 4):
        inc = Vs[L] - Vs[L - 1]
        assert float(inc.min()) >= -1e-10
        assert float(inc.max()) <= M.tail_gap_bound(m.gamma, m.beta, L) + 1e-10


def test_repeat_index_and_learners_run():
    seqs = M.enumerate_sequences(3, 2)
    assert B.repeat_index(seqs, 3).tolist() == [0, 4, 8]
    cfg = copy.deepcopy(E.CONFIGS["quick"]["regret"])
    cfg.update(K=20, n_seeds=1, n_states=6, n_offline=2000)
    out = E.run_regret(cfg, torch.device("cpu"), 0)
    for name in cfg["learners"]:
        reg = np.asarray(out["learners"][name]["mean_regret"])
        assert reg.shape == (20,) and (reg >= -1e-9).all()


def test_rarely_switching_replans_less():
    lr = M.random_low_rank(6, 2, 3, [0.2, 1.0], 0.7, seed=3)
    seqs = M.enumerate_sequences(2, 2)
    m = lr.tabular()
    R, Bq = M.sequence_model(m, seqs)
    V_star = M.sequence_policy_iteration(R, Bq)[0]
    psi = M.psi_features(lr.phi, M.transition_operators(lr.phi, lr.mu), lr.beta, lr.gamma, seqs)
    rho0 = torch.full((6,), 1 / 6, dtype=D64)
    plans = {}
    for replan in ("every", "doubling"):
        agent = M.ATSTLSVIUCB(psi, lr.gamma, 1.0, replan=replan)
        reg = M.run_learner(agent, M.SegmentSimulator(m, seqs, seed=0), R, Bq, rho0, V_star, 60)
        assert (reg >= -1e-9).all()
        plans[replan] = agent.n_plans
    assert plans["every"] == 60 and plans["doubling"] < 30


def test_optimism_with_exact_data_finds_optimum():
    """Noiseless coverage: feed every (s, alpha) its exact expected target -> greedy = optimal."""
    lr = M.random_low_rank(6, 2, 3, [0.2, 1.0], 0.7, seed=3)
    seqs = M.enumerate_sequences(2, 2)
    m = lr.tabular()
    R, Bq = M.sequence_model(m, seqs)
    V_star, pol, _ = M.sequence_policy_iteration(R, Bq)
    psi = M.psi_features(lr.phi, M.transition_operators(lr.phi, lr.mu), lr.beta, lr.gamma, seqs)
    agent = M.ATSTLSVIUCB(psi, lr.gamma, bonus_scale=0.0, lam=1e-8)
    for s in range(6):
        for q in range(4):
            agent.stats.update(psi[s, q], float(R[s, q]))
            agent.stats.B += psi[s, q][:, None] * Bq[s, q][None, :]
    policy = agent.plan()
    assert torch.allclose(M.evaluate_sequence_policy(R, Bq, policy), V_star, atol=1e-6)


def test_experiment_quick_parts_and_claims_shape():
    cfg = copy.deepcopy(E.CONFIGS["quick"])
    cfg["equivalence"].update(mc_rollouts=2000, mc_pairs=1)
    cfg["psi"].update(ns=[1000, 4000, 16000], reps=2)
    cfg["regret"] = None  # switched off (run_regret has its own test above)
    out = E.run(cfg, "cpu", 0)
    assert out["equivalence"]["max_sup_diff"] < 1e-10
    assert out["linear"]["max_abs_err"] < 1e-10
    assert out["ring"]["default"]["gap_qmdp"] > 0.05 and out["ring"]["gap_near_one"] < 0.01
    assert -0.8 < out["psi"]["slope"] < -0.2
    assert C.ring_gap(out) == out["ring"]["default"]["gap_qmdp"]
    assert len({c.id for c in C.CLAIMS}) == len(C.CLAIMS)
    head = [c for c in C.CLAIMS if c.headline]
    assert [c.id for c in head] == ["regret_slope_upper"] and head[0].op == "<="  # one-sided: a bound
    assert "regret_slope_lower" not in {c.id for c in C.CLAIMS}
    kinds = {c.id: c.kind for c in C.CLAIMS}
    assert all(kinds[i] == "extension" for i in ("regret_vs_stale_lsvi", "stale_linear_regret", "dir1_vs_stale_lsvi"))


@pytest.mark.parametrize("call", [
    lambda: M.random_tabular(0, 3, [0.1, 0.2, 0.3], 0.9),
    lambda: M.random_tabular(3, 2, [0.1, 1.5], 0.9),
    lambda: M.random_tabular(3, 2, [0.1, 0.5], 1.0),
    lambda: M.random_tabular(3, 2, [0.1], 0.9),
    lambda: M.random_low_rank(5, 2, 3, [0.1, 0.5], 0.8, concentration=0.0),
    lambda: M.drifting_ring(7, slip=1.5),
    lambda: M.drifting_ring(2),
    lambda: M.enumerate_sequences(3, 0),
    lambda: M.enumerate_sequences(10, 8),
    lambda: M.sequence_model(M.random_tabular(3, 2, [0.1, 0.5], 0.9), torch.tensor([[0, 2]])),
    lambda: M.sequence_model(M.random_tabular(3, 2, [0.1, 0.5], 0.9), torch.zeros(2, 2)),
    lambda: M.ATSTMDP(torch.ones(2, 3, 3, dtype=D64), torch.zeros(3, 2, dtype=D64), torch.ones(2, dtype=D64), 0.9),
    lambda: M.evaluate_sequence_policy(torch.ones(3, 4, dtype=D64), torch.zeros(3, 4, 3, dtype=D64),
                                       torch.tensor([0, 9, 1])),
    lambda: M.estimate_operators(torch.ones(3, 2, 2, dtype=D64), torch.tensor([0]), torch.tensor([0, 1]),
                                 torch.tensor([0])),
    lambda: M.ATSTLSVIUCB(torch.ones(3, 4, dtype=D64), 0.9),
    lambda: M.ATSTLSVIUCB(torch.ones(3, 4, 2, dtype=D64), 0.9, eps=2.0),
    lambda: E.run({}, "cpu", 0),
    lambda: E.run({"nope": {}}, "cpu", 0),
    lambda: E.run(E.CONFIGS["quick"], "cpu", -1),
    lambda: E.make_learner("dqn", {}, None, None, None, 0),
    lambda: M.ATSTLSVIUCB(torch.ones(3, 4, 2, dtype=D64), 0.9, replan="sometimes"),
    lambda: B.StaleLSVIUCB(torch.ones(3, 2, 2, dtype=D64), M.enumerate_sequences(2, 2), 0.9, replan="never"),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_bonus_per_learner_and_fallback():
    cfg = copy.deepcopy(E.CONFIGS["quick"]["regret"])
    assert E.bonus_for("full_lsvi_ucb", cfg) == E.BONUS["full_lsvi_ucb"]
    assert E.bonus_for("atst_greedy", cfg) == cfg["bonus_scale"]
    assert E.bonus_for("atst_lsvi_ucb", dict(cfg, bonus_by_learner={}, bonus_scale=0.3)) == 0.3


def test_fully_observed_reference_is_standard_lsvi_ucb_on_beta_one():
    """The reference meets every state: its segments are single steps, and its regret is against V*_MDP."""
    cfg = dict(copy.deepcopy(E.CONFIGS["quick"]["regret"]), n_states=6, n_offline=2000)
    w = E._replicate(cfg, "cpu", 5, cfg["dim"], cfg["gamma"])
    agent = E.make_learner("full_lsvi_ucb", cfg, w["psi"], w["lr"], w["seqs"], seed=0)
    assert agent.rep.tolist() == [0, 1, 2] and agent.stats.dim == cfg["dim"]
    reg = np.asarray(E._curve("full_lsvi_ucb", cfg, w, 30, 0, 7))
    V_mdp = B.mdp_oracle(w["m"])[1]
    full = w["m"].with_beta(torch.ones(3, dtype=D64))
    R1, B1 = M.sequence_model(full, M.enumerate_sequences(3, 1))
    assert torch.allclose(M.sequence_policy_iteration(R1, B1)[0], V_mdp, atol=1e-8)
    assert (reg >= -1e-9).all() and reg.max() <= float(w["rho0"] @ V_mdp)   # rewards >= 0, so values >= 0


def test_bootstrap_slopes_and_exponents():
    rng = np.random.default_rng(0)
    K = 400
    scale = 1 + rng.random((3, 1))                                   # replicate-dependent constants
    arr = np.diff(np.concatenate([np.zeros((3, 1)), scale * np.sqrt(np.arange(1, K + 1))[None, :]], 1), axis=1)
    whole = np.arange(3)[None, :]
    s = E._k_slopes(arr, whole)[0]
    assert abs(s - M.loglog_slope(np.arange(K // 8, K + 1), np.cumsum(arr.mean(0))[K // 8 - 1:])) < 1e-12
    assert abs(s - 0.5) < 1e-9
    finals = [np.full(3, 2.0 * x ** 1.5) for x in (3, 5, 8)]
    assert abs(E._exponent([3, 5, 8], finals, [whole] * 3)[0] - 1.5) < 1e-12


def test_rate_grid_runs_and_reports_intervals():
    cfg = dict(copy.deepcopy(E.CONFIGS["standard"]["rate"]), K=12, n_seeds=2, n_states=6, n_offline=2000,
               n_boot=50, dims=[2, 3], gammas=[0.6, 0.8], dim=3)
    out = E.run_rate(cfg, "cpu", 0)
    assert [(r["d"], r["gamma"]) for r in out["cells"]] == [(2, 0.8), (3, 0.8), (3, 0.6)]
    for name in cfg["learners"]:
        for key in ("d", "horizon"):
            iv = out["exponents"][name][key]
            assert iv["lo"] <= iv["hi"] and np.isfinite(iv["value"])
    assert out["slope_gap"]["max_abs"] >= 0
    with pytest.raises(ValueError):
        E.run_rate(dict(cfg, dims=[3]), "cpu", 0)
