"""Offline byte-level corpora for the attention-sink experiments (docs/papers/attention_sink.md §2).

The primary corpus is the CPython standard library that ships with the running interpreter: every
``*.py`` file outside ``site-packages``, ``test/`` and ``idlelib/``, split train/validation by a hash of
the relative path (about 95/5). The shift corpus for fine-tuning (claim C6) is the ``test/`` subtree.
Tokens are bytes (0..255) plus ``BOS = 256`` (vocabulary 257); every sample is ``BOS`` followed by a
random window of the concatenated bytes, so the sink position is always the BOS token. Where the
standard library is stripped, a synthetic Markov "code-like" byte source generated in code is used.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from icml26 import checks

BOS = 256
VOCAB = 257
SPLITS = ("train", "val", "shift")


@dataclass(frozen=True)
class Corpus:
    """Byte tensors per split plus provenance (Python version, checksum, source)."""

    train: torch.Tensor
    val: torch.Tensor
    shift: torch.Tensor
    source: str
    python: str
    checksum: str

    def __post_init__(self):
        for name in SPLITS:
            data = checks.tensor(name, getattr(self, name), ndim=1, dtype_kind="int")
            if int(data.min()) < 0 or int(data.max()) > 255:
                raise ValueError(f"{name} must hold bytes (0..255); got the range "
                                 f"[{int(data.min())}, {int(data.max())}]")
        for name in ("source", "python", "checksum"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string; got {type(getattr(self, name)).__name__}")

    def split(self, name: str) -> torch.Tensor:
        if name not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}; got {name!r}")
        return getattr(self, name)


def _stdlib_files() -> tuple[Path, list[Path]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.relative_to(root).parts)
    return root, files


def _synthetic(n: int, seed: int) -> np.ndarray:
    """A small order-1 Markov byte source over a code-like alphabet (fallback when no stdlib is present)."""
    rng = np.random.default_rng(seed)
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz_ ()=:.,\n", dtype=np.uint8)
    k = len(alphabet)
    trans = rng.dirichlet(np.full(k, 0.2), size=k)
    cum = trans.cumsum(1)
    out = np.empty(n, dtype=np.int64)
    u = rng.random(n)
    s = 0
    for i in range(n):  # generated once per process; tiny
        s = min(int(np.searchsorted(cum[s], u[i])), k - 1)
        out[i] = s
    return alphabet[out].astype(np.uint8)


@functools.lru_cache(maxsize=2)
def load_corpus(max_bytes: int | None = None, synthetic: bool = False) -> Corpus:
    """Load (and cache) the corpus; ``max_bytes`` caps each split (``None``: everything)."""
    if max_bytes is not None and (not isinstance(max_bytes, int) or max_bytes < 1024):
        raise ValueError(f"max_bytes must be None or an integer >= 1024; got {max_bytes!r}")
    root, files = (None, []) if synthetic else _stdlib_files()
    parts = {"train": [], "val": [], "shift": []}
    sizes = dict.fromkeys(parts, 0)
    for f in files:
        rel = f.relative_to(root)
        top = rel.parts[0]
        if top == "idlelib":
            continue
        name = "shift" if top == "test" else (
            "val" if int(hashlib.sha1(str(rel.as_posix()).encode()).hexdigest(), 16) % 20 == 0 else "train")
        if max_bytes is not None and sizes[name] >= max_bytes:
            continue
        data = f.read_bytes()
        parts[name].append(data)
        sizes[name] += len(data)
    if min(sizes.values()) < 4096:
        cap = max_bytes or 2_000_000
        arrays = {"train": _synthetic(cap, 0), "val": _synthetic(cap // 10 + 4096, 1),
                  "shift": _synthetic(cap // 10 + 4096, 2)}
        source = "synthetic-markov"
    else:
        arrays = {k: np.frombuffer(b"".join(v)[:max_bytes], dtype=np.uint8) for k, v in parts.items()}
        source = f"cpython-stdlib:{root}"
    digest = hashlib.sha1()
    for k in SPLITS:
        digest.update(arrays[k].tobytes()[:1_000_000])
    tensors = {k: torch.from_numpy(arrays[k].astype(np.int64)) for k in SPLITS}
    return Corpus(**tensors, source=source, python=sys.version.split()[0], checksum=digest.hexdigest()[:12])


def sample_batch(data: torch.Tensor, batch: int, context: int, generator: torch.Generator | None = None,
                 device=None) -> torch.Tensor:
    """``(batch, context)`` token ids: ``BOS`` then ``context - 1`` consecutive bytes from random offsets."""
    checks.tensor("data", data, dtype_kind="int")
    checks.positive_int("batch", batch)
    checks.int_at_least("context", context, 2)
    if data.dim() != 1 or data.numel() < context:
        raise ValueError(f"data must be a 1-D byte tensor longer than context={context}; got {tuple(data.shape)}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")
    if device is not None:
        checks.device("device", device)
    return _sample_batch(data, batch, context, generator, device)


def _sample_batch(data: torch.Tensor, batch: int, context: int, generator: torch.Generator | None = None,
                  device=None) -> torch.Tensor:
    """:func:`sample_batch` without the input checks (the training loop's draw)."""
    starts = torch.randint(0, data.numel() - context + 1, (batch,), generator=generator)
    idx = starts[:, None] + torch.arange(context - 1)[None, :]
    body = data[idx]
    bos = torch.full((batch, 1), BOS, dtype=torch.long)
    out = torch.cat([bos, body], dim=1)
    return out if device is None else out.to(device)
