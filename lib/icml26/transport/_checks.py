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
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ValueError(f"{name} must be a finite positive number; got {value!r}")
    return float(value)


def positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def _named(name) -> str:
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be the non-empty name of the argument being checked; got {name!r}")
    return name


def finite_tensor(x, name: str, ndim: int | None = None, nonempty: bool = True) -> torch.Tensor:
    """``x`` as a finite floating tensor (``ndim`` dimensions, at least one element unless ``nonempty=False``)."""
    _named(name)
    if ndim is not None and (isinstance(ndim, bool) or not isinstance(ndim, int) or ndim < 0):
        raise ValueError(f"ndim must be a non-negative integer or None; got {ndim!r}")
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor; got {type(x).__name__}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions; got shape {tuple(x.shape)}")
    if nonempty and x.numel() == 0:
        raise ValueError(f"{name} must not be empty; got shape {tuple(x.shape)}")
    if not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor; got dtype {x.dtype}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return x


def marginals(value, name: str = "marginals", min_count: int = 2) -> list:
    """A list of at least ``min_count`` finite (n_k, d) point clouds sharing d."""
    _named(name)
    positive_int(min_count, "min_count")
    if not isinstance(value, (list, tuple)) or len(value) < min_count:
        raise ValueError(f"{name} must be a list of at least {min_count} (n, d) tensors")
    d = as_points(value[0], f"{name}[0]").shape[1]
    for k, m in enumerate(value):
        as_points(m, f"{name}[{k}]", dim=d)
    return list(value)
