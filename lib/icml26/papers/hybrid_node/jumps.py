"""Reset detection by a speed threshold and latent jump / velocity-jump statistics (paper §4).

The paper detects the set 𝓘 of consecutive samples that straddle a reset by thresholding the empirical
Lipschitz constant ‖x_{k+1} − x_k‖ / Δt; no mode labels are used. The threshold rule is inferred:
``factor`` × the median finite-difference speed of the data.
"""

from __future__ import annotations

import torch

from icml26 import checks


def _check_traj(x, name="x"):
    checks.tensor(name, x, ndim=3, dtype_kind="float")
    if x.shape[1] < 2:
        raise ValueError(f"{name} must have shape (B, T>=2, d); got {tuple(x.shape)}")


def _check_mask(name, mask, shape):
    checks.tensor(name, mask, dtype_kind="bool")
    if tuple(mask.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}; got {tuple(mask.shape)}")


def step_speed(x: torch.Tensor, dt: float) -> torch.Tensor:
    """Finite-difference speeds ‖x_{k+1} − x_k‖ / Δt, shape (B, T-1)."""
    _check_traj(x)
    dt = checks.positive_number("dt", dt)
    return (x[:, 1:] - x[:, :-1]).norm(dim=-1) / dt


def detect_jumps(x: torch.Tensor, dt: float, factor: float = 5.0) -> torch.Tensor:
    """Mask (B, T-1) of detected resets: speed > ``factor`` × median speed (the paper's 𝓘; factor inferred)."""
    factor = checks.positive_number("factor", factor)
    speed = step_speed(x, dt)
    return speed > factor * speed.median()


def precision_recall(detected: torch.Tensor, truth: torch.Tensor) -> tuple[float, float]:
    """Precision and recall of a detected reset mask against the simulator's (evaluation only)."""
    checks.tensor("detected", detected, dtype_kind="bool")
    _check_mask("truth", truth, detected.shape)
    tp = (detected & truth).sum().item()
    return tp / max(detected.sum().item(), 1), tp / max(truth.sum().item(), 1)


def jump_ratio(z: torch.Tensor, resets: torch.Tensor) -> float:
    """max over resets ‖z_{k+1} − z_k‖ / median over non-reset steps (claims 1–2); ≈1 means no jump."""
    _check_traj(z, "z")
    _check_mask("resets", resets, (z.shape[0], z.shape[1] - 1))
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
    _check_mask("resets", resets, (z.shape[0], z.shape[1] - 1))
    dt = checks.positive_number("dt", dt)
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
