"""Creat3r: confidence re-aggregation for exploration-aware active 3D reconstruction (paper 16; score INFERRED)."""

from icml26.papers.creat3r_nbv import baselines, claims, experiment, geometry, gs_fit, matching, method, scenes

__all__ = ["baselines", "claims", "experiment", "geometry", "gs_fit", "matching", "method", "scenes"]
