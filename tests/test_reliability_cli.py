"""Issue 82: every CLI argument is checked before any work, with a one-line error naming the argument or file."""

import json

import pytest

from icml26 import cli, registry, runner
from icml26.claims import RecordsError, load_records

GOOD = {"paper": "ssn_games", "claim": "c", "kind": "paper", "scale": "quick", "seeds": [0], "values": [1.0],
        "verdict": "reproduced"}


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error:") or ": error:" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def no_work(monkeypatch):
    """Any experiment or notebook that starts fails the test: the error must come first."""
    def boom(*args, **kwargs):
        raise AssertionError("work started before the arguments were checked")

    monkeypatch.setattr(runner, "run_notebooks", boom)
    monkeypatch.setattr(cli, "setup", boom)
    monkeypatch.setattr(cli, "_sweep", boom)


@pytest.fixture
def results(monkeypatch, tmp_path):
    """An empty results folder in place of the repository's."""
    folder = tmp_path / "results"
    folder.mkdir()
    monkeypatch.setattr(registry, "RESULTS", folder)
    return folder


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "0", "-inf", "soon"])
def test_reproduce_timeout_must_be_a_finite_positive_number(value, capsys, no_work):
    with pytest.raises(SystemExit) as exc:
        cli.main(["reproduce", "--papers", "ssn_games", f"--timeout={value}"])
    assert exc.value.code == 2
    line = _one_line_error(capsys)
    assert "--timeout" in line and repr(value) in line


def test_explore_timeout_is_checked_too(capsys):
    with pytest.raises(SystemExit):
        cli.main(["explore", "otp_fm", "--timeout", "nan"])
    assert "--timeout" in _one_line_error(capsys)


def test_a_record_path_that_is_a_folder_is_refused_before_the_experiment(capsys, tmp_path, no_work):
    assert cli.main(["run", "ssn_games", "--record", str(tmp_path)]) == 2
    line = _one_line_error(capsys)
    assert "--record" in line and "is a folder" in line


def test_a_record_file_with_a_corrupt_line_is_refused_before_the_experiment(capsys, tmp_path, no_work):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(GOOD) + "\nnot a record\n" + json.dumps(GOOD) + "\n")
    with pytest.raises(RecordsError, match=r"r\.jsonl:2"):
        load_records(path, strict=True)
    assert cli.main(["run", "ssn_games", "--record", str(path)]) == 2
    assert f"{path}:2" in _one_line_error(capsys)
    assert cli.main(["sweep", "--papers", "ssn_games", "--record", str(path)]) == 2
    assert f"{path}:2" in _one_line_error(capsys)


def test_invalid_utf8_in_a_records_file_is_refused_naming_file_and_line(capsys, tmp_path, no_work):
    path = tmp_path / "r.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b"\n" + b'{"claim": "\xff"}\n')
    for strict in (True, False):
        with pytest.raises(RecordsError, match=rf"{path}:2 is not UTF-8"):
            load_records(path, strict=strict)
    assert cli.main(["run", "ssn_games", "--record", str(path)]) == 2
    assert f"{path}:2 is not UTF-8" in _one_line_error(capsys)


def test_list_on_a_corrupt_results_line_names_file_and_line(capsys, results):
    (results / "standard.jsonl").write_text(json.dumps(GOOD) + "\n{broken\n" + json.dumps(GOOD) + "\n")
    assert cli.main(["list"]) == 2
    assert f"{results / 'standard.jsonl'}:2" in _one_line_error(capsys)


@pytest.mark.parametrize("argv", [["list"], ["report"], ["readme"], ["docs"], ["rescore"],
                                  ["reproduce", "--papers", "ssn_games"], ["run", "ssn_games"]])
def test_a_results_path_that_is_a_folder_is_refused(argv, capsys, results, tmp_path, no_work):
    (results / "quick.jsonl").mkdir()
    if argv == ["report"]:
        argv = ["report", "--out", str(tmp_path)]
    assert cli.main(argv) == 2
    line = _one_line_error(capsys)
    assert "quick.jsonl" in line and "folder" in line


@pytest.mark.parametrize("name", ["margins.jsonl", "diagnostics.jsonl"])
def test_a_corrupt_margins_or_diagnostics_file_stops_run_before_the_experiment(name, capsys, results, no_work):
    (results / name).write_text("{}\n")
    assert cli.main(["run", "ssn_games"]) == 2
    assert f"{results / name}:1" in _one_line_error(capsys)


def test_reproduce_checks_the_results_before_running_notebooks(capsys, results, no_work):
    (results / "quick.jsonl").write_bytes(b"\xc3\x28\n")
    assert cli.main(["reproduce", "--papers", "ssn_games"]) == 2
    assert "is not UTF-8" in _one_line_error(capsys)


def test_report_out_to_a_missing_folder_is_an_error_not_an_empty_scoreboard(capsys, tmp_path):
    missing = tmp_path / "nope"
    assert cli.main(["report", "--out", str(missing)]) == 2
    assert "--out" in _one_line_error(capsys)
    assert not missing.exists()


def test_reproduce_out_that_is_a_file_is_refused(capsys, tmp_path, no_work):
    target = tmp_path / "build"
    target.write_text("x")
    assert cli.main(["reproduce", "--papers", "ssn_games", "--out", str(target)]) == 2
    assert "is a file" in _one_line_error(capsys)


def test_margins_out_that_is_a_folder_is_refused(capsys, tmp_path, no_work):
    assert cli.main(["margins", "ssn_games", "--out", str(tmp_path)]) == 2
    assert "--out" in _one_line_error(capsys)
