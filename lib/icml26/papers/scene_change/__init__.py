"""VSCD: video-based scene change detection in unaligned scenes (Yoon & Kim, ICML 2026, arXiv 2605.20821).

``rooms`` renders the synthetic benchmark with the shared ray caster, ``encoder`` is the frozen frame encoder
(pretrained by ``pretrain``, run once, and shipped as ``encoder.safetensors``), ``method`` is VSCDNet-mini,
``baselines`` the index-pairing / pose-oracle / PixelDiff baselines, ``experiment`` the experiment, ``claims``
the claims and ``explore`` the plotting functions of the notebooks. The method as implemented, what was
inferred and why: docs/papers/scene_change.md.
"""

from icml26.papers.scene_change import baselines, claims, encoder, experiment, method, rooms

__all__ = ["baselines", "claims", "encoder", "experiment", "method", "rooms"]
