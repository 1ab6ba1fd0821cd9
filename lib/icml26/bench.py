"""Shared pieces of the speed benchmarks in ``benchmarks/``: arguments, timing, ratio lines.

Benchmarks measure a hot path against its natural peer in one run and print the ratio; they never
assert a time. ``time_call`` synchronises CUDA around the timed calls so GPU times are honest.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import torch


def parse_args(description: str, argv=None) -> tuple[argparse.Namespace, torch.device]:
    """The benchmarks' common command line: ``--device`` (default cpu) and ``--quick`` (tiny sizes)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--device", default="cpu", help="cpu | cuda | mps")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (< 10 s), used by the test suite")
    args = parser.parse_args(argv)
    from icml26.runtime import choose_device, set_threads

    set_threads()  # ICML26_THREADS / OMP_NUM_THREADS, as the experiments use them

    try:
        device = choose_device(args.device)
    except ValueError as exc:
        raise ValueError(f"argv: --device {args.device!r}: {exc}") from None
    return args, device


def synchronize(device: torch.device) -> None:
    """Wait for queued CUDA work on ``device`` (no-op elsewhere), so a clock reading is honest."""
    if not isinstance(device, torch.device):
        raise TypeError(f"device must be a torch.device; got {device!r}")
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_call(fn: Callable[[], object], repeats: int = 3, device: torch.device | str = "cpu",
              warmup: int = 1) -> float:
    """Mean seconds per call of ``fn`` over ``repeats`` calls, after ``warmup`` untimed calls."""
    from icml26 import checks

    if not callable(fn):
        raise TypeError(f"fn must be callable; got {type(fn).__name__}")
    checks.positive_int("repeats", repeats)
    checks.nonnegative_int("warmup", warmup)
    device = checks.device("device", device)
    for _ in range(warmup):
        fn()
    synchronize(device)
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    synchronize(device)
    return (time.perf_counter() - start) / repeats


def paired_times(peer: Callable[[], object], ours: Callable[[], object], repeats: int = 3,
                 device: torch.device | str = "cpu", rounds: int = 5) -> tuple[float, float]:
    """Median seconds per call of ``peer`` and of ``ours`` over ``rounds`` interleaved rounds.

    Each round times the peer and then ours (``repeats`` calls each, after one warm-up), so a busy machine
    slows both alike; the medians keep one disturbed round from deciding the ratio."""
    import statistics

    from icml26 import checks
    if not callable(peer) or not callable(ours):
        raise TypeError("peer and ours must be callable")
    checks.positive_int("rounds", rounds)
    pairs = [(time_call(peer, repeats, device), time_call(ours, repeats, device)) for _ in range(rounds)]
    return statistics.median(p for p, _ in pairs), statistics.median(o for _, o in pairs)


def ratio_line(label: str, peer_seconds: float, ours_seconds: float, peer: str = "peer",
               ours: str = "ours") -> str:
    """One printed result: both times and how many times faster ``ours`` is than ``peer``."""
    from icml26 import checks

    checks.positive_number("peer_seconds", peer_seconds)
    checks.positive_number("ours_seconds", ours_seconds)
    return (f"{label}: {peer} {peer_seconds * 1e3:.2f} ms, {ours} {ours_seconds * 1e3:.2f} ms, "
            f"{ours} is {peer_seconds / ours_seconds:.1f}x faster")
