"""Plotting functions for the notebooks' explorers (matplotlib only).

Each explorer runs one small clip (8 frames of 24 x 24, 20 DDIM steps, the exact Gaussian-prior denoiser, flows
estimated from the masked frames as in the recorded runs) so a slider move redraws in about a second on a CPU.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.video_inpainting import experiment
from icml26.render.warp import warp_video
from icml26.viz import PALETTE, figure

_SMALL = dict(n_videos=1, noise_seeds=1, frames=8, size=24, channels=1, hole=10, sub_hole=4, T=200, steps=20,
              flows="estimated")
_TAU, _RHO = experiment.TRIGGER["quick"]["tau"], experiment.TRIGGER["quick"]["rho"]


def _small_clip(seed):
    checks.seed("seed", seed)
    return experiment.setup(_SMALL, torch.device("cpu"), seed)


def plot_flicker(method: str = "tsi", frame: int = 3, lam_max: float = 0.6, tau: float = _TAU, seed: int = 0):
    """GT, masked input, the chosen sampler's frame and its flicker map |y^f - W y^{f+1}| (one small clip)."""
    checks.one_of("method", method, ("plain", "tsi", "uniform", "always_on"))
    if not 0 <= checks.nonnegative_int("frame", frame) < _SMALL["frames"] - 1:
        raise ValueError(f"frame must lie in [0, {_SMALL['frames'] - 2}]; got {frame}")
    checks.probability("lam_max", lam_max)
    checks.nonnegative_number("tau", tau)
    d = _small_clip(seed)
    ctrl = None
    if method != "plain":
        ctrl = experiment.controller(d, method, norm="variance", tau=tau, rho=_RHO, lam_max=lam_max, lam=lam_max)
    y = experiment.sample(d, _SMALL["steps"], ctrl)
    w = warp_video(y[:, frame + 1], d["flows_true"][:, frame, frame + 1], padding="periodic")
    flick = ((y[:, frame] - w).abs() * d["mask"][:, frame])[0, 0]
    fig, axes = figure(4, 1, width=2.4, height=2.5)
    panels = [d["video"][0, frame, 0], d["known"][0, frame, 0], y[0, frame, 0], flick]
    titles = ["ground truth", "masked input", f"{method} frame {frame}", "flicker |y - W y'|"]
    for ax, im, t in zip(axes.flat, panels, titles):
        ax.imshow(im.numpy(), cmap="magma" if "flicker" in t else "gray", vmin=0 if "flicker" in t else -2.5,
                  vmax=2.5)
        ax.set_title(t)
        ax.set_axis_off()
    return fig


def plot_trigger_raster(tau: float = _TAU, rho: float = _RHO, beta: float = 0.8, seed: int = 0):
    """Where TSI fires over the trajectory: the (frame x step) trigger raster, and the normalised deviation D~ and
    accumulated risk R of every frame per step (dots: corrections; shaded: outside the active window)."""
    checks.nonnegative_number("tau", tau)
    checks.positive_number("rho", rho)
    checks.probability("beta", beta)
    if beta >= 1:
        raise ValueError(f"beta must lie in [0, 1); got {beta}")
    d = _small_clip(seed)
    c = experiment.controller(d, "tsi", norm="variance", tau=tau, rho=rho, beta=beta)
    experiment.sample(d, _SMALL["steps"], c)
    raster = c.trigger_raster()[:, 0].T.float()                       # (F, steps)
    dev = torch.stack(c.deviation)[:, 0]                               # (steps, F)
    risk = torch.stack(c.risk)[:, 0]
    n = raster.shape[1]
    outside = [i for i in range(n) if not c.p["t_lo"] <= 1 - i / n <= c.p["t_hi"]]
    fig, axes = figure(3, 1, width=3.6, height=3.0)
    ax = axes.flat[0]
    ax.imshow(raster.numpy(), aspect="auto", cmap="Blues", vmin=0, vmax=1, interpolation="nearest")
    ax.set_xlabel("sampling step")
    ax.set_ylabel("frame (anchors never fire)")
    ax.set_title(f"trigger raster: {float(raster[~c.is_anchor.cpu()].mean()):.0%} of non-anchor pairs")
    ax.grid(False)
    for ax, curve, name in ((axes.flat[1], dev, "normalised deviation D~"), (axes.flat[2], risk, "risk R")):
        for f in range(curve.shape[1]):
            col = PALETTE[f % len(PALETTE)]
            ax.plot(curve[:, f].numpy(), color=col, lw=1)
            fired = raster[f].nonzero().flatten()
            ax.plot(fired.numpy(), curve[fired, f].numpy(), "o", color=col, ms=3)
        for i in outside:
            ax.axvspan(i - 0.5, i + 0.5, color="0.9", lw=0)
        ax.set_xlabel("sampling step")
        ax.set_title(name)
    axes.flat[1].axhline(tau, color="k", ls="--", lw=0.8, label="tau")
    axes.flat[1].set_ylim(0, max(3.0, 1.2 * tau))
    axes.flat[2].axhline(rho, color="k", ls="--", lw=0.8, label="rho")
    axes.flat[2].legend(fontsize=7)
    return fig


def plot_pareto_front(seed: int = 0, lam_max: float = 0.6):
    """The consistency-detail plane on one small clip: TSI's curve over tau against the uniform constraint's curve
    over lam (up and to the left is better); ``lam_max`` sets TSI's correction strength."""
    checks.probability("lam_max", lam_max)
    checks.seed("seed", seed)
    d = _small_clip(seed)
    k, steps, taus = 4, _SMALL["steps"], (0.0, 0.3, 0.6, 0.9, 1.2, 2.0)
    plain = experiment.metrics(d, experiment.sample(d, steps), k)

    def point(mode=None, z_T=None, **kw):
        ctrl = None if mode is None else experiment.controller(d, mode, **kw)
        m = experiment.metrics(d, experiment.sample(d, steps, ctrl, z_T=z_T), k)
        return m["e_warp"], m["hf"] / plain["hf"]

    tsi = [point("tsi", norm="variance", tau=t, rho=_RHO, lam_max=lam_max) for t in taus]
    uni = [(plain["e_warp"], 1.0)] + [point("uniform", lam=lam) for lam in (0.05, 0.1, 0.2, 0.4, 0.8)]
    fig, ax = figure(1, 1, width=5.2, height=3.8)
    ax.plot(*zip(*uni), "o-", color=PALETTE[1], label="uniform constraint (lam 0 ... 0.8)")
    ax.plot(*zip(*tsi), "s-", color=PALETTE[0], label=f"TSI (tau {taus[0]} ... {taus[-1]}, labels), lam_max {lam_max}")
    for (x, y), t in zip(tsi, taus):
        ax.annotate(f"{t:g}", (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.plot(*point(z_T=d["z_T_warped"]), "D", color=PALETTE[2], label="warped noise")
    ax.plot(*point("tsi", z_T=d["z_T_warped"], norm="variance", tau=_TAU, rho=_RHO, lam_max=lam_max), "P",
            color=PALETTE[3],
            label="TSI on warped noise")
    ax.set_xlabel("hole E_warp (lower = more consistent)")
    ax.set_ylabel("never-visible HF ratio vs plain")
    ax.legend(fontsize=7)
    return fig


def plot_results(results: dict):
    """E_warp vs HF ratio (vs plain) for every method of one run, with the uniform frontier through plain (lam = 0)
    and the lam sweep, and C3's matched point on it."""
    checks.config("results", results, required=("methods", "uniform_sweep"))
    checks.config("results['methods']", results["methods"], required=("plain",))
    checks.mapping_items("results['uniform_sweep']", results["uniform_sweep"], keys=("e_warp", "hf"))
    fig, ax = figure(1, 1, width=5.2, height=3.8)
    plain = results["methods"]["plain"]
    sw = sorted([(plain["e_warp"], plain["hf"])] + [(s["e_warp"], s["hf"]) for s in results["uniform_sweep"]])
    ax.plot([e for e, _ in sw], [h / plain["hf"] for _, h in sw], "o-", color="0.6",
            label="uniform frontier (lam sweep)")
    if "uniform_matched" in results:
        um = results["uniform_matched"]
        ax.plot(um["e_warp"], um["hf"] / plain["hf"], "x", color="k", ms=8, label="uniform at TSI's E_warp")
    for i, (name, m) in enumerate(n for n in results["methods"].items() if n[0] != "gt"):
        ax.scatter(m["e_warp"], m["hf"] / plain["hf"], label=name, zorder=3, color=PALETTE[i % len(PALETTE)])
    ax.set_xlabel("hole E_warp (lower = more consistent)")
    ax.set_ylabel("never-visible HF ratio vs plain")
    ax.legend(fontsize=7)
    return fig
