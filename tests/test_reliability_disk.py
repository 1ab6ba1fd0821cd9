"""Issue 82: a full disk gives a one-line error and the summary of what finished, never an invalid notebook."""

import errno
import json
import os
import subprocess
import sys

import pytest

from icml26 import atomic, cli, runner

ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture
def tiny_disk(tmp_path):
    """A 2 MiB tmpfs (needs root and mount(8)); skipped where it cannot be mounted."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], check=True,
                       capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, capture_output=True, timeout=30)


def _fill(folder) -> None:
    """Fill the file system of ``folder`` to the last byte."""
    with open(folder / "filler", "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    with pytest.raises(OSError):
        (folder / "probe").write_bytes(b"\0" * 65536)


def _runs():
    return [runner.NotebookRun(paper="ssn_games", notebook="notebooks/05_ssn_games/1_idea.ipynb", status="ok",
                               seconds=1.5)]


def _check_reproduce_reports_a_full_disk(out, capsys, monkeypatch):
    monkeypatch.setattr(runner, "run_notebooks", lambda items, out_dir, **kw: _runs())
    assert cli.main(["reproduce", "--papers", "ssn_games", "--out", str(out), "--no-html"]) == 1
    captured = capsys.readouterr()
    assert "1_idea.ipynb" in captured.out and "1 notebooks, 0 failed" in captured.out  # the summary of what ran
    assert "Traceback" not in captured.err
    errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0], captured.err
    assert not (out / "runs.json").exists() or json.loads((out / "runs.json").read_text())  # never a torn file


def test_reproduce_on_a_full_tmpfs_prints_the_summary_and_one_line(tiny_disk, capsys, monkeypatch):
    out = tiny_disk / "build"
    out.mkdir()
    _fill(tiny_disk)
    _check_reproduce_reports_a_full_disk(out, capsys, monkeypatch)


def test_reproduce_when_every_write_fails_with_enospc(tmp_path, capsys, monkeypatch):
    def full(path, data):
        raise ENOSPC

    monkeypatch.setattr(atomic, "write_bytes", full)
    _check_reproduce_reports_a_full_disk(tmp_path, capsys, monkeypatch)


def test_worker_keeps_no_notebook_whose_last_save_failed(tmp_path, monkeypatch, write_notebook):
    """papermill's partial file is cut short by a failed save: it is dropped, and the status says why."""
    import papermill

    nb = write_notebook(tmp_path / "nb.ipynb", "1 + 1")
    stem = tmp_path / "out" / "nb"
    stem.parent.mkdir()
    stem.with_suffix(".ipynb").write_text('{"cells": [], "nbformat": 4}')  # an older run's: must not stay

    def torn_save(src, dest, **kwargs):
        with open(dest, "w") as fh:
            fh.write('{"cells": [{"cell_type": "code", "sou')
        raise ENOSPC

    monkeypatch.setattr(papermill, "execute_notebook", torn_save)
    assert runner._worker(nb, str(stem), {}, 60, False) == 0
    assert list(stem.parent.glob("*.ipynb")) == [] and list(stem.parent.glob(".*.ipynb")) == []
    state = json.loads(stem.with_suffix(".status.json").read_text())
    assert state["raised"] and "No space left on device" in state["error"]
    assert "could not be saved whole" in state["error"]


def test_worker_still_keeps_a_whole_notebook_after_a_cell_error(tmp_path, monkeypatch, write_notebook):
    import papermill

    nb = write_notebook(tmp_path / "nb.ipynb", "1 + 1")
    stem = tmp_path / "nb"

    def failing_cell(src, dest, **kwargs):
        with open(src) as fin, open(dest, "w") as fout:
            fout.write(fin.read())
        raise RuntimeError("a cell failed")

    monkeypatch.setattr(papermill, "execute_notebook", failing_cell)
    runner._worker(nb, str(stem), {}, 60, False)
    assert json.loads(stem.with_suffix(".ipynb").read_text())["cells"]
    assert json.loads(stem.with_suffix(".status.json").read_text())["error"] == "RuntimeError: a cell failed"


@pytest.mark.notebooks
def test_a_real_kernel_on_a_full_tmpfs_leaves_no_invalid_notebook(tiny_disk, write_notebook):
    """End to end: a notebook whose output outgrows a 2 MiB tmpfs; papermill's save fails part-way."""
    nb = write_notebook(tiny_disk.parent / "big.ipynb", "print('x' * 4_000_000)")
    stem = tiny_disk / "big"
    code = f"from icml26 import runner; runner._worker({str(nb)!r}, {str(stem)!r}, {{}}, 120, False)"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, capture_output=True,
                   env={**os.environ, **runner.HEADLESS_ENV})
    assert not stem.with_suffix(".ipynb").exists() and not list(tiny_disk.glob(".*partial*"))
    state = json.loads(stem.with_suffix(".status.json").read_text())
    assert state["raised"] and "could not be saved whole" in state["error"]
