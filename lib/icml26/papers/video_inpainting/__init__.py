"""Trajectory-stabilised inference for diffusion video inpainting (paper 11; method INFERRED from the abstract)."""

from icml26.papers.video_inpainting import baselines, claims, experiment, learned, method, toyvideo

__all__ = ["baselines", "claims", "experiment", "learned", "method", "toyvideo"]
