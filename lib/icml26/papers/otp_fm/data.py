"""Offline synthetic multimarginal data (OTP-FM note §7): snapshots of a population at several times.

Every generator returns a list of (n, d) float32 tensors, one unpaired sample per snapshot, drawn
fresh per snapshot (no particle identity is kept, as in snapshot data).
"""

from __future__ import annotations

import math

import torch


def _gen(seed: int) -> torch.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    return torch.Generator().manual_seed(seed)


def _count(n, name="n") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"{name} must be an integer >= 2; got {n!r}")
    return n


def gaussian_marginals(means, stds, n: int = 512, seed: int = 0) -> list[torch.Tensor]:
    """One isotropic Gaussian sample per snapshot: ``means`` (T, d) or (T,), ``stds`` (T,) or a scalar."""
    n = _count(n)
    means = torch.as_tensor(means, dtype=torch.float32)
    if means.ndim == 1:
        means = means[:, None]
    if means.ndim != 2 or means.shape[0] < 2:
        raise ValueError(f"means must have shape (T, d) with T >= 2; got {tuple(means.shape)}")
    stds = torch.as_tensor(stds, dtype=torch.float32).reshape(-1)
    if stds.numel() == 1:
        stds = stds.expand(means.shape[0])
    if stds.numel() != means.shape[0] or not (stds > 0).all():
        raise ValueError("stds must be positive, one per snapshot or a single value")
    g = _gen(seed)
    return [m + s * torch.randn(n, means.shape[1], generator=g) for m, s in zip(means, stds)]


def steering_gaussians(n: int = 512, std: float = 0.1, seed: int = 0) -> list[torch.Tensor]:
    """The 2-D steering set-up of claim 2: N((0,0)), N((2,2)) at t=0.5, N((4,0)), all with std 0.1."""
    return gaussian_marginals([[0.0, 0.0], [2.0, 2.0], [4.0, 0.0]], std, n=n, seed=seed)


def rotating_blobs(n: int = 1000, T: int = 9, deg_per_step: float = 45.0, radius: float = 2.0,
                   blob_std: float = 0.25, n_blobs: int = 2, seed: int = 0) -> list[torch.Tensor]:
    """An eddy: ``n_blobs`` off-centre Gaussian blobs rotating by ``deg_per_step`` per snapshot.

    The blobs are deliberately asymmetric (unequal weights, unequal angular spacing) so that the
    snapshots carry rotation information (a rotating ring would not; note §10).
    """
    n, T = _count(n), _count(T, "T")
    if isinstance(n_blobs, bool) or not isinstance(n_blobs, int) or n_blobs < 1:
        raise ValueError(f"n_blobs must be a positive integer; got {n_blobs!r}")
    if radius <= 0 or blob_std <= 0:
        raise ValueError("radius and blob_std must be positive")
    g = _gen(seed)
    base_angles = torch.tensor([2 * math.pi * b / n_blobs * (0.8 if b else 1.0) for b in range(n_blobs)])
    weights = torch.tensor([n_blobs - b + 1.0 for b in range(n_blobs)])
    weights = weights / weights.sum()
    out = []
    for s in range(T):
        which = torch.multinomial(weights, n, replacement=True, generator=g)
        ang = base_angles[which] + math.radians(deg_per_step) * s
        centre = radius * torch.stack([torch.cos(ang), torch.sin(ang)], dim=1)
        out.append(centre + blob_std * torch.randn(n, 2, generator=g))
    return out


def branching(n: int = 1000, T: int = 5, d: int = 5, spread: float = 1.0, latent_noise: float = 0.15,
              ambient_noise: float = 0.05, seed: int = 0) -> list[torch.Tensor]:
    """Cells drift along x and split into two branches after snapshot 2, embedded in ``d`` dimensions.

    The 2-D latent (x, y) = (s, +-spread * max(s - 2, 0)) + noise is mapped into R^d by a fixed random
    orthogonal map, plus small isotropic noise.
    """
    n, T = _count(n), _count(T, "T")
    if isinstance(d, bool) or not isinstance(d, int) or d < 2:
        raise ValueError(f"d must be an integer >= 2; got {d!r}")
    g = _gen(seed)
    q, _ = torch.linalg.qr(torch.randn(d, d, generator=g))
    out = []
    for s in range(T):
        sign = torch.randint(0, 2, (n,), generator=g).float() * 2 - 1
        lat = torch.stack([torch.full((n,), float(s)), sign * spread * max(s - 2, 0)], dim=1)
        lat = lat + latent_noise * torch.randn(n, 2, generator=g)
        out.append(lat @ q[:, :2].T + ambient_noise * torch.randn(n, d, generator=g))
    return out
