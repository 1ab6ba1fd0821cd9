"""Attention Sink Forges Native MoE in Attention Layers (Fu et al., ICML 2026, arXiv 2602.01203).

``method``: sink gates, head importance, CV, the sink-aware load-balancing loss. ``baselines``: the vanilla,
sink and gated attention variants trained without it. ``experiment``: the runs behind the claims.
``claims``: the falsifiable claims. ``explore``: plotting functions for the notebooks' explorers.
"""

from . import baselines, claims, corpus, experiment, method

__all__ = ["baselines", "claims", "corpus", "experiment", "method"]
