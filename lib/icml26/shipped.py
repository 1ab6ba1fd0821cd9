"""Safetensors files that the package ships (trained weights): written atomically, read back with their checksum.

One format for every shipped model: the tensors, and string metadata in the safetensors header (callers store
JSON there). :func:`write` returns the file's sha256, which the caller records in its code; :func:`read` refuses a
file whose sha256 differs from the recorded one, so a corrupt or silently re-trained file never loads.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from icml26 import atomic, checks


def write(path, tensors: dict, metadata: dict) -> str:
    """Write ``tensors`` (name -> tensor) with ``metadata`` (str -> str) to ``path`` atomically; return its sha256.
    The bytes depend only on the tensors and the metadata, so a re-run of the same training writes the same file."""
    from safetensors.torch import save

    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in metadata.items()):
        raise TypeError("metadata must be a dict of str -> str")
    data = save({k: v.detach().cpu().contiguous() for k, v in tensors.items()}, metadata=metadata)
    atomic.write_bytes(path, data)
    return hashlib.sha256(data).hexdigest()


_CACHE: dict = {}
CACHE_SIZE = 8
"""How many loaded files :func:`cached` keeps (the oldest goes first)."""


def cached(loader, path, *args):
    """``loader(path, *args)``, kept in memory under the file's sha256 (and ``args``, which must be hashable).

    The file is hashed on every call, so a file changed after the first load (re-trained, replaced, tampered) is
    loaded, and its checksum checked, again; it is never served from an earlier load. A file that cannot be read
    goes straight to ``loader``, which gives its own error.
    """
    if not callable(loader):
        raise ValueError(f"loader must be callable; got {type(loader).__name__}")
    path = checks.path("path", path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return loader(path, *args)
    key = (getattr(loader, "__module__", ""), getattr(loader, "__qualname__", repr(loader)), str(path.resolve()),
           digest, args)
    if key not in _CACHE:
        value = loader(path, *args)
        while len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = value
    return _CACHE[key]


def read(path, expected_sha256: str | None = None, *, recorded_in: str = "its recorded checksum") -> tuple[dict,
                                                                                                         dict]:
    """The tensors and the metadata of the safetensors file at ``path``. With ``expected_sha256`` the file's sha256
    must match; ``recorded_in`` names where that checksum lives, for the error message."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path {str(path)!r} is not a file")
    from safetensors.torch import load

    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if expected_sha256 is not None and digest != expected_sha256:
        raise ValueError(f"checksum of {path.name} is {digest}, not expected_sha256={expected_sha256}: the file is "
                         f"corrupt, or was re-trained without updating {recorded_in}")
    n = int.from_bytes(data[:8], "little")  # safetensors: header length, then a JSON header with the metadata
    try:
        meta = json.loads(data[8: 8 + n]).get("__metadata__", {}) or {}
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError) as err:
        raise ValueError(f"path {path.name} is not a safetensors file ({err})") from None
    return load(data), meta
