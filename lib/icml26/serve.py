"""Serve notebooks on loopback for people and for the browser tests: Voila pages and JupyterLab.

Servers get a free port (never a fixed one), a temporary configuration with news, update checks and
the extension manager's fetches turned off, and are stopped with their whole process group; the
temporary folders each start makes are removed when it stops. JupyterLab runs with a random token and
its XSRF check on, so no other local process can start kernels on it without the credential.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
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
    """A running server: its process, URL, access token (``""`` for Voila) and log file."""

    process: subprocess.Popen
    url: str
    log: Path
    token: str = ""
    temporary: tuple = ()

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
        for folder in self.temporary:
            shutil.rmtree(folder, ignore_errors=True)

    def link(self, path: str) -> str:
        """A URL under this server that carries the token (for a browser)."""
        sep = "&" if "?" in path else "?"
        return f"{self.url}{path}{sep}token={self.token}" if self.token else f"{self.url}{path}"

    def _request(self, path: str, method: str = "GET"):
        headers = {"Authorization": f"token {self.token}"} if self.token else {}
        return urllib.request.Request(f"{self.url}{path}", method=method, headers=headers)

    def shutdown_kernels(self) -> int:
        """Shut down every kernel this server runs (Jupyter's REST API); return how many."""
        with urllib.request.urlopen(self._request("/api/kernels"), timeout=10) as resp:
            kernels = json.loads(resp.read())
        for k in kernels:
            with urllib.request.urlopen(self._request(f"/api/kernels/{k['id']}", "DELETE"), timeout=30):
                pass
        return len(kernels)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def _voila_config(folder: Path) -> Path:
    """A Voila config that keeps the Host check on: Voila's standalone app turns Jupyter's check off
    (``allow_remote_access=True``), so a page on loopback would answer a request naming any host (DNS
    rebinding). With it off again, only loopback addresses and ``localhost`` are served."""
    path = folder / "voila.json"  # the name Voila looks for on its config_file_paths
    path.write_text(json.dumps({"Voila": {"tornado_settings": {"allow_remote_access": False,
                                                                "local_hostnames": ["localhost"]}}}))
    return path


def _command(kind: str, port: int, target: Path, token: str, workspaces: Path) -> list[str]:
    common = ["--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0"]
    if kind == "voila":
        return [sys.executable, "-m", "voila", str(target), *common, "--Voila.ip=127.0.0.1",
                "--show_tracebacks=True", f"--Voila.config_file_paths={_voila_config(workspaces).parent}"]
    if kind == "lab":
        return [sys.executable, "-m", "jupyterlab", *common, f"--ServerApp.root_dir={target}",
                f"--IdentityProvider.token={token}", "--ServerApp.password=", "--LabApp.extension_manager=readonly",
                "--LabApp.news_url=None", "--ServerApp.allow_root=True", f"--LabApp.workspaces_dir={workspaces}",
                "--ContentsManager.pre_save_hook=icml26.notebook_tidy.strip_on_save"]
    raise ValueError(f"kind must be 'voila' or 'lab'; got {kind!r}")


def start(kind: str, target: str | os.PathLike, timeout: float = 90, env: dict | None = None) -> Server:
    """Start a ``voila`` or ``lab`` server on a free loopback port and wait until it answers.

    Raises ``RuntimeError`` with the server's log when it does not answer within ``timeout`` seconds.
    """
    from icml26 import checks

    if kind not in ("voila", "lab"):
        raise ValueError(f"kind must be 'voila' or 'lab'; got {kind!r}")
    target = checks.path("target", target, must_exist=True).resolve()
    timeout = checks.positive_number("timeout", timeout)
    port = free_port()
    logs = Path(tempfile.mkdtemp(prefix=f"icml26-{kind}-"))
    settings = quiet_settings_dir()
    workspaces = Path(tempfile.mkdtemp(prefix="icml26-lab-ws-"))
    token = secrets.token_hex(24) if kind == "lab" else ""
    log = logs / "server.log"
    child_env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings), "MPLBACKEND": INLINE_BACKEND,
                 **(env or {})}
    child_env.pop("ICML26_HEADLESS", None)  # a person (or a browser) drives these widgets
    with open(log, "w") as fh:
        proc = subprocess.Popen(_command(kind, port, target, token, workspaces), stdout=fh, stderr=subprocess.STDOUT,
                                env=child_env, cwd=target if target.is_dir() else target.parent,
                                start_new_session=True)
    server = Server(proc, f"http://127.0.0.1:{port}", log, token, (logs, settings, workspaces))
    deadline = time.monotonic() + timeout
    probe = server.link("/lab" if kind == "lab" else "/")
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(probe, timeout=2):
                return server
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            time.sleep(0.5)
    text = server.log_text()
    server.stop()
    raise RuntimeError(f"{kind} server did not answer at {server.url} within {timeout:.0f} s; its log:\n{text}")


def serve_until_stopped(server: Server) -> int:
    """Wait on a started server until it exits or this process is told to stop (Ctrl-C, SIGTERM, SIGHUP), then
    stop it with everything it started. The server runs in its own session, so without this a ``kill`` of the
    command would leave it serving; returns the server's exit code (``0`` when we stopped it)."""
    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return server.process.wait() or 0
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def explorer_path(slug: str) -> Path:
    """The explorer notebook of a paper (one of :data:`registry.EXPLORERS`)."""
    registry.get(slug)
    if slug not in registry.EXPLORERS:
        raise ValueError(f"slug {slug!r} has no explorer page; explorers: {', '.join(registry.EXPLORERS)}")
    path = registry.NOTEBOOKS / registry.EXPLORERS[slug]
    if not path.exists():
        raise ValueError(f"the explorer of slug {slug!r} ({path.name}) is not built yet")
    return path
