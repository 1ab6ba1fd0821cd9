"""Ranking building blocks shared by several papers: the Plackett-Luce model (:mod:`.plackett_luce`)."""

from icml26.ranking import plackett_luce
from icml26.ranking.plackett_luce import (
    INCLUSION_METHODS,
    enumerate_rankings,
    gumbel,
    inclusion_prob,
    listwise_nll,
    log1mexp,
    log_h,
    log_inclusion_prob,
    log_prob,
    logcumsumexp,
    sample_topk,
    score_logits,
    top1_nll,
)

__all__ = [
    "plackett_luce", "INCLUSION_METHODS", "enumerate_rankings", "gumbel", "inclusion_prob", "listwise_nll",
    "log1mexp", "log_h", "log_inclusion_prob", "log_prob", "logcumsumexp", "sample_topk", "score_logits",
    "top1_nll",
]
