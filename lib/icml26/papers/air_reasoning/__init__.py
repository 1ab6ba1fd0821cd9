"""AIR: post-training data selection for reasoning via attention-head influence (Liu et al., arXiv 2512.13279).

``tasks``: tokenizer, copy probes, pointer-chasing traces and the mixed pool. ``method``: retrieval heads,
uniform head masking (the reference model), step/sample Attention Influence Scores, step weights, top-K
selection. ``baselines``: random / length / entropy / loss selectors. ``training``: pre-training, (weighted)
SFT and greedy evaluation. ``experiment``: the runs behind the claims. ``claims``: the claims.
``explore``: plotting functions for the notebooks.
"""

from . import baselines, claims, experiment, method, tasks, training

__all__ = ["baselines", "claims", "experiment", "method", "tasks", "training"]
