"""Plotting functions for the FloWM notebooks and widgets (pure: parameters in, matplotlib Figure out)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
from matplotlib.patches import Rectangle

from icml26 import checks
from icml26.papers.flow_equivariant import data
from icml26.papers.flow_equivariant.method import overwrite_memory
from icml26.viz import PALETTE, figure

EPISODE_STEPS = 40

LABELS = {"flowm": "FloWM", "flowm_v0": "FloWM V0", "no_sme": "FloWM no-SME", "convgru": "ConvGRU",
          "sliding": "sliding window (DFoT stand-in)", "copy_last": "copy last", "all_black": "all black"}


def _check_results(results) -> None:
    if not isinstance(results, dict) or "static" not in results:
        raise ValueError("results must be the dict experiment.run returns (with a 'static' study)")


@lru_cache(maxsize=16)
def _episode(step: int, dynamic: bool, seed: int, world=20, window=10, t_in=16, t_out=EPISODE_STEPS - 16):
    g = torch.Generator().manual_seed(seed)
    return data.make_batch(1, world, window, 3, step, t_in, t_out, dynamic=dynamic, split="test", generator=g,
                           keep_world=True)


def _box(ax, cam, window, world, color):
    y0, x0 = int(cam[0]) - window // 2, int(cam[1]) - window // 2  # cam: a (2,) integer tensor
    for dy in (0, world):
        for dx in (0, world):
            ax.add_patch(Rectangle((x0 % world - dx - 0.5, y0 % world - dy - 0.5), window, window, fill=False,
                                   ec=color, lw=2))
    ax.set_xlim(-0.5, world - 0.5)
    ax.set_ylim(world - 0.5, -0.5)


def plot_partial_observability(t: int = 20, step: int = 3, dynamic: bool = False, self_motion: bool = True,
                               seed: int = 0):
    """World with camera box | window | egocentric memory map (shift + overwrite) | what memory predicts.

    During the first 16 steps the camera explores (frames are written into memory); afterwards memory must
    predict the window from what it stored (no writes). With ``self_motion`` off the map is not shifted by the
    camera's motion and the prediction is misaligned; with ``dynamic`` digits keep moving out of view and a
    single static memory channel goes stale (what FloWM's velocity channels fix).
    """
    checks.nonnegative_int("t", t)
    if t >= EPISODE_STEPS:
        raise ValueError(f"t must lie in [0, {EPISODE_STEPS - 1}]; got {t}")
    b = _episode(checks.positive_int("step", step), bool(dynamic), checks.seed("seed", seed))
    T_in, world, window = b["frames_in"].shape[1], b["world"].shape[-1], b["frames_in"].shape[-1]
    frames = torch.cat([b["frames_in"], b["targets"]], 1)
    acts = torch.cat([b["actions_in"], b["actions_out"]], 1)
    T = frames.shape[1]
    write = torch.arange(T)[None] < T_in
    maps = overwrite_memory(frames, acts, world, self_motion=self_motion, write=write)
    pred = maps[0, t, :window, :window]
    truth = frames[0, t]
    fig, axes = figure(ncols=4, width=2.6, height=2.8)
    axes = axes[0]
    axes[0].imshow(b["world"][0, t].numpy(), cmap="gray", vmin=0, vmax=1)
    _box(axes[0], b["cams"][0, t], window, world, PALETTE[1])
    axes[0].set_title(f"world (t={t}, {'observe' if t < T_in else 'predict'})")
    axes[1].imshow(truth.numpy(), cmap="gray", vmin=0, vmax=1)
    axes[1].set_title("true window")
    axes[2].imshow(maps[0, t].numpy(), cmap="magma", vmin=0, vmax=1)
    axes[2].add_patch(Rectangle((-0.5, -0.5), window, window, fill=False, ec=PALETTE[2], lw=2))
    axes[2].set_title("egocentric memory map")
    err = float(((pred - truth) ** 2).mean())
    axes[3].imshow(pred.numpy(), cmap="gray", vmin=0, vmax=1)
    axes[3].set_title(f"memory's window, MSE {err:.3f}")
    for ax in axes:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
    return fig


def plot_memory_mse(step: int = 3, dynamic: bool = False, seed: int = 0):
    """MSE vs prediction step of the parameter-free memory (with / without self-motion), copy-last and all-black."""
    b = _episode(checks.positive_int("step", step), bool(dynamic), checks.seed("seed", seed))
    frames = torch.cat([b["frames_in"], b["targets"]], 1)
    acts = torch.cat([b["actions_in"], b["actions_out"]], 1)
    T_in, world, window, T = b["frames_in"].shape[1], b["world"].shape[-1], b["frames_in"].shape[-1], frames.shape[1]
    write = torch.arange(T)[None] < T_in
    fig, ax = figure(width=5, height=3.2)
    tgt = b["targets"][0]
    for i, sm in enumerate((True, False)):
        maps = overwrite_memory(frames, acts, world, self_motion=sm, write=write)
        mse = ((maps[0, T_in:, :window, :window] - tgt) ** 2).mean((1, 2))
        ax.plot(np.arange(1, T - T_in + 1), mse.numpy(), color=PALETTE[i],
                label=f"memory, self-motion {'on' if sm else 'off'}")
    ax.plot(np.arange(1, T - T_in + 1), ((b["frames_in"][0, -1] - tgt) ** 2).mean((1, 2)).numpy(), color=PALETTE[3],
            label="copy last")
    ax.plot(np.arange(1, T - T_in + 1), (tgt ** 2).mean((1, 2)).numpy(), color=PALETTE[5], ls="--", label="all black")
    ax.set_xlabel("prediction step")
    ax.set_ylabel("MSE")
    ax.set_title(f"{'dynamic' if dynamic else 'static'} world, camera step {step}")
    ax.legend(fontsize=8)
    return fig


def plot_mse_curves(results: dict, world: str = "static", long: bool = False):
    """Per-step test MSE of every model in ``results[world]`` (``long``: the length-generalisation rollout)."""
    _check_results(results)
    checks.one_of("world", world, [k for k in ("static", "dynamic") if k in results])
    key = "long_curve" if long else "mse_curve"
    fig, ax = figure(width=5.5, height=3.4)
    for i, (kind, rec) in enumerate(results[world].items()):
        if key not in rec:
            continue
        curve = rec[key]
        ls = "--" if kind in ("copy_last", "all_black") else "-"
        ax.plot(np.arange(1, len(curve) + 1), curve, ls=ls, color=PALETTE[i % len(PALETTE)],
                label=LABELS.get(kind, kind))
    ax.set_yscale("log")
    ax.set_xlabel("prediction step")
    ax.set_ylabel("test MSE")
    ax.set_title(f"{world} world{' (length generalisation)' if long else ''}")
    ax.legend(fontsize=7)
    return fig


def plot_training_curves(results: dict, world: str = "dynamic"):
    """Validation MSE during training (when recorded) against iterations, with 0.5 x all-black."""
    _check_results(results)
    checks.one_of("world", world, [k for k in ("static", "dynamic") if k in results])
    fig, ax = figure(width=5, height=3.2)
    recs = results[world]
    for i, (kind, rec) in enumerate(recs.items()):
        if rec.get("eval_iters"):
            ax.plot(rec["eval_iters"], rec["eval_mse"], marker="o", color=PALETTE[i % len(PALETTE)],
                    label=LABELS.get(kind, kind))
    ax.axhline(0.5 * recs["all_black"]["mse"], color=PALETTE[5], ls=":", label="0.5 x all black")
    ax.set_xlabel("iteration")
    ax.set_ylabel("val MSE")
    ax.legend(fontsize=7)
    return fig


def plot_long_rollout(results: dict):
    """Moving world: per-step MSE over the long rollout (log scale) and FloWM's mean latent activity beside it."""
    _check_results(results)
    if "dynamic" not in results:
        raise ValueError("results must hold the moving-world study (standard or full scale)")
    dyn, diag = results["dynamic"], results.get("diagnostics", {}).get("dynamic", {})
    fig, axes = figure(ncols=2, width=5.0, height=3.3)
    ax, ax2 = axes[0]
    for i, (kind, rec) in enumerate(dyn.items()):
        c = rec.get("long_curve")
        if c is None or kind == "copy_last":
            continue
        ax.plot(np.arange(1, len(c) + 1), c, color=PALETTE[i % len(PALETTE)], label=LABELS.get(kind, kind),
                ls="--" if kind == "all_black" else "-")
    ax.axvline(results["config"]["t_out"], color="0.5", ls=":", label="training horizon")
    ax.set_yscale("log")
    ax.set_xlabel("prediction step")
    ax.set_ylabel("test MSE")
    ax.set_title("moving world, long rollout")
    ax.legend(fontsize=7)
    for i, key in enumerate(("flowm_stats", "flowm_v0_stats")):
        if key in diag:
            act = diag[key]["activity"]
            ax2.plot(np.arange(1, len(act) + 1), act, color=PALETTE[i], label=LABELS["flowm" if i == 0 else "flowm_v0"])
    ax2.set_yscale("log")
    ax2.set_xlabel("prediction step")
    ax2.set_ylabel("mean |h| of the latent map")
    ax2.set_title("does the map stay bounded?")
    if ax2.lines:
        ax2.legend(fontsize=7)
    return fig


def mse_rows(results: dict) -> list[list]:
    """One row per model: params, static-world MSE and (when run) the moving world's MSE over steps 1-20 and the
    last 20 steps of the long rollout."""
    _check_results(results)
    rows = []
    for kind in LABELS:
        st = results["static"].get(kind)
        dy = results.get("dynamic", {}).get(kind)
        if st is None and dy is None:
            continue
        long = dy.get("long_curve") if dy else None
        rows.append([LABELS[kind], (st or dy)["params"], st["mse"] if st else "-",
                     sum(long[:20]) / 20 if long else "-", sum(long[-20:]) / 20 if long else "-"])
    return rows


MSE_HEADER = ["model", "parameters", "static MSE", "moving MSE, steps 1-20", "moving MSE, last 20 steps"]
