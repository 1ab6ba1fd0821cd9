"""Euclidean projection onto the probability simplex (sparsemax) and its generalized Jacobian, batched.

For ``v`` in R^k the projection onto ``{p >= 0, sum(p) = r}`` is ``max(v - tau, 0)`` where the scalar
``tau`` makes the entries sum to ``r`` (Held, Wolfe & Crowder 1974; Duchi et al. 2008; Martins &
Astudillo 2016 call it *sparsemax*). ``tau`` is found by sorting (``O(k log k)``).

The map is piecewise affine. On the *strict* support ``S = {i : v_i > tau}`` (indicator ``s``) an
element of its Clarke / HS generalized Jacobian is ``diag(s) - s s^T / |S|``, the orthogonal projector
onto ``{u : supp(u) in S, sum(u) = 0}``; it is the classical Jacobian wherever no entry ties with
``tau``. Every function works on the last dimension of a tensor of any batch shape, on any device.
"""

from __future__ import annotations

import torch


def _check(v, name: str = "v") -> torch.Tensor:
    if not isinstance(v, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor; got {type(v).__name__}")
    if not v.is_floating_point():
        raise ValueError(f"{name} must have a floating dtype; got {v.dtype}")
    if v.dim() < 1 or v.numel() < 1:
        raise ValueError(f"{name} must have at least one dimension and one entry; got shape {tuple(v.shape)}")
    if not bool(torch.isfinite(v).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return v


def _check_radius(radius) -> float:
    if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not radius > 0 or radius == float("inf"):
        raise ValueError(f"radius must be a positive finite number; got {radius!r}")
    return float(radius)


def threshold(v: torch.Tensor, radius: float = 1.0, check: bool = True) -> torch.Tensor:
    """The threshold ``tau`` (shape ``v.shape[:-1]``) with ``sum(max(v - tau, 0)) = radius``.

    ``check=False`` skips input validation (hot loops that validated once; avoids a device sync).
    """
    if not isinstance(check, bool):
        raise TypeError(f"check must be a bool; got {type(check).__name__}")
    if check:
        v = _check(v)
        radius = _check_radius(radius)
    k = v.shape[-1]
    u, _ = torch.sort(v, dim=-1, descending=True)
    css = torch.cumsum(u, dim=-1) - radius
    idx = torch.arange(1, k + 1, device=v.device, dtype=v.dtype)
    cond = u - css / idx > 0
    rho = cond.sum(dim=-1, keepdim=True).clamp(min=1)  # cond is a true prefix; rho >= 1 always holds exactly
    return (torch.gather(css, -1, rho - 1) / rho.to(v.dtype)).squeeze(-1)


def project(v: torch.Tensor, radius: float = 1.0, check: bool = True) -> torch.Tensor:
    """Euclidean projection of each row ``v[..., :]`` onto ``{p >= 0, sum(p) = radius}`` (sparsemax)."""
    tau = threshold(v, radius, check)
    return torch.clamp(v - tau.unsqueeze(-1), min=0)


def support(v: torch.Tensor, radius: float = 1.0, check: bool = True) -> torch.Tensor:
    """Boolean strict support ``v_i > tau`` of the projection (never empty)."""
    tau = threshold(v, radius, check)
    s = v > tau.unsqueeze(-1)
    # At an exact tie of every entry with tau (only possible in degenerate floating cases) keep the argmax.
    empty = ~s.any(dim=-1, keepdim=True)
    if bool(empty.any()):
        s = s | (empty & (v == v.max(dim=-1, keepdim=True).values))
    return s


def jacobian(v: torch.Tensor, radius: float = 1.0) -> torch.Tensor:
    """Dense generalized Jacobian ``diag(s) - s s^T/|S|`` of :func:`project` at ``v``, shape ``(..., k, k)``."""
    s = support(v, radius).to(v.dtype)
    size = s.sum(dim=-1)[..., None, None]
    return torch.diag_embed(s) - s.unsqueeze(-1) * s.unsqueeze(-2) / size


def jvp(v: torch.Tensor, u: torch.Tensor, radius: float = 1.0) -> torch.Tensor:
    """Jacobian-vector product ``J(v) u`` in ``O(k)`` (the Jacobian is symmetric, so this is also the VJP)."""
    v = _check(v)
    u = _check(u, "u")
    if u.shape != v.shape:
        raise ValueError(f"u must have the shape of v {tuple(v.shape)}; got {tuple(u.shape)}")
    s = support(v, _check_radius(radius), check=False).to(v.dtype)
    mean = (s * u).sum(dim=-1, keepdim=True) / s.sum(dim=-1, keepdim=True)
    return s * (u - mean)
