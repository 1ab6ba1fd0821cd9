"""Sampling by integrating a velocity field dx/dt = v(x, t) (torchdiffeq ``odeint``).

``integrate(velocity, x0, times, method="rk4", steps=...)`` returns the states at every requested
time. Fixed-step methods ("euler", "midpoint", "rk4") take ``steps`` equal steps per unit time (at
least one between consecutive requested times); adaptive ones ("dopri5") use ``rtol``/``atol``.
"""

from __future__ import annotations

import torch
from torchdiffeq import odeint

from icml26.transport._checks import finite_tensor, positive, positive_int

FIXED = ("euler", "midpoint", "rk4")
ADAPTIVE = ("dopri5", "bosh3", "adaptive_heun")


def integrate(velocity, x0: torch.Tensor, times, method: str = "rk4", steps: int = 100,
              rtol: float = 1e-5, atol: float = 1e-5, grad: bool = False) -> torch.Tensor:
    """States x(times[i]) of dx/dt = velocity(x, t) started at ``x0`` (B, d) at ``times[0]``; shape (T, B, d).

    ``velocity(x, t)`` takes a (B, d) state and a scalar time tensor. ``grad=False`` integrates under
    ``torch.no_grad()`` (sampling); ``grad=True`` keeps the graph (simulation-based training).
    """
    if not callable(velocity):
        raise ValueError("velocity must be callable as velocity(x, t)")
    finite_tensor(x0, "x0", ndim=2)
    times = torch.as_tensor(times, dtype=x0.dtype, device=x0.device).reshape(-1)
    if times.numel() < 2 or not torch.isfinite(times).all() or not (times[1:] > times[:-1]).all():
        raise ValueError("times must hold at least two finite, strictly increasing values")
    if method not in FIXED + ADAPTIVE:
        raise ValueError(f"method must be one of {FIXED + ADAPTIVE}; got {method!r}")
    steps = positive_int(steps, "steps")
    rtol, atol = positive(rtol, "rtol"), positive(atol, "atol")

    def f(t, x):
        v = velocity(x, t)
        if not isinstance(v, torch.Tensor) or v.shape != x.shape:
            raise ValueError(f"velocity(x, t) must return a tensor of the state's shape {tuple(x.shape)}; got "
                             f"{tuple(v.shape) if isinstance(v, torch.Tensor) else type(v).__name__}")
        return v

    kwargs = {}
    if method in FIXED:
        span = float(times[-1] - times[0])
        gaps = float((times[1:] - times[:-1]).min())
        kwargs["options"] = {"step_size": min(span / steps, gaps)}
    else:
        kwargs.update(rtol=rtol, atol=atol)
    with torch.set_grad_enabled(grad and torch.is_grad_enabled()):
        return odeint(f, x0, times, method=method, **kwargs)
