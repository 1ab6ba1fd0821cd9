"""Backward flow warping with ``grid_sample``, flow composition and a forward-backward validity check.

Convention: a flow u^{f->g} maps a pixel p of frame f to p + u(p) in frame g, so the backward warp
W_{f<-g} x^g (p) = x^g(p + u^{f->g}(p)) brings frame g into frame f's pixel grid. Channel 0 of a
flow is the x (column) displacement, channel 1 the y (row) displacement, in pixels.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26 import checks

PADDINGS = ("border", "zeros", "periodic")


def _check(img: torch.Tensor, flow: torch.Tensor, padding: str, mode: str = "bilinear") -> None:
    """Shapes and choices of a warp (finiteness is checked by the public functions, once)."""
    if not isinstance(img, torch.Tensor) or img.dim() != 4:
        raise ValueError(f"img must be a 4-D tensor (N, C, H, W); got {getattr(img, 'shape', img)!r}")
    if not isinstance(flow, torch.Tensor) or flow.dim() != 4 or flow.shape[1] != 2:
        raise ValueError(f"flow must be a 4-D tensor (N, 2, H, W); got {getattr(flow, 'shape', flow)!r}")
    if flow.shape[0] != img.shape[0] or flow.shape[-2:] != img.shape[-2:]:
        raise ValueError(f"flow {tuple(flow.shape)} must match img {tuple(img.shape)} in N, H and W")
    if padding not in PADDINGS:
        raise ValueError(f"padding must be one of {PADDINGS}; got {padding!r}")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"mode must be 'bilinear' or 'nearest'; got {mode!r}")


def _check_flow(name: str, flow: torch.Tensor) -> torch.Tensor:
    """A finite, non-empty ``(N, 2, H, W)`` flow field."""
    checks.tensor(name, flow, ndim=4)
    if flow.shape[1] != 2:
        raise ValueError(f"{name} must be a flow field (N, 2, H, W); got shape {tuple(flow.shape)}")
    return flow


def warp(img: torch.Tensor, flow: torch.Tensor, padding: str = "border", mode: str = "bilinear") -> torch.Tensor:
    """W(img)(p) = img(p + flow(p)) by bilinear (or nearest) sampling; ``padding="periodic"`` wraps (torus)."""
    _check(img, flow, padding, mode)
    checks.tensor("img", img)
    checks.tensor("flow", flow)
    return _warp(img, flow, padding, mode)


def _warp(img: torch.Tensor, flow: torch.Tensor, padding: str, mode: str) -> torch.Tensor:
    """:func:`warp` on inputs already checked."""
    N, _, H, W = img.shape
    ys = torch.arange(H, device=img.device, dtype=flow.dtype)
    xs = torch.arange(W, device=img.device, dtype=flow.dtype)
    px = xs.view(1, 1, W) + flow[:, 0]
    py = ys.view(1, H, 1) + flow[:, 1]
    src = img
    if padding == "periodic":
        px = torch.remainder(px, W)
        py = torch.remainder(py, H)
        src = F.pad(img, (0, 1, 0, 1), mode="circular")  # one wrapped column/row so bilinear sees the torus
        Hs, Ws = H + 1, W + 1
    else:
        Hs, Ws = H, W
    gx = 2 * px / (Ws - 1) - 1
    gy = 2 * py / (Hs - 1) - 1
    grid = torch.stack((gx, gy), -1).to(img.dtype)
    pad = "zeros" if padding == "zeros" else "border"
    return F.grid_sample(src, grid, mode=mode, padding_mode=pad, align_corners=True)


def compose_flows(u_fg: torch.Tensor, u_gh: torch.Tensor, padding: str = "border") -> torch.Tensor:
    """u^{f->h}(p) = u^{f->g}(p) + u^{g->h}(p + u^{f->g}(p))."""
    _check_flow("u_fg", u_fg)
    if _check_flow("u_gh", u_gh).shape != u_fg.shape:
        raise ValueError(f"u_gh must have the shape of u_fg {tuple(u_fg.shape)}; got {tuple(u_gh.shape)}")
    _check(u_gh, u_fg, padding)
    return u_fg + _warp(u_gh, u_fg, padding, "bilinear")


def fb_valid(u_fg: torch.Tensor, u_gf: torch.Tensor, abs_tol: float = 0.5, rel_tol: float = 0.01,
             padding: str = "border") -> torch.Tensor:
    """1 where |u^{f->g} + W u^{g->f}| < abs_tol + rel_tol |u^{f->g}| and (unless periodic) p + u stays in bounds."""
    checks.nonnegative_number("abs_tol", abs_tol)
    checks.nonnegative_number("rel_tol", rel_tol)
    _check_flow("u_fg", u_fg)
    if _check_flow("u_gf", u_gf).shape != u_fg.shape:
        raise ValueError(f"u_gf must have the shape of u_fg {tuple(u_fg.shape)}; got {tuple(u_gf.shape)}")
    _check(u_gf, u_fg, padding)
    back = _warp(u_gf, u_fg, padding, "bilinear")
    err = (u_fg + back).norm(dim=1, keepdim=True)
    ok = err < abs_tol + rel_tol * u_fg.norm(dim=1, keepdim=True)
    if padding != "periodic":
        _, _, H, W = u_fg.shape
        px = torch.arange(W, device=u_fg.device).view(1, 1, W) + u_fg[:, 0]
        py = torch.arange(H, device=u_fg.device).view(1, H, 1) + u_fg[:, 1]
        inb = (px >= 0) & (px <= W - 1) & (py >= 0) & (py <= H - 1)
        ok = ok & inb.unsqueeze(1)
    return ok.to(u_fg.dtype)


def warp_video(frames: torch.Tensor, flows: torch.Tensor, padding: str = "border") -> torch.Tensor:
    """Batched warp of (..., C, H, W) frames with (..., 2, H, W) flows (same leading shape)."""
    checks.tensor("frames", frames, ndim=range(4, 9))
    checks.tensor("flows", flows, ndim=frames.dim())
    if frames.shape[:-3] != flows.shape[:-3]:
        raise ValueError(f"frames {tuple(frames.shape)} and flows {tuple(flows.shape)} need equal leading dims")
    _check(frames.reshape(-1, *frames.shape[-3:]), flows.reshape(-1, *flows.shape[-3:]), padding)
    return _warp_video(frames, flows, padding)


def _warp_video(frames: torch.Tensor, flows: torch.Tensor, padding: str) -> torch.Tensor:
    """:func:`warp_video` without its checks, for samplers that validated frames and flows once and warp every step."""
    lead = frames.shape[:-3]
    out = _warp(frames.reshape(-1, *frames.shape[-3:]), flows.reshape(-1, *flows.shape[-3:]), padding, "bilinear")
    return out.reshape(*lead, *frames.shape[-3:])
