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


def test_shipped_files_round_trip_deterministically_and_refuse_a_wrong_checksum(tmp_path):
    import pytest
    import torch

    from icml26 import shipped

    tensors, meta = {"a": torch.arange(3.0), "b": torch.ones(2, 2)}, {"spec": '{"x": 1}'}
    h1 = shipped.write(tmp_path / "1.safetensors", tensors, meta)
    h2 = shipped.write(tmp_path / "2.safetensors", tensors, meta)
    assert h1 == h2 and (tmp_path / "1.safetensors").read_bytes() == (tmp_path / "2.safetensors").read_bytes()
    state, got = shipped.read(tmp_path / "1.safetensors", h1)
    assert got == meta and torch.equal(state["a"], tensors["a"]) and torch.equal(state["b"], tensors["b"])
    with pytest.raises(ValueError, match="re-trained without updating the table"):
        shipped.read(tmp_path / "1.safetensors", "0" * 64, recorded_in="the table")
    (tmp_path / "bad.safetensors").write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{oops")
    with pytest.raises(ValueError, match="not a safetensors file"):
        shipped.read(tmp_path / "bad.safetensors")
