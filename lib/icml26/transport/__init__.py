"""Shared optimal-transport and flow blocks, reused by every trajectory/flow paper.

* :mod:`~icml26.transport.couplings`: exact OT plans (POT ``ot.emd``), entropic plans on the device, plan
  sampling, OT chains;
* :mod:`~icml26.transport.paths`: probability paths and conditional flow-matching targets
  (linear, piecewise-linear through several marginals, natural cubic splines);
* :mod:`~icml26.transport.ode`: sampling by integrating a velocity field (torchdiffeq ``odeint``);
* :mod:`~icml26.transport.metrics`: W1/W2 (POT), Gaussian W2 in closed form, MMD, sliced
  Wasserstein and a differentiable Sinkhorn divergence in torch.

None of these import Jupyter or plotly.
"""

from icml26.transport.couplings import (
    PlanSampler,
    chain_indices,
    exact_ot_plan,
    ot_map_indices,
    sample_plan,
    sinkhorn_plan,
)
from icml26.transport.metrics import (
    gaussian_w2,
    mmd,
    sinkhorn_divergence,
    sliced_wasserstein,
    wasserstein,
)
from icml26.transport.ode import integrate
from icml26.transport.paths import (
    cubic_spline_path,
    linear_path,
    natural_cubic_spline_coeffs,
    piecewise_linear_path,
)

__all__ = [
    "PlanSampler", "chain_indices", "exact_ot_plan", "ot_map_indices", "sample_plan", "sinkhorn_plan",
    "gaussian_w2", "mmd", "sinkhorn_divergence", "sliced_wasserstein", "wasserstein",
    "integrate",
    "cubic_spline_path", "linear_path", "natural_cubic_spline_coeffs", "piecewise_linear_path",
]
