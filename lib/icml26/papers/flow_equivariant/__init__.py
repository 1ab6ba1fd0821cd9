"""FloWM: flow-equivariant world modeling for partially observed dynamic environments (arXiv 2601.01075)."""

from icml26.papers.flow_equivariant import baselines, claims, data, experiment, method, recurrent, shifts

__all__ = ["baselines", "claims", "data", "experiment", "method", "recurrent", "shifts"]
