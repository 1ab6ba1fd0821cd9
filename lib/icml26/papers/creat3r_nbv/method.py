"""Creat3r (paper 16): confidence re-aggregation for exploration-aware next-best-view selection (paper §3).

Pipeline, re-run after every acquired view (the "re-aggregation"):

1. dense correspondences between the selected images (:mod:`~icml26.papers.creat3r_nbv.matching`: an NCC
   epipolar matcher, or the depth oracle as an upper bound) -> multi-view tracks;
2. Hartley-normalised linear DLT triangulation of each track from *all* selected views that see it
   (:func:`~icml26.papers.creat3r_nbv.geometry.triangulate_dlt`), filtered by reprojection error and
   triangulation angle (:func:`build_point_cloud`);
3. per-point confidence ``w_i = phi_s(n_i) phi_c(sigma_i^2)`` from camera support and colour consistency
   (:func:`point_confidence`; the formula is INFERRED);
4. "Gaussian projection": every point becomes an isotropic 3D Gaussian of radius ``r_i`` splatted front to back
   into each candidate view at reduced resolution, giving the coverage ``A_c``, confidence ``C_c`` and
   exploration ``E_c`` maps (:func:`confidence_maps`; uses the shared splatting rasteriser);
5. the exploration score ``S(c) = mean(1 - A) + lambda mean(A (1 - C))`` under the overlap gate
   ``G(c) = mean(A C) >= gamma``, or its soft form ``S_alpha`` (:func:`view_scores`; INFERRED: the paper's
   Eq. (7) was not available).

Nothing here reads a candidate's image or depth: the only data access is through
:class:`~icml26.papers.creat3r_nbv.scenes.ViewStore` for already-selected views. See docs/papers/creat3r_nbv.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.papers.creat3r_nbv.geometry import (
    box_interval,
    projection_matrices,
    reprojection_error,
    triangulate_dlt,
    triangulation_angle,
)
from icml26.papers.creat3r_nbv.matching import NCCMatcher
from icml26.papers.creat3r_nbv.scenes import Cameras, ViewStore
from icml26.render import pixel_rays, project, visible_in
from icml26.render.gaussians import rasterize


@dataclass
class Creat3rConfig:
    """Knobs of Creat3r (paper §3); every INFERRED constant is one of these."""

    lam: float = 1.0                 # lambda: weight of seen-but-unreliable area in S(c)
    gamma: float = 0.15              # overlap gate G(c) >= gamma (tuned on development seeds; first plan 0.10)
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
        for name in ("lam", "beta", "max_reproj_px", "min_angle_deg"):
            checks.nonnegative_number(name, getattr(self, name))
        checks.probability("gamma", self.gamma)  # G(c) is a fraction of pixels: a gate above 1 admits no view
        for name in ("kappa_s", "tau_c", "eta"):
            checks.positive_number(name, getattr(self, name))
        if self.alpha is not None:
            checks.probability("alpha", self.alpha)
        if self.theta0 is not None:
            checks.positive_number("theta0", self.theta0)
        checks.one_of("radius", self.radius, ("knn", "global"))
        checks.in_range("alpha0", self.alpha0, 0.0, 1.0, low_open=True, high_open=True)
        checks.in_range("map_scale", self.map_scale, 0.0, 1.0, low_open=True)
        checks.positive_int("max_points", self.max_points)
        if self.max_candidates is not None:
            checks.positive_int("max_candidates", self.max_candidates)


def _store(store) -> ViewStore:
    return checks.instance("store", store, ViewStore)


def _cfg(cfg) -> Creat3rConfig:
    return checks.instance("cfg", cfg, Creat3rConfig)


def _matcher(matcher):
    if not hasattr(matcher, "tracks"):
        raise TypeError(f"matcher must have a tracks(store, views, gen) method; got {type(matcher).__name__}")
    return matcher


def build_point_cloud(store: ViewStore, views, matcher, cfg: Creat3rConfig, gen: torch.Generator) -> dict:
    """The intermediate point cloud of the selected ``views``: tracks -> DLT -> filters (paper §3).

    Returns ``points`` ``(N, 3)``, ``mask`` ``(V, N)`` (observing views), ``angle`` ``(N,)`` degrees and ``views``.
    """
    store, cfg = _store(store), _cfg(cfg)
    views = [checks.nonnegative_int("views", v) for v in views]
    if len(views) < 2 or any(v not in store.selected for v in views):
        raise ValueError(f"views must hold at least two selected views, got {views} (selected {store.selected})")
    _matcher(matcher)
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch.Generator; got {type(gen).__name__}")
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
    points = checks.tensor("points", points, shape=(None, 3), nonempty=False)
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
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
    """3D confidence field (paper §3, INFERRED formula) of ``points`` ``(N, 3)`` given the selected ``views``.

    Support ``n_i``: selected cameras whose frustum holds the point and (``cfg.occlusion``) in which it passes
    a z-buffer test against the cloud splatted at half resolution. ``phi_s = 1 - exp(-(n - 1) / kappa_s)``,
    ``phi_c = exp(-sigma^2 / (2 tau_c^2))`` with ``sigma^2`` the colour variance over supporting views, and
    ``w = phi_s phi_c`` (times ``1 - exp(-theta / theta0)`` when ``cfg.theta0`` is set).
    """
    points = checks.tensor("points", points, shape=(None, 3), nonempty=False)
    store, cfg = _store(store), _cfg(cfg)
    views = [checks.nonnegative_int("views", v) for v in views]
    if not views or any(v not in store.selected for v in views):
        raise ValueError(f"views must be selected views of the store; got {views}, selected {store.selected}")
    if angle is not None:
        checks.tensor("angle", angle, shape=(points.shape[0],), nonempty=False)
    cams = store.cams[views]
    if points.shape[0] == 0:
        z = torch.zeros(0, device=points.device)
        return {"w": z, "support": z, "phi_s": z, "phi_c": z, "colors": torch.zeros(0, 3, device=points.device)}
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
    ``1.5 x`` median nearest-neighbour spacing (paper §3: the review's "Eq. (7)" has a radius r)."""
    points = checks.tensor("points", points, shape=(None, 3), nonempty=False)
    cfg, k = _cfg(cfg), checks.positive_int("k", k)
    n = points.shape[0]
    if n < 2:
        return torch.full((n,), 0.05, device=points.device, dtype=points.dtype)
    d = torch.cdist(points, points)
    d.fill_diagonal_(float("inf"))
    knn = d.topk(min(k, n - 1), largest=False).values
    if cfg.radius == "global":
        return torch.full((n,), 1.5 * float(knn[:, 0].median()), device=points.device, dtype=points.dtype)
    return cfg.eta * knn.mean(-1)


def confidence_maps(points: torch.Tensor, w: torch.Tensor, radii: torch.Tensor, cams: Cameras,
                    alpha0: float = 0.8, occlusion: bool = True) -> dict:
    """Gaussian projection of confidence-carrying points into cameras ``cams`` (paper §3).

    Each point is an isotropic Gaussian of std ``r_i`` and opacity ``alpha0``; the shared splatting rasteriser
    (EWA projection, so the 2D std is ``f r_i / z_i`` at the centre, no dilation) composites them front to back.
    Channel 0 carries ``w_i``, so ``A = 1 - prod (1 - alpha_i)`` is the alpha map and
    ``C = sum_i T_i alpha_i w_i / (A + eps)``; ``E = (1 - A) + A (1 - C)``. With ``occlusion=False`` the maps are
    plain (order-free) sums, the ablation in which confidence leaks through surfaces.
    """
    points = checks.tensor("points", points, shape=(None, 3), nonempty=False)
    n = points.shape[0]
    checks.tensor("w", w, shape=(n,), nonempty=False)
    checks.tensor("radii", radii, shape=(n,), nonempty=False)
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
    alpha0 = checks.in_range("alpha0", alpha0, 0.0, 1.0, low_open=True, high_open=True)
    if n == 0:
        shape = (len(cams), cams.height, cams.width)
        zeros = torch.zeros(shape, device=cams.rot.device)
        return {"A": zeros, "C": zeros.clone(), "E": torch.ones(shape, device=cams.rot.device)}
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


def roi_mask(cams: Cameras) -> torch.Tensor:
    """Pixels ``(B, H, W)`` whose ray meets the known bounding box of the scene (a slab test on poses only).

    INFERRED addition: without it the exploration term rewards candidates that look past the scene at empty
    background, which can never receive points. Uses the candidate pose and the scene bound, never its image.
    """
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
    o, d, _ = pixel_rays(cams.K, cams.rot, cams.trans, cams.width, cams.height)
    return box_interval(o, d)[2]


def view_scores(A: torch.Tensor, C: torch.Tensor, cfg: Creat3rConfig, mask: torch.Tensor | None = None) -> dict:
    """Per-candidate terms (paper §3, inferred): ``explore = mean(1 - A)``, ``refine = mean(A (1 - C))``,
    ``gate = mean(A C)``; ``score = explore + lam refine`` (hard form) or
    ``alpha explore + (1 - alpha) refine + beta gate`` (soft form ``S_alpha``). ``mask`` ``(B, H, W)`` restricts
    the means to some pixels (the scene's bounding box, :func:`roi_mask`)."""
    A = checks.tensor("A", A, ndim=3)
    checks.tensor("C", C, shape=tuple(A.shape))
    cfg = _cfg(cfg)
    m = torch.ones_like(A) if mask is None else checks.tensor("mask", mask, shape=tuple(A.shape)).to(A)
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
    score = checks.tensor("score", score, ndim=1)
    checks.tensor("gate", gate, shape=tuple(score.shape))
    checks.tensor("available", available, shape=tuple(score.shape), dtype_kind="bool")
    gamma = checks.finite_number("gamma", gamma)
    if not bool(available.any()):
        raise ValueError("available must mark at least one candidate")
    ninf = torch.full_like(score, -float("inf"))
    ok = available & (gate >= gamma)
    if bool(ok.any()):
        return int(torch.where(ok, score, ninf).argmax())
    return int(torch.where(available, gate, ninf).argmax())


def available_mask(store: ViewStore) -> torch.Tensor:
    """Candidates ``(C,)`` not selected yet (raises when none is left)."""
    mask = torch.ones(len(_store(store)), dtype=torch.bool, device=store.cams.rot.device)
    mask[store.selected] = False
    if not bool(mask.any()):
        raise ValueError("store has no unselected candidate left")
    return mask


class Creat3rSelector:
    """Creat3r's next-best-view rule (paper §3 loop body); ``last`` keeps the round's maps and scores."""

    name = "creat3r"

    def __init__(self, cfg: Creat3rConfig | None = None, matcher=None):
        self.cfg = _cfg(cfg) if cfg is not None else Creat3rConfig()
        self.matcher = _matcher(matcher) if matcher is not None else NCCMatcher()
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
        available = available_mask(store)
        if self.cfg.max_candidates is not None and int(available.sum()) > self.cfg.max_candidates:
            idx = available.nonzero().squeeze(-1)
            keep = idx[torch.randperm(idx.numel(), generator=gen, device=idx.device)[:self.cfg.max_candidates]]
            available = torch.zeros_like(available)
            available[keep] = True
        self.last = info
        return choose_view(info["score"], info["gate"], self.cfg.gamma, available)


def run_selection(selector, store: ViewStore, seeds, budget: int, gen: torch.Generator) -> dict:
    """The active loop (paper §3): start from ``seeds``, add ``budget`` views chosen by ``selector``.

    Returns the ``sequence`` of selected indices (seeds first) and the wall time of each ``round``.
    """
    store = _store(store)
    if not hasattr(selector, "select"):
        raise TypeError(f"selector must have a select(store, gen) method; got {type(selector).__name__}")
    seeds = [checks.nonnegative_int("seeds", s) for s in seeds]
    if len(set(seeds)) < 2:
        raise ValueError(f"seeds must hold at least two distinct views, got {seeds}")
    budget = checks.nonnegative_int("budget", budget)
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch.Generator; got {type(gen).__name__}")
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
