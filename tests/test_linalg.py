"""icml26.linalg: batched solves that stay correct when torch runs the CPU on several threads."""

import contextlib

import pytest
import torch

from icml26 import linalg


@contextlib.contextmanager
def threads(n):
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def test_identity_batch_on_two_threads_is_solved():
    """The reproduction of pytorch issue 142815: two 151 x 151 identities, two threads."""
    eye = torch.eye(151, dtype=torch.float64).expand(2, 151, 151).contiguous()
    ones = torch.ones(2, 151, dtype=torch.float64)
    with threads(2):
        x, info = linalg.solve_ex(eye, ones)
        assert torch.equal(info, torch.zeros(2, dtype=info.dtype)) and torch.equal(x, ones)
        assert torch.equal(linalg.solve(eye, ones), ones)
        assert torch.equal(linalg.inv(eye), eye)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_matches_torch_on_vectors_matrices_and_broadcast_batches(n_threads):
    g = torch.Generator().manual_seed(0)
    A = torch.randn(3, 4, 20, 20, generator=g, dtype=torch.float64) + 5 * torch.eye(20, dtype=torch.float64)
    b_vec = torch.randn(3, 4, 20, generator=g, dtype=torch.float64)
    b_mat = torch.randn(4, 20, 3, generator=g, dtype=torch.float64)  # broadcast over A's first batch dimension
    with threads(1):
        ref_vec, ref_mat, ref_inv = (torch.linalg.solve(A, b_vec), torch.linalg.solve(A, b_mat),
                                     torch.linalg.inv(A))
    with threads(n_threads):
        assert torch.allclose(linalg.solve_ex(A, b_vec)[0], ref_vec, atol=1e-12)
        assert torch.allclose(linalg.solve(A, b_mat), ref_mat, atol=1e-12)
        assert torch.allclose(linalg.inv(A), ref_inv, atol=1e-12)
        singular = A.clone()
        singular[1, 2] = 0.0
        assert linalg.solve_ex(singular, b_vec)[1][1, 2] > 0  # LAPACK's info marks the singular matrix


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="A must be a tensor of square matrices"):
        linalg.solve(torch.ones(3, 2), torch.ones(3))
    with pytest.raises(ValueError, match="B must be a tensor"):
        linalg.solve_ex(torch.eye(3), [1.0, 2.0, 3.0])
    with threads(2), pytest.raises(ValueError, match="B must have 20 rows"):
        linalg.solve_ex(torch.eye(20).expand(2, 20, 20), torch.ones(2, 19, 1))
