"""Seeds in worker processes, merged into multi-seed records; the same tasks on a Dask cluster on loopback."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from icml26 import cli, sweep
from icml26.claims import load_records

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def toy(monkeypatch):
    """Workers find the toy paper (tests/fixtures/toy_paper) on their path."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(FIXTURES), os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(FIXTURES))
    return lambda seed, device="cpu": sweep.Task("toy_paper", "quick", seed, device, module="toy_paper")


def test_run_over_two_seeds_merges_them_into_one_record_per_claim(tmp_path, capsys):
    path = tmp_path / "quick.jsonl"
    assert cli.main(["run", "ssn_games", "--seeds", "0,1", "--jobs", "2", "--device", "cpu", "--json",
                     "--record", str(path)]) == 0
    recs = load_records(path)
    assert recs and all(r["seeds"] == [0, 1] and len(r["values"]) == 2 for r in recs)
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [r["claim"] for r in printed] == [r["claim"] for r in recs]


def test_seeds_merge_into_a_mixed_verdict_and_a_failing_seed_is_reported(toy):
    result = sweep.run_local([toy(0), toy(1), toy(2), toy(3, "nope")], jobs=2, progress=False)
    failed = result.failed()
    assert len(failed) == 1 and failed[0].task.seed == 3 and "device" in failed[0].error
    recs = {r["claim"]: r for r in result.records()["toy_paper"]}
    assert recs["even_seed"]["seeds"] == [0, 1, 2] and recs["even_seed"]["verdict"] == "mixed"
    assert recs["mean_near_half"]["verdict"] == "reproduced" and recs["mean_near_half"]["kind"] == "check"


def test_workers_are_pinned_to_cores_divided_by_jobs(toy, monkeypatch):
    from icml26.runtime import available_cores

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("ICML26_THREADS", raising=False)
    result = sweep.run_local([toy(0), toy(2)], jobs=2, progress=False)
    assert {o.run["threads"] for o in result.outcomes} == {max(1, available_cores() // 2)}


def test_sweep_validates_its_arguments(toy):
    with pytest.raises(ValueError, match="jobs"):
        sweep.run_local([toy(0)], jobs=0)
    with pytest.raises(ValueError, match="at least one"):
        sweep.run_local([], jobs=1)


SWEEP_SCRIPT = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # a shell's background job starts with SIGINT ignored
from icml26 import sweep
tasks = [sweep.Task("toy_paper", "quick", s, "cpu", module="toy_paper") for s in range(6)]
result = sweep.run_local(tasks, jobs=2, progress=False)
print("interrupted" if result.interrupted else "finished", sum(o.ok for o in result.outcomes), flush=True)
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_an_interrupt_stops_the_workers_and_reports_what_finished(toy, sig, tmp_path):
    marker = tmp_path / "started"
    env = {**os.environ, "TOY_PAPER_SLEEP": "60", "TOY_PAPER_STARTED": str(marker)}
    proc = subprocess.Popen([sys.executable, "-c", SWEEP_SCRIPT], stdout=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list(tmp_path.glob("started.*")):
        time.sleep(0.2)
    assert list(tmp_path.glob("started.*")), "no worker started within two minutes"
    start = time.time()
    os.kill(proc.pid, getattr(signal, sig))
    out, _ = proc.communicate(timeout=20)
    assert out.split() == ["interrupted", "0"] and time.time() - start < 20


def test_sweep_on_a_dask_cluster_on_loopback(toy):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, protocol="tcp") as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        result = sweep.run_dask([toy(0), toy(1), toy(2, "nope")], cluster.scheduler_address, progress=False)
    assert not result.interrupted and len(result.failed()) == 1
    recs = {r["claim"]: r for r in result.records()["toy_paper"]}
    assert recs["even_seed"]["seeds"] == [0, 1] and recs["even_seed"]["verdict"] == "mixed"


def test_sweep_cli_with_a_cluster_it_cannot_reach_fails_clearly(capsys):
    pytest.importorskip("distributed")
    code = cli.main(["sweep", "--papers", "ssn_games", "--seeds", "0", "--cluster", "tcp://127.0.0.1:9",
                     "--device", "cpu"])
    assert code == 2 and "cluster" in capsys.readouterr().err
