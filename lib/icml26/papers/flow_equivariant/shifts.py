"""Toroidal (circular) shift operations on 2-D feature maps (note §9: shared building block).

Generic: nothing here knows about world models. ``torus_shift`` translates the last two axes of a tensor
by integer amounts that may differ per leading index (per sample, per velocity channel), using one
``gather`` per axis so that a whole batch with different shifts is moved in one tensor op.
Convention: ``torus_shift(x, s)[..., i, j] == x[..., (i - s_y) % H, (j - s_x) % W]``, exactly
``torch.roll(x, shifts=(s_y, s_x), dims=(-2, -1))`` for a single shift. Shifts are ``(dy, dx)``.
"""

from __future__ import annotations

import torch


def _check_map(x: torch.Tensor, name: str = "x") -> None:
    if not isinstance(x, torch.Tensor) or x.dim() < 2:
        raise ValueError(f"{name} must be a tensor with at least 2 dims (..., H, W); got "
                         f"{getattr(x, 'shape', type(x).__name__)}")


def torus_shift(x: torch.Tensor, shifts) -> torch.Tensor:
    """Circularly translate the last two axes of ``x`` by integer ``shifts`` = (dy, dx).

    ``shifts`` is a pair of ints (same shift everywhere) or an integer tensor of shape ``(..., 2)`` whose leading
    shape broadcasts against ``x.shape[:-2]`` (one shift per sample / channel).
    """
    _check_map(x)
    if isinstance(shifts, (tuple, list)):
        if len(shifts) != 2 or not all(isinstance(s, int) for s in shifts):
            raise ValueError(f"shifts must be a pair of ints (dy, dx) or an integer tensor (..., 2); got {shifts!r}")
        return torch.roll(x, shifts=(int(shifts[0]), int(shifts[1])), dims=(-2, -1))
    if not isinstance(shifts, torch.Tensor) or shifts.shape[-1:] != (2,):
        raise ValueError(f"shifts must be a pair of ints or an integer tensor of shape (..., 2); got {shifts!r}")
    if shifts.dtype.is_floating_point or shifts.dtype == torch.bool:
        raise ValueError(f"shifts must hold integers (toroidal shifts are exact only for integers); got {shifts.dtype}")
    lead = x.shape[:-2]
    try:
        torch.broadcast_shapes(shifts.shape[:-1], lead)
    except RuntimeError as err:
        raise ValueError(f"shifts leading shape {tuple(shifts.shape[:-1])} must broadcast to {tuple(lead)}") from err
    if len(shifts.shape[:-1]) > len(lead):
        raise ValueError(f"shifts has more leading dims ({shifts.dim() - 1}) than x has batch dims ({len(lead)})")
    h, w = x.shape[-2:]
    s = shifts.to(x.device, torch.long).expand(*lead, 2)
    rows = (torch.arange(h, device=x.device) - s[..., 0:1]) % h          # (..., H)
    cols = (torch.arange(w, device=x.device) - s[..., 1:2]) % w          # (..., W)
    out = torch.gather(x, -2, rows[..., :, None].expand(*lead, h, w))
    return torch.gather(out, -1, cols[..., None, :].expand(*lead, h, w))


def velocity_grid(radius: int, device=None) -> torch.Tensor:
    """The velocity set V = {(v_y, v_x): |v_y|, |v_x| <= radius} as a long tensor (|V|, 2) (note §3.1)."""
    if isinstance(radius, bool) or not isinstance(radius, int) or radius < 0:
        raise ValueError(f"radius must be a non-negative int; got {radius!r}")
    r = torch.arange(-radius, radius + 1, device=device)
    vy, vx = torch.meshgrid(r, r, indexing="ij")
    return torch.stack([vy.reshape(-1), vx.reshape(-1)], dim=-1)


def window_crop(world: torch.Tensor, centers: torch.Tensor, window: int) -> torch.Tensor:
    """Crop a ``window x window`` view of a torus ``world`` (..., W, W) centred on integer ``centers`` (..., 2).

    Same semantics as the official renderer (note §3.5): roll so that the centre sits at ``window // 2``,
    then take ``[0:window, 0:window]``, i.e. ``view[i, j] = world[(c_y - window//2 + i) % W, ...]``.
    """
    _check_map(world, "world")
    if isinstance(window, bool) or not isinstance(window, int) or not 1 <= window <= min(world.shape[-2:]):
        raise ValueError(f"window must be an int in [1, {min(world.shape[-2:])}]; got {window!r}")
    if not isinstance(centers, torch.Tensor) or centers.shape != world.shape[:-2] + (2,):
        raise ValueError(f"centers must be a tensor of shape {tuple(world.shape[:-2]) + (2,)}; "
                         f"got {getattr(centers, 'shape', centers)}")
    shifted = torus_shift(world, window // 2 - centers.long())
    return shifted[..., :window, :window]
