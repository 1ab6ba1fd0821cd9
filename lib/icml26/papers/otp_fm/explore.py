"""Pure plotting functions for the OTP-FM notebooks and widgets (matplotlib; closed forms, so each redraw is fast).

* :func:`plot_flow_explorer`: THE flow-trajectory explorer: particle clouds of each method's conditional
  paths at time t on a rotating blob, with the true snapshot and W2 (time, method, number of marginals,
  strength).
* :func:`plot_conditional_paths`: OTP-FM conditional paths and speed |u(t)| vs strength, width, kernel, alpha.
* :func:`plot_heldout`, :func:`plot_strength_sweep`, :func:`plot_efficiency`: figures of ``experiment.run``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch

from icml26.papers.otp_fm import data
from icml26.papers.otp_fm.method import KERNELS, OTPPath
from icml26.transport import chain_indices, cubic_spline_path, piecewise_linear_path, wasserstein
from icml26.viz import PALETTE, figure

METHODS = ("OTP-FM (W2, OT chains)", "OTP-FM (W2-inf, random tuples)", "OT-CFM (piecewise, OT)",
           "I-CFM (piecewise, random)", "MMFM (cubic spline)")
N_EXPLORER = 120


@lru_cache(maxsize=32)
def _blob_tuples(n_marginals: int, seed: int = 0):
    """Tuples through K = n_marginals intermediate snapshots of one blob turning a full circle."""
    k = int(n_marginals)
    snaps = data.rotating_blobs(n=N_EXPLORER, T=k + 2, deg_per_step=360.0 / (k + 1), n_blobs=1, seed=seed)
    times = [i / (k + 1) for i in range(k + 2)]
    chains = chain_indices(snaps)
    ot_xs = torch.stack([m[chains[:, i]] for i, m in enumerate(snaps)], dim=1).double()
    g = torch.Generator().manual_seed(seed + 1)
    rnd = torch.stack([m[torch.randperm(N_EXPLORER, generator=g)] for m in snaps], dim=1).double()
    return ot_xs, rnd, times


@lru_cache(maxsize=64)
def _truth(t: float, seed: int = 0):
    return data.rotating_blobs(n=N_EXPLORER, T=2, deg_per_step=360.0 * t, n_blobs=1, seed=seed + 7)[1].double()


def method_positions(method: str, t: float, n_marginals: int = 3, strength: float = 1000.0, width: float = 0.1,
                     kernel: str = "gaussian", seed: int = 0) -> torch.Tensor:
    """Positions at time ``t`` of every conditional path of ``method`` (its target marginal at t)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if not 0 <= t <= 1:
        raise ValueError(f"t must lie in [0, 1]; got {t}")
    if isinstance(n_marginals, bool) or not isinstance(n_marginals, int) or not 1 <= n_marginals <= 9:
        raise ValueError(f"n_marginals must be an integer in [1, 9]; got {n_marginals!r}")
    ot_xs, rnd, times = _blob_tuples(n_marginals, seed)
    xs = rnd if "random" in method else ot_xs
    tb = torch.full((xs.shape[0],), float(t), dtype=xs.dtype)
    if method.startswith("OTP-FM"):
        path = OTPPath(times[1:-1], strength, kernel=kernel, widths=width)
        return path.path(xs[:, 0], xs[:, -1], xs[:, 1:-1], tb)[0]
    if method.startswith("MMFM"):
        return cubic_spline_path(xs, times, tb)[0]
    return piecewise_linear_path(xs, times, tb)[0]


def _trajectories(method: str, n_marginals: int, strength: float, n_paths: int, steps: int = 61) -> torch.Tensor:
    """(steps, n_paths, 2) positions of the first ``n_paths`` conditional paths, all times in one batched call."""
    ot_xs, rnd, times = _blob_tuples(n_marginals)
    xs = (rnd if "random" in method else ot_xs)[:n_paths]
    grid = torch.linspace(0, 1, steps, dtype=xs.dtype)
    rep = xs.repeat(steps, 1, 1)
    tb = grid.repeat_interleave(xs.shape[0])
    if method.startswith("OTP-FM"):
        path = OTPPath(times[1:-1], strength, kernel="gaussian", widths=0.1)
        x = path.path(rep[:, 0], rep[:, -1], rep[:, 1:-1], tb)[0]
    elif method.startswith("MMFM"):
        x = cubic_spline_path(rep, times, tb)[0]
    else:
        x = piecewise_linear_path(rep, times, tb)[0]
    return x.reshape(steps, xs.shape[0], 2)


@lru_cache(maxsize=256)
def _w2_curve(method: str, n_marginals: int, log10_strength: float, n_times: int = 9):
    """W2 to the true blob along t for one method (cached; only OTP-FM depends on the strength)."""
    ts = np.linspace(0, 1, n_times)
    s = 10.0 ** log10_strength
    return [wasserstein(method_positions(method, float(u), n_marginals, s), _truth(round(float(u), 6))) for u in ts]


def _w2_curves(n_marginals: int, log10_strength: float, n_times: int = 9):
    ts = tuple(float(u) for u in np.linspace(0, 1, n_times))
    return ts, {m: _w2_curve(m, n_marginals, log10_strength if m.startswith("OTP") else 0.0, n_times)
                for m in METHODS}


def plot_flow_explorer(t: float = 0.375, method: str = METHODS[0], n_marginals: int = 3, log10_strength: float = 3.0,
                       n_paths: int = 40):
    """THE flow-trajectory explorer. Left: the method's conditional paths (lines), its cloud at time t
    (dots), the true blob at t (grey) and the observed marginals (crosses). Right: W2 to the true blob
    along t for every method (the chosen one bold), t marked."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    k, ls = int(n_marginals), round(float(log10_strength), 6)
    s = 10.0 ** ls
    ot_xs, _, times = _blob_tuples(k)
    fig, axes = figure(ncols=2, width=4.2, height=3.9)
    ax, ax2 = axes.ravel()
    traj = _trajectories(method, k, s, n_paths)
    ax.plot(traj[:, :, 0].numpy(), traj[:, :, 1].numpy(), color=PALETTE[0], lw=0.6, alpha=0.35)
    truth = _truth(round(float(t), 6))
    ax.scatter(truth[:, 0], truth[:, 1], s=5, color="#9a9a9a", alpha=0.5, label="true blob at t")
    cloud = method_positions(method, float(t), k, s)
    ax.scatter(cloud[:, 0], cloud[:, 1], s=6, color=PALETTE[1], label="method's cloud at t")
    centres = ot_xs.mean(0)
    ax.scatter(centres[:, 0], centres[:, 1], marker="x", s=60, color="k", zorder=5, label="observed marginals")
    circ = np.linspace(0, 2 * math.pi, 200)
    ax.plot(2 * np.cos(circ), 2 * np.sin(circ), color="k", lw=0.5, ls=":")
    ax.set_xlim(-3.2, 3.2)
    ax.set_ylim(-3.2, 3.2)
    ax.set_aspect("equal")
    ax.set_title(f"{method}\nt = {t:.3f}, K = {k}, W2 = {wasserstein(cloud, truth):.3f}", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    ts, curves = _w2_curves(k, ls)
    for i, m in enumerate(METHODS):
        ax2.plot(ts, curves[m], "o-" if m == method else "-", ms=3, color=PALETTE[i], lw=2.2 if m == method else 0.9,
                 label=m)
    for tk in times[1:-1]:
        ax2.axvline(tk, color="k", lw=0.5, ls="--")
    ax2.axvline(float(t), color=PALETTE[1], lw=1.5)
    ax2.set_xlabel("t (dashed: observed marginals)")
    ax2.set_ylabel("W2 to the true blob at t")
    ax2.set_title(f"all methods (OTP-FM strength s = {s:.3g})", fontsize=9)
    ax2.legend(fontsize=6)
    return fig


def plot_conditional_paths(log10_strength: float = 2.7, width: float = 0.1, kernel: str = "gaussian",
                           alpha: float = 1.0, n_tuples: int = 12):
    """OTP-FM conditional paths through 2-D tuples (left) and the speed |u(t)| (right), t_k dashed."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}")
    ot_xs, _, times = _blob_tuples(3)
    xs = ot_xs[:n_tuples]
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


def plot_heldout(results):
    """Mean held-out W2 per trained method on the rotating blob, and the training-free comparison."""
    fig, axes = figure(ncols=2, width=4.0, height=3.2)
    axes = axes.ravel()
    mean = results["blobs_mean"]
    names = list(mean)
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(names))]
    axes[0].bar(range(len(names)), [mean[n] for n in names], color=colours)
    axes[0].set_xticks(range(len(names)), names, rotation=30, fontsize=8)
    axes[0].set_ylabel("mean held-out W2 (trained)")
    tf = results["blobs"]["training_free"]
    held = np.arange(len(tf["otp"]))
    axes[1].bar(held - 0.2, tf["otp"], 0.4, label="OTP-FM paths", color=PALETTE[0])
    axes[1].bar(held + 0.2, tf["chord"], 0.4, label="chord", color=PALETTE[1])
    axes[1].set_xticks(held, ["1/8", "3/8", "5/8", "7/8"])
    axes[1].set_xlabel("held-out time")
    axes[1].set_ylabel("W2 (training-free)")
    axes[1].legend()
    return fig


def plot_strength_sweep(results):
    sw = results["strength_sweep"]
    fig, ax = figure(width=4.0, height=3.0)
    ax.loglog(sw["strengths"], sw["w2"], "o-", color=PALETTE[0])
    ax.set_xlabel("strength s")
    ax.set_ylabel("W2 at the training marginal t = 0.5")
    return fig


def plot_efficiency(results):
    fig, ax = figure(width=4.4, height=3.2)
    for key, fold in results["efficiency"]["folds"].items():
        o, b = np.array(fold["otp_curve"]), np.array(fold["baseline_curve"])
        ax.plot(o[:, 0], o[:, 1], "-", color=PALETTE[0], label=f"OTP-FM (hold out t{key})")
        ax.plot(b[:, 0], b[:, 1], "s--", color=PALETTE[1], label=f"neural ODE + Sinkhorn (t{key})")
    ax.set_xlabel("training seconds")
    ax.set_ylabel("held-out W1")
    ax.legend(fontsize=7)
    return fig
