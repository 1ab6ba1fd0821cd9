"""Pure plotting functions for the notebooks' explorers (matplotlib figures, fast redraws, no training)."""

from __future__ import annotations

import numpy as np
import torch

from icml26.papers.hybrid_node import jumps, simulators
from icml26.viz import figure


def _one(system, x0, p1, n_steps, dt):
    """A single trajectory of ``system`` with a chosen initial condition (x0 / h0 and ω / v0)."""
    d = simulators.simulate(system, 1, n_steps, dt=dt, seed=0, dtype=torch.float64)
    t = d.t.numpy()
    if system == "sawtooth":
        raw = x0 + p1 * t
        laps = np.floor(raw)
        x = np.stack([raw - laps, np.full_like(t, p1)], -1)
    elif system == "ball":
        vmax = np.sqrt(p1 ** 2 + 2 * simulators.G * x0)
        per = 2 * vmax / simulators.G
        tau_raw = (vmax - p1) / simulators.G + t
        laps = np.floor(tau_raw / per)
        tau = tau_raw - laps * per
        x = np.stack([vmax * tau - 0.5 * simulators.G * tau ** 2, vmax - simulators.G * tau], -1)
    else:  # torus with rates (1, p1)
        raw = np.stack([x0 + t, x0 + p1 * t], -1)
        laps = np.floor(raw).sum(-1)
        x = raw - np.floor(raw)
    xt = torch.as_tensor(x)[None]
    return t, xt, torch.as_tensor(np.diff(laps) != 0)[None]


def plot_system(system: str = "ball", x0: float = 1.0, p1: float = 0.5, horizon: float = 3.0,
                naive: bool = False):
    """State trajectory (left) and its analytic latent curve Φ(x(t)) (right, first 3 coordinates).

    ``x0``: initial height h0 (ball) or position x0 (sawtooth/torus); ``p1``: v0 (ball), ω (sawtooth) or
    the second rate (torus). ``naive`` uses the (h, v², hv) map for the ball, which violates (C-2).
    """
    if system not in ("sawtooth", "ball", "torus"):
        raise ValueError(f"system must be 'sawtooth', 'ball' or 'torus'; got {system!r}")
    if not horizon > 0:
        raise ValueError(f"horizon must be positive; got {horizon!r}")
    dt = 0.02 if system == "ball" else 0.05
    x0 = float(x0) % 1.0 if system != "ball" else max(float(x0), 0.05)
    t, x, resets = _one(system, x0, float(p1), max(int(horizon / dt), 3), dt)
    z = simulators.naive_ball_embed(x) if (naive and system == "ball") else simulators.embed(system, x)
    fig, ax = figure(3, 1, width=3.6, height=3.2)
    ax = ax[0]
    ax[0].plot(t, x[0, :, 0], label="x₁")
    ax[0].plot(t, x[0, :, 1], label="x₂")
    for k in np.nonzero(resets[0].numpy())[0]:
        ax[0].axvline(t[k], color="grey", lw=0.5, ls=":")
    ax[0].set(title=f"{system}: state (dotted = reset)", xlabel="t")
    ax[0].legend()
    for i in range(min(z.shape[-1], 3)):
        ax[1].plot(t, z[0, :, i], label=f"z{i + 1}")
    ax[1].set(title="latent Φ(x(t))" + (" naive" if naive and system == "ball" else ""), xlabel="t")
    ax[1].legend()
    speed = (z[0, 1:] - z[0, :-1]).norm(dim=-1) / dt
    ax[2].plot(t[1:], speed, color="C3", label="latent speed")
    ax[2].plot(t[1:], (x[0, 1:] - x[0, :-1]).norm(dim=-1) / dt, color="C0", alpha=0.5, label="state speed")
    ax[2].set(yscale="log", title="finite-difference speeds", xlabel="t")
    ax[2].legend()
    return fig


def plot_detection(system: str = "ball", factor: float = 5.0, n_traj: int = 16):
    """Speed histogram with the detector's threshold and precision/recall against the true resets."""
    if not factor > 0:
        raise ValueError(f"factor must be positive; got {factor!r}")
    d = simulators.simulate(system, n_traj, 100, seed=0)
    speed = jumps.step_speed(d.x, d.dt)
    det = jumps.detect_jumps(d.x, d.dt, factor)
    p, r = jumps.precision_recall(det, d.resets)
    fig, ax = figure(1, 1, width=5, height=3.2)
    bins = np.logspace(np.log10(speed.min().item() + 1e-6), np.log10(speed.max().item()), 40)
    ax.hist(speed[~d.resets].numpy(), bins=bins, alpha=0.6, label="ordinary steps")
    ax.hist(speed[d.resets].numpy(), bins=bins, alpha=0.8, label="true resets")
    ax.axvline(factor * speed.median().item(), color="k", ls="--", label=f"threshold ({factor:g}× median)")
    ax.set(xscale="log", yscale="log", xlabel="‖x_{k+1} − x_k‖ / Δt",
           title=f"{system}: precision {p:.2f}, recall {r:.2f}")
    ax.legend(fontsize=7)
    return fig


def plot_rollouts(system_data, preds: dict, traj: int = 0, coord: int = 0):
    """Rollouts of several trained models against the truth for one test trajectory."""
    x = system_data.x[traj, :, coord].cpu().numpy()
    t = system_data.t.cpu().numpy()
    fig, ax = figure(1, 1, width=6, height=3)
    ax.plot(t, x, color="k", lw=2, label="truth")
    for name, p in preds.items():
        ax.plot(t[: p.shape[1]], p[traj, :, coord].cpu().numpy(), label=name)
    ax.set(xlabel="t", title="rollouts (not wrapped)")
    ax.legend(fontsize=7)
    return fig
