"""Execute every notebook at quick scale through the runner (papermill), as `make reproduce` does.

A notebook fails the test when it raises, misses a claim, declares claims but records none, or runs
past its time limit. Notebooks are ordered slowest-first from the budget file so that two workers
finish together; each measured time is reported in the terminal summary.
"""

import json
from pathlib import Path

import pytest

from icml26 import registry, runner

BUDGET_FILE = Path(__file__).with_name("notebook_budget.json")
BUDGET = json.loads(BUDGET_FILE.read_text()) if BUDGET_FILE.exists() else {}
LIMIT_SECONDS = 120  # quick scale must stay well under a minute; this is the hard stop
NOTEBOOKS = sorted(registry.NOTEBOOKS.glob("**/*.ipynb"), key=lambda p: p.relative_to(registry.ROOT).as_posix())
NOTEBOOKS = [p for p in NOTEBOOKS if ".ipynb_checkpoints" not in p.parts]
NOTEBOOKS.sort(key=lambda p: -BUDGET.get(p.relative_to(registry.ROOT).as_posix(), 60))


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.relative_to(registry.NOTEBOOKS).as_posix() for p in NOTEBOOKS])
def test_notebook_runs_at_quick_scale(path, tmp_path, record_property):
    run = runner.execute_one(path, tmp_path, {"SCALE": "quick", "SEED": 0, "DEVICE": "cpu"},
                             timeout=LIMIT_SECONDS, html=False)
    name = path.relative_to(registry.ROOT).as_posix()
    record_property("notebook", name)
    record_property("notebook_seconds", run.seconds)
    assert run.status == "ok", f"{name}: {run.status}\n{run.error}\nclaims: {run.records}"
