"""FSpecGNN: full-spectrum graph neural networks (arXiv 2605.05759): method, baselines, experiment, claims."""

from icml26.papers.fspec_gnn import baselines, claims, experiment, method

__all__ = ["method", "baselines", "experiment", "claims"]
