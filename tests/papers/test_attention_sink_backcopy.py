"""Tests of the Bigram-Backcopy stream (the sink-emergence probe setting of the attention-sink paper)."""

import pytest
import torch

from icml26.papers.attention_sink.backcopy import backcopy_stream, held_out, sink_point, train_backcopy


def test_backcopy_rule_and_bigram_support():
    out = backcopy_stream(5000, vocab=32, n_triggers=3, fanout=4, seed=101)
    x, trig = out["tokens"], torch.tensor(out["triggers"])
    assert x.dtype == torch.long and x.shape == (5000,) and int(x.min()) >= 0 and int(x.max()) < 32
    after = torch.isin(x[1:-1], trig)
    assert after.any()
    assert torch.equal(x[2:][after], x[:-2][after])  # a trigger's successor copies the token before it
    free = ~after  # the others follow the bigram chain: at most `fanout` successors per token
    pairs = {(int(a), int(b)) for a, b in zip(x[1:-1][free], x[2:][free])}
    for a in range(32):
        assert len({b for p, b in pairs if p == a}) <= 4
    assert torch.equal(backcopy_stream(500, seed=3)["tokens"], backcopy_stream(500, seed=3)["tokens"])


@pytest.mark.parametrize("kw", [dict(n=8), dict(vocab=300), dict(n_triggers=64), dict(fanout=65), dict(seed=-1)])
def test_backcopy_value_errors(kw):
    args = dict(n=100, vocab=64, n_triggers=3, fanout=4, seed=0) | kw
    with pytest.raises(ValueError):
        backcopy_stream(**args)


def test_train_backcopy_measures_after_the_first_every_kth_and_last_update():
    seen = []
    model, pts = train_backcopy(steps=12, every=5, seed=100, d_model=16, n_heads=2, n_layers=1, batch=4, context=24,
                                sink_from=4, on_point=seen.append)
    assert [p["step"] for p in pts] == [1, 5, 10, 12] and seen == pts
    for p in pts:
        assert 0 < p["a0_mean"] < 1 and p["v0_ratio"] > 0 and p["val_loss"] > 0 and p["sink_head_v0_ratio"] > 0
        assert len(p["a0_non_trigger"]) == 1 and len(p["a0_non_trigger"][0]) == 2
        assert all(0 <= a <= 1 for a in p["a0_trigger"][0] + p["a0_non_trigger"][0])
        layer, head = p["sink_head"]
        assert p["a0_non_trigger"][layer][head] == max(p["a0_non_trigger"][0])
    assert pts[-1]["val_loss"] < pts[0]["val_loss"]  # it trains
    again, pts2 = train_backcopy(steps=12, every=5, seed=100, d_model=16, n_heads=2, n_layers=1, batch=4,
                                 context=24, sink_from=4)
    assert pts2 == pts  # seeded end to end
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), again.state_dict().values()))
    data = held_out(100, 24)
    assert sink_point(model, data["val"], data["triggers"], 4) == {k: v for k, v in pts[-1].items() if k != "step"}


def test_sink_point_reads_a_planted_sink():
    """A head whose first-token score is pushed up on non-trigger queries only is found as the sink head, with its
    non-trigger share above its trigger share (the active-dormant signature the C2 Bigram-Backcopy claims read)."""
    data = held_out(3, 24, n=8)
    torch.manual_seed(0)
    from icml26.papers.attention_sink.baselines import make_model

    model = make_model("vanilla", 16, 2, 1, 24)
    is_trig = torch.isin(data["val"], data["triggers"])

    def hook(_m, q, k, v):  # head 1: score 40 on BOS from non-trigger queries, 0 elsewhere (after RoPE)
        q, k = q.clone(), k.clone()
        d = q.shape[-1]
        q[:, 1] = (~is_trig).to(q.dtype)[:, :, None] * 40.0 / d**0.5
        k[:, 1] = 0.0
        k[:, 1, 0] = 1.0
        return q, k, v

    remove = model.attentions[0].add_qkv_hook(hook)
    try:
        p = sink_point(model, data["val"], data["triggers"], 4)
    finally:
        remove()
    assert p["sink_head"] == [0, 1]
    assert p["a0_non_trigger"][0][1] > 0.9 > 0.3 > p["a0_trigger"][0][1]
