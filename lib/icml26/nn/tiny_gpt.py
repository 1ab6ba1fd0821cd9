"""A tiny decoder-only transformer (GPT-style, pre-LN, RoPE, GELU MLP, tied embeddings).

Shared block built on :class:`icml26.nn.attention.MultiHeadAttention`, so every attention variant
(vanilla, sink, gated, linear) and every hook of that module is available in a whole language model.

``TinyGPT(GPTConfig(...))(idx)`` returns logits ``(B, T, vocab)``; with ``return_attn=True`` it also
returns the list of per-layer :class:`~icml26.nn.attention.AttentionResult`. :func:`token_losses` and
:func:`sequence_logprob` are the per-token loss and the sequence log-probability utilities.
``GPTConfig(fused=True)`` runs attention on torch's fused kernel except where attention maps are asked for.
:func:`save_model` and :func:`read_model` store a trained model as safetensors (its config and any JSON metadata
in the header), written atomically and read back with its sha256 checked: the format of every shipped TinyGPT.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks, shipped
from icml26.nn.attention import VARIANTS, AttentionResult, MultiHeadAttention


@dataclass(frozen=True)
class GPTConfig:
    """Size and attention variant of a :class:`TinyGPT`."""

    vocab_size: int = 257
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    context: int = 64
    variant: str = "vanilla"
    mlp_ratio: int = 4
    rope: bool = True
    tie_embeddings: bool = True
    fused: bool = False

    def __post_init__(self):
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "context", "mlp_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        if self.d_model % self.n_heads:
            raise ValueError(f"n_heads must divide d_model; got d_model={self.d_model}, n_heads={self.n_heads}")
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {self.variant!r}")
        checks.instance("fused", self.fused, bool)

    def to_dict(self) -> dict:
        return asdict(self)


class Block(nn.Module):
    """Pre-LN transformer block: ``x + attn(LN x)``, then ``x + MLP(LN x)``."""

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        checks.instance("cfg", cfg, GPTConfig)
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.variant, causal=True, rope=cfg.rope,
                                       fused=cfg.fused)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, cfg.mlp_ratio * cfg.d_model), nn.GELU(),
                                 nn.Linear(cfg.mlp_ratio * cfg.d_model, cfg.d_model))

    def forward(self, x: torch.Tensor, need_weights: bool = False):
        a, res = self.attn(self.ln1(x), need_weights=need_weights)
        x = x + a
        return x + self.mlp(self.ln2(x)), res


class TinyGPT(nn.Module):
    """A small causal language model over integer tokens ``(B, T)`` with ``T <= context``."""

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        if not isinstance(cfg, GPTConfig):
            raise ValueError(f"cfg must be a GPTConfig; got {type(cfg).__name__}")
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = None if cfg.rope else nn.Parameter(torch.zeros(cfg.context, cfg.d_model))
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.apply(self._init)
        if cfg.tie_embeddings:
            self.head.weight = self.embed.weight

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
            if getattr(m, "bias", None) is not None:
                nn.init.zeros_(m.bias)

    @property
    def attentions(self) -> list[MultiHeadAttention]:
        return [b.attn for b in self.blocks]

    def forward(self, idx: torch.Tensor, return_attn: bool = False, need_weights: bool = False):
        if not isinstance(idx, torch.Tensor) or idx.dim() != 2 or idx.dtype not in (torch.long, torch.int32,
                                                                                     torch.int64):
            raise ValueError(f"idx must be an integer tensor (B, T); got {getattr(idx, 'shape', idx)!r}")
        t = idx.shape[1]
        if not 1 <= t <= self.cfg.context:
            raise ValueError(f"idx: sequence length must be in [1, context={self.cfg.context}]; got {t}")
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= self.cfg.vocab_size):
            raise ValueError(f"idx: token ids must lie in [0, {self.cfg.vocab_size}); got range "
                             f"[{int(idx.min())}, {int(idx.max())}]")
        x = self.embed(idx)
        if self.pos is not None:
            x = x + self.pos[:t]
        results: list[AttentionResult] = []
        for block in self.blocks:
            x, res = block(x, need_weights=need_weights)
            results.append(res)
        logits = self.head(self.ln_f(x))
        return (logits, results) if return_attn else logits


def token_losses(model: TinyGPT, idx: torch.Tensor, logits: torch.Tensor | None = None) -> torch.Tensor:
    """Per-token next-token cross-entropy ``(B, T-1)`` (nats) of ``idx`` under ``model``."""
    checks.instance("model", model, TinyGPT)
    checks.tensor("idx", idx, dtype_kind="int")
    if idx.dim() != 2 or idx.shape[1] < 2:
        raise ValueError(f"idx must be (B, T) with T >= 2; got {tuple(idx.shape)}")
    if logits is None:
        logits = model(idx)
    else:
        checks.tensor("logits", logits, shape=(*idx.shape, model.cfg.vocab_size))
    lg = logits[:, :-1]
    return F.cross_entropy(lg.reshape(-1, lg.shape[-1]).float(), idx[:, 1:].reshape(-1),
                           reduction="none").view(idx.shape[0], -1)


def sequence_logprob(model: TinyGPT, idx: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Sum of ``log p(idx_t | idx_<t)`` over ``t >= 1`` per sequence, ``(B,)``.

    ``mask`` ``(B, T)`` (bool or 0/1) selects which target positions count (e.g. only the answer).
    """
    lp = -token_losses(model, idx)
    if mask is not None:
        if mask.shape != idx.shape:
            raise ValueError(f"mask must have the shape of idx {tuple(idx.shape)}; got {tuple(mask.shape)}")
        lp = lp * mask[:, 1:].to(lp.dtype)
    return lp.sum(-1)


def save_model(model: TinyGPT, path, metadata: dict | None = None) -> str:
    """Write ``model``'s weights to ``path`` as safetensors, atomically, with its config and each entry of
    ``metadata`` (JSON-serialisable values, stored as JSON strings) in the header; returns the file's sha256.
    A tied head is stored once (as the embedding)."""
    checks.instance("model", model, TinyGPT)
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict or None; got {type(metadata).__name__}")
    tied = model.cfg.tie_embeddings
    state = {k: v for k, v in model.state_dict().items() if not (tied and k == "head.weight")}
    meta = {"config": json.dumps(model.cfg.to_dict())}
    for key, value in (metadata or {}).items():
        if key == "config":
            raise ValueError("metadata must not have the key 'config' (the model's own config is stored there)")
        meta[key] = json.dumps(value)
    return shipped.write(path, state, meta)


def read_model(path, expected_sha256: str | None = None, build=TinyGPT, device="cpu") -> tuple[TinyGPT, dict]:
    """The model stored at ``path`` by :func:`save_model` and its metadata (decoded from JSON).

    With ``expected_sha256`` the file's checksum must match (a corrupt or silently re-trained file is refused);
    ``build(GPTConfig)`` makes the empty model the weights are loaded into (e.g. one on the fused kernel)."""
    if not callable(build):
        raise TypeError(f"build must be callable; got {type(build).__name__}")
    device = checks.device("device", device)
    state, meta = shipped.read(path, expected_sha256)
    path = Path(path)
    if "config" not in meta:
        raise ValueError(f"{path.name} is not a model written by save_model (no config metadata)")
    arch = {k: v for k, v in json.loads(meta.pop("config")).items() if k in GPTConfig.__dataclass_fields__}
    model = build(GPTConfig(**arch))
    missing = model.load_state_dict(state, strict=False).missing_keys
    if [k for k in missing if not (k == "head.weight" and model.cfg.tie_embeddings)]:
        raise ValueError(f"{path.name} lacks parameters {missing}")
    return model.to(device).eval(), {k: json.loads(v) for k, v in meta.items()}
