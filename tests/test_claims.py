import json
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26 import claim_view
from icml26.claims import (
    Claim,
    ClaimFailed,
    ClaimReport,
    Premise,
    RecordsError,
    aggregate,
    append_records,
    evaluate,
    failures,
    load_records,
    replace_records,
    seed_run,
    table,
    verdict_of,
    verify,
)
from icml26.runtime import Runtime

RT = Runtime("quick", 0, torch.device("cpu"))


def claim(**kw):
    base = dict(id="c1", statement="x is large", metric=lambda r: r["x"], op=">=",
                threshold={"quick": 1.0, "standard": 2.0}, kind="paper", paper_value="3.0", source="Table 1",
                paper="demo")
    base.update(kw)
    return Claim(**base)


SINK = Premise("sink_formed", "a sink formed: first-token attention >= 0.3", metric=lambda r: r["sink"], op=">=",
               threshold=0.3)


def seeds(c, xs, scale="standard", extra=None):
    """Per-seed runs of one claim for the values ``xs`` (seed i gets xs[i])."""
    runs = []
    for i, x in enumerate(xs):
        rt = Runtime(scale, i, torch.device("cpu"))
        runs.append(seed_run([c], {"x": x, **(extra[i] if extra else {})}, rt, seconds=1.0))
    return aggregate([c], runs, scale)[0]


def test_a_holding_claim_is_recorded_with_every_field(tmp_path):
    path = tmp_path / "r.jsonl"
    report = verify([claim()], {"x": 1.5}, RT, record=path)
    assert isinstance(report, ClaimReport) and report[0]["verdict"] == "reproduced"
    saved = load_records(path)
    assert saved == list(report)
    expected = {"paper", "claim", "kind", "statement", "requires", "op", "threshold", "scale", "seeds", "values",
                "outcomes", "mean", "spread", "verdict", "why", "device", "paper_value", "source", "seconds",
                "version", "threads"}
    assert expected <= set(saved[0])
    assert saved[0]["seeds"] == [0] and saved[0]["values"] == [1.5] and saved[0]["threshold"] == 1.0


def test_unexplained_miss_raises_naming_claim_value_and_threshold(tmp_path):
    path = tmp_path / "r.jsonl"
    with pytest.raises(ClaimFailed, match=r"demo/c1: claim \(no why at this scale\) measured 0\.5 on seed\(s\) 0, "
                                          r"needs >= 1"):
        verify([claim()], {"x": 0.5}, RT, record=path)
    rec = load_records(path)[0]  # recorded before raising
    assert rec["verdict"] == "not_reproduced" and rec["unexplained"]


def test_a_miss_with_a_why_is_a_result_not_a_failure_and_a_pass_is_fine_too():
    c = claim(why="the quick model is 4x smaller than the paper's; at standard it holds")
    rec = verify([c], {"x": 0.0}, RT)[0]
    assert rec["verdict"] == "not_reproduced" and not rec["unexplained"] and rec["why"].startswith("the quick")
    assert verify([c], {"x": 5.0}, RT)[0]["verdict"] == "reproduced"  # no stale-mark failure


def test_a_check_that_misses_always_fails_and_takes_no_why():
    with pytest.raises(ValueError, match="takes no why"):
        claim(kind="check", why="x")
    with pytest.raises(ClaimFailed, match="check measured"):
        verify([claim(kind="check")], {"x": 0.0}, RT)


def test_nan_never_holds_and_is_written_as_null(tmp_path):
    rec = evaluate([claim(why="w")], {"x": float("nan")}, RT)[0]
    assert rec["outcomes"] == ["misses"] and rec["mean"] is None
    path = tmp_path / "r.jsonl"
    append_records(path, [rec])
    assert "NaN" not in path.read_text() and json.loads(path.read_text())["values"] == [None]


def test_scale_without_threshold_is_not_checked_but_still_measured():
    rec = evaluate([claim(threshold={"standard": 2.0})], {"x": 0.0}, RT)[0]
    assert rec["verdict"] == "not_checked" and rec["threshold"] is None and rec["values"] == [0.0]
    rec = evaluate([claim(threshold={"standard": 2.0}, metric=lambda r: r["absent"])], {"x": 0.0}, RT)[0]
    assert rec["values"] == [None]


def test_a_checked_claim_whose_input_is_missing_raises_the_real_error():
    with pytest.raises(KeyError):
        evaluate([claim(metric=lambda r: r["absent"])], {"x": 0.0}, RT)


@pytest.mark.parametrize("xs,verdict", [([3, 4, 5], "reproduced"), ([3, 0, 5], "mixed"), ([0, 0, 1], "not_reproduced")])
def test_verdicts_over_seeds(xs, verdict):
    rec = seeds(claim(why="w"), xs)
    assert rec["verdict"] == verdict
    assert rec["seeds"] == [0, 1, 2] and rec["values"] == [float(x) for x in xs]
    assert math.isclose(rec["mean"], sum(xs) / 3)
    assert rec["spread"] == pytest.approx(torch.tensor([float(x) for x in xs]).std().item())


def test_a_mixed_claim_without_a_why_is_an_unexplained_miss():
    rec = seeds(claim(), [3, 0, 5])
    assert rec["verdict"] == "mixed" and rec["unexplained"]
    assert "seed(s) 1" in failures([rec])[0]


def test_premise_not_met_is_never_a_pass_and_shows_the_premise_number():
    c = claim(requires=SINK)
    rec = seeds(c, [5, 5, 5], extra=[{"sink": 0.01}, {"sink": 0.02}, {"sink": 0.0}])
    assert rec["verdict"] == "premise_not_met" and not rec["unexplained"]
    assert rec["requires"]["values"] == [0.01, 0.02, 0.0] and rec["requires"]["met"] == [False] * 3
    assert "sink_formed" in claim_view.text_table([rec]) and "0.01" in claim_view.text_table([rec])


def test_premise_met_on_some_seeds_counts_only_those():
    c = claim(requires=SINK, why="w")
    rec = seeds(c, [5, 5, 0], extra=[{"sink": 0.5}, {"sink": 0.0}, {"sink": 0.5}])
    assert rec["outcomes"] == ["holds", "premise_not_met", "misses"] and rec["verdict"] == "mixed"
    rec = seeds(c, [5, 5, 5], extra=[{"sink": 0.5}, {"sink": 0.0}, {"sink": 0.5}])
    assert rec["verdict"] == "reproduced_where_met"  # held on every seed whose premise was met: its own label


def test_premise_threshold_per_scale():
    p = Premise("p", "p", metric=lambda r: r["sink"], op=">=", threshold={"standard": 0.3})
    rec = evaluate([claim(requires=p)], {"x": 5, "sink": 0.0}, RT)[0]  # quick: premise not asked for
    assert rec["verdict"] == "reproduced"


def test_verdict_of_edge_cases():
    assert verdict_of([]) == "not_checked"
    assert verdict_of(["premise_not_met", "misses"]) == "not_reproduced"
    assert verdict_of(["holds"]) == "reproduced"


@pytest.mark.parametrize("op,value,ok", [(">=", 1.0, True), (">", 1.0, False), ("<=", 1.0, True), ("<", 1.0, False)])
def test_operators_at_the_boundary(op, value, ok):
    rec = evaluate([claim(op=op, why="w")], {"x": value}, RT)[0]
    assert (rec["verdict"] == "reproduced") is ok


@pytest.mark.parametrize("kw,match", [
    ({"op": "=="}, "op must be"), ({"threshold": {}}, "threshold"), ({"threshold": {"ci": 1}}, "unknown scale"),
    ({"threshold": {"quick": float("nan")}}, "number"), ({"id": ""}, "id"), ({"metric": 3}, "callable"),
    ({"kind": "identity"}, "kind"), ({"why": {"full": "x"}}, "without a threshold"), ({"why": " "}, "non-empty"),
    ({"requires": "sink"}, "Premise"), ({"threshold": {"quick": True}}, "number"),
])
def test_bad_claims_are_value_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        claim(**kw)


def test_kind_is_required():
    with pytest.raises(TypeError, match="kind"):
        Claim("c", "s", metric=lambda r: 1, op=">=", threshold={"quick": 1})


@pytest.mark.parametrize("kw,match", [({"op": "~"}, "op"), ({"threshold": "high"}, "number"),
                                      ({"metric": None}, "callable"), ({"id": ""}, "id")])
def test_bad_premises_are_value_errors(kw, match):
    base = dict(id="p", statement="s", metric=lambda r: 1.0, op=">=", threshold=0.3)
    base.update(kw)
    with pytest.raises(ValueError, match=match):
        Premise(**base)


def test_evaluate_and_aggregate_validate_inputs():
    with pytest.raises(ValueError, match="mapping"):
        evaluate([claim()], [1, 2], RT)
    with pytest.raises(ValueError, match="at least one"):
        evaluate([], {"x": 1}, RT)
    with pytest.raises(ValueError, match="distinct"):
        evaluate([claim(), claim()], {"x": 1}, RT)
    with pytest.raises(ValueError, match="Claim objects"):
        evaluate(["c1"], {"x": 1}, RT)
    run = seed_run([claim()], {"x": 1}, RT, 1.0)
    with pytest.raises(ValueError, match="distinct seeds"):
        aggregate([claim()], [run, run], "quick")
    with pytest.raises(ValueError, match="at least one seed"):
        aggregate([claim()], [], "quick")


def test_paper_is_read_from_the_metric_module_when_not_given():
    def metric(r):
        return r["x"]

    metric.__module__ = "icml26.papers.ssn_games.claims"
    assert claim(paper=None, metric=metric).paper_slug() == "ssn_games"
    assert claim(paper=None).paper_slug() == "unknown"


def test_torn_last_line_is_skipped_with_a_warning_and_a_corrupt_middle_line_is_named(tmp_path):
    path = tmp_path / "r.jsonl"
    append_records(path, evaluate([claim()], {"x": 2.0}, RT))
    with open(path, "a") as fh:
        fh.write('{"claim": "half')
    with pytest.warns(UserWarning, match="torn last line"):
        assert len(load_records(path)) == 1
    assert load_records(tmp_path / "absent.jsonl") == []
    bad = tmp_path / "bad.jsonl"
    good = json.dumps(evaluate([claim()], {"x": 2.0}, RT)[0])
    bad.write_text(good + "\nnot json at all}\n" + good + "\n")
    with pytest.raises(RecordsError, match=r"bad.jsonl:2"):
        load_records(bad, strict=True)
    with pytest.warns(UserWarning, match=r"bad.jsonl:2"):
        assert len(load_records(bad)) == 2


def test_old_one_seed_records_are_read_as_new_ones(tmp_path):
    old = {"claim": "c", "device": "cpu", "expected_miss": "too small", "measured": 0.5, "op": ">=",
           "outcome": "expected_miss", "paper": "demo", "paper_value": "", "scale": "standard", "seconds": 3.0,
           "seed": 0, "source": "", "statement": "s", "threshold": 1.0, "version": "0.1.0"}
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n")
    rec = load_records(path)[0]
    assert rec["verdict"] == "not_reproduced" and rec["values"] == [0.5] and rec["seeds"] == [0]
    assert rec["why"] == "too small" and rec["outcomes"] == ["misses"] and rec["kind"] == "paper"


def test_replace_records_keeps_other_papers_and_marks_a_changed_verdict(tmp_path):
    path = tmp_path / "standard.jsonl"
    other = {**seeds(claim(why="w"), [3, 3, 3]), "paper": "other"}
    first = seeds(claim(why="w"), [3, 3, 3])
    replace_records(path, [other, first])
    replace_records(path, [seeds(claim(why="w"), [3, 0, 3])])
    recs = load_records(path)
    assert [r["paper"] for r in recs] == ["other", "demo"]
    assert recs[1]["verdict"] == "mixed" and recs[1]["previous_verdict"] == "reproduced"
    replace_records(path, [seeds(claim(why="w"), [3, 0, 3])])
    assert "previous_verdict" not in load_records(path)[1]  # unchanged since the last record


def test_tables_put_paper_claims_before_checks_and_show_why():
    recs = evaluate([claim(why="too small a model"), claim(id="c2", kind="check", threshold={"quick": 0.0}),
                     claim(id="c3", threshold={"standard": 1})], {"x": 0.5}, RT)
    text = table(recs)
    assert text.index("paper claims") < text.index("sanity checks") and "NOT CHECKED" in text
    assert "why c1: too small a model" in text
    page = ClaimReport(recs)._repr_html_()
    assert "<svg" in page and "Sanity checks" in page and "too small a model" in page


def test_html_is_escaped():
    rec = evaluate([claim(statement="<b>bold</b>", why="<script>")], {"x": 0.5}, RT)[0]
    page = claim_view.html_table([rec])
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page and "<script>" not in page


def test_figure_draws_a_dot_per_seed_and_the_threshold():
    rec = seeds(claim(why="w"), [3, 0.5, 5])
    svg = claim_view.figure_svg(rec)
    assert svg.count("<circle") == 3 and "stroke-dasharray" in svg and "mean" in svg
    assert "no finite value" in claim_view.figure_svg({**rec, "values": [None], "threshold": None})


@settings(max_examples=40, deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False, width=32), t=st.floats(-1e6, 1e6))
def test_outcome_agrees_with_the_operator(x, t):
    rec = evaluate([claim(threshold={"quick": t}, why="w")], {"x": x}, RT)[0]
    assert (rec["verdict"] == "reproduced") == (float(x) >= t)
    json.dumps(rec, allow_nan=False)  # every record is strict JSON


def test_why_per_scale_applies_only_at_that_scale():
    c = claim(why={"standard": "too small a model"})
    with pytest.raises(ClaimFailed, match="needs >= 1"):
        verify([c], {"x": 0.0}, RT)
    std = Runtime("standard", 0, torch.device("cpu"))
    rec = verify([c], {"x": 0.0}, std)[0]
    assert rec["verdict"] == "not_reproduced" and rec["why"] == "too small a model"


def test_recorded_whys_follow_claims_py_without_a_rerun(tmp_path):
    import importlib

    from icml26 import registry
    from icml26.claims import load_records, replace_records, with_current_whys

    paper = next(p for p in registry.PAPERS if p.slug == "scene_change")
    claims = importlib.import_module(f"{paper.module}.claims").CLAIMS
    c = next(c for c in claims if c.kind == "paper" and c.why_at("standard"))
    rec = {"paper": "scene_change", "claim": c.id, "scale": "standard", "kind": "paper", "op": c.op,
           "threshold": float(c.threshold["standard"]), "seeds": [0], "values": [0.0], "outcomes": ["misses"],
           "verdict": "not_reproduced", "why": None, "unexplained": True, "requires": None}
    path = tmp_path / "standard.jsonl"
    replace_records(path, [rec])
    [now] = with_current_whys(load_records(path))
    assert now["why"] == c.why_at("standard") and now["unexplained"] is False and now["values"] == [0.0]
    stale = {**rec, "threshold": rec["threshold"] + 1.0}
    assert with_current_whys([stale])[0]["why"] is None  # a changed threshold: the record keeps its own why
