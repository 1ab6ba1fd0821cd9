"""Procedural rooms, scene changes, unsynchronised camera paths and exact change masks (docs/papers/scene_change.md,
section 2, "The data").

Everything is rendered by the shared ray caster :func:`icml26.render.render`. A *room* is six inward-facing
textured planes (about 6 x 4 x 2.5 m) plus floor-standing boxes (yaw-rotated) and spheres, each with its own
object id and an object-attached material, so an unchanged object looks the same in every recording.

A room has ``n_states`` recordings. State ``i+1`` is state ``i`` with 2-5 changes (objects removed, added,
or moved by 0.3-1 m); recording ``i`` is a video of state ``i`` along its own camera path: every recording of a
room follows the room's survey route (:func:`room_route`) with jittered control points, over its own
sub-interval, at its own non-uniform speed and in its own direction (:func:`camera_path`), so the videos are
unsynchronised but survey the same space (*inferred*: the paper's robot re-records one indoor space). Pairs
are consecutive, ``i -> i+1`` (reference = recording ``i``, query = recording ``i+1``), so the masks live on
the query frames as in the benchmark (§3.10). Deviation: the cyclic pair ``last -> 0`` is left out, so that
every pair has 2-5 changes.

Mask convention (inferred): a query pixel is changed when the object id seen from the query pose differs
between the two states and either id belongs to a changed object; this marks new objects, moved objects at
their new place and the footprint where a removed (or moved-away) object would have been seen.
Depth and poses are kept only for the mechanism metrics (C1, C2, C6) and the oracle baseline.
"""

from __future__ import annotations

import math

import torch

from icml26 import checks
from icml26.render import Scene, intrinsics, look_at, make_scene, render, visible_in

ROOM = (3.0, 2.0, 2.5)  # half-length in x, half-width in y, height
N_WALLS = 6


def _u(gen, lo, hi, *shape):
    return lo + (hi - lo) * torch.rand(*shape, generator=gen)


def _check_gen(gen, name: str = "gen") -> torch.Generator:
    return checks.instance(name, gen, torch.Generator)


def room_shell(gen: torch.Generator):
    """The six planes (floor, ceiling, four walls) with inward normals and random checker/stripe textures."""
    _check_gen(gen)
    hx, hy, hz = ROOM
    centers = [[0, 0, 0], [0, 0, hz], [hx, 0, 0], [-hx, 0, 0], [0, hy, 0], [0, -hy, 0]]
    normals = [[0, 0, 1], [0, 0, -1], [-1, 0, 0], [1, 0, 0], [0, -1, 0], [0, 1, 0]]
    pattern = [int(torch.randint(1, 3, (1,), generator=gen)) for _ in range(N_WALLS)]
    return make_scene(["plane"] * N_WALLS, list(range(N_WALLS)), center=centers, size=[[1.0, 1.0, 1.0]] * N_WALLS,
                      normal=normals, pattern=pattern, pattern_scale=_u(gen, 0.3, 0.9, N_WALLS).tolist(),
                      noise_amp=[0.3] * N_WALLS, generator=gen)


def _objects(gen: torch.Generator, n: int, first_id: int):
    """``n`` floor-standing objects (boxes or spheres) with ids ``first_id ..``, random materials."""
    hx, hy, _ = ROOM
    sphere = torch.rand(n, generator=gen) < 0.35
    half = torch.stack([_u(gen, 0.15, 0.45, n), _u(gen, 0.15, 0.45, n), _u(gen, 0.15, 0.5, n)], -1)
    radius = _u(gen, 0.15, 0.35, n)
    size = torch.where(sphere[:, None], radius[:, None].expand(n, 3), half)
    xy = torch.stack([_u(gen, -hx + 0.6, hx - 0.6, n), _u(gen, -hy + 0.6, hy - 0.6, n)], -1)
    center = torch.cat([xy, size[:, 2:3]], -1)
    kinds = ["sphere" if s else "box" for s in sphere.tolist()]
    return make_scene(kinds, list(range(first_id, first_id + n)), center=center, size=size,
                      yaw=_u(gen, 0, math.pi, n), pattern=torch.randint(0, 3, (n,), generator=gen).tolist(),
                      pattern_scale=_u(gen, 0.08, 0.25, n).tolist(), noise_amp=[0.25] * n, generator=gen)


def make_room(gen: torch.Generator, n_objects: int):
    """A room: shell planes (ids 0..5) and ``n_objects`` objects (ids 6..)."""
    _check_gen(gen)
    checks.positive_int("n_objects", n_objects)
    return room_shell(gen).cat(_objects(gen, n_objects, N_WALLS))


def change_scene(scene, gen: torch.Generator, n_changes: int, next_id: int):
    """Apply ``n_changes`` changes (remove / add / move, each at least once when ``n_changes >= 3``).

    Returns ``(new_scene, changed_ids, next_id)``: ``changed_ids`` is a sorted list of every object id whose
    presence or placement differs between the two states.
    """
    checks.instance("scene", scene, Scene)
    _check_gen(gen)
    checks.positive_int("n_changes", n_changes)
    checks.nonnegative_int("next_id", next_id)
    if scene.num_primitives and next_id <= int(scene.object_id.max()):
        raise ValueError(f"next_id must exceed every object id of the scene (max {int(scene.object_id.max())}); "
                         f"got {next_id}")
    ids = scene.object_id[scene.object_id >= N_WALLS].unique()
    kinds = ([0, 1, 2] + torch.randint(0, 3, (max(n_changes - 3, 0),), generator=gen).tolist())[:n_changes]
    if n_changes < 3:
        kinds = torch.randint(0, 3, (n_changes,), generator=gen).tolist()
    perm = ids[torch.randperm(len(ids), generator=gen)].tolist()
    n_remove, n_move, n_add = kinds.count(0), kinds.count(2), kinds.count(1)
    n_remove = min(n_remove, max(len(perm) - 1, 0))
    removed, moved = perm[:n_remove], perm[n_remove:n_remove + n_move]
    keep = ~torch.isin(scene.object_id, torch.tensor(removed, dtype=torch.long))
    new = scene.select(keep)
    if moved:
        rows = torch.isin(new.object_id, torch.tensor(moved, dtype=torch.long)).nonzero().squeeze(-1)
        angle = _u(gen, 0, 2 * math.pi, len(rows))
        dist = _u(gen, 0.3, 1.0, len(rows))
        hx, hy, _ = ROOM
        c = new.center[rows].clone()
        c[:, 0] = (c[:, 0] + dist * torch.cos(angle)).clamp(-hx + 0.6, hx - 0.6)
        c[:, 1] = (c[:, 1] + dist * torch.sin(angle)).clamp(-hy + 0.6, hy - 0.6)
        new = new.replace(rows, center=c, yaw=new.yaw[rows] + _u(gen, -0.5, 0.5, len(rows)))
    added = list(range(next_id, next_id + n_add))
    if n_add:
        new = new.cat(_objects(gen, n_add, next_id))
    return new, sorted(removed + moved + added), next_id + n_add


def catmull_rom(points: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """Centripetal-free (uniform) Catmull-Rom spline through ``points`` ``(M, 3)`` at parameters ``s`` in [0, 1].

    The curve passes through every control point; end tangents use duplicated end points.
    """
    checks.tensor("points", points, ndim=2, shape=(None, 3), dtype_kind="float")
    if points.shape[0] < 2:
        raise ValueError(f"points must be (M >= 2, 3), got {tuple(points.shape)}")
    checks.tensor("s", s, ndim=1, dtype_kind="float")
    p = torch.cat([points[:1], points, points[-1:]])
    m = points.shape[0] - 1
    x = s.clamp(0, 1) * m
    i = x.floor().long().clamp(max=m - 1)
    u = (x - i)[:, None]
    p0, p1, p2, p3 = p[i], p[i + 1], p[i + 2], p[i + 3]
    return 0.5 * (2 * p1 + (-p0 + p2) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u ** 2
                  + (-p0 + 3 * p1 - 3 * p2 + p3) * u ** 3)


def room_route(gen: torch.Generator, n_waypoints: int = 5) -> tuple[torch.Tensor, torch.Tensor]:
    """The room's survey route: ``n_waypoints`` eye control points ``(M, 3)`` (1.2-1.7 m high, 0.6 m from the walls)
    and look-at control points ``(M, 3)`` (0.2-1.0 m high), joined by Catmull-Rom splines."""
    _check_gen(gen)
    checks.int_at_least("n_waypoints", n_waypoints, 2)
    hx, hy, _ = ROOM
    eye_pts = torch.stack([_u(gen, -hx + 0.6, hx - 0.6, n_waypoints), _u(gen, -hy + 0.6, hy - 0.6, n_waypoints),
                           _u(gen, 1.2, 1.7, n_waypoints)], -1)
    tgt_pts = torch.stack([_u(gen, -hx, hx, n_waypoints), _u(gen, -hy, hy, n_waypoints),
                           _u(gen, 0.2, 1.0, n_waypoints)], -1)
    return eye_pts, tgt_pts


def camera_path(gen: torch.Generator, frames: int, n_waypoints: int = 5, route=None,
                jitter: tuple[float, float] = (0.3, 0.5)):
    """Eyes and look-at targets ``(frames, 3)`` of one recording.

    The recording follows ``route`` (a :func:`room_route`; a fresh one when ``None``) with its control points
    jittered (eyes by up to ``jitter[0]`` m horizontally, targets by up to ``jitter[1]`` m), over a random
    sub-interval (50-100% of the route, random start), at a random non-uniform speed (``u -> u^g``,
    ``log g ~ U(-0.7, 0.7)``) and in a random direction: two recordings of one room survey the same space
    along different, unsynchronised paths (*inferred* from the paper's robot setting, see the docs page).
    """
    _check_gen(gen)
    checks.positive_int("frames", frames)
    if len(jitter) != 2:
        raise ValueError(f"jitter must be two numbers (eye, target) in metres; got {jitter!r}")
    for v in jitter:
        checks.nonnegative_number("jitter", v)
    if route is not None:
        if len(route) != 2:
            raise ValueError("route must be the (eye points, target points) pair of room_route")
        checks.tensor("route[0]", route[0], ndim=2, shape=(None, 3), dtype_kind="float")
        checks.tensor("route[1]", route[1], shape=tuple(route[0].shape), dtype_kind="float")
    hx, hy, _ = ROOM
    eye_pts, tgt_pts = route if route is not None else room_route(gen, n_waypoints)
    m = eye_pts.shape[0]
    eye_pts = eye_pts + jitter[0] * (2 * torch.rand(m, 3, generator=gen) - 1) * torch.tensor([1.0, 1.0, 0.3])
    tgt_pts = tgt_pts + jitter[1] * (2 * torch.rand(m, 3, generator=gen) - 1)
    span = float(_u(gen, 0.5, 1.0, 1))
    start = float(_u(gen, 0.0, 1.0 - span, 1))
    u = torch.linspace(0, 1, frames) ** math.exp(float(_u(gen, -0.7, 0.7, 1)))
    s = start + span * u
    if bool(torch.rand(1, generator=gen) < 0.5):
        s = s.flip(0)
    eye, target = catmull_rom(eye_pts, s), catmull_rom(tgt_pts, s)
    eye = torch.stack([eye[:, 0].clamp(-hx + 0.2, hx - 0.2), eye[:, 1].clamp(-hy + 0.2, hy - 0.2),
                       eye[:, 2].clamp(1.2, 1.7)], -1)  # camera height 1.2-1.7 m
    flat = (target - eye)
    flat[:, 2] = flat[:, 2].clamp(max=-0.2)  # always look somewhat down, never straight up/down
    flat_xy = flat[:, :2].norm(dim=-1, keepdim=True).clamp_min(0.8)
    flat[:, :2] = flat[:, :2] / flat[:, :2].norm(dim=-1, keepdim=True).clamp_min(1e-6) * flat_xy
    return eye, eye + flat


def _render_video(scene, K, eye, target, size, exposure, supersample, device):
    R, t = look_at(eye.to(device), target.to(device))
    out = render(scene.to(device), K.to(device), R, t, size, size, exposure=exposure, supersample=supersample)
    return out, R, t


def make_dataset(n_rooms: int, n_states: int, frames: int, size: int, *, n_objects=(10, 16), n_changes=(2, 5),
                 fov_deg: float = 80.0, supersample: int = 2, exposure_jitter: float = 0.15,
                 generator: torch.Generator | None = None, device="cpu", shared_route: bool = True) -> dict:
    """Render ``n_rooms`` rooms x ``n_states`` recordings and build the ``n_rooms * (n_states - 1)`` pairs.

    Returns a dict of tensors (pairs along dim 0): ``ref``/``qry`` ``(P, T, 3, H, W)`` images, ``mask``
    ``(P, T, H, W)`` float GT change masks on the query frames, ``overlap`` ``(P, T, T)`` geometric view overlap
    ``omega(t, s)`` (fraction of query-frame pixels visible in reference frame s, claim C1), ``qry_points``
    ``(P, T, H, W, 3)`` and the reference cameras (for C6), and ``room`` ``(P,)`` (for splitting by room).
    """
    for name, v in (("n_rooms", n_rooms), ("frames", frames), ("size", size), ("supersample", supersample)):
        checks.positive_int(name, v)
    checks.int_at_least("n_states", n_states, 2)
    for name, pair in (("n_objects", n_objects), ("n_changes", n_changes)):
        if len(pair) != 2 or not all(isinstance(v, int) and v >= 1 for v in pair) or pair[0] > pair[1]:
            raise ValueError(f"{name} must be a (low, high) pair of positive ints with low <= high; got {pair!r}")
    checks.in_range("fov_deg", fov_deg, 0.0, 180.0, low_open=True, high_open=True)
    checks.in_range("exposure_jitter", exposure_jitter, 0.0, 1.0, high_open=True)
    device = checks.device("device", device)
    gen = _check_gen(generator, "generator") if generator is not None else torch.Generator().manual_seed(0)
    K = intrinsics(size, size, fov_deg)
    keys = ("ref", "qry", "mask", "overlap", "qry_points", "ref_R", "ref_t", "ref_depth", "room", "n_changed")
    out = {k: [] for k in keys}
    for room in range(n_rooms):
        n_obj = int(torch.randint(n_objects[0], n_objects[1] + 1, (1,), generator=gen))
        states = [make_room(gen, n_obj)]
        changed, next_id = [], N_WALLS + n_obj
        for _ in range(n_states - 1):
            k = int(torch.randint(n_changes[0], n_changes[1] + 1, (1,), generator=gen))
            new, ch, next_id = change_scene(states[-1], gen, k, next_id)
            states.append(new)
            changed.append(ch)
        videos = []
        route = room_route(gen)
        for st in states:  # shared_route=False: each recording on a route of its own (the first testbed's paths)
            eye, target = camera_path(gen, frames, route=route if shared_route else None)
            exposure = 1.0 + exposure_jitter * (2 * torch.rand(1, generator=gen).item() - 1)
            videos.append((eye, target, _render_video(st, K, eye, target, size, exposure, supersample, device)))
        for i in range(n_states - 1):
            (_, _, (ref, rR, rt)), (_, _, (qry, qR, qT)) = videos[i], videos[i + 1]
            # the query poses seen in the reference state: ids for the mask, geometry for the overlap
            q_in_a = render(states[i].to(device), K.to(device), qR, qT, size, size)
            ids = torch.tensor(changed[i], dtype=torch.long, device=device)
            id_a, id_b = q_in_a["object_id"], qry["object_id"]
            mask = (id_a != id_b) & (torch.isin(id_a, ids) | torch.isin(id_b, ids))
            out["overlap"].append(view_overlap(q_in_a["point"], K.to(device), rR, rt, ref["depth"]))
            out["ref"].append(ref["rgb"].permute(0, 3, 1, 2))
            out["qry"].append(qry["rgb"].permute(0, 3, 1, 2))
            out["mask"].append(mask.float())
            out["qry_points"].append(q_in_a["point"])
            out["ref_R"].append(rR)
            out["ref_t"].append(rt)
            out["ref_depth"].append(ref["depth"])
            out["room"].append(torch.tensor(room))
            out["n_changed"].append(torch.tensor(len(changed[i])))
    data = {k: torch.stack(v) for k, v in out.items()}
    data["K"] = K.to(device)
    return data


def visibility(points: torch.Tensor, K: torch.Tensor, ref_R: torch.Tensor, ref_t: torch.Tensor,
               ref_depth: torch.Tensor, rel_tol: float = 0.03) -> torch.Tensor:
    """``vis[t, s, n]``: whether query point ``n`` of frame ``t`` (``points`` ``(T, N, 3)``) is seen by reference
    camera ``s`` (z-buffer test against ``ref_depth`` ``(S, H, W)``, via :func:`icml26.render.visible_in`)."""
    if not isinstance(points, torch.Tensor) or points.dim() != 3 or points.shape[-1] != 3 or points.numel() == 0:
        raise ValueError(f"points must be a non-empty (T, N, 3) tensor; got {getattr(points, 'shape', points)}")
    checks.tensor("K", K, shape=(3, 3))
    checks.tensor("ref_R", ref_R, ndim=3, shape=(None, 3, 3))
    checks.tensor("ref_t", ref_t, shape=(ref_R.shape[0], 3))
    checks.tensor("ref_depth", ref_depth, ndim=3, finite=False)
    if bool(torch.isnan(ref_depth).any()):
        raise ValueError("ref_depth must not hold NaN (inf marks a pixel with no surface)")
    checks.nonnegative_number("rel_tol", rel_tol)
    if ref_R.shape[0] != ref_depth.shape[0]:
        raise ValueError(f"ref_depth must hold one map per reference camera ({ref_R.shape[0]}); got "
                         f"{ref_depth.shape[0]}")
    T, S = points.shape[0], ref_R.shape[0]
    pts = points.reshape(T, 1, -1, 3).expand(T, S, -1, 3).reshape(T * S, -1, 3)
    Rs = ref_R.repeat(T, 1, 1)
    ts = ref_t.repeat(T, 1)
    ds = ref_depth.repeat(T, 1, 1)
    return visible_in(pts, K, Rs, ts, ds, rel_tol=rel_tol).reshape(T, S, -1)


def view_overlap(points: torch.Tensor, K, ref_R, ref_t, ref_depth, rel_tol: float = 0.03) -> torch.Tensor:
    """Geometric view overlap ``omega(t, s)`` ``(T, S)``: the fraction of query pixels of frame ``t`` (world points
    ``(T, H, W, 3)``) that project inside reference frame ``s`` and pass its depth test (claim C1)."""
    if not isinstance(points, torch.Tensor) or points.dim() != 4 or points.shape[-1] != 3:
        raise ValueError(f"points must be (T, H, W, 3), got {getattr(points, 'shape', points)}")
    vis = visibility(points.flatten(1, 2), K, ref_R, ref_t, ref_depth, rel_tol)
    return vis.float().mean(-1)
