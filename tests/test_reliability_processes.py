"""Issue 82: the runner's workers and kernels die with it, and killed kernels leave no connection files."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from icml26 import runner

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG")


def _marked(mark: str) -> list[tuple[int, str]]:
    """The live processes whose environment carries ``mark``, with their command lines."""
    out = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if mark.encode() in (entry / "environ").read_bytes():
                stat = (entry / "stat").read_text()
                if stat.rsplit(")", 1)[1].split()[0] == "Z":
                    continue
                out.append((int(entry.name), (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()))
        except (OSError, ValueError, IndexError):
            continue
    return out


def _wait(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.25)
    return predicate()


def test_kill_tagged_spares_the_named_process():
    token = uuid.uuid4().hex
    env = {**os.environ, runner.TOKEN_VAR: token}
    procs = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env) for _ in range(2)]
    try:
        assert _wait(lambda: len(_marked(token)) == 2, 30)
        assert runner.kill_tagged(token, spare=procs[0].pid) == 1
        assert procs[1].wait(timeout=10) == -signal.SIGKILL and procs[0].poll() is None
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.mark.notebooks
def test_a_sigkilled_runner_takes_its_worker_and_kernel_with_it(tmp_path, write_notebook):
    """SIGKILL to the process running the notebooks: its worker gets the parent-death signal, stops the kernel and
    removes the kernel's connection files."""
    nb = write_notebook(tmp_path / "sleep.ipynb", "import time\ntime.sleep(600)")
    mark = f"ICML26_TEST_MARK_{uuid.uuid4().hex}"
    temp = tmp_path / "temp"
    temp.mkdir()
    code = ("from icml26 import runner; "
            f"runner.run_notebooks([('x', {str(nb)!r})], {str(tmp_path / 'build')!r}, timeout=600, html=False, "
            "progress=False)")
    parent = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, mark: "1", "TMPDIR": str(temp)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _wait(lambda: any("ipykernel" in cmd for _, cmd in _marked(mark)), 240), "the kernel never started"
        assert _wait(lambda: any(temp.glob(f"{runner.RUNTIME_PREFIX}*/*.json")), 30)
        parent.kill()
        parent.wait()
        assert _wait(lambda: not _marked(mark), 60), f"left running: {_marked(mark)}"
        assert not list(temp.glob(f"{runner.RUNTIME_PREFIX}*")), "connection files left behind"
    finally:
        parent.kill()
        for pid, _ in _marked(mark):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.notebooks
def test_a_stopped_worker_leaves_no_kernel_and_no_connection_file(tmp_path, monkeypatch, write_notebook):
    """The runner's own stop (a time limit, Ctrl-C) SIGKILLs worker and kernel; their runtime folder goes too."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    nb = write_notebook(tmp_path / "sleep.ipynb", "import time\ntime.sleep(600)")
    job = runner._start(nb, tmp_path / "build", {"SCALE": "quick"}, 600, html=False)
    try:
        assert Path(job.runtime).parent == tmp_path
        assert _wait(lambda: any(Path(job.runtime).glob("*.json")), 240), "the kernel never started"
        assert _wait(lambda: any("ipykernel" in cmd for _, cmd in _marked(job.token)), 60)
        runner._stop(job)
        assert _wait(lambda: not _marked(job.token), 10), f"left running: {_marked(job.token)}"
        assert not Path(job.runtime).exists()
    finally:
        runner._stop(job)


def test_voila_answers_only_requests_naming_a_local_host():
    """Voila's standalone app turns Jupyter's Host check off; ours turns it on again (DNS rebinding)."""
    import http.client

    from icml26 import registry, serve

    server = serve.start("voila", registry.START_HERE, timeout=120)
    try:
        port = int(server.url.rsplit(":", 1)[1])

        def status(host):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            conn.request("GET", "/", headers={"Host": host})
            resp = conn.getresponse()
            resp.read()
            return resp.status

        assert status(f"127.0.0.1:{port}") == 200
        assert status(f"localhost:{port}") == 200
        assert status("attacker.example") == 403
        assert status(f"attacker.example:{port}") == 403
    finally:
        server.stop()


def test_explore_stops_its_voila_server_on_sigterm():
    """`python -m icml26 explore` runs Voila in its own session; a SIGTERM to the command must not leave it serving."""
    import urllib.request

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "icml26", "explore", "data_mixing", "--timeout", "180"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        line = ""
        deadline = time.monotonic() + 200
        while "explorer:" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line or proc.poll() is None, "explore exited before serving"
        url = line.split("explorer:", 1)[1].split()[0]
        with urllib.request.urlopen(url, timeout=120) as resp:
            assert resp.status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        time.sleep(1)
        with pytest.raises(OSError):
            urllib.request.urlopen(url, timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
