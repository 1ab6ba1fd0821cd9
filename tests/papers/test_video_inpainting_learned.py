"""The learned denoiser of video_inpainting: its interface, its shipped weights and the learned experiment stage."""

import hashlib
from pathlib import Path

import pytest
import torch

from icml26.diffusion import WienerDenoiser, cosine_alpha_bar, ddim_sample, ddim_timesteps, grf_spectrum, sample_grf
from icml26.papers.video_inpainting import experiment, learned, make_weights

TINY_L = dict(n_videos=1, noise_seeds=2, frames=4, size=24, channels=1, hole=8, sub_hole=3, T=50, steps=4,
              flows="estimated", uniform_lams=[0.5], post_hoc_lam=0.5, long_k=2, controller=experiment.TSI,
              learned=dict(model="quick", clips=1, controller=dict(experiment.TSI, tau=0.3, rho=1.0)))


def test_make_weights_small_reproduces_itself(tmp_path):
    """``make_weights --small`` trains one model per size; a second run writes the same bytes (fixed seed)."""
    first = make_weights.main(["--out", str(tmp_path / "a"), "--small"])
    second = make_weights.main(["--out", str(tmp_path / "b"), "--small"])
    models, spec = learned.read(tmp_path / "a" / "denoiser.safetensors", first)
    again, _ = learned.read(tmp_path / "b" / "denoiser.safetensors")
    assert set(models) == set(learned.SIZES) and spec["recipe"]["steps"] == learned.SMALL["steps"]
    for name in models:
        assert models[name].size == learned.SIZES[name]
        for (k, v), (_, w) in zip(models[name].state_dict().items(), again[name].state_dict().items()):
            assert torch.allclose(v, w, atol=1e-6), k
    assert first == second  # byte-deterministic: one JSON metadata entry, sorted keys


def test_shipped_weights_are_checked_small_and_package_data(tmp_path):
    assert learned.WEIGHTS.suffix == ".safetensors" and learned.WEIGHTS.stat().st_size < 600_000
    assert hashlib.sha256(learned.WEIGHTS.read_bytes()).hexdigest() == learned.SHA256
    bad = tmp_path / "denoiser.safetensors"
    data = bytearray(learned.WEIGHTS.read_bytes())
    data[-1] ^= 1
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        learned.read(bad, learned.SHA256)
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    section = pyproject.split("[tool.setuptools.package-data]")[1].splitlines()
    assert '"**/*.safetensors"' in next(line for line in section if line.startswith("icml26 ="))


def test_learned_denoiser_has_the_wiener_interface_and_batches():
    ab = cosine_alpha_bar(50)
    den = learned.LearnedDenoiser(learned.load("quick"), ab, chunk=5)
    z = torch.randn(2, 3, 1, 24, 24)
    eps = den(z, 25)
    assert eps.shape == z.shape and torch.isfinite(eps).all()
    one = den(z[1, 2], 25)  # each frame alone gives the same answer as in the batch
    assert torch.allclose(eps[1, 2], one, atol=1e-5)
    x0 = den.x0(z, 25)
    assert torch.allclose(eps, (z - ab[25].float().sqrt() * x0) / (1 - ab[25].float()).sqrt(), atol=1e-4)
    out = ddim_sample(den, ab, 5, torch.randn(1, 2, 1, 24, 24, generator=torch.Generator().manual_seed(0)))
    assert out.shape == (1, 2, 1, 24, 24) and torch.isfinite(out).all()
    with pytest.raises(ValueError, match="t must"):
        den(z, 50)


def test_shipped_model_is_close_to_the_exact_score():
    """The quick model's x0 error is within 5% of the exact Wiener filter's (the MMSE) on fresh frames."""
    ab = cosine_alpha_bar(200)
    S = grf_spectrum(24, 24)
    g = torch.Generator().manual_seed(12345)
    x = sample_grf((64, 1), S, generator=g).float()
    err = learned.x0_error(learned.LearnedDenoiser(learned.load("quick"), ab), x, S, ab, ddim_timesteps(200, 10),
                           generator=g)
    assert 1.0 - 1e-3 < err["ratio"] < 1.05
    exact = learned.x0_error(WienerDenoiser(S, ab), x, S, ab, ddim_timesteps(200, 10),
                             generator=torch.Generator().manual_seed(1))
    assert exact["ratio"] == pytest.approx(1.0, abs=1e-5)  # the exact score against itself


def test_learned_stage_uses_the_clip_subset_and_the_learned_denoiser():
    d = experiment.setup(TINY_L, "cpu", 0)
    L = experiment.learned_data(d, TINY_L, "cpu")
    assert L["video"].shape[0] == 1 and torch.equal(L["z_T"], d["z_T"][:1])
    assert isinstance(L["denoiser"], learned.LearnedDenoiser) and isinstance(d["denoiser"], WienerDenoiser)
    res = experiment.learned_stage(d, TINY_L, "cpu", 0)
    assert set(res["methods"]) == {"plain", "gt", "tsi", "warped_noise", "flow_propagation"}
    assert res["clips"] == 1 and res["methods"]["gt"]["e_warp"] < 1e-10 and res["x0_error"]["ratio"] > 0
    with pytest.raises(ValueError, match="learned"):
        experiment.learned_data(d, dict(TINY_L, learned=None), "cpu")
    with pytest.raises(ValueError, match="size"):
        experiment.setup(dict(TINY_L, size=16, hole=6), "cpu", 0)
