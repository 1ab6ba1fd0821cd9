"""Notebooks are stored clean and follow the contract; every built paper has its notebooks in order."""

import json
import re

import pytest

from icml26 import registry

NOTEBOOKS = sorted(p for p in registry.NOTEBOOKS.glob("**/*.ipynb") if ".ipynb_checkpoints" not in p.parts)
IDS = [p.relative_to(registry.NOTEBOOKS).as_posix() for p in NOTEBOOKS]
PARAMETER_LINES = (r'^SCALE = "quick"', r"^SEED = 0\b", r'^DEVICE = "auto"', r"^RESULTS = None\b")


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_there_is_a_start_here_notebook():
    assert registry.START_HERE.exists()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_stored_without_outputs(path):
    for cell in code_cells(load(path)):
        assert not cell.get("outputs") and cell.get("execution_count") is None, \
            f"{path.name} was saved with outputs: run `python -m icml26 tidy` (or use `make lab`, which strips them)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_parameters_cell_then_setup(path):
    cells = code_cells(load(path))
    assert cells, "no code cells"
    first = cells[0]
    assert "parameters" in first.get("metadata", {}).get("tags", []), "first code cell must be tagged parameters"
    text = source(first)
    for pattern in PARAMETER_LINES:
        assert re.search(pattern, text, re.M), f"parameters cell lacks {pattern}"
    assert "icml26.runtime.setup(SCALE, SEED, DEVICE)" in source(cells[1]), "second code cell must call setup"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_kernelspec_is_python3(path):
    assert load(path)["metadata"].get("kernelspec", {}).get("name") == "python3"


def test_every_notebook_folder_is_a_registered_paper_with_claims():
    for folder in registry.NOTEBOOKS.iterdir():
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        m = re.fullmatch(r"(\d\d)_([a-z0-9_]+)", folder.name)
        assert m, f"{folder.name} is not NN_<slug>"
        paper = registry.get(m.group(2))
        assert paper.number == int(m.group(1)), f"{folder.name}: paper {paper.slug} is number {paper.number}"
        assert paper.has_claims(), f"{folder.name} has notebooks but no icml26.papers.{paper.slug}.claims"


@pytest.mark.parametrize("paper", [p for p in registry.PAPERS if p.notebooks()], ids=lambda p: p.slug)
def test_built_papers_have_two_to_four_notebooks_in_order(paper):
    names = [p.name for p in paper.notebooks()]
    assert 2 <= len(names) <= 4, names
    numbers = [int(re.match(r"(\d+)_", n).group(1)) for n in names]
    assert numbers == list(range(1, len(names) + 1)), f"{paper.slug}: notebooks must be numbered 1.., got {names}"
    assert any("verify(" in source(c) for nb in paper.notebooks() for c in code_cells(load(nb))), \
        f"{paper.slug}: no notebook checks the claims"


@pytest.mark.parametrize("paper", [p for p in registry.PAPERS if p.has_claims()], ids=lambda p: p.slug)
def test_built_papers_have_notebooks_claims_and_scales(paper):
    import importlib

    assert paper.notebooks(), f"{paper.slug} has a claims module but no notebooks"
    claims = importlib.import_module(f"{paper.module}.claims").CLAIMS
    experiment = importlib.import_module(f"{paper.module}.experiment")
    assert set(experiment.CONFIGS) == {"quick", "standard", "full"}
    assert claims and all(c.paper_slug() == paper.slug for c in claims)


def test_experiments_and_claims_do_not_import_jupyter_or_plotly():
    import subprocess
    import sys

    built = [p for p in registry.PAPERS if p.has_claims()]
    code = ("import sys\n" + "".join(f"import {p.module}.experiment, {p.module}.claims\n" for p in built)
            + "bad = [m for m in ('IPython', 'ipywidgets', 'plotly', 'papermill') if m in sys.modules]\n"
            + "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"experiment/claims import {out}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_is_tidy_with_badges_and_colab_line(path):
    from icml26 import notebook_tidy

    assert notebook_tidy.tidied(path) == path.read_text(encoding="utf-8"), \
        f"{path.name} is not tidy: run `python -m icml26 tidy` and commit"
    text = path.read_text(encoding="utf-8")
    assert "colab-badge.svg" in text and "mybinder.org/badge_logo.svg" in text


def test_tidy_clears_outputs_and_is_idempotent(tmp_path):
    import shutil

    from icml26 import notebook_tidy

    nb_path = tmp_path / "copy.ipynb"
    shutil.copy(registry.START_HERE, nb_path)
    nb = load(nb_path)
    nb["cells"][2]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x"}]
    nb["cells"][2]["execution_count"] = 3
    nb_path.write_text(json.dumps(nb))
    assert notebook_tidy.tidy(nb_path) is True
    assert notebook_tidy.tidy(nb_path) is False
    cells = code_cells(load(nb_path))
    assert all(not c["outputs"] and c["execution_count"] is None for c in cells)
    assert source(cells[1]).count(notebook_tidy.COLAB_MARK) == 1
    assert source(load(nb_path)["cells"][0]).count("colab-badge.svg") == 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_badges_render_as_images_pinned_to_the_release(path):
    import mistune

    from icml26 import notebook_tidy

    first = next(c for c in load(path)["cells"] if c["cell_type"] == "markdown")
    html = mistune.html(source(first))
    assert html.count("<img") >= 2 and "colab-badge.svg" in html and "mybinder.org/badge_logo.svg" in html, \
        f"{path.name}: the badge line does not render as images; run `python -m icml26 tidy`"
    assert source(first).count("colab-badge.svg") == 1, f"{path.name} has a second badge row"
    assert f"/{registry.release_ref()}" in html and registry.repository() in html
    assert notebook_tidy.BADGE_MARK in source(first)


def test_the_colab_line_installs_every_runtime_dependency_colab_lacks():
    from icml26 import notebook_tidy

    line = notebook_tidy.colab_install()
    names = [r for r in notebook_tidy._requirement_names()]
    for req in names:
        name = re.split(r"[<>=!~\[ ;]", req, maxsplit=1)[0].lower()
        assert name in notebook_tidy.COLAB_HAS or repr(req) in line, f"{req} is neither on Colab nor installed"
    assert "--no-deps" in line and f"@{registry.release_ref()}" in line and not re.search(r"'(torch|numpy)[<>=']", line)


def test_lab_saves_notebooks_without_outputs():
    from icml26 import notebook_tidy

    nb = load(registry.START_HERE)
    cells = code_cells(nb)
    cells[0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x"}]
    cells[0]["execution_count"] = 4
    nb["metadata"]["widgets"] = {"state": {}}
    model = {"type": "notebook", "content": nb}
    notebook_tidy.strip_on_save(model=model, path="x.ipynb", contents_manager=None)
    assert all(not c["outputs"] and c["execution_count"] is None for c in code_cells(nb))
    assert "widgets" not in nb["metadata"]
    notebook_tidy.strip_on_save(model={"type": "file", "content": "text"}, path="a.txt")  # other files untouched


def test_release_check_fails_on_the_placeholder_and_a_missing_tag_and_passes_when_both_are_set(monkeypatch):
    """Publishing in one place (issue 81): the URL and the tag are the only things to set, and the check says so."""
    problems = registry.release_problems(tags=[])
    assert len(problems) == 2 and "placeholder" in problems[0] and registry.release_ref() in problems[1]
    monkeypatch.setenv("ICML26_REPOSITORY", "someone/icml26")
    assert registry.repository_url() == "https://github.com/someone/icml26"
    assert registry.release_problems(tags=["v0.0.1", registry.release_ref()]) == []
    with pytest.raises(ValueError, match="tags must be a list"):
        registry.release_problems(tags="v1")
