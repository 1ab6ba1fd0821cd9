"""Distances between point clouds: W1/W2 (exact, POT), Gaussian W2 in closed form, MMD, sliced
Wasserstein and a differentiable debiased Sinkhorn divergence (torch, log domain).

Exact Wasserstein distances are computed in float64 on the CPU with ``ot.emd2`` (uniform weights);
the torch metrics run on the input's device.
"""

from __future__ import annotations

import math

import numpy as np
import ot
import torch

from icml26.transport._checks import as_points, positive, positive_int


def wasserstein(x: torch.Tensor, y: torch.Tensor, p: int = 2, num_iter_max: int = 10_000_000) -> float:
    """Exact p-Wasserstein distance (p in {1, 2}, Euclidean ground metric) between two empirical measures."""
    if p not in (1, 2):
        raise ValueError(f"p must be 1 or 2; got {p!r}")
    x = as_points(x, "x").detach().to("cpu", torch.float64)
    y = as_points(y, "y", dim=x.shape[1]).detach().to("cpu", torch.float64)
    m = torch.cdist(x, y)
    if p == 2:
        m = m.pow(2)
    a = np.full(x.shape[0], 1.0 / x.shape[0])
    b = np.full(y.shape[0], 1.0 / y.shape[0])
    cost = float(ot.emd2(a, b, m.numpy(), numItermax=int(num_iter_max)))
    return math.sqrt(max(cost, 0.0)) if p == 2 else cost


def _sqrtm_psd(s: torch.Tensor) -> torch.Tensor:
    w, v = torch.linalg.eigh(s)
    return (v * w.clamp_min(0).sqrt()[..., None, :]) @ v.transpose(-1, -2)


def gaussian_w2(m1, s1, m2, s2) -> float:
    """Closed-form W2 between N(m1, s1) and N(m2, s2) (Bures metric on the covariances)."""
    m1, m2 = torch.as_tensor(m1, dtype=torch.float64), torch.as_tensor(m2, dtype=torch.float64)
    s1, s2 = torch.as_tensor(s1, dtype=torch.float64), torch.as_tensor(s2, dtype=torch.float64)
    d = m1.numel()
    if m2.numel() != d or s1.shape != (d, d) or s2.shape != (d, d):
        raise ValueError(f"means must have length d and covariances shape (d, d); got d={d}, "
                         f"{tuple(m2.shape)}, {tuple(s1.shape)}, {tuple(s2.shape)}")
    r1 = _sqrtm_psd(s1)
    cross = _sqrtm_psd(r1 @ s2 @ r1)
    val = (m1 - m2).pow(2).sum() + torch.trace(s1 + s2 - 2 * cross)
    return float(val.clamp_min(0).sqrt())


def median_bandwidth(x: torch.Tensor, y: torch.Tensor) -> float:
    """Median pairwise Euclidean distance in the pooled sample (the median heuristic)."""
    z = torch.cat([x, y]).detach().double()
    d = torch.cdist(z, z)
    return float(d[d > 0].median()) if (d > 0).any() else 1.0


def mmd(x: torch.Tensor, y: torch.Tensor, bandwidths=None, kernel_mul: float = 2.0,
        kernel_num: int = 5) -> torch.Tensor:
    """Squared MMD (biased V-statistic) with a sum of Gaussian kernels exp(-|x - y|^2 / (2 h^2)).

    ``bandwidths`` lists the h's; ``None`` uses the multi-scale median heuristic: ``kernel_num`` values
    spaced by factors of ``kernel_mul`` around the median pairwise distance. Differentiable.
    """
    x = as_points(x, "x")
    y = as_points(y, "y", dim=x.shape[1])
    if bandwidths is None:
        positive(kernel_mul, "kernel_mul")
        positive_int(kernel_num, "kernel_num")
        med = median_bandwidth(x, y)
        bandwidths = [med * kernel_mul ** (i - kernel_num // 2) for i in range(kernel_num)]
    bw = torch.as_tensor(bandwidths, dtype=x.dtype, device=x.device).reshape(-1)
    if bw.numel() == 0 or not (bw > 0).all():
        raise ValueError("bandwidths must be a non-empty list of positive numbers")

    def k(a, b):
        d2 = torch.cdist(a, b).pow(2)
        return torch.exp(-d2[..., None] / (2 * bw**2)).sum(-1)

    return k(x, x).mean() + k(y, y).mean() - 2 * k(x, y).mean()


def sliced_wasserstein(x: torch.Tensor, y: torch.Tensor, n_projections: int = 50, p: int = 2,
                       generator: torch.Generator | None = None) -> torch.Tensor:
    """Sliced p-Wasserstein distance with ``n_projections`` random directions (quantile matching in 1-D).

    Unequal sample sizes are handled by comparing both empirical quantile functions on a common grid.
    """
    x = as_points(x, "x")
    y = as_points(y, "y", dim=x.shape[1])
    n_projections = positive_int(n_projections, "n_projections")
    if p not in (1, 2):
        raise ValueError(f"p must be 1 or 2; got {p!r}")
    theta = torch.randn(x.shape[1], n_projections, generator=generator, device=x.device, dtype=x.dtype)
    theta = theta / theta.norm(dim=0, keepdim=True)
    px, py = (x @ theta).sort(dim=0).values, (y @ theta).sort(dim=0).values
    if px.shape[0] != py.shape[0]:
        n = max(px.shape[0], py.shape[0])
        q = (torch.arange(n, device=x.device, dtype=x.dtype) + 0.5) / n
        px = torch.quantile(px, q, dim=0, interpolation="lower")
        py = torch.quantile(py, q, dim=0, interpolation="lower")
    return (px - py).abs().pow(p).mean().pow(1.0 / p)


def _sinkhorn_cost(x, y, eps: float, iters: int) -> torch.Tensor:
    """Entropic OT cost OT_eps(x, y) with squared-Euclidean cost / 2, log-domain Sinkhorn."""
    c = torch.cdist(x, y).pow(2) / 2
    n, m = x.shape[0], y.shape[0]
    log_a = torch.full((n,), -math.log(n), dtype=x.dtype, device=x.device)
    log_b = torch.full((m,), -math.log(m), dtype=x.dtype, device=x.device)
    f = torch.zeros(n, dtype=x.dtype, device=x.device)
    g = torch.zeros(m, dtype=x.dtype, device=x.device)
    for _ in range(iters):
        f = -eps * torch.logsumexp(log_b[None, :] + (g[None, :] - c) / eps, dim=1)
        g = -eps * torch.logsumexp(log_a[:, None] + (f[:, None] - c) / eps, dim=0)
    return (f * log_a.exp()).sum() + (g * log_b.exp()).sum()


def sinkhorn_divergence(x: torch.Tensor, y: torch.Tensor, eps: float = 0.05, iters: int = 50) -> torch.Tensor:
    """Debiased Sinkhorn divergence S_eps = OT_eps(x, y) - (OT_eps(x, x) + OT_eps(y, y)) / 2; differentiable.

    Cost |x - y|^2 / 2 (as geomloss with p=2), so S_eps -> W2^2 / 2 as eps -> 0.
    """
    x = as_points(x, "x")
    y = as_points(y, "y", dim=x.shape[1])
    eps = positive(eps, "eps")
    iters = positive_int(iters, "iters")
    self_terms = _sinkhorn_cost(x, x, eps, iters) + _sinkhorn_cost(y, y, eps, iters)
    return _sinkhorn_cost(x, y, eps, iters) - 0.5 * self_terms
