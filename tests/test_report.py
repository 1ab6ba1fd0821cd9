import json
import re

import pytest
import torch

from icml26 import registry, report
from icml26.claims import Claim, aggregate, dumps, seed_run
from icml26.runner import NotebookRun
from icml26.runtime import Runtime


def record(verdict_values, claim="c", paper="ssn_games", kind="paper", scale="quick", why="w"):
    c = Claim(claim, "<b>not bold</b>", metric=lambda r: r["x"], op=">=", threshold={scale: 2.0}, kind=kind,
              why=why if kind == "paper" else None, paper_value="10x", source="Fig. 2", paper=paper)
    runs = [seed_run([c], {"x": x}, Runtime(scale, i, torch.device("cpu")), 1.0) for i, x in enumerate(verdict_values)]
    return aggregate([c], runs, scale)[0]


def write(folder, scale, records):
    (folder / f"{scale}.jsonl").write_text("".join(dumps(r) + "\n" for r in records))


def test_scoreboard_has_a_card_per_paper_and_a_page_per_paper(tmp_path):
    runs = [NotebookRun("ssn_games", "notebooks/05_ssn_games/3_reproduce.ipynb", "claim_miss", 3.0,
                        error="Traceback <here>", records=[record([1.0]), record([3.0], "d")],
                        html="3_reproduce.html")]
    results = tmp_path / "results"
    results.mkdir()
    write(results, "standard", [record([3, 0, 3], "c", scale="standard"), record([3, 3, 3], "d", scale="standard"),
                                record([3, 3, 3], "k", kind="check", scale="standard")])
    index = report.build(tmp_path / "build", runs, results_dir=results)
    page = index.read_text()
    for p in registry.PAPERS:
        assert p.title.split(" (")[0].replace("&", "&amp;") in page
    assert "papers/ssn_games.html" in page and "1 ✓ · 1 ◐" in page
    assert "papers with nothing recorded or run" in page  # the quiet papers are collapsed
    paper = (tmp_path / "build" / "papers" / "ssn_games.html").read_text()
    assert "&lt;b&gt;not bold&lt;/b&gt;" in paper and "<b>not bold</b>" not in paper  # escaped
    assert "Traceback &lt;here&gt;" in paper and "Sanity checks" in paper and "<svg" in paper
    assert 'href="../notebooks/05_ssn_games/3_reproduce.html"' in paper
    loads = re.findall(r"(?:src|href)=[\"']?(https?://[^\"' >]+)", paper)
    assert all(u.startswith("https://arxiv.org/") for u in loads), loads  # nothing is loaded from a network


def test_counts_separate_paper_claims_from_checks():
    recs = [record([3]), record([0], "d"), record([3], "e", kind="check"), record([0], "f", kind="check")]
    counts = report.paper_counts(recs)
    assert counts["reproduced"] == 1 and counts["not_reproduced"] == 1
    assert counts["checks"] == 2 and counts["checks_ok"] == 1
    assert report.score_cell(recs) == "1 ✓ · 1 ✗"


def test_report_rebuilds_from_saved_runs_and_empty_build(tmp_path):
    page = report.build(tmp_path, results_dir=tmp_path).read_text()
    assert "0 notebooks run" in page


def test_a_corrupt_runs_file_is_an_error_naming_it_and_the_old_scoreboard_stays(tmp_path):
    report.build(tmp_path, [], results_dir=tmp_path)
    before = (tmp_path / "index.html").read_text()
    (tmp_path / "runs.json").write_text('[{"paper": "x", "notebo')
    with pytest.raises(ValueError, match="runs.json is corrupt"):
        report.build(tmp_path, results_dir=tmp_path)
    assert (tmp_path / "index.html").read_text() == before


def test_readme_table_is_generated_from_the_results(tmp_path):
    write(tmp_path, "quick", [record([3.0]), record([0.0], "d")])
    write(tmp_path, "standard", [record([3, 0, 3], scale="standard"), record([3, 3, 3], "k", kind="check",
                                                                              scale="standard")])
    table = report.papers_table(tmp_path)
    row = next(line for line in table.splitlines() if "`ssn_games`" in line)
    assert "| 1 ✓ · 1 ✗ (seeds 0) | 1 ◐ (seeds 0-2) | - | 1/1 |" in row
    assert len(table.splitlines()) == 2 + 19


def test_a_corrupt_line_in_the_records_is_reported_by_line(tmp_path):
    (tmp_path / "quick.jsonl").write_text(json.dumps(record([3.0])) + "\n{oops\n" + json.dumps(record([3.0])) + "\n")
    with pytest.raises(ValueError, match=r"quick.jsonl:2"):
        report.papers_table(tmp_path)


def test_committed_readme_table_is_current():
    readme = report.README.read_text()
    assert report.papers_table() in readme, "run `python -m icml26 readme` and commit README.md"


def test_update_readme_needs_markers(tmp_path):
    path = tmp_path / "README.md"
    path.write_text("no markers")
    with pytest.raises(ValueError, match="markers"):
        report.update_readme(path, tmp_path)
