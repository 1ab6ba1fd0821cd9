import pytest
import torch

from icml26.papers.video_inpainting import baselines, method
from icml26.papers.video_inpainting.toyvideo import make_videos
from icml26.render.warp import compose_flows, fb_valid, warp, warp_video


def _data():
    return make_videos(2, frames=6, size=16, hole=6, sub_hole=2, generator=torch.Generator().manual_seed(0))


def test_integer_warp_on_torus_is_roll():
    x = torch.randn(1, 1, 9, 9)
    fl = torch.zeros(1, 2, 9, 9)
    fl[:, 0], fl[:, 1] = 2, -1
    assert torch.allclose(warp(x, fl, padding="periodic"), x.roll((1, -2), (-2, -1)), atol=1e-5)


def test_compose_and_fb_check():
    u = torch.full((1, 2, 8, 8), 1.0)
    assert torch.allclose(compose_flows(u, u), 2 * u)
    assert fb_valid(u, -u, padding="periodic").min() == 1
    assert fb_valid(u, u, padding="periodic").max() == 0


def test_gt_ewarp_is_zero_and_groups_partition_hole():
    d = _data()
    assert method.e_warp(d["video"], d["flows"], d["valid"], d["mask"], padding="periodic") < 1e-10
    assert torch.equal(d["recoverable"] + d["never"], d["mask"])


def test_controller_contracts_toward_reference():
    d = _data()
    x0 = torch.randn_like(d["video"])
    c = method.TemporalController(d["mask"], d["known"], d["flows"], d["valid"], mode="uniform", padding="periodic",
                                  lam=1.0, t_lo=0.0, t_hi=1.0)
    before = method.e_warp(d["mask"] * x0 + (1 - d["mask"]) * d["known"], d["flows"], d["valid"], d["mask"],
                           padding="periodic")
    y = c.on_step(0, x0, x0, {"step": 0, "n_steps": 2})
    after = method.e_warp(d["mask"] * y + (1 - d["mask"]) * d["known"], d["flows"], d["valid"], d["mask"],
                          padding="periodic")
    assert after < before
    assert torch.allclose((1 - d["mask"]) * y, (1 - d["mask"]) * x0)  # only hole pixels move


def test_monitor_leaves_estimate_and_anchors():
    d = _data()
    x0 = torch.randn_like(d["video"])
    c = method.TemporalController(d["mask"], d["known"], d["flows"], d["valid"], mode="monitor", padding="periodic")
    assert torch.equal(c.on_step(0, x0, x0, {"step": 0, "n_steps": 2}), x0)
    assert method.anchor_set(9, 4) == [0, 4, 8] and method.anchor_set(6, 4) == [0, 4, 5]


def test_flow_propagation_exact_on_recoverable():
    d = _data()
    out = baselines.flow_propagation(d["known"], d["mask"], d["flows"], d["valid"], torch.zeros_like(d["video"]),
                                     padding="periodic")
    r = d["recoverable"].bool().expand_as(out)
    assert torch.allclose(out[r], d["video"][r], atol=1e-4)


def test_warped_noise_is_consistent():
    d = _data()
    z = baselines.warped_noise(torch.randn(2, 1, 16, 16), d["flows"][:, :, 0].contiguous())
    assert method.e_warp(z, d["flows"], d["valid"], padding="periodic") < 1e-10


def test_bad_inputs():
    d = _data()
    with pytest.raises(ValueError, match="mode"):
        method.TemporalController(d["mask"], d["known"], d["flows"], d["valid"], mode="x")
    with pytest.raises(ValueError, match="flow"):
        warp(torch.zeros(1, 1, 4, 4), torch.zeros(1, 3, 4, 4))
    with pytest.raises(ValueError, match="padding"):
        warp_video(torch.zeros(1, 1, 1, 4, 4), torch.zeros(1, 1, 2, 4, 4), padding="wrap")
    with pytest.raises(ValueError, match="hole"):
        make_videos(1, size=8, hole=8)
    with pytest.raises(ValueError, match="integer"):
        baselines.warped_noise(torch.zeros(1, 1, 4, 4), torch.full((1, 2, 2, 4, 4), 0.5))
