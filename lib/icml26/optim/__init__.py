"""Shared optimisation blocks: Euclidean simplex projection (sparsemax) and its generalized Jacobian."""

from icml26.optim.simplex import jacobian, jvp, project, support, threshold

__all__ = ["jacobian", "jvp", "project", "support", "threshold"]
