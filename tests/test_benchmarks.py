"""Every benchmark script runs at its tiny --quick size (speed ratios are printed, never asserted)."""

import subprocess
import sys

import pytest

from icml26.registry import ROOT

SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_benchmark_runs_quick(script):
    proc = subprocess.run([sys.executable, str(script), "--quick", "--device", "cpu"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip(), "a benchmark must print what it measured"
