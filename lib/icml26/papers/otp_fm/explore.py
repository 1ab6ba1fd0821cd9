"""Pure plotting functions for the OTP-FM notebooks and widgets (matplotlib).

* :func:`plot_trained_flows`: THE flow-trajectory explorer: the trained models (OTP-FM at three strengths,
  piecewise OT-CFM, MMFM, the neural ODE; weights shipped by :mod:`.explorer_models`) integrated with the ODE
  solver on the rotating blob: trajectories, the cloud at time t, the marginal at every observed time beside
  the data, and W2 along time (time, method, strength, target paths as a toggle).
* :func:`plot_conditional_paths`: OTP-FM conditional paths and speed |u(t)| vs strength, width, kernel, alpha.
* :func:`plot_heldout`, :func:`plot_gapminder`, :func:`plot_strength_sweep`, :func:`plot_efficiency`: figures
  of ``experiment.run``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch

from icml26 import checks
from icml26.papers.otp_fm import data, explorer_models
from icml26.papers.otp_fm.method import KERNELS, OTPPath
from icml26.transport import chain_indices, cubic_spline_path, integrate, piecewise_linear_path, wasserstein
from icml26.viz import PALETTE, figure

METHODS = ("OTP-FM", "piecewise OT-CFM", "MMFM", "neural ODE")
STRENGTHS = (1.0, 2.0, 3.0)
"""log10 of the strengths the explorer's OTP-FM models were trained at."""
N_EXPLORER = 300
GRID = 80
"""Time steps of the drawn flows on [0, 1]; the observed times k/8 lie on this grid."""
_KEY = {"piecewise OT-CFM": "ot_cfm", "MMFM": "mmfm", "neural ODE": "node"}


def _model_key(method: str, log10_strength: float) -> str:
    checks.one_of("method", method, METHODS)
    if method == "OTP-FM":
        s = checks.one_of("log10_strength", round(float(log10_strength), 6), STRENGTHS)
        return f"otp_s{int(10 ** s)}"
    return _KEY[method]


@lru_cache(maxsize=1)
def _explorer_data():
    """Snapshots the models were trained on, the start points of the drawn flows and the OT chains."""
    snaps = explorer_models.snapshots()
    train = [snaps[s] for s in explorer_models.TRAIN]
    return snaps, train[0][:N_EXPLORER], chain_indices(train)


@lru_cache(maxsize=16)
def _flow(key: str) -> torch.Tensor:
    """(GRID + 1, N_EXPLORER, 2): a trained model's flow from the training source, RK4 on the time grid."""
    net = explorer_models.load_models()[key]
    _, x0, _ = _explorer_data()
    return integrate(lambda x, t: net(x, t), x0, torch.linspace(0, 1, GRID + 1), method="rk4", steps=GRID)


@lru_cache(maxsize=16)
def _w2_observed(key: str) -> tuple[float, ...]:
    """W2 of the model's marginal to the data at each of the nine observed times."""
    snaps, _, _ = _explorer_data()
    flow = _flow(key)
    return tuple(wasserstein(flow[k * GRID // 8], snaps[k][:N_EXPLORER]) for k in range(9))


@lru_cache(maxsize=64)
def _truth(t: float):
    return data.rotating_blobs(n=N_EXPLORER, T=2, deg_per_step=360.0 * t, n_blobs=1, seed=7)[1]


def _target_paths(method: str, strength: float, n_paths: int) -> torch.Tensor | None:
    """The method's conditional target paths through the first OT-chained tuples, (GRID + 1, n_paths, 2)."""
    if method == "neural ODE":
        return None
    _, _, chains = _explorer_data()
    snaps, _, _ = _explorer_data()
    train = [snaps[s] for s in explorer_models.TRAIN]
    xs = torch.stack([m[chains[:n_paths, k]] for k, m in enumerate(train)], dim=1).double()
    times = [s / 8 for s in explorer_models.TRAIN]
    grid = torch.linspace(0, 1, GRID + 1, dtype=xs.dtype)
    rep, tb = xs.repeat(GRID + 1, 1, 1), grid.repeat_interleave(n_paths)
    if method == "OTP-FM":
        x = OTPPath(times[1:-1], strength, widths="auto").path(rep[:, 0], rep[:, -1], rep[:, 1:-1], tb)[0]
    elif method == "MMFM":
        x = cubic_spline_path(rep, times, tb)[0]
    else:
        x = piecewise_linear_path(rep, times, tb)[0]
    return x.reshape(GRID + 1, n_paths, 2)


def plot_trained_flows(t: float = 0.375, method: str = "OTP-FM", log10_strength: float = 3.0,
                       show_targets: bool = False, n_paths: int = 40):
    """THE flow-trajectory explorer of trained models on the rotating blob (odd snapshots held out).

    Top left: the method's trajectories (lines), its cloud at time ``t`` (red), the true blob at ``t`` (grey),
    the training (x) and held-out (o) snapshot centres, and optionally its conditional target paths (dashed).
    Top right: W2 to the data at every observed time for every method. Bottom: the method's marginal beside
    the data at each observed time.
    """
    import matplotlib.pyplot as plt

    t = checks.in_range("t", t, 0.0, 1.0)
    checks.one_of("log10_strength", round(checks.finite_number("log10_strength", log10_strength), 6), STRENGTHS)
    n_paths = checks.positive_int("n_paths", n_paths)
    key = _model_key(method, log10_strength)
    s = 10.0 ** round(float(log10_strength), 6)
    snaps, _, _ = _explorer_data()
    flow = _flow(key)
    i = int(round(t * GRID))
    from matplotlib.collections import LineCollection

    fig = plt.figure(figsize=(11.0, 6.4))
    grid = fig.add_gridspec(2, 9, height_ratios=[3.2, 1.0], left=0.05, right=0.99, top=0.95, bottom=0.02,
                            wspace=0.35, hspace=0.3)
    ax = fig.add_subplot(grid[0, :5])
    ax2 = fig.add_subplot(grid[0, 5:])
    ax.add_collection(LineCollection(flow[:, :n_paths].transpose(0, 1).numpy(), colors=PALETTE[0], lw=0.6, alpha=0.4))
    if show_targets:
        paths = _target_paths(method, s, n_paths)
        if paths is not None:
            ax.add_collection(LineCollection(paths.transpose(0, 1).numpy(), colors="k", lw=0.5, ls="--", alpha=0.35))
    truth = _truth(round(i / GRID, 6))
    ax.scatter(truth[:, 0], truth[:, 1], s=5, color="#9a9a9a", alpha=0.5, label="true blob at t")
    ax.scatter(flow[i, :, 0], flow[i, :, 1], s=6, color=PALETTE[1], label="trained flow at t")
    centres = torch.stack([m.mean(0) for m in snaps])
    tr, he = list(explorer_models.TRAIN), list(explorer_models.HELD)
    ax.scatter(centres[tr, 0], centres[tr, 1], marker="x", s=60, color="k", zorder=5, label="training snapshots")
    ax.scatter(centres[he, 0], centres[he, 1], marker="o", s=60, facecolors="none", edgecolors="k", zorder=5,
               label="held-out snapshots")
    circ = np.linspace(0, 2 * math.pi, 200)
    ax.plot(2 * np.cos(circ), 2 * np.sin(circ), color="k", lw=0.5, ls=":")
    ax.set_xlim(-3.2, 3.2)
    ax.set_ylim(-3.2, 3.2)
    ax.set_aspect("equal")
    label = f"{method} (s = {s:.3g})" if method == "OTP-FM" else method
    ax.set_title(f"{label}, t = {i / GRID:.3f}, W2 to the true blob = {wasserstein(flow[i], truth):.3f}", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    obs = [k / 8 for k in range(9)]
    for j, m in enumerate(METHODS):
        curve = _w2_observed(_model_key(m, log10_strength))
        ax2.plot(obs, curve, "o-" if m == method else ".-", ms=4, color=PALETTE[j], lw=2.2 if m == method else 0.9,
                 label=m + (f" (s = {s:.3g})" if m == "OTP-FM" else ""))
    for k in he:
        ax2.axvspan(k / 8 - 0.02, k / 8 + 0.02, color="#eeeeee", zorder=0)
    ax2.axvline(i / GRID, color=PALETTE[1], lw=1.5)
    ax2.set_xlabel("observed time (shaded: held out)")
    ax2.set_ylabel("W2 of the trained flow to the data")
    ax2.legend(fontsize=7)
    w2 = _w2_observed(key)
    for k in range(9):
        axk = fig.add_subplot(grid[1, k])
        d, x = snaps[k][:N_EXPLORER], flow[k * GRID // 8]
        axk.scatter(d[:, 0], d[:, 1], s=1, color="#9a9a9a")
        axk.scatter(x[:, 0], x[:, 1], s=1, color=PALETTE[1])
        axk.set_xlim(-3.2, 3.2)
        axk.set_ylim(-3.2, 3.2)
        axk.set_aspect("equal")
        axk.set_xticks([])
        axk.set_yticks([])
        axk.set_title(f"{k}/8 {'held' if k in he else 'train'}\nW2 {w2[k]:.2f}", fontsize=7)
    return fig


def plot_conditional_paths(log10_strength: float = 2.7, width: float = 0.1, kernel: str = "gaussian",
                           alpha: float = 1.0, n_tuples: int = 12):
    """OTP-FM conditional paths through 2-D tuples (left) and the speed |u(t)| (right), t_k dashed."""
    checks.one_of("kernel", kernel, KERNELS)
    log10_strength = checks.finite_number("log10_strength", log10_strength)
    checks.positive_number("width", width)
    alpha = checks.probability("alpha", alpha)
    n_tuples = checks.positive_int("n_tuples", n_tuples)
    snaps, _, chains = _explorer_data()
    train = [snaps[s] for s in explorer_models.TRAIN]
    times = [s / 8 for s in explorer_models.TRAIN]
    xs = torch.stack([m[chains[:n_tuples, k]] for k, m in enumerate(train)], dim=1).double()
    path = OTPPath(times[1:-1], 10.0 ** float(log10_strength), kernel=kernel, widths=width)
    xk = path.solve_direct(xs[:, 0], xs[:, -1], xs[:, 1:-1])
    ts = torch.linspace(0, 1, 201, dtype=torch.float64)
    pos, speed = [], []
    for u in ts:
        x, v = path.path(xs[:, 0], xs[:, -1], xs[:, 1:-1], torch.full((xs.shape[0],), float(u), dtype=xs.dtype),
                         alpha=float(alpha), xk=xk)
        pos.append(x)
        speed.append(v.norm(dim=1))
    pos, speed = torch.stack(pos), torch.stack(speed)
    fig, axes = figure(ncols=2, width=4.0, height=3.6)
    ax, ax2 = axes.ravel()
    for b in range(xs.shape[0]):
        ax.plot(pos[:, b, 0], pos[:, b, 1], color=PALETTE[0], lw=0.9, alpha=0.7)
        ax.scatter(xs[b, :, 0], xs[b, :, 1], s=10, color=PALETTE[1], zorder=4)
    ax.set_aspect("equal")
    ax.set_title(f"{kernel} kernel, s = {10 ** log10_strength:.3g}, width {width:.2f}, alpha {alpha:.2f}", fontsize=9)
    ax2.plot(ts, speed.mean(1), color=PALETTE[0], label="mean |u(t)|")
    ax2.fill_between(ts.numpy(), speed.min(1).values.numpy(), speed.max(1).values.numpy(), color=PALETTE[0], alpha=0.2)
    for tk in times[1:-1]:
        ax2.axvline(tk, color="k", lw=0.5, ls="--")
    ax2.set_xlabel("t")
    ax2.set_ylabel("speed of the conditional target")
    return fig


_LABELS = {"otp_w2": "OTP-FM (W2)", "otp_w2inf": "OTP-FM (W2-inf)", "otp_w2_meanflow": "OTP-FM (MeanFlow)",
           "ot_cfm": "OT-CFM", "i_cfm": "I-CFM", "mmfm": "MMFM", "cfm_endpoint": "endpoint CFM"}


def _bars(ax, trained, ylabel):
    names = list(trained)
    ax.bar(range(len(names)), [trained[n]["mean_held_w2"] for n in names],
           color=[PALETTE[i % len(PALETTE)] for i in range(len(names))])
    ax.set_xticks(range(len(names)), [_LABELS.get(n, n) for n in names], rotation=30, fontsize=8, ha="right")
    ax.set_ylabel(ylabel)


def plot_heldout(results):
    """Mean held-out W2 per trained method on the rotating blob, and the training-free comparison."""
    fig, axes = figure(ncols=2, width=4.0, height=3.2)
    axes = axes.ravel()
    _bars(axes[0], results["blobs"]["trained"], "mean held-out W2 (trained)")
    tf = results["blobs"]["training_free"]
    held = np.arange(len(tf["otp"]))
    axes[1].bar(held - 0.2, tf["otp"], 0.4, label="OTP-FM paths", color=PALETTE[0])
    axes[1].bar(held + 0.2, tf["chord"], 0.4, label="chord", color=PALETTE[1])
    axes[1].set_xticks(held, ["1/8", "3/8", "5/8", "7/8"])
    axes[1].set_xlabel("held-out time")
    axes[1].set_ylabel("W2 (training-free)")
    axes[1].legend()
    return fig


def plot_gapminder(results):
    """Gapminder: the real snapshots (left) and each method's held-out W2 per held-out year (right)."""
    g = results["gapminder"]
    fig, axes = figure(ncols=2, width=4.2, height=3.3)
    ax, ax2 = axes.ravel()
    raw, years = data.gapminder()
    for i, (m, y) in enumerate(zip(raw, years)):
        ax.scatter(m[:, 0], m[:, 1], s=3, color=PALETTE[i % len(PALETTE)], label=str(y) if i % 5 == 0 else None)
    ax.set_xlabel(data.GAPMINDER_FEATURES[0])
    ax.set_ylabel(data.GAPMINDER_FEATURES[1])
    ax.legend(fontsize=7, markerscale=3)
    ax.set_title("142 countries every 5 years (Gapminder, CC BY 4.0)", fontsize=8)
    for i, (name, r) in enumerate(g["trained"].items()):
        ax2.plot(g["held_years"], r["held_w2"], "o-", ms=3, color=PALETTE[i % len(PALETTE)],
                 label=f"{_LABELS.get(name, name)} ({r['mean_held_w2']:.3f})")
    ax2.axhline(g["chord_w2"], color="k", lw=0.8, ls=":", label=f"untrained chord ({g['chord_w2']:.3f})")
    ax2.set_xlabel("held-out year")
    ax2.set_ylabel("W2 (standardised units)")
    ax2.legend(fontsize=6)
    return fig


def plot_strength_sweep(results):
    sw = results["strength_sweep"]
    fig, ax = figure(width=4.0, height=3.0)
    ax.loglog(sw["strengths"], sw["w2"], "o-", color=PALETTE[0])
    ax.set_xlabel("strength s")
    ax.set_ylabel("W2 at the training marginal t = 0.5")
    return fig


def plot_efficiency(results):
    """Held-out W1 of each method's best-validation checkpoint against training seconds, one panel per fold;
    the dotted line is the common target (the worse of the two final values)."""
    folds = results["efficiency"]["folds"]
    fig, axes = figure(ncols=len(folds), width=3.2, height=3.0)
    for ax, (key, fold) in zip(axes.ravel(), folds.items()):
        for j, (m, label) in enumerate((("otp", "OTP-FM"), ("ode", "neural ODE + Sinkhorn"))):
            sel = np.array(fold["selected"][m])
            raw = np.array(fold["curves"][m])
            ax.plot(sel[:, 0], sel[:, 1], "o-", ms=3, color=PALETTE[j], label=f"{label} (selected)")
            ax.plot(raw[:, 0], raw[:, 2], ":", color=PALETTE[j], lw=0.8, label=f"{label} (current)")
        ax.axhline(fold["target"], color="k", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_xlabel("training seconds")
        ax.set_title(f"hold out t{key}", fontsize=9)
    axes.ravel()[0].set_ylabel("held-out W1")
    axes.ravel()[0].legend(fontsize=6)
    return fig
