"""CHyLL++: embedding hybrid systems into continuous latent vector fields (arXiv 2606.10596)."""

from icml26.papers.hybrid_node import baselines, claims, experiment, jumps, method, simulators

__all__ = ["baselines", "claims", "experiment", "jumps", "method", "simulators"]
