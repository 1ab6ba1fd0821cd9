"""Matrix-game helpers shared by the method and the baselines (paper §1; docs/papers/ssn_games.md §1-§2).

Convention: ``A`` has shape ``(B, n, m)`` (a batch of ``B`` games) or ``(n, m)``; the row player
``x in Delta_n`` minimises and the column player ``y in Delta_m`` maximises ``x^T A y``. Cost is
counted in *mat-vec equivalents*: one product with ``A`` or ``A^T`` costs ``2nm`` flops = 1 unit.
"""

from __future__ import annotations

import math

import torch

from icml26 import checks

DISTRIBUTIONS = ("gaussian", "uniform", "sign", "skew")


def check_games(A, name: str = "A") -> torch.Tensor:
    """Validate a payoff tensor and return it as a batch ``(B, n, m)`` (a 2-D input gets ``B = 1``)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be the non-empty name of the argument; got {name!r}")
    if not isinstance(A, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape (n, m) or (B, n, m); got {type(A).__name__}")
    if not A.is_floating_point():
        raise ValueError(f"{name} must have a floating dtype (float64 recommended); got {A.dtype}")
    if A.dim() == 2:
        A = A.unsqueeze(0)
    if A.dim() != 3 or min(A.shape) < 1:
        raise ValueError(f"{name} must have shape (n, m) or (B, n, m) with positive sizes; got {tuple(A.shape)}")
    if not bool(torch.isfinite(A).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return A


def random_games(batch: int, n: int, m: int, *, distribution: str = "gaussian", seed: int = 0,
                 device="cpu", dtype=torch.float64) -> torch.Tensor:
    """``batch`` seeded random games ``(batch, n, m)``: i.i.d. N(0,1), U[0,1] or +-1 entries, or ``"skew"``.

    ``"skew"`` is a structured family: the symmetric zero-sum game ``A = (G - G^T) / sqrt(2)`` with ``G``
    Gaussian (``n == m``; game value 0, both players share one equilibrium strategy, so the two supports are
    equal by construction). See docs/papers/ssn_games.md §2.
    """
    for label, v in (("batch", batch), ("n", n), ("m", m)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{label} must be a positive integer; got {v!r}")
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}; got {distribution!r}")
    if distribution == "skew" and n != m:
        raise ValueError(f"distribution='skew' needs a square game (n == m); got n={n}, m={m}")
    checks.seed("seed", seed)
    checks.device("device", device)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
    g = torch.Generator(device="cpu").manual_seed(int(seed))
    if distribution == "gaussian":
        A = torch.randn(batch, n, m, generator=g, dtype=torch.float64)
    elif distribution == "skew":
        A = torch.randn(batch, n, m, generator=g, dtype=torch.float64)
        A = (A - A.transpose(1, 2)) / math.sqrt(2.0)
    elif distribution == "uniform":
        A = torch.rand(batch, n, m, generator=g, dtype=torch.float64)
    else:
        A = torch.randint(0, 2, (batch, n, m), generator=g).to(torch.float64) * 2 - 1
    return A.to(device=device, dtype=dtype)


def split(z: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Split a stacked ``(..., n + m)`` vector into its row (``x``) and column (``y``) parts."""
    checks.tensor("z", z, ndim=range(1, 8))
    if not 1 <= checks.positive_int("n", n) < z.shape[-1]:
        raise ValueError(f"n must lie in [1, {z.shape[-1] - 1}] (both parts non-empty); got {n}")
    return _split(z, n)


def _split(z, n):
    return z[..., :n], z[..., n:]


def _check_pair(A, x, y) -> None:
    """``A`` (n, m) or (B, n, m) and strategies ``x`` (..., n), ``y`` (..., m), all finite."""
    checks.tensor("A", A, ndim=(2, 3))
    checks.tensor("x", x)
    checks.tensor("y", y)
    n, m = A.shape[-2:]
    if x.shape[-1] != n:
        raise ValueError(f"x must end in the row count {n} of A; got shape {tuple(x.shape)}")
    if y.shape[-1] != m:
        raise ValueError(f"y must end in the column count {m} of A; got shape {tuple(y.shape)}")


def matvecs(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(A y, A^T x)`` for a batch; ``x``/``y`` may carry extra leading dims ``(..., B, n)``."""
    _check_pair(A, x, y)
    return _matvecs(A, x, y)


def _matvecs(A, x, y):
    Ay = torch.matmul(y.unsqueeze(-2), A.transpose(-1, -2)).squeeze(-2)  # row-vector products: fast on CPU
    Atx = torch.matmul(x.unsqueeze(-2), A).squeeze(-2)
    return Ay, Atx


def _check_mixed(name: str, s: torch.Tensor, atol: float = 1e-6) -> None:
    """A mixed strategy: entries >= 0 summing to 1 along the last dimension (within ``atol``)."""
    if bool((s < -atol).any()) or not torch.allclose(s.sum(-1), torch.ones((), dtype=s.dtype, device=s.device),
                                                       atol=atol * s.shape[-1], rtol=0):
        raise ValueError(f"{name} must be mixed strategies (entries >= 0 summing to 1 along the last dimension); "
                         f"got sums {s.sum(-1).flatten()[:3].tolist()} and min entry {float(s.min()):.3g}")


def duality_gap(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``max_j (A^T x)_j - min_i (A y)_i >= 0`` (docs/papers/ssn_games.md §1), batched; 2 mat-vec equivalents.

    The gap certifies a pair only on the simplices, so ``x`` and ``y`` must be mixed strategies.
    """
    _check_pair(A, x, y)
    _check_mixed("x", x)
    _check_mixed("y", y)
    return _duality_gap(A, x, y)


def _duality_gap(A, x, y):
    Ay, Atx = _matvecs(A, x, y)
    return Atx.max(dim=-1).values - Ay.min(dim=-1).values


def game_value(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``x^T A y`` for a batch of games."""
    _check_pair(A, x, y)
    return (x * _matvecs(A, x, y)[0]).sum(-1)


def spectral_norm(A: torch.Tensor, iterations: int = 30) -> tuple[torch.Tensor, int]:
    """Power-iteration estimate of ``||A||_2`` per game and its cost in mat-vec equivalents (2 per step).

    The estimate is a lower bound that converges from below; callers use ``eta = 1/||A||``.
    """
    A = check_games(A)
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"iterations must be a positive integer; got {iterations!r}")
    v = torch.ones(A.shape[0], A.shape[2], dtype=A.dtype, device=A.device) / math.sqrt(A.shape[2])
    sigma = torch.zeros(A.shape[0], dtype=A.dtype, device=A.device)
    for _ in range(iterations):
        u = torch.matmul(v.unsqueeze(-2), A.transpose(-1, -2)).squeeze(-2)
        w = torch.matmul(u.unsqueeze(-2), A).squeeze(-2)
        nw = w.norm(dim=-1).clamp(min=1e-300)
        sigma = nw.sqrt()
        v = w / nw.unsqueeze(-1)
    return sigma, 2 * iterations


def newton_solve_cost(n: int, m: int) -> float:
    """Dense LU solve of the ``(n+m)``-square Newton system, ``(2/3)(n+m)^3`` flops, in mat-vec equivalents."""
    checks.positive_int("n", n)
    checks.positive_int("m", m)
    return (2.0 / 3.0) * (n + m) ** 3 / (2.0 * n * m)
