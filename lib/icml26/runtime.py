"""Run-time set-up shared by every notebook and experiment: scale, seed and device.

``setup(scale, seed, device)`` is the second cell of every notebook. It validates its arguments,
seeds ``random``, ``numpy`` and ``torch``, picks a device (cuda > mps > cpu for ``"auto"``)
without touching CUDA when no CUDA is present, and pins torch's thread count to the cores this
process may use divided by the jobs running beside it (:func:`default_threads`), so that two
parallel runs on two cores do not fight over four threads. ``Runtime.pick`` chooses a value by scale.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field

import numpy as np
import torch

SCALES = ("quick", "standard", "full")
DEVICES = ("auto", "cpu", "cuda", "mps")


class ScaleError(ValueError):
    """The requested scale cannot run here (``full`` without CUDA)."""


def check_scale(scale: str) -> str:
    """Return ``scale`` if it is one of :data:`SCALES`, else raise ``ValueError`` listing them."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}; got {scale!r}")
    return scale


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, NumPy's global generator and torch (all devices)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    torch.manual_seed(int(seed))


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def choose_device(device: str = "auto") -> torch.device:
    """Resolve ``device`` ("auto", "cpu", "cuda", "mps", or "cuda:N") to a ``torch.device``.

    "auto" prefers CUDA, then Apple's MPS, then the CPU. Asking explicitly for a device that is
    absent raises ``ValueError`` rather than failing later inside a kernel.
    """
    if not isinstance(device, str):
        raise ValueError(f"device must be a string among {', '.join(DEVICES)}; got {device!r}")
    kind, sep, index = device.partition(":")
    if kind not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)} (or 'cuda:N'); got {device!r}")
    if sep and kind != "cuda":
        raise ValueError(f"device {device!r}: only CUDA takes an index ('cuda:0'); use {kind!r}")
    if sep and not index.isdigit():
        raise ValueError(f"device {device!r}: the index after 'cuda:' must be a non-negative integer, e.g. 'cuda:0'")
    if kind == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    if kind == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was asked for, but this machine has no CUDA device")
    if kind == "cuda" and sep and int(index) >= torch.cuda.device_count():
        raise ValueError(f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s), "
                         f"numbered from 0")
    if kind == "mps" and not _mps_available():
        raise ValueError(f"device {device!r} was asked for, but MPS is not available here")
    return torch.device(device)


def available_cores() -> int:
    """Cores this process may use: its CPU affinity, capped by a cgroup (v2 or v1) CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    quota = None
    try:
        text = open("/sys/fs/cgroup/cpu.max", encoding="ascii").read().split()
        if text and text[0] != "max":
            quota = int(text[0]) / int(text[1])
    except (OSError, ValueError, IndexError):
        try:
            q = int(open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", encoding="ascii").read())
            period = int(open("/sys/fs/cgroup/cpu/cpu.cfs_period_us", encoding="ascii").read())
            quota = q / period if q > 0 else None
        except (OSError, ValueError, ZeroDivisionError):
            quota = None
    if quota is not None:
        cores = min(cores, max(1, int(quota)))
    return max(1, cores)


def default_threads() -> int:
    """Torch threads for this process: ``ICML26_THREADS`` (or ``OMP_NUM_THREADS``) if set, else the
    available cores divided by ``ICML26_JOBS``, the number of runs sharing them (default 1)."""
    for name in ("ICML26_THREADS", "OMP_NUM_THREADS"):
        explicit = os.environ.get(name)
        if not explicit:
            continue
        try:
            value = int(explicit)
        except ValueError:
            value = 0
        if value < 1:
            raise ValueError(f"{name} must be a positive integer; got {explicit!r}")
        return value
    try:
        jobs = max(1, int(os.environ.get("ICML26_JOBS", "1")))
    except ValueError:
        raise ValueError(f"ICML26_JOBS must be a positive integer; got {os.environ['ICML26_JOBS']!r}") from None
    return max(1, available_cores() // jobs)


def set_threads(threads: int | None = None) -> int:
    """Pin torch's intra-op threads (``None``: :func:`default_threads`); return the number set."""
    if threads is None:
        threads = default_threads()
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer; got {threads!r}")
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads


@dataclass(frozen=True)
class Runtime:
    """What a notebook or experiment runs with: the scale, the seed, the device and torch's threads."""

    scale: str
    seed: int
    device: torch.device
    started: float = field(default_factory=time.perf_counter, compare=False, repr=False)
    threads: int | None = None

    def __post_init__(self):
        check_scale(self.scale)
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer; got {self.seed!r}")
        if not isinstance(self.device, torch.device):
            raise TypeError(f"device must be a torch.device (setup() resolves strings); got {self.device!r}")
        if self.threads is not None and (isinstance(self.threads, bool) or not isinstance(self.threads, int)
                                         or self.threads < 1):
            raise ValueError(f"threads must be a positive integer or None; got {self.threads!r}")

    def __repr__(self) -> str:
        threads = f", threads={self.threads}" if self.threads else ""
        return f"Runtime(scale={self.scale!r}, seed={self.seed}, device={self.device.type!r}{threads})"

    def pick(self, quick, standard, full=None):
        """Return the value for this run's scale (``full`` falls back to ``standard`` when omitted)."""
        return {"quick": quick, "standard": standard, "full": standard if full is None else full}[self.scale]

    def elapsed(self) -> float:
        """Seconds since :func:`setup` was called."""
        return time.perf_counter() - self.started

    def generator(self, offset: int = 0) -> torch.Generator:
        """A torch generator on this run's device, seeded with ``seed + offset``."""
        g = torch.Generator(device=self.device)
        g.manual_seed(self.seed + offset)
        return g


def setup(scale: str = "quick", seed: int = 0, device: str = "auto", allow_cpu: bool = False,
          threads: int | None = None) -> Runtime:
    """Validate the run's parameters, seed every generator, choose the device and pin the threads.

    ``scale="full"`` is meant for a GPU: without CUDA it raises :class:`ScaleError` at once, unless
    ``allow_cpu=True`` (or the environment variable ``ICML26_ALLOW_CPU_FULL=1``) forces it.
    """
    check_scale(scale)
    seed_everything(seed)
    dev = choose_device(device)
    allow_cpu = allow_cpu or os.environ.get("ICML26_ALLOW_CPU_FULL") == "1"
    if scale == "full" and dev.type != "cuda" and not allow_cpu:
        raise ScaleError(
            "scale 'full' is paper-sized and meant for a CUDA GPU, and none is in use here "
            f"(device={dev.type}). Use scale 'standard' on a CPU, or force it with allow_cpu=True "
            "(--allow-cpu on the command line, ICML26_ALLOW_CPU_FULL=1 for notebooks)."
        )
    return Runtime(scale=scale, seed=int(seed), device=dev, threads=set_threads(threads))
