"""Seeds x papers: run each (paper, seed) of a sweep in its own worker and merge the claims per paper.

``python -m icml26 run SLUG --seeds 0,1,2 --jobs 2`` and ``python -m icml26 sweep --papers ... --seeds ...``
both come here. Each task runs the paper's ``experiment.run`` for one seed and measures its claims
(:func:`icml26.claims.seed_run`); only those few numbers travel back, and :func:`icml26.claims.aggregate`
turns them into one multi-seed record per claim.

Two executors:

* local (the default): one ``python -m icml26.sweep`` process per task, ``jobs`` at a time, each in
  its own process group with torch pinned to ``cores // jobs`` threads. Ctrl-C or SIGTERM stops the
  queue, kills the running workers with everything they started, and returns the tasks that finished.
* Dask (``cluster="tcp://HOST:PORT"``): the same tasks go to a ``dask.distributed`` scheduler, so a lab
  with a cluster runs every paper at full scale overnight (``pip install icml26[cluster]``). Dask moves
  tasks and results as pickles, so whoever controls the scheduler runs code on the workers (and on this
  machine, which unpickles the results): use only a scheduler you run on a network you trust.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from icml26 import atomic, registry


@dataclass(frozen=True)
class Task:
    """One (paper, seed) of a sweep."""

    paper: str
    scale: str
    seed: int
    device: str = "auto"
    allow_cpu: bool = False
    module: str | None = None
    """The package holding ``experiment`` and ``claims`` (default: the registered paper's)."""

    def __post_init__(self):
        from icml26 import checks
        from icml26.runtime import check_scale

        if not isinstance(self.paper, str) or not self.paper:
            raise ValueError(f"paper must be a paper's slug; got {self.paper!r}")
        check_scale(self.scale)
        checks.seed("seed", self.seed)
        if not isinstance(self.device, str):
            raise TypeError(f"device must be a device string such as 'cpu'; got {self.device!r}")

    @property
    def name(self) -> str:
        return f"{self.paper}/{self.scale}/seed {self.seed}"

    def package(self) -> str:
        return self.module or registry.get(self.paper).module


@dataclass
class Outcome:
    """What a task gave back: the seed's claim measurements, or the error that stopped it."""

    task: Task
    run: dict | None = None
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.run is not None


@dataclass
class SweepResult:
    """Every task's outcome, and whether the sweep was interrupted before all of them ran."""

    outcomes: list[Outcome] = field(default_factory=list)
    interrupted: bool = False

    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]

    def records(self) -> dict[str, list[dict]]:
        """One multi-seed record per claim, per paper, from the tasks that finished."""
        from icml26.claims import aggregate

        out: dict[str, list[dict]] = {}
        by_key: dict[tuple[str, str, str], list[dict]] = {}
        for o in self.outcomes:
            if o.ok:
                by_key.setdefault((o.task.paper, o.task.scale, o.task.package()), []).append(o.run)
        for (paper, scale, package), runs in by_key.items():
            claims = importlib.import_module(f"{package}.claims").CLAIMS
            out.setdefault(paper, []).extend(aggregate(claims, runs, scale, paper=paper))
        return out


def _check_tasks(tasks) -> list[Task]:
    if isinstance(tasks, (str, bytes)) or not all(isinstance(t, Task) for t in tasks):
        raise TypeError("tasks must be a list of sweep.Task")
    tasks = list(tasks)
    if not tasks:
        raise ValueError("tasks must hold at least one (paper, seed)")
    return tasks


def run_task(task: Task, threads: int | None = None) -> dict:
    """Run one task in this process; return its claim measurements (:func:`icml26.claims.seed_run`)."""
    if not isinstance(task, Task):
        raise TypeError(f"task must be a sweep.Task; got {type(task).__name__}")
    from icml26.claims import seed_run
    from icml26.runtime import setup

    package = task.package()
    rt = setup(task.scale, task.seed, task.device, allow_cpu=task.allow_cpu, threads=threads)
    experiment = importlib.import_module(f"{package}.experiment")
    claims = importlib.import_module(f"{package}.claims")
    start = time.perf_counter()
    results = experiment.run(experiment.CONFIGS[rt.scale], device=rt.device, seed=rt.seed)
    return seed_run(claims.CLAIMS, results, rt, seconds=time.perf_counter() - start)


class Interrupted(Exception):
    """SIGTERM arrived; raised in the main thread so that the workers are stopped and the finished kept."""


def _raise_interrupted(signum, frame):
    raise Interrupted(f"signal {signum}")


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def run_local(tasks: list[Task], jobs: int = 2, progress: bool = True,
              on_done: Callable[[Outcome], None] | None = None) -> SweepResult:
    """Run ``tasks`` in worker processes, ``jobs`` at a time (see the module docstring)."""
    from icml26 import checks

    checks.positive_int("jobs", jobs)
    tasks = _check_tasks(tasks)
    result = SweepResult()
    queue = list(tasks)
    running: dict[subprocess.Popen, tuple[Task, Path, float]] = {}
    env = {**os.environ, "ICML26_JOBS": str(min(jobs, len(tasks)))}
    tmp = Path(tempfile.mkdtemp(prefix="icml26-sweep-"))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), desc="seeds", unit="run", file=sys.stderr)
    previous = signal.signal(signal.SIGTERM, _raise_interrupted) if _main_thread() else None
    try:
        while queue or running:
            while queue and len(running) < jobs:
                task = queue.pop(0)
                out = tmp / f"{task.paper}-{task.scale}-{task.seed}.json"
                cmd = [sys.executable, "-m", "icml26.sweep", "--worker", json.dumps(task.__dict__), str(out)]
                with open(out.with_suffix(".log"), "w", encoding="utf-8") as log:  # a file: a pipe could fill up
                    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=log,
                                            stderr=subprocess.STDOUT)
                running[proc] = (task, out, time.perf_counter())
                if bar is not None:
                    bar.set_postfix_str(f"running {task.name}")
            time.sleep(0.05)
            for proc in [p for p in running if p.poll() is not None]:
                task, out, start = running.pop(proc)
                stderr = out.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
                state = atomic.read_json(out, default=None)
                seconds = time.perf_counter() - start
                if state and "run" in state:
                    outcome = Outcome(task, run=state["run"], seconds=seconds)
                else:
                    err = (state or {}).get("error") or f"the worker exited {proc.returncode}\n{stderr[-4000:]}"
                    outcome = Outcome(task, error=err, seconds=seconds)
                result.outcomes.append(outcome)
                if on_done is not None:
                    on_done(outcome)
                if bar is not None:
                    bar.set_postfix_str(f"{task.name}: {'done' if outcome.ok else 'FAILED'} in {seconds:.0f} s")
                    bar.update(1)
    except (KeyboardInterrupt, Interrupted):
        result.interrupted = True
        for proc in running:
            _kill_group(proc)
        running.clear()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if bar is not None:
            bar.close()
        for f in tmp.glob("*"):
            f.unlink(missing_ok=True)
        tmp.rmdir()
    return result


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


CONNECT_TIMEOUT = "8s"


def run_dask(tasks: list[Task], address: str, progress: bool = True,
             on_done: Callable[[Outcome], None] | None = None) -> SweepResult:
    """Send ``tasks`` to the Dask scheduler at ``address`` and gather their measurements."""
    tasks = _check_tasks(tasks)
    if not isinstance(address, str) or "://" not in address:
        raise ValueError(f"address must be a scheduler address such as tcp://HOST:8786; got {address!r}")
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ValueError("cluster needs dask.distributed: pip install 'icml26[cluster]'") from None
    result = SweepResult()
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"cluster {address!r} cannot be reached ({type(exc).__name__}: {exc})") from None
    with client:
        futures = {client.submit(_dask_task, t, key=f"icml26-{t.paper}-{t.scale}-{t.seed}-{time.time_ns()}",
                                 pure=False): t for t in tasks}
        try:
            for fut in as_completed(futures):
                task = futures[fut]
                state = fut.result()
                outcome = Outcome(task, run=state.get("run"), error=state.get("error", ""),
                                  seconds=state.get("seconds", 0.0))
                result.outcomes.append(outcome)
                if on_done is not None:
                    on_done(outcome)
                if progress:
                    print(f"[icml26] {task.name}: {'done' if outcome.ok else 'FAILED'}", file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            result.interrupted = True
            client.cancel(list(futures))
    return result


def _dask_task(task: Task) -> dict:
    """The body of a task on a Dask worker: never raises, so one failing seed does not stop the rest."""
    start = time.perf_counter()
    try:
        return {"run": run_task(task), "seconds": time.perf_counter() - start}
    except Exception:
        return {"error": traceback.format_exc(), "seconds": time.perf_counter() - start}


def _worker(spec: str, out: str) -> int:
    task = Task(**json.loads(spec))
    try:
        atomic.write_json(out, {"run": run_task(task)})
        return 0
    except Exception:
        atomic.write_json(out, {"error": traceback.format_exc()})
        return 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m icml26.sweep", description="run one sweep task (worker)")
    parser.add_argument("--worker", nargs=2, metavar=("TASK_JSON", "OUT"), required=True)
    args = parser.parse_args(argv)
    return _worker(*args.worker)


if __name__ == "__main__":
    sys.exit(main())
