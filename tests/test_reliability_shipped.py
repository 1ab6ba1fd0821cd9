"""Issue 82: shipped-file caches are keyed by the file's hash, so a file changed after the first load is re-checked."""

import shutil

import pytest
import torch

from icml26 import shipped
from icml26.papers.otp_fm import explorer_models
from icml26.papers.video_inpainting import learned


def _tamper(path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01  # the last byte is tensor data: the header still parses, the checksum does not
    path.write_bytes(bytes(data))


def test_cached_loads_once_per_file_content(tmp_path):
    path = tmp_path / "w.safetensors"
    calls = []

    def loader(p, scale):
        calls.append(p)
        return shipped.read(p)[0]["w"] * scale

    shipped.write(path, {"w": torch.ones(3)}, {})
    first = shipped.cached(loader, path, 2.0)
    assert shipped.cached(loader, path, 2.0) is first and len(calls) == 1
    shipped.write(path, {"w": torch.zeros(3)}, {})  # a re-trained file under the same name
    assert torch.equal(shipped.cached(loader, path, 2.0), torch.zeros(3)) and len(calls) == 2
    shipped.cached(loader, path, 3.0)  # other arguments: their own entry
    assert len(calls) == 3


def test_cached_passes_an_unreadable_file_to_the_loader(tmp_path):
    def loader(p):
        raise ValueError(f"path: no file at {p}")

    with pytest.raises(ValueError, match="no file at"):
        shipped.cached(loader, tmp_path / "missing.safetensors")


def test_cached_keeps_a_bounded_number_of_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "_CACHE", {})
    path = tmp_path / "w.safetensors"
    shipped.write(path, {"w": torch.ones(1)}, {})
    for i in range(shipped.CACHE_SIZE + 3):
        shipped.cached(lambda p, i: i, path, i)
    assert len(shipped._CACHE) == shipped.CACHE_SIZE


def test_otp_fm_explorer_weights_changed_after_loading_are_refused(tmp_path):
    path = tmp_path / "explorer.safetensors"
    shutil.copy(explorer_models.WEIGHTS, path)
    models = explorer_models.load_models(path, explorer_models.SHA256)
    assert explorer_models.load_models(path, explorer_models.SHA256) is models  # still cached while unchanged
    _tamper(path)
    with pytest.raises(ValueError, match="checksum"):
        explorer_models.load_models(path, explorer_models.SHA256)


def test_video_inpainting_weights_changed_after_loading_are_refused(tmp_path, monkeypatch):
    path = tmp_path / "denoiser.safetensors"
    shutil.copy(learned.WEIGHTS, path)
    monkeypatch.setattr(learned, "WEIGHTS", path)
    model = learned.load("quick")
    assert learned.load("quick") is model
    _tamper(path)
    with pytest.raises(ValueError, match="checksum"):
        learned.load("quick")
