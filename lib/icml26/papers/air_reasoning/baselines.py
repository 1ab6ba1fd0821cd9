"""Baseline selectors (the heuristics the paper compares with), on the same budget K and the same SFT recipe as AIR.

* ``random``: K samples uniformly without replacement;
* ``length``: the K longest traces;
* ``entropy``: the K highest mean predictive entropies of the scoring model over the response;
* ``loss``: the K highest mean scoring-model response losses;
* ``low_loss`` (our control, not the paper's): the K *lowest* mean scoring-model losses. The relative AIS divides by
  the base loss, so a trace the scoring model finds easy scores high; this control asks whether AIS selects more
  than easiness;
* ``air_random`` (the negative control of the selection claims, not a baseline of the paper): AIR's sample score
  with *random* step scores in place of AIS: every step gets a uniform draw, and a trace scores the token-weighted
  mean of its steps' draws (the token mean AIR's sample score takes). Same budget, same top-K rule; no head, no
  reference model. If it wins the selection claims too, the testbed cannot tell AIS from chance;
* full data / uniform step weights: no selection, token-averaged SFT on the whole pool (see :func:`experiment.run`).

The ``entropy`` and ``loss`` scores come from the same forward pass as AIS (:func:`method.attention_influence`), so
every selector sees the same scoring model.
"""

from __future__ import annotations

import torch

from icml26 import checks

from .method import select_top_k

SELECTORS = ("air", "random", "length", "entropy", "loss", "low_loss", "air_random")
CONTROL = "air_random"
"""The control selector (random step scores in place of AIS); last in :data:`SELECTORS`, with its own generator in
:mod:`.experiment`, so adding it changed no draw of the other selectors."""
HEURISTICS = ("length", "entropy", "loss")


def selector_scores(name: str, scores: dict, lengths: torch.Tensor, generator=None) -> torch.Tensor:
    """The score a selector ranks by (higher = kept first); ``scores`` as :func:`method.attention_influence`
    returns them, ``lengths`` ``(N,)`` the trace lengths."""
    checks.one_of("name", name, SELECTORS)
    checks.tensor("lengths", lengths, ndim=1)
    if not isinstance(scores, dict) or not {"sample_ais", "entropy", "base_loss"} <= set(scores):
        raise ValueError("scores must be the dict of method.attention_influence (sample_ais, entropy, base_loss)")
    if name == "air":
        return scores["sample_ais"].double()
    if name == "length":
        return lengths.double()
    if name == "entropy":
        return scores["entropy"].double()
    if name == "loss":
        return scores["base_loss"].double()
    if name == "low_loss":
        return -scores["base_loss"].double()
    if name == "air_random":
        if "step_size" not in scores:
            raise ValueError("scores must hold step_size (method.attention_influence) for the air_random control")
        size = scores["step_size"].double()
        draw = torch.rand(size.shape, generator=generator, dtype=torch.float64).to(size.device)
        return (draw * size).sum(1) / size.sum(1).clamp_min(1)
    return torch.rand(lengths.shape[0], generator=generator, dtype=torch.float64).to(lengths.device)


def select(name: str, scores: dict, lengths: torch.Tensor, k: int, generator=None) -> torch.Tensor:
    """Indices of the K samples ``name`` keeps."""
    return select_top_k(selector_scores(name, scores, lengths, generator), k)
