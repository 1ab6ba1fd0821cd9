"""Generic forecasting blocks: instance norm, patching, variate tokens, an encoder with injection.

Section numbers are those of docs/papers/dag_tsfx.md §3.

The encoder's attention is the shared :class:`icml26.nn.attention.MultiHeadAttention` (non-causal, no RoPE);
DAG's attention injection (§3.2 step 5) goes through its ``logit_prior`` hook.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks
from icml26.nn.attention import MultiHeadAttention

INJECT_MODES = ("softmax_sum", "convex")


def instance_stats(x: torch.Tensor, eps: float = 1e-5) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sample, per-channel mean and std over time of ``x (B, T, C)`` (biased variance, detached; §3.1)."""
    checks.tensor("x", x, ndim=3)
    checks.nonnegative_number("eps", eps)
    return _instance_stats(x, eps)


def _instance_stats(x, eps=1e-5):
    mu = x.mean(1, keepdim=True).detach()
    sd = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + eps).detach()
    return mu, sd


def patchify(x: torch.Tensor, patch_len: int, stride: int) -> torch.Tensor:
    """``x (B, C, T)`` -> ``(B, C, M, P)``: right-pad by replicating the last value ``stride`` times, then unfold.

    ``M = floor((T - P) / S) + 2`` (§3.2 step 1).
    """
    checks.tensor("x", x, ndim=3)
    checks.positive_int("patch_len", patch_len)
    checks.positive_int("stride", stride)
    if patch_len > x.shape[-1]:
        raise ValueError(f"need 1 <= patch_len <= T and stride >= 1; got patch_len={patch_len}, stride={stride}, "
                         f"T={x.shape[-1]}")
    return _patchify(x, patch_len, stride)


def _patchify(x, patch_len, stride):
    x = torch.cat([x, x[..., -1:].expand(*x.shape[:-1], stride)], dim=-1)
    return x.unfold(-1, patch_len, stride)


def n_patches(seq_len: int, patch_len: int, stride: int) -> int:
    """Number of patches :func:`patchify` makes."""
    for name, v in (("seq_len", seq_len), ("patch_len", patch_len), ("stride", stride)):
        checks.positive_int(name, v)
    if patch_len > seq_len:
        raise ValueError(f"patch_len must be <= seq_len; got patch_len={patch_len}, seq_len={seq_len}")
    return (seq_len - patch_len) // stride + 2


def sinusoidal(m: int, d: int) -> torch.Tensor:
    """Fixed sinusoidal positional encoding ``(m, d)``."""
    checks.positive_int("m", m)
    checks.positive_int("d", d)
    pos = torch.arange(m, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
    pe = torch.zeros(m, d)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)[:, : d // 2]
    return pe


class PatchEmbedding(nn.Module):
    """Channel-independent patch tokens: ``(B, C, T)`` -> ``(B*C, M, d)`` (Linear(P, d, no bias) + PE + dropout)."""

    def __init__(self, seq_len: int, patch_len: int, stride: int, d_model: int, dropout: float = 0.0):
        super().__init__()
        checks.positive_int("d_model", d_model)
        checks.probability("dropout", dropout)
        self.patch_len, self.stride = patch_len, stride
        self.m = n_patches(seq_len, patch_len, stride)
        self.proj = nn.Linear(patch_len, d_model, bias=False)
        self.register_buffer("pe", sinusoidal(self.m, d_model), persistent=False)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = _patchify(x, self.patch_len, self.stride)
        b, c, m, _ = p.shape
        return self.drop(self.proj(p).reshape(b * c, m, -1) + self.pe)


class CompressAndProject(nn.Module):
    """``(B, T, C)`` -> ``(B, d)``: ``Linear(C -> 1)`` across channels, then an MLP ``T -> 2T -> d`` (§3.2.4)."""

    def __init__(self, n_channels: int, length: int, d_out: int):
        super().__init__()
        for name, v in (("n_channels", n_channels), ("length", length), ("d_out", d_out)):
            checks.positive_int(name, v)
        self.squeeze = nn.Linear(n_channels, 1)
        self.mlp = nn.Sequential(nn.Linear(length, 2 * length), nn.ReLU(), nn.Linear(2 * length, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.squeeze(x).squeeze(-1))


class VariateEmbedding(nn.Module):
    """iTransformer variate tokens plus a global summary token (§3.3 step 2): ``(B, L, D)`` -> ``(B, D, d)``."""

    def __init__(self, length: int, n_vars: int, d_model: int, dropout: float = 0.0):
        super().__init__()
        for name, v in (("length", length), ("n_vars", n_vars), ("d_model", d_model)):
            checks.positive_int(name, v)
        checks.probability("dropout", dropout)
        self.token = nn.Linear(length, d_model)
        self.glob = CompressAndProject(n_vars, length, max(1, d_model // 4))
        self.mix = nn.Linear(d_model + max(1, d_model // 4), d_model)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tok = self.token(x.transpose(1, 2))  # (B, D, d)
        g = self.glob(x).unsqueeze(1).expand(-1, tok.shape[1], -1)
        return self.drop(self.mix(torch.cat([tok, g], dim=-1)))


class EncoderLayer(nn.Module):
    """Post-LN Transformer layer (MHSA + FFN d -> d_ff -> d with GELU) whose attention accepts an injected map.

    With ``inject=(maps, alpha)`` the attention weights become ``softmax(A + alpha * maps)`` with ``A`` the
    native softmax map (mode ``"softmax_sum"``, the official rule, §3.2 step 5 and §6) or the convex
    mixture ``(1 - alpha) A + alpha * maps`` (mode ``"convex"``). Both are realised exactly through the shared
    attention's additive ``logit_prior``: the prior is ``target_logits - scores``.
    """

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.0, inject_mode: str = "softmax_sum"):
        super().__init__()
        _check_encoder(d_model, n_heads, d_ff, dropout, inject_mode)
        self.inject_mode = inject_mode
        self.attn = MultiHeadAttention(d_model, n_heads, "vanilla", causal=False, rope=False, bias=True)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model))
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.drop = nn.Dropout(dropout)
        self._inject = None
        self.attn.add_qkv_hook(self._prior_hook)

    def _prior_hook(self, mod, q, k, v):
        if self._inject is None:
            mod.logit_prior = None
            return None
        maps, alpha = self._inject
        if maps.shape != (q.shape[0], q.shape[1], q.shape[2], k.shape[2]):
            raise ValueError(f"injected maps must be {(q.shape[0], q.shape[1], q.shape[2], k.shape[2])}; "
                             f"got {tuple(maps.shape)}")
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        a = alpha.view(-1, 1, 1, 1)
        native = torch.softmax(scores, dim=-1)
        if self.inject_mode == "softmax_sum":
            target = native + a * maps
        else:
            target = torch.log((1 - a) * native + a * maps + 1e-12)
        mod.logit_prior = target - scores
        return None

    def forward(self, x: torch.Tensor, inject=None) -> tuple[torch.Tensor, torch.Tensor]:
        self._inject = inject
        try:
            y, res = self.attn(x, need_weights=True)
        finally:
            self._inject = None
            self.attn.logit_prior = None
        x = self.norm1(x + self.drop(y))
        x = self.norm2(x + self.drop(self.ff(x)))
        return x, res.weights


def _check_encoder(d_model, n_heads, d_ff, dropout, inject_mode) -> None:
    for name, v in (("d_model", d_model), ("n_heads", n_heads), ("d_ff", d_ff)):
        checks.positive_int(name, v)
    if d_model % n_heads:
        raise ValueError(f"d_model must be a multiple of n_heads; got d_model={d_model}, n_heads={n_heads}")
    checks.probability("dropout", dropout)
    if inject_mode not in INJECT_MODES:
        raise ValueError(f"inject_mode must be one of {INJECT_MODES}; got {inject_mode!r}")


class Encoder(nn.Module):
    """A stack of :class:`EncoderLayer` and a final LayerNorm; returns the output and the per-layer maps."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, e_layers: int = 1, dropout: float = 0.0,
                 inject_mode: str = "softmax_sum"):
        super().__init__()
        _check_encoder(d_model, n_heads, d_ff, dropout, inject_mode)
        checks.positive_int("e_layers", e_layers)
        self.layers = nn.ModuleList(EncoderLayer(d_model, n_heads, d_ff, dropout, inject_mode)
                                    for _ in range(e_layers))
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x: torch.Tensor, inject_maps=None, alpha=None):
        maps = []
        for i, layer in enumerate(self.layers):
            inj = None if inject_maps is None else (inject_maps[i], alpha)
            x, w = layer(x, inj)
            maps.append(w)
        return self.norm(x), maps


class FlattenHead(nn.Module):
    """``(B*C, M, d)`` -> ``(B, F, C)`` with one ``Linear(M*d -> F)`` shared across channels."""

    def __init__(self, m: int, d_model: int, pred_len: int):
        super().__init__()
        for name, v in (("m", m), ("d_model", d_model), ("pred_len", pred_len)):
            checks.positive_int(name, v)
        self.lin = nn.Linear(m * d_model, pred_len)

    def forward(self, z: torch.Tensor, n_channels: int) -> torch.Tensor:
        out = self.lin(z.flatten(1))  # (B*C, F)
        return out.view(-1, n_channels, out.shape[-1]).transpose(1, 2)


class ExogProjector(nn.Module):
    """Variate tokens ``(B, D, d)`` -> ``(B, L)``: ``Linear(D -> 1)`` across variates then ``Linear(d -> L)``."""

    def __init__(self, n_vars: int, d_model: int, length: int):
        super().__init__()
        for name, v in (("n_vars", n_vars), ("d_model", d_model), ("length", length)):
            checks.positive_int(name, v)
        self.vars = nn.Linear(n_vars, 1)
        self.out = nn.Linear(d_model, length)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.out(self.vars(z.transpose(1, 2)).squeeze(-1))


def moving_average(x: torch.Tensor, kernel: int) -> torch.Tensor:
    """Replicate-padded moving average over time of ``x (B, T, C)`` (DLinear's trend)."""
    checks.tensor("x", x, ndim=3)
    checks.positive_int("kernel", kernel)
    return _moving_average(x, kernel)


def _moving_average(x, kernel):
    left, right = (kernel - 1) // 2, kernel // 2
    xp = torch.cat([x[:, :1].expand(-1, left, -1), x, x[:, -1:].expand(-1, right, -1)], dim=1)
    return F.avg_pool1d(xp.transpose(1, 2), kernel, stride=1).transpose(1, 2)
