"""The 3DGS trainer and evaluation shared by every selector (paper §3 and §4: the same recipe for all methods).

Same recipe for all methods: initialise from the method's *own* intermediate point cloud (subsampled), Adam with
per-group learning rates (the 3DGS defaults raised for short schedules, the means' rate decaying exponentially to
1% over the fit), loss ``0.8 L1 + 0.2 (1 - SSIM)`` on a minibatch of views per step, and the adaptive density
control of 3DGS (Kerbl et al. 2023, §5.2): every ``densify_every`` steps until ``densify_until``, Gaussians whose
mean screen-space positional gradient exceeds ``grad_thresh`` are cloned (small ones) or split in two (large
ones, scales / 1.6), and nearly transparent ones are pruned; the total is capped at ``max_gaussians``.
Evaluation: held-out PSNR/SSIM and surface F1 at ``tau`` between depth-unprojected 3DGS points (alpha > 0.5)
and ground-truth surface points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.papers.creat3r_nbv.scenes import EXTENT, Cameras
from icml26.render import backproject
from icml26.render.gaussians import quaternion_to_matrix, rasterize
from icml26.render.image_metrics import psnr, ssim

PARAMS = ("means", "log_scales", "quats", "opacity_logits", "colors")
LRS = {"means": 1.6e-4 * 20, "log_scales": 5e-3 * 4, "quats": 1e-3 * 4, "opacity_logits": 5e-2, "colors": 2.5e-3 * 8}
"""Per-group Adam learning rates: the 3DGS defaults (means scaled by the scene extent) raised for short fits."""


@dataclass(frozen=True)
class FitConfig:
    """The 3DGS recipe (iterations, minibatch, density control); one instance is shared by every selector."""

    iters: int = 600
    batch: int = 2
    densify_from: int = 50
    densify_until: int = 400
    densify_every: int = 50
    grad_thresh: float = 2e-4        # mean |dL/d(mean2d)| in pixels, averaged over the steps a Gaussian was seen
    split_scale: float = 0.03        # metres: larger Gaussians are split, smaller ones cloned
    prune_opacity: float = 0.01
    max_gaussians: int = 3000
    init_gaussians: int = 1000
    means_lr_final: float = 0.01     # the means' learning rate decays to this fraction

    def __post_init__(self):
        for name in ("iters", "batch", "densify_every", "max_gaussians", "init_gaussians"):
            checks.positive_int(name, getattr(self, name))
        for name in ("densify_from", "densify_until"):
            checks.nonnegative_int(name, getattr(self, name))
        for name in ("grad_thresh", "split_scale", "means_lr_final"):
            checks.positive_number(name, getattr(self, name))
        checks.probability("prune_opacity", self.prune_opacity)


def init_gaussians(points: torch.Tensor, colors: torch.Tensor, max_n: int, gen: torch.Generator) -> dict:
    """Gaussians at (a random subset of at most ``max_n``) ``points`` with their colours, isotropic scales from
    the 3-NN spacing, identity rotations and opacity 0.5."""
    points = checks.tensor("points", points, shape=(None, 3))
    if points.shape[0] < 4:
        raise ValueError(f"points must hold at least 4 points, got {points.shape[0]}")
    colors = checks.tensor("colors", colors, shape=tuple(points.shape))
    max_n = checks.positive_int("max_n", max_n)
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch.Generator; got {type(gen).__name__}")
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
    """Render the Gaussians ``g`` (a dict of :data:`PARAMS`) into ``cams`` with the shared rasteriser."""
    if not isinstance(g, dict) or set(PARAMS) - set(g):
        raise ValueError(f"g must be a dict with the keys {PARAMS}")
    for k in PARAMS:
        if not isinstance(g[k], torch.Tensor) or not bool(torch.isfinite(g[k].detach()).all()):
            raise ValueError(f"g[{k!r}] must be a tensor of finite numbers")
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
    return rasterize(g["means"], g["log_scales"], g["quats"], g["opacity_logits"], g["colors"], cams.K, cams.rot,
                     cams.trans, cams.width, cams.height, **kw)


def _densify(params: dict, opt: torch.optim.Adam, grad_mean: torch.Tensor, cfg: FitConfig, gen) -> dict:
    """One round of 3DGS adaptive density control; new Gaussians start with zero Adam moments."""
    with torch.no_grad():
        scale = params["log_scales"].exp().amax(-1)
        keep = torch.sigmoid(params["opacity_logits"]) >= cfg.prune_opacity
        grow = (grad_mean >= cfg.grad_thresh) & keep
        room = max(cfg.max_gaussians - int(keep.sum()), 0)
        if int(grow.sum()) > room:                                       # the largest gradients first
            top = torch.where(grow, grad_mean, torch.full_like(grad_mean, -1.0)).topk(room).indices
            grow = torch.zeros_like(grow)
            grow[top] = True
        split = grow & (scale > cfg.split_scale)
        clone = grow & ~split
        src = torch.cat([keep.nonzero().squeeze(-1), clone.nonzero().squeeze(-1), split.nonzero().squeeze(-1)])
        fresh = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
        fresh[int(keep.sum()):] = True
        new = {k: p[src].clone() for k, p in params.items()}
        s_idx = split.nonzero().squeeze(-1)
        if s_idx.numel():
            # a split replaces a large Gaussian by two samples from it, each with scales / 1.6
            rot = quaternion_to_matrix(params["quats"][s_idx])
            std = params["log_scales"][s_idx].exp()
            noise = torch.randn(s_idx.numel(), 3, generator=gen, device=std.device) * std
            start = src.shape[0] - s_idx.numel()
            new["means"][start:] += (rot @ noise[..., None])[..., 0]
            new["log_scales"][start:] -= math.log(1.6)
            slot = torch.searchsorted(keep.nonzero().squeeze(-1), s_idx)  # the originals, kept above, move back
            new["means"][slot] -= (rot @ noise[..., None])[..., 0]
            new["log_scales"][slot] -= math.log(1.6)
            fresh[slot] = True
        for group in opt.param_groups:
            old = group["params"][0]
            key = next(k for k, p in params.items() if p is old)
            p_new = new[key].requires_grad_(True)
            state = opt.state.pop(old, None)
            if state:
                for m in ("exp_avg", "exp_avg_sq"):
                    st = state[m][src].clone()
                    st[fresh] = 0.0
                    state[m] = st
                opt.state[p_new] = state
            group["params"][0] = p_new
            params[key] = p_new
    return params


def fit_gaussians(g: dict, images: torch.Tensor, cams: Cameras, cfg: FitConfig, gen: torch.Generator,
                  snapshots=()) -> dict:
    """Fit Gaussians ``g`` to ``images`` ``(V, H, W, 3)`` seen by ``cams`` with the recipe ``cfg``.

    Returns ``{"gaussians": final, "snapshots": {step: gaussians}, "counts": {step: number of Gaussians}}``
    (``snapshots`` lists the steps, at most ``cfg.iters``, whose parameters are kept for convergence checks).
    """
    if not isinstance(cfg, FitConfig):
        raise TypeError(f"cfg must be a FitConfig; got {type(cfg).__name__}")
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch.Generator; got {type(gen).__name__}")
    render_gaussians(g, cams[:1])                                       # validates g
    images = checks.tensor("images", images, shape=(None, cams.height, cams.width, 3))
    if images.shape[0] != len(cams):
        raise ValueError(f"images must hold one image per camera ({len(cams)}), got {images.shape[0]}")
    snapshots = {checks.positive_int("snapshots", s) for s in snapshots}
    if snapshots and max(snapshots) > cfg.iters:
        raise ValueError(f"snapshots must not exceed cfg.iters ({cfg.iters}); got {sorted(snapshots)}")
    params = {k: v.detach().clone().requires_grad_(True) for k, v in g.items()}
    opt = torch.optim.Adam([{"params": [params[k]], "lr": LRS[k], "name": k} for k in PARAMS], eps=1e-15)
    decay = cfg.means_lr_final ** (1.0 / max(cfg.iters, 1))
    v = images.shape[0]
    target_all = images.permute(0, 3, 1, 2)
    K, rot, trans = cams.K, cams.rot, cams.trans
    grad_sum = torch.zeros(params["means"].shape[0], device=images.device)
    seen = torch.zeros_like(grad_sum)
    out = {"snapshots": {}, "counts": {}}
    for step in range(1, cfg.iters + 1):
        idx = torch.randperm(v, generator=gen, device=images.device)[:min(cfg.batch, v)]
        offset = torch.zeros(idx.numel(), params["means"].shape[0], 2, device=images.device, requires_grad=True)
        res = rasterize(*(params[k] for k in PARAMS), K, rot[idx], trans[idx], cams.width, cams.height,
                        screen_offset=offset)
        pred = res["rgb"].permute(0, 3, 1, 2)
        target = target_all[idx]
        loss = 0.8 * (pred - target).abs().mean() + 0.2 * (1.0 - ssim(pred, target).mean())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        opt.param_groups[0]["lr"] *= decay
        gn = offset.grad.norm(dim=-1)                                       # (B, N)
        grad_sum += gn.sum(0)
        seen += (gn > 0).float().sum(0)
        if cfg.densify_from <= step <= cfg.densify_until and step % cfg.densify_every == 0:
            params = _densify(params, opt, grad_sum / seen.clamp_min(1.0), cfg, gen)
            grad_sum = torch.zeros(params["means"].shape[0], device=images.device)
            seen = torch.zeros_like(grad_sum)
        if step in snapshots:
            out["snapshots"][step] = {k: p.detach().clone() for k, p in params.items()}
            out["counts"][step] = params["means"].shape[0]
    out["gaussians"] = {k: p.detach() for k, p in params.items()}
    return out


def surface_f1(pred_points: torch.Tensor, gt_points: torch.Tensor, tau: float) -> dict:
    """Precision, recall and F1 at distance ``tau`` between two point sets (nearest neighbours by cdist)."""
    pred_points = checks.tensor("pred_points", pred_points, shape=(None, 3), nonempty=False)
    gt_points = checks.tensor("gt_points", gt_points, shape=(None, 3), nonempty=False)
    tau = checks.positive_number("tau", tau)
    if pred_points.shape[0] == 0 or gt_points.shape[0] == 0:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    d = torch.cdist(pred_points.float(), gt_points.float())
    precision = float((d.amin(1) < tau).float().mean())
    recall = float((d.amin(0) < tau).float().mean())
    f1 = 2 * precision * recall / max(precision + recall, 1e-12)
    return {"precision": precision, "recall": recall, "f1": f1}


def in_region(points: torch.Tensor) -> torch.Tensor:
    """Finite points inside the evaluation region ``|x|, |y| <= EXTENT``."""
    points = checks.tensor("points", points, finite=False, nonempty=False)
    return torch.isfinite(points).all(-1) & (points[..., 0].abs() <= EXTENT) & (points[..., 1].abs() <= EXTENT)


def evaluate(g: dict, gt: dict, cams: Cameras, tau_rel: float = 0.02) -> dict:
    """Held-out PSNR/SSIM (means over views) and surface F1 at ``tau = tau_rel x`` the region's diagonal.

    ``gt`` holds the ray-cast ``rgb`` ``(V, H, W, 3)`` and ``point`` buffers of the held-out ``cams``. The GT
    surface samples are the held-out views' ray-cast points inside the region (only the visible surface can be
    judged by held-out views); ``psnr_views`` keeps the per-view PSNR.
    """
    tau_rel = checks.positive_number("tau_rel", tau_rel)
    if not isinstance(gt, dict) or {"rgb", "point"} - set(gt):
        raise ValueError("gt must be a dict with the ray-cast 'rgb' and 'point' buffers of the held-out views")
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
    checks.tensor("gt['rgb']", gt["rgb"], shape=(len(cams), cams.height, cams.width, 3))
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
        per_view = psnr(pred, target)
        return {"psnr": float(per_view.mean()), "ssim": float(ssim(pred, target).mean()), **f1, "tau": tau,
                "psnr_views": per_view.tolist()}
