"""Unit tests for hybrid_node (CHyLL++): simulators, embeddings, detection, losses, models."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.hybrid_node import baselines, claims, experiment, jumps, method, simulators


@pytest.mark.parametrize("system", simulators.SYSTEMS)
def test_simulator_shapes_and_resets(system):
    d = simulators.simulate(system, 8, 50, seed=0)
    assert d.x.shape == (8, 50, 2) and d.resets.shape == (8, 49) and d.resets.any()
    # resets are exactly the large steps
    step = (d.x[:, 1:] - d.x[:, :-1]).norm(dim=-1)
    assert step[d.resets].min() > step[~d.resets].max()


def test_ball_energy_conserved_and_nonnegative_height():
    d = simulators.simulate("ball", 16, 200, seed=3, dtype=torch.float64)
    energy = 0.5 * d.x[..., 1] ** 2 + simulators.G * d.x[..., 0]
    assert (energy - energy[:, :1]).abs().max() < 1e-9
    assert d.x[..., 0].min() >= -1e-12


def test_ball_matches_fine_euler_between_bounces():
    d = simulators.simulate("ball", 1, 3, dt=0.01, seed=0, dtype=torch.float64)
    h, v = d.x[0, 0].tolist()
    for _ in range(1000):  # symplectic-ish fine integration for 0.01 s
        v -= simulators.G * 1e-5
        h += v * 1e-5
    if not d.resets[0, 0]:
        assert abs(h - d.x[0, 1, 0].item()) < 1e-5


@pytest.mark.parametrize("system", simulators.SYSTEMS)
def test_analytic_embedding_satisfies_c1_c2(system):
    gap = simulators.c2_gap(system)
    assert gap["position"] < 1e-10 and gap["velocity"] < 1e-10


def test_naive_ball_embedding_violates_c2():
    gap = simulators.c2_gap("ball", simulators.naive_ball_embed)
    assert gap["position"] < 1e-12 and gap["velocity"] > 0.5


def test_mobius_field_compatible_with_flip():
    xm, xp = simulators.guard_pairs("mobius", 32)
    vm, vp = simulators.vector_field("mobius", xm), simulators.vector_field("mobius", xp)
    dr = torch.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=vm.dtype)  # derivative of (x, y) -> (x - 1, 1 - y)
    assert torch.allclose(vm @ dr.T, vp, atol=1e-12)


def test_two_speed_example_from_paper():
    out = simulators.two_speed_check()
    assert out["position_gap"] < 1e-12 and out["velocity_gap"] < 1e-12 and out["min_far_distance"] > 0.01
    # the intrinsic speed jumps 1 -> 2, the latent speed does not
    x = torch.tensor([0.999, 2.001], dtype=torch.float64)
    assert simulators.two_speed_field(x).tolist() == [1.0, 2.0]


def test_jump_ratio_and_detection():
    d = simulators.simulate("sawtooth", 16, 80, seed=1)
    det = jumps.detect_jumps(d.x, d.dt)
    assert jumps.precision_recall(det, d.resets) == (1.0, 1.0)
    assert jumps.jump_ratio(d.x, d.resets) > 10
    assert jumps.jump_ratio(simulators.embed("sawtooth", d.x), d.resets) < 3
    # an absurd threshold finds nothing
    assert not jumps.detect_jumps(d.x, d.dt, factor=1e6).any()


def test_velocity_jump_detects_corner():
    d = simulators.simulate("ball", 32, 100, seed=2, dtype=torch.float64)
    good = jumps.velocity_jump(simulators.embed("ball", d.x), d.resets, d.dt)["excess"]
    bad = jumps.velocity_jump(simulators.naive_ball_embed(d.x), d.resets, d.dt)["excess"]
    assert good < 0.05 < bad


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6))
def test_curriculum_monotone(a, b):
    stages = sorted({a, a + b})
    lengths = method.curriculum_lengths(stages, 13)
    assert len(lengths) == 13 and lengths == sorted(lengths) and set(lengths) == set(stages)


def test_rk4_rollout_exact_for_linear_rotation():
    rot = torch.nn.Linear(2, 2, bias=False)
    with torch.no_grad():
        rot.weight.copy_(torch.tensor([[0.0, -1.0], [1.0, 0.0]]))
    z = method.rollout_ode(method.Field(rot), torch.tensor([[1.0, 0.0]]), 20, 0.05)
    t = 20 * 0.05
    assert torch.allclose(z[0, -1], torch.tensor([math.cos(t), math.sin(t)]), atol=1e-5)


def test_glue_and_velocity_terms_zero_on_analytic_embedding():
    z = torch.tensor([[[0.0], [1.0], [2.0], [3.0], [4.0]]])
    jm = torch.tensor([[False, True, False, False]])
    lg, lv = method.glue_velocity_terms(z, jm, 0.1)
    assert lg.item() == pytest.approx(1.0) and lv.item() == pytest.approx(0.0)
    z2 = torch.tensor([[[0.0], [1.0], [2.0], [4.0], [6.0]]])  # velocity corner at the reset
    assert method.glue_velocity_terms(z2, jm, 0.1)[1].item() == pytest.approx(100.0)


def test_covariance_floor():
    z = torch.randn(500, 3)
    z[:, 1] *= 0.01
    loss = method.covariance_floor(z, 0.5)
    assert loss.item() == pytest.approx(0.5 - z[:, 1].var().item(), rel=1e-5)


def test_covariance_floor_gradient_finite_difference():
    z = torch.randn(20, 2, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda q: method.covariance_floor(q * 0.1, 1.0), (z,))


def test_param_matching_and_models_run():
    n, m = 2, 5
    target = method.n_params(method.CHyLLpp(n, m, 32, 2))
    node = baselines.StateNODE(n, baselines.matched_width(target, n, n), 2)
    assert abs(method.n_params(node) - target) / target < 0.05
    ev = baselines.EventODE(n, 16)
    out = ev(torch.randn(4, 2), 5, 0.05)
    assert out.shape == (4, 6, 2) and torch.isfinite(out).all()


def test_training_reduces_loss_tiny():
    d = simulators.simulate("sawtooth", 16, 20, seed=0)
    model, info = method.train_chyllpp(d.x, d.dt, iters=60, width=16, stages=(3,), lr=1e-2, seed=0)
    assert np.mean(info["losses"][-10:]) < np.mean(info["losses"][:10])
    pred = method.predict(model, d.x[:, 0], 5, d.dt)
    assert pred.shape == (16, 6, 2)


def test_near_reset_mask():
    r = torch.tensor([[False, True, False]])
    assert experiment.near_reset_mask(r).tolist() == [[False, True, True, False]]


def test_claims_have_all_sections():
    ids = [c.id for c in claims.CLAIMS]
    assert len(ids) == len(set(ids)) and any(i.startswith("6a") for i in ids)


@pytest.mark.parametrize("call", [
    lambda: simulators.simulate("klein", 2, 10),
    lambda: simulators.simulate("ball", 0, 10),
    lambda: simulators.simulate("ball", 2, 1),
    lambda: simulators.simulate("ball", 2, 10, dt=-1.0),
    lambda: simulators.embed("ball", torch.zeros(3, 3)),
    lambda: simulators.two_speed_embed(torch.tensor([1.5])),
    lambda: jumps.detect_jumps(torch.zeros(3, 2), 0.1),
    lambda: jumps.detect_jumps(torch.zeros(3, 4, 2), 0.1, factor=0.0),
    lambda: jumps.jump_ratio(torch.zeros(2, 4, 2), torch.zeros(2, 3, dtype=torch.bool)),
    lambda: method.mlp(2, 0),
    lambda: method.mlp(2, 2, last="tanh"),
    lambda: method.CHyLLpp(2, m=0),
    lambda: method.rollout_ode(method.Field(torch.nn.Identity()), torch.zeros(3), 2, 0.1),
    lambda: method.curriculum_lengths([4, 2], 10),
    lambda: method.train_chyllpp(torch.zeros(2, 5, 2) + torch.arange(5.0)[None, :, None], 0.1,
                                 weights={"x": 0.0}),
    lambda: experiment.run({"iters": 1}, "cpu", 0),
])
def test_value_errors(call):
    with pytest.raises(ValueError):
        call()
