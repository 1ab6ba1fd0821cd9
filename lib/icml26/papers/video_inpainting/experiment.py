"""The experiment: plain vs TSI vs baselines on the toy torus world, exact Gaussian-prior denoiser.

See docs/papers/video_inpainting.md §2-§5.

Every sampler shares the denoiser (exact Wiener score, per frame), the initial noise, the RePaint
noise and the number of steps (equal NFE). Metrics are split into recoverable / never-visible hole pixels.
Flows: with ``config["flows"] = "estimated"`` (the recorded setting) every flow-using method (TSI, always-on, uniform,
post-hoc smoothing, warped noise, flow propagation) receives the same flows, estimated from the observed masked
frames (``flowest.estimate_flows``); ``"exact"`` hands them the toy's exact flows (the oracle, also reported beside the
estimated run for TSI, warped noise and flow propagation). The metrics always use the exact flows (measurement, not
method input).
Deviation from our first plan: the standard scale also uses the exact Gaussian-prior denoiser (not a trained U-Net).
"""

from __future__ import annotations

import time

import numpy as np
import torch
from scipy.stats import spearmanr

from icml26 import checks, progress
from icml26.diffusion import WienerDenoiser, cosine_alpha_bar, ddim_sample, ddim_timesteps
from icml26.papers.video_inpainting import baselines, flowest, learned, method
from icml26.papers.video_inpainting.toyvideo import make_videos

TSI = {"norm": "variance"}  # inferred normalisation (method.TemporalController); tau and rho are per scale, below
CAL_FACTORS = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The calibration grid: tau = factor x the median in-window normalised deviation on the development seeds."""

TRIGGER = {"quick": dict(tau=0.292, rho=1.167), "standard": dict(tau=0.052, rho=0.207)}
"""The trigger (tau, rho) per scale, from ``calibrate_trigger`` on development seeds 100, 101, 102 (never 0-4), with
the estimated flows the recorded runs use (factor 0.25 at both scales; the grid is in docs §3 C)."""
TRIGGER_LEARNED = {"quick": dict(tau=0.589, rho=1.177), "standard": dict(tau=0.052, rho=0.209)}
"""The trigger (tau, rho) of the learned-denoiser stage per scale, from ``calibrate_trigger(..., denoiser="learned")``
on development seeds 100, 101, 102 (the same grid and rule, on that stage's clips; median in-window deviation 1.177 at
quick, 0.209 at standard). The rule picked factor 0.5 at quick (factor 0.25 kept the never-visible HF ratio at 0.8996,
just under the 0.9 floor) and 0.25 at standard (mean cut 0.358 at HF 0.902, 27% of the pairs corrected)."""

NEVER_RHO = 1e30
"""The trigger level of the control arm ``tsi_no_trigger``: accumulated risk never reaches it, so it never corrects."""

CONFIGS = {
    "quick": dict(n_videos=8, noise_seeds=2, frames=8, size=24, channels=1, hole=10, sub_hole=4, T=200, steps=30,
                  flows="estimated",
                  controller=dict(TSI, **TRIGGER["quick"]),
                  uniform_lams=[0.05, 0.1, 0.2, 0.4, 0.8], post_hoc_lam=0.5, long_k=4,
                  learned=dict(model="quick", clips=16, controller=dict(TSI, **TRIGGER_LEARNED["quick"]))),
    "standard": dict(n_videos=16, noise_seeds=2, frames=12, size=32, channels=3, hole=12, sub_hole=5, T=500,
                     steps=40, flows="estimated", controller=dict(TSI, **TRIGGER["standard"]),
                  uniform_lams=[0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0], post_hoc_lam=0.5, long_k=4,
                  learned=dict(model="standard", clips=8, controller=dict(TSI, **TRIGGER_LEARNED["standard"]))),
    "full": dict(n_videos=100, noise_seeds=2, frames=16, size=64, channels=3, hole=24, sub_hole=8, T=1000, steps=50,
                 flows="estimated",
                 controller=dict(TSI, **TRIGGER["standard"]),
                  uniform_lams=[0.05, 0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0], post_hoc_lam=0.5, long_k=4, learned=None),
}


"""Scales. quick and standard use the trigger calibrated at their own size; full reuses standard's (it could not be
calibrated without a GPU: rerun ``calibrate_trigger(CONFIGS["full"], "cuda", [100, 101, 102])`` first).

full, estimated for one H200 from the measured standard cost: a recorded standard seed (32 clips x 12 frames x 3 x 32
x 32, 40 steps, 12 sampler runs on estimated flows + 2 oracle runs, flow estimation) took 78 s of one CPU core
(200.4 s user + 33.8 s system for seeds 0-2, recorded 2026-12-02 with the machine's 2 cores shared by about 20
runnable processes, so 300 s of wall time a seed). full holds 200 x 16 x 3 x 64 x 64 = 33.3x the pixels, 50/40 =
1.25x the steps and 15/14 = 1.07x the runs (8 uniform lams): 78 s x 33.3 x 1.25 x 1.07 = 3.5e3 core-seconds (the
flow estimation, 49 box-filtered shifts per frame pair, scales with the pixels only, so this over-counts it). The
work is batched FFTs (Wiener denoiser), box filters and grid_sample warps, which an H200 runs at least 50x faster
than one core: about 70 s a seed, 3.5 min for seeds 0-2, within the 10-minute budget; memory: the estimated and the
exact all-pairs flows (2 x 200 x 16 x 16 x 2 x 64 x 64 floats = 3.4 GB) dominate.

The learned-denoiser stage (``config["learned"]``, ``learned_stage``) runs at quick (16 of 16 clips) and standard (8
of 32 clips) only: full has ``learned=None`` because no model is shipped for its 64 px frames (the field differs per
frame size, ``learned.SIZES``). Its measured cost at standard: one U-Net step on the stage's 8 x 12 x 3 = 288 frames
of 32 x 32 is about 0.4 s of one CPU core, and the stage (3 sampler runs x 40 steps + the x0 check) took 51 s of wall
time on dev seed 100 (2026-12-02, shared cores). Adding it to full would need a 64 px model (``learned.train(64)``:
2,400 Adam steps of 32 frames, about 1 min on an H200) and 200 x 16 x 3 = 9,600 frames of 64 x 64 per step, 133x the
standard stage's pixels: 51 s x 133 / 50 (GPU speed-up) x 50/40 steps = 170 s a seed, which would not fit beside
the exact stage's 3.5 min for three seeds in 10 minutes; it is left out.
"""


SETUP_KEYS = ("n_videos", "noise_seeds", "frames", "size", "channels", "hole", "sub_hole", "T", "flows")
FLOWS = ("estimated", "exact")
RUN_KEYS = SETUP_KEYS + ("steps", "uniform_lams", "post_hoc_lam", "long_k")
DENOISERS = ("exact", "learned")


def _check_config(config, keys) -> None:
    """The config's keys and values (the sizes are checked again, with their ranges, by make_videos)."""
    checks.config("config", config, required=keys, allowed=RUN_KEYS + ("controller", "learned"))
    for k in ("n_videos", "noise_seeds", "frames", "T") + (("steps", "long_k") if "steps" in keys else ()):
        checks.positive_int(f"config[{k!r}]", config[k])
    checks.one_of("config['flows']", config["flows"], FLOWS)
    if "steps" in keys:
        if not 1 <= config["long_k"] < config["frames"]:
            raise ValueError(f"config['long_k'] must lie in [1, frames - 1]; got {config['long_k']}")
        lams = config["uniform_lams"]
        if isinstance(lams, (str, bytes)) or not isinstance(lams, (list, tuple)) or not lams:
            raise ValueError(f"config['uniform_lams'] must be a non-empty list of numbers in [0, 1]; got {lams!r}")
        for lam in lams:
            checks.probability("config['uniform_lams']", lam)
        checks.probability("config['post_hoc_lam']", config["post_hoc_lam"])
        checks.config("config['controller']", config.get("controller", {}),
                      allowed=tuple(method.DEFAULTS) + ("lam",))
    lc = config.get("learned")
    if lc is not None:
        checks.config("config['learned']", lc, required=("model", "clips"), allowed=("model", "clips", "controller"))
        checks.one_of("config['learned']['model']", lc["model"], tuple(learned.SIZES))
        checks.positive_int("config['learned']['clips']", lc["clips"])
        if lc["clips"] > config["n_videos"] * config["noise_seeds"]:
            raise ValueError(f"config['learned']['clips'] must be at most n_videos x noise_seeds = "
                             f"{config['n_videos'] * config['noise_seeds']}; got {lc['clips']}")
        if learned.SIZES[lc["model"]] != config["size"]:
            raise ValueError(f"config['learned']['model'] {lc['model']!r} was trained on "
                             f"{learned.SIZES[lc['model']]} px frames, not config['size'] = {config['size']}")
        checks.config("config['learned']['controller']", lc.get("controller", {}),
                      allowed=tuple(method.DEFAULTS) + ("lam",))


def _check_data(d, keys=("video",)) -> None:
    checks.config("d", d, required=keys)
    checks.tensor("d['video']", d["video"], ndim=5)


def setup(config: dict, device, seed: int) -> dict:
    """Videos (each repeated for ``noise_seeds`` noise draws), flows, schedule, denoiser and shared noise.

    ``flows`` / ``valid`` are what the methods receive (estimated or exact, ``config["flows"]``); ``flows_true`` /
    ``valid_true`` are the exact ones the metrics use; ``flow_epe`` is the mean end-point error (pixels) of the
    consecutive flows the methods receive (0 with exact flows).
    """
    _check_config(config, SETUP_KEYS)
    device = checks.device("device", device)
    checks.seed("seed", seed)
    g = torch.Generator().manual_seed(int(seed))
    try:
        d = make_videos(config["n_videos"], config["frames"], config["size"], config["channels"], config["hole"],
                        config["sub_hole"], generator=g)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"config: {exc}") from None
    d["flows_true"], d["valid_true"] = d["flows"], d["valid"]
    if config["flows"] == "estimated":
        est = flowest.estimate_flows(d["known"], d["mask"], padding=d["padding"])
        d["flows"], d["valid"] = est["flows"], est["valid"]
    d["flow_epe"] = _flow_epe(d)
    r = config["noise_seeds"]
    keys = ("video", "mask", "known", "recoverable", "never", "flows", "valid", "flows_true", "valid_true")
    d.update({k: d[k].repeat_interleave(r, 0).to(device) for k in keys})
    ab = cosine_alpha_bar(config["T"])
    den = WienerDenoiser(d["spectrum"].to(device), ab)
    d["alpha_bar"], d["denoiser"] = ab, den
    d["z_T"] = torch.randn(d["video"].shape, generator=g).to(device)
    d["noise_base"] = torch.randn(d["video"][:, 0].shape, generator=g).to(device)
    d["z_T_warped"] = _warped_start(d)
    d["noise_seed"] = int(seed) * 1000 + 17
    return d


def _warped_start(d: dict) -> torch.Tensor:
    """Warped-noise start along the flows ``d`` hands the methods, rounded to whole pixels (nearest-neighbour
    transport keeps every pixel N(0, 1); the estimated flows are sub-pixel)."""
    return baselines.warped_noise(d["noise_base"], d["flows"][:, :, 0].round().contiguous(), padding=d["padding"])


def oracle(d: dict) -> dict:
    """``d`` with the exact flows handed to the methods (the labelled oracle setting)."""
    _check_data(d, ("flows_true", "valid_true", "noise_base", "padding"))
    o = dict(d, flows=d["flows_true"], valid=d["valid_true"], flow_epe=0.0)
    o["z_T_warped"] = _warped_start(o)
    return o


CLIP_KEYS = ("video", "mask", "known", "recoverable", "never", "flows", "valid", "flows_true", "valid_true", "z_T",
             "noise_base", "z_T_warped")
"""The per-clip tensors of :func:`setup`'s dict (first dimension = clip)."""


def learned_data(d: dict, config: dict, device) -> dict:
    """``d`` cut to the learned stage's first ``config["learned"]["clips"]`` clips (the same videos, noise, flows),
    with the shipped learned denoiser (:func:`learned.load`, sha256 checked) in place of the exact score."""
    _check_config(config, SETUP_KEYS)
    _check_data(d, CLIP_KEYS + ("alpha_bar",))
    lc = config.get("learned")
    if lc is None:
        raise ValueError("config['learned'] is None: this scale has no learned-denoiser stage")
    device = checks.device("device", device)
    n = lc["clips"]
    L = dict(d, **{k: d[k][:n] for k in CLIP_KEYS})
    L["denoiser"] = learned.LearnedDenoiser(learned.load(lc["model"], device), d["alpha_bar"])
    L["flow_epe"] = _flow_epe(L)
    return L


def _flow_epe(d: dict) -> float:
    """Mean end-point error (pixels) of the flows the methods use against the exact ones, consecutive frames."""
    a = torch.arange(d["video"].shape[1] - 1)
    return float((d["flows"][:, a, a + 1] - d["flows_true"][:, a, a + 1]).norm(dim=2).mean())


def _data_for(config, device, seed, denoiser):
    d = setup(config, device, seed)
    return learned_data(d, config, device) if denoiser == "learned" else d


def _controller_params(config, denoiser) -> dict:
    return dict((config["learned"] or {}).get("controller", {}) if denoiser == "learned"
                else config.get("controller", {}))


def sample(d: dict, steps: int, controller=None, z_T=None):
    """One RePaint/DDIM run with a fixed noise stream (so methods differ only by the controller)."""
    _check_data(d, ("video", "mask", "known", "denoiser", "alpha_bar", "z_T", "noise_seed"))
    checks.positive_int("steps", steps)
    if z_T is not None:
        checks.tensor("z_T", z_T, shape=d["video"].shape)
    g = torch.Generator(device=d["video"].device).manual_seed(d["noise_seed"])
    keep = (1 - d["mask"]).expand_as(d["video"])
    return ddim_sample(d["denoiser"], d["alpha_bar"], steps, d["z_T"] if z_T is None else z_T, eta=0.0,
                       controller=controller, known=d["known"], keep=keep.contiguous(), generator=g)


def controller(d: dict, mode: str, **params):
    """The method's (or a baseline's) :class:`method.TemporalController` on the clips of ``d``."""
    _check_data(d, ("video", "mask", "known", "flows", "valid", "padding"))
    return method.TemporalController(d["mask"], d["known"], d["flows"], d["valid"], mode=mode,
                                     padding=d["padding"], **params)


def _window_deviation(ctrl) -> torch.Tensor:
    """The normalised deviations D~ a controller logged at the steps inside its active window (flattened)."""
    n, p = len(ctrl.deviation), ctrl.p
    return torch.stack([D for i, D in enumerate(ctrl.deviation) if p["t_lo"] <= 1 - i / n <= p["t_hi"]]).flatten()


def _fraction(ctrl) -> float:
    """Share of (non-anchor frame, step) pairs the controller corrected."""
    return float(ctrl.trigger_raster()[:, :, ~ctrl.is_anchor.cpu()].float().mean())


def calibrate_trigger(config: dict, device, seeds, factors=CAL_FACTORS, budget: float = 0.5,
                      min_hf: float = 0.9, denoiser: str = "exact") -> dict:
    """Choose the trigger (tau, rho) for one scale on DEVELOPMENT seeds (>= 100; refuses evaluation seeds).

    The deviation D~ has a different typical size at each scale (about 1.2 at quick, 0.2 at standard: the larger,
    smoother RGB clips make per-frame fills more alike), so both thresholds are in units of its median ``med``
    (monitor-only plain runs, steps inside the window, all seeds; the "calibration curve" of docs §3 B):
    rho = med (a frame fires once it has accumulated one typical deviation of excess) and tau = factor x med.
    The rule for the factor: the largest mean hole E_warp reduction among the factors that correct at most
    ``budget`` of the (frame, step) pairs and keep the never-visible HF ratio (TSI / plain) >= ``min_hf``
    (detail kept); the largest factor if none qualifies. Returns ``tau``, ``rho``, ``factor``, ``median`` and one
    row per factor (means over seeds). ``denoiser="learned"`` calibrates the learned-denoiser stage (its clips, its
    controller parameters, :func:`learned_data`).
    """
    _check_config(config, RUN_KEYS)
    device = checks.device("device", device)
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (list, tuple)) or not seeds:
        raise ValueError(f"seeds must be a non-empty list of development seeds (>= 100); got {seeds!r}")
    for sd in seeds:
        if checks.seed("seeds", sd) < 100:
            raise ValueError(f"seeds must be development seeds (>= 100), never evaluation seeds; got {sd}")
    if isinstance(factors, (str, bytes)) or not isinstance(factors, (list, tuple)) or not factors:
        raise ValueError(f"factors must be a non-empty list of non-negative numbers; got {factors!r}")
    for fac in factors:
        checks.nonnegative_number("factors", fac)
    checks.probability("budget", budget)
    checks.nonnegative_number("min_hf", min_hf)
    checks.one_of("denoiser", denoiser, DENOISERS)
    if denoiser == "learned" and config.get("learned") is None:
        raise ValueError("denoiser='learned' needs config['learned'] (this scale has no learned stage)")
    cp = {k: v for k, v in _controller_params(config, denoiser).items() if k not in ("tau", "rho")}
    steps, k = config["steps"], config["long_k"]
    data, devs = [], []
    for sd in progress.steps(seeds, desc="calibrate: monitor runs"):
        d = _data_for(config, device, sd, denoiser)
        mon = controller(d, "monitor", **cp)
        data.append((d, metrics(d, sample(d, steps, mon), k)))
        devs.append(_window_deviation(mon))
    med = float(torch.cat(devs).median())
    rows = []
    for fac in progress.steps(factors, desc="calibrate: tau grid"):
        per = []
        for d, plain in data:
            c = controller(d, "tsi", tau=fac * med, rho=med, **cp)
            m = metrics(d, sample(d, steps, c), k)
            per.append((1 - m["e_warp"] / plain["e_warp"], m["hf"] / plain["hf"], _fraction(c)))
        red, hf, frac = (float(np.mean(v)) for v in zip(*per))
        rows.append(dict(factor=float(fac), tau=fac * med, reduction=red, hf_ratio=hf, fraction=frac))
    ok = [r for r in rows if r["fraction"] <= budget and r["hf_ratio"] >= min_hf]
    best = max(ok, key=lambda r: r["reduction"]) if ok else max(rows, key=lambda r: r["factor"])
    return {"tau": best["tau"], "rho": med, "factor": best["factor"], "median": med, "rows": rows}


def metrics(d: dict, y: torch.Tensor, long_k: int) -> dict:
    """Hole E_warp (k = 1 and ``long_k``, on the exact flows), PSNR on recoverable / never-visible pixels, and the
    HF ratio."""
    _check_data(d, ("video", "mask", "flows_true", "valid_true", "padding", "recoverable", "never"))
    checks.tensor("y", y, shape=d["video"].shape)
    if not 1 <= checks.positive_int("long_k", long_k) < d["video"].shape[1]:
        raise ValueError(f"long_k must lie in [1, frames - 1 = {d['video'].shape[1] - 1}]; got {long_k}")
    pad, m, fl, v = d["padding"], d["mask"], d["flows_true"], d["valid_true"]
    x = d["video"]
    return {
        "e_warp": float(method.e_warp(y, fl, v, m, padding=pad)),
        "e_warp_long": float(method.e_warp(y, fl, v, m, k=long_k, padding=pad)),
        "psnr_recoverable": float(method.psnr(y, x, d["recoverable"])),
        "psnr_never": float(method.psnr(y, x, d["never"])),
        "hf": float(method.hf_energy(y, d["never"]) / method.hf_energy(x, d["never"])),
    }


def uniform_frontier_at(plain: dict, sweep: list, e_warp: float) -> dict:
    """The uniform constraint's (E_warp, HF) frontier read at ``e_warp`` (C3's matched point).

    The frontier is the piecewise-linear curve through plain sampling (lam = 0) and the swept lams, ordered by
    E_warp; ``e_warp`` outside its range is clamped to the nearest end (``clamped`` says so). Returns the
    interpolated ``lam``, ``hf`` and ``e_warp``.
    """
    checks.config("plain", plain, required=("e_warp", "hf"))
    checks.mapping_items("sweep", sweep, keys=("lam", "e_warp", "hf"))
    e_warp = checks.finite_number("e_warp", e_warp)
    pts = sorted([(plain["e_warp"], plain["hf"], 0.0)] + [(s["e_warp"], s["hf"], s["lam"]) for s in sweep])
    xs, hfs, lams = (np.array(v, dtype=float) for v in zip(*pts))
    return {"lam": float(np.interp(e_warp, xs, lams)), "hf": float(np.interp(e_warp, xs, hfs)),
            "e_warp": e_warp, "clamped": bool(e_warp < xs[0] or e_warp > xs[-1])}


def run(config: dict, device, seed: int) -> dict:
    """Run every method at equal NFE and return plain-python metrics (see claims.py)."""
    checks.config_like("config", config, CONFIGS.values())
    t0 = time.perf_counter()
    _check_config(config, RUN_KEYS)
    device = checks.device("device", device)
    checks.seed("seed", seed)
    bar = progress.StageBar(["setup", "sample plain", "sample TSI", "always-on and uniform sweep",
                             "post-hoc, warped noise, flow propagation", "exact-flow oracle", "C6 risk"]
                            + (["learned denoiser"] if config.get("learned") is not None else []),
                            desc="video_inpainting")
    bar.next("setup")
    d = setup(config, device, seed)
    steps, k, cp = config["steps"], config["long_k"], dict(config.get("controller", {}))
    out = {"methods": {}}
    bar.next("sample plain")
    mon = controller(d, "monitor", **cp)
    plain = sample(d, steps, mon)
    out["methods"]["plain"] = metrics(d, plain, k)
    out["methods"]["gt"] = metrics(d, d["video"], k)
    bar.next("sample TSI")
    tsi_c = controller(d, "tsi", **cp)
    tsi = sample(d, steps, tsi_c)
    out["methods"]["tsi"] = metrics(d, tsi, k)
    out["fraction_corrected"] = _fraction(tsi_c)
    out["trigger_raster_video0"] = tsi_c.trigger_raster()[:, 0].int().tolist()
    # the headline's negative control: TSI with its trigger disabled (rho so high that it never fires: no correction)
    off_c = controller(d, "tsi", **{**cp, "rho": NEVER_RHO})
    out["methods"]["tsi_no_trigger"] = metrics(d, sample(d, steps, off_c), k)
    out["fraction_corrected_no_trigger"] = _fraction(off_c)
    bar.next("always-on and uniform sweep")
    ao_c = controller(d, "always_on", **cp)
    out["methods"]["always_on"] = metrics(d, sample(d, steps, ao_c), k)
    sweep = []
    for lam in config["uniform_lams"]:
        uc = controller(d, "uniform", lam=lam, **{k2: v for k2, v in cp.items() if k2 != "lam"})
        sweep.append(dict(lam=lam, **metrics(d, sample(d, steps, uc), k)))
    out["uniform_sweep"] = sweep
    bar.next("post-hoc, warped noise, flow propagation")
    ph = baselines.post_hoc_smoothing(plain, d["mask"], d["flows"], d["valid"], lam=config["post_hoc_lam"],
                                      padding=d["padding"])
    out["methods"]["post_hoc"] = metrics(d, ph, k)
    out["methods"]["warped_noise"] = metrics(d, sample(d, steps, None, z_T=d["z_T_warped"]), k)
    out["methods"]["tsi_warped_noise"] = metrics(d, sample(d, steps, controller(d, "tsi", **cp), z_T=d["z_T_warped"]),
                                                 k)
    fp = baselines.flow_propagation(d["known"], d["mask"], d["flows"], d["valid"], plain, padding=d["padding"])
    out["methods"]["flow_propagation"] = metrics(d, fp, k)
    out["flow_epe"] = d["flow_epe"]
    bar.next("exact-flow oracle")
    if config["flows"] == "estimated":  # TSI, warped noise and flow propagation again, with the exact flows
        o = oracle(d)
        fp_o = baselines.flow_propagation(o["known"], o["mask"], o["flows"], o["valid"], plain, padding=o["padding"])
        out["oracle"] = {"tsi": metrics(o, sample(o, steps, controller(o, "tsi", **cp)), k),
                         "warped_noise": metrics(o, sample(o, steps, None, z_T=o["z_T_warped"]), k),
                         "flow_propagation": metrics(o, fp_o, k)}
    bar.next("C6 risk")
    out["uniform_matched"] = uniform_frontier_at(out["methods"]["plain"], sweep, out["methods"]["tsi"]["e_warp"])
    out["spearman_risk_vs_ewarp"] = _risk_spearman(d, mon, plain)
    out["texture_variance"] = float(d["video"].var())
    if config.get("learned") is not None:
        bar.next("learned denoiser")
        out["learned"] = learned_stage(d, config, device, seed)
    out["nfe"] = steps
    out["seconds"] = time.perf_counter() - t0
    bar.close()
    return out


def _risk_spearman(d, mon, plain) -> float:
    """C6: Spearman correlation of the accumulated risk at mid-trajectory (monitor-only plain run) with the final
    per-frame hole E_warp (exact flows)."""
    mid = len(mon.risk) // 2
    R = mon.risk[mid][:, :-1].flatten().numpy()
    ew = method.e_warp(plain, d["flows_true"], d["valid_true"], d["mask"], padding=d["padding"], per_frame=True)
    return float(np.nan_to_num(spearmanr(R, ew.flatten().cpu().numpy()).statistic))


def learned_stage(d: dict, config: dict, device, seed: int) -> dict:
    """Plain vs TSI vs warped noise vs flow propagation under the LEARNED score (:func:`learned_data`'s clips; equal
    NFE, shared noise, the same estimated flows), with the stage's own calibrated trigger; also the learned and the
    exact x0 errors on these clips' frames at every third sampler timestep (``x0_error``)."""
    checks.seed("seed", seed)
    L = learned_data(d, config, device)
    steps, k = config["steps"], config["long_k"]
    cp = _controller_params(config, "learned")
    mon = controller(L, "monitor", **cp)
    plain = sample(L, steps, mon)
    res = {"methods": {"plain": metrics(L, plain, k), "gt": metrics(L, L["video"], k)}}
    tsi_c = controller(L, "tsi", **cp)
    res["methods"]["tsi"] = metrics(L, sample(L, steps, tsi_c), k)
    res["fraction_corrected"] = _fraction(tsi_c)
    res["methods"]["warped_noise"] = metrics(L, sample(L, steps, None, z_T=L["z_T_warped"]), k)
    fp = baselines.flow_propagation(L["known"], L["mask"], L["flows"], L["valid"], plain, padding=L["padding"])
    res["methods"]["flow_propagation"] = metrics(L, fp, k)
    res["spearman_risk_vs_ewarp"] = _risk_spearman(L, mon, plain)
    res["texture_variance"] = float(L["video"].var())
    res["flow_epe"] = L["flow_epe"]
    res["clips"] = int(L["video"].shape[0])
    g = torch.Generator().manual_seed(int(seed) * 1000 + 29)
    ts = ddim_timesteps(int(L["alpha_bar"].shape[0]), steps)[::3]  # every third sampler step, each video once
    res["x0_error"] = learned.x0_error(L["denoiser"], L["video"][::config["noise_seeds"]],
                                       L["spectrum"].to(L["video"].device), L["alpha_bar"], ts, generator=g)
    return res
