"""Baselines of APO (docs/papers/apo_alignment.md §4): the stage-2 objectives APO is compared with, on the same rewards.

* ``pairwise``: the sum of pairwise DPO losses ``-log sigma(r+ - r_u)`` over the negatives, which is what
  expanding each input into N (t+, tau_u) rows for an off-the-shelf DPO trainer (the released ms-swift
  recipe) optimises; averaged over a case's pairs as an expanded batch would (docs/papers/apo_alignment.md §4).
* ``dpo_random`` / ``dpo_divergent``: plain DPO with ONE negative per case, drawn at random each step or
  the source most divergent from the consensus; the N=1 case of the PL loss.
* ``sft_consensus``: supervised fine-tuning on the consensus trajectory only (no negatives).
* ``sft_best``: fine-tuning on the single source that agrees most with the consensus (chosen without labels).
* stage-1 naive multi-source SFT and the sources themselves are evaluated directly (experiment.py).
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.apo_alignment.method import _check_binary, _check_rewards
from icml26.ranking.plackett_luce import top1_nll

__all__ = ["pairwise_dpo_loss", "single_negative_mask", "best_source", "OBJECTIVES"]

OBJECTIVES = ("apo", "apo_nll", "apo_ln", "pairwise", "dpo_random", "dpo_divergent", "sft_consensus", "sft_best")
"""Stage-2 objectives: APO, its two stabilised variants (``apo_nll``: an NLL anchor on ``t+``,
``method.anchored_apo_loss``; ``apo_ln``: the same PL loss on length-normalised rewards, ``beta`` times the mean
per-token log-ratio, ``method.implicit_reward(..., n_tokens=...)``) and the baselines above."""


def pairwise_dpo_loss(r_pos: torch.Tensor, r_neg: torch.Tensor, neg_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Mean over a case's real negatives of ``-log sigma(r+ - r_u)``; ``(C,)`` (0 for a case without any)."""
    if not isinstance(r_neg, torch.Tensor) or r_neg.dim() != 2 or not isinstance(r_pos, torch.Tensor) \
            or r_pos.shape != r_neg.shape[:1]:
        raise ValueError("r_pos must be (C,) and r_neg (C, N)")
    if neg_mask is not None and (not isinstance(neg_mask, torch.Tensor) or neg_mask.shape != r_neg.shape
                                 or neg_mask.dtype != torch.bool):
        raise ValueError("neg_mask must be a bool tensor shaped like r_neg")
    _check_rewards(r_pos, r_neg, neg_mask)
    return _pairwise_dpo_loss(r_pos, r_neg, neg_mask)


def _pairwise_dpo_loss(r_pos, r_neg, neg_mask=None):
    pair = top1_nll(r_pos[:, None].expand_as(r_neg), r_neg[..., None])  # (C, N): -log sigma(r+ - r_u)
    if neg_mask is None:
        return pair.mean(1)
    m = neg_mask.to(pair.dtype)
    return (pair * m).sum(1) / m.sum(1).clamp(min=1.0)


def single_negative_mask(neg_mask: torch.Tensor, rule: str, divergent: torch.Tensor | None = None,
                         generator: torch.Generator | None = None) -> torch.Tensor:
    """Keep ONE real negative per row of ``neg_mask`` ``(C, N)``: ``rule`` is ``"random"`` or ``"divergent"``."""
    if not isinstance(neg_mask, torch.Tensor) or neg_mask.dtype != torch.bool or neg_mask.dim() != 2:
        raise ValueError("neg_mask must be a (C, N) bool tensor")
    checks.one_of("rule", rule, ("random", "divergent"))
    if generator is not None:
        checks.instance("generator", generator, torch.Generator)
    if rule == "divergent":
        if not isinstance(divergent, torch.Tensor) or divergent.shape != neg_mask.shape[:1]:
            raise ValueError("divergent must give one source index per row for rule='divergent'")
        checks.tensor("divergent", divergent, dtype_kind="int")
        if bool(((divergent < 0) | (divergent >= neg_mask.shape[1])).any()):
            raise ValueError(f"divergent must hold source indices in [0, {neg_mask.shape[1]})")
    return _single_negative_mask(neg_mask, rule, divergent, generator)


def _single_negative_mask(neg_mask, rule, divergent=None, generator=None):
    if rule == "random":
        noise = torch.rand(neg_mask.shape, generator=generator, device=neg_mask.device)
        pick = noise.masked_fill(~neg_mask, -1.0).argmax(1)
    elif rule == "divergent":
        if divergent is None or divergent.shape != neg_mask.shape[:1]:
            raise ValueError("divergent must give one source index per row for rule='divergent'")
        pick = divergent
    else:
        raise ValueError(f"rule must be 'random' or 'divergent'; got {rule!r}")
    one = torch.zeros_like(neg_mask).scatter(1, pick[:, None], True)
    return one & neg_mask


def best_source(decisions: torch.Tensor, positive: torch.Tensor) -> int:
    """The source whose decisions agree most with the consensus over the pool (label-free selection)."""
    if not isinstance(decisions, torch.Tensor) or decisions.dim() != 3 or positive.shape != (
            decisions.shape[0], decisions.shape[2]):
        raise ValueError("decisions must be (C, N, K) and positive (C, K)")
    _check_binary("decisions", decisions, decisions.shape[-1])
    _check_binary("positive", positive, positive.shape[-1])
    return int((decisions == positive[:, None, :]).float().mean((0, 2)).argmax())
