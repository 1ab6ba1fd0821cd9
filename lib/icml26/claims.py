"""Claims and the evidence for them: declared per paper, measured per seed, recorded as JSON lines.

A :class:`Claim` states what a paper says, how to read the measured number from an experiment's
results, the comparison and a threshold per scale. Its ``kind`` says what a pass would mean:

* ``"paper"``: a falsifiable statement the paper makes (its ``source`` names the abstract sentence or
  section), measured on learned or computed outcomes; one counted claim per statement. Only these count
  as the paper's (README, scoreboard, ``list``). The 1-3 that carry the abstract's main result are
  ``headline=True``, quote that sentence (``quote=``) and name a negative :class:`Control`.
* ``"extension"``: our ablations, robustness tests, variants and hypotheses: recorded and shown, counted
  apart, never in the paper's count.
* ``"check"``: an identity, an exactness test, arithmetic, a guard or a fact of our own data generator.
  It is run and shown apart ("sanity checks") and never counted (a check that misses is a bug).

**Noise margins.** A claim's margin is measured, never assumed: ``python -m icml26 margins`` re-runs the
experiment on development seeds and stores, per claim and scale, the sample standard deviation of its value
(``results/margins.jsonl``; arms compared inside one run share its seed, so the comparison is paired). Per
seed a claim *holds* only beyond its margin (for ``<``: value < threshold - margin), is a *tie* within it,
and *misses* beyond it the other way. Without a measured margin the threshold is read as it stands.

**Controls.** A :class:`Control` is the same test fed with the method's key ingredient removed, or the
prior art in its place. It is measured on the same seeds; if it passes the test on any evaluable seed, the
testbed cannot tell the method from the control and the verdict is ``uninformative``.

A claim may name a :class:`Premise` (``requires=``): a measured condition without which the claim
says nothing (for example "a sink formed"). Where the premise fails the seed is ``premise_not_met``.

One run measures one seed (:func:`evaluate`); :func:`aggregate` merges the runs of several seeds into
one record per claim with every per-seed value, their mean and spread and a verdict:

* ``reproduced``: holds on every seed;
* ``reproduced_where_met``: holds on every seed whose premise was met, and the premise failed on some;
* ``mixed``: holds on some seeds and not on others;
* ``tie``: holds on no seed and misses on none beyond the margin;
* ``uninformative``: the control passed the same test on some seed (this testbed cannot tell);
* ``not_reproduced``: holds on no seed and misses beyond the margin on some;
* ``premise_not_met``: the premise failed on every seed;
* ``not_checked``: no threshold at this scale (the number is still measured where possible).

A paper or extension claim that misses or ties at a scale carries a ``why`` for that scale, shown beside the
verdict; a why that blames training, budget or scale names the diagnostic run behind it (``measured_at=``, an
id in ``results/diagnostics.jsonl``). A run *fails* (:class:`ClaimFailed`, exit status 1) only on an
unexplained miss: a check that misses, or a claim that misses or ties on some seed at a scale for which it has
no ``why``. A ``why`` that turns out unneeded (the claim now holds) is shown as a changed verdict, never a failure.
"""

from __future__ import annotations

import contextlib
import json
import math
import operator
import os
import re
import statistics
from collections.abc import Callable, Iterable, Mapping
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
KINDS = ("paper", "extension", "check")
VERDICTS = ("reproduced", "reproduced_where_met", "mixed", "tie", "uninformative", "not_reproduced",
            "premise_not_met", "not_checked")
SEED_OUTCOMES = ("holds", "tie", "misses", "premise_not_met", "not_checked")
DEV_SEED_START = 100
"""Seeds at or above this are development seeds: for tuning hyper-parameters and thresholds, never recorded."""
QUICK_EVIDENCE_SEEDS = (0, 1, 2, 3, 4)
"""A claim checked at quick must hold on each of these seeds (``make seeds`` records the evidence)."""
EVAL_SEEDS = {"quick": (0,), "standard": (0, 1, 2), "full": (0, 1, 2)}
"""The evaluation seeds of each scale: what ``run`` uses by default and what a recorded verdict needs."""
RECORD_FIELDS = (
    "paper", "claim", "kind", "headline", "quote", "statement", "requires", "op", "threshold", "margin", "scale",
    "seeds", "values", "outcomes", "control", "details", "mean", "spread", "verdict", "why", "measured_at",
    "unexplained", "device", "threads", "torch", "paper_value", "source", "seconds", "version",
)
MARGINS_FILE = "margins.jsonl"
"""Measured noise margins (``python -m icml26 margins``), one line per paper, claim and scale."""
DIAGNOSTICS_FILE = "diagnostics.jsonl"
"""Diagnostic runs (``python -m icml26 diagnose``) that whys cite with ``measured_at=``."""


class ClaimFailed(AssertionError):
    """A check missed, or a paper claim missed at a scale where it has no ``why``."""


def _check_threshold(owner: str, threshold: Mapping[str, float]) -> None:
    if not isinstance(threshold, Mapping) or not threshold:
        raise ValueError(f"threshold of {owner} must map at least one scale to a number; got {threshold!r}")
    for scale, value in threshold.items():
        if scale not in SCALES:
            raise ValueError(f"threshold of {owner} names unknown scale {scale!r}; use {SCALES}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"threshold of {owner} at {scale!r} must be a finite number; got {value!r}")


def _measure(metric: Callable[[Mapping], float], results: Mapping) -> float | None:
    """The metric as a float, or ``None`` where the results lack its inputs (a scale that skips a part)."""
    try:
        value = metric(results)
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _holds(value: float | None, op: str, threshold: float) -> bool:
    return value is not None and math.isfinite(value) and OPS[op](value, threshold)


def judge(value: float | None, op: str, threshold: float, margin: float = 0.0) -> str:
    """One seed's outcome: ``holds`` beyond the noise margin, ``tie`` within it, ``misses`` beyond it the other way.

    With ``margin == 0`` this is the bare comparison (``holds`` or ``misses``). A value that is missing or not
    finite misses.
    """
    if op not in OPS:
        raise ValueError(f"op must be one of {', '.join(OPS)}; got {op!r}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not math.isfinite(margin) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0; got {margin!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number; got {threshold!r}")
    if value is None or not math.isfinite(value):
        return "misses"
    if margin == 0:
        return "holds" if OPS[op](value, threshold) else "misses"
    sign = 1.0 if op in (">", ">=") else -1.0  # +1: larger is better
    beyond = sign * (value - threshold)
    if beyond > margin:
        return "holds"
    return "misses" if beyond < -margin else "tie"


@dataclass(frozen=True)
class Premise:
    """A condition a claim needs before it can say anything, with its own metric and threshold.

    ``threshold`` is one number for every scale or a mapping ``{scale: number}``; at a scale it does
    not name, the premise is taken as met (the claim then stands on its own).
    """

    id: str
    statement: str
    metric: Callable[[Mapping], float]
    op: str
    threshold: float | Mapping[str, float]

    def __post_init__(self):
        if not self.id or not isinstance(self.id, str):
            raise ValueError(f"id must be a non-empty string; got {self.id!r}")
        if self.op not in OPS:
            raise ValueError(f"op of premise {self.id!r} must be one of {', '.join(OPS)}; got {self.op!r}")
        if not callable(self.metric):
            raise ValueError(f"metric of premise {self.id!r} must be callable")
        if isinstance(self.threshold, Mapping):
            _check_threshold(f"premise {self.id!r}", self.threshold)
        elif isinstance(self.threshold, bool) or not isinstance(self.threshold, (int, float)) \
                or not math.isfinite(self.threshold):
            raise ValueError(f"threshold of premise {self.id!r} must be a number or a mapping of scales to "
                             f"numbers; got {self.threshold!r}")

    def threshold_at(self, scale: str) -> float | None:
        if isinstance(self.threshold, Mapping):
            value = self.threshold.get(scale)
            return None if value is None else float(value)
        return float(self.threshold)

    def met(self, value: float | None, scale: str) -> bool:
        threshold = self.threshold_at(scale)
        return True if threshold is None else _holds(value, self.op, threshold)

    def describe(self, scale: str) -> dict:
        return {"id": self.id, "statement": self.statement, "op": self.op, "threshold": self.threshold_at(scale)}


@dataclass(frozen=True)
class Control:
    """A negative control of a claim: the same test fed with the method's key ingredient removed, or the prior
    art in the method's place (for example CA-PG with the with-replacement inclusion probability).

    ``metric`` reads, from the same run's results, the value the claim's metric would give for the control
    arm; it is judged with the claim's operator, threshold and margin. A control that passes on some evaluable
    seed makes the claim ``uninformative``. Where the results lack the control arm (a scale that does not run
    it) the control is recorded as not measured.
    """

    id: str
    statement: str
    metric: Callable[[Mapping], float]

    def __post_init__(self):
        if not self.id or not isinstance(self.id, str):
            raise ValueError(f"id of a control must be a non-empty string; got {self.id!r}")
        if not isinstance(self.statement, str) or not self.statement.strip():
            raise ValueError(f"statement of control {self.id!r} must be non-empty text")
        if not callable(self.metric):
            raise ValueError(f"metric of control {self.id!r} must be callable")


def _per_scale_text(owner: str, name: str, value, threshold: Mapping[str, float]) -> None:
    if value is None:
        return
    texts = value.values() if isinstance(value, Mapping) else [value]
    if not all(isinstance(t, str) and t.strip() for t in texts):
        raise ValueError(f"{name} of claim {owner!r} must be non-empty text (or a mapping of scales to text)")
    if isinstance(value, Mapping):
        bad = set(value) - set(threshold)
        if bad:
            raise ValueError(f"{name} of claim {owner!r} names scales without a threshold: {sorted(bad)}")


@dataclass(frozen=True)
class Claim:
    """One claim of a paper (see the module docstring for ``kind``, ``headline``, ``control`` and ``why``).

    ``metric`` maps an experiment's results dict to one number. ``threshold`` maps each scale at
    which the claim is checked to its threshold; at other scales it is ``not_checked``. ``why``
    explains a miss or a tie: one text for every checked scale or a mapping ``{scale: text}``; a text that
    blames training, budget or scale names its diagnostic run in ``measured_at`` (an id, or ``{scale: id}``).
    ``rerun_rtol`` declares the relative tolerance of a re-run against its record for a value that is not
    bit-for-bit reproducible (a wall-clock time); every other claim re-runs within ``RERUN_RTOL``.
    ``details`` maps the results to named numbers shown with the claim (for example the per-baseline values
    behind a max over baselines), never counted.
    """

    id: str
    statement: str
    metric: Callable[[Mapping], float]
    op: str
    threshold: Mapping[str, float]
    kind: str
    requires: Premise | None = None
    why: str | Mapping[str, str] | None = None
    paper_value: str = ""
    source: str = ""
    paper: str | None = field(default=None)
    headline: bool = False
    quote: str = ""
    control: Control | None = None
    details: Callable[[Mapping], Mapping[str, float]] | None = None
    measured_at: str | Mapping[str, str] | None = None
    rerun_rtol: float | None = None

    def __post_init__(self):
        if not self.id or not isinstance(self.id, str):
            raise ValueError(f"id must be a non-empty string; got {self.id!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind of claim {self.id!r} must be one of {', '.join(KINDS)}; got {self.kind!r}")
        if self.op not in OPS:
            raise ValueError(f"op must be one of {', '.join(OPS)}; got {self.op!r}")
        if not callable(self.metric):
            raise ValueError(f"metric of claim {self.id!r} must be callable")
        _check_threshold(f"claim {self.id!r}", self.threshold)
        if self.requires is not None and not isinstance(self.requires, Premise):
            raise ValueError(f"requires of claim {self.id!r} must be a Premise; got {type(self.requires).__name__}")
        if not isinstance(self.headline, bool):
            raise ValueError(f"headline of claim {self.id!r} must be True or False; got {self.headline!r}")
        if self.headline:
            if self.kind != "paper":
                raise ValueError(f"claim {self.id!r} is a headline, so its kind must be 'paper'; got {self.kind!r}")
            if not isinstance(self.quote, str) or not self.quote.strip():
                raise ValueError(f"headline claim {self.id!r} must quote the abstract sentence it tests (quote=)")
            if self.control is None:
                raise ValueError(f"headline claim {self.id!r} must name a negative control (control=Control(...))")
        if self.control is not None and not isinstance(self.control, Control):
            raise ValueError(f"control of claim {self.id!r} must be a Control; got {type(self.control).__name__}")
        if self.control is not None and self.kind == "check":
            raise ValueError(f"claim {self.id!r} is a check: a check takes no control")
        if self.details is not None and not callable(self.details):
            raise ValueError(f"details of claim {self.id!r} must be callable (results -> {{name: number}})")
        if self.why is not None and self.kind == "check":
            raise ValueError(f"claim {self.id!r} is a check: a check that misses is a bug, so it takes no why")
        _per_scale_text(self.id, "why", self.why, self.threshold)
        _per_scale_text(self.id, "measured_at", self.measured_at, self.threshold)
        if self.rerun_rtol is not None and not (isinstance(self.rerun_rtol, (int, float))
                                                and math.isfinite(self.rerun_rtol) and self.rerun_rtol > 0):
            raise ValueError(f"rerun_rtol of claim {self.id!r} must be a positive finite number; got "
                             f"{self.rerun_rtol!r}")

    def why_at(self, scale: str) -> str | None:
        """Why this claim may miss at ``scale`` (``None`` when it is expected to hold there)."""
        if scale not in self.threshold:
            return None
        if isinstance(self.why, Mapping):
            return self.why.get(scale)
        return self.why

    def measured_at_scale(self, scale: str) -> str | None:
        """The diagnostic run (an id in ``results/diagnostics.jsonl``) the why at ``scale`` cites."""
        if scale not in self.threshold:
            return None
        if isinstance(self.measured_at, Mapping):
            return self.measured_at.get(scale)
        return self.measured_at

    def paper_slug(self) -> str:
        """The paper this claim belongs to: explicit, or read from the module that defines the metric."""
        if self.paper:
            return self.paper
        parts = getattr(self.metric, "__module__", "").split(".")
        if len(parts) >= 3 and parts[:2] == ["icml26", "papers"]:
            return parts[2]
        return "unknown"

    def outcome(self, results: Mapping, scale: str, margin: float = 0.0) -> dict:
        """Measure this claim (its premise, control and details) on one run's ``results`` at ``scale``."""
        threshold = self.threshold.get(scale)
        value = _measure(self.metric, results)
        premise = None
        if self.requires is not None:
            p_value = _measure(self.requires.metric, results)
            premise = {"value": p_value, "met": self.requires.met(p_value, scale)}
        if threshold is None:
            outcome = "not_checked"
        elif premise is not None and not premise["met"]:
            outcome = "premise_not_met"
        else:
            if value is None:  # a checked claim whose metric cannot be read is a bug in the experiment
                value = float(self.metric(results))
            outcome = judge(value, self.op, float(threshold), margin)
        control = None
        if self.control is not None:
            c_value = _measure(self.control.metric, results)
            c_outcome = None
            if c_value is not None and threshold is not None:
                c_outcome = judge(c_value, self.op, float(threshold), margin)
            control = {"value": c_value, "outcome": c_outcome}
        details = None
        if self.details is not None:
            try:
                raw = self.details(results)
                details = {str(k): (None if v is None else float(v)) for k, v in raw.items()}
            except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError):
                details = None
        return {"value": value, "outcome": outcome, "premise": premise, "control": control, "details": details,
                "threshold": None if threshold is None else float(threshold)}


def _base_record(c: Claim, paper: str, scale: str) -> dict:
    return {
        "paper": paper,
        "claim": c.id,
        "kind": c.kind,
        "headline": c.headline,
        "quote": c.quote,
        "statement": c.statement,
        "requires": c.requires.describe(scale) if c.requires is not None else None,
        "op": c.op,
        "threshold": None if scale not in c.threshold else float(c.threshold[scale]),
        "scale": scale,
        "why": c.why_at(scale),
        "measured_at": c.measured_at_scale(scale),
        "paper_value": c.paper_value,
        "source": c.source,
        "version": __version__,
    }


def _check_claims(claims) -> list[Claim]:
    if isinstance(claims, (str, bytes, Mapping)) or not isinstance(claims, Iterable):
        raise TypeError(f"claims must be a list of Claim objects; got {type(claims).__name__}")
    claims = list(claims)
    if not claims:
        raise ValueError("claims must hold at least one Claim")
    if not all(isinstance(c, Claim) for c in claims):
        raise ValueError("claims must be Claim objects")
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claims must have distinct ids; got {ids}")
    return claims


def _check_rt(rt) -> Runtime:
    if not isinstance(rt, Runtime):
        raise TypeError(f"rt must be a Runtime (icml26.runtime.setup(scale, seed, device)); got {type(rt).__name__}")
    return rt


def _check_records(name: str, records) -> list[dict]:
    from icml26 import checks

    return checks.mapping_items(name, records, ("paper", "claim", "verdict"))


def _torch_version() -> str:
    import torch

    return torch.__version__


def seed_run(claims, results: Mapping, rt: Runtime, seconds: float | None = None,
             margins: Mapping[str, dict] | None = None) -> dict:
    """One seed's measurements in a compact form that crosses process boundaries (see :func:`aggregate`).

    ``margins`` maps claim ids to measured margins (:func:`load_margins`); by default they are read from
    ``results/margins.jsonl`` for this paper and scale.
    """
    from icml26 import checks

    if not isinstance(results, Mapping):
        raise ValueError(f"results must be a mapping (the dict an experiment returns); got {type(results).__name__}")
    claims = _check_claims(claims)
    _check_rt(rt)
    if seconds is None:
        seconds = results.get("seconds", rt.elapsed())
    seconds = checks.nonnegative_number("seconds", seconds)
    if margins is None:
        margins = load_margins(claims[0].paper_slug(), rt.scale)
    return {"seed": rt.seed, "device": rt.device.type, "threads": getattr(rt, "threads", None),
            "torch": _torch_version(), "seconds": round(float(seconds), 3),
            "outcomes": {c.id: c.outcome(results, rt.scale, _margin_value(c, margins)) for c in claims}}


def _margin_value(c: Claim, margins: Mapping[str, dict]) -> float:
    if c.kind == "check":
        return 0.0
    entry = margins.get(c.id)
    return float(entry["margin"]) if entry else 0.0


def evaluate(claims, results: Mapping, rt: Runtime, paper: str | None = None,
             seconds: float | None = None) -> list[dict]:
    """Measure ``claims`` on one run (one seed): one record per claim, holding that single seed."""
    _check_rt(rt)
    claims = _check_claims(claims)
    margins = load_margins(paper or claims[0].paper_slug(), rt.scale)
    return aggregate(claims, [seed_run(claims, results, rt, seconds, margins)], rt.scale, paper=paper,
                     margins=margins)


def verdict_of(outcomes: list[str], control: list[str | None] | None = None) -> str:
    """The verdict over seeds from each seed's outcome (and the control's, where one was measured).

    See the module docstring for the verdicts.
    """
    bad = [o for o in outcomes if o not in SEED_OUTCOMES]
    if bad:
        raise ValueError(f"outcomes must each be one of {', '.join(SEED_OUTCOMES)}; got {bad!r}")
    if control is not None and len(control) != len(outcomes):
        raise ValueError(f"control must give one outcome per seed ({len(outcomes)}); got {len(control)}")
    if not outcomes or any(o == "not_checked" for o in outcomes):
        return "not_checked"
    evaluable = [i for i, o in enumerate(outcomes) if o != "premise_not_met"]
    if not evaluable:
        return "premise_not_met"
    if control is not None and any(control[i] == "holds" for i in evaluable):
        return "uninformative"
    n_holds = sum(outcomes[i] == "holds" for i in evaluable)
    if n_holds == len(evaluable):
        return "reproduced" if len(evaluable) == len(outcomes) else "reproduced_where_met"
    if n_holds:
        return "mixed"
    return "not_reproduced" if any(outcomes[i] == "misses" for i in evaluable) else "tie"


def _finite(values) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def _margin_record(c: Claim, margins: Mapping[str, dict]) -> dict | None:
    if c.kind == "check":
        return None
    entry = margins.get(c.id)
    if not entry:
        return None
    return {k: entry.get(k) for k in ("margin", "runs", "seeds", "how")}


def aggregate(claims, runs: list[dict], scale: str, paper: str | None = None,
              margins: Mapping[str, dict] | None = None) -> list[dict]:
    """Merge per-seed runs (from :func:`seed_run`) into one record per claim (:data:`RECORD_FIELDS`).

    ``margins`` (claim id -> measured margin, :func:`load_margins`) is what the runs were judged with; by
    default it is read from ``results/margins.jsonl``.
    """
    from icml26 import checks
    from icml26.runtime import check_scale

    claims = _check_claims(claims)
    check_scale(scale)
    runs = checks.mapping_items("runs", runs, ("seed", "outcomes"))
    if not runs:
        raise ValueError("runs must hold at least one seed's measurements")
    missing = [c.id for c in claims if any(c.id not in r["outcomes"] for r in runs)]
    if missing:
        raise ValueError(f"runs must measure every claim; they lack {missing}")
    runs = sorted(runs, key=lambda r: r["seed"])
    seeds = [r["seed"] for r in runs]
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"runs must have distinct seeds; got {seeds}")
    paper = paper or claims[0].paper_slug()
    if margins is None:
        margins = load_margins(paper, scale)
    records = []
    for c in claims:
        per_seed = [r["outcomes"][c.id] for r in runs]
        values = [o["value"] for o in per_seed]
        outcomes = [o["outcome"] for o in per_seed]
        rec = _base_record(c, paper, scale)
        if rec["requires"] is not None:
            rec["requires"]["values"] = [o["premise"]["value"] for o in per_seed]
            rec["requires"]["met"] = [o["premise"]["met"] for o in per_seed]
        control = None
        if c.control is not None:
            cs = [o.get("control") or {"value": None, "outcome": None} for o in per_seed]
            c_outcomes = [None if o == "premise_not_met" else x["outcome"] for x, o in zip(cs, outcomes)]
            control = {"id": c.control.id, "statement": c.control.statement, "values": [x["value"] for x in cs],
                       "outcomes": c_outcomes, "measured": any(x is not None for x in c_outcomes)}
        details = [o.get("details") for o in per_seed] if c.details is not None else None
        rec.update({
            "seeds": seeds,
            "values": values,
            "outcomes": outcomes,
            "margin": _margin_record(c, margins),
            "control": control,
            "details": details,
            "device": runs[0]["device"],
            "threads": runs[0].get("threads"),
            "torch": runs[0].get("torch"),
            "seconds": [r["seconds"] for r in runs],
        })
        _score(rec, c.kind)
        records.append(rec)
    return records


def _score(rec: dict, kind: str) -> None:
    """Fill a record's mean, spread, verdict and ``unexplained`` from its per-seed values and outcomes."""
    finite = _finite(rec["values"])
    control = rec.get("control")
    c_outcomes = control["outcomes"] if control and control.get("measured") else None
    rec["mean"] = statistics.fmean(finite) if finite else None
    rec["spread"] = statistics.stdev(finite) if len(finite) > 1 else (0.0 if finite else None)
    rec["verdict"] = verdict_of(rec["outcomes"], c_outcomes)
    missed = any(o in ("misses", "tie") for o in rec["outcomes"])
    rec["unexplained"] = missed and (kind == "check" or not rec.get("why"))


def failures(records: list[dict]) -> list[str]:
    """Why a run fails: each unexplained miss (a check that missed, a claim missing or tying without a why)."""
    problems = []
    for r in _check_records("records", records):
        if not r.get("unexplained"):
            continue
        missed = [s for s, o in zip(r["seeds"], r["outcomes"]) if o in ("misses", "tie")]
        values = [_fmt(v) for v, o in zip(r["values"], r["outcomes"]) if o in ("misses", "tie")]
        what = "check" if r["kind"] == "check" else "claim (no why at this scale)"
        margin = (r.get("margin") or {}).get("margin")
        band = f" beyond its noise margin {_fmt(margin)}" if margin else ""
        problems.append(f"{r['paper']}/{r['claim']}: {what} measured {', '.join(values)} on seed(s) "
                        f"{', '.join(map(str, missed))}, needs {r['op']} {_fmt(r['threshold'])}{band} at scale "
                        f"{r['scale']}")
    return problems


def dumps(record: dict) -> str:
    """One record as a line of strict JSON (no bare ``NaN``)."""
    from icml26.atomic import strict_json

    if not isinstance(record, Mapping):
        raise TypeError(f"record must be a mapping (a claim record); got {type(record).__name__}")
    return json.dumps(strict_json(record), sort_keys=True, allow_nan=False)


def append_records(path: str | os.PathLike, records: list[dict]) -> None:
    """Append ``records`` as JSON lines to ``path`` in one write (each line is whole or absent)."""
    from icml26 import checks

    path = checks.path("path", path)
    records = _check_records("records", records)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = "".join(dumps(r) + "\n" for r in records)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())


def replace_records(path: str | os.PathLike, records: list[dict], replace: bool = False) -> list[str]:
    """Merge ``records`` into ``path`` (atomically, under a lock); return the claims whose evidence was kept.

    A new record replaces the recorded one of the same paper, scale and claim only when it covers at least as
    many seeds (a run interrupted after one seed, or with a seed that failed, never drops recorded evidence), or
    when ``replace`` is true. Records of that paper and scale whose claims the new run did not measure are kept.
    Each replaced claim's old verdict is kept as ``previous_verdict`` (and its mean as ``previous_mean``) when it
    differs, so that the scoreboard can show a verdict that changed between recorded runs.
    """
    from icml26 import atomic, checks

    path = checks.path("path", path)
    records = _check_records("records", records)
    if not records:
        return []
    with _locked(path):
        return _merge_locked(path, records, bool(replace), atomic)


def _merge_locked(path, records, replace, atomic) -> list[str]:
    old = load_records(path, strict=True)
    new_keys = {(r["paper"], r["scale"], r["claim"]) for r in records}
    before = latest(old)
    out = [r for r in old if (r["paper"], r["scale"], r["claim"]) not in new_keys]
    kept = []
    for r in records:
        key = (r["paper"], r["scale"], r["claim"])
        prev = before.get(key)
        if prev is not None and not replace and len(prev.get("seeds") or []) > len(r.get("seeds") or []):
            kept.append(f"{r['paper']}/{r['claim']} ({r['scale']}): kept the record over seeds {prev['seeds']}; "
                        f"this run covers only {r['seeds']} (pass --replace to overwrite)")
            out.append(prev)
            continue
        r = dict(r)
        if prev is not None and prev.get("verdict") != r["verdict"]:
            r["previous_verdict"], r["previous_mean"] = prev.get("verdict"), prev.get("mean")
        out.append(r)
    atomic.write_text(path, "".join(dumps(r) + "\n" for r in out))
    return kept


@contextlib.contextmanager
def _locked(path: str | os.PathLike):
    """An exclusive lock beside ``path`` while a read-modify-write runs (two runs recording at once)."""
    lock = Path(f"{path}.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a", encoding="utf-8") as fh:
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks; records are still written atomically
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class RecordsError(ValueError):
    """A records file holds a line that is not a claim record (reported by file and line number)."""


def _upgrade(rec: dict) -> dict:
    """Read a record of the first format (one seed, ``measured``/``outcome``) as a one-seed record."""
    if "verdict" in rec:
        return rec
    outcome = rec.get("outcome")
    verdict = {"pass": "reproduced", "miss": "not_reproduced", "expected_miss": "not_reproduced",
               "not_checked": "not_checked"}.get(outcome, "not_checked")
    seed_outcome = {"pass": "holds", "miss": "misses", "expected_miss": "misses"}.get(outcome, "not_checked")
    value = rec.get("measured")
    out = {k: v for k, v in rec.items() if k not in ("measured", "outcome", "seed", "expected_miss")}
    out.update({"kind": rec.get("kind", "paper"), "requires": None, "seeds": [rec.get("seed", 0)],
                "values": [value], "outcomes": [seed_outcome], "mean": value, "spread": 0.0, "verdict": verdict,
                "why": rec.get("expected_miss"), "unexplained": outcome == "miss", "threads": None,
                "seconds": [rec.get("seconds", 0.0)]})
    return out


def load_records(path: str | os.PathLike, strict: bool = False) -> list[dict]:
    """Read the JSON-lines file ``path`` (either record format); a missing file gives ``[]``.

    A torn *last* line (a write cut short) is skipped with a warning. Any other line that is not a
    record raises :class:`RecordsError` naming the file and line when ``strict``; otherwise it is
    skipped with a warning that names them.
    """
    import warnings

    from icml26 import checks

    path = checks.path("path", path)
    if not path.exists():
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise RecordsError(f"{path}:{line} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                           "fix or remove that line") from None
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    records = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            ok = isinstance(rec, dict) and "claim" in rec and ("outcome" in rec or "verdict" in rec)
        except json.JSONDecodeError:
            ok = False
        if ok:
            records.append(_upgrade(rec))
            continue
        where = f"{path}:{i + 1}"
        if i == last and not line.rstrip().endswith("}"):
            warnings.warn(f"{where}: skipped a torn last line (a write that was cut short)", stacklevel=2)
        elif strict:
            raise RecordsError(f"{where} is not a claim record; fix or remove that line")
        else:
            warnings.warn(f"{where} is not a claim record; skipped", stacklevel=2)
    return records


def latest(records: Iterable[dict]) -> dict[tuple[str, str, str], dict]:
    """The last record of each ``(paper, scale, claim)``."""
    from icml26 import checks

    out = {}
    for r in checks.mapping_items("records", records, ("paper", "scale", "claim")):
        out[(r["paper"], r["scale"], r["claim"])] = r
    return out


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


class ClaimReport(list):
    """Claim records that display as the claims table (HTML in Jupyter, text elsewhere)."""

    def _repr_html_(self) -> str:
        from icml26 import claim_view

        return claim_view.html_table(list(self))

    def __str__(self) -> str:
        from icml26 import claim_view

        return claim_view.text_table(list(self))

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))


def table(records: list[dict]) -> str:
    """A plain-text table of records (paper claims first, then the sanity checks)."""
    from icml26 import claim_view

    return claim_view.text_table(_check_records("records", records))


def _claims_by_id(paper: str) -> dict[str, Claim]:
    import importlib

    from icml26 import registry

    try:
        module = registry.get(paper).module
        return {c.id: c for c in importlib.import_module(f"{module}.claims").CLAIMS}
    except (ValueError, ImportError):
        return {}


def with_current_whys(records: list[dict]) -> list[dict]:
    """``records`` with each ``why``, ``measured_at`` (and ``unexplained``) taken from ``claims.py`` as it is now.

    A why is prose that explains measured misses; written after a run, it shows without re-running the
    experiment. The measurements are left as recorded. A record whose claim no longer exists, or whose kind,
    operator or threshold changed since it was recorded, keeps its own why (it is stale and must be re-recorded).
    """
    out, claims_of = [], {}
    for r in _check_records("records", records):
        if r["paper"] not in claims_of:
            claims_of[r["paper"]] = _claims_by_id(r["paper"])
        c = claims_of[r["paper"]].get(r["claim"])
        limit = None if c is None or r["scale"] not in c.threshold else float(c.threshold[r["scale"]])
        same = c is not None and c.kind == r.get("kind") and c.op == r.get("op") and r.get("threshold") == limit
        if same:
            why = c.why_at(r["scale"]) if c.kind != "check" else None
            missed = any(o in ("misses", "tie") for o in r.get("outcomes") or [])
            r = {**r, "why": why, "measured_at": c.measured_at_scale(r["scale"]),
                 "unexplained": missed and (c.kind == "check" or why is None)}
        out.append(r)
    return out


def _results_file(name: str, path: str | os.PathLike | None) -> Path:
    from icml26 import checks, registry

    return registry.RESULTS / name if path is None else checks.path("path", path)


def _load_lines(path: Path, need: tuple[str, ...]) -> list[dict]:
    """The JSON lines of a margins or diagnostics file (a missing file gives ``[]``); a bad line is named."""
    if not path.exists():
        return []
    out = []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RecordsError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    for i, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            entry = None
        if not isinstance(entry, dict) or any(k not in entry for k in need):
            raise RecordsError(f"{path}:{i + 1} is not an entry with {', '.join(need)}; fix or remove that line")
        out.append(entry)
    return out


def load_margins(paper: str, scale: str, path: str | os.PathLike | None = None) -> dict[str, dict]:
    """The measured noise margins of ``paper`` at ``scale``: ``{claim id: entry}`` (the last entry wins)."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}; got {scale!r}")
    entries = _load_lines(_results_file(MARGINS_FILE, path), ("paper", "claim", "scale", "margin"))
    return {e["claim"]: e for e in entries if e["paper"] == paper and e["scale"] == scale}


def margins_from_runs(claims, runs: list[dict], scale: str, paper: str | None = None) -> list[dict]:
    """Noise margins from development-seed runs (:func:`seed_run` outputs measured with no margin).

    Each paper or extension claim checked at ``scale`` gets the sample standard deviation of its value over the
    runs; arms compared inside one run share its seed, so the spread is that of the paired comparison. A claim
    with fewer than three finite values gets no margin.
    """
    from icml26 import checks
    from icml26.runtime import check_scale

    claims = _check_claims(claims)
    check_scale(scale)
    runs = checks.mapping_items("runs", runs, ("seed", "outcomes"))
    seeds = sorted(r["seed"] for r in runs)
    if len(seeds) < 3 or len(set(seeds)) != len(seeds) or any(s < DEV_SEED_START for s in seeds):
        raise ValueError(f"runs must be at least three distinct development seeds (>= {DEV_SEED_START}); got {seeds}")
    paper = paper or claims[0].paper_slug()
    out = []
    for c in claims:
        if c.kind == "check" or scale not in c.threshold:
            continue
        values = [r["outcomes"][c.id]["value"] for r in sorted(runs, key=lambda r: r["seed"])]
        finite = _finite(values)
        if len(finite) < 3:
            continue
        out.append({"paper": paper, "claim": c.id, "scale": scale, "margin": statistics.stdev(finite),
                    "values": values, "seeds": seeds, "runs": len(finite),
                    "how": f"sample SD of the claim's value over {len(finite)} development-seed re-runs of the "
                           "whole experiment (arms compared within a run share its seed: paired)",
                    "torch": runs[0].get("torch"), "version": __version__})
    return out


def write_margins(entries: list[dict], path: str | os.PathLike | None = None) -> Path:
    """Store margins (:func:`margins_from_runs`), replacing earlier ones of the same paper and scale (atomically)."""
    from icml26 import atomic, checks

    entries = checks.mapping_items("entries", entries, ("paper", "claim", "scale", "margin"))
    path = _results_file(MARGINS_FILE, path)
    keys = {(e["paper"], e["scale"]) for e in entries}
    with _locked(path):
        old = _load_lines(path, ("paper", "claim", "scale", "margin"))
        kept = [e for e in old if (e["paper"], e["scale"]) not in keys]
        atomic.write_text(path, "".join(dumps(e) + "\n" for e in kept + list(entries)))
    return path


def load_diagnostics(path: str | os.PathLike | None = None) -> dict[str, dict]:
    """The recorded diagnostic runs, ``{id: entry}`` (``python -m icml26 diagnose``)."""
    entries = _load_lines(_results_file(DIAGNOSTICS_FILE, path), ("id", "paper", "scale", "seed", "overrides"))
    return {e["id"]: e for e in entries}


def write_diagnostic(entry: dict, path: str | os.PathLike | None = None) -> Path:
    """Store one diagnostic run, replacing an earlier one with the same id (atomically)."""
    from icml26 import atomic

    if not isinstance(entry, Mapping) or any(k not in entry for k in ("id", "paper", "scale", "seed", "overrides")):
        raise ValueError("entry must be a mapping with id, paper, scale, seed and overrides")
    if not isinstance(entry["id"], str) or not entry["id"].strip():
        raise ValueError(f"entry's id must be non-empty text; got {entry['id']!r}")
    path = _results_file(DIAGNOSTICS_FILE, path)
    with _locked(path):
        old = _load_lines(path, ("id", "paper", "scale", "seed", "overrides"))
        kept = [e for e in old if e["id"] != entry["id"]]
        atomic.write_text(path, "".join(dumps(e) + "\n" for e in [*kept, dict(entry)]))
    return path


def rescore(records: list[dict], results_dir: str | os.PathLike | None = None) -> tuple[list[dict], list[str]]:
    """Re-derive ``records`` from their stored per-seed values with the claims as they are now.

    Kind, headline, quote, statement, operator, threshold, why, premise threshold, control and the measured
    margin are taken from ``claims.py`` and ``results/margins.jsonl``; the values stay as recorded. Records of
    claims that no longer exist are dropped. A new premise whose metric is the metric of another claim of the
    paper takes its values from that claim's record of the same seeds (the same function of the same results).
    A record that cannot be re-derived (a new premise or control whose values were never recorded, a metric now
    checked at a scale where it was not measured) is kept as recorded and named in the returned notes: that
    claim must be recorded again.
    """
    out, notes, claims_of, margins_of = [], [], {}, {}
    folder = None if results_dir is None else Path(results_dir)
    records = _check_records("records", records)
    by_key = {(r["paper"], r["scale"], r["claim"]): r for r in records}
    for r in records:
        paper, scale = r["paper"], r["scale"]
        if paper not in claims_of:
            claims_of[paper] = _claims_by_id(paper)
        c = claims_of[paper].get(r["claim"])
        if c is None:
            notes.append(f"{paper}/{r['claim']} ({scale}): the claim no longer exists; its record is dropped")
            continue
        if (paper, scale) not in margins_of:
            margins_of[paper, scale] = load_margins(paper, scale, None if folder is None else folder / MARGINS_FILE)
        r = _with_premise_from_sibling(r, c, claims_of[paper], by_key)
        new, note = _rescored(r, c, margins_of[paper, scale])
        if note:
            notes.append(f"{paper}/{c.id} ({scale}): {note}; kept as recorded, record it again")
        out.append(new)
    return out, notes


def _with_premise_from_sibling(r: dict, c: Claim, claims: Mapping[str, Claim], by_key: Mapping) -> dict:
    """``r`` with its premise's per-seed values taken from the record of a claim of the same paper that measures
    the premise's metric (the same callable) on the same seeds; ``r`` unchanged where there is none."""
    if c.requires is None or _premise_recorded(r, c):
        return r
    for sibling in claims.values():
        if sibling.metric is not c.requires.metric:
            continue
        s = by_key.get((r["paper"], r["scale"], sibling.id))
        if s is None or s.get("seeds") != r.get("seeds") or any(v is None for v in s.get("values") or [None]):
            continue
        return {**r, "requires": {"id": c.requires.id, "values": list(s["values"])}}
    return r


def _premise_recorded(r: dict, c: Claim) -> bool:
    """Whether ``r`` holds per-seed values of ``c``'s premise (``c.requires`` is not ``None``)."""
    old_req = r.get("requires")
    return bool(old_req) and old_req.get("id") == c.requires.id and "values" in old_req


def _rescored(r: dict, c: Claim, margins: Mapping[str, dict]) -> tuple[dict, str | None]:
    scale = r["scale"]
    if c.requires is not None and not _premise_recorded(r, c):
        return r, f"premise {c.requires.id} has no recorded values"
    threshold = c.threshold.get(scale)
    values, outcomes = list(r.get("values") or []), list(r.get("outcomes") or [])
    if threshold is not None and any(v is None and o == "not_checked" for v, o in zip(values, outcomes)):
        return r, "its metric was not measured at this scale"
    rec = _base_record(c, r["paper"], scale)
    margin = _margin_value(c, margins)
    met = [True] * len(values)
    if c.requires is not None:
        p_values = list(r["requires"]["values"])
        met = [c.requires.met(v, scale) for v in p_values]
        rec["requires"].update({"values": p_values, "met": met})
    new_outcomes = []
    for v, m in zip(values, met):
        if threshold is None:
            new_outcomes.append("not_checked")
        elif not m:
            new_outcomes.append("premise_not_met")
        else:
            new_outcomes.append(judge(v, c.op, float(threshold), margin))
    control = None
    if c.control is not None:
        old = r.get("control") or {}
        c_values = list(old.get("values") or []) if old.get("id") == c.control.id else [None] * len(values)
        c_outcomes = [None if (cv is None or threshold is None or o == "premise_not_met")
                      else judge(cv, c.op, float(threshold), margin) for cv, o in zip(c_values, new_outcomes)]
        control = {"id": c.control.id, "statement": c.control.statement, "values": c_values,
                   "outcomes": c_outcomes, "measured": any(x is not None for x in c_outcomes)}
    rec.update({k: r.get(k) for k in ("seeds", "device", "threads", "torch", "seconds")})
    rec.update({"values": values, "outcomes": new_outcomes, "margin": _margin_record(c, margins),
                "control": control, "details": r.get("details") if c.details is not None else None})
    _score(rec, c.kind)
    if r.get("verdict") != rec["verdict"]:
        rec["previous_verdict"], rec["previous_mean"] = r.get("verdict"), r.get("mean")
    elif "previous_verdict" in r:
        rec["previous_verdict"], rec["previous_mean"] = r["previous_verdict"], r.get("previous_mean")
    return rec, None


def rescore_file(path: str | os.PathLike, papers: Iterable[str] | None = None) -> list[str]:
    """Rescore (:func:`rescore`) the records of ``papers`` (all when ``None``) in a records file, atomically."""
    from icml26 import atomic, checks

    path = checks.path("path", path)
    wanted = None if papers is None else set(papers)
    with _locked(path):
        old = list(latest(load_records(path, strict=True)).values())
        mine = [r for r in old if wanted is None or r["paper"] in wanted]
        others = [r for r in old if not (wanted is None or r["paper"] in wanted)]
        new, notes = rescore(mine, path.parent)
        atomic.write_text(path, "".join(dumps(r) + "\n" for r in others + new))
    return notes


BLAME = re.compile(
    r"too short|too few (?:steps|iterations|epochs)|longer (?:run|runs|training|schedule)|more (?:training|steps|"
    r"iterations|epochs|compute)|under-?train|not (?:yet )?converge|has not converged|until convergence|budget|"
    r"larger (?:scale|model|models|budget)|at scale|next scale|training length|needs? (?:more|longer)|"
    r"would (?:need|require) (?:more|longer)|too small", re.I)
"""Words with which a why blames training length, budget or scale: such a why must cite a diagnostic run."""


def why_problems(claims, paper: str, diagnostics: Mapping[str, dict] | None = None) -> list[str]:
    """The why rule: each why that blames training, budget or scale names a recorded diagnostic run of ``paper``.

    ``diagnostics`` maps ids to entries (:func:`load_diagnostics`; read from ``results/diagnostics.jsonl`` by
    default). Returns one line per claim and scale that breaks the rule.
    """
    claims = _check_claims(claims)
    diagnostics = load_diagnostics() if diagnostics is None else diagnostics
    problems = []
    for c in claims:
        for scale in c.threshold:
            why = c.why_at(scale)
            hit = BLAME.search(why) if why else None
            if hit is None:
                continue
            ref = c.measured_at_scale(scale)
            if ref is None:
                problems.append(f"{c.id} ({scale}): its why blames {hit.group(0)!r} but names no diagnostic run "
                                "(measured_at=)")
            elif ref not in diagnostics or diagnostics[ref].get("paper") != paper:
                problems.append(f"{c.id} ({scale}): measured_at={ref!r} is not a {paper} run in "
                                "results/diagnostics.jsonl (python -m icml26 diagnose)")
    return problems


RERUN_RTOL = 1e-6
"""Default relative tolerance of a re-run against its record (a paper's ``claims.py`` may declare its own
``RERUN_RTOL`` with the reason, where its computation is not bit-for-bit deterministic)."""
TIMED_RERUN_RTOL = 1.0
"""Re-run tolerance of a claim whose value is a ratio of wall-clock times (``Claim(rerun_rtol=...)``): the same
code gives it again only within the timing noise of whatever else the machine runs (the notebook run times two
notebooks at once) and of the machine itself (CI is not the machine that recorded it), so the re-run test asks only
that the value is measured and within the recorded value's own size of it (between 0 and twice the record);
whether the claim holds is the threshold's business, checked on every recorded seed."""


def rerun_mismatches(records: list[dict], recorded_records: list[dict], rtol: float = RERUN_RTOL,
                     atol: float = 1e-9, claim_rtol: Mapping[str, float] | None = None) -> list[str]:
    """Where a re-run (one seed) differs from the recorded values of that seed: one line per claim.

    Each re-run record's value (and its control's) is compared with the recorded record of the same paper,
    scale and claim on the same seed, within ``rtol`` (relative) or ``atol`` (absolute); ``claim_rtol`` maps
    claim ids to their declared tolerances (:func:`rerun_tolerances`), which replace ``rtol`` for them. A claim
    with no record at that seed is named too.
    """
    from icml26 import checks

    rtol, atol = checks.nonnegative_number("rtol", rtol), checks.nonnegative_number("atol", atol)
    claim_rtol = dict(claim_rtol or {})
    for cid, tol in claim_rtol.items():
        checks.nonnegative_number(f"claim_rtol[{cid!r}]", tol)
    book = latest(recorded_records)
    problems = []
    for r in _check_records("records", records):
        old = book.get((r["paper"], r["scale"], r["claim"]))
        seed = (r.get("seeds") or [None])[0]
        if old is None or seed not in (old.get("seeds") or []):
            problems.append(f"{r['paper']}/{r['claim']}: no record at {r['scale']} seed {seed}")
            continue
        i = old["seeds"].index(seed)
        pairs = [("value", r["values"][0], old["values"][i])]
        if r.get("control") and (old.get("control") or {}).get("id") == r["control"]["id"]:
            pairs.append(("control", r["control"]["values"][0], old["control"]["values"][i]))
        tol = claim_rtol.get(r["claim"], rtol)
        for what, new, was in pairs:
            if not _close(new, was, tol, atol):
                problems.append(f"{r['paper']}/{r['claim']}: {what} re-ran as {_fmt(new)}, recorded {_fmt(was)} "
                                f"(seed {seed}, {r['scale']}, rtol {tol:g})")
    return problems


def rerun_tolerances(claims) -> dict[str, float]:
    """The declared re-run tolerances of ``claims`` (``Claim.rerun_rtol``), by claim id."""
    return {c.id: c.rerun_rtol for c in _check_claims(claims) if c.rerun_rtol is not None}


def _close(a, b, rtol: float, atol: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b or (math.isnan(a) and math.isnan(b))
    return abs(a - b) <= atol + rtol * abs(b)


def recorded(paper: str, scale: str = "standard", results_dir: str | os.PathLike | None = None,
             headline: bool = False) -> ClaimReport:
    """The recorded multi-seed evidence of ``paper`` at ``scale`` (from ``results/<scale>.jsonl``); with
    ``headline=True`` only the headline claims (the notebooks open with them, labelled as recorded)."""
    from icml26 import registry
    from icml26.runtime import check_scale

    registry.get(paper)
    check_scale(scale)
    if not isinstance(headline, bool):
        raise ValueError(f"headline must be True or False; got {headline!r}")
    folder = Path(results_dir) if results_dir is not None else registry.RESULTS
    recs = [r for r in latest(load_records(folder / f"{scale}.jsonl")).values() if r["paper"] == paper
            and (r.get("headline") or not headline)]
    return ClaimReport(with_current_whys(recs))


class Summary(str):
    """Markdown that Jupyter renders (``_repr_markdown_``) and a terminal prints as it is."""

    def _repr_markdown_(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))


def summary(paper: str, scale: str = "standard", results_dir: str | os.PathLike | None = None) -> Summary:
    """What reproduces and what does not for ``paper`` at ``scale``, as Markdown rendered from the records
    (:func:`icml26.claim_view.markdown_summary`): the notebooks' closing summary, with no number typed by hand."""
    from icml26 import claim_view

    return Summary(claim_view.markdown_summary(list(recorded(paper, scale, results_dir))))


def verify(claims, results: Mapping, rt: Runtime, record: str | os.PathLike | None = None,
           paper: str | None = None, seconds: float | None = None) -> ClaimReport:
    """Evaluate one run, record it, return the table; raise :class:`ClaimFailed` on an unexplained miss.

    ``record`` (the notebooks' ``RESULTS`` parameter) is a JSON-lines file the records are appended
    to; ``None`` records nothing. The returned :class:`ClaimReport` displays as the claims table; on
    a failure the table is shown (or printed) before the error is raised.
    """
    report = ClaimReport(evaluate(claims, results, rt, paper=paper, seconds=seconds))
    if record:
        append_records(record, report)
    problems = failures(report)
    if problems:
        _display(report)
        raise ClaimFailed("; ".join(problems))
    return report


def _display(report: ClaimReport) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(report)
    else:
        print(report)
