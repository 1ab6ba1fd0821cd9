"""Atomic file writes: write to a temporary name in the same folder, then rename over the target.

A reader never sees a half-written file, and a crash leaves the previous version in place.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (parent folders are created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: str | os.PathLike, obj) -> Path:
    """Write ``obj`` as indented JSON to ``path`` atomically."""
    return write_text(path, json.dumps(obj, indent=1, sort_keys=True) + "\n")


def read_json(path: str | os.PathLike, default=None):
    """Read JSON from ``path``; a missing or unreadable file gives ``default``."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return default
