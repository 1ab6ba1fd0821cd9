"""Tests of paper 16 (Creat3r): DLT, the NCC and oracle matchers, confidence, Gaussian projection, scores,
selectors, the information-leak guard, the 3DGS trainer (density control), the tiled rasteriser's backward, SSIM
against scikit-image, and the experiment's summaries."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.creat3r_nbv import baselines, experiment, geometry, gs_fit, matching, method, scenes
from icml26.papers.creat3r_nbv.claims import CLAIMS
from icml26.papers.creat3r_nbv.method import Creat3rConfig
from icml26.render import intrinsics, look_at, make_scene, project, render
from icml26.render.gaussians import rasterize
from icml26.render.image_metrics import psnr, ssim


def small_cams(n=12, size=32, seed=0):
    return scenes.shell_poses(n, torch.Generator().manual_seed(seed), size)


@pytest.fixture(scope="module")
def store():
    cams = small_cams(12, 40)
    s = scenes.ViewStore(scenes.make_nbv_scene("occluder", 0), cams)
    for v in experiment.seed_views(cams):
        s.select(v)
    s.select(5)
    return s


# ------------------------------------------------------------------ triangulation

@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5))
def test_dlt_recovers_points_from_exact_projections(seed, views):
    gen = torch.Generator().manual_seed(seed)
    X = torch.randn(20, 3, generator=gen, dtype=torch.float64) * 0.5
    ang = torch.rand(views, generator=gen, dtype=torch.float64) * 2 * math.pi
    eye = torch.stack([3 * ang.cos(), 3 * ang.sin(), 1.0 + torch.rand(views, generator=gen, dtype=torch.float64)], -1)
    R, t = look_at(eye, torch.zeros(3, dtype=torch.float64))
    cams = scenes.Cameras(intrinsics(64, 64, 60.0, dtype=torch.float64), R, t, 64, 64)
    uv, _ = project(X, cams.K, R, t)
    est = geometry.triangulate_dlt(uv, geometry.projection_matrices(cams))
    angle = geometry.triangulation_angle(X, cams.centers, torch.ones(views, 20, dtype=torch.bool))
    good = angle > 2.0
    assert torch.allclose(est[good], X[good], atol=1e-6)


def test_dlt_with_mask_ignores_unobserved_views_and_needs_two():
    R, t = look_at(torch.tensor([[3.0, 0, 1], [0, 3.0, 1], [-3.0, 0.5, 1]], dtype=torch.float64),
                   torch.zeros(3, dtype=torch.float64))
    cams = scenes.Cameras(intrinsics(64, 64, 60.0, dtype=torch.float64), R, t, 64, 64)
    X = torch.tensor([[0.1, -0.2, 0.3], [0.0, 0.1, 0.0]], dtype=torch.float64)
    uv, _ = project(X, cams.K, R, t)
    uv[2, 0] += 25.0                                    # a corrupt observation, masked out below
    mask = torch.tensor([[True, True], [True, False], [False, False]])
    est = geometry.triangulate_dlt(uv, geometry.projection_matrices(cams), mask)
    assert torch.allclose(est[0], X[0], atol=1e-8)
    assert bool(torch.isnan(est[1]).all())
    with pytest.raises(ValueError, match="P"):
        geometry.triangulate_dlt(uv, torch.zeros(2, 3, 4))


def test_hartley_normalisation_makes_dlt_invariant_to_pixel_offset():
    R, t = look_at(torch.tensor([[3.0, 0, 1], [2.9, 0.3, 1]], dtype=torch.float64), torch.zeros(3, dtype=torch.float64))
    K = intrinsics(64, 64, 60.0, dtype=torch.float64)
    X = torch.tensor([[0.2, 0.1, 0.3]], dtype=torch.float64)
    cams = scenes.Cameras(K, R, t, 64, 64)
    uv, _ = project(X, K, R, t)
    K2 = K.clone()
    K2[:2, 2] += 5000.0
    cams2 = scenes.Cameras(K2, R, t, 64, 64)
    a = geometry.triangulate_dlt(uv + 0.3, geometry.projection_matrices(cams))
    b = geometry.triangulate_dlt(uv + 0.3 + 5000.0, geometry.projection_matrices(cams2))
    assert torch.allclose(a, b, atol=1e-6)


def test_pixel_ray_and_box_interval():
    cams = small_cams(3, 32, 4)
    X = torch.tensor([[0.1, -0.2, 0.4], [0.3, 0.2, 0.1]])
    uv, z = project(X, cams.K, cams.rot, cams.trans)
    o, d = geometry.pixel_ray(cams, uv)
    t = ((X[None] - o[:, None]) * d).sum(-1)
    assert torch.allclose(o[:, None] + t[..., None] * d, X[None].expand(3, -1, -1), atol=1e-4)
    t0, t1, hit = geometry.box_interval(o[:, None], d)
    assert bool(hit.all()) and bool(((t0 <= t) & (t <= t1)).all())


# ------------------------------------------------------------------ matchers

def _gt_points(st_, views, uv, anchor):
    gt = scenes.render_views(st_.scene, st_.cams[views], supersample=1)["point"]
    a_uv = uv[anchor, torch.arange(uv.shape[1])]
    h, w = gt.shape[1:3]
    return gt[anchor, a_uv[:, 1].long().clamp(0, h - 1), a_uv[:, 0].long().clamp(0, w - 1)]


def test_ncc_matcher_reads_only_selected_images_and_triangulates_the_surface():
    cams = small_cams(16, 48, 102)
    s = scenes.ViewStore(scenes.make_nbv_scene("alcove", 102), cams)
    views = experiment.seed_views(cams) + [7, 11]
    for v in views:
        s.select(v)
    uv, mask, anchor = matching.NCCMatcher().tracks(s, views)
    assert uv.shape[1] > 100 and bool(mask[anchor, torch.arange(uv.shape[1])].all())
    assert {k for k, _, _ in s.access_log} == {"rgb"} and s.leaks() == []      # images only, never depth
    X = geometry.triangulate_dlt(uv, geometry.projection_matrices(cams[views]), mask).float()
    g = _gt_points(s, views, uv, anchor)
    ok = torch.isfinite(X).all(-1) & torch.isfinite(g).all(-1)
    err = (X - g).norm(dim=-1)[ok]
    # about a pixel's footprint (4 cm here) for most points; NCC has outliers (filtered later by the confidence)
    assert float(err.median()) < 0.05 and float((err < 0.1).float().mean()) > 0.7


def test_ncc_plane_sweep_finds_a_textured_plane_at_sub_pixel_accuracy():
    """A textured wall seen by two cameras: nine in ten accepted matches of pixels on the wall lie within half a
    pixel of the projection of the true surface point."""
    scene = make_scene(["box"], [1], center=[[0.0, 0.0, 0.5]], size=[[0.05, 1.1, 0.5]], pattern=["checker"],
                       pattern_scale=[0.13], noise_amp=[0.4], generator=torch.Generator().manual_seed(3))
    R, t = look_at(torch.tensor([[2.5, -0.4, 0.6], [2.4, 0.5, 0.7]]), torch.tensor([0.0, 0.0, 0.5]))
    cams = scenes.Cameras(intrinsics(48, 48, 40.0), R, t, 48, 48)
    s = scenes.ViewStore(scene, cams)
    s.select(0)
    s.select(1)
    uv, mask, anchor = matching.NCCMatcher().tracks(s, [0, 1])
    assert uv.shape[1] > 80
    g = _gt_points(s, [0, 1], uv, anchor)
    other = 1 - anchor
    true_uv, _ = project(g, cams.K, cams.rot, cams.trans)
    i = torch.arange(uv.shape[1])
    err = (uv[other, i] - true_uv[other, i]).norm(dim=-1)[torch.isfinite(g).all(-1)]   # anchors on the wall
    assert err.numel() > 80 and float(err.quantile(0.9)) < 0.5


def test_oracle_matcher_without_noise_retriangulates_exactly(store):
    cfg = Creat3rConfig()
    gen = torch.Generator().manual_seed(0)
    gt = scenes.render_views(store.scene, store.cams[store.selected], supersample=1)["point"].reshape(-1, 3)
    gt = gt[torch.isfinite(gt).all(-1)]
    exact = method.build_point_cloud(store, store.selected, matching.OracleNoisyMatcher(noise_px=0.0, outliers=0.0),
                                     cfg, gen)
    assert exact["points"].shape[0] > 100
    assert float(torch.cdist(exact["points"], gt).amin(1).max()) < 1e-3


# ------------------------------------------------------------------ point cloud, confidence, maps

def test_point_cloud_lies_on_the_surface_and_confidence_in_unit_interval(store):
    cfg = Creat3rConfig()
    gen = torch.Generator().manual_seed(0)
    gt = scenes.render_views(store.scene, store.cams[store.selected], supersample=1)["point"].reshape(-1, 3)
    gt = gt[torch.isfinite(gt).all(-1)]
    cloud = method.build_point_cloud(store, store.selected, matching.NCCMatcher(), cfg, gen)
    assert cloud["points"].shape[0] > 50
    d = torch.cdist(cloud["points"], gt).amin(1)
    assert float(d.median()) < 0.05
    conf = method.point_confidence(cloud["points"], store, store.selected, cfg)
    assert bool(((conf["w"] >= 0) & (conf["w"] <= 1)).all())
    assert bool((conf["support"] >= 1).float().mean() > 0.9)
    # points far from the surface are less colour-consistent across views than points on it
    far = d > 0.1
    if int(far.sum()) >= 5:
        assert float(conf["phi_c"][far].mean()) < float(conf["phi_c"][~far].mean())


def test_support_grows_as_views_are_added():
    cams = small_cams(12, 32)
    s = scenes.ViewStore(scenes.make_nbv_scene("courtyard", 1), cams)
    for v in experiment.seed_views(cams):
        s.select(v)
    cfg = Creat3rConfig()
    gen = torch.Generator().manual_seed(0)
    pts = method.build_point_cloud(s, s.selected, matching.OracleNoisyMatcher(), cfg, gen)["points"]
    before = method.point_confidence(pts, s, s.selected, cfg)["support"].mean()
    for v in range(12):
        s.select(v)
    after = method.point_confidence(pts, s, s.selected, cfg)["support"].mean()
    assert after > before + 1.0


def test_gaussian_projection_maps_seen_regions_and_occlusion():
    """A wall of confident points in front of unconfident ones: with front-to-back compositing the map shows the
    wall's confidence; the order-free ablation leaks the hidden points' low confidence through."""
    K = intrinsics(16, 16, 60.0)
    R, t = torch.eye(3)[None], torch.zeros(1, 3)
    cams = scenes.Cameras(K, R, t, 16, 16)
    g = torch.linspace(-0.8, 0.8, 25)
    yy, xx = torch.meshgrid(g, g, indexing="ij")
    front = torch.stack([xx.reshape(-1), yy.reshape(-1), torch.full((625,), 2.0)], -1)
    back = front.clone()
    back[:, 2] = 3.0
    pts = torch.cat([front, back])
    w = torch.cat([torch.ones(625), torch.zeros(625)])
    r = torch.full((1250,), 0.08)
    occ = method.confidence_maps(pts, w, r, cams, occlusion=True)
    leak = method.confidence_maps(pts, w, r, cams, occlusion=False)
    centre = (slice(None), slice(5, 11), slice(5, 11))
    assert float(occ["A"][centre].min()) > 0.95
    assert float(occ["C"][centre].min()) > 0.95
    assert float(leak["C"][centre].max()) < 0.7
    assert torch.allclose(occ["E"], (1 - occ["A"]) + occ["A"] * (1 - occ["C"]))


def test_scores_hard_and_soft_forms():
    A = torch.tensor([[[0.0, 1.0]], [[1.0, 1.0]]])
    C = torch.tensor([[[0.0, 0.5]], [[1.0, 0.0]]])
    terms = method.view_scores(A, C, Creat3rConfig(lam=2.0))
    assert torch.allclose(terms["explore"], torch.tensor([0.5, 0.0]))
    assert torch.allclose(terms["refine"], torch.tensor([0.25, 0.5]))
    assert torch.allclose(terms["gate"], torch.tensor([0.25, 0.5]))
    assert torch.allclose(terms["score"], torch.tensor([1.0, 1.0]))
    soft = method.view_scores(A, C, Creat3rConfig(alpha=1.0))
    assert torch.allclose(soft["score"], terms["explore"])
    avail = torch.tensor([True, True])
    assert method.choose_view(torch.tensor([2.0, 1.0]), torch.tensor([0.05, 0.3]), 0.1, avail) == 1
    assert method.choose_view(torch.tensor([2.0, 1.0]), torch.tensor([0.05, 0.08]), 0.1, avail) == 1  # fallback


def test_roi_mask_marks_rays_that_meet_the_scene_box():
    cams = small_cams(4, 16)
    roi = method.roi_mask(cams)
    o, d, _ = __import__("icml26.render", fromlist=["pixel_rays"]).pixel_rays(cams.K, cams.rot, cams.trans, 16, 16)
    # a ray meets the box iff some point along it is inside (brute force over distances)
    ts = torch.linspace(0.0, 8.0, 800)
    pts = o[..., None, :] + ts[:, None] * d[..., None, :]
    lo, hi = torch.tensor(geometry.BOX_LO), torch.tensor(geometry.BOX_HI)
    inside = ((pts >= lo) & (pts <= hi)).all(-1).any(-1)
    assert (roi == inside).float().mean() > 0.98


# ------------------------------------------------------------------ selectors and the leak guard

def test_information_leak_hook_records_and_raises():
    cams = small_cams(8)
    s = scenes.ViewStore(scenes.make_nbv_scene("colonnade", 0), cams)
    s.select(0)
    s.image(0)
    with pytest.raises(scenes.InformationLeak):
        s.depth(3)
    lax = scenes.ViewStore(s.scene, cams, strict=False)
    lax.select(0)
    lax.image(4)
    assert lax.leaks() == [("rgb", 4)]


@pytest.mark.parametrize("name", ["creat3r", "creat3r_oracle", "random", "farthest", "coverage"])
def test_selectors_never_read_unselected_views(name):
    """The unit test that replaces the former ``no_information_leak`` claim: with a lax store every access to an
    unselected view is logged instead of raised, and none happens."""
    cams = small_cams(10, 32, 1)
    s = scenes.ViewStore(scenes.make_nbv_scene("courtyard", 0), cams, strict=False)
    sel = experiment.make_selector(name, experiment.CONFIGS["quick"])
    out = method.run_selection(sel, s, experiment.seed_views(cams), 3, torch.Generator().manual_seed(0))
    assert len(set(out["sequence"])) == 5
    assert s.leaks() == []


def test_a_leaking_selector_is_caught():
    class Peeker:
        name = "peeker"

        def select(self, store, gen):
            return int(torch.stack([store.image(i).mean() for i in range(len(store))]).argmax())

    cams = small_cams(6, 16)
    s = scenes.ViewStore(scenes.make_nbv_scene("occluder", 0), cams)
    with pytest.raises(scenes.InformationLeak):
        method.run_selection(Peeker(), s, [0, 1], 1, torch.Generator())


def test_fisher_selector_runs_without_leaks_and_is_deterministic():
    cams = small_cams(6, 24, 2)
    fit = gs_fit.FitConfig(iters=3, densify_until=0, init_gaussians=60)
    picks = []
    for _ in range(2):
        s = scenes.ViewStore(scenes.make_nbv_scene("occluder", 0), cams, strict=False)
        for v in (0, 1, 2):
            s.select(v)
        sel = baselines.FisherDiagSelector(fit, matcher=matching.OracleNoisyMatcher())
        picks.append(sel.select(s, torch.Generator().manual_seed(0)))
        assert s.leaks() == [] and picks[-1] not in (0, 1, 2)
    assert picks[0] == picks[1]


def test_farthest_view_picks_the_opposite_camera():
    eye = torch.tensor([[3.0, 0.0, 1.0], [2.9, 0.5, 1.0], [-3.0, 0.1, 1.0], [0.0, 3.0, 1.0]])
    R, t = look_at(eye, torch.tensor(scenes.SCENE_CENTRE))
    cams = scenes.Cameras(intrinsics(16, 16, 60.0), R, t, 16, 16)
    s = scenes.ViewStore(scenes.make_nbv_scene("occluder", 0), cams)
    s.select(0)
    s.select(1)
    assert baselines.FarthestViewSelector().select(s, torch.Generator()) == 2


# ------------------------------------------------------------------ 3DGS: rasteriser backward, metrics, trainer

def _random_gaussians(n, dtype, seed=0):
    gen = torch.Generator().manual_seed(seed)
    means = (torch.rand(n, 3, generator=gen, dtype=dtype) * 2 - 1) * 0.6
    log_s = torch.full((n, 3), -2.6, dtype=dtype) + 0.3 * torch.randn(n, 3, generator=gen, dtype=dtype)
    return [means, log_s, torch.randn(n, 4, generator=gen, dtype=dtype), torch.randn(n, generator=gen, dtype=dtype),
            torch.rand(n, 3, generator=gen, dtype=dtype)]


def test_tiled_hand_written_backward_matches_dense_autograd():
    """The tiled path's custom backward (and its grouping of blocks) gives the gradients of plain autograd through
    the dense reference, including the screen-space offset that density control reads."""
    dtype = torch.float64
    g = _random_gaussians(80, dtype)
    R, t = look_at(torch.tensor([[2.2, 0.4, 0.9], [-0.5, 2.4, 1.2]], dtype=dtype), torch.zeros(3, dtype=dtype))
    K = intrinsics(28, 20, 50.0, dtype=dtype)
    w = torch.rand(2, 20, 28, 3, generator=torch.Generator().manual_seed(1), dtype=dtype)
    grads = []
    for tile in (None, 4, 8):
        xs = [x.clone().requires_grad_(True) for x in g]
        off = torch.zeros(2, 80, 2, dtype=dtype, requires_grad=True)
        out = rasterize(*xs, K, R, t, 28, 20, tile=tile, screen_offset=off, background=(0.1, 0.2, 0.3))
        ((out["rgb"] * w).sum() + out["depth"].sum() * 0.1 + out["alpha"].sum() * 0.5).backward()
        grads.append([x.grad for x in xs] + [off.grad])
    for tiled in grads[1:]:
        for a, b in zip(grads[0], tiled):
            assert torch.allclose(a, b, atol=1e-8, rtol=1e-6)


def test_ssim_matches_scikit_image_and_psnr_identity():
    from skimage.metrics import structural_similarity

    gen = torch.Generator().manual_seed(0)
    x = torch.rand(3, 3, 24, 30, generator=gen, dtype=torch.float64)
    y = (x + 0.15 * torch.randn(x.shape, generator=gen, dtype=torch.float64)).clamp(0, 1)
    ours = ssim(x, y)
    ref = torch.tensor([structural_similarity(x[i].permute(1, 2, 0).numpy(), y[i].permute(1, 2, 0).numpy(),
                                              gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
                                              data_range=1.0, channel_axis=2) for i in range(3)], dtype=torch.float64)
    assert torch.allclose(ours, ref, atol=1e-10)
    assert torch.allclose(psnr(x + 0.1, x), torch.full((3,), 20.0, dtype=torch.float64), atol=1e-9)
    with pytest.raises(ValueError, match="pred"):
        ssim(torch.full((1, 3, 12, 12), float("nan")), torch.zeros(1, 3, 12, 12))


def test_fit_improves_and_density_control_grows_and_prunes():
    cams = small_cams(4, 24, 3)
    sc = scenes.make_nbv_scene("alcove", 0)
    gt = scenes.render_views(sc, cams)
    pts = gt["point"][torch.isfinite(gt["depth"])][::9]
    cols = gt["rgb"][torch.isfinite(gt["depth"])][::9]
    gen = torch.Generator().manual_seed(0)
    g0 = gs_fit.init_gaussians(pts, cols, 150, gen)
    e0 = gs_fit.evaluate(g0, gt, cams)
    fit = gs_fit.FitConfig(iters=60, densify_from=20, densify_until=40, densify_every=20, grad_thresh=1e-5,
                           max_gaussians=400, init_gaussians=150)
    out = gs_fit.fit_gaussians(g0, gt["rgb"], cams, fit, gen, snapshots=[20, 60])
    e1 = gs_fit.evaluate(out["gaussians"], gt, cams)
    assert e1["psnr"] > e0["psnr"] + 0.5
    n = out["gaussians"]["means"].shape[0]
    assert 150 < n <= 400 and out["counts"][60] == n
    assert all(v.shape[0] == n for v in out["gaussians"].values())
    a = torch.tensor([[0.0, 0, 0], [1.0, 0, 0]])
    assert gs_fit.surface_f1(a, a, 0.1)["f1"] == 1.0
    assert gs_fit.surface_f1(a, a + 5.0, 0.1)["f1"] == 0.0


def test_split_keeps_adam_moments_aligned_with_the_parameters():
    """After a densification round every parameter and its Adam moments have the same number of rows, and the
    new rows start from zero moments."""
    gen = torch.Generator().manual_seed(0)
    params = {"means": torch.randn(6, 3), "log_scales": torch.full((6, 3), math.log(0.05)),
              "quats": torch.tensor([[1.0, 0, 0, 0]]).repeat(6, 1), "opacity_logits": torch.zeros(6),
              "colors": torch.rand(6, 3)}
    params = {k: v.requires_grad_(True) for k, v in params.items()}
    opt = torch.optim.Adam([{"params": [params[k]], "lr": 0.01} for k in gs_fit.PARAMS])
    sum(p.sum() for p in params.values()).backward()
    opt.step()
    grad = torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    params["opacity_logits"].data[4] = -10.0                          # pruned
    cfg = gs_fit.FitConfig(grad_thresh=0.5, split_scale=0.03)
    before = params["log_scales"].detach().exp().clone()
    means = params["means"].detach().clone()
    new = gs_fit._densify(params, opt, grad, cfg, gen)
    n = new["means"].shape[0]
    assert n == 5 + 3                                                # 5 kept, 3 split (scale 0.05 > 0.03)
    for group in opt.param_groups:
        p = group["params"][0]
        assert p.shape[0] == n and opt.state[p]["exp_avg"].shape[0] == n
        assert bool((opt.state[p]["exp_avg"][5:] == 0).all())
    assert torch.allclose(new["log_scales"][5:].exp(), before[[0, 2, 5]] / 1.6)
    # the two halves of a split sit symmetrically about the original mean
    assert torch.allclose(new["means"][[0, 2, 4]] + new["means"][5:], 2 * means[[0, 2, 5]], atol=1e-6)


# ------------------------------------------------------------------ experiment pieces and claims

def test_interval_matches_the_t_interval():
    from scipy import stats

    xs = [0.1, -0.05, 0.2, 0.03, 0.07]
    out = experiment.interval(xs)
    lo, hi = stats.t.interval(0.95, len(xs) - 1, loc=sum(xs) / 5, scale=stats.sem(xs))
    assert math.isclose(out["lo"], lo, rel_tol=1e-9) and math.isclose(out["hi"], hi, rel_tol=1e-9)
    assert experiment.interval([0.3])["n"] == 1 and math.isnan(experiment.interval([0.3])["lo"])


def test_coverage_curve_is_monotone_and_reaches_the_ceiling():
    cams = small_cams(8, 24, 5)
    gt = render(scenes.make_nbv_scene("occluder", 5), cams.K, cams.rot, cams.trans, 24, 24)
    pts = gt["point"].reshape(-1, 3)
    pts = pts[torch.isfinite(pts).all(-1)][::5]
    curve = experiment.coverage_curve(pts, list(range(8)), cams, gt["depth"])
    assert all(b >= a for a, b in zip(curve, curve[1:]))
    assert curve[-1] > 0.9


def test_bad_inputs_raise_value_errors():
    cams = small_cams(6)
    s = scenes.ViewStore(scenes.make_nbv_scene("occluder", 0), cams)
    with pytest.raises(ValueError, match="budget"):
        method.run_selection(baselines.RandomSelector(), s, [0, 1], 5, torch.Generator())
    with pytest.raises(ValueError, match="rot"):
        scenes.Cameras(cams.K, cams.rot * 1.5, cams.trans, 32, 32)
    empty = scenes.make_nbv_scene("occluder", 0).select(torch.zeros(4, dtype=torch.bool))
    with pytest.raises(ValueError, match="scene"):
        scenes.ViewStore(empty, cams)
    with pytest.raises(ValueError, match="name"):
        scenes.make_nbv_scene("nope")
    with pytest.raises(ValueError, match="alpha"):
        Creat3rConfig(alpha=2.0)
    with pytest.raises(ValueError, match="budget"):
        experiment.run(dict(experiment.CONFIGS["quick"], budget=40), "cpu", 0)
    with pytest.raises(ValueError, match="seeds"):
        method.run_selection(baselines.RandomSelector(), s, [0], 1, torch.Generator())
    with pytest.raises(ValueError, match="patch"):
        matching.NCCMatcher(patch=4)


def test_claims_cover_the_paper_and_are_all_paper_claims():
    ids = {c.id for c in CLAIMS}
    assert {"C1a_coverage_vs_random", "C1b_coverage_vs_farthest", "C2a_psnr_vs_random", "C2b_ssim_vs_random",
            "C2c_psnr_vs_farthest", "C3_f1_vs_random", "C4_fewer_views", "C5_selection_speedup",
            "C6_balance"} == ids
    assert all(c.kind == "paper" for c in CLAIMS if c.id != "C6_balance")
    assert next(c for c in CLAIMS if c.id == "C6_balance").kind == "extension"  # our inferred ablation
    head = [c for c in CLAIMS if c.headline]
    assert [c.id for c in head] == ["C2b_ssim_vs_random"] and head[0].control is not None
    summary = {"ssim": {"creat3r": 0.8, "random": 0.7, "farthest": 0.72}}
    assert head[0].control.metric({"summary": summary}) == pytest.approx(0.02)
    # C1a missed on the quick seeds 0-4: it is checked from standard on
    assert "quick" not in next(c for c in CLAIMS if c.id == "C1a_coverage_vs_random").threshold
    quality = [c for c in CLAIMS if c.id.startswith(("C2", "C3", "C4"))]
    assert all(c.requires is not None and c.requires.id == "fits_converged" for c in quality)
