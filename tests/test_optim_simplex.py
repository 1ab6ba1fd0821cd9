"""Tests of the shared simplex-projection (sparsemax) block: oracle, Jacobian, properties, bad input."""

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from icml26.optim import simplex


def _brute_force(v: np.ndarray, radius: float = 1.0) -> np.ndarray:
    """Exact projection by enumerating supports: solve the KKT system on each, keep the feasible optimum."""
    k = len(v)
    best, best_d = None, np.inf
    for size in range(1, k + 1):
        for S in itertools.combinations(range(k), size):
            S = list(S)
            tau = (v[S].sum() - radius) / size
            p = np.zeros(k)
            p[S] = v[S] - tau
            if (p >= -1e-12).all():
                d = np.sum((p - v) ** 2)
                if d < best_d:
                    best, best_d = p, d
    return best


def test_matches_brute_force_on_tiny_cases():
    rng = np.random.default_rng(0)
    for _ in range(40):
        k = int(rng.integers(1, 6))
        v = rng.normal(size=k) * 2
        r = float(rng.uniform(0.5, 2.0))
        got = simplex.project(torch.tensor(v), radius=r).numpy()
        np.testing.assert_allclose(got, _brute_force(v, r), atol=1e-12)


def test_batched_equals_rowwise():
    v = torch.randn(4, 3, 9, dtype=torch.float64)
    out = simplex.project(v)
    for i in range(4):
        for j in range(3):
            torch.testing.assert_close(out[i, j], simplex.project(v[i, j]))


def test_known_values():
    torch.testing.assert_close(simplex.project(torch.tensor([0.5, 0.2, -1.0])), torch.tensor([0.65, 0.35, 0.0]))
    torch.testing.assert_close(simplex.project(torch.tensor([3.0, 0.0])), torch.tensor([1.0, 0.0]))


def test_jacobian_matches_finite_differences():
    g = torch.Generator().manual_seed(1)
    v = torch.randn(5, 8, dtype=torch.float64, generator=g)
    J = simplex.jacobian(v)
    eps = 1e-7
    for i in range(8):
        e = torch.zeros(8, dtype=torch.float64)
        e[i] = eps
        fd = (simplex.project(v + e) - simplex.project(v - e)) / (2 * eps)
        torch.testing.assert_close(J[..., :, i], fd, atol=1e-6, rtol=0)


def test_jvp_matches_dense_jacobian_and_autograd():
    v = torch.randn(3, 6, dtype=torch.float64)
    u = torch.randn(3, 6, dtype=torch.float64)
    dense = (simplex.jacobian(v) @ u.unsqueeze(-1)).squeeze(-1)
    torch.testing.assert_close(simplex.jvp(v, u), dense)
    _, auto = torch.func.jvp(simplex.project, (v,), (u,))
    torch.testing.assert_close(simplex.jvp(v, u), auto)


def test_jacobian_is_projector():
    v = torch.randn(4, 7, dtype=torch.float64)
    J = simplex.jacobian(v)
    torch.testing.assert_close(J @ J, J)
    torch.testing.assert_close(J, J.transpose(-1, -2))
    torch.testing.assert_close(J.sum(-1), torch.zeros(4, 7, dtype=torch.float64))


finite = arrays(np.float64, st.integers(1, 12), elements=st.floats(-50, 50, allow_nan=False, allow_infinity=False))


@settings(max_examples=25, deadline=None)
@given(finite, st.floats(0.1, 5.0))
def test_output_on_simplex(v, radius):
    p = simplex.project(torch.tensor(v), radius=radius)
    assert bool((p >= 0).all())
    assert abs(float(p.sum()) - radius) <= 1e-9 * max(1.0, radius)


@settings(max_examples=25, deadline=None)
@given(finite)
def test_idempotent_and_optimal(v):
    t = torch.tensor(v)
    p = simplex.project(t)
    torch.testing.assert_close(simplex.project(p), p, atol=1e-12, rtol=0)
    # Variational inequality: <v - p, q - p> <= 0 for every vertex q of the simplex.
    for i in range(len(v)):
        q = torch.zeros_like(p)
        q[i] = 1.0
        assert float(((t - p) * (q - p)).sum()) <= 1e-8 * (1 + float(t.abs().max()))


def test_bad_input_raises():
    with pytest.raises(ValueError, match="v must be a torch.Tensor"):
        simplex.project(np.zeros(3))
    with pytest.raises(ValueError, match="floating"):
        simplex.project(torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match="finite"):
        simplex.project(torch.tensor([1.0, float("nan")]))
    with pytest.raises(ValueError, match="radius"):
        simplex.project(torch.zeros(3), radius=0.0)
    with pytest.raises(ValueError, match="at least one"):
        simplex.project(torch.zeros(0))
    with pytest.raises(ValueError, match="u must have the shape"):
        simplex.jvp(torch.zeros(3), torch.zeros(4))
