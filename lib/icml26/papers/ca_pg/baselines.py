"""Baselines the credit-assigned policy gradient is compared against (ca_pg note §4).

* V-PG (confirmed baseline): REINFORCE over the whole candidate set with the PL log-probability of
  the sampled ORDER (note §3.4). The surrogate uses the closed-form O(N+K) score, so its gradient
  equals autograd through ``log_prob`` without the K-step graph.
* Top-K off-policy correction (Chen et al., WSDM 2019; probable baseline): the with-replacement
  marginal ``1-(1-p)^K`` credited to the chosen item, i.e. CA-PG with ``rho="with_replacement"``.
* Distil the LSR (common industry practice; inferred): a listwise PL loss that teaches the ESR the
  LSR's order of the candidates it saw. It ignores the reward.
* Reference points: the oracle set (top-K by q) and the random ESR (f = 0).
"""

from __future__ import annotations

import torch

from icml26.papers.ca_pg.method import capg_loss, reward_baseline
from icml26.ranking import listwise_nll, score_logits


def vpg_loss(scores: torch.Tensor, ranking: torch.Tensor, rewards: torch.Tensor,
             baseline: str = "mean") -> torch.Tensor:
    """Surrogate whose gradient is ``-g_V = -mean_i (r_i - b) grad log pi(o_i | x_i)`` (note §3.4).

    ``ranking`` ``(B, K)`` is the sampled order. Implemented as ``-mean (r-b) <score, f>`` with the
    closed-form score detached, which has exactly the V-PG gradient with respect to theta.
    """
    if not isinstance(scores, torch.Tensor) or scores.dim() != 2:
        raise ValueError("scores must be a float tensor of ESR logits, shape (B, N)")
    if not isinstance(rewards, torch.Tensor) or rewards.shape != scores.shape[:1]:
        raise ValueError(f"rewards must be a tensor of shape (B,) = ({scores.shape[0]},)")
    b = reward_baseline(rewards, baseline)
    sc = score_logits(scores, ranking)
    return -(((rewards - b).detach().unsqueeze(-1) * sc) * scores).sum(-1).mean()


def topk_wr_loss(scores: torch.Tensor, chosen: torch.Tensor, rewards: torch.Tensor, k: int) -> torch.Tensor:
    """Top-K off-policy correction (Chen et al. 2019) on-policy: ``-mean r log(1 - (1-p_a)^K)``.

    Its gradient is ``r K (1-p_a)^{K-1} grad p_a / rho_wr(a)``: the "lambda_K" multiplier of that paper
    with the with-replacement marginal in place of the exact one.
    """
    return capg_loss(scores, chosen, rewards, k, rho="with_replacement", baseline="none")


def distill_loss(scores: torch.Tensor, candidates: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """Distil the LSR: ListMLE of the candidates in the LSR's order (uses no reward; inferred baseline)."""
    if candidates.shape[:-1] != scores.shape[:-1]:
        raise ValueError("candidates must have shape (B, K) matching scores (B, N)")
    gc = torch.gather(g, -1, candidates)
    order = torch.argsort(gc, dim=-1, descending=True)
    ranked = torch.gather(candidates, -1, order)
    return listwise_nll(torch.gather(scores, -1, ranked)).mean()


def oracle_candidates(q: torch.Tensor, k: int) -> torch.Tensor:
    """The oracle ESR's set for an argmax LSR aligned with q: the top-K items by q, ``(..., K)``."""
    if not isinstance(k, int) or not 1 <= k <= q.shape[-1]:
        raise ValueError(f"k must be an integer in [1, {q.shape[-1]}]; got {k!r}")
    return torch.topk(q, k, dim=-1).indices


__all__ = ["vpg_loss", "topk_wr_loss", "distill_loss", "oracle_candidates"]
