"""Falsifiable claims: declared per paper, measured per run, recorded as JSON lines.

A :class:`Claim` states what the paper says, how to read the measured number from an experiment's
results, the comparison and a threshold per scale. :func:`verify` evaluates a list of claims on one
run's results, shows a table, appends one JSON line per claim to ``record`` and raises
:class:`ClaimFailed` when a claim misses (or when a claim marked ``expected_miss`` passes, so that a
stale mark cannot hide a result).
"""

from __future__ import annotations

import json
import math
import operator
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from icml26 import __version__
from icml26.runtime import SCALES, Runtime

OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}
OUTCOMES = ("pass", "miss", "expected_miss", "not_checked")
RECORD_FIELDS = (
    "paper", "claim", "statement", "measured", "op", "threshold", "outcome", "scale", "seed",
    "device", "paper_value", "source", "seconds", "version", "expected_miss",
)


class ClaimFailed(AssertionError):
    """At least one claim missed its threshold, or an ``expected_miss`` claim unexpectedly passed."""


@dataclass(frozen=True)
class Claim:
    """One claim of a paper.

    ``metric`` maps an experiment's results dict to one number. ``threshold`` maps each scale at
    which the claim is checked to its threshold; at other scales the claim is reported as
    ``not_checked``. ``expected_miss`` holds the reason when an honest attempt did not reproduce
    the claim: it is still measured, shown as a miss, and does not fail the run. It is either one
    reason for every scale or a mapping ``{scale: reason}`` for the scales at which it misses.
    """

    id: str
    statement: str
    metric: Callable[[Mapping], float]
    op: str
    threshold: Mapping[str, float]
    paper_value: str = ""
    source: str = ""
    expected_miss: str | Mapping[str, str] | None = None
    paper: str | None = field(default=None)

    def __post_init__(self):
        if not self.id or not isinstance(self.id, str):
            raise ValueError(f"id must be a non-empty string; got {self.id!r}")
        if self.op not in OPS:
            raise ValueError(f"op must be one of {', '.join(OPS)}; got {self.op!r}")
        if not callable(self.metric):
            raise ValueError(f"metric of claim {self.id!r} must be callable")
        if not isinstance(self.threshold, Mapping) or not self.threshold:
            raise ValueError(f"threshold of claim {self.id!r} must map at least one scale to a number")
        if isinstance(self.expected_miss, Mapping):
            bad = set(self.expected_miss) - set(self.threshold)
            if bad:
                raise ValueError(f"expected_miss of claim {self.id!r} names scales without a threshold: {sorted(bad)}")
        for scale, value in self.threshold.items():
            if scale not in SCALES:
                raise ValueError(f"threshold of claim {self.id!r} names unknown scale {scale!r}; use {SCALES}")
            if not isinstance(value, (int, float)) or math.isnan(value):
                raise ValueError(f"threshold of claim {self.id!r} at {scale!r} must be a number; got {value!r}")

    def miss_reason(self, scale: str) -> str | None:
        """Why this claim is expected to miss at ``scale`` (``None`` when it is expected to pass)."""
        if isinstance(self.expected_miss, Mapping):
            return self.expected_miss.get(scale)
        return self.expected_miss

    def paper_slug(self) -> str:
        """The paper this claim belongs to: explicit, or read from the module that defines the metric."""
        if self.paper:
            return self.paper
        parts = getattr(self.metric, "__module__", "").split(".")
        if len(parts) >= 3 and parts[:2] == ["icml26", "papers"]:
            return parts[2]
        return "unknown"

    def evaluate(self, results: Mapping, scale: str) -> dict:
        """Measure this claim on ``results`` at ``scale``; return the outcome and the number."""
        if scale not in self.threshold:
            measured = _safe_metric(self, results)
            return {"measured": measured, "threshold": None, "outcome": "not_checked"}
        measured = float(self.metric(results))
        threshold = float(self.threshold[scale])
        ok = math.isfinite(measured) and OPS[self.op](measured, threshold)
        if self.miss_reason(scale):
            outcome = "pass" if ok else "expected_miss"
        else:
            outcome = "pass" if ok else "miss"
        return {"measured": measured, "threshold": threshold, "outcome": outcome}


def _safe_metric(claim: Claim, results: Mapping) -> float | None:
    """The metric where the results allow it (scales without a threshold may lack the inputs)."""
    try:
        value = float(claim.metric(results))
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
        return None
    return value if math.isfinite(value) else None


def evaluate(claims, results: Mapping, rt: Runtime, paper: str | None = None,
             seconds: float | None = None) -> list[dict]:
    """Evaluate ``claims`` on ``results``; return one record (see :data:`RECORD_FIELDS`) per claim."""
    if not isinstance(results, Mapping):
        raise ValueError(f"results must be a mapping (the dict an experiment returns); got {type(results).__name__}")
    claims = list(claims)
    if not claims:
        raise ValueError("claims must hold at least one Claim")
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claims must have distinct ids; got {ids}")
    if seconds is None:
        seconds = results.get("seconds", rt.elapsed())
    records = []
    for c in claims:
        out = c.evaluate(results, rt.scale)
        records.append({
            "paper": paper or c.paper_slug(),
            "claim": c.id,
            "statement": c.statement,
            "measured": out["measured"],
            "op": c.op,
            "threshold": out["threshold"],
            "outcome": out["outcome"],
            "scale": rt.scale,
            "seed": rt.seed,
            "device": rt.device.type,
            "paper_value": c.paper_value,
            "source": c.source,
            "seconds": round(float(seconds), 3),
            "version": __version__,
            "expected_miss": c.miss_reason(rt.scale),
        })
    return records


def append_records(path: str | os.PathLike, records: list[dict]) -> None:
    """Append ``records`` as JSON lines to ``path`` in one write (each line is whole or absent)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())


def load_records(path: str | os.PathLike) -> list[dict]:
    """Read the JSON-lines file ``path``; a missing file gives ``[]``, a torn last line is skipped."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and "claim" in rec and "outcome" in rec:
            records.append(rec)
    return records


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


LABELS = {"pass": "PASS", "miss": "FAIL", "expected_miss": "EXPECTED MISS", "not_checked": "NOT CHECKED"}


def table(records: list[dict]) -> str:
    """A plain-text table of records: claim, paper's figure, measured, threshold, outcome."""
    header = ("claim", "measured", "op", "threshold", "outcome", "paper")
    rows = [(r["claim"], _fmt(r["measured"]), r["op"], _fmt(r["threshold"]),
             LABELS[r["outcome"]], r["paper_value"] or "-") for r in records]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([line(header), line("-" * w for w in widths), *(line(r) for r in rows)])


def _show(records: list[dict]) -> None:
    """Display the table as HTML inside IPython, as text elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        from icml26.report import claims_table_html

        display(HTML(claims_table_html(records)))
    else:
        print(table(records))


def failures(records: list[dict], claims) -> list[str]:
    """Why a run fails: each miss, and each ``expected_miss`` claim that passed (a stale mark)."""
    by_id = {c.id: c for c in claims}
    problems = []
    for r in records:
        if r["outcome"] == "miss":
            problems.append(f"{r['paper']}/{r['claim']}: measured {_fmt(r['measured'])}, "
                            f"needs {r['op']} {_fmt(r['threshold'])} at scale {r['scale']}")
        elif r["outcome"] == "pass" and by_id[r["claim"]].miss_reason(r["scale"]):
            problems.append(f"{r['paper']}/{r['claim']}: marked expected_miss but passed "
                            f"(measured {_fmt(r['measured'])} {r['op']} {_fmt(r['threshold'])}); remove the mark")
    return problems


def verify(claims, results: Mapping, rt: Runtime, record: str | os.PathLike | None = None,
           paper: str | None = None, seconds: float | None = None, show: bool = True) -> list[dict]:
    """Evaluate, show, record; raise :class:`ClaimFailed` on a miss or an unexpected pass.

    ``record`` (the notebooks' ``RESULTS`` parameter) is a JSON-lines file the records are
    appended to; ``None`` records nothing. Returns the records.
    """
    claims = list(claims)
    records = evaluate(claims, results, rt, paper=paper, seconds=seconds)
    if record:
        append_records(record, records)
    if show:
        _show(records)
    problems = failures(records, claims)
    if problems:
        raise ClaimFailed("; ".join(problems))
    return records
