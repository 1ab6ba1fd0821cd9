"""Test-wide settings: one torch thread, no CUDA, headless widgets; notebook timings summarised."""

import os

os.environ.setdefault("ICML26_HEADLESS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import pytest  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


def _write_notebook(path, source: str):
    """A notebook whose first cell sets ``SCALE = 'quick'`` (tagged ``parameters``) and whose second runs
    ``source``, written at ``path``; returns the path."""
    from pathlib import Path

    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("SCALE = 'quick'", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(source)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return Path(path)


@pytest.fixture
def write_notebook():
    """The writer of a small two-cell notebook, for the tests that run real kernels."""
    return _write_notebook


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
