"""The baselines of the paper: the three attention variants trained without the auxiliary loss.

See docs/papers/attention_sink.md §4.

* ``vanilla``: softmax attention; the first token (BOS) becomes the implicit sink.
* ``sink``: GPT-OSS sink attention, a learned per-head logit in the softmax denominator.
* ``gated_head``: Qwen3-Next / Qiu et al. (2025) gated attention with a head-wise sigmoid gate
  (``gated_elem``, the element-wise gate, is available too; the head-wise one is the default, *inferred*).

"base" is each variant with ``lam = 0``; "base + aux" is the paper's method. Both share one training loop
(:func:`icml26.papers.attention_sink.training.train_lm`), budget and hyper-parameters. A random head order
is the natural peer for the importance ranking in the ablation study (:func:`random_head_order`).
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.nn.tiny_gpt import GPTConfig, TinyGPT

from .corpus import VOCAB

BASELINE_VARIANTS = ("vanilla", "sink", "gated_head")
DESCRIPTIONS = {
    "vanilla": "softmax attention, BOS as implicit sink",
    "sink": "GPT-OSS sink attention (learned sink logit per head)",
    "gated_head": "gated attention, head-wise sigmoid output gate (Qiu et al. 2025)",
    "gated_elem": "gated attention, element-wise sigmoid output gate (Qwen3-Next)",
}


def make_model(variant: str, d_model: int, n_heads: int, n_layers: int, context: int, device=None,
               fused: bool = False) -> TinyGPT:
    """A byte-level :class:`TinyGPT` (vocabulary 257 = bytes + BOS) with the given attention variant.

    ``fused=True`` trains and evaluates on torch's fused attention kernel (:func:`icml26.nn.attention.fused_attention`);
    calls that ask for attention maps still take the materialised path.
    """
    if variant not in DESCRIPTIONS:
        raise ValueError(f"variant must be one of {', '.join(DESCRIPTIONS)}; got {variant!r}")
    if device is not None:
        checks.device("device", device)
    cfg = GPTConfig(vocab_size=VOCAB, d_model=d_model, n_heads=n_heads, n_layers=n_layers, context=context,
                    variant=variant, fused=fused)
    return TinyGPT(cfg).to(device)


def random_head_order(n_layers: int, n_heads: int, generator: torch.Generator | None = None) -> list[tuple[int, int]]:
    """All ``(layer, head)`` pairs in a random order (the baseline for an Imp-ordered ablation)."""
    checks.positive_int("n_layers", n_layers)
    checks.positive_int("n_heads", n_heads)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")
    perm = torch.randperm(n_layers * n_heads, generator=generator).tolist()
    return [(i // n_heads, i % n_heads) for i in perm]
