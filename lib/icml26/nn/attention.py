"""Multi-head attention with pluggable variants, exact (materialised) scores and per-head hooks.

Shared block: used by ``attention_sink`` and meant for every paper that needs a small, inspectable
attention layer (``icl_finetuning``, ``air_reasoning``, ``apo_alignment``, ``tool_guard``).

Variants (``VARIANTS``), for one head with scores ``s_{t,j} = q_t . k_j / sqrt(d_h)``:

* ``"vanilla"``: ``A = softmax_j(s)``, ``O_t = sum_j A_{t,j} v_j``.
* ``"sink"``: GPT-OSS style sink attention. A learned scalar logit per head is appended as an extra
  softmax column and dropped afterwards, so each row of ``A`` sums to ``1 - P_sink < 1``.
* ``"gated_head"``: Qwen3-Next / Qiu et al. (2025) gated attention with one sigmoid gate per head and
  query, ``O_t = sigmoid(x_t w_h) * softmax-attention``.
* ``"gated_elem"``: the same with one gate per head channel (the Qwen3-Next default).
* ``"linear"``: kernelised linear attention with feature map ``elu(x) + 1`` (Katharopoulos et al., 2020),
  computed in its materialised form so that its (normalised) weights can be inspected too.

Every call returns an :class:`AttentionResult` with the per-head output, the log-sum-exp of the scores
over the real keys, and the per-head *gate*: the share of the output that the head lets through.
For ``vanilla`` that is ``1 - A_{t,0}`` (mass not spent on the first key, computed as
``sigmoid(LSE_{j>=1} - s_{t,0})``), for ``sink`` it is ``sum_j A_{t,j} = sigmoid(LSE - sink_h)``, for the
gated variants the sigmoid gate (channel mean for ``gated_elem``), and ``None`` for ``linear``.

Hooks, on :class:`MultiHeadAttention`:

* ``logit_prior``: an additive tensor broadcast to the scores ``(B, H, T, S)`` before the softmax
  (for ``linear`` it multiplies the kernel by ``exp(prior)``, the same thing in log space);
* ``head_scale``: a ``(H,)`` tensor multiplying each head's output (0 ablates a head);
* ``add_qkv_hook(fn)``: ``fn(module, q, k, v)`` may return a new ``(q, k, v)`` (e.g. zero a value);
* ``add_head_hook(fn)``: ``fn(module, result)`` sees the :class:`AttentionResult` and may return a new
  per-head output ``(B, H, T, d_h)``;
* context managers :func:`capture_attention` and :func:`ablate_heads`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks

VARIANTS = ("vanilla", "sink", "gated_head", "gated_elem", "linear")


@dataclass
class AttentionResult:
    """What one attention call computed, per head.

    ``out``: ``(B, H, T, d_h)`` per-head output (after any gate); ``weights``: ``(B, H, T, S)`` attention
    weights when asked for, else ``None`` (sink rows sum to less than one); ``lse``: ``(B, H, T)``
    log-sum-exp of the (masked) scores over the real keys (``None`` for ``linear``); ``gate``:
    ``(B, H, T)`` the head's gate as described in the module docstring (``None`` for ``linear``);
    ``values``: ``(B, H, S, d_h)`` the value vectors (after qkv hooks).
    """

    out: torch.Tensor
    weights: torch.Tensor | None
    lse: torch.Tensor | None
    gate: torch.Tensor | None
    values: torch.Tensor | None = None


def _check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return variant


def causal_mask(t: int, s: int | None = None, device=None) -> torch.Tensor:
    """Boolean ``(t, s)`` mask, True where query ``i`` may see key ``j`` (queries are the last ``t`` keys)."""
    t = checks.positive_int("t", t)
    s = t if s is None else checks.positive_int("s", s)
    if s < t:
        raise ValueError(f"s (keys) must be at least t (queries); got t={t}, s={s}")
    i = torch.arange(t, device=device)[:, None] + (s - t)
    j = torch.arange(s, device=device)[None, :]
    return j <= i


def _safe_lse(x: torch.Tensor) -> torch.Tensor:
    """``logsumexp`` over the last axis that is ``-inf`` for all-masked rows and never back-propagates NaN."""
    empty = ~torch.isfinite(x).any(-1)
    out = torch.logsumexp(x.masked_fill(empty.unsqueeze(-1), 0.0), dim=-1)
    return out.masked_fill(empty, float("-inf"))


def _check_inputs(q, k, v, sink_logit, gate_logit, logit_prior=None) -> None:
    """Finite inputs (the public entry points check; the layers' forward passes trust them)."""
    for name, x in (("q", q), ("k", k), ("v", v), ("sink_logit", sink_logit), ("gate_logit", gate_logit)):
        if x is not None:
            checks.tensor(name, x)
    if logit_prior is not None:
        checks.tensor("logit_prior", logit_prior, finite=False)
        if bool(torch.isnan(logit_prior).any() | (logit_prior == float("inf")).any()):
            raise ValueError("logit_prior must hold finite numbers or -inf (a masked key); got NaN or +inf")


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, variant: str = "vanilla",
              causal: bool = True, sink_logit: torch.Tensor | None = None, gate_logit: torch.Tensor | None = None,
              logit_prior: torch.Tensor | None = None, key_mask: torch.Tensor | None = None,
              need_weights: bool = False) -> AttentionResult:
    """Batched attention of one of :data:`VARIANTS` with exact scores.

    ``q``: ``(B, H, T, d)``, ``k``, ``v``: ``(B, H, S, d)``. ``sink_logit``: ``(H,)`` (variant ``sink``).
    ``gate_logit``: ``(B, H, T)`` (``gated_head``) or ``(B, H, T, d)`` (``gated_elem``). ``logit_prior``:
    broadcastable to ``(B, H, T, S)`` (``-inf`` masks a key). ``key_mask``: boolean, broadcastable to
    ``(B, H, T, S)``, True where a key may be seen (combined with the causal mask). Scores are computed in at
    least float32.
    """
    _check_variant(variant)
    _check_inputs(q, k, v, sink_logit, gate_logit, logit_prior)
    return _attention(q, k, v, variant=variant, causal=causal, sink_logit=sink_logit, gate_logit=gate_logit,
                      logit_prior=logit_prior, key_mask=key_mask, need_weights=need_weights)


def _attention(q, k, v, *, variant, causal, sink_logit, gate_logit, logit_prior, key_mask,
               need_weights) -> AttentionResult:
    """:func:`attention` without the finiteness checks (shapes are still checked: that costs nothing)."""
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError(f"q, k, v must be 4-D (B, H, T, d); got shapes {tuple(q.shape)}, {tuple(k.shape)}, "
                         f"{tuple(v.shape)}")
    b, h, t, d = q.shape
    if k.shape[:2] != (b, h) or k.shape[3] != d or v.shape[:3] != k.shape[:3]:
        raise ValueError(f"k must be (B, H, S, d) and v (B, H, S, d_v) matching q {tuple(q.shape)}; got "
                         f"k {tuple(k.shape)}, v {tuple(v.shape)}")
    s = k.shape[2]
    if causal and s < t:
        raise ValueError(f"causal attention needs at least as many keys as queries; got T={t}, S={s}")
    if variant == "sink":
        if sink_logit is None or sink_logit.shape != (h,):
            raise ValueError(f"variant 'sink' needs sink_logit of shape ({h},); got "
                             f"{None if sink_logit is None else tuple(sink_logit.shape)}")
    if variant in ("gated_head", "gated_elem"):
        want = (b, h, t) if variant == "gated_head" else (b, h, t, v.shape[3])
        if gate_logit is None or tuple(gate_logit.shape) != want:
            raise ValueError(f"variant {variant!r} needs gate_logit of shape {want}; got "
                             f"{None if gate_logit is None else tuple(gate_logit.shape)}")
    work = torch.promote_types(q.dtype, torch.float32)
    allowed = None
    if causal:
        allowed = causal_mask(t, s, device=q.device)
    if key_mask is not None:
        if key_mask.dtype != torch.bool:
            raise ValueError(f"key_mask must be a boolean tensor; got dtype {key_mask.dtype}")
        allowed = key_mask if allowed is None else (allowed & key_mask)

    if variant == "linear":
        fq = F.elu(q.to(work)) + 1
        fk = F.elu(k.to(work)) + 1
        kern = fq @ fk.transpose(-1, -2)
        if logit_prior is not None:
            kern = kern * torch.exp(logit_prior.to(work))
        if allowed is not None:
            kern = kern.masked_fill(~allowed, 0.0)
        weights = kern / kern.sum(-1, keepdim=True).clamp_min(1e-12)
        out = (weights @ v.to(work)).to(v.dtype)
        return AttentionResult(out, weights if need_weights else None, None, None, v)

    scores = (q.to(work) @ k.to(work).transpose(-1, -2)) / math.sqrt(d)
    if logit_prior is not None:
        scores = scores + logit_prior.to(work)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    lse = _safe_lse(scores)  # (B, H, T) over the real keys
    if variant == "sink":
        sink = sink_logit.to(work).view(1, h, 1)
        total = torch.logaddexp(lse, sink.expand_as(lse))
        weights = torch.exp(scores - total.unsqueeze(-1))
        gate = torch.sigmoid(lse - sink)
    else:
        weights = torch.exp(scores - lse.unsqueeze(-1))
        # mass not on key 0: sigmoid(LSE_{j>=1} - s_0); exactly 0 where key 0 is the only visible key
        rest = _safe_lse(scores[..., 1:]) if s > 1 else torch.full_like(lse, float("-inf"))
        gate = torch.sigmoid(rest - scores[..., 0])
    weights = torch.nan_to_num(weights, nan=0.0)  # fully masked rows
    out = weights @ v.to(work)
    if variant == "gated_head":
        g = torch.sigmoid(gate_logit.to(work))
        out = out * g.unsqueeze(-1)
        gate = g
    elif variant == "gated_elem":
        g = torch.sigmoid(gate_logit.to(work))
        out = out * g
        gate = g.mean(-1)
    return AttentionResult(out.to(v.dtype), weights if need_weights else None, lse, gate, v)


FUSED_VARIANTS = ("vanilla", "sink", "gated_head", "gated_elem")


def fused_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, variant: str = "vanilla",
                    causal: bool = True, sink_logit: torch.Tensor | None = None,
                    gate_logit: torch.Tensor | None = None, need_gate: bool = True) -> AttentionResult:
    """The same attention as :func:`attention` through torch's fused ``scaled_dot_product_attention``.

    Nothing of size ``T x S`` is formed, so ``weights`` and ``lse`` are ``None``; the output and (with
    ``need_gate``) the gate are differentiable and equal :func:`attention`'s to float round-off.

    * ``sink`` on CPU: plain fused attention and its log-sum-exp over the real keys give the sink's output and
      gate directly, ``O * sigmoid(LSE - sink_h)`` and ``sigmoid(LSE - sink_h)`` (:class:`_SinkByLSE`; B=8,
      H=8, T=256, d=64, forward + backward on 2 cores: 0.82-0.88x plain SDPA, against 0.75x for the padded
      construction below).
    * ``sink`` elsewhere: the sink is one extra key with zero value whose score is the learned logit ``sink_h``
      for every query. Query and key get one extra channel (queries 1, real keys 0, the sink key
      ``sink_h / scale``), so its score is ``sink_h`` while the real scores are unchanged. With a causal
      mask the sink key and a dummy query are put first, so torch's top-left causal mask lets query ``t``
      see the sink and keys ``0..t``; the dummy query's row is dropped. (The extra channels are padded with
      zeros to a multiple of 8: the head sizes CUDA's flash kernel takes.) The log-sum-exp route is not used
      on CUDA because torch's CUDA kernels that return it are private ops with other signatures, and no GPU
      was at hand to test them.
    * The gate (here and for ``vanilla``) is read from one extra value channel, 1 on the real keys and 0 on the
      sink, whose output is ``sum_j A_{t,j}`` (sink) or ``sum_{j>=1} A_{t,j} = 1 - A_{t,0}`` (vanilla: 0 on
      key 0).
    * ``gated_head`` / ``gated_elem``: the fused output times ``sigmoid(gate_logit)``.

    ``q``: ``(B, H, T, d)``, ``k``, ``v``: ``(B, H, S, d)`` with ``S = T`` when ``causal``.
    """
    _check_inputs(q, k, v, sink_logit, gate_logit)
    return _fused_attention(q, k, v, variant=variant, causal=causal, sink_logit=sink_logit, gate_logit=gate_logit,
                            need_gate=need_gate)


_FLASH_CPU = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu", None)
_FLASH_CPU_BACKWARD = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu_backward", None)


class _SinkByLSE(torch.autograd.Function):
    """Sink attention from plain fused attention and its log-sum-exp, on CPU.

    A sink key with zero value and score ``b_h`` only adds ``e^{b_h}`` to each row's normaliser, so with
    ``O, LSE`` = softmax attention over the real keys, ``out = O * sigmoid(LSE - b_h)`` and the gate (the
    mass on the real keys) is ``g = sigmoid(LSE - b_h)``: no padded channels, no extra key or query.

    Backward, with ``G`` the gradient of ``out`` and ``c`` of ``g``: the gradient reaching ``O`` is
    ``dO = g G`` and the one reaching ``LSE`` is ``u = g (1 - g) (G . O + c)`` per row. The flash backward
    forms ``dS = P (dO V^T - D)`` with ``D = dO . out_passed`` row by row, and an extra ``u`` on ``LSE`` adds
    ``u P`` to ``dS`` (``dLSE/dS = P``): so passing an output whose ``dO . out_passed = dO . O - u`` gives
    both terms in one call. Rows where ``dO`` is zero cannot carry it; their share goes through a second
    call with zero values (``dS = -P D``). ``d b_h = -sum u``. Only ``D`` reads the passed output in
    torch's CPU flash backward; ``tests/test_nn_attention`` checks the gradients against autograd of the
    materialised path, with and without rows that carry only a gate gradient.
    """

    @staticmethod
    def forward(ctx, q, k, v, sink_logit, causal: bool, scale: float):
        o, lse = _FLASH_CPU(q, k, v, 0.0, causal, scale=scale)
        gate = torch.sigmoid(lse.to(o.dtype) - sink_logit.to(o.dtype).view(1, -1, 1))
        ctx.save_for_backward(q, k, v, o, lse, gate)
        ctx.causal, ctx.scale, ctx.sink_dtype = causal, scale, sink_logit.dtype
        return o * gate.unsqueeze(-1), gate

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g_out, g_gate):
        q, k, v, o, lse, gate = ctx.saved_tensors
        g_out = torch.zeros_like(o) if g_out is None else g_out
        row = torch.einsum("...d,...d->...", g_out, o)  # row dot products as one batched product (5x mul-sum)
        if g_gate is not None:
            row = row + g_gate
        u = gate * (1 - gate) * row
        d_o = g_out * gate.unsqueeze(-1)
        norm2 = torch.einsum("...d,...d->...", d_o, d_o)
        tiny = torch.finfo(norm2.dtype).tiny
        usable = norm2 > tiny
        coef = torch.where(usable, -u / norm2.clamp_min(tiny), 0.0)
        passed = torch.addcmul(o, coef.unsqueeze(-1), d_o)  # d_o . passed = d_o . o - u on the usable rows
        dq, dk, dv = _FLASH_CPU_BACKWARD(d_o, q, k, v, passed, lse, 0.0, ctx.causal, scale=ctx.scale)
        rest = torch.where(usable, 0.0, u)
        if not bool(usable.all()) and bool(rest.any()):
            lone = torch.zeros_like(o)
            lone[..., 0] = 1.0
            passed = torch.zeros_like(o)
            passed[..., 0] = -rest  # D = -rest, zero values: dS = rest P
            dq2, dk2, _ = _FLASH_CPU_BACKWARD(lone, q, k, torch.zeros_like(v), passed, lse, 0.0, ctx.causal,
                                              scale=ctx.scale)
            dq, dk = dq + dq2, dk + dk2
        return dq, dk, dv, -u.sum((0, 2)).to(ctx.sink_dtype), None, None


def _fused_attention(q, k, v, *, variant, causal, sink_logit, gate_logit, need_gate) -> AttentionResult:
    """:func:`fused_attention` without the finiteness checks (the variant and the shapes are still checked)."""
    if variant not in FUSED_VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(FUSED_VARIANTS)} on the fused path; got {variant!r}")
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4 or k.shape != v.shape or q.shape[:2] != k.shape[:2] \
            or q.shape[3] != k.shape[3]:
        raise ValueError(f"q must be (B, H, T, d) and k, v (B, H, S, d) with the same B, H, d; got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    b, h, t, d = q.shape
    s = k.shape[2]
    if causal and s != t:
        raise ValueError(f"the fused causal path needs as many keys as queries; got T={t}, S={s} "
                         "(use attention() for a key cache)")
    if variant == "sink" and (sink_logit is None or sink_logit.shape != (h,)):
        raise ValueError(f"variant 'sink' needs sink_logit of shape ({h},); got "
                         f"{None if sink_logit is None else tuple(sink_logit.shape)}")
    if variant in ("gated_head", "gated_elem"):
        want = (b, h, t) if variant == "gated_head" else (b, h, t, d)
        if gate_logit is None or tuple(gate_logit.shape) != want:
            raise ValueError(f"variant {variant!r} needs gate_logit of shape {want}; got "
                             f"{None if gate_logit is None else tuple(gate_logit.shape)}")
    scale = 1.0 / math.sqrt(d)
    if variant in ("gated_head", "gated_elem"):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        g = torch.sigmoid(gate_logit.to(out.dtype))
        if variant == "gated_head":
            return AttentionResult(out * g.unsqueeze(-1), None, None, g, v)
        return AttentionResult(out * g, None, None, g.mean(-1), v)
    if variant == "vanilla" and not need_gate:
        return AttentionResult(F.scaled_dot_product_attention(q, k, v, is_causal=causal), None, None, None, v)
    if variant == "sink" and q.device.type == "cpu" and _FLASH_CPU is not None and _FLASH_CPU_BACKWARD is not None:
        out, gate = _SinkByLSE.apply(q, k, v, sink_logit, causal, scale)
        return AttentionResult(out, None, None, gate if need_gate else None, v)
    # one extra channel carries the sink logit (queries 1) and the gate (values 1 on the real keys), padded with
    # zeros to a head size that is a multiple of 8: CUDA's flash kernel needs it, and on CPU the fused kernel was
    # faster there too (B=32, H=8, T=64, d=8, forward + backward: 0.60x plain SDPA with d+1, 0.90x with d+8). The
    # padded inputs are built by concatenation and the outputs read by one split: each costs one pass, and their
    # backward passes are views (padding by F.pad and slicing the output twice cost 0.74x -> 0.80x plain SDPA at
    # B=8, H=8, T=256, d=64 on one CPU thread)
    extra = 8 - d % 8
    lead = 1 if causal and variant == "sink" else 0  # a dummy first query keeps the top-left causal mask aligned
    qa = torch.cat([q, q.new_full((b, h, t, extra), 0.0 if variant == "vanilla" else 1.0)], -1)
    if lead:
        qa = torch.cat([qa.new_ones(b, h, 1, d + extra), qa], 2)
    ka = torch.cat([k, k.new_zeros(b, h, s, extra)], -1)
    gate_ch = v.new_ones(1, 1, s, 1)
    if variant == "vanilla":
        gate_ch = torch.cat([gate_ch.new_zeros(1, 1, 1, 1), gate_ch[:, :, 1:]], 2)  # key 0 is the implicit sink
    va = torch.cat([v, gate_ch.expand(b, h, s, 1), v.new_zeros(b, h, s, extra - 1)], -1)
    if variant == "sink":  # the sink key's score is its logit (channel d); its value and gate channel are zero
        sink_k = torch.cat([k.new_zeros(h, d), (sink_logit.to(q.dtype) / scale).view(h, 1),
                            k.new_zeros(h, extra - 1)], -1)
        ka = torch.cat([sink_k.view(1, h, 1, d + extra).expand(b, h, 1, d + extra), ka], 2)
        va = torch.cat([va.new_zeros(b, h, 1, d + extra), va], 2)
    o = F.scaled_dot_product_attention(qa, ka, va, is_causal=causal, scale=scale)[:, :, lead:]
    out, gate, _ = o.split([d, 1, extra - 1], -1)
    return AttentionResult(out, None, None, gate.squeeze(-1) if need_gate else None, v)


def rope_cache(t: int, d: int, base: float = 10000.0, device=None, dtype=torch.float32):
    """Cosine and sine tables ``(t, d/2)`` for rotary position embeddings."""
    t, d = checks.positive_int("t", t), checks.positive_int("d", d)
    base = checks.positive_number("base", base)
    if d % 2:
        raise ValueError(f"d must be even for rotary embeddings (the head dimension); got {d}")
    inv = 1.0 / (base ** (torch.arange(0, d, 2, device=device, dtype=torch.float64) / d))
    ang = torch.arange(t, device=device, dtype=torch.float64)[:, None] * inv[None, :]
    return ang.cos().to(dtype), ang.sin().to(dtype)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs of channels (half-split convention) of ``x`` ``(..., T, d)`` by ``cos``, ``sin`` ``(T, d/2)``."""
    checks.tensor("x", x)
    if x.dim() < 2 or x.shape[-1] % 2:
        raise ValueError(f"x must be (..., T, d) with an even d; got {tuple(x.shape)}")
    want = (x.shape[-2], x.shape[-1] // 2)
    checks.tensor("cos", cos, shape=want)
    checks.tensor("sin", sin, shape=want)
    return _rotate(x, cos, sin)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class MultiHeadAttention(nn.Module):
    """Multi-head self-attention over ``(B, T, d_model)`` with a variant from :data:`VARIANTS`.

    ``forward(x, need_weights=False)`` returns ``(y, result)``: the layer output ``(B, T, d_model)`` and
    the :class:`AttentionResult` of the heads. See the module docstring for the hooks.

    ``fused=True`` runs :func:`fused_attention` (torch's SDPA kernel) whenever nothing needs the
    materialised scores: no weights asked for, no capture, no ``logit_prior`` and no ``key_mask``; the
    result then has ``weights = lse = None``. ``need_gate = False`` (an attribute) lets the fused vanilla
    path skip its gate channel when no one reads the gate (plain training). The default, ``fused=False``,
    always takes the materialised path.
    """

    def __init__(self, d_model: int, n_heads: int, variant: str = "vanilla", *, causal: bool = True,
                 rope: bool = True, rope_base: float = 10000.0, bias: bool = False, fused: bool = False):
        super().__init__()
        if not isinstance(d_model, int) or d_model < 1:
            raise ValueError(f"d_model must be a positive integer; got {d_model!r}")
        if not isinstance(n_heads, int) or n_heads < 1 or d_model % n_heads:
            raise ValueError(f"n_heads must be a positive integer dividing d_model={d_model}; got {n_heads!r}")
        self.variant = _check_variant(variant)
        self.d_model, self.n_heads, self.d_head = d_model, n_heads, d_model // n_heads
        if rope and self.d_head % 2:
            raise ValueError(f"rope needs an even head dimension; d_model/n_heads = {self.d_head}")
        self.causal, self.rope, self.rope_base = causal, rope, checks.positive_number("rope_base", rope_base)
        self.fused = checks.instance("fused", fused, bool) and variant in FUSED_VARIANTS
        self.need_gate = True
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.o_proj = nn.Linear(d_model, d_model, bias=bias)
        self.sink = nn.Parameter(torch.zeros(n_heads)) if variant == "sink" else None
        if variant == "gated_head":
            self.gate_proj = nn.Linear(d_model, n_heads, bias=bias)
        elif variant == "gated_elem":
            self.gate_proj = nn.Linear(d_model, d_model, bias=bias)
        else:
            self.gate_proj = None
        self.logit_prior: torch.Tensor | None = None
        self.head_scale: torch.Tensor | None = None
        self.capture = False
        self.captured: AttentionResult | None = None
        self._qkv_hooks: list[Callable] = []
        self._head_hooks: list[Callable] = []

    def add_qkv_hook(self, fn: Callable) -> Callable[[], None]:
        """Register ``fn(module, q, k, v) -> (q, k, v) | None``; returns a function that removes it."""
        if not callable(fn):
            raise ValueError("fn must be callable")
        self._qkv_hooks.append(fn)
        return lambda: self._qkv_hooks.remove(fn) if fn in self._qkv_hooks else None

    def add_head_hook(self, fn: Callable) -> Callable[[], None]:
        """Register ``fn(module, result) -> per-head output | None``; returns a function that removes it."""
        if not callable(fn):
            raise ValueError("fn must be callable")
        self._head_hooks.append(fn)
        return lambda: self._head_hooks.remove(fn) if fn in self._head_hooks else None

    def split(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, T, d_model)`` -> ``(B, H, T, d_head)``."""
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, -1).transpose(1, 2)

    def forward(self, x: torch.Tensor, need_weights: bool = False,
                key_mask: torch.Tensor | None = None) -> tuple[torch.Tensor, AttentionResult]:
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise ValueError(f"x must be (B, T, {self.d_model}); got {tuple(x.shape)}")
        b, t, _ = x.shape
        q, k, v = self.split(self.q_proj(x)), self.split(self.k_proj(x)), self.split(self.v_proj(x))
        if self.rope:
            cos, sin = rope_cache(t, self.d_head, self.rope_base, device=x.device, dtype=x.dtype)
            q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        for fn in self._qkv_hooks:
            new = fn(self, q, k, v)
            if new is not None:
                q, k, v = new
        gate_logit = None
        if self.variant == "gated_head":
            gate_logit = self.gate_proj(x).transpose(1, 2)  # (B, H, T)
        elif self.variant == "gated_elem":
            gate_logit = self.split(self.gate_proj(x))
        weights = need_weights or self.capture
        if self.fused and not weights and self.logit_prior is None and key_mask is None:
            res = _fused_attention(q, k, v, variant=self.variant, causal=self.causal, sink_logit=self.sink,
                                   gate_logit=gate_logit, need_gate=self.need_gate)
        else:
            res = _attention(q, k, v, variant=self.variant, causal=self.causal, sink_logit=self.sink,
                            gate_logit=gate_logit, logit_prior=self.logit_prior, key_mask=key_mask,
                            need_weights=weights)
        for fn in self._head_hooks:
            new = fn(self, res)
            if new is not None:
                if new.shape != res.out.shape:
                    raise ValueError(f"a head hook must return a tensor of shape {tuple(res.out.shape)}; "
                                     f"got {tuple(new.shape)}")
                res.out = new
        out = res.out
        if self.head_scale is not None:
            if self.head_scale.shape != (self.n_heads,):
                raise ValueError(f"head_scale must have shape ({self.n_heads},); got {tuple(self.head_scale.shape)}")
            out = out * self.head_scale.to(out).view(1, -1, 1, 1)
        if self.capture:
            self.captured = AttentionResult(*(None if z is None else z.detach() for z in
                                              (out, res.weights, res.lse, res.gate, res.values)))
        y = self.o_proj(out.transpose(1, 2).reshape(b, t, self.d_model))
        return y, res


def attention_modules(model: nn.Module) -> list[MultiHeadAttention]:
    """All :class:`MultiHeadAttention` layers of ``model``, in module order."""
    mods = [m for m in model.modules() if isinstance(m, MultiHeadAttention)]
    if not mods:
        raise ValueError("model contains no MultiHeadAttention layer")
    return mods


def capture_attention(model: nn.Module) -> contextlib.AbstractContextManager[list[MultiHeadAttention]]:
    """Within the block every attention layer keeps its last (detached) result in ``.captured``."""
    return _capture(attention_modules(model))


@contextlib.contextmanager
def _capture(mods: list[MultiHeadAttention]) -> Iterator[list[MultiHeadAttention]]:
    old = [m.capture for m in mods]
    for m in mods:
        m.capture = True
    try:
        yield mods
    finally:
        for m, c in zip(mods, old):
            m.capture = c


def ablate_heads(model: nn.Module, heads: Iterable[tuple[int, int]]) -> contextlib.AbstractContextManager[None]:
    """Zero the outputs of the given ``(layer, head)`` pairs within the block."""
    mods = attention_modules(model)
    old = [m.head_scale for m in mods]
    scales = [torch.ones(m.n_heads) if s is None else s.clone() for m, s in zip(mods, old)]
    for i, pair in enumerate(heads):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"heads must hold (layer, head) pairs; got {pair!r} at heads[{i}]")
        layer, head = checks.integer(f"heads[{i}][0]", pair[0]), checks.integer(f"heads[{i}][1]", pair[1])
        if not 0 <= layer < len(mods) or not 0 <= head < mods[layer].n_heads:
            raise ValueError(f"heads must be (layer, head) with 0 <= layer < {len(mods)} and "
                             f"0 <= head < {mods[0].n_heads}; got {pair}")
        scales[layer][head] = 0.0
    return _ablate(mods, old, scales)


@contextlib.contextmanager
def _ablate(mods, old, scales) -> Iterator[None]:
    try:
        for m, s in zip(mods, scales):
            m.head_scale = s
        yield
    finally:
        for m, s in zip(mods, old):
            m.head_scale = s
