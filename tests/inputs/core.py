"""Bad-input probes of the core modules: runtime, claims, claim views, report, registry, runner, sweep, checks,
progress, bench, viz, widgets, serve, notebook_tidy and site."""

import math
import tempfile
from pathlib import Path

import torch
from harness import Probe

from icml26 import (
    atomic,
    bench,
    checks,
    claim_view,
    claims,
    notebook_tidy,
    progress,
    registry,
    report,
    runner,
    runtime,
    serve,
    shipped,
    site,
    sweep,
    viz,
    widgets,
)

TMP = Path(tempfile.mkdtemp(prefix="icml26-inputs-core-"))
RESULTS = TMP / "results"  # an empty results folder of its own (other probes write files into TMP)
RESULTS.mkdir()
RT = runtime.Runtime("quick", 0, torch.device("cpu"))
CLAIM = claims.Claim("c", "x is large", metric=lambda r: r["x"], op=">=", threshold={"quick": 1.0}, kind="paper",
                     paper="demo")
PREMISE = claims.Premise("p", "a sink formed", metric=lambda r: r["x"], op=">=", threshold=0.3)
RECORD = claims.evaluate([CLAIM], {"x": 2.0}, RT)[0]
RUN = claims.seed_run([CLAIM], {"x": 2.0}, RT, 1.0)
DEV_RUNS = [claims.seed_run([CLAIM], {"x": 2.0 + s / 1000}, runtime.Runtime("quick", s, torch.device("cpu")), 1.0)
            for s in (100, 101, 102)]
NOT_A_LIST = ("claims", 3, "not a list of claims")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TASK = sweep.Task("toy_paper", "quick", 0, "cpu", module="toy_paper")


def _claim_kwargs():
    return {"id": "c", "statement": "s", "metric": lambda r: 1.0, "op": ">=", "threshold": {"quick": 1.0},
            "kind": "paper"}


PROBES = [
    Probe(shipped.cached, valid=lambda: {"loader": lambda p: 1, "path": _records_file()},
          extra=[("loader", 3, "not callable"), ("path", 3, "an int")]),
    # runtime
    Probe(runtime.check_scale, valid=lambda: {"scale": "quick"}, extra=[("scale", "huge", "unknown scale")]),
    Probe(runtime.seed_everything, valid=lambda: {"seed": 0}, extra=[("seed", 1.5, "float"), ("seed", True, "bool")]),
    Probe(runtime.choose_device, valid=lambda: {"device": "cpu"}, extra=[("device", 3, "int")]),
    Probe(runtime.set_threads, valid=lambda: {"threads": 1}, extra=[("threads", 1.5, "float")]),
    Probe(runtime.setup, valid=lambda: {"scale": "quick", "seed": 0, "device": "cpu", "threads": 1},
          extra=[("scale", "ci", "unknown scale"), ("seed", -1, "negative")]),
    Probe(runtime.Runtime, valid=lambda: {"scale": "quick", "seed": 0, "device": torch.device("cpu")},
          extra=[("scale", "ci", "unknown scale"), ("seed", -1, "negative"), ("device", "cpu", "a string")]),
    # claims
    Probe(claims.Claim, valid=_claim_kwargs, skip={"threshold": "a mapping; its values are probed by extra"},
          extra=[("op", "==", "unknown op"), ("kind", "identity", "unknown kind"), ("threshold", {}, "empty"),
                 ("threshold", {"quick": math.nan}, "NaN threshold"), ("metric", 3, "not callable")]),
    Probe(claims.Premise, valid=lambda: {"id": "p", "statement": "s", "metric": lambda r: 1.0, "op": ">=",
                                         "threshold": 0.3},
          extra=[("op", "~", "unknown op"), ("threshold", "high", "text")]),
    Probe(claims.seed_run, valid=lambda: {"claims": [CLAIM], "results": {"x": 1.0}, "rt": RT, "seconds": 1.0},
          extra=[("results", [1, 2], "a list"), NOT_A_LIST, ("rt", "quick", "not a Runtime")]),
    Probe(claims.evaluate, valid=lambda: {"claims": [CLAIM], "results": {"x": 1.0}, "rt": RT},
          extra=[("results", [1, 2], "a list"), ("claims", [], "empty"), ("rt", None, "no Runtime")]),
    Probe(claims.verdict_of, valid=lambda: {"outcomes": ["holds"]}, extra=[("outcomes", ["passes"], "unknown")]),
    Probe(claims.aggregate, valid=lambda: {"claims": [CLAIM], "runs": [RUN], "scale": "quick"},
          extra=[("runs", [], "empty"), ("runs", [RUN, RUN], "duplicate seeds"), ("scale", "ci", "unknown scale")]),
    Probe(claims.failures, valid=lambda: {"records": [RECORD]}, extra=[("records", [{"x": 1}], "not records")]),
    Probe(claims.with_current_whys, valid=lambda: {"records": [RECORD]},
          extra=[("records", [{"x": 1}], "not records")]),
    Probe(claims.dumps, valid=lambda: {"record": RECORD}, extra=[("record", [1], "a list")]),
    Probe(claims.append_records, valid=lambda: {"path": TMP / "a.jsonl", "records": [RECORD]},
          extra=[("records", [{"x": 1}], "not records"), ("path", 3, "an int path")]),
    Probe(claims.replace_records, valid=lambda: {"path": TMP / "r.jsonl", "records": [RECORD]},
          extra=[("records", [{"x": 1}], "not records")]),
    Probe(claims.load_records, valid=lambda: {"path": TMP / "absent.jsonl"}, extra=[("path", 3, "an int path")]),
    Probe(claims.latest, valid=lambda: {"records": [RECORD]}, extra=[("records", [{"x": 1}], "not records")]),
    Probe(claims.table, valid=lambda: {"records": [RECORD]}, extra=[("records", "text", "text")]),
    Probe(claims.recorded, valid=lambda: {"paper": "ssn_games", "scale": "standard"},
          extra=[("paper", "nope", "unknown paper"), ("scale", "ci", "unknown scale"), ("headline", "yes", "text")]),
    Probe(claims.summary, valid=lambda: {"paper": "ssn_games", "scale": "standard"},
          extra=[("paper", "nope", "unknown paper"), ("scale", "ci", "unknown scale")]),
    Probe(claims.Summary, valid=lambda: {}),
    Probe(claims.verify, valid=lambda: {"claims": [CLAIM], "results": {"x": 2.0}, "rt": RT},
          extra=[("results", None, "no results"), ("claims", [], "empty")]),
    Probe(claims.ClaimReport, valid=lambda: {}),
    # claim views
    Probe(claim_view.fmt, valid=lambda: {"value": 1.0}, skip={"value": "formats any number, NaN as nan"}),
    Probe(claim_view.label, valid=lambda: {"record": RECORD}, extra=[("record", 3, "a number")]),
    Probe(claim_view.ours, valid=lambda: {"record": RECORD}, extra=[("record", 3, "a number")]),
    Probe(claim_view.held, valid=lambda: {"record": RECORD}, extra=[("record", 3, "a number")]),
    Probe(claim_view.premise_text, valid=lambda: {"record": RECORD}, extra=[("record", 3, "a number")]),
    Probe(claim_view.split, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(claim_view.text_table, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(claim_view.figure_svg, valid=lambda: {"record": RECORD, "width": 220, "height": 46},
          extra=[("record", 3, "a number")]),
    Probe(claim_view.html_table, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(claim_view.counts, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    # report
    Probe(report.paper_counts, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(report.score_cell, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(report.recorded, valid=lambda: {"results_dir": RESULTS},
          extra=[("results_dir", TMP / "absent", "no folder")]),
    Probe(report.paper_rows, valid=lambda: {"results_dir": RESULTS}, extra=[("results_dir", 3, "an int")]),
    Probe(report.papers_table, valid=lambda: {"results_dir": RESULTS}, extra=[("results_dir", 3, "an int")]),
    Probe(report.update_readme, valid=lambda: {"path": _readme(), "results_dir": RESULTS},
          extra=[("path", TMP / "absent.md", "missing file")]),
    Probe(report.render, valid=lambda: {"runs": [], "results_dir": RESULTS}, extra=[("runs", [3], "not runs")]),
    Probe(report.build, valid=lambda: {"out_dir": TMP / "board", "runs": [], "results_dir": RESULTS},
          extra=[("runs", [3], "not runs")]),
    # registry
    Probe(registry.get, valid=lambda: {"slug": "ssn_games"}, extra=[("slug", "nope", "unknown"), ("slug", 3, "int")]),
    Probe(registry.parse_papers, valid=lambda: {"spec": "ssn_games,otp_fm"}, extra=[("spec", "a,b", "unknown")]),
    Probe(registry.Paper, valid=lambda: {"number": 5, "slug": "ssn_games", "title": "t", "arxiv": None},
          extra=[("slug", "Not A Slug", "bad slug"), ("title", "", "empty title")]),
    # runner
    Probe(runner.declares_claims, valid=lambda: {"path": registry.START_HERE},
          extra=[("path", TMP / "absent.ipynb", "missing notebook")]),
    Probe(runner.targets, valid=lambda: {"papers": [registry.get("ssn_games")], "include_start": False},
          extra=[("papers", ["ssn_games"], "slugs instead of papers")]),
    Probe(runner.kill_tagged, valid=lambda: {"token": "0123456789abcdef"}, extra=[("token", "", "empty token")]),
    Probe(runner.classify, valid=lambda: {"raised": False, "records": [], "declared": False},
          extra=[("records", [3], "not records")]),
    Probe(runner.run_notebooks, valid=lambda: {"items": [], "out_dir": TMP / "runs", "progress": False},
          extra=[("items", [("p", TMP / "absent.ipynb")], "missing notebook"), ("timeout", math.nan, "NaN"),
                 ("scale", "ci", "unknown scale")]),
    Probe(runner.execute_one, valid=lambda: {"path": FIXTURES / "passes.ipynb", "out_dir": TMP, "timeout": 60.0,
                                             "parameters": {"SCALE": "quick", "SEED": 0, "DEVICE": "cpu"},
                                             "html": False},
          extra=[("path", TMP / "absent.ipynb", "missing notebook"), ("parameters", [1], "not a mapping"),
                 ("parameters", {"SCALE": "ci"}, "unknown scale")]),
    Probe(runner.save_runs, valid=lambda: {"runs": [], "out_dir": TMP / "saved"}, extra=[("runs", [3], "not runs")]),
    Probe(runner.load_runs, valid=lambda: {"out_dir": TMP / "none"}, extra=[("out_dir", 3, "an int")]),
    Probe(runner.summary, valid=lambda: {"runs": []}, extra=[("runs", [3], "not runs")]),
    Probe(runner.NotebookRun, valid=lambda: {"paper": "p", "notebook": "n.ipynb"},
          extra=[("status", "fine", "unknown status"), ("seconds", -1.0, "negative")]),
    # sweep
    Probe(sweep.Task, valid=lambda: {"paper": "ssn_games", "scale": "quick", "seed": 0},
          extra=[("scale", "ci", "unknown scale"), ("seed", -1, "negative"), ("paper", "", "empty")]),
    Probe(sweep.run_local, valid=lambda: {"tasks": [TASK], "jobs": 1, "progress": False},
          extra=[("tasks", [], "empty"), ("tasks", ["ssn_games"], "not tasks")]),
    Probe(sweep.run_dask, valid=lambda: {"tasks": [TASK], "address": "tcp://127.0.0.1:9", "progress": False},
          run_valid=False, extra=[("tasks", [], "empty"), ("address", "", "empty address"),
                                  ("tasks", ["ssn_games"], "not tasks")]),
    Probe(sweep.run_task, valid=lambda: {"task": TASK}, extra=[("task", "ssn_games", "not a Task")]),
    # checks (the validators themselves)
    Probe(checks.positive_int, valid=lambda: {"name": "n", "value": 1}, skip={"value": "the value under test"},
          extra=[("name", "", "empty name")]),
    Probe(checks.tensor, valid=lambda: {"name": "x", "value": torch.ones(2)}, skip={"value": "the value under test"},
          extra=[("ndim", -1, "negative ndim"), ("dtype_kind", "text", "unknown kind")]),
    Probe(checks.in_range, valid=lambda: {"name": "p", "value": 0.5, "low": 0.0, "high": 1.0},
          skip={"value": "the value under test", "low": "a bound: NaN probed below"},
          extra=[("high", -1.0, "below low"), ("low", math.nan, "NaN bound")]),
    Probe(checks.reachable_tolerance, valid=lambda: {"name": "tol", "tol": 1e-3, "dtype": torch.float32},
          extra=[("tol", 1e-12, "unreachable in float32"), ("dtype", "float32", "a string")]),
    Probe(checks.one_of, valid=lambda: {"name": "mode", "value": "a", "choices": ["a", "b"]},
          skip={"value": "the value under test"}, extra=[("choices", [], "no choices")]),
    # progress
    Probe(progress.steps, valid=lambda: {"iterable": range(2), "desc": "x"}, extra=[("total", -1, "negative")]),
    Probe(progress.stages, valid=lambda: {"names": ["a"], "desc": "x"}, extra=[("names", "ab", "a string")]),
    Probe(progress.StageBar, valid=lambda: {"names": ["a", "b"], "desc": "x"},
          extra=[("names", "ab", "a string"), ("names", [], "no stage"), ("desc", 3, "a number")]),
    # bench
    Probe(bench.time_call, valid=lambda: {"fn": lambda: None, "repeats": 1, "warmup": 0},
          extra=[("fn", 3, "not callable")]),
    Probe(bench.paired_times, valid=lambda: {"peer": lambda: None, "ours": lambda: None, "repeats": 1, "rounds": 1},
          extra=[("peer", 3, "not callable"), ("ours", 3, "not callable")]),
    Probe(bench.ratio_line, valid=lambda: {"label": "x", "peer_seconds": 1.0, "ours_seconds": 0.5},
          extra=[("peer_seconds", 0.0, "zero"), ("ours_seconds", -1.0, "negative")]),
    Probe(bench.synchronize, valid=lambda: {"device": torch.device("cpu")}, extra=[("device", 3, "an int")]),
    Probe(bench.parse_args, valid=lambda: {"description": "x", "argv": []},
          extra=[("argv", ["--device", "gpu"], "unknown device")]),
    # viz and widgets
    Probe(viz.figure, valid=lambda: {"ncols": 1, "nrows": 1, "width": 2.0, "height": 2.0}),
    Probe(viz.signature, valid=lambda: {"fig": _fig()}, extra=[("fig", 3, "not a figure")]),
    Probe(viz.html_table, valid=lambda: {"header": ["a", "b"], "rows": [[1, 0.5]]},
          extra=[("rows", [[1]], "a short row"), ("header", [], "no header"), ("rows", "ab", "a string")]),
    Probe(viz.plotly_layout, valid=lambda: {"fig": _plotly()}, extra=[("fig", 3, "not a figure")]),
    Probe(widgets.mime_bundle, valid=lambda: {"fig": _fig()}, extra=[("fig", 3, "not a figure")]),
    Probe(widgets.explore, valid=lambda: {"plot_fn": _wave, "controls": {"f": (1.0, 3.0, 1.0)}, "show": False},
          extra=[("controls", {}, "no controls"), ("plot_fn", 3, "not callable"),
                 ("controls", {"f": (3.0, 1.0, 1.0)}, "low > high")]),
    Probe(widgets.Explorer, valid=lambda: {"plot_fn": _wave, "controls": {"f": (1.0, 3.0, 1.0)}, "defaults": {}},
          extra=[("defaults", {"g": 1}, "unknown control"), ("controls", {"f": "x"}, "bad spec")]),
    # serve
    Probe(serve.start, valid=lambda: {"kind": "voila", "target": registry.START_HERE, "timeout": 5.0},
          run_valid=False, extra=[("kind", "jupyter", "unknown kind"), ("target", TMP / "absent.ipynb", "missing")]),
    Probe(serve.explorer_path, valid=lambda: {"slug": "data_mixing"},
          extra=[("slug", "ssn_games", "no explorer"), ("slug", "nope", "unknown")]),
    # notebook_tidy
    Probe(notebook_tidy.badges, valid=lambda: {"path": registry.START_HERE}, extra=[("path", 3, "an int")]),
    Probe(notebook_tidy.strip_on_save, valid=lambda: {"model": {"type": "file"}},
          extra=[("model", 3, "not a mapping")]),
    Probe(notebook_tidy.tidied, valid=lambda: {"path": registry.START_HERE},
          extra=[("path", TMP / "absent.ipynb", "missing notebook")]),
    Probe(notebook_tidy.tidy_all, valid=lambda: {"root": TMP / "no-notebooks"}, extra=[("root", 3, "an int")]),
    Probe(notebook_tidy.tidy, valid=lambda: {"path": _copy_start()},
          extra=[("path", TMP / "absent.ipynb", "missing notebook")]),
    # site
    Probe(site.offline_notebook, valid=lambda: {"nb": {"cells": []}}, extra=[("nb", [1], "not a notebook")]),
    Probe(site.install_mathjax, valid=lambda: {"static_root": TMP / "static"}, extra=[("static_root", 3, "an int")]),
    Probe(site.notebook_html, valid=lambda: {"ipynb": registry.START_HERE, "out": TMP / "s.html",
                                             "static_root": TMP / "static"},
          extra=[("ipynb", TMP / "absent.ipynb", "missing notebook")]),
    Probe(site.write_sources, valid=lambda: {"build_dir": TMP / "no-build", "src": TMP / "src"}, run_valid=False,
          extra=[("build_dir", TMP / "no-build", "no executed notebooks")]),
    Probe(site.build, valid=lambda: {"build_dir": TMP / "no-build"}, run_valid=False,
          extra=[("build_dir", TMP / "no-build", "no executed notebooks")]),
    # the evidence model: controls, margins and ties, diagnostics, rescoring, re-run comparison, docs blocks
    Probe(claims.Control, valid=lambda: {"id": "ctl", "statement": "the method without its key part",
                                         "metric": lambda r: 0.0},
          extra=[("id", "", "empty"), ("statement", " ", "blank"), ("metric", 3, "not callable")]),
    Probe(claims.judge, valid=lambda: {"value": 1.0, "op": ">=", "threshold": 0.5, "margin": 0.1},
          skip={"value": "None and NaN are judged 'misses' by design"},
          extra=[("op", "~", "unknown operator"), ("margin", -1.0, "negative")]),
    Probe(claims.load_margins, valid=lambda: {"paper": "demo", "scale": "quick", "path": TMP / "margins.jsonl"},
          extra=[("scale", "huge", "unknown scale"), ("path", 3, "an int")]),
    Probe(claims.write_margins, valid=lambda: {"entries": [], "path": TMP / "margins-out.jsonl"},
          extra=[("entries", [3], "not entries")]),
    Probe(claims.margins_from_runs, valid=lambda: {"claims": [CLAIM], "runs": DEV_RUNS, "scale": "quick"},
          extra=[("runs", [3], "not runs"), ("scale", "huge", "unknown scale")]),
    Probe(claims.load_diagnostics, valid=lambda: {"path": TMP / "diagnostics.jsonl"},
          extra=[("path", 3, "an int")]),
    Probe(claims.write_diagnostic, valid=lambda: {"entry": {"id": "d1", "paper": "demo", "claim": "c",
                                                            "scale": "quick", "seed": 100, "overrides": {}},
                                                  "path": TMP / "diagnostics-out.jsonl"},
          extra=[("entry", 3, "not a dict")]),
    Probe(claims.why_problems, valid=lambda: {"claims": [CLAIM], "paper": "demo", "diagnostics": {}},
          extra=[("claims", 3, "not a list of claims")]),
    Probe(claims.rerun_mismatches, valid=lambda: {"records": [RECORD], "recorded_records": [RECORD]},
          extra=[("records", [3], "not records"), ("rtol", -1.0, "negative"),
                 ("claim_rtol", {"c1": -1.0}, "a negative tolerance")]),
    Probe(claims.rerun_tolerances, valid=lambda: {"claims": [CLAIM]}, extra=[("claims", [3], "not claims")]),
    Probe(claims.rescore, valid=lambda: {"records": [], "results_dir": RESULTS},
          extra=[("records", [3], "not records")]),
    Probe(claims.rescore_file, valid=lambda: {"path": _records_file(), "papers": []},
          extra=[("path", 3, "an int")]),
    Probe(claim_view.groups, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(claim_view.headline_summary, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(claim_view.markdown_summary, valid=lambda: {"records": [RECORD]}, extra=[("records", [3], "numbers")]),
    Probe(claim_view.margin_text, valid=lambda: {"record": RECORD}, extra=[("record", 3, "a number")]),
    Probe(claim_view.control_text, valid=lambda: {"record": RECORD}, extra=[("record", 3, "a number")]),
    Probe(claim_view.threshold_text, valid=lambda: {"record": RECORD}, extra=[("record", 3, "a number")]),
    Probe(report.headline_cell, valid=lambda: {"row": report.paper_rows(RESULTS)[0]},
          extra=[("row", 3, "a number")]),
    Probe(report.docs_block, valid=lambda: {"slug": "data_mixing", "results_dir": RESULTS},
          extra=[("slug", "no_such_paper", "unknown paper"), ("results_dir", 3, "an int")]),
    Probe(report.update_docs, valid=lambda: {"results_dir": RESULTS, "folder": _docs_copy()},
          extra=[("results_dir", 3, "an int"), ("folder", 3, "an int")]),
]

EXEMPT = {
    "icml26.runtime.ScaleError": "an exception class",
    "icml26.runtime.available_cores": "takes no argument",
    "icml26.runtime.default_threads": "takes no argument (its environment variables are validated, see test_runtime)",
    "icml26.claims.ClaimFailed": "an exception class",
    "icml26.claims.RecordsError": "an exception class",
    "icml26.registry.repository_url": "takes no argument",
    "icml26.registry.release_problems": "its one argument, tags, is probed in tests/test_hygiene.py",
    "icml26.registry.repository": "takes no argument",
    "icml26.registry.release_ref": "takes no argument",
    "icml26.runner.RunInterrupted": "an exception class carrying the finished runs",
    "icml26.runner.main": "the worker's command line (argparse validates it)",
    "icml26.sweep.Outcome": "a result record built by the sweep itself",
    "icml26.sweep.SweepResult": "a result record built by the sweep itself",
    "icml26.sweep.Interrupted": "an exception class",
    "icml26.sweep.main": "the worker's command line (argparse validates it)",
    "icml26.checks.nonnegative_int": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.seed": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.finite_number": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.positive_number": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.nonnegative_number": "a validator: its argument is the value under test (tests/test_checks.py)",
    "icml26.checks.probability": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.device": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.array": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.probability_vector": "a validator: its argument is the value under test (tests/test_checks.py)",
    "icml26.checks.same_length": "a validator: its arguments are the values under test (see tests/test_checks.py)",
    "icml26.checks.config": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.config_like": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.IterationCapReached": "a warning class",
    "icml26.checks.integer": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.instance": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.generator": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.int_at_least": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.checks.int_between": "a validator: its argument is the value under test (see tests/test_checks.py)",
    "icml26.viz.use_style": "takes no argument",
    "icml26.widgets.is_headless": "takes no argument",
    "icml26.serve.free_port": "takes no argument",
    "icml26.serve.quiet_settings_dir": "takes no argument",
    "icml26.serve.Server": "built by start() from a process it launched",
    "icml26.serve.serve_until_stopped": "takes a Server that start() built (tests/test_reliability_processes.py)",
    "icml26.notebook_tidy.colab_missing": "takes no argument",
    "icml26.notebook_tidy.colab_install": "takes no argument",
    "icml26.site.mathjax_source": "takes no argument",
}


def _records_file():
    path = TMP / "records.jsonl"
    path.write_text(claims.dumps(RECORD) + "\n", encoding="utf-8")
    return path


def _docs_copy():
    folder = TMP / "docs-papers"
    folder.mkdir(exist_ok=True)
    return folder


def _readme():
    path = TMP / "README.md"
    path.write_text("x\n<!-- papers:start -->\n<!-- papers:end -->\n")
    return path


def _copy_start():
    import shutil

    path = TMP / "start.ipynb"
    shutil.copy(registry.START_HERE, path)
    return path


def _fig():
    fig, _ = viz.figure(width=1.0, height=1.0)
    return fig


def _plotly():
    import plotly.graph_objects as go

    return go.Figure()


def _wave(f=1.0):
    import numpy as np

    fig, ax = viz.figure(width=1.0, height=1.0)
    ax.plot(np.sin(f * np.linspace(0, 3, 20)))
    return fig


PROBES += [
    # atomic and the checks of paths and record lists
    Probe(atomic.strict_json, valid=lambda: {"value": 1.5},
          skip={"value": "every value is accepted: NaN and infinities are what it turns into None"}),
    Probe(checks.mapping_items, valid=lambda: {"name": "records", "value": [{"a": 1}], "keys": ("a",)},
          skip={"value": "the value under test"},
          extra=[("name", "", "empty name"), ("keys", "ab", "a string of keys")]),
    Probe(checks.path, valid=lambda: {"name": "p", "value": TMP, "must_exist": True, "kind": "dir"},
          skip={"value": "the value under test"},
          extra=[("name", "", "empty name"), ("kind", "folder", "unknown kind")]),
]
