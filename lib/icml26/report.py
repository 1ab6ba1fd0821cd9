"""The scoreboard: ``build/index.html``, paper by paper and claim by claim.

It reads only the claim records (the JSON-lines format of :mod:`icml26.claims`) and the notebook
runs the runner saved; papers without notebooks are listed as planned. HTML is escaped everywhere
and the page is written atomically.
"""

from __future__ import annotations

import html
import os
import time
from pathlib import Path

from icml26 import __version__, atomic, registry
from icml26.claims import LABELS, _fmt

COLOURS = {"pass": "#1b7f3b", "miss": "#b3261e", "expected_miss": "#b3261e", "not_checked": "#6b6b6b",
           "ok": "#1b7f3b", "error": "#b3261e", "claim_miss": "#b3261e", "no_claims": "#b3261e",
           "timeout": "#b3261e", "planned": "#6b6b6b", "built": "#1f5fa8"}

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;color:#222;
padding:0 1rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;
text-align:left;vertical-align:top;font-size:.9rem}th{background:#f4f4f4}.tag{font-weight:600}
pre{background:#fbf3f2;padding:.5rem;overflow-x:auto;font-size:.8rem;max-height:24rem}
h2{margin-top:2.2rem;border-bottom:2px solid #1f5fa8;padding-bottom:.2rem}.muted{color:#6b6b6b}
"""


def _tag(outcome: str, text: str | None = None) -> str:
    colour = COLOURS.get(outcome, "#222")
    return f'<span class="tag" style="color:{colour}">{html.escape(text or outcome)}</span>'


def claims_table_html(records: list[dict], links: dict | None = None) -> str:
    """An HTML table of claim records (used in notebooks and on the scoreboard)."""
    rows = []
    for r in records:
        why = f'<div class="muted">{html.escape(r["expected_miss"])}</div>' if r.get("expected_miss") else ""
        link = (links or {}).get(r.get("_notebook"))
        nb = f'<a href="{html.escape(link)}">notebook</a>' if link else ""
        rows.append(
            "<tr>"
            f"<td><b>{html.escape(r['claim'])}</b><br>{html.escape(r['statement'])}</td>"
            f"<td>{html.escape(r.get('paper_value') or '-')}"
            f"<div class='muted'>{html.escape(r.get('source') or '')}</div></td>"
            f"<td>{html.escape(_fmt(r['measured']))}</td>"
            f"<td>{html.escape(r['op'])} {html.escape(_fmt(r['threshold']))}</td>"
            f"<td>{_tag(r['outcome'], LABELS.get(r['outcome'], r['outcome']))}{why}</td>"
            f"<td>{html.escape(r['scale'])} / seed {r['seed']} / {html.escape(str(r.get('device', '')))}</td>"
            f"<td>{r.get('seconds', 0):.1f}</td><td>{nb}</td></tr>")
    head = ("<tr><th>claim</th><th>paper's figure</th><th>measured</th><th>threshold</th><th>outcome</th>"
            "<th>scale / seed / device</th><th>seconds</th><th></th></tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _html_link(run) -> str | None:
    """The executed notebook's HTML, relative to the build folder (as the runner lays it out)."""
    if not run.html:
        return None
    rel = Path(os.path.relpath(run.notebook, "notebooks")).with_suffix(".html")
    return f"notebooks/{rel.as_posix()}"


def _runs_table(runs) -> str:
    rows = []
    for r in runs:
        href = _html_link(r)
        link = f'<a href="{html.escape(href)}">HTML</a>' if href else ""
        err = f"<details><summary>traceback</summary><pre>{html.escape(r.error)}</pre></details>" if r.error else ""
        rows.append(f"<tr><td>{html.escape(r.notebook)}</td><td>{_tag(r.status)}{err}</td>"
                    f"<td>{r.seconds:.1f}</td><td>{html.escape(r.scale)} / seed {r.seed}</td><td>{link}</td></tr>")
    head = "<tr><th>notebook</th><th>status</th><th>seconds</th><th>scale / seed</th><th>executed</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def paper_counts(records: list[dict]) -> dict:
    """How many claims passed, missed (including expected misses) and were not checked."""
    return {
        "pass": sum(r["outcome"] == "pass" for r in records),
        "miss": sum(r["outcome"] in ("miss", "expected_miss") for r in records),
        "not_checked": sum(r["outcome"] == "not_checked" for r in records),
    }


def _runs_body(pruns) -> tuple[list[dict], str]:
    """The claim records of some runs and their HTML: the claims table, then the notebooks table."""
    records = [{**rec, "_notebook": r.notebook} for r in pruns for rec in r.records]
    claims = claims_table_html(records, {r.notebook: _html_link(r) for r in pruns}) if records else \
        "<p class='muted'>no claims recorded</p>"
    return records, claims + _runs_table(pruns)


def render(runs) -> str:
    """The whole scoreboard page as an HTML string."""
    by_paper: dict[str, list] = {}
    for r in runs:
        by_paper.setdefault(r.paper, []).append(r)
    overview, sections = [], []
    start = by_paper.get("start_here", [])
    if start:
        sections.append(f"<h2>00 · Start here</h2>{_runs_body(start)[1]}")
    for p in registry.PAPERS:
        pruns = by_paper.get(p.slug, [])
        records, runs_html = _runs_body(pruns)
        counts = paper_counts(records)
        status = p.status
        arxiv = f'<a href="{p.url}">arXiv {p.arxiv}</a>' if p.url else '<span class="muted">no arXiv id</span>'
        score = (f"{counts['pass']} reproduced, {counts['miss']} not, {counts['not_checked']} not checked"
                 if records else ("not run" if status == "built" else "planned"))
        overview.append(f"<tr><td>{p.number:02d}</td><td><a href='#{p.slug}'>{html.escape(p.title)}</a></td>"
                        f"<td>{_tag(status)}</td><td>{html.escape(score)}</td></tr>")
        body = f"<p>{arxiv} · status {_tag(status)}</p>"
        if pruns:
            body += runs_html
        elif status == "planned":
            body += "<p class='muted'>Planned: not built yet.</p>"
        else:
            body += "<p class='muted'>Built, not run in this reproduction (see PAPERS=...).</p>"
        sections.append(f"<h2 id='{p.slug}'>{p.number:02d} · {html.escape(p.title)}</h2>{body}")
    for name in sorted(set(by_paper) - set(registry.SLUGS) - {"start_here"}):
        sections.append(f"<h2>Other notebooks · {html.escape(name)}</h2>{_runs_body(by_paper[name])[1]}")
    failed = sum(not r.ok for r in runs)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>icml26 scoreboard</title>"
        f"<style>{CSS}</style></head><body><h1>icml26 companion · scoreboard</h1>"
        f"<p class='muted'>version {__version__} · built {html.escape(stamp)} · {len(runs)} notebooks run, "
        f"{failed} failed</p>"
        "<table><tr><th>#</th><th>paper</th><th>status</th><th>claims</th></tr>"
        f"{''.join(overview)}</table>{''.join(sections)}</body></html>"
    )


def build(out_dir: str | os.PathLike = "build", runs=None) -> Path:
    """Write ``<out_dir>/index.html`` from ``runs`` (default: the runs saved in ``out_dir``)."""
    from icml26.runner import load_runs

    out_dir = Path(out_dir)
    if runs is None:
        runs = load_runs(out_dir)
    return atomic.write_text(out_dir / "index.html", render(runs))


RESULTS_DIR = registry.ROOT / "results"
README = registry.ROOT / "README.md"
MARKERS = ("<!-- papers:start -->", "<!-- papers:end -->")


def _scale_score(records: list[dict], slug: str, scale: str) -> str:
    """``passed/checked`` for a paper at a scale, from its latest record of each claim."""
    latest = {r["claim"]: r for r in records if r.get("paper") == slug and r.get("scale") == scale}
    checked = [r for r in latest.values() if r["outcome"] != "not_checked"]
    if not checked:
        return "-"
    return f"{sum(r['outcome'] == 'pass' for r in checked)}/{len(checked)}"


def papers_table(results_dir: str | os.PathLike = RESULTS_DIR) -> str:
    """The README's Markdown paper table: number, title, slug, status, claims, quick and standard scores."""
    import importlib

    from icml26.claims import load_records

    results = {s: load_records(Path(results_dir) / f"{s}.jsonl") for s in ("quick", "standard", "full")}
    lines = ["| # | paper | slug | status | claims | quick | standard | full (GPU) |",
             "|---|---|---|---|---|---|---|---|"]
    for p in registry.PAPERS:
        n_claims = len(importlib.import_module(f"{p.module}.claims").CLAIMS) if p.has_claims() else "-"
        title = f"[{p.title}]({p.url})" if p.url else p.title
        scores = [_scale_score(results[s], p.slug, s) for s in ("quick", "standard", "full")]
        cells = [f"{p.number:02d}", title, f"`{p.slug}`", p.status, str(n_claims), *scores]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def update_readme(path: str | os.PathLike = README, results_dir: str | os.PathLike = RESULTS_DIR) -> bool:
    """Rewrite the paper table between the README's markers; return whether it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    start, end = MARKERS
    if start not in text or end not in text:
        raise ValueError(f"path {path} must contain the markers {start} and {end}")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    new = f"{head}{start}\n{papers_table(results_dir)}\n{end}{tail}"
    if new != text:
        atomic.write_text(path, new)
    return new != text
