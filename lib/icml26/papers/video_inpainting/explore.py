"""Plotting functions for the notebooks' explorers (matplotlib only)."""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.video_inpainting import experiment
from icml26.viz import figure

_SMALL = dict(n_videos=1, noise_seeds=1, frames=8, size=24, channels=1, hole=10, sub_hole=4, T=200, steps=20)


def plot_flicker(method: str = "tsi", frame: int = 3, lam_max: float = 0.6, tau: float = 0.2, seed: int = 0):
    """GT, masked input, the chosen sampler's frame and its flicker map |y^f - W y^{f+1}| (one small clip)."""
    if method not in ("plain", "tsi", "uniform", "always_on"):
        raise ValueError(f"method must be plain, tsi, uniform or always_on; got {method!r}")
    if not 0 <= checks.nonnegative_int("frame", frame) < _SMALL["frames"] - 1:
        raise ValueError(f"frame must lie in [0, {_SMALL['frames'] - 2}]; got {frame}")
    checks.probability("lam_max", lam_max)
    checks.nonnegative_number("tau", tau)
    checks.seed("seed", seed)
    d = experiment.setup(_SMALL, torch.device("cpu"), seed)
    ctrl = None
    if method != "plain":
        ctrl = experiment.controller(d, method, norm="variance", tau=tau, lam_max=lam_max, lam=lam_max)
    y = experiment.sample(d, _SMALL["steps"], ctrl)
    from icml26.render.warp import warp_video
    w = warp_video(y[:, frame + 1], d["flows"][:, frame, frame + 1], padding="periodic")
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


def plot_results(results: dict):
    """E_warp vs HF ratio for every method, with the uniform lam sweep as a curve."""
    checks.config("results", results, required=("methods", "uniform_sweep"))
    checks.config("results['methods']", results["methods"], required=("plain",))
    checks.mapping_items("results['uniform_sweep']", results["uniform_sweep"], keys=("e_warp", "hf"))
    fig, ax = figure(1, 1, width=5, height=3.6)
    sw = results["uniform_sweep"]
    plain_hf = results["methods"]["plain"]["hf"]
    ax.plot([s["e_warp"] for s in sw], [s["hf"] / plain_hf for s in sw], "o-", label="uniform (lam sweep)")
    for name, m in results["methods"].items():
        if name != "gt":
            ax.scatter(m["e_warp"], m["hf"] / plain_hf, label=name, zorder=3)
    ax.set_xlabel("hole E_warp (lower = more consistent)")
    ax.set_ylabel("HF ratio vs plain (never-visible)")
    ax.legend(fontsize=7)
    return fig
