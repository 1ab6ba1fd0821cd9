"""Command line: ``python -m icml26 list | run SLUG | reproduce | report | readme | tidy | explore SLUG | bench``.

``run`` executes a paper's experiment and checks its claims without Jupyter (how a bare GPU machine
runs ``--scale full``); ``reproduce`` executes notebooks through papermill and writes the scoreboard.
Bad input (an unknown slug, scale or device; ``full`` without CUDA) stops at once with a message.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
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
    print(f"{'#':>2}  {'slug':20s} {'status':8s} title")
    for p in registry.PAPERS:
        print(f"{p.number:02d}  {p.slug:20s} {p.status:8s} {p.title}")
    return 0


def cmd_run(args) -> int:
    from icml26.claims import append_records, evaluate, failures, table

    paper = _papers(args.slug)[0]
    if not paper.has_claims():
        raise UsageError(f"paper {paper.slug!r} is planned and not built yet; built papers: "
                         f"{', '.join(p.slug for p in registry.PAPERS if p.has_claims()) or 'none'}")
    try:
        rt = setup(args.scale, args.seed, args.device, allow_cpu=args.allow_cpu)
    except (ScaleError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    experiment = importlib.import_module(f"{paper.module}.experiment")
    claims = importlib.import_module(f"{paper.module}.claims")
    print(f"[icml26] {paper.slug}: scale={rt.scale} seed={rt.seed} device={rt.device}", file=sys.stderr)
    start = time.perf_counter()
    results = experiment.run(experiment.CONFIGS[rt.scale], device=rt.device, seed=rt.seed)
    seconds = time.perf_counter() - start
    records = evaluate(claims.CLAIMS, results, rt, paper=paper.slug, seconds=seconds)
    if args.record:
        append_records(args.record, records)
    print("\n".join(json.dumps(r, sort_keys=True) for r in records) if args.json else table(records))
    problems = failures(records, claims.CLAIMS)
    print(f"[icml26] {paper.slug}: experiment took {seconds:.1f} s", file=sys.stderr)
    for problem in problems:
        print(f"[icml26] claim failed: {problem}", file=sys.stderr)
    return 1 if problems else 0


def cmd_reproduce(args) -> int:
    from icml26 import report, runner

    papers = _papers(args.papers)
    _check_full(args.scale, args.device, args.allow_cpu)
    items = runner.targets(papers, include_start=not args.papers)
    if not items:
        raise UsageError("no notebooks to run for the chosen papers (they are planned, not built yet)")
    env = {"ICML26_ALLOW_CPU_FULL": "1"} if args.allow_cpu else {}
    env.setdefault("PLOTLY_RENDERER", os.environ.get("PLOTLY_RENDERER", "plotly_mimetype+notebook_connected"))
    runs = runner.run_notebooks(items, args.out, scale=args.scale, seed=args.seed, device=args.device,
                                jobs=args.jobs, timeout=args.timeout, html=not args.no_html, env=env)
    runner.save_runs(runs, args.out)
    index = report.build(args.out, runs)
    print(runner.summary(runs))
    print(f"scoreboard: {index}")
    return 0 if all(r.ok for r in runs) else 1


def cmd_report(args) -> int:
    from icml26 import report

    print(report.build(args.out))
    return 0


def cmd_readme(args) -> int:
    from icml26 import report

    changed = report.update_readme()
    print("README.md paper table " + ("updated" if changed else "already up to date"))
    return 0


def cmd_explore(args) -> int:
    from icml26 import serve

    try:
        path = serve.explorer_path(args.slug)
        server = serve.start("voila", path, timeout=args.timeout)
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    print(f"{args.slug} explorer: {server.url}/  (Ctrl-C stops the server)", flush=True)
    try:
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m icml26", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the papers and their status").set_defaults(func=cmd_list)

    def common(p, default_device="auto"):
        p.add_argument("--scale", type=_scale, default="quick", help="quick | standard | full")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--device", type=_device, default=default_device, help="auto | cpu | cuda | mps")
        p.add_argument("--allow-cpu", action="store_true", help="allow --scale full without a GPU")

    run = sub.add_parser("run", help="run one paper's experiment and check its claims (no Jupyter)")
    run.add_argument("slug")
    common(run)
    run.add_argument("--json", action="store_true", help="print the claim records as JSON lines")
    run.add_argument("--record", help="append the claim records to this JSON-lines file")
    run.set_defaults(func=cmd_run)

    rep = sub.add_parser("reproduce", help="execute notebooks and write the scoreboard")
    rep.add_argument("--papers", default="", help="comma-separated slugs (default: all built papers)")
    common(rep)
    rep.add_argument("--jobs", type=int, default=2)
    rep.add_argument("--timeout", type=float, default=1800, help="seconds per notebook")
    rep.add_argument("--out", default="build")
    rep.add_argument("--no-html", action="store_true")
    rep.set_defaults(func=cmd_reproduce)

    rpt = sub.add_parser("report", help="rewrite build/index.html from the saved runs")
    rpt.add_argument("--out", default="build")
    rpt.set_defaults(func=cmd_report)

    sub.add_parser("readme", help="rewrite the README's paper table from results/*.jsonl").set_defaults(
        func=cmd_readme)

    exp = sub.add_parser("explore", help="serve a paper's explorer as a standalone Voila page on loopback")
    exp.add_argument("slug")
    exp.add_argument("--timeout", type=float, default=90, help="seconds to wait for the server")
    exp.set_defaults(func=cmd_explore)

    sub.add_parser("tidy", help="clear notebook outputs, add badges and the Colab install line").set_defaults(
        func=cmd_tidy)

    bench = sub.add_parser("bench", help="run the speed benchmarks")
    bench.add_argument("--papers", default="")
    bench.add_argument("--device", type=_device, default="cpu")
    bench.add_argument("--quick", action="store_true")
    bench.set_defaults(func=cmd_bench)
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
