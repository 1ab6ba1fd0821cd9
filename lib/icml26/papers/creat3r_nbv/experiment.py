"""The active-reconstruction experiment: every selector on the same scenes, candidates and seed views.

Per instance (a scene kind and a repeat): a candidate shell of narrow-field cameras, held-out poses not in it, two
seed views; each selector adds ``budget`` views; triangulable coverage (the fraction of ground-truth surface
samples seen, unoccluded, by >= 2 selected views) is recorded after every view, with the ceiling that all
candidates together reach. Then (scales with ``fit``) the same 3DGS recipe is fitted on the views of each of
``fit_methods``, initialised from its own NCC point cloud, and judged on the held-out views (PSNR, SSIM, surface
F1, and the PSNR at half the steps for the convergence premise); Creat3r is also fitted on its first ``budget - 2``
added views (claim C4). Paired margins (Creat3r minus a baseline, per instance) are summarised by their mean and a
95% t-interval over the instances. One round of Creat3r and of the FisherRF-style selector is timed on the same
state, each after the same warm-up round (claim C5). At full scale the soft score ``S_alpha`` is swept over
``alphas`` (claim C6). See docs/papers/creat3r_nbv.md for the protocol.
"""

from __future__ import annotations

import math
import time

import torch

from icml26 import checks, progress
from icml26.papers.creat3r_nbv.baselines import (
    CoverageHeuristicSelector,
    FarthestViewSelector,
    FisherDiagSelector,
    OpacityUncertaintySelector,
    RandomSelector,
)
from icml26.papers.creat3r_nbv.gs_fit import FitConfig, evaluate, fit_gaussians, in_region, init_gaussians
from icml26.papers.creat3r_nbv.matching import NCCMatcher, OracleNoisyMatcher
from icml26.papers.creat3r_nbv.method import (
    Creat3rConfig,
    Creat3rSelector,
    build_point_cloud,
    point_confidence,
    run_selection,
)
from icml26.papers.creat3r_nbv.scenes import (
    SCENE_CENTRE,
    SCENES,
    Cameras,
    ViewStore,
    make_nbv_scene,
    render_views,
    shell_poses,
)
from icml26.render import visible_in

SELECTORS = ("creat3r", "creat3r_oracle", "random", "farthest", "coverage", "fisher", "opacity")
_STD_FIT = dict(iters=400, batch=2, densify_from=50, densify_until=250, densify_every=50, grad_thresh=2e-4,
                max_gaussians=1500, init_gaussians=800)
_FULL_FIT = dict(_STD_FIT, iters=800, densify_until=500, max_gaussians=6000, init_gaussians=3000)

CONFIGS = {
    "quick": dict(scenes=list(SCENES), repeats=1, size=40, candidates=32, heldout=8, budget=4,
                  selectors=["creat3r", "creat3r_oracle", "random", "farthest", "coverage"], random_draws=4,
                  fit=None, fit_methods=[], timing_fit=dict(_STD_FIT, iters=200, densify_until=100),
                  coverage_samples=3000, alphas=None),
    "standard": dict(scenes=list(SCENES), repeats=1, size=48, candidates=48, heldout=16, budget=4,
                     selectors=["creat3r", "creat3r_oracle", "random", "farthest", "coverage"], random_draws=4,
                     fit=_STD_FIT, fit_methods=["creat3r", "random", "farthest"],
                     timing_fit=_STD_FIT, coverage_samples=4000, alphas=None),
    "full": dict(scenes=list(SCENES), repeats=1, size=96, candidates=64, heldout=24, budget=5,
                 selectors=["creat3r", "creat3r_oracle", "random", "farthest", "coverage", "fisher"], random_draws=4,
                 fit=_FULL_FIT, fit_methods=["creat3r", "random", "farthest", "coverage", "fisher"],
                 timing_fit=_FULL_FIT, coverage_samples=6000, alphas=[0.0, 0.5, 1.0]),
}
"""``full`` is sized for one H200 but has not been run (no GPU was lent to this task); its cost is an estimate.

Arithmetic (per seed). Measured on one CPU core: a training step of the 96x96 recipe (2 views, 6000 Gaussians)
issues about 1,500 kernel-sized aten operations (2,400 counting views) and costs 0.11-0.25 s. On a GPU such a step
is bound by kernel launches, not arithmetic (about 2 views x 144 tiles x 64 pixels x ~400 Gaussians = 7M
compositing entries, well under a millisecond of H200 time): 1,500 launches x ~6 us = ~9 ms per step, so one
800-step fit takes ~7 s and one Fisher round (a fit + 2 Hutchinson probes over ~60 candidates, ~1 s) ~8 s.
Per instance: 5 selector fits + the B - 2 prefix + 3 fits of the alpha sweep = 9 fits = ~65 s; the Fisher selector
in the loop, 5 rounds = ~40 s; NCC matching and scoring (~20k small operations per round, ~0.15 s) over ~25
rounds = ~4 s; ground-truth renders and evaluation ~5 s. About 115 s per instance, 4 instances = ~8 minutes,
within the 10-minute budget with ~2 minutes to spare (the launch cost per operation is the uncertain factor: at
10 us it becomes ~11 minutes; drop one scene kind then). For scale: at ``standard`` on one CPU core one instance
(48 px, five selectors, four fits of 400 steps) cost 50 s of CPU time, 74 s with the timed rounds.
"""


def make_selector(name: str, cfg: dict, creat3r: Creat3rConfig | None = None):
    """A selector by name; the 3DGS-coupled ones use the experiment's fit recipe (timing fairness)."""
    checks.one_of("name", name, SELECTORS)
    checks.config("cfg", cfg, required=("timing_fit",))
    if creat3r is not None and not isinstance(creat3r, Creat3rConfig):
        raise TypeError(f"creat3r must be a Creat3rConfig; got {type(creat3r).__name__}")
    c = creat3r or Creat3rConfig()
    fit = FitConfig(**(cfg.get("fit") or cfg["timing_fit"]))
    table = {
        "creat3r": lambda: Creat3rSelector(c, NCCMatcher()),
        "creat3r_oracle": lambda: Creat3rSelector(c, OracleNoisyMatcher()),
        "random": RandomSelector,
        "farthest": FarthestViewSelector,
        "coverage": lambda: CoverageHeuristicSelector(c, NCCMatcher()),
        "fisher": lambda: FisherDiagSelector(fit, cfg=c, matcher=NCCMatcher()),
        "opacity": lambda: OpacityUncertaintySelector(fit, cfg=c, matcher=NCCMatcher()),
    }
    sel = table[name]()
    sel.name = name
    return sel


def seed_views(cams) -> list[int]:
    """Two seed views: candidate 0 and the candidate whose direction is closest to 35 degrees from it."""
    if not isinstance(cams, Cameras) or len(cams) < 2:
        raise TypeError(f"cams must be a Cameras batch of at least two candidates; got {cams!r}")
    d = torch.nn.functional.normalize(cams.centers - torch.tensor(SCENE_CENTRE, device=cams.rot.device), dim=-1)
    ang = torch.rad2deg(torch.arccos((d @ d[0]).clamp(-1, 1)))
    ang[0] = float("inf")
    return [0, int((ang - 35.0).abs().argmin())]


def coverage_curve(samples: torch.Tensor, sequence, all_cams, all_depth) -> list[float]:
    """Triangulable coverage after each prefix of ``sequence`` (from the two seeds on): the fraction of
    ``samples`` seen, unoccluded, by at least two of the selected views (ground-truth depth; evaluation only)."""
    samples = checks.tensor("samples", samples, shape=(None, 3))
    if not isinstance(all_cams, Cameras):
        raise TypeError(f"all_cams must be a Cameras batch; got {type(all_cams).__name__}")
    checks.tensor("all_depth", all_depth, shape=(len(all_cams), all_cams.height, all_cams.width), finite=False)
    if bool(torch.isnan(all_depth).any()):
        raise ValueError("all_depth must not hold NaN (inf marks pixels that see no surface)")
    sequence = [checks.nonnegative_int("sequence", v) for v in sequence]
    if len(sequence) < 2 or max(sequence) >= len(all_cams):
        raise ValueError(f"sequence must hold at least two candidate indices below {len(all_cams)}; got {sequence}")
    seq = torch.as_tensor(sequence, device=samples.device)
    cams = all_cams[seq]
    vis = visible_in(samples, cams.K, cams.rot, cams.trans, all_depth[seq], rel_tol=0.01)   # (V, N)
    counts = vis.long().cumsum(0)
    return [float((counts[b] >= 2).float().mean()) for b in range(1, len(seq))]


def _fit_eval(store: ViewStore, views, fit: FitConfig, gt, held, device) -> dict:
    """The shared 3DGS recipe on ``views`` (initialised from their own NCC cloud), judged on the held-out views
    at the end and at half the iterations (the convergence check)."""
    gen = torch.Generator(device=device).manual_seed(7)            # the same fit seed for every selector
    c = Creat3rConfig(max_points=4 * fit.init_gaussians)
    sub = store.fork()
    for v in views:
        sub.select(v)
    cloud = build_point_cloud(sub, views, NCCMatcher(), c, gen)
    if cloud["points"].shape[0] < 4:
        raise RuntimeError(f"the NCC cloud of views {list(views)} has {cloud['points'].shape[0]} points; a fit needs 4")
    conf = point_confidence(cloud["points"], sub, views, c)
    g = init_gaussians(cloud["points"], conf["colors"], fit.init_gaussians, gen)
    images = torch.stack([sub.image(v) for v in views])
    half = max(fit.iters // 2, 1)
    out = fit_gaussians(g, images, store.cams[views], fit, gen, snapshots=[half])
    res = evaluate(out["gaussians"], gt, held)
    res["psnr_half"] = evaluate(out["snapshots"][half], gt, held)["psnr"]
    res["gaussians"] = int(out["gaussians"]["means"].shape[0])
    res["points"] = int(cloud["points"].shape[0])
    return res


def _time_selectors(store: ViewStore, views, cfg: dict, device) -> dict:
    """Seconds of one selection round of Creat3r and of the FisherRF-style selector on the same state: each
    selector first runs one untimed warm-up round on that state (renders cached, allocator warm), then the
    median of ``repeats`` timed rounds (3 for Creat3r, 1 for the far slower Fisher round). On a CPU the clock is
    the process's CPU time (a shared machine's load does not enter it); on CUDA the wall clock around
    synchronised calls."""
    out = {}
    for name, repeats in (("creat3r", 3), ("fisher", 1)):
        st = store.fork()
        for v in views:
            st.select(v)
        sel = make_selector(name, dict(cfg, fit=cfg["timing_fit"]))
        times = []
        clock = time.perf_counter if device.type == "cuda" else time.process_time
        for r in range(repeats + 1):
            gen = torch.Generator(device=device).manual_seed(0)
            if device.type == "cuda":
                torch.cuda.synchronize()
            t0 = clock()
            sel.select(st, gen)
            if device.type == "cuda":
                torch.cuda.synchronize()
            if r > 0:                                                  # round 0 is the warm-up
                times.append(clock() - t0)
        out[name] = sorted(times)[len(times) // 2]
    out["ratio"] = out["fisher"] / out["creat3r"]
    return out


def _run_one(cfg: dict, scene_name: str, rep_seed: int, device, do_timing: bool) -> dict:
    """One instance: every selector, coverage curves, fits and (optionally) the C5 timing."""
    dev = torch.device(device)
    scene = make_nbv_scene(scene_name, rep_seed, device=dev)
    gen = torch.Generator().manual_seed(rep_seed)
    cams = shell_poses(cfg["candidates"], gen, cfg["size"], device=dev)
    held = shell_poses(cfg["heldout"], gen, cfg["size"], device=dev)
    gt_all = render_views(scene, cams, supersample=1)               # evaluation only (coverage samples)
    gt_held = render_views(scene, held, supersample=2)
    pts = torch.cat([gt_all["point"].reshape(-1, 3), gt_held["point"].reshape(-1, 3)])
    oid = torch.cat([gt_all["object_id"].reshape(-1), gt_held["object_id"].reshape(-1)])
    pts = pts[in_region(pts) & ((oid > 0) if cfg.get("objects_only") else (oid >= 0))]
    sg = torch.Generator(device=dev).manual_seed(rep_seed)
    samples = pts[torch.randperm(pts.shape[0], generator=sg, device=dev)[:cfg["coverage_samples"]]]
    seeds = seed_views(cams)
    every = coverage_curve(samples, list(range(len(cams))), cams, gt_all["depth"])[-1]
    out = {"scene": scene_name, "seed": rep_seed, "seeds": seeds, "sequence": {}, "coverage": {}, "round_s": {},
           "fit": {}, "leaks": 0, "coverage_ceiling": every}
    base = ViewStore(scene, cams)
    for name in cfg["selectors"]:
        draws = cfg["random_draws"] if name == "random" else 1
        curves = []
        for d in range(draws):
            store = base.fork()
            g = torch.Generator(device=dev).manual_seed(rep_seed * 1000 + d)
            res = run_selection(make_selector(name, cfg), store, seeds, cfg["budget"], g)
            out["leaks"] += len(store.leaks())
            curves.append(coverage_curve(samples, res["sequence"], cams, gt_all["depth"]))
            if d == 0:
                out["sequence"][name] = res["sequence"]
                out["round_s"][name] = sum(res["round_seconds"]) / max(len(res["round_seconds"]), 1)
        out["coverage"][name] = [sum(c[i] for c in curves) / len(curves) for i in range(len(curves[0]))]
    if cfg.get("fit"):
        fit, b = FitConfig(**cfg["fit"]), cfg["budget"]
        for name in cfg["fit_methods"]:
            out["fit"][name] = _fit_eval(base, out["sequence"][name], fit, gt_held, held, dev)
        out["fit"]["creat3r_prefix"] = _fit_eval(base, out["sequence"]["creat3r"][:b], fit, gt_held, held, dev)
    if cfg.get("alphas"):
        out["alpha_psnr"] = {}
        for a in cfg["alphas"]:
            store = base.fork()
            g = torch.Generator(device=dev).manual_seed(rep_seed)
            res = run_selection(Creat3rSelector(Creat3rConfig(alpha=a)), store, seeds, cfg["budget"], g)
            out["alpha_psnr"][str(a)] = _fit_eval(base, res["sequence"], FitConfig(**cfg["fit"]), gt_held, held,
                                                  dev)["psnr"]
    if do_timing:
        out["timing"] = _time_selectors(base, out["sequence"]["creat3r"][:2 + cfg["budget"] // 2], cfg, dev)
    return out


def interval(values) -> dict:
    """Mean and 95% t-interval of paired per-instance margins (``n`` of them; no interval when ``n < 2``)."""
    from scipy.stats import t

    xs = [float(x) for x in values if x is not None and math.isfinite(x)]
    n = len(xs)
    if n == 0:
        return {"mean": float("nan"), "lo": float("nan"), "hi": float("nan"), "n": 0, "values": []}
    mean = sum(xs) / n
    if n < 2:
        return {"mean": mean, "lo": float("nan"), "hi": float("nan"), "n": n, "values": xs}
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n, "values": xs}


def _mean(xs):
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return sum(xs) / len(xs) if xs else float("nan")


MARGINS = {
    "coverage_vs_random": ("coverage", "creat3r", "random"),
    "coverage_vs_farthest": ("coverage", "creat3r", "farthest"),
    "coverage_vs_coverage": ("coverage", "creat3r", "coverage"),
    "psnr_vs_random": ("psnr", "creat3r", "random"),
    "ssim_vs_random": ("ssim", "creat3r", "random"),
    "psnr_vs_farthest": ("psnr", "creat3r", "farthest"),
    "f1_vs_random": ("f1", "creat3r", "random"),
    "prefix_psnr_vs_random": ("psnr", "creat3r_prefix", "random"),
}
"""Paired margins ``(metric, ours, baseline)``: per instance, ours minus the baseline."""


def _summarise(runs: list[dict], cfg: dict) -> dict:
    """Means over instances, paired margins with 95% intervals, C5's ratio and C6's balance."""
    sel = cfg["selectors"]
    s = {"coverage_at_B": {m: _mean([r["coverage"][m][-1] for r in runs]) for m in sel},
         "coverage_curve": {m: [_mean([r["coverage"][m][i] for r in runs]) for i in range(cfg["budget"] + 1)]
                            for m in sel},
         "coverage_ceiling": _mean([r["coverage_ceiling"] for r in runs]), "instances": len(runs)}
    margins = {}
    for key, (metric, ours, other) in MARGINS.items():
        if metric == "coverage":
            if other in sel:
                margins[key] = interval([r["coverage"][ours][-1] - r["coverage"][other][-1] for r in runs])
        elif cfg.get("fit") and other in cfg["fit_methods"]:
            margins[key] = interval([r["fit"][ours][metric] - r["fit"][other][metric] for r in runs])
    s["margins"] = margins
    if cfg.get("fit"):
        names = [*cfg["fit_methods"], "creat3r_prefix"]
        for key in ("psnr", "ssim", "f1", "precision", "recall", "gaussians", "points"):
            s[key] = {m: _mean([r["fit"][m][key] for r in runs]) for m in names}
        s["fit_second_half_gain"] = {m: _mean([r["fit"][m]["psnr"] - r["fit"][m]["psnr_half"] for r in runs])
                                     for m in names}
    timing = [r["timing"] for r in runs if "timing" in r]
    if timing:
        s["timing"] = {k: _mean([t[k] for t in timing]) for k in ("creat3r", "fisher", "ratio")}
    if cfg.get("alphas"):
        wins = [r["alpha_psnr"]["0.5"] >= max(r["alpha_psnr"]["0.0"], r["alpha_psnr"]["1.0"]) for r in runs]
        s["alpha_balanced_win_frac"] = sum(wins) / len(wins)
        s["alpha_psnr"] = {a: _mean([r["alpha_psnr"][a] for r in runs]) for a in runs[0]["alpha_psnr"]}
    s["leaks"] = sum(r["leaks"] for r in runs)
    return s


def run(config: dict, device, seed: int) -> dict:
    """Run every instance of ``config``; repeat ``k`` of scene ``i`` uses scene/pose seed ``100 * seed + k``."""
    checks.config_like("config", config, CONFIGS.values())
    t0 = time.perf_counter()
    config = checks.config("config", config, required=("scenes", "repeats", "size", "candidates", "heldout",
                                                        "budget", "selectors", "random_draws", "fit",
                                                        "fit_methods", "timing_fit", "coverage_samples", "alphas"))
    seed = checks.seed("seed", seed)
    device = checks.device("device", device)
    for key in ("repeats", "size", "candidates", "heldout", "budget", "random_draws", "coverage_samples"):
        checks.positive_int(f"config[{key!r}]", config[key])
    for name in config["scenes"]:
        checks.one_of("config['scenes']", name, SCENES)
    for name in config["selectors"]:
        checks.one_of("config['selectors']", name, SELECTORS)
    if "creat3r" not in config["selectors"]:
        raise ValueError(f"config['selectors'] must include 'creat3r'; got {config['selectors']}")
    for name in config["fit_methods"]:
        if name not in config["selectors"]:
            raise ValueError(f"config['fit_methods'] must name selectors that run; got {name!r}")
    FitConfig(**config["timing_fit"])
    if config.get("fit"):
        FitConfig(**config["fit"])
    if config["budget"] > config["candidates"] - 2:
        raise ValueError(f"config['budget'] ({config['budget']}) must not exceed the candidates left after the two "
                         f"seed views ({config['candidates'] - 2})")
    if config["budget"] < 3 and config.get("fit"):
        raise ValueError(f"config['budget'] must be >= 3 when fitting (C4 fits the first budget - 2 views); "
                         f"got {config['budget']}")
    jobs = [(name, 100 * seed + k) for k in range(config["repeats"]) for name in config["scenes"]]
    runs = []
    for i, (name, rep) in enumerate(progress.steps(jobs, desc=f"creat3r_nbv instances (seed {seed})")):
        runs.append(_run_one(config, name, rep, device, do_timing=(i == 0)))
    return {"config": dict(config), "runs": runs, "summary": _summarise(runs, config),
            "seconds": time.perf_counter() - t0}
