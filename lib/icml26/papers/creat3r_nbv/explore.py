"""Plotting functions for the Creat3r notebooks and widgets (matplotlib; plotly only inside :func:`shell_3d`)."""

from __future__ import annotations

import functools
import math

import numpy as np
import torch

from icml26.papers.creat3r_nbv.method import Creat3rConfig, Creat3rSelector, run_selection, view_scores
from icml26.papers.creat3r_nbv.scenes import SCENE_CENTRE, ViewStore, make_nbv_scene, render_views, shell_poses
from icml26.viz import PALETTE, figure

METHOD_ORDER = ("creat3r", "random", "farthest", "coverage", "fisher", "opacity")


def _colour(m):
    return PALETTE[METHOD_ORDER.index(m) % len(PALETTE)] if m in METHOD_ORDER else PALETTE[-1]


@functools.lru_cache(maxsize=4)
def _sequence(scene: str, seed: int, size: int, candidates: int, rounds: int):
    """Creat3r's selected sequence after ``rounds`` added views from the experiment's seed views (cached)."""
    from icml26.papers.creat3r_nbv.experiment import seed_views

    sc = make_nbv_scene(scene, seed)
    cams = shell_poses(candidates, torch.Generator().manual_seed(seed), size)
    store = ViewStore(sc, cams)
    run_selection(Creat3rSelector(), store, seed_views(cams), rounds, torch.Generator().manual_seed(seed))
    return sc, cams, store


@functools.lru_cache(maxsize=16)
def loop_state(scene: str = "occluder", seed: int = 0, size: int = 48, candidates: int = 32, rounds: int = 3,
               occlusion: bool = True):
    """The state after Creat3r added ``rounds`` (<= 3) views, analysed for the next round (cached). ``occlusion``
    only changes the analysis (the same views, composited with or without occlusion)."""
    sc, cams, full = _sequence(scene, seed, size, candidates, 3)
    store = ViewStore(sc, cams)
    store._cache = full._cache
    for v in full.selected[:2 + int(rounds)]:
        store.select(v)
    info = Creat3rSelector(Creat3rConfig(occlusion=occlusion)).analyse(store, torch.Generator().manual_seed(seed))
    return sc, cams, store, info


def _az_el(cams):
    c = (cams.centers - torch.tensor(SCENE_CENTRE)).numpy()
    az = np.degrees(np.arctan2(c[:, 1], c[:, 0]))
    el = np.degrees(np.arcsin(c[:, 2] / np.linalg.norm(c, axis=1)))
    return az, el


def plot_score_shell(scene: str = "occluder", rounds: int = 2, lam: float = 1.0, gamma: float = 0.1,
                     alpha: float = -1.0, occlusion: bool = True):
    """Candidates on the shell (azimuth, elevation) coloured by the Creat3r score after ``rounds`` added views;
    selected views as black rings, the next choice as a star. ``alpha < 0`` uses the hard gated score."""
    from icml26.papers.creat3r_nbv.method import choose_view

    _, cams, store, info = loop_state(scene, 0, 48, 32, int(rounds), bool(occlusion))
    cfg = Creat3rConfig(lam=lam, gamma=gamma, alpha=None if alpha < 0 else alpha)
    terms = view_scores(info["maps"]["A"], info["maps"]["C"], cfg, info["roi"])
    avail = torch.ones(len(cams), dtype=torch.bool)
    avail[store.selected] = False
    nxt = choose_view(terms["score"], terms["gate"], gamma, avail)
    az, el = _az_el(cams)
    fig, axes = figure(2, 1, width=4.2, height=3.3)
    axes = axes.ravel()
    sc = axes[0].scatter(az, el, c=terms["score"].numpy(), cmap="viridis", s=60)
    gated = ~(terms["gate"] >= gamma).numpy()
    axes[0].scatter(az[gated], el[gated], marker="x", c="grey", s=25, label="gate fails")
    axes[0].scatter(az[store.selected], el[store.selected], facecolors="none", edgecolors="k", s=140, lw=1.5,
                    label="selected")
    axes[0].scatter(az[nxt], el[nxt], marker="*", c=PALETTE[1], s=260, label="next view")
    axes[0].set(xlabel="azimuth (deg)", ylabel="elevation (deg)",
                title=f"score S{'_a' if alpha >= 0 else ''} after {rounds} added views")
    axes[0].legend(fontsize=7, loc="lower left")
    fig.colorbar(sc, ax=axes[0])
    order = np.argsort(-terms["score"].numpy())
    x = np.arange(len(order))
    axes[1].bar(x, terms["explore"].numpy()[order], color=PALETTE[0], label="explore mean(1-A)")
    axes[1].bar(x, (terms["refine"] * (lam if alpha < 0 else 1 - alpha)).numpy()[order],
                bottom=terms["explore"].numpy()[order], color=PALETTE[3], label="refine term")
    axes[1].plot(x, terms["gate"].numpy()[order], "k.", label="gate mean(AC)")
    axes[1].axhline(gamma, color="grey", ls="--", lw=1)
    axes[1].set(xlabel="candidates, best first", ylabel="term", title="score decomposition")
    axes[1].legend(fontsize=7)
    return fig


def plot_maps(scene: str = "occluder", rounds: int = 2, candidate: int = 1, occlusion: bool = True):
    """Coverage A, confidence C and exploration E of one candidate, next to the image it *would* capture
    (rendered here for the reader only; the selector never sees it)."""
    sc, cams, store, info = loop_state(scene, 0, 48, 32, int(rounds), bool(occlusion))
    c = int(candidate) % len(cams)
    gt = render_views(sc, cams[c])["rgb"][0].numpy()
    fig, axes = figure(4, 1, width=2.4, height=2.5)
    axes = axes.ravel()
    axes[0].imshow(gt)
    axes[0].set_title(f"candidate {c}{' (selected)' if c in store.selected else ''}", fontsize=9)
    for ax, key in zip(axes[1:], ("A", "C", "E")):
        im = ax.imshow(info["maps"][key][c].numpy(), vmin=0, vmax=1, cmap="magma")
        ax.set_title({"A": "coverage A", "C": "confidence C", "E": "exploration E"}[key], fontsize=9)
    fig.colorbar(im, ax=axes[3], shrink=0.8)
    for ax in axes:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
    return fig


def plot_points(scene: str = "occluder", rounds: int = 2, view: str = "top"):
    """The intermediate point cloud coloured by confidence w_i, seen from the top or the side."""
    _, cams, store, info = loop_state(scene, 0, 48, 32, int(rounds), True)
    p = info["cloud"]["points"].numpy()
    w = info["conf"]["w"].numpy()
    fig, ax = figure(1, 1, width=4.2, height=3.6)
    i, j = (0, 1) if view == "top" else (0, 2)
    s = ax.scatter(p[:, i], p[:, j], c=w, cmap="viridis", vmin=0, vmax=1, s=4)
    cen = cams[store.selected].centers.numpy()
    ax.scatter(cen[:, i], cen[:, j], marker="^", c="k", s=30, label="selected cameras")
    ax.set(xlabel="x", ylabel="y" if view == "top" else "z", title=f"{len(p)} points, coloured by confidence w")
    ax.set_aspect("equal")
    ax.legend(fontsize=7)
    fig.colorbar(s, ax=ax)
    return fig


def plot_coverage_curves(results: dict):
    """Mean triangulable coverage vs number of selected views, one line per selector."""
    curves = results["summary"]["coverage_curve"]
    fig, ax = figure(1, 1, width=4.6, height=3.3)
    for m, ys in curves.items():
        ax.plot(np.arange(2, 2 + len(ys)), ys, "-o", ms=3, color=_colour(m), label=m)
    ax.set(xlabel="number of selected views (2 seeds + added)", ylabel="covered by >= 2 views",
           title="triangulable coverage")
    ax.legend(fontsize=8)
    return fig


def plot_quality(results: dict):
    """Held-out PSNR, SSIM and surface F1 per selector (standard/full scales)."""
    s = results["summary"]
    fig, axes = figure(3, 1, width=3.0, height=2.8)
    axes = axes.ravel()
    for ax, key in zip(axes, ("psnr", "ssim", "f1")):
        names = list(s[key])
        ax.bar(range(len(names)), [s[key][n] for n in names], color=[_colour(n.split("_")[0]) for n in names])
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=7)
        ax.set_title(key.upper())
        lo = min(s[key].values())
        ax.set_ylim(lo * 0.95 if key == "psnr" else max(0.0, lo - 0.1), None)
    return fig


def plot_timing(results: dict):
    """Per-round selection time per selector (log scale) and the timed Creat3r vs Fisher round."""
    runs = results["runs"]
    names = list(runs[0]["round_s"])
    vals = [np.mean([r["round_s"][n] for r in runs]) for n in names]
    t = results["summary"].get("timing")
    if t:
        names += ["fisher (1 round)"]
        vals += [t["fisher"]]
    fig, ax = figure(1, 1, width=4.6, height=3.0)
    ax.bar(range(len(names)), vals, color=[_colour(n.split(" ")[0]) for n in names])
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set(ylabel="seconds per round", title="selection cost" + (f" (Fisher / Creat3r = {t['ratio']:.0f}x)"
                                                                 if t else ""))
    return fig


def shell_3d(scene: str = "occluder", rounds: int = 3, alpha: float = 0.5):
    """Plotly 3D view: the point cloud coloured by confidence, candidates coloured by ``S_alpha``, and the
    selected sequence as a path."""
    import plotly.graph_objects as go

    _, cams, store, info = loop_state(scene, 0, 48, 32, int(rounds), True)
    terms = view_scores(info["maps"]["A"], info["maps"]["C"], Creat3rConfig(alpha=float(alpha)), info["roi"])
    p = info["cloud"]["points"].numpy()
    c = cams.centers.numpy()
    seq = c[store.selected]
    fig = go.Figure([
        go.Scatter3d(x=p[:, 0], y=p[:, 1], z=p[:, 2], mode="markers", name="points (confidence)",
                     marker=dict(size=2, color=info["conf"]["w"].numpy(), colorscale="Viridis", cmin=0, cmax=1)),
        go.Scatter3d(x=c[:, 0], y=c[:, 1], z=c[:, 2], mode="markers", name=f"candidates (S, alpha={alpha:g})",
                     marker=dict(size=5, color=terms["score"].numpy(), colorscale="Plasma", showscale=True)),
        go.Scatter3d(x=seq[:, 0], y=seq[:, 1], z=seq[:, 2], mode="lines+markers", name="selected sequence",
                     line=dict(color="black", width=4), marker=dict(size=4, color="black")),
    ])
    fig.update_layout(height=520, margin=dict(l=0, r=0, t=30, b=0), title=f"{scene}: shell after {rounds} views",
                      scene=dict(aspectmode="data"))
    return fig


def angular_spread(cams, seq) -> float:
    """Mean pairwise angle (degrees) between selected camera directions (a summary used in the notebooks)."""
    d = torch.nn.functional.normalize(cams.centers[seq] - torch.tensor(SCENE_CENTRE), dim=-1)
    cos = (d @ d.T).clamp(-1, 1)
    n = len(seq)
    return float(torch.rad2deg(torch.arccos(cos)).sum() / max(n * (n - 1), 1)) if n > 1 else math.nan
