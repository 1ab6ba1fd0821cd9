"""Unit tests of FloWM (flow_equivariant): toroidal shifts, exact equivariance (window = world and window < world),
data conventions, models, diagnostics and the claims' metrics."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.flow_equivariant import baselines, claims, data, diagnostics, experiment, method, recurrent
from icml26.papers.flow_equivariant.shifts import torus_shift, velocity_grid, window_crop


@settings(max_examples=25, deadline=None)
@given(st.integers(-30, 30), st.integers(-30, 30), st.integers(2, 9), st.integers(2, 9), st.integers(0, 2))
def test_torus_shift_matches_roll_and_circular_pad(dy, dx, h, w, pad):
    x = torch.arange(3 * h * w, dtype=torch.float32).reshape(3, h, w)
    expected = torch.roll(x, (dy, dx), (-2, -1))
    if pad:
        expected = F.pad(expected[None], (pad,) * 4, mode="circular")[0] if pad <= min(h, w) else None
    if expected is None:
        return
    assert torch.equal(torus_shift(x, (dy, dx), pad=pad), expected)
    assert torch.equal(torus_shift(x, torch.tensor([dy, dx]), pad=pad), expected)


def test_torus_shift_per_sample_and_inverse():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(4, 5, 7, 6, generator=g)
    s = torch.randint(-9, 9, (4, 5, 2), generator=g)
    out = torus_shift(x, s)
    for i in range(4):
        for j in range(5):
            assert torch.equal(out[i, j], torch.roll(x[i, j], tuple(s[i, j].tolist()), (-2, -1)))
    assert torch.equal(torus_shift(out, -s), x)
    assert torch.equal(torus_shift(x, s[:, None, 0]), torus_shift(x, s[:, :1].expand(-1, 5, -1)))  # broadcast


def test_velocity_grid_and_window_crop():
    v = velocity_grid(1)
    assert v.shape == (9, 2) and (v.abs() <= 1).all() and len({tuple(r) for r in v.tolist()}) == 9
    world = torch.arange(36.0).reshape(1, 6, 6)
    crop = window_crop(world, torch.tensor([[2, 3]]), 4)
    # view[i, j] = world[(c_y - w//2 + i) % W, (c_x - w//2 + j) % W]
    assert crop[0, 0, 0] == world[0, 0, 1] and crop[0, 3, 3] == world[0, 3, 4]
    assert window_crop(world, torch.tensor([[0, 0]]), 4)[0, 0, 0] == world[0, 4, 4]


def test_flowm_step_matches_roll_and_circular_conv():
    """The one-gather step equals the official recipe: roll per channel, roll by -a, circular 3x3 conv."""
    torch.manual_seed(0)
    m = method.FloWM(9, 5, 3, 1)
    h = torch.rand(2, 9, 3, 9, 9)
    f = torch.rand(2, 5, 5)
    a = torch.tensor([[2, -1], [0, 3]])
    rolled = torch.stack([torch.stack([torch.roll(h[b, i], tuple((m.velocities[i] - a[b]).tolist()), (-2, -1))
                                       for i in range(9)]) for b in range(2)])
    rec = F.conv2d(F.pad(rolled.reshape(18, 3, 9, 9), (1, 1, 1, 1), mode="circular"), m.rec.weight)
    e = torch.zeros(2, 3, 9, 9)
    e[..., :5, :5] = F.conv2d(F.pad(f[:, None], (1, 1, 1, 1), mode="circular"), m.enc.weight)
    expected = torch.relu(e[:, None] + rec.reshape(2, 9, 3, 9, 9))
    assert torch.allclose(m.step(h, f, a), expected, atol=1e-6)


@pytest.mark.parametrize("radius", [0, 1])
def test_flowm_self_motion_equivariance_exact(radius):
    torch.manual_seed(0)
    model = method.FloWM(10, 10, 4, radius)
    pattern = torch.zeros(10, 10)
    pattern[2:6, 3:5] = torch.rand(4, 2)
    path = torch.cumsum(torch.randint(-3, 4, (7, 2)), 0)
    errs = method.equivariance_errors(model, pattern, path, (1, 0))
    assert errs["self_motion"] < 1e-5 and errs["scale"] > 1e-2
    if radius:
        assert errs["flow"] < 1e-5


def test_partial_view_identities_hold_and_can_fail():
    """Window < world: ego map = shifted world-frame map; drifting world = static world + counter-moving camera."""
    torch.manual_seed(3)
    b = data.make_batch(3, 12, 6, 2, 3, 6, 4, dynamic=False, generator=torch.Generator().manual_seed(0),
                        keep_world=True)
    model = method.FloWM(12, 6, 4, 1)
    errs = method.partial_view_errors(model, b["world"][:, 0], b["cams"], 6, (1, -1))
    assert errs["self_motion"] < 1e-5 and errs["flow"] < 1e-5 and errs["scale"] > 1e-3
    no_sme = method.FloWM(12, 6, 4, 1, self_motion=False)
    assert method.partial_view_errors(no_sme, b["world"][:, 0], b["cams"], 6, (1, -1))["self_motion"] > 1e-2
    assert method.partial_view_errors(method.FloWM(12, 6, 4, 0), b["world"][:, 0], b["cams"], 6, (1, 0))["flow"] is None


def test_output_shift_equivariance():
    """Shifting the whole input sequence (window = world) shifts every predicted frame by the same amount."""
    torch.manual_seed(1)
    model = method.FloWM(9, 9, 4, 1)
    frames = torch.rand(2, 5, 9, 9)
    acts = torch.randint(-2, 3, (2, 5, 2))
    acts_out = torch.randint(-2, 3, (2, 4, 2))
    g = torch.tensor([3, -2])
    with torch.no_grad():
        y = recurrent.rollout(model, frames, acts, acts_out)
        y_shift = recurrent.rollout(model, torus_shift(frames, g), acts, acts_out)
    assert (y_shift - torus_shift(y, g)).abs().max() < 1e-5
    assert (y_shift - y).abs().max() > 1e-3  # the check is not vacuous


def test_no_sme_and_action_concat_break_equivariance():
    torch.manual_seed(2)
    pattern = torch.zeros(10, 10)
    pattern[1:5, 2:7] = torch.rand(4, 5)
    path = torch.cumsum(torch.randint(-3, 4, (7, 2)), 0)
    nosme = method.equivariance_errors(method.FloWM(10, 10, 4, 1, self_motion=False), pattern, path, (1, 1))
    concat = method.equivariance_errors(baselines.ActionConcatWM(10, 10, 4), pattern, path, (1, 1))
    assert nosme["self_motion"] > 1e-2 and nosme["flow"] < 1e-5
    assert min(concat["self_motion"], concat["flow"]) > 1e-2


def test_static_world_memory_is_exact_after_coverage():
    """Convention check: shift-by-minus-action memory predicts every target window of a covered static world."""
    b = data.make_batch(8, 16, 8, 2, 3, 14, 10, dynamic=False, generator=torch.Generator().manual_seed(3))
    frames = torch.cat([b["frames_in"], b["targets"]], 1)
    acts = torch.cat([b["actions_in"], b["actions_out"]], 1)
    write = torch.arange(24)[None].expand(8, -1) < 14
    maps = method.overwrite_memory(frames, acts, 16, write=write)
    err = (maps[:, 14:, :8, :8] - b["targets"]).abs().amax((1, 2, 3))
    assert (err < 1e-6).float().mean() >= 0.75  # the greedy explorer covers (almost) every world
    wrong_sign = method.overwrite_memory(frames, -acts, 16, write=write)
    assert (wrong_sign[:, 14:, :8, :8] - b["targets"]).abs().max() > 0.1


def test_data_shapes_ranges_splits_and_pool():
    b = data.make_batch(3, 12, 6, 2, 2, 5, 4, dynamic=True, generator=torch.Generator().manual_seed(0),
                        keep_world=True)
    assert b["frames_in"].shape == (3, 5, 6, 6) and b["targets"].shape == (3, 4, 6, 6)
    assert (b["actions_in"][:, 0] == 0).all() and b["actions_out"].abs().max() <= 2
    assert 0 <= float(b["world"].min()) and float(b["world"].max()) <= 1
    assert (b["velocities"] != 0).any(-1).all()  # every digit moves in the dynamic world
    assert b["positions"].shape == (3, 9, 2, 2)
    assert torch.equal((b["positions"][:, 1] - b["positions"][:, 0]) % 12, b["velocities"] % 12)
    tr, te = data.sprites("train"), data.sprites("test")
    assert tr.shape[0] == 1400 and te.shape[0] == 397 and data.sprites("train", 2).shape[-1] == 16
    kw = dict(world=12, window=6, n_digits=2, step=2, t_in=5, t_out=4)
    pool = data.make_pool(5, chunk=2, generator=torch.Generator().manual_seed(1), **kw)
    again = data.make_pool(5, chunk=2, generator=torch.Generator().manual_seed(1), **kw)
    assert pool["frames_in"].shape[0] == 5 and torch.equal(pool["targets"], again["targets"])
    assert torch.equal(data.take(pool, torch.tensor([4, 0]))["targets"][1], pool["targets"][0])


@pytest.mark.parametrize("kind", ["flowm", "flowm_v0", "no_sme", "convgru", "sliding", "copy_last", "all_black"])
def test_models_rollout_shapes(kind):
    cfg = dict(experiment.CONFIGS["quick"])
    model = experiment.make_model(kind, cfg)
    b = data.make_batch(2, cfg["world"], cfg["window"], 2, cfg["step"], 4, 3)
    y = recurrent.rollout(model, b["frames_in"], b["actions_in"], b["actions_out"])
    assert y.shape == b["targets"].shape and torch.isfinite(y).all()
    if kind == "copy_last":
        assert torch.equal(y[:, -1], b["frames_in"][:, -1])


def test_frame_range_clips_what_is_written_back():
    torch.manual_seed(0)
    model = method.FloWM(8, 4, 2, 0)
    seen = []
    model.frame_range = (0.0, 1.0)
    real_step = model.step
    model.step = lambda h, f, a: (seen.append(f), real_step(h, f, a))[1]
    with torch.no_grad():
        model.dec[-1].weight.mul_(100.0)  # predictions far outside [0, 1]
        recurrent.rollout(model, torch.rand(1, 3, 4, 4), torch.zeros(1, 3, 2, dtype=torch.long),
                          torch.zeros(1, 4, 2, dtype=torch.long))
    fed_back = torch.stack(seen[4:])
    assert float(fed_back.max()) <= 1.0 and float(fed_back.min()) >= 0.0


def test_max_gain_bounds_the_recurrent_gain_and_matches_power_iteration():
    torch.manual_seed(0)
    model = method.FloWM(10, 5, 4, 0, max_gain=0.9)
    with torch.no_grad():
        model.rec.weight.mul_(20.0)
    gain = diagnostics.recurrent_gain(model)
    assert gain == pytest.approx(0.9, rel=1e-6)
    free = method.FloWM(10, 5, 4, 0)
    with torch.no_grad():
        free.rec.weight.copy_(model.rec.weight)
    x = torch.randn(1, 4, 10, 10, dtype=torch.float64)
    k = free.rec.weight.detach().double()
    for _ in range(300):  # power iteration on K^T K with the circular conv and its adjoint
        x = _adjoint(F.conv2d(F.pad(x, (1, 1, 1, 1), mode="circular"), k), k)
        x = x / x.norm()
    y = F.conv2d(F.pad(x, (1, 1, 1, 1), mode="circular"), k)
    assert float(y.norm()) == pytest.approx(diagnostics.recurrent_gain(free), rel=1e-3)


def _adjoint(y, k):
    """Adjoint of the circular 3x3 conv: a full transposed conv folded back onto the torus."""
    full = F.conv_transpose2d(y, k)                                                       # (1, C, H + 2, W + 2)
    out = full[..., 1:-1, 1:-1].clone()
    out[..., 0, :] += full[..., -1, 1:-1]
    out[..., -1, :] += full[..., 0, 1:-1]
    out[..., :, 0] += full[..., 1:-1, -1]
    out[..., :, -1] += full[..., 1:-1, 0]
    out[..., 0, 0] += full[..., -1, -1]
    out[..., 0, -1] += full[..., -1, 0]
    out[..., -1, 0] += full[..., 0, -1]
    out[..., -1, -1] += full[..., 0, 0]
    return out


def test_velocity_selectivity_scores_a_handmade_tracker():
    """An identity-memory FloWM keeps each moving digit sharpest in its own channel: far above chance."""
    b = data.make_batch(8, 16, 8, 2, 3, 10, 6, dynamic=True, generator=torch.Generator().manual_seed(4),
                        keep_world=True)
    model = method.FloWM(16, 8, 1, 1)
    with torch.no_grad():
        model.enc.weight.zero_()
        model.enc.weight[0, 0, 1, 1] = 1.0
        model.rec.weight.zero_()
        model.rec.weight[0, 0, 1, 1] = 0.8
    sel = diagnostics.velocity_selectivity(model, b)
    assert sel["pixels"] > 100 and sel["accuracy"] > 3 * sel["chance"]
    blind = method.FloWM(16, 8, 1, 1, self_motion=False)
    blind.load_state_dict(model.state_dict())
    assert diagnostics.velocity_selectivity(blind, b)["accuracy"] < sel["accuracy"]


def test_channel_subset_reads_only_the_kept_channels():
    torch.manual_seed(0)
    model = method.FloWM(8, 4, 2, 1)
    h = torch.zeros(1, 9, 2, 8, 8)
    h[0, 3] = 1.0
    zero = method.velocity_index(model.velocities, (0, 0))
    assert torch.equal(diagnostics.ChannelSubset(model, [zero]).decode(h), model.dec(torch.zeros(1, 2, 4, 4))[:, 0])
    assert torch.equal(diagnostics.ChannelSubset(model, range(9)).decode(h), model.decode(h))


def test_convgru_cell_gradient_finite_difference():
    torch.manual_seed(0)
    cell = recurrent.ConvGRUCell(2, 3).double()
    x, h = torch.rand(1, 2, 4, 4, dtype=torch.float64), torch.rand(1, 3, 4, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda hh: cell(x, hh), (h,))


def test_training_reduces_loss():
    torch.manual_seed(0)
    model = method.FloWM(12, 6, 4, 0, rec_init="identity")
    batch = data.make_batch(8, 12, 6, 2, 2, 6, 3, dynamic=False, generator=torch.Generator().manual_seed(0))
    hist = recurrent.train_rollout(model, lambda i: batch, 30, 1e-2)
    assert hist["loss"][-1] < 0.7 * hist["loss"][0]


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="shifts"):
        torus_shift(torch.zeros(2, 3, 3), torch.tensor([0.5, 1.0]))
    with pytest.raises(ValueError, match="window"):
        method.FloWM(8, 10)
    with pytest.raises(ValueError, match="radius"):
        velocity_grid(-1)
    with pytest.raises(ValueError, match="actions"):
        recurrent.rollout(method.FloWM(8, 4), torch.zeros(1, 3, 4, 4), torch.zeros(1, 2, 2, dtype=torch.long),
                          torch.zeros(1, 2, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="split"):
        data.sprites("val")
    with pytest.raises(ValueError, match="window"):
        data.make_batch(1, 8, 10, 1, 1, 2, 2)
    with pytest.raises(ValueError, match="config"):
        experiment.run({"world": 8}, "cpu", 0)
    with pytest.raises(ValueError, match="teacher_forcing"):
        recurrent.rollout(method.FloWM(8, 4), torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 2, dtype=torch.long),
                          torch.zeros(1, 2, 2, dtype=torch.long), teacher_forcing=2.0)


def _synthetic_results():
    curve = [0.01] * 200
    rec = lambda m, c=curve: {"mse": m, "long_curve": c}  # noqa: E731
    return {"equivariance": {"flowm": {"self_motion": 0.0, "flow": 0.0},
                             "action_concat": {"self_motion": 1.0, "flow": .5}},
            "partial_view": {"self_motion": 1e-7, "flow": None},
            "static": {"flowm": rec(0.01), "no_sme": rec(0.05), "convgru": rec(0.1), "copy_last": rec(0.2),
                       "all_black": rec(0.1), "flowm_v0": rec(0.011)},
            "dynamic": {"flowm": rec(0.01), "flowm_v0": rec(0.05, [0.05] * 200), "convgru": rec(0.1, [0.04] * 200),
                        "sliding": rec(0.1, [0.01] * 180 + [0.05] * 20), "all_black": rec(0.1, [0.1] * 200)},
            "diagnostics": {"dynamic": {"selectivity": {"accuracy": 0.7}}},
            "iters_to_half_black": {"flowm": 10.0, "convgru": math.inf}, "config": {"iters": 100}}


def test_claim_metrics_on_synthetic_results():
    r = _synthetic_results()
    vals = {c.id: c.metric(r) for c in claims.CLAIMS}
    assert vals["partial_view_equivariance"] == pytest.approx(1e-7)
    assert vals["memory_vs_convgru"] == pytest.approx(0.1) and vals["memory_vs_copy_last"] == pytest.approx(0.05)
    assert vals["self_motion_needed"] == pytest.approx(5)
    assert vals["velocity_channels_dynamic"] == pytest.approx(5) and vals["length_generalisation"] == pytest.approx(1)
    assert vals["long_rollout_vs_convgru"] == pytest.approx(0.25)
    assert vals["long_rollout_vs_sliding"] == pytest.approx(0.2)
    assert vals["velocity_selectivity"] == pytest.approx(0.7) and vals["training_speed"] == pytest.approx(10)
    premise = next(c for c in claims.CLAIMS if c.id == "length_generalisation").requires
    assert premise.metric(r) == pytest.approx(0.1)
    head = [c for c in claims.CLAIMS if c.headline]
    assert [c.id for c in head] == ["memory_vs_convgru"]
    # the control (no self-motion equivariance) is read from the same run: no-SME MSE / ConvGRU MSE
    assert head[0].control.metric(r) == pytest.approx(
        claims._mse(r, "static", "no_sme") / claims._mse(r, "static", "convgru"))


def test_every_claim_is_typed_and_out_of_scope_claims_give_reasons():
    assert {c.kind for c in claims.CLAIMS} == {"paper", "extension", "check"}
    assert all(c.why is None for c in claims.CLAIMS if c.kind == "check")
    ids = {c.id for c in claims.CLAIMS}
    # the static pair is one claim (its upper edge passed whenever V1 was worse than V0), and it is ours
    assert "velocity_channels_static_high" not in ids
    assert next(c for c in claims.CLAIMS if c.id == "velocity_channels_static_low").kind == "extension"
    below = next(c for c in claims.CLAIMS if c.id == "below_all_black")
    assert below.op == "<=" and below.threshold["standard"] == 0.2 and "quick" not in below.threshold
    assert all(len(why) > 40 for _, why in claims.OUT_OF_SCOPE)
