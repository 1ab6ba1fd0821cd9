"""Exact optimal-transport couplings between point clouds (POT ``ot.emd``) and ways to sample them.

* :func:`exact_ot_plan`: the exact discrete OT plan between two empirical measures;
* :func:`sample_plan`: i.i.d. index pairs drawn from a plan (the minibatch/full-data OT-CFM sampler);
* :func:`ot_map_indices`: a deterministic map, the arg-max of each plan row;
* :func:`sinkhorn_plan`: an entropic OT plan computed in torch on the inputs' device (GPU-friendly);
* :func:`chain_indices`: multi-marginal tuples built by chaining consecutive OT maps.

The exact linear program is solved on the CPU in float64 (POT's network simplex); results come back as
torch tensors on the input's device. ``solver="sinkhorn"`` keeps the whole coupling on the device.
"""

from __future__ import annotations

import numpy as np
import ot
import torch

from icml26.transport._checks import as_points, positive, positive_int
from icml26.transport._checks import marginals as check_marginals
from icml26.transport.metrics import sinkhorn_potentials

COSTS = ("sqeuclidean", "euclidean")
SOLVERS = ("exact", "sinkhorn")


def _weights(w, n: int, name: str) -> np.ndarray:
    if w is None:
        return np.full(n, 1.0 / n)
    w = torch.as_tensor(w).detach().to("cpu", torch.float64).numpy()
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or abs(w.sum() - 1.0) > 1e-6:
        raise ValueError(f"{name} must be a non-negative probability vector of length {n} summing to one")
    return w


def cost_matrix(x: torch.Tensor, y: torch.Tensor, cost: str = "sqeuclidean") -> torch.Tensor:
    """Pairwise cost between the rows of ``x`` (n, d) and ``y`` (m, d), in float64."""
    if cost not in COSTS:
        raise ValueError(f"cost must be one of {COSTS}; got {cost!r}")
    x = as_points(x, "x").double()
    y = as_points(y, "y", dim=x.shape[1]).double()
    d2 = torch.cdist(x, y).pow(2) if cost == "sqeuclidean" else torch.cdist(x, y)
    return d2


def exact_ot_plan(x: torch.Tensor, y: torch.Tensor, a=None, b=None, cost: str = "sqeuclidean",
                  num_iter_max: int = 10_000_000) -> torch.Tensor:
    """The exact OT plan (n, m) between ``sum_i a_i delta_{x_i}`` and ``sum_j b_j delta_{y_j}``.

    Uniform weights by default. Returns a float64 tensor on ``x``'s device whose rows sum to ``a``
    and columns to ``b``.
    """
    num_iter_max = positive_int(num_iter_max, "num_iter_max")
    c = cost_matrix(x, y, cost)
    a_np = _weights(a, x.shape[0], "a")
    b_np = _weights(b, y.shape[0], "b")
    plan = ot.emd(a_np, b_np, c.cpu().numpy(), numItermax=int(num_iter_max))
    return torch.as_tensor(plan, dtype=torch.float64, device=x.device)


class PlanSampler:
    """Draws i.i.d. index pairs from a fixed coupling; the plan's support is extracted once.

    An exact OT plan has at most n + m - 1 non-zero entries, so sampling from its support is much
    cheaper than from the dense (n, m) matrix when a plan is reused at every training step.
    """

    def __init__(self, plan: torch.Tensor):
        if not isinstance(plan, torch.Tensor) or plan.ndim != 2:
            raise ValueError("plan must be a 2-D torch.Tensor (a coupling matrix)")
        if not torch.isfinite(plan).all() or (plan < 0).any() or plan.sum() <= 0:
            raise ValueError("plan must be finite, non-negative and have positive mass")
        nz = (plan > 0).nonzero()
        self.rows, self.cols = nz[:, 0], nz[:, 1]
        w = plan[self.rows, self.cols]
        self.weights = (w / w.sum()).to(torch.float64)

    def sample(self, n_samples: int, generator: torch.Generator | None = None):
        n_samples = positive_int(n_samples, "n_samples")
        gen_dev = generator.device if generator is not None else self.weights.device
        if gen_dev != self.weights.device:  # keep one copy per generator device instead of copying every call
            self._moved = getattr(self, "_moved", {})
            if gen_dev not in self._moved:
                self._moved[gen_dev] = self.weights.to(gen_dev)
            weights = self._moved[gen_dev]
        else:
            weights = self.weights
        k = torch.multinomial(weights, n_samples, replacement=True, generator=generator)
        k = k.to(self.rows.device)
        return self.rows[k], self.cols[k]


def sample_plan(plan: torch.Tensor, n_samples: int, generator: torch.Generator | None = None):
    """Draw ``n_samples`` index pairs ``(i, j)`` i.i.d. from the coupling ``plan`` (n, m)."""
    return PlanSampler(plan).sample(n_samples, generator)


def sinkhorn_plan(x: torch.Tensor, y: torch.Tensor, rel_eps: float = 0.005, iters: int = 300,
                  cost: str = "sqeuclidean", scales: int = 10) -> torch.Tensor:
    """Entropic OT plan (n, m) between uniform empirical measures, in torch on ``x``'s device.

    The regularisation is ``rel_eps`` times the mean cost, so the plan's sharpness does not depend on
    the data's scale; as ``rel_eps`` -> 0 it tends to the exact plan. eps-scaling: ``scales`` stages
    from the largest cost down to that eps, each warm-starting the next, then the remaining iterations
    at the final eps. Log-domain iterations (float64 on the CPU, float32 on a GPU) cost O(n m) each.
    """
    rel_eps = positive(rel_eps, "rel_eps")
    iters = positive_int(iters, "iters")
    scales = positive_int(scales, "scales")
    c = cost_matrix(x, y, cost)
    if x.device.type != "cpu":
        c = c.float()
    eps = rel_eps * float(c.mean().clamp_min(1e-12))
    per = max(iters // (2 * scales), 1)
    init = None
    for e in np.geomspace(max(float(c.max()), eps), eps, scales)[:-1]:
        f, g, _, _ = sinkhorn_potentials(c, float(e), per, init=init)
        init = (f, g)
    f, g, log_a, log_b = sinkhorn_potentials(c, eps, max(iters - per * (scales - 1), 1), init=init)
    return torch.exp(log_a[:, None] + log_b[None, :] + (f[:, None] + g[None, :] - c) / eps).double()


def ot_map_indices(x: torch.Tensor, y: torch.Tensor, cost: str = "sqeuclidean", solver: str = "exact") -> torch.Tensor:
    """For each row of ``x``, the index of the ``y`` point that the OT plan sends most mass to.

    ``solver="exact"`` uses POT's network simplex (CPU); ``"sinkhorn"`` a sharp entropic plan on the
    inputs' device (:func:`sinkhorn_plan`).
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}; got {solver!r}")
    plan = exact_ot_plan(x, y, cost=cost) if solver == "exact" else sinkhorn_plan(x, y, cost=cost)
    return plan.argmax(dim=1)


def chain_indices(marginals, cost: str = "sqeuclidean", solver: str = "exact") -> torch.Tensor:
    """Multi-marginal tuples from chained OT maps: an (n_0, K) index tensor, column k indexing ``marginals[k]``.

    Row i starts at point i of the first marginal and follows the arg-max OT map between each pair of
    consecutive marginals (the "OT-coupled tuples" of multimarginal flow matching). ``solver`` as in
    :func:`ot_map_indices`.
    """
    marginals = check_marginals(marginals)
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}; got {solver!r}")
    cols = [torch.arange(marginals[0].shape[0], device=marginals[0].device)]
    for k in range(len(marginals) - 1):
        step = ot_map_indices(marginals[k], marginals[k + 1], cost, solver)
        cols.append(step[cols[-1]])
    return torch.stack(cols, dim=1)
