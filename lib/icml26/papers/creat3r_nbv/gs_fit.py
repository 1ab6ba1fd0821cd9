"""The 3DGS trainer and evaluation shared by every selector (note §3.5 "3DGS training", §7, §10 "3DGS variance").

Same recipe for all methods: initialise from the method's *own* intermediate point cloud (subsampled),
Adam with per-group learning rates (the 3DGS defaults scaled up for short schedules), loss
``L1 + 0.2 (1 - SSIM)``, a minibatch of views per step, no densification at these sizes (INFERRED deviation from
the note's clone/split every 100 iterations at default scale, left out to keep fits short and identical).
Evaluation: held-out PSNR/SSIM and surface F1 at ``tau`` between depth-unprojected 3DGS points (alpha > 0.5)
and ground-truth surface points.
"""

from __future__ import annotations

import math

import torch

from icml26.papers.creat3r_nbv.scenes import EXTENT, Cameras
from icml26.render import backproject
from icml26.render.gaussians import rasterize
from icml26.render.image_metrics import psnr, ssim

PARAMS = ("means", "log_scales", "quats", "opacity_logits", "colors")
LRS = {"means": 1.6e-4 * 20, "log_scales": 5e-3 * 4, "quats": 1e-3 * 4, "opacity_logits": 5e-2, "colors": 2.5e-3 * 8}
"""Per-group Adam learning rates: the 3DGS defaults (means scaled by the scene extent) raised for short fits."""


def init_gaussians(points: torch.Tensor, colors: torch.Tensor, max_n: int, gen: torch.Generator) -> dict:
    """Gaussians at (a random subset of at most ``max_n``) ``points`` with their colours, isotropic scales from
    the 3-NN spacing, identity rotations and opacity 0.5."""
    if points.dim() != 2 or points.shape[-1] != 3 or points.shape[0] < 4:
        raise ValueError(f"points must have shape (N >= 4, 3), got {tuple(points.shape)}")
    if colors.shape != points.shape:
        raise ValueError(f"colors must have the shape of points {tuple(points.shape)}, got {tuple(colors.shape)}")
    if points.shape[0] > max_n:
        idx = torch.randperm(points.shape[0], generator=gen, device=points.device)[:max_n]
        points, colors = points[idx], colors[idx]
    n = points.shape[0]
    d = torch.cdist(points, points)
    d.fill_diagonal_(float("inf"))
    spacing = d.topk(min(3, n - 1), largest=False).values.mean(-1).clamp(1e-3, 0.2)
    quats = torch.zeros(n, 4, device=points.device)
    quats[:, 0] = 1.0
    return {"means": points.clone().float(), "log_scales": spacing.log()[:, None].expand(n, 3).clone().float(),
            "quats": quats, "opacity_logits": torch.zeros(n, device=points.device),
            "colors": colors.clone().float().clamp(0, 1)}


def render_gaussians(g: dict, cams: Cameras, **kw) -> dict:
    return rasterize(g["means"], g["log_scales"], g["quats"], g["opacity_logits"], g["colors"], cams.K, cams.rot,
                     cams.trans, cams.width, cams.height, **kw)


def fit_gaussians(g: dict, images: torch.Tensor, cams: Cameras, iters: int, gen: torch.Generator,
                  batch: int = 2, lr_scale: float = 1.0) -> dict:
    """Fit Gaussians ``g`` to ``images`` ``(V, H, W, 3)`` seen by ``cams`` for ``iters`` Adam steps."""
    if images.shape[0] != len(cams):
        raise ValueError(f"images must hold one image per camera ({len(cams)}), got {images.shape[0]}")
    if not isinstance(iters, int) or iters < 0:
        raise ValueError(f"iters must be a non-negative int, got {iters!r}")
    params = {k: v.detach().clone().requires_grad_(True) for k, v in g.items()}
    opt = torch.optim.Adam([{"params": [params[k]], "lr": LRS[k] * lr_scale} for k in PARAMS], eps=1e-15)
    v = images.shape[0]
    target_all = images.permute(0, 3, 1, 2)
    for _ in range(iters):
        idx = torch.randperm(v, generator=gen, device=images.device)[:min(batch, v)]
        out = render_gaussians(params, cams[idx])
        pred = out["rgb"].permute(0, 3, 1, 2)
        target = target_all[idx]
        loss = 0.8 * (pred - target).abs().mean() + 0.2 * (1.0 - ssim(pred, target).mean())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return {k: p.detach() for k, p in params.items()}


def surface_f1(pred_points: torch.Tensor, gt_points: torch.Tensor, tau: float) -> dict:
    """Precision, recall and F1 at distance ``tau`` between two point sets (nearest neighbours by cdist)."""
    if pred_points.shape[0] == 0 or gt_points.shape[0] == 0:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    d = torch.cdist(pred_points.float(), gt_points.float())
    precision = float((d.amin(1) < tau).float().mean())
    recall = float((d.amin(0) < tau).float().mean())
    f1 = 2 * precision * recall / max(precision + recall, 1e-12)
    return {"precision": precision, "recall": recall, "f1": f1}


def in_region(points: torch.Tensor) -> torch.Tensor:
    """Finite points inside the evaluation region ``|x|, |y| <= EXTENT``."""
    return torch.isfinite(points).all(-1) & (points[..., 0].abs() <= EXTENT) & (points[..., 1].abs() <= EXTENT)


def evaluate(g: dict, gt: dict, cams: Cameras, tau_rel: float = 0.02) -> dict:
    """Held-out PSNR/SSIM (means over views) and surface F1 at ``tau = tau_rel x`` the region's diagonal.

    ``gt`` holds the ray-cast ``rgb`` ``(V, H, W, 3)`` and ``point`` buffers of the held-out ``cams``. The GT
    surface samples are the held-out views' ray-cast points inside the region (a deviation from area-weighted
    sampling of primitives: the ground plane is infinite and only the visible surface can be judged).
    """
    with torch.no_grad():
        out = render_gaussians(g, cams)
        pred = out["rgb"].clamp(0, 1).permute(0, 3, 1, 2)
        target = gt["rgb"].permute(0, 3, 1, 2)
        ok = out["alpha"] > 0.5
        inf = torch.full_like(out["depth"], float("inf"))
        depth = torch.where(ok, out["depth"] / out["alpha"].clamp_min(1e-6), inf)
        pts = backproject(depth, cams.K, cams.rot, cams.trans)
        pred_pts = pts[in_region(pts)]
        gt_pts = gt["point"][in_region(gt["point"])]
        tau = tau_rel * 2 * math.sqrt(2) * EXTENT
        gen = torch.Generator(device=pred_pts.device).manual_seed(0)
        pred_pts = pred_pts[torch.randperm(pred_pts.shape[0], generator=gen, device=pred_pts.device)[:6000]]
        gt_pts = gt_pts[torch.randperm(gt_pts.shape[0], generator=gen, device=gt_pts.device)[:6000]]
        f1 = surface_f1(pred_pts, gt_pts, tau)
        return {"psnr": float(psnr(pred, target).mean()), "ssim": float(ssim(pred, target).mean()), **f1, "tau": tau}
