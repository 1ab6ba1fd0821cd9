"""Bad-input probes of icml26.atomic and icml26.shipped (an example table: see tests/inputs/harness.py)."""

import tempfile
from pathlib import Path

import torch
from harness import Probe

from icml26 import atomic, shipped

TMP = Path(tempfile.mkdtemp(prefix="icml26-inputs-"))


def _shipped_file() -> Path:
    path = TMP / "r.safetensors"
    shipped.write(path, {"w": torch.ones(2)}, {"k": "v"})
    return path


PROBES = [
    Probe(atomic.write_text, valid=lambda: {"path": TMP / "a.txt", "text": "x"},
          extra=[("text", b"bytes", "bytes instead of text"), ("path", 3, "an int path")]),
    Probe(atomic.write_bytes, valid=lambda: {"path": TMP / "b.bin", "data": b"x"},
          extra=[("data", "text", "text instead of bytes")]),
    Probe(atomic.write_json, valid=lambda: {"path": TMP / "c.json", "obj": {"a": 1}},
          extra=[("obj", {1, 2}, "a set")]),
    Probe(shipped.write, valid=lambda: {"path": TMP / "w.safetensors", "tensors": {"w": torch.ones(2)},
                                        "metadata": {"k": "v"}},
          extra=[("metadata", {"k": 1}, "a non-string value"), ("metadata", None, "no dict")]),
    Probe(shipped.read, valid=lambda: {"path": _shipped_file()},
          extra=[("path", TMP / "absent.safetensors", "missing file"),
                 ("expected_sha256", "0" * 64, "wrong checksum")]),
]
EXEMPT = {
    "icml26.atomic.read_json": "reads a path; a missing or unreadable file gives the default by design",
}
