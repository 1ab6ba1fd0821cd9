"""Unit tests of FloWM (flow_equivariant): toroidal shifts, exact equivariance, data conventions, models, claims."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.flow_equivariant import baselines, claims, data, experiment, method, recurrent
from icml26.papers.flow_equivariant.shifts import torus_shift, velocity_grid, window_crop


@settings(max_examples=25, deadline=None)
@given(st.integers(-30, 30), st.integers(-30, 30), st.integers(2, 9), st.integers(2, 9))
def test_torus_shift_matches_roll(dy, dx, h, w):
    x = torch.arange(3 * h * w, dtype=torch.float32).reshape(3, h, w)
    expected = torch.roll(x, (dy, dx), (-2, -1))
    assert torch.equal(torus_shift(x, (dy, dx)), expected)
    assert torch.equal(torus_shift(x, torch.tensor([dy, dx])), expected)


def test_torus_shift_per_sample_and_inverse():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(4, 5, 7, 6, generator=g)
    s = torch.randint(-9, 9, (4, 5, 2), generator=g)
    out = torus_shift(x, s)
    for i in range(4):
        for j in range(5):
            assert torch.equal(out[i, j], torch.roll(x[i, j], tuple(s[i, j].tolist()), (-2, -1)))
    assert torch.equal(torus_shift(out, -s), x)


def test_velocity_grid_and_window_crop():
    v = velocity_grid(1)
    assert v.shape == (9, 2) and (v.abs() <= 1).all() and len({tuple(r) for r in v.tolist()}) == 9
    world = torch.arange(36.0).reshape(1, 6, 6)
    crop = window_crop(world, torch.tensor([[2, 3]]), 4)
    # view[i, j] = world[(c_y - w//2 + i) % W, (c_x - w//2 + j) % W]
    assert crop[0, 0, 0] == world[0, 0, 1] and crop[0, 3, 3] == world[0, 3, 4]
    assert window_crop(world, torch.tensor([[0, 0]]), 4)[0, 0, 0] == world[0, 4, 4]


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
    """Convention check (note §10): shift-by-minus-action memory predicts every target window of a static world."""
    b = data.make_batch(8, 16, 8, 2, 3, 14, 10, dynamic=False, generator=torch.Generator().manual_seed(3))
    frames = torch.cat([b["frames_in"], b["targets"]], 1)
    acts = torch.cat([b["actions_in"], b["actions_out"]], 1)
    write = torch.arange(24)[None] < 14
    maps = method.overwrite_memory(frames, acts, 16, write=write)
    err = (maps[:, 14:, :8, :8] - b["targets"]).abs().amax((1, 2, 3))
    covered = err < 1e-6
    assert covered.float().mean() >= 0.75  # the greedy explorer covers (almost) every world
    wrong_sign = method.overwrite_memory(frames, -acts, 16, write=write)
    assert (wrong_sign[:, 14:, :8, :8] - b["targets"]).abs().max() > 0.1


def test_data_shapes_ranges_and_splits():
    b = data.make_batch(3, 12, 6, 2, 2, 5, 4, dynamic=True, generator=torch.Generator().manual_seed(0),
                        keep_world=True)
    assert b["frames_in"].shape == (3, 5, 6, 6) and b["targets"].shape == (3, 4, 6, 6)
    assert (b["actions_in"][:, 0] == 0).all() and b["actions_out"].abs().max() <= 2
    assert 0 <= float(b["world"].min()) and float(b["world"].max()) <= 1
    assert (b["velocities"] != 0).any(-1).all()  # every digit moves in the dynamic world
    tr, te = data.sprites("train"), data.sprites("test")
    assert tr.shape[0] == 1400 and te.shape[0] == 397 and data.sprites("train", 2).shape[-1] == 16


@pytest.mark.parametrize("kind", ["flowm", "flowm_v0", "no_sme", "convgru", "sliding", "copy_last", "all_black"])
def test_models_rollout_shapes(kind):
    cfg = dict(experiment.CONFIGS["quick"])
    model = experiment._make_model(kind, cfg)
    b = data.make_batch(2, cfg["world"], cfg["window"], 2, cfg["step"], 4, 3)
    y = recurrent.rollout(model, b["frames_in"], b["actions_in"], b["actions_out"])
    assert y.shape == b["targets"].shape and torch.isfinite(y).all()
    if kind == "copy_last":
        assert torch.equal(y[:, -1], b["frames_in"][:, -1])


def test_convgru_cell_gradient_finite_difference():
    torch.manual_seed(0)
    cell = recurrent.ConvGRUCell(2, 3).double()
    x, h = torch.rand(1, 2, 4, 4, dtype=torch.float64), torch.rand(1, 3, 4, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda hh: cell(x, hh), (h,))


def test_training_reduces_loss():
    torch.manual_seed(0)
    model = method.FloWM(12, 6, 4, 0, rec_init="identity")
    gen = torch.Generator().manual_seed(0)
    batch = data.make_batch(8, 12, 6, 2, 2, 6, 3, dynamic=False, generator=gen)
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


def test_claim_metrics_on_synthetic_results():
    curve = [0.01] * 60
    rec = lambda m, c=curve: {"mse": m, "long_curve": c}  # noqa: E731
    r = {"equivariance": {"flowm": {"self_motion": 0.0, "flow": 0.0},
                         "action_concat": {"self_motion": 1.0, "flow": .5}},
         "static": {"flowm": rec(0.01), "no_sme": rec(0.05), "convgru": rec(0.1), "copy_last": rec(0.2),
                    "all_black": rec(0.1), "flowm_v0": rec(0.011)},
         "dynamic": {"flowm": rec(0.01), "flowm_v0": rec(0.05, [0.05] * 60), "convgru": rec(0.1, [0.2] * 60),
                     "sliding": rec(0.1, [0.01] * 20 + [0.02] * 20 + [0.05] * 20), "all_black": rec(0.1, [0.1] * 60)},
         "iters_to_half_black": {"flowm": 10.0, "convgru": math.inf}, "config": {"iters": 100}}
    vals = {c.id: c.metric(r) for c in claims.CLAIMS}
    assert vals["memory_vs_convgru"] == pytest.approx(0.11) and vals["memory_vs_convgru_v1"] == pytest.approx(0.1)
    assert vals["self_motion_needed"] == pytest.approx(5)
    assert vals["velocity_channels_dynamic"] == pytest.approx(5) and vals["length_generalisation"] == pytest.approx(1)
    assert vals["convgru_breaks_down"] == pytest.approx(2)
    assert vals["sliding_breaks_down"] == pytest.approx(5 / 3)
    assert vals["training_speed"] == pytest.approx(10)
