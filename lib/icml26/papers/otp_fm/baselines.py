"""Baselines of OTP-FM (docs/papers/otp_fm.md, "Baselines"), on the same network, optimiser and budget:

* endpoint CFM (I-CFM between the first and last marginal only);
* piecewise I-CFM / OT-CFM: pairwise CFM between consecutive marginals, ONE network with global time
  (docs/papers/otp_fm.md, "Pitfalls"), OT-CFM using one precomputed full-dataset EMD plan per pair;
* MMFM: the natural cubic spline through OT-chained multi-marginal tuples, target = its derivative;
* a MIOFlow-style simulation-based baseline: a neural ODE integrated through all observed times and
  fitted with a Sinkhorn-divergence loss at every observed marginal (backprop through the solver).

Slow or heavy baselines of the paper's tables (TrajectoryNet, NLSB, DMSB, 3MSBM, DeepRUOT, VGFM, WLF,
JKOnet, Metric FM, [SF]2M) are not re-implemented; see the notebook for the list.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.otp_fm.networks import training_clock
from icml26.transport import (
    PlanSampler,
    chain_indices,
    cubic_spline_path,
    exact_ot_plan,
    integrate,
    sinkhorn_divergence,
)
from icml26.transport._checks import marginals as check_marginals
from icml26.transport.paths import natural_cubic_spline_coeffs

COUPLINGS = ("independent", "ot")


def _check_marginals(marginals, times, min_count: int = 2):
    marginals = check_marginals(marginals, min_count=min_count)
    times = torch.as_tensor(times, dtype=torch.float64).reshape(-1)
    if times.numel() != len(marginals) or not torch.isfinite(times).all() or not (times[1:] > times[:-1]).all():
        raise ValueError(f"times must be {len(marginals)} strictly increasing values, one per marginal")
    return times


def piecewise_cfm_sampler(marginals, times, batch: int, generator: torch.Generator, coupling: str = "ot",
                          sigma: float = 0.0):
    """Targets of stitched pairwise CFM with one global time: ``draw(i) -> (x_t, t, u_t)``.

    t ~ U(t_0, t_last) picks the segment [t_k, t_{k+1}]; pairs come from independent draws
    (I-CFM) or from the full-dataset exact OT plan of that pair (OT-CFM). With two marginals this is
    endpoint CFM.
    """
    times = _check_marginals(marginals, times)
    batch = checks.positive_int("batch", batch)
    checks.one_of("coupling", coupling, COUPLINGS)
    sigma = checks.nonnegative_number("sigma", sigma)
    dev = marginals[0].device
    plans = None
    if coupling == "ot":
        plans = [PlanSampler(exact_ot_plan(a, b)) for a, b in zip(marginals[:-1], marginals[1:])]
    tk = times.to(dev, marginals[0].dtype)
    n_seg = len(marginals) - 1

    def draw(i: int):
        u = torch.rand(batch, generator=generator, device=generator.device).to(dev, tk.dtype)
        t = tk[0] + (tk[-1] - tk[0]) * u
        seg = torch.searchsorted(tk, t.contiguous(), right=True).sub(1).clamp(0, n_seg - 1)
        a = torch.empty(batch, marginals[0].shape[1], device=dev, dtype=marginals[0].dtype)
        b = torch.empty_like(a)
        for k in range(n_seg):  # loop over the few segments, never over samples
            sel = (seg == k).nonzero().squeeze(1)
            if sel.numel() == 0:
                continue
            if plans is None:
                ia = torch.randint(0, marginals[k].shape[0], (sel.numel(),), generator=generator,
                                   device=generator.device).to(dev)
                ib = torch.randint(0, marginals[k + 1].shape[0], (sel.numel(),), generator=generator,
                                   device=generator.device).to(dev)
            else:
                ia, ib = plans[k].sample(sel.numel(), generator)
            a[sel], b[sel] = marginals[k][ia], marginals[k + 1][ib]
        h = (tk[seg + 1] - tk[seg])[:, None]
        s = (t - tk[seg])[:, None] / h
        xt = (1 - s) * a + s * b
        if sigma > 0:
            xt = xt + sigma * torch.randn(xt.shape, generator=generator, device=generator.device).to(dev)
        return xt, t, (b - a) / h

    return draw


def endpoint_cfm_sampler(marginals, times, batch: int, generator: torch.Generator, coupling: str = "independent"):
    """Endpoint-only CFM: ignores every intermediate marginal (two-marginal I-CFM/OT-CFM)."""
    times = _check_marginals(marginals, times)
    batch = checks.positive_int("batch", batch)
    return piecewise_cfm_sampler([marginals[0], marginals[-1]], [float(times[0]), float(times[-1])], batch,
                                 generator, coupling)


def mmfm_sampler(marginals, times, batch: int, generator: torch.Generator, chains: torch.Tensor | None = None):
    """MMFM targets: natural cubic spline through OT-chained tuples, velocity = spline derivative."""
    times = _check_marginals(marginals, times, min_count=3)
    batch = checks.positive_int("batch", batch)
    dev = marginals[0].device
    chains = chain_indices(list(marginals)) if chains is None else chains
    tk = times.to(dev, marginals[0].dtype)
    coeffs = natural_cubic_spline_coeffs(tk, marginals[0])

    def draw(i: int):
        rows = torch.randint(0, chains.shape[0], (batch,), generator=generator, device=generator.device).to(dev)
        xs = torch.stack([m[chains[rows, k]] for k, m in enumerate(marginals)], dim=1)
        u = torch.rand(batch, generator=generator, device=generator.device).to(dev, tk.dtype)
        t = tk[0] + (tk[-1] - tk[0]) * u
        xt, ut = cubic_spline_path(xs, tk, t, coeffs=coeffs)
        return xt, t, ut

    return draw


def fit_neural_ode(net: torch.nn.Module, marginals, times, iters: int, lr: float = 2e-3, batch: int = 256,
                   steps: int = 20, eps: float = 0.05, sinkhorn_iters: int = 30, clip: float | None = 1.0,
                   generator: torch.Generator | None = None, callback=None, callback_every: int = 0):
    """MIOFlow-style simulation-based baseline: integrate a neural ODE from mu_0 through all observed
    times (fixed-step RK4, ``steps`` per unit time, gradients through the solver) and minimise the sum
    of Sinkhorn divergences to each observed marginal (the constant data self-term dropped).

    ``clip`` is the gradient-norm clip (backpropagation through the solver has occasional large
    gradients; None turns it off). Returns ``(net, info)`` like
    :func:`~icml26.papers.otp_fm.networks.fit_velocity`; ``callback(net, i, seconds)`` every
    ``callback_every`` steps and after the last, so a caller can keep its best-validation checkpoint.
    """
    times = _check_marginals(marginals, times)
    iters = checks.positive_int("iters", iters)
    lr = checks.positive_number("lr", lr)
    batch = checks.positive_int("batch", batch)
    steps = checks.positive_int("steps", steps)
    eps = checks.positive_number("eps", eps)
    sinkhorn_iters = checks.positive_int("sinkhorn_iters", sinkhorn_iters)
    if clip is not None:
        checks.positive_number("clip", clip)
    dev = marginals[0].device
    tk = times.to(dev, marginals[0].dtype)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
    clock = training_clock(net)
    losses, train_s = [], 0.0
    for i in range(iters):
        t0 = clock()
        idx = [torch.randint(0, m.shape[0], (batch,), generator=gen, device=gen.device).to(dev) for m in marginals]
        traj = integrate(lambda x, t: net(x, t), marginals[0][idx[0]], tk, method="rk4", steps=steps, grad=True)
        loss = sum(sinkhorn_divergence(traj[k], marginals[k][idx[k]], eps=eps, iters=sinkhorn_iters,
                                       debias_target=False) for k in range(1, len(marginals)))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        opt.step()
        train_s += clock() - t0
        losses.append(float(loss.detach()))
        if callback is not None and callback_every and ((i + 1) % callback_every == 0 or i + 1 == iters):
            callback(net, i + 1, train_s)
    return net, {"losses": losses, "seconds": train_s}
