"""Atomic file writes: write to a temporary name in the same folder, then rename over the target.

A reader never sees a half-written file, and a crash leaves the previous version in place.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path


def _path(path) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike; got {type(path).__name__}")
    return Path(path)


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (parent folders are created)."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes; got {type(data).__name__}")
    path = _path(path)
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
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    return write_bytes(_path(path), text.encode("utf-8"))


def write_json(path: str | os.PathLike, obj) -> Path:
    """Write ``obj`` as indented strict JSON to ``path`` atomically (NaN and infinities become ``null``)."""
    try:
        text = json.dumps(strict_json(obj), indent=1, sort_keys=True, allow_nan=False)
    except TypeError as exc:
        raise TypeError(f"obj must be JSON-serialisable: {exc}") from None
    return write_text(path, text + "\n")


def strict_json(value):
    """``value`` with every NaN or infinite float replaced by ``None``, so strict JSON readers accept it."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def read_json(path: str | os.PathLike, default=None):
    """Read JSON from ``path``; a missing or unreadable file gives ``default``."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return default
