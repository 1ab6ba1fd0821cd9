"""Progress for long experiments: named stages and step bars with an ETA (``tqdm.auto``).

In a notebook the bars are widgets, in a terminal they go to stderr, and in a process whose stderr is
not a terminal (a sweep worker, CI) they stay quiet. ``ICML26_PROGRESS=0`` turns them off, ``=1`` on.

    for stage in progress.stages(["train OTP-FM", "train OT-CFM", "evaluate"], desc="otp_fm"):
        ...
    for step in progress.steps(range(n_steps), desc="OTP-FM training"):
        ...
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator


def _disable() -> bool | None:
    flag = os.environ.get("ICML26_PROGRESS")
    if flag == "0":
        return True
    if flag == "1":
        return False
    return None  # tqdm's own rule: quiet where stderr is not a terminal (notebooks always show)


def steps(iterable: Iterable, desc: str, total: int | None = None, leave: bool = False) -> Iterator:
    """Iterate with a bar (steps per second and an ETA) named ``desc``."""
    from tqdm.auto import tqdm

    from icml26 import checks

    if total is not None:
        checks.nonnegative_int("total", total)
    return iter(tqdm(iterable, desc=desc, total=total, leave=leave, disable=_disable(), file=sys.stderr,
                     mininterval=0.5))


def stages(names: list[str], desc: str) -> Iterator[str]:
    """Yield each stage name in turn, showing which stage runs and an ETA over the stages."""
    from tqdm.auto import tqdm

    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"names must be a list of stage names; got {names!r}")
    return _stages(list(names), desc, tqdm)


def _stages(names: list[str], desc: str, tqdm) -> Iterator[str]:
    bar = tqdm(total=len(names), desc=desc, unit="stage", disable=_disable(), file=sys.stderr, leave=False)
    try:
        for name in names:
            bar.set_postfix_str(name)
            yield name
            bar.update(1)
    finally:
        bar.close()


class StageBar:
    """Named stages for a function whose stages are sections of code rather than one loop.

        with progress.StageBar(["solver checks", "C1", "sweep", "fits"], desc="data_mixing") as bar:
            bar.next("solver checks")
            ...
            bar.next("C1")

    ``next`` marks the end of the previous stage and the start of the named one (which must be the next name in
    order, so a bar cannot drift from the code), showing the stage and an ETA over the stages.
    """

    def __init__(self, names: list[str], desc: str):
        from tqdm.auto import tqdm

        if isinstance(names, str) or not names or not all(isinstance(n, str) for n in names):
            raise TypeError(f"names must be a non-empty list of stage names; got {names!r}")
        if not isinstance(desc, str):
            raise TypeError(f"desc must be a string; got {type(desc).__name__}")
        self.names, self._done = list(names), -1
        self._bar = tqdm(total=len(self.names), desc=desc, unit="stage", disable=_disable(), file=sys.stderr,
                         leave=False)

    def next(self, name: str) -> None:
        """Start stage ``name`` (the one after the current stage)."""
        if self._done + 1 >= len(self.names) or self.names[self._done + 1] != name:
            expected = self.names[self._done + 1] if self._done + 1 < len(self.names) else "no further stage"
            raise ValueError(f"name must be the next stage, {expected!r}; got {name!r}")
        if self._done >= 0:
            self._bar.update(1)
        self._done += 1
        self._bar.set_postfix_str(name)

    def close(self) -> None:
        if self._done >= 0:
            self._bar.update(1)
            self._done = len(self.names)
        self._bar.close()

    def __enter__(self) -> StageBar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
