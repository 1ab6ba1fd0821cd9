"""What the paper compares value-only fine-tuning against (docs/papers/icl_finetuning.md §4), on equal footing.

Every method is a (trainable subset, objective) pair run by the same :func:`~.method.finetune` loop, from the
same pretrained model, on the same data, with the same optimiser, learning rate, steps and batch:

* ``zs_all``: standard full fine-tuning on the zero-shot loss (the baseline that destroys ICL);
* ``zs_q`` / ``zs_k`` / ``zs_kq``: only the query and/or key side, on the split ``W_q, W_k`` model (the
  analogue of LoRA on q/k projections);
* ``zsfs_all``: full fine-tuning with the annealed auxiliary few-shot loss; ``zsfs_q`` / ``zsfs_k`` / ``zsfs_kq``:
  the query/key variants with that loss (the paper's ZS+FS rows for every subset);
* ``zs_v`` and ``zsfs_v``: the paper's value-only fine-tuning, without and with the auxiliary loss
  (listed here too so that one table drives every run).

The pretrained model (no fine-tuning) is the reference curve. :class:`ModelAdapter` is the plug-in interface for
the paper's LLM experiment (an HF model and MMLU, run locally by a user; never called by CI).
"""

from __future__ import annotations

import copy
from typing import Protocol

import torch

from icml26 import checks

from .method import LinearAttentionICL

METHODS: dict[str, tuple[str, str]] = {
    "zs_all": ("all", "zs"),
    "zs_v": ("v", "zs"),
    "zsfs_all": ("all", "zs+fs"),
    "zsfs_v": ("v", "zs+fs"),
    "zs_q": ("q", "zs"),
    "zs_k": ("k", "zs"),
    "zs_kq": ("kq", "zs"),
    "zsfs_q": ("q", "zs+fs"),
    "zsfs_k": ("k", "zs+fs"),
    "zsfs_kq": ("kq", "zs+fs"),
}
SPLIT_METHODS = ("zs_q", "zs_k", "zs_kq", "zsfs_q", "zsfs_k", "zsfs_kq")
LABELS = {"pretrained": "pretrained", "zs_all": "ZS (all)", "zs_v": "ZS (V) [paper]", "zsfs_all": "ZS+FS (all)",
          "zsfs_v": "ZS+FS (V) [paper]", "zs_q": "ZS (Q)", "zs_k": "ZS (K)", "zs_kq": "ZS (KQ)",
          "zsfs_q": "ZS+FS (Q)", "zsfs_k": "ZS+FS (K)", "zsfs_kq": "ZS+FS (KQ)"}


def clone(model: LinearAttentionICL) -> LinearAttentionICL:
    """An independent copy of a (pretrained) model, so every method starts from the same weights."""
    if not isinstance(model, LinearAttentionICL):
        raise ValueError(f"model must be a LinearAttentionICL; got {type(model).__name__}")
    return copy.deepcopy(model)


class ModelAdapter(Protocol):
    """What a real model must offer to be fine-tuned like the paper's LLM experiment (docs §4).

    ``trainable_subset(name)`` freezes everything except the adapters on the named attention projections
    (``"all"``, ``"q"``, ``"k"``, ``"v"``) and returns the trainable parameters; ``zero_shot_loss(batch)`` and
    ``few_shot_loss(batch)`` return scalar losses on a batch of questions without / with demonstrations.
    """

    def trainable_subset(self, name: str) -> list[torch.nn.Parameter]: ...

    def zero_shot_loss(self, batch) -> torch.Tensor: ...

    def few_shot_loss(self, batch) -> torch.Tensor: ...


def finetune_adapter(adapter: ModelAdapter, batches, *, subset: str = "v", aux_fs: bool = False, lr: float = 1e-4,
                     clip: float = 1.0) -> list[float]:
    """Fine-tune any :class:`ModelAdapter` with the ZS loss (plus the FS loss annealed 1 -> 0 when ``aux_fs``)."""
    if subset not in ("all", "q", "k", "v"):
        raise ValueError(f"subset must be 'all', 'q', 'k' or 'v'; got {subset!r}")
    missing = [m for m in ("trainable_subset", "zero_shot_loss", "few_shot_loss")
               if not callable(getattr(adapter, m, None))]
    if missing:
        raise TypeError(f"adapter must offer the ModelAdapter methods; it lacks {', '.join(missing)}")
    checks.positive_number("lr", lr)
    checks.positive_number("clip", clip)
    if not isinstance(aux_fs, bool):
        raise TypeError(f"aux_fs must be a bool; got {aux_fs!r}")
    if isinstance(batches, (str, bytes)):
        raise TypeError("batches must be an iterable of batches, not a string")
    batches = list(batches)
    if not batches:
        raise ValueError("batches must hold at least one batch")
    params = adapter.trainable_subset(subset)
    opt = torch.optim.AdamW(params, lr=lr)
    losses = []
    for t, batch in enumerate(batches):
        loss = adapter.zero_shot_loss(batch)
        if aux_fs:
            lam = 1.0 if len(batches) == 1 else (len(batches) - 1 - t) / (len(batches) - 1)
            loss = loss + lam * adapter.few_shot_loss(batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, clip)
        opt.step()
        losses.append(float(loss.detach()))
    return losses
