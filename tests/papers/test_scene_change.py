"""Tests of scene_change (VSCD): rooms on the shared renderer, view overlap, correspondence, losses, metrics."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.scene_change import baselines, experiment, method, rooms
from icml26.render import intrinsics, look_at, make_scene, project, render


def test_a_known_box_in_a_room_projects_where_the_camera_model_says():
    g = torch.Generator().manual_seed(0)
    box = make_scene(["box", "box"], [6, 7], center=[[1.0, 0.5, 0.3], [-1.5, -1.0, 0.2]],
                     size=[[0.3, 0.3, 0.3], [0.2, 0.2, 0.2]], yaw=[0.4, 0.0], generator=g)
    scene = rooms.room_shell(g).cat(box)
    K = intrinsics(48, 48, 80.0)
    R, t = look_at(torch.tensor([-1.0, -1.0, 1.5]), torch.tensor([1.0, 0.5, 0.3]))
    out = render(scene, K, R, t, 48, 48)
    uv, z = project(torch.tensor([[1.0, 0.5, 0.3], [1.0, 0.5, 0.6]]), K, R, t)
    u, v = uv[0, 0].long().tolist()
    assert out["object_id"][0, v, u].item() == 6                 # the box centre is seen where it projects
    assert out["object_id"][0, 0, 0].item() in range(rooms.N_WALLS)  # corners see the room shell
    top_v = int(uv[0, 1, 1].floor())                             # the top face centre, one pixel above: not box
    assert out["object_id"][0, top_v - 2, u].item() != 6
    assert out["depth"][0, v, u].item() < z[0, 0].item()        # the front face is nearer than the centre
    assert bool(torch.isfinite(out["depth"]).all())              # a closed room: every ray hits


def test_change_scene_changes_exactly_the_reported_objects():
    g = torch.Generator().manual_seed(3)
    a = rooms.make_room(g, 8)
    b, changed, _ = rooms.change_scene(a, g, 4, 100)
    ids_a, ids_b = set(a.object_id.tolist()), set(b.object_id.tolist())
    diff = (ids_a ^ ids_b)
    for i in ids_a & ids_b:
        if not torch.equal(a.center[a.object_id == i], b.center[b.object_id == i]):
            diff.add(i)
    assert diff == set(changed) and 2 <= len(changed) <= 4
    # unchanged objects keep their materials (no label leakage through texture seeds)
    same = (ids_a & ids_b) - set(changed)
    for i in same:
        assert torch.equal(a.color_a[a.object_id == i], b.color_a[b.object_id == i])


def test_view_overlap_matches_a_brute_force_oracle():
    g = torch.Generator().manual_seed(1)
    scene = rooms.make_room(g, 5)
    K = intrinsics(8, 8, 80.0)
    eye_q, tgt_q = rooms.camera_path(g, 2)
    eye_r, tgt_r = rooms.camera_path(g, 3)
    Rq, tq = look_at(eye_q, tgt_q)
    Rr, tr = look_at(eye_r, tgt_r)
    q = render(scene, K, Rq, tq, 8, 8)
    r = render(scene, K, Rr, tr, 8, 8)
    omega = rooms.view_overlap(q["point"], K, Rr, tr, r["depth"])
    brute = torch.zeros(2, 3)
    for ti in range(2):
        for s in range(3):
            hits = 0
            for y in range(8):
                for x in range(8):
                    X = q["point"][ti, y, x]
                    c = Rr[s] @ X + tr[s]
                    if c[2] <= 1e-6:
                        continue
                    u, v = K[0, 0] * c[0] / c[2] + K[0, 2], K[1, 1] * c[1] / c[2] + K[1, 2]
                    if 0 <= u < 8 and 0 <= v < 8 and c[2] <= r["depth"][s, int(v), int(u)] * 1.03:
                        hits += 1
            brute[ti, s] = hits / 64
    assert torch.allclose(omega, brute)
    assert torch.allclose(rooms.view_overlap(q["point"][:1], K, Rq[:1], tq[:1], q["depth"][:1]), torch.ones(1, 1))


@settings(max_examples=15, deadline=None)
@given(dx=st.integers(-2, 2), dy=st.integers(-2, 2), seed=st.integers(0, 1000))
def test_soft_correspondence_recovers_a_known_shift(dx, dy, seed):
    g = torch.Generator().manual_seed(seed)
    r = torch.nn.functional.normalize(torch.randn(1, 16, 12, 12, generator=g), dim=1)
    q = torch.roll(r, shifts=(-dy, -dx), dims=(2, 3))            # q(p) = r(p + (dx, dy))
    warped, P, flow = method.soft_correspondence(q, r, k=5, temperature=0.02)
    inner = (slice(2, 10), slice(2, 10))
    assert torch.allclose(flow[0, 0][inner], torch.full((8, 8), float(dx)), atol=1e-3)
    assert torch.allclose(flow[0, 1][inner], torch.full((8, 8), float(dy)), atol=1e-3)
    assert torch.allclose(warped[..., 2:10, 2:10], q[..., 2:10, 2:10], atol=1e-3)
    assert torch.allclose(P.sum(1), torch.ones(1, 12, 12))


def test_local_correlation_matches_a_loop():
    g = torch.Generator().manual_seed(0)
    q, r = torch.randn(2, 4, 5, 6, generator=g), torch.randn(2, 4, 5, 6, generator=g)
    c = method.local_correlation(q, r, 3)
    y, x, dy, dx = 1, 4, -1, 1                                    # offset index (dy + 1) * 3 + (dx + 1)
    assert torch.allclose(c[:, (dy + 1) * 3 + (dx + 1), y, x], (q[:, :, y, x] * r[:, :, y + dy, x + dx]).sum(1))
    assert torch.allclose(c[:, (1 + 1) * 3 + 1, 4, 3], torch.zeros(2))   # below the grid: zero padding


def test_patch_confidence_extremes():
    one_hot = torch.zeros(1, 25, 2, 2)
    one_hot[:, 3] = 1
    assert torch.allclose(method.patch_confidence(one_hot), torch.full((1, 2, 2), 2.0))
    uniform = torch.full((1, 25, 2, 2), 1 / 25)
    assert torch.allclose(method.patch_confidence(uniform), torch.full((1, 2, 2), 1 / 25), atol=1e-6)


def test_matched_segments_and_candidates():
    segs = method.matched_segments(torch.tensor([0, 1, 2, 7, 3, 4]), delta=1, l_max=5)
    assert segs == [(0, 2, 0, 2), (3, 3, 7, 7), (4, 5, 3, 4)]
    P = torch.softmax(torch.randn(1, 6, 8, generator=torch.Generator().manual_seed(0)), -1)
    cand = method.candidate_sets(P, 3)
    assert cand.shape == (1, 6, 3)
    assert all(len(set(row.tolist())) == 3 for row in cand[0])
    assert torch.equal(method.candidate_sets(P, 1, use_msp=False)[..., 0], P.argmax(-1))


def test_refiner_is_the_identity_at_init():
    S = torch.randn(2, 5, 7)
    assert torch.equal(method.AlignmentRefiner()(S), S)


def test_bce_dice_and_score_eps_conventions():
    empty = torch.zeros(1, 4, 4)
    assert method.frame_scores(empty, empty)["f1"].item() == 1.0            # empty GT, empty prediction
    one_fp = empty.clone()
    one_fp[0, 0, 0] = 1
    s = method.frame_scores(one_fp, empty)
    assert s["f1"].item() == pytest.approx(1e-6 / (1 + 1e-6)) and s["iou"].item() == pytest.approx(1e-6 / (1 + 1e-6))
    pred = torch.tensor([[[1, 1, 0, 0]]]).float()
    gt = torch.tensor([[[1, 0, 1, 0]]]).float()
    s = method.frame_scores(pred, gt)
    assert s["f1"].item() == pytest.approx(0.5, abs=1e-6) and s["iou"].item() == pytest.approx(1 / 3, abs=1e-6)
    logits = torch.full((1, 4, 4), -30.0)
    bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, empty)
    assert method.bce_dice_loss(logits, empty).item() == pytest.approx(bce.item() + 0.0, abs=1e-5)
    big = torch.full((1, 4, 4), 30.0)
    full = torch.ones(1, 4, 4)
    assert method.bce_dice_loss(big, full).item() == pytest.approx(0.0, abs=1e-6)
    assert method.bce_dice_loss(logits, full).item() == pytest.approx(30.0 + 1.0, abs=1e-3)


def test_auroc_against_pairs():
    score = torch.tensor([0.1, 0.4, 0.35, 0.8])
    label = torch.tensor([0, 0, 1, 1])
    assert experiment.auroc(score, label) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="both classes"):
        experiment.auroc(score, torch.zeros(4))


def test_model_forward_backward_and_modes():
    torch.manual_seed(0)
    q, r = torch.rand(1, 4, 3, 32, 32), torch.rand(1, 5, 3, 32, 32)
    model = method.VSCDNet(dim=16, width=8, s_max=3, reduce=8, fuse=8, head_layers=2, dec_width=4)
    out = model(q, r)
    assert out["logits"].shape == (1, 4, 32, 32) and out["candidates"].shape == (1, 4, 3)
    assert torch.allclose(out["P_frame"].sum(-1), torch.ones(1, 4))
    method.bce_dice_loss(out["logits"], torch.zeros(1, 4, 32, 32)).backward()
    assert model.at.token.grad is not None and torch.isfinite(model.at.token.grad).all()
    sia = baselines.siamese_cd(dim=16, width=8, reduce=8, fuse=8, head_layers=2, dec_width=4)
    out = sia(q, r[:, :4])
    assert torch.equal(out["candidates"][0, :, 0], torch.arange(4))


def test_bad_input_raises_value_errors():
    model = method.VSCDNet(dim=16, width=8, s_max=3, reduce=8, fuse=8, head_layers=2, dec_width=4)
    q = torch.rand(1, 4, 3, 32, 32)
    with pytest.raises(ValueError, match="reference resolution"):
        model(q, torch.rand(1, 4, 3, 16, 16))
    with pytest.raises(ValueError, match="query must hold at least one frame"):
        model(torch.rand(1, 0, 3, 32, 32), q)
    with pytest.raises(ValueError, match="reference must hold at least one frame"):
        model(q, torch.rand(1, 0, 3, 32, 32))
    with pytest.raises(ValueError, match="s_max"):
        model(q, torch.rand(1, 2, 3, 32, 32))
    with pytest.raises(ValueError, match="s_max"):
        method.candidate_sets(torch.rand(1, 4, 2), 3)
    with pytest.raises(ValueError, match="k \\(top-K\\)"):
        baselines.raw_topk(q, q[:, :2], 3)
    with pytest.raises(ValueError, match="length"):
        method.keyframe_indices(0, 8)
    with pytest.raises(ValueError, match="k must be"):
        method.local_correlation(torch.rand(1, 2, 4, 4), torch.rand(1, 2, 4, 4), 4)
    with pytest.raises(ValueError, match="n_states"):
        rooms.make_dataset(1, 1, 4, 16)


def test_keyframe_indices_repeat_for_short_videos():
    assert method.keyframe_indices(3, 5).tolist() == [0, 0, 1, 2, 2]
    assert method.keyframe_indices(100, 2).tolist() == [0, 99]


def test_catmull_rom_interpolates_its_control_points():
    pts = torch.tensor([[0.0, 0, 0], [1, 2, 0], [3, 1, 1], [4, 4, 2]])
    s = torch.tensor([0.0, 1 / 3, 2 / 3, 1.0])
    assert torch.allclose(rooms.catmull_rom(pts, s), pts, atol=1e-5)


def test_small_dataset_masks_are_consistent():
    d = rooms.make_dataset(1, 2, 3, 24, supersample=1, n_objects=(6, 6), generator=torch.Generator().manual_seed(2))
    assert d["mask"].shape == (1, 3, 24, 24) and d["overlap"].shape == (1, 3, 3)
    assert float(d["overlap"].min()) >= 0 and float(d["overlap"].max()) <= 1
    assert not math.isnan(float(d["ref"].sum()))


def test_soft_correspondence_warps_the_given_values_with_the_flow_of_the_keys():
    g = torch.Generator().manual_seed(5)
    keys = torch.nn.functional.normalize(torch.randn(1, 8, 10, 10, generator=g), dim=1)
    vals = torch.randn(1, 3, 10, 10, generator=g)
    shifted = torch.roll(keys, shifts=(1, -1), dims=(2, 3))      # shifted(p) = keys(p + (dx=1, dy=-1))
    warped, _, flow = method.soft_correspondence(shifted, keys, k=3, temperature=0.005, values=vals)
    assert warped.shape == vals.shape
    want = torch.roll(vals, shifts=(1, -1), dims=(2, 3))
    assert torch.allclose(warped[..., 2:8, 2:8], want[..., 2:8, 2:8], atol=1e-3)
    assert torch.allclose(flow[0, :, 2:8, 2:8].mean((1, 2)), torch.tensor([1.0, -1.0]), atol=1e-3)


def test_raw_patch_tokens_are_unit_and_exposure_invariant():
    g = torch.Generator().manual_seed(6)
    frames = torch.rand(1, 2, 3, 8, 12, generator=g)
    tok = experiment.raw_patch_tokens(frames, 4)
    assert tok.shape == (1, 2, 48, 2, 3)
    assert torch.allclose(tok.norm(dim=2), torch.ones(1, 2, 2, 3), atol=1e-5)
    assert torch.allclose(experiment.raw_patch_tokens(1.3 * frames, 4), tok, atol=1e-4)   # exposure-invariant
    with pytest.raises(ValueError, match="patch"):
        experiment.raw_patch_tokens(frames, 5)
    with pytest.raises(ValueError, match="frames"):
        experiment.raw_patch_tokens(frames[0], 4)


def test_window_visibility_is_a_subset_and_the_c6_raw_measure_runs():
    data = rooms.make_dataset(1, 2, 4, 16, supersample=1, n_objects=(3, 4), generator=torch.Generator().manual_seed(2))
    cand = baselines.raw_topk(data["qry"], data["ref"], 2)
    vis = experiment.token_visibility(data, (4, 4), cand)
    reach = experiment.token_visibility(data, (4, 4), cand, window=3)
    assert bool((reach <= vis).all()) and reach.shape == vis.shape == (1, 4, 2, 4, 4)
    wide = experiment.token_visibility(data, (4, 4), cand, window=9)   # a window spanning the frame: all visible
    assert torch.equal(wide, vis)
