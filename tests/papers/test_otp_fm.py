"""Unit tests of OTP-FM (method, baselines, data) against closed forms, quadrature and autograd."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.otp_fm import baselines, data, experiment
from icml26.papers.otp_fm.method import (
    KERNELS,
    OTPPath,
    alpha_schedule,
    auto_widths,
    kernel_density,
    kernel_integrals,
    mmd_force,
    otp_target_sampler,
    sample_tuples,
)
from icml26.papers.otp_fm.networks import VelocityMLP, fit_velocity, sample_flow
from icml26.transport import chain_indices

DT = torch.float64


def _tuples(b=16, k=3, d=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(b, d, generator=g, dtype=DT), torch.randn(b, d, generator=g, dtype=DT) + 3,
            torch.randn(b, k, d, generator=g, dtype=DT))


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(KERNELS[1:]), c=st.floats(0.05, 0.95), w=st.floats(0.03, 0.4))
def test_kernel_integrals_match_quadrature(kind, c, w):
    t = torch.linspace(0, 1, 40001, dtype=DT)
    lam, lam2 = kernel_integrals(kind, t, c, w)
    q1 = torch.cat([torch.zeros(1, dtype=DT), torch.cumulative_trapezoid(kernel_density(kind, t, c, w), t)])
    q2 = torch.cat([torch.zeros(1, dtype=DT), torch.cumulative_trapezoid(lam, t)])
    assert (lam - q1).abs().max() < 1e-3 * (1 + 1 / w) * 0.2
    assert (lam2 - q2).abs().max() < 1e-5
    assert lam[0] == 0 and lam2[0] == 0 and (lam >= -1e-12).all() and lam[-1] <= 1 + 1e-12


def test_kernel_mass_is_one_when_support_fits_and_delta_is_a_step():
    for kind in KERNELS:
        lam, lam2 = kernel_integrals(kind, torch.tensor([1.0], dtype=DT), 0.5, 0.1)
        assert abs(float(lam) - 1) < 1e-6
        assert abs(float(lam2) - 0.5) < 1e-6  # = 1 - t_k for any symmetric kernel fully inside
    lam, lam2 = kernel_integrals("delta", torch.tensor([0.2, 0.4, 0.9], dtype=DT), 0.3, 0.0)
    assert torch.equal(lam, torch.tensor([0.0, 1.0, 1.0], dtype=DT))
    assert torch.allclose(lam2, torch.tensor([0.0, 0.1, 0.6], dtype=DT))


@pytest.mark.parametrize("kind", KERNELS)
def test_profile_velocity_is_derivative_of_profile(kind):
    p = OTPPath([0.2, 0.6], [3.0, 7.0], kernel=kind, widths=[0.1, 0.15])
    t = torch.tensor([0.05, 0.33, 0.47, 0.81, 0.97], dtype=DT)
    h = 1e-6
    c_hi, _ = p.profiles(t + h)
    c_lo, _ = p.profiles(t - h)
    _, cdot = p.profiles(t)
    assert torch.allclose((c_hi - c_lo) / (2 * h), cdot, atol=1e-5)
    c, _ = p.profiles(torch.tensor([0.0, 1.0], dtype=DT))
    assert c.abs().max() < 1e-12
    c, _ = p.profiles(torch.linspace(0, 1, 101, dtype=DT))
    assert (c <= 1e-12).all()  # c_k <= 0: the correction pulls towards y_k


def test_delta_closed_form_and_limit():
    x0, x1, ys = _tuples(k=1)
    for s in (1.0, 100.0, 1e6):
        p = OTPPath([0.4], [s], kernel="delta")
        xk = p.solve_direct(x0, x1, ys)[:, 0]
        xb = 0.6 * x0 + 0.4 * x1
        expected = (xb + s * 0.24 * ys[:, 0]) / (1 + s * 0.24)
        assert torch.allclose(xk, expected, atol=1e-10)
    assert (xk - ys[:, 0]).abs().max() < 1e-4


@pytest.mark.parametrize("kind", KERNELS)
def test_path_is_self_consistent_and_pinned(kind):
    x0, x1, ys = _tuples()
    p = OTPPath([0.25, 0.5, 0.75], [50.0, 20.0, 80.0], kernel=kind, widths=0.08)
    xk = p.solve_direct(x0, x1, ys)
    for j, tk in enumerate([0.25, 0.5, 0.75]):
        xt, _ = p.path(x0, x1, ys, torch.full((16,), tk, dtype=DT), xk=xk)
        assert torch.allclose(xt, xk[:, j], atol=1e-9)
    assert torch.allclose(p.path(x0, x1, ys, torch.zeros(16, dtype=DT))[0], x0, atol=1e-12)
    assert torch.allclose(p.path(x0, x1, ys, torch.ones(16, dtype=DT))[0], x1, atol=1e-12)


def test_velocity_is_time_derivative_of_path_and_picard_agrees():
    x0, x1, ys = _tuples()
    p = OTPPath([0.25, 0.5, 0.75], 10.0, kernel="gaussian", widths=0.1)
    xk = p.solve_direct(x0, x1, ys)
    assert torch.allclose(xk, p.solve_picard(x0, x1, ys, iters=400), atol=1e-10)
    t = torch.rand(16, dtype=DT, generator=torch.Generator().manual_seed(3))
    h = 1e-6
    xp, _ = p.path(x0, x1, ys, t + h, xk=xk)
    xm, _ = p.path(x0, x1, ys, t - h, xk=xk)
    _, u = p.path(x0, x1, ys, t, xk=xk)
    assert torch.allclose((xp - xm) / (2 * h), u, atol=1e-5)


def test_euler_lagrange_delta_paths_are_piecewise_straight_and_gaussian_acceleration_matches():
    x0, x1, ys = _tuples(k=2)
    p = OTPPath([0.3, 0.7], 40.0, kernel="delta")
    t = torch.tensor([0.1, 0.5, 0.9], dtype=DT)
    h = 1e-3
    acc = (p.path(x0[:1].expand(3, -1), x1[:1].expand(3, -1), ys[:1].expand(3, -1, -1), t + h)[0]
           - 2 * p.path(x0[:1].expand(3, -1), x1[:1].expand(3, -1), ys[:1].expand(3, -1, -1), t)[0]
           + p.path(x0[:1].expand(3, -1), x1[:1].expand(3, -1), ys[:1].expand(3, -1, -1), t - h)[0]) / h**2
    assert acc.abs().max() < 1e-6
    # Gaussian kernel: x'' = sum_k s_k lambda_k(t) grad g_k(X_k)
    g = OTPPath([0.3, 0.7], [40.0, 60.0], kernel="gaussian", widths=0.1)
    xk = g.solve_direct(x0, x1, ys)
    tt = torch.full((16,), 0.42, dtype=DT)
    acc = (g.path(x0, x1, ys, tt + h, xk=xk)[0] - 2 * g.path(x0, x1, ys, tt, xk=xk)[0]
           + g.path(x0, x1, ys, tt - h, xk=xk)[0]) / h**2
    lam = torch.stack([kernel_density("gaussian", torch.tensor(0.42, dtype=DT), c, 0.1) for c in (0.3, 0.7)])
    expected = torch.einsum("k,bkd->bd", lam * torch.tensor([40.0, 60.0], dtype=DT), xk - ys)
    assert torch.allclose(acc, expected, atol=1e-3 * (1 + expected.abs().max()))


def test_mmd_force_matches_autograd_of_first_variation():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(7, 1, 2, generator=g, dtype=DT)
    y = torch.randn(7, 1, 2, generator=g, dtype=DT) + 1
    bws = torch.tensor([0.7, 2.0], dtype=DT)

    def first_variation(z):  # g(z) = 2 [mean_j k(z, x_j) - mean_j k(z, y_j)], averaged over bandwidths
        out = 0
        for s in bws:
            kx = torch.exp(-(z[:, None] - x[None, :, 0]).pow(2).sum(-1) / (2 * s**2)).mean(1)
            ky = torch.exp(-(z[:, None] - y[None, :, 0]).pow(2).sum(-1) / (2 * s**2)).mean(1)
            out = out + 2 * (kx - ky)
        return out / len(bws)

    z = x[:, 0].clone().requires_grad_(True)
    grad, = torch.autograd.grad(first_variation(z).sum(), z)
    assert torch.allclose(mmd_force(x, y, bws)[:, 0], grad, atol=1e-12)


def test_mmd_potential_pulls_towards_target_and_stays_pinned():
    g = torch.Generator().manual_seed(1)
    x0 = torch.randn(64, 2, generator=g, dtype=DT)
    x1 = torch.randn(64, 2, generator=g, dtype=DT) + torch.tensor([4.0, 0.0], dtype=DT)
    ys = (torch.randn(64, 1, 2, generator=g, dtype=DT) * 0.3 + torch.tensor([2.0, 2.0], dtype=DT))
    p = OTPPath([0.5], 30.0, kernel="gaussian", widths=0.1, potential="mmd", mmd_bandwidths=[1.0],
                picard_iters=60, picard_damping=0.3)
    xk = p.solve(x0, x1, ys)
    base = 0.5 * (x0 + x1)
    assert (xk[:, 0] - torch.tensor([2.0, 2.0], dtype=DT)).norm(dim=1).mean() < \
        (base - torch.tensor([2.0, 2.0], dtype=DT)).norm(dim=1).mean() - 0.3
    assert torch.allclose(p.path(x0, x1, ys, torch.zeros(64, dtype=DT), xk=xk)[0], x0)


def test_alpha_schedule_and_auto_width():
    assert abs(alpha_schedule(0, 100) - 1 / (1 + math.exp(3))) < 1e-12
    assert abs(alpha_schedule(50, 100) - 0.5) < 1e-12
    assert alpha_schedule(30, 100, "linear") == 0.3
    assert alpha_schedule(7, 10, "constant1") == 1.0 and alpha_schedule(7, 10, "constant0") == 0.0
    assert auto_widths([0.25, 0.5, 0.75]) == [0.125, 0.125, 0.125]
    assert auto_widths([0.5]) == [0.25]


def test_tuple_sampling_and_target_sampler():
    ms = [torch.full((5, 2), float(k)) + torch.arange(5.0)[:, None] for k in range(4)]
    chains = torch.stack([torch.arange(5), (torch.arange(5) + 1) % 5, (torch.arange(5) + 2) % 5,
                          torch.arange(5)], dim=1)
    xs = sample_tuples(ms, 32, torch.Generator().manual_seed(0), chains)
    assert xs.shape == (32, 4, 2)
    first = (xs[:, 0, 0]).long()  # value = row index at marginal 0
    assert torch.equal(xs[:, 1, 0].long() - 1, (first + 1) % 5)
    p = OTPPath([1 / 3, 2 / 3], 5.0)
    draw = otp_target_sampler(ms, [0, 1 / 3, 2 / 3, 1], p, 32, 10, torch.Generator().manual_seed(0), chains)
    xt, t, ut = draw(10)
    assert xt.shape == ut.shape == (32, 2) and t.shape == (32,)
    x0_draw = otp_target_sampler(ms, [0, 1 / 3, 2 / 3, 1], p, 32, 10, torch.Generator().manual_seed(0),
                                 curriculum="constant0")
    xt, t, ut = x0_draw(3)
    assert torch.allclose(xt, xt)  # finite
    with pytest.raises(ValueError):
        otp_target_sampler(ms, [0, 0.3, 2 / 3, 1], p, 32, 10, torch.Generator())


def test_piecewise_cfm_targets_are_chords_and_mmfm_hits_knots():
    ms = [torch.randn(40, 2, generator=torch.Generator().manual_seed(k)) + 2 * k for k in range(4)]
    times = [0.0, 0.2, 0.7, 1.0]
    draw = baselines.piecewise_cfm_sampler(ms, times, 512, torch.Generator().manual_seed(0), coupling="ot")
    xt, t, ut = draw(0)
    assert ((t >= 0) & (t <= 1)).all()
    # x_t - u_t (t - t_k) recovers a point of marginal k (the start of its segment)
    seg = torch.searchsorted(torch.tensor(times), t.contiguous(), right=True).sub(1).clamp(0, 2)
    start = xt - ut * (t - torch.tensor(times)[seg])[:, None]
    for k in range(3):
        sel = seg == k
        d = torch.cdist(start[sel], ms[k]).min(1).values
        assert d.max() < 5e-3  # float32 round-off on steep short segments
    draw = baselines.mmfm_sampler(ms, times, 64, torch.Generator().manual_seed(0))
    xt, t, ut = draw(0)
    assert xt.shape == (64, 2) and torch.isfinite(ut).all()
    draw = baselines.endpoint_cfm_sampler(ms, times, 64, torch.Generator().manual_seed(0))
    xt, t, ut = draw(0)
    assert torch.cdist(xt - t[:, None] * ut, ms[0]).min(1).values.max() < 5e-3


def test_training_learns_a_constant_field_and_neural_ode_step_runs():
    torch.manual_seed(0)
    net = VelocityMLP(2, hidden=16, depth=1, embed=16)
    target = torch.tensor([1.0, -2.0])

    def draw(i):
        return torch.randn(64, 2), torch.rand(64), target.expand(64, 2)

    net, info = fit_velocity(net, draw, 150, lr=1e-2, ema_decay=0.8)
    assert info["losses"][-1] < 0.05 * info["losses"][0]
    x = sample_flow(net, torch.zeros(8, 2), [0.0, 1.0], steps=10)
    assert torch.allclose(x[-1], target.expand(8, 2), atol=0.2)
    ms = data.branching(n=64, T=3, d=2)
    net2 = VelocityMLP(2, hidden=16, depth=1)
    _, info = baselines.fit_neural_ode(net2, ms, [0.0, 0.5, 1.0], 2, batch=32, steps=4, sinkhorn_iters=5)
    assert len(info["losses"]) == 2 and all(math.isfinite(v) for v in info["losses"])


def test_data_generators_and_chains_track_a_single_rotating_blob():
    snaps = data.rotating_blobs(n=300, T=9, n_blobs=1, seed=0)
    assert len(snaps) == 9 and snaps[0].shape == (300, 2)
    assert abs(float(snaps[2].mean(0)[1]) - 2.0) < 0.1  # 90 degrees later, the blob sits at (0, 2)
    train = [snaps[s] for s in (0, 2, 4)]
    ch = chain_indices(train)
    assert torch.allclose(train[1][ch[:, 1]].mean(0), torch.tensor([0.0, 2.0]), atol=0.1)
    br = data.branching(n=100, T=5, d=5)
    assert len(br) == 5 and br[4].shape == (100, 5)
    assert len(data.steering_gaussians(n=10)) == 3


def test_closed_form_checks_pass_their_thresholds():
    r = experiment.closed_form_checks(0)
    assert r["delta_err"] < 1e-6 and r["picard_err"] < 1e-5 and r["boundary_err"] < 1e-12
    assert r["quadrature_err"] < 1e-4


@pytest.mark.parametrize("call", [
    lambda: kernel_integrals("cosine", 0.5, 0.5, 0.1),
    lambda: kernel_integrals("gaussian", 0.5, 1.2, 0.1),
    lambda: kernel_integrals("box", 0.5, 0.5, 0.0),
    lambda: OTPPath([0.5, 0.3], 1.0),
    lambda: OTPPath([0.5], [-1.0]),
    lambda: OTPPath([0.5], 1.0, potential="kl"),
    lambda: OTPPath([0.5], 1.0, widths=[0.1, 0.2]),
    lambda: OTPPath([0.5], 1.0).solve_direct(torch.zeros(3, 2), torch.zeros(3, 2), torch.zeros(3, 2, 2)),
    lambda: OTPPath([0.5], 1.0, potential="mmd").solve_direct(torch.zeros(3, 2), torch.zeros(3, 2),
                                                              torch.zeros(3, 1, 2)),
    lambda: OTPPath([0.5], 1.0).path(torch.zeros(3, 2), torch.zeros(3, 2), torch.zeros(3, 1, 2), torch.zeros(4)),
    lambda: alpha_schedule(5, 3),
    lambda: alpha_schedule(1, 3, "cosine"),
    lambda: baselines.piecewise_cfm_sampler([torch.zeros(3, 2)], [0.0], 4, torch.Generator()),
    lambda: baselines.piecewise_cfm_sampler([torch.zeros(3, 2)] * 2, [0.0, 1.0], 4, torch.Generator(), "bogus"),
    lambda: baselines.mmfm_sampler([torch.zeros(3, 2)] * 2, [0.0, 1.0], 4, torch.Generator()),
    lambda: data.rotating_blobs(n=1),
    lambda: data.branching(d=1),
    lambda: data.gaussian_marginals([[0.0]], 0.1),
    lambda: fit_velocity(VelocityMLP(2), lambda i: None, 0),
    lambda: experiment.run({"iters": 1}, "cpu", 0),
    lambda: experiment.run(experiment.CONFIGS["quick"], "cpu", -1),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


# ---------------------------------------------------------------- MeanFlow, Sinkhorn, OT on the device
def test_meanflow_residual_is_fm_on_the_diagonal_and_its_jvp_is_the_total_derivative():
    from icml26.papers.otp_fm.networks import meanflow_residual

    torch.manual_seed(0)
    net = VelocityMLP(2, hidden=16, depth=2, embed=16, interval=True).double()
    x, u = torch.randn(8, 2, dtype=DT), torch.randn(8, 2, dtype=DT)
    t = torch.rand(8, dtype=DT) * 0.5
    # on the diagonal t2 = t the residual is plain flow matching |V(x, t, 0) - u|^2
    assert torch.allclose(meanflow_residual(net, x, t, u, t), (net(x, t, torch.zeros(8, dtype=DT)) - u).pow(2).sum(-1))
    # off the diagonal: target u + (t2 - t) dV/dt along the flow, dV/dt by a finite difference
    t2 = t + 0.3
    h = 1e-6
    fd = (net(x + h * u, t + h, t2 - t - h) - net(x - h * u, t - h, t2 - t + h)) / (2 * h)
    target = u + (t2 - t)[:, None] * fd
    assert torch.allclose(meanflow_residual(net, x, t, u, t2), (net(x, t, t2 - t) - target).pow(2).sum(-1), atol=1e-6)


def test_meanflow_training_learns_a_constant_field_with_ema_and_clipping():
    torch.manual_seed(0)
    net = VelocityMLP(2, hidden=16, depth=1, embed=16, interval=True)
    target = torch.tensor([1.0, -2.0])
    net, info = fit_velocity(net, lambda i: (torch.randn(64, 2), torch.rand(64), target.expand(64, 2)), 200, lr=1e-2,
                             loss="meanflow", weighting="adaptive", ema_decay=0.9, clip=1.0)
    assert info["losses"][-1] < 0.05 * info["losses"][0]
    assert torch.allclose(net(torch.zeros(4, 2), 0.2, 0.5), target.expand(4, 2), atol=0.2)


def test_sinkhorn_divergence_gradient_is_the_unrolled_gradient():
    from icml26.transport import sinkhorn_divergence
    from icml26.transport.metrics import sinkhorn_potentials

    g = torch.Generator().manual_seed(0)
    x = torch.randn(30, 2, generator=g, dtype=DT).requires_grad_(True)
    y = torch.randn(25, 2, generator=g, dtype=DT) + 1

    def unrolled(a, b):  # every Sinkhorn iteration on the autograd tape
        c = torch.cdist(a, b).pow(2) / 2
        la = torch.full((a.shape[0],), -math.log(a.shape[0]), dtype=DT)
        lb = torch.full((b.shape[0],), -math.log(b.shape[0]), dtype=DT)
        f, gg = torch.zeros_like(la), torch.zeros_like(lb)
        for _ in range(400):
            f = -0.1 * torch.logsumexp(lb[None] + (gg[None] - c) / 0.1, 1)
            gg = -0.1 * torch.logsumexp(la[:, None] + (f[:, None] - c) / 0.1, 0)
        return (f * la.exp()).sum() + (gg * lb.exp()).sum()

    ref = unrolled(x, y) - 0.5 * (unrolled(x, x) + unrolled(y, y))
    g_ref, = torch.autograd.grad(ref, x)
    ours = sinkhorn_divergence(x, y, eps=0.1, iters=400)
    g_ours, = torch.autograd.grad(ours, x)
    assert abs(float(ours.detach() - ref.detach())) < 1e-8 and torch.allclose(g_ours, g_ref, atol=1e-6)
    g_fast, = torch.autograd.grad(sinkhorn_divergence(x, y, eps=0.1, iters=400, debias_target=False), x)
    assert torch.allclose(g_fast, g_ref, atol=1e-6)  # the data self-term is a constant
    f, gg, _, _ = sinkhorn_potentials(torch.zeros(2, 3, 4, dtype=DT), 0.5, 3)  # batched cost matrices
    assert f.shape == (2, 3) and gg.shape == (2, 4)


def test_sinkhorn_plan_is_a_near_optimal_coupling_on_the_device_of_its_inputs():
    from icml26.transport import exact_ot_plan, sinkhorn_plan

    g = torch.Generator().manual_seed(2)
    x, y = torch.randn(80, 3, generator=g), torch.randn(70, 3, generator=g) + 1
    plan, exact = sinkhorn_plan(x, y), exact_ot_plan(x, y)
    c = torch.cdist(x.double(), y.double()).pow(2)
    assert torch.allclose(plan.sum(1), torch.full((80,), 1 / 80, dtype=DT), atol=1e-4)
    assert torch.allclose(plan.sum(0), torch.full((70,), 1 / 70, dtype=DT), atol=1e-9)
    assert float((plan * c).sum()) < 1.01 * float((exact * c).sum())
    ms = data.rotating_blobs(n=60, T=3, deg_per_step=20.0)
    assert chain_indices(ms, solver="sinkhorn").shape == (60, 3)


# ---------------------------------------------------------------- the efficiency protocol
def test_time_to_target_rule_is_symmetric_and_uses_the_best_validation_checkpoint():
    # (seconds, validation W1, held-out W1): the selected checkpoint only changes when validation improves
    curve_a = [(1.0, 0.9, 0.8), (2.0, 0.5, 0.4), (3.0, 0.6, 0.1), (4.0, 0.4, 0.3)]
    sel = experiment._running_best(curve_a)
    assert [h for _, h in sel] == [0.8, 0.4, 0.4, 0.3]  # the lucky 0.1 at a worse validation is never chosen
    curve_b = [(10.0, 0.7, 0.6), (20.0, 0.3, 0.35)]
    sel_b = experiment._running_best(curve_b)
    target = max(sel[-1][1], sel_b[-1][1])
    assert target == 0.35
    assert experiment._time_to(sel, target) == 4.0 and experiment._time_to(sel_b, target) == 20.0
    assert experiment._time_to(sel, 0.01) == math.inf


def test_efficiency_fold_runs_both_methods_on_the_same_protocol():
    import copy

    cfg = copy.deepcopy(experiment.CONFIGS["standard"])
    cfg.update(hidden=8, depth=1, batch=32, steps_per_segment=2)
    cfg["efficiency"].update(n=40, batch=16, otp_iters=6, ode_iters=2, evals=2, ode_steps=2)
    res = experiment._efficiency(cfg, "cpu", 0)
    fold = res["folds"]["1"]
    assert set(fold["curves"]) == {"ode", "otp"} and all(len(c) == 2 for c in fold["curves"].values())
    assert fold["target"] == max(fold["final_w1"].values())
    assert all(math.isfinite(v) for v in fold["reach_seconds"].values())
    assert 0 < res["time_ratio"] < math.inf and res["baseline_vs_trivial"] > 0


# ---------------------------------------------------------------- real data
def test_gapminder_from_the_vendored_table_and_from_a_user_file(tmp_path):
    snaps, years = data.gapminder()
    assert years == list(range(1952, 2008, 5)) and all(s.shape == (142, 2) for s in snaps)
    assert float(snaps[-1][:, 1].mean()) > float(snaps[0][:, 1].mean()) + 15  # life expectancy rose
    f = tmp_path / "mini.csv"
    f.write_text("country,year,lifeExp,gdpPercap\na,1950,40,1000\nb,1950,50,100\na,1960,45,1000\nb,1960,55,10\n"
                 "a,1970,60,10000\nb,1970,65,1000\n")
    snaps, years = data.gapminder(f)
    assert years == [1950, 1960, 1970]
    assert torch.allclose(snaps[2], torch.tensor([[4.0, 60.0], [3.0, 65.0]]))
    f.write_text("year,lifeExp\n1950,40\n")
    with pytest.raises(ValueError, match="columns"):
        data.gapminder(f)


# ---------------------------------------------------------------- the explorer's shipped models
def test_shipped_explorer_weights_match_their_checksum_and_load():
    import hashlib

    from icml26.papers.otp_fm import explorer_models as em

    assert hashlib.sha256(em.WEIGHTS.read_bytes()).hexdigest() == em.SHA256
    models = em.load_models()
    assert set(models) == set(em._model_keys(em.SPEC["strengths"]))
    with pytest.raises(ValueError, match="sha256"):
        em.load_models(em.WEIGHTS, "0" * 64)


def test_explorer_script_reproduces_a_smaller_version_bit_for_bit(tmp_path):
    from safetensors import safe_open

    from icml26.papers.otp_fm import explorer_models as em

    small = {**em.SPEC, "n": 60, "iters": 8, "ode_iters": 2, "batch": 32}
    h1 = em.save_models(em.train_models(small), tmp_path / "a.safetensors", small)
    h2 = em.save_models(em.train_models(small), tmp_path / "b.safetensors", small)
    assert h1 == h2  # the script is deterministic from its seed
    with safe_open(str(tmp_path / "a.safetensors"), "pt") as a, safe_open(str(em.WEIGHTS), "pt") as shipped:
        assert sorted(a.keys()) == sorted(shipped.keys())
        assert all(a.get_slice(k).get_shape() == shipped.get_slice(k).get_shape() for k in a.keys())
    loaded = em.load_models(tmp_path / "a.safetensors", h1)
    assert set(loaded) == set(em.load_models())


def test_shipped_explorer_models_interpolate_as_the_experiment_says():
    from icml26.papers.otp_fm import explore

    otp = explore._w2_observed("otp_s1000")
    ot_cfm = explore._w2_observed("ot_cfm")
    held = list(experiment.BLOB_HELD)
    assert sum(otp[k] for k in held) < sum(ot_cfm[k] for k in held)
    assert max(otp) < 0.6  # every observed snapshot is matched


def test_headline_reads_the_best_baseline_and_its_control_the_chord():
    from icml26.papers.otp_fm import claims

    heads = [c for c in claims.CLAIMS if c.headline]
    assert [c.id for c in heads] == ["heldout_trained_vs_mmfm"] and heads[0].control is not None
    trained = {"otp_w2": {"mean_held_w2": 0.3}, "ot_cfm": {"mean_held_w2": 0.6}, "mmfm": {"mean_held_w2": 0.25}}
    r = {"blobs": {"trained": trained, "training_free": {"chord": [0.5, 0.7]}}}
    assert heads[0].metric(r) == pytest.approx(0.3 / 0.25)  # the binding (best) baseline, MMFM
    assert heads[0].details(r) == pytest.approx({"vs_ot_cfm": 0.5, "vs_mmfm": 1.2})
    assert heads[0].control.metric(r) == pytest.approx(0.6 / 0.25)
    del trained["mmfm"]  # quick runs OT-CFM only
    assert heads[0].metric(r) == pytest.approx(0.5) and heads[0].control.metric(r) == pytest.approx(1.0)
    words = {c.id: (c.op, c.threshold.get("standard")) for c in claims.CLAIMS}
    assert words["jump_trained_ratio"] == ("<", 1.0) and words["efficiency_vs_simulation"] == ("<", 1.0)
    assert {c.kind for c in claims.CLAIMS if c.id in ("jump_trained_half", "efficiency_third")} == {"extension"}
