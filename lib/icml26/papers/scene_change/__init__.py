"""VSCD: video-based scene change detection in unaligned scenes (Yoon & Kim, ICML 2026, arXiv 2605.20821).

``rooms`` renders the synthetic benchmark with the shared ray caster, ``method`` is VSCDNet-mini, ``baselines``
the siamese / oracle / PixelDiff baselines, ``experiment`` the §6 experiment, ``claims`` the claims and
``explore`` the plotting functions of the notebooks.
"""

from icml26.papers.scene_change import baselines, claims, experiment, method, rooms

__all__ = ["baselines", "claims", "experiment", "method", "rooms"]
