"""The bad-input harness: from one valid call of a public function, derive bad calls and expect a clear error.

A :class:`Probe` names a public function and a factory that returns the keyword arguments of a *valid*
call. :func:`variants` derives bad calls from it by the kind of each argument:

* a float tensor or array: one NaN entry, one infinite entry, and an empty one (0 rows);
* a float: NaN and infinity;
* an int >= 1: 0 and -1; an int 0: -1;
* an argument named ``device``: the string ``"nope"``;

plus the probe's own ``extra`` bad values (wrong shapes, unknown choices, bad configs). ``skip`` names the
arguments for which an automatic bad value is in fact valid, each with the reason. Every bad call must
raise ``ValueError`` or ``TypeError`` whose message names the argument, within ``TIME_LIMIT`` seconds
(validation happens at the boundary, before any work), and must never hang or return garbage.
"""

from __future__ import annotations

import math
import signal
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

TIME_LIMIT = 10.0


@dataclass
class Probe:
    fn: Callable
    valid: Callable[[], dict]
    skip: dict = field(default_factory=dict)
    extra: list = field(default_factory=list)
    """(argument, bad value, label) triples checked beside the automatic ones."""
    name: str | None = None
    run_valid: bool = True
    """False where the valid call needs what a test cannot give cheaply (a server, a cluster, a GPU)."""

    @property
    def qualname(self) -> str:
        return self.name or f"{self.fn.__module__}.{self.fn.__qualname__}"


def _bad_values(arg: str, value) -> list[tuple[object, str]]:
    out = []
    if arg == "device":
        return [("nope", "unknown device")]
    if isinstance(value, torch.Tensor) and value.layout != torch.strided:
        pass  # a sparse tensor: its bad values are the probe's own extras
    elif isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel() > 0:
        nan = value.contiguous().clone()  # a strided view would not take .view(-1)
        nan.view(-1)[0] = math.nan
        inf = value.contiguous().clone()
        inf.view(-1)[-1] = math.inf
        out += [(nan, "NaN entry"), (inf, "infinite entry")]
        if value.ndim >= 1:
            out.append((value[:0], "empty"))
    elif isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating) and value.size > 0:
        nan = value.copy()
        nan.reshape(-1)[0] = np.nan
        inf = value.copy()
        inf.reshape(-1)[-1] = np.inf
        out += [(nan, "NaN entry"), (inf, "infinite entry")]
        if value.ndim >= 1:
            out.append((value[:0], "empty"))
    elif isinstance(value, bool):
        pass
    elif isinstance(value, float):
        out += [(math.nan, "NaN"), (math.inf, "infinity")]
    elif isinstance(value, int):
        out += [(0, "zero"), (-1, "negative")] if value >= 1 else [(-1, "negative")]
    return out


def variants(probe: Probe) -> list[tuple[str, object, str]]:
    """Every bad call of ``probe`` as ``(argument, bad value, label)``."""
    out = []
    for arg, value in probe.valid().items():
        if arg in probe.skip:
            continue
        out += [(arg, bad, label) for bad, label in _bad_values(arg, value)]
    return out + list(probe.extra)


class _TimeLimit(Exception):
    pass


def _alarm(signum, frame):
    raise _TimeLimit()


def call_with_limit(fn: Callable, kwargs: dict, limit: float = TIME_LIMIT):
    """Call ``fn(**kwargs)``, raising ``AssertionError`` if it runs past ``limit`` seconds."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return fn(**kwargs)
    except _TimeLimit:
        raise AssertionError(f"{getattr(fn, '__qualname__', fn)} ran past {limit:.0f} s (a hang?)") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def expect_clear_error(probe: Probe, arg: str, bad, label: str) -> None:
    """The bad call must raise ValueError/TypeError naming ``arg`` within the time limit."""
    kwargs = {**probe.valid(), arg: bad}
    try:
        out = call_with_limit(probe.fn, kwargs)
    except (ValueError, TypeError) as exc:
        assert arg in str(exc), f"{probe.qualname}({arg}={label}): the error does not name {arg!r}: {exc}"
        return
    except AssertionError:
        raise
    except Exception as exc:  # an obscure error far from the cause
        raise AssertionError(f"{probe.qualname}({arg}={label}): {type(exc).__name__} instead of a clear "
                             f"ValueError naming {arg!r}: {exc}") from None
    raise AssertionError(f"{probe.qualname}({arg}={label}) returned {type(out).__name__} instead of raising")
