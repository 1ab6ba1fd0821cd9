"""Bad-input probes of icml26.atomic (an example table: see tests/inputs/harness.py)."""

import tempfile
from pathlib import Path

from harness import Probe

from icml26 import atomic

TMP = Path(tempfile.mkdtemp(prefix="icml26-inputs-"))

PROBES = [
    Probe(atomic.write_text, valid=lambda: {"path": TMP / "a.txt", "text": "x"},
          extra=[("text", b"bytes", "bytes instead of text"), ("path", 3, "an int path")]),
    Probe(atomic.write_bytes, valid=lambda: {"path": TMP / "b.bin", "data": b"x"},
          extra=[("data", "text", "text instead of bytes")]),
    Probe(atomic.write_json, valid=lambda: {"path": TMP / "c.json", "obj": {"a": 1}},
          extra=[("obj", {1, 2}, "a set")]),
]
EXEMPT = {
    "icml26.atomic.read_json": "reads a path; a missing or unreadable file gives the default by design",
}
