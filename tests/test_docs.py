"""Every built paper has its docs page, and nothing cites the planning notes, which are not in the repository."""

import importlib
import re
from pathlib import Path

import pytest

from icml26 import registry

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "papers"
BUILT = [p for p in registry.PAPERS if p.has_claims()]
NOTE_CITATION = re.compile(r"[Nn]ote §|\b[Tt]he note\b|\b[Nn]ote's\b|\(note\)|\bnote: |paper note")
"""How the absent planning notes were cited ("note §3.2", "the note's default", "(note)", "note: <= 1e-4")."""
SEARCHED = ("lib", "notebooks", "tests", "benchmarks", "docs", "README.md")
SUFFIXES = {".py", ".ipynb", ".md"}


@pytest.mark.parametrize("paper", BUILT, ids=lambda p: p.slug)
def test_every_built_paper_has_a_docs_page_naming_its_claims(paper):
    page = DOCS / f"{paper.slug}.md"
    assert page.is_file(), f"docs/papers/{paper.slug}.md is missing (the method as implemented, in our words)"
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# ") and len(text.splitlines()) >= 60, f"{page.name} is not a full page"
    claims = importlib.import_module(f"{paper.module}.claims").CLAIMS
    missing = [c.id for c in claims if c.id not in text]
    assert not missing, f"{page.name} does not describe the claims {missing}"


def _files():
    for name in SEARCHED:
        path = ROOT / name
        if path.is_file():
            yield path
        elif path.is_dir():
            yield from (p for p in path.rglob("*") if p.suffix in SUFFIXES and ".ipynb_checkpoints" not in p.parts)


def test_nothing_cites_the_absent_planning_notes():
    me = Path(__file__).resolve()
    hits = []
    for path in _files():
        if path.resolve() == me:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NOTE_CITATION.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not hits, ("cite the paper's section or docs/papers/<slug>.md instead of the planning note:\n"
                      + "\n".join(hits))
