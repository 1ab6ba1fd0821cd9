"""Pinhole cameras: intrinsics, look-at poses, pixel rays, projection, back-projection and depth tests.

Conventions (used by every renderer in :mod:`icml26.render`):

* world frame: right-handed, ``+z`` up (the floor is ``z = 0``);
* camera frame: OpenCV style, ``x`` right, ``y`` down, ``z`` forward;
* a pose is the world-to-camera map ``X_c = R X_w + t`` with ``R`` of shape ``(B, 3, 3)``, ``t`` ``(B, 3)``;
* pixel ``(u, v)`` covers ``[u, u + 1) x [v, v + 1)``; its centre is ``(u + 0.5, v + 0.5)``, and
  ``K = [[f, 0, W/2], [0, f, H/2], [0, 0, 1]]``;
* *depth* is the z-depth along the camera axis (not the distance along the ray); ``inf`` where no surface.
"""

from __future__ import annotations

import math

import torch

from icml26 import checks


def _as_batch(x: torch.Tensor, name: str, tail: tuple[int, ...]) -> torch.Tensor:
    """``x`` as a non-empty batch ``(B, *tail)`` of finite numbers (a single ``tail``-shaped item gets ``B = 1``)."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.shape == tail:
        x = x.unsqueeze(0)
    if x.dim() != len(tail) + 1 or tuple(x.shape[1:]) != tail:
        raise ValueError(f"{name} must have shape {tail} or (B, {', '.join(map(str, tail))}), got {tuple(x.shape)}")
    return checks.tensor(name, x)


def _check_K(K) -> torch.Tensor:
    return checks.tensor("K", K, shape=(3, 3))


def _check_depth(depth, ndim) -> torch.Tensor:
    """Depth maps: ``inf`` marks a pixel with no surface and is allowed; NaN is not."""
    checks.tensor("depth", depth, ndim=ndim, finite=False)
    if depth.is_floating_point() and bool(torch.isnan(depth).any()):
        raise ValueError(f"depth must not hold NaN (inf marks a pixel with no surface); got shape {tuple(depth.shape)}")
    return depth


def _check_points(points) -> torch.Tensor:
    """World points ``(N, 3)`` or ``(B, N, 3)``; non-finite points (no surface) are allowed."""
    if not isinstance(points, torch.Tensor) or points.shape[-1:] != (3,) or points.dim() not in (2, 3):
        raise ValueError(f"points must have shape (N, 3) or (B, N, 3), got {getattr(points, 'shape', None)}")
    return points


def _check_size(width: int, height: int) -> None:
    for name, v in (("width", width), ("height", height)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")


def intrinsics(width: int, height: int, fov_deg: float, *, device=None, dtype=torch.float32) -> torch.Tensor:
    """The ``(3, 3)`` matrix ``K`` of a pinhole camera with horizontal field of view ``fov_deg`` and square pixels."""
    _check_size(width, height)
    checks.in_range("fov_deg", fov_deg, 0.0, 180.0, low_open=True, high_open=True)
    if device is not None:
        device = checks.device("device", device)
    f = (width / 2.0) / math.tan(math.radians(float(fov_deg)) / 2.0)
    return torch.tensor([[f, 0.0, width / 2.0], [0.0, f, height / 2.0], [0.0, 0.0, 1.0]], device=device, dtype=dtype)


def look_at(eye: torch.Tensor, target: torch.Tensor, up: tuple[float, float, float] = (0.0, 0.0, 1.0)):
    """World-to-camera pose ``(R, t)`` of cameras at ``eye`` looking at ``target`` (both ``(3,)`` or ``(B, 3)``).

    The camera's forward axis is ``f = (target - eye) / |target - eye|``, its right axis ``r = f x up`` and its
    down axis ``f x r``; the rows of ``R`` are ``(r, down, f)`` and ``t = -R eye``.
    """
    eye = _as_batch(eye, "eye", (3,))
    target = _as_batch(target, "target", (3,)).to(eye)
    if target.shape[0] not in (1, eye.shape[0]):
        raise ValueError(f"target must hold one point or one per eye ({eye.shape[0]}); got {target.shape[0]}")
    if len(up) != 3 or not all(math.isfinite(float(u)) for u in up):
        raise ValueError(f"up must be three finite numbers; got {up!r}")
    if target.shape[0] != eye.shape[0]:
        target = target.expand_as(eye)
    forward = target - eye
    norm = forward.norm(dim=-1, keepdim=True)
    if bool((norm < 1e-9).any()):
        raise ValueError("target must differ from eye for every camera")
    forward = forward / norm
    up_vec = torch.tensor(up, dtype=eye.dtype, device=eye.device).expand_as(forward)
    right = torch.linalg.cross(forward, up_vec)
    rnorm = right.norm(dim=-1, keepdim=True)
    if bool((rnorm < 1e-6).any()):
        raise ValueError("the viewing direction must not be parallel to up")
    right = right / rnorm
    down = torch.linalg.cross(forward, right)
    rot = torch.stack([right, down, forward], dim=-2)
    trans = -(rot @ eye.unsqueeze(-1)).squeeze(-1)
    return rot, trans


def camera_centers(rot: torch.Tensor, trans: torch.Tensor) -> torch.Tensor:
    """Camera centres in world coordinates, ``C = -R^T t``, shape ``(B, 3)``."""
    rot = _as_batch(rot, "rot", (3, 3))
    trans = _as_batch(trans, "trans", (3,))
    return -(rot.transpose(-1, -2) @ trans.unsqueeze(-1)).squeeze(-1)


def pixel_rays(K: torch.Tensor, rot: torch.Tensor, trans: torch.Tensor, width: int, height: int,
               supersample: int = 1):
    """World-space rays through pixel centres (or an ``s x s`` grid of sub-pixel centres when ``supersample = s``).

    Returns ``origins`` and unit ``directions``, both ``(B, H*s, W*s, 3)``, and ``cos_forward`` ``(B, H*s, W*s)``,
    the cosine between each ray and the optical axis (z-depth = distance * cos_forward).
    """
    _check_size(width, height)
    if not isinstance(supersample, int) or supersample < 1:
        raise ValueError(f"supersample must be a positive int, got {supersample!r}")
    rot = _as_batch(rot, "rot", (3, 3))
    trans = _as_batch(trans, "trans", (3,))
    K = _check_K(K).to(rot)
    s = supersample
    us = (torch.arange(width * s, device=rot.device, dtype=rot.dtype) + 0.5) / s
    vs = (torch.arange(height * s, device=rot.device, dtype=rot.dtype) + 0.5) / s
    v, u = torch.meshgrid(vs, us, indexing="ij")
    cam = torch.stack([(u - K[0, 2]) / K[0, 0], (v - K[1, 2]) / K[1, 1], torch.ones_like(u)], dim=-1)
    cam = cam / cam.norm(dim=-1, keepdim=True)
    directions = torch.einsum("bji,hwj->bhwi", rot, cam)
    origins = camera_centers(rot, trans)[:, None, None, :].expand_as(directions)
    return origins, directions, cam[..., 2].expand(directions.shape[:-1])


def project(points: torch.Tensor, K: torch.Tensor, rot: torch.Tensor, trans: torch.Tensor):
    """Pixel coordinates ``(B, N, 2)`` and z-depths ``(B, N)`` of world points ``(N, 3)`` or ``(B, N, 3)``.

    ``x_c = R X + t``, ``(u, v) = (f x_c / z_c + c_x, f y_c / z_c + c_y)``. Points behind the camera get
    ``z <= 0``; their pixel coordinates are meaningless and callers must mask them. A point on the camera plane
    (``|z| < 1e-9``) has no pixel: its ``(u, v)`` are NaN (never a huge finite number that looks like one).
    """
    rot = _as_batch(rot, "rot", (3, 3))
    trans = _as_batch(trans, "trans", (3,))
    _check_points(points)
    _check_K(K)
    pts = points.to(rot)
    cam = torch.einsum("bij,nj->bni", rot, pts) if pts.dim() == 2 else torch.einsum("bij,bnj->bni", rot, pts)
    cam = cam + trans[:, None, :]
    z = cam[..., 2]
    on_plane = z.abs() < 1e-9
    safe = torch.where(on_plane, torch.ones_like(z), z)
    K = K.to(rot)
    uv = torch.stack([K[0, 0] * cam[..., 0] / safe + K[0, 2], K[1, 1] * cam[..., 1] / safe + K[1, 2]], dim=-1)
    return torch.where(on_plane[..., None], torch.full_like(uv, float("nan")), uv), z


def backproject(depth: torch.Tensor, K: torch.Tensor, rot: torch.Tensor, trans: torch.Tensor) -> torch.Tensor:
    """World points ``(B, H, W, 3)`` seen at each pixel centre with z-depth ``depth`` ``(B, H, W)`` (inverse of
    :func:`project`; pixels with infinite depth give non-finite points)."""
    _check_depth(depth, (2, 3))
    _check_K(K)
    if depth.dim() == 2:
        depth = depth.unsqueeze(0)
    rot = _as_batch(rot, "rot", (3, 3))
    trans = _as_batch(trans, "trans", (3,))
    height, width = depth.shape[-2:]
    K = K.to(rot)
    us = torch.arange(width, device=rot.device, dtype=rot.dtype) + 0.5
    vs = torch.arange(height, device=rot.device, dtype=rot.dtype) + 0.5
    v, u = torch.meshgrid(vs, us, indexing="ij")
    d = depth.to(rot)
    cam = torch.stack([(u - K[0, 2]) / K[0, 0] * d, (v - K[1, 2]) / K[1, 1] * d, d], dim=-1)
    return torch.einsum("bji,bhwj->bhwi", rot, cam - trans[:, None, None, :])


def visible_in(points: torch.Tensor, K: torch.Tensor, rot: torch.Tensor, trans: torch.Tensor,
               depth: torch.Tensor, rel_tol: float = 0.02) -> torch.Tensor:
    """Whether world points ``(N, 3)`` or ``(B, N, 3)`` are seen by cameras ``(R, t)`` with depth maps ``(B, H, W)``.

    A point is visible in camera ``b`` when it projects inside the image, lies in front of the camera, and its
    z-depth is within ``rel_tol`` (relative) of the depth map at the nearest pixel (a z-buffer test).
    Returns a bool tensor ``(B, N)``. Non-finite points are never visible.
    """
    checks.nonnegative_number("rel_tol", rel_tol)
    _check_depth(depth, 3)
    uv, z = project(points, K, rot, trans)
    if uv.shape[0] != depth.shape[0]:
        raise ValueError(f"depth has {depth.shape[0]} maps for {uv.shape[0]} cameras")
    height, width = depth.shape[-2:]
    finite = torch.isfinite(uv).all(-1) & torch.isfinite(z)
    inside = finite & (z > 1e-6) & (uv[..., 0] >= 0) & (uv[..., 0] < width) & (uv[..., 1] >= 0) & (uv[..., 1] < height)
    col = uv[..., 0].nan_to_num(0.0).clamp(0, width - 1).long()
    row = uv[..., 1].nan_to_num(0.0).clamp(0, height - 1).long()
    seen = depth.to(z).flatten(1).gather(1, row * width + col)
    return inside & (z <= seen * (1.0 + rel_tol))
