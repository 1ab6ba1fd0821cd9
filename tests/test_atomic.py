import os

import pytest

from icml26 import atomic


def test_write_is_whole_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "a.json"
    atomic.write_json(target, {"a": 1})
    assert atomic.read_json(target) == {"a": 1}
    assert os.listdir(target.parent) == ["a.json"]


def test_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "a.txt"
    atomic.write_text(target, "old")
    with pytest.raises(TypeError):
        atomic.write_json(target, {"bad": object()})
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["a.txt"]


def test_read_json_defaults_on_missing_or_corrupt(tmp_path):
    assert atomic.read_json(tmp_path / "none.json", default=[]) == []
    (tmp_path / "bad.json").write_text("{not json")
    assert atomic.read_json(tmp_path / "bad.json", default="d") == "d"


def test_nan_is_written_as_null_for_strict_readers(tmp_path):
    import json

    target = atomic.write_json(tmp_path / "n.json", {"x": float("nan"), "y": [1.0, float("inf")]})
    assert json.loads(target.read_text()) == {"x": None, "y": [1.0, None]}
