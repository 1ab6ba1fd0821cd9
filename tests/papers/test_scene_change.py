"""Tests of scene_change (VSCD): rooms on the shared renderer, view overlap, correspondence, candidate sets, the
frozen encoder's checkpoint and its pretraining, losses, metrics."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.scene_change import baselines, encoder, experiment, method, pretrain, rooms
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
    # 64 channels as the encoder's tokens: with 16, a random neighbour within the 5x5 window can come close enough
    # to the true token (cosine > ~0.86, e.g. seed 168) that T = 0.02 no longer gives a one-hot softmax
    r = torch.nn.functional.normalize(torch.randn(1, 64, 12, 12, generator=g), dim=1)
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


def _segments_loop(path, delta, l_max):
    """The released code's matched-segment proposal, written as the loop it is (the reference for the op)."""
    segs, start = [], 0
    for t in range(1, len(path) + 1):
        extend = t < len(path) and abs((path[t] - path[t - 1]) - 1) <= delta and (t - start) < l_max
        if not extend:
            if t - start >= 2:
                segs.append((start, t - 1, min(path[start:t]), max(path[start:t])))
            start = t
    covered = {t for (t0, t1, _, _) in segs for t in range(t0, t1 + 1)}
    return sorted(segs + [(t, t, path[t], path[t]) for t in range(len(path)) if t not in covered])


def _candidates_loop(P, s_max, top_k, delta, l_max, use_msp):
    """The released code's candidate set per (pair, query frame), as a Python loop."""
    order = P.topk(min(max(top_k, s_max), P.shape[-1]), dim=-1).indices
    out = torch.empty(*P.shape[:2], s_max, dtype=torch.long)
    for b in range(P.shape[0]):
        segs = _segments_loop(P[b].argmax(-1).tolist(), delta, l_max) if use_msp else []
        for t in range(P.shape[1]):
            pool = {s for (t0, t1, s0, s1) in segs if t0 <= t <= t1 for s in range(s0, s1 + 1)}
            chosen = [max(pool, key=lambda s: float(P[b, t, s]))] if pool else []
            chosen += [s for s in order[b, t].tolist() if s not in chosen]
            out[b, t] = torch.tensor(chosen[:s_max])
    return out


def test_matched_segments_example():
    segs = method.matched_segments(torch.tensor([0, 1, 2, 7, 3, 4]), delta=1, l_max=5)
    assert segs == [(0, 2, 0, 2), (3, 3, 7, 7), (4, 5, 3, 4)]
    assert method.matched_segments(torch.arange(7), delta=0, l_max=3) == [(0, 2, 0, 2), (3, 5, 3, 5), (6, 6, 6, 6)]


@settings(max_examples=60, deadline=None)
@given(b=st.integers(1, 3), tq=st.integers(1, 10), tr=st.integers(1, 10), seed=st.integers(0, 10_000),
       delta=st.integers(0, 3), l_max=st.integers(1, 6), top_k=st.integers(1, 7), diagonal=st.booleans(),
       data=st.data())
def test_vectorised_candidate_sets_equal_the_reference_loop(b, tq, tr, seed, delta, l_max, top_k, diagonal, data):
    s_max = data.draw(st.integers(1, tr))
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(b, tq, tr, generator=g)
    if diagonal:  # paths that follow the diagonal, so that segments longer than one frame occur
        logits = logits - 0.7 * (torch.arange(tq)[:, None] * tr // tq - torch.arange(tr)[None]).abs()
    P = torch.softmax(2 * logits, -1)
    for use_msp in (True, False):
        got = method.candidate_sets(P, s_max, top_k, delta, l_max, use_msp)
        assert torch.equal(got, _candidates_loop(P, s_max, top_k, delta, l_max, use_msp))
    for row in P.argmax(-1):
        assert method.matched_segments(row, delta, l_max) == _segments_loop(row.tolist(), delta, l_max)


def test_candidate_sets_are_distinct_and_top1_without_msp():
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
    rev = baselines.reversed_cd(dim=16, width=8, reduce=8, fuse=8, head_layers=2, dec_width=4)
    assert torch.equal(rev(q, r[:, :4])["candidates"][0, :, 0], torch.tensor([3, 2, 1, 0]))


def test_precomputed_tokens_give_the_same_outputs():
    torch.manual_seed(1)
    frozen = encoder.FrameEncoder(16, 8).eval().requires_grad_(False)
    model = method.VSCDNet(encoder=frozen, s_max=2, reduce=8, fuse=8, head_layers=2, dec_width=4).eval()
    q, r = torch.rand(2, 3, 3, 32, 32), torch.rand(2, 4, 3, 32, 32)
    with torch.no_grad():
        a = model(q, r)
        b = model(q, r, tokens=(frozen(q)[0], frozen(r)[0]), validate=False)
    assert torch.allclose(a["logits"], b["logits"]) and torch.equal(a["candidates"], b["candidates"])
    assert not any(p.requires_grad for p in model.encoder.parameters())
    assert all(p.requires_grad for p in model.trainable_parameters())


def test_scores_an_always_empty_predictor_cannot_win():
    mask = torch.zeros(4, 8, 8)
    mask[:2, 2:5, 2:5] = 1                                       # two frames with change, two without
    empty = experiment.scores(torch.zeros_like(mask), mask)
    assert empty["f1"] == pytest.approx(0.5, abs=1e-6)           # the per-frame mean rewards the empty frames
    assert empty["f1_nonempty"] == pytest.approx(0.0, abs=1e-6) and empty["f1_pooled"] == 0.0
    perfect = experiment.scores(mask.clone(), mask)
    assert perfect["f1"] == pytest.approx(1.0) and perfect["f1_nonempty"] == pytest.approx(1.0)
    assert perfect["f1_pooled"] == 1.0


def test_bad_input_raises_value_errors():
    model = method.VSCDNet(dim=16, width=8, s_max=3, reduce=8, fuse=8, head_layers=2, dec_width=4)
    q = torch.rand(1, 4, 3, 32, 32)
    with pytest.raises(ValueError, match="reference resolution"):
        model(q, torch.rand(1, 4, 3, 16, 16))
    with pytest.raises(ValueError, match="query must not be empty"):
        model(torch.rand(1, 0, 3, 32, 32), q)
    with pytest.raises(ValueError, match="reference must not be empty"):
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


def test_the_shipped_encoder_matches_its_checksum_and_loads_frozen(tmp_path):
    assert encoder.sha256_of(encoder.ENCODER_FILE) == encoder.ENCODER_SHA256
    enc = encoder.load_encoder()
    assert not enc.training and not any(p.requires_grad for p in enc.parameters())
    log = encoder.checkpoint_log()
    assert log["config"] == pretrain.PRETRAIN                     # made by the script's own configuration
    bad = tmp_path / "tampered.safetensors"
    raw = bytearray(encoder.ENCODER_FILE.read_bytes())
    raw[-1] ^= 1
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="sha256"):
        encoder.load_encoder(bad)


def test_the_pretraining_script_reproduces_a_smaller_encoder(tmp_path):
    out = tmp_path / "small.safetensors"
    pretrain.main(["--small", "--out", str(out)])
    small = encoder.load_encoder(out, sha256=None)
    log = encoder.checkpoint_log(out)
    assert log["accuracy"] > log["accuracy_init"] + 0.08          # the proxy task is learned
    again, _ = pretrain.pretrain(pretrain.PRETRAIN_SMALL)          # deterministic: the same weights again
    assert all(torch.equal(a, b) for a, b in zip(small.state_dict().values(), again.state_dict().values()))
    # the shipped encoder (the same script at full size) matches tokens better on the small run's held-out rooms
    cfg = pretrain.PRETRAIN_SMALL
    held = pretrain.render_views(cfg["eval_rooms"], cfg["views"], cfg["size"],
                                 pretrain.GENERATOR_BASE + 10_000 * cfg["seed"] + 5_000)
    match = pretrain.token_matches(held)
    assert pretrain.correspondence_accuracy(small, held, match) == pytest.approx(log["accuracy"], abs=1e-6)
    assert pretrain.correspondence_accuracy(encoder.load_encoder(), held, match) > log["accuracy"] + 0.2


def test_average_precision_is_threshold_free_and_a_constant_score_gets_the_prevalence():
    from sklearn.metrics import average_precision_score
    g = torch.Generator().manual_seed(0)
    for _ in range(4):
        s = torch.randn(300, generator=g).round(decimals=1)      # ties
        y = torch.rand(300, generator=g) < 0.2
        assert experiment.average_precision(s, y) == pytest.approx(average_precision_score(y.numpy(), s.numpy()))
    mask = torch.zeros(3, 8, 8)
    mask[0, :2] = 1                                              # 16 of 64 pixels changed; frame 1 and 2: none
    mask[1, :4] = 1                                              # 32 of 64
    assert experiment.ap_changed(torch.zeros_like(mask), mask) == pytest.approx((0.25 + 0.5) / 2)
    assert experiment.ap_changed(mask * 5 - 2, mask) == pytest.approx(1.0)
    assert experiment.ap_changed(mask * 5 - 2 + 100, mask) == pytest.approx(1.0)   # any threshold: a shift is free
    with pytest.raises(ValueError, match="change"):
        experiment.ap_changed(torch.zeros(2, 4, 4), torch.zeros(2, 4, 4))


def test_the_control_is_the_siamese_network_trained_from_its_own_seed():
    from icml26.papers.scene_change import claims
    assert experiment.VARIANTS[experiment.CONTROL][0] is experiment.VARIANTS["siamese"][0]
    assert experiment.CONTROL in experiment.CONFIGS["quick"]["methods"]
    r = {"methods": {n: {"ap_changed": v, "f1_nonempty": 0.0} for n, v in
                     (("vscd", 0.5), ("siamese", 0.3), ("reversed", 0.4), ("no_align", 0.35))}}
    head = next(c for c in claims.CLAIMS if c.headline)
    assert head.metric(r) == pytest.approx(0.1) and head.control.metric(r) == pytest.approx(-0.05)
