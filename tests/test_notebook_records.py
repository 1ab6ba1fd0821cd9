"""The reproduce notebooks show the evidence from the records, never typed by hand (issues 61, 81).

Each ``3_reproduce`` opens (right after its set-up cell) with the headline claims as recorded at standard, and
closes with the summary rendered from the records; its Markdown quotes no measured value (no ``mean ± spread``).
"""

import json
import re

import pytest

from icml26 import claim_view, claims, registry

NOTEBOOKS = {p.slug: registry.NOTEBOOKS / p.notebooks()[-1].relative_to(registry.NOTEBOOKS)
             for p in registry.PAPERS if p.notebooks()}


def _cells(slug):
    nb = json.loads(NOTEBOOKS[slug].read_text(encoding="utf-8"))
    return [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]


@pytest.mark.parametrize("slug", sorted(NOTEBOOKS))
def test_reproduce_opens_with_the_recorded_headline_and_closes_with_the_recorded_summary(slug):
    cells = _cells(slug)
    assert NOTEBOOKS[slug].name == "3_reproduce.ipynb"
    setup = next(i for i, (_, s) in enumerate(cells) if "runtime.setup(" in s)
    first_code_after = next(s for kind, s in cells[setup + 1:] if kind == "code")
    assert f'icml26.claims.recorded("{slug}", "standard", headline=True)' in first_code_after
    assert cells[-1] == ("code", f'icml26.claims.summary("{slug}")')


@pytest.mark.parametrize("slug", sorted(NOTEBOOKS))
def test_reproduce_markdown_quotes_no_measured_spread(slug):
    typed = [s[:80] for kind, s in _cells(slug) if kind == "markdown" and re.search(r"\d\s*±\s*\d", s)]
    assert not typed, f"{slug}: measured values typed by hand in {typed}"


def test_the_summary_is_every_recorded_number_grouped_by_verdict():
    recs = list(claims.recorded("ssn_games", "standard"))
    text = claim_view.markdown_summary(recs)
    paper = [r for r in recs if r.get("kind") != "check"]
    for r in paper:
        assert f"`{r['claim']}`" in text
        assert " / ".join(claim_view.fmt(v) for v in r["values"]) in text
    assert text.index("Headline claims") < text.index("Other paper claims") < text.index("Extensions")
    assert not any(f"`{r['claim']}`" in text for r in recs if r.get("kind") == "check")
    assert claims.summary("ssn_games")._repr_markdown_() == text
    heads = claims.recorded("ssn_games", "standard", headline=True)
    assert heads and all(r["headline"] for r in heads)
