"""Tests of the attention-sink paper module: gate identities, importance/CV, aux loss, corpus, experiment."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.nn.attention import attention
from icml26.papers.attention_sink import baselines, claims, corpus, experiment, explore, method

torch.set_num_threads(1)


def scores_and_qkv(b=2, h=3, t=9, d=4, seed=0, dtype=torch.float64, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (scale * torch.randn(b, h, t, d, generator=g, dtype=dtype) for _ in range(3))
    s = (q @ k.transpose(-1, -2)) / math.sqrt(d)
    mask = torch.ones(t, t, dtype=torch.bool).tril()
    return s.masked_fill(~mask, float("-inf")), q, k, v


@settings(max_examples=25, deadline=None)
@given(t=st.integers(1, 12), scale=st.floats(0.1, 6.0), seed=st.integers(0, 1000))
def test_vanilla_gate_is_one_minus_first_weight(t, scale, seed):
    s, q, k, v = scores_and_qkv(t=t, seed=seed, scale=scale)
    a = torch.softmax(s, -1)
    g = method.vanilla_gate(s)
    assert torch.allclose(g, 1 - a[..., 0], atol=1e-12)
    assert torch.allclose(attention(q, k, v).gate, g, atol=1e-12)  # the shared block agrees


def test_vanilla_gate_precision_when_collapsed():
    # nearly all mass on key 0: 1 - A_0 in float32 underflows, the LSE form does not
    s = torch.tensor([[30.0, 0.0, 0.0]], dtype=torch.float32)
    g = method.vanilla_gate(s)
    exact = 2 * math.exp(-30.0) / (1 + 2 * math.exp(-30.0))
    assert abs(float(g) - exact) / exact < 1e-5
    assert float(1 - torch.softmax(s, -1)[..., 0]) == 0.0


def test_sink_gate_matches_weights_and_validates():
    s, q, k, v = scores_and_qkv()
    sink = torch.tensor([0.5, -1.0, 3.0], dtype=torch.float64)
    res = attention(q, k, v, variant="sink", sink_logit=sink, need_weights=True)
    assert torch.allclose(method.sink_gate(res.lse, sink), res.weights.sum(-1), atol=1e-12)
    with pytest.raises(ValueError, match="sink_logit"):
        method.sink_gate(res.lse, sink[:2])


def test_moe_decomposition_exact_only_with_value_drain():
    _, q, k, v = scores_and_qkv()
    v0 = v.clone()
    v0[:, :, 0] = 0
    res = attention(q, k, v0, need_weights=True)
    g, e = method.moe_decomposition(res.weights, v0)
    assert torch.allclose(res.out, g.unsqueeze(-1) * e, atol=1e-12)
    res2 = attention(q, k, v, need_weights=True)
    g2, e2 = method.moe_decomposition(res2.weights, v)
    assert not torch.allclose(res2.out, g2.unsqueeze(-1) * e2, atol=1e-6)


def test_importance_cv_and_skip():
    gates = torch.zeros(2, 1, 4, 5)
    gates[..., 1:] = torch.tensor([0.1, 0.2, 0.3, 0.4]).view(1, 1, 4, 1)
    gates[..., 0] = 0.9  # position 0 is excluded
    imp = method.head_importance(gates)
    assert torch.allclose(imp, torch.tensor([[0.1, 0.2, 0.3, 0.4]] * 2))
    x = torch.tensor([0.1, 0.2, 0.3, 0.4])
    assert torch.allclose(method.layer_cv(imp), (x.std(unbiased=False) / (x.mean() + 1e-6)).expand(2))
    with pytest.raises(ValueError, match="gates"):
        method.head_importance(gates[0])
    with pytest.raises(ValueError, match="H >= 2"):
        method.layer_cv(imp[:, :1])


def test_load_balance_loss_values_and_shared_heads():
    imp = torch.tensor([[0.9, 0.1, 0.1, 0.1], [0.5, 0.5, 0.5, 0.5]])
    full = method.load_balance_loss(imp, 1.0, shared=0, eps=0.0)
    cv0 = imp[0].std(unbiased=False) / imp[0].mean()
    assert torch.isclose(full, 4 * cv0**2)
    # excluding the dominant head leaves balanced routed heads: zero loss
    assert float(method.load_balance_loss(imp, 1.0, shared=1)) < 1e-9
    assert method.routed_mask(imp, 1)[0].tolist() == [False, True, True, True]
    with pytest.raises(ValueError, match="shared"):
        method.load_balance_loss(imp, 1.0, shared=3)
    with pytest.raises(ValueError, match="lam"):
        method.load_balance_loss(imp, -1.0)


def test_aux_loss_gradient_matches_finite_differences():
    torch.manual_seed(0)
    imp = torch.rand(2, 4, dtype=torch.float64) + 0.1
    imp.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x: method.load_balance_loss(x, 0.3), (imp,))


def test_aux_loss_gradient_flows_to_sink_logits_and_reduces_cv():
    torch.manual_seed(0)
    model = baselines.make_model("sink", 16, 4, 1, 8)
    idx = torch.randint(0, 257, (4, 8))
    with torch.no_grad():
        model.blocks[0].attn.sink.copy_(torch.tensor([3.0, -2.0, 0.0, 1.0]))
    _, _, aux, imp = method.sink_aware_loss(model, idx, lam=1.0)
    aux.backward()
    assert model.blocks[0].attn.sink.grad.abs().sum() > 0
    opt = torch.optim.SGD([model.blocks[0].attn.sink], lr=0.5)
    cv0 = float(method.layer_cv(imp.detach()).mean())
    for _ in range(20):
        opt.zero_grad()
        method.sink_aware_loss(model, idx, lam=1.0)[2].backward()
        opt.step()
    cv1 = float(method.layer_cv(method.sink_aware_loss(model, idx)[3].detach()).mean())
    assert cv1 < 0.5 * cv0


def test_switch_loss_minimal_when_balanced():
    balanced = torch.full((1, 2, 4, 6), 0.5) + 1e-3 * torch.arange(4).view(1, 1, 4, 1).roll(1, 2)
    skew = torch.zeros(1, 2, 4, 6)
    skew[:, :, 0] = 1.0
    assert method.switch_balance_loss(skew, 1.0) > method.switch_balance_loss(balanced, 1.0)


def test_corpus_and_batches():
    c = corpus.load_corpus(200_000)
    assert c.train.numel() > 4096 and c.val.numel() > 4096 and c.shift.numel() > 4096
    assert int(c.train.max()) < 256
    b = corpus.sample_batch(c.train, 5, 16, torch.Generator().manual_seed(0))
    assert b.shape == (5, 16) and torch.all(b[:, 0] == corpus.BOS) and int(b[:, 1:].max()) < 256
    with pytest.raises(ValueError, match="context"):
        corpus.sample_batch(c.train, 5, 1)
    with pytest.raises(ValueError, match="split"):
        c.split("test")
    with pytest.raises(ValueError, match="max_bytes"):
        corpus.load_corpus(10)


def test_synthetic_fallback_is_deterministic():
    c1 = corpus.load_corpus(5000, synthetic=True)
    assert c1.source == "synthetic-markov" and c1.train.numel() == 5000
    assert torch.equal(c1.train, corpus.load_corpus(5000, synthetic=True).train)


def test_gate_identity_check_meets_c1():
    out = experiment.gate_identity_check("cpu", 0)
    assert out["max_err_f32"] < 1e-5 and out["max_err_f64"] < 1e-12 and out["moe_rel_err_f32"] < 1e-5


def test_tiny_experiment_runs_and_claims_evaluate():
    cfg = dict(experiment.CONFIGS["quick"], steps=4, ft_steps=2, eval_batch=8, batch=4, log_every=2,
               variants=["vanilla", "sink"], max_bytes=100_000, lams=[0.0, 0.01, 0.1], c5_lams=[0.01],
               backcopy_steps=3, backcopy_every=2, control_lam=0.1)
    r = experiment.run(cfg, "cpu", 0)
    assert set(r["runs"]) == {"vanilla", "sink"} and r["seconds"] > 0
    assert [p["step"] for p in r["backcopy"]["points"]] == [1, 2, 3] and r["backcopy"]["final"]["step"] == 3
    assert set(r["c5"]) == {"vanilla", "sink"} and r["c5"]["sink"]["lam"] == 0.01
    ev = r["runs"]["vanilla"]["lam=0"][0]
    assert len(ev["imp"]) == 2 and len(ev["imp"][0]) == 4 and "spearman_imp_ablation" in ev
    assert set(r["c6"]) == {"m=0", "m=1", "control_lam0"}
    assert r["backcopy"]["last_mean"]["steps"] == [1, 2, 3] and r["backcopy"]["last_mean"]["n"] == 3
    assert set(r["control"]["variants"]) == {"vanilla", "sink"} and r["control"]["balance"] == "norm"
    for c in claims.CLAIMS:
        assert math.isfinite(c.metric(r)), c.id
        if c.control is not None:
            assert math.isfinite(c.control.metric(r)), c.control.id


def test_headlines_are_gated_and_controlled():
    heads = [c for c in claims.CLAIMS if c.headline]
    assert {c.id for c in heads} == {"C4_aux_balances_heads", "C5_bpb_not_worse"}
    assert all(c.requires is claims.HEADS_COLLAPSED and c.control is not None and c.quote for c in heads)


def test_norm_balance_control_is_a_different_loss():
    torch.manual_seed(0)
    model = baselines.make_model("vanilla", 16, 4, 1, 12)
    idx = torch.randint(0, 256, (3, 12))
    g_total, lm, g_aux, imp = method.sink_aware_loss(model, idx, lam=0.1, balance="gate")
    n_total, lm2, n_aux, imp2 = method.sink_aware_loss(model, idx, lam=0.1, balance="norm")
    assert torch.equal(lm, lm2) and torch.equal(imp, imp2) and not torch.isclose(g_aux, n_aux)
    assert float(method.sink_aware_loss(model, idx, lam=0.0, balance="norm")[2]) == 0.0
    with pytest.raises(ValueError, match="balance"):
        method.sink_aware_loss(model, idx, lam=0.1, balance="both")


def test_backcopy_last_mean_reads_the_tail_of_the_curve():
    def point(step, idle, copy, v0, z):
        return {"step": step, "sink_head": [0, 1], "a0_non_trigger": [[0.0, idle]], "a0_trigger": [[0.0, copy]],
                "sink_head_v0_ratio": v0, "zero_v0_rel": z}

    pts = [point(1, 0.9, 0.1, 1.0, 1.0), point(2, 0.2, 0.1, 0.2, 0.02), point(3, 0.4, 0.1, 0.4, 0.04)]
    m = experiment.backcopy_last_mean(pts, 2)
    assert m["steps"] == [2, 3] and math.isclose(m["sink_share"], 0.3) and math.isclose(m["gate_contrast"], 3.0)
    assert math.isclose(m["sink_head_v0_ratio"], 0.3) and math.isclose(m["zero_v0_rel"], 0.03)
    with pytest.raises(ValueError):
        experiment.backcopy_last_mean([], 2)


def test_no_import_circle_between_backcopy_and_experiment():
    import ast
    import pathlib

    src = pathlib.Path(experiment.__file__).with_name("backcopy.py").read_text()
    names = {n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom) and n.module}
    assert not any(m.endswith("experiment") for m in names), names


def test_experiment_value_errors():
    with pytest.raises(ValueError, match="lacks the key.*d_model"):
        experiment.run({"steps": 3}, "cpu", 0)
    with pytest.raises(ValueError, match="lams"):
        experiment.run(dict(experiment.CONFIGS["quick"], lams=[0.1]), "cpu", 0)
    with pytest.raises(ValueError, match="seed"):
        experiment.run(experiment.CONFIGS["quick"], "cpu", -1)
    with pytest.raises(ValueError, match="variant"):
        baselines.make_model("flash", 16, 4, 1, 8)


def test_explorer_controls_change_figure():
    from icml26.viz import signature

    base = signature(explore.plot_sink_explorer())
    assert signature(explore.plot_sink_explorer(sink_logit=4.0)) != base
    with pytest.raises(ValueError, match="variant"):
        explore.plot_sink_explorer(variant="linear")
    with pytest.raises(ValueError, match="v0_scale"):
        explore.toy_head(v0_scale=-1)


def test_backcopy_claims_read_the_sink_head():
    """The C2 Bigram-Backcopy metrics read the head with the largest non-trigger BOS share, and the premise gates
    them: a run whose heads never sink reports premise_not_met, not a pass."""
    final = {"step": 6, "sink_head": [0, 1], "a0_non_trigger": [[0.05, 0.6]], "a0_trigger": [[0.04, 0.1]],
             "sink_head_v0_ratio": 0.2, "zero_v0_rel": 0.001}
    r = {"backcopy": {"final": final, "last_mean": experiment.backcopy_last_mean([final], 4)}}
    assert claims.bc_sink_share(r) == 0.6 and claims.bc_gate_contrast(r) == pytest.approx(6.0)
    premise = claims.BACKCOPY_SINK
    assert premise.op == ">=" and premise.metric(r) >= premise.threshold_at("standard") == 0.3
    assert premise.threshold_at("quick") is None  # no Bigram-Backcopy stage at quick
    idle = {**final, "a0_non_trigger": [[0.05, 0.06]]}
    r_none = {"backcopy": {"final": idle, "last_mean": experiment.backcopy_last_mean([idle], 4)}}
    assert premise.metric(r_none) < 0.3
    faded = {"backcopy": {"last_mean": experiment.backcopy_last_mean([final, idle], 4)}}  # the mean, not the end
    assert premise.metric(faded) == pytest.approx(0.33)
    needs = [c.id for c in claims.CLAIMS if c.requires is premise]
    assert needs == ["C2_backcopy_value_drain", "C2_backcopy_zero_v0_harmless", "C2_backcopy_gate_routes"]


def test_shipped_backcopy_models_load_and_sink():
    """Each shipped model loads with its checksum; the vanilla one trained without the aux loss has a real sink
    (its recorded final point is re-measured from the weights), and the explorer draws every control."""
    from icml26.papers.attention_sink import backcopy, trained
    from icml26.viz import signature

    for variant in trained.VARIANTS:
        for lam in trained.LAMS:
            model, meta = trained.load(variant, lam)
            assert meta["recipe"]["variant"] == variant and meta["recipe"]["lam"] == lam
            assert meta["recipe"]["seed"] >= 100  # a development seed, never an evaluation seed
    model, meta = trained.load("vanilla", 0.0)
    data = backcopy.held_out(meta["recipe"]["seed"], model.cfg.context)
    point = backcopy.sink_point(model, data["val"], data["triggers"], meta["recipe"]["sink_from"])
    final = meta["points"][-1]
    assert point["a0_non_trigger"][0] == pytest.approx(final["a0_non_trigger"][0], abs=1e-5)
    tail = experiment.backcopy_last_mean([{**point, "step": final["step"]}], 4)
    assert claims.bc_sink_share({"backcopy": {"last_mean": tail}}) >= 0.3
    base = signature(explore.plot_trained_explorer())
    for kw in (dict(head=1), dict(window=3), dict(variant="sink"), dict(lam=0.1), dict(variant="gated_head")):
        assert signature(explore.plot_trained_explorer(**kw)) != base, kw
    assert signature(explore.plot_emergence("vanilla", 0.0)) != signature(explore.plot_emergence("sink", 0.0))
    with pytest.raises(ValueError, match="head"):
        explore.plot_trained_explorer(head=2)
    with pytest.raises(ValueError, match="lam"):
        trained.load("vanilla", 0.5)


def test_make_weights_small_reproduces_itself(tmp_path):
    """``python -m ...make_weights --small`` trains all six recipes; a second run gives the same weights."""
    from icml26.nn.tiny_gpt import read_model
    from icml26.papers.attention_sink import make_weights, trained

    first = make_weights.main(["--out", str(tmp_path / "a"), "--small"])
    make_weights.main(["--out", str(tmp_path / "b"), "--small"])
    assert set(first) == {(v, lam) for v in trained.VARIANTS for lam in trained.LAMS}
    for (variant, lam), digest in first.items():
        a, meta = read_model(tmp_path / "a" / trained.filename(variant, lam), digest)
        b, _ = read_model(tmp_path / "b" / trained.filename(variant, lam))
        for x, y in zip(a.state_dict().values(), b.state_dict().values()):
            assert torch.allclose(x, y, atol=1e-6)
        assert meta["recipe"]["steps"] == make_weights.SMALL["steps"] and len(meta["points"]) == 3


def test_claims_well_formed():
    ids = [c.id for c in claims.CLAIMS]
    assert len(ids) == len(set(ids)) and len(ids) >= 10
    assert all(c.paper_slug() == "attention_sink" for c in claims.CLAIMS)
