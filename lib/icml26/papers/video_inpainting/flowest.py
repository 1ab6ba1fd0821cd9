"""Optical flow estimated from the observed (masked) frames, for the estimated-flow setting (docs §2, §3 "Setting").

The paper's inpainters receive flows from an off-the-shelf estimator run on the masked input (docs §3: "RAFT plus
completion as in ProPainter/FloED"); our toy world also knows the exact flows, which we keep as the labelled oracle.
The estimator here is ours, a classical local one:

1. **Masked block matching** between consecutive frames a -> b: for every pixel p and integer candidate s with
   |s_x|, |s_y| <= ``max_disp``, the cost is the mean squared difference over the (2r+1)^2 patch around p,
   C(p, s) = sum_q w(q) ||I_a(q) - I_b(q + s)||^2 / sum_q w(q), counted only where both pixels are observed
   (w(q) = (1 - m_a(q)) (1 - m_b(q + s))); the default search radius 3 covers the toy's speeds (<= 2) with one
   pixel to spare, so the best candidate is never on the search border (where no sub-pixel fit is possible).
2. **Sub-pixel refinement** by a parabola through the costs at the best candidate and its two neighbours on each
   axis, delta = (C_- - C_+) / (2 (C_- - 2 C_0 + C_+)), clamped to [-0.5, 0.5] (the estimator does not know that the
   toy's motion is integer, as a real one does not; the fit's known bias towards or away from integer positions is
   the main source of its error on our noiseless frames).
3. **Flow completion** in the holes: a pixel whose best patch has fewer than ``min_support`` of its pixels observed
   takes the median flow of the confident pixels of its frame pair (a global-motion prior).
4. **All pairs** by composing consecutive flows (``compose_all_pairs``), and validity by the forward-backward check
   |u^{f->g} + W u^{g->f}| < 0.5 + 1% |u| (docs §3 "Setting"; ``icml26.render.warp.fb_valid``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26 import checks
from icml26.render.warp import PADDINGS, compose_flows, fb_valid


def compose_all_pairs(fwd: torch.Tensor, bwd: torch.Tensor, padding: str = "periodic") -> torch.Tensor:
    """All-pairs flows (B, F, F, 2, H, W) from consecutive ones: ``fwd[:, f]`` = u^{f->f+1}, ``bwd[:, f]`` =
    u^{f+1->f} (each (B, F-1, 2, H, W)), composed hop by hop, u^{f->h} = u^{f->g} + u^{g->h}(p + u^{f->g})."""
    checks.tensor("fwd", fwd, ndim=5)
    B, n, _, H, W = fwd.shape
    checks.tensor("fwd", fwd, shape=(B, n, 2, H, W))
    checks.tensor("bwd", bwd, shape=(B, n, 2, H, W))
    checks.one_of("padding", padding, PADDINGS)
    Fn = n + 1
    flows = fwd.new_zeros(B, Fn, Fn, 2, H, W)
    for a in range(Fn):
        for b in range(a + 1, Fn):
            flows[:, a, b] = fwd[:, a] if b == a + 1 else compose_flows(flows[:, a, b - 1], fwd[:, b - 1], padding)
        for b in range(a - 1, -1, -1):
            flows[:, a, b] = bwd[:, a - 1] if b == a - 1 else compose_flows(flows[:, a, b + 1], bwd[:, b], padding)
    return flows


def all_pairs_valid(flows: torch.Tensor, padding: str = "periodic") -> torch.Tensor:
    """Forward-backward validity (B, F, F, 1, H, W) of all-pairs flows; 1 on the diagonal."""
    checks.tensor("flows", flows, ndim=6)
    B, Fn, Fn2, two, H, W = flows.shape
    if Fn2 != Fn or two != 2:
        raise ValueError(f"flows must have shape (B, F, F, 2, H, W); got {tuple(flows.shape)}")
    checks.one_of("padding", padding, PADDINGS)
    u = flows.reshape(-1, 2, H, W)
    back = flows.transpose(1, 2).reshape(-1, 2, H, W)
    return fb_valid(u, back, padding=padding).reshape(B, Fn, Fn, 1, H, W)


def _box(x, r, padding):
    """Mean over the (2r+1)^2 window (circular padding on the torus, replicate otherwise)."""
    x = F.pad(x, (r, r, r, r), mode="circular" if padding == "periodic" else "replicate")
    return F.avg_pool2d(x, 2 * r + 1, stride=1)


def _shift(x, sy, sx, padding, fill):
    """x(p + s) for an integer shift s = (sx, sy): wrapped on the torus, else padded (``fill``) and cropped."""
    if padding == "periodic":
        return x.roll((-sy, -sx), (-2, -1))
    H, W = x.shape[-2:]
    p = max(abs(sy), abs(sx))
    xp = F.pad(x, (p, p, p, p), mode=fill)
    return xp[..., p + sy:p + sy + H, p + sx:p + sx + W]


def block_match(img_a, known_a, img_b, known_b, max_disp: int = 3, radius: int = 3, min_support: float = 0.5,
                padding: str = "periodic"):
    """Flow u^{a->b} (N, 2, H, W) from frames (N, C, H, W) and their observed-pixel maps (N, 1, H, W) (steps 1-3 of
    the module docstring). Returns the flow and the confidence map (N, 1, H, W; 1 = estimated from data, 0 = filled)."""
    checks.tensor("img_a", img_a, ndim=4)
    N, C, H, W = img_a.shape
    checks.tensor("img_b", img_b, shape=(N, C, H, W))
    checks.tensor("known_a", known_a, shape=(N, 1, H, W))
    checks.tensor("known_b", known_b, shape=(N, 1, H, W))
    checks.positive_int("max_disp", max_disp)
    checks.positive_int("radius", radius)
    checks.probability("min_support", min_support)
    checks.one_of("padding", padding, PADDINGS)
    if 2 * max_disp + 1 > min(H, W):
        raise ValueError(f"max_disp must leave the search window (2 max_disp + 1) within the frame {H}x{W}; "
                         f"got {max_disp}")
    D = max_disp
    shifts = [(sy, sx) for sy in range(-D, D + 1) for sx in range(-D, D + 1)]
    cost, support = [], []
    for sy, sx in shifts:                               # (2D+1)^2 candidates: each a batched box filter
        jb = _shift(img_b, sy, sx, padding, "replicate")   # jb(p) = I_b(p + s)
        kb = _shift(known_b, sy, sx, padding, "constant")  # outside the frame counts as unobserved
        w = known_a * kb
        num = _box(w * ((img_a - jb) ** 2).sum(1, keepdim=True), radius, padding)
        den = _box(w, radius, padding)
        cost.append(num / den.clamp(min=1e-12))
        support.append(den)
    cost = torch.cat(cost, 1)                           # (N, K, H, W)
    support = torch.cat(support, 1)
    cost = torch.where(support > 0, cost, torch.full_like(cost, float("inf")))
    best = cost.argmin(1, keepdim=True)                 # (N, 1, H, W)
    K = 2 * D + 1
    by, bx = best // K - D, best % K - D
    c0 = cost.gather(1, best)

    def at(dy, dx):                                     # cost at the best candidate moved by (dy, dx), inf off-grid
        ny, nx = by + dy, bx + dx
        inside = (ny.abs() <= D) & (nx.abs() <= D)
        idx = ((ny.clamp(-D, D) + D) * K + nx.clamp(-D, D) + D)
        return torch.where(inside, cost.gather(1, idx), torch.full_like(c0, float("inf")))

    def vertex(cm, cp):
        den = cm - 2 * c0 + cp
        ok = torch.isfinite(cm) & torch.isfinite(cp) & (den > 0)
        return torch.where(ok, (cm - cp) / (2 * den.where(ok, torch.ones_like(den))), torch.zeros_like(den)
                           ).clamp(-0.5, 0.5)

    flow = torch.cat((bx + vertex(at(0, -1), at(0, 1)), by + vertex(at(-1, 0), at(1, 0))), 1).to(img_a.dtype)
    conf = (support.gather(1, best) >= min_support) & torch.isfinite(c0)
    # the global-motion prior of each pair: the (lower) median of its confident flows, 0 if it has none
    fill = torch.where(conf, flow, torch.full_like(flow, float("nan"))).flatten(2).nanmedian(dim=2).values
    fill = torch.nan_to_num(fill, nan=0.0).view(N, 2, 1, 1)
    flow = torch.where(conf, flow, fill.expand_as(flow))
    return flow, conf.to(flow.dtype)


def estimate_flows(known, mask, max_disp: int = 3, radius: int = 3, min_support: float = 0.5,
                   padding: str = "periodic") -> dict:
    """Estimated all-pairs flows and validity of clips (B, F, C, H, W) with masks (B, F, 1, H, W) (1 = missing).

    Returns ``flows`` (B, F, F, 2, H, W), ``valid`` (B, F, F, 1, H, W), the consecutive ``forward`` flows
    (B, F-1, 2, H, W) and their ``confidence`` (B, F-1, 1, H, W).
    """
    checks.tensor("known", known, ndim=5)
    B, Fn, C, H, W = known.shape
    if Fn < 2:
        raise ValueError(f"known must hold at least 2 frames; got {Fn}")
    checks.tensor("mask", mask, shape=(B, Fn, 1, H, W))
    obs = 1 - mask
    a, b = known[:, :-1].reshape(-1, C, H, W), known[:, 1:].reshape(-1, C, H, W)
    oa, ob = obs[:, :-1].reshape(-1, 1, H, W), obs[:, 1:].reshape(-1, 1, H, W)
    fwd, conf = block_match(a, oa, b, ob, max_disp, radius, min_support, padding)
    bwd, _ = block_match(b, ob, a, oa, max_disp, radius, min_support, padding)
    fwd, bwd = fwd.reshape(B, Fn - 1, 2, H, W), bwd.reshape(B, Fn - 1, 2, H, W)
    flows = compose_all_pairs(fwd, bwd, padding)
    return {"flows": flows, "valid": all_pairs_valid(flows, padding), "forward": fwd,
            "confidence": conf.reshape(B, Fn - 1, 1, H, W)}
