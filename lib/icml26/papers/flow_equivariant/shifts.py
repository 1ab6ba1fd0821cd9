"""Toroidal (circular) shift operations on 2-D feature maps (a generic block; docs/papers/flow_equivariant.md).

Nothing here knows about world models. ``torus_shift`` translates the last two axes of a tensor by integer
amounts that may differ per leading index (per sample, per velocity channel) with ONE ``gather`` over the
flattened plane, so a whole batch with different shifts moves in one tensor op. It can also return the shifted
map already padded circularly (``pad``), so that a following ``k x k`` convolution needs no padding copy of its
own: ``conv_valid(torus_shift(x, s, pad=k // 2)) == conv_circular(torus_shift(x, s))`` exactly.
Convention: ``torus_shift(x, s)[..., i, j] == x[..., (i - s_y) % H, (j - s_x) % W]``, which is
``torch.roll(x, shifts=(s_y, s_x), dims=(-2, -1))`` for a single shift. Shifts are ``(dy, dx)``.
"""

from __future__ import annotations

import torch

from icml26 import checks


def _check_map(x, name: str = "x") -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor (..., H, W); got {type(x).__name__}")
    if x.dim() < 2 or x.numel() == 0:
        raise ValueError(f"{name} must be a non-empty tensor with at least 2 dims (..., H, W); got {tuple(x.shape)}")
    return x


def _shift_tensor(shifts, lead, device) -> torch.Tensor:
    """``shifts`` as a long tensor whose leading shape broadcasts against ``lead`` (validated)."""
    if isinstance(shifts, (tuple, list)):
        if len(shifts) != 2 or not all(isinstance(s, int) and not isinstance(s, bool) for s in shifts):
            raise ValueError(f"shifts must be a pair of ints (dy, dx) or an integer tensor (..., 2); got {shifts!r}")
        return torch.tensor(shifts, device=device)
    if not isinstance(shifts, torch.Tensor) or shifts.shape[-1:] != (2,):
        raise ValueError(f"shifts must be a pair of ints or an integer tensor of shape (..., 2); got {shifts!r}")
    if shifts.dtype.is_floating_point or shifts.dtype.is_complex or shifts.dtype == torch.bool:
        raise ValueError(f"shifts must hold integers (toroidal shifts are exact only for integers); got {shifts.dtype}")
    if len(shifts.shape[:-1]) > len(lead):
        raise ValueError(f"shifts has more leading dims ({shifts.dim() - 1}) than x has batch dims ({len(lead)})")
    try:
        torch.broadcast_shapes(shifts.shape[:-1], lead)
    except RuntimeError as err:
        raise ValueError(f"shifts leading shape {tuple(shifts.shape[:-1])} must broadcast to {tuple(lead)}") from err
    return shifts.to(device, torch.long)


def torus_shift(x: torch.Tensor, shifts, pad: int = 0) -> torch.Tensor:
    """Circularly translate the last two axes of ``x`` by integer ``shifts`` = (dy, dx).

    ``shifts`` is a pair of ints (same shift everywhere) or an integer tensor of shape ``(..., 2)`` whose leading
    shape broadcasts against ``x.shape[:-2]`` (one shift per sample / channel). ``pad`` > 0 returns the shifted map
    with ``pad`` rows and columns of circular padding on each side, shape ``(..., H + 2 pad, W + 2 pad)``.
    """
    _check_map(x)
    pad = checks.nonnegative_int("pad", pad)
    h, w = x.shape[-2:]
    lead = x.shape[:-2]
    s = _shift_tensor(shifts, lead, x.device)
    if pad == 0 and s.dim() == 1:
        return torch.roll(x, shifts=(int(s[0]), int(s[1])), dims=(-2, -1))
    rows = (torch.arange(-pad, h + pad, device=x.device) - s[..., 0:1]) % h                    # (..., H')
    cols = (torch.arange(-pad, w + pad, device=x.device) - s[..., 1:2]) % w                    # (..., W')
    idx = rows[..., :, None] * w + cols[..., None, :]                                          # (..., H', W')
    idx = idx.reshape(*idx.shape[:-2], -1)
    idx = idx.reshape((1,) * (len(lead) - idx.dim() + 1) + tuple(idx.shape))                   # align on the right
    out = torch.gather(x.reshape(*lead, h * w), -1, idx.expand(*lead, idx.shape[-1]))
    return out.reshape(*lead, h + 2 * pad, w + 2 * pad)


def velocity_grid(radius: int, device=None) -> torch.Tensor:
    """The velocity set V = {(v_y, v_x): |v_y|, |v_x| <= radius} as a long tensor (|V|, 2), row-major in (v_y, v_x)."""
    radius = checks.nonnegative_int("radius", radius)
    r = torch.arange(-radius, radius + 1, device=device)
    vy, vx = torch.meshgrid(r, r, indexing="ij")
    return torch.stack([vy.reshape(-1), vx.reshape(-1)], dim=-1)


def window_crop(world: torch.Tensor, centers: torch.Tensor, window: int) -> torch.Tensor:
    """Crop a ``window x window`` view of a torus ``world`` (..., W, W) centred on integer ``centers`` (..., 2).

    Official renderer semantics: roll so that the centre sits at ``window // 2``, then take
    ``[0:window, 0:window]``, i.e. ``view[i, j] = world[(c_y - window//2 + i) % W, (c_x - window//2 + j) % W]``.
    """
    _check_map(world, "world")
    window = checks.positive_int("window", window)
    if window > min(world.shape[-2:]):
        raise ValueError(f"window must be an int in [1, {min(world.shape[-2:])}]; got {window!r}")
    if not isinstance(centers, torch.Tensor) or centers.shape != world.shape[:-2] + (2,):
        raise ValueError(f"centers must be a tensor of shape {tuple(world.shape[:-2]) + (2,)}; "
                         f"got {getattr(centers, 'shape', centers)}")
    if centers.dtype.is_floating_point or centers.dtype.is_complex or centers.dtype == torch.bool:
        raise ValueError(f"centers must hold integer camera positions; got dtype {centers.dtype}")
    shifted = torus_shift(world, window // 2 - centers.long())
    return shifted[..., :window, :window]
