import pytest

from icml26 import cli


def test_list_shows_all_papers(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 20 and "apo_alignment" in out


@pytest.mark.parametrize("argv", [["run", "nope"], ["reproduce", "--papers", "nope"],
                                  ["reproduce", "--papers", "ca_pg,nope"]])
def test_unknown_slug_lists_valid_slugs(argv, capsys):
    assert cli.main(argv) == 2
    assert "valid slugs: data_mixing" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["run", "ssn_games", "--scale", "huge"], ["reproduce", "--device", "gpu"]])
def test_unknown_scale_or_device_is_refused(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    assert "choose from" in capsys.readouterr().err


def test_full_without_cuda_stops_at_once(capsys):
    assert cli.main(["reproduce", "--scale", "full"]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_run_refuses_a_planned_paper(capsys, monkeypatch):
    from icml26 import registry

    monkeypatch.setattr(registry.Paper, "has_claims", lambda self: False)
    assert cli.main(["run", "dag_tsfx"]) == 2
    assert "planned" in capsys.readouterr().err


def test_bench_without_scripts_is_a_usage_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(cli, "BENCHMARKS", tmp_path)
    assert cli.main(["bench", "--papers", "dag_tsfx"]) == 2
    assert "no benchmark" in capsys.readouterr().err


BUILT = [p.slug for p in __import__("icml26.registry", fromlist=["PAPERS"]).PAPERS if p.has_claims()]


@pytest.mark.parametrize("slug", BUILT)
def test_run_checks_a_built_papers_quick_claims_without_jupyter(slug, capsys, tmp_path):
    import json

    record = tmp_path / "claims.jsonl"
    assert cli.main(["run", slug, "--device", "cpu", "--json", "--record", str(record)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert lines and all(r["paper"] == slug and r["scale"] == "quick" for r in lines)
    assert all(r["outcome"] in ("pass", "expected_miss", "not_checked") for r in lines)
    assert len(record.read_text().splitlines()) == len(lines)
