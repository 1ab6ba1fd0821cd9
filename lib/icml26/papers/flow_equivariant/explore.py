"""Plotting functions for the FloWM notebooks and widgets (pure: parameters in, matplotlib Figure out)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
from matplotlib.patches import Rectangle

from icml26.papers.flow_equivariant import data
from icml26.papers.flow_equivariant.method import overwrite_memory
from icml26.viz import PALETTE, figure

LABELS = {"flowm": "FloWM", "flowm_v0": "FloWM V0", "no_sme": "FloWM no-SME", "convgru": "ConvGRU",
          "sliding": "sliding window (DFoT stand-in)", "copy_last": "copy last", "all_black": "all black"}


@lru_cache(maxsize=16)
def _episode(step: int, dynamic: bool, seed: int, world=20, window=10, t_in=16, t_out=24):
    g = torch.Generator().manual_seed(seed)
    return data.make_batch(1, world, window, 3, step, t_in, t_out, dynamic=dynamic, split="test", generator=g,
                           keep_world=True)


def _box(ax, cam, window, world, color):
    y0, x0 = int(cam[0]) - window // 2, int(cam[1]) - window // 2
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
    b = _episode(int(step), bool(dynamic), int(seed))
    T_in, world, window = b["frames_in"].shape[1], b["world"].shape[-1], b["frames_in"].shape[-1]
    frames = torch.cat([b["frames_in"], b["targets"]], 1)
    acts = torch.cat([b["actions_in"], b["actions_out"]], 1)
    T = frames.shape[1]
    if not 0 <= t < T:
        raise ValueError(f"t must lie in [0, {T - 1}]; got {t}")
    write = torch.arange(T)[None] < T_in
    maps = overwrite_memory(frames, acts, world, self_motion=self_motion, write=write)
    pred = maps[0, t, :window, :window]
    truth = frames[0, t]
    fig, axes = figure(ncols=4, width=2.6, height=2.8)
    axes = axes[0]
    axes[0].imshow(b["world"][0, t], cmap="gray", vmin=0, vmax=1)
    _box(axes[0], b["cams"][0, t], window, world, PALETTE[1])
    axes[0].set_title(f"world (t={t}, {'observe' if t < T_in else 'predict'})")
    axes[1].imshow(truth, cmap="gray", vmin=0, vmax=1)
    axes[1].set_title("true window")
    axes[2].imshow(maps[0, t], cmap="magma", vmin=0, vmax=1)
    axes[2].add_patch(Rectangle((-0.5, -0.5), window, window, fill=False, ec=PALETTE[2], lw=2))
    axes[2].set_title("egocentric memory map")
    err = float(((pred - truth) ** 2).mean())
    axes[3].imshow(pred, cmap="gray", vmin=0, vmax=1)
    axes[3].set_title(f"memory's window, MSE {err:.3f}")
    for ax in axes:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
    return fig


def plot_memory_mse(step: int = 3, dynamic: bool = False, seed: int = 0):
    """MSE vs prediction step of the parameter-free memory (with / without self-motion), copy-last and all-black."""
    b = _episode(int(step), bool(dynamic), int(seed))
    frames = torch.cat([b["frames_in"], b["targets"]], 1)
    acts = torch.cat([b["actions_in"], b["actions_out"]], 1)
    T_in, world, window, T = b["frames_in"].shape[1], b["world"].shape[-1], b["frames_in"].shape[-1], frames.shape[1]
    write = torch.arange(T)[None] < T_in
    fig, ax = figure(width=5, height=3.2)
    tgt = b["targets"][0]
    for i, sm in enumerate((True, False)):
        maps = overwrite_memory(frames, acts, world, self_motion=sm, write=write)
        mse = ((maps[0, T_in:, :window, :window] - tgt) ** 2).mean((1, 2))
        ax.plot(np.arange(1, T - T_in + 1), mse, color=PALETTE[i], label=f"memory, self-motion {'on' if sm else 'off'}")
    ax.plot(np.arange(1, T - T_in + 1), ((b["frames_in"][0, -1] - tgt) ** 2).mean((1, 2)), color=PALETTE[3],
            label="copy last")
    ax.plot(np.arange(1, T - T_in + 1), (tgt ** 2).mean((1, 2)), color=PALETTE[5], ls="--", label="all black")
    ax.set_xlabel("prediction step")
    ax.set_ylabel("MSE")
    ax.set_title(f"{'dynamic' if dynamic else 'static'} world, camera step {step}")
    ax.legend(fontsize=8)
    return fig


def plot_mse_curves(results: dict, world: str = "static", long: bool = False):
    """Per-step test MSE of every model in ``results[world]`` (``long``: the length-generalisation rollout)."""
    if world not in results:
        raise ValueError(f"world must be one of {[k for k in ('static', 'dynamic') if k in results]}; got {world!r}")
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
