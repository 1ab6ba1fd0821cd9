"""Multi-view geometry of Creat3r's intermediate point cloud (paper §3, "triangulated and refined with DLT").

* :func:`triangulate_dlt`: Hartley-normalised linear DLT of multi-view tracks;
* :func:`reprojection_error`, :func:`triangulation_angle`: the filters applied to triangulated points;
* :func:`pixel_ray`, :func:`box_interval`: rays through arbitrary pixels and their entry/exit distances in the
  scene's known bounding box (used by the patch matcher's epipolar search and by the score's region mask).
"""

from __future__ import annotations

import math

import torch

from icml26 import checks
from icml26.papers.creat3r_nbv.scenes import EXTENT, HEIGHT, Cameras

BOX_LO = (-EXTENT, -EXTENT, -0.05)
BOX_HI = (EXTENT, EXTENT, HEIGHT)
"""The scene's bounding box (known to every selector, like the candidate poses)."""


def _cams(cams) -> Cameras:
    if not isinstance(cams, Cameras):
        raise TypeError(f"cams must be a Cameras batch; got {type(cams).__name__}")
    return cams


def projection_matrices(cams: Cameras) -> torch.Tensor:
    """``P = K [R | t]`` ``(B, 3, 4)``."""
    cams = _cams(cams)
    return cams.K.to(cams.rot) @ torch.cat([cams.rot, cams.trans[..., None]], -1)


def triangulate_dlt(uv: torch.Tensor, P: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Linear DLT triangulation of ``N`` tracks seen in ``V`` views, in float64.

    ``uv`` ``(V, N, 2)`` pixels, ``P`` ``(V, 3, 4)``, ``mask`` ``(V, N)`` bool (which views observe each track).
    Each observation gives the rows ``u P^3 - P^1`` and ``v P^3 - P^2``; pixels are first Hartley-normalised per
    view (centroid to 0, mean distance sqrt(2)), which transforms ``P`` accordingly. ``A X = 0`` is solved by
    the right singular vector of the smallest singular value. Returns ``(N, 3)``; tracks with fewer than two
    observations give NaN.
    """
    uv = checks.tensor("uv", uv, shape=(None, None, 2), nonempty=False)
    v, n = uv.shape[:2]
    if v < 1:
        raise ValueError(f"uv must hold at least one view; got shape {tuple(uv.shape)}")
    checks.tensor("P", P, shape=(v, 3, 4))
    mask = torch.ones(v, n, dtype=torch.bool, device=uv.device) if mask is None else \
        checks.tensor("mask", mask, shape=(v, n), nonempty=False, dtype_kind="bool")
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
    if n == 0:
        return torch.zeros(0, 3, dtype=uv.dtype, device=uv.device)
    _, _, vh = torch.linalg.svd(A, full_matrices=False)
    X = vh[:, -1]
    pts = X[:, :3] / X[:, 3:4]
    return torch.where((mask.sum(0) >= 2)[:, None], pts, torch.full_like(pts, float("nan")))


def reprojection_error(X: torch.Tensor, uv: torch.Tensor, cams: Cameras, mask: torch.Tensor) -> torch.Tensor:
    """Largest reprojection error (pixels) of each point ``(N, 3)`` over the views that observe it ``(N,)``."""
    cams = _cams(cams)
    X = checks.tensor("X", X, shape=(None, 3), nonempty=False)
    uv = checks.tensor("uv", uv, shape=(len(cams), X.shape[0], 2), nonempty=False)
    checks.tensor("mask", mask, shape=(len(cams), X.shape[0]), nonempty=False, dtype_kind="bool")
    from icml26.render import project

    proj, z = project(X.to(cams.rot), cams.K, cams.rot, cams.trans)
    err = (proj - uv.to(proj)).norm(dim=-1)
    err = torch.where(mask & (z > 0), err, torch.where(mask, torch.full_like(err, float("inf")), torch.zeros_like(err)))
    return err.amax(0) if err.shape[0] else torch.zeros(X.shape[0], device=X.device)


def triangulation_angle(X: torch.Tensor, centers: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Largest angle (degrees) between the viewing rays of the observing cameras, per point ``(N,)``."""
    X = checks.tensor("X", X, shape=(None, 3), nonempty=False)
    centers = checks.tensor("centers", centers, shape=(None, 3))
    checks.tensor("mask", mask, shape=(centers.shape[0], X.shape[0]), nonempty=False, dtype_kind="bool")
    rays = torch.nn.functional.normalize(X[None].to(centers) - centers[:, None], dim=-1)    # (V, N, 3)
    cos = torch.einsum("vnk,wnk->nvw", rays, rays)
    both = mask.T[:, :, None] & mask.T[:, None, :]
    cos = torch.where(both, cos, torch.ones_like(cos))
    return torch.rad2deg(torch.arccos(cos.clamp(-1.0, 1.0).amin(dim=(1, 2))))


def pixel_ray(cams: Cameras, uv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """World rays through continuous pixel positions ``uv`` ``(B, N, 2)`` of cameras ``cams`` (``B`` of them):
    origins ``(B, 3)`` (the camera centres) and unit directions ``(B, N, 3)``."""
    cams = _cams(cams)
    uv = checks.tensor("uv", uv, shape=(len(cams), None, 2), nonempty=False)
    K = cams.K.to(cams.rot)
    d = torch.stack([(uv[..., 0] - K[0, 2]) / K[0, 0], (uv[..., 1] - K[1, 2]) / K[1, 1],
                     torch.ones_like(uv[..., 0])], -1)
    d = torch.einsum("bji,bnj->bni", cams.rot, d.to(cams.rot))
    return cams.centers, torch.nn.functional.normalize(d, dim=-1)


def box_interval(origins: torch.Tensor, directions: torch.Tensor, lo=BOX_LO, hi=BOX_HI, near: float = 0.05):
    """Slab test of rays ``origins + t directions`` (broadcastable ``(..., 3)``) against the box ``[lo, hi]``:
    entry and exit distances ``t0, t1`` (``t0 >= near``) and whether the ray meets the box at all."""
    checks.tensor("origins", origins)
    checks.tensor("directions", directions)
    if origins.shape[-1] != 3 or directions.shape[-1] != 3:
        raise ValueError(f"origins and directions must end in 3; got {tuple(origins.shape)}, {tuple(directions.shape)}")
    near = checks.nonnegative_number("near", near)
    if len(lo) != 3 or len(hi) != 3 or any(not a < b for a, b in zip(lo, hi)):
        raise ValueError(f"lo and hi must be 3-vectors with lo < hi in every axis; got lo={lo}, hi={hi}")
    lo_t = torch.tensor(lo, dtype=directions.dtype, device=directions.device)
    hi_t = torch.tensor(hi, dtype=directions.dtype, device=directions.device)
    inv = 1.0 / torch.where(directions.abs() < 1e-9, torch.full_like(directions, 1e-9), directions)
    t1, t2 = (lo_t - origins) * inv, (hi_t - origins) * inv
    t0 = torch.minimum(t1, t2).amax(-1).clamp_min(near)
    t1 = torch.maximum(t1, t2).amin(-1)
    return t0, t1, t1 > t0
