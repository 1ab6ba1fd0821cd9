"""Tests for the APO paper package (arXiv 2510.04142): trajectory language, consensus, PL/DPO losses, toy world."""

from __future__ import annotations

import copy
import itertools

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.apo_alignment import claims as C
from icml26.papers.apo_alignment import experiment as E
from icml26.papers.apo_alignment.baselines import best_source, pairwise_dpo_loss, single_negative_mask
from icml26.papers.apo_alignment.drifting_teachers import bayes_ceiling, make_world, strong_sets, teacher_rates
from icml26.papers.apo_alignment.method import (
    ABS,
    CHECK,
    EOS,
    PAD,
    PRES,
    Vocab,
    anchored_apo_loss,
    apo_loss,
    consensus,
    implicit_reward,
    most_divergent,
    negative_mask,
    parse,
    pl_weights,
    render,
)
from icml26.papers.apo_alignment.training import (
    build_data,
    decode,
    make_model,
    preference,
    reference_logprobs,
    score_decisions,
    sequence_logprobs,
)

D = torch.float64


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 5), n=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_render_parse_roundtrip(k, n, seed):
    g = torch.Generator().manual_seed(seed)
    vocab = Vocab(k, n)
    ev = torch.randint(0, 2, (6, k), generator=g)
    dec = torch.randint(0, 2, (6, k), generator=g)
    sig = vocab.sig(torch.randint(0, n + 1, (6,), generator=g))
    traj = render(vocab, ev, dec, sig)
    assert traj.shape == (6, vocab.traj_len)
    lengths = (traj != PAD).sum(1)
    verbose = vocab.is_verbose(sig)
    expect = 1 + torch.where(verbose, 5, 3) * k + 1 + dec.sum(1) + 1
    assert torch.equal(lengths, expect)
    got, ok = parse(vocab, ev, traj)
    assert ok.all() and torch.equal(got, dec)


def test_parse_is_strict():
    vocab = Vocab(3, 2)
    ev = torch.tensor([[1, 0, 1]] * 4)
    dec = torch.tensor([[1, 0, 0]] * 4)
    traj = render(vocab, ev, dec, vocab.sig(torch.tensor([1, 1, 1, 1])))  # teacher 1 is verbose
    assert parse(vocab, ev, traj)[1].all()
    bad = traj.clone()
    bad[0, 5] = ABS  # restatement contradicts the decision (position: sig, ev, F, dec, CHECK, dec)
    assert traj[0, 4] == CHECK and traj[0, 5] == PRES
    bad[1, 1] = vocab.ev(torch.tensor([[0, 0, 1]]))[0, 0]  # cites the wrong evidence
    bad[2, -1] = 5  # junk after EOS (padding area) is ignored
    eos_pos = (traj[3] != PAD).sum() - 1
    bad[3, eos_pos] = PAD  # missing EOS
    ok = parse(vocab, ev, bad)[1]
    assert ok.tolist() == [False, False, True, False]


def test_consensus_brute_force():
    g = torch.Generator().manual_seed(0)
    dec = torch.randint(0, 2, (50, 5, 4), generator=g)
    cons = consensus(dec)
    for c in range(50):
        for k in range(4):
            votes = [int(dec[c, u, k]) for u in range(5)]
            assert cons[c, k] == int(sum(votes) >= 3)
    assert torch.equal(consensus(torch.tensor([[[1], [0]]])), torch.tensor([[0]]))  # ties -> absent
    mask = negative_mask(dec, cons)
    assert torch.equal(mask, torch.stack([(dec[:, u] != cons).any(1) for u in range(5)], 1))
    div = most_divergent(dec, cons)
    ham = (dec != cons[:, None]).sum(-1)
    assert torch.equal(ham.gather(1, div[:, None]).squeeze(1), ham.max(1).values)


def test_apo_loss_equals_softmax_and_dpo():
    g = torch.Generator().manual_seed(1)
    rp, rn = torch.randn(7, generator=g, dtype=D), torch.randn(7, 4, generator=g, dtype=D)
    loss = apo_loss(rp, rn)
    ref = -torch.log_softmax(torch.cat([rp[:, None], rn], 1), 1)[:, 0]
    assert torch.allclose(loss, ref)
    # N = 1: exactly DPO
    assert torch.allclose(apo_loss(rp, rn[:, :1]), -F.logsigmoid(rp - rn[:, 0]))
    # masking a negative == dropping it
    m = torch.ones(7, 4, dtype=torch.bool)
    m[:, 2] = False
    assert torch.allclose(apo_loss(rp, rn, m), apo_loss(rp, rn[:, [0, 1, 3]]))
    # the PL objective is not the pairwise sum
    assert not torch.allclose(loss, pairwise_dpo_loss(rp, rn))
    assert torch.allclose(pairwise_dpo_loss(rp, rn), (-F.logsigmoid(rp[:, None] - rn)).mean(1))
    assert torch.allclose(pairwise_dpo_loss(rp, rn, m), (-F.logsigmoid(rp[:, None] - rn[:, [0, 1, 3]])).mean(1))


def test_apo_gradient_is_pl_weights():
    g = torch.Generator().manual_seed(2)
    rp = torch.randn(3, generator=g, dtype=D, requires_grad=True)
    rn = torch.randn(3, 5, generator=g, dtype=D, requires_grad=True)
    apo_loss(rp, rn).sum().backward()
    w = pl_weights(rp.detach(), rn.detach())
    assert torch.allclose(rn.grad, w[:, 1:])  # each negative pushed down by its softmax weight
    assert torch.allclose(rp.grad, w[:, 0] - 1)
    # finite differences on one coordinate
    eps = 1e-6
    rn2 = rn.detach().clone()
    rn2[0, 3] += eps
    fd = (apo_loss(rp.detach(), rn2).sum() - apo_loss(rp.detach(), rn.detach()).sum()) / eps
    assert abs(float(fd) - float(rn.grad[0, 3])) < 1e-5


def test_rewards_zero_at_reference_and_length_norm():
    vocab = Vocab(2, 3)
    world = make_world(8, 2, 3, generator=torch.Generator().manual_seed(0))
    data = build_data(world, vocab)
    torch.manual_seed(0)
    model = make_model(vocab, d_model=16, n_layers=1, n_heads=2)
    ref = copy.deepcopy(model)
    seq = data["src"].reshape(-1, data["src"].shape[-1])
    lp, lr = sequence_logprobs(model, seq, vocab.prompt_len), sequence_logprobs(ref, seq, vocab.prompt_len)
    assert torch.allclose(implicit_reward(lp, lr, 0.1), torch.zeros_like(lp))
    n = torch.full_like(lp, 4.0)
    assert torch.allclose(implicit_reward(lp + 2.0, lp, 0.5, n), torch.full_like(lp, 0.25))
    with pytest.raises(ValueError, match="beta"):
        implicit_reward(lp, lr, 0.0)


def test_world_rates_and_drift():
    g = torch.Generator().manual_seed(3)
    w = make_world(40_000, 4, 5, drift=0.2, p_miss=0.0, p_spur=0.0, p_private=0.0, rounds=2, generator=g)
    tpr, fpr = teacher_rates(5, 4, 0.2, rounds=2)
    assert tpr.shape == fpr.shape == (2, 5, 4) and torch.equal(w.fpr, fpr)
    for r in range(2):  # with noiseless signals the signal is the truth; the empirical rates are the round's
        sel = w.round == r
        pos = w.findings[sel][:, None, :].expand_as(w.decisions[sel]) == 1
        d = w.decisions[sel].float()
        emp_tpr = (d * pos).sum(0) / pos.sum(0)
        emp_fpr = (d * ~pos).sum(0) / (~pos).sum(0)
        assert (emp_tpr - tpr[r]).abs().max() < 0.05 and (emp_fpr - fpr[r]).abs().max() < 0.05
    # drift over steps: in round 0 source 0's hallucination rate rises along the trajectory, source 1's stays ...
    up, ramp = fpr - teacher_rates(5, 4, 0.0, rounds=2)[1], 0.2 * torch.arange(1, 5) / 4
    assert torch.allclose(up[0, 0], ramp) and (up[0, 1] == 0).all()
    # ... and over time: the drifting set alternates in the next round; the drift only adds hallucinations
    assert (up[1, 0] == 0).all() and torch.allclose(up[1, 1], ramp) and (up >= 0).all()
    assert tuple(w.findings.shape) == (40_000, 4) and tuple(w.decisions.shape) == (40_000, 5, 4)
    # strong findings are decided from the private signal, weak ones from the public evidence
    wp = make_world(20_000, 4, 5, drift=0.0, p_miss=0.5, p_spur=0.5, p_private=0.0, generator=torch.Generator()
                    .manual_seed(5), tpr_strong=1.0, fpr_strong=0.0)
    strong = strong_sets(5, 4)
    agree = (wp.decisions == wp.findings[:, None, :]).float().mean(0)
    assert (agree[strong] == 1.0).all() and (agree[~strong] < 0.8).all()
    # fully correlated sources: a consensus is no better than the sources' common draw
    wc = make_world(2000, 4, 5, correlation=1.0, preset="uniform", generator=torch.Generator().manual_seed(4))
    assert (wc.decisions[:, :, ~strong_sets(5, 4, "uniform")[0]]
            == wc.decisions[:, :1, ~strong_sets(5, 4, "uniform")[0]]).float().mean() > 0.9


def test_bayes_ceiling_matches_brute_force():
    k, n = 3, 5
    w = make_world(60, k, n, generator=torch.Generator().manual_seed(6), p_miss=0.2, p_spur=0.1, p_private=0.15)
    strong = strong_sets(n, k)
    for view in ("student", "pooled"):
        got = bayes_ceiling(w, view)
        for c in range(60):
            post = torch.zeros(k, dtype=D)
            total = 0.0
            for f in itertools.product((0, 1), repeat=k):
                p = 0.35 if f[0] else 0.65
                for j in range(1, k):
                    q = 0.2 + 0.35 * f[j - 1]
                    p *= q if f[j] else 1 - q
                for j in range(k):
                    e = int(w.evidence[c, j])
                    q = 0.8 if f[j] else 0.1  # P(positive evidence | f)
                    p *= q if e else 1 - q
                    if view == "pooled":
                        for u in range(n):
                            if strong[u, j]:
                                z = int(w.private[c, u, j])
                                q = 0.85 if f[j] else 0.15
                                p *= q if z else 1 - q
                total += p
                post += p * torch.tensor(f, dtype=D)
            assert torch.equal(got[c], (post / total > 0.5).long())
    # on a large world the pooled view is at least as accurate as the student's, which beats raw evidence reading
    big = make_world(20_000, 4, 5, generator=torch.Generator().manual_seed(7))
    acc = {v: float((bayes_ceiling(big, v) == big.findings).float().mean()) for v in ("student", "pooled")}
    assert acc["pooled"] > acc["student"] + 0.05
    assert acc["student"] >= float((big.evidence == big.findings).float().mean()) - 1e-3
    with pytest.raises(ValueError, match="view"):
        bayes_ceiling(big, "teacher")


def test_anchored_apo_loss_adds_the_nll():
    g = torch.Generator().manual_seed(8)
    rp, rn = torch.randn(5, generator=g, dtype=D), torch.randn(5, 3, generator=g, dtype=D)
    lp = -torch.rand(5, generator=g, dtype=D)
    assert torch.allclose(anchored_apo_loss(rp, rn, lp), apo_loss(rp, rn) - lp)
    assert torch.allclose(anchored_apo_loss(rp, rn, lp, weight=0.0), apo_loss(rp, rn))
    with pytest.raises(ValueError, match="logp_pos_per_token"):
        anchored_apo_loss(rp, rn, lp[:3])


def test_score_decisions_counts_malformed_as_wrong():
    truth = torch.tensor([[1, 0], [0, 0]])
    dec = truth.clone()
    s = score_decisions(dec, truth, torch.tensor([True, False]))
    assert s["accuracy"] == 0.5 and s["well_formed"] == 0.5
    assert s["hallucination"] == pytest.approx(2 / 3) and s["omission"] == 0.0


def test_single_negative_and_best_source():
    m = torch.tensor([[True, False, True], [False, True, False]])
    one = single_negative_mask(m, "random", generator=torch.Generator().manual_seed(0))
    assert one.sum(1).tolist() == [1, 1] and (one <= m).all()
    div = single_negative_mask(m, "divergent", torch.tensor([2, 1]))
    assert div.tolist() == [[False, False, True], [False, True, False]]
    dec = torch.tensor([[[1, 0], [0, 0], [1, 1]]] * 3)
    assert best_source(dec, torch.tensor([[1, 0]] * 3)) == 0
    with pytest.raises(ValueError, match="rule"):
        single_negative_mask(m, "nearest")


def test_value_errors():
    vocab = Vocab(3, 2)
    with pytest.raises(ValueError, match="n_findings"):
        Vocab(0, 2)
    with pytest.raises(ValueError, match="evidence"):
        render(vocab, torch.zeros(2, 4, dtype=torch.long), torch.zeros(2, 4, dtype=torch.long), vocab.target_sig)
    with pytest.raises(ValueError, match="0/1"):
        render(vocab, torch.full((2, 3), 2), torch.zeros(2, 3, dtype=torch.long), vocab.target_sig)
    with pytest.raises(ValueError, match="sig"):
        render(vocab, torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, 3, dtype=torch.long), 0)
    with pytest.raises(ValueError, match="decisions"):
        consensus(torch.zeros(3, 4))
    with pytest.raises(ValueError, match="correlation"):
        make_world(5, correlation=1.5)
    with pytest.raises(ValueError, match="preset"):
        strong_sets(5, 4, "random")
    with pytest.raises(ValueError, match="n_cases"):
        make_world(0)
    with pytest.raises(ValueError, match="config"):
        E.run({"n_train": 3}, "cpu", 0)
    with pytest.raises(ValueError, match="seed"):
        E.run(E.CONFIGS["quick"], "cpu", -1)


def _tiny_model_and_data(k=2, n=3, cases=8):
    vocab = Vocab(k, n)
    data = build_data(make_world(cases, k, n, generator=torch.Generator().manual_seed(0)), vocab)
    torch.manual_seed(0)
    return vocab, data, make_model(vocab, d_model=16, n_layers=1, n_heads=2)


def test_sequence_logprob_counts_exactly_the_trajectory_with_eos():
    vocab, data, model = _tiny_model_and_data()
    seq = data["src"].reshape(-1, data["src"].shape[-1])
    got = sequence_logprobs(model, seq, vocab.prompt_len)
    with torch.no_grad():
        logp = torch.log_softmax(model(seq).float(), -1)
    want = torch.zeros(seq.shape[0])
    for b in range(seq.shape[0]):  # brute force: every trajectory token up to and including EOS, nothing else
        end = int((seq[b] == EOS).nonzero()[0])
        for t in range(vocab.prompt_len, end + 1):
            want[b] += logp[b, t - 1, seq[b, t]]
    assert torch.allclose(got, want, atol=1e-4)
    # padding after EOS never changes the sum
    padded = torch.cat([seq, torch.full((seq.shape[0], 3), PAD)], 1)[:, :vocab.context]
    assert torch.allclose(sequence_logprobs(model, padded, vocab.prompt_len), got, atol=1e-5)


def test_stage2_starts_at_zero_reward_and_clips():
    vocab, data, model = _tiny_model_and_data(cases=12)
    ref_lp = reference_logprobs(model, data, vocab.prompt_len)
    assert ref_lp.shape == (12, 1 + 3) and ref_lp.dtype == torch.float32
    policy = copy.deepcopy(model)
    g = torch.Generator().manual_seed(0)
    out = preference(policy, data, vocab.prompt_len, "apo", steps=1, lr=1e-3, batch=64, beta=0.1, generator=g,
                     ref_lp=ref_lp)
    # at step 0 the policy is the reference: every reward is 0 and the PL loss is log(1 + #negatives)
    g = torch.Generator().manual_seed(0)
    pool = torch.nonzero(data["neg_mask"].any(1)).squeeze(1)
    idx = pool[torch.randint(0, pool.numel(), (64,), generator=g)]
    expect = torch.log1p(data["neg_mask"][idx].sum(1).float()).mean()
    assert abs(out["loss"][0] - float(expect)) < 1e-5
    with pytest.raises(ValueError, match="clip"):
        preference(copy.deepcopy(model), data, vocab.prompt_len, "apo", 1, 1e-3, 4, clip=0.0)
    with pytest.raises(ValueError, match="ref_lp"):
        preference(copy.deepcopy(model), data, vocab.prompt_len, "apo", 1, 1e-3, 4, ref_lp=ref_lp[:3])
    # a huge lr with clipping moves the weights by at most lr per Adam step, as without; clipping keeps it finite
    p2 = copy.deepcopy(model)
    preference(p2, data, vocab.prompt_len, "pairwise", 3, 1e-2, 8, ref_lp=ref_lp, clip=1.0)
    assert all(torch.isfinite(p).all() for p in p2.parameters())


def test_decode_early_exit_matches_full_width():
    vocab, data, model = _tiny_model_and_data(cases=10)
    from icml26.papers.apo_alignment.training import sft

    sft(model, data["src"].reshape(-1, data["src"].shape[-1]), vocab.prompt_len, 60, 3e-3, 16,
        torch.Generator().manual_seed(1))
    traj = decode(model, data["prompt"], vocab)
    assert traj.shape == (10, vocab.traj_len)
    # the reference: run every step without early exit
    seq = data["prompt"]
    with torch.no_grad():
        model.eval()
        done = torch.zeros(10, dtype=torch.bool)
        for _ in range(vocab.traj_len):
            nxt = model(seq)[:, -1].argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
            done |= nxt == EOS
            seq = torch.cat([seq, nxt[:, None]], 1)
    assert torch.equal(traj, seq[:, vocab.prompt_len:])


def test_apo_ln_is_apo_on_length_normalised_rewards():
    vocab, data, model = _tiny_model_and_data(cases=12)
    ref_lp = reference_logprobs(model, data, vocab.prompt_len)
    runs = {}
    for name, obj, norm in (("ln", "apo_ln", False), ("apo_norm", "apo", True), ("apo", "apo", False)):
        policy = copy.deepcopy(model)
        out = preference(policy, data, vocab.prompt_len, obj, steps=3, lr=1e-2, batch=8, beta=0.5, length_norm=norm,
                         generator=torch.Generator().manual_seed(0), ref_lp=ref_lp)
        runs[name] = (out["loss"], torch.cat([p.detach().flatten() for p in policy.parameters()]))
    # apo_ln is exactly APO with length_norm=True, whatever length_norm says ...
    assert runs["ln"][0] == runs["apo_norm"][0] and torch.equal(runs["ln"][1], runs["apo_norm"][1])
    # ... and not the summed-reward APO (same first loss, log(1 + #negatives), different steps after it)
    assert abs(runs["ln"][0][0] - runs["apo"][0][0]) < 1e-6 and runs["ln"][0][1:] != runs["apo"][0][1:]


def test_same_grid_for_every_objective():
    cfg = E.CONFIGS["standard"]
    pref = E.grid_points(cfg, "apo")
    assert len(pref) == len(cfg["grid"]["lr2"]) * len(cfg["grid"]["beta"])
    assert cfg["grid"]["lr2"] == [1e-5, 3e-5, 1e-4, 3e-4] and cfg["grid"]["beta"] == [0.1, 0.5]
    assert set(cfg["objectives"]) == set(E.OBJECTIVES) and cfg["steps1"] == 600
    assert cfg["drift_sweep"] == [0.0, 0.1, 0.2, 0.3]
    for obj in ("apo_nll", "apo_ln", "pairwise", "dpo_random", "dpo_divergent"):
        assert E.grid_points(cfg, obj) == pref
    for obj in ("sft_consensus", "sft_best"):  # beta is unused by SFT: one point per lr
        assert [lr for lr, _ in E.grid_points(cfg, obj)] == cfg["grid"]["lr2"]


def test_experiment_tiny_runs_and_claims_read_it():
    cfg = {**E.CONFIGS["standard"], "n_findings": 2, "n_train": 40, "n_val": 10, "n_test": 20, "steps1": 2,
           "steps2": 2, "d_model": 16, "n_layers": 1, "n_heads": 2, "batch1": 8, "batch2": 4,
           "drift_sweep": [0.0, 0.2], "hparams": {"apo": [1e-4, 0.5]}, "shared": [3e-5, 0.1]}
    r = E.run(cfg, "cpu", 0)
    run = r["runs"][0]
    assert set(r["summary"]["methods"]) == set(cfg["objectives"])
    assert run["settings"]["apo"] == {"tuned": [1e-4, 0.5], "shared": [3e-5, 0.1]}
    assert run["settings"]["pairwise"] == {"tuned": [3e-5, 0.1], "shared": [3e-5, 0.1]}  # no entry: the shared one
    assert run["methods"]["pairwise"]["shared"] is run["methods"]["pairwise"]["tuned"]  # trained once
    for dec in E.DECODERS:
        assert 0.0 <= r["summary"][f"stage1_acc_{dec}"] <= 1.0
    assert r["summary"]["ceiling_pooled"] >= 0.0 and len(run["teacher_hall_by_round"]) >= 1
    assert len(r["drift_sweep"]["gap_sampled"]) == 2 and r["seconds"] > 0
    for claim in C.CLAIMS:
        value = claim.metric(r)
        if claim.id == "gain_grows_with_drift":
            assert value in (0.0, 1.0)
        else:
            assert isinstance(value, float)
    sel = E.select_hparams({**cfg, "objectives": ["apo", "sft_consensus"]}, "cpu", [100])
    assert len(sel["val_grid"]["apo"]) == 8 and len(sel["val_grid"]["sft_consensus"]) == 4
    assert sel["shared"] in [list(p) for p in E.grid_points(cfg, "apo")]
    with pytest.raises(ValueError, match="seeds"):
        E.select_hparams(cfg, "cpu", [3])


@pytest.mark.parametrize("scale", ["quick", "standard"])
def test_selection_table_is_consistent(scale):
    sel = E.SELECTIONS[scale]
    cfg = E.CONFIGS[scale]
    assert min(sel["seeds"]) >= 100  # chosen on development seeds only
    assert set(cfg["objectives"]) <= set(sel["val_grid"])
    for obj in cfg["objectives"]:
        rows = sel["val_grid"][obj]
        # the table covers exactly the shared grid, and the chosen point is its first validation argmax
        assert [(lr, b) for lr, b, _ in rows] == E.grid_points(cfg, obj)
        best = max(rows, key=lambda row: row[2])
        assert sel["tuned"][obj] == [best[0], best[1]] == cfg["hparams"][obj]
    best = max(sel["shared_mean"], key=lambda row: row[2])
    assert sel["shared"] == [best[0], best[1]] == list(cfg["shared"])


def _tiny_cfg():
    return {**E.CONFIGS["quick"], "n_findings": 2, "n_train": 40, "n_val": 10, "n_test": 20, "steps1": 3,
            "steps2": 3, "d_model": 16, "n_layers": 1, "n_heads": 2, "batch1": 8, "batch2": 4,
            "objectives": ["apo"], "hparams": {"apo": [1e-3, 0.1]}}


def test_control_arm_is_apo_with_a_random_ranking_and_the_headlines_read_it():
    r = E.run(_tiny_cfg(), "cpu", 0)
    ctl = r["summary"]["control"]["apo_random_rank"]
    for dec in E.DECODERS:
        assert 0.0 <= ctl[dec]["accuracy"] <= 1.0
    heads = [c for c in C.CLAIMS if c.headline]
    assert {c.id for c in heads} == {"apo_beats_stage1", "apo_beats_best_source_greedy"}
    for c in heads:
        assert isinstance(c.control.metric(r), float) and c.kind == "paper" and c.quote
    # the main run carries the control arm
    assert set(r["runs"][0]["control"]) == {"apo_random_rank"}


def test_records_do_not_depend_on_the_thread_count():
    """Same seed, same numbers at 1 and 2 torch threads (issue 80): run() pins one thread and restores it."""
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        a = E.run(_tiny_cfg(), "cpu", 3)["summary"]
        assert torch.get_num_threads() == 2
        torch.set_num_threads(1)
        b = E.run(_tiny_cfg(), "cpu", 3)["summary"]
    finally:
        torch.set_num_threads(before)
    assert a == b


def test_extensions_are_ours_and_not_worse_claims_need_the_methods_to_differ():
    kinds = {c.id: c.kind for c in C.CLAIMS}
    assert sum(k == "paper" for k in kinds.values()) == 11 and sum(k == "extension" for k in kinds.values()) == 14
    for cid in ("pl_not_worse_than_pairwise", "pl_not_worse_than_pairwise_greedy", "pl_not_worse_than_pairwise_shared"):
        c = next(c for c in C.CLAIMS if c.id == cid)
        assert c.kind == "extension" and c.requires is not None and c.requires.id.startswith("stage2_moved")
