"""In-context linear regression prompts (docs/papers/icl_finetuning.md §2).

A task is a unit vector ``theta`` in R^d. Covariates ``x`` are Gaussian ``N(0, x_std^2 I)`` (or rows of a
real, standardised covariate matrix: "real covariates, synthetic tasks", docs §2), labels
``y = theta^T x + eps`` with ``eps ~ N(0, sigma2)``. A prompt with ``n`` demonstrations is ``N = n + 1``
tokens ``z_j = (1, x_j, y_j)`` in R^{d+2}; the last (query) token is ``(1, x_q, 0)`` and its true label is
returned separately, never written into the prompt (docs §6). A zero-shot prompt is the single query token.

Every sampler takes a ``torch.Generator`` so that evaluation can use common random numbers: the same
covariates and noise for every model compared (docs §3.1).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26 import checks


def _check_pos(name: str, value, allow_zero: bool = False) -> float:
    ok = isinstance(value, (int, float)) and math.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        raise ValueError(f"{name} must be a finite number {'>= 0' if allow_zero else '> 0'}; got {value!r}")
    return float(value)


def _check_pool(pool, d: int) -> None:
    if pool is None:
        return
    if not isinstance(pool, torch.Tensor) or pool.dim() != 2 or pool.shape[1] != d or pool.shape[0] < 1:
        raise ValueError(f"pool must be a (M, d={d}) tensor of covariate rows; got {getattr(pool, 'shape', pool)!r}")
    checks.tensor("pool", pool)


def sample_tasks(n: int, d: int, generator: torch.Generator | None = None, device="cpu",
                 dtype=torch.float32) -> torch.Tensor:
    """``n`` task vectors drawn uniformly on the unit sphere of R^d, shape ``(n, d)``."""
    n, d = checks.int_at_least("n", n, 1), checks.int_at_least("d", d, 1)
    checks.generator("generator", generator)
    checks.device("device", device)
    theta = torch.randn(n, d, generator=generator, device=device, dtype=dtype)
    return theta / theta.norm(dim=-1, keepdim=True).clamp_min(1e-12)


def rotate_task(theta0: torch.Tensor, angle: float, generator: torch.Generator | None = None) -> torch.Tensor:
    """A unit task at ``angle`` radians from the unit vector ``theta0`` (in a random plane through it).

    ``angle = 0`` gives ``theta0``, ``angle = pi`` gives ``-theta0`` (the main unseen task).
    """
    if not isinstance(theta0, torch.Tensor) or theta0.dim() != 1 or theta0.numel() < 2:
        raise ValueError(f"theta0 must be a 1-D tensor with d >= 2; got {getattr(theta0, 'shape', theta0)!r}")
    if not isinstance(angle, (int, float)) or not math.isfinite(angle):
        raise ValueError(f"angle must be a finite number (radians); got {angle!r}")
    checks.tensor("theta0", theta0)
    if not float(theta0.norm()) > 0:
        raise ValueError("theta0 must be a non-zero vector")
    checks.generator("generator", generator)
    u = theta0 / theta0.norm()
    r = torch.randn(u.shape, generator=generator, device=u.device, dtype=u.dtype)
    r = r - (r @ u) * u
    r = r / r.norm().clamp_min(1e-12)
    return math.cos(angle) * u + math.sin(angle) * r


def sample_covariates(batch: int, length: int, d: int, *, x_std: float = 1.0, pool: torch.Tensor | None = None,
                      generator: torch.Generator | None = None, device="cpu", dtype=torch.float32) -> torch.Tensor:
    """Covariates ``(batch, length, d)``: Gaussian ``N(0, x_std^2 I)``, or rows drawn from ``pool`` ``(M, d)``."""
    batch, length, d = (checks.int_at_least(n, v, 1) for n, v in (("batch", batch), ("length", length), ("d", d)))
    x_std = _check_pos("x_std", x_std)
    _check_pool(pool, d)
    checks.generator("generator", generator)
    checks.device("device", device)
    return _sample_covariates(batch, length, d, x_std, pool, generator, device, dtype)


def _sample_covariates(batch, length, d, x_std, pool, generator, device, dtype) -> torch.Tensor:
    if pool is None:
        return x_std * torch.randn(batch, length, d, generator=generator, device=device, dtype=dtype)
    idx = torch.randint(pool.shape[0], (batch, length), generator=generator, device=pool.device)
    return pool[idx].to(device=device, dtype=dtype)


def build_prompts(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Prompts ``(B, N, d+2)`` from covariates ``(B, N, d)`` and labels ``(B, N)``; the last token is the query.

    Returns ``(z, y_query)``: the query token is ``(1, x_q, 0)`` and ``y_query = y[:, -1]``.
    """
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        raise TypeError(f"x and y must be tensors; got {type(x).__name__} and {type(y).__name__}")
    if x.dim() != 3 or y.shape != x.shape[:2]:
        raise ValueError(f"x must be (B, N, d) and y (B, N); got {tuple(x.shape)} and {tuple(y.shape)}")
    checks.tensor("x", x)
    checks.tensor("y", y)
    return _build_prompts(x, y)


def _build_prompts(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    ones = torch.ones(*x.shape[:2], 1, device=x.device, dtype=x.dtype)
    y_in = y.clone()
    y_in[:, -1] = 0.0
    z = torch.cat([ones, x, y_in.unsqueeze(-1)], dim=-1)
    return z, y[:, -1]


def sample_prompts(theta: torch.Tensor, n_shots: int, batch: int, *, sigma2: float = 0.1, x_std: float = 1.0,
                   pool: torch.Tensor | None = None, generator: torch.Generator | None = None,
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch`` prompts with ``n_shots`` demonstrations each for task(s) ``theta``.

    ``theta`` is one task ``(d,)`` (shared by all prompts) or one task per prompt ``(batch, d)``. Returns
    ``(z, y_query)`` with ``z`` of shape ``(batch, n_shots + 1, d + 2)``.
    """
    if not isinstance(theta, torch.Tensor) or theta.dim() not in (1, 2):
        raise ValueError(f"theta must be a (d,) or (batch, d) tensor; got {getattr(theta, 'shape', theta)!r}")
    checks.tensor("theta", theta)
    n_shots, batch = checks.int_at_least("n_shots", n_shots, 0), checks.int_at_least("batch", batch, 1)
    sigma2 = _check_pos("sigma2", sigma2, allow_zero=True)
    x_std = _check_pos("x_std", x_std)
    if theta.dim() == 2 and theta.shape[0] != batch:
        raise ValueError(f"theta of shape (batch, d) must have batch={batch} rows; got {theta.shape[0]}")
    _check_pool(pool, theta.shape[-1])
    checks.generator("generator", generator)
    return _sample_prompts(theta, n_shots, batch, sigma2, x_std, pool, generator)


def _sample_prompts(theta, n_shots, batch, sigma2=0.1, x_std=1.0, pool=None, generator=None):
    """:func:`sample_prompts` without its checks, for training loops that validated their inputs once."""
    sigma2 = float(sigma2)
    d = theta.shape[-1]
    x = _sample_covariates(batch, n_shots + 1, d, float(x_std), pool, generator, theta.device, theta.dtype)
    th = theta.expand(batch, d) if theta.dim() == 1 else theta
    y = torch.einsum("bnd,bd->bn", x, th)
    if sigma2 > 0:
        y = y + math.sqrt(sigma2) * torch.randn(y.shape, generator=generator, device=y.device, dtype=y.dtype)
    return _build_prompts(x, y)


def truncate_shots(z: torch.Tensor, n_shots: int) -> torch.Tensor:
    """The prompt with only the first ``n_shots`` demonstrations kept, plus the query (common random numbers)."""
    if not isinstance(z, torch.Tensor) or z.dim() != 3:
        raise ValueError(f"z must be (B, N, d+2); got {getattr(z, 'shape', type(z).__name__)}")
    checks.tensor("z", z, finite=False)  # a selection of tokens: values pass through, and a scan would cost more
    n_shots = checks.int_at_least("n_shots", n_shots, 0)
    if n_shots > z.shape[1] - 1:
        raise ValueError(f"n_shots must be <= {z.shape[1] - 1} demonstrations in z; got {n_shots}")
    return _truncate_shots(z, n_shots)


def _truncate_shots(z: torch.Tensor, n_shots: int) -> torch.Tensor:
    return torch.cat([z[:, :n_shots], z[:, -1:]], dim=1)


class PairDataset:
    """A finite fine-tuning set of ``(x, y)`` pairs for one target task (docs §3.4).

    ``prompts(n_shots, batch)`` draws prompts of ``n_shots + 1`` random pairs (with replacement); the zero-shot
    prompt of the same draw is ``z[:, -1:]`` (the last pair alone).
    """

    def __init__(self, theta0: torch.Tensor, size: int, *, sigma2: float = 0.1, x_std: float = 1.0,
                 pool: torch.Tensor | None = None, generator: torch.Generator | None = None):
        if not isinstance(theta0, torch.Tensor) or theta0.dim() != 1:
            raise ValueError(f"theta0 must be a (d,) tensor; got {getattr(theta0, 'shape', theta0)!r}")
        checks.tensor("theta0", theta0)
        size = checks.int_at_least("size", size, 1)
        z, yq = sample_prompts(theta0, 0, size, sigma2=sigma2, x_std=x_std, pool=pool, generator=generator)
        self.x = z[:, 0, 1:-1]
        self.y = yq
        self.tokens = torch.cat([z[:, 0, :-1], yq[:, None]], dim=1)    # (size, d+2) full tokens (1, x, y)
        self.theta0 = theta0

    def __len__(self) -> int:
        return self.x.shape[0]

    def prompts(self, n_shots: int, batch: int, generator: torch.Generator | None = None):
        n_shots, batch = checks.int_at_least("n_shots", n_shots, 0), checks.int_at_least("batch", batch, 1)
        idx = torch.randint(len(self), (batch, n_shots + 1), generator=generator, device=self.x.device)
        z = self.tokens[idx]
        y = z[:, -1, -1].clone()
        z[:, -1, -1] = 0.0
        return z, y


def diabetes_covariates(device="cpu", dtype=torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """Standardised covariates of sklearn's bundled diabetes data ``(442, 10)`` and the unit LS task ``theta0``.

    "Real covariates, synthetic tasks" (docs §2): the covariance is correlated (not identity); ``theta0`` is the
    normalised least-squares coefficient of the real target on the standardised columns.
    """
    from sklearn.datasets import load_diabetes

    checks.device("device", device)
    data = load_diabetes()
    x = np.asarray(data.data, dtype=np.float64)
    x = (x - x.mean(0)) / x.std(0)
    t = np.asarray(data.target, dtype=np.float64)
    coef, *_ = np.linalg.lstsq(x, t - t.mean(), rcond=None)
    coef = coef / np.linalg.norm(coef)
    return (torch.as_tensor(x, device=device, dtype=dtype), torch.as_tensor(coef, device=device, dtype=dtype))
