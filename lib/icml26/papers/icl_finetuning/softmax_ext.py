"""Softmax-transformer extension (claims c6, standard and full): the offline analogue of the paper's LLM experiment.

See docs/papers/icl_finetuning.md §3.6.

A small causal softmax transformer built from the shared :class:`icml26.nn.tiny_gpt.Block` reads tokens
``(x_j, y_j)`` (the query's ``y`` slot is 0) through a linear read-in, after a learned BOS token, and predicts
``y_q`` from the last position (Garg et al. 2022 style in-context regression). It is pretrained on fresh tasks
with 0..n demonstrations, then fine-tuned on the zero-shot loss of one target task with the shared LoRA
(:func:`icml26.nn.lora.apply_lora`) on ``{q, k, v}`` projections or on ``{v}`` only.

*(inferred)* The BOS token is our choice: with a one-token zero-shot prompt softmax attention puts weight 1 on the
token itself, so q/k adapters get no gradient at all; the BOS token plays the role of the linear model's
constant feature (a key the query can attend to), as chat templates and system prompts do in LLMs.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import nn

from icml26 import checks
from icml26.nn.lora import apply_lora
from icml26.nn.tiny_gpt import Block, GPTConfig

from .data import _check_pos, _sample_prompts, sample_prompts, sample_tasks


class SoftmaxICL(nn.Module):
    """Causal softmax transformer over regression tokens: ``forward(z) -> (B,)`` with ``z`` as in :mod:`.data`."""

    def __init__(self, d: int, d_model: int = 64, n_layers: int = 2, n_heads: int = 4):
        super().__init__()
        self.d = checks.int_at_least("d", d, 1)
        for name, value in (("d_model", d_model), ("n_layers", n_layers), ("n_heads", n_heads)):
            checks.positive_int(name, value)
        if d_model % n_heads:
            raise ValueError(f"n_heads must divide d_model; got d_model={d_model}, n_heads={n_heads}")
        cfg = GPTConfig(vocab_size=1, d_model=d_model, n_heads=n_heads, n_layers=n_layers, context=512, rope=False)
        self.read_in = nn.Linear(d + 1, d_model)
        self.bos = nn.Parameter(0.02 * torch.randn(d_model))
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.read_out = nn.Linear(d_model, 1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        if not isinstance(z, torch.Tensor) or z.dim() != 3 or z.shape[-1] != self.d + 2:
            raise ValueError(f"z must be (B, N, d+2={self.d + 2}); got {getattr(z, 'shape', z)!r}")
        h = self.read_in(z[..., 1:])                      # drop the constant feature: BOS plays its part
        h = torch.cat([self.bos.expand(h.shape[0], 1, -1), h], dim=1)
        for block in self.blocks:
            h, _ = block(h)
        return self.read_out(self.ln_f(h[:, -1])).squeeze(-1)


def _check_model(model) -> None:
    if not isinstance(model, SoftmaxICL):
        raise TypeError(f"model must be a SoftmaxICL; got {type(model).__name__}")


def _lora_targets(subset: str) -> tuple[str, ...]:
    table = {"all": ("q_proj", "k_proj", "v_proj"), "v": ("v_proj",), "qk": ("q_proj", "k_proj")}
    if subset not in table:
        raise ValueError(f"subset must be one of {list(table)}; got {subset!r}")
    return table[subset]


def pretrain_softmax(model: SoftmaxICL, steps: int, batch: int, n_shots: int, lr: float, *, sigma2: float = 0.1,
                     generator: torch.Generator | None = None) -> list[float]:
    """Adam pretraining on fresh tasks; each step uses a random number of demonstrations in ``0..n_shots``."""
    _check_model(model)
    steps, batch = checks.int_at_least("steps", steps, 1), checks.int_at_least("batch", batch, 1)
    n_shots = checks.int_at_least("n_shots", n_shots, 0)
    checks.positive_number("lr", lr)
    sigma2 = _check_pos("sigma2", sigma2, allow_zero=True)
    checks.generator("generator", generator)
    dev = next(model.parameters()).device
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        n = int(torch.randint(n_shots + 1, (1,), generator=generator, device=dev))
        theta = sample_tasks(batch, model.d, generator, device=dev)
        z, y = _sample_prompts(theta, n, batch, sigma2, 1.0, None, generator)
        loss = ((model(z) - y) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
    return losses


def lora_finetune(model: SoftmaxICL, theta0: torch.Tensor, subset: str, steps: int, batch: int, lr: float, rank: int,
                  *, sigma2: float = 0.1, generator: torch.Generator | None = None) -> SoftmaxICL:
    """A copy of ``model`` with LoRA on the ``subset`` projections, fine-tuned on the zero-shot loss of ``theta0``."""
    _check_model(model)
    if not isinstance(theta0, torch.Tensor) or theta0.shape != (model.d,):
        raise ValueError(f"theta0 must be a ({model.d},) tensor; got {getattr(theta0, 'shape', theta0)!r}")
    checks.tensor("theta0", theta0)
    targets = _lora_targets(subset)
    steps, batch = checks.int_at_least("steps", steps, 1), checks.int_at_least("batch", batch, 1)
    checks.positive_number("lr", lr)
    checks.positive_int("rank", rank)
    sigma2 = _check_pos("sigma2", sigma2, allow_zero=True)
    checks.generator("generator", generator)
    tuned = copy.deepcopy(model)
    params = apply_lora(tuned, rank=rank, alpha=2.0 * rank, targets=targets)
    opt = torch.optim.Adam(params, lr=lr)
    for _ in range(steps):
        z, y = _sample_prompts(theta0, 0, batch, sigma2, 1.0, None, generator)
        loss = ((tuned(z) - y) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
    return tuned


@torch.no_grad()
def unseen_error(model: nn.Module, n_shots: int, batch: int, d: int, *, sigma2: float = 0.1, seed: int = 99,
                 device="cpu") -> float:
    """Mean squared error on ``batch`` prompts with ``n_shots`` demonstrations of fresh random tasks."""
    if not isinstance(model, nn.Module) or getattr(model, "d", d) != d:
        raise TypeError(f"model must be an in-context regression module over d={d} features; got {model!r:.80}")
    checks.int_at_least("n_shots", n_shots, 0)
    checks.int_at_least("batch", batch, 1)
    checks.int_at_least("d", d, 1)
    _check_pos("sigma2", sigma2, allow_zero=True)
    checks.seed("seed", seed)
    checks.device("device", device)
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    z, y = sample_prompts(sample_tasks(batch, d, g, device=device), n_shots, batch, sigma2=sigma2, generator=g)
    return float(((model(z) - y) ** 2).mean())


SOFTMAX_KEYS = ("d_model", "n_layers", "n_heads", "pretrain_steps", "batch", "ft_steps", "lr", "ft_lr", "rank",
                "eval_batch")
"""The keys of a softmax-extension config (``CONFIGS[scale]["softmax"]`` in :mod:`.experiment`)."""


def run_softmax_extension(cfg: dict, *, d: int, sigma2: float, n_shots: int, theta0: torch.Tensor, device,
                          generator: torch.Generator | None = None) -> dict:
    """Pretrain one softmax model, LoRA-fine-tune it on {q,k,v} and on {v}; report errors and ratios (C6)."""
    checks.config("cfg", cfg, required=SOFTMAX_KEYS)
    checks.int_at_least("d", d, 1)
    _check_pos("sigma2", sigma2, allow_zero=True)
    checks.int_at_least("n_shots", n_shots, 0)
    if not isinstance(theta0, torch.Tensor) or theta0.shape != (d,):
        raise ValueError(f"theta0 must be a ({d},) tensor; got {getattr(theta0, 'shape', theta0)!r}")
    checks.tensor("theta0", theta0)
    checks.device("device", device)
    checks.generator("generator", generator)
    model = SoftmaxICL(d, cfg["d_model"], cfg["n_layers"], cfg["n_heads"]).to(device)
    pretrain_softmax(model, cfg["pretrain_steps"], cfg["batch"], n_shots, cfg["lr"], sigma2=sigma2,
                     generator=generator)
    out = {"pretrained": {"unseen20": unseen_error(model, n_shots, cfg["eval_batch"], d, sigma2=sigma2, device=device)}}
    for subset in ("all", "v"):
        tuned = lora_finetune(model, theta0, subset, cfg["ft_steps"], cfg["batch"], cfg["ft_lr"], cfg["rank"],
                              sigma2=sigma2, generator=generator)
        with torch.no_grad():
            zg = torch.Generator(device=device)
            zg.manual_seed(5)
            z, y = sample_prompts(theta0, 0, cfg["eval_batch"], sigma2=sigma2, generator=zg)
            zs = float(((tuned(z) - y) ** 2).mean())
        out[subset] = {"zero_shot": zs,
                       "unseen20": unseen_error(tuned, n_shots, cfg["eval_batch"], d, sigma2=sigma2, device=device)}
    pre = out["pretrained"]["unseen20"]
    out["ratio_all"] = out["all"]["unseen20"] / pre
    out["ratio_v"] = out["v"]["unseen20"] / pre
    out["finite"] = all(math.isfinite(v) for v in (out["ratio_all"], out["ratio_v"]))
    return out
