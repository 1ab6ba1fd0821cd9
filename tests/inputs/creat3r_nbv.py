"""Bad-input probes of paper 16 (creat3r_nbv) and of the shared Gaussian rasteriser and image metrics it owns
(see tests/inputs/harness.py)."""

import functools
import math

import torch
from harness import Probe

from icml26.papers.creat3r_nbv import baselines, experiment, explore, geometry, gs_fit, matching, method, scenes
from icml26.render import gaussians, image_metrics, intrinsics, look_at

NOT_EMPTY = "an empty set (no points or tracks) is a valid state with a defined answer"


@functools.lru_cache(maxsize=1)
def _world():
    cams = scenes.shell_poses(6, torch.Generator().manual_seed(0), 24)
    scene = scenes.make_nbv_scene("occluder", 0)
    store = scenes.ViewStore(scene, cams)
    for v in (0, 1, 2):
        store.select(v)
    cloud = method.build_point_cloud(store, [0, 1, 2], matching.OracleNoisyMatcher(), method.Creat3rConfig(),
                                     torch.Generator().manual_seed(0))
    return cams, scene, store, cloud


def cams():
    return _world()[0]


def store():
    return _world()[2]


def points():
    return _world()[3]["points"].clone()


def gaussians_dict():
    pts = points()
    return gs_fit.init_gaussians(pts, torch.rand(pts.shape[0], 3, generator=torch.Generator().manual_seed(0)), 50,
                                 torch.Generator().manual_seed(0))


def gt():
    return scenes.render_views(_world()[1], cams()[[3, 4]], supersample=1)


def gen():
    return torch.Generator().manual_seed(0)


def tiny_fit():
    return gs_fit.FitConfig(iters=2, densify_until=0, init_gaussians=40)


def fake_results():
    runs = [{"round_s": {"creat3r": 0.1, "random": 0.0},
             "fit": {m: {"psnr": 20.0 + i, "ssim": 0.6, "f1": 0.5} for m in ("creat3r", "random", "creat3r_prefix")}}
            for i in range(2)]
    margin = {"mean": 0.1, "lo": 0.0, "hi": 0.2, "n": 2, "values": [0.05, 0.15]}
    summary = {"coverage_at_B": {"creat3r": 0.8, "random": 0.7}, "coverage_curve": {"creat3r": [0.3, 0.8]},
               "coverage_ceiling": 1.0, "margins": {"coverage_vs_random": margin},
               "psnr": {"creat3r": 20.5, "random": 20.5, "creat3r_prefix": 20.5},
               "ssim": {"creat3r": 0.6, "random": 0.6, "creat3r_prefix": 0.6},
               "f1": {"creat3r": 0.5, "random": 0.5, "creat3r_prefix": 0.5},
               "gaussians": {"creat3r": 100, "random": 100, "creat3r_prefix": 100},
               "timing": {"creat3r": 0.1, "fisher": 1.0, "ratio": 10.0}}
    return {"runs": runs, "summary": summary}


def tiny_config():
    return dict(experiment.CONFIGS["quick"], scenes=["occluder"], size=16, candidates=8, heldout=2, budget=1,
                selectors=["creat3r", "random"], random_draws=1, coverage_samples=200,
                timing_fit=dict(experiment.CONFIGS["quick"]["timing_fit"], iters=2, densify_until=0, init_gaussians=40))


def g_tensors(n=3):
    gg = torch.Generator().manual_seed(1)
    return {"means": torch.randn(n, 3, generator=gg) * 0.2, "log_scales": torch.full((n, 3), -2.5),
            "quats": torch.randn(n, 4, generator=gg), "opacity_logits": torch.zeros(n),
            "colors": torch.rand(n, 3, generator=gg)}


def camera():
    R, t = look_at(torch.tensor([[2.0, 0.5, 1.0]]), torch.zeros(3))
    return {"K": intrinsics(12, 12, 50.0), "rot": R, "trans": t}


def nan_tensor(x):
    y = x.clone()
    y.view(-1)[0] = math.nan
    return y


PROBES = [
    # baselines
    Probe(baselines.CoverageHeuristicSelector, valid=lambda: {"cfg": None, "matcher": None},
          extra=[("cfg", "x", "a string"), ("matcher", 3, "an int")]),
    Probe(baselines.FisherDiagSelector, valid=lambda: {"fit": tiny_fit(), "probes": 2, "lam_reg": 0.01},
          extra=[("fit", 3, "an int")]),
    Probe(baselines.OpacityUncertaintySelector, valid=lambda: {"fit": tiny_fit()},
          extra=[("fit", {"iters": 3}, "a dict"), ("cfg", 1.0, "a float"), ("matcher", "ncc", "a string")]),
    Probe(baselines.fisher_diagonal, valid=lambda: {"g": gaussians_dict(), "cams": cams()[[3]], "gen": gen(),
                                                    "probes": 1},
          extra=[("g", {}, "no parameters"), ("gen", 0, "an int")]),
    # experiment
    Probe(experiment.coverage_curve,
          valid=lambda: {"samples": points(), "sequence": [0, 1, 2], "all_cams": cams(),
                         "all_depth": scenes.render_views(_world()[1], cams(), 1)["depth"]},
          skip={"all_depth": "inf marks pixels that see no surface"},
          extra=[("all_depth", nan_tensor(torch.ones(6, 24, 24)), "NaN entry"), ("sequence", [0], "one view"),
                 ("sequence", [0, 9], "index out of range"), ("all_cams", "x", "a string")]),
    Probe(experiment.make_selector, valid=lambda: {"name": "coverage", "cfg": experiment.CONFIGS["quick"]},
          extra=[("name", "nope", "unknown selector"), ("cfg", {}, "empty config"), ("creat3r", {}, "a dict")]),
    Probe(experiment.run, valid=lambda: {"config": tiny_config(), "device": "cpu", "seed": 0},
          extra=[("config", {}, "empty config"), ("config", dict(tiny_config(), budget=0), "zero budget"),
                 ("config", dict(tiny_config(), scenes=["nope"]), "unknown scene"),
                 ("seed", 1.5, "a float seed")]),
    Probe(experiment.seed_views, valid=lambda: {"cams": cams()}, extra=[("cams", None, "None")]),
    # explore
    Probe(explore.plot_score_shell, valid=lambda: {"scene": "occluder", "rounds": 1, "lam": 1.0, "gamma": 0.1,
                                                   "alpha": 0.5, "occlusion": True},
          skip={"rounds": "0 added views is a valid state"},
          extra=[("rounds", -1, "negative"), ("rounds", 7, "more than 3"), ("scene", "nope", "unknown scene")]),
    Probe(explore.plot_maps, valid=lambda: {"scene": "occluder", "rounds": 1, "candidate": 3},
          skip={"rounds": "0 added views is a valid state", "candidate": "candidate 0 exists"},
          extra=[("candidate", -1, "negative"), ("candidate", 99, "out of range"), ("rounds", -1, "negative")]),
    Probe(explore.plot_points, valid=lambda: {"scene": "occluder", "rounds": 1, "view": "side"},
          skip={"rounds": "0 added views is a valid state"}, extra=[("view", "front", "unknown view")]),
    Probe(explore.shell_3d, valid=lambda: {"scene": "occluder", "rounds": 1, "alpha": 0.5},
          skip={"rounds": "0 added views is a valid state"}, extra=[("alpha", 2.0, "above 1")]),
    Probe(explore.plot_scenes, valid=lambda: {"seed": 0, "views": 2}),
    Probe(explore.plot_coverage_curves, valid=lambda: {"results": fake_results()},
          extra=[("results", {}, "empty dict"), ("results", {"summary": {}, "runs": []}, "no coverage")]),
    Probe(explore.plot_margins, valid=lambda: {"results": fake_results()}, extra=[("results", [], "a list")]),
    Probe(explore.plot_quality, valid=lambda: {"results": fake_results()}, extra=[("results", None, "None")]),
    Probe(explore.plot_timing, valid=lambda: {"results": fake_results()}, extra=[("results", 3, "an int")]),
    Probe(explore.summary_rows, valid=lambda: {"results": fake_results()}, extra=[("results", {}, "empty")]),
    Probe(explore.margin_rows, valid=lambda: {"results": fake_results()}, extra=[("results", {}, "empty")]),
    # geometry
    Probe(geometry.box_interval, valid=lambda: {"origins": torch.tensor([[3.0, 0.0, 0.5]]),
                                                "directions": torch.tensor([[-1.0, 0.0, 0.0]]), "near": 0.05},
          extra=[("directions", torch.ones(1, 2), "wrong shape"), ("lo", (2.0, 2.0, 2.0), "lo above hi")]),
    Probe(geometry.pixel_ray, valid=lambda: {"cams": cams()[[0]], "uv": torch.tensor([[[5.0, 6.0]]])},
          extra=[("uv", torch.zeros(2, 1, 2), "one row per camera expected"), ("cams", "x", "a string")],
          skip={"uv": "zero rays are a valid (empty) query"}),
    Probe(geometry.projection_matrices, valid=lambda: {"cams": cams()}, extra=[("cams", 3, "an int")]),
    Probe(geometry.reprojection_error,
          valid=lambda: {"X": torch.zeros(2, 3), "uv": torch.zeros(2, 2, 2), "cams": cams()[[0, 1]],
                         "mask": torch.ones(2, 2, dtype=torch.bool)},
          skip={"X": NOT_EMPTY, "uv": NOT_EMPTY},
          extra=[("X", torch.full((2, 3), math.nan), "NaN entry"), ("uv", torch.full((2, 2, 2), math.inf), "inf"),
                 ("mask", torch.ones(2, 2), "float mask")]),
    Probe(geometry.triangulate_dlt,
          valid=lambda: {"uv": torch.rand(2, 3, 2) * 10, "P": torch.randn(2, 3, 4),
                         "mask": torch.ones(2, 3, dtype=torch.bool)},
          extra=[("P", torch.zeros(3, 3, 4), "wrong number of views"), ("mask", torch.ones(2, 2, dtype=torch.bool),
                                                                        "wrong shape")]),
    Probe(geometry.triangulation_angle,
          valid=lambda: {"X": torch.zeros(2, 3), "centers": torch.tensor([[3.0, 0, 0], [0, 3.0, 0]]),
                         "mask": torch.ones(2, 2, dtype=torch.bool)},
          skip={"X": NOT_EMPTY}, extra=[("X", torch.full((2, 3), math.nan), "NaN entry")]),
    # gs_fit
    Probe(gs_fit.FitConfig, valid=lambda: {"iters": 10, "batch": 2, "grad_thresh": 2e-4, "prune_opacity": 0.01},
          skip={"prune_opacity": "0 disables pruning"}, extra=[("prune_opacity", 1.5, "above 1")]),
    Probe(gs_fit.evaluate, valid=lambda: {"g": gaussians_dict(), "gt": gt(), "cams": cams()[[3, 4]],
                                          "tau_rel": 0.02},
          extra=[("gt", {}, "no buffers"), ("cams", None, "None")]),
    Probe(gs_fit.fit_gaussians, valid=lambda: {"g": gaussians_dict(), "images": gt()["rgb"], "cams": cams()[[3, 4]],
                                               "cfg": tiny_fit(), "gen": gen()},
          extra=[("cfg", {"iters": 2}, "a dict"), ("snapshots", [99], "beyond the iterations"),
                 ("images", torch.rand(3, 24, 24, 3), "one image too many")]),
    Probe(gs_fit.in_region, valid=lambda: {"points": points()},
          skip={"points": "non-finite points lie outside the region by design; no points give an empty mask"}),
    Probe(gs_fit.init_gaussians, valid=lambda: {"points": points(), "colors": torch.rand(points().shape[0], 3),
                                                "max_n": 30, "gen": gen()},
          extra=[("points", torch.zeros(2, 3), "too few points"), ("colors", torch.rand(3, 3), "wrong shape")]),
    Probe(gs_fit.render_gaussians, valid=lambda: {"g": gaussians_dict(), "cams": cams()[[0]]},
          extra=[("g", {"means": torch.zeros(1, 3)}, "missing keys"), ("cams", 1, "an int"),
                 ("g", {**gaussians_dict(), "means": torch.full((50, 3), math.nan)}, "NaN means")]),
    Probe(gs_fit.surface_f1, valid=lambda: {"pred_points": torch.zeros(2, 3), "gt_points": torch.ones(3, 3),
                                            "tau": 0.1},
          skip={"pred_points": NOT_EMPTY, "gt_points": NOT_EMPTY},
          extra=[("pred_points", torch.full((2, 3), math.nan), "NaN entry"),
                 ("gt_points", torch.full((2, 3), math.inf), "inf entry")]),
    # matching
    Probe(matching.NCCMatcher, valid=lambda: {"step": 3, "patch": 5, "samples": 40, "k": 3, "min_ncc": 0.8,
                                              "margin": 0.02, "lr_tol_px": 1.0, "min_std": 0.03},
          skip={"margin": "0 disables the uniqueness test", "min_std": "0 keeps untextured pixels"},
          extra=[("patch", 4, "even patch"), ("samples", 2, "too few samples"), ("min_ncc", 1.5, "above 1"),
                 ("margin", -0.1, "negative"), ("min_std", math.nan, "NaN")]),
    Probe(matching.OracleNoisyMatcher, valid=lambda: {"step": 3, "noise_px": 0.5, "outliers": 0.05},
          skip={"outliers": "0 outliers is valid"}, extra=[("outliers", 1.0, "all outliers"), ("noise_px", -1.0,
                                                                                              "negative")]),
    Probe(matching.make_matcher, valid=lambda: {"name": "oracle"}, extra=[("name", "sift", "unknown matcher")]),
    # method
    Probe(method.Creat3rConfig, valid=lambda: {"lam": 1.0, "gamma": 0.1, "kappa_s": 2.0, "tau_c": 0.05, "eta": 1.0,
                                               "alpha0": 0.8, "map_scale": 0.25, "max_points": 100},
          extra=[("alpha0", 1.0, "opacity 1"), ("radius", "huge", "unknown radius rule"), ("alpha", -0.1, "below 0"),
                 ("max_candidates", 0, "zero candidates")]),
    Probe(method.Creat3rSelector, valid=lambda: {"cfg": method.Creat3rConfig(), "matcher": matching.NCCMatcher()},
          extra=[("cfg", {"lam": 1.0}, "a dict"), ("matcher", "ncc", "a string")]),
    Probe(method.available_mask, valid=lambda: {"store": store()}, extra=[("store", cams(), "cameras")]),
    Probe(method.build_point_cloud, valid=lambda: {"store": store(), "views": [0, 1],
                                                   "matcher": matching.OracleNoisyMatcher(),
                                                   "cfg": method.Creat3rConfig(), "gen": gen()},
          extra=[("views", [0], "one view"), ("views", [0, 5], "an unselected view"), ("matcher", None, "None"),
                 ("cfg", None, "None"), ("gen", None, "None")]),
    Probe(method.choose_view, valid=lambda: {"score": torch.tensor([1.0, 2.0]), "gate": torch.tensor([0.3, 0.3]),
                                             "gamma": 0.1, "available": torch.tensor([True, True])},
          extra=[("available", torch.tensor([False, False]), "none available"),
                 ("gate", torch.ones(3), "wrong shape")]),
    Probe(method.confidence_maps, valid=lambda: {"points": points(), "w": torch.rand(points().shape[0]),
                                                 "radii": torch.full((points().shape[0],), 0.05),
                                                 "cams": cams().scaled(0.5), "alpha0": 0.8},
          skip={"points": NOT_EMPTY, "w": NOT_EMPTY, "radii": NOT_EMPTY},
          extra=[("points", nan_tensor(points()), "NaN entry"), ("w", torch.rand(3), "wrong length"),
                 ("radii", torch.full((points().shape[0],), math.inf), "infinite radii"),
                 ("alpha0", 1.5, "above 1")]),
    Probe(method.point_confidence, valid=lambda: {"points": points(), "store": store(), "views": [0, 1, 2],
                                                  "cfg": method.Creat3rConfig()},
          skip={"points": NOT_EMPTY},
          extra=[("points", nan_tensor(points()), "NaN entry"), ("views", [0, 4], "an unselected view"),
                 ("angle", torch.ones(2), "wrong length")]),
    Probe(method.point_radii, valid=lambda: {"points": points(), "cfg": method.Creat3rConfig(), "k": 8},
          skip={"points": NOT_EMPTY}, extra=[("points", nan_tensor(points()), "NaN entry")]),
    Probe(method.point_zbuffer, valid=lambda: {"points": points(), "cams": cams()},
          skip={"points": NOT_EMPTY}, extra=[("points", nan_tensor(points()), "NaN entry"), ("cams", 2, "an int")]),
    Probe(method.roi_mask, valid=lambda: {"cams": cams()}, extra=[("cams", torch.eye(3), "a tensor")]),
    Probe(method.run_selection, valid=lambda: {"selector": baselines.RandomSelector(), "store": store().fork(),
                                               "seeds": [0, 1], "budget": 1, "gen": gen()},
          skip={"budget": "0 added views is valid"},
          extra=[("budget", -1, "negative"), ("budget", 9, "more than the candidates"), ("seeds", [0, 0], "one view"),
                 ("selector", object(), "no select method"), ("gen", 3, "an int")]),
    Probe(method.view_scores, valid=lambda: {"A": torch.rand(2, 3, 3), "C": torch.rand(2, 3, 3),
                                             "cfg": method.Creat3rConfig()},
          extra=[("C", torch.rand(2, 3, 4), "wrong shape"), ("cfg", None, "None")]),
    # scenes
    Probe(scenes.Cameras, valid=lambda: {"K": cams().K, "rot": cams().rot, "trans": cams().trans, "width": 24,
                                         "height": 24},
          extra=[("trans", torch.zeros(5, 3), "wrong count")]),
    Probe(scenes.ViewStore, valid=lambda: {"scene": _world()[1], "cams": cams(), "supersample": 2},
          extra=[("cams", "x", "a string")]),
    Probe(scenes.make_nbv_scene, valid=lambda: {"name": "alcove", "seed": 0, "device": "cpu"},
          extra=[("name", "room", "unknown scene")]),
    Probe(scenes.render_views, valid=lambda: {"scene": _world()[1], "cams": cams()[[0]], "supersample": 1},
          extra=[("cams", None, "None")]),
    Probe(scenes.shell_poses, valid=lambda: {"n": 4, "gen": gen(), "size": 16, "fov_deg": 40.0, "jitter": 0.4,
                                             "device": "cpu"},
          skip={"jitter": "0 jitter looks at the centre"},
          extra=[("jitter", -1.0, "negative"), ("elevation", (50.0, 20.0), "reversed range"),
                 ("radius", (0.0, 1.0), "zero radius"), ("gen", 3, "an int"), ("fov_deg", 180.0, "180 degrees")]),
    # the shared rasteriser and image metrics (owned by this paper)
    Probe(gaussians.quaternion_to_matrix, valid=lambda: {"quats": torch.randn(3, 4)},
          extra=[("quats", torch.zeros(2, 4), "zero quaternion"), ("quats", torch.ones(2, 3), "wrong shape")]),
    Probe(gaussians.covariance_3d, valid=lambda: {"log_scales": torch.zeros(3, 3), "quats": torch.randn(3, 4)},
          extra=[("quats", torch.randn(2, 4), "wrong count")]),
    Probe(gaussians.footprint_radius, valid=lambda: {"cov2d": torch.eye(2).expand(3, 2, 2).clone(), "sigmas": 3.5},
          extra=[("cov2d", torch.ones(3, 2), "wrong shape")]),
    Probe(gaussians.project_gaussians,
          valid=lambda: {"means": torch.zeros(2, 3), "cov3d": torch.eye(3).expand(2, 3, 3).clone() * 0.01,
                         **camera(), "width": 12, "height": 12, "dilation": 0.3, "near": 0.05},
          skip={"dilation": "0 disables the anti-aliasing dilation"},
          extra=[("dilation", -0.1, "negative"), ("rot", torch.eye(3)[None] * 2, "not a rotation")]),
    Probe(gaussians.rasterize, valid=lambda: {**g_tensors(), **camera(), "width": 12, "height": 12, "tile": 4,
                                              "alpha_cap": 0.99, "dilation": 0.3},
          skip={"dilation": "0 disables the anti-aliasing dilation"},
          extra=[("tile", 0, "zero tile"), ("alpha_cap", 1.5, "above 1"), ("dilation", -1.0, "negative"),
                 ("screen_offset", torch.zeros(2, 3, 2), "wrong shape"), ("background", math.nan, "NaN background")]),
    Probe(image_metrics.psnr, valid=lambda: {"pred": torch.rand(1, 3, 8, 8), "target": torch.rand(1, 3, 8, 8),
                                             "data_range": 1.0},
          extra=[("target", torch.rand(1, 3, 8, 9), "wrong shape")]),
    Probe(image_metrics.ssim, valid=lambda: {"pred": torch.rand(1, 3, 16, 16), "target": torch.rand(1, 3, 16, 16),
                                             "data_range": 1.0, "window": 11, "sigma": 1.5},
          extra=[("window", 4, "even window"), ("window", 21, "larger than the image")]),
]
EXEMPT = {
    "icml26.papers.creat3r_nbv.baselines.RandomSelector": "takes no arguments; its select() is probed through "
                                                         "run_selection",
    "icml26.papers.creat3r_nbv.baselines.FarthestViewSelector": "takes no arguments; its select() is probed through "
                                                               "run_selection",
    "icml26.papers.creat3r_nbv.experiment.interval": "summarises a list of margins and skips non-finite ones by design "
                                                     "(an instance without a fit)",
    "icml26.papers.creat3r_nbv.scenes.InformationLeak": "an exception class",
}
