"""How claim records look: a text table, an HTML table, and a small figure per claim.

The figure is an inline SVG (no plotting library, nothing fetched): one dot per seed against the
threshold line, the measured noise margin as a shaded band around it, the control's values as hollow
rings, the mean as a tick. Headline claims come first, then the paper's other claims; our extensions and
the sanity checks follow in their own parts and are never counted as the paper's. Every string that
reaches HTML is escaped.
"""

from __future__ import annotations

import html
import math

LABELS = {
    "reproduced": "REPRODUCED", "reproduced_where_met": "REPRODUCED WHERE PREMISE MET", "mixed": "MIXED",
    "tie": "TIE (WITHIN NOISE)", "uninformative": "UNINFORMATIVE (CONTROL PASSES TOO)",
    "not_reproduced": "NOT REPRODUCED", "premise_not_met": "PREMISE NOT MET", "not_checked": "NOT CHECKED",
}
CHECK_LABELS = {"reproduced": "OK", "reproduced_where_met": "OK WHERE PREMISE MET", "mixed": "FAILS ON SOME SEEDS",
                "tie": "FAILS", "uninformative": "FAILS", "not_reproduced": "FAILS",
                "premise_not_met": "PREMISE NOT MET", "not_checked": "NOT CHECKED"}
COLOURS = {"reproduced": "#1b7f3b", "reproduced_where_met": "#4c8f3b", "mixed": "#b26a00", "tie": "#8a7a00",
           "uninformative": "#5d6d7e", "not_reproduced": "#b3261e", "premise_not_met": "#6a4c93",
           "not_checked": "#6b6b6b"}
DOT = {"holds": "#1b7f3b", "tie": "#8a7a00", "misses": "#b3261e", "premise_not_met": "#6a4c93",
       "not_checked": "#6b6b6b"}
SYMBOLS = {"reproduced": "✓", "reproduced_where_met": "✓ₚ", "mixed": "◐", "tie": "≈", "uninformative": "?",
           "not_reproduced": "✗", "premise_not_met": "∅", "not_checked": "–"}
LEGEND = ("✓ reproduced on every seed · ✓ₚ reproduced on every seed whose premise held · ◐ mixed (held on some "
          "seeds) · ≈ tie (within the measured noise margin) · ? uninformative (the negative control passes too) · "
          "✗ not reproduced · ∅ premise not met · – not checked at that scale")
MISSED = ("mixed", "tie", "not_reproduced", "uninformative")
"""Verdicts shown with their why."""


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
    """``k/n`` seeds on which the claim held; ties, and seeds whose premise failed, named apart."""
    _record("record", record)
    outcomes = record.get("outcomes") or []
    if record.get("verdict") == "not_checked":
        return "not checked at this scale"
    n_holds = sum(o == "holds" for o in outcomes)
    n_ties = sum(o == "tie" for o in outcomes)
    premise = [s for s, o in zip(record.get("seeds") or [], outcomes) if o == "premise_not_met"]
    evaluable = len(outcomes) - len(premise)
    text = f"{n_holds}/{evaluable}" + (" evaluable" if premise else "")
    if n_ties:
        text += f", {n_ties} tie{'s' if n_ties > 1 else ''}"
    if premise:
        text += f" (premise not met on seed{'s' if len(premise) > 1 else ''} {', '.join(map(str, premise))})"
    return text


def margin_text(record: dict) -> str:
    """The measured noise margin (``± m, n dev runs``), or that none was measured."""
    _record("record", record)
    if record.get("kind") == "check":
        return ""
    m = record.get("margin")
    if not m:
        return "no noise margin measured"
    return f"noise margin ± {fmt(m.get('margin'))} ({m.get('runs')} dev runs)"


def control_text(record: dict) -> str:
    """The negative control's values and whether it passed the same test."""
    _record("record", record)
    c = record.get("control")
    if not c:
        return ""
    if not c.get("measured"):
        return f"control {c['id']} ({c['statement']}): not measured at this scale"
    vals = ", ".join(fmt(v) for v in c.get("values") or [])
    passed = sum(o == "holds" for o in c.get("outcomes") or [])
    verdict = f"passes the test on {passed} seed(s): this testbed cannot tell" if passed else "fails the test"
    return f"control {c['id']} ({c['statement']}): {vals}; {verdict}"


def premise_text(record: dict) -> str:
    _record("record", record)
    req = record.get("requires")
    if not req:
        return ""
    values = ", ".join(fmt(v) for v in req.get("values") or [])
    return f"needs {req['id']}: {req['statement']} ({req['op']} {fmt(req.get('threshold'))}; measured {values})"


def split(records: list[dict]) -> tuple[list[dict], list[dict]]:
    """Paper claims (headline claims first) and sanity checks; extensions are in neither (see :func:`groups`)."""
    g = groups(records)
    return g["headline"] + g["paper"], g["check"]


def groups(records: list[dict]) -> dict[str, list[dict]]:
    """Records by part, each in recorded order: ``headline``, ``paper`` (the rest), ``extension``, ``check``."""
    records = _records("records", records)
    kind = lambda r: r.get("kind", "paper")  # noqa: E731
    return {"headline": [r for r in records if kind(r) == "paper" and r.get("headline")],
            "paper": [r for r in records if kind(r) == "paper" and not r.get("headline")],
            "extension": [r for r in records if kind(r) == "extension"],
            "check": [r for r in records if kind(r) == "check"]}


TITLES = {"headline": "headline claims (the abstract's main result)", "paper": "other paper claims",
          "extension": "extensions (ours: ablations, variants, hypotheses; counted apart)",
          "check": "sanity checks (not counted)"}


def text_table(records: list[dict]) -> str:
    """The records as plain text: headline claims, other paper claims, extensions, sanity checks."""
    records = _records("records", records)
    header = ("claim", "ours", "op", "threshold", "seeds held", "verdict", "paper")
    parts = []
    for part, group in groups(records).items():
        if not group:
            continue
        rows = [(r["claim"], ours(r), r["op"], threshold_text(r), held(r), label(r),
                 r.get("paper_value") or "-") for r in group]
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        lines = [_line(header, widths), _line(["-" * w for w in widths], widths), *(_line(r, widths) for r in rows)]
        parts.append("\n".join([f"{TITLES[part]}:", *lines]))
        for r in group:
            if r.get("control"):
                parts.append(f"  {r['claim']}: {control_text(r)}")
            if r.get("why") and r.get("verdict") in MISSED:
                parts.append(f"  why {r['claim']}: {r['why']}")
            if r.get("verdict") in ("premise_not_met", "reproduced_where_met"):
                parts.append(f"  {r['claim']}: {premise_text(r)}")
    return "\n".join(parts)


def threshold_text(record: dict) -> str:
    """The threshold with its measured noise margin (``1 ± 0.02``)."""
    _record("record", record)
    m = (record.get("margin") or {}).get("margin")
    return fmt(record.get("threshold")) + (f" ± {fmt(m)}" if m else "")


def score_cell(records: list[dict]) -> str:
    """A compact verdict count (``3 ✓ · 1 ≈ · 1 ✗``) of the paper claims; ``-`` when nothing is recorded."""
    claims, _ = split(records)
    if not claims:
        return "-"
    c = counts(records)
    return " · ".join(f"{c[v]} {SYMBOLS[v]}" for v in SYMBOLS if c[v])


def headline_summary(records: list[dict]) -> str:
    """One line on the headline claims: the verdict and its reason with numbers (``-`` when none is recorded)."""
    heads = groups(records)["headline"]
    if not heads:
        return "-"
    parts = []
    for r in heads:
        vals = [v for v in r.get("values") or [] if v is not None and math.isfinite(v)]
        span = (fmt(min(vals)) if len(set(vals)) <= 1 else f"{fmt(min(vals))} to {fmt(max(vals))}") if vals else "-"
        reason = f"{r['claim']} {span} over seeds {_span(r.get('seeds') or [])} (needs {r['op']} {threshold_text(r)})"
        c = r.get("control")
        if c and c.get("measured"):
            cv = [v for v in c.get("values") or [] if v is not None and math.isfinite(v)]
            if cv:
                reason += f"; control {c['id']} {fmt(min(cv))} to {fmt(max(cv))}"
        elif c:
            reason += f"; control {c['id']} not measured"
        parts.append(f"{label(r).lower()}: {reason}")
    return " · ".join(parts)


SUMMARY_ORDER = ("reproduced", "reproduced_where_met", "mixed", "tie", "uninformative", "not_reproduced",
                 "premise_not_met", "not_checked")


def _md(text) -> str:
    """Plain text made safe inside Markdown (no emphasis, table or HTML markup)."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def markdown_summary(records: list[dict]) -> str:
    """What reproduces and what does not, as Markdown bullets grouped by verdict: each paper claim and extension
    with its statement, per-seed values against the threshold, its control and the recorded why. Every number
    comes from the records; checks are left to the table."""
    records = _records("records", records)
    g = groups(records)
    out = []
    for part in ("headline", "paper", "extension"):
        if not g[part]:
            continue
        out.append(f"#### {TITLES[part][0].upper()}{TITLES[part][1:]}")
        for verdict in SUMMARY_ORDER:
            rows = [r for r in g[part] if r.get("verdict") == verdict]
            if not rows:
                continue
            out.append(f"**{LABELS[verdict].capitalize()}** ({len(rows)})")
            out.append("")
            for r in rows:
                values = " / ".join(fmt(v) for v in r.get("values") or [])
                line = (f"* `{r['claim']}`: {_md(r.get('statement') or '')} — seeds {_span(r.get('seeds') or [])}: "
                        f"{values or '-'} (needs {_md(r['op'])} {threshold_text(r)}; {held(r)})")
                extra = [control_text(r), premise_text(r) if verdict in ("premise_not_met",
                                                                          "reproduced_where_met") else ""]
                if r.get("why") and verdict in MISSED + ("premise_not_met",):
                    extra.append(f"why: {r['why']}")
                line += "".join(f"<br>{_md(e)}" for e in extra if e)
                out.append(line)
            out.append("")
    return "\n".join(out).rstrip() or "Nothing recorded yet."


def _span(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(map(str, seeds))


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
    extra = [v for v in (record.get("control") or {}).get("values") or [] if v is not None]
    m = (record.get("margin") or {}).get("margin")
    if m and threshold is not None:
        extra += [threshold - m, threshold + m]
    to_unit, log = _scale_fn(list(values) + extra, threshold)
    if to_unit is None:
        return "<span class='muted'>no finite value</span>"
    x = lambda v: 10 + to_unit(v) * (width - 20)  # noqa: E731
    y = height / 2 - 4
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
             f"aria-label='{html.escape(record.get('claim', ''))}: values per seed'>",
             f"<line x1='10' y1='{y}' x2='{width - 10}' y2='{y}' stroke='#bbb'/>"]
    margin = (record.get("margin") or {}).get("margin")
    if threshold is not None and math.isfinite(threshold) and margin and math.isfinite(margin) and not log:
        bx0, bx1 = sorted((x(threshold - margin), x(threshold + margin)))
        parts.append(f"<rect x='{max(bx0, 0):.1f}' y='4' width='{min(bx1, width) - max(bx0, 0):.1f}' "
                     f"height='{height - 18}' fill='#e9d98a' fill-opacity='0.5'><title>noise margin ± "
                     f"{html.escape(fmt(margin))}: a value in this band is a tie</title></rect>")
    if threshold is not None and math.isfinite(threshold):
        tx = x(threshold)
        parts.append(f"<line x1='{tx:.1f}' y1='4' x2='{tx:.1f}' y2='{height - 14}' stroke='#222' "
                     f"stroke-dasharray='3,2'><title>threshold {record.get('op', '')} {fmt(threshold)}</title></line>")
    finite = [(v, o) for v, o in zip(values, outcomes) if v is not None and math.isfinite(v)]
    for i, (v, o) in enumerate(finite):
        dy = (i % 3 - 1) * 4
        parts.append(f"<circle cx='{x(v):.1f}' cy='{y + dy:.1f}' r='3.5' fill='{DOT.get(o, '#222')}' "
                     f"fill-opacity='0.8'><title>{html.escape(fmt(v))} ({html.escape(o)})</title></circle>")
    control = record.get("control") or {}
    for v in control.get("values") or []:
        if v is not None and math.isfinite(v) and (not log or v > 0):
            parts.append(f"<circle cx='{min(max(x(v), 2), width - 2):.1f}' cy='{y:.1f}' r='4.5' fill='none' "
                         f"stroke='#5d6d7e' stroke-width='1.5'><title>control {html.escape(str(control.get('id')))}: "
                         f"{html.escape(fmt(v))}</title></circle>")
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
    if r.get("control"):
        notes.append(f"<div class='muted'>{html.escape(control_text(r))}</div>")
    if r.get("why") and r.get("verdict") in MISSED:
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
        f"<td><b>{'★ ' if r.get('headline') else ''}{html.escape(r['claim'])}</b><br>"
        f"{html.escape(r.get('statement', ''))}</td>"
        f"<td>{html.escape(r.get('paper_value') or '-')}"
        f"<div class='muted'>{html.escape(r.get('source') or '')}</div></td>"
        f"<td>{html.escape(ours(r))}<div class='muted'>{html.escape(r.get('op', ''))} "
        f"{html.escape(threshold_text(r))} · seeds {html.escape(seeds)}</div>"
        f"<div class='muted'>{html.escape(margin_text(r))}</div></td>"
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
    titles = {"headline": "Headline claims (the abstract's main result)", "paper": "Other paper claims",
              "extension": "Extensions (ours: ablations, variants, hypotheses; never counted as the paper's)",
              "check": "Sanity checks (run, never counted as reproductions)"}
    for part, group in groups(records).items():
        title = titles[part]
        if not group:
            continue
        rows = "".join(_row(r, (links or {}).get(r.get("_notebook"))) for r in group)
        out.append(f"<p><b>{html.escape(title)}</b></p><table class='icml26-claims'>{head}{rows}</table>")
    return "".join(out)


def counts(records: list[dict]) -> dict:
    """Verdict counts of the paper claims, how many extensions there are, and how many sanity checks ran and held."""
    records = _records("records", records)
    claims, checks = split(records)
    out = {v: sum(r.get("verdict") == v for r in claims) for v in LABELS}
    out["extensions"] = len(groups(records)["extension"])
    ran = [r for r in checks if r.get("verdict") != "not_checked"]
    out["checks_ok"] = sum(r.get("verdict") == "reproduced" for r in ran)
    out["checks"] = len(ran)
    return out
