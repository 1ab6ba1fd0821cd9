"""A batched analytic ray caster for :class:`~icml26.render.scene.Scene`: colour, depth, object id, normal.

Every ray is tested against every primitive at once (rays x primitives tensors, processed in chunks of rays):

* plane ``n . x = n . c``: ``t = n . (c - o) / (n . d)``;
* box: the slab method in the box's local (yaw-rotated) frame, ``t = max_i min(t1_i, t2_i)``;
* sphere: the smaller root of ``|o + t d - c|^2 = r^2``;
* vertical cylinder: the side (a quadratic in the ``xy`` plane, accepted inside the height range) or a cap.

Only hits with ``t > eps`` count, so a camera must stay outside solid primitives (rooms are made of planes).
Shading is Lambertian with one directional light plus ambient, scaled by an ``exposure`` gain:
``rgb = clip(exposure * albedo(x) * (ambient + diffuse * max(0, n . l)), 0, 1)``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from icml26 import checks
from icml26.render.cameras import _as_batch, _check_K, pixel_rays
from icml26.render.scene import BOX, CHECKER, CYLINDER, PLANE, SPHERE, STRIPES, Scene

EPS = 1e-4


def _to_local(x: torch.Tensor, center: torch.Tensor, yaw: torch.Tensor, is_point: bool) -> torch.Tensor:
    """Rotate (and for points translate) ``x`` ``(..., P, 3)`` into each primitive's local frame (``R_z(-yaw)``)."""
    v = x - center if is_point else x.expand(torch.broadcast_shapes(x.shape, center.shape))
    c, s = torch.cos(yaw), torch.sin(yaw)
    return torch.stack([c * v[..., 0] + s * v[..., 1], -s * v[..., 0] + c * v[..., 1], v[..., 2]], dim=-1)


def _from_local(v: torch.Tensor, yaw: torch.Tensor) -> torch.Tensor:
    c, s = torch.cos(yaw), torch.sin(yaw)
    return torch.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1], v[..., 2]], dim=-1)


def _nonzero(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x.abs() < 1e-12, torch.full_like(x, 1e-12), x)


def _valid(t: torch.Tensor, ok: torch.Tensor) -> torch.Tensor:
    return torch.where(ok & (t > EPS), t, torch.full_like(t, float("inf")))


def _hit_planes(o, d, center, normal):
    denom = (d * normal).sum(-1)
    t = ((center - o) * normal).sum(-1) / _nonzero(denom)
    return _valid(t, denom.abs() > 1e-9)


def _hit_boxes(o, d, center, half, yaw):
    ol, dl = _to_local(o, center, yaw, True), _to_local(d, center, yaw, False)
    inv = 1.0 / _nonzero(dl)
    t1, t2 = (-half - ol) * inv, (half - ol) * inv
    tmin = torch.minimum(t1, t2).amax(-1)
    tmax = torch.maximum(t1, t2).amin(-1)
    return _valid(tmin, tmax >= tmin)


def _hit_spheres(o, d, center, radius):
    oc = o - center
    b = (oc * d).sum(-1)
    disc = b * b - ((oc * oc).sum(-1) - radius * radius)
    return _valid(-b - disc.clamp_min(0).sqrt(), disc >= 0)


def _hit_cylinders(o, d, center, radius, half_height):
    oc = o - center
    a = d[..., 0] ** 2 + d[..., 1] ** 2
    b = oc[..., 0] * d[..., 0] + oc[..., 1] * d[..., 1]
    c = oc[..., 0] ** 2 + oc[..., 1] ** 2 - radius ** 2
    disc = b * b - a * c
    t_side = (-b - disc.clamp_min(0).sqrt()) / _nonzero(a)
    z_side = oc[..., 2] + t_side * d[..., 2]
    side = _valid(t_side, (disc >= 0) & (a > 1e-12) & (z_side.abs() <= half_height))
    caps = []
    for sign in (1.0, -1.0):
        t_cap = (sign * half_height - oc[..., 2]) / _nonzero(d[..., 2])
        px, py = oc[..., 0] + t_cap * d[..., 0], oc[..., 1] + t_cap * d[..., 1]
        caps.append(_valid(t_cap, (d[..., 2].abs() > 1e-12) & (px * px + py * py <= radius * radius)))
    return torch.minimum(side, torch.minimum(*caps))


def _check_scene(scene) -> Scene:
    if not isinstance(scene, Scene):
        raise TypeError(f"scene must be a Scene; got {type(scene).__name__}")
    return scene


def _check_rays(origins, directions) -> None:
    checks.tensor("origins", origins, ndim=2, shape=(None, 3), dtype_kind="float")
    checks.tensor("directions", directions, shape=tuple(origins.shape), dtype_kind="float")


def _check_hits(scene, prim, points) -> None:
    checks.tensor("prim", prim, ndim=1, dtype_kind="int")
    checks.tensor("points", points, shape=(prim.shape[0], 3), dtype_kind="float")
    if bool(((prim < 0) | (prim >= scene.num_primitives)).any()):
        raise ValueError(f"prim must index the scene's {scene.num_primitives} primitives")


def intersect(scene: Scene, origins: torch.Tensor, directions: torch.Tensor) -> torch.Tensor:
    """Ray parameters ``t`` ``(R, P)`` of the first hit of each ray ``(R, 3)`` with each primitive (``inf``: none)."""
    _check_scene(scene)
    _check_rays(origins, directions)
    return _intersect(scene, origins, directions)


def _intersect(scene, origins, directions):
    o, d = origins[:, None, :], directions[:, None, :]
    t = torch.full((o.shape[0], scene.num_primitives), float("inf"), device=o.device, dtype=o.dtype)
    for kind, fn in ((PLANE, lambda i: _hit_planes(o, d, scene.center[i], scene.normal[i])),
                     (BOX, lambda i: _hit_boxes(o, d, scene.center[i], scene.size[i], scene.yaw[i])),
                     (SPHERE, lambda i: _hit_spheres(o, d, scene.center[i], scene.size[i, 0])),
                     (CYLINDER, lambda i: _hit_cylinders(o, d, scene.center[i], scene.size[i, 0], scene.size[i, 2]))):
        idx = (scene.kind == kind).nonzero().squeeze(-1)
        if idx.numel():
            t[:, idx] = fn(idx)
    return t


def surface_normals(scene: Scene, prim: torch.Tensor, points: torch.Tensor, directions: torch.Tensor) -> torch.Tensor:
    """Unit normals ``(R, 3)`` at hit ``points`` on primitives ``prim`` ``(R,)``, flipped to face the ray."""
    _check_scene(scene)
    _check_hits(scene, prim, points)
    checks.tensor("directions", directions, shape=tuple(points.shape), dtype_kind="float")
    return _surface_normals(scene, prim, points, directions)


def _surface_normals(scene, prim, points, directions):
    center, size, yaw = scene.center[prim], scene.size[prim], scene.yaw[prim]
    local = _to_local(points, center, yaw, True)
    ratio = (local / size.clamp_min(1e-9)).abs()
    face = F.one_hot(ratio.argmax(-1), 3).to(points) * torch.sign(local)
    box_n = _from_local(face, yaw)
    sphere_n = points - center
    on_cap = local[..., 2].abs() >= size[..., 2] - 1e-3
    radial = torch.stack([local[..., 0], local[..., 1], torch.zeros_like(local[..., 0])], -1)
    cyl_n = torch.where(on_cap[..., None], torch.sign(local[..., 2:3]) * torch.tensor([0.0, 0.0, 1.0]).to(points),
                        _from_local(radial, yaw))
    kind = scene.kind[prim][..., None]
    n = torch.where(kind == PLANE, scene.normal[prim],
                    torch.where(kind == BOX, box_n, torch.where(kind == SPHERE, sphere_n, cyl_n)))
    n = n / n.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    return torch.where(((n * directions).sum(-1, keepdim=True) > 0), -n, n)


def albedo(scene: Scene, prim: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    """Procedural albedo ``(R, 3)`` at ``points`` on primitives ``prim``, evaluated in the primitives' local frames."""
    _check_scene(scene)
    _check_hits(scene, prim, points)
    return _albedo(scene, prim, points)


def _albedo(scene, prim, points):
    local = _to_local(points, scene.center[prim], scene.yaw[prim], True)
    cells = torch.floor(local / scene.pattern_scale[prim][..., None]).long()
    pattern = scene.pattern[prim]
    stripes = torch.where(pattern == STRIPES, cells[..., 0] + cells[..., 2], torch.zeros_like(cells[..., 0]))
    parity = torch.where(pattern == CHECKER, cells.sum(-1), stripes) % 2
    base = torch.where(parity[..., None] == 1, scene.color_b[prim], scene.color_a[prim])
    waves = torch.sin(torch.einsum("rkj,rj->rk", scene.noise_freq[prim], local) + scene.noise_phase[prim])
    return (base * (1.0 + scene.noise_amp[prim][..., None] * waves.mean(-1, keepdim=True))).clamp(0.0, 1.0)


def cast(scene: Scene, origins: torch.Tensor, directions: torch.Tensor, chunk: int = 1 << 16):
    """Nearest hits of rays ``(R, 3)``: ``distance`` ``(R,)`` (``inf`` for a miss) and primitive index ``(R,)``
    (``-1`` for a miss). Rays are processed ``chunk`` at a time to bound memory."""
    _check_scene(scene)
    _check_rays(origins, directions)
    checks.positive_int("chunk", chunk)
    return _cast(scene, origins, directions, chunk)


def _cast(scene, origins, directions, chunk):
    dists, prims = [], []
    for start in range(0, origins.shape[0], chunk):
        if scene.num_primitives == 0:
            n = min(chunk, origins.shape[0] - start)
            dists.append(torch.full((n,), float("inf"), device=origins.device, dtype=origins.dtype))
            prims.append(torch.full((n,), -1, device=origins.device, dtype=torch.long))
            continue
        t = _intersect(scene, origins[start:start + chunk], directions[start:start + chunk])
        dist, prim = t.min(dim=1)
        dists.append(dist)
        prims.append(torch.where(torch.isfinite(dist), prim, torch.full_like(prim, -1)))
    return torch.cat(dists), torch.cat(prims)


def _surface(scene, o, d, dist, prim):
    """Hit points and ray-facing normals (misses get the ray origin and an arbitrary normal)."""
    hit = prim >= 0
    points = o + torch.where(hit, dist, torch.zeros_like(dist))[..., None] * d
    return points, _surface_normals(scene, prim.clamp_min(0), points, d)


def _shade(scene, prim, points, normals, light, ambient, background):
    """Lambertian colour of the hits, ``background`` for misses."""
    lam = (normals * light).sum(-1).clamp_min(0.0)
    rgb = _albedo(scene, prim.clamp_min(0), points) * (ambient + (1.0 - ambient) * lam)[..., None]
    return torch.where((prim >= 0)[..., None], rgb, background)


def render(scene: Scene, K: torch.Tensor, rot: torch.Tensor, trans: torch.Tensor, width: int, height: int, *,
           light=(0.3, 0.5, 1.0), ambient: float = 0.35, exposure=1.0, background=(0.0, 0.0, 0.0),
           supersample: int = 1, chunk: int = 1 << 16) -> dict[str, torch.Tensor]:
    """Render cameras ``(R, t)`` (``(B, 3, 3)``, ``(B, 3)``) of a scene; everything runs on ``rot``'s device.

    Returns a dict of ``rgb`` ``(B, H, W, 3)`` in [0, 1], ``depth`` ``(B, H, W)`` (z-depth, ``inf`` on a miss),
    ``object_id`` ``(B, H, W)`` (``-1`` on a miss), ``primitive`` ``(B, H, W)``, ``normal`` and ``point``
    ``(B, H, W, 3)``. Geometry buffers come from the pixel centres; ``rgb`` is the mean of ``supersample^2``
    sub-pixel rays (anti-aliasing). ``exposure`` is a scalar or a ``(B,)`` gain per camera.
    """
    _check_scene(scene)
    rot = _as_batch(rot, "rot", (3, 3))
    trans = _as_batch(trans, "trans", (3,))
    _check_K(K)
    checks.probability("ambient", ambient)
    checks.positive_int("chunk", chunk)
    checks.positive_int("supersample", supersample)
    for name, v in (("light", light), ("background", background)):
        if len(v) != 3 or not all(math.isfinite(float(x)) for x in v):
            raise ValueError(f"{name} must be three finite numbers; got {v!r}")
    if scene.center.device != rot.device:
        raise ValueError(f"scene is on {scene.center.device} but the cameras are on {rot.device}")
    dtype, device = rot.dtype, rot.device
    light_t = torch.as_tensor(light, dtype=dtype, device=device)
    light_t = light_t / light_t.norm()
    bg = torch.as_tensor(background, dtype=dtype, device=device)
    gain = torch.as_tensor(exposure, dtype=dtype, device=device).reshape(-1, 1, 1, 1)
    if gain.shape[0] not in (1, rot.shape[0]) or not bool(((gain > 0) & torch.isfinite(gain)).all()):
        raise ValueError("exposure must be a positive scalar or one positive gain per camera")
    b = rot.shape[0]

    o, d, cos_fwd = pixel_rays(K, rot, trans, width, height)
    o, d = o.reshape(-1, 3), d.reshape(-1, 3)
    dist, prim = _cast(scene, o, d, chunk)
    points, normals = _surface(scene, o, d, dist, prim)
    if supersample > 1:  # colour only from the sub-pixel rays; the pixel-centre pass gives the geometry buffers
        so, sd, _ = pixel_rays(K, rot, trans, width, height, supersample)
        so, sd = so.reshape(-1, 3), sd.reshape(-1, 3)
        sdist, sprim = _cast(scene, so, sd, chunk)
        srgb = _shade(scene, sprim, *_surface(scene, so, sd, sdist, sprim), light_t, ambient, bg)
        srgb = srgb.reshape(b, height * supersample, width * supersample, 3).permute(0, 3, 1, 2)
        rgb = F.avg_pool2d(srgb, supersample).permute(0, 2, 3, 1)
    else:
        rgb = _shade(scene, prim, points, normals, light_t, ambient, bg)
    rgb = rgb.reshape(b, height, width, 3)
    prim = prim.reshape(b, height, width)
    hit = prim >= 0
    object_id = torch.where(hit, scene.object_id[prim.clamp_min(0)], torch.full_like(prim, -1))
    return {
        "rgb": (rgb * gain).clamp(0.0, 1.0),
        "depth": dist.reshape(b, height, width) * cos_fwd,
        "object_id": object_id,
        "primitive": prim,
        "normal": normals.reshape(b, height, width, 3),
        "point": torch.where(hit[..., None], points.reshape(b, height, width, 3), torch.full_like(points.reshape(
            b, height, width, 3), float("inf"))),
    }
