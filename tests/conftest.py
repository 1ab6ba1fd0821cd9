"""Test-wide settings: one torch thread, no CUDA, headless widgets; notebook timings summarised."""

import os

os.environ.setdefault("ICML26_HEADLESS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import torch  # noqa: E402

torch.set_num_threads(1)


def pytest_terminal_summary(terminalreporter):
    """Print the notebooks' measured times, slowest first (they are kept under a budget)."""
    times = []
    for reports in terminalreporter.stats.values():
        for rep in reports:
            props = dict(getattr(rep, "user_properties", []) or [])
            if getattr(rep, "when", None) == "call" and "notebook_seconds" in props:
                times.append((props["notebook_seconds"], props["notebook"]))
    if times:
        terminalreporter.section("notebook times (slowest first)")
        for seconds, name in sorted(times, reverse=True):
            terminalreporter.write_line(f"{seconds:7.1f} s  {name}")
        terminalreporter.write_line(f"{sum(t for t, _ in times):7.1f} s  total over {len(times)} notebooks")
