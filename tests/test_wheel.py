"""The third way in: build the wheel, install it into a fresh virtual environment, list, copy, run.

The installed package must find its notebooks and recorded results inside itself (icml26/_bundle), report
every paper as built, copy the notebooks out with ``python -m icml26 notebooks DIR`` and run a quick paper.
The fresh environment borrows the test environment's third-party packages (a path file), never its
editable icml26.
"""

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from icml26 import registry

IGNORE = shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__", ".ipynb_checkpoints",
                                "_bundle", ".pytest_cache", ".ruff_cache", ".hypothesis", "*.lock")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(registry.CHECKOUT, src, ignore=IGNORE)
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp / "dist")], check=True, capture_output=True, text=True)
    wheel = next((tmp / "dist").glob("icml26-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")  # torch & co., not icml26
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(site),
                    str(wheel)], check=True, capture_output=True, text=True)
    return python, tmp


def run(python, *args, cwd):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "",
           "MPLBACKEND": "Agg"}
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_installed_wheel_is_its_own_and_lists_every_paper_as_built(installed):
    python, tmp = installed
    where = run(python, "-c", "import icml26; print(icml26.__file__)", cwd=tmp)
    assert str(tmp / "venv") in where.stdout, where.stdout + where.stderr
    out = run(python, "-m", "icml26", "list", cwd=tmp)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line[:2].isdigit()]
    assert len(rows) == 19 and all(" built " in r for r in rows), out.stdout


def test_notebooks_copy_out_and_a_quick_paper_runs(installed):
    python, tmp = installed
    dest = tmp / "mine"
    out = run(python, "-m", "icml26", "notebooks", str(dest), cwd=tmp)
    assert out.returncode == 0, out.stderr
    assert (dest / "notebooks" / "00_start_here.ipynb").exists()
    assert len(list((dest / "notebooks").glob("*/*.ipynb"))) >= 2 * 19
    assert run(python, "-m", "icml26", "notebooks", str(dest), cwd=tmp).returncode == 2  # not empty: refused
    out = run(python, "-m", "icml26", "run", "ssn_games", "--device", "cpu", "--json", cwd=tmp)
    assert out.returncode == 0, out.stderr[-3000:]
    records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert records and all(r["paper"] == "ssn_games" for r in records)
