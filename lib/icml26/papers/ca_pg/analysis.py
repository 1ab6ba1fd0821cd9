"""Exact (enumeration) and Monte Carlo analysis of the V-PG and CA-PG gradient estimators.

* :func:`exact_gradients` (N <= 8): the true gradient of the two-stage value, the expectation of
  CA-PG, and the Rao-Blackwell identity ``grad log rho(a) = E[grad log pi(o) | a in o]``
  (docs/papers/ca_pg.md §3.5),
  all by enumerating every ordered candidate list. Gradients are with respect to free logits.
* :func:`variance_probe`: single-sample trace-variance of both estimators on the same draws
  (docs/papers/ca_pg.md §2 (a), §3.7).
"""

from __future__ import annotations

import math

import torch

from icml26 import checks
from icml26.papers.ca_pg.method import RHO_METHODS, _check_generator, _check_k, lsr_choose, lsr_probs
from icml26.ranking import (
    enumerate_rankings,
    inclusion_prob,
    log_inclusion_prob,
    log_prob,
    sample_topk,
    score_logits,
)


def _check_same(f, q, g):
    for name, t in (("f", f), ("q", q), ("g", g)):
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise ValueError(f"{name} must be a floating-point tensor")
    if not f.shape == q.shape == g.shape:
        raise ValueError(f"f, q and g must share one shape; got {tuple(f.shape)}, {tuple(q.shape)}, {tuple(g.shape)}")
    for name, t in (("f", f), ("q", q), ("g", g)):
        checks.tensor(name, t)


def _check_tau(tau) -> None:
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or math.isnan(tau) or tau < 0:
        raise ValueError(f"tau must be a number >= 0 (0 = argmax, inf = uniform); got {tau!r}")


def _cos(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a * b).sum() / (a.norm() * b.norm()).clamp(min=1e-300))


def exact_gradients(f: torch.Tensor, q: torch.Tensor, g: torch.Tensor, k: int, tau: float) -> dict:
    """Exact value, ``grad V``, ``E[g_CA]``, ``E[g_V]`` and the identity error by enumeration.

    ``f``, ``q``, ``g``: ``(C, N)`` ESR logits, mean rewards and LSR scores for C contexts, N <= 8.
    ``tau``: LSR temperature (``inf`` = uniform LSR). Returns float64 tensors and summary numbers:
    ``cos`` (cosine of E[g_CA] with grad V over all contexts), ``rel_err`` and ``identity_err``.
    """
    _check_same(f, q, g)
    if f.dim() != 2:
        raise ValueError(f"f must have shape (C, N); got {tuple(f.shape)}")
    if f.shape[1] > 8:
        raise ValueError(f"f must have at most N = 8 items for enumeration; got shape {tuple(f.shape)}")
    _check_k(k, f.shape[1])
    _check_tau(tau)
    f, q, g = (t.to(torch.float64) for t in (f, q, g))
    c, n = f.shape
    perms = enumerate_rankings(n, k, device=f.device)  # (P, K)
    n_perm = perms.shape[0]
    pe = perms.expand(c, n_perm, k)
    fe = f.unsqueeze(1).expand(c, n_perm, n)
    p = log_prob(fe, pe).exp()  # (C, P)
    sc = score_logits(fe, pe)  # (C, P, N)
    pi0 = lsr_probs(g.unsqueeze(1).expand(c, n_perm, n).contiguous(), pe.contiguous(), tau)  # (C, P, K)
    qc = torch.gather(q.unsqueeze(1).expand(c, n_perm, n), -1, pe)
    v_o = (pi0 * qc).sum(-1)  # (C, P)
    value = (p * v_o).sum(-1)  # (C,)
    grad_v = ((p * v_o).unsqueeze(-1) * sc).sum(1)  # (C, N)
    # grad log rho(a) by autograd through the enumerated marginal (independent of the identity)
    fr = f.clone().requires_grad_()
    items = torch.arange(n, device=f.device).expand(c, n)
    log_rho = log_inclusion_prob(fr, items.contiguous(), k, method="enumerate")  # (C, N)
    glr = torch.stack([torch.autograd.grad(log_rho[:, a].sum(), fr, retain_graph=True)[0] for a in range(n)],
                      dim=1)  # (C, a, N)
    rho = log_rho.detach().exp()
    member = torch.zeros(c, n_perm, n, dtype=f.dtype, device=f.device).scatter_(-1, pe, 1.0)
    cond = torch.einsum("cp,cpa,cpn->can", p, member, sc) / rho.unsqueeze(-1)
    identity_err = float((cond - glr).abs().max())
    # E[g_CA] = sum_o p(o) sum_j pi0(o_j | C_o) q(o_j) grad log rho(o_j)
    w = torch.zeros(c, n_perm, n, dtype=f.dtype, device=f.device).scatter_(-1, pe, pi0 * qc)
    e_ca = torch.einsum("cp,cpa,can->cn", p, w, glr)
    rel_err = float((e_ca - grad_v).norm() / grad_v.norm().clamp(min=1e-300))
    return {"value": value, "grad_v": grad_v, "e_capg": e_ca, "rho": rho, "grad_log_rho": glr,
            "cos": _cos(e_ca, grad_v), "rel_err": rel_err, "identity_err": identity_err}


def variance_probe(f: torch.Tensor, q: torch.Tensor, g: torch.Tensor, k: int, tau: float, n_samples: int,
                   n_mc: int = 32, generator: torch.Generator | None = None, rho: str = "mc",
                   batch: int = 32) -> dict:
    """Single-sample gradient statistics (w.r.t. the logits) of V-PG and CA-PG (docs/papers/ca_pg.md §2 (a)).

    For one context (``f``, ``q``, ``g`` of shape ``(N,)``) draws ``n_samples`` candidate lists, lets the
    LSR choose, draws Bernoulli(q) rewards and evaluates the estimators on the SAME draws: CA-PG as trained
    (no baseline, ``r grad log rho``), V-PG as trained (``vpg_mean``: ``(r - b) grad log pi(o)`` with ``b`` the
    mean reward of consecutive groups of ``batch`` draws, the training loop's batch-mean baseline) and V-PG
    without a baseline. Returns the trace-variances ``tr_var_capg`` / ``tr_var_vpg_mean`` / ``tr_var_vpg``, the
    ratios ``ratio_mean`` (baselined V-PG / CA-PG, the fair peer) and ``ratio`` (unbaselined), and the means.
    """
    _check_same(f, q, g)
    if f.dim() != 1:
        raise ValueError(f"f must have shape (N,); got {tuple(f.shape)}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 2:
        raise ValueError(f"n_samples must be an integer >= 2; got {n_samples!r}")
    _check_k(k, f.shape[0])
    _check_tau(tau)
    checks.positive_int("n_mc", n_mc)
    _check_generator(generator)
    checks.one_of("rho", rho, RHO_METHODS)
    checks.positive_int("batch", batch)
    n = f.shape[0]
    fe = f.detach().expand(n_samples, n)
    o = sample_topk(fe, k, generator=generator)
    chosen = lsr_choose(g.expand(n_samples, n), o, tau, generator=generator)
    u = torch.rand(n_samples, generator=generator, device=f.device, dtype=f.dtype)
    r = (u < q[chosen]).to(f.dtype)
    sc = score_logits(fe, o)
    g_v = r.unsqueeze(-1) * sc
    group = torch.arange(n_samples, device=f.device) // batch
    b = torch.zeros(int(group[-1]) + 1, dtype=f.dtype, device=f.device).index_add_(0, group, r)
    b = (b / torch.bincount(group).to(f.dtype))[group]
    g_vb = (r - b).unsqueeze(-1) * sc
    fr = fe.clone().requires_grad_()
    lr = log_inclusion_prob(fr, chosen.unsqueeze(-1), k, method=rho, n_mc=n_mc, generator=generator).squeeze(-1)
    (g_ca,) = torch.autograd.grad((r * lr).sum(), fr)
    tv, tb, tc = (float(x.var(0).sum()) for x in (g_v, g_vb, g_ca))
    return {"tr_var_vpg": tv, "tr_var_vpg_mean": tb, "tr_var_capg": tc, "ratio": tv / max(tc, 1e-300),
            "ratio_mean": tb / max(tc, 1e-300), "mean_vpg": g_v.mean(0), "mean_vpg_mean": g_vb.mean(0),
            "mean_capg": g_ca.mean(0), "mean_reward": float(r.mean())}


def inclusion_errors(f: torch.Tensor, k: int, n_mc: int = 2000, top: int = 5,
                     generator: torch.Generator | None = None, n_nodes: int = 2048) -> dict:
    """Quadrature vs Gumbel-MC vs with-replacement inclusion probabilities for one list
    (docs/papers/ca_pg.md §3.6, §5)."""
    if not isinstance(f, torch.Tensor) or f.dim() != 1:
        raise ValueError("f must be a 1-D float tensor of logits")
    checks.tensor("f", f, dtype_kind="float")
    _check_k(k, f.shape[0])
    checks.positive_int("n_mc", n_mc)
    checks.positive_int("top", top)
    _check_generator(generator)
    checks.positive_int("n_nodes", n_nodes)
    f = f.to(torch.float64)
    quad = inclusion_prob(f, k, method="quadrature", n_nodes=n_nodes)
    mc = inclusion_prob(f, k, method="mc", n_mc=n_mc, generator=generator)
    wr = inclusion_prob(f, k, method="with_replacement")
    topi = torch.topk(f, min(top, f.shape[0])).indices
    return {"sum_err_quad": abs(float(quad.sum()) - k), "mc_max_err": float((mc - quad).abs().max()),
            "wr_top_err": float((wr - quad)[topi].abs().max()), "wr_max_err": float((wr - quad).abs().max()),
            "quad": quad, "mc": mc, "wr": wr}


__all__ = ["exact_gradients", "variance_probe", "inclusion_errors"]
