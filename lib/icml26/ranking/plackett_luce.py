"""Plackett-Luce (PL) rankings in torch: log-probabilities, Gumbel top-k sampling, inclusion marginals.

A PL model with logits ``s`` (one per item) draws a ranking by repeatedly picking one of the items
still available with probability proportional to ``exp(s)``. Everything here is batched over any
leading dimensions (``scores`` has shape ``(..., N)``), honours an optional item ``mask`` (``True`` =
the item exists; padded items are excluded from every normaliser), keeps the dtype it is given
(float32 or float64) and is differentiable with autograd. The same code runs on CPU and CUDA.

Conventions
-----------
* ``ranking``: integer tensor ``(..., k)`` of distinct item indices, best first; ``k <= N`` (a top-k,
  i.e. partial, ranking when ``k < N``).
* Log-normalisers are computed in log space, never by subtracting masses, so they do not cancel
  when the first items hold almost all the mass.

Used by the credit-assigned policy gradient paper (ca_pg, arXiv 2605.26385: the early-stage ranker is
PL over the catalogue and the candidate set is a Gumbel top-K sample) and by preference losses with
several negatives (``top1_nll`` / ``listwise_nll``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "gumbel", "log1mexp", "logcumsumexp", "log_h",
    "log_prob", "sample_topk", "score_logits",
    "inclusion_prob", "log_inclusion_prob", "INCLUSION_METHODS",
    "top1_nll", "listwise_nll", "enumerate_rankings",
]

INCLUSION_METHODS = ("mc", "quadrature", "enumerate", "with_replacement")
MAX_ENUMERATE_N = 8


# --------------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------------
def _check_scores(scores, name: str = "scores") -> torch.Tensor:
    if not isinstance(scores, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor of shape (..., N); got {type(scores).__name__}")
    if scores.dim() < 1 or scores.numel() < 1:
        raise ValueError(f"{name} must have shape (..., N) with N >= 1 and at least one list; "
                         f"got {tuple(scores.shape)}")
    if not scores.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor; got dtype {scores.dtype}")
    if not torch.isfinite(scores.detach()).all():
        raise ValueError(f"{name} must be finite (use mask= to exclude items, not -inf)")
    return scores


def _check_mask(mask, scores: torch.Tensor) -> torch.Tensor | None:
    if mask is None:
        return None
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        raise ValueError("mask must be a bool tensor (True = item present) broadcastable to scores")
    try:
        mask = torch.broadcast_to(mask, scores.shape)
    except RuntimeError as err:
        raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to scores "
                         f"{tuple(scores.shape)}") from err
    if not mask.any(dim=-1).all():
        raise ValueError("mask must leave at least one item present in every list")
    return mask.to(scores.device)


def _check_k(k, n: int, name: str = "k") -> int:
    return checks.int_between(name, k, 1, n, what="N =")


def _check_ranking(ranking, scores: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    if not isinstance(ranking, torch.Tensor) or ranking.dtype not in (torch.int64, torch.int32):
        raise ValueError("ranking must be an integer (int64/int32) tensor of item indices, shape (..., k)")
    n = scores.shape[-1]
    if ranking.dim() < 1 or not 1 <= ranking.shape[-1] <= n:
        raise ValueError(f"ranking must have shape (..., k) with 1 <= k <= N={n}; got {tuple(ranking.shape)}")
    if ranking.shape[:-1] != scores.shape[:-1]:
        raise ValueError(f"ranking's leading dims {tuple(ranking.shape[:-1])} must equal scores' "
                         f"{tuple(scores.shape[:-1])}")
    ranking = ranking.to(device=scores.device, dtype=torch.int64)
    if ranking.numel() and (ranking.min() < 0 or ranking.max() >= n):
        raise ValueError(f"ranking entries must be item indices in [0, {n - 1}]")
    if ranking.shape[-1] > 1:
        srt = ranking.sort(dim=-1).values
        if (srt[..., 1:] == srt[..., :-1]).any():
            raise ValueError("ranking must not repeat an item within a list")
    if mask is not None and not torch.gather(mask, -1, ranking).all():
        raise ValueError("ranking must only contain items that mask marks as present")
    return ranking


def _check_values(name: str, x, allow_neg_inf: bool = False, allow_pos_inf: bool = False) -> torch.Tensor:
    """A non-empty floating tensor without NaN (and without the infinities not allowed)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor; got {type(x).__name__}")
    if not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor; got dtype {x.dtype}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty; got shape {tuple(x.shape)}")
    xd = x.detach()
    bad = torch.isnan(xd)
    if not allow_pos_inf:
        bad = bad | (xd == math.inf)
    if not allow_neg_inf:
        bad = bad | (xd == -math.inf)
    if bool(bad.any()):
        allowed = " or ".join([t for t, ok in (("-inf", allow_neg_inf), ("+inf", allow_pos_inf)) if ok])
        raise ValueError(f"{name} must hold finite numbers{' (or ' + allowed + ')' if allowed else ''}; "
                         f"got {int(bad.sum())} bad entries")
    return x


# --------------------------------------------------------------------------------------------------
# numerically stable utilities
# --------------------------------------------------------------------------------------------------
def gumbel(shape, generator: torch.Generator | None = None, device=None, dtype=torch.float32) -> torch.Tensor:
    """Standard Gumbel(0, 1) noise ``-log(-log U)`` of ``shape`` (U clamped away from 0 and 1)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError(f"shape must be an int or a sequence of ints; got {type(shape).__name__}")
    shape = tuple(checks.positive_int("shape", s) for s in shape)
    checks.generator("generator", generator)
    if device is not None:
        device = checks.device("device", device)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
    return _gumbel(shape, generator, device, dtype)


def _gumbel(shape, generator, device, dtype) -> torch.Tensor:
    if generator is not None and device is None:
        device = generator.device
    u = torch.rand(tuple(shape), generator=generator, device=device, dtype=dtype)
    tiny = torch.finfo(dtype).tiny
    u = u.clamp(min=tiny, max=1.0 - torch.finfo(dtype).eps)
    return -torch.log(-torch.log(u))


def log1mexp(x: torch.Tensor) -> torch.Tensor:
    """``log(1 - exp(x))`` for ``x <= 0``, stable at both ends (Maechler's two-branch rule)."""
    _check_values("x", x, allow_neg_inf=True, allow_pos_inf=True)
    if (x.detach() > 0).any():
        raise ValueError("x must be <= 0 (log1mexp needs x <= 0)")
    return _log1mexp(x)


def _log1mexp(x: torch.Tensor) -> torch.Tensor:
    small = x > -math.log(2.0)
    xs = torch.where(small, x, torch.full_like(x, -1.0))
    xl = torch.where(small, torch.full_like(x, -1.0), x)
    return torch.where(small, torch.log(-torch.expm1(xs)), torch.log1p(-torch.exp(xl)))


def logcumsumexp(x: torch.Tensor, dim: int = -1, reverse: bool = False) -> torch.Tensor:
    """``log(cumsum(exp(x)))`` along ``dim``; ``reverse=True`` sums from the end (suffix sums).

    ``x`` may hold ``-inf`` (a zero mass), not NaN or ``+inf``.
    """
    _check_values("x", x, allow_neg_inf=True)
    if not checks._is_int(dim) or not -max(x.ndim, 1) <= dim < max(x.ndim, 1):
        raise ValueError(f"dim must be an integer in [-{max(x.ndim, 1)}, {max(x.ndim, 1)}); got {dim!r}")
    if not isinstance(reverse, bool):
        raise TypeError(f"reverse must be a bool; got {type(reverse).__name__}")
    return _logcumsumexp(x, dim, reverse)


def _logcumsumexp(x: torch.Tensor, dim: int = -1, reverse: bool = False) -> torch.Tensor:
    if reverse:
        return torch.logcumsumexp(x.flip(dim), dim=dim).flip(dim)
    return torch.logcumsumexp(x, dim=dim)


def log_h(z: torch.Tensor, cut: float = 30.0) -> torch.Tensor:
    """``log(1 - exp(-exp(z)))``: the log-probability that a Gumbel variable exceeds ``-z``.

    Uses ``log(-expm1(-exp(z)))`` in the bulk, ``z`` below ``-cut`` (where ``1-exp(-e^z) = e^z``) and 0
    above ``cut``; inputs are clamped inside each branch so that gradients stay finite everywhere.
    ``z`` may hold ``-inf`` (giving ``-inf``), not NaN or ``+inf``.
    """
    _check_values("z", z, allow_neg_inf=True)
    cut = checks.positive_number("cut", cut)
    return _log_h(z, cut)


def _log_h(z: torch.Tensor, cut: float = 30.0) -> torch.Tensor:
    zc = z.clamp(min=-cut, max=cut)
    bulk = torch.log(-torch.expm1(-torch.exp(zc)))
    return torch.where(z < -cut, z, bulk)


# --------------------------------------------------------------------------------------------------
# log-probability, sampling, score
# --------------------------------------------------------------------------------------------------
def _log_rest(scores: torch.Tensor, ranking: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """log of the total mass of the present items that are NOT in ``ranking`` (``-inf`` when none)."""
    excluded = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, ranking, True)
    if mask is not None:
        excluded = excluded | ~mask
    return torch.logsumexp(scores.masked_fill(excluded, -math.inf), dim=-1)


def _log_normalisers(scores, ranking, mask):
    """Picked scores ``s_(j)`` and ``log Z_j`` (mass still available at step j), both ``(..., k)``."""
    picked = torch.gather(scores, -1, ranking)
    rest = _log_rest(scores, ranking, mask).unsqueeze(-1)
    log_z = torch.logaddexp(_logcumsumexp(picked, reverse=True), rest)
    return picked, log_z


def log_prob(scores: torch.Tensor, ranking: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Log-likelihood of an ordered (full or top-k) ranking under PL(``scores``); shape ``(...)``.

    ``log P(o) = sum_j [ s_{o_j} - log sum_{b not in o_1..o_{j-1}} exp(s_b) ]`` (docs/papers/ca_pg.md §3.2). The
    normaliser at step j is ``logaddexp(suffix-logsumexp of the picked scores, log mass of unpicked
    items)``: O(N + k), no cancellation.
    """
    scores = _check_scores(scores)
    mask = _check_mask(mask, scores)
    ranking = _check_ranking(ranking, scores, mask)
    picked, log_z = _log_normalisers(scores, ranking, mask)
    return (picked - log_z).sum(-1)


def sample_topk(scores: torch.Tensor, k: int, n: int | None = None, generator: torch.Generator | None = None,
                return_perturbed: bool = False, mask: torch.Tensor | None = None):
    """Ordered top-``k`` PL samples without replacement by the Gumbel-top-k trick (docs/papers/ca_pg.md §3.2).

    Adds i.i.d. Gumbel noise to the scores and keeps the ``k`` largest, in order; this is exactly a
    PL draw of the first ``k`` positions. Returns indices of shape ``(..., k)`` (or ``(n, ..., k)`` when
    ``n`` is given) and, with ``return_perturbed``, also the perturbed scores ``(..., N)``
    (``-inf`` at masked items). No gradient flows through the sample.
    """
    scores = _check_scores(scores)
    mask = _check_mask(mask, scores)
    n_items = scores.shape[-1]
    _check_k(k, n_items)
    if mask is not None and (mask.sum(-1) < k).any():
        raise ValueError(f"k={k} exceeds the number of present items in some list")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"n must be a positive integer or None; got {n!r}")
    checks.generator("generator", generator)
    if not isinstance(return_perturbed, bool):
        raise TypeError(f"return_perturbed must be a bool; got {type(return_perturbed).__name__}")
    shape = tuple(scores.shape) if n is None else (n, *scores.shape)
    g = _gumbel(shape, generator=generator, device=scores.device, dtype=scores.dtype)
    pert = scores.detach() + g
    if mask is not None:
        pert = pert.masked_fill(~mask, -math.inf)
    idx = torch.topk(pert, k, dim=-1, sorted=True).indices
    return (idx, pert) if return_perturbed else idx


def score_logits(scores: torch.Tensor, ranking: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Closed-form ``d log P(ranking) / d scores`` in O(N + k) (docs/papers/ca_pg.md §3.2); shape ``(..., N)``.

    With ``c_j = sum_{i <= j} 1/Z_i``: ``d/ds_i = 1[i ranked] - exp(s_i) c_{min(pos(i), k)}`` where an
    unranked item has ``pos = k``. Computed in log space (``log c`` by a log-cumsum-exp). Masked items
    get 0. Equals autograd of :func:`log_prob` without building the graph.
    """
    scores = _check_scores(scores)
    mask = _check_mask(mask, scores)
    ranking = _check_ranking(ranking, scores, mask)
    s = scores.detach()
    k = ranking.shape[-1]
    _, log_z = _log_normalisers(s, ranking, mask)
    log_c = _logcumsumexp(-log_z)  # (..., k)
    # position of each item (k-1 for items not ranked, i.e. the last normaliser index)
    pos = torch.full_like(s, k - 1, dtype=torch.int64)
    pos.scatter_(-1, ranking, torch.arange(k, device=s.device).expand_as(ranking).contiguous())
    grad = -torch.exp(s + torch.gather(log_c, -1, pos))
    grad = grad.scatter_add(-1, ranking, torch.ones_like(ranking, dtype=s.dtype))
    if mask is not None:
        grad = grad.masked_fill(~mask, 0.0)
    return grad


# --------------------------------------------------------------------------------------------------
# inclusion probabilities rho(a) = P(a in top-k)
# --------------------------------------------------------------------------------------------------
def enumerate_rankings(n: int, k: int, device=None) -> torch.Tensor:
    """All ordered k-permutations of ``range(n)`` as an int64 tensor ``(n!/(n-k)!, k)`` (n <= 8)."""
    checks.int_between("n", n, 1, MAX_ENUMERATE_N, what="the enumeration limit")
    _check_k(k, n)
    if device is not None:
        device = checks.device("device", device)
    return _enumerate_rankings(n, k, device)


def _enumerate_rankings(n: int, k: int, device=None) -> torch.Tensor:
    return torch.tensor(list(itertools.permutations(range(n), k)), dtype=torch.int64, device=device)


def _rho_enumerate(scores, k, mask):
    n = scores.shape[-1]
    if n > MAX_ENUMERATE_N:
        raise ValueError(f"method='enumerate' needs N <= {MAX_ENUMERATE_N}; got N={n}")
    if mask is not None:
        raise ValueError("method='enumerate' does not support mask")
    perms = _enumerate_rankings(n, k, device=scores.device)  # (P, k)
    batch = scores.shape[:-1]
    sc = scores.unsqueeze(-2).expand(*batch, perms.shape[0], n)
    lp = log_prob(sc, perms.expand(*batch, *perms.shape))  # (..., P)
    member = torch.zeros(perms.shape[0], n, dtype=scores.dtype, device=scores.device)
    member.scatter_(-1, perms, 1.0)
    return torch.exp(lp) @ member


def _rho_with_replacement(scores, k, mask):
    """``1 - (1 - p_a)^k`` with ``p = softmax(scores)``: k draws WITH replacement (Chen et al., 2019)."""
    s = scores if mask is None else scores.masked_fill(~mask, -math.inf)
    logp = torch.log_softmax(s, dim=-1)
    # log(1-p) = log1mexp(log p); clamp keeps the p -> 1 corner finite
    log1mp = _log1mexp(logp.clamp(max=-1e-12))
    out = -torch.expm1(k * log1mp)
    return out if mask is None else out.masked_fill(~mask, 0.0)


def _log_rho_with_replacement(scores, k, mask):
    s = scores if mask is None else scores.masked_fill(~mask, -math.inf)
    logp = torch.log_softmax(s, dim=-1).clamp(min=-1e30)
    log1mp = _log1mexp(logp.clamp(max=-1e-12))
    return _log1mexp((k * log1mp).clamp(max=-1e-30))


def _kth_other(pert: torch.Tensor, k: int, items: torch.Tensor | None = None,
               scores: torch.Tensor | None = None) -> torch.Tensor:
    """The k-th largest perturbed score among the OTHER items (``-inf`` if fewer), for every item
    (``items=None``, shape of ``pert``) or for the given ``items`` (``(..., m)``, broadcast over draws).

    ``pert`` is detached; when ``scores`` is given the returned thresholds are rebuilt from it so that
    gradients flow (pathwise) only to the items attaining them, without a graph over all N items.
    """
    n = pert.shape[-1]
    own = pert if items is None else torch.gather(pert, -1, items.expand(*pert.shape[:-1], items.shape[-1]))
    if k >= n:
        return torch.full_like(own, -math.inf)
    top_v, top_i = torch.topk(pert, k + 1, dim=-1, sorted=True)  # (..., k+1)
    if scores is not None:
        noise = top_v - torch.gather(scores.detach().expand_as(pert), -1, top_i)
        top_v = torch.gather(scores.expand_as(pert), -1, top_i) + noise
    kth, k1th = top_v[..., k - 1: k], top_v[..., k: k + 1]
    # an item inside the top-k sees the (k+1)-th overall as its threshold; others see the k-th
    return torch.where(own >= kth.detach(), k1th, kth)


def _log_h_draws(scores, k, mask, n_mc, generator, items=None):
    """``log h(s_a - T_m)`` for ``n_mc`` Gumbel draws: ``(n_mc, ..., N)`` or ``(n_mc, ..., m)`` for ``items``.

    Only the top-(k+1) of each draw is needed, so the cost is O(n_mc N) plus O(n_mc m) for the items,
    and the autograd graph holds only O(n_mc (k + m)) entries.
    """
    if isinstance(n_mc, bool) or not isinstance(n_mc, int) or n_mc < 1:
        raise ValueError(f"n_mc must be a positive integer; got {n_mc!r}")
    with torch.no_grad():
        pert = scores.detach() + _gumbel((n_mc, *scores.shape), generator=generator, device=scores.device,
                                        dtype=scores.dtype)
        if mask is not None:
            pert = pert.masked_fill(~mask, -math.inf)
    t = _kth_other(pert, k, items, scores=scores)
    own = scores if items is None else torch.gather(scores, -1, items)
    fin = torch.isfinite(t)
    return torch.where(fin, _log_h(own - torch.where(fin, t, own)), torch.zeros_like(t))


def _log_rho_mc(scores, k, mask, n_mc, generator):
    """Rao-Blackwellised Gumbel Monte Carlo (docs/papers/ca_pg.md §3.6, option 3), log of the estimate, all items.

    For each of ``n_mc`` Gumbel draws, T = k-th largest perturbed score among the other items; then
    ``P(a in top-k | others) = h(s_a - T)`` with ``h(z) = 1 - exp(-e^z)``. The estimate of rho is the
    mean of h over draws (unbiased); its log is returned (O(1/n_mc) Jensen bias). Gradients reach
    ``s_a`` directly and the item that attains T pathwise.
    """
    lh = _log_h_draws(scores, k, mask, n_mc, generator)
    out = torch.logsumexp(lh, dim=0) - math.log(n_mc)
    return out if mask is None else out.masked_fill(~mask, -math.inf)


def _log_rho_quadrature(scores, k, mask, n_nodes):
    """Exact 1-D integral over the Gumbel value of the item (docs/papers/ca_pg.md §3.6, option 2), all items.

    ``rho(a) = int gumbel_pdf(u - s_a) P(#{b != a : s_b + g_b > u} <= k - 1) du``; the count is
    Poisson-binomial with ``p_b(u) = 1 - exp(-e^{s_b - u})``. Leave-one-out count laws come from a
    prefix and a suffix dynamic programme over items (truncated at k), O(G N k) in all, then a
    trapezoid rule on ``n_nodes`` nodes. Differentiable by autograd.
    """
    n_nodes = checks.int_at_least("n_nodes", n_nodes, 16)
    n = scores.shape[-1]
    s = scores if mask is None else scores.masked_fill(~mask, -1e4)
    lo = scores.detach().min(-1, keepdim=True).values - 6.0
    hi = scores.detach().max(-1, keepdim=True).values + 36.0
    t = torch.linspace(0.0, 1.0, n_nodes, device=scores.device, dtype=scores.dtype)
    u = lo + (hi - lo) * t  # (..., G)
    du = (hi - lo) / (n_nodes - 1)  # (..., 1)
    # p[..., g, b] = P(item b beats level u_g)
    p = -torch.expm1(-torch.exp((s.unsqueeze(-2) - u.unsqueeze(-1)).clamp(max=60.0)))  # (..., G, N)
    if mask is not None:
        p = p.masked_fill(~mask.unsqueeze(-2), 0.0)
    batch_g = p.shape[:-1]
    one = torch.zeros(*batch_g, k, dtype=s.dtype, device=s.device)
    one[..., 0] = 1.0

    def step(dist, pb):  # add one Bernoulli(pb) to a count law truncated at k-1 (overflow dropped)
        shifted = torch.cat([torch.zeros_like(dist[..., :1]), dist[..., :-1]], dim=-1)
        return dist * (1.0 - pb.unsqueeze(-1)) + shifted * pb.unsqueeze(-1)

    prefix, suffix = [one], [one]
    for b in range(n - 1):
        prefix.append(step(prefix[-1], p[..., b]))
        suffix.append(step(suffix[-1], p[..., n - 1 - b]))
    pre = torch.stack(prefix, dim=-2)  # (..., G, N, k): law over items < a
    suf = torch.stack(suffix[::-1], dim=-2)  # law over items > a
    suf_cdf = torch.cumsum(suf, dim=-1)
    # P(count_pre + count_suf <= k-1) = sum_j pre[j] * suf_cdf[k-1-j]
    le = (pre * suf_cdf.flip(-1)).sum(-1)  # (..., G, N)
    z = u.unsqueeze(-1) - s.unsqueeze(-2)
    pdf = torch.exp(-z - torch.exp(-z.clamp(min=-30.0)))
    integrand = pdf * le
    w = torch.ones(n_nodes, dtype=s.dtype, device=s.device)
    w[0] = w[-1] = 0.5
    rho = (integrand * w.unsqueeze(-1)).sum(-2) * du
    rho = rho.clamp(min=torch.finfo(s.dtype).tiny)
    out = torch.log(rho)
    return out if mask is None else out.masked_fill(~mask, -math.inf)


def _validate_inclusion(scores, k, method, mask, n_mc, generator, n_nodes):
    scores = _check_scores(scores)
    mask = _check_mask(mask, scores)
    _check_k(k, scores.shape[-1])
    if method not in INCLUSION_METHODS:
        raise ValueError(f"method must be one of {INCLUSION_METHODS}; got {method!r}")
    checks.positive_int("n_mc", n_mc)
    n_nodes = checks.int_at_least("n_nodes", n_nodes, 16)
    checks.generator("generator", generator)
    if mask is not None and (mask.sum(-1) < k).any():
        raise ValueError(f"k={k} exceeds the number of present items in some list")
    return scores, mask


def _log_rho_all(scores, k, method, mask, n_mc, generator, n_nodes):
    if method == "mc":
        return _log_rho_mc(scores, k, mask, n_mc, generator)
    if method == "quadrature":
        return _log_rho_quadrature(scores, k, mask, n_nodes)
    if method == "enumerate":
        return torch.log(_rho_enumerate(scores, k, mask))
    return _log_rho_with_replacement(scores, k, mask)


def inclusion_prob(scores: torch.Tensor, k: int, method: str = "mc", n_mc: int = 32,
                   generator: torch.Generator | None = None, mask: torch.Tensor | None = None,
                   n_nodes: int = 2048) -> torch.Tensor:
    """``rho(a) = P(a in the top-k PL sample)`` for every item; shape ``(..., N)`` (docs/papers/ca_pg.md §3.6).

    ``method``: ``"enumerate"`` (exact, N <= 8), ``"quadrature"`` (exact up to quadrature error, O(G N k)),
    ``"mc"`` (unbiased Rao-Blackwellised Gumbel estimate with ``n_mc`` draws) or ``"with_replacement"``
    (``1 - (1-p)^k``, biased when p is not small). Rows sum to k for the exact methods.
    """
    scores, mask = _validate_inclusion(scores, k, method, mask, n_mc, generator, n_nodes)
    if method == "enumerate":
        return _rho_enumerate(scores, k, mask)
    if method == "with_replacement":
        return _rho_with_replacement(scores, k, mask)
    if method == "mc":
        h = torch.exp(_log_h_draws(scores, k, mask, n_mc, generator))
        rho = h.mean(0)
        return rho if mask is None else rho.masked_fill(~mask, 0.0)
    return torch.exp(_log_rho_quadrature(scores, k, mask, n_nodes))


def log_inclusion_prob(scores: torch.Tensor, items: torch.Tensor, k: int, method: str = "mc", n_mc: int = 32,
                       generator: torch.Generator | None = None, mask: torch.Tensor | None = None,
                       n_nodes: int = 2048) -> torch.Tensor:
    """``log rho(a)`` for the chosen ``items`` (``(..., m)`` indices); shape ``(..., m)``; differentiable.

    This is the quantity whose gradient the credit-assigned policy gradient uses (docs/papers/ca_pg.md §3.5).
    Same ``method`` options as :func:`inclusion_prob`; for ``"mc"`` the log of the averaged estimate.
    """
    scores, mask = _validate_inclusion(scores, k, method, mask, n_mc, generator, n_nodes)
    if not isinstance(items, torch.Tensor) or items.dtype not in (torch.int64, torch.int32):
        raise ValueError("items must be an integer tensor of item indices, shape (..., m)")
    if items.dim() < 1 or items.shape[:-1] != scores.shape[:-1]:
        raise ValueError(f"items must have shape (..., m) with leading dims {tuple(scores.shape[:-1])}; "
                         f"got {tuple(items.shape)}")
    items = items.to(device=scores.device, dtype=torch.int64)
    n = scores.shape[-1]
    if items.numel() and (items.min() < 0 or items.max() >= n):
        raise ValueError(f"items must be indices in [0, {n - 1}]")
    if mask is not None and not torch.gather(mask, -1, items).all():
        raise ValueError("items must be present according to mask")
    if method == "mc":  # thresholds for the chosen items only: O(n_mc (N + m))
        lh = _log_h_draws(scores, k, mask, n_mc, generator, items=items)
        return torch.logsumexp(lh, dim=0) - math.log(n_mc)
    log_rho = _log_rho_all(scores, k, method, mask, n_mc, generator, n_nodes)
    return torch.gather(log_rho, -1, items)


# --------------------------------------------------------------------------------------------------
# preference losses
# --------------------------------------------------------------------------------------------------
def top1_nll(pos_score: torch.Tensor, neg_scores: torch.Tensor, neg_mask: torch.Tensor | None = None) -> torch.Tensor:
    """``-log e^{s+} / (e^{s+} + sum_j e^{s_j})``: the PL top-1 (InfoNCE) loss with several negatives.

    ``pos_score`` ``(...)``, ``neg_scores`` ``(..., J)``, optional ``neg_mask`` ``(..., J)`` (True = a real
    negative). Returns the per-example loss ``(...)`` (no reduction). For DPO-style preference losses
    pass ``s = beta * log(pi / pi_ref)``.
    """
    if not isinstance(pos_score, torch.Tensor) or not pos_score.is_floating_point():
        raise ValueError("pos_score must be a floating-point tensor of shape (...)")
    neg_scores = _check_scores(neg_scores, "neg_scores")
    if tuple(pos_score.shape) != tuple(neg_scores.shape[:-1]):
        raise ValueError(f"pos_score shape {tuple(pos_score.shape)} must equal neg_scores' leading dims "
                         f"{tuple(neg_scores.shape[:-1])}")
    if not torch.isfinite(pos_score.detach()).all():
        raise ValueError("pos_score must be finite")
    if neg_mask is not None:
        if not isinstance(neg_mask, torch.Tensor) or neg_mask.dtype != torch.bool or neg_mask.shape != neg_scores.shape:
            raise ValueError("neg_mask must be a bool tensor with the shape of neg_scores")
        neg_scores = neg_scores.masked_fill(~neg_mask, -math.inf)
    allsc = torch.cat([pos_score.unsqueeze(-1), neg_scores], dim=-1)
    return torch.logsumexp(allsc, dim=-1) - pos_score


def listwise_nll(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """``-log P_PL(identity order)`` for lists whose entries are given in preference order; shape ``(...)``.

    ``scores[..., j]`` is the score of the j-th preferred item; ``mask`` (True = real entry) drops
    padding wherever it sits. The full PL ranking loss (ListMLE).
    """
    scores = _check_scores(scores)
    mask = _check_mask(mask, scores)
    s = scores if mask is None else scores.masked_fill(~mask, -math.inf)
    log_z = _logcumsumexp(s, reverse=True)
    terms = s - log_z
    if mask is not None:
        terms = terms.masked_fill(~mask, 0.0)
    return -terms.sum(-1)
