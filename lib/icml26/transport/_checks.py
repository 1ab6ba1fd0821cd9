"""Small input checks shared by the transport modules (each raises ``ValueError`` naming the argument)."""

from __future__ import annotations

import torch


def as_points(x, name: str, dim: int | None = None) -> torch.Tensor:
    """``x`` as a finite floating (n, d) tensor with n >= 1; ``dim`` fixes d."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape (n, d); got {type(x).__name__}")
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"{name} must have shape (n, d) with n, d >= 1; got {tuple(x.shape)}")
    if dim is not None and x.shape[1] != dim:
        raise ValueError(f"{name} must have {dim} columns to match the other point cloud; got {x.shape[1]}")
    if not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor; got dtype {x.dtype}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return x


def positive(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number; got {value!r}")
    return float(value)


def positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)
