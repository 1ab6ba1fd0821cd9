"""Claims and the evidence for them: declared per paper, measured per seed, recorded as JSON lines.

A :class:`Claim` states what a paper says, how to read the measured number from an experiment's
results, the comparison and a threshold per scale. Its ``kind`` says what a pass would mean:

* ``"paper"``: a falsifiable statement the paper makes about its method or its baselines, measured on
  learned or computed outcomes. Only these count as reproduced (README, scoreboard, ``list``).
* ``"check"``: an identity, an exactness test, arithmetic, a guard or a fact of our own data generator.
  It is run and shown apart ("sanity checks") and never counted as a reproduction.

A claim may name a :class:`Premise` (``requires=``): a measured condition without which the claim
says nothing (for example "a sink formed"). Where the premise fails the claim's verdict is
``premise_not_met``, shown with the premise's number, never a pass.

One run measures one seed (:func:`evaluate`); :func:`aggregate` merges the runs of several seeds into
one record per claim with every per-seed value, their mean and spread and a verdict:

* ``reproduced``: holds on every seed (premise met on every seed);
* ``mixed``: holds on k of n seeds;
* ``not_reproduced``: holds on none (on the seeds where its premise was met);
* ``premise_not_met``: the premise failed on every seed;
* ``not_checked``: no threshold at this scale (the number is still measured where possible).

A paper claim that is not reproduced (or mixed) at a scale carries a ``why`` for that scale, shown
beside the verdict. A run *fails* (:class:`ClaimFailed`, exit status 1) only on an unexplained miss:
a check that misses, or a paper claim that misses on some seed at a scale for which it has no ``why``.
A ``why`` that turns out unneeded (the claim now holds) is shown as a changed verdict, never a failure.
"""

from __future__ import annotations

import contextlib
import json
import math
import operator
import os
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
KINDS = ("paper", "check")
VERDICTS = ("reproduced", "mixed", "not_reproduced", "premise_not_met", "not_checked")
SEED_OUTCOMES = ("holds", "misses", "premise_not_met", "not_checked")
DEV_SEED_START = 100
"""Seeds at or above this are development seeds: for tuning hyper-parameters and thresholds, never recorded."""
QUICK_EVIDENCE_SEEDS = (0, 1, 2, 3, 4)
"""A claim checked at quick must hold on each of these seeds (``make seeds`` records the evidence)."""
EVAL_SEEDS = {"quick": (0,), "standard": (0, 1, 2), "full": (0, 1, 2)}
"""The evaluation seeds of each scale: what ``run`` uses by default and what a recorded verdict needs."""
RECORD_FIELDS = (
    "paper", "claim", "kind", "statement", "requires", "op", "threshold", "scale", "seeds", "values", "outcomes",
    "mean", "spread", "verdict", "why", "unexplained", "device", "threads", "paper_value", "source", "seconds",
    "version",
)


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

    def describe(self, scale: str) -> dict:
        return {"id": self.id, "statement": self.statement, "op": self.op, "threshold": self.threshold_at(scale)}


@dataclass(frozen=True)
class Claim:
    """One claim of a paper (see the module docstring for ``kind``, ``requires`` and ``why``).

    ``metric`` maps an experiment's results dict to one number. ``threshold`` maps each scale at
    which the claim is checked to its threshold; at other scales it is ``not_checked``. ``why``
    explains a miss: one text for every checked scale or a mapping ``{scale: text}``; a text that
    blames training or scale cites the measurement that shows it.
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
        if self.why is not None:
            if self.kind == "check":
                raise ValueError(f"claim {self.id!r} is a check: a check that misses is a bug, so it takes no why")
            texts = self.why.values() if isinstance(self.why, Mapping) else [self.why]
            if not all(isinstance(t, str) and t.strip() for t in texts):
                raise ValueError(f"why of claim {self.id!r} must be non-empty text")
            if isinstance(self.why, Mapping):
                bad = set(self.why) - set(self.threshold)
                if bad:
                    raise ValueError(f"why of claim {self.id!r} names scales without a threshold: {sorted(bad)}")

    def why_at(self, scale: str) -> str | None:
        """Why this claim may miss at ``scale`` (``None`` when it is expected to hold there)."""
        if scale not in self.threshold:
            return None
        if isinstance(self.why, Mapping):
            return self.why.get(scale)
        return self.why

    def paper_slug(self) -> str:
        """The paper this claim belongs to: explicit, or read from the module that defines the metric."""
        if self.paper:
            return self.paper
        parts = getattr(self.metric, "__module__", "").split(".")
        if len(parts) >= 3 and parts[:2] == ["icml26", "papers"]:
            return parts[2]
        return "unknown"

    def outcome(self, results: Mapping, scale: str) -> dict:
        """Measure this claim (and its premise) on one run's ``results`` at ``scale``."""
        threshold = self.threshold.get(scale)
        value = _measure(self.metric, results)
        premise = None
        if self.requires is not None:
            p_threshold = self.requires.threshold_at(scale)
            p_value = _measure(self.requires.metric, results)
            met = True if p_threshold is None else _holds(p_value, self.requires.op, p_threshold)
            premise = {"value": p_value, "met": met}
        if threshold is None:
            outcome = "not_checked"
        elif premise is not None and not premise["met"]:
            outcome = "premise_not_met"
        else:
            if value is None:  # a checked claim whose metric cannot be read is a bug in the experiment
                value = float(self.metric(results))
            outcome = "holds" if _holds(value, self.op, float(threshold)) else "misses"
        return {"value": value, "outcome": outcome, "premise": premise,
                "threshold": None if threshold is None else float(threshold)}


def _base_record(c: Claim, paper: str, scale: str) -> dict:
    return {
        "paper": paper,
        "claim": c.id,
        "kind": c.kind,
        "statement": c.statement,
        "requires": c.requires.describe(scale) if c.requires is not None else None,
        "op": c.op,
        "threshold": None if scale not in c.threshold else float(c.threshold[scale]),
        "scale": scale,
        "why": c.why_at(scale),
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


def seed_run(claims, results: Mapping, rt: Runtime, seconds: float | None = None) -> dict:
    """One seed's measurements in a compact form that crosses process boundaries (see :func:`aggregate`)."""
    from icml26 import checks

    if not isinstance(results, Mapping):
        raise ValueError(f"results must be a mapping (the dict an experiment returns); got {type(results).__name__}")
    claims = _check_claims(claims)
    _check_rt(rt)
    if seconds is None:
        seconds = results.get("seconds", rt.elapsed())
    seconds = checks.nonnegative_number("seconds", seconds)
    return {"seed": rt.seed, "device": rt.device.type, "threads": getattr(rt, "threads", None),
            "seconds": round(float(seconds), 3),
            "outcomes": {c.id: c.outcome(results, rt.scale) for c in claims}}


def evaluate(claims, results: Mapping, rt: Runtime, paper: str | None = None,
             seconds: float | None = None) -> list[dict]:
    """Measure ``claims`` on one run (one seed): one record per claim, holding that single seed."""
    _check_rt(rt)
    return aggregate(claims, [seed_run(claims, results, rt, seconds)], rt.scale, paper=paper)


def verdict_of(outcomes: list[str]) -> str:
    """The verdict over seeds from each seed's outcome (see the module docstring)."""
    bad = [o for o in outcomes if o not in SEED_OUTCOMES]
    if bad:
        raise ValueError(f"outcomes must each be one of {', '.join(SEED_OUTCOMES)}; got {bad!r}")
    if not outcomes or any(o == "not_checked" for o in outcomes):
        return "not_checked"
    if all(o == "premise_not_met" for o in outcomes):
        return "premise_not_met"
    n_holds = sum(o == "holds" for o in outcomes)
    if n_holds == len(outcomes):
        return "reproduced"
    return "mixed" if n_holds else "not_reproduced"


def _finite(values) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def aggregate(claims, runs: list[dict], scale: str, paper: str | None = None) -> list[dict]:
    """Merge per-seed runs (from :func:`seed_run`) into one record per claim (:data:`RECORD_FIELDS`)."""
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
    records = []
    for c in claims:
        per_seed = [r["outcomes"][c.id] for r in runs]
        values = [o["value"] for o in per_seed]
        outcomes = [o["outcome"] for o in per_seed]
        finite = _finite(values)
        rec = _base_record(c, paper or c.paper_slug(), scale)
        if rec["requires"] is not None:
            rec["requires"]["values"] = [o["premise"]["value"] for o in per_seed]
            rec["requires"]["met"] = [o["premise"]["met"] for o in per_seed]
        verdict = verdict_of(outcomes)
        rec.update({
            "seeds": seeds,
            "values": values,
            "outcomes": outcomes,
            "mean": statistics.fmean(finite) if finite else None,
            "spread": statistics.stdev(finite) if len(finite) > 1 else (0.0 if finite else None),
            "verdict": verdict,
            "unexplained": "misses" in outcomes and (c.kind == "check" or c.why_at(scale) is None),
            "device": runs[0]["device"],
            "threads": runs[0].get("threads"),
            "seconds": [r["seconds"] for r in runs],
        })
        records.append(rec)
    return records


def failures(records: list[dict]) -> list[str]:
    """Why a run fails: each unexplained miss (a check that missed, a paper claim missing without a why)."""
    problems = []
    for r in _check_records("records", records):
        if not r.get("unexplained"):
            continue
        missed = [s for s, o in zip(r["seeds"], r["outcomes"]) if o == "misses"]
        values = [_fmt(v) for v, o in zip(r["values"], r["outcomes"]) if o == "misses"]
        what = "check" if r["kind"] == "check" else "claim (no why at this scale)"
        problems.append(f"{r['paper']}/{r['claim']}: {what} measured {', '.join(values)} on seed(s) "
                        f"{', '.join(map(str, missed))}, needs {r['op']} {_fmt(r['threshold'])} at scale {r['scale']}")
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


def replace_records(path: str | os.PathLike, records: list[dict]) -> None:
    """Write ``records`` into ``path``, replacing that paper's earlier records at that scale (atomically).

    Each replaced claim's old verdict is kept as ``previous_verdict`` (and its mean as ``previous_mean``)
    when it differs, so that the scoreboard can show a verdict that changed between recorded runs.
    """
    from icml26 import atomic, checks

    path = checks.path("path", path)
    records = _check_records("records", records)
    if not records:
        return
    keys = {(r["paper"], r["scale"]) for r in records}
    with _locked(path):
        _replace_locked(path, records, keys, atomic)


def _replace_locked(path, records, keys, atomic) -> None:
    old = load_records(path, strict=True)
    before = {(r["paper"], r["scale"], r["claim"]): r for r in old if (r["paper"], r["scale"]) in keys}
    kept = [r for r in old if (r["paper"], r["scale"]) not in keys]
    new = []
    for r in records:
        prev = before.get((r["paper"], r["scale"], r["claim"]))
        r = dict(r)
        if prev is not None and prev.get("verdict") != r["verdict"]:
            r["previous_verdict"], r["previous_mean"] = prev.get("verdict"), prev.get("mean")
        new.append(r)
    atomic.write_text(path, "".join(dumps(r) + "\n" for r in kept + new))


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
    lines = path.read_text(encoding="utf-8").splitlines()
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


def with_current_whys(records: list[dict]) -> list[dict]:
    """``records`` with each ``why`` (and ``unexplained``) taken from the paper's ``claims.py`` as it is now.

    A why is prose that explains measured misses; written after a run, it shows without re-running the
    experiment. The measurements are left as recorded. A record whose claim no longer exists, or whose kind,
    operator or threshold changed since it was recorded, keeps its own why (it is stale and must be re-recorded).
    """
    import importlib

    from icml26 import registry

    out, claims_of = [], {}
    for r in _check_records("records", records):
        if r["paper"] not in claims_of:
            try:
                module = registry.get(r["paper"]).module
                claims_of[r["paper"]] = {c.id: c for c in importlib.import_module(f"{module}.claims").CLAIMS}
            except (ValueError, ImportError):
                claims_of[r["paper"]] = {}
        c = claims_of[r["paper"]].get(r["claim"])
        limit = None if c is None or r["scale"] not in c.threshold else float(c.threshold[r["scale"]])
        same = c is not None and c.kind == r.get("kind") and c.op == r.get("op") and r.get("threshold") == limit
        if same:
            why = c.why_at(r["scale"]) if c.kind == "paper" else None
            r = {**r, "why": why,
                 "unexplained": "misses" in (r.get("outcomes") or []) and (c.kind == "check" or why is None)}
        out.append(r)
    return out


def recorded(paper: str, scale: str = "standard", results_dir: str | os.PathLike | None = None) -> ClaimReport:
    """The recorded multi-seed evidence of ``paper`` at ``scale`` (from ``results/<scale>.jsonl``)."""
    from icml26 import registry
    from icml26.runtime import check_scale

    registry.get(paper)
    check_scale(scale)
    folder = Path(results_dir) if results_dir is not None else registry.RESULTS
    recs = [r for r in latest(load_records(folder / f"{scale}.jsonl")).values() if r["paper"] == paper]
    return ClaimReport(with_current_whys(recs))


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
