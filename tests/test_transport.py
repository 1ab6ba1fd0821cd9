"""Tests of the shared transport blocks: couplings, paths, ODE integration and metrics."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import CubicSpline

from icml26.transport import (
    chain_indices,
    cubic_spline_path,
    exact_ot_plan,
    gaussian_w2,
    integrate,
    linear_path,
    mmd,
    ot_map_indices,
    piecewise_linear_path,
    sample_plan,
    sinkhorn_divergence,
    sliced_wasserstein,
    wasserstein,
)
from icml26.transport.couplings import cost_matrix


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 12), m=st.integers(1, 12), seed=st.integers(0, 10_000))
def test_plan_is_a_coupling_with_the_right_marginals(n, m, seed):
    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(n, 3, generator=g), torch.randn(m, 3, generator=g)
    a = torch.rand(n, generator=g, dtype=torch.float64) + 0.1
    a = a / a.sum()
    plan = exact_ot_plan(x, y, a=a)
    assert plan.shape == (n, m) and (plan >= 0).all()
    assert torch.allclose(plan.sum(1), a, atol=1e-9)
    assert torch.allclose(plan.sum(0), torch.full((m,), 1.0 / m, dtype=torch.float64), atol=1e-9)


def test_plan_is_optimal_against_brute_force_permutations():
    import itertools

    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(5, 2, generator=g), torch.randn(5, 2, generator=g)
    c = cost_matrix(x, y)
    best = min(sum(float(c[i, p[i]]) for i in range(5)) for p in itertools.permutations(range(5))) / 5
    assert abs(float((exact_ot_plan(x, y) * c).sum()) - best) < 1e-9
    # the arg-max map of a permutation plan is that permutation: each target used once
    assert sorted(ot_map_indices(x, y).tolist()) == list(range(5))


def test_ot_map_recovers_a_shift_and_chains_follow_it():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(30, 2, generator=g)
    perm = torch.randperm(30, generator=g)
    y = x[perm] + 0.01
    idx = ot_map_indices(x, y)
    assert torch.equal(y[idx] - 0.01, x) or torch.allclose(y[idx] - 0.01, x)
    chains = chain_indices([x, y, y + 0.01])
    assert chains.shape == (30, 3)
    assert torch.allclose(y[chains[:, 1]], x + 0.01)
    assert torch.equal(chains[:, 2], chains[:, 1])


def test_sample_plan_follows_the_plan():
    plan = torch.tensor([[0.5, 0.0], [0.0, 0.5]], dtype=torch.float64)
    i, j = sample_plan(plan, 2000, torch.Generator().manual_seed(0))
    assert torch.equal(i, j)
    assert 0.4 < i.float().mean() < 0.6


def test_gaussian_w2_matches_closed_form_and_empirical():
    m1, m2 = torch.zeros(2), torch.tensor([3.0, 4.0])
    assert abs(gaussian_w2(m1, torch.eye(2), m2, torch.eye(2)) - 5.0) < 1e-9
    # 1-D: W2^2 = (m1 - m2)^2 + (s1 - s2)^2
    assert abs(gaussian_w2([0.0], [[4.0]], [1.0], [[1.0]]) - math.sqrt(1 + 1)) < 1e-9
    g = torch.Generator().manual_seed(0)
    s1 = torch.tensor([[1.0, 0.3], [0.3, 0.5]])
    l1 = torch.linalg.cholesky(s1)
    x = torch.randn(1500, 2, generator=g) @ l1.T
    y = torch.randn(1500, 2, generator=g) * 0.7 + torch.tensor([1.0, -1.0])
    exact = gaussian_w2(torch.zeros(2), s1, torch.tensor([1.0, -1.0]), 0.49 * torch.eye(2))
    assert abs(wasserstein(x, y, p=2) - exact) < 0.08


def test_wasserstein_of_a_shift_and_w1_le_w2():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(200, 3, generator=g)
    shift = torch.tensor([0.5, 0.0, 0.0])
    assert abs(wasserstein(x, x + shift, p=2) - 0.5) < 1e-6
    assert abs(wasserstein(x, x + shift, p=1) - 0.5) < 1e-6
    y = torch.randn(150, 3, generator=g) * 2
    assert wasserstein(x, y, p=1) <= wasserstein(x, y, p=2) + 1e-9


def test_mmd_zero_on_identical_positive_otherwise_and_differentiable():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(100, 2, generator=g)
    assert float(mmd(x, x, bandwidths=[1.0])) < 1e-10
    y = (x + 1.0).requires_grad_(True)
    val = mmd(x, y)
    assert float(val.detach()) > 1e-3
    val.backward()
    assert torch.isfinite(y.grad).all() and y.grad.abs().sum() > 0


def test_sliced_wasserstein_exact_in_one_dimension():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(300, 1, generator=g)
    assert abs(float(sliced_wasserstein(x, x + 0.7, n_projections=5)) - 0.7) < 1e-5
    y = torch.randn(120, 1, generator=g) + 0.7
    assert abs(float(sliced_wasserstein(x, y, n_projections=3)) - wasserstein(x[:120], y)) < 0.35


def test_sinkhorn_divergence_approaches_half_w2_squared():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(60, 2, generator=g, dtype=torch.float64)
    y = x + torch.tensor([1.0, 0.0], dtype=torch.float64)
    s = float(sinkhorn_divergence(x, y, eps=0.01, iters=300))
    assert abs(s - 0.5) < 0.05
    assert abs(float(sinkhorn_divergence(x, x, eps=0.05))) < 1e-8


def test_linear_and_piecewise_paths():
    x0, x1 = torch.zeros(4, 2), torch.ones(4, 2)
    xt, ut = linear_path(x0, x1, torch.full((4,), 0.25))
    assert torch.allclose(xt, torch.full((4, 2), 0.25)) and torch.allclose(ut, x1)
    xs = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]])
    times = [0.0, 0.5, 1.0]
    x, u = piecewise_linear_path(xs, times, 0.25)
    assert torch.allclose(x, torch.tensor([[0.5, 0.0]])) and torch.allclose(u, torch.tensor([[2.0, 0.0]]))
    x, u = piecewise_linear_path(xs, times, 0.75)
    assert torch.allclose(x, torch.tensor([[1.0, 0.5]])) and torch.allclose(u, torch.tensor([[0.0, 2.0]]))


def test_cubic_spline_matches_scipy_natural_spline():
    g = torch.Generator().manual_seed(0)
    times = torch.tensor([0.0, 0.2, 0.55, 0.7, 1.0], dtype=torch.float64)
    xs = torch.randn(3, 5, 2, generator=g, dtype=torch.float64)
    t = torch.rand(3, generator=g, dtype=torch.float64)
    x, u = cubic_spline_path(xs, times, t)
    for b in range(3):
        cs = CubicSpline(times.numpy(), xs[b].numpy(), bc_type="natural")
        assert np.allclose(x[b].numpy(), cs(t[b].item()), atol=1e-10)
        assert np.allclose(u[b].numpy(), cs(t[b].item(), 1), atol=1e-10)
    # interpolates the knots
    xk, _ = cubic_spline_path(xs[:, :], times, times[2])
    assert torch.allclose(xk, xs[:, 2])


def test_ode_linear_field_matches_matrix_exponential():
    a = torch.tensor([[0.0, -1.0], [1.0, -0.1]], dtype=torch.float64)
    x0 = torch.tensor([[1.0, 0.0], [0.5, 2.0]], dtype=torch.float64)
    times = torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64)
    exact = torch.stack([x0 @ torch.linalg.matrix_exp(a * t).T for t in times])
    rk4 = integrate(lambda x, t: x @ a.T, x0, times, method="rk4", steps=100)
    assert (rk4 - exact).abs().max() < 1e-8
    euler = integrate(lambda x, t: x @ a.T, x0, times, method="euler", steps=100)
    assert 1e-4 < (euler - exact).abs().max() < 5e-2  # first order: visibly worse than RK4
    dop = integrate(lambda x, t: x @ a.T, x0, times, method="dopri5", rtol=1e-9, atol=1e-9)
    assert (dop - exact).abs().max() < 1e-6


@pytest.mark.parametrize("call", [
    lambda: exact_ot_plan(torch.zeros(3), torch.zeros(3, 2)),
    lambda: exact_ot_plan(torch.zeros(3, 2), torch.zeros(3, 3)),
    lambda: exact_ot_plan(torch.zeros(3, 2), torch.zeros(3, 2), a=torch.ones(3)),
    lambda: exact_ot_plan(torch.tensor([[float("nan"), 0.0]]), torch.zeros(1, 2)),
    lambda: sample_plan(-torch.ones(2, 2), 3),
    lambda: chain_indices([torch.zeros(3, 2)]),
    lambda: wasserstein(torch.zeros(3, 2), torch.zeros(3, 2), p=3),
    lambda: mmd(torch.zeros(3, 2), torch.zeros(3, 2), bandwidths=[-1.0]),
    lambda: sliced_wasserstein(torch.zeros(3, 2), torch.zeros(3, 2), n_projections=0),
    lambda: sinkhorn_divergence(torch.zeros(3, 2), torch.zeros(3, 2), eps=0),
    lambda: linear_path(torch.zeros(3, 2), torch.zeros(4, 2), 0.5),
    lambda: piecewise_linear_path(torch.zeros(2, 3, 2), [0.0, 0.5, 0.4], 0.1),
    lambda: cubic_spline_path(torch.zeros(2, 2, 2), [0.0, 1.0], 0.1),
    lambda: integrate(lambda x, t: x, torch.zeros(3, 2), [0.0, 1.0], method="bogus"),
    lambda: integrate(lambda x, t: x, torch.zeros(3, 2), [1.0, 0.0]),
    lambda: gaussian_w2([0.0, 0.0], torch.eye(3), [0.0, 0.0], torch.eye(2)),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
