import re

import pytest

from icml26 import registry


def test_nineteen_papers_numbered_in_order_with_unique_slugs():
    assert [p.number for p in registry.PAPERS] == list(range(1, 20))
    assert len(set(registry.SLUGS)) == 19
    for p in registry.PAPERS:
        assert re.fullmatch(r"[a-z][a-z0-9_]+", p.slug)
        assert p.arxiv is None or re.fullmatch(r"\d{4}\.\d{5}", p.arxiv)
        assert p.folder == f"{p.number:02d}_{p.slug}"


def test_get_and_parse_papers():
    assert registry.get("ssn_games").number == 5
    assert [p.slug for p in registry.parse_papers(" ca_pg , otp_fm")] == ["ca_pg", "otp_fm"]
    assert len(registry.parse_papers("")) == 19


def test_unknown_slug_lists_the_valid_ones():
    with pytest.raises(ValueError, match="valid slugs: data_mixing, dag_tsfx"):
        registry.get("nope")


def test_status_follows_the_files(tmp_path):
    paper = registry.get("ssn_games")
    assert paper.notebooks(tmp_path) == []
    assert paper.status in ("built", "planned")
    assert (paper.status == "built") == bool(paper.notebooks() and paper.has_claims())
