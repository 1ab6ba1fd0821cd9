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

from icml26.transport._checks import as_points, finite_tensor, positive, positive_int


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


def _check_covariance(s: torch.Tensor, name: str, rtol: float = 1e-6) -> None:
    """A covariance must be symmetric and positive semi-definite (up to ``rtol`` of its largest entry)."""
    scale = max(float(s.abs().max()), 1e-300)
    if float((s - s.T).abs().max()) > rtol * scale:
        raise ValueError(f"{name} must be a symmetric covariance matrix; it differs from its transpose by "
                         f"{float((s - s.T).abs().max()):.3g}")
    low = float(torch.linalg.eigvalsh((s + s.T) / 2).min())
    if low < -rtol * scale:
        raise ValueError(f"{name} must be positive semi-definite (a covariance); its smallest eigenvalue is {low:.3g}")


def gaussian_w2(m1, s1, m2, s2) -> float:
    """Closed-form W2 between N(m1, s1) and N(m2, s2) (Bures metric on the covariances)."""
    m1, m2, s1, s2 = (finite_tensor(torch.as_tensor(v, dtype=torch.float64), name)
                      for v, name in ((m1, "m1"), (m2, "m2"), (s1, "s1"), (s2, "s2")))
    d = m1.numel()
    for v, name, shape in ((m2, "m2", (d,)), (s1, "s1", (d, d)), (s2, "s2", (d, d))):
        if tuple(v.reshape(-1).shape if name == "m2" else v.shape) != shape:
            raise ValueError(f"{name} must have shape {shape} to match m1 (d={d}); got {tuple(v.shape)}")
    for s, name in ((s1, "s1"), (s2, "s2")):
        _check_covariance(s, name)
    r1 = _sqrtm_psd(s1)
    cross = _sqrtm_psd(r1 @ s2 @ r1)
    val = (m1 - m2).pow(2).sum() + torch.trace(s1 + s2 - 2 * cross)
    return float(val.clamp_min(0).sqrt())


def median_bandwidth(x: torch.Tensor, y: torch.Tensor) -> float:
    """Median pairwise Euclidean distance in the pooled sample (the median heuristic)."""
    x = as_points(x, "x")
    z = torch.cat([x, as_points(y, "y", dim=x.shape[1])]).detach().double()
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


def sinkhorn_potentials(c: torch.Tensor, eps: float, iters: int, log_a: torch.Tensor | None = None,
                        log_b: torch.Tensor | None = None, init: tuple | None = None):
    """Log-domain Sinkhorn dual potentials (f, g) of the entropic OT problem with cost matrix ``c``.

    ``c`` is (n, m) or batched (..., n, m); uniform weights unless ``log_a``/``log_b`` are given. The
    iterations run without autograd; the caller takes one differentiable step from the result (the
    envelope theorem: at the optimum the gradient of OT_eps needs only the final potentials), so the
    backward pass costs one iteration instead of ``iters``. ``init=(f, g)`` warm-starts the iterations
    (for eps-scaling, where the potentials of a larger eps start those of a smaller one).
    """
    c = finite_tensor(c, "c")
    if c.ndim < 2:
        raise ValueError(f"c must be a cost matrix (..., n, m); got shape {tuple(c.shape)}")
    eps = positive(eps, "eps")
    iters = positive_int(iters, "iters")
    n, m = c.shape[-2], c.shape[-1]
    if log_a is None:
        log_a = torch.full(c.shape[:-1], -math.log(n), dtype=c.dtype, device=c.device)
    if log_b is None:
        log_b = torch.full(c.shape[:-2] + (m,), -math.log(m), dtype=c.dtype, device=c.device)
    with torch.no_grad():
        cd = c.detach()
        f, g = (torch.zeros_like(log_a), torch.zeros_like(log_b)) if init is None else (init[0], init[1])
        for _ in range(iters):
            f = -eps * torch.logsumexp(log_b[..., None, :] + (g[..., None, :] - cd) / eps, dim=-1)
            g = -eps * torch.logsumexp(log_a[..., :, None] + (f[..., :, None] - cd) / eps, dim=-2)
    return f, g, log_a, log_b


def _sinkhorn_cost(x, y, eps: float, iters: int) -> torch.Tensor:
    """Entropic OT cost OT_eps(x, y) with squared-Euclidean cost / 2, log-domain Sinkhorn.

    The potentials come from :func:`sinkhorn_potentials` (no graph). The value is the semi-dual
    <a, T(g)> + <b, g> with one differentiable soft c-transform T of the fixed g; by the envelope theorem
    its gradient in ``x`` and ``y`` is that of OT_eps, at the cost of one iteration.
    """
    c = torch.cdist(x, y).pow(2) / 2
    _, g, log_a, log_b = sinkhorn_potentials(c, eps, iters)
    f = -eps * torch.logsumexp(log_b[None, :] + (g[None, :] - c) / eps, dim=1)
    return (f * log_a.exp()).sum() + (g * log_b.exp()).sum()


def sinkhorn_divergence(x: torch.Tensor, y: torch.Tensor, eps: float = 0.05, iters: int = 50,
                        debias_target: bool = True) -> torch.Tensor:
    """Debiased Sinkhorn divergence S_eps = OT_eps(x, y) - (OT_eps(x, x) + OT_eps(y, y)) / 2; differentiable.

    Cost |x - y|^2 / 2 (as geomloss with p=2), so S_eps -> W2^2 / 2 as eps -> 0. ``debias_target=False``
    drops the OT_eps(y, y) term, a constant when ``y`` is data: the gradient in ``x`` is unchanged and a
    training loss saves a third of the work.
    """
    x = as_points(x, "x")
    y = as_points(y, "y", dim=x.shape[1])
    eps = positive(eps, "eps")
    iters = positive_int(iters, "iters")
    self_terms = _sinkhorn_cost(x, x, eps, iters)
    if debias_target:
        self_terms = self_terms + _sinkhorn_cost(y, y, eps, iters)
    return _sinkhorn_cost(x, y, eps, iters) - 0.5 * self_terms
