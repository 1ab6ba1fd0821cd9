"""Reset detection by a speed threshold and latent jump / velocity-jump statistics (paper §3.4, note §3.4).

The paper detects the set 𝓘 of consecutive samples that straddle a reset by thresholding the empirical
Lipschitz constant ‖x_{k+1} − x_k‖ / Δt; no mode labels are used. The threshold rule is inferred:
``factor`` × the median finite-difference speed of the data.
"""

from __future__ import annotations

import torch


def _check_traj(x, name="x"):
    if not isinstance(x, torch.Tensor) or x.ndim != 3 or not x.is_floating_point() or x.shape[1] < 2:
        raise ValueError(f"{name} must be a floating tensor of shape (B, T>=2, d); got {getattr(x, 'shape', type(x))}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} must be finite")


def step_speed(x: torch.Tensor, dt: float) -> torch.Tensor:
    """Finite-difference speeds ‖x_{k+1} − x_k‖ / Δt, shape (B, T-1)."""
    _check_traj(x)
    if not dt > 0:
        raise ValueError(f"dt must be positive; got {dt!r}")
    return (x[:, 1:] - x[:, :-1]).norm(dim=-1) / dt


def detect_jumps(x: torch.Tensor, dt: float, factor: float = 5.0) -> torch.Tensor:
    """Mask (B, T-1) of detected resets: speed > ``factor`` × median speed (the paper's 𝓘; factor inferred)."""
    if not factor > 0:
        raise ValueError(f"factor must be positive; got {factor!r}")
    speed = step_speed(x, dt)
    return speed > factor * speed.median()


def precision_recall(detected: torch.Tensor, truth: torch.Tensor) -> tuple[float, float]:
    """Precision and recall of a detected reset mask against the simulator's (evaluation only)."""
    if detected.shape != truth.shape:
        raise ValueError(f"detected and truth must have the same shape; got {detected.shape} and {truth.shape}")
    tp = (detected & truth).sum().item()
    return tp / max(detected.sum().item(), 1), tp / max(truth.sum().item(), 1)


def jump_ratio(z: torch.Tensor, resets: torch.Tensor) -> float:
    """max over resets ‖z_{k+1} − z_k‖ / median over non-reset steps (claims 1–2); ≈1 means no jump."""
    _check_traj(z, "z")
    if resets.shape != z.shape[:1] + (z.shape[1] - 1,):
        raise ValueError(f"resets must have shape (B, T-1) = {tuple(z.shape[:1]) + (z.shape[1] - 1,)}")
    if not resets.any() or resets.all():
        raise ValueError("resets must mark some but not all steps")
    step = (z[:, 1:] - z[:, :-1]).norm(dim=-1)
    return (step[resets].max() / step[~resets].median()).item()


def velocity_jump(z: torch.Tensor, resets: torch.Tensor, dt: float) -> dict:
    """One-sided latent velocities across resets (the L_v stencil, inferred): ż⁻ = (z_k − z_{k−1})/Δt,
    ż⁺ = (z_{k+2} − z_{k+1})/Δt for a reset between k and k+1.

    Returns the median relative jump ‖ż⁺ − ż⁻‖ / mean(‖ż⁻‖, ‖ż⁺‖) at resets, the same stencil's value at
    ordinary (reset-free) positions — the curvature floor of a smooth curve sampled at Δt — and their
    difference ``excess`` (≈ 0 for a C¹ latent curve, large for a velocity corner).
    """
    _check_traj(z, "z")
    d = (z[:, 1:] - z[:, :-1]) / dt  # (B, T-1, m)
    vm, vp = d[:, :-2], d[:, 2:]      # stencil centred on step k = 1..T-3
    rel = (vp - vm).norm(dim=-1) / (0.5 * (vm.norm(dim=-1) + vp.norm(dim=-1)) + 1e-12)
    centre = resets[:, 1:-1]
    clean = ~(resets[:, :-2] | resets[:, 1:-1] | resets[:, 2:])
    side_ok = ~(resets[:, :-2] | resets[:, 2:])
    at_reset = centre & side_ok
    if not at_reset.any() or not clean.any():
        raise ValueError("need resets with reset-free neighbours and some reset-free stencils")
    r, c = rel[at_reset].median().item(), rel[clean].median().item()
    return {"reset": r, "smooth": c, "excess": r - c}
