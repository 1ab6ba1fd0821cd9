"""Tests of the ca_pg paper module: CA-PG, its baselines, the exact analysis and the experiment contract."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.ca_pg import claims as C
from icml26.papers.ca_pg import experiment as E
from icml26.papers.ca_pg.analysis import exact_gradients, inclusion_errors, variance_probe
from icml26.papers.ca_pg.baselines import distill_loss, oracle_candidates, topk_wr_loss, vpg_loss
from icml26.papers.ca_pg.method import TwoTowerESR, capg_loss, lsr_choose, lsr_probs, lsr_rank, lsr_scores
from icml26.papers.ca_pg.training import make_world, max_drop_after, oracle_value, steps_to, train
from icml26.ranking import enumerate_rankings, inclusion_prob, log_prob

D = torch.float64


def _instance(c=4, n=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    f = torch.randn(c, n, dtype=D, generator=g)
    q = torch.sigmoid(1.5 * torch.randn(c, n, dtype=D, generator=g) - 1)
    return f, q


def test_exact_true_gradient_matches_finite_differences():
    f, q = _instance()
    out = exact_gradients(f, q, q, 3, 0.1)
    eps = 1e-6
    for c, a in [(0, 0), (1, 3), (3, 5)]:
        fp, fm = f.clone(), f.clone()
        fp[c, a] += eps
        fm[c, a] -= eps
        fd = (exact_gradients(fp, q, q, 3, 0.1)["value"][c] - exact_gradients(fm, q, q, 3, 0.1)["value"][c]) / (2 * eps)
        assert abs(fd.item() - out["grad_v"][c, a].item()) < 1e-7


def test_identity_and_unbiased_under_uniform_lsr():
    f, q = _instance(seed=1)
    uni = exact_gradients(f, q, q, 3, math.inf)
    assert uni["identity_err"] < 1e-10
    assert uni["rel_err"] < 1e-8 and uni["cos"] > 1 - 1e-10
    sharp = exact_gradients(f, q, q, 3, 0.05)
    assert sharp["rel_err"] > 1e-3  # biased with a softmax LSR (drops rho * grad omega)


def test_capg_expectation_equals_surrogate_with_frozen_omega():
    """E[g_CA] = sum_a q omega grad rho / rho * rho = sum_a q omega grad rho, omega = E[pi0 | a in C] frozen."""
    f, q = _instance(c=2, n=5, seed=2)
    k, tau = 2, 0.2
    out = exact_gradients(f, q, q, k, tau)
    perms = enumerate_rankings(5, k)
    fr = f.clone().requires_grad_()
    rho = inclusion_prob(fr, k, method="enumerate")
    with torch.no_grad():
        p = log_prob(f.unsqueeze(1).expand(2, len(perms), 5), perms.expand(2, *perms.shape)).exp()
        pi0 = lsr_probs(q.unsqueeze(1).expand(2, len(perms), 5).contiguous(), perms.expand(2, *perms.shape)
                        .contiguous(), tau)
        w = torch.zeros(2, len(perms), 5, dtype=D).scatter_(-1, perms.expand(2, *perms.shape), pi0)
        omega = (p.unsqueeze(-1) * w).sum(1) / rho.detach()
    (grad,) = torch.autograd.grad((q * omega * rho).sum(), fr)
    assert torch.allclose(grad, out["e_capg"], atol=1e-12)


def test_capg_loss_gradient_is_reward_times_grad_log_rho():
    f, q = _instance(c=3, n=6, seed=3)
    chosen = torch.tensor([0, 4, 2])
    r = torch.tensor([1.0, 0.5, 2.0], dtype=D)
    fr = f.clone().requires_grad_()
    capg_loss(fr, chosen, r, 3, rho="enumerate").backward()
    glr = exact_gradients(f, q, q, 3, 0.1)["grad_log_rho"]
    expect = -(r[:, None] * glr[torch.arange(3), chosen]) / 3
    assert torch.allclose(fr.grad, expect, atol=1e-12)
    # the batch-mean baseline changes the estimate (it is not free for CA-PG)
    fr.grad = None
    capg_loss(fr, chosen, r, 3, rho="enumerate", baseline="mean").backward()
    assert not torch.allclose(fr.grad, expect, atol=1e-6)


def test_vpg_loss_gradient_equals_autograd_of_log_prob():
    g = torch.Generator().manual_seed(4)
    f = torch.randn(5, 30, dtype=D, generator=g, requires_grad=True)
    cand = torch.stack([torch.randperm(30, generator=g)[:7] for _ in range(5)])
    r = torch.rand(5, dtype=D, generator=g)
    vpg_loss(f, cand, r, baseline="mean").backward()
    f2 = f.detach().clone().requires_grad_()
    (-((r - r.mean()) * log_prob(f2, cand)).mean()).backward()
    assert torch.allclose(f.grad, f2.grad, atol=1e-12)


def test_vpg_is_unbiased_in_expectation_by_enumeration():
    f, q = _instance(c=1, n=5, seed=5)
    out = exact_gradients(f, q, q, 2, 0.1)
    perms = enumerate_rankings(5, 2)
    p = log_prob(f.expand(len(perms), 5), perms).exp()
    pi0 = lsr_probs(q.expand(len(perms), 5).contiguous(), perms, 0.1)
    r = (pi0 * q[0][perms]).sum(-1)  # expected reward of each candidate list
    fr = f.expand(len(perms), 5).clone().requires_grad_()
    vpg_loss(fr, perms, r, baseline="none").backward()
    e_v = -(fr.grad * len(perms) * p[:, None]).sum(0)
    assert torch.allclose(e_v, out["grad_v"][0], atol=1e-12)


def test_variance_probe_shows_growing_gap():
    g = torch.Generator().manual_seed(0)
    f = torch.randn(100, generator=g)
    q = torch.sigmoid(1.5 * torch.randn(100, generator=g) - 1)
    small = variance_probe(f, q, q, 1, 0.1, 200, 16, generator=g)
    big = variance_probe(f, q, q, 30, 0.1, 200, 16, generator=g)
    assert 0.5 < small["ratio"] < 2.0
    assert big["ratio"] > 5 * small["ratio"]


def test_variance_probe_baseline_is_the_training_batch_mean():
    """With deterministic rewards (q = 1) the batch-mean baseline cancels V-PG's gradient exactly; CA-PG's stays."""
    g = torch.Generator().manual_seed(3)
    f = torch.randn(40, generator=g)
    out = variance_probe(f, torch.ones(40), torch.rand(40, generator=g), 5, 0.1, 64, 8, generator=g, batch=16)
    assert out["tr_var_vpg_mean"] == 0.0 and out["tr_var_vpg"] > 0 and out["tr_var_capg"] > 0
    assert out["ratio_mean"] == 0.0
    q = torch.sigmoid(1.5 * torch.randn(40, generator=g) - 1)
    out = variance_probe(f, q, q, 20, 0.1, 400, 8, generator=g)
    assert 1.0 < out["ratio_mean"] < out["ratio"]  # the baseline helps V-PG, CA-PG still has less variance


def test_sweeps_reuse_the_training_runs_and_the_claims_read_them():
    tcfg = {"n_items": 30, "n_users": 12, "d": 4, "ks": [5], "steps": 20, "n_seeds": 1, "batch": 8, "lr": 0.05,
            "tau": 0.01, "n_mc": 4, "eval_every": 10, "eval_users": 6, "eval_sets": 2, "estimators": ["capg", "vpg"]}
    cfg = {"training": tcfg, "lr_sweep": {"k": 5, "steps": 100, "lrs": [0.5, 0.01], "estimators": ["capg", "vpg"]},
           "lsr_noise": {"k": 5, "steps": 100, "noises": [0.3], "anti_noises": [0.3], "estimators": ["capg", "vpg"]}}
    out = E.run_training(cfg, "cpu", 0)
    lr, noise = out["lr_sweep"], out["lsr_noise"]
    assert lr["lrs"] == [0.01, 0.05, 0.5] and noise["noises"] == [0.0, 0.3, 0.3] and noise["corr"][0] == 1.0
    assert noise["anti"] == [False, False, True] and 1 > noise["corr"][1] > 0 > noise["corr"][2] > -1
    base = out["training"]["5"]
    for est in ("capg", "vpg"):  # the shared-lr / aligned points are the training grid's own runs
        assert lr[est]["final"][1] == noise[est]["final"][0] == pytest.approx(base[est]["final_norm"][0], abs=1e-6)
        assert len(lr[est]["at_100"]) == 3 and len(noise[est]["at_100"]) == 3
    gap = C.lr_tuned_gap(out)
    assert gap == max(lr["capg"]["at_100"]) - max(lr["vpg"]["at_100"])
    with pytest.raises(ValueError, match="must be one of cfg"):
        E.run_training({**cfg, "lr_sweep": {"k": 7, "steps": 100, "lrs": [0.1], "estimators": ["capg"]}}, "cpu", 0)
    with pytest.raises(ValueError, match="step 100"):
        E.run_training({**cfg, "lr_sweep": {**cfg["lr_sweep"], "steps": 50}}, "cpu", 0)
    with pytest.raises(ValueError, match="among"):
        E.run_training({**cfg, "lsr_noise": {**cfg["lsr_noise"], "estimators": ["distill"]}}, "cpu", 0)


def test_digits_claims_read_step_100_and_censoring():
    steps = [0, 50, 100, 150]
    digits = {"10": {"capg": {"steps": steps, "norm_mean": [0.3, 0.8, 0.9, 0.95], "steps_to_80": 50.0},
                     "vpg_mean": {"steps": steps, "norm_mean": [0.3, 0.5, 0.6, 0.85], "steps_to_80": 150.0},
                     "vpg": {"steps": steps, "norm_mean": [0.3, 0.4, 0.7, 0.7], "steps_to_80": 160.0}},
              "100": {"capg": {"steps": steps, "norm_mean": [0.8, 0.9, 0.95, 0.99], "steps_to_80": 0.0},
                      "vpg": {"steps": steps, "norm_mean": [0.8, 0.8, 0.9, 0.9], "steps_to_80": 0.0}}}
    assert abs(C.digits_gap_100({"digits": digits}) - 0.05) < 1e-12
    assert C.digits_speedup_k10({"digits": digits}) == 3.0


def test_inclusion_errors():
    out = inclusion_errors(torch.randn(30, generator=torch.Generator().manual_seed(0)), 6, n_mc=1000,
                           generator=torch.Generator().manual_seed(1))
    assert out["sum_err_quad"] < 1e-6 and out["mc_max_err"] < 0.03 and out["wr_top_err"] > 0.01


@settings(max_examples=25, deadline=None)
@given(tau=st.sampled_from([0.0, 0.05, 1.0, math.inf]), seed=st.integers(0, 1000))
def test_lsr_probs_are_distributions_and_argmax(tau, seed):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(3, 10, generator=g)
    cand = torch.stack([torch.randperm(10, generator=g)[:4] for _ in range(3)])
    p = lsr_probs(scores, cand, tau)
    assert torch.allclose(p.sum(-1), torch.ones(3)) and (p >= 0).all()
    chosen = lsr_choose(scores, cand, tau, generator=g)
    assert (chosen.unsqueeze(-1) == cand).any(-1).all()
    if tau == 0.0:
        assert torch.equal(chosen, torch.gather(cand, -1, scores.gather(-1, cand).argmax(-1, keepdim=True))[:, 0])


def test_lsr_alignments_and_oracle():
    q = torch.rand(2, 8)
    assert torch.equal(lsr_scores(q, "anti"), -q)
    noisy = lsr_scores(q, "noisy", 0.1, generator=torch.Generator().manual_seed(0))
    assert not torch.equal(noisy, q) and (noisy - q).abs().max() < 1.0
    top = oracle_candidates(q, 3)
    assert torch.equal(top.sort(-1).values, torch.topk(q, 3).indices.sort(-1).values)


def test_baseline_losses_are_finite_and_differentiable():
    g = torch.Generator().manual_seed(0)
    f = torch.randn(4, 20, generator=g, requires_grad=True)
    cand = torch.stack([torch.randperm(20, generator=g)[:5] for _ in range(4)])
    chosen = cand[:, 0]
    r = torch.tensor([1.0, 0.0, 1.0, 1.0])
    for loss in (topk_wr_loss(f, chosen, r, 5), distill_loss(f, cand, torch.randn(4, 20, generator=g)),
                 capg_loss(f, chosen, r, 5, n_mc=4, generator=g)):
        (gr,) = torch.autograd.grad(loss, f)
        assert torch.isfinite(loss) and torch.isfinite(gr).all() and gr.abs().sum() > 0


def test_training_improves_and_helpers():
    w = make_world(120, 40, d=8, seed=0)
    res = train(w, "capg", 10, 40, batch=16, eval_every=20, eval_users=20, eval_sets=4, seed=0)
    assert res["steps"] == [0, 20, 40] and res["value"][-1] > res["value"][0] + 0.1
    assert oracle_value(w.q, w.g, 10, 0.01) <= float(w.q.max(-1).values.mean()) + 1e-6
    assert steps_to([0, 10, 20], [0.1, 0.85, 0.9], 0.8) == 10.0
    assert steps_to([0, 10], [0.1, 0.2], 0.8, censor=20) == 20.0
    assert abs(max_drop_after([0.1, 0.9, 0.85, 0.95, 0.7], 0.8) - 0.25) < 1e-12
    assert max_drop_after([0.5, 0.3], 0.8) == 0.0


def test_ranked_lsr_output_credits_each_displayed_item():
    g = torch.Generator().manual_seed(7)
    f = torch.randn(3, 7, dtype=D, generator=g)
    cand = torch.stack([torch.randperm(7, generator=g)[:4] for _ in range(3)])
    shown = lsr_rank(f, cand, 0.0, 2)
    assert torch.equal(shown[:, 0], torch.gather(cand, -1, f.gather(-1, cand).argmax(-1, keepdim=True))[:, 0])
    assert (shown.unsqueeze(-1) == cand.unsqueeze(1)).any(-1).all()
    r = torch.tensor([[1.0, 0.5], [0.0, 0.5], [1.0, 0.0]], dtype=D)
    fr = f.clone().requires_grad_()
    (g2,) = torch.autograd.grad(capg_loss(fr, shown, r, 4, rho="enumerate"), fr)
    g_sum = sum(torch.autograd.grad(capg_loss(fr, shown[:, j], r[:, j], 4, rho="enumerate"), fr)[0] for j in range(2))
    assert torch.allclose(g2, g_sum, atol=1e-12)
    soft = lsr_rank(f, cand, 1.0, 3, generator=g)
    assert soft.shape == (3, 3)


def test_digits_world_is_a_valid_two_stage_world():
    from icml26.papers.ca_pg.digits_world import make_digits_world

    w = make_digits_world(n_users=12, seed=0)
    assert w.items.shape == (1797, 8) and w.users.shape == (12, 18) and w.q.shape == w.g.shape == (12, 1797)
    assert ((w.q > 0) & (w.q < 1)).all()
    # the LSR is aligned but imperfect
    corr = torch.corrcoef(torch.stack([w.q.flatten(), w.g.flatten()]))[0, 1]
    assert 0.3 < corr < 0.999
    esr = TwoTowerESR(18, d_item=8, init_scale=0.1, generator=torch.Generator().manual_seed(0))
    assert esr(w.users, w.items).shape == (12, 1797)


def test_value_errors():
    f = torch.randn(2, 10)
    with pytest.raises(ValueError, match="alignment"):
        lsr_scores(torch.rand(3), "sideways")
    with pytest.raises(ValueError, match="tau"):
        lsr_probs(f, torch.zeros(2, 3, dtype=torch.int64), -1.0)
    with pytest.raises(ValueError, match="chosen"):
        capg_loss(f, torch.zeros(3, dtype=torch.int64), torch.zeros(2), 3)
    with pytest.raises(ValueError, match="rewards"):
        capg_loss(f, torch.zeros(2, 2, dtype=torch.int64), torch.zeros(2), 3)
    with pytest.raises(ValueError, match="m must"):
        lsr_rank(f, torch.zeros(2, 3, dtype=torch.int64), 0.1, 4)
    with pytest.raises(ValueError, match="rho"):
        capg_loss(f, torch.zeros(2, dtype=torch.int64), torch.zeros(2), 3, rho="magic")
    with pytest.raises(ValueError, match="baseline"):
        capg_loss(f, torch.zeros(2, dtype=torch.int64), torch.zeros(2), 3, baseline="median")
    with pytest.raises(ValueError, match="rewards"):
        vpg_loss(f, torch.zeros(2, 3, dtype=torch.int64), torch.zeros(5))
    with pytest.raises(ValueError, match="estimator"):
        train(make_world(20, 5, d=4), "ppo", 3, 2)
    with pytest.raises(ValueError, match="d must"):
        TwoTowerESR(0)
    with pytest.raises(ValueError, match="n_samples"):
        variance_probe(torch.randn(5), torch.rand(5), torch.rand(5), 2, 0.1, 1)
    with pytest.raises(ValueError, match="share one shape"):
        exact_gradients(torch.randn(2, 5), torch.rand(2, 4), torch.rand(2, 5), 2, 0.1)
    with pytest.raises(ValueError, match="seed"):
        E.run(E.CONFIGS["quick"], "cpu", -1)


def test_configs_and_claims_are_consistent():
    assert set(E.CONFIGS) == {"quick", "standard", "full"}
    ids = [c.id for c in C.CLAIMS]
    assert len(ids) == len(set(ids)) == 24
    standard_only = {"stability_std", "stability_no_drop", "anti_aligned_training", "digits_speedup_k10",
                     "lr_tuned_gap", "noisy_lsr_gap", "anti_aligned_cosine", "capg_faster_than_prior_art"}
    for c in C.CLAIMS:
        assert "quick" in c.threshold or c.id in standard_only
    # the headline (issue 64): one claim against the best of the prior art, its control the with-replacement rho
    heads = [c for c in C.CLAIMS if c.headline]
    assert [c.id for c in heads] == ["capg_faster_than_prior_art"]
    assert set(C.PRIOR_ART) == {"vpg_mean", "vpg", "topk_wr", "distill"}
    for scale in ("quick", "standard", "full"):  # the headline's world at every scale, checked from standard on
        assert set(C.PRIOR_ART) | {"capg"} <= set(E.CONFIGS[scale]["noisy_grid"]["estimators"])
    assert set(heads[0].threshold) == {"standard", "full"}


def _part(by_k):
    """A minimal ``noisy_grid`` / ``training`` summary: {K: {estimator: auc_100}} -> results part."""
    return {k: {e: {"auc_100": v, "max_drop_after_80": 0.0} for e, v in row.items()} for k, row in by_k.items()}


def test_headline_reads_the_best_peer_and_the_control_replaces_the_exact_rho():
    part = _part({"10": {"capg": 0.8, "vpg_mean": 0.4, "vpg": 0.3, "topk_wr": 0.78, "distill": 0.1},
                  "100": {"capg": 0.9, "vpg_mean": 0.5, "vpg": 0.6, "topk_wr": 0.95, "distill": 0.4}})
    r = {"noisy_grid": part}
    assert C.headline_gap(r) == pytest.approx(0.9 - 0.95)  # min over K of CA-PG minus the best of all four peers
    assert C.headline_control(r) == pytest.approx(min(0.78 - 0.4, 0.95 - 0.6))  # top-K vs V-PG and distillation
    details = C.headline_details(r)
    assert details["K=10 distill auc_100"] == 0.1 and "K=100 capg max_drop_after_80" in details
    assert C.aligned_distill_k10({"training": part}) == pytest.approx(0.1 - 0.8)


def test_summary_auc_is_the_mean_over_the_first_100_steps():
    curves = {"10": {"capg": [{"steps": [0, 50, 100, 150], "value": [0.0, 0.5, 1.0, 1.0], "oracle": 1.0}]}}
    s = E._summarise(curves, 150)["10"]["capg"]
    assert s["auc_100"] == pytest.approx(0.5)
