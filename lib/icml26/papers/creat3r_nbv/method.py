"""Creat3r (paper 16): confidence re-aggregation for exploration-aware next-best-view selection (note §3).

Pipeline, re-run after every acquired view (the "re-aggregation"):

1. dense correspondences between the selected views (:class:`OracleNoisyMatcher`, a stand-in for MASt3R /
   LightGlue, note §7) -> multi-view tracks;
2. Hartley-normalised linear DLT triangulation of each track from *all* selected views that see it
   (:func:`triangulate_dlt`, note §3.1), filtered by depth, reprojection error and triangulation angle;
3. per-point confidence ``w_i = phi_s(n_i) phi_c(sigma_i^2)`` from camera support and colour consistency
   (:func:`point_confidence`, note §3.2; the formula is INFERRED);
4. "Gaussian projection": every point becomes an isotropic 3D Gaussian of radius ``r_i`` that is splatted,
   front to back, into each candidate view at 1/4 resolution, giving the coverage ``A_c``, confidence ``C_c``
   and exploration ``E_c`` maps (:func:`confidence_maps`, note §3.3; uses the shared splatting rasteriser);
5. the exploration score ``S(c) = mean(1 - A) + lambda mean(A (1 - C))`` under the overlap gate
   ``G(c) = mean(A C) >= gamma``, or its soft form ``S_alpha`` (:func:`view_scores`, note §3.4; INFERRED:
   the paper's Eq. (7) was not available).

Nothing here reads a candidate's image or depth: the only data access is through
:class:`~icml26.papers.creat3r_nbv.scenes.ViewStore` for already-selected views.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26.papers.creat3r_nbv.scenes import EXTENT, Cameras, ViewStore
from icml26.render import backproject, pixel_rays, project, visible_in
from icml26.render.gaussians import rasterize

# ------------------------------------------------------------------------------------------ triangulation


def projection_matrices(cams: Cameras) -> torch.Tensor:
    """``P = K [R | t]`` ``(B, 3, 4)``."""
    return cams.K.to(cams.rot) @ torch.cat([cams.rot, cams.trans[..., None]], -1)


def triangulate_dlt(uv: torch.Tensor, P: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Linear DLT triangulation of ``N`` tracks seen in ``V`` views (note §3.1), in float64.

    ``uv`` ``(V, N, 2)`` pixels, ``P`` ``(V, 3, 4)``, ``mask`` ``(V, N)`` bool (which views observe each track).
    Each observation gives the rows ``u P^3 - P^1`` and ``v P^3 - P^2``; pixels are first Hartley-normalised per
    view (centroid to 0, mean distance sqrt(2)), which transforms ``P`` accordingly. ``A X = 0`` is solved by
    the right singular vector of the smallest singular value. Returns ``(N, 3)``; tracks with fewer than two
    observations give NaN.
    """
    if not isinstance(uv, torch.Tensor) or uv.dim() != 3 or uv.shape[-1] != 2:
        raise ValueError(f"uv must have shape (V, N, 2), got {getattr(uv, 'shape', uv)}")
    v, n = uv.shape[:2]
    if not isinstance(P, torch.Tensor) or tuple(P.shape) != (v, 3, 4):
        raise ValueError(f"P must have shape ({v}, 3, 4), got {getattr(P, 'shape', P)}")
    mask = torch.ones(v, n, dtype=torch.bool, device=uv.device) if mask is None else mask
    if tuple(mask.shape) != (v, n):
        raise ValueError(f"mask must have shape ({v}, {n}), got {tuple(mask.shape)}")
    uv, P = uv.double(), P.double()
    m = mask.double()[..., None]
    cnt = m.sum(1).clamp_min(1.0)                                                  # (V, 1)
    centroid = (uv * m).sum(1) / cnt                                               # (V, 2)
    dist = ((uv - centroid[:, None]).norm(dim=-1, keepdim=True) * m).sum(1) / cnt  # (V, 1)
    s = math.sqrt(2.0) / dist.clamp_min(1e-9)
    T = torch.zeros(v, 3, 3, dtype=uv.dtype, device=uv.device)
    T[:, 0, 0], T[:, 1, 1], T[:, 2, 2] = s[:, 0], s[:, 0], 1.0
    T[:, :2, 2] = -s * centroid
    Pn = T @ P                                                                     # (V, 3, 4)
    uvn = (uv - centroid[:, None]) * s[:, None]
    rows_u = uvn[..., 0:1] * Pn[:, None, 2] - Pn[:, None, 0]                       # (V, N, 4)
    rows_v = uvn[..., 1:2] * Pn[:, None, 2] - Pn[:, None, 1]
    A = torch.stack([rows_u, rows_v], 1) * m[:, None]                              # (V, 2, N, 4)
    A = A.permute(2, 0, 1, 3).reshape(n, 2 * v, 4)
    _, _, vh = torch.linalg.svd(A, full_matrices=False)
    X = vh[:, -1]
    pts = X[:, :3] / X[:, 3:4]
    return torch.where((mask.sum(0) >= 2)[:, None], pts, torch.full_like(pts, float("nan")))


def reprojection_error(X: torch.Tensor, uv: torch.Tensor, cams: Cameras, mask: torch.Tensor) -> torch.Tensor:
    """Largest reprojection error (pixels) of each point ``(N, 3)`` over the views that observe it ``(N,)``."""
    proj, z = project(X.to(cams.rot), cams.K, cams.rot, cams.trans)
    err = (proj - uv.to(proj)).norm(dim=-1)
    err = torch.where(mask & (z > 0), err, torch.where(mask, torch.full_like(err, float("inf")), torch.zeros_like(err)))
    return err.amax(0)


def triangulation_angle(X: torch.Tensor, centers: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Largest angle (degrees) between the viewing rays of the observing cameras, per point ``(N,)``."""
    rays = torch.nn.functional.normalize(X[None].to(centers) - centers[:, None], dim=-1)    # (V, N, 3)
    cos = torch.einsum("vnk,wnk->nvw", rays, rays)
    both = mask.T[:, :, None] & mask.T[:, None, :]
    cos = torch.where(both, cos, torch.ones_like(cos))
    return torch.rad2deg(torch.arccos(cos.clamp(-1.0, 1.0).amin(dim=(1, 2))))


# ------------------------------------------------------------------------------------------ matching


class OracleNoisyMatcher:
    """Correspondences from the renderer's depth of *selected* views only (note §7, the role MASt3R plays).

    A grid of pixels (every ``step`` pixels) of each selected view is back-projected with that view's depth; a
    pixel is matched into another selected view when the point passes the z-buffer test against that view's
    depth (:func:`icml26.render.visible_in`). Matched pixels get ``noise_px`` Gaussian noise and a fraction
    ``outliers`` is replaced by uniformly random pixels.
    """

    def __init__(self, step: int = 3, noise_px: float = 0.5, outliers: float = 0.05):
        if not isinstance(step, int) or step < 1:
            raise ValueError(f"step must be a positive int, got {step!r}")
        if noise_px < 0 or not 0 <= outliers < 1:
            raise ValueError(f"noise_px must be >= 0 and outliers in [0, 1), got {noise_px}, {outliers}")
        self.step, self.noise_px, self.outliers = step, noise_px, outliers

    def match(self, store: ViewStore, i: int, j: int, gen: torch.Generator):
        """Pairwise interface ``(uv_i, uv_j, score)`` between selected views ``i`` and ``j``."""
        uv, mask, _ = self.tracks(store, [i, j], gen)
        keep = mask[0] & mask[1]
        return uv[0, keep], uv[1, keep], torch.ones(int(keep.sum()), device=uv.device)

    def tracks(self, store: ViewStore, views, gen: torch.Generator):
        """Multi-view tracks over ``views``: ``uv`` ``(V, M, 2)``, ``mask`` ``(V, M)``, ``anchor`` ``(M,)``
        (the view each track was seeded in). Every selected view seeds a grid of tracks."""
        views = [int(v) for v in views]
        cams = store.cams[views]
        depth = torch.stack([store.depth(v) for v in views])                      # selected views only
        H, W = depth.shape[-2:]
        s = self.step
        grid = depth[:, s // 2::s, s // 2::s]
        rows = torch.arange(s // 2, H, s, device=depth.device)
        cols = torch.arange(s // 2, W, s, device=depth.device)
        pts = backproject(depth, cams.K, cams.rot, cams.trans)[:, rows][:, :, cols]   # (V, h, w, 3)
        ok_anchor = torch.isfinite(grid).reshape(len(views), -1)
        pts = pts.reshape(-1, 3)
        anchor = torch.arange(len(views), device=depth.device).repeat_interleave(ok_anchor.shape[1])
        keep = ok_anchor.reshape(-1)
        pts, anchor = pts[keep], anchor[keep]
        vis = visible_in(pts, cams.K, cams.rot, cams.trans, depth)                 # (V, M)
        vis[anchor, torch.arange(pts.shape[0], device=pts.device)] = True
        uv, _ = project(pts, cams.K, cams.rot, cams.trans)
        noise = torch.randn(uv.shape, generator=gen, device=uv.device) * self.noise_px
        bad = torch.rand(uv.shape[:2], generator=gen, device=uv.device) < self.outliers
        rnd = torch.rand(uv.shape, generator=gen, device=uv.device) * torch.tensor([W, H], device=uv.device)
        is_anchor = torch.zeros_like(vis)
        is_anchor[anchor, torch.arange(pts.shape[0], device=pts.device)] = True
        uv = torch.where(is_anchor[..., None], uv, torch.where(bad[..., None], rnd, uv + noise))
        return uv, vis, anchor


# ------------------------------------------------------------------------------------------ point cloud


@dataclass
class Creat3rConfig:
    """Knobs of Creat3r (note §3); every INFERRED constant is one of these."""

    lam: float = 1.0                 # lambda: weight of seen-but-unreliable area in S(c)
    gamma: float = 0.10              # overlap gate G(c) >= gamma
    alpha: float | None = None       # soft form S_alpha (None: the hard gated score)
    beta: float = 0.0                # weight of G(c) in S_alpha
    kappa_s: float = 2.0             # camera-support scale
    tau_c: float = 0.05              # colour-consistency scale (colours in [0, 1])
    theta0: float | None = None      # optional triangulation-angle term (degrees)
    radius: str = "knn"              # "knn": r_i = eta * mean 8-NN distance; "global": 1.5 x median spacing
    eta: float = 1.0
    alpha0: float = 0.8              # peak opacity of a splatted point
    occlusion: bool = True           # occlusion-aware support (z-buffer of the splatted cloud) vs frustum only
    map_scale: float = 0.25          # score maps at 1/4 resolution
    max_reproj_px: float = 2.0
    min_angle_deg: float = 1.5
    max_points: int = 1500
    max_candidates: int | None = None  # "compute constraints": random subset of candidates per step
    roi: bool = True                 # score only pixels whose ray meets the scene's bounding box (inferred)

    def __post_init__(self):
        if self.lam < 0 or self.kappa_s <= 0 or self.tau_c <= 0 or self.eta <= 0:
            raise ValueError("lam must be >= 0 and kappa_s, tau_c, eta > 0")
        if self.alpha is not None and not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must lie in [0, 1] or be None, got {self.alpha}")
        if self.radius not in ("knn", "global"):
            raise ValueError(f"radius must be 'knn' or 'global', got {self.radius!r}")
        if not 0 < self.alpha0 < 1 or not 0 < self.map_scale <= 1:
            raise ValueError(f"alpha0 must lie in (0, 1) and map_scale in (0, 1], got {self.alpha0}, {self.map_scale}")


def build_point_cloud(store: ViewStore, views, matcher: OracleNoisyMatcher, cfg: Creat3rConfig,
                      gen: torch.Generator) -> dict:
    """The intermediate point cloud of the selected ``views`` (note §3.1): tracks -> DLT -> filters.

    Returns ``points`` ``(N, 3)``, ``mask`` ``(V, N)`` (observing views), ``angle`` ``(N,)`` degrees and ``views``.
    """
    views = [int(v) for v in views]
    if len(views) < 2:
        raise ValueError(f"views must hold at least two selected views, got {views}")
    cams = store.cams[views]
    uv, mask, _ = matcher.tracks(store, views, gen)
    X = triangulate_dlt(uv, projection_matrices(cams), mask).to(cams.rot)
    ok = torch.isfinite(X).all(-1)
    X = torch.where(ok[:, None], X, torch.zeros_like(X))
    err = reprojection_error(X, uv, cams, mask)
    ang = triangulation_angle(X, cams.centers, mask)
    ok = ok & (err <= cfg.max_reproj_px) & (ang >= cfg.min_angle_deg) & (mask.sum(0) >= 2)
    idx = ok.nonzero().squeeze(-1)
    if idx.numel() > cfg.max_points:
        idx = idx[torch.randperm(idx.numel(), generator=gen, device=idx.device)[:cfg.max_points]]
    return {"points": X[idx], "mask": mask[:, idx], "angle": ang[idx], "views": views}


def point_zbuffer(points: torch.Tensor, cams: Cameras) -> torch.Tensor:
    """Z-buffer ``(B, H, W)`` of a point cloud splatted as single pixels (``inf`` where no point lands)."""
    uv, z = project(points, cams.K, cams.rot, cams.trans)
    H, W = cams.height, cams.width
    col, row = uv[..., 0].floor().long(), uv[..., 1].floor().long()
    inside = (z > 1e-6) & (col >= 0) & (col < W) & (row >= 0) & (row < H)
    flat = (row.clamp(0, H - 1) * W + col.clamp(0, W - 1))
    buf = torch.full((len(cams), H * W), float("inf"), device=points.device, dtype=z.dtype)
    buf = buf.scatter_reduce(1, flat, torch.where(inside, z, torch.full_like(z, float("inf"))), reduce="amin")
    return buf.reshape(len(cams), H, W)


def point_confidence(points: torch.Tensor, store: ViewStore, views, cfg: Creat3rConfig,
                     angle: torch.Tensor | None = None) -> dict:
    """3D confidence field (note §3.2, INFERRED formula) of ``points`` ``(N, 3)`` given the selected ``views``.

    Support ``n_i``: selected cameras whose frustum holds the point and (``cfg.occlusion``) in which it passes
    a z-buffer test against the cloud splatted at half resolution. ``phi_s = 1 - exp(-(n - 1) / kappa_s)``,
    ``phi_c = exp(-sigma^2 / (2 tau_c^2))`` with ``sigma^2`` the colour variance over supporting views, and
    ``w = phi_s phi_c`` (times ``1 - exp(-theta / theta0)`` when ``cfg.theta0`` is set).
    """
    views = [int(v) for v in views]
    cams = store.cams[views]
    if points.shape[0] == 0:
        z = torch.zeros(0, device=points.device)
        return {"w": z, "support": z, "phi_s": z, "phi_c": z}
    uv, z = project(points, cams.K, cams.rot, cams.trans)
    W, H = cams.width, cams.height
    inside = (z > 1e-6) & (uv[..., 0] >= 0) & (uv[..., 0] < W) & (uv[..., 1] >= 0) & (uv[..., 1] < H)
    if cfg.occlusion:
        half = cams.scaled(0.5)
        support = inside & visible_in(points, half.K, half.rot, half.trans, point_zbuffer(points, half), rel_tol=0.03)
    else:
        support = inside
    imgs = torch.stack([store.image(v) for v in views])                          # selected views only
    col = uv[..., 0].clamp(0, W - 1).long()
    row = uv[..., 1].clamp(0, H - 1).long()
    samples = imgs.reshape(len(views), H * W, 3).gather(1, (row * W + col)[..., None].expand(-1, -1, 3))
    m = support.to(samples)[..., None]
    n = support.sum(0).to(samples)
    mean = (samples * m).sum(0) / n.clamp_min(1.0)[:, None]
    var = (((samples - mean) ** 2) * m).sum(0).mean(-1) / n.clamp_min(1.0)
    phi_s = torch.where(n >= 1, 1.0 - torch.exp(-(n - 1.0) / cfg.kappa_s), torch.zeros_like(n))
    phi_c = torch.exp(-var / (2.0 * cfg.tau_c ** 2))
    w = phi_s * phi_c
    if cfg.theta0 is not None and angle is not None:
        w = w * (1.0 - torch.exp(-angle / cfg.theta0))
    return {"w": w, "support": n, "phi_s": phi_s, "phi_c": phi_c, "colors": mean}


def point_radii(points: torch.Tensor, cfg: Creat3rConfig, k: int = 8) -> torch.Tensor:
    """Splat radius per point: ``eta`` x mean distance to its ``k`` nearest neighbours, or one global
    ``1.5 x`` median nearest-neighbour spacing (note §3.3)."""
    n = points.shape[0]
    if n < 2:
        return torch.full((n,), 0.05, device=points.device, dtype=points.dtype)
    d = torch.cdist(points, points)
    d.fill_diagonal_(float("inf"))
    kk = min(k, n - 1)
    knn = d.topk(kk, largest=False).values
    if cfg.radius == "global":
        return torch.full((n,), 1.5 * float(knn[:, 0].median()), device=points.device, dtype=points.dtype)
    return cfg.eta * knn.mean(-1)


def confidence_maps(points: torch.Tensor, w: torch.Tensor, radii: torch.Tensor, cams: Cameras,
                    alpha0: float = 0.8, occlusion: bool = True) -> dict:
    """Gaussian projection of confidence-carrying points into cameras ``cams`` (note §3.3).

    Each point is an isotropic Gaussian of std ``r_i`` and opacity ``alpha0``; the shared splatting rasteriser
    (EWA projection, so the 2D std is ``f r_i / z_i`` at the centre, no dilation) composites them front to back.
    Channel 0 carries ``w_i``, so ``A = 1 - prod (1 - alpha_i)`` is the alpha map and
    ``C = sum_i T_i alpha_i w_i / (A + eps)``; ``E = (1 - A) + A (1 - C)``. With ``occlusion=False`` the maps are
    plain (order-free) sums, the ablation of note §10 in which confidence leaks through surfaces.
    """
    if points.shape[0] == 0:
        shape = (len(cams), cams.height, cams.width)
        zeros = torch.zeros(shape, device=cams.rot.device)
        return {"A": zeros, "C": zeros.clone(), "E": torch.ones(shape, device=cams.rot.device)}
    n = points.shape[0]
    quats = torch.zeros(n, 4, device=points.device, dtype=points.dtype)
    quats[:, 0] = 1.0
    logit = torch.full((n,), math.log(alpha0 / (1 - alpha0)), device=points.device, dtype=points.dtype)
    colors = torch.stack([w, torch.ones_like(w)], -1).to(points.dtype)
    log_s = radii.clamp_min(1e-4).log()[:, None].expand(n, 3)
    if occlusion:
        out = rasterize(points, log_s, quats, logit, colors, cams.K, cams.rot, cams.trans, cams.width, cams.height,
                        dilation=0.0, alpha_min=0.0, tile=None)
        A = out["alpha"]
        C = out["rgb"][..., 0] / (A + 1e-6)
    else:
        # order-free accumulation: every point adds its full alpha, nothing is hidden
        out = rasterize(points, log_s, quats, torch.full_like(logit, -20.0), colors * alpha0 / torch.sigmoid(
            torch.tensor(-20.0, dtype=points.dtype)), cams.K, cams.rot, cams.trans, cams.width, cams.height,
            dilation=0.0, alpha_min=0.0, tile=None)
        mass, wmass = out["rgb"][..., 1], out["rgb"][..., 0]
        A = 1.0 - torch.exp(-mass)
        C = (wmass / mass.clamp_min(1e-9)).clamp(0, 1)
    C = C.clamp(0.0, 1.0)
    return {"A": A, "C": C, "E": (1.0 - A) + A * (1.0 - C)}


def roi_mask(cams: Cameras, lo=(-EXTENT, -EXTENT, 0.0), hi=(EXTENT, EXTENT, 1.0)) -> torch.Tensor:
    """Pixels ``(B, H, W)`` whose ray meets the known bounding box of the scene (a slab test on poses only).

    INFERRED addition: without it the exploration term rewards candidates that look past the scene at empty
    background, which can never receive points. Uses the candidate pose and the scene bound, never its image.
    """
    o, d, _ = pixel_rays(cams.K, cams.rot, cams.trans, cams.width, cams.height)
    lo_t = torch.tensor(lo, dtype=o.dtype, device=o.device)
    hi_t = torch.tensor(hi, dtype=o.dtype, device=o.device)
    inv = 1.0 / torch.where(d.abs() < 1e-9, torch.full_like(d, 1e-9), d)
    t1, t2 = (lo_t - o) * inv, (hi_t - o) * inv
    tmin = torch.minimum(t1, t2).amax(-1)
    tmax = torch.maximum(t1, t2).amin(-1)
    return (tmax >= tmin.clamp_min(0.0))


def view_scores(A: torch.Tensor, C: torch.Tensor, cfg: Creat3rConfig, mask: torch.Tensor | None = None) -> dict:
    """Per-candidate terms (note §3.4): ``explore = mean(1 - A)``, ``refine = mean(A (1 - C))``,
    ``gate = mean(A C)``; ``score = explore + lam refine`` (hard form) or
    ``alpha explore + (1 - alpha) refine + beta gate`` (soft form ``S_alpha``). ``mask`` ``(B, H, W)`` restricts
    the means to some pixels (the scene's bounding box, :func:`roi_mask`)."""
    m = torch.ones_like(A) if mask is None else mask.to(A)
    den = m.flatten(1).sum(1).clamp_min(1.0)
    explore = ((1.0 - A) * m).flatten(1).sum(1) / den
    refine = (A * (1.0 - C) * m).flatten(1).sum(1) / den
    gate = (A * C * m).flatten(1).sum(1) / den
    if cfg.alpha is None:
        score = explore + cfg.lam * refine
    else:
        score = cfg.alpha * explore + (1.0 - cfg.alpha) * refine + cfg.beta * gate
    return {"score": score, "explore": explore, "refine": refine, "gate": gate}


def choose_view(score: torch.Tensor, gate: torch.Tensor, gamma: float, available: torch.Tensor) -> int:
    """``argmax score`` over available candidates whose gate passes ``gamma``; ``argmax gate`` if none does."""
    if not bool(available.any()):
        raise ValueError("available must mark at least one candidate")
    ninf = torch.full_like(score, -float("inf"))
    ok = available & (gate >= gamma)
    if bool(ok.any()):
        return int(torch.where(ok, score, ninf).argmax())
    return int(torch.where(available, gate, ninf).argmax())


class Creat3rSelector:
    """Creat3r's next-best-view rule (note §3.5 loop body); ``last`` keeps the round's maps and scores."""

    name = "creat3r"

    def __init__(self, cfg: Creat3rConfig | None = None, matcher: OracleNoisyMatcher | None = None):
        self.cfg = cfg or Creat3rConfig()
        self.matcher = matcher or OracleNoisyMatcher()
        self.last: dict = {}

    def analyse(self, store: ViewStore, gen: torch.Generator) -> dict:
        """Point cloud, confidence, maps and scores for every candidate given the store's selected views."""
        cfg = self.cfg
        cloud = build_point_cloud(store, store.selected, self.matcher, cfg, gen)
        conf = point_confidence(cloud["points"], store, store.selected, cfg, cloud["angle"])
        radii = point_radii(cloud["points"], cfg)
        cams = store.cams.scaled(cfg.map_scale)
        maps = confidence_maps(cloud["points"], conf["w"], radii, cams, cfg.alpha0, cfg.occlusion)
        mask = roi_mask(cams) if cfg.roi else None
        terms = view_scores(maps["A"], maps["C"], cfg, mask)
        return {"cloud": cloud, "conf": conf, "radii": radii, "maps": maps, "roi": mask, **terms}

    def select(self, store: ViewStore, gen: torch.Generator) -> int:
        info = self.analyse(store, gen)
        available = torch.ones(len(store), dtype=torch.bool, device=info["score"].device)
        available[store.selected] = False
        if self.cfg.max_candidates is not None and int(available.sum()) > self.cfg.max_candidates:
            idx = available.nonzero().squeeze(-1)
            keep = idx[torch.randperm(idx.numel(), generator=gen, device=idx.device)[:self.cfg.max_candidates]]
            available = torch.zeros_like(available)
            available[keep] = True
        self.last = info
        return choose_view(info["score"], info["gate"], self.cfg.gamma, available)


def run_selection(selector, store: ViewStore, seeds, budget: int, gen: torch.Generator) -> dict:
    """The active loop (note §3.5): start from ``seeds``, add ``budget`` views chosen by ``selector``.

    Returns the ``sequence`` of selected indices (seeds first) and the wall time of each ``round``.
    """
    import time

    seeds = [int(s) for s in seeds]
    if len(seeds) < 2:
        raise ValueError(f"seeds must hold at least two views, got {seeds}")
    if not isinstance(budget, int) or budget < 0:
        raise ValueError(f"budget must be a non-negative int, got {budget!r}")
    if budget > len(store) - len(set(seeds)):
        raise ValueError(f"budget ({budget}) must not exceed the unselected candidates ({len(store) - len(seeds)})")
    for s in seeds:
        store.select(s)
    times = []
    for _ in range(budget):
        t0 = time.perf_counter()
        idx = selector.select(store, gen)
        times.append(time.perf_counter() - t0)
        if idx in store.selected:
            raise RuntimeError(f"{selector.name} chose the already selected view {idx}")
        store.select(idx)
    return {"sequence": list(store.selected), "round_seconds": times}
