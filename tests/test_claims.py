import json

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.claims import Claim, ClaimFailed, append_records, evaluate, load_records, table, verify
from icml26.runtime import Runtime

RT = Runtime("quick", 0, torch.device("cpu"))


def claim(**kw):
    base = dict(id="c1", statement="x is large", metric=lambda r: r["x"], op=">=",
                threshold={"quick": 1.0, "standard": 2.0}, paper_value="3.0", source="Table 1", paper="demo")
    base.update(kw)
    return Claim(**base)


def test_pass_is_recorded_with_every_field(tmp_path):
    path = tmp_path / "r.jsonl"
    records = verify([claim()], {"x": 1.5}, RT, record=path, show=False)
    assert records[0]["outcome"] == "pass"
    saved = load_records(path)
    assert saved == records
    expected = {"paper", "claim", "statement", "measured", "op", "threshold", "outcome", "scale", "seed",
                "device", "paper_value", "source", "seconds", "version"}
    assert expected <= set(saved[0])
    assert saved[0]["paper"] == "demo" and saved[0]["threshold"] == 1.0 and saved[0]["measured"] == 1.5


def test_miss_raises_naming_claim_value_and_threshold(tmp_path):
    path = tmp_path / "r.jsonl"
    with pytest.raises(ClaimFailed, match=r"demo/c1: measured 0\.5, needs >= 1"):
        verify([claim()], {"x": 0.5}, RT, record=path, show=False)
    assert load_records(path)[0]["outcome"] == "miss"  # recorded before raising


def test_nan_never_passes():
    rec = evaluate([claim()], {"x": float("nan")}, RT)[0]
    assert rec["outcome"] == "miss"


def test_scale_without_threshold_is_not_checked():
    rec = evaluate([claim(threshold={"standard": 2.0})], {"x": 0.0}, RT)[0]
    assert rec["outcome"] == "not_checked" and rec["threshold"] is None and rec["measured"] == 0.0


def test_expected_miss_is_shown_but_does_not_fail_and_a_pass_fails_strictly():
    c = claim(expected_miss="does not reproduce at small scale")
    assert verify([c], {"x": 0.0}, RT, show=False)[0]["outcome"] == "expected_miss"
    with pytest.raises(ClaimFailed, match="remove the mark"):
        verify([c], {"x": 5.0}, RT, show=False)


@pytest.mark.parametrize("op,value,ok", [(">=", 1.0, True), (">", 1.0, False), ("<=", 1.0, True), ("<", 1.0, False)])
def test_operators_at_the_boundary(op, value, ok):
    rec = evaluate([claim(op=op)], {"x": value}, RT)[0]
    assert (rec["outcome"] == "pass") is ok


@pytest.mark.parametrize("kw,match", [
    ({"op": "=="}, "op must be"), ({"threshold": {}}, "threshold"), ({"threshold": {"ci": 1}}, "unknown scale"),
    ({"threshold": {"quick": float("nan")}}, "number"), ({"id": ""}, "id"), ({"metric": 3}, "callable"),
])
def test_bad_claims_are_value_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        claim(**kw)


def test_evaluate_validates_inputs():
    with pytest.raises(ValueError, match="mapping"):
        evaluate([claim()], [1, 2], RT)
    with pytest.raises(ValueError, match="at least one"):
        evaluate([], {"x": 1}, RT)
    with pytest.raises(ValueError, match="distinct"):
        evaluate([claim(), claim()], {"x": 1}, RT)


def test_paper_is_read_from_the_metric_module_when_not_given():
    def metric(r):
        return r["x"]

    metric.__module__ = "icml26.papers.ssn_games.claims"
    assert claim(paper=None, metric=metric).paper_slug() == "ssn_games"
    assert claim(paper=None).paper_slug() == "unknown"


def test_torn_last_line_is_skipped(tmp_path):
    path = tmp_path / "r.jsonl"
    append_records(path, evaluate([claim()], {"x": 2.0}, RT))
    with open(path, "a") as fh:
        fh.write('{"claim": "half')
    assert len(load_records(path)) == 1
    assert load_records(tmp_path / "absent.jsonl") == []


def test_table_lists_outcomes():
    text = table(evaluate([claim(), claim(id="c2", threshold={"standard": 1})], {"x": 2.0}, RT))
    assert "PASS" in text and "NOT CHECKED" in text and "c2" in text


@settings(max_examples=40, deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False, width=32), t=st.floats(-1e6, 1e6))
def test_outcome_agrees_with_the_operator(x, t):
    rec = evaluate([claim(threshold={"quick": t})], {"x": x}, RT)[0]
    assert (rec["outcome"] == "pass") == (float(x) >= t)
    json.dumps(rec)  # every record is JSON-serialisable


def test_expected_miss_per_scale_applies_only_at_that_scale():
    c = claim(expected_miss={"standard": "too small a model"})
    assert verify([c], {"x": 5.0}, RT, show=False)[0]["outcome"] == "pass"  # quick: expected to pass
    with pytest.raises(ClaimFailed, match="needs >= 1"):
        verify([c], {"x": 0.0}, RT, show=False)
    std = Runtime("standard", 0, torch.device("cpu"))
    rec = verify([c], {"x": 0.0}, std, show=False)[0]
    assert rec["outcome"] == "expected_miss" and rec["expected_miss"] == "too small a model"
    with pytest.raises(ClaimFailed, match="remove the mark"):
        verify([c], {"x": 9.0}, std, show=False)
    with pytest.raises(ValueError, match="without a threshold"):
        claim(expected_miss={"full": "x"})
