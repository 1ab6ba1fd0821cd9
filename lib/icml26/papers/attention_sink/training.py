"""Training and evaluation of the byte LMs: the loop with the sink-aware loss, and the per-model measurements.

The lowest level of the attention-sink experiment: :mod:`.experiment` (the runs behind the claims) and
:mod:`.backcopy` (the Bigram-Backcopy stage) both import from here, neither from the other.

* :func:`train_lm`: ``LM + lam * aux`` (docs/papers/attention_sink.md §3.4), warm-up then cosine or constant;
  ``balance="gate"`` is the paper's sink-aware loss on the gates ``G``; ``balance="norm"`` is the control: the
  same CV^2 loss on the heads' output norms (plain load balancing of the heads' outputs, the sink term removed).
* :func:`evaluate`: validation loss/bpb, head importance, CV, dormant heads, the sink statistics, ablations.
"""

from __future__ import annotations

import math

import torch
from scipy.stats import spearmanr

from icml26 import checks
from icml26.nn.attention import ablate_heads, attention_modules
from icml26.nn.tiny_gpt import TinyGPT, token_losses

from .corpus import _sample_batch
from .method import _check_shared, _check_tokens, _layer_cv, _sink_aware_loss, head_importance, layer_cv, stack_gates

BALANCES = ("gate", "norm")
"""What the auxiliary loss balances: the sink gates (the paper) or the heads' output norms (the control)."""


def _check_train(model, data, steps, batch, lr, lam, shared, generator, weight_decay, warmup, clip,
                 log_every, schedule="cosine", on_log=None, balance="gate") -> None:
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT; got {type(model).__name__}")
    checks.tensor("data", data, ndim=1, dtype_kind="int")
    if data.numel() < model.cfg.context:
        raise ValueError(f"data must hold at least context={model.cfg.context} bytes; got {data.numel()}")
    checks.positive_int("steps", steps)
    checks.positive_int("batch", batch)
    checks.positive_number("lr", lr)
    checks.nonnegative_number("lam", lam)
    _check_shared(shared, model.cfg.n_heads)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    checks.nonnegative_number("weight_decay", weight_decay)
    checks.probability("warmup", warmup)
    checks.positive_number("clip", clip)
    checks.positive_int("log_every", log_every)
    checks.one_of("schedule", schedule, ("cosine", "constant"))
    checks.one_of("balance", balance, BALANCES)
    if on_log is not None and not callable(on_log):
        raise TypeError(f"on_log must be a callable (step, model) or None; got {type(on_log).__name__}")


def _optimizer(params_named, lr: float, wd: float) -> torch.optim.Optimizer:
    """AdamW with no weight decay on sink logits, biases, norms and embeddings
    (docs/papers/attention_sink.md §2, §6)."""
    decay, no_decay = [], []
    for name, p in params_named:
        if not p.requires_grad:
            continue
        (decay if p.dim() >= 2 and "embed" not in name else no_decay).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}],
                             lr=lr, betas=(0.9, 0.95))


def train_lm(model: TinyGPT, data: torch.Tensor, *, steps: int, batch: int, lr: float, lam: float = 0.0,
             shared: int = 0, generator: torch.Generator, weight_decay: float = 0.01, warmup: float = 0.05,
             clip: float = 1.0, log_every: int = 10, params_named=None, schedule: str = "cosine",
             on_log=None, balance: str = "gate") -> dict:
    """Train ``model`` with ``LM + lam * aux`` (docs/papers/attention_sink.md §3.4); warm-up then a cosine
    (or, with ``schedule="constant"``, a constant) learning rate; returns history.

    The history logs, every ``log_every`` steps, the LM loss and the CV / mean importance measured on the
    training batch (from the same forward pass, so it costs nothing extra); ``on_log(step, model)``, when given,
    is called at the same steps (after the update; e.g. a held-out measurement, :func:`.backcopy.train_backcopy`).
    ``balance`` picks what the auxiliary loss balances (:data:`BALANCES`; ``"norm"`` is the control arm).
    """
    _check_train(model, data, steps, batch, lr, lam, shared, generator, weight_decay, warmup, clip, log_every,
                 schedule, on_log, balance)
    device = next(model.parameters()).device
    opt = _optimizer(params_named if params_named is not None else model.named_parameters(), lr, weight_decay)
    n_warm = max(1, int(warmup * steps))

    def decay(s):
        return 1.0 if schedule == "constant" else 0.5 * (1 + math.cos(math.pi * min(1.0, s / steps)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / n_warm, decay(s)))
    hist = {"step": [], "loss": [], "cv": [], "mean_imp": []}
    model.train()
    trainable = [p for g in opt.param_groups for p in g["params"]]
    for step in range(steps):
        idx = _sample_batch(data, batch, model.cfg.context, generator, device)
        total, lm, _aux, imp = _sink_aware_loss(model, idx, lam, shared, balance)
        opt.zero_grad(set_to_none=True)
        total.backward()
        torch.nn.utils.clip_grad_norm_(trainable, clip)
        opt.step()
        sched.step()
        if step % log_every == 0 or step == steps - 1:
            with torch.no_grad():
                hist["step"].append(step)
                hist["loss"].append(float(lm))
                hist["cv"].append(float(_layer_cv(imp).mean()))
                hist["mean_imp"].append(float(imp.mean()))
            if on_log is not None:
                on_log(step, model)
                model.train()
    model.eval()
    return hist


@torch.no_grad()
def _val_loss(model: TinyGPT, idx: torch.Tensor) -> float:
    return float(token_losses(model, idx).mean())


@torch.no_grad()
def zero_first_value_loss(model: TinyGPT, idx: torch.Tensor) -> float:
    """Validation loss with the first token's value vector set to 0 in every layer (value-drain test)."""
    _check_tokens(model, idx)
    def hook(_m, q, k, v):
        v = v.clone()
        v[:, :, 0] = 0.0
        return q, k, v

    removers = [m.add_qkv_hook(hook) for m in attention_modules(model)]
    try:
        return _val_loss(model, idx)
    finally:
        for r in removers:
            r()


@torch.no_grad()
def evaluate(model: TinyGPT, idx: torch.Tensor, sink_from: int = 16, ablation: bool = False,
             generator: torch.Generator | None = None) -> dict:
    """Validation loss/bpb, head importance, CV, dormant heads; for vanilla the sink statistics; ablations."""
    _check_tokens(model, idx)
    if isinstance(sink_from, bool) or not isinstance(sink_from, int) or not 0 <= sink_from < idx.shape[1]:
        raise ValueError(f"sink_from must be an integer in [0, T={idx.shape[1]}); got {sink_from!r}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")
    logits, results = model(idx, return_attn=True, need_weights=True)
    loss = float(token_losses(model, idx, logits).mean())
    imp = head_importance(stack_gates(results))
    cv = layer_cv(imp)
    dormant = (imp < 0.5 * imp.mean(1, keepdim=True)).float().mean()
    out = {"val_loss": loss, "bpb": loss / math.log(2), "imp": imp.tolist(), "cv": cv.tolist(),
           "mean_cv": float(cv.mean()), "mean_imp": float(imp.mean()), "dormant_frac": float(dormant)}
    deeper = results[1:] if len(results) > 1 else results
    a0 = torch.stack([r.weights[..., sink_from:, 0] for r in deeper])  # (L-1, B, H, T')
    out["a0_mean"] = float(a0.mean())
    out["a0_per_layer"] = a0.mean(dim=(1, 3)).tolist()
    ratios = []
    for r in deeper:
        norms = r.values.norm(dim=-1)  # (B, H, S)
        first = norms[:, :, 0].mean(0)  # (H,): BOS value norm (identical across the batch)
        others = norms[:, :, 1:].transpose(0, 1).reshape(norms.shape[1], -1).median(dim=1).values
        ratios.append(first / others.clamp_min(1e-12))
    ratios = torch.stack(ratios)  # (L-1, H)
    out["v0_ratio"] = float(ratios.mean())
    out["v0_ratio_per_head"] = ratios.tolist()
    zl = zero_first_value_loss(model, idx)
    out["zero_v0_loss"] = zl
    out["zero_v0_rel"] = abs(zl - loss) / loss
    if ablation:
        n_l, n_h = imp.shape
        deltas = torch.zeros(n_l, n_h)
        for layer in range(n_l):
            for head in range(n_h):
                with ablate_heads(model, [(layer, head)]):
                    deltas[layer, head] = _val_loss(model, idx) - loss
        order = imp.flatten().argsort()
        q = max(1, (n_l * n_h) // 4)
        pairs = lambda ids: [(int(i) // n_h, int(i) % n_h) for i in ids]  # noqa: E731
        with ablate_heads(model, pairs(order[:q])):
            low = _val_loss(model, idx) - loss
        with ablate_heads(model, pairs(order[-q:])):
            high = _val_loss(model, idx) - loss
        perm = torch.randperm(n_l * n_h, generator=generator)[:q]
        with ablate_heads(model, pairs(perm)):
            rand = _val_loss(model, idx) - loss
        rho = spearmanr(imp.flatten().cpu().numpy(), deltas.flatten().numpy()).correlation
        out.update(ablation_delta=deltas.tolist(), ablate_low_quarter=low, ablate_high_quarter=high,
                   ablate_random_quarter=rand, spearman_imp_ablation=float(rho) if rho == rho else 0.0)
    return out
