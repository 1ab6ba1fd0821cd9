"""Tests of paper 16 (Creat3r): DLT triangulation, confidence, Gaussian projection, scores, selectors, leakage."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.creat3r_nbv import baselines, experiment, gs_fit, method, scenes
from icml26.papers.creat3r_nbv.claims import CLAIMS
from icml26.papers.creat3r_nbv.method import Creat3rConfig
from icml26.render import intrinsics, look_at, project


def small_cams(n=12, size=32, seed=0):
    return scenes.shell_poses(n, torch.Generator().manual_seed(seed), size)


@pytest.fixture(scope="module")
def store():
    cams = small_cams()
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
    est = method.triangulate_dlt(uv, method.projection_matrices(cams))
    angle = method.triangulation_angle(X, cams.centers, torch.ones(views, 20, dtype=torch.bool))
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
    est = method.triangulate_dlt(uv, method.projection_matrices(cams), mask)
    assert torch.allclose(est[0], X[0], atol=1e-8)
    assert bool(torch.isnan(est[1]).all())
    with pytest.raises(ValueError, match="P"):
        method.triangulate_dlt(uv, torch.zeros(2, 3, 4))


def test_hartley_normalisation_makes_dlt_invariant_to_pixel_offset():
    """DLT with and without a shift of all pixel coordinates (and K) gives the same point: the normalisation
    removes the dependence on the pixel frame that an unnormalised SVD has."""
    R, t = look_at(torch.tensor([[3.0, 0, 1], [2.9, 0.3, 1]], dtype=torch.float64), torch.zeros(3, dtype=torch.float64))
    K = intrinsics(64, 64, 60.0, dtype=torch.float64)
    X = torch.tensor([[0.2, 0.1, 0.3]], dtype=torch.float64)
    cams = scenes.Cameras(K, R, t, 64, 64)
    uv, _ = project(X, K, R, t)
    K2 = K.clone()
    K2[:2, 2] += 5000.0
    cams2 = scenes.Cameras(K2, R, t, 64, 64)
    a = method.triangulate_dlt(uv + 0.3, method.projection_matrices(cams))
    b = method.triangulate_dlt(uv + 0.3 + 5000.0, method.projection_matrices(cams2))
    assert torch.allclose(a, b, atol=1e-6)


# ------------------------------------------------------------------ point cloud, confidence, maps

def test_point_cloud_lies_on_the_surface_and_confidence_in_unit_interval(store):
    cfg = Creat3rConfig()
    gen = torch.Generator().manual_seed(0)
    gt = scenes.render_views(store.scene, store.cams[store.selected], supersample=1)["point"].reshape(-1, 3)
    gt = gt[torch.isfinite(gt).all(-1)]
    # noise-free matches re-triangulate exactly the ray-cast points of the anchor pixels
    exact = method.build_point_cloud(store, store.selected, method.OracleNoisyMatcher(noise_px=0.0, outliers=0.0),
                                     cfg, gen)
    assert float(torch.cdist(exact["points"], gt).amin(1).max()) < 1e-3
    cloud = method.build_point_cloud(store, store.selected, method.OracleNoisyMatcher(), cfg, gen)
    assert cloud["points"].shape[0] > 100
    # with 0.5 px noise and 5% outliers (filtered), points stay within about a pixel's footprint (~0.1 m here)
    d = torch.cdist(cloud["points"], gt).amin(1)
    assert float(d.median()) < 0.06 and float(d.quantile(0.95)) < 0.25
    conf = method.point_confidence(cloud["points"], store, store.selected, cfg)
    assert bool(((conf["w"] >= 0) & (conf["w"] <= 1)).all())
    assert bool((conf["support"] >= 1).float().mean() > 0.9)


def test_support_grows_as_views_are_added():
    cams = small_cams()
    s = scenes.ViewStore(scenes.make_nbv_scene("open_box", 1), cams)
    for v in experiment.seed_views(cams):
        s.select(v)
    cfg = Creat3rConfig()
    gen = torch.Generator().manual_seed(0)
    pts = method.build_point_cloud(s, s.selected, method.OracleNoisyMatcher(), cfg, gen)["points"]
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


# ------------------------------------------------------------------ selectors, leakage, loop

def test_information_leak_hook_records_and_raises():
    cams = small_cams(8)
    s = scenes.ViewStore(scenes.make_nbv_scene("thin_plate", 0), cams)
    s.select(0)
    s.image(0)
    with pytest.raises(scenes.InformationLeak):
        s.depth(3)
    lax = scenes.ViewStore(s.scene, cams, strict=False)
    lax.select(0)
    lax.image(4)
    assert lax.leaks() == [("rgb", 4)]


@pytest.mark.parametrize("name", ["creat3r", "random", "farthest", "coverage"])
def test_selectors_never_read_unselected_views(name):
    cams = small_cams(10, 32, 1)
    s = scenes.ViewStore(scenes.make_nbv_scene("open_box", 0), cams, strict=False)
    sel = experiment.make_selector(name, experiment.CONFIGS["quick"])
    out = method.run_selection(sel, s, experiment.seed_views(cams), 3, torch.Generator().manual_seed(0))
    assert len(set(out["sequence"])) == 5
    assert s.leaks() == []


def test_fisher_selector_runs_without_leaks_and_is_deterministic():
    cams = small_cams(6, 24, 2)
    picks = []
    for _ in range(2):
        s = scenes.ViewStore(scenes.make_nbv_scene("occluder", 0), cams, strict=False)
        for v in (0, 1, 2):
            s.select(v)
        sel = baselines.FisherDiagSelector(fit_iters=3, max_gaussians=60)
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


def test_fit_improves_and_f1_oracle():
    a = torch.tensor([[0.0, 0, 0], [1.0, 0, 0]])
    assert gs_fit.surface_f1(a, a, 0.1)["f1"] == 1.0
    assert gs_fit.surface_f1(a, a + 5.0, 0.1)["f1"] == 0.0
    cams = small_cams(4, 24, 3)
    sc = scenes.make_nbv_scene("texture_split", 0)
    gt = scenes.render_views(sc, cams)
    pts = gt["point"][torch.isfinite(gt["depth"])][::7]
    cols = gt["rgb"][torch.isfinite(gt["depth"])][::7]
    gen = torch.Generator().manual_seed(0)
    g0 = gs_fit.init_gaussians(pts, cols, 300, gen)
    e0 = gs_fit.evaluate(g0, gt, cams)
    g1 = gs_fit.fit_gaussians(g0, gt["rgb"], cams, 30, gen)
    e1 = gs_fit.evaluate(g1, gt, cams)
    assert e1["psnr"] > e0["psnr"] + 0.5


# ------------------------------------------------------------------ bad input and claims

def test_bad_inputs_raise_value_errors():
    cams = small_cams(6)
    s = scenes.ViewStore(scenes.make_nbv_scene("occluder", 0), cams)
    with pytest.raises(ValueError, match="budget"):
        method.run_selection(baselines.RandomSelector(), s, [0, 1], 5, torch.Generator())
    with pytest.raises(ValueError, match="rot"):
        scenes.Cameras(cams.K, cams.rot * 1.5, cams.trans, 32, 32)
    empty = scenes.make_nbv_scene("occluder", 0).select(torch.zeros(3 + 1, dtype=torch.bool))
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


def test_claims_cover_the_note():
    ids = {c.id for c in CLAIMS}
    assert {"C1a_coverage_vs_random", "C1b_coverage_vs_farthest", "C2a_psnr_vs_random", "C2b_ssim_vs_random",
            "C2c_psnr_vs_farthest", "C3_f1_vs_random", "C4_fewer_views", "C5_selection_speedup",
            "C6_balance"} <= ids
