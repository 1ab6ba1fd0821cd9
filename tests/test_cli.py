import pytest

from icml26 import cli


def test_list_shows_all_papers_with_claims_and_checks_apart(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 21 and "apo_alignment" in out and "checks" in out.splitlines()[0]


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


@pytest.mark.parametrize("argv,match", [
    (["run", "ssn_games", "--seeds", "0,-1"], "non-negative"), (["run", "ssn_games", "--seeds", "0,0"], "distinct"),
    (["run", "ssn_games", "--seeds", "a"], "integers"), (["reproduce", "--seed", "-1"], "non-negative"),
    (["run", "ssn_games", "--seed", "0", "--seeds", "1"], "not allowed"),
])
def test_bad_seeds_are_refused_up_front(argv, match, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2 and match in capsys.readouterr().err


def test_cuda_on_a_machine_without_it_is_refused_once_up_front(capsys):
    assert cli.main(["reproduce", "--papers", "ssn_games", "--device", "cuda"]) == 2
    assert "no CUDA" in capsys.readouterr().err


def test_an_unwritable_record_path_stops_before_the_experiment(capsys, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        import os

        if os.access(locked, os.W_OK):  # root ignores permissions: use a path under a file instead
            target = str(tmp_path / "file" / "r.jsonl")
            (tmp_path / "file").write_text("x")
        else:
            target = str(locked / "r.jsonl")
        assert cli.main(["run", "ssn_games", "--record", target]) == 2
        assert "cannot write the record file" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)


def test_development_seeds_are_never_recorded(capsys, tmp_path):
    assert cli.main(["run", "ssn_games", "--seeds", "100,101", "--record", str(tmp_path / "r.jsonl")]) == 2
    assert "development seeds" in capsys.readouterr().err


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
    assert lines and all(r["paper"] == slug and r["scale"] == "quick" and r["seeds"] == [0] for r in lines)
    assert not any(r["unexplained"] for r in lines)
    assert all(r["kind"] in ("paper", "extension", "check") for r in lines)
    assert len(record.read_text().splitlines()) == len(lines)


def test_the_same_seed_gives_identical_records_across_processes():
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "ICML26_THREADS": "1"}
    outs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "icml26", "run", "ssn_games", "--device", "cpu", "--json"],
                              capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs.append({r["claim"]: r["values"] for r in map(json.loads, proc.stdout.splitlines())
                     if r["kind"] == "paper" or r["kind"] == "check"})
    timing = {"scaling_time_ratio"}  # wall-clock ratios are measured, not seeded
    assert {k: v for k, v in outs[0].items() if k not in timing} == {k: v for k, v in outs[1].items()
                                                                      if k not in timing}
    assert all(r for r in outs[0].values())
