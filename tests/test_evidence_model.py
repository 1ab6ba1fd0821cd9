"""The evidence model (issue 61): noise margins and ties, negative controls, the extension kind, premise labels,
records that re-run, the why rule, rescoring and the docs' results block, each on small hand-made records."""

import json

import pytest
import torch

from icml26 import claim_view, report
from icml26.claims import (
    Claim,
    Control,
    Premise,
    aggregate,
    judge,
    margins_from_runs,
    rerun_mismatches,
    rescore,
    seed_run,
    verdict_of,
    why_problems,
    write_diagnostic,
    write_margins,
)
from icml26.runtime import Runtime


def claim(**kw):
    base = dict(id="c1", statement="ours / baseline is below 1", metric=lambda r: r["x"], op="<",
                threshold={"quick": 1.0, "standard": 1.0}, kind="paper", source="abstract", paper="demo")
    base.update(kw)
    return Claim(**base)


def runs(c, xs, scale="standard", extra=None, margin=0.0, first_seed=0):
    out = []
    for i, x in enumerate(xs):
        rt = Runtime(scale, first_seed + i, torch.device("cpu"))
        out.append(seed_run([c], {"x": x, **(extra[i] if extra else {})}, rt, seconds=1.0,
                            margins={c.id: {"margin": margin}} if margin else {}))
    return out


def record(c, xs, margin=0.0, **kw):
    margins = {c.id: {"margin": margin, "runs": 5, "seeds": [100, 101, 102, 103, 104], "how": "sd"}} if margin else {}
    return aggregate([c], runs(c, xs, margin=margin, **kw), "standard", margins=margins)[0]


def test_judge_calls_a_value_inside_the_margin_a_tie():
    assert judge(0.95, "<", 1.0, 0.02) == "holds"
    assert judge(0.99, "<", 1.0, 0.02) == "tie" and judge(1.01, "<", 1.0, 0.02) == "tie"
    assert judge(1.05, "<", 1.0, 0.02) == "misses"
    assert judge(1.05, ">=", 1.0, 0.02) == "holds" and judge(0.97, ">", 1.0, 0.02) == "misses"
    assert judge(0.99, "<", 1.0) == "holds"  # no margin: the bare threshold
    with pytest.raises(ValueError, match="margin"):
        judge(1.0, "<", 1.0, -0.1)


def test_a_ratio_inside_the_paired_noise_is_a_tie_not_a_win():
    # data_mixing's C5_beats_bimix_optimum: 0.997 / 0.982 / 0.997 against a 2-3 % training noise
    rec = record(claim(why="inside the noise"), [0.997, 0.982, 0.997], margin=0.025)
    assert rec["outcomes"] == ["tie", "tie", "tie"] and rec["verdict"] == "tie"
    assert rec["margin"]["margin"] == 0.025 and rec["margin"]["runs"] == 5
    assert claim_view.label(rec) == "TIE (WITHIN NOISE)" and "± 0.025" in claim_view.threshold_text(rec)
    assert record(claim(), [0.9, 0.8, 0.85], margin=0.025)["verdict"] == "reproduced"
    assert record(claim(why="w"), [0.9, 0.99, 0.85], margin=0.025)["verdict"] == "mixed"
    assert record(claim(why="w"), [0.99, 1.2, 1.0], margin=0.025)["verdict"] == "not_reproduced"


def test_a_tie_without_a_why_fails_the_run():
    rec = record(claim(), [0.997, 0.982, 0.997], margin=0.025)
    assert rec["unexplained"]


def test_a_control_that_passes_too_makes_the_claim_uninformative():
    ctrl = Control("topk_correction", "the top-K correction in CA-PG's place", lambda r: r["ctrl"])
    c = claim(headline=True, quote="CA-PG converges faster.", control=ctrl)
    rec = record(c, [0.5, 0.6, 0.55], extra=[{"ctrl": 0.6}, {"ctrl": 1.3}, {"ctrl": 1.2}])
    assert rec["verdict"] == "uninformative" and rec["control"]["outcomes"] == ["holds", "misses", "misses"]
    assert "cannot tell" in claim_view.control_text(rec)
    rec = record(c, [0.5, 0.6, 0.55], extra=[{"ctrl": 1.4}, {"ctrl": 1.3}, {"ctrl": 1.2}])
    assert rec["verdict"] == "reproduced" and rec["control"]["measured"] and rec["headline"]
    rec = record(c, [0.5, 0.6, 0.55])  # the control arm is not in the results: not measured, verdict stands
    assert rec["verdict"] == "reproduced" and not rec["control"]["measured"]
    assert "not measured" in claim_view.control_text(rec)


def test_a_headline_needs_a_quote_and_a_control_and_a_check_takes_neither():
    ctrl = Control("none", "without the ingredient", lambda r: r["c"])
    with pytest.raises(ValueError, match="quote"):
        claim(headline=True, control=ctrl)
    with pytest.raises(ValueError, match="control"):
        claim(headline=True, quote="a sentence")
    with pytest.raises(ValueError, match="kind must be 'paper'"):
        claim(headline=True, quote="s", control=ctrl, kind="extension")
    with pytest.raises(ValueError, match="takes no control"):
        claim(kind="check", control=ctrl)


def test_an_extension_is_recorded_and_shown_but_never_counted_as_the_papers():
    recs = [record(claim(id="p"), [0.5]), record(claim(id="e", kind="extension"), [0.5]),
            record(claim(id="k", kind="check"), [0.5])]
    counts = claim_view.counts(recs)
    assert counts["reproduced"] == 1 and counts["extensions"] == 1 and counts["checks"] == 1
    assert claim_view.score_cell(recs) == "1 ✓"
    text = claim_view.text_table(recs)
    assert text.index("other paper claims") < text.index("extensions (ours") < text.index("sanity checks")


def test_headline_claims_open_the_tables_and_the_readme_line():
    ctrl = Control("wrong_form", "a law without its capacity term", lambda r: r["ctrl"])
    head = record(claim(id="h", headline=True, quote="Lower error.", control=ctrl), [0.5, 0.6],
                  extra=[{"ctrl": 1.2}, {"ctrl": 1.3}])
    other = record(claim(id="o"), [0.5, 0.6])
    text = claim_view.text_table([other, head])
    assert text.index("headline claims") < text.index("other paper claims")
    line = claim_view.headline_summary([other, head])
    assert line.startswith("reproduced: h 0.5 to 0.6") and "control wrong_form 1.2 to 1.3" in line
    assert "★" in claim_view.html_table([other, head])


def test_premise_failing_on_one_seed_gets_its_own_label():
    sink = Premise("sink", "a sink formed", lambda r: r["sink"], ">=", 0.3)
    rec = record(claim(requires=sink), [0.5, 0.5, 0.5], extra=[{"sink": 0.0}, {"sink": 0.5}, {"sink": 0.5}])
    assert rec["verdict"] == "reproduced_where_met"
    assert claim_view.held(rec) == "2/2 evaluable (premise not met on seed 0)"
    assert verdict_of(["premise_not_met", "holds", "misses"]) == "mixed"


def test_margins_are_the_spread_of_development_seed_reruns(tmp_path):
    c = claim()
    dev = runs(c, [0.9, 0.95, 1.0, 0.85], first_seed=100)
    entries = margins_from_runs([c], dev, "standard", paper="demo")
    assert len(entries) == 1 and abs(entries[0]["margin"] - 0.06455) < 1e-4 and entries[0]["runs"] == 4
    with pytest.raises(ValueError, match="development seeds"):
        margins_from_runs([c], runs(c, [0.9, 0.95, 1.0]), "standard")
    path = write_margins(entries, tmp_path / "margins.jsonl")
    assert json.loads(path.read_text())["claim"] == "c1"


def test_a_record_that_no_longer_reruns_is_named():
    old = record(claim(), [0.5, 0.6, 0.7])
    same = aggregate([claim()], runs(claim(), [0.5]), "standard")
    assert rerun_mismatches(same, [old]) == []
    moved = aggregate([claim()], runs(claim(), [0.52]), "standard")
    problems = rerun_mismatches(moved, [old])
    assert len(problems) == 1 and "demo/c1" in problems[0] and "recorded 0.5" in problems[0]
    assert rerun_mismatches(moved, [old], rtol=0.05) == []
    other = aggregate([claim(id="new")], runs(claim(id="new"), [0.5]), "standard")
    assert "no record" in rerun_mismatches(other, [old])[0]


def test_a_timed_claim_reruns_within_its_declared_tolerance_only():
    from icml26.claims import TIMED_RERUN_RTOL, rerun_tolerances

    timed = claim(rerun_rtol=TIMED_RERUN_RTOL)
    old = record(timed, [2.9, 3.0, 3.1])
    slower = aggregate([timed], runs(timed, [2.7]), "standard")
    assert rerun_mismatches(slower, [old])  # the default tolerance is bit-for-bit
    assert rerun_mismatches(slower, [old], claim_rtol=rerun_tolerances([timed, claim(id="other")])) == []
    far = aggregate([timed], runs(timed, [9.0]), "standard")
    assert f"rtol {TIMED_RERUN_RTOL:g}" in rerun_mismatches(far, [old], claim_rtol={"c1": TIMED_RERUN_RTOL})[0]
    with pytest.raises(ValueError, match="rerun_rtol"):
        claim(rerun_rtol=0.0)
    with pytest.raises(ValueError, match="claim_rtol"):
        rerun_mismatches(slower, [old], claim_rtol={"c1": -1.0})


def test_a_why_that_blames_training_without_a_diagnostic_run_is_refused(tmp_path):
    c = claim(why="the run is too short to converge")
    assert "names no diagnostic run" in why_problems([c], "demo", {})[0]
    cited = claim(why="the run is too short: at 2x steps it holds", measured_at="demo-2x")
    assert "not a demo run" in why_problems([cited], "demo", {})[0]
    path = tmp_path / "diagnostics.jsonl"
    write_diagnostic({"id": "demo-2x", "paper": "demo", "scale": "standard", "seed": 100,
                      "overrides": {"steps": 800}}, path)
    from icml26.claims import load_diagnostics

    assert why_problems([cited], "demo", load_diagnostics(path)) == []
    assert why_problems([claim(why="TFT wins on every seed")], "demo", {}) == []


def test_rescore_rederives_verdicts_from_stored_values(tmp_path, monkeypatch):
    import icml26.claims as claims_module

    stored = record(claim(), [0.997, 0.982, 0.997])
    assert stored["verdict"] == "reproduced"  # judged with no margin
    now = claim(why="inside the paired-training noise")
    monkeypatch.setattr(claims_module, "_claims_by_id", lambda paper: {"c1": now})
    write_margins([{"paper": "demo", "claim": "c1", "scale": "standard", "margin": 0.02, "runs": 5,
                    "seeds": [100, 101, 102, 103, 104], "how": "sd"}], tmp_path / "margins.jsonl")
    (new,), notes = rescore([stored], tmp_path)
    assert notes == [] and new["verdict"] == "tie" and new["previous_verdict"] == "reproduced"
    assert new["values"] == stored["values"] and new["why"] == "inside the paired-training noise"
    monkeypatch.setattr(claims_module, "_claims_by_id", lambda paper: {})
    assert rescore([stored], tmp_path)[0] == []  # a claim that no longer exists is dropped



def test_rescore_takes_a_new_premise_from_the_claim_that_measures_its_metric(tmp_path, monkeypatch):
    """A premise added after recording, whose metric is another claim's, is re-derived from that claim's record;
    a premise with a metric no record measured stays a note ("record it again")."""
    import icml26.claims as claims_module

    size = lambda r: r["x"]  # noqa: E731
    sibling = claim(id="c0", statement="the imbalance exists", metric=size, op=">=")
    stored_sibling = record(sibling, [0.5, 0.1, 0.4])
    stored = record(claim(), [0.5, 0.6, 0.7])
    now = claim(requires=Premise("imbalanced", "an imbalance to correct", size, ">=", 0.3))
    monkeypatch.setattr(claims_module, "_claims_by_id", lambda paper: {"c0": sibling, "c1": now})
    new, notes = rescore([stored_sibling, stored], tmp_path)
    assert notes == []
    c1 = next(r for r in new if r["claim"] == "c1")
    assert c1["requires"]["values"] == [0.5, 0.1, 0.4] and c1["requires"]["met"] == [True, False, True]
    assert c1["outcomes"] == ["holds", "premise_not_met", "holds"]
    other = claim(requires=Premise("imbalanced", "an imbalance to correct", lambda r: r["z"], ">=", 0.3))
    monkeypatch.setattr(claims_module, "_claims_by_id", lambda paper: {"c0": sibling, "c1": other})
    _, notes = rescore([stored_sibling, stored], tmp_path)
    assert notes and "has no recorded values" in notes[0]

def test_the_docs_block_is_rendered_and_a_stale_one_rewritten(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    start, end = report.DOC_MARKERS
    page = folder / "data_mixing.md"
    page.write_text(f"# data mixing\n\n{start}\nours 0.997 (typed by hand)\n{end}\n", encoding="utf-8")
    changed = report.update_docs(folder=folder)
    assert changed == [page]
    text = page.read_text(encoding="utf-8")
    assert "typed by hand" not in text and "Rendered from `results/*.jsonl`" in text
    assert report.update_docs(folder=folder) == []


def test_recording_never_drops_evidence_to_a_run_over_fewer_seeds(tmp_path):
    """An interrupted run (or one whose seed 1 failed) records seed 0 only: the three-seed record stays."""
    from icml26.claims import load_records, replace_records

    path = tmp_path / "standard.jsonl"
    three = record(claim(), [0.5, 0.6, 0.7])
    assert replace_records(path, [three]) == []
    one = record(claim(), [0.9])
    kept = replace_records(path, [one])
    assert len(kept) == 1 and "kept the record over seeds [0, 1, 2]" in kept[0]
    assert load_records(path)[0]["values"] == [0.5, 0.6, 0.7]
    assert replace_records(path, [one], replace=True) == []
    assert load_records(path)[0]["values"] == [0.9]
    other = record(claim(id="c2"), [0.4])
    replace_records(path, [other])  # a run of another claim of the same paper keeps the first claim's record
    assert sorted(r["claim"] for r in load_records(path)) == ["c1", "c2"]


def test_run_with_a_failing_seed_keeps_the_recorded_seeds(tmp_path, monkeypatch, capsys):
    from icml26 import cli, sweep
    from icml26.claims import load_records, replace_records

    path = tmp_path / "standard.jsonl"
    c = claim(paper="data_mixing", id="C1_capacity_competition")
    replace_records(path, [record(c, [0.5, 0.6, 0.7])])
    good = sweep.Outcome(sweep.Task("data_mixing", "standard", 0), run=runs(c, [0.9])[0])
    bad = sweep.Outcome(sweep.Task("data_mixing", "standard", 1), error="boom")
    result = sweep.SweepResult([good, bad])
    monkeypatch.setattr(sweep.SweepResult, "records", lambda self: {"data_mixing": aggregate(
        [c], [good.run], "standard")})
    args = type("A", (), {"json": False, "record": str(path), "replace": False, "scale": "standard"})()
    assert cli._finish(result, result.records(), args) == 1
    assert load_records(path)[0]["values"] == [0.5, 0.6, 0.7]
    assert "kept the record over seeds [0, 1, 2]" in capsys.readouterr().err
