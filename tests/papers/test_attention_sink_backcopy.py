"""Tests of the Bigram-Backcopy stream (the sink-emergence probe setting of the attention-sink paper)."""

import pytest
import torch

from icml26.papers.attention_sink.backcopy import backcopy_stream, emergence_curve


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


def test_emergence_curve_measures_after_the_first_every_kth_and_last_update():
    seen = []
    pts = emergence_curve(steps=12, every=5, seed=100, d_model=16, n_heads=2, n_layers=1, batch=4, context=24,
                          sink_from=4, on_point=seen.append)
    assert [p["step"] for p in pts] == [1, 5, 10, 12] and seen == pts
    for p in pts:
        assert 0 < p["a0_mean"] < 1 and p["v0_ratio"] > 0 and p["val_loss"] > 0
        assert len(p["a0_non_trigger"]) == 1 and len(p["a0_non_trigger"][0]) == 2
        assert all(0 <= a <= 1 for a in p["a0_trigger"][0] + p["a0_non_trigger"][0])
    assert pts[-1]["val_loss"] < pts[0]["val_loss"]  # it trains
    again = emergence_curve(steps=12, every=5, seed=100, d_model=16, n_heads=2, n_layers=1, batch=4, context=24,
                            sink_from=4)
    assert again == pts  # seeded end to end
