"""Closed-form hybrid-system simulators and their analytic continuous embeddings (note §7, paper §3.1).

Every simulator integrates exactly (no solver error at resets) and returns a :class:`HybridData` with
the sampled states ``x`` (B, T, n), the time grid and the true reset mask ``resets`` (B, T-1): entry k
is True when a reset happened between samples k and k+1. The mask is for *evaluation only*; training
code sees only the detector's output (:mod:`.jumps`).

Systems: the paper's 1D two-speed circle (§3.2), the cylinder-sawtooth, the elastic bouncing ball, the
flat torus and a Möbius band (note §7). ``embed(system, x)`` is the analytic encoder Φ of each system
(a continuous map of the hybrifold, the witness of Theorem 6's conclusion at m <= 2n + 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

G = 9.81
SYSTEMS = ("sawtooth", "ball", "torus", "mobius")


@dataclass
class HybridData:
    """Sampled trajectories: states (B, T, n), times (T,), true reset mask (B, T-1), system name."""

    x: torch.Tensor
    t: torch.Tensor
    resets: torch.Tensor
    system: str

    @property
    def dt(self) -> float:
        return float(self.t[1] - self.t[0])


def _check(n_traj, n_steps, dt):
    if isinstance(n_traj, bool) or not isinstance(n_traj, int) or n_traj < 1:
        raise ValueError(f"n_traj must be a positive integer; got {n_traj!r}")
    if isinstance(n_steps, bool) or not isinstance(n_steps, int) or n_steps < 2:
        raise ValueError(f"n_steps must be an integer >= 2; got {n_steps!r}")
    if not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite number; got {dt!r}")


def simulate(system: str, n_traj: int, n_steps: int, dt: float | None = None, seed: int = 0,
             device="cpu", dtype=torch.float32) -> HybridData:
    """Simulate ``n_traj`` random initial conditions of ``system`` for ``n_steps`` samples (note §7)."""
    if system not in SYSTEMS:
        raise ValueError(f"system must be one of {SYSTEMS}; got {system!r}")
    dt = {"ball": 0.02}.get(system, 0.05) if dt is None else dt
    _check(n_traj, n_steps, dt)
    rng = np.random.default_rng(seed)
    t = np.arange(n_steps) * dt
    if system == "sawtooth":
        # x(t) = (x0 + w t) mod 1, omega constant per trajectory; n = 2 with state (x, omega)
        x0, w = rng.uniform(0, 1, n_traj), rng.uniform(0.5, 1.5, n_traj)
        raw = x0[:, None] + w[:, None] * t[None]
        laps = np.floor(raw)
        x = np.stack([raw - laps, np.broadcast_to(w[:, None], raw.shape)], -1)
    elif system == "ball":
        # elastic ball (e = 1): phase tau = time since last bounce, period T(E) = 2 sqrt(2E) / g
        h0, v0 = rng.uniform(0.5, 2.0, n_traj), rng.uniform(-2.0, 2.0, n_traj)
        vmax = np.sqrt(v0 ** 2 + 2 * G * h0)
        period = 2 * vmax / G
        tau_raw = (vmax - v0)[:, None] / G + t[None]
        laps = np.floor(tau_raw / period[:, None])
        tau = tau_raw - laps * period[:, None]
        h = vmax[:, None] * tau - 0.5 * G * tau ** 2
        v = vmax[:, None] - G * tau
        x = np.stack([h, v], -1)
    elif system == "torus":
        p0 = rng.uniform(0, 1, (n_traj, 2))
        a = rng.uniform(0.5, 1.5, n_traj)
        b = rng.uniform(0.3, 1.0, n_traj)
        raw = p0[:, None, :] + np.stack([a, b], -1)[:, None, :] * t[None, :, None]
        laps_xy = np.floor(raw)
        x = raw - laps_xy
        laps = laps_xy.sum(-1)
    else:  # mobius: x' = a, y' = c sin(2 pi y); reset x: 1 -> 0 with y -> 1 - y
        x0, y0 = rng.uniform(0, 1, n_traj), rng.uniform(0.05, 0.95, n_traj)
        a, c = rng.uniform(0.5, 1.5, n_traj), 0.15
        raw = x0[:, None] + a[:, None] * t[None]
        laps = np.floor(raw)
        # u = tan(pi y) obeys u' = 2 pi c u; each flip maps u -> -u
        u = np.tan(np.pi * y0)[:, None] * np.exp(2 * np.pi * c * t[None]) * (-1.0) ** laps
        y = np.mod(np.arctan(u) / np.pi, 1.0)
        x = np.stack([raw - laps, y], -1)
    resets = np.diff(laps, axis=1) != 0
    return HybridData(torch.as_tensor(x, dtype=dtype, device=device), torch.as_tensor(t, dtype=dtype, device=device),
                      torch.as_tensor(resets, device=device), system)


def embed(system: str, x: torch.Tensor) -> torch.Tensor:
    """Analytic continuous embedding Φ of ``system``'s hybrifold (note §7); ``x`` (..., n) -> (..., m)."""
    if system not in SYSTEMS:
        raise ValueError(f"system must be one of {SYSTEMS}; got {system!r}")
    if not isinstance(x, torch.Tensor) or x.shape[-1] != 2:
        raise ValueError(f"x must be a tensor with last dimension 2; got {getattr(x, 'shape', type(x))}")
    a, b = x[..., 0], x[..., 1]
    tp = 2 * math.pi
    if system == "sawtooth":
        return torch.stack([torch.cos(tp * a), torch.sin(tp * a), b], -1)
    if system == "ball":
        energy = 0.5 * b ** 2 + G * a
        vmax = torch.sqrt(2 * energy)
        phase = tp * (vmax - b) / (2 * vmax)  # tau / T(E)
        return torch.stack([energy / G, torch.cos(phase), torch.sin(phase)], -1)
    if system == "torus":
        return torch.stack([torch.cos(tp * a), torch.sin(tp * a), torch.cos(tp * b), torch.sin(tp * b)], -1)
    s = b - 0.5  # standard Möbius band in R^3; the flip s -> -s at x: 1 -> 0 is glued
    rad = 1 + 0.5 * s * torch.cos(math.pi * a)
    return torch.stack([rad * torch.cos(tp * a), rad * torch.sin(tp * a), 0.5 * s * torch.sin(math.pi * a)], -1)


def naive_ball_embed(x: torch.Tensor) -> torch.Tensor:
    """(h, v², h v): glues the bounce (C-1) but leaves a velocity corner, violating (C-2) (note §7)."""
    if not isinstance(x, torch.Tensor) or x.shape[-1] != 2:
        raise ValueError("x must be a tensor with last dimension 2")
    return torch.stack([x[..., 0], x[..., 1] ** 2, x[..., 0] * x[..., 1]], -1)


# ---------------------------------------------------------------- the paper's 1D two-speed example (§3.2)
A1 = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
A2 = torch.tensor([[0.0, -0.5], [1.0, 0.0]], dtype=torch.float64)


def two_speed_embed(x: torch.Tensor) -> torch.Tensor:
    """f = A_i [cos θ, sin θ] with θ = πx on [0,1) (speed 1) and θ = π(3 - x) on [2,3) (speed 2); (..., 2)."""
    if not isinstance(x, torch.Tensor):
        raise ValueError("x must be a tensor")
    if ((x < 0) | ((x > 1) & (x < 2)) | (x > 3)).any():
        raise ValueError("x must lie in [0, 1] or [2, 3]")
    second = x >= 2
    theta = torch.where(second, math.pi * (3 - x), math.pi * x)
    c = torch.stack([torch.cos(theta), torch.sin(theta)], -1)
    return torch.where(second[..., None], c @ A2.to(c).T, c @ A1.to(c).T)


def two_speed_field(x: torch.Tensor) -> torch.Tensor:
    """Intrinsic speed V: 1 on [0,1), 2 on [2,3)."""
    return torch.where(x >= 2, torch.full_like(x, 2.0), torch.ones_like(x))


def two_speed_check(n_grid: int = 401) -> dict:
    """(C-1), (C-2) at both glue points (1~2, 3~0) and injectivity of the closed curve (Theorem 6, §3.2)."""
    if isinstance(n_grid, bool) or not isinstance(n_grid, int) or n_grid < 10:
        raise ValueError(f"n_grid must be an integer >= 10; got {n_grid!r}")
    pts = torch.tensor([1.0, 3.0], dtype=torch.float64, requires_grad=True)
    img = torch.tensor([2.0, 0.0], dtype=torch.float64, requires_grad=True)

    def vel(p):
        jac = torch.autograd.functional.jacobian(lambda q: two_speed_embed(q), p)  # (2 pts, 2, 2 pts)
        return torch.einsum("kdk->kd", jac) * two_speed_field(p.detach())[:, None]

    pos_gap = (two_speed_embed(pts) - two_speed_embed(img)).norm(dim=-1).max().item()
    vel_gap = (vel(pts) - vel(img)).norm(dim=-1).max().item()
    grid = torch.cat([torch.linspace(0, 1, n_grid, dtype=torch.float64)[:-1],
                      torch.linspace(2, 3, n_grid, dtype=torch.float64)[1:-1]])
    z = two_speed_embed(grid)
    dist = torch.cdist(z, z)
    gap = (grid[:, None] - grid[None]).abs()
    # distinct hybrifold points (not glued, not grid neighbours) must map to distinct latent points
    far = (gap > 0.05) & ~((grid[:, None] - 1).abs() + (grid[None] - 2).abs() < 0.05) \
        & ~((grid[None] - 1).abs() + (grid[:, None] - 2).abs() < 0.05)
    far &= ~((grid[:, None] < 0.03) & (grid[None] > 2.97)) & ~((grid[None] < 0.03) & (grid[:, None] > 2.97))
    return {"position_gap": pos_gap, "velocity_gap": vel_gap, "min_far_distance": dist[far].min().item()}


def guard_pairs(system: str, k: int = 64, seed: int = 0, dtype=torch.float64) -> tuple[torch.Tensor, torch.Tensor]:
    """``k`` points x⁻ on the guard S and their resets r(x⁻) (for exact (C-1)/(C-2) checks)."""
    if system not in SYSTEMS:
        raise ValueError(f"system must be one of {SYSTEMS}; got {system!r}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(k, generator=g, dtype=dtype)
    one, zero = torch.ones(k, dtype=dtype), torch.zeros(k, dtype=dtype)
    if system == "sawtooth":
        w = 0.5 + u
        return torch.stack([one, w], -1), torch.stack([zero, w], -1)
    if system == "ball":
        v = 1.0 + 5.0 * u
        return torch.stack([zero, -v], -1), torch.stack([zero, v], -1)
    if system == "torus":
        half = k // 2
        xm = torch.stack([one, u], -1)
        xp = torch.stack([zero, u], -1)
        xm[half:], xp[half:] = torch.stack([u, one], -1)[half:], torch.stack([u, zero], -1)[half:]
        return xm, xp
    y = 0.05 + 0.9 * u
    return torch.stack([one, y], -1), torch.stack([zero, 1 - y], -1)


def vector_field(system: str, x: torch.Tensor, params: dict | None = None) -> torch.Tensor:
    """The flow V(x) of ``system`` (torus/Möbius rates a, b, c fixed by ``params``; defaults 1, 0.6, 0.15)."""
    p = {"a": 1.0, "b": 0.6, "c": 0.15, **(params or {})}
    a, b = x[..., 0], x[..., 1]
    if system == "sawtooth":
        return torch.stack([b, torch.zeros_like(b)], -1)
    if system == "ball":
        return torch.stack([b, torch.full_like(b, -G)], -1)
    if system == "torus":
        return torch.stack([torch.full_like(a, p["a"]), torch.full_like(b, p["b"])], -1)
    if system == "mobius":
        return torch.stack([torch.full_like(a, p["a"]), p["c"] * torch.sin(2 * math.pi * b)], -1)
    raise ValueError(f"system must be one of {SYSTEMS}; got {system!r}")


def c2_gap(system: str, encoder=None, k: int = 64, seed: int = 0) -> dict:
    """Exact (C-1) and (C-2) gaps of an encoder (default: the analytic Φ) on guard pairs (Theorem 6).

    Returns the max relative position gap ‖f(x⁻) − f(r(x⁻))‖ / median ‖f‖ and the max relative
    velocity gap ‖Df(x⁻)V(x⁻) − Df(r(x⁻))V(r(x⁻))‖ / ‖Df(x⁻)V(x⁻)‖ (Jacobian–vector products by autograd).
    """
    enc = (lambda x: embed(system, x)) if encoder is None else encoder
    xm, xp = guard_pairs(system, k, seed)
    fm, vm = torch.func.jvp(enc, (xm,), (vector_field(system, xm),))
    fp, vp = torch.func.jvp(enc, (xp,), (vector_field(system, xp),))
    scale = fm.norm(dim=-1).median().clamp_min(1e-12)
    return {"position": ((fm - fp).norm(dim=-1).max() / scale).item(),
            "velocity": ((vm - vp).norm(dim=-1) / vm.norm(dim=-1).clamp_min(1e-12)).max().item()}
