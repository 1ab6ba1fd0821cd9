"""Batched dense solves that stay correct on a multi-threaded CPU.

torch's CPU LU factorisation of a batch (behind ``torch.linalg.solve``, ``solve_ex`` and ``inv``) splits the batch
over threads with a grain size that rounds to zero for matrices larger than 14 x 14, so several threads call
LAPACK's ``getrf`` at once, which MKL does not survive: "Parameter 6 was incorrect on entry to DLASWP", corrupt
pivots and a ``lu_solve`` error, or wrong numbers (pytorch/pytorch issue 142815; the fix, pull request 181570, is
not in a release). Two identity matrices of size 151 on two threads reproduce it (``tests/test_linalg.py``), and so
did ssn_games' Newton systems at quick scale. These wrappers solve such batches one matrix at a time on the CPU
when more than one thread is set; one matrix per call lets LAPACK use the threads inside the factorisation, and
for the matrices where this applies the per-call overhead is small against the ``n^3`` work. Elsewhere (CUDA,
one thread, small matrices, a single matrix) they are the torch functions themselves. Inputs must be finite
tensors (``ValueError`` naming the argument otherwise).
"""

from __future__ import annotations

import math

import torch

from icml26 import checks

SAFE_SIZE = 14  # the largest matrix size whose batches torch's CPU LU keeps on one thread per chunk


def _one_at_a_time(A: torch.Tensor) -> bool:
    return (A.device.type == "cpu" and A.dim() > 2 and A.shape[-1] > SAFE_SIZE and torch.get_num_threads() > 1
            and math.prod(A.shape[:-2]) > 1)


def _square(A) -> torch.Tensor:
    if not isinstance(A, torch.Tensor) or A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"A must be a tensor of square matrices (..., n, n); got "
                         f"{tuple(A.shape) if isinstance(A, torch.Tensor) else type(A).__name__}")
    return checks.tensor("A", A)


def _per_matrix(fn, A: torch.Tensor, B: torch.Tensor):
    """``fn(a, b)`` for each matrix of the broadcast batch, stacked back: ``(X, ...)`` as ``fn`` returns them."""
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2 or Bm.shape[-2] != n:
        raise ValueError(f"B must have {n} rows to match A {tuple(A.shape)}; got {tuple(B.shape)}")
    batch = torch.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    As = A.expand(*batch, n, n).reshape(-1, n, n)
    Bs = Bm.expand(*batch, *Bm.shape[-2:]).reshape(-1, *Bm.shape[-2:])
    outs = [fn(a, b) for a, b in zip(As, Bs)]
    X = torch.stack([o[0] for o in outs]).reshape(*batch, *Bm.shape[-2:])
    rest = [torch.stack([o[i] for o in outs]).reshape(batch) for i in range(1, len(outs[0]))]
    return (X.squeeze(-1) if vector else X), *rest


def _tensor(name: str, B) -> torch.Tensor:
    if not isinstance(B, torch.Tensor):
        raise ValueError(f"{name} must be a tensor; got {type(B).__name__}")
    return checks.tensor(name, B)


def solve_ex(A: torch.Tensor, B: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``torch.linalg.solve_ex(A, B)``: the solution of ``A X = B`` and LAPACK's ``info`` per matrix.

    ``B`` is a batch of vectors when it is 1-D or has ``A``'s shape without the last dimension, as in torch.
    """
    return _solve_ex(_square(A), _tensor("B", B))


def solve(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """``torch.linalg.solve(A, B)`` (which raises torch's error for a singular matrix)."""
    return _solve(_square(A), _tensor("B", B))


def inv(A: torch.Tensor) -> torch.Tensor:
    """``torch.linalg.inv(A)`` (which raises torch's error for a singular matrix)."""
    return _inv(_square(A))


# The unchecked cores, for the library's loops and inner functions (their callers check their own inputs; ssn_games
# relies on a non-finite system giving a non-finite step it can reject, not an error).
def _solve_ex(A: torch.Tensor, B: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    if not _one_at_a_time(A):
        return torch.linalg.solve_ex(A, B)
    return _per_matrix(torch.linalg.solve_ex, A, B)


def _solve(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    if not _one_at_a_time(A):
        return torch.linalg.solve(A, B)
    return _per_matrix(lambda a, b: (torch.linalg.solve(a, b),), A, B)[0]


def _inv(A: torch.Tensor) -> torch.Tensor:
    if not _one_at_a_time(A):
        return torch.linalg.inv(A)
    n = A.shape[-1]
    return torch.stack([torch.linalg.inv(a) for a in A.reshape(-1, n, n)]).reshape(A.shape)
