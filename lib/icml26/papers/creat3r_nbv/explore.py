"""Plotting functions for the Creat3r notebooks and widgets (matplotlib; plotly only inside :func:`shell_3d`)."""

from __future__ import annotations

import functools

import numpy as np
import torch

from icml26 import checks
from icml26.papers.creat3r_nbv.matching import make_matcher
from icml26.papers.creat3r_nbv.method import Creat3rConfig, Creat3rSelector, choose_view, run_selection, view_scores
from icml26.papers.creat3r_nbv.scenes import SCENE_CENTRE, SCENES, ViewStore, make_nbv_scene, render_views, shell_poses
from icml26.viz import PALETTE, figure

METHOD_ORDER = ("creat3r", "random", "farthest", "coverage", "fisher", "opacity", "creat3r_oracle")
SIZE, CANDIDATES = 40, 32
"""The explorers' instance: the quick scale's image size and candidate count."""


def _results(results, *keys) -> dict:
    """``results`` of :func:`~icml26.papers.creat3r_nbv.experiment.run` with the summary entries ``keys``."""
    if not isinstance(results, dict) or "summary" not in results or "runs" not in results:
        raise ValueError("results must be the dict returned by experiment.run (with 'summary' and 'runs')")
    missing = [k for k in keys if k not in results["summary"]]
    if missing:
        raise ValueError(f"results lacks the summary entries {missing} (a scale that does not measure them?)")
    return results


def _colour(m):
    base = m.split("_prefix")[0]
    return PALETTE[METHOD_ORDER.index(base) % len(PALETTE)] if base in METHOD_ORDER else PALETTE[-1]


@functools.lru_cache(maxsize=4)
def _sequence(scene: str, seed: int):
    """Creat3r's first three added views from the experiment's seed views, on the explorers' instance (cached)."""
    from icml26.papers.creat3r_nbv.experiment import seed_views

    sc = make_nbv_scene(scene, seed)
    cams = shell_poses(CANDIDATES, torch.Generator().manual_seed(seed), SIZE)
    store = ViewStore(sc, cams)
    run_selection(Creat3rSelector(), store, seed_views(cams), 3, torch.Generator().manual_seed(seed))
    return sc, cams, store


@functools.lru_cache(maxsize=16)
def loop_state(scene: str = "occluder", seed: int = 0, rounds: int = 2, occlusion: bool = True,
               matcher: str = "ncc"):
    """The state after Creat3r added ``rounds`` (<= 3) views, analysed for the next round (cached). ``occlusion``
    and ``matcher`` only change the analysis (the same views)."""
    checks.one_of("scene", scene, SCENES)
    checks.one_of("matcher", matcher, ("ncc", "oracle"))
    rounds = checks.nonnegative_int("rounds", rounds)
    if rounds > 3:
        raise ValueError(f"rounds must be at most 3; got {rounds}")
    sc, cams, full = _sequence(scene, checks.seed("seed", seed))
    store = full.fork()
    for v in full.selected[:2 + rounds]:
        store.select(v)
    sel = Creat3rSelector(Creat3rConfig(occlusion=bool(occlusion)), make_matcher(matcher))
    info = sel.analyse(store, torch.Generator().manual_seed(seed))
    return sc, cams, store, info


def _az_el(cams):
    c = (cams.centers - torch.tensor(SCENE_CENTRE)).numpy()
    az = np.degrees(np.arctan2(c[:, 1], c[:, 0]))
    el = np.degrees(np.arcsin(c[:, 2] / np.linalg.norm(c, axis=1)))
    return az, el


def plot_score_shell(scene: str = "occluder", rounds: int = 2, lam: float = 1.0, gamma: float = 0.15,
                     alpha: float = -1.0, occlusion: bool = True):
    """Candidates on the shell (azimuth, elevation) coloured by the Creat3r score after ``rounds`` added views;
    selected views as black rings, the next choice as a star. ``alpha < 0`` uses the hard gated score."""
    _, cams, store, info = loop_state(scene, 0, rounds, bool(occlusion))
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
    sc, cams, store, info = loop_state(scene, 0, rounds, bool(occlusion))
    c = checks.nonnegative_int("candidate", candidate)
    if c >= len(cams):
        raise ValueError(f"candidate must be below {len(cams)}; got {c}")
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
    """The intermediate point clouds of the NCC matcher and of the depth oracle on the same selected views,
    coloured by confidence w_i, seen from the top or the side."""
    checks.one_of("view", view, ("top", "side"))
    fig, axes = figure(2, 1, width=3.8, height=3.4)
    i, j = (0, 1) if view == "top" else (0, 2)
    for ax, matcher in zip(axes.ravel(), ("ncc", "oracle")):
        _, cams, store, info = loop_state(scene, 0, rounds, True, matcher)
        p = info["cloud"]["points"].numpy()
        s = ax.scatter(p[:, i], p[:, j], c=info["conf"]["w"].numpy(), cmap="viridis", vmin=0, vmax=1, s=4)
        cen = cams[store.selected].centers.numpy()
        ax.scatter(cen[:, i], cen[:, j], marker="^", c="k", s=30, label="selected cameras")
        ax.set(xlabel="x", ylabel="y" if view == "top" else "z", title=f"{matcher}: {len(p)} points")
        ax.set_aspect("equal")
        ax.legend(fontsize=7)
    fig.colorbar(s, ax=axes.ravel()[1], label="confidence w")
    return fig


def plot_coverage_curves(results: dict):
    """Mean triangulable coverage vs number of selected views, one line per selector, with the ceiling that all
    candidates together reach (the dashed line)."""
    s = _results(results, "coverage_curve", "coverage_ceiling")["summary"]
    fig, ax = figure(1, 1, width=4.8, height=3.4)
    for m, ys in s["coverage_curve"].items():
        ax.plot(np.arange(2, 2 + len(ys)), ys, "--" if m.endswith("oracle") else "-o", ms=3, color=_colour(m),
                label=m + (" (upper bound)" if m.endswith("oracle") else ""))
    ax.axhline(s["coverage_ceiling"], color="grey", ls=":", lw=1, label="all candidates")
    ax.set(xlabel="number of selected views (2 seeds + added)", ylabel="seen by >= 2 views",
           title="triangulable coverage")
    ax.legend(fontsize=7)
    return fig


def plot_margins(results: dict):
    """Each paired margin (Creat3r minus a baseline, per instance): the mean with its 95% interval over the
    instances, and the per-instance values as dots."""
    margins = _results(results, "margins")["summary"]["margins"]
    names = list(margins)
    fig, ax = figure(1, 1, width=5.2, height=0.45 * len(names) + 1.0)
    for k, name in enumerate(names):
        m = margins[name]
        ax.plot(m["values"], [k] * len(m["values"]), ".", color=PALETTE[5], ms=5)
        if np.isfinite(m["lo"]):
            ax.plot([m["lo"], m["hi"]], [k, k], "-", color=PALETTE[0], lw=2)
        ax.plot([m["mean"]], [k], "o", color=PALETTE[0])
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    ax.set(xlabel="Creat3r minus baseline (coverage, dB, SSIM or F1)", title="paired margins, 95% intervals")
    return fig


def plot_quality(results: dict):
    """Held-out PSNR, SSIM and surface F1 per selector (standard/full scales), per-instance values as dots."""
    runs = _results(results, "psnr", "ssim", "f1")["runs"]
    s = results["summary"]
    fig, axes = figure(3, 1, width=3.0, height=2.8)
    for ax, key in zip(axes.ravel(), ("psnr", "ssim", "f1")):
        names = list(s[key])
        ax.bar(range(len(names)), [s[key][n] for n in names], color=[_colour(n) for n in names], alpha=0.7)
        for i, n in enumerate(names):
            ax.plot([i] * len(runs), [r["fit"][n][key] for r in runs], "k.", ms=3)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=7)
        ax.set_title(key.upper())
        vals = [r["fit"][n][key] for r in runs for n in names]
        ax.set_ylim(min(vals) - 0.05 * abs(min(vals)), None)
    return fig


def plot_timing(results: dict):
    """Per-round selection time per selector (log scale) and the timed Creat3r vs Fisher round."""
    runs = _results(results)["runs"]
    names = list(runs[0]["round_s"])
    vals = [max(np.mean([r["round_s"][n] for r in runs]), 1e-5) for n in names]
    t = results["summary"].get("timing")
    if t:
        names += ["fisher (1 round)"]
        vals += [t["fisher"]]
    fig, ax = figure(1, 1, width=4.8, height=3.0)
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

    _, cams, store, info = loop_state(scene, 0, rounds, True)
    terms = view_scores(info["maps"]["A"], info["maps"]["C"], Creat3rConfig(alpha=alpha), info["roi"])
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


def plot_scenes(seed: int = 0, views: int = 5):
    """The four test scenes, each from ``views`` candidate poses of the explorers' shell (what a camera sees)."""
    seed, views = checks.seed("seed", seed), checks.positive_int("views", views)
    fig, axes = figure(views, len(SCENES), width=1.6, height=1.6)
    for r, name in enumerate(SCENES):
        cams = shell_poses(views, torch.Generator().manual_seed(seed), SIZE)
        rgb = render_views(make_nbv_scene(name, seed), cams)["rgb"].numpy()
        for c in range(views):
            ax = axes[r, c]
            ax.imshow(rgb[c])
            ax.set_xticks([])
            ax.set_yticks([])
            ax.grid(False)
        axes[r, 0].set_ylabel(name, fontsize=9)
    return fig


def summary_rows(results: dict) -> list[list]:
    """One row per selector: coverage at B and (when fitted) held-out PSNR, SSIM, F1 and the fit's Gaussians."""
    s = _results(results, "coverage_at_B")["summary"]
    rows = []
    for m in s["coverage_at_B"]:
        row = [m, f"{s['coverage_at_B'][m]:.3f}"]
        if "psnr" in s:
            row += [f"{s[k][m]:.3f}" if m in s[k] else "-" for k in ("psnr", "ssim", "f1")]
            row.append(f"{s['gaussians'][m]:.0f}" if m in s["gaussians"] else "-")
        rows.append(row)
    if "psnr" in s:
        m = "creat3r_prefix"
        rows.append([m + " (B - 2 views)", "-", *(f"{s[k][m]:.3f}" for k in ("psnr", "ssim", "f1")),
                     f"{s['gaussians'][m]:.0f}"])
    return rows


def margin_rows(results: dict) -> list[list]:
    """One row per paired margin: mean, 95% interval and the number of instances."""
    return [[k, f"{m['mean']:+.3f}", f"[{m['lo']:+.3f}, {m['hi']:+.3f}]", m["n"]]
            for k, m in _results(results, "margins")["summary"]["margins"].items()]
