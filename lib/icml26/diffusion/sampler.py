"""DDIM / DDPM sampling with a per-step controller hook and RePaint-style known-region replacement.

One step (Song et al. 2021, DDIM eq. 12), from level a_t to a_prev:
    x0  = (z_t - sqrt(1-a_t) eps) / sqrt(a_t)                     (clean estimate)
    x0  <- controller.on_step(t, x0, z_t, state)                  (optional inference-time control)
    eps = (z_t - sqrt(a_t) x0) / sqrt(1-a_t)                      (noise direction consistent with x0)
    z_prev = sqrt(a_prev) x0 + sqrt(1-a_prev-sigma^2) eps + sigma n,
    sigma = eta sqrt((1-a_prev)/(1-a_t)) sqrt(1-a_t/a_prev)
eta = 0 is deterministic DDIM; eta = 1 with every timestep is ancestral DDPM sampling.
Inpainting by replacement (Lugmayr et al. 2022, RePaint): after each step the known region is
overwritten by a fresh sample of q(z_prev | y) = N(sqrt(a_prev) y, (1-a_prev) I).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from icml26 import checks


def ddim_timesteps(T: int, steps: int) -> list[int]:
    """``steps`` distinct integer timesteps from T-1 down to 0, evenly spaced (descending)."""
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ValueError(f"T must be a positive integer; got {T!r}")
    checks.int_between("steps", steps, 1, T, what="T =")
    if steps == 1:
        return [T - 1]
    ts = torch.linspace(T - 1, 0, steps, dtype=torch.float64).round().long().tolist()
    return ts


def _level(alpha_bar, high_open: bool) -> float:
    if isinstance(alpha_bar, torch.Tensor) and alpha_bar.numel() == 1:
        alpha_bar = float(alpha_bar)
    return checks.in_range("alpha_bar", alpha_bar, 0.0, 1.0, low_open=True, high_open=high_open)


def _same_shape(name: str, x, z: torch.Tensor, ref: str = "z") -> torch.Tensor:
    checks.tensor(name, x)
    if x.shape != z.shape:
        raise ValueError(f"{name} must have {ref}'s shape {tuple(z.shape)}; got {tuple(x.shape)}")
    return x


def x0_from_eps(z: torch.Tensor, eps: torch.Tensor, alpha_bar: float) -> torch.Tensor:
    """x0 = (z - sqrt(1-a) eps) / sqrt(a)."""
    a = _level(alpha_bar, high_open=False)
    checks.tensor("z", z)
    _same_shape("eps", eps, z)
    return _x0_from_eps(z, eps, a)


def _x0_from_eps(z: torch.Tensor, eps: torch.Tensor, alpha_bar: float) -> torch.Tensor:
    a = float(alpha_bar)
    if not 0 < a <= 1:
        raise ValueError(f"alpha_bar must lie in (0, 1]; got {a}")
    return (z - (1 - a) ** 0.5 * eps) / a ** 0.5


def eps_from_x0(z: torch.Tensor, x0: torch.Tensor, alpha_bar: float) -> torch.Tensor:
    """eps = (z - sqrt(a) x0) / sqrt(1-a) (the noise direction consistent with a corrected x0)."""
    a = _level(alpha_bar, high_open=True)
    checks.tensor("z", z)
    _same_shape("x0", x0, z)
    return _eps_from_x0(z, x0, a)


def _eps_from_x0(z: torch.Tensor, x0: torch.Tensor, alpha_bar: float) -> torch.Tensor:
    a = float(alpha_bar)
    if not 0 < a < 1:
        raise ValueError(f"alpha_bar must lie in (0, 1); got {a}")
    return (z - a ** 0.5 * x0) / (1 - a) ** 0.5


def repaint_replace(z: torch.Tensor, known: torch.Tensor, keep: torch.Tensor, alpha_bar: float,
                    noise: torch.Tensor | None = None) -> torch.Tensor:
    """Overwrite pixels with ``keep`` = 1 by sqrt(a) known + sqrt(1-a) noise (a = 1 copies ``known``)."""
    a = _level(alpha_bar, high_open=False)
    checks.tensor("z", z)
    _same_shape("known", known, z)
    _check_keep(keep, z)
    if noise is not None:
        _same_shape("noise", noise, z)
    return _repaint_replace(z, known, keep, a, noise)


def _check_keep(keep, z: torch.Tensor, ref: str = "z") -> None:
    checks.tensor("keep", keep)
    try:
        if torch.broadcast_shapes(keep.shape, z.shape) != z.shape:
            raise RuntimeError
    except RuntimeError:
        raise ValueError(f"keep must broadcast to {ref}'s shape {tuple(z.shape)}; got {tuple(keep.shape)}") from None
    if bool(((keep != 0) & (keep != 1)).any()):
        raise ValueError("keep must hold only 0/1 (or boolean) entries")


def _repaint_replace(z: torch.Tensor, known: torch.Tensor, keep: torch.Tensor, alpha_bar: float,
                     noise: torch.Tensor | None = None) -> torch.Tensor:
    if known.shape != z.shape:
        raise ValueError(f"known must have z's shape {tuple(z.shape)}; got {tuple(known.shape)}")
    a = float(alpha_bar)
    if not 0 < a <= 1:
        raise ValueError(f"alpha_bar must lie in (0, 1]; got {a}")
    noisy = a ** 0.5 * known
    if a < 1:
        if noise is None:
            noise = torch.randn_like(z)
        noisy = noisy + (1 - a) ** 0.5 * noise
    keep = keep.to(z.dtype)
    return keep * noisy + (1 - keep) * z


def ddim_sample(eps_fn: Callable, alpha_bar: torch.Tensor, steps: int, z_T: torch.Tensor, *, eta: float = 0.0,
                controller=None, known: torch.Tensor | None = None, keep: torch.Tensor | None = None,
                generator: torch.Generator | None = None, return_trajectory: bool = False):
    """Sample from z_T with ``steps`` DDIM steps of the schedule ``alpha_bar``; returns the final x0.

    ``eps_fn(z, t)`` predicts the noise (batched over all leading dimensions). ``controller`` is
    ``None``, a callable, or an object with ``on_step(t, x0_hat, z_t, state) -> x0_hat``; ``state`` is
    a dict it may use freely, pre-filled with ``step``, ``n_steps``, ``t`` and ``alpha_bar_t``.
    With ``known``/``keep`` the known region (keep = 1) is RePaint-replaced after each step and the
    output is composited with ``known``. With ``return_trajectory`` also returns the list of x0_hat
    (after control) at every step. The number of ``eps_fn`` calls (NFE) equals ``steps``.
    """
    if not callable(eps_fn):
        raise TypeError(f"eps_fn must be callable as eps_fn(z, t); got {type(eps_fn).__name__}")
    if not isinstance(alpha_bar, torch.Tensor) or alpha_bar.dim() != 1:
        raise ValueError("alpha_bar must be a 1-D tensor")
    checks.tensor("alpha_bar", alpha_bar)
    if bool(((alpha_bar <= 0) | (alpha_bar > 1)).any()):
        raise ValueError("alpha_bar must lie in (0, 1]")
    if bool((alpha_bar[1:] > alpha_bar[:-1]).any()):
        raise ValueError("alpha_bar must be non-increasing (alpha_bar[0] the least noisy step, alpha_bar[-1] the "
                         "noisiest); it increases somewhere")
    if not isinstance(z_T, torch.Tensor) or not torch.isfinite(z_T).all():
        raise ValueError("z_T must be a finite tensor")
    checks.tensor("z_T", z_T)
    eta = checks.in_range("eta", eta, 0.0, 1.0)
    if (known is None) != (keep is None):
        raise ValueError("known and keep must be given together")
    if keep is not None and keep.shape != z_T.shape:
        raise ValueError(f"keep must have z_T's shape {tuple(z_T.shape)}; got {tuple(keep.shape)}")
    if known is not None:
        _same_shape("known", known, z_T, "z_T")
        _check_keep(keep, z_T, "z_T")
    checks.generator("generator", generator)
    if not isinstance(return_trajectory, bool):
        raise TypeError(f"return_trajectory must be a bool; got {type(return_trajectory).__name__}")
    ts = ddim_timesteps(int(alpha_bar.shape[0]), steps)
    hook = None
    if controller is not None:
        hook = controller.on_step if hasattr(controller, "on_step") else controller
        if not callable(hook):
            raise ValueError("controller must be callable or have an on_step method")
    state: dict = {"n_steps": len(ts)}
    z = z_T
    traj = []
    x0 = z
    for i, t in enumerate(ts):
        a_t = float(alpha_bar[t])
        a_prev = float(alpha_bar[ts[i + 1]]) if i + 1 < len(ts) else 1.0
        eps = eps_fn(z, t)
        x0 = _x0_from_eps(z, eps, a_t)
        if hook is not None:
            state.update(step=i, t=t, alpha_bar_t=a_t)
            x0 = hook(t, x0, z, state)
            eps = _eps_from_x0(z, x0, a_t) if a_t < 1 else eps
        if return_trajectory:
            traj.append(x0)
        if a_prev >= 1.0:
            z = x0
        else:
            sigma = eta * ((1 - a_prev) / (1 - a_t)) ** 0.5 * max(0.0, 1 - a_t / a_prev) ** 0.5
            z = a_prev ** 0.5 * x0 + max(0.0, 1 - a_prev - sigma ** 2) ** 0.5 * eps
            if sigma > 0:
                z = z + sigma * torch.randn(z.shape, generator=generator, dtype=z.dtype, device=z.device)
        if known is not None:
            n = None
            if a_prev < 1:
                n = torch.randn(z.shape, generator=generator, dtype=z.dtype, device=z.device)
            z = _repaint_replace(z, known, keep, a_prev, n)
    return (z, traj) if return_trajectory else z
