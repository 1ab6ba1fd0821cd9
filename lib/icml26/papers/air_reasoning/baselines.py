"""Baseline selectors of note §4, on the same budget K and the same SFT recipe as AIR.

* ``random``: K samples uniformly without replacement;
* ``length``: the K longest responses;
* ``entropy``: the K highest mean predictive entropies of the base model over the response;
* ``loss``: the K highest mean base-model response losses;
* ``full``: no selection (uniform token-averaged SFT on the whole pool) — see :func:`experiment.run`.

Scores of ``entropy`` and ``loss`` come from the same two forward passes as AIS
(:func:`method.attention_influence`), so every selector sees the same base model.
"""

from __future__ import annotations

import torch

from .method import select_top_k

SELECTORS = ("air", "random", "length", "entropy", "loss")


def selector_scores(name: str, scores: dict, lengths: torch.Tensor, generator=None) -> torch.Tensor:
    """The score a selector ranks by (higher = kept first)."""
    if name not in SELECTORS:
        raise ValueError(f"name must be one of {SELECTORS}; got {name!r}")
    if name == "air":
        return scores["sample_ais"].double()
    if name == "length":
        return lengths.double()
    if name == "entropy":
        return scores["entropy"].double()
    if name == "loss":
        return scores["base_loss"].double()
    return torch.rand(lengths.shape[0], generator=generator, dtype=torch.float64).to(lengths.device)


def select(name: str, scores: dict, lengths: torch.Tensor, k: int, generator=None) -> torch.Tensor:
    """Indices of the K samples ``name`` keeps."""
    return select_top_k(selector_scores(name, scores, lengths, generator), k)
