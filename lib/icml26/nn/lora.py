"""Low-rank adapters (LoRA, Hu et al. 2021) for ``nn.Linear`` layers, in a few lines of our own code.

``apply_lora(model, rank, alpha, targets)`` replaces every ``nn.Linear`` whose attribute name is in
``targets`` by a :class:`LoRALinear` wrapping it, freezes all other parameters and returns the new
trainable ones. ``W x + (alpha / rank) B A x`` with ``B`` initialised to zero, so the adapted model starts
exactly at the pretrained one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch
from torch import nn

from icml26 import checks


class LoRALinear(nn.Module):
    """A frozen ``nn.Linear`` plus a trainable low-rank update ``(alpha/rank) * B @ A``."""

    def __init__(self, base: nn.Linear, rank: int = 8, alpha: float = 16.0):
        super().__init__()
        if not isinstance(base, nn.Linear):
            raise ValueError(f"base must be an nn.Linear; got {type(base).__name__}")
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
            raise ValueError(f"rank must be a positive integer; got {rank!r}")
        checks.positive_number("alpha", alpha)
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        self.rank, self.scaling = rank, alpha / rank
        w = base.weight
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features, device=w.device, dtype=w.dtype))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank, device=w.device, dtype=w.dtype))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.lora_a.T @ self.lora_b.T) * self.scaling

    def merged_weight(self) -> torch.Tensor:
        """The dense weight equivalent to this adapter: ``W + scaling * B A``."""
        return self.base.weight + self.scaling * self.lora_b @ self.lora_a


def apply_lora(model: nn.Module, rank: int = 8, alpha: float = 16.0,
               targets: Iterable[str] = ("q_proj", "k_proj", "v_proj", "o_proj")) -> list[nn.Parameter]:
    """Wrap the named linear layers of ``model`` in :class:`LoRALinear` (in place); return the trainable params.

    Every parameter outside the adapters is frozen (``requires_grad=False``).
    """
    checks.positive_int("rank", rank)
    checks.positive_number("alpha", alpha)
    targets = set(targets)
    if not targets:
        raise ValueError("targets must name at least one linear layer attribute")
    for p in model.parameters():
        p.requires_grad_(False)
    found = []
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if name in targets and isinstance(child, nn.Linear):
                setattr(module, name, LoRALinear(child, rank, alpha))
                found.append(getattr(module, name))
    if not found:
        raise ValueError(f"targets: no nn.Linear named any of {sorted(targets)} was found in the model")
    return [p for m in found for p in (m.lora_a, m.lora_b)]
