"""Baselines the credit-assigned policy gradient is compared against (docs/papers/ca_pg.md §4).

* V-PG (confirmed baseline): REINFORCE over the whole candidate set with the PL log-probability of
  the sampled ORDER (that page §3.4). The surrogate uses the closed-form O(N+K) score, so its gradient
  equals autograd through ``log_prob`` without the K-step graph.
* Top-K off-policy correction (Chen et al., WSDM 2019; probable baseline): the with-replacement
  marginal ``1-(1-p)^K`` credited to the chosen item, i.e. CA-PG with ``rho="with_replacement"``.
* Distil the LSR (common industry practice; inferred): a listwise PL loss that teaches the ESR the
  LSR's order of the candidates it saw. It ignores the reward.
* Reference points: the oracle set (top-K by q) and the random ESR (f = 0).
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.ca_pg.method import _capg_loss, _check_capg, _check_items, _check_k, _reward_baseline
from icml26.ranking import listwise_nll, score_logits


def vpg_loss(scores: torch.Tensor, ranking: torch.Tensor, rewards: torch.Tensor,
             baseline: str = "mean") -> torch.Tensor:
    """Surrogate whose gradient is ``-g_V = -mean_i (r_i - b) grad log pi(o_i | x_i)`` (§3.4).

    ``ranking`` ``(B, K)`` is the sampled order. Implemented as ``-mean (r-b) <score, f>`` with the
    closed-form score detached, which has exactly the V-PG gradient with respect to theta.
    """
    if not isinstance(scores, torch.Tensor) or scores.dim() != 2:
        raise ValueError("scores must be a float tensor of ESR logits, shape (B, N)")
    checks.tensor("scores", scores, dtype_kind="float")
    if not isinstance(rewards, torch.Tensor) or rewards.shape != scores.shape[:1]:
        raise ValueError(f"rewards must be a tensor of shape (B,) = ({scores.shape[0]},)")
    checks.tensor("rewards", rewards)
    _check_items("ranking", ranking, scores, "(B, K)")
    checks.one_of("baseline", baseline, ("none", "mean"))
    return _vpg_loss(scores, ranking, rewards, baseline)


def _vpg_loss(scores, ranking, rewards, baseline):
    b = _reward_baseline(rewards, baseline)
    sc = score_logits(scores, ranking)
    return -(((rewards - b).detach().unsqueeze(-1) * sc) * scores).sum(-1).mean()


def topk_wr_loss(scores: torch.Tensor, chosen: torch.Tensor, rewards: torch.Tensor, k: int) -> torch.Tensor:
    """Top-K off-policy correction (Chen et al. 2019) on-policy: ``-mean r log(1 - (1-p_a)^K)``.

    Its gradient is ``r K (1-p_a)^{K-1} grad p_a / rho_wr(a)``: the "lambda_K" multiplier of that paper
    with the with-replacement marginal in place of the exact one.
    """
    _check_capg(scores, chosen, rewards, k, "with_replacement", 16, "none", None)
    return _topk_wr_loss(scores, chosen, rewards, k)


def _topk_wr_loss(scores, chosen, rewards, k):
    return _capg_loss(scores, chosen, rewards, k, rho="with_replacement", baseline="none")


def distill_loss(scores: torch.Tensor, candidates: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """Distil the LSR: ListMLE of the candidates in the LSR's order (uses no reward; inferred baseline)."""
    checks.tensor("scores", scores, dtype_kind="float")
    if not isinstance(candidates, torch.Tensor) or candidates.shape[:-1] != scores.shape[:-1]:
        raise ValueError("candidates must have shape (B, K) matching scores (B, N)")
    _check_items("candidates", candidates, scores, "(B, K)")
    checks.tensor("g", g, shape=scores.shape, dtype_kind="float")
    return _distill_loss(scores, candidates, g)


def _distill_loss(scores, candidates, g):
    gc = torch.gather(g, -1, candidates)
    order = torch.argsort(gc, dim=-1, descending=True)
    ranked = torch.gather(candidates, -1, order)
    return listwise_nll(torch.gather(scores, -1, ranked)).mean()


def oracle_candidates(q: torch.Tensor, k: int) -> torch.Tensor:
    """The oracle ESR's set for an argmax LSR aligned with q: the top-K items by q, ``(..., K)``."""
    checks.tensor("q", q, dtype_kind="float")
    _check_k(k, q.shape[-1])
    return torch.topk(q, k, dim=-1).indices


__all__ = ["vpg_loss", "topk_wr_loss", "distill_loss", "oracle_candidates"]
