"""Executed notebooks as offline HTML, and the browsable site (Sphinx + myst-nb) built from a quick run of one paper."""

import re
from pathlib import Path

import pytest

from icml26 import cli, registry, runner, site

FIXTURES = Path(__file__).with_name("fixtures")
REMOTE = re.compile(r"<(?:script|link)[^>]+(?:src|href)=[\"'](https?://[^\"']+)")


def test_exported_html_typesets_maths_locally_and_loads_no_script_from_a_network(tmp_path):
    run = runner.execute_one(FIXTURES / "passes.ipynb", tmp_path, {"SCALE": "quick", "SEED": 0, "DEVICE": "cpu"},
                             timeout=120, html=True)
    assert run.status == "ok" and run.html
    page = (tmp_path / "notebooks" / "fixtures" / run.html).read_text()
    assert not REMOTE.findall(page), REMOTE.findall(page)
    mathjax = re.search(r"src=\"([^\"]*MathJax\.js)", page).group(1)
    assert (tmp_path / "notebooks" / "fixtures" / mathjax).resolve().exists()


def test_mathjax_installs_once_when_several_exports_start_together(tmp_path):
    """Parallel notebook exports (run_notebooks with jobs > 1) each copy MathJax into a folder of their own; the
    first finished copy is kept and nobody deletes another's copy midway (the old shared temporary folder could)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        dests = list(pool.map(lambda _: site.install_mathjax(tmp_path), range(4)))
    assert all(d == tmp_path / "mathjax" for d in dests) and (tmp_path / "mathjax" / "MathJax.js").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["mathjax"]  # no temporary copy left behind
    assert site.install_mathjax(tmp_path) == tmp_path / "mathjax"


def test_widget_state_and_views_are_dropped_but_their_fallback_kept():
    nb = {"metadata": {"widgets": {"state": {}}}, "cells": [{"cell_type": "code", "outputs": [
        {"output_type": "display_data", "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "x"},
                                                 "text/plain": "VBox(...)"}}]}]}
    out = site.offline_notebook(nb)
    assert "widgets" not in out["metadata"]
    assert out["cells"][0]["outputs"][0]["data"] == {"text/plain": "VBox(...)"}
    assert "widgets" in nb["metadata"]  # the input is not changed


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    paper = registry.get("ssn_games")
    items = runner.targets([paper], include_start=False)
    runs = runner.run_notebooks(items, out, jobs=2, timeout=300, html=True, progress=False)
    assert all(r.ok for r in runs), [r.error for r in runs]
    runner.save_runs(runs, out)
    from icml26 import report

    report.build(out, runs)
    assert cli.main(["site", "--out", str(out)]) == 0
    return out / "site"


def test_the_site_has_a_page_per_paper_with_its_notebooks_and_the_scoreboard(built):
    index = (built / "index.html").read_text()
    assert "05_ssn_games.html" in index and "index-scoreboard.html" in index
    for name in ("1_idea", "2_method", "3_reproduce"):
        assert (built / "05_ssn_games" / f"{name}.html").exists()
    assert (built / "papers" / "ssn_games.html").exists() and (built / "index-scoreboard.html").exists()
    page = (built / "05_ssn_games" / "3_reproduce.html").read_text()
    assert "<img" in page  # the figures are there


def test_the_site_loads_nothing_from_a_network(built):
    loads = [u for p in built.glob("**/*.html") for u in REMOTE.findall(p.read_text(errors="replace"))]
    assert not loads, sorted(set(loads))[:10]
    assert (built / "_static" / "mathjax" / "MathJax.js").exists()
    assert "mathjax/MathJax.js" in (built / "05_ssn_games" / "3_reproduce.html").read_text()


def test_site_without_a_run_is_a_clear_error(tmp_path, capsys):
    assert cli.main(["site", "--out", str(tmp_path)]) == 2
    assert "make reproduce" in capsys.readouterr().err
