"""Explaining Data Mixing Scaling Laws (Dai & Zheng, ICML 2026; arXiv 2606.08167).

``method`` (the 5K+1 capacity law, KKT inner solver, optimal mixture), ``baselines`` (exp law, BiMix,
Shukor additive, linear; uniform and grid search), ``fitting`` (generic law-fitting utilities),
``skills`` (synthetic skills domains and batched tiny MLPs), ``experiment``, ``claims``, ``explore``.
"""

from . import baselines, claims, experiment, fitting, method, skills

__all__ = ["baselines", "claims", "experiment", "fitting", "method", "skills"]
