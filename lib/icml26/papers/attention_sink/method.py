"""Attention sink as a native MoE gate, head importance, and sink-aware (load-balancing) training.

Paper: Fu, Zeng, Wang, Li, "Attention Sink Forges Native MoE in Attention Layers: Sink-Aware Training to
Address Head Collapse" (ICML 2026, arXiv 2602.01203). Equations and section numbers follow
docs/papers/attention_sink.md §3.

* §3.2 the gate: vanilla ``G_t = 1 - A_{t,0} = sigmoid(LSE_{j>=1} s_{t,j} - s_{t,0})``; sink attention
  ``G_t = sum_j A_{t,j} = sigmoid(LSE_j s_{t,j} - sink_h)``; gated attention ``G_t = sigmoid(x_t W_h)``.
  The shared attention block :mod:`icml26.nn.attention` returns these gates for every head.
* §3.2 the MoE view: with ``v_0 = 0`` a head's output is ``G_t * E_h`` with ``E_h`` the renormalised
  average over the non-sink keys (:func:`moe_decomposition`).
* §3.3 head importance ``Imp^{l,h}`` = mean gate over batch and positions ``t >= 1``; imbalance = mean
  over layers of the coefficient of variation across heads (:func:`head_importance`, :func:`layer_cv`).
* §3.4 the auxiliary loss ``lambda * sum_l (N_h - m) CV^2`` over the routed (non-shared) heads
  (:func:`load_balance_loss`, :func:`sink_aware_loss`); ``m = 0`` is the from-scratch form.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from icml26 import checks
from icml26.nn.attention import AttentionResult
from icml26.nn.tiny_gpt import TinyGPT, token_losses

EPS = 1e-6


def _no_nan_or_pos_inf(name: str, x, ndim=None) -> torch.Tensor:
    """A float tensor with no NaN and no ``+inf`` (``-inf`` marks a masked key and is allowed)."""
    checks.tensor(name, x, ndim=ndim, finite=False, dtype_kind="float")
    if bool(torch.isnan(x).any()) or bool((x == float("inf")).any()):
        raise ValueError(f"{name} must hold no NaN and no +inf entries (-inf marks a masked key); "
                         f"got {int(torch.isnan(x).sum())} NaN and {int((x == float('inf')).sum())} +inf")
    return x


def _check_tokens(model, idx) -> None:
    """``model`` a TinyGPT and ``idx`` a ``(B, T)`` integer tensor of token ids, ``2 <= T <= context``."""
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT; got {type(model).__name__}")
    checks.tensor("idx", idx, ndim=2, dtype_kind="int")
    if not 2 <= idx.shape[1] <= model.cfg.context:
        raise ValueError(f"idx must have 2 to context={model.cfg.context} positions; got shape {tuple(idx.shape)}")
    if int(idx.min()) < 0 or int(idx.max()) >= model.cfg.vocab_size:
        raise ValueError(f"idx must hold token ids in [0, {model.cfg.vocab_size}); got the range "
                         f"[{int(idx.min())}, {int(idx.max())}]")


def _check_shared(shared, n_heads: int) -> int:
    if isinstance(shared, bool) or not isinstance(shared, int) or not 0 <= shared <= n_heads - 2:
        raise ValueError(f"shared must be an integer in [0, H-2={n_heads - 2}]; got {shared!r}")
    return shared


def vanilla_gate(scores: torch.Tensor) -> torch.Tensor:
    """``sigmoid(LSE_{j>=1} s_{t,j} - s_{t,0})`` from masked scores ``(..., T, S)`` (``-inf`` where masked).

    Equals ``1 - A_{t,0}`` exactly without forming the softmax (§3.2, the LSE form); 0 where key 0
    is the only visible key.
    """
    _no_nan_or_pos_inf("scores", scores)
    if scores.dim() < 2 or scores.shape[-1] < 1:
        raise ValueError(f"scores must be (..., T, S) with S >= 1; got {tuple(scores.shape)}")
    rest = scores[..., 1:]
    if rest.shape[-1] == 0:
        return torch.zeros_like(scores[..., 0])
    empty = ~torch.isfinite(rest).any(-1)
    lse = torch.logsumexp(rest.masked_fill(empty.unsqueeze(-1), 0.0), -1).masked_fill(empty, float("-inf"))
    return torch.sigmoid(lse - scores[..., 0])


def sink_gate(lse: torch.Tensor, sink_logit: torch.Tensor) -> torch.Tensor:
    """``sigmoid(LSE_t - sink_h)`` with ``lse`` ``(B, H, T)`` and ``sink_logit`` ``(H,)`` (§3.2)."""
    _no_nan_or_pos_inf("lse", lse)
    checks.tensor("sink_logit", sink_logit, dtype_kind="float")
    if lse.dim() != 3 or sink_logit.shape != (lse.shape[1],):
        raise ValueError(f"lse must be (B, H, T) and sink_logit (H,); got {tuple(lse.shape)}, "
                         f"{tuple(sink_logit.shape)}")
    return torch.sigmoid(lse - sink_logit.view(1, -1, 1))


def moe_decomposition(weights: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Split a vanilla head into gate and expert: ``G = 1 - A_0`` and ``E = sum_{j>=1} A~_j v_j``.

    ``weights`` ``(B, H, T, S)``, ``values`` ``(B, H, S, d)``. Returns ``G`` ``(B, H, T)`` and ``E``
    ``(B, H, T, d)``; with ``v_0 = 0`` the head output is ``G[..., None] * E`` (§3.2). Rows with
    ``G = 0`` get ``E = 0``.
    """
    checks.tensor("weights", weights, dtype_kind="float")
    checks.tensor("values", values, dtype_kind="float")
    if weights.dim() != 4 or values.dim() != 4 or weights.shape[-1] != values.shape[-2]:
        raise ValueError(f"weights must be (B, H, T, S) and values (B, H, S, d); got {tuple(weights.shape)}, "
                         f"{tuple(values.shape)}")
    g = weights[..., 1:].sum(-1)
    e = (weights[..., 1:] @ values[..., 1:, :]) / g.clamp_min(torch.finfo(weights.dtype).tiny).unsqueeze(-1)
    return g, e


def stack_gates(results: Sequence[AttentionResult]) -> torch.Tensor:
    """``(L, B, H, T)`` gates of a model's layers (from ``model(idx, return_attn=True)``)."""
    if not isinstance(results, (list, tuple)):
        raise TypeError(f"results must be a list of AttentionResult; got {type(results).__name__}")
    if not results or any(not isinstance(r, AttentionResult) or r.gate is None for r in results):
        raise ValueError("results must be a non-empty list of AttentionResult with gates (not variant 'linear')")
    if len({tuple(r.gate.shape) for r in results}) > 1:
        raise ValueError(f"results must hold gates of one shape; got {sorted({tuple(r.gate.shape) for r in results})}")
    return torch.stack([r.gate for r in results])


def head_importance(gates: torch.Tensor, skip: int = 1) -> torch.Tensor:
    """``Imp^{l,h}``: mean gate over batch and positions ``t >= skip`` (§3.3); ``gates`` ``(L, B, H, T)``.

    Position 0 is excluded by default: there the only key is the sink and the gate is meaningless.
    """
    checks.tensor("gates", gates, dtype_kind="float")
    if gates.dim() != 4:
        raise ValueError(f"gates must be (L, B, H, T); got {tuple(gates.shape)}")
    if isinstance(skip, bool) or not isinstance(skip, int) or not 0 <= skip < gates.shape[-1]:
        raise ValueError(f"skip must be an integer in [0, T={gates.shape[-1]}); got {skip!r}")
    return _head_importance(gates, skip)


def _head_importance(gates: torch.Tensor, skip: int = 1) -> torch.Tensor:
    return gates[..., skip:].mean(dim=(1, 3))


def layer_cv(imp: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """Coefficient of variation across heads per layer, population std / (mean + eps); ``imp`` ``(L, H)``."""
    checks.tensor("imp", imp, dtype_kind="float")
    if imp.dim() != 2 or imp.shape[1] < 2:
        raise ValueError(f"imp must be (L, H) with H >= 2; got {tuple(imp.shape)}")
    checks.nonnegative_number("eps", eps)
    return _layer_cv(imp, eps)


def _layer_cv(imp: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    return imp.std(dim=1, unbiased=False) / (imp.mean(dim=1) + eps)


def routed_mask(imp: torch.Tensor, shared: int) -> torch.Tensor:
    """Boolean ``(L, H)``: True for the routed heads, False for the ``shared`` top-Imp heads per layer."""
    checks.tensor("imp", imp, ndim=2, dtype_kind="float")
    _check_shared(shared, imp.shape[1])
    return _routed_mask(imp, shared)


def _routed_mask(imp: torch.Tensor, shared: int) -> torch.Tensor:
    mask = torch.ones_like(imp, dtype=torch.bool)
    if shared:
        top = imp.detach().topk(shared, dim=1).indices
        mask.scatter_(1, top, False)
    return mask


def load_balance_loss(imp: torch.Tensor, lam: float, shared: int = 0, eps: float = EPS) -> torch.Tensor:
    """``lam * sum_l (N_h - m) * CV(Imp^l over routed heads)^2`` (§3.4; ``m = shared``).

    With ``shared = 0`` this is the from-scratch loss (Shazeer et al.'s CV^2 importance loss on heads);
    with ``shared = m > 0`` the top-m heads of each layer are excluded, as in the fine-tuning variant.
    """
    checks.tensor("imp", imp, ndim=2, dtype_kind="float")
    checks.nonnegative_number("lam", lam)
    checks.nonnegative_number("eps", eps)
    _check_shared(shared, imp.shape[1])
    return _load_balance_loss(imp, lam, shared, eps)


def _load_balance_loss(imp: torch.Tensor, lam: float, shared: int = 0, eps: float = EPS) -> torch.Tensor:
    mask = _routed_mask(imp, shared)
    n = imp.shape[1] - shared
    routed = imp[mask].view(imp.shape[0], n)
    cv = routed.std(dim=1, unbiased=False) / (routed.mean(dim=1) + eps)
    return lam * (n * cv.pow(2)).sum()


def sink_aware_loss(model: TinyGPT, idx: torch.Tensor, lam: float = 0.0, shared: int = 0, balance: str = "gate"):
    """One forward pass: LM loss + auxiliary balance loss; returns ``(total, lm, aux, imp)``.

    ``imp`` ``(L, H)`` is computed from the same forward pass, differentiably (§3.4: one forward
    pass per step). ``lam = 0`` gives plain training (the baselines). ``balance="gate"`` balances the sink
    gates (the paper); ``balance="norm"`` is the control: the same CV^2 loss on each head's mean output norm
    ``||O_t^{l,h}||`` (plain load balancing of the heads' outputs, with the sink term removed). ``imp`` is the
    gate importance in both cases.
    """
    _check_tokens(model, idx)
    checks.nonnegative_number("lam", lam)
    _check_shared(shared, model.cfg.n_heads)
    checks.one_of("balance", balance, ("gate", "norm"))
    return _sink_aware_loss(model, idx, lam, shared, balance)


def _sink_aware_loss(model: TinyGPT, idx: torch.Tensor, lam: float = 0.0, shared: int = 0, balance: str = "gate"):
    """:func:`sink_aware_loss` without the input checks (the training loop's step)."""
    logits, results = model(idx, return_attn=True)
    lm = token_losses(model, idx, logits).mean()
    imp = _head_importance(stack_gates(results))
    if lam <= 0:
        aux = lm.new_zeros(())
    elif balance == "gate":
        aux = _load_balance_loss(imp, lam, shared)
    else:
        load = _head_importance(torch.stack([r.out.norm(dim=-1) for r in results]))
        aux = _load_balance_loss(load, lam, shared)
    return lm + aux, lm, aux, imp


def switch_balance_loss(gates: torch.Tensor, lam: float) -> torch.Tensor:
    """Switch-Transformer style ``lam * H * sum_h f_h P_h`` on heads (an alternative balancer, §3.4).

    ``f_h`` = share of (token, position) pairs where head ``h`` has the largest gate in its layer, ``P_h`` =
    its mean normalised gate. ``gates`` ``(L, B, H, T)``; the mean over layers is returned.
    """
    checks.tensor("gates", gates, ndim=4, dtype_kind="float")
    checks.nonnegative_number("lam", lam)
    if gates.dim() != 4 or not lam >= 0:
        raise ValueError(f"gates must be (L, B, H, T) and lam >= 0; got {tuple(gates.shape)}, {lam!r}")
    h = gates.shape[2]
    share = gates / (gates.sum(2, keepdim=True) + EPS)
    top = torch.nn.functional.one_hot(gates.argmax(2), h).movedim(-1, 2).to(gates.dtype)
    f = top.mean(dim=(1, 3))
    p = share.mean(dim=(1, 3))
    return lam * h * (f * p).sum(1).mean()
