"""Pure plotting functions for the notebooks' explorers (matplotlib figures, fast redraws, no training)."""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.papers.hybrid_node import jumps, simulators
from icml26.viz import figure

MODELS = ("chyllpp", "chyll", "latent_ode", "node", "event")
LABELS = {"chyllpp": "CHyLL++", "chyll": "CHyLL-style", "latent_ode": "Latent ODE", "node": "state NODE",
          "event": "event ODE (median)"}


def _one(system, x0, p1, n_steps, dt):
    """A single trajectory of ``system`` from a chosen initial condition (x0 / h0 and ω / v0 / second rate)."""
    t = np.arange(n_steps) * dt
    if system == "sawtooth":
        raw = x0 + p1 * t
        laps = np.floor(raw)
        x = np.stack([raw - laps, np.full_like(t, p1)], -1)
    elif system == "ball":
        h, v, laps = simulators._ball_phase(np.array([x0]), np.array([p1]), t)
        x, laps = np.stack([h[0], v[0]], -1), laps[0]
    else:  # torus with rates (1, p1)
        raw = np.stack([x0 + t, x0 + p1 * t], -1)
        laps = np.floor(raw).sum(-1)
        x = raw - np.floor(raw)
    return t, torch.as_tensor(x)[None], torch.as_tensor(np.diff(laps) != 0)[None]


def plot_system(system: str = "ball", x0: float = 1.0, p1: float = 0.5, horizon: float = 3.0,
                naive: bool = False):
    """State trajectory (left), its analytic latent curve Φ(x(t)) (middle, first 3 coordinates) and the
    finite-difference speeds (right).

    ``x0``: initial height h0 (ball) or position x0 (sawtooth/torus); ``p1``: v0 (ball), ω (sawtooth) or
    the second rate (torus). ``naive`` uses the (h, v², hv) map for the ball, which violates (C-2).
    """
    checks.one_of("system", system, ("sawtooth", "ball", "torus"))
    horizon = checks.positive_number("horizon", horizon)
    x0, p1 = checks.finite_number("x0", x0), checks.finite_number("p1", p1)
    dt = simulators.DEFAULT_DT.get(system, 0.05)
    x0 = x0 % 1.0 if system != "ball" else max(x0, 0.05)
    t, x, resets = _one(system, x0, p1, max(int(horizon / dt), 3), dt)
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
    ax[2].plot(t[1:], (z[0, 1:] - z[0, :-1]).norm(dim=-1) / dt, color="C3", label="latent speed")
    ax[2].plot(t[1:], (x[0, 1:] - x[0, :-1]).norm(dim=-1) / dt, color="C0", alpha=0.5, label="state speed")
    ax[2].set(yscale="log", title="finite-difference speeds", xlabel="t")
    ax[2].legend()
    return fig


def plot_detection(system: str = "ball", factor: float = 5.0, n_traj: int = 16):
    """Speed histogram with the detector's threshold and precision/recall against the true resets."""
    checks.one_of("system", system, simulators.SYSTEMS)
    factor = checks.positive_number("factor", factor)
    d = simulators.simulate(system, checks.positive_int("n_traj", n_traj), 100, seed=0)
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


def plot_rollouts(data: simulators.HybridData, preds: dict, traj: int = 0, coord: int = 0):
    """Rollouts (B, T, n) of several trained models against the truth for one test trajectory."""
    checks.instance("data", data, simulators.HybridData)
    traj, coord = checks.nonnegative_int("traj", traj), checks.nonnegative_int("coord", coord)
    if traj >= data.x.shape[0] or coord >= data.x.shape[-1]:
        raise ValueError(f"traj and coord must index the data {tuple(data.x.shape)}; got {traj}, {coord}")
    t = data.t.cpu().numpy()
    fig, ax = figure(1, 1, width=6, height=3)
    ax.plot(t, data.x[traj, :, coord].cpu().numpy(), color="k", lw=2, label="truth")
    for name, p in preds.items():
        ax.plot(t[: p.shape[1]], p[traj, :, coord].cpu().numpy(), label=name)
    ax.set(xlabel="t", title="rollouts (not wrapped)")
    ax.legend(fontsize=7)
    return fig


def plot_scores(results: dict):
    """Rollout MSE of every model on every learned system of a results dict (log scale, lower is better)."""
    if not isinstance(results, dict):
        raise TypeError(f"results must be the dict of experiment.run; got {type(results).__name__}")
    systems = [s for s in simulators.SYSTEMS if s in results and isinstance(results[s], dict)]
    if not systems:
        raise ValueError("results must hold at least one learned system")
    fig, ax = figure(1, 1, width=1.4 * len(systems) + 2.5, height=3.2)
    width = 0.8 / len(MODELS)
    for j, model in enumerate(MODELS):
        key = "median_mse" if model == "event" else "mse"
        vals = [results[s][model][key] if model in results[s] else np.nan for s in systems]
        ax.bar(np.arange(len(systems)) + j * width, vals, width, label=LABELS[model])
    ax.set(xticks=np.arange(len(systems)) + 0.4 - width / 2, yscale="log", ylabel="rollout MSE",
           title="rollout MSE by system (lower is better)")
    ax.set_xticklabels(systems)
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_latent_cloud(points: torch.Tensor, color=None, title: str = "latent"):
    """A latent point cloud (N, m) projected on its first three principal axes."""
    pts = checks.tensor("points", points, ndim=2).detach().cpu().double()
    if pts.shape[0] < 4:
        raise ValueError(f"points must hold at least 4 points; got {pts.shape[0]}")
    centred = pts - pts.mean(0)
    _, _, v = torch.linalg.svd(centred, full_matrices=False)
    proj = (centred @ v[: min(3, v.shape[0])].T).numpy()
    if proj.shape[1] < 3:
        proj = np.pad(proj, ((0, 0), (0, 3 - proj.shape[1])))
    fig = figure(1, 1, width=4, height=3.6)[0]
    fig.clf()
    ax = fig.add_subplot(projection="3d")
    ax.scatter(proj[:, 0], proj[:, 1], proj[:, 2], s=6, **({} if color is None else {"c": color, "cmap": "twilight"}))
    ax.set(title=title)
    return fig


def plot_example(results: dict, system: str = "sawtooth"):
    """One test rollout (first state coordinate) of the models of ``system`` against the truth, not wrapped."""
    if not isinstance(results, dict):
        raise TypeError(f"results must be the dict of experiment.run; got {type(results).__name__}")
    checks.one_of("system", system, [s for s in simulators.SYSTEMS if s in results])
    ex = results[system]["example"]
    fig, ax = figure(1, 1, width=6, height=3)
    ax.plot(ex["t"], ex["truth"], color="k", lw=2, label="truth")
    for name in ("chyllpp", "latent_ode", "node"):
        if name in ex:
            ax.plot(ex["t"], ex[name], label=LABELS[name])
    ax.set(xlabel="t", ylabel="x₁", title=f"{system}: one test rollout (not wrapped)")
    ax.legend(fontsize=7)
    return fig
