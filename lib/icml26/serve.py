"""Serve notebooks on loopback for people and for the browser tests: Voila pages and JupyterLab.

Servers get a free port (never a fixed one), a temporary configuration with news, update checks and
the extension manager's fetches turned off, and are stopped with their whole process group.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from icml26 import registry
from icml26.runner import INLINE_BACKEND


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quiet_settings_dir() -> Path:
    """A JupyterLab settings folder with news, update checks and autosave off (no fetches, no toasts, no writes)."""
    root = Path(tempfile.mkdtemp(prefix="icml26-lab-settings-"))
    plugin = root / "@jupyterlab" / "apputils-extension"
    plugin.mkdir(parents=True)
    (plugin / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True}))
    docmanager = root / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    return root


@dataclass
class Server:
    """A running server: its process, URL and log file."""

    process: subprocess.Popen
    url: str
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def shutdown_kernels(self) -> int:
        """Shut down every kernel this server runs (Jupyter's REST API); return how many."""
        with urllib.request.urlopen(f"{self.url}/api/kernels", timeout=10) as resp:
            kernels = json.loads(resp.read())
        for k in kernels:
            req = urllib.request.Request(f"{self.url}/api/kernels/{k['id']}", method="DELETE")
            with urllib.request.urlopen(req, timeout=30):
                pass
        return len(kernels)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def _command(kind: str, port: int, target: Path) -> list[str]:
    common = ["--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0"]
    if kind == "voila":
        return [sys.executable, "-m", "voila", str(target), *common, "--Voila.ip=127.0.0.1",
                "--show_tracebacks=True"]
    if kind == "lab":
        return [sys.executable, "-m", "jupyterlab", *common, f"--ServerApp.root_dir={target}",
                "--IdentityProvider.token=", "--ServerApp.password=", "--LabApp.extension_manager=readonly",
                "--LabApp.news_url=None", "--ServerApp.disable_check_xsrf=True", "--ServerApp.allow_root=True",
                f"--LabApp.workspaces_dir={tempfile.mkdtemp(prefix='icml26-lab-ws-')}"]
    raise ValueError(f"kind must be 'voila' or 'lab'; got {kind!r}")


def start(kind: str, target: str | os.PathLike, timeout: float = 90, env: dict | None = None) -> Server:
    """Start a ``voila`` or ``lab`` server on a free loopback port and wait until it answers.

    Raises ``RuntimeError`` with the server's log when it does not answer within ``timeout`` seconds.
    """
    target = Path(target).resolve()
    if not target.exists():
        raise ValueError(f"target {target} must be an existing notebook or folder")
    port = free_port()
    log = Path(tempfile.mkdtemp(prefix=f"icml26-{kind}-")) / "server.log"
    child_env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(quiet_settings_dir()), "MPLBACKEND": INLINE_BACKEND,
                 **(env or {})}
    child_env.pop("ICML26_HEADLESS", None)  # a person (or a browser) drives these widgets
    with open(log, "w") as fh:
        proc = subprocess.Popen(_command(kind, port, target), stdout=fh, stderr=subprocess.STDOUT, env=child_env,
                                cwd=target if target.is_dir() else target.parent, start_new_session=True)
    server = Server(proc, f"http://127.0.0.1:{port}", log)
    deadline = time.monotonic() + timeout
    probe = server.url + ("/lab" if kind == "lab" else "/")
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(probe, timeout=2):
                return server
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"{kind} server did not answer at {probe} within {timeout:.0f} s; its log:\n{server.log_text()}")


def explorer_path(slug: str) -> Path:
    """The explorer notebook of a paper (one of :data:`registry.EXPLORERS`)."""
    registry.get(slug)
    if slug not in registry.EXPLORERS:
        raise ValueError(f"paper {slug!r} has no explorer page; explorers: {', '.join(registry.EXPLORERS)}")
    path = registry.NOTEBOOKS / registry.EXPLORERS[slug]
    if not path.exists():
        raise ValueError(f"the explorer of {slug!r} ({path.name}) is not built yet")
    return path
