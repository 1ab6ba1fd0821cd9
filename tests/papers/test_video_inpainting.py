import pytest
import torch

from icml26.papers.video_inpainting import baselines, experiment, flowest, method
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


def test_visibility_maps_match_a_brute_force_loop():
    """recoverable = hole pixels whose texture coordinate is unmasked in SOME frame (plain Python loops)."""
    d = make_videos(3, frames=7, size=12, hole=5, sub_hole=2, generator=torch.Generator().manual_seed(3))
    B, Fn, _, H, W = d["mask"].shape
    mask, vt = d["mask"][:, :, 0].bool(), d["v_tex"]
    for b in range(B):
        vx, vy = int(vt[b, 0]), int(vt[b, 1])
        seen = set()
        for f in range(Fn):
            for y in range(H):
                for x in range(W):
                    if not mask[b, f, y, x]:
                        seen.add(((y - f * vy) % H, (x - f * vx) % W))   # texture coordinate of pixel (y, x)
        for f in range(Fn):
            for y in range(H):
                for x in range(W):
                    tex = ((y - f * vy) % H, (x - f * vx) % W)
                    hole = bool(mask[b, f, y, x])
                    assert bool(d["recoverable"][b, f, 0, y, x]) == (hole and tex in seen)
                    assert bool(d["never"][b, f, 0, y, x]) == (hole and tex not in seen)
    assert d["never"].sum() > 0 and d["recoverable"].sum() > 0


def test_risk_accumulates_only_inside_the_window():
    d = _data()
    c = method.TemporalController(d["mask"], d["known"], d["flows"], d["valid"], mode="monitor", padding="periodic",
                                  tau=0.0, t_lo=0.2, t_hi=0.5)
    x0 = torch.randn_like(d["video"])
    for i in range(10):
        c.on_step(0, x0 * (0.1 if i == 0 else 1.0), x0, {"step": i, "n_steps": 10})
    outside = [i for i in range(10) if 1 - i / 10 > 0.5]
    assert outside == [0, 1, 2, 3, 4]
    assert all(float(c.risk[i].abs().max()) == 0 for i in outside)      # no risk before the window opens
    assert float(c.risk[5].min()) > 0                                   # it starts accumulating inside


def test_uniform_frontier_interpolates_and_clamps():
    plain = {"e_warp": 1.0, "hf": 1.0}
    sweep = [{"lam": 0.5, "e_warp": 0.5, "hf": 0.6}, {"lam": 1.0, "e_warp": 0.2, "hf": 0.3}]
    at = experiment.uniform_frontier_at(plain, sweep, 0.75)
    assert at["lam"] == pytest.approx(0.25) and at["hf"] == pytest.approx(0.8) and not at["clamped"]
    low = experiment.uniform_frontier_at(plain, sweep, 0.1)
    assert low["clamped"] and low["hf"] == pytest.approx(0.3)


TINY = dict(n_videos=1, noise_seeds=1, frames=6, size=12, channels=1, hole=5, sub_hole=2, T=40, steps=10,
            flows="estimated", uniform_lams=[0.5], post_hoc_lam=0.5, long_k=2, controller={"norm": "variance"})


def test_calibrate_trigger_uses_development_seeds_and_its_rule():
    with pytest.raises(ValueError, match="development"):
        experiment.calibrate_trigger(TINY, "cpu", [0])
    cal = experiment.calibrate_trigger(TINY, "cpu", [100], factors=[0.0, 1.0], budget=1.0, min_hf=0.0)
    assert cal["rho"] == cal["median"] > 0
    assert [r["tau"] for r in cal["rows"]] == pytest.approx([0.0, cal["median"]])
    best = max(cal["rows"], key=lambda r: r["reduction"])                # every row qualifies under these limits
    assert cal["tau"] == pytest.approx(best["tau"])
    strict = experiment.calibrate_trigger(TINY, "cpu", [100], factors=[0.0, 1.0], budget=0.0, min_hf=0.0)
    ok = [r for r in strict["rows"] if r["fraction"] <= 0.0]             # nothing may fire: the largest factor wins
    assert strict["tau"] == pytest.approx(max(ok, key=lambda r: r["reduction"])["tau"] if ok else strict["median"])


def test_tsi_raster_never_fires_on_anchors():
    d = experiment.setup(TINY, "cpu", 0)
    c = experiment.controller(d, "tsi", norm="variance", tau=0.0, rho=0.01)
    experiment.sample(d, 10, c)
    r = c.trigger_raster()
    assert not r[:, :, c.is_anchor.cpu()].any() and r.any()


def test_block_match_recovers_an_integer_shift_up_to_its_subpixel_fit():
    """A masked frame pair shifted by (2, -1): the integer part is exact where the patch is observed, the parabola
    fit moves it by less than half a pixel, and unobserved pixels take the pair's median (confidence 0)."""
    g = torch.Generator().manual_seed(0)
    a = torch.randn(2, 1, 16, 16, generator=g)
    a = (a + a.roll(1, -1) + a.roll(1, -2)) / 3                        # a little spatial correlation
    b = a.roll((1, 2), (-2, -1))                                       # b(p + (2, 1)) = a(p): u^{a->b} = (2, 1)
    ka = torch.ones(2, 1, 16, 16)
    ka[:, :, 4:12, 4:12] = 0                                           # a hole larger than the patch
    flow, conf = flowest.block_match(a, ka, b, torch.ones_like(ka), max_disp=2, radius=2)
    true = torch.tensor([2.0, 1.0]).view(1, 2, 1, 1)
    assert (flow - true).abs().max() < 0.5 and (flow - true).abs().mean() < 0.2
    assert conf[:, :, 8, 8].eq(0).all() and conf[:, :, 0, 0].eq(1).all()
    assert not torch.equal(flow, true.expand_as(flow))                 # sub-pixel fit: an estimate, not the oracle


def test_compose_all_pairs_of_constant_steps_and_estimated_flows():
    v = torch.tensor([1.0, -2.0]).view(1, 1, 2, 1, 1).expand(1, 4, 2, 8, 8).contiguous()
    fl = flowest.compose_all_pairs(v, -v, padding="periodic")
    for a in range(5):
        for b in range(5):
            assert torch.allclose(fl[:, a, b], (b - a) * v[:, 0], atol=1e-5)
    assert flowest.all_pairs_valid(fl, padding="periodic").min() == 1
    d = make_videos(2, frames=6, size=16, hole=6, sub_hole=2, generator=torch.Generator().manual_seed(1))
    est = flowest.estimate_flows(d["known"], d["mask"])
    err = (est["flows"] - d["flows"]).norm(dim=3)
    assert 0 < float(err.mean()) < 0.25 and est["valid"].mean() > 0.9


def test_estimated_setting_feeds_every_method_and_keeps_exact_metrics():
    d = experiment.setup(TINY, "cpu", 0)
    assert not torch.equal(d["flows"], d["flows_true"]) and d["flow_epe"] > 0
    o = experiment.oracle(d)
    assert torch.equal(o["flows"], d["flows_true"]) and o["flow_epe"] == 0
    m = experiment.metrics(d, d["video"], 2)
    assert m["e_warp"] < 1e-10                                         # metrics measure with the exact flows
    ex = experiment.setup(dict(TINY, flows="exact"), "cpu", 0)
    assert torch.equal(ex["flows"], ex["flows_true"]) and torch.equal(ex["z_T_warped"], o["z_T_warped"])


def test_block_match_without_wrap_finds_the_shift_inside_the_frame():
    """padding="border": shifted copies come from a padded frame, and outside the frame counts as unobserved."""
    g = torch.Generator().manual_seed(1)
    a = torch.randn(1, 1, 20, 20, generator=g)
    a = (a + a.roll(1, -1) + a.roll(1, -2)) / 3
    b = a.roll((-1, 1), (-2, -1))                                      # u^{a->b} = (+1, -1) away from the wrap
    ones = torch.ones(1, 1, 20, 20)
    flow, conf = flowest.block_match(a, ones, b, ones, max_disp=2, radius=2, padding="border")
    inner = (slice(None), slice(None), slice(5, 15), slice(5, 15))
    true = torch.tensor([1.0, -1.0]).view(1, 2, 1, 1)
    assert (flow[inner] - true).abs().max() < 0.5 and conf[inner].eq(1).all()


def test_headline_control_never_corrects_and_equals_plain_sampling():
    """C2's negative control: TSI with its trigger disabled (rho = NEVER_RHO) fires nowhere, so its samples are plain
    sampling's, and C2's metric reads 0 on it (it can never pass C2's test, > 0 beyond the margin)."""
    from icml26.papers.video_inpainting import claims

    d = experiment.setup(TINY, "cpu", 0)
    off = experiment.controller(d, "tsi", norm="variance", tau=0.0, rho=experiment.NEVER_RHO)
    y_off = experiment.sample(d, 10, off)
    y_plain = experiment.sample(d, 10, experiment.controller(d, "monitor", norm="variance", tau=0.0))
    assert not off.trigger_raster().any() and torch.equal(y_off, y_plain)
    r = {"methods": {"plain": experiment.metrics(d, y_plain, 2), "tsi_no_trigger": experiment.metrics(d, y_off, 2)}}
    assert claims.c2_control(r) == 0.0
