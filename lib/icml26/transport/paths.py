"""Probability paths and conditional flow-matching targets (positions x_t and velocities u_t).

All functions are batched: a batch of B conditioning tuples, one time per tuple. They return
``(x_t, u_t)`` with ``u_t = d x_t / dt`` so that regressing a network ``v(x_t, t)`` on ``u_t``
is conditional flow matching.

* :func:`linear_path`: the straight interpolant between two points (I-CFM / OT-CFM, optional
  Gaussian width ``sigma``);
* :func:`piecewise_linear_path`: the chord through K >= 2 points at increasing times (stitched
  pairwise CFM with one global time);
* :func:`cubic_spline_path`: the natural cubic spline through K >= 3 points (MMFM's interpolant).
"""

from __future__ import annotations

import torch

from icml26.transport._checks import finite_tensor


def _times(t, batch: int, like: torch.Tensor, name: str = "t") -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        t = torch.as_tensor(t, dtype=like.dtype, device=like.device)
    t = t.to(like.dtype).reshape(-1).contiguous()
    if t.numel() == 1:
        t = t.expand(batch).contiguous()
    if t.shape != (batch,):
        raise ValueError(f"{name} must be a scalar or hold one time per tuple ({batch}); got shape {tuple(t.shape)}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} must be finite")
    return t


def _knots(times, like: torch.Tensor, k: int, min_k: int) -> torch.Tensor:
    times = torch.as_tensor(times, dtype=like.dtype, device=like.device).reshape(-1)
    if times.numel() != k or k < min_k:
        raise ValueError(f"times must hold one time per marginal ({k} >= {min_k}); got {times.numel()}")
    if not (times[1:] > times[:-1]).all():
        raise ValueError("times must be strictly increasing")
    return times


def linear_path(x0: torch.Tensor, x1: torch.Tensor, t, sigma: float = 0.0, noise: torch.Tensor | None = None):
    """x_t = (1 - t) x0 + t x1 (+ sigma * noise), u_t = x1 - x0. Shapes (B, d); ``t`` scalar or (B,)."""
    finite_tensor(x0, "x0", ndim=2)
    finite_tensor(x1, "x1", ndim=2)
    if x0.shape != x1.shape:
        raise ValueError(f"x1 must have the shape of x0 {tuple(x0.shape)}; got {tuple(x1.shape)}")
    if not 0 <= sigma < float("inf"):
        raise ValueError(f"sigma must be >= 0; got {sigma}")
    t = _times(t, x0.shape[0], x0)[:, None]
    if bool(((t < 0) | (t > 1)).any()):
        raise ValueError(f"t must lie in [0, 1] (the path runs from x0 at 0 to x1 at 1); got values in "
                         f"[{float(t.min()):.4g}, {float(t.max()):.4g}]")
    xt = (1 - t) * x0 + t * x1
    if sigma > 0:
        if noise is None:
            noise = torch.randn_like(x0)
        xt = xt + sigma * noise
    return xt, x1 - x0


def _check_tuples(xs) -> torch.Tensor:
    return finite_tensor(xs, "xs", ndim=3)


def piecewise_linear_path(xs: torch.Tensor, times, t):
    """The chord through ``xs[:, k]`` at ``times[k]`` (K >= 2), evaluated at global times ``t`` (B,).

    Inside segment k the velocity is (x_{k+1} - x_k) / (t_{k+1} - t_k); times outside the knots are
    clamped to the first/last segment.
    """
    xs = _check_tuples(xs)
    b, k, _ = xs.shape
    knots = _knots(times, xs, k, 2)
    t = _times(t, b, xs)
    seg = torch.searchsorted(knots, t, right=True).sub(1).clamp(0, k - 2)
    t0, t1 = knots[seg], knots[seg + 1]
    rows = torch.arange(b, device=xs.device)
    a, z = xs[rows, seg], xs[rows, seg + 1]
    h = (t1 - t0)[:, None]
    u = (z - a) / h
    return a + (t - t0)[:, None] * u, u


def natural_cubic_spline_coeffs(times, like: torch.Tensor | None = None) -> torch.Tensor:
    """The (K, K) matrix R with M = R @ y: the natural spline's second derivatives at the knots.

    Natural boundary conditions (M_0 = M_{K-1} = 0). The spline is linear in the knot values, so R
    depends on the knot times only and is computed once.
    """
    like = like if like is not None else torch.zeros((), dtype=torch.float64)
    times = torch.as_tensor(times, dtype=like.dtype, device=like.device).reshape(-1)
    k = times.numel()
    if not torch.isfinite(times).all():
        raise ValueError("times must be finite")
    if k < 3:
        raise ValueError(f"times must hold at least 3 knots for a cubic spline; got {k}")
    if not (times[1:] > times[:-1]).all():
        raise ValueError("times must be strictly increasing")
    h = times[1:] - times[:-1]
    n = k - 2
    lhs = torch.zeros(n, n, dtype=times.dtype, device=times.device)
    rhs = torch.zeros(n, k, dtype=times.dtype, device=times.device)
    i = torch.arange(n, device=times.device)
    lhs[i, i] = 2 * (h[:-1] + h[1:])
    lhs[i[1:], i[:-1]] = h[1:-1]
    lhs[i[:-1], i[1:]] = h[1:-1]
    rhs[i, i] = 6 / h[:-1]
    rhs[i, i + 1] = -6 / h[:-1] - 6 / h[1:]
    rhs[i, i + 2] = 6 / h[1:]
    inner = torch.linalg.solve(lhs, rhs)
    out = torch.zeros(k, k, dtype=times.dtype, device=times.device)
    out[1:-1] = inner
    return out


def cubic_spline_path(xs: torch.Tensor, times, t, coeffs: torch.Tensor | None = None):
    """The natural cubic spline through ``xs[:, k]`` at ``times[k]`` (K >= 3) and its time derivative at ``t``."""
    xs = _check_tuples(xs)
    b, k, _ = xs.shape
    knots = _knots(times, xs, k, 3)
    t = _times(t, b, xs)
    r = natural_cubic_spline_coeffs(knots, xs) if coeffs is None else coeffs.to(xs)
    m = torch.einsum("jk,bkd->bjd", r, xs)
    seg = torch.searchsorted(knots, t, right=True).sub(1).clamp(0, k - 2)
    rows = torch.arange(b, device=xs.device)
    t0, t1 = knots[seg], knots[seg + 1]
    h = (t1 - t0)[:, None]
    a, bb = (t1 - t)[:, None], (t - t0)[:, None]
    y0, y1, m0, m1 = xs[rows, seg], xs[rows, seg + 1], m[rows, seg], m[rows, seg + 1]
    c0, c1 = y0 / h - m0 * h / 6, y1 / h - m1 * h / 6
    x = m0 * a**3 / (6 * h) + m1 * bb**3 / (6 * h) + c0 * a + c1 * bb
    u = -m0 * a**2 / (2 * h) + m1 * bb**2 / (2 * h) - c0 + c1
    return x, u
