"""Tests of the shared torch renderer (icml26.render): camera model, ray-primitive geometry, shading, visibility."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.render import (
    backproject,
    camera_centers,
    cast,
    intrinsics,
    look_at,
    make_scene,
    project,
    render,
    visible_in,
)


def single(kind, center, size, yaw=0.0, **kw):
    return make_scene([kind], [7], center=[center], size=[size], yaw=[yaw], **kw)


def camera(eye, target=(0.0, 0.0, 0.0)):
    return look_at(torch.tensor(eye), torch.tensor(target))


def test_intrinsics_put_the_optical_axis_at_the_image_centre():
    K = intrinsics(64, 48, 90.0)
    assert K[0, 0] == pytest.approx(32.0) and K[1, 1] == pytest.approx(32.0)
    assert (K[0, 2], K[1, 2]) == (32.0, 24.0)


def test_look_at_is_a_rotation_and_the_target_projects_to_the_centre():
    eye = torch.tensor([[2.0, -1.0, 1.5], [-3.0, 0.5, 0.2]])
    R, t = look_at(eye, torch.tensor([0.1, 0.2, 0.3]))
    assert torch.allclose(R @ R.transpose(1, 2), torch.eye(3).expand(2, 3, 3), atol=1e-6)
    assert torch.allclose(torch.linalg.det(R), torch.ones(2), atol=1e-6)
    assert torch.allclose(camera_centers(R, t), eye, atol=1e-6)
    uv, z = project(torch.tensor([[0.1, 0.2, 0.3]]), intrinsics(40, 30, 70.0), R, t)
    assert torch.allclose(uv[:, 0], torch.tensor([[20.0, 15.0]]).expand(2, 2), atol=1e-4)
    assert bool((z > 0).all())
    # the world's up direction points up in the image (smaller v)
    uv_up, _ = project(torch.tensor([[0.1, 0.2, 0.8]]), intrinsics(40, 30, 70.0), R, t)
    assert bool((uv_up[:, 0, 1] < 15.0).all())


def test_projection_follows_the_pinhole_formula():
    K = intrinsics(64, 64, 60.0)
    R, t = torch.eye(3), torch.zeros(3)
    uv, z = project(torch.tensor([[0.5, -0.25, 2.0]]), K, R, t)
    f = 32.0 / math.tan(math.radians(30.0))
    assert torch.allclose(uv[0, 0], torch.tensor([f * 0.25 + 32.0, -f * 0.125 + 32.0]), atol=1e-4)
    assert z.item() == pytest.approx(2.0)


def test_backproject_inverts_project():
    g = torch.Generator().manual_seed(0)
    K = intrinsics(16, 12, 75.0)
    R, t = camera((1.0, 2.0, 1.0))
    depth = 1.0 + 3.0 * torch.rand(1, 12, 16, generator=g)
    pts = backproject(depth, K, R, t)
    uv, z = project(pts.reshape(-1, 3), K, R, t)
    v, u = torch.meshgrid(torch.arange(12) + 0.5, torch.arange(16) + 0.5, indexing="ij")
    assert torch.allclose(uv[0], torch.stack([u, v], -1).reshape(-1, 2), atol=1e-4)
    assert torch.allclose(z[0], depth.reshape(-1), atol=1e-5)


@pytest.mark.parametrize("yaw", [0.0, 0.6])
def test_a_known_box_covers_exactly_the_pixels_inside_its_projected_silhouette(yaw):
    """A box renders where the camera model says: every pixel centre inside the convex hull of its projected
    corners is the box, every pixel centre clearly outside is not."""
    half = torch.tensor([0.4, 0.25, 0.3])
    scene = single("box", [0.2, -0.1, 0.3], half.tolist(), yaw=yaw)
    K = intrinsics(48, 40, 70.0)
    R, t = camera((2.5, -1.8, 1.6), (0.2, -0.1, 0.3))
    out = render(scene, K, R, t, 48, 40)
    signs = torch.tensor([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=torch.float32)
    local = signs * half
    c, s = math.cos(yaw), math.sin(yaw)
    rot = torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    corners = local @ rot.T + torch.tensor([0.2, -0.1, 0.3])
    uv, _ = project(corners, K, R, t)
    hull = _convex_hull(uv[0])
    v, u = torch.meshgrid(torch.arange(40) + 0.5, torch.arange(48) + 0.5, indexing="ij")
    dist = _signed_distance_to_hull(torch.stack([u, v], -1).reshape(-1, 2), hull).reshape(40, 48)
    mask = out["object_id"][0] == 7
    assert bool(mask[dist < -0.5].all()), "pixels well inside the silhouette must show the box"
    assert not bool(mask[dist > 0.5].any()), "pixels well outside the silhouette must not show the box"
    assert mask.sum() > 50


def _convex_hull(points):
    pts = sorted(map(tuple, points.tolist()))

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return torch.tensor(lower[:-1] + upper[:-1])


def _signed_distance_to_hull(q, hull):
    """Max over the counter-clockwise hull's edges of the signed distance to each edge's line (< 0 inside)."""
    a, b = hull, hull.roll(-1, 0)
    edge = b - a
    normal = torch.stack([edge[:, 1], -edge[:, 0]], -1) / edge.norm(dim=-1, keepdim=True)
    return ((q[:, None, :] - a[None]) * normal[None]).sum(-1).amax(-1)


def test_sphere_depth_and_normals_match_the_analytic_values():
    scene = single("sphere", [0.0, 0.0, 0.0], [0.5, 0.0, 0.0])
    K = intrinsics(33, 33, 40.0)
    R, t = camera((3.0, 0.0, 0.0))
    out = render(scene, K, R, t, 33, 33)
    assert out["depth"][0, 16, 16].item() == pytest.approx(2.5, abs=1e-4)
    hit = out["object_id"][0] == 7
    pts, normals = out["point"][0][hit], out["normal"][0][hit]
    assert torch.allclose(pts.norm(dim=-1), torch.full((int(hit.sum()),), 0.5), atol=1e-4)
    assert torch.allclose(normals, pts / 0.5, atol=1e-3)
    # the silhouette's area is the projected disc's
    f = K[0, 0].item()
    radius_px = f * 0.5 / math.sqrt(3.0 ** 2 - 0.5 ** 2)
    assert int(hit.sum()) == pytest.approx(math.pi * radius_px ** 2, rel=0.08)


def test_cylinder_seen_from_above_is_a_disc_and_from_the_side_a_rectangle():
    scene = single("cylinder", [0.0, 0.0, 0.0], [0.4, 0.0, 0.6])
    K = intrinsics(41, 41, 50.0)
    R, t = look_at(torch.tensor([0.0, 0.0, 3.0]), torch.tensor([0.0, 0.0, 0.0]), up=(0.0, 1.0, 0.0))
    top = render(scene, K, R, t, 41, 41)
    assert top["depth"][0, 20, 20].item() == pytest.approx(2.4, abs=1e-4)
    f = K[0, 0].item()
    assert int((top["object_id"] == 7).sum()) == pytest.approx(math.pi * (f * 0.4 / 2.4) ** 2, rel=0.1)
    assert torch.allclose(top["normal"][0, 20, 20], torch.tensor([0.0, 0.0, 1.0]), atol=1e-4)
    R, t = camera((3.0, 0.0, 0.0))
    side = render(scene, K, R, t, 41, 41)
    assert side["depth"][0, 20, 20].item() == pytest.approx(2.6, abs=1e-4)
    rows = (side["object_id"][0] == 7).any(1).sum().item()
    assert rows == pytest.approx(2 * f * 0.6 / 2.6, abs=2.5)


def test_a_quarter_turn_box_equals_the_box_with_swapped_extents():
    a = single("box", [0.0, 0.0, 0.2], [0.5, 0.2, 0.2], yaw=math.pi / 2)
    b = single("box", [0.0, 0.0, 0.2], [0.2, 0.5, 0.2], yaw=0.0)
    K = intrinsics(32, 32, 60.0)
    R, t = camera((2.0, 1.0, 1.5))
    da, db = render(a, K, R, t, 32, 32)["depth"], render(b, K, R, t, 32, 32)["depth"]
    finite = torch.isfinite(da) & torch.isfinite(db)
    assert torch.equal(torch.isfinite(da), torch.isfinite(db))
    assert torch.allclose(da[finite], db[finite], atol=1e-4)


def test_nearest_surface_wins_and_visibility_respects_occlusion():
    scene = make_scene(["box", "sphere"], [1, 2], center=[[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]],
                       size=[[0.3, 0.6, 0.6], [0.3, 0.0, 0.0]])
    K = intrinsics(31, 31, 60.0)
    R, t = camera((3.0, 0.0, 0.0))
    out = render(scene, K, R, t, 31, 31)
    assert out["object_id"][0, 15, 15].item() == 1  # the box in front hides the sphere
    assert out["depth"][0, 15, 15].item() == pytest.approx(1.7, abs=1e-4)
    points = torch.tensor([[-1.3, 0.0, 0.0], [1.3, 0.0, 0.0], [0.0, 0.0, 5.0]])
    assert visible_in(points, K, R, t, out["depth"]).tolist() == [[False, True, False]]


def test_several_boxes_of_each_kind_render_together():
    scene = make_scene(["box", "box", "sphere", "sphere", "cylinder", "cylinder"], [1, 2, 3, 4, 5, 6],
                       center=[[0.8, 0.8, 0.2], [-0.8, 0.8, 0.2], [0.8, -0.8, 0.2], [-0.8, -0.8, 0.2], [0, 0, 0.3],
                               [0, 1.5, 0.3]],
                       size=[[0.2, 0.2, 0.2], [0.3, 0.1, 0.2], [0.2, 0, 0], [0.25, 0, 0], [0.2, 0, 0.3], [0.1, 0, 0.3]],
                       yaw=[0.3, -0.4, 0, 0, 0, 0])
    R, t = camera((3.0, 2.5, 2.5), (0.0, 0.0, 0.2))
    ids = render(scene, intrinsics(64, 64, 70.0), R, t, 64, 64)["object_id"]
    assert set(ids.unique().tolist()) == {-1, 1, 2, 3, 4, 5, 6}


def test_materials_are_attached_to_objects():
    """Moving an object and the camera by the same offset leaves its image unchanged (texture in local frame)."""
    obj = single("box", [0.0, 0.0, 0.3], [0.3, 0.3, 0.3], yaw=0.3)
    moved = obj.replace(torch.tensor([0]), center=torch.tensor([[0.7, -0.4, 0.3]]))
    K = intrinsics(24, 24, 60.0)
    R, t = camera((2.0, 1.0, 1.2), (0.0, 0.0, 0.3))
    R2, t2 = camera((2.7, 0.6, 1.2), (0.7, -0.4, 0.3))
    a, b = render(obj, K, R, t, 24, 24)["rgb"], render(moved, K, R2, t2, 24, 24)["rgb"]
    assert torch.allclose(a, b, atol=1e-4)
    assert a.std() > 0.05  # not a trivially flat image


def test_chunking_and_supersampling():
    scene = make_scene(["plane", "sphere", "box"], [0, 1, 2], center=[[0, 0, 0], [0.5, 0, 0.4], [-0.5, 0.3, 0.3]],
                       size=[[1, 1, 1], [0.4, 0, 0], [0.3, 0.3, 0.3]], generator=torch.Generator().manual_seed(3))
    R, t = camera((2.0, -2.0, 1.5), (0.0, 0.0, 0.3))
    K = intrinsics(20, 16, 70.0)
    from icml26.render.cameras import pixel_rays
    o, d, _ = pixel_rays(K, R, t, 20, 16)
    full = cast(scene, o.reshape(-1, 3), d.reshape(-1, 3))
    small = cast(scene, o.reshape(-1, 3), d.reshape(-1, 3), chunk=7)
    assert torch.equal(full[1], small[1]) and torch.allclose(full[0], small[0])
    one = render(scene, K, R, t, 20, 16)
    four = render(scene, K, R, t, 20, 16, supersample=2)
    assert torch.equal(one["object_id"], four["object_id"])
    # 2x2 supersampling is the box-filtered image of the same camera at twice the resolution
    K2 = K.clone()
    K2[:2] *= 2.0
    double = render(scene, K2, R, t, 40, 32)["rgb"][0].permute(2, 0, 1)
    assert torch.allclose(four["rgb"][0], torch.nn.functional.avg_pool2d(double, 2).permute(1, 2, 0), atol=1e-5)
    assert (one["rgb"] - four["rgb"]).abs().max() > 0.01


@settings(max_examples=25, deadline=None)
@given(st.floats(-1, 1), st.floats(-1, 1), st.floats(0.2, 0.9), st.floats(-0.3, 0.3), st.floats(-0.3, 0.3))
def test_sphere_hits_lie_on_the_sphere(cx, cy, r, ax, ay):
    scene = single("sphere", [cx, cy, 0.0], [r, 0.0, 0.0])
    origin = torch.tensor([[4.0, 0.0, 0.0]])
    direction = torch.tensor([[cx + ax - 4.0, cy + ay, 0.0]])
    direction = direction / direction.norm()
    dist, prim = cast(scene, origin, direction)
    offset = torch.tensor([ax, ay]).norm().item()
    if offset < r * 0.95:  # the ray aims inside the sphere's silhouette: it must hit
        assert prim.item() == 0
    if prim.item() == 0:
        p = origin + dist[:, None] * direction
        assert (p - torch.tensor([cx, cy, 0.0])).norm().item() == pytest.approx(r, abs=1e-4)


def test_bad_input_is_refused_with_the_argument_named():
    with pytest.raises(ValueError, match="fov_deg"):
        intrinsics(10, 10, 190.0)
    with pytest.raises(ValueError, match="width"):
        intrinsics(0, 10, 60.0)
    with pytest.raises(ValueError, match="target"):
        look_at(torch.zeros(3), torch.zeros(3))
    with pytest.raises(ValueError, match="kind"):
        make_scene(["cone"], [0], center=[[0, 0, 0]], size=[[1, 1, 1]])
    with pytest.raises(ValueError, match="size"):
        make_scene(["sphere"], [0], center=[[0, 0, 0]], size=[[-1, 0, 0]])
    with pytest.raises(ValueError, match="center"):
        make_scene(["sphere"], [0], center=[[0, 0]], size=[[1, 0, 0]])
    scene = single("sphere", [0, 0, 0], [1, 0, 0])
    R, t = camera((3.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="ambient"):
        render(scene, intrinsics(8, 8, 60.0), R, t, 8, 8, ambient=2.0)
    with pytest.raises(ValueError, match="exposure"):
        render(scene, intrinsics(8, 8, 60.0), R, t, 8, 8, exposure=0.0)
    with pytest.raises(ValueError, match="depth"):
        visible_in(torch.zeros(1, 3), intrinsics(8, 8, 60.0), R, t, torch.zeros(8, 8))
