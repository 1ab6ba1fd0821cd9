"""Closed-form hybrid-system simulators and their analytic continuous embeddings (paper §3, §5; docs page).

Every simulator integrates exactly (no solver error at resets) and returns a :class:`HybridData` with
the sampled states ``x`` (B, T, n), the time grid and the true reset mask ``resets`` (B, T-1): entry k
is True when a reset happened between samples k and k+1. The mask is for *evaluation only*; training
code sees only the detector's output (:mod:`.jumps`).

Systems (``SYSTEMS``; state dimension in ``DIMS``):

- ``sawtooth``: x(t) = (x₀ + ωt) mod 1 with ω constant (state (x, ω)); glued space a cylinder.
- ``ball``: the elastic bouncing ball (h, v), e = 1 (paper §5); glued space the (energy, phase) cylinder.
- ``torus``: ẋ = a, ẏ = b with periodic resets on both edges (paper §5 names a torus; its field is not
  given, this one has the same topology).
- ``mobius``: ẋ = a, ẏ = c sin 2πy with the flip x: 1 → 0, y → 1 − y (a Möbius band).
- ``klein``: ẋ = a, ẏ = b cos πx with the flip x: 1 → 0, y → 1 − y and periodic y (paper §5 names a
  Klein bottle; this field is ours, chosen compatible with both identifications).

The torus, Möbius and Klein rates are fixed (:data:`RATES`), so that each is one autonomous vector field on
its state (x, y): with rates drawn per trajectory, trajectories through the same state would move
differently and no ODE on the state could fit them. The sawtooth's rate ω is part of its state.
- ``ball3d``: a ball in the box [0, 1]² × [0, ∞) with elastic floor and side walls, state
  (x, y, z, vx, vy, vz) (paper §5: the horizontal velocity is a square wave; the walls are inferred).

``embed(system, x)`` is the analytic encoder Φ of each system: a continuous map of the hybrifold that
satisfies (C-1) gluing and (C-2) velocity compatibility, the witness of Theorem 6's conclusion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks

G = 9.81
SYSTEMS = ("sawtooth", "ball", "torus", "mobius", "klein", "ball3d")
DIMS = {"sawtooth": 2, "ball": 2, "torus": 2, "mobius": 2, "klein": 2, "ball3d": 6}
"""State dimension n of each system."""
EMBED_DIMS = {"sawtooth": 3, "ball": 3, "torus": 4, "mobius": 3, "klein": 4, "ball3d": 9}
"""Dimension of the analytic embedding Φ of each system."""
DEFAULT_DT = {"ball": 0.02, "ball3d": 0.02}
"""Sampling interval per system (0.05 where not listed)."""
RATES = {"torus": {"a": 1.0, "b": 0.6}, "mobius": {"a": 1.0, "c": 0.15}, "klein": {"a": 1.0, "b": 0.4}}
"""The fixed rates of the torus, Möbius and Klein-bottle fields (inferred; the paper does not give them)."""


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


def _ball_phase(h0, v0, t):
    """Height and velocity of elastic bounces from (h0, v0) at times t (closed form), and the bounce count."""
    vmax = np.sqrt(v0 ** 2 + 2 * G * h0)
    period = 2 * vmax / G
    tau_raw = (vmax - v0)[:, None] / G + t[None]
    laps = np.floor(tau_raw / period[:, None])
    tau = tau_raw - laps * period[:, None]
    return vmax[:, None] * tau - 0.5 * G * tau ** 2, vmax[:, None] - G * tau, laps


def _reflect(u):
    """Position, d(position)/du and wall count of a point at u on the line folded into [0, 1] by walls at 0, 1."""
    w = np.mod(u, 2.0)
    return np.where(w <= 1.0, w, 2.0 - w), np.where(w <= 1.0, 1.0, -1.0), np.floor(u)


def simulate(system: str, n_traj: int, n_steps: int, dt: float | None = None, seed: int = 0,
             device="cpu", dtype=torch.float32) -> HybridData:
    """Simulate ``n_traj`` random initial conditions of ``system`` for ``n_steps`` samples (see module doc)."""
    checks.one_of("system", system, SYSTEMS)
    n_traj = checks.positive_int("n_traj", n_traj)
    if checks.positive_int("n_steps", n_steps) < 2:
        raise ValueError(f"n_steps must be an integer >= 2; got {n_steps!r}")
    dt = DEFAULT_DT.get(system, 0.05) if dt is None else checks.positive_number("dt", dt)
    seed = checks.seed("seed", seed)
    device = checks.device("device", device)
    rng = np.random.default_rng(seed)
    t = np.arange(n_steps) * dt
    if system == "sawtooth":
        x0, w = rng.uniform(0, 1, n_traj), rng.uniform(0.5, 1.5, n_traj)
        raw = x0[:, None] + w[:, None] * t[None]
        laps = np.floor(raw)
        x = np.stack([raw - laps, np.broadcast_to(w[:, None], raw.shape)], -1)
    elif system == "ball":
        h, v, laps = _ball_phase(rng.uniform(0.5, 2.0, n_traj), rng.uniform(-2.0, 2.0, n_traj), t)
        x = np.stack([h, v], -1)
    elif system == "torus":
        p0 = rng.uniform(0, 1, (n_traj, 2))
        rate = np.array([RATES["torus"]["a"], RATES["torus"]["b"]])
        raw = p0[:, None, :] + rate[None, None, :] * t[None, :, None]
        laps_xy = np.floor(raw)
        x = raw - laps_xy
        laps = laps_xy.sum(-1)
    elif system == "mobius":
        x0, y0 = rng.uniform(0, 1, n_traj), rng.uniform(0.05, 0.95, n_traj)
        raw = x0[:, None] + RATES["mobius"]["a"] * t[None]
        laps = np.floor(raw)
        # u = tan(pi y) obeys u' = 2 pi c u; each flip maps u -> -u
        u = np.tan(np.pi * y0)[:, None] * np.exp(2 * np.pi * RATES["mobius"]["c"] * t[None]) * (-1.0) ** laps
        y = np.mod(np.arctan(u) / np.pi, 1.0)
        x = np.stack([raw - laps, y], -1)
    elif system == "klein":
        # within a lap of x, y = base + s(x) with s(x) = b sin(pi x) / (pi a); s(0) = s(1) = 0, so each flip
        # y -> 1 - y alternates the base between c and 1 - c; y is then taken mod 1 (periodic y-edge)
        x0, y0 = rng.uniform(0, 1, n_traj), rng.uniform(0, 1, n_traj)
        a, b = RATES["klein"]["a"], RATES["klein"]["b"]
        raw = x0[:, None] + a * t[None]
        xlaps = np.floor(raw)
        xs = raw - xlaps
        amp = b / (np.pi * a)
        c = (y0[:, None] - amp * np.sin(np.pi * x0[:, None]))
        base = np.where(np.mod(xlaps, 2) == 0, c, 1 - c)
        y_unf = base + amp * np.sin(np.pi * xs)
        ylaps = np.floor(y_unf)
        x = np.stack([xs, y_unf - ylaps], -1)
        laps = xlaps * 1000 + ylaps  # a change of either count is a reset
    else:  # ball3d: walls at 0 and 1 in x and y, elastic floor at z = 0
        p0, speed = rng.uniform(0, 1, (n_traj, 2)), rng.uniform(0.5, 1.5, (n_traj, 2))
        sign = np.where(rng.uniform(size=(n_traj, 2)) < 0.5, -1.0, 1.0)
        u = p0[:, None, :] + (sign * speed)[:, None, :] * t[None, :, None]
        pos, vsign, wall = _reflect(u)
        vel = vsign * (sign * speed)[:, None, :]
        h, v, floor = _ball_phase(rng.uniform(0.5, 2.0, n_traj), rng.uniform(-2.0, 2.0, n_traj), t)
        x = np.concatenate([pos, h[..., None], vel, v[..., None]], -1)
        laps = wall[..., 0] * 1e6 + wall[..., 1] * 1e3 + floor
    resets = np.diff(laps, axis=1) != 0
    return HybridData(torch.as_tensor(x, dtype=dtype, device=device), torch.as_tensor(t, dtype=dtype, device=device),
                      torch.as_tensor(resets, device=device), system)


def _check_state(system, x):
    checks.one_of("system", system, SYSTEMS)
    checks.tensor("x", x, dtype_kind="float")
    if x.ndim < 1 or x.shape[-1] != DIMS[system]:
        raise ValueError(f"x must have last dimension {DIMS[system]} for {system}; got shape {tuple(x.shape)}")


def _ball_embed(h, v):
    energy = 0.5 * v ** 2 + G * h
    vmax = torch.sqrt(2 * energy)
    phase = 2 * math.pi * (vmax - v) / (2 * vmax)  # tau / T(E)
    return [energy / G, torch.cos(phase), torch.sin(phase)]


def embed(system: str, x: torch.Tensor) -> torch.Tensor:
    """Analytic continuous embedding Φ of ``system``'s hybrifold; ``x`` (..., n) -> (..., EMBED_DIMS[system])."""
    _check_state(system, x)
    tp = 2 * math.pi
    if system == "ball3d":
        out = []
        for i in range(2):  # each wall axis: (|v|, angle of the unfolded position) on a circle of length 2
            pos, vel = x[..., i], x[..., 3 + i]
            ang = math.pi * torch.where(vel >= 0, pos, 2 - pos)
            out += [vel.abs(), torch.cos(ang), torch.sin(ang)]
        return torch.stack(out + _ball_embed(x[..., 2], x[..., 5]), -1)
    a, b = x[..., 0], x[..., 1]
    if system == "sawtooth":
        return torch.stack([torch.cos(tp * a), torch.sin(tp * a), b], -1)
    if system == "ball":
        return torch.stack(_ball_embed(a, b), -1)
    if system == "torus":
        return torch.stack([torch.cos(tp * a), torch.sin(tp * a), torch.cos(tp * b), torch.sin(tp * b)], -1)
    if system == "klein":
        # the standard Klein bottle in R^4: phi = 2 pi x (flipping edge), theta = 2 pi y (periodic edge)
        phi, theta = tp * a, tp * b
        ring = 2 + torch.cos(theta)
        return torch.stack([ring * torch.cos(phi), ring * torch.sin(phi), torch.sin(theta) * torch.cos(phi / 2),
                            torch.sin(theta) * torch.sin(phi / 2)], -1)
    s = b - 0.5  # standard Möbius band in R^3; the flip s -> -s at x: 1 -> 0 is glued
    rad = 1 + 0.5 * s * torch.cos(math.pi * a)
    return torch.stack([rad * torch.cos(tp * a), rad * torch.sin(tp * a), 0.5 * s * torch.sin(math.pi * a)], -1)


def naive_ball_embed(x: torch.Tensor) -> torch.Tensor:
    """(h, v², h v): glues the bounce (C-1) but leaves a velocity corner, violating (C-2)."""
    _check_state("ball", x)
    return torch.stack([x[..., 0], x[..., 1] ** 2, x[..., 0] * x[..., 1]], -1)


# ---------------------------------------------------------------- the paper's 1D two-speed example (§3)
A1 = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
A2 = torch.tensor([[0.0, -0.5], [1.0, 0.0]], dtype=torch.float64)


def two_speed_embed(x: torch.Tensor) -> torch.Tensor:
    """f = A_i [cos θ, sin θ] with θ = πx on [0,1) (speed 1) and θ = π(3 - x) on [2,3) (speed 2); (..., 2)."""
    checks.tensor("x", x, dtype_kind="float")
    if ((x < 0) | ((x > 1) & (x < 2)) | (x > 3)).any():
        raise ValueError("x must lie in [0, 1] or [2, 3]")
    second = x >= 2
    theta = torch.where(second, math.pi * (3 - x), math.pi * x)
    c = torch.stack([torch.cos(theta), torch.sin(theta)], -1)
    return torch.where(second[..., None], c @ A2.to(c).T, c @ A1.to(c).T)


def two_speed_field(x: torch.Tensor) -> torch.Tensor:
    """Intrinsic speed V: 1 on [0,1), 2 on [2,3)."""
    checks.tensor("x", x, dtype_kind="float")
    return torch.where(x >= 2, torch.full_like(x, 2.0), torch.ones_like(x))


def two_speed_check(n_grid: int = 401) -> dict:
    """(C-1), (C-2) at both glue points (1~2, 3~0) and injectivity of the closed curve (Theorem 6, §3)."""
    if checks.positive_int("n_grid", n_grid) < 10:
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
    checks.one_of("system", system, SYSTEMS)
    k = checks.positive_int("k", k)
    g = torch.Generator().manual_seed(checks.seed("seed", seed))
    u = torch.rand(k, generator=g, dtype=dtype)
    one, zero = torch.ones(k, dtype=dtype), torch.zeros(k, dtype=dtype)
    half = k // 2
    if system == "sawtooth":
        w = 0.5 + u
        return torch.stack([one, w], -1), torch.stack([zero, w], -1)
    if system == "ball":
        v = 1.0 + 5.0 * u
        return torch.stack([zero, -v], -1), torch.stack([zero, v], -1)
    if system == "torus":
        xm, xp = torch.stack([one, u], -1), torch.stack([zero, u], -1)
        xm[half:], xp[half:] = torch.stack([u, one], -1)[half:], torch.stack([u, zero], -1)[half:]
        return xm, xp
    if system == "klein":  # first half: the flipping x-edge; second half: the periodic y-edge
        xm, xp = torch.stack([one, u], -1), torch.stack([zero, 1 - u], -1)
        xm[half:], xp[half:] = torch.stack([u, one], -1)[half:], torch.stack([u, zero], -1)[half:]
        return xm, xp
    if system == "ball3d":  # thirds: floor, x-walls, y-walls; the other coordinates random
        r = torch.rand(k, 6, generator=g, dtype=dtype)
        xm = torch.cat([r[:, :2], 0.5 + 1.5 * r[:, 2:3], 0.5 + r[:, 3:5], -2 + 4 * r[:, 5:]], -1)
        third = k // 3
        xm[:third, 2], xm[:third, 5] = 0.0, -(1.0 + 5.0 * u[:third])
        for axis, rows in ((0, slice(third, 2 * third)), (1, slice(2 * third, k))):
            at_one = u[rows] < 0.5  # the wall at 1 is hit moving right, the wall at 0 moving left
            xm[rows, axis] = at_one.to(dtype)
            xm[rows, 3 + axis] = torch.where(at_one, 1.0, -1.0).to(dtype) * xm[rows, 3 + axis]
        xp = xm.clone()
        xp[:third, 5] = -xm[:third, 5]
        xp[third:2 * third, 3] = -xm[third:2 * third, 3]
        xp[2 * third:, 4] = -xm[2 * third:, 4]
        return xm, xp
    y = 0.05 + 0.9 * u
    return torch.stack([one, y], -1), torch.stack([zero, 1 - y], -1)


def vector_field(system: str, x: torch.Tensor) -> torch.Tensor:
    """The flow V(x) of ``system`` (the torus, Möbius and Klein rates are :data:`RATES`)."""
    _check_state(system, x)
    p = RATES.get(system, {})
    a, b = x[..., 0], x[..., 1]
    if system == "sawtooth":
        return torch.stack([b, torch.zeros_like(b)], -1)
    if system == "ball":
        return torch.stack([b, torch.full_like(b, -G)], -1)
    zero = torch.zeros_like(a)
    if system == "torus":
        return torch.stack([zero + p["a"], zero + p["b"]], -1)
    if system == "mobius":
        return torch.stack([zero + p["a"], p["c"] * torch.sin(2 * math.pi * b)], -1)
    if system == "klein":
        return torch.stack([zero + p["a"], p["b"] * torch.cos(math.pi * a)], -1)
    return torch.stack([x[..., 3], x[..., 4], x[..., 5], zero, zero, torch.full_like(a, -G)], -1)


def c2_gap(system: str, encoder=None, k: int = 64, seed: int = 0) -> dict:
    """Exact (C-1) and (C-2) gaps of an encoder (default: the analytic Φ) on guard pairs (Theorem 6).

    Returns the max relative position gap ‖f(x⁻) − f(r(x⁻))‖ / median ‖f‖ and the max relative
    velocity gap ‖Df(x⁻)V(x⁻) − Df(r(x⁻))V(r(x⁻))‖ / ‖Df(x⁻)V(x⁻)‖ (Jacobian–vector products by autograd).
    """
    checks.one_of("system", system, SYSTEMS)
    if encoder is not None and not callable(encoder):
        raise TypeError(f"encoder must be callable or None; got {type(encoder).__name__}")
    enc = (lambda x: embed(system, x)) if encoder is None else encoder
    xm, xp = guard_pairs(system, k, seed)
    fm, vm = torch.func.jvp(enc, (xm,), (vector_field(system, xm),))
    fp, vp = torch.func.jvp(enc, (xp,), (vector_field(system, xp),))
    scale = fm.norm(dim=-1).median().clamp_min(1e-12)
    return {"position": ((fm - fp).norm(dim=-1).max() / scale).item(),
            "velocity": ((vm - vp).norm(dim=-1) / vm.norm(dim=-1).clamp_min(1e-12)).max().item()}


def domain_grid(system: str, per_axis: int = 16, dtype=torch.float32) -> torch.Tensor:
    """A regular grid over the state domain of a 2-D system (the support of its data), shape (per_axis², 2).

    Used to sample the encoder's image for persistent homology: sawtooth (x, ω) ∈ [0,1) × [0.5, 1.5];
    ball over (energy, phase) with h0 ∈ [0.5, 2]; torus, Möbius and Klein over [0,1)².
    """
    checks.one_of("system", system, ("sawtooth", "ball", "torus", "mobius", "klein"))
    k = checks.positive_int("per_axis", per_axis)
    if k < 3:
        raise ValueError(f"per_axis must be >= 3; got {per_axis!r}")
    s = (torch.arange(k, dtype=torch.float64) + 0.5) / k
    u, w = torch.meshgrid(s, s, indexing="ij")
    u, w = u.reshape(-1), w.reshape(-1)
    if system == "sawtooth":
        pts = torch.stack([u, 0.5 + w], -1)
    elif system == "ball":  # energy per unit mass from h in [0.5, 2] at rest, phase tau / T in [0, 1)
        vmax = torch.sqrt(2 * G * (0.5 + 1.5 * w))
        tau = u * 2 * vmax / G
        pts = torch.stack([vmax * tau - 0.5 * G * tau ** 2, vmax - G * tau], -1)
    elif system == "mobius":
        pts = torch.stack([u, 0.05 + 0.9 * w], -1)
    else:
        pts = torch.stack([u, w], -1)
    return pts.to(dtype)
