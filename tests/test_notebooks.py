"""Execute every notebook at quick scale through the runner (papermill), as `make reproduce` does.

A notebook fails the test when it raises, misses a claim, declares claims but records none, or runs
past its time limit, and when what a reader sees is spoiled: a plotting cell that shows no figure,
a warning printed into a cell, a raw dict or list dump, or a ``<... object at 0x...>`` repr.
Notebooks are ordered slowest-first from the budget file so that two workers finish together; each
measured time is reported in the terminal summary.
"""

import json
import re
from pathlib import Path

import pytest

from icml26 import registry, runner

BUDGET_FILE = Path(__file__).with_name("notebook_budget.json")
BUDGET = json.loads(BUDGET_FILE.read_text()) if BUDGET_FILE.exists() else {}
LIMIT_SECONDS = 120  # quick scale must stay well under a minute; this is the hard stop
NOTEBOOKS = sorted(registry.NOTEBOOKS.glob("**/*.ipynb"), key=lambda p: p.relative_to(registry.ROOT).as_posix())
NOTEBOOKS = [p for p in NOTEBOOKS if ".ipynb_checkpoints" not in p.parts]
NOTEBOOKS.sort(key=lambda p: -BUDGET.get(p.relative_to(registry.ROOT).as_posix(), 60))

PLOTTING = re.compile(r"^(?:\w+\s*=\s*)?(?:[\w.]+\.)?(?:plot_\w+|show|explore)\(", re.M)
"""A cell with a top-level call of a ``plot_*`` function, ``show(...)`` or ``explore(...)`` plots."""
FIGURE_MIMES = ("image/png", "image/svg+xml", "application/vnd.plotly.v1+json")
WARNING = re.compile(r"\b\w*Warning\b|^\s*warnings\.warn", re.M)
OBJECT_REPR = re.compile(r"<[\w.]+ (?:object )?at 0x[0-9a-f]+>")
RAW_DUMP = re.compile(r"^\s*[\[{(]\s*[\[{('\"]", re.S)


def _text(output) -> str:
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    return "".join(output.get("data", {}).get("text/plain", ""))


def spoiled_outputs(nb: dict) -> list[str]:
    """What a reader would see as broken in an executed notebook (one line per problem)."""
    problems = []
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        source = "".join(cell["source"])
        outputs = cell.get("outputs", [])
        where = f"code cell {i + 1} ({source.strip().splitlines()[0][:60] if source.strip() else ''!r})"
        if PLOTTING.search(source) and not source.rstrip().endswith("# no figure"):
            has_figure = any(m in o.get("data", {}) for o in outputs for m in FIGURE_MIMES) or any(
                "application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
            if not has_figure:
                problems.append(f"{where} plots but shows no figure (display the figure, or return it last)")
        for o in outputs:
            text = _text(o)
            if o.get("output_type") == "stream" and o.get("name") == "stderr" and WARNING.search(text):
                problems.append(f"{where} prints a warning: {text.strip().splitlines()[0][:160]}")
            if OBJECT_REPR.search(text):
                problems.append(f"{where} shows an object repr: {OBJECT_REPR.search(text).group(0)}")
            if o.get("output_type") == "execute_result" and len(text) > 200 and RAW_DUMP.match(text) \
                    and "text/html" not in o.get("data", {}):
                problems.append(f"{where} dumps a raw {text.strip()[0]}...{text.strip()[-1]} of {len(text)} characters")
    return problems


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.relative_to(registry.NOTEBOOKS).as_posix() for p in NOTEBOOKS])
def test_notebook_runs_at_quick_scale(path, tmp_path, record_property):
    run = runner.execute_one(path, tmp_path, {"SCALE": "quick", "SEED": 0, "DEVICE": "cpu"},
                             timeout=LIMIT_SECONDS, html=False)
    name = path.relative_to(registry.ROOT).as_posix()
    record_property("notebook", name)
    record_property("notebook_seconds", run.seconds)
    assert run.status == "ok", f"{name}: {run.status}\n{run.error}\nclaims: {run.records}"
    executed = tmp_path / "notebooks" / path.relative_to(registry.NOTEBOOKS)
    problems = spoiled_outputs(json.loads(executed.read_text(encoding="utf-8")))
    assert not problems, f"{name}:\n" + "\n".join(problems)
    if path.stem == "3_reproduce" and run.records:
        assert_records_rerun(run.records)


def assert_records_rerun(records):
    """The notebook's quick seed-0 run gives the values recorded in results/quick.jsonl (records that re-run)."""
    import importlib

    from icml26.claims import RERUN_RTOL, load_records, rerun_mismatches, rerun_tolerances

    paper = records[0]["paper"]
    module = importlib.import_module(f"{registry.get(paper).module}.claims")
    mismatches = rerun_mismatches(records, load_records(registry.RESULTS / "quick.jsonl", strict=True),
                                  rtol=getattr(module, "RERUN_RTOL", RERUN_RTOL),
                                  claim_rtol=rerun_tolerances(module.CLAIMS))
    assert not mismatches, (f"{paper}: quick seed 0 no longer re-runs to its record (re-record with `make seeds "
                            f"PAPERS={paper}`, or find the non-determinism):\n" + "\n".join(mismatches))


def test_the_output_checks_catch_what_they_should():
    def cell(source, outputs):
        return {"cell_type": "code", "source": source, "outputs": outputs}

    nb = {"cells": [
        cell("plot_curve(results);", []),
        cell("x = 1", [{"output_type": "stream", "name": "stderr", "text": "UserWarning: constrained_layout"}]),
        cell("results", [{"output_type": "execute_result", "data": {"text/plain": "{'a': " + "1, " * 100 + "}"}}]),
        cell("rt", [{"output_type": "execute_result", "data": {"text/plain": "<icml26.widgets.Explorer at 0x7f1>"}}]),
        cell("show(plot_curve(results))", [{"output_type": "display_data", "data": {"image/png": "..."}}]),
    ]}
    problems = spoiled_outputs(nb)
    assert len(problems) == 4 and "no figure" in problems[0] and "warning" in problems[1]
    assert "raw {" in problems[2] and "object repr" in problems[3]
