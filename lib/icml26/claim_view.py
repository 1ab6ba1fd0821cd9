"""How claim records look: a text table, an HTML table, and a small figure per claim.

The figure is an inline SVG (no plotting library, nothing fetched): one dot per seed against the
threshold line, the mean as a tick, the paper's own number in the caption. Paper claims come first;
the sanity checks follow in their own part and are never counted as reproductions. Every string that
reaches HTML is escaped.
"""

from __future__ import annotations

import html
import math

LABELS = {
    "reproduced": "REPRODUCED", "mixed": "MIXED", "not_reproduced": "NOT REPRODUCED",
    "premise_not_met": "PREMISE NOT MET", "not_checked": "NOT CHECKED",
}
CHECK_LABELS = {"reproduced": "OK", "mixed": "FAILS ON SOME SEEDS", "not_reproduced": "FAILS",
                "premise_not_met": "PREMISE NOT MET", "not_checked": "NOT CHECKED"}
COLOURS = {"reproduced": "#1b7f3b", "mixed": "#b26a00", "not_reproduced": "#b3261e",
           "premise_not_met": "#6a4c93", "not_checked": "#6b6b6b"}
DOT = {"holds": "#1b7f3b", "misses": "#b3261e", "premise_not_met": "#6a4c93", "not_checked": "#6b6b6b"}


def _record(name: str, record) -> dict:
    if not isinstance(record, dict) or "claim" not in record:
        raise TypeError(f"{name} must be a claim record (a dict with a 'claim'); got {type(record).__name__}")
    return record


def _records(name: str, records) -> list[dict]:
    from icml26 import checks

    return checks.mapping_items(name, records, ("claim",))


def fmt(value) -> str:
    """A number in four significant digits; ``-`` for a missing one."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def label(record: dict) -> str:
    _record("record", record)
    names = CHECK_LABELS if record.get("kind") == "check" else LABELS
    return names.get(record.get("verdict"), str(record.get("verdict")))


def ours(record: dict) -> str:
    """Our number: the value for one seed, ``mean +- spread (n seeds)`` for several."""
    _record("record", record)
    values = record.get("values") or []
    if len(values) <= 1:
        return fmt(values[0] if values else None)
    return f"{fmt(record.get('mean'))} ± {fmt(record.get('spread'))} (n={len(values)})"


def held(record: dict) -> str:
    """``k/n`` seeds on which the claim held (premise-failed seeds counted apart)."""
    _record("record", record)
    outcomes = record.get("outcomes") or []
    if record.get("verdict") == "not_checked":
        return "not checked at this scale"
    n_holds = sum(o == "holds" for o in outcomes)
    n_premise = sum(o == "premise_not_met" for o in outcomes)
    text = f"{n_holds}/{len(outcomes)}"
    return text + (f" ({n_premise} premise not met)" if n_premise else "")


def premise_text(record: dict) -> str:
    _record("record", record)
    req = record.get("requires")
    if not req:
        return ""
    values = ", ".join(fmt(v) for v in req.get("values") or [])
    return f"needs {req['id']}: {req['statement']} ({req['op']} {fmt(req.get('threshold'))}; measured {values})"


def split(records: list[dict]) -> tuple[list[dict], list[dict]]:
    """Paper claims and sanity checks, each in their recorded order."""
    records = _records("records", records)
    return ([r for r in records if r.get("kind") != "check"], [r for r in records if r.get("kind") == "check"])


def text_table(records: list[dict]) -> str:
    """The records as plain text: paper claims, then sanity checks."""
    records = _records("records", records)
    header = ("claim", "ours", "op", "threshold", "seeds held", "verdict", "paper")
    parts = []
    for title, group in zip(("paper claims", "sanity checks (not counted)"), split(records)):
        if not group:
            continue
        rows = [(r["claim"], ours(r), r["op"], fmt(r.get("threshold")), held(r), label(r),
                 r.get("paper_value") or "-") for r in group]
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        lines = [_line(header, widths), _line(["-" * w for w in widths], widths), *(_line(r, widths) for r in rows)]
        parts.append("\n".join([f"{title}:", *lines]))
        for r in group:
            if r.get("why") and r.get("verdict") in ("mixed", "not_reproduced"):
                parts.append(f"  why {r['claim']}: {r['why']}")
            if r.get("verdict") == "premise_not_met":
                parts.append(f"  {r['claim']}: {premise_text(r)}")
    return "\n".join(parts)


def _line(cells, widths) -> str:
    return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()


def _scale_fn(values: list[float], threshold: float | None):
    """Map numbers to [0, 1]: logarithmic when all are positive and span more than two decades."""
    pts = [v for v in values if v is not None and math.isfinite(v)]
    if threshold is not None and math.isfinite(threshold):
        pts.append(threshold)
    if not pts:
        return None, False
    log = min(pts) > 0 and max(pts) / min(pts) > 100
    tr = (lambda v: math.log10(v)) if log else (lambda v: v)
    lo, hi = min(tr(p) for p in pts), max(tr(p) for p in pts)
    pad = (hi - lo) * 0.08 or (abs(hi) * 0.1 or 1.0)
    lo, hi = lo - pad, hi + pad
    return (lambda v: (tr(v) - lo) / (hi - lo)), log


def figure_svg(record: dict, width: int = 220, height: int = 46) -> str:
    """Per-seed values as dots against the threshold (dashed line) and the mean (a tick); inline SVG."""
    from icml26 import checks

    _record("record", record)
    width, height = checks.positive_int("width", width), checks.positive_int("height", height)
    values = record.get("values") or []
    outcomes = record.get("outcomes") or ["not_checked"] * len(values)
    threshold = record.get("threshold")
    to_unit, log = _scale_fn(values, threshold)
    if to_unit is None:
        return "<span class='muted'>no finite value</span>"
    x = lambda v: 10 + to_unit(v) * (width - 20)  # noqa: E731
    y = height / 2 - 4
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
             f"aria-label='{html.escape(record.get('claim', ''))}: values per seed'>",
             f"<line x1='10' y1='{y}' x2='{width - 10}' y2='{y}' stroke='#bbb'/>"]
    if threshold is not None and math.isfinite(threshold):
        tx = x(threshold)
        parts.append(f"<line x1='{tx:.1f}' y1='4' x2='{tx:.1f}' y2='{height - 14}' stroke='#222' "
                     f"stroke-dasharray='3,2'><title>threshold {record.get('op', '')} {fmt(threshold)}</title></line>")
    finite = [(v, o) for v, o in zip(values, outcomes) if v is not None and math.isfinite(v)]
    for i, (v, o) in enumerate(finite):
        dy = (i % 3 - 1) * 4
        parts.append(f"<circle cx='{x(v):.1f}' cy='{y + dy:.1f}' r='3.5' fill='{DOT.get(o, '#222')}' "
                     f"fill-opacity='0.8'><title>{html.escape(fmt(v))} ({html.escape(o)})</title></circle>")
    mean = record.get("mean")
    if mean is not None and len(finite) > 1:
        mx = x(mean)
        parts.append(f"<line x1='{mx:.1f}' y1='{y - 8}' x2='{mx:.1f}' y2='{y + 8}' stroke='#1f5fa8' "
                     f"stroke-width='2'><title>mean {fmt(mean)}</title></line>")
    lo = min([v for v, _ in finite] + ([threshold] if threshold is not None and math.isfinite(threshold) else []))
    hi = max([v for v, _ in finite] + ([threshold] if threshold is not None and math.isfinite(threshold) else []))
    axis = f"{fmt(lo)} … {fmt(hi)}" + (" (log)" if log else "")
    parts.append(f"<text x='10' y='{height - 2}' font-size='9' fill='#6b6b6b'>{html.escape(axis)}</text></svg>")
    return "".join(parts)


CSS = """
.icml26-claims{border-collapse:collapse;width:100%;margin:.4rem 0 1rem;font-size:.88rem}
.icml26-claims th,.icml26-claims td{border-bottom:1px solid #ddd;padding:.3rem .45rem;text-align:left;
vertical-align:top}
.icml26-claims th{background:#f4f4f4}.icml26-claims .muted{color:#6b6b6b;font-size:.8rem}
.icml26-claims .verdict{font-weight:600}
"""


def _row(r: dict, link: str | None) -> str:
    colour = COLOURS.get(r.get("verdict"), "#222")
    notes = []
    if r.get("why") and r.get("verdict") in ("mixed", "not_reproduced"):
        notes.append(f"<div class='muted'><b>why:</b> {html.escape(r['why'])}</div>")
    if r.get("requires"):
        notes.append(f"<div class='muted'>{html.escape(premise_text(r))}</div>")
    if r.get("previous_verdict"):
        notes.append(f"<div class='muted'>changed: was {html.escape(str(r['previous_verdict']))} "
                     f"(mean {html.escape(fmt(r.get('previous_mean')))})</div>")
    nb = f"<br><a href='{html.escape(link)}'>notebook</a>" if link else ""
    seeds = ", ".join(map(str, r.get("seeds") or []))
    return (
        "<tr>"
        f"<td><b>{html.escape(r['claim'])}</b><br>{html.escape(r.get('statement', ''))}</td>"
        f"<td>{html.escape(r.get('paper_value') or '-')}"
        f"<div class='muted'>{html.escape(r.get('source') or '')}</div></td>"
        f"<td>{html.escape(ours(r))}<div class='muted'>{html.escape(r.get('op', ''))} "
        f"{html.escape(fmt(r.get('threshold')))} · seeds {html.escape(seeds)}</div></td>"
        f"<td>{figure_svg(r)}</td>"
        f"<td><span class='verdict' style='color:{colour}'>{html.escape(label(r))}</span>"
        f"<div class='muted'>{'' if r.get('verdict') == 'not_checked' else 'held on '}{html.escape(held(r))}</div>"
        f"{''.join(notes)}</td>"
        f"<td class='muted'>{html.escape(str(r.get('scale', '')))} · {html.escape(str(r.get('device', '')))}{nb}</td>"
        "</tr>")


def html_table(records: list[dict], links: dict | None = None) -> str:
    """Paper claims, then sanity checks, as HTML tables with a figure per claim."""
    records = _records("records", records)
    head = ("<tr><th>claim</th><th>paper's figure</th><th>ours</th><th>per seed</th><th>verdict</th>"
            "<th>run</th></tr>")
    out = [f"<style>{CSS}</style>"]
    claims, checks = split(records)
    for title, group in (("Paper claims", claims), ("Sanity checks (run, never counted as reproductions)", checks)):
        if not group:
            continue
        rows = "".join(_row(r, (links or {}).get(r.get("_notebook"))) for r in group)
        out.append(f"<p><b>{html.escape(title)}</b></p><table class='icml26-claims'>{head}{rows}</table>")
    return "".join(out)


def counts(records: list[dict]) -> dict:
    """Verdict counts of the paper claims, and how many sanity checks ran and held."""
    records = _records("records", records)
    claims, checks = split(records)
    out = {v: sum(r.get("verdict") == v for r in claims) for v in LABELS}
    ran = [r for r in checks if r.get("verdict") != "not_checked"]
    out["checks_ok"] = sum(r.get("verdict") == "reproduced" for r in ran)
    out["checks"] = len(ran)
    return out
