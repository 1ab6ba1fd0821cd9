"""The GPU path in one prepared command: ``make gpu`` / ``python -m icml26 gpu-check``.

A GPU is lent rarely and for minutes, so this command spends them in one go, within ``--budget-s`` (480 s):

1. **the device**: its name, memory, torch and CUDA versions, and two measured ceilings: memory bandwidth
   (a large device-to-device copy, bytes read plus written) and matmul throughput (bf16, and fp32 with TF32 off);
2. **the shared attention on the device**: the fused sink and vanilla paths (on CUDA the padded construction,
   one extra key and channel) against the materialised path, values and gradients;
3. **every built paper's quick experiment, seed 0, on the device** (:func:`icml26.sweep.run_task` in a worker
   process, restarted after a failure and stopped at the budget), each claim compared with the CPU record of
   ``results/quick.jsonl`` at seed 0: learned values (paper and extension claims) within ``rtol`` (0.05) or
   ``atol`` (:func:`icml26.claims.rerun_mismatches`); a check (identity, exactness) is compared by its outcome,
   since its value is round-off and differs by design. The claims that differ are named;
4. **the benchmarks**: ``benchmarks/<slug>.py --device cuda --quick`` (``--bench-full``: their full sizes), each
   in a subprocess with a timeout;
5. **the results**: the GPU section of ``benchmarks/RESULTS.md`` (between ``<!-- gpu:start -->`` and
   ``<!-- gpu:end -->``), ``notebooks/NN_<slug>/RESULTS.md`` per paper that ran (same markers), and
   ``gpu_check.json`` (everything measured) and ``gpu_check.log`` (what was printed) in the output folder.

Papers run cheapest first (by their recorded CPU time), the benchmarks after them; what does not fit in the
budget is skipped and named. ``--dry-run`` takes the same code paths on the CPU at tiny sizes (one paper and its
benchmark by default) and writes into ``--out`` or a temporary folder, never into the committed files. ``--out DIR``
on a GPU writes the files under DIR in the repository's layout (to copy over a checkout) instead of into it.

Needs torch, numpy and this package only: no Jupyter, plotly or POT. A paper whose experiment imports a package
that is missing (POT for otp_fm, say) is reported as skipped for that reason, not as a failure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path

from icml26 import registry
from icml26.sweep import _kill_group

DEFAULT_BUDGET_S = 480.0
RTOL = 0.05
"""Relative tolerance for a learned value (paper and extension claims) on the device against its CPU record."""
ATOL = 1e-6
"""Absolute tolerance beside :data:`RTOL`, for values near zero."""
PAPER_TIMEOUT_S = 180.0
BENCH_TIMEOUT_S = 60.0
BENCH_SHARE = 0.25
"""The share of the budget kept for the benchmarks while the papers run."""
WRITE_RESERVE_S = 5.0
DRY_PAPERS = ("air_reasoning",)
"""The dry run's default papers: the quickest quick experiment (about 9 s on one CPU thread)."""
DRY_BENCH = ("atst_mdp",)
"""The dry run's default benchmark: one of the quickest ``--quick`` scripts (about 3 s of CPU time)."""
MARK_START, MARK_END = "<!-- gpu:start -->", "<!-- gpu:end -->"
SCALE, SEED = "quick", 0


@dataclass(frozen=True)
class Sizes:
    """How large the device measurements are: the copy (MiB), the square matmul, the attention shapes."""

    copy_mib: int
    copy_repeats: int
    matmul_n: int
    matmul_repeats: int
    attention: tuple[int, int, int, int]  # B, H, T, d


GPU_SIZES = Sizes(copy_mib=2048, copy_repeats=20, matmul_n=8192, matmul_repeats=10, attention=(4, 8, 256, 64))
DRY_SIZES = Sizes(copy_mib=16, copy_repeats=3, matmul_n=128, matmul_repeats=2, attention=(2, 2, 16, 8))


@dataclass(frozen=True)
class Options:
    """A checked gpu-check request (built by :func:`options`)."""

    dry_run: bool
    papers: tuple[str, ...]
    bench: tuple[str, ...]
    out: Path
    writes_checkout: bool
    budget_s: float
    rtol: float
    atol: float
    paper_timeout_s: float
    bench_timeout_s: float
    bench_full: bool
    device: str

    @property
    def sizes(self) -> Sizes:
        return DRY_SIZES if self.dry_run else GPU_SIZES


@dataclass
class Report:
    """What a gpu-check measured and wrote; ``lines`` is what it printed."""

    options: Options
    device: dict = field(default_factory=dict)
    kernels: list[dict] = field(default_factory=list)
    papers: dict[str, dict] = field(default_factory=dict)
    bench: dict[str, dict] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    seconds: float = 0.0
    date: str = field(default_factory=lambda: datetime.now(timezone.utc).date().isoformat())

    def say(self, line: str) -> None:
        self.lines.append(line)
        print(line, flush=True)

    @property
    def ok(self) -> bool:
        return (all(k.get("ok") for k in self.kernels) and not self.device.get("error")
                and all(p["status"] in ("agree", "skipped") for p in self.papers.values()))

    def as_json(self) -> dict:
        o = self.options
        return {"kind": "icml26 gpu-check", "date": self.date, "dry_run": o.dry_run, "budget_s": o.budget_s,
                "seconds": round(self.seconds, 1), "ok": self.ok,
                "tolerance": {"rtol": o.rtol, "atol": o.atol, "learned": "paper and extension claims: "
                              "|device - cpu| <= atol + rtol |cpu|", "checks": "the same outcome as on the CPU"},
                "device": self.device, "kernels": self.kernels, "papers": self.papers, "bench": self.bench,
                "skipped": self.skipped, "files": self.files}


# -- the request ----------------------------------------------------------------------------------------------

def _number(name: str, value, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or (value <= 0 if positive else value < 0):
        raise ValueError(f"{name} must be a finite {'positive' if positive else 'non-negative'} number; got {value!r}")
    return float(value)


def options(*, dry_run: bool = False, papers: str | list[str] | tuple[str, ...] | None = None,
            bench: str | list[str] | tuple[str, ...] | None = None, out: str | os.PathLike | None = None,
            budget_s: float = DEFAULT_BUDGET_S, rtol: float = RTOL,
            atol: float = ATOL, paper_timeout_s: float = PAPER_TIMEOUT_S, bench_timeout_s: float = BENCH_TIMEOUT_S,
            bench_full: bool = False, device: str = "cuda") -> Options:
    """Check a request; ``ValueError`` naming the argument (as its command-line option) otherwise.

    Without ``dry_run`` the device must be CUDA and present. ``papers`` (slugs, or comma-separated text) defaults
    to every built paper (dry run: :data:`DRY_PAPERS`); ``bench`` (slugs, or ``"none"``) names the benchmark
    scripts to run, by default the papers' own (dry run: :data:`DRY_BENCH`). ``out`` defaults to the checkout
    (dry run: a new temporary folder); a dry run refuses to write into the checkout.
    """
    if not isinstance(dry_run, bool):
        raise ValueError(f"--dry-run must be True or False; got {dry_run!r}")
    if not isinstance(bench_full, bool):
        raise ValueError(f"--bench-full must be True or False; got {bench_full!r}")
    budget_s = _number("--budget-s", budget_s)
    if budget_s < 30:
        raise ValueError(f"--budget-s must be at least 30 seconds (the device probe and one paper); got {budget_s:g}")
    rtol, atol = _number("--rtol", rtol, positive=False), _number("--atol", atol, positive=False)
    paper_timeout_s = _number("--paper-timeout-s", paper_timeout_s)
    bench_timeout_s = _number("--bench-timeout-s", bench_timeout_s)
    slugs = _papers(papers, dry_run)
    scripts = _bench(bench, slugs, dry_run)
    if not isinstance(device, str) or device.split(":", 1)[0] not in ("cpu", "cuda"):
        raise ValueError(f"--device must be 'cuda', 'cuda:N' or (with --dry-run) 'cpu'; got {device!r}")
    if dry_run:
        device = "cpu"
    else:
        from icml26.runtime import choose_device

        if not device.startswith("cuda"):
            raise ValueError(f"--device {device!r}: gpu-check measures a CUDA device; --dry-run runs its steps on "
                             "the CPU")
        try:
            choose_device(device)
        except ValueError:
            raise ValueError(f"--device {device!r}: this machine has no CUDA device; --dry-run runs the same steps "
                             "on the CPU at tiny sizes") from None
    root = registry.ROOT.resolve()
    if out is None:
        if dry_run:
            folder = Path(tempfile.mkdtemp(prefix="icml26-gpu-check-"))
        elif registry.ROOT == registry.CHECKOUT:
            folder = root
        else:
            raise ValueError("--out: an installed package has no checkout to write its results into; name a folder")
    else:
        if not isinstance(out, (str, os.PathLike)) or not str(out).strip():
            raise ValueError(f"--out must be a folder; got {out!r}")
        folder = Path(out).expanduser().resolve()
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"--out must be a folder; {str(folder)!r} is a file")
        if dry_run and folder == root:
            raise ValueError("--out: a dry run never writes into the committed files; name another folder "
                             "(or leave --out out for a temporary one)")
    return Options(dry_run=dry_run, papers=slugs, bench=scripts, out=folder, writes_checkout=folder == root,
                   budget_s=budget_s,
                   rtol=rtol, atol=atol, paper_timeout_s=paper_timeout_s, bench_timeout_s=bench_timeout_s,
                   bench_full=bench_full, device=device)


def _slugs(name: str, value) -> list[registry.Paper] | None:
    """Papers named by comma-separated text or a list of slugs; ``None`` when nothing is named."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, (list, tuple)) and all(isinstance(s, str) for s in value):
        value = ",".join(value)
    if not isinstance(value, str):
        raise ValueError(f"{name} must be comma-separated slugs; got {value!r}")
    try:
        return registry.parse_papers(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc.args[0].removeprefix('spec: ')}") from None


def _papers(papers, dry_run: bool) -> tuple[str, ...]:
    chosen = _slugs("--papers", papers)
    if chosen is None:
        return DRY_PAPERS if dry_run else tuple(p.slug for p in registry.PAPERS if p.status == "built")
    planned = [p.slug for p in chosen if p.status != "built"]
    if planned:
        raise ValueError(f"--papers: not built yet (no claims or notebooks): {', '.join(planned)}")
    return tuple(dict.fromkeys(p.slug for p in chosen))


def _bench(bench, papers: tuple[str, ...], dry_run: bool) -> tuple[str, ...]:
    if isinstance(bench, str) and bench.strip() == "none":
        return ()
    chosen = _slugs("--bench", bench)
    if chosen is None:
        names = DRY_BENCH if dry_run else papers
        return tuple(s for s in names if (registry.ROOT / "benchmarks" / f"{s}.py").is_file())
    lacking = [p.slug for p in chosen if not (registry.ROOT / "benchmarks" / f"{p.slug}.py").is_file()]
    if lacking:
        raise ValueError(f"--bench: no benchmark script benchmarks/<slug>.py for {', '.join(lacking)}")
    return tuple(dict.fromkeys(p.slug for p in chosen))


# -- 1. the device ----------------------------------------------------------------------------------------------

def probe_device(device_name: str, sizes: Sizes) -> dict:
    """The device's name, memory and versions, its measured copy bandwidth and matmul throughput."""
    import platform

    import torch

    from icml26.bench import time_call

    device = torch.device(device_name)
    info = {"type": device.type, "torch": torch.__version__, "python": platform.python_version(),
            "threads": torch.get_num_threads()}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info.update(name=props.name, memory_gib=round(props.total_memory / 2**30, 1),
                    capability=f"sm_{props.major}{props.minor}", multiprocessors=props.multi_processor_count,
                    cuda=torch.version.cuda)
    else:
        info.update(name=f"CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores visible)")
    info["bandwidth_gb_s"] = round(_copy_bandwidth(device, sizes.copy_mib * 2**20, sizes.copy_repeats) / 1e9, 1)
    info["copy"] = f"{sizes.copy_mib} MiB, {sizes.copy_repeats} copies"
    info["matmul_tflop_s"] = {}
    info["matmul_n"] = sizes.matmul_n
    tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        g = torch.Generator(device=device).manual_seed(0)
        for dtype in (torch.bfloat16, torch.float32):
            a, b = (torch.randn(sizes.matmul_n, sizes.matmul_n, generator=g, device=device).to(dtype) for _ in "ab")
            t = time_call(partial(torch.matmul, a, b), sizes.matmul_repeats, device, warmup=2)
            info["matmul_tflop_s"][str(dtype).removeprefix("torch.")] = round(2 * sizes.matmul_n ** 3 / t / 1e12, 2)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    if device.type == "cuda":
        torch.cuda.empty_cache()  # the workers that run the papers get the memory back
    return info


def _copy_bandwidth(device, nbytes: int, repeats: int) -> float:
    """Bytes per second read plus written by a device-to-device copy of ``nbytes``."""
    import torch

    from icml26.bench import time_call

    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    t = time_call(partial(dst.copy_, src), repeats, device)
    return 2 * src.numel() * 4 / t


def device_lines(info: dict) -> list[str]:
    mm = ", ".join(f"{k} {v:g} TFLOP/s" for k, v in info.get("matmul_tflop_s", {}).items())
    extra = (f", {info['memory_gib']:g} GiB, {info['capability']}, {info['multiprocessors']} SMs, CUDA {info['cuda']}"
             if info.get("type") == "cuda" else "")
    return [f"device: {info.get('name')}{extra}; torch {info.get('torch')}, Python {info.get('python')}",
            f"memory bandwidth: {info.get('bandwidth_gb_s')} GB/s (copy of {info.get('copy')}, bytes read + written)",
            f"matmul throughput (n={info.get('matmul_n')}, TF32 off): {mm}"]


# -- 2. the shared attention on the device ----------------------------------------------------------------------

KERNEL_TOL = {"float32": 1e-4, "bfloat16": 5e-2, "float64": 1e-10}


def attention_parity(device_name: str, shape: tuple[int, int, int, int]) -> list[dict]:
    """The fused sink and vanilla attention (the device's own route) against the materialised path in float32.

    One row per (variant, dtype): the largest absolute difference of the output, the gate and the gradients of
    q, k, v (and the sink logit), and whether it is within :data:`KERNEL_TOL` times the largest magnitude.
    """
    import torch

    from icml26.nn.attention import attention, fused_attention

    device = torch.device(device_name)
    dtypes = (torch.float32, torch.bfloat16) if device.type == "cuda" else (torch.float32,)
    rows = []
    b, h, t, d = shape
    for variant in ("sink", "vanilla"):
        for dtype in dtypes:
            g = torch.Generator(device=device).manual_seed(0)
            q, k, v = (torch.randn(b, h, t, d, generator=g, device=device).to(dtype).requires_grad_(True)
                       for _ in range(3))
            sink = (torch.randn(h, generator=g, device=device).to(dtype).requires_grad_(True)
                    if variant == "sink" else None)
            w = torch.randn(b, h, t, d, generator=g, device=device).to(dtype)
            inputs = [q, k, v] + ([sink] if sink is not None else [])
            ref_inputs = [x.detach().float().requires_grad_(True) for x in inputs]  # the reference in float32
            outs = []
            for fn, xs in ((attention, ref_inputs), (fused_attention, inputs)):
                r = fn(*xs[:3], variant=variant, causal=True, sink_logit=xs[3] if sink is not None else None)
                grads = torch.autograd.grad((r.out * w.to(r.out.dtype)).sum() + r.gate.sum(), xs)
                outs.append([r.out, r.gate, *grads])
            names = ["out", "gate", "dq", "dk", "dv"] + (["dsink"] if sink is not None else [])
            diffs, ok = {}, True
            tol = KERNEL_TOL[str(dtype).removeprefix("torch.")]
            for name, ref, got in zip(names, *outs):
                diff = (ref.float() - got.float()).abs().max().item()
                scale = max(ref.float().abs().max().item(), 1.0)
                diffs[name] = diff
                ok = ok and math.isfinite(diff) and diff <= tol * scale
            rows.append({"variant": variant, "dtype": str(dtype).removeprefix("torch."), "shape": list(shape),
                         "max_abs_diff": diffs, "tol": tol, "ok": ok})
    return rows


def kernel_line(row: dict) -> str:
    worst = max(row["max_abs_diff"].items(), key=lambda kv: kv[1])
    return (f"fused {row['variant']} attention ({row['dtype']}, B,H,T,d={tuple(row['shape'])}) against the "
            f"materialised path: largest difference {worst[1]:.1e} ({worst[0]}), tolerance {row['tol']:g} x scale: "
            f"{'ok' if row['ok'] else 'DIFFERS'}")


# -- 3. the papers on the device --------------------------------------------------------------------------------

def _recorded_seconds(recorded: list[dict]) -> dict[str, tuple[float, int | None]]:
    """Each paper's recorded CPU seconds (and threads) at quick seed 0."""
    out = {}
    for r in recorded:
        if r.get("scale") == SCALE and SEED in (r.get("seeds") or []) and isinstance(r.get("seconds"), list):
            i = r["seeds"].index(SEED)
            if i < len(r["seconds"]) and r["paper"] not in out:
                out[r["paper"]] = (float(r["seconds"][i]), r.get("threads"))
    return out


def _worker(spec_path: str, out_path: str) -> int:
    """The worker: run each paper's quick seed 0 in turn, one JSON line per start and per result.

    On CUDA it stops at the first error (a device-side failure can leave the context unusable); the parent
    starts a fresh worker for the papers that remain.
    """
    from icml26.sweep import Task, run_task

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    device, modules = spec["device"], spec.get("modules") or {}
    with open(out_path, "a", encoding="utf-8") as fh:
        def emit(entry):
            fh.write(json.dumps(entry) + "\n")
            fh.flush()

        for paper in spec["papers"]:
            emit({"start": paper})
            start = time.perf_counter()
            try:
                run = run_task(Task(paper, SCALE, SEED, device, module=modules.get(paper)))
                emit({"paper": paper, "run": run, "seconds": time.perf_counter() - start})
            except Exception as exc:  # reported per paper: one paper's failure must not hide the others
                missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
                if missing and missing.split(".")[0] == "icml26":
                    missing = None
                emit({"paper": paper, "error": traceback.format_exc()[-4000:], "missing": missing,
                      "seconds": time.perf_counter() - start})
                if device.startswith("cuda") and not missing:
                    return 3
    return 0


def _env() -> dict[str, str]:
    """The environment of the worker and benchmark processes: this package importable, output unbuffered."""
    path = os.pathsep.join(filter(None, [str(registry.PACKAGE.parent), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1"}


def run_papers(papers: list[str], device: str, deadline: float, paper_timeout_s: float,
               say=print, modules: dict[str, str] | None = None) -> tuple[dict[str, dict], list[str]]:
    """Run ``papers`` on ``device`` in worker processes until ``deadline`` (``time.monotonic``).

    Returns each paper's raw outcome (``run`` or ``error``, ``seconds``; ``budget`` when the deadline stopped it)
    and the papers not started for the budget. ``modules`` maps a paper to the package holding its experiment and
    claims (default: the registered paper's; the tests use a toy).
    """
    results: dict[str, dict] = {}
    pending = list(papers)
    skipped: list[str] = []
    tmp = Path(tempfile.mkdtemp(prefix="icml26-gpu-worker-"))
    env = {**_env(), "ICML26_JOBS": "1"}
    try:
        attempt = 0
        while pending:
            if deadline - time.monotonic() < 5:
                skipped.extend(pending)
                break
            attempt += 1
            spec, out, log = (tmp / f"{name}-{attempt}" for name in ("spec.json", "out.jsonl", "log.txt"))
            spec.write_text(json.dumps({"device": device, "papers": pending, "modules": modules or {}}),
                            encoding="utf-8")
            out.touch()
            with open(log, "w", encoding="utf-8") as log_fh:
                proc = subprocess.Popen([sys.executable, "-m", "icml26.gpu_check", "--worker", str(spec), str(out)],
                                        env=env, stdout=log_fh, stderr=subprocess.STDOUT, start_new_session=True)
            current, since, offset, progressed, stop = None, time.monotonic(), 0, False, False
            while True:
                finished = proc.poll() is not None
                with open(out, encoding="utf-8") as fh:
                    fh.seek(offset)
                    chunk = fh.read()
                complete = chunk[:chunk.rfind("\n") + 1]
                offset += len(complete.encode("utf-8"))
                for line in complete.splitlines():
                    entry = json.loads(line)
                    if "start" in entry:
                        current, since = entry["start"], time.monotonic()
                        continue
                    results[entry["paper"]] = entry
                    pending.remove(entry["paper"])
                    current, progressed = None, True
                    say(f"  {entry['paper']}: {'ran' if 'run' in entry else 'failed'} in {entry['seconds']:.1f} s")
                if finished:
                    break
                now = time.monotonic()
                over_budget = now > deadline
                if over_budget or (current is not None and now - since > paper_timeout_s):
                    _kill_group(proc)
                    if current is not None:
                        why = "stopped at the time budget" if over_budget else f"timed out after {paper_timeout_s:g} s"
                        results[current] = {"paper": current, "error": why, "budget": over_budget,
                                            "seconds": now - since}
                        pending.remove(current)
                        say(f"  {current}: {why}")
                    current, progressed, stop = None, True, over_budget
                    break
                time.sleep(0.1)
            if current is not None:  # the worker died in the middle of a paper
                tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
                results[current] = {"paper": current, "seconds": time.monotonic() - since,
                                    "error": f"the worker exited with status {proc.returncode}\n{tail}"}
                pending.remove(current)
                progressed = True
            if stop:
                skipped.extend(pending)
                break
            if pending and not progressed:  # it failed before any paper started: the same would happen again
                tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
                for paper in pending:
                    results[paper] = {"paper": paper, "seconds": 0.0,
                                      "error": f"the worker exited with status {proc.returncode} before it ran a "
                                               f"paper\n{tail}"}
                pending = []
    finally:
        for f in tmp.glob("*"):
            f.unlink(missing_ok=True)
        tmp.rmdir()
    return results, skipped


def compare_paper(paper: str, raw: dict, recorded: list[dict], rtol: float, atol: float,
                  cpu_seconds: tuple[float, int | None] | None = None) -> dict:
    """One paper's outcome on the device against its CPU record at quick seed 0 (see the module docstring)."""
    from icml26.claims import latest, rerun_mismatches
    from icml26.sweep import Outcome, SweepResult, Task

    entry = {"paper": paper, "seconds": round(float(raw.get("seconds", 0.0)), 1),
             "cpu_seconds": cpu_seconds[0] if cpu_seconds else None,
             "cpu_threads": cpu_seconds[1] if cpu_seconds else None}
    if "run" not in raw:
        missing = raw.get("missing")
        entry.update(status="skipped" if missing or raw.get("budget") else "failed", missing=missing,
                     budget=bool(raw.get("budget")), error=raw.get("error", ""))
        return entry
    task = Task(paper, SCALE, SEED, raw["run"].get("device", "cpu"))
    records = SweepResult([Outcome(task, run=raw["run"], seconds=raw.get("seconds", 0.0))]).records()[paper]
    learned = [r for r in records if r["kind"] != "check"]
    problems = rerun_mismatches(learned, recorded, rtol=rtol, atol=atol) if learned else []
    unrecorded = [p for p in problems if ": no record at " in p]
    differ = [p for p in problems if p not in unrecorded]
    book = latest(recorded)
    rows = []
    for r in records:
        old = book.get((paper, SCALE, r["claim"]))
        i = old["seeds"].index(SEED) if old and SEED in (old.get("seeds") or []) else None
        cpu_value = old["values"][i] if i is not None else None
        cpu_outcome = old["outcomes"][i] if i is not None and old.get("outcomes") else None
        value, outcome = r["values"][0], r["outcomes"][0]
        named = any(p.startswith(f"{paper}/{r['claim']}:") for p in differ)
        if r["kind"] == "check" and i is not None and outcome != cpu_outcome:
            differ.append(f"{paper}/{r['claim']}: check {outcome} on the device, {cpu_outcome} on the CPU "
                          f"(value {_num(value)}, recorded {_num(cpu_value)})")
            named = True
        elif r["kind"] != "check" and i is not None and outcome != cpu_outcome and not named:
            differ.append(f"{paper}/{r['claim']}: {outcome} on the device, {cpu_outcome} on the CPU "
                          f"(value {_num(value)}, recorded {_num(cpu_value)})")
            named = True
        rows.append({"claim": r["claim"], "kind": r["kind"], "cpu": cpu_value, "device": value,
                     "rel_diff": _rel(value, cpu_value), "cpu_outcome": cpu_outcome, "device_outcome": outcome,
                     "agrees": None if i is None else not named})
    entry.update(status="differs" if differ else "agree", claims=len(records), differ=differ,
                 unrecorded=unrecorded, rows=rows, device=raw["run"].get("device"), torch=raw["run"].get("torch"),
                 run=raw["run"])
    return entry


def _rel(a, b) -> float | None:
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
        return None
    return abs(a - b) / max(abs(b), 1e-300) if a != b else 0.0


def _num(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.4g}"


def paper_line(p: dict, rtol: float) -> str:
    cpu = f"; CPU record {p['cpu_seconds']:.1f} s" if p.get("cpu_seconds") is not None else ""
    if p["status"] == "skipped" and p.get("budget"):
        return f"paper {p['paper']}: stopped at the time budget after {p['seconds']:.1f} s{cpu}"
    if p["status"] == "skipped":
        return f"paper {p['paper']}: skipped, it needs the package {p['missing']!r}, which is not installed here"
    if p["status"] == "failed":
        first = (p.get("error") or "").strip().splitlines()
        return f"paper {p['paper']}: FAILED after {p['seconds']:.1f} s: {first[-1] if first else 'no message'}"
    compared = sum(r["agrees"] is not None for r in p["rows"])
    head = (f"paper {p['paper']}: {compared - len(p['differ'])} of {compared} claims agree with the CPU record "
            f"(quick seed 0, rtol {rtol:g}) in {p['seconds']:.1f} s{cpu}")
    if p["differ"]:
        head += f"; {len(p['differ'])} differ: " + ", ".join(d.split(":")[0] for d in p["differ"])
    if p["unrecorded"]:
        head += f"; {len(p['unrecorded'])} without a CPU record"
    return head


# -- 4. the benchmarks ------------------------------------------------------------------------------------------

def run_bench(slug: str, device: str, timeout_s: float, full: bool = False) -> dict:
    """``benchmarks/<slug>.py --device DEVICE [--quick]`` in a subprocess with a timeout; its printed lines."""
    script = registry.ROOT / "benchmarks" / f"{slug}.py"
    cmd = [sys.executable, str(script), "--device", device] + ([] if full else ["--quick"])
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=_env(),
                              cwd=registry.ROOT)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return {"status": "timeout", "seconds": round(time.monotonic() - start, 1), "size": "full" if full else "quick",
                "lines": [s for s in out.splitlines() if s.strip()][:40], "error": f"timed out after {timeout_s:g} s"}
    lines = [s for s in proc.stdout.splitlines() if s.strip()][:40]
    entry = {"status": "ok" if proc.returncode == 0 else "failed", "seconds": round(time.monotonic() - start, 1),
             "size": "full" if full else "quick", "lines": lines}
    if proc.returncode:
        entry["error"] = f"exit status {proc.returncode}: {proc.stderr.strip()[-2000:]}"
    return entry


# -- 5. the results files ---------------------------------------------------------------------------------------

def replace_section(text: str, body: str) -> str:
    """``text`` with the part between :data:`MARK_START` and :data:`MARK_END` replaced by ``body``
    (the marked block is appended when the text has no markers)."""
    a, b = text.find(MARK_START), text.find(MARK_END)
    if (a < 0) != (b < 0) or (a >= 0 and b < a) or text.count(MARK_START) > 1 or text.count(MARK_END) > 1:
        raise ValueError(f"text must hold {MARK_START} and {MARK_END} once each, in that order, or neither")
    block = f"{MARK_START}\n{body.strip()}\n{MARK_END}"
    if a < 0:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    return text[:a] + block + text[b + len(MARK_END):]


def _heading(report: Report) -> str:
    d, o = report.device, report.options
    name = d.get("name", "unknown device")
    what = "dry run on the CPU at tiny sizes (not a GPU measurement)" if o.dry_run else name
    cuda = f" + CUDA {d['cuda']}" if d.get("cuda") else ""
    return f"{what}, torch {d.get('torch', '?')}{cuda}, {report.date}"


def bench_section(report: Report) -> str:
    d, o = report.device, report.options
    out = [f"### {_heading(report)}", "",
           f"Written by `python -m icml26 gpu-check` (`make gpu{' ARGS=--dry-run' if o.dry_run else ''}`) in "
           f"{report.seconds:.0f} s of a {o.budget_s:g} s budget. Ratios are the scripts' own lines "
           f"({'full sizes' if o.bench_full else 'their `--quick` sizes'}, on {o.device}); above 1x ours is faster.",
           ""]
    if d.get("bandwidth_gb_s") is not None:
        mm = ", ".join(f"{k} {v:g} TFLOP/s" for k, v in d.get("matmul_tflop_s", {}).items())
        out += [f"Device ceilings, measured: memory bandwidth {d['bandwidth_gb_s']} GB/s (copy of {d['copy']}, "
                f"bytes read + written); matmul n={d['matmul_n']} (TF32 off): {mm}.", ""]
    elif d.get("error"):
        out += [f"The device probe failed: `{d['error'].strip().splitlines()[-1]}`", ""]
    for row in report.kernels:
        out.append(f"- {kernel_line(row)}")
    if report.kernels:
        out.append("")
    if report.bench:
        out += ["| paper | status | seconds | printed |", "|---|---|---|---|"]
        for slug, b in report.bench.items():
            printed = "<br>".join(s.replace("|", "\\|") for s in b.get("lines", [])) or "-"
            status = b["status"] + (f": {b['error'].splitlines()[0]}" if b.get("error") else "")
            out.append(f"| {slug} | {status.replace('|', '/')} | {b['seconds']:.1f} | {printed} |")
        out.append("")
    skipped = [s for s in report.skipped if s.startswith("bench ")]
    if skipped:
        out.append("Not run within the budget: " + ", ".join(s.removeprefix("bench ") for s in skipped) + ".")
    if not report.bench and not skipped:
        out.append("No benchmark ran.")
    return "\n".join(out)


def paper_section(report: Report, p: dict) -> str:
    o = report.options
    out = [f"## {SCALE} scale, seed {SEED}: {_heading(report)}", "",
           f"Written by `python -m icml26 gpu-check`. {paper_line(p, o.rtol)}.", ""]
    if p["status"] in ("failed", "skipped"):
        if p.get("error"):
            out += ["```", p["error"].strip()[-1500:], "```"]
        return "\n".join(out)
    out += [f"Learned values (paper and extension claims) agree when |device - CPU| <= {o.atol:g} + {o.rtol:g} |CPU|; "
            "a check agrees when its outcome is the same (its value is round-off).", "",
            "| claim | kind | CPU (seed 0) | device | relative difference | CPU outcome | device outcome | agrees |",
            "|---|---|---|---|---|---|---|---|"]
    for r in p["rows"]:
        agrees = {True: "yes", False: "**no**", None: "no record"}[r["agrees"]]
        if r["agrees"] and r["cpu"] is None and r["device"] is None:
            agrees = "- (not measured at quick)"
        rel = "-" if r["rel_diff"] is None else f"{r['rel_diff']:.1e}"
        out.append(f"| `{r['claim']}` | {r['kind']} | {_num(r['cpu'])} | {_num(r['device'])} | {rel} | "
                   f"{r['cpu_outcome'] or '-'} | {r['device_outcome']} | {agrees} |")
    if p["differ"]:
        out += ["", "Differences:", ""] + [f"- {d}" for d in p["differ"]]
    return "\n".join(out)


def _base(path_in_repo: str, out: Path, default: str) -> str:
    for candidate in (out / path_in_repo, registry.ROOT / path_in_repo):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    return default


def write_outputs(report: Report) -> list[Path]:
    """Write the results files under the report's output folder (see the module docstring)."""
    from icml26 import atomic

    out = report.options.out
    written = []
    bench_md = "benchmarks/RESULTS.md"
    text = _base(bench_md, out, "# Benchmark results\n")
    written.append(atomic.write_text(out / bench_md, replace_section(text, bench_section(report))))
    for slug, p in report.papers.items():
        paper = registry.get(slug)
        rel = f"notebooks/{paper.folder}/RESULTS.md"
        default = (f"# {paper.title}: results measured on a GPU\n\n"
                   "Written by `python -m icml26 gpu-check` (`make gpu`); the CPU records are in `results/`.\n")
        text = _base(rel, out, default)
        written.append(atomic.write_text(out / rel, replace_section(text, paper_section(report, p))))
    report.files = [str(p) for p in written] + [str(out / "gpu_check.json"), str(out / "gpu_check.log")]
    written.append(atomic.write_json(out / "gpu_check.json", report.as_json()))
    written.append(atomic.write_text(out / "gpu_check.log", "\n".join(report.lines) + "\n"))
    return written


# -- the whole check --------------------------------------------------------------------------------------------

def check(opts: Options) -> Report:
    """Run every step of the check within ``opts.budget_s`` and write the results (see the module docstring)."""
    if not isinstance(opts, Options):
        raise TypeError(f"opts must be gpu_check.Options (from gpu_check.options()); got {type(opts).__name__}")
    from icml26.claims import load_records
    from icml26.runtime import set_threads

    start = time.monotonic()
    deadline = start + opts.budget_s
    report = Report(opts)
    set_threads()
    report.say(f"gpu-check: {'dry run on the CPU at tiny sizes' if opts.dry_run else 'on ' + opts.device}, "
               f"budget {opts.budget_s:g} s, papers {', '.join(opts.papers)}, benchmarks "
               f"{', '.join(opts.bench) or 'none'}; results into {opts.out}")
    try:
        report.device = probe_device(opts.device, opts.sizes)
        for line in device_lines(report.device):
            report.say(line)
    except Exception as exc:  # a CUDA-only failure is a finding: say it and go on with the papers
        report.device = {"type": opts.device, "error": traceback.format_exc()[-3000:]}
        report.say(f"device probe FAILED: {type(exc).__name__}: {exc}")
    try:
        report.kernels = attention_parity(opts.device, opts.sizes.attention)
        for row in report.kernels:
            report.say(kernel_line(row))
    except Exception as exc:
        report.kernels = [{"variant": "sink", "dtype": "-", "shape": list(opts.sizes.attention),
                           "max_abs_diff": {"error": float("nan")}, "tol": 0.0, "ok": False,
                           "error": traceback.format_exc()[-3000:]}]
        report.say(f"fused attention on the device FAILED: {type(exc).__name__}: {exc}")

    recorded = load_records(registry.RESULTS / f"{SCALE}.jsonl")
    cpu_seconds = _recorded_seconds(recorded)
    order = sorted(opts.papers, key=lambda s: (cpu_seconds.get(s, (math.inf,))[0], s))
    scripts = sorted(opts.bench, key=lambda s: (cpu_seconds.get(s, (math.inf,))[0], s))
    bench_reserve = min(BENCH_SHARE * opts.budget_s, len(scripts) * opts.bench_timeout_s)
    report.say(f"papers on {opts.device}, cheapest first, until {opts.budget_s - bench_reserve - WRITE_RESERVE_S:.0f} s"
               f" (the rest of the budget is kept for {len(scripts)} benchmark script(s)):")
    raw, skipped = run_papers(order, opts.device, deadline - bench_reserve - WRITE_RESERVE_S,
                              opts.paper_timeout_s, say=report.say)
    for slug in order:
        if slug in raw:
            p = compare_paper(slug, raw[slug], recorded, opts.rtol, opts.atol, cpu_seconds.get(slug))
            report.papers[slug] = p
            report.say(paper_line(p, opts.rtol))
            for d in p.get("differ", []):
                report.say(f"  differs: {d}")
    if skipped:
        report.skipped += [f"paper {s}" for s in skipped]
        report.say(f"papers not run within the budget: {', '.join(skipped)}")

    for slug in scripts:
        left = deadline - WRITE_RESERVE_S - time.monotonic()
        if left < 5:
            report.skipped.append(f"bench {slug}")
            continue
        b = run_bench(slug, opts.device, min(opts.bench_timeout_s, left), full=opts.bench_full)
        report.bench[slug] = b
        report.say(f"bench {slug} ({b['size']} sizes, {opts.device}): {b['status']} in {b['seconds']:.1f} s"
                   + (f": {b['error'].splitlines()[0]}" if b.get("error") else ""))
        for line in b["lines"]:
            report.say(f"  {line}")
    bench_skipped = [s.removeprefix("bench ") for s in report.skipped if s.startswith("bench ")]
    if bench_skipped:
        report.say(f"benchmarks not run within the budget: {', '.join(bench_skipped)}")
    report.seconds = time.monotonic() - start
    differ = [s for s, p in report.papers.items() if p["status"] == "differs"]
    failed = [s for s, p in report.papers.items() if p["status"] == "failed"]
    stopped = [s for s, p in report.papers.items() if p.get("budget")]
    lacking = [s for s, p in report.papers.items() if p.get("missing")]
    report.say(f"gpu-check {'ok' if report.ok else 'found problems'} in {report.seconds:.0f} s: "
               f"{sum(p['status'] == 'agree' for p in report.papers.values())} paper(s) agree, "
               f"{len(differ)} differ{' (' + ', '.join(differ) + ')' if differ else ''}, "
               f"{len(failed)} failed{' (' + ', '.join(failed) + ')' if failed else ''}, "
               f"{len(report.skipped) + len(stopped)} skipped for the budget"
               + (f", {len(lacking)} for a missing package ({', '.join(lacking)})" if lacking else ""))
    written = write_outputs(report)
    print("wrote: " + ", ".join(str(p) for p in written), flush=True)
    return report


# -- command line -----------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``python -m icml26 gpu-check`` (shared by the package's command line)."""
    parser.add_argument("--dry-run", action="store_true",
                        help="the same steps on the CPU at tiny sizes, written into --out or a temporary folder")
    parser.add_argument("--papers", default="",
                        help=f"comma-separated slugs (default: every built paper; dry run: {','.join(DRY_PAPERS)})")
    parser.add_argument("--bench", default="",
                        help="benchmark scripts to run: comma-separated slugs or 'none' (default: the papers' own; "
                             f"dry run: {','.join(DRY_BENCH)})")
    parser.add_argument("--out", default=None,
                        help="folder for the results files in the repository's layout (default: the checkout; "
                             "dry run: a temporary folder)")
    parser.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S,
                        help=f"the whole check's time budget in seconds (default {DEFAULT_BUDGET_S:g})")
    parser.add_argument("--rtol", type=float, default=RTOL, help=f"relative tolerance of learned values ({RTOL:g})")
    parser.add_argument("--atol", type=float, default=ATOL, help=f"absolute tolerance beside it ({ATOL:g})")
    parser.add_argument("--paper-timeout-s", type=float, default=PAPER_TIMEOUT_S,
                        help=f"most seconds one paper's quick experiment may take ({PAPER_TIMEOUT_S:g})")
    parser.add_argument("--bench-timeout-s", type=float, default=BENCH_TIMEOUT_S,
                        help=f"most seconds one benchmark script may take ({BENCH_TIMEOUT_S:g})")
    parser.add_argument("--bench-full", action="store_true", help="run the benchmark scripts at their full sizes")
    parser.add_argument("--device", default="cuda", help="cuda or cuda:N (the dry run uses the CPU)")
    return parser


def cmd(args: argparse.Namespace) -> int:
    """Run a parsed gpu-check; 2 on bad input (the message names the option), 1 when something differed or failed."""
    try:
        opts = options(dry_run=args.dry_run, papers=args.papers, bench=args.bench, out=args.out, budget_s=args.budget_s,
                       rtol=args.rtol, atol=args.atol, paper_timeout_s=args.paper_timeout_s,
                       bench_timeout_s=args.bench_timeout_s, bench_full=args.bench_full, device=args.device)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if check(opts).ok else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m icml26.gpu_check [--dry-run] [--papers a,b] [--out DIR] [--budget-s 480] ...``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--worker"]:
        if len(argv) != 3:
            print("error: --worker takes SPEC_JSON and OUT_JSONL", file=sys.stderr)
            return 2
        return _worker(argv[1], argv[2])
    parser = add_arguments(argparse.ArgumentParser(prog="python -m icml26 gpu-check", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter))
    return cmd(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
