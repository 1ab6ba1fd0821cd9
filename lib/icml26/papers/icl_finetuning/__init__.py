"""Fine-Tuning Without Forgetting In-Context Learning (Lee, Sohn, Lee; ICML 2026, arXiv 2602.23197).

``data``: in-context linear regression prompts. ``method``: one-layer linear attention, closed-form optima,
value-only fine-tuning with the annealed auxiliary few-shot loss. ``baselines``: full, Q/K-only fine-tuning and
the LLM plug-in interface. ``softmax_ext``: the softmax-transformer LoRA extension. ``experiment``: the runs.
``claims``: the falsifiable claims. ``explore``: plotting functions for the notebooks' explorers.
"""

from . import baselines, claims, data, experiment, method

__all__ = ["baselines", "claims", "data", "experiment", "method"]
