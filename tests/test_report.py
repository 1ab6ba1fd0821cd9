from icml26 import registry, report
from icml26.runner import NotebookRun


def record(outcome, claim="c", paper="ssn_games"):
    return {"paper": paper, "claim": claim, "statement": "<b>not bold</b>", "measured": 1.0, "op": ">=",
            "threshold": 2.0, "outcome": outcome, "scale": "quick", "seed": 0, "device": "cpu",
            "paper_value": "10x", "source": "Fig. 2", "seconds": 1.5, "version": "0", "expected_miss": None}


def test_scoreboard_lists_all_papers_and_planned_ones(tmp_path):
    runs = [NotebookRun("ssn_games", "notebooks/05_ssn_games/3_reproduce.ipynb", "claim_miss", 3.0,
                        error="Traceback <here>", records=[record("miss"), record("pass", "d")],
                        html="3_reproduce.html")]
    page = report.build(tmp_path, runs).read_text()
    for p in registry.PAPERS:
        assert p.title.split(" (")[0].replace("&", "&amp;") in page
    assert ("planned" in page) == any(p.status == "planned" for p in registry.PAPERS)
    assert "&lt;b&gt;not bold&lt;/b&gt;" in page and "<b>not bold</b>" not in page  # escaped
    assert "Traceback &lt;here&gt;" in page
    assert 'href="notebooks/05_ssn_games/3_reproduce.html"' in page
    assert "1 reproduced, 1 not, 0 not checked" in page


def test_a_paper_without_notebooks_is_listed_as_planned(tmp_path, monkeypatch):
    monkeypatch.setattr(registry.Paper, "notebooks", lambda self: [] if self.slug == "tool_guard" else ["x"])
    monkeypatch.setattr(registry.Paper, "has_claims", lambda self: True)
    page = report.build(tmp_path).read_text()
    assert "planned" in page


def test_counts():
    recs = [record("pass"), record("miss"), record("expected_miss"), record("not_checked")]
    assert report.paper_counts(recs) == {"pass": 1, "miss": 2, "not_checked": 1}


def test_report_rebuilds_from_saved_runs_and_empty_build(tmp_path):
    page = report.build(tmp_path).read_text()
    assert "0 notebooks run" in page and page.count("Planned") + page.count("not run") >= 1


def test_readme_table_is_generated_from_the_results(tmp_path):
    import json

    (tmp_path / "quick.jsonl").write_text(json.dumps(record("pass")) + "\n" + json.dumps(record("miss", "d")) + "\n")
    table = report.papers_table(tmp_path)
    row = next(line for line in table.splitlines() if "`ssn_games`" in line)
    assert row.endswith("| 1/2 | - | - |")
    assert len(table.splitlines()) == 2 + 19


def test_committed_readme_table_is_current():
    readme = report.README.read_text()
    assert report.papers_table() in readme, "run `python -m icml26 readme` and commit README.md"


def test_update_readme_needs_markers(tmp_path):
    import pytest

    path = tmp_path / "README.md"
    path.write_text("no markers")
    with pytest.raises(ValueError, match="markers"):
        report.update_readme(path, tmp_path)
