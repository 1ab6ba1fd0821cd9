"""Unit tests for hybrid_node (CHyLL++): simulators, embeddings, detection, losses, models."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.hybrid_node import baselines, claims, experiment, jumps, method, simulators, topology


@pytest.mark.parametrize("system", simulators.SYSTEMS)
def test_simulator_shapes_and_resets(system):
    d = simulators.simulate(system, 8, 50, seed=0)
    n = simulators.DIMS[system]
    assert d.x.shape == (8, 50, n) and d.resets.shape == (8, 49) and d.resets.any()
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


@pytest.mark.parametrize("system", ["sawtooth", "ball", "torus", "mobius", "klein", "ball3d"])
def test_simulator_matches_fine_integration_of_the_field(system):
    """Between resets the closed form follows V: a fine RK4 integration of vector_field from each sample
    lands on the next sample wherever no reset intervenes (so the flow is a function of the state)."""
    d = simulators.simulate(system, 12, 30, seed=5, dtype=torch.float64)
    x = d.x[:, :-1].reshape(-1, d.x.shape[-1])
    h, y = d.dt / 200, x.clone()
    for _ in range(200):
        k1 = simulators.vector_field(system, y)
        k2 = simulators.vector_field(system, y + h / 2 * k1)
        k3 = simulators.vector_field(system, y + h / 2 * k2)
        k4 = simulators.vector_field(system, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    ok = ~d.resets.reshape(-1)
    assert (y[ok] - d.x[:, 1:].reshape(-1, d.x.shape[-1])[ok]).abs().max() < 1e-6


def test_klein_closed_form_matches_fine_integration_across_resets():
    d = simulators.simulate("klein", 1, 40, seed=2, dtype=torch.float64)
    a, b = simulators.RATES["klein"]["a"], simulators.RATES["klein"]["b"]
    # integrate y' = b cos(pi x) with x' = a and apply the flip / wrap by hand
    x, y, h = d.x[0, 0, 0].item(), d.x[0, 0, 1].item(), 1e-4
    for k in range(1, 40):
        for _ in range(int(round(d.dt / h))):
            y += h * b * math.cos(math.pi * (x + 0.5 * h * a))
            x += h * a
            if x >= 1:
                x, y = x - 1, 1 - y
            y %= 1.0
        assert abs(x - d.x[0, k, 0].item()) < 1e-6
        dy = abs(y - d.x[0, k, 1].item())
        assert min(dy, 1 - dy) < 1e-5


@pytest.mark.parametrize("system", ["mobius", "klein"])
def test_flip_fields_compatible_with_the_gluing(system):
    """V(r(x)) = Dr V(x) on the flipping guard (the pitfall of a Klein-bottle field that is not continuous)."""
    xm, xp = simulators.guard_pairs(system, 32)
    half = 16 if system == "klein" else 32
    vm, vp = simulators.vector_field(system, xm[:half]), simulators.vector_field(system, xp[:half])
    dr = torch.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=vm.dtype)  # derivative of (x, y) -> (x - 1, 1 - y)
    assert torch.allclose(vm @ dr.T, vp, atol=1e-12)


def test_ball3d_walls_and_floor():
    d = simulators.simulate("ball3d", 16, 200, seed=1, dtype=torch.float64)
    pos, vel = d.x[..., :3], d.x[..., 3:]
    assert pos[..., :2].min() >= 0 and pos[..., :2].max() <= 1 and pos[..., 2].min() >= -1e-12
    speed = vel[..., :2].abs()
    assert torch.allclose(speed, speed[:, :1].expand_as(speed))  # horizontal speeds constant, signs a square wave
    assert (vel[..., :2].sign().diff(dim=1) != 0).any()


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
    z = method.rollout_ode(method.Field(rot), torch.tensor([[[1.0, 0.0]]]), 20, 0.05)
    t = 20 * 0.05
    assert torch.allclose(z[0, 0, -1], torch.tensor([math.cos(t), math.sin(t)]), atol=1e-5)


def test_glue_and_velocity_terms_zero_on_analytic_embedding():
    z = torch.tensor([[[[0.0], [1.0], [2.0], [3.0], [4.0]]]])
    jm = torch.tensor([[[False, True, False, False]]])
    lg, lv = method.glue_velocity_terms(z, jm, 0.1)
    assert lg.item() == pytest.approx(1.0) and lv.item() == pytest.approx(0.0)


def test_covariance_floor():
    z = torch.randn(1, 500, 3)
    z[..., 1] *= 0.01
    loss = method.covariance_floor(z, 0.5)
    assert loss.item() == pytest.approx(0.5 - z[0, :, 1].var().item(), rel=1e-5)


def test_covariance_floor_gradient_finite_difference():
    z = torch.randn(1, 20, 2, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda q: method.covariance_floor(q * 0.1, 1.0), (z,))


def test_param_matching_and_models_run():
    n, m = 2, 5
    target = method.n_params(method.CHyLLpp(n, m, 32, 2))
    node = baselines.StateNODE(n, baselines.matched_width(target, n, n), 2)
    assert abs(method.n_params(node) - target) / target < 0.05
    ev = baselines.EventODE(n, 16)
    out = ev(torch.randn(4, 2), 5, 0.05)
    assert out.shape == (1, 4, 6, 2) and torch.isfinite(out).all()


def test_ensemble_members_are_independent_models():
    """A K-member ensemble computes exactly what K separate single models compute."""
    torch.manual_seed(0)
    ens = method.mlp(3, 2, 8, 2, members=3, shared_init=False)
    x = torch.randn(3, 5, 3)
    for k in range(3):
        single = method.mlp(3, 2, 8, 2)
        with torch.no_grad():
            for ls, le in zip(single, ens):
                if isinstance(le, method.Linear):
                    ls.weight.copy_(le.weight[k:k + 1])
                    ls.bias.copy_(le.bias[k:k + 1])
        assert torch.allclose(single(x[k:k + 1]), ens(x)[k:k + 1], atol=1e-6)
    shared = method.mlp(3, 2, 8, 2, members=3)
    assert torch.equal(shared[0].weight[0], shared[0].weight[2])


def test_member_gradients_do_not_mix():
    """The summed per-member loss gives each member the gradient of its own loss (clipping per member)."""
    d = simulators.simulate("sawtooth", 8, 12, seed=0)
    xs = (d.x - d.x.mean((0, 1))) / d.x.std((0, 1))
    model = method.CHyLLpp(2, 5, 8, members=2)
    table = method.weight_table([method.DEFAULT_WEIGHTS, method.LATENT_ODE])
    jm = jumps.detect_jumps(d.x, d.dt)[None, :, :6].expand(2, -1, -1)
    loss = method.chyllpp_loss(model, xs[:, :7], jm, d.dt, table, torch.tensor([0.01, 0.01]))
    grad1 = torch.autograd.grad(loss[1], model.enc[0].weight, retain_graph=True)[0]
    assert grad1[0].abs().max() == 0 and grad1[1].abs().max() > 0
    # the two members share their initialisation, so they differ only through the loss
    assert torch.equal(model.enc[0].weight[0], model.enc[0].weight[1])


def test_training_reduces_loss_tiny():
    d = simulators.simulate("sawtooth", 16, 20, seed=0)
    model, info = method.train_chyllpp(d.x, d.dt, iters=60, width=16, stages=(3,), lr=1e-2, seed=0)
    assert np.mean(info["losses"][-10:]) < np.mean(info["losses"][:10])
    pred = method.predict(model, d.x[:, 0], 5, d.dt)
    assert pred.shape == (1, 16, 6, 2)


def test_velocity_loss_is_the_paper_velocity_mse():
    """L_v is the MSE of finite-difference velocities (no Δt² rescaling): a corner of slope 1 -> 2 per step
    at Δt = 0.1 gives (Δ/Δt)² = 100."""
    z = torch.tensor([[[[0.0], [1.0], [2.0], [4.0], [6.0]]]])
    jm = torch.tensor([[[False, True, False, False]]])
    assert method.glue_velocity_terms(z, jm, 0.1)[1].item() == pytest.approx(100.0)
    assert method.glue_velocity_terms(z, jm, 0.2)[1].item() == pytest.approx(25.0)


@pytest.mark.parametrize("system", list(topology.EXPECTED))
def test_betti_numbers_of_the_analytic_embeddings(system):
    """At the experiment's settings (24 x 24 grid, 200 landmarks), where the thresholds were set; on a
    coarser 20 x 20 grid with 150 landmarks the Klein bottle's Z2 torsion leaves a spurious Z3 loop (3.54)."""
    cloud = simulators.embed(system, simulators.domain_grid(system, 24, torch.float64))
    assert topology.betti_error(system, cloud, 200)["error"] == 0


def test_betti_numbers_see_a_missing_glue():
    """The unglued square [0,1)² (no gluing at all) is contractible: the torus check must fail on it."""
    sq = simulators.domain_grid("torus", 20, torch.float64)
    assert topology.betti_error("torus", sq, 150)["error"] == 3


def test_near_reset_mask():
    r = torch.tensor([[False, True, False]])
    assert experiment.near_reset_mask(r).tolist() == [[False, True, True, False]]


def test_claims_have_all_sections():
    ids = [c.id for c in claims.CLAIMS]
    assert len(ids) == len(set(ids)) and any(i.startswith("6a") for i in ids)


def test_quick_run_is_complete_and_deterministic():
    cfg = {**experiment.CONFIGS["quick"], "iters": {"sawtooth": 20}, "n_train": 16, "n_test": 8, "width": 16,
           "systems": {"sawtooth": {"ablations": ("no_glue",), "baselines": ("node",)}}}
    a, b = experiment.run(cfg, "cpu", 3), experiment.run(cfg, "cpu", 3)
    for key in ("chyllpp", "latent_ode", "no_glue", "node"):
        assert a["sawtooth"][key]["mse"] == b["sawtooth"][key]["mse"]
    assert set(a["detection"]) == set(simulators.SYSTEMS)
    head = next(c for c in claims.CLAIMS if c.headline)   # 2c: its control (the plain Latent ODE) reads this run
    assert head.id == "2c_learned_velocity_jump"
    assert head.control.metric(a) == a["sawtooth"]["latent_ode"]["velocity"]["excess"]
    assert head.metric(a) == a["sawtooth"]["chyllpp"]["velocity"]["excess"]
    premise = next(c for c in claims.CLAIMS if c.id == "3c_sawtooth_ratio").requires
    assert premise.metric(a) == a["sawtooth"]["node"]["mae_clean"]        # 3c's premise: the NODE fails


@pytest.mark.parametrize("call", [
    lambda: simulators.simulate("cube", 2, 10),
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
    lambda: method.rollout_ode(method.Field(torch.nn.Identity()), torch.zeros(3, 2), 2, 0.1),
    lambda: method.curriculum_lengths([4, 2], 10),
    lambda: method.train_chyllpp(torch.zeros(2, 5, 2) + torch.arange(5.0)[None, :, None], 0.1,
                                 weights={"x": 0.0}),
    lambda: method.weight_table([{"x": 1.0, "q": 1.0}]),
    lambda: simulators.embed("ball3d", torch.zeros(3, 2)),
    lambda: topology.betti_numbers(torch.randn(20, 3), coeff=4),
    lambda: experiment.run({"iters": 1}, "cpu", 0),
])
def test_value_errors(call):
    with pytest.raises(ValueError):
        call()
