import random

import numpy as np
import pytest
import torch

from icml26 import runtime


def test_setup_seeds_every_generator_reproducibly():
    runtime.setup("quick", 7, "cpu")
    a = (random.random(), np.random.rand(), torch.rand(1).item())
    runtime.setup("quick", 7, "cpu")
    b = (random.random(), np.random.rand(), torch.rand(1).item())
    runtime.setup("quick", 8, "cpu")
    c = (random.random(), np.random.rand(), torch.rand(1).item())
    assert a == b
    assert a != c


def test_auto_device_is_cpu_without_cuda_and_never_initialises_cuda():
    rt = runtime.setup("quick", 0, "auto")
    assert rt.device.type in ("cpu", "mps")
    assert not torch.cuda.is_initialized()


def test_pick_by_scale_and_full_falls_back_to_standard():
    rt = runtime.setup("quick", 0, "cpu")
    assert rt.pick(quick=1, standard=2, full=3) == 1
    std = runtime.Runtime("standard", 0, torch.device("cpu"))
    assert std.pick(1, 2, 3) == 2
    full = runtime.Runtime("full", 0, torch.device("cpu"))
    assert full.pick(1, 2) == 2 and full.pick(1, 2, 3) == 3


@pytest.mark.parametrize("scale", ["", "ci", "QUICK", None])
def test_unknown_scale_is_a_value_error_listing_the_scales(scale):
    with pytest.raises(ValueError, match="quick, standard, full"):
        runtime.setup(scale, 0, "cpu")


@pytest.mark.parametrize("device", ["gpu", "tpu", 3])
def test_unknown_device_is_a_value_error(device):
    with pytest.raises(ValueError, match="device"):
        runtime.setup("quick", 0, device)


def test_cuda_requested_without_cuda_is_a_clear_error():
    with pytest.raises(ValueError, match="no CUDA"):
        runtime.choose_device("cuda")


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed"):
        runtime.setup("quick", seed, "cpu")


def test_full_without_cuda_stops_unless_forced(monkeypatch):
    monkeypatch.delenv("ICML26_ALLOW_CPU_FULL", raising=False)
    with pytest.raises(runtime.ScaleError, match="CUDA"):
        runtime.setup("full", 0, "auto")
    assert runtime.setup("full", 0, "cpu", allow_cpu=True).scale == "full"
    monkeypatch.setenv("ICML26_ALLOW_CPU_FULL", "1")
    assert runtime.setup("full", 0, "cpu").scale == "full"


def test_generator_is_seeded_per_offset():
    rt = runtime.setup("quick", 3, "cpu")
    x = torch.rand(3, generator=rt.generator())
    y = torch.rand(3, generator=rt.generator())
    z = torch.rand(3, generator=rt.generator(1))
    assert torch.equal(x, y) and not torch.equal(x, z)
