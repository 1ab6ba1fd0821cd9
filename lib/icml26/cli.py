"""Command line: ``python -m icml26 list | run | sweep | margins | diagnose | rescore | reproduce | docs | ...``.

``run`` executes a paper's experiment over one or more seeds and checks its claims without Jupyter (how
a bare GPU machine runs ``--scale full``); ``sweep`` does the same for several papers, on a local process
pool or a Dask cluster; ``reproduce`` executes notebooks through papermill and writes the scoreboard.
Bad input (an unknown slug, scale, device or seed; ``full`` without CUDA; a record file that cannot be
written) stops at once with a message, before any work starts.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import subprocess
import sys
import tempfile
import time

from icml26 import registry
from icml26.runtime import DEVICES, SCALES, ScaleError, choose_device, setup

BENCHMARKS = registry.ROOT / "benchmarks"


class UsageError(Exception):
    """Bad command-line input; printed without a traceback, exit status 2."""


def _scale(value: str) -> str:
    if value not in SCALES:
        raise argparse.ArgumentTypeError(f"unknown scale {value!r}; choose from {', '.join(SCALES)}")
    return value


def _device(value: str) -> str:
    if value.split(":", 1)[0] not in DEVICES:
        raise argparse.ArgumentTypeError(f"unknown device {value!r}; choose from {', '.join(DEVICES)}")
    return value


def _timeout(value: str) -> float:
    """A time limit in seconds: a finite number > 0 (not nan, inf, 0 or negative)."""
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds; got {value!r}") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0; got {value!r}")
    return seconds


def _check_records_file(path, what: str = "the records file") -> None:
    """A records file (absent, or a readable UTF-8 file of claim records, every line parsed) before any work."""
    from pathlib import Path

    from icml26.claims import load_records

    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{what} {str(path)!r} is a folder; give a JSON-lines file")
    if path.exists() and not path.is_file():
        raise UsageError(f"{what} {str(path)!r} is not a regular file")
    try:
        load_records(path, strict=True)
    except ValueError as exc:  # RecordsError: names the file and line
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None


def _check_results() -> None:
    """The recorded evidence the command reads (``results/<scale>.jsonl``, margins, diagnostics), before any work."""
    from icml26.claims import DIAGNOSTICS_FILE, MARGINS_FILE, load_diagnostics, load_margins

    for scale in SCALES:
        _check_records_file(registry.RESULTS / f"{scale}.jsonl", "the results file")
    for name, load in ((MARGINS_FILE, lambda: load_margins("", "quick")), (DIAGNOSTICS_FILE, load_diagnostics)):
        path = registry.RESULTS / name
        if path.exists() and not path.is_file():
            raise UsageError(f"the results file {str(path)!r} is not a regular file")
        try:
            load()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None


def _out_folder(path: str, name: str = "--out", must_exist: bool = False):
    """An output folder: an existing folder, or (unless ``must_exist``) a path that can be created; not a file."""
    from pathlib import Path

    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{name} {path!r} is a file, not a folder")
    if must_exist and not folder.is_dir():
        raise UsageError(f"{name} {path!r} does not exist; run `python -m icml26 reproduce --out {path}` first "
                         "or name the folder it wrote")
    if not must_exist:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {name} {path!r}: {exc.strerror or exc}") from None
    return folder


def _papers(spec: str | None) -> list[registry.Paper]:
    try:
        return registry.parse_papers(spec)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _check_full(scale: str, device: str, allow_cpu: bool) -> None:
    """``full`` needs CUDA unless forced; checked before any work starts."""
    if scale != "full" or allow_cpu:
        return
    try:
        dev = choose_device(device)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if dev.type != "cuda":
        raise UsageError("scale 'full' is paper-sized and needs a CUDA GPU, which this machine lacks; "
                         "use --scale standard, or --allow-cpu to force it")


def cmd_list(args) -> int:
    from icml26 import report

    _check_results()
    rows = report.paper_rows()
    print(f"{'#':>2}  {'slug':20s} {'status':8s} {'claims':>6s} {'checks':>6s}  {'standard (recorded)':34s} title")
    for p, row in zip(registry.PAPERS, rows):
        print(f"{p.number:02d}  {p.slug:20s} {p.status:8s} {row['n_claims']:>6} {row['n_checks']:>6}  "
              f"{row['standard']:34s} {p.title}")
    print("claims: the paper's falsifiable claims (only these count as reproduced); checks: identities, exactness "
          "tests and guards, run but not counted. " + report.LEGEND)
    return 0


def _seeds(value: str) -> list[int]:
    try:
        seeds = [int(s) for s in value.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be comma-separated non-negative integers; got {value!r}") \
            from None
    if not seeds or any(s < 0 for s in seeds) or len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"seeds must be distinct non-negative integers; got {value!r}")
    return seeds


def _seed(value: str) -> int:
    seeds = _seeds(value)
    if len(seeds) != 1:
        raise argparse.ArgumentTypeError(f"--seed takes one seed; use --seeds for several; got {value!r}")
    return seeds[0]


def _check_record_path(path: str | None, seeds: list[int]) -> None:
    """A record file must be writable (checked before the experiment) and hold evaluation seeds only."""
    from icml26.claims import DEV_SEED_START

    if not path:
        return
    dev = [s for s in seeds if s >= DEV_SEED_START]
    if dev:
        raise UsageError(f"seeds {dev} are development seeds (>= {DEV_SEED_START}), used to tune, never recorded; "
                         "drop --record or use evaluation seeds 0, 1, 2, ...")
    if os.path.isdir(path):
        raise UsageError(f"--record {path!r} is a folder; give a JSON-lines file, "
                         f"e.g. {path.rstrip('/')}/standard.jsonl")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".icml26-write-test-"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write the record file {path!r}: {exc.strerror or exc}") from None
    _check_records_file(path, "--record")


def _built(paper: registry.Paper) -> registry.Paper:
    if not paper.has_claims():
        raise UsageError(f"paper {paper.slug!r} is planned and not built yet; built papers: "
                         f"{', '.join(p.slug for p in registry.PAPERS if p.has_claims()) or 'none'}")
    return paper


def _validate_device(device: str) -> None:
    try:
        choose_device(device)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _report_records(records: list[dict], args) -> list[str]:
    from icml26.claims import dumps, failures, replace_records, table

    print("\n".join(dumps(r) for r in records) if args.json else table(records), flush=True)
    if args.record:
        for note in replace_records(args.record, records, replace=args.replace):
            print(f"[icml26] {note}", file=sys.stderr)
    return failures(records)


def _sweep(tasks, args):
    from icml26 import sweep

    try:
        if getattr(args, "cluster", None):
            return sweep.run_dask(tasks, args.cluster)
        return sweep.run_local(tasks, jobs=args.jobs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _finish(result, records_by_paper: dict, args) -> int:
    problems = []
    for paper, records in records_by_paper.items():
        seeds = sorted({s for r in records for s in r["seeds"]})
        print(f"== {paper} ({args.scale}, seeds {','.join(map(str, seeds))})", file=sys.stderr)
        problems += _report_records(records, args)
    for o in result.failed():
        print(f"[icml26] {o.task.name} failed:\n{o.error}", file=sys.stderr)
    for problem in problems:
        print(f"[icml26] claim failed: {problem}", file=sys.stderr)
    if result.interrupted:
        done = sum(o.ok for o in result.outcomes)
        print(f"[icml26] interrupted: {done} finished task(s) kept and reported", file=sys.stderr)
        return 130
    return 1 if problems or result.failed() else 0


def cmd_run(args) -> int:
    from icml26.claims import EVAL_SEEDS, evaluate
    from icml26.sweep import SweepResult, Task

    paper = _built(_papers(args.slug)[0])
    seeds = args.seeds or ([args.seed] if args.seed is not None else list(EVAL_SEEDS[args.scale]))
    _check_full(args.scale, args.device, args.allow_cpu)
    _validate_device(args.device)
    _check_record_path(args.record, seeds)
    _check_results()
    if len(seeds) > 1:
        print(f"[icml26] {paper.slug}: scale={args.scale} seeds={','.join(map(str, seeds))} jobs={args.jobs}",
              file=sys.stderr)
        tasks = [Task(paper.slug, args.scale, s, args.device, args.allow_cpu) for s in seeds]
        result = _sweep(tasks, args)
        return _finish(result, result.records(), args)
    try:
        rt = setup(args.scale, seeds[0], args.device, allow_cpu=args.allow_cpu)
    except (ScaleError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    experiment = importlib.import_module(f"{paper.module}.experiment")
    claims = importlib.import_module(f"{paper.module}.claims")
    print(f"[icml26] {paper.slug}: scale={rt.scale} seed={rt.seed} device={rt.device} threads={rt.threads}",
          file=sys.stderr)
    start = time.perf_counter()
    results = experiment.run(experiment.CONFIGS[rt.scale], device=rt.device, seed=rt.seed)
    seconds = time.perf_counter() - start
    records = evaluate(claims.CLAIMS, results, rt, paper=paper.slug, seconds=seconds)
    print(f"[icml26] {paper.slug}: experiment took {seconds:.1f} s", file=sys.stderr)
    return _finish(SweepResult(), {paper.slug: records}, args)


def cmd_sweep(args) -> int:
    from icml26.claims import EVAL_SEEDS
    from icml26.sweep import Task

    papers = [_built(p) for p in _papers(args.papers)] if args.papers else \
        [p for p in registry.PAPERS if p.has_claims()]
    seeds = args.seeds or list(EVAL_SEEDS[args.scale])
    _check_full(args.scale, args.device, args.allow_cpu)
    if not args.cluster:
        _validate_device(args.device)
    _check_record_path(args.record, seeds)
    _check_results()
    tasks = [Task(p.slug, args.scale, s, args.device, args.allow_cpu) for p in papers for s in seeds]
    where = args.cluster or f"{args.jobs} local worker(s)"
    print(f"[icml26] sweep: {len(papers)} paper(s) x {len(seeds)} seed(s) at {args.scale} on {where}",
          file=sys.stderr)
    result = _sweep(tasks, args)
    return _finish(result, result.records(), args)


def cmd_reproduce(args) -> int:
    from icml26 import report, runner

    papers = _papers(args.papers)
    _check_full(args.scale, args.device, args.allow_cpu)
    _validate_device(args.device)
    _check_results()
    items = runner.targets(papers, include_start=not args.papers)
    if not items:
        raise UsageError("no notebooks to run for the chosen papers (they are planned, not built yet)")
    _out_folder(args.out)
    env = {"ICML26_ALLOW_CPU_FULL": "1"} if args.allow_cpu else {}
    env.setdefault("PLOTLY_RENDERER", os.environ.get("PLOTLY_RENDERER", "plotly_mimetype+notebook"))  # offline
    interrupted = False
    try:
        runs = runner.run_notebooks(items, args.out, scale=args.scale, seed=args.seed, device=args.device,
                                    jobs=args.jobs, timeout=args.timeout, html=not args.no_html, env=env)
    except runner.RunInterrupted as exc:
        runs, interrupted = exc.runs, True
    try:
        runner.save_runs(runs, args.out)
        index = report.build(args.out, runs)
    except OSError as exc:  # a full disk or a folder gone: say so, and still show what finished
        print(runner.summary(runs))
        print(f"error: cannot save the run in {args.out!r}: {exc.strerror or exc}"
              f"{f' ({exc.filename})' if getattr(exc, 'filename', None) else ''}; the {len(runs)} notebook(s) "
              "above finished, but runs.json and the scoreboard were not written", file=sys.stderr)
        return 1
    print(runner.summary(runs))
    print(f"scoreboard: {index}")
    if interrupted:
        print(f"interrupted: the {len(runs)} notebook(s) that finished are saved and reported; "
              f"{len(items) - len(runs)} did not run", file=sys.stderr)
        return 130
    return 0 if all(r.ok for r in runs) else 1


def cmd_report(args) -> int:
    from icml26 import report

    _out_folder(args.out, must_exist=True)
    _check_results()
    try:
        print(report.build(args.out))
    except ValueError as exc:  # a corrupt runs.json or records file: say which, leave the old scoreboard
        raise UsageError(str(exc)) from None
    return 0


def cmd_release_check(args) -> int:
    problems = registry.release_problems()
    for p in problems:
        print(f"release-check: {p}", file=sys.stderr)
    if not problems:
        print(f"release-check: {registry.repository_url()} at {registry.release_ref()}: ready")
    return 1 if problems else 0


def cmd_readme(args) -> int:
    from icml26 import report

    _check_results()
    try:
        changed = report.update_readme()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print("README.md paper table " + ("updated" if changed else "already up to date"))
    return 0


def cmd_explore(args) -> int:
    from icml26 import serve

    try:
        path = serve.explorer_path(args.slug)
        server = serve.start("voila", path, timeout=args.timeout)
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    print(f"{args.slug} explorer: {server.url}/  (Ctrl-C or SIGTERM stops the server)", flush=True)
    serve.serve_until_stopped(server)
    return 0


def cmd_site(args) -> int:
    from icml26 import site

    try:
        index = site.build(args.out)
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    print(f"site: {index}")
    return 0


def cmd_notebooks(args) -> int:
    """Copy the notebooks (and the recorded results they show) into a folder of the user's."""
    import shutil
    from pathlib import Path

    dest = Path(args.dest).expanduser().resolve()
    if dest.exists() and any(dest.iterdir()) and not args.force:
        raise UsageError(f"folder {dest} is not empty; choose another or pass --force to overwrite")
    if not registry.NOTEBOOKS.is_dir():
        raise UsageError(f"no notebooks found at {registry.NOTEBOOKS}; reinstall the package from a wheel or sdist")
    shutil.copytree(registry.NOTEBOOKS, dest / "notebooks", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    if registry.RESULTS.is_dir():
        shutil.copytree(registry.RESULTS, dest / "results", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.lock"))
    n = sum(1 for _ in (dest / "notebooks").glob("**/*.ipynb"))
    print(f"copied {n} notebooks to {dest / 'notebooks'}; open {dest / 'notebooks' / registry.START_HERE.name} "
          f"(e.g. jupyter lab {dest / 'notebooks'})")
    return 0


def cmd_tidy(args) -> int:
    from icml26 import notebook_tidy

    changed = notebook_tidy.tidy_all()
    print("\n".join(str(p.relative_to(registry.ROOT)) for p in changed) or "notebooks already tidy")
    return 0


def cmd_bench(args) -> int:
    papers = _papers(args.papers)
    scripts = [(p.slug, BENCHMARKS / f"{p.slug}.py") for p in papers if (BENCHMARKS / f"{p.slug}.py").exists()]
    if not scripts:
        raise UsageError("no benchmark script exists for the chosen papers")
    status = 0
    for slug, script in scripts:
        print(f"== {slug}", flush=True)
        cmd = [sys.executable, str(script), "--device", args.device] + (["--quick"] if args.quick else [])
        status |= subprocess.call(cmd)
    return 1 if status else 0


def _dev_seeds(seeds: list[int]) -> list[int]:
    from icml26.claims import DEV_SEED_START

    low = [s for s in seeds if s < DEV_SEED_START]
    if low:
        raise UsageError(f"seeds {low} are evaluation seeds; margins and diagnostics use development seeds "
                         f"(>= {DEV_SEED_START}), e.g. --seeds 100,101,102,103,104")
    return seeds


def cmd_margins(args) -> int:
    """Measure each claim's noise margin on development seeds and store it in results/margins.jsonl."""
    from icml26.claims import margins_from_runs, write_margins
    from icml26.sweep import Task

    paper = _built(_papers(args.slug)[0])
    seeds = _dev_seeds(args.seeds or [100, 101, 102, 103, 104])
    if len(seeds) < 3:
        raise UsageError(f"--seeds must name at least three development seeds; got {seeds}")
    _check_full(args.scale, args.device, args.allow_cpu)
    _validate_device(args.device)
    _check_results()
    if args.out is not None:
        from icml26.claims import load_margins

        if os.path.isdir(args.out):
            raise UsageError(f"--out {args.out!r} is a folder; give the margins file, e.g. {args.out}/margins.jsonl")
        try:
            load_margins(paper.slug, args.scale, args.out)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(f"cannot read --out {args.out!r}: {exc.strerror or exc}") from None
    tasks = [Task(paper.slug, args.scale, s, args.device, args.allow_cpu) for s in seeds]
    print(f"[icml26] margins of {paper.slug} at {args.scale} over development seeds {seeds}", file=sys.stderr)
    result = _sweep(tasks, args)
    for o in result.failed():
        print(f"[icml26] {o.task.name} failed:\n{o.error}", file=sys.stderr)
    runs = [o.run for o in result.outcomes if o.ok]
    if result.interrupted or result.failed() or len(runs) < 3:
        print("[icml26] margins not written: every development seed must finish", file=sys.stderr)
        return 130 if result.interrupted else 1
    claims = importlib.import_module(f"{paper.module}.claims").CLAIMS
    try:
        entries = margins_from_runs(claims, runs, args.scale, paper=paper.slug)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    path = write_margins(entries, args.out)
    for e in entries:
        print(f"{e['claim']:40s} margin {e['margin']:.4g}  values {', '.join(_num(v) for v in e['values'])}")
    print(f"[icml26] {len(entries)} margins written to {path}", file=sys.stderr)
    return 0


def _num(value) -> str:
    return "-" if value is None else f"{value:.4g}"


def _overrides(pairs: list[str], config: dict) -> tuple[dict, dict]:
    """``config`` with ``key.sub=value`` overrides applied (values parsed as JSON, else text); keys must exist."""
    import copy
    import json

    config = copy.deepcopy(config)
    applied = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--set takes KEY=VALUE (dotted keys for nested settings); got {pair!r}")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        node, parts = config, key.split(".")
        for part in parts[:-1]:
            if not isinstance(node, dict) or not isinstance(node.get(part), dict):
                raise UsageError(f"--set {key}: the config has no section {part!r}")
            node = node[part]
        if parts[-1] not in node:
            raise UsageError(f"--set {key}: the config has no key {parts[-1]!r}; known: {', '.join(map(str, node))}")
        node[parts[-1]] = value
        applied[key] = value
    return config, applied


def cmd_diagnose(args) -> int:
    """Run one seed with config overrides and store every claim's value as a diagnostic run a why can cite."""
    from icml26.claims import evaluate, write_diagnostic

    paper = _built(_papers(args.slug)[0])
    _check_full(args.scale, args.device, args.allow_cpu)
    _validate_device(args.device)
    experiment = importlib.import_module(f"{paper.module}.experiment")
    claims = importlib.import_module(f"{paper.module}.claims")
    config, applied = _overrides(args.set or [], experiment.CONFIGS[args.scale])
    _check_results()
    try:
        rt = setup(args.scale, args.seed, args.device, allow_cpu=args.allow_cpu)
    except (ScaleError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    print(f"[icml26] diagnostic {args.id}: {paper.slug} scale={rt.scale} seed={rt.seed} overrides={applied}",
          file=sys.stderr)
    start = time.perf_counter()
    results = experiment.run(config, device=rt.device, seed=rt.seed)
    seconds = time.perf_counter() - start
    records = evaluate(claims.CLAIMS, results, rt, paper=paper.slug, seconds=seconds)
    entry = {"id": args.id, "paper": paper.slug, "scale": rt.scale, "seed": rt.seed, "overrides": applied,
             "note": args.note, "seconds": round(seconds, 3), "threads": rt.threads,
             "torch": records[0].get("torch"), "values": {r["claim"]: r["values"][0] for r in records},
             "control_values": {r["claim"]: r["control"]["values"][0] for r in records if r.get("control")}}
    path = write_diagnostic(entry)
    print("\n".join(f"{r['claim']:40s} {_num(r['values'][0])}" for r in records))
    print(f"[icml26] diagnostic {args.id} written to {path} ({seconds:.1f} s)", file=sys.stderr)
    return 0


def cmd_rescore(args) -> int:
    """Re-derive the records of papers from their stored values with the claims as they are now."""
    from icml26.claims import RecordsError, rescore_file

    papers = [p.slug for p in _papers(args.papers)] if args.papers else None
    _check_results()
    status = 0
    for scale in ("quick", "standard", "full"):
        path = registry.RESULTS / f"{scale}.jsonl"
        if not path.exists():
            continue
        try:
            notes = rescore_file(path, papers)
        except RecordsError as exc:
            raise UsageError(str(exc)) from None
        for note in notes:
            print(f"[icml26] {note}", file=sys.stderr)
            status = status or (0 if "no longer exists" in note else 1)
        print(f"[icml26] rescored {path}", file=sys.stderr)
    return status


def cmd_docs(args) -> int:
    """Rewrite the results block of every docs/papers page from the records."""
    from icml26 import report

    _check_results()
    try:
        changed = report.update_docs()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print("\n".join(str(p) for p in changed) or "docs pages already up to date")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m icml26", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the papers and their status").set_defaults(func=cmd_list)

    def common(p, default_device="auto", one_seed=False):
        p.add_argument("--scale", type=_scale, default="quick", help="quick | standard | full")
        if one_seed:
            p.add_argument("--seed", type=_seed, default=0, help="the seed (a non-negative integer)")
        else:
            seeds = p.add_mutually_exclusive_group()
            seeds.add_argument("--seeds", type=_seeds, default=None,
                               help="comma-separated seeds (default: the scale's evaluation seeds: "
                                    "quick 0, standard and full 0,1,2)")
            seeds.add_argument("--seed", type=_seed, default=None, help="one seed (same as --seeds N)")
        p.add_argument("--device", type=_device, default=default_device, help="auto | cpu | cuda | mps")
        p.add_argument("--allow-cpu", action="store_true", help="allow --scale full without a GPU")
        p.add_argument("--jobs", type=int, default=2, help="worker processes (seeds or notebooks at a time)")

    def outputs(p):
        p.add_argument("--json", action="store_true", help="print the claim records as JSON lines")
        p.add_argument("--record", help="merge the claim records into this JSON-lines file (e.g. "
                                        "results/standard.jsonl): a claim's record is replaced only by one over at "
                                        "least as many seeds")
        p.add_argument("--replace", action="store_true",
                       help="with --record: replace recorded claims even by a record over fewer seeds")

    run = sub.add_parser("run", help="run one paper's experiment over seeds and check its claims (no Jupyter)")
    run.add_argument("slug")
    common(run)
    outputs(run)
    run.set_defaults(func=cmd_run)

    swp = sub.add_parser("sweep", help="run papers x seeds on local workers or a Dask cluster")
    swp.add_argument("--papers", default="", help="comma-separated slugs (default: all built papers)")
    common(swp)
    outputs(swp)
    swp.add_argument("--cluster", default=None, metavar="tcp://HOST:PORT",
                     help="a dask.distributed scheduler to send the tasks to (pip install 'icml26[cluster]'); "
                          "tasks and results travel as pickles, so use only a scheduler you run on a network you "
                          "trust")
    swp.set_defaults(func=cmd_sweep)

    rep = sub.add_parser("reproduce", help="execute notebooks and write the scoreboard")
    rep.add_argument("--papers", default="", help="comma-separated slugs (default: all built papers)")
    common(rep, one_seed=True)
    rep.add_argument("--timeout", type=_timeout, default=1800, help="seconds per notebook")
    rep.add_argument("--out", default="build")
    rep.add_argument("--no-html", action="store_true")
    rep.set_defaults(func=cmd_reproduce)

    rpt = sub.add_parser("report", help="rewrite build/index.html from the saved runs")
    rpt.add_argument("--out", default="build")
    rpt.set_defaults(func=cmd_report)

    sub.add_parser("readme", help="rewrite the README's paper table from results/*.jsonl").set_defaults(
        func=cmd_readme)

    sub.add_parser("release-check", help="fail while the repository URL is a placeholder or the release tag is "
                   "missing (every badge and install line points at them)").set_defaults(func=cmd_release_check)

    exp = sub.add_parser("explore", help="serve a paper's explorer as a standalone Voila page on loopback")
    exp.add_argument("slug")
    exp.add_argument("--timeout", type=_timeout, default=90, help="seconds to wait for the server")
    exp.set_defaults(func=cmd_explore)

    site = sub.add_parser("site", help="build a browsable site (Sphinx + myst-nb) from a reproduce run's notebooks")
    site.add_argument("--out", default="build", help="the build folder of `reproduce` (the site goes in OUT/site)")
    site.set_defaults(func=cmd_site)

    nbs = sub.add_parser("notebooks", help="copy the notebooks into a folder (a third way in, after pip install)")
    nbs.add_argument("dest", help="the folder to copy them into")
    nbs.add_argument("--force", action="store_true", help="copy into a folder that is not empty")
    nbs.set_defaults(func=cmd_notebooks)

    sub.add_parser("tidy", help="clear notebook outputs, add badges and the Colab install line").set_defaults(
        func=cmd_tidy)

    mar = sub.add_parser("margins", help="measure each claim's noise margin on development seeds")
    mar.add_argument("slug")
    common(mar)
    mar.add_argument("--out", default=None, help="the margins file (default results/margins.jsonl)")
    mar.set_defaults(func=cmd_margins)

    dia = sub.add_parser("diagnose", help="record a diagnostic run (config overrides) that a why can cite")
    dia.add_argument("slug")
    common(dia, one_seed=True)
    dia.add_argument("--id", required=True, help="the diagnostic's id (what a claim's measured_at names)")
    dia.add_argument("--set", action="append", metavar="KEY=VALUE",
                     help="override a config key (dotted for nested keys; JSON values), repeatable")
    dia.add_argument("--note", default="", help="what this run measures, e.g. '2x training steps'")
    dia.set_defaults(func=cmd_diagnose)

    res = sub.add_parser("rescore", help="re-derive recorded verdicts from stored values with the current claims")
    res.add_argument("--papers", default="", help="comma-separated slugs (default: all)")
    res.set_defaults(func=cmd_rescore)

    sub.add_parser("docs", help="rewrite the results block of docs/papers/*.md from the records").set_defaults(
        func=cmd_docs)

    bench = sub.add_parser("bench", help="run the speed benchmarks")
    bench.add_argument("--papers", default="")
    bench.add_argument("--device", type=_device, default="cpu")
    bench.add_argument("--quick", action="store_true")
    bench.set_defaults(func=cmd_bench)

    from icml26 import gpu_check

    gpu = sub.add_parser("gpu-check", help="the GPU path in one command: device ceilings, every paper's quick run on "
                         "CUDA against its CPU record, the benchmarks (--dry-run: the same on the CPU, tiny)")
    gpu_check.add_arguments(gpu).set_defaults(func=gpu_check.cmd)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "jobs", 1) < 1:
        parser.error("--jobs must be >= 1")
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
