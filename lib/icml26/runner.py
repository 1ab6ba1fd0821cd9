"""Execute notebooks with papermill, in parallel, each isolated in its own process group.

Every notebook runs in a fresh worker process (``python -m icml26.runner``) that executes it with
papermill's Python API, records its claims in a JSON-lines file of its own, converts the executed
notebook to HTML and writes a small status file. A worker that outlives its time limit is killed with
its kernel; a notebook that raises is reported with its traceback; the other notebooks still run.

A notebook's status is one of:

* ``ok``: ran to the end and, if it declares claims (calls ``verify``), recorded them;
* ``claim_miss``: a check missed, or a paper claim missed where it has no ``why`` (an unexplained miss);
* ``no_claims``: declares claims but recorded none (a silent no-op is a failure);
* ``error``: raised an exception (the traceback is kept);
* ``timeout``: ran past its time limit and was killed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from icml26 import atomic, checks, claim_view, registry
from icml26.claims import load_records
from icml26.runtime import check_scale, choose_device

STATUSES = ("ok", "claim_miss", "no_claims", "error", "timeout")
KERNEL_START_FAILURES = ("Address already in use", "Kernel died before replying to kernel_info")
"""Errors that mean a kernel never started; seen when parallel kernels race for the same local ports."""
KERNEL_START_RETRIES = 1
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
"""Kernels draw with Jupyter's inline backend even when the caller set ``MPLBACKEND=Agg``, so figures are kept."""
PARENT_VAR = "ICML26_RUNNER_PID"
"""The runner's process id, set in each worker's environment: a worker whose runner is gone stops (Linux)."""
RUNTIME_PREFIX = "icml26-kernels-"
"""Each worker (and its kernel) gets a temporary folder of its own (``TMPDIR``, ``JUPYTER_RUNTIME_DIR``: the
kernel's connection file goes there), removed when the worker ends, however it ends."""
TOKEN_VAR = "ICML26_RUN_TOKEN"
"""Set in each notebook worker's environment and inherited by its kernel, so that both can be found and stopped."""
HEADLESS_ENV = {
    "ICML26_HEADLESS": "1",
    "MPLBACKEND": INLINE_BACKEND,
    "PYTHONHASHSEED": "0",
    "ICML26_PROGRESS": "0",  # a finished progress bar is noise in a saved notebook
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}


@dataclass
class NotebookRun:
    """The outcome of executing one notebook."""

    paper: str
    notebook: str
    status: str = "error"
    seconds: float = 0.0
    error: str = ""
    records: list = field(default_factory=list)
    html: str | None = None
    scale: str = "quick"
    seed: int = 0

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}; got {self.status!r}")
        if not isinstance(self.seconds, (int, float)) or not self.seconds >= 0:
            raise ValueError(f"seconds must be a non-negative number; got {self.seconds!r}")

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def declares_claims(path: Path) -> bool:
    """Whether a notebook's code calls ``verify(`` (then it must record at least one claim)."""
    nb = json.loads(checks.path("path", path, kind="file").read_text(encoding="utf-8"))
    return any(c.get("cell_type") == "code" and "verify(" in "".join(c.get("source", ""))
               for c in nb.get("cells", []))


def targets(papers: list[registry.Paper] | None = None, include_start: bool = True) -> list[tuple[str, Path]]:
    """The notebooks to run, as ``(paper slug, path)``: the start-here notebook, then each paper's in order."""
    if papers is not None and (isinstance(papers, (str, bytes)) or
                               not all(isinstance(p, registry.Paper) for p in papers)):
        raise TypeError("papers must be a list of registry.Paper (see registry.parse_papers)")
    out: list[tuple[str, Path]] = []
    if include_start and registry.START_HERE.exists():
        out.append(("start_here", registry.START_HERE))
    for p in papers if papers is not None else registry.PAPERS:
        out.extend((p.slug, nb) for nb in p.notebooks())
    return out


def _out_name(path: Path) -> Path:
    """Where a notebook's outputs go below the build folder: ``notebooks/<folder>/<name>``."""
    path = Path(path).resolve()
    try:
        return path.relative_to(registry.NOTEBOOKS.resolve()).with_suffix("")
    except ValueError:
        return Path(path.parent.name) / path.stem


@dataclass
class _Job:
    """A notebook worker in flight: its process, where it writes, and the token its kernel inherits."""

    path: Path
    stem: Path
    proc: subprocess.Popen
    token: str
    started: float
    timeout: float
    scale: str
    seed: int
    runtime: str = ""


def _start(path: Path, out_dir: Path, parameters: dict, timeout: float, html: bool = True,
           env: dict | None = None, jobs: int = 1) -> _Job:
    """Start one notebook's worker process (its own process group; its kernel carries a token)."""
    path = Path(path).resolve()
    stem = Path(out_dir).resolve() / "notebooks" / _out_name(path)  # absolute: notebooks run in their own folder
    stem.parent.mkdir(parents=True, exist_ok=True)
    for stale in (stem.with_suffix(".claims.jsonl"), stem.with_suffix(".status.json")):
        stale.unlink(missing_ok=True)
    params = {**parameters, "RESULTS": str(stem.with_suffix(".claims.jsonl"))}
    cmd = [sys.executable, "-m", "icml26.runner", "--execute", str(path), str(stem), json.dumps(params),
           "--timeout", str(timeout)] + ([] if html else ["--no-html"])
    token = uuid.uuid4().hex
    runtime = tempfile.mkdtemp(prefix=RUNTIME_PREFIX)  # the kernel's connection file: removed with the worker
    child_env = {**os.environ, **HEADLESS_ENV, "ICML26_JOBS": str(jobs), **(env or {}), TOKEN_VAR: token,
                 PARENT_VAR: str(os.getpid()), "JUPYTER_RUNTIME_DIR": runtime, "TMPDIR": runtime}
    try:
        log = open(stem.with_suffix(".log"), "w", encoding="utf-8")  # a file, not a pipe: a pipe can fill and block
        try:
            proc = subprocess.Popen(cmd, env=child_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            log.close()
    except BaseException:
        shutil.rmtree(runtime, ignore_errors=True)
        raise
    return _Job(path, stem, proc, token, time.perf_counter(), timeout, parameters.get("SCALE", "quick"),
                parameters.get("SEED", 0), runtime)


def _stop(job: _Job) -> None:
    """Kill a worker's process group and every process that carries its token (the kernel has its own group)."""
    try:
        os.killpg(job.proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    kill_tagged(job.token)
    job.proc.wait()
    _remove_runtime(job.runtime)


def _remove_runtime(folder: str) -> None:
    """Remove a worker's kernel runtime folder (connection files of kernels that were killed)."""
    if folder and Path(folder).name.startswith(RUNTIME_PREFIX):
        shutil.rmtree(folder, ignore_errors=True)


def kill_tagged(token: str, spare: int | None = None) -> int:
    """SIGKILL every process whose environment holds ``ICML26_RUN_TOKEN=token`` (Linux ``/proc``), except the process
    ``spare``; return the count."""
    if not isinstance(token, str) or not re.fullmatch(r"[0-9a-f]{16,}", token):
        raise ValueError(f"token must be the hex run token a worker was started with; got {token!r}")
    needle = f"{TOKEN_VAR}={token}".encode()
    killed = 0
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if spare is not None and int(entry.name) == spare:
                continue
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
        except (OSError, ValueError):
            continue
    return killed


def _collect(job: _Job, timed_out: bool) -> NotebookRun:
    """The outcome of a finished (or killed) worker."""
    seconds = time.perf_counter() - job.started
    _remove_runtime(job.runtime)
    log = job.stem.with_suffix(".log")
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    log.unlink(missing_ok=True)
    run = NotebookRun(paper="", notebook=str(job.path), seconds=round(seconds, 2), scale=job.scale, seed=job.seed)
    run.records = load_records(job.stem.with_suffix(".claims.jsonl"))
    state = atomic.read_json(job.stem.with_suffix(".status.json"), default=None)
    if timed_out:
        run.status, run.error = "timeout", f"killed after {job.timeout:.0f} s\n{_tail(text)}"
    elif state is None:
        run.status, run.error = "error", f"the worker died without a status (exit {job.proc.returncode})\n{_tail(text)}"
    else:
        run.error = state.get("error", "")
        run.html = state.get("html")
        run.status = classify(state.get("raised", False), run.records, declares_claims(job.path),
                              state.get("timeout", False))
    return run


def _check_parameters(parameters) -> dict:
    if not isinstance(parameters, Mapping):
        raise TypeError(f"parameters must be a mapping of notebook parameters; got {type(parameters).__name__}")
    if "SCALE" in parameters:
        try:
            check_scale(parameters["SCALE"])
        except ValueError as exc:
            raise ValueError(f"parameters['SCALE']: {exc}") from None
    if "SEED" in parameters:
        checks.seed("parameters['SEED']", parameters["SEED"])
    return dict(parameters)


def execute_one(path: Path, out_dir: Path, parameters: dict, timeout: float, html: bool = True,
                env: dict | None = None) -> NotebookRun:
    """Execute one notebook in a fresh worker process; never raises for a failing notebook."""
    path = checks.path("path", path, kind="file")
    out_dir = checks.path("out_dir", out_dir)
    parameters = _check_parameters(parameters)
    timeout = checks.positive_number("timeout", timeout)
    job = _start(path, out_dir, parameters, timeout, html, env)
    try:
        job.proc.wait(timeout=timeout + 30)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        if job.proc.poll() is None or timed_out:
            _stop(job)
    return _collect(job, timed_out)


def classify(raised: bool, records: list[dict], declared: bool, timed_out: bool = False) -> str:
    """A notebook's status from whether it raised, what it recorded and whether it declares claims."""
    records = checks.mapping_items("records", records)
    if timed_out:
        return "timeout"
    if any(r.get("unexplained") for r in records):
        return "claim_miss"
    if raised:
        return "error"
    if declared and not records:
        return "no_claims"
    return "ok"


def _tail(text: str | None, n: int = 60) -> str:
    return "\n".join(ANSI.sub("", text or "").splitlines()[-n:])


class RunInterrupted(Exception):
    """Ctrl-C or SIGTERM stopped a run of notebooks; ``runs`` holds those that had finished."""

    def __init__(self, runs: list[NotebookRun]):
        super().__init__(f"interrupted after {len(runs)} finished notebook(s)")
        self.runs = runs


def _terminate(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def run_notebooks(items: list[tuple[str, Path]], out_dir: str | os.PathLike, scale: str = "quick", seed: int = 0,
                  device: str = "auto", jobs: int = 2, timeout: float = 600, html: bool = True,
                  progress: bool = True, env: dict | None = None) -> list[NotebookRun]:
    """Execute ``items`` (``(paper, path)`` pairs) with ``jobs`` workers; return runs in input order.

    Ctrl-C or SIGTERM cancels the queue, kills the running workers and their kernels, and raises
    :class:`RunInterrupted` holding the runs that finished (the caller saves and reports them).
    """
    check_scale(scale)
    checks.positive_int("jobs", jobs)
    timeout = checks.positive_number("timeout", timeout)
    checks.seed("seed", seed)
    choose_device(device)  # 'gpu', 'cpu:7' or an absent CUDA: a ValueError naming the device, before any work
    if isinstance(items, (str, bytes)) or not all(isinstance(i, (tuple, list)) and len(i) == 2 for i in items):
        raise TypeError("items must be a list of (paper slug, notebook path) pairs")
    for _, nb in items:
        checks.path("items", nb, kind="file")
    out_dir = checks.path("out_dir", out_dir)
    params = {"SCALE": scale, "SEED": seed, "DEVICE": device}
    runs: list[NotebookRun | None] = [None] * len(items)
    pending = list(range(len(items)))
    running: dict[int, _Job] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=f"notebooks ({scale})", unit="nb", file=sys.stderr)
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        while pending or running:
            while pending and len(running) < jobs:
                i = pending.pop(0)
                running[i] = _start(items[i][1], out_dir, params, timeout, html, env, jobs=min(jobs, len(items)))
                if bar is not None:
                    bar.set_postfix_str(f"running {Path(items[i][1]).name}")
            time.sleep(0.1)
            for i, job in list(running.items()):
                late = time.perf_counter() - job.started > timeout + 30
                if job.proc.poll() is None and not late:
                    continue
                if late:
                    _stop(job)
                del running[i]
                run = _collect(job, late)
                run.paper = items[i][0]
                run.notebook = _display_path(items[i][1])
                runs[i] = run
                if bar is not None:
                    bar.set_postfix_str(f"{Path(run.notebook).name}: {run.status}")
                    bar.update(1)
    except KeyboardInterrupt:
        for job in running.values():
            _stop(job)
        raise RunInterrupted([r for r in runs if r is not None]) from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if bar is not None:
            bar.close()
    return [r for r in runs if r is not None]


def _display_path(path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(registry.ROOT)) if path.is_relative_to(registry.ROOT) else str(path)


def save_runs(runs: list[NotebookRun], out_dir: str | os.PathLike) -> Path:
    """Write ``runs.json`` and the merged ``claims.jsonl`` into ``out_dir`` atomically."""
    _check_runs(runs)
    out_dir = checks.path("out_dir", out_dir)
    atomic.write_text(out_dir / "claims.jsonl",
                      "".join(json.dumps(r, sort_keys=True) + "\n" for run in runs for r in run.records))
    return atomic.write_json(out_dir / "runs.json", [asdict(r) for r in runs])


def _check_runs(runs) -> None:
    if isinstance(runs, (str, bytes)) or not all(isinstance(r, NotebookRun) for r in runs):
        raise TypeError("runs must be a list of NotebookRun")


def load_runs(out_dir: str | os.PathLike) -> list[NotebookRun]:
    """Read ``runs.json`` back; an absent file gives ``[]``, a corrupt one raises ``ValueError`` naming it."""
    path = checks.path("out_dir", out_dir) / "runs.json"
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is corrupt ({exc}); re-run `make reproduce` to rebuild it") from None
    if not isinstance(data, list):
        raise ValueError(f"{path} must hold a list of notebook runs; got {type(data).__name__}")
    fields = set(NotebookRun.__dataclass_fields__)
    return [NotebookRun(**{k: v for k, v in d.items() if k in fields}) for d in data if isinstance(d, dict)]


def summary(runs: list[NotebookRun]) -> str:
    """A one-screen text summary: each notebook's status and time, then claim counts."""
    _check_runs(runs)
    lines = [f"{'notebook':58s} {'status':10s} {'seconds':>8s}  claims"]
    for r in runs:
        counts = _count(r.records)
        lines.append(f"{r.notebook[:58]:58s} {r.status:10s} {r.seconds:8.1f}  {counts}")
    total = _count([rec for r in runs for rec in r.records])
    bad = [r for r in runs if not r.ok]
    lines.append(f"{len(runs)} notebooks, {len(bad)} failed; claims: {total}")
    lines += [f"  {r.notebook} {r.status}: {_reason(r.error)}" for r in bad]
    return "\n".join(lines)


def _reason(error: str | None) -> str:
    """The failure's own message: the last non-empty line of its traceback (ANSI colours removed), shortened."""
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", error or "")
    last = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "no reason recorded")
    return last if len(last) <= 300 else last[:297] + "..."


def _count(records: list[dict]) -> str:
    if not records:
        return "-"
    counts = claim_view.counts(records)
    checks = f"; checks {counts['checks_ok']}/{counts['checks']}" if counts["checks"] else ""
    return claim_view.score_cell(records) + checks


def _worker(nb_path: str, stem: str, params: dict, timeout: float, html: bool) -> int:
    """Body of the worker process: execute, convert to HTML, write the status file."""
    import papermill as pm

    stem = Path(stem)
    out_ipynb = stem.with_suffix(".ipynb")
    partial = stem.with_name(f".{stem.name}.partial.ipynb")  # papermill saves as it goes: rename when whole
    state = {"raised": False, "error": "", "html": None}
    previous = signal.signal(signal.SIGTERM, _terminate)  # a polite stop lets papermill shut its kernel down
    for attempt in range(1 + KERNEL_START_RETRIES):
        try:
            pm.execute_notebook(nb_path, str(partial), parameters=params, kernel_name="python3",
                                cwd=str(Path(nb_path).parent), execution_timeout=int(timeout),
                                progress_bar=False, log_output=False)
        except pm.PapermillExecutionError as exc:
            state["raised"] = True
            state["error"] = ANSI.sub("", "\n".join(exc.traceback) if exc.traceback else f"{exc.ename}: {exc.evalue}")
        except Exception as exc:  # kernel death, cell timeout, bad notebook: all reported, none fatal
            message = ANSI.sub("", str(exc))
            if attempt < KERNEL_START_RETRIES and any(m in message for m in KERNEL_START_FAILURES):
                continue  # the kernel never started (a port race between parallel kernels): start it again
            state["raised"] = True
            state["timeout"] = "Timeout" in type(exc).__name__ or "timed out" in message
            state["error"] = f"{type(exc).__name__}: {message}"
        break
    out_ipynb.unlink(missing_ok=True)  # an older run's notebook must not pass for this one's
    out_ipynb.with_suffix(".html").unlink(missing_ok=True)
    if partial.exists():
        problem = _unreadable_notebook(partial)
        if problem is None:
            os.replace(partial, out_ipynb)
        else:  # papermill's last save failed (a full disk): never leave an invalid notebook under the final name
            partial.unlink(missing_ok=True)
            state["raised"] = True
            state["error"] = (state["error"] + "\n" if state["error"] else "") + \
                f"the executed notebook could not be saved whole ({problem}); none was kept"
    if html and out_ipynb.exists():
        state["html"] = _to_html(out_ipynb)
    atomic.write_json(stem.with_suffix(".status.json"), state)
    signal.signal(signal.SIGTERM, previous)
    return 0


def _unreadable_notebook(path: Path) -> str | None:
    """Why the notebook file at ``path`` is not a whole notebook (a save cut short), or ``None`` when it is."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return f"{type(exc).__name__}: {exc}"
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) or "nbformat" not in nb:
        return "not a notebook (no cells or nbformat)"
    return None


def _to_html(ipynb: Path) -> str | None:
    """Convert an executed notebook to offline HTML next to it (atomically); return the file's name.

    The build folder (the parent of ``notebooks/``) holds the shared MathJax copy the pages typeset with.
    """
    from icml26.site import notebook_html

    build_dir = next((p.parent for p in ipynb.parents if p.name == "notebooks"), ipynb.parent)
    try:
        out = notebook_html(ipynb, ipynb.with_suffix(".html"), build_dir)
    except Exception:  # an export failure must not hide the notebook's own status
        return None
    return out.name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m icml26.runner", description="execute one notebook (worker)")
    parser.add_argument("--execute", nargs=3, metavar=("NOTEBOOK", "STEM", "PARAMS_JSON"), required=True)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--no-html", action="store_true")
    args = parser.parse_args(argv)
    nb, stem, params = args.execute
    signal.signal(signal.SIGTERM, _terminate)  # before the parent-death signal can arrive
    try:
        _die_with_parent(os.environ.get(PARENT_VAR))
        return _worker(nb, stem, json.loads(params), args.timeout, not args.no_html)
    except KeyboardInterrupt:  # stopped, or the runner died: the finally below stops the kernel
        return 130
    finally:
        token = os.environ.get(TOKEN_VAR, "")
        if re.fullmatch(r"[0-9a-f]{16,}", token):
            kill_tagged(token, spare=os.getpid())  # a kernel papermill could not shut down
        _remove_runtime(os.environ.get("TMPDIR", ""))


def _die_with_parent(parent_pid: str | None) -> None:
    """Ask Linux to send this process SIGTERM when its parent (the runner) dies, even by SIGKILL; elsewhere a no-op.
    A runner that died before the request took effect is caught by comparing the parent's pid."""
    if not sys.platform.startswith("linux") or not parent_pid:
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != parent_pid:
        raise SystemExit(130)


if __name__ == "__main__":
    sys.exit(main())
