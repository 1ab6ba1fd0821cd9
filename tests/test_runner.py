"""The runner on tiny fixture notebooks: each outcome gets the right status and exit code."""

import json
from pathlib import Path

import pytest

from icml26 import cli, report, runner

FIXTURES = Path(__file__).with_name("fixtures")
PARAMS = {"SCALE": "quick", "SEED": 0, "DEVICE": "cpu"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    names = ["passes", "raises", "misses_claim", "records_no_claims"]
    items = [("fixture", FIXTURES / f"{n}.ipynb") for n in names]
    result = runner.run_notebooks(items, out, jobs=2, timeout=120, html=True, progress=False)
    return out, dict(zip(names, result))


def test_passing_notebook_is_ok_with_its_claims_and_html(runs):
    out, by_name = runs
    run = by_name["passes"]
    assert run.status == "ok", run.error
    assert [r["verdict"] for r in run.records] == ["reproduced"]
    assert run.html == "passes.html"
    assert "x_large" in (out / "notebooks" / "fixtures" / "passes.html").read_text()


def test_raising_notebook_keeps_its_traceback(runs):
    run = runs[1]["raises"]
    assert run.status == "error"
    assert "boom from the fixture" in run.error and "RuntimeError" in run.error


def test_claim_miss_is_its_own_status(runs):
    run = runs[1]["misses_claim"]
    assert run.status == "claim_miss"
    assert run.records[0]["verdict"] == "not_reproduced" and run.records[0]["unexplained"]


def test_declared_but_unrecorded_claims_fail(runs):
    assert runs[1]["records_no_claims"].status == "no_claims"


def test_a_notebook_past_its_limit_is_killed(tmp_path):
    run = runner.execute_one(FIXTURES / "sleeps.ipynb", tmp_path, PARAMS, timeout=8, html=False)
    assert run.status == "timeout"
    assert run.seconds < 55


def test_runs_round_trip_and_scoreboard_lists_everything(runs):
    out, by_name = runs
    runner.save_runs(list(by_name.values()), out)
    loaded = runner.load_runs(out)
    assert [r.status for r in loaded] == [r.status for r in by_name.values()]
    page = report.build(out).read_text()
    assert "fixture" in page and "Data Mixing" in page  # every paper has its card
    text = runner.summary(loaded)
    assert "4 notebooks, 3 failed" in text


def test_reproduce_exit_code_is_nonzero_when_a_notebook_fails(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(runner, "targets", lambda papers, include_start=True: [("fixture", FIXTURES / "raises.ipynb")])
    assert cli.main(["reproduce", "--out", str(tmp_path), "--no-html", "--device", "cpu"]) == 1
    assert (tmp_path / "index.html").exists()
    monkeypatch.setattr(runner, "targets", lambda papers, include_start=True: [("fixture", FIXTURES / "passes.ipynb")])
    assert cli.main(["reproduce", "--out", str(tmp_path), "--no-html", "--device", "cpu"]) == 0


@pytest.mark.parametrize("kw,match", [({"jobs": 0}, "jobs"), ({"timeout": 0}, "timeout"), ({"scale": "big"}, "scale")])
def test_bad_runner_arguments(kw, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        runner.run_notebooks([], tmp_path, **kw)


def test_classify():
    miss = [{"verdict": "not_reproduced", "unexplained": True}]
    assert runner.classify(True, miss, True) == "claim_miss"
    assert runner.classify(True, [], False) == "error"
    assert runner.classify(False, [], True) == "no_claims"
    assert runner.classify(False, [{"verdict": "reproduced", "unexplained": False}], True) == "ok"
    assert runner.classify(False, [{"verdict": "not_reproduced", "unexplained": False}], True) == "ok"  # a why
    assert runner.classify(True, [], True, timed_out=True) == "timeout"


def test_worker_restarts_a_kernel_that_lost_a_port_race(monkeypatch, tmp_path):
    import papermill

    calls = []

    def flaky(nb, out, **kw):
        calls.append(nb)
        if len(calls) == 1:
            raise RuntimeError("Kernel didn't start: Address already in use")
        Path(out).write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')

    monkeypatch.setattr(papermill, "execute_notebook", flaky)
    runner._worker(str(FIXTURES / "passes.ipynb"), str(tmp_path / "passes"), {}, 10, html=False)
    state = runner.atomic.read_json(tmp_path / "passes.status.json")
    assert len(calls) == 2 and state["raised"] is False


def test_worker_reports_a_kernel_that_never_starts(monkeypatch, tmp_path):
    import papermill

    def broken(nb, out, **kw):
        raise RuntimeError("Address already in use")

    monkeypatch.setattr(papermill, "execute_notebook", broken)
    runner._worker(str(FIXTURES / "passes.ipynb"), str(tmp_path / "passes"), {}, 10, html=False)
    state = runner.atomic.read_json(tmp_path / "passes.status.json")
    assert state["raised"] is True and "Address already in use" in state["error"]


def test_relative_build_folder_still_collects_claims(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the notebook runs in its own folder; RESULTS must not be relative to it
    run = runner.execute_one(FIXTURES / "passes.ipynb", Path("build"), PARAMS, timeout=120, html=False)
    assert run.status == "ok" and [r["verdict"] for r in run.records] == ["reproduced"]
    assert not (FIXTURES / "build").exists()


INTERRUPT = """
import json, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # a shell's background job starts with SIGINT ignored
from pathlib import Path
from icml26 import runner
items = [("fixture", Path(sys.argv[1]) / "passes.ipynb"), ("fixture", Path(sys.argv[1]) / "sleeps.ipynb"),
         ("fixture", Path(sys.argv[1]) / "passes.ipynb")]
try:
    runner.run_notebooks(items, sys.argv[2], jobs=2, timeout=300, html=False, progress=False,
                         env={"ICML26_TEST_MARK": sys.argv[3]})
    print("finished")
except runner.RunInterrupted as exc:
    print(json.dumps([r.status for r in exc.runs]))
"""


def _marked(mark: str, running: str = "") -> list[int]:
    """Processes carrying the test's mark (those whose command line names ``running``, if given)."""
    pids = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if f"ICML26_TEST_MARK={mark}".encode() in (entry / "environ").read_bytes() and \
                    running.encode() in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_an_interrupt_stops_workers_and_kernels_and_keeps_what_finished(sig, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    import uuid

    if not Path("/proc/self/environ").exists():
        pytest.skip("needs Linux /proc")
    mark = uuid.uuid4().hex
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPT, str(FIXTURES), str(tmp_path), mark],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 180
    while time.time() < deadline and not list(tmp_path.glob("notebooks/**/passes.status.json")):
        time.sleep(0.2)
    while time.time() < deadline and _marked(mark, "passes.ipynb"):
        time.sleep(0.2)  # the first notebook's worker has exited...
    time.sleep(1.0)  # ...and been collected; the sleeping notebook's kernel is up and busy
    assert _marked(mark), "no worker or kernel was running"
    os.kill(proc.pid, getattr(signal, sig))
    out, _ = proc.communicate(timeout=30)
    statuses = json.loads(out.strip().splitlines()[-1])
    assert statuses in (["ok"], ["ok", "ok"])  # the passing notebooks that finished; never the sleeping one
    time.sleep(0.5)
    assert _marked(mark) == [], "a worker or its kernel outlived the interrupt"


def test_summary_names_each_failed_notebook_and_its_reason():
    ok = runner.NotebookRun("ssn_games", "05_ssn_games/1_idea.ipynb", status="ok", seconds=1.0)
    bad = runner.NotebookRun("otp_fm", "07_otp_fm/3_reproduce.ipynb", status="error", seconds=2.0,
                             error="Traceback (most recent call last):\n  File x\n"
                                   "\x1b[0;31mModuleNotFoundError\x1b[0m: No module named 'ot'\n\n")
    slow = runner.NotebookRun("otp_fm", "07_otp_fm/2_method.ipynb", status="timeout", seconds=9.0, error="")
    text = runner.summary([ok, bad, slow])
    assert "3 notebooks, 2 failed" in text
    assert "07_otp_fm/3_reproduce.ipynb error: ModuleNotFoundError: No module named 'ot'" in text
    assert "07_otp_fm/2_method.ipynb timeout: no reason recorded" in text
    assert "1_idea.ipynb ok:" not in text
