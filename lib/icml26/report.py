"""The scoreboard (``build/index.html`` plus a page per paper) and the README's paper table.

Both read only claim records (the JSON-lines format of :mod:`icml26.claims`): the recorded multi-seed
evidence in ``results/<scale>.jsonl``, and the records of the notebooks a ``reproduce`` run executed.
Paper claims are counted by verdict; sanity checks are shown apart and never counted. Every page is
self-contained (inline CSS and SVG figures, nothing loaded from a network), escaped, and written
atomically. A corrupt records or runs file is reported by name and line, never read as empty.
"""

from __future__ import annotations

import html
import importlib
import os
import time
from pathlib import Path

from icml26 import __version__, atomic, checks, claim_view, registry
from icml26.claims import latest, load_records, with_current_whys

SCALE_NAMES = ("quick", "standard", "full")
SYMBOLS = claim_view.SYMBOLS
LEGEND = claim_view.LEGEND
RUN_COLOURS = {"ok": "#1b7f3b", "error": "#b3261e", "claim_miss": "#b3261e", "no_claims": "#b3261e",
               "timeout": "#b3261e", "planned": "#6b6b6b", "built": "#1f5fa8"}

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;color:#222;
padding:0 1rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;
text-align:left;vertical-align:top;font-size:.9rem}th{background:#f4f4f4}.tag{font-weight:600}
pre{background:#fbf3f2;padding:.5rem;overflow-x:auto;font-size:.8rem;max-height:24rem}
h2{margin-top:2.2rem;border-bottom:2px solid #1f5fa8;padding-bottom:.2rem}.muted{color:#6b6b6b}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(270px,1fr));gap:.8rem}
.card{border:1px solid #ddd;border-radius:6px;padding:.6rem .8rem;background:#fff}
.card h3{font-size:.95rem;margin:.1rem 0 .4rem}.card .counts{font-size:1.05rem;margin:.2rem 0}
.bar{display:flex;height:8px;border-radius:4px;overflow:hidden;background:#eee;margin:.3rem 0}
details{margin:.4rem 0}
"""


def _tag(status: str, text: str | None = None) -> str:
    colour = RUN_COLOURS.get(status, claim_view.COLOURS.get(status, "#222"))
    return f'<span class="tag" style="color:{colour}">{html.escape(text or status)}</span>'


def paper_counts(records: list[dict]) -> dict:
    """Verdict counts of the paper claims among ``records``, and the sanity checks apart."""
    return claim_view.counts(records)


score_cell = claim_view.score_cell


def _results_dir(results_dir) -> Path:
    from icml26 import checks

    if results_dir is None:
        return registry.RESULTS
    return checks.path("results_dir", results_dir, kind="dir")


def recorded(results_dir: str | os.PathLike | None = None) -> dict[str, list[dict]]:
    """The latest record of every claim, per scale, from ``results/<scale>.jsonl`` (strictly read)."""
    folder = _results_dir(results_dir)
    return {s: with_current_whys(list(latest(load_records(folder / f"{s}.jsonl", strict=True)).values()))
            for s in SCALE_NAMES}


def _claims_of(paper: registry.Paper):
    if not paper.has_claims():
        return []
    return importlib.import_module(f"{paper.module}.claims").CLAIMS


def paper_rows(results_dir: str | os.PathLike | None = None) -> list[dict]:
    """Per paper: claim and check counts and the recorded verdict counts at each scale."""
    rec = recorded(results_dir)
    rows = []
    for p in registry.PAPERS:
        claims = _claims_of(p)
        row = {"paper": p, "n_claims": sum(c.kind == "paper" for c in claims),
               "n_extensions": sum(c.kind == "extension" for c in claims),
               "n_checks": sum(c.kind == "check" for c in claims)}
        for scale in SCALE_NAMES:
            records = [r for r in rec[scale] if r["paper"] == p.slug]
            seeds = sorted({s for r in records for s in r.get("seeds") or []})
            cell = score_cell(records)
            if cell != "-" and seeds:
                cell += f" (seeds {_seed_span(seeds)})"
            row[scale] = cell
            row[f"{scale}_records"] = records
        row["headline"] = headline_cell(row)
        checks = next((row[f"{s}_records"] for s in ("standard", "quick") if row[f"{s}_records"]), [])
        counts = claim_view.counts(checks)
        row["checks"] = f"{counts['checks_ok']}/{counts['checks']}" if counts["checks"] else "-"
        rows.append(row)
    return rows


def headline_cell(row: dict) -> str:
    """The headline verdict of a paper row: from the largest recorded scale that checks a headline claim."""
    if not isinstance(row, dict) or not all(isinstance(row.get(f"{s}_records"), list) for s in SCALE_NAMES):
        raise ValueError(f"row must be a paper row of paper_rows() (with {', '.join(SCALE_NAMES)} records); "
                         f"got {type(row).__name__}")
    for scale in ("full", "standard", "quick"):
        records = row[f"{scale}_records"]
        heads = [r for r in claim_view.groups(records)["headline"] if r.get("verdict") != "not_checked"]
        if heads:
            return f"{scale}: {claim_view.headline_summary(heads)}"
    return "-"


def _seed_span(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(map(str, seeds))


def papers_table(results_dir: str | os.PathLike | None = None) -> str:
    """The README's Markdown paper table, generated from the records (paper claims only; checks apart)."""
    lines = ["| # | paper | headline verdict | claims (ext.) | quick | standard | full (GPU) | checks ok |",
             "|---|---|---|---|---|---|---|---|"]
    for row in paper_rows(results_dir):
        p = row["paper"]
        title = f"[{p.title}]({p.url})" if p.url else p.title
        n = f"{row['n_claims']} ({row['n_extensions']})" if p.has_claims() else "-"
        cells = [f"{p.number:02d}", f"{title} `{p.slug}`", row["headline"].replace("|", "\\|"), n, row["quick"],
                 row["standard"], row["full"], row["checks"]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


README = registry.ROOT / "README.md"
MARKERS = ("<!-- papers:start -->", "<!-- papers:end -->")


def update_readme(path: str | os.PathLike = README, results_dir: str | os.PathLike | None = None) -> bool:
    """Rewrite the paper table between the README's markers; return whether it changed."""
    from icml26 import checks

    path = checks.path("path", path, kind="file")
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


DOCS = registry.ROOT / "docs" / "papers"
DOC_MARKERS = ("<!-- results:start -->", "<!-- results:end -->")


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def docs_block(slug: str, results_dir: str | os.PathLike | None = None) -> str:
    """A paper's recorded results as Markdown tables (headline claims first), rendered from the records."""
    registry.get(slug)
    rec = recorded(results_dir)
    out = ["*Rendered from `results/*.jsonl` by `python -m icml26 docs`; do not edit by hand.*", ""]
    for scale in SCALE_NAMES:
        records = [r for r in rec[scale] if r["paper"] == slug]
        if not records:
            continue
        seeds = sorted({s for r in records for s in r.get("seeds") or []})
        out += [f"**{scale}** (seeds {_seed_span(seeds)}): {score_cell(records)}", "",
                "| claim | kind | verdict | per seed | needs | control |", "|---|---|---|---|---|---|"]
        for part, group in claim_view.groups(records).items():
            for r in group:
                kind = "headline" if part == "headline" else r.get("kind", "paper")
                values = " / ".join(claim_view.fmt(v) for v in r.get("values") or [])
                c = r.get("control")
                control = ("-" if not c else " / ".join(claim_view.fmt(v) for v in c.get("values") or [])
                           if c.get("measured") else "not measured")
                out.append(f"| `{r['claim']}` | {kind} | {_md(claim_view.label(r).lower())} | {values} | "
                           f"{_md(r['op'])} {_md(claim_view.threshold_text(r))} | {_md(control)} |")
        out.append("")
    if len(out) == 2:
        out.append("Nothing recorded yet.")
    return "\n".join(out).rstrip()


def update_docs(results_dir: str | os.PathLike | None = None, folder: str | os.PathLike | None = None) -> list[Path]:
    """Rewrite the results block of every ``docs/papers/<slug>.md`` that has the markers; return those changed."""
    _results_dir(results_dir)
    folder = DOCS if folder is None else checks.path("folder", folder)
    changed = []
    start, end = DOC_MARKERS
    for p in registry.PAPERS:
        path = folder / f"{p.slug}.md"
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if start not in text or end not in text:
            continue
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        new = f"{head}{start}\n{docs_block(p.slug, results_dir)}\n{end}{tail}"
        if new != text:
            atomic.write_text(path, new)
            changed.append(path)
    return changed


def _html_link(run, prefix: str = "") -> str | None:
    """The executed notebook's HTML, relative to the build folder (as the runner lays it out)."""
    if not run.html:
        return None
    rel = Path(os.path.relpath(run.notebook, "notebooks")).with_suffix(".html")
    return f"{prefix}notebooks/{rel.as_posix()}"


def _runs_table(runs, prefix: str = "") -> str:
    rows = []
    for r in runs:
        href = _html_link(r, prefix)
        link = f'<a href="{html.escape(href)}">HTML</a>' if href else ""
        err = f"<details><summary>traceback</summary><pre>{html.escape(r.error)}</pre></details>" if r.error else ""
        rows.append(f"<tr><td>{html.escape(r.notebook)}</td><td>{_tag(r.status)}{err}</td>"
                    f"<td>{r.seconds:.1f}</td><td>{html.escape(r.scale)} / seed {r.seed}</td><td>{link}</td></tr>")
    head = "<tr><th>notebook</th><th>status</th><th>seconds</th><th>scale / seed</th><th>executed</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _bar(records: list[dict]) -> str:
    counts = claim_view.counts(records)
    total = sum(counts[v] for v in claim_view.LABELS)
    if not total:
        return ""
    parts = "".join(f"<span title='{counts[v]} {html.escape(v)}' style='width:{100 * counts[v] / total:.1f}%;"
                    f"background:{claim_view.COLOURS[v]}'></span>" for v in claim_view.LABELS if counts[v])
    return f"<div class='bar'>{parts}</div>"


def _card(row: dict, pruns: list, page: str) -> str:
    p = row["paper"]
    this = [rec for r in pruns for rec in r.records]
    lines = []
    for scale in SCALE_NAMES:
        if row[scale] != "-":
            lines.append(f"<div class='counts'><span class='muted'>{scale} (recorded):</span> "
                         f"{html.escape(row[scale])}</div>{_bar(row[f'{scale}_records'])}")
    if pruns:
        seconds = sum(r.seconds for r in pruns)
        bad = sum(not r.ok for r in pruns)
        status = "ok" if not bad else "error"
        lines.append(f"<div class='muted'>this run: {_tag(status, f'{len(pruns) - bad}/{len(pruns)} notebooks ok')}"
                     f" · {html.escape(score_cell(this))} · {seconds:.0f} s</div>")
    lines.append(f"<div class='muted'>{row['n_claims']} paper claims · {row['n_checks']} sanity checks "
                 f"(ok {html.escape(row['checks'])})</div>")
    return (f"<div class='card'><h3>{p.number:02d} · <a href='{html.escape(page)}'>{html.escape(p.title)}</a></h3>"
            f"{''.join(lines)}</div>")


def _paper_page(row: dict, pruns: list) -> str:
    p = row["paper"]
    arxiv = f'<a href="{p.url}">arXiv {p.arxiv}</a>' if p.url else '<span class="muted">no arXiv id</span>'
    body = [f"<p><a href='../index.html'>← scoreboard</a> · {arxiv} · {_tag(p.status)}</p>"]
    for scale in SCALE_NAMES:
        records = row[f"{scale}_records"]
        if records:
            body.append(f"<h2>Recorded evidence at {scale}</h2><p class='muted'>{html.escape(LEGEND)}</p>"
                        + claim_view.html_table(records))
    if pruns:
        records = [{**rec, "_notebook": r.notebook} for r in pruns for rec in r.records]
        links = {r.notebook: _html_link(r, "../") for r in pruns}
        body.append("<h2>This run</h2>" + (claim_view.html_table(records, links) if records else
                                            "<p class='muted'>no claims recorded</p>") + _runs_table(pruns, "../"))
    if len(body) == 1:
        body.append("<p class='muted'>Nothing recorded or run yet.</p>")
    return _page(f"{p.number:02d} · {p.title}", "".join(body))


def _page(title: str, body: str) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    return ("<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p class='muted'>icml26 {__version__} · built {html.escape(stamp)}</p>"
            f"{body}</body></html>")


def render(runs, results_dir: str | os.PathLike | None = None) -> dict[str, str]:
    """The scoreboard's pages as ``{relative path: HTML}``: ``index.html`` and ``papers/<slug>.html``."""
    from icml26.runner import NotebookRun

    if isinstance(runs, (str, bytes)) or not all(isinstance(r, NotebookRun) for r in runs):
        raise TypeError("runs must be a list of runner.NotebookRun")
    by_paper: dict[str, list] = {}
    for r in runs:
        by_paper.setdefault(r.paper, []).append(r)
    rows = paper_rows(results_dir)
    pages, cards, quiet = {}, [], []
    for row in rows:
        p, pruns = row["paper"], by_paper.get(row["paper"].slug, [])
        page = f"papers/{p.slug}.html"
        pages[page] = _paper_page(row, pruns)
        has_any = pruns or any(row[s] != "-" for s in SCALE_NAMES)
        (cards if has_any else quiet).append(_card(row, pruns, page))
    extra = []
    start = by_paper.get("start_here", [])
    if start:
        extra.append(f"<h2>00 · Start here</h2>{_runs_table(start)}")
    for name in sorted(set(by_paper) - set(registry.SLUGS) - {"start_here"}):
        extra.append(f"<h2>Other notebooks · {html.escape(name)}</h2>{_runs_table(by_paper[name])}")
    failed = sum(not r.ok for r in runs)
    intro = (f"<p class='muted'>{len(runs)} notebooks run in this build, {failed} failed. Each card counts the "
             "paper's own claims by verdict over the recorded evaluation seeds; sanity checks are counted apart. "
             f"{html.escape(LEGEND)}</p>")
    quiet_html = (f"<details><summary>{len(quiet)} papers with nothing recorded or run</summary>"
                  f"<div class='cards'>{''.join(quiet)}</div></details>") if quiet else ""
    pages["index.html"] = _page("icml26 companion · scoreboard",
                                f"{intro}<div class='cards'>{''.join(cards)}</div>{quiet_html}{''.join(extra)}")
    return pages


def build(out_dir: str | os.PathLike = "build", runs=None, results_dir: str | os.PathLike | None = None) -> Path:
    """Write the scoreboard into ``out_dir`` from ``runs`` (default: the runs saved there); return index.html."""
    from icml26 import checks
    from icml26.runner import load_runs

    out_dir = checks.path("out_dir", out_dir)
    if runs is None:
        runs = load_runs(out_dir)
    for rel, text in render(runs, results_dir).items():
        atomic.write_text(out_dir / rel, text)
    return out_dir / "index.html"
