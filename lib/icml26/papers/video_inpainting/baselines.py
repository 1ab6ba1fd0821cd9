"""Baselines (docs/papers/video_inpainting.md §4), on equal footing with TSI (same denoiser, same noise, same NFE).

* plain sampling: ``ddim_sample`` without a controller (per-frame RePaint replacement);
* uniform temporal constraint / always-on anchored correction: ``TemporalController(mode=...)`` in method.py;
* output-level post-hoc smoothing (``post_hoc_smoothing``);
* warped-noise initialisation (``warped_noise``);
* non-generative flow propagation (``flow_propagation``).
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.video_inpainting.method import _clip, _padding
from icml26.render.warp import warp_video


def post_hoc_smoothing(frames, mask, flows, valid, lam: float = 0.5, iters: int = 1, padding: str = "border"):
    """Flow-guided temporal blending of final frames inside the holes: y^f += lam m^f (mean_g W y^g - y^f), g = f+-1."""
    _clip(frames, "frames", mask=mask, flows=flows, valid=valid)
    checks.probability("lam", lam)
    checks.positive_int("iters", iters)
    _padding(padding)
    Fn = frames.shape[1]
    f = torch.arange(Fn, device=frames.device)
    nb = torch.stack((f - 1, f + 1), 1).clamp(0, Fn - 1)                    # (F, 2)
    ok = torch.stack((f > 0, f < Fn - 1), 1).to(frames.dtype)                # (F, 2)
    fl = flows[:, f.view(Fn, 1), nb]
    v = valid[:, f.view(Fn, 1), nb] * ok.view(1, Fn, 2, 1, 1, 1)
    y = frames
    for _ in range(iters):
        w = warp_video(y[:, nb], fl, padding=padding)
        tot = v.sum(2)
        mean = (v * w).sum(2) / tot.clamp(min=1e-12)
        y = y + lam * mask * (tot > 0).to(y.dtype) * (mean - y)
    return y


def warped_noise(base: torch.Tensor, flows_from_first: torch.Tensor, padding: str = "periodic"):
    """Initial noise transported along the flows: z^f = W_{f<-0}^{-1}..., here z^f(p) = n(p + u^{f->0}(p)).

    Exact (still i.i.d. N(0, 1) per frame) only for integer flows, which it requires.
    ``base`` (B, C, H, W); ``flows_from_first`` (B, F, 2, H, W) holding u^{f->0}.
    """
    checks.tensor("base", base, ndim=4)
    B, _, H, W = base.shape
    checks.tensor("flows_from_first", flows_from_first, shape=(B, None, 2, H, W))
    _padding(padding)
    if not torch.equal(flows_from_first, flows_from_first.round()):
        raise ValueError("flows_from_first must be integer-valued (noise warping is exact only for integer flows)")
    Fn = flows_from_first.shape[1]
    rep = base.unsqueeze(1).expand(-1, Fn, -1, -1, -1)
    return warp_video(rep.contiguous(), flows_from_first, padding=padding)


def flow_propagation(known, mask, flows, valid, fallback, padding: str = "border"):
    """Copy observed pixels along the (composed) flows into the holes, nearest source frame in time first;
    hole pixels observed nowhere keep ``fallback`` (e.g. the plain sampler's output). ProPainter-like, no learning."""
    _clip(known, "known", mask=mask, flows=flows, valid=valid)
    checks.tensor("fallback", fallback, shape=known.shape)
    _padding(padding)
    B, Fn = known.shape[:2]
    f = torch.arange(Fn, device=known.device)
    order = (f.view(Fn, 1) - f.view(1, Fn)).abs().argsort(dim=1, stable=True)   # (F, F) sources by distance
    out = fallback.clone()
    filled = torch.zeros_like(mask)
    for j in range(1, Fn):                        # loop over the distance rank (F-1 steps), batched over frames
        h = order[:, j]
        fl = flows[:, f, h]
        wk = warp_video(known[:, h], fl, padding=padding)
        wm = warp_video(1 - mask[:, h], fl, padding=padding)
        ok = (wm > 1 - 1e-4).to(mask.dtype) * valid[:, f, h] * mask * (1 - filled)
        out = ok * wk + (1 - ok) * out
        filled = filled + ok
    return out
