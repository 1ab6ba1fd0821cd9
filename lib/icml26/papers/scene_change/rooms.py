"""Procedural rooms, scene changes, unsynchronised camera paths and exact change masks (note §7, "Data").

Everything is rendered by the shared ray caster :func:`icml26.render.render`. A *room* is six inward-facing
textured planes (about 6 x 4 x 2.5 m) plus floor-standing boxes (yaw-rotated) and spheres, each with its own
object id and an object-attached material, so an unchanged object looks the same in every recording.

A room has ``n_states`` recordings. State ``i+1`` is state ``i`` with 2-5 changes (objects removed, added,
or moved by 0.3-1 m); recording ``i`` is a video of state ``i`` along its own Catmull-Rom camera path. Pairs
are consecutive, ``i -> i+1`` (reference = recording ``i``, query = recording ``i+1``), so the masks live on
the query frames as in the benchmark (§3.10). Deviation: the cyclic pair ``last -> 0`` is left out, so that
every pair has 2-5 changes.

Mask convention (§7, inferred): a query pixel is changed when the object id seen from the query pose differs
between the two states and either id belongs to a changed object; this marks new objects, moved objects at
their new place and the footprint where a removed (or moved-away) object would have been seen.
Depth and poses are kept only for the mechanism metrics (C1, C2, C6) and the oracle baseline.
"""

from __future__ import annotations

import math

import torch

from icml26.render import intrinsics, look_at, make_scene, render, visible_in

ROOM = (3.0, 2.0, 2.5)  # half-length in x, half-width in y, height
N_WALLS = 6


def _u(gen, lo, hi, *shape):
    return lo + (hi - lo) * torch.rand(*shape, generator=gen)


def room_shell(gen: torch.Generator):
    """The six planes (floor, ceiling, four walls) with inward normals and random checker/stripe textures."""
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
    if n_objects < 1:
        raise ValueError(f"n_objects must be >= 1, got {n_objects}")
    return room_shell(gen).cat(_objects(gen, n_objects, N_WALLS))


def change_scene(scene, gen: torch.Generator, n_changes: int, next_id: int):
    """Apply ``n_changes`` changes (remove / add / move, each at least once when ``n_changes >= 3``).

    Returns ``(new_scene, changed_ids, next_id)``: ``changed_ids`` is a sorted list of every object id whose
    presence or placement differs between the two states.
    """
    if n_changes < 1:
        raise ValueError(f"n_changes must be >= 1, got {n_changes}")
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
    if points.dim() != 2 or points.shape[0] < 2:
        raise ValueError(f"points must be (M >= 2, 3), got {tuple(points.shape)}")
    p = torch.cat([points[:1], points, points[-1:]])
    m = points.shape[0] - 1
    x = s.clamp(0, 1) * m
    i = x.floor().long().clamp(max=m - 1)
    u = (x - i)[:, None]
    p0, p1, p2, p3 = p[i], p[i + 1], p[i + 2], p[i + 3]
    return 0.5 * (2 * p1 + (-p0 + p2) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u ** 2
                  + (-p0 + 3 * p1 - 3 * p2 + p3) * u ** 3)


def camera_path(gen: torch.Generator, frames: int, n_waypoints: int = 5):
    """Eyes and look-at targets ``(frames, 3)`` along a random spline, random speed, start and direction."""
    hx, hy, _ = ROOM
    eye_pts = torch.stack([_u(gen, -hx + 0.4, hx - 0.4, n_waypoints), _u(gen, -hy + 0.4, hy - 0.4, n_waypoints),
                           _u(gen, 1.2, 1.7, n_waypoints)], -1)
    tgt_pts = torch.stack([_u(gen, -hx, hx, n_waypoints), _u(gen, -hy, hy, n_waypoints),
                           _u(gen, 0.2, 1.0, n_waypoints)], -1)
    span = float(_u(gen, 0.5, 1.0, 1))
    start = float(_u(gen, 0.0, 1.0 - span, 1))
    s = start + span * torch.linspace(0, 1, frames)
    if bool(torch.rand(1, generator=gen) < 0.5):
        s = s.flip(0)
    eye, target = catmull_rom(eye_pts, s), catmull_rom(tgt_pts, s)
    eye = torch.stack([eye[:, 0].clamp(-hx + 0.2, hx - 0.2), eye[:, 1].clamp(-hy + 0.2, hy - 0.2),
                       eye[:, 2].clamp(1.2, 1.7)], -1)  # the note's camera height range (§7)
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
                 generator: torch.Generator | None = None, device="cpu") -> dict:
    """Render ``n_rooms`` rooms x ``n_states`` recordings and build the ``n_rooms * (n_states - 1)`` pairs.

    Returns a dict of tensors (pairs along dim 0): ``ref``/``qry`` ``(P, T, 3, H, W)`` images, ``mask``
    ``(P, T, H, W)`` float GT change masks on the query frames, ``overlap`` ``(P, T, T)`` geometric view overlap
    ``omega(t, s)`` (fraction of query-frame pixels visible in reference frame s, §6 C1), ``qry_points``
    ``(P, T, H, W, 3)`` and the reference cameras (for C6), and ``room`` ``(P,)`` (for splitting by room).
    """
    for name, v in (("n_rooms", n_rooms), ("frames", frames), ("size", size)):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if not isinstance(n_states, int) or n_states < 2:
        raise ValueError(f"n_states must be an int >= 2, got {n_states!r}")
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
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
        for st in states:
            eye, target = camera_path(gen, frames)
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
    T, S = points.shape[0], ref_R.shape[0]
    pts = points.reshape(T, 1, -1, 3).expand(T, S, -1, 3).reshape(T * S, -1, 3)
    Rs = ref_R.repeat(T, 1, 1)
    ts = ref_t.repeat(T, 1)
    ds = ref_depth.repeat(T, 1, 1)
    return visible_in(pts, K, Rs, ts, ds, rel_tol=rel_tol).reshape(T, S, -1)


def view_overlap(points: torch.Tensor, K, ref_R, ref_t, ref_depth, rel_tol: float = 0.03) -> torch.Tensor:
    """Geometric view overlap ``omega(t, s)`` ``(T, S)``: the fraction of query pixels of frame ``t`` (world points
    ``(T, H, W, 3)``) that project inside reference frame ``s`` and pass its depth test (§6 C1)."""
    if points.dim() != 4 or points.shape[-1] != 3:
        raise ValueError(f"points must be (T, H, W, 3), got {tuple(points.shape)}")
    vis = visibility(points.flatten(1, 2), K, ref_R, ref_t, ref_depth, rel_tol)
    return vis.float().mean(-1)
