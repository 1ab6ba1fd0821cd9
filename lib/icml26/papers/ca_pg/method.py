"""The credit-assigned policy gradient (CA-PG) for an early-stage ranker (ESR) in a two-stage system.

Setting (docs/papers/ca_pg.md §3.1; section numbers below are that page's): a context x, N items, an ESR
with logits f_theta(x, a) that draws an ordered candidate set C of K items by Plackett-Luce (Gumbel top-K), a
FIXED late-stage ranker (LSR) that picks one item a of C, and a reward r with mean q(x, a).

CA-PG (§3.5) credits only the item the LSR chose: ``g_CA = mean_i r_i grad log rho_theta(a_i | x_i)``
with ``rho(a | x) = P(a in C)``, the marginal inclusion probability. ``rho`` comes from
:func:`icml26.ranking.log_inclusion_prob` (Gumbel Monte Carlo by default, exact quadrature, or the
with-replacement approximation). No baseline by default: a constant baseline biases CA-PG (§3.5).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from icml26 import checks
from icml26.ranking import log_inclusion_prob, sample_topk

ALIGNMENTS = ("aligned", "noisy", "independent", "anti", "anti_noisy")
BASELINES = ("none", "mean")
RHO_METHODS = ("mc", "quadrature", "with_replacement", "enumerate")


def lsr_scores(q: torch.Tensor, alignment: str = "aligned", noise: float = 0.0,
               generator: torch.Generator | None = None) -> torch.Tensor:
    """Scores of the fixed LSR, built from the true mean reward ``q`` (§3.3, parametrisation inferred).

    ``aligned``: g = q; ``noisy``: g = q + noise * eps; ``independent``: g = eps (unrelated to q);
    ``anti``: g = -q (the LSR prefers the worst item: the documented failure mode of CA-PG);
    ``anti_noisy``: g = -q + noise * eps (between anti-aligned and unrelated, for the alignment sweep).
    """
    if not isinstance(q, torch.Tensor) or not q.is_floating_point():
        raise ValueError("q must be a floating-point tensor of mean rewards, shape (..., N)")
    checks.tensor("q", q)
    if alignment not in ALIGNMENTS:
        raise ValueError(f"alignment must be one of {ALIGNMENTS}; got {alignment!r}")
    if not isinstance(noise, (int, float)) or noise < 0 or not math.isfinite(noise):
        raise ValueError(f"noise must be a finite number >= 0; got {noise!r}")
    _check_generator(generator)
    if alignment == "aligned":
        return q.clone()
    if alignment == "anti":
        return -q
    eps = torch.randn(q.shape, generator=generator, device=q.device, dtype=q.dtype)
    if alignment == "independent":
        return eps * q.std()
    return (-q if alignment == "anti_noisy" else q) + noise * eps


def lsr_probs(g: torch.Tensor, candidates: torch.Tensor, tau: float) -> torch.Tensor:
    """The LSR's choice distribution over the candidate set, ``softmax(g[C] / tau)``; shape ``(..., K)``.

    ``tau = 0`` is the argmax LSR (ties split evenly); ``tau = inf`` is the uniform LSR, for which
    CA-PG is exactly unbiased (§3.5).
    """
    _check_lsr(g, candidates, tau)
    return _lsr_probs(g, candidates, tau)


def _check_generator(generator) -> None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")


def _check_items(name: str, idx, scores: torch.Tensor, what: str = "(..., K)") -> None:
    """An int64 tensor of item indices into the last dim of ``scores``, with ``scores``' leading dims."""
    if not isinstance(idx, torch.Tensor) or idx.dtype != torch.int64:
        raise ValueError(f"{name} must be an int64 tensor of item indices, shape {what}")
    checks.tensor(name, idx)
    if idx.shape[:-1] != scores.shape[:-1]:
        raise ValueError(f"{name}' leading dims {tuple(idx.shape[:-1])} must match the scores' "
                         f"{tuple(scores.shape[:-1])}")
    if int(idx.min()) < 0 or int(idx.max()) >= scores.shape[-1]:
        raise ValueError(f"{name} must hold item indices in [0, {scores.shape[-1] - 1}]; "
                         f"got [{int(idx.min())}, {int(idx.max())}]")


def _check_lsr(g, candidates, tau) -> None:
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or math.isnan(tau) or tau < 0:
        raise ValueError(f"tau must be a number >= 0 (0 = argmax, inf = uniform); got {tau!r}")
    checks.tensor("g", g, dtype_kind="float")
    _check_items("candidates", candidates, g)


def _lsr_probs(g, candidates, tau):
    gc = torch.gather(g, -1, candidates)
    if math.isinf(tau):
        return torch.full_like(gc, 1.0 / gc.shape[-1])
    if tau == 0:
        best = gc == gc.max(-1, keepdim=True).values
        return best.to(gc.dtype) / best.sum(-1, keepdim=True)
    return torch.softmax(gc / tau, dim=-1)


def lsr_choose(g: torch.Tensor, candidates: torch.Tensor, tau: float,
               generator: torch.Generator | None = None) -> torch.Tensor:
    """Sample the item the LSR shows from each candidate set; returns item indices ``(...)``."""
    _check_lsr(g, candidates, tau)
    _check_generator(generator)
    return _lsr_choose(g, candidates, tau, generator)


def _lsr_choose(g, candidates, tau, generator):
    p = _lsr_probs(g, candidates, tau)
    flat = p.reshape(-1, p.shape[-1])
    pos = torch.multinomial(flat, 1, generator=generator).reshape(p.shape[:-1])
    return torch.gather(candidates, -1, pos.unsqueeze(-1)).squeeze(-1)


def reward_baseline(rewards: torch.Tensor, kind: str) -> torch.Tensor:
    """A constant-per-batch baseline: ``"none"`` (0) or ``"mean"`` (batch mean of the rewards)."""
    checks.tensor("rewards", rewards)
    return _reward_baseline(rewards, kind)


def _reward_baseline(rewards, kind):
    if kind not in BASELINES:
        raise ValueError(f"baseline (kind) must be one of {BASELINES}; got {kind!r}")
    if kind == "none":
        return torch.zeros((), dtype=rewards.dtype, device=rewards.device)
    return rewards.mean()


def _check_batch(scores, chosen, rewards):
    if not isinstance(scores, torch.Tensor) or scores.dim() != 2 or not scores.is_floating_point():
        raise ValueError("scores must be a float tensor of ESR logits, shape (B, N)")
    b = scores.shape[0]
    if (not isinstance(chosen, torch.Tensor) or chosen.dtype != torch.int64 or chosen.dim() not in (1, 2)
            or chosen.shape[0] != b):
        raise ValueError(f"chosen must be an int64 tensor of shape (B,) or (B, m) with B={b}")
    if not isinstance(rewards, torch.Tensor) or rewards.shape != chosen.shape:
        raise ValueError(f"rewards must be a tensor with the shape of chosen {tuple(chosen.shape)}")
    if not torch.isfinite(rewards).all():
        raise ValueError("rewards must be finite")


def capg_loss(scores: torch.Tensor, chosen: torch.Tensor, rewards: torch.Tensor, k: int, rho: str = "mc",
              n_mc: int = 16, baseline: str = "none", generator: torch.Generator | None = None) -> torch.Tensor:
    """Surrogate loss whose gradient is ``-g_CA`` (§3.5): ``-mean_i (r_i - b) log rho(a_i | x_i)``.

    ``scores``: ESR logits ``(B, N)`` (carrying the graph to theta), ``chosen``: the LSR-chosen item of
    each candidate set ``(B,)``, ``rewards`` ``(B,)``. For a ranked LSR output with an item-decomposable
    reward (§3.1, inferred generalisation) pass ``chosen`` ``(B, m)`` (the displayed items) and
    ``rewards`` ``(B, m)`` (position weight times item reward); the terms are summed over the m slots.
    ``rho`` selects the inclusion estimator (§3.6): ``"mc"`` (Rao-Blackwellised Gumbel, ``n_mc``
    draws), ``"quadrature"``, ``"with_replacement"`` (Chen et al. 2019's marginal), ``"enumerate"`` (N <= 8).
    """
    _check_capg(scores, chosen, rewards, k, rho, n_mc, baseline, generator)
    return _capg_loss(scores, chosen, rewards, k, rho, n_mc, baseline, generator)


def _check_capg(scores, chosen, rewards, k, rho, n_mc, baseline, generator) -> None:
    checks.tensor("scores", scores)
    _check_batch(scores, chosen, rewards)
    _check_items("chosen", chosen if chosen.dim() == 2 else chosen.unsqueeze(-1), scores, "(B,) or (B, m)")
    _check_k(k, scores.shape[-1])
    checks.one_of("rho", rho, RHO_METHODS)
    checks.positive_int("n_mc", n_mc)
    checks.one_of("baseline", baseline, BASELINES)
    _check_generator(generator)


def _check_k(k, n_items: int) -> int:
    if not 1 <= checks.positive_int("k", k) <= n_items:
        raise ValueError(f"k must lie in [1, N={n_items}]; got {k}")
    return k


def _capg_loss(scores, chosen, rewards, k, rho="mc", n_mc=16, baseline="none", generator=None):
    """:func:`capg_loss` without the checks (the training loop's inner call)."""
    b = _reward_baseline(rewards, baseline)
    items = chosen if chosen.dim() == 2 else chosen.unsqueeze(-1)
    log_rho = log_inclusion_prob(scores, items, k, method=rho, n_mc=n_mc, generator=generator)
    log_rho = log_rho if chosen.dim() == 2 else log_rho.squeeze(-1)
    terms = (rewards - b).detach() * log_rho
    return -(terms.sum(-1) if chosen.dim() == 2 else terms).mean()


def lsr_rank(g: torch.Tensor, candidates: torch.Tensor, tau: float, m: int,
             generator: torch.Generator | None = None) -> torch.Tensor:
    """A ranked LSR output: the top ``m`` of a PL draw with logits ``g[C] / tau`` (``tau = 0``: sort by g).

    Returns item indices ``(..., m)``, best first (inferred generalisation, §3.1).
    """
    checks.tensor("g", g, dtype_kind="float")
    _check_items("candidates", candidates, g)
    _check_generator(generator)
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= candidates.shape[-1]:
        raise ValueError(f"m must be an integer in [1, K={candidates.shape[-1]}]; got {m!r}")
    if not isinstance(tau, (int, float)) or math.isnan(tau) or tau < 0 or math.isinf(tau):
        raise ValueError(f"tau must be a finite number >= 0; got {tau!r}")
    gc = torch.gather(g, -1, candidates)
    if tau == 0:
        pos = torch.topk(gc, m, dim=-1).indices
    else:
        pos = sample_topk(gc / tau, m, generator=generator)
    return torch.gather(candidates, -1, pos)


class TwoTowerESR(nn.Module):
    """Linear two-tower ESR, ``f(x, a) = x^T W y_a / sqrt(d)`` (§3.2); ``W`` starts at ``init_scale * N(0,1)``.

    ``d`` is the user feature size; ``d_item`` (default ``d``) the item feature size; the scale uses ``d``.
    """

    def __init__(self, d: int, init_scale: float = 0.0, generator: torch.Generator | None = None,
                 device=None, dtype=torch.float32, d_item: int | None = None):
        super().__init__()
        d_item = d if d_item is None else d_item
        for name, v in (("d", d), ("d_item", d_item)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer; got {v!r}")
        checks.finite_number("init_scale", init_scale)
        _check_generator(generator)
        if device is not None:
            checks.device("device", device)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
        w = torch.randn(d, d_item, generator=generator, device=device, dtype=dtype) * init_scale
        self.W = nn.Parameter(w)
        self.d, self.d_item = d, d_item

    def forward(self, users: torch.Tensor, items: torch.Tensor) -> torch.Tensor:
        """Logits ``(B, N)`` for user features ``(B, d)`` and item features ``(N, d_item)``."""
        if users.shape[-1] != self.d or items.shape[-1] != self.d_item:
            raise ValueError(f"users must have {self.d} features and items {self.d_item}; got {users.shape[-1]}, "
                             f"{items.shape[-1]}")
        return users @ self.W @ items.T / math.sqrt(self.d)
