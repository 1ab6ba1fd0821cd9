"""``python -m icml26 gpu-check --dry-run`` (``make gpu ARGS=--dry-run``): the GPU check's code paths on the CPU.

One dry run (the quickest paper's quick experiment, one tiny benchmark) is shared by the tests below; they check
what it printed and wrote, that it left the committed files alone, and the comparison with the CPU record on its
own measurements. Bad input is refused naming the option. Last, the CUDA-only padded sink construction, forced on
the CPU, agrees with its CPU twin (the log-sum-exp route) and with the materialised path.
"""

import dataclasses
import json

import pytest
import torch

from icml26 import cli, gpu_check, registry
from icml26.sweep import Outcome, SweepResult, Task

PAPER = gpu_check.DRY_PAPERS[0]
BENCH = gpu_check.DRY_BENCH[0]


@pytest.fixture(scope="module")
def dry(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu-check")
    bench_md = registry.ROOT / "benchmarks" / "RESULTS.md"
    before = bench_md.read_text(encoding="utf-8")
    nb_md = registry.ROOT / "notebooks" / registry.get(PAPER).folder / "RESULTS.md"
    nb_before = nb_md.read_text(encoding="utf-8") if nb_md.exists() else None
    report = gpu_check.check(gpu_check.options(dry_run=True, out=out))
    assert bench_md.read_text(encoding="utf-8") == before, "a dry run must not touch benchmarks/RESULTS.md"
    assert (nb_md.read_text(encoding="utf-8") if nb_md.exists() else None) == nb_before
    return report, out


def test_dry_run_prints_the_device_the_kernels_the_paper_and_the_bench(dry):
    report, out = dry
    text = "\n".join(report.lines)
    assert report.lines[0].startswith("gpu-check: dry run on the CPU") and str(out) in report.lines[0]
    for head in ("device: CPU", "memory bandwidth: ", "matmul throughput (n=", "fused sink attention (float32",
                 "fused vanilla attention (float32", f"paper {PAPER}: ", f"bench {BENCH} (quick sizes, cpu): ok"):
        assert any(line.startswith(head) for line in report.lines), f"no line starts with {head!r}:\n{text}"
    assert report.device["bandwidth_gb_s"] > 0 and set(report.device["matmul_tflop_s"]) == {"bfloat16", "float32"}
    assert all(k["ok"] for k in report.kernels), text
    assert report.bench[BENCH]["lines"] and any("faster" in s for s in report.bench[BENCH]["lines"])
    assert report.lines[-1].startswith("gpu-check ") and not report.skipped


def test_dry_run_compares_every_claim_with_the_cpu_record_and_names_those_that_differ(dry):
    report, _ = dry
    p = report.papers[PAPER]
    assert p["status"] in ("agree", "differs"), p.get("error")  # ran; whether it agrees is the record's business
    claims = __import__(f"{registry.get(PAPER).module}.claims", fromlist=["CLAIMS"]).CLAIMS
    assert [r["claim"] for r in p["rows"]] == [c.id for c in claims]
    line = next(s for s in report.lines if s.startswith(f"paper {PAPER}: "))
    assert "claims agree with the CPU record (quick seed 0, rtol 0.05)" in line
    for d in p["differ"]:  # each difference is named on screen and in the paper's RESULTS.md
        assert f"  differs: {d}" in report.lines and d.split(":")[0] in line
    assert (p["status"] == "agree") == (not p["differ"]) == report.ok


def test_dry_run_writes_the_marked_sections_into_its_own_folder(dry):
    report, out = dry
    bench = (out / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    assert bench.count(gpu_check.MARK_START) == 1 and bench.count(gpu_check.MARK_END) == 1
    section = bench.split(gpu_check.MARK_START)[1].split(gpu_check.MARK_END)[0]
    assert "### dry run on the CPU at tiny sizes (not a GPU measurement)" in section and report.date in section
    assert "Device ceilings, measured: memory bandwidth" in section and f"| {BENCH} | ok |" in section
    assert "## CPU:" in bench.split(gpu_check.MARK_START)[0]  # the committed CPU table is kept above it
    paper = registry.get(PAPER)
    page = (out / "notebooks" / paper.folder / "RESULTS.md").read_text(encoding="utf-8")
    assert page.startswith(f"# {paper.title}") and page.count(gpu_check.MARK_START) == 1
    assert "| claim | kind | CPU (seed 0) | device |" in page
    assert all(f"| `{r['claim']}` |" in page for r in report.papers[PAPER]["rows"])
    assert all(d in page for d in report.papers[PAPER]["differ"])
    saved = json.loads((out / "gpu_check.json").read_text(encoding="utf-8"))
    assert saved["dry_run"] is True and saved["papers"][PAPER]["status"] == report.papers[PAPER]["status"]
    assert saved["tolerance"]["rtol"] == gpu_check.RTOL
    assert (out / "gpu_check.log").read_text(encoding="utf-8").splitlines() == report.lines
    # a second run into the same folder replaces its sections rather than adding more
    gpu_check.write_outputs(dataclasses.replace(report, options=gpu_check.options(dry_run=True, out=out, bench="none"),
                                                lines=list(report.lines)))
    assert (out / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8").count(gpu_check.MARK_START) == 1


def _records(run):
    task = Task(PAPER, "quick", 0, "cpu")
    return SweepResult([Outcome(task, run=run)]).records()[PAPER]


def test_the_comparison_holds_within_rtol_and_names_a_claim_outside_it(dry):
    report, _ = dry
    run = report.papers[PAPER]["run"]
    recorded = _records(run)
    same = gpu_check.compare_paper(PAPER, {"run": run, "seconds": 1.0}, recorded, rtol=0.05, atol=1e-6)
    assert same["status"] == "agree" and all(r["agrees"] for r in same["rows"])
    learned = next(r for r in recorded if r["kind"] != "check" and r["values"][0] and abs(r["values"][0]) > 1e-3)
    for factor, agrees in ((1.01, True), (1.2, False)):
        moved = json.loads(json.dumps(recorded))
        rec = next(r for r in moved if r["claim"] == learned["claim"])
        rec["values"] = [learned["values"][0] * factor]
        got = gpu_check.compare_paper(PAPER, {"run": run, "seconds": 1.0}, moved, rtol=0.05, atol=1e-6)
        row = next(r for r in got["rows"] if r["claim"] == learned["claim"])
        assert row["agrees"] is agrees and (got["status"] == "agree") is agrees
        assert agrees or got["differ"][0].startswith(f"{PAPER}/{learned['claim']}: value re-ran as")
    check = next((r for r in recorded if r["kind"] == "check"), None)
    if check is not None:  # a check is compared by its outcome, not its (round-off) value
        flipped = json.loads(json.dumps(recorded))
        rec = next(r for r in flipped if r["claim"] == check["claim"])
        rec["outcomes"] = ["misses" if check["outcomes"][0] == "holds" else "holds"]
        rec["values"] = [1e9]
        got = gpu_check.compare_paper(PAPER, {"run": run, "seconds": 1.0}, flipped, rtol=0.05, atol=1e-6)
        assert [d.split(":")[0] for d in got["differ"]] == [f"{PAPER}/{check['claim']}"]
    failed = gpu_check.compare_paper(PAPER, {"error": "Traceback\nRuntimeError: boom", "seconds": 2.0}, recorded,
                                     0.05, 1e-6)
    assert failed["status"] == "failed" and "boom" in gpu_check.paper_line(failed, 0.05)
    missing = gpu_check.compare_paper(PAPER, {"error": "x", "missing": "ot", "seconds": 0.1}, recorded, 0.05, 1e-6)
    assert missing["status"] == "skipped" and "'ot'" in gpu_check.paper_line(missing, 0.05)


@pytest.mark.parametrize(("kwargs", "option"), [
    ({"dry_run": True, "budget_s": 0}, "--budget-s"),
    ({"dry_run": True, "budget_s": float("nan")}, "--budget-s"),
    ({"dry_run": True, "budget_s": 10}, "--budget-s"),
    ({"dry_run": True, "rtol": -0.1}, "--rtol"),
    ({"dry_run": True, "atol": "1e-6"}, "--atol"),
    ({"dry_run": True, "paper_timeout_s": 0}, "--paper-timeout-s"),
    ({"dry_run": True, "bench_timeout_s": -1}, "--bench-timeout-s"),
    ({"dry_run": True, "papers": "no_such_paper"}, "--papers"),
    ({"dry_run": True, "papers": 3}, "--papers"),
    ({"dry_run": True, "bench": "no_such_paper"}, "--bench"),
    ({"dry_run": True, "device": "tpu"}, "--device"),
    ({"dry_run": "yes"}, "--dry-run"),
    ({"dry_run": True, "out": registry.ROOT}, "--out"),
    ({"dry_run": True, "out": ""}, "--out"),
    ({}, "--device 'cuda': this machine has no CUDA device"),  # the tests run with CUDA hidden
])
def test_bad_input_is_refused_naming_the_option(kwargs, option):
    with pytest.raises(ValueError, match=option.replace("(", r"\(")):
        gpu_check.options(**kwargs)


def test_out_must_be_a_folder(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="--out must be a folder"):
        gpu_check.options(dry_run=True, out=f)
    assert gpu_check.options(dry_run=True, out=tmp_path / "new", bench="none").bench == ()


def test_the_command_line_refuses_bad_input_with_status_2(capsys):
    assert cli.main(["gpu-check", "--dry-run", "--papers", "no_such_paper"]) == 2
    assert "error: --papers: unknown paper slug 'no_such_paper'" in capsys.readouterr().err
    assert cli.main(["gpu-check"]) == 2
    assert "no CUDA device; --dry-run runs the same steps" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["gpu-check", "--budget-s", "soon"])
    assert exc.value.code == 2 and "--budget-s" in capsys.readouterr().err
    assert gpu_check.main(["--dry-run", "--budget-s", "-5"]) == 2
    assert "--budget-s must be a finite positive number" in capsys.readouterr().err
    assert gpu_check.main(["--worker", "only-one"]) == 2


def test_replace_section_appends_replaces_and_refuses_a_lone_marker():
    a, b = gpu_check.MARK_START, gpu_check.MARK_END
    added = gpu_check.replace_section("# T\n\ntext\n", "one")
    assert added == f"# T\n\ntext\n\n{a}\none\n{b}\n"
    assert gpu_check.replace_section(added, "two") == f"# T\n\ntext\n\n{a}\ntwo\n{b}\n"
    for bad in (f"x {a} y", f"x {b} y", f"{b} {a}", f"{a}{b}{a}{b}"):
        with pytest.raises(ValueError, match="text must hold"):
            gpu_check.replace_section(bad, "z")


def test_the_committed_benchmark_results_hold_the_gpu_markers():
    text = (registry.ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    assert text.count(gpu_check.MARK_START) == 1 and text.count(gpu_check.MARK_END) == 1
    assert text.index(gpu_check.MARK_START) < text.index(gpu_check.MARK_END)


# -- the CUDA-only padded sink construction, forced on the CPU, against its CPU twin ----------------------------

@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("d", [8, 7, 5, 16])
def test_padded_sink_construction_agrees_with_the_log_sum_exp_route_and_the_materialised_path(monkeypatch, causal,
                                                                                              d):
    """On CUDA the fused sink is one extra key and channel (padded to a multiple of 8); on the CPU it is the
    log-sum-exp route. Hiding the CPU flash op sends the CPU through the CUDA branch, so both meet here."""
    from icml26.nn import attention as attn

    assert attn._FLASH_CPU is not None, "the CPU twin (log-sum-exp route) needs torch's CPU flash op"
    g = torch.Generator().manual_seed(2)
    base = [torch.randn(2, 3, 9, d, generator=g, dtype=torch.float64) for _ in range(3)]
    sink0 = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    w = torch.randn(2, 3, 9, d, generator=g, dtype=torch.float64)
    wg = torch.randn(2, 3, 9, generator=g, dtype=torch.float64)
    sdpa = attn.F.scaled_dot_product_attention
    head_sizes = []

    def spy(q, *args, **kwargs):
        head_sizes.append(q.shape[-1])
        return sdpa(q, *args, **kwargs)

    def run(fn):
        q, k, v = (x.clone().requires_grad_(True) for x in base)
        sink = sink0.clone().requires_grad_(True)
        r = fn(q, k, v, variant="sink", causal=causal, sink_logit=sink)
        grads = torch.autograd.grad((r.out * w).sum() + (r.gate * wg).sum(), [q, k, v, sink])
        return [r.out.detach(), r.gate.detach(), *grads]

    materialised = run(attn.attention)
    twin = run(attn.fused_attention)
    monkeypatch.setattr(attn.F, "scaled_dot_product_attention", spy)
    monkeypatch.setattr(attn, "_FLASH_CPU", None)
    padded = run(attn.fused_attention)
    assert head_sizes and all(s == d + 8 - d % 8 for s in head_sizes), "the padded construction did not run"
    for name, a, b, c in zip(["out", "gate", "dq", "dk", "dv", "dsink"], materialised, twin, padded):
        assert torch.allclose(c, b, atol=1e-10), f"{name}: padded against the log-sum-exp route"
        assert torch.allclose(c, a, atol=1e-10), f"{name}: padded against the materialised path"


BLOCK = """
import importlib.abc, runpy, sys
BLOCKED = {"ot", "plotly", "ipywidgets", "IPython", "jupyter", "jupyterlab", "papermill", "nbformat", "nbclient"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
sys.meta_path.insert(0, Block())
sys.argv = ["gpu_check"] + sys.argv[1:]
runpy.run_module("icml26.gpu_check", run_name="__main__")
"""


def test_the_worker_runs_without_jupyter_plotly_or_pot_and_names_a_missing_package(tmp_path):
    """The GPU image has no POT: the check's own modules import without it (and without Jupyter or plotly), and a
    paper whose experiment needs it is reported as skipped for that package, not as a failure."""
    import subprocess
    import sys

    spec, out = tmp_path / "spec.json", tmp_path / "out.jsonl"
    spec.write_text(json.dumps({"device": "cpu", "papers": ["otp_fm"]}), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", BLOCK, "--worker", str(spec), str(out)], capture_output=True,
                          text=True, timeout=300, env=gpu_check._env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(s) for s in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"start": "otp_fm"} and lines[1]["missing"] == "ot"
    assert "blocked by the test" in lines[1]["error"]
    entry = gpu_check.compare_paper("otp_fm", lines[1], [], 0.05, 1e-6)
    assert entry["status"] == "skipped" and "needs the package 'ot'" in gpu_check.paper_line(entry, 0.05)


def test_papers_that_outrun_their_timeout_or_the_budget_are_stopped_and_named(monkeypatch):
    """A slow paper is killed at its timeout and the next one gets a fresh worker; at the budget the running one is
    stopped and the rest are skipped (the toy paper of tests/fixtures sleeps as long as it is told)."""
    import os
    import time
    from pathlib import Path

    fixtures = str(Path(__file__).with_name("fixtures"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [fixtures, os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("TOY_PAPER_SLEEP", "60")
    modules = {"toy_a": "toy_paper", "toy_b": "toy_paper"}
    said = []
    results, skipped = gpu_check.run_papers(["toy_a", "toy_b"], "cpu", time.monotonic() + 120, 1.0, said.append,
                                            modules=modules)
    assert not skipped and all(results[p]["error"] == "timed out after 1 s" for p in modules), results
    assert said == ["  toy_a: timed out after 1 s", "  toy_b: timed out after 1 s"]
    entry = gpu_check.compare_paper("toy_a", results["toy_a"], [], 0.05, 1e-6)
    assert entry["status"] == "failed" and "timed out after 1 s" in gpu_check.paper_line(entry, 0.05)
    # at the budget: the running paper is stopped (or, on a slow machine, none had started) and the rest skipped
    results, skipped = gpu_check.run_papers(["toy_a", "toy_b"], "cpu", time.monotonic() + 6, 100.0, said.append,
                                            modules=modules)
    assert "toy_b" in skipped and (skipped == ["toy_a", "toy_b"] or results["toy_a"]["budget"] is True)
    if "toy_a" in results:
        entry = gpu_check.compare_paper("toy_a", results["toy_a"], [], 0.05, 1e-6)
        assert entry["status"] == "skipped" and "stopped at the time budget" in gpu_check.paper_line(entry, 0.05)
    assert gpu_check.run_papers(["toy_a"], "cpu", time.monotonic() + 1, 100.0, said.append) == ({}, ["toy_a"])
