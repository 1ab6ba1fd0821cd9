"""Toy video world (docs/papers/video_inpainting.md §2).

A Gaussian-random-field texture translating with a known integer velocity on a torus (exact warps), a moving
rectangular hole, and a co-moving sub-hole whose content is never observed. Ground truth: frames, masks, exact
all-pairs flows, recoverable / never-visible maps.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.diffusion import grf_spectrum, sample_grf
from icml26.papers.video_inpainting.flowest import compose_all_pairs


def make_videos(n_videos: int, frames: int = 8, size: int = 24, channels: int = 1, hole: int = 10,
                sub_hole: int = 4, alpha: float = 3.0, k0: float = 1.0, max_speed: int = 2, generator=None,
                device=None, dtype=torch.float32) -> dict:
    """Generate ``n_videos`` clips; every tensor is (B, F, ..., H, W). See the module docstring."""
    for name, v, lo in (("n_videos", n_videos, 1), ("frames", frames, 2), ("size", size, 8), ("channels", channels, 1),
                        ("max_speed", max_speed, 1)):
        checks.int_at_least(name, v, lo)
    checks.int_between("hole", hole, 1, size - 1, what="size - 1 =")
    checks.int_between("sub_hole", sub_hole, 0, hole, what="hole =")
    checks.nonnegative_number("alpha", alpha)
    checks.positive_number("k0", k0)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")
    if device is not None:
        checks.device("device", device)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
    g = generator
    B, Fn, H = n_videos, frames, size
    S = grf_spectrum(H, H, alpha, k0, device=device)
    tex = sample_grf((B, channels), S, generator=g).to(dtype)
    speeds = torch.arange(-max_speed, max_speed + 1)
    vt = speeds[torch.randint(len(speeds), (B, 2), generator=g)]
    vt[(vt == 0).all(1), 0] = 1
    vh = speeds[torch.randint(len(speeds), (B, 2), generator=g)]
    same = (vh == vt).all(1)
    vh[same] = -vt[same]
    start = torch.randint(H, (B, 2), generator=g)
    ys = torch.arange(H).view(H, 1)
    xs = torch.arange(H).view(1, H)
    f = torch.arange(Fn).view(1, Fn, 1, 1)

    def box(origin, vel, side):  # (B, F, H, W) boolean square of ``side`` moving with ``vel`` on the torus
        oy = origin[:, 1].view(B, 1, 1, 1) + f * vel[:, 1].view(B, 1, 1, 1)
        ox = origin[:, 0].view(B, 1, 1, 1) + f * vel[:, 0].view(B, 1, 1, 1)
        return (torch.remainder(ys - oy, H) < side) & (torch.remainder(xs - ox, H) < side)

    hole_m = box(start, vh, hole)
    sub = box(start + (hole - sub_hole) // 2, vt, sub_hole) if sub_hole > 0 else torch.zeros_like(hole_m)
    mask = (hole_m | sub)
    # frames: x^f(p) = T(p - f v)
    idx_y = torch.remainder(ys.view(1, 1, H, 1) - f.view(1, Fn, 1, 1) * vt[:, 1].view(B, 1, 1, 1), H)
    idx_x = torch.remainder(xs.view(1, 1, 1, H) - f.view(1, Fn, 1, 1) * vt[:, 0].view(B, 1, 1, 1), H)
    bidx = torch.arange(B).view(B, 1, 1, 1)
    video = tex.permute(0, 2, 3, 1)[bidx, idx_y, idx_x].permute(0, 1, 4, 2, 3).contiguous()  # (B,F,C,H,W)
    # texture coordinates seen in any frame -> recoverable vs never-visible
    # (index_put_ with accumulate: the same texture pixel is indexed once per frame, and a plain ``seen[idx] |= v``
    # keeps only one of the repeated writes instead of OR-ing them)
    seen = torch.zeros(B, H, H, dtype=torch.long)
    seen.index_put_((bidx.expand(B, Fn, H, H), idx_y.expand(B, Fn, H, H), idx_x.expand(B, Fn, H, H)),
                    (~mask).long(), accumulate=True)
    seen_f = seen[bidx, idx_y, idx_x] > 0
    recoverable = mask & seen_f
    never = mask & ~seen_f
    # exact flows u^{f->f+1} = v, u^{f+1->f} = -v, composed to all pairs (exact on the torus for integer motion)
    step = vt.to(dtype).view(B, 1, 2, 1, 1).expand(B, Fn - 1, 2, H, H).contiguous()
    flows = compose_all_pairs(step, -step, padding="periodic")
    m = mask.unsqueeze(2).to(dtype)
    return {
        "video": video.to(device), "mask": m.to(device), "known": ((1 - m) * video).to(device),
        "recoverable": recoverable.unsqueeze(2).to(dtype).to(device), "never": never.unsqueeze(2).to(dtype).to(device),
        "flows": flows.to(device), "valid": torch.ones(B, Fn, Fn, 1, H, H, dtype=dtype, device=device),
        "v_tex": vt.to(device), "v_hole": vh.to(device), "spectrum": S, "padding": "periodic",
    }
