"""The attention-sink experiment: gate identity, sink emergence, head collapse, sink-aware training, head pinning.

``run(config, device, seed)`` (docs/papers/attention_sink.md §2, §5) trains byte-level tiny LMs on the
CPython standard library with the three attention variants (vanilla, sink, gated), each with ``lam = 0``
(the baselines) and ``lam > 0`` (the paper's auxiliary balance loss), all with the same steps, batch,
learning rate and schedule. It then measures

* C1: the LSE gate identities on random heads (float32 and float64) and on the trained models;
* C2: first-token attention share, value drain and the effect of zeroing ``v_0`` (vanilla model);
* C3: head importance, the layer CV, dormant heads and per-head ablation (vanilla and sink models);
* C4/C5: the CV and validation bits-per-byte with and without the auxiliary loss;
* C6: LoRA fine-tuning of the pretrained vanilla model on the ``test/`` corpus with ``m`` shared heads;
* C2 on Bigram-Backcopy (standard, full): a 1-layer vanilla model trained where sinks do form
  (:func:`.backcopy.train_backcopy`), its sink share, value drain, ``v_0``-zeroing and active-dormant gate.

Everything is returned as plain Python numbers and lists.
"""

from __future__ import annotations

import copy
import math
import time

import torch
from scipy.stats import spearmanr

from icml26 import checks, progress
from icml26.nn.attention import ablate_heads, attention, attention_modules
from icml26.nn.lora import apply_lora
from icml26.nn.tiny_gpt import TinyGPT, token_losses

from .backcopy import train_backcopy
from .baselines import DESCRIPTIONS, make_model
from .corpus import Corpus, _sample_batch, load_corpus, sample_batch
from .method import (
    _check_shared,
    _check_tokens,
    _layer_cv,
    _sink_aware_loss,
    head_importance,
    layer_cv,
    moe_decomposition,
    stack_gates,
)

_BASE = dict(variants=["vanilla", "sink", "gated_head"], lams=[0.0, 0.1], c5_lams=[], n_seeds=1, lr=3e-3,
             weight_decay=0.01, warmup=0.05, clip=1.0, ft_lam=1e-2, ft_rank=16, ft_lr=3e-3, shared=1,
             sink_from=16, max_bytes=None, ablation=True, backcopy_steps=0, backcopy_every=500)
CONFIGS = {
    "quick": {**_BASE, "d_model": 32, "n_heads": 4, "n_layers": 2, "context": 32, "batch": 8, "steps": 100,
              "eval_batch": 24, "log_every": 10, "ft_steps": 16, "lr": 1e-2, "max_bytes": 3_000_000},
    "standard": {**_BASE, "d_model": 64, "n_heads": 8, "n_layers": 2, "context": 64, "batch": 16, "steps": 400,
                 "eval_batch": 64, "log_every": 20, "ft_steps": 120, "lams": [0.0, 1e-2, 0.1], "c5_lams": [1e-2],
                 "backcopy_steps": 6000},
    "full": {**_BASE, "d_model": 256, "n_heads": 8, "n_layers": 6, "context": 256, "batch": 64, "steps": 4000,
             "eval_batch": 256, "log_every": 100, "ft_steps": 1500, "lams": [0.0, 1e-3, 1e-2, 0.1],
             "c5_lams": [1e-3, 1e-2], "n_seeds": 2, "backcopy_steps": 8000},
}
"""Scales. ``backcopy_steps`` > 0 adds the Bigram-Backcopy stage (:func:`.backcopy.train_backcopy`: a 1-layer,
2-head vanilla model trained on the stream of the evaluation seed, where sinks do form; the C2 Bigram-Backcopy
claims). Its 6,000 steps at standard were chosen on development seeds 100-103 (sinks formed by step 2,000 on
102, 3,000 on 103, 4,000-5,500 on 100; on 101 only from ~6,000): about 5 minutes of one CPU core. ``standard``
also trains every variant with ``lam = 1e-2`` for C5 (one fixed lambda, one training seed: no tuning on the
evaluation data).

``full`` on one H200, estimated from the per-step cost: the byte LMs are 3 variants x 4 lambdas x 2 seeds = 24
runs of 4,000 steps of a 6-layer d = 256 model at batch 64 x 256 tokens; at an assumed ~6 ms a step on an H200
(fp32, the materialised attention path; not measured) that is 24 x 4,000 x 6 ms = 9.6 minutes, plus the
fine-tuning (3 x 1,500 steps, ~0.5 minute) and the Bigram-Backcopy stage (8,000 steps of a tiny model, ~2 ms a
step: ~0.3 minute): about 10 minutes. No GPU was lent this round, so neither cost is measured."""
REQUIRED = ("d_model", "n_heads", "n_layers", "context", "batch", "steps", "eval_batch", "log_every", "ft_steps")
FT_KEYS = ("eval_batch", "shared", "ft_rank", "ft_steps", "batch", "ft_lr", "warmup", "clip", "log_every")


def _check_config(config: dict) -> dict:
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict (see CONFIGS); got {type(config).__name__}")
    cfg = {**_BASE, **config}
    missing = [k for k in REQUIRED if k not in cfg]
    if missing:
        raise ValueError(f"config is missing keys {missing}")
    for k in REQUIRED:
        if isinstance(cfg[k], bool) or not isinstance(cfg[k], int) or cfg[k] < 1:
            raise ValueError(f"config[{k!r}] must be a positive integer; got {cfg[k]!r}")
    if cfg["d_model"] % cfg["n_heads"]:
        raise ValueError(f"config['n_heads'] must divide config['d_model']; got {cfg['d_model']}, {cfg['n_heads']}")
    for k in ("variants", "lams", "c5_lams"):
        if isinstance(cfg[k], (str, bytes)) or not isinstance(cfg[k], (list, tuple)):
            raise TypeError(f"config[{k!r}] must be a list; got {type(cfg[k]).__name__}")
    bad = [v for v in cfg["variants"] if v not in DESCRIPTIONS]
    if bad:
        raise ValueError(f"config['variants'] must name variants among {', '.join(DESCRIPTIONS)}; got {bad}")
    for lam in list(cfg["lams"]) + list(cfg["c5_lams"]):
        checks.nonnegative_number("config['lams'] and config['c5_lams'] entries", lam)
    if 0.0 not in cfg["lams"] or any(not lam >= 0 for lam in cfg["lams"]):
        raise ValueError(f"config['lams'] must hold 0.0 (the baselines) and non-negative values; got {cfg['lams']}")
    if any(lam not in cfg["lams"] for lam in cfg["c5_lams"]):
        raise ValueError(f"config['c5_lams'] must be among config['lams']; got {cfg['c5_lams']}")
    for k in ("n_seeds", "ft_rank"):
        checks.positive_int(f"config[{k!r}]", cfg[k])
    for k in ("lr", "ft_lr", "clip"):
        checks.positive_number(f"config[{k!r}]", cfg[k])
    for k in ("weight_decay", "ft_lam"):
        checks.nonnegative_number(f"config[{k!r}]", cfg[k])
    checks.probability("config['warmup']", cfg["warmup"])
    if isinstance(cfg["shared"], bool) or not isinstance(cfg["shared"], int) or \
            not 0 <= cfg["shared"] <= cfg["n_heads"] - 2:
        raise ValueError(f"config['shared'] must be in [0, n_heads-2]; got {cfg['shared']}")
    checks.nonnegative_int("config['sink_from']", cfg["sink_from"])
    if cfg["sink_from"] >= cfg["context"]:
        raise ValueError(f"config['sink_from'] must be < context; got {cfg['sink_from']}")
    if cfg["max_bytes"] is not None and (isinstance(cfg["max_bytes"], bool) or not isinstance(cfg["max_bytes"], int)
                                         or cfg["max_bytes"] < 1024):
        raise ValueError(f"config['max_bytes'] must be None or an integer >= 1024; got {cfg['max_bytes']!r}")
    if not isinstance(cfg["ablation"], bool):
        raise TypeError(f"config['ablation'] must be a bool; got {cfg['ablation']!r}")
    checks.nonnegative_int("config['backcopy_steps']", cfg["backcopy_steps"])
    checks.positive_int("config['backcopy_every']", cfg["backcopy_every"])
    return cfg


def _check_train(model, data, steps, batch, lr, lam, shared, generator, weight_decay, warmup, clip,
                 log_every, schedule="cosine", on_log=None) -> None:
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
    if on_log is not None and not callable(on_log):
        raise TypeError(f"on_log must be a callable (step, model) or None; got {type(on_log).__name__}")


def _check_device_seed(device, seed) -> None:
    checks.device("device", device)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")


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
             on_log=None) -> dict:
    """Train ``model`` with ``LM + lam * aux`` (docs/papers/attention_sink.md §3.4); warm-up then a cosine
    (or, with ``schedule="constant"``, a constant) learning rate; returns history.

    The history logs, every ``log_every`` steps, the LM loss and the CV / mean importance measured on the
    training batch (from the same forward pass, so it costs nothing extra); ``on_log(step, model)``, when given,
    is called at the same steps (after the update; e.g. a held-out measurement, :func:`.backcopy.train_backcopy`).
    """
    _check_train(model, data, steps, batch, lr, lam, shared, generator, weight_decay, warmup, clip, log_every,
                 schedule, on_log)
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
        total, lm, _aux, imp = _sink_aware_loss(model, idx, lam, shared)
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


def gate_identity_check(device, seed: int, batch: int = 4, heads: int = 4, t: int = 24, d: int = 8) -> dict:
    """C1: LSE gates vs ``1 - A_0`` (vanilla) and ``sum_j A_j`` (sink); MoE decomposition with ``v_0 = 0``."""
    _check_device_seed(device, seed)
    for name, value in (("batch", batch), ("heads", heads), ("d", d)):
        checks.positive_int(name, value)
    checks.int_at_least("t", t, 2)
    out = {}
    for dtype, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
        g = torch.Generator(device="cpu").manual_seed(seed)
        q, k, v = (3 * torch.randn(batch, heads, t, d, generator=g, dtype=dtype).to(device) for _ in range(3))
        sink = torch.randn(heads, generator=g, dtype=dtype).to(device)
        van = attention(q, k, v, variant="vanilla", need_weights=True)
        snk = attention(q, k, v, variant="sink", sink_logit=sink, need_weights=True)
        err_v = (van.gate[..., 1:] - (1 - van.weights[..., 1:, 0])).abs().max()
        err_s = (snk.gate - snk.weights.sum(-1)).abs().max()
        v0 = v.clone()
        v0[:, :, 0] = 0
        zeroed = attention(q, k, v0, variant="vanilla", need_weights=True)
        gate, expert = moe_decomposition(zeroed.weights, v0)
        rel = ((zeroed.out - gate.unsqueeze(-1) * expert).norm() / zeroed.out.norm())
        out[f"max_err_{tag}"] = float(max(err_v, err_s))
        out[f"moe_rel_err_{tag}"] = float(rel)
    return out


def _trained_gate_error(model: TinyGPT, idx: torch.Tensor) -> float:
    """Max |G - (1 - A_0)| (vanilla) or |G - sum A| (sink) on a trained model, float32, positions t >= 1."""
    with torch.no_grad():
        _, results = model(idx, return_attn=True, need_weights=True)
    if model.cfg.variant == "vanilla":
        return float(max((r.gate[..., 1:] - (1 - r.weights[..., 1:, 0])).abs().max() for r in results))
    return float(max((r.gate - r.weights.sum(-1)).abs().max() for r in results))


def finetune_pinning(base: TinyGPT, corpus, cfg: dict, device, seed: int, shared: int, lam: float) -> dict:
    """C6: LoRA (rank ``ft_rank``) fine-tuning on the shift corpus with ``lam`` and ``shared`` heads excluded.

    Importance is measured on a fixed held-out shift batch before and after; "dominant" heads are the
    top-``cfg['shared']`` heads per layer by importance before fine-tuning.
    """
    if not isinstance(base, TinyGPT):
        raise TypeError(f"base must be a TinyGPT; got {type(base).__name__}")
    if not isinstance(corpus, Corpus):
        raise TypeError(f"corpus must be a Corpus (see corpus.load_corpus); got {type(corpus).__name__}")
    if corpus.shift.numel() < base.cfg.context:
        raise ValueError(f"corpus.shift must hold at least context={base.cfg.context} bytes")
    checks.config("cfg", cfg, required=FT_KEYS)
    for k in ("eval_batch", "ft_rank", "ft_steps", "batch", "log_every"):
        checks.positive_int(f"cfg[{k!r}]", cfg[k])
    checks.positive_number("cfg['ft_lr']", cfg["ft_lr"])
    checks.positive_number("cfg['clip']", cfg["clip"])
    checks.probability("cfg['warmup']", cfg["warmup"])
    if isinstance(cfg["shared"], bool) or not isinstance(cfg["shared"], int) or \
            not 0 <= cfg["shared"] <= base.cfg.n_heads - 1:
        raise ValueError(f"cfg['shared'] must be an integer in [0, n_heads-1]; got {cfg['shared']!r}")
    _check_device_seed(device, seed)
    _check_shared(shared, base.cfg.n_heads)
    checks.nonnegative_number("lam", lam)
    gen_eval = torch.Generator().manual_seed(10_000 + seed)
    probe = sample_batch(corpus.shift, cfg["eval_batch"], base.cfg.context, gen_eval, device)
    model = copy.deepcopy(base)
    with torch.no_grad():
        imp0 = head_importance(stack_gates(model(probe, return_attn=True)[1]))
    dominant = imp0.topk(max(1, cfg["shared"]), dim=1).indices
    dom_mask = torch.zeros_like(imp0, dtype=torch.bool).scatter_(1, dominant, True)
    apply_lora(model, rank=min(cfg["ft_rank"], base.cfg.d_model), alpha=2.0 * cfg["ft_rank"])
    gen = torch.Generator().manual_seed(20_000 + seed)
    hist = train_lm(model, corpus.shift, steps=cfg["ft_steps"], batch=cfg["batch"], lr=cfg["ft_lr"], lam=lam,
                    shared=shared, generator=gen, weight_decay=0.0, warmup=cfg["warmup"], clip=cfg["clip"],
                    log_every=cfg["log_every"], params_named=model.named_parameters())
    with torch.no_grad():
        logits, res = model(probe, return_attn=True)
        imp1 = head_importance(stack_gates(res))
        loss = float(token_losses(model, probe, logits).mean())
    d = imp1 - imp0
    routed_cv = lambda imp: float(layer_cv(imp[~dom_mask].view(imp.shape[0], -1)).mean())  # noqa: E731
    return {"imp_before": imp0.tolist(), "imp_after": imp1.tolist(), "loss_after": loss, "history": hist,
            "d_imp_dominant": float(d[dom_mask].mean()), "d_imp_others": float(d[~dom_mask].mean()),
            "cv_before": float(layer_cv(imp0).mean()), "cv_after": float(layer_cv(imp1).mean()),
            "cv_fall": float(layer_cv(imp0).mean() - layer_cv(imp1).mean()),
            "routed_cv_fall": routed_cv(imp0) - routed_cv(imp1),
            "mean_imp_before": float(imp0.mean()), "mean_imp_after": float(imp1.mean())}


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the whole experiment at one scale (see module docstring); returns plain Python results."""
    cfg = _check_config(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    checks.device("device", device)
    device = torch.device(device)
    t0 = time.perf_counter()
    bar = progress.StageBar(["load corpus, C1 check"] + [f"train {v}" for v in cfg["variants"]]
                            + (["fine-tune pinning"] if "vanilla" in cfg["variants"] else [])
                            + (["Bigram-Backcopy sink"] if cfg["backcopy_steps"] else []), desc="attention_sink")
    bar.next("load corpus, C1 check")
    corpus = load_corpus(cfg["max_bytes"])
    results = {"config": {k: v for k, v in cfg.items()}, "corpus": {
        "source": corpus.source, "python": corpus.python, "checksum": corpus.checksum,
        "bytes": {k: int(corpus.split(k).numel()) for k in ("train", "val", "shift")}}}
    results["c1"] = gate_identity_check(device, seed)
    val = sample_batch(corpus.val, cfg["eval_batch"], cfg["context"], torch.Generator().manual_seed(777 + seed),
                       device)
    runs: dict = {}
    models: dict = {}
    trained_err = 0.0
    for variant in cfg["variants"]:
        bar.next(f"train {variant}")
        for lam in cfg["lams"]:
            for rep in range(cfg["n_seeds"]):
                s = seed + 1000 * rep
                torch.manual_seed(s)
                model = make_model(variant, cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["context"], device)
                tt = time.perf_counter()
                hist = train_lm(model, corpus.train, steps=cfg["steps"], batch=cfg["batch"], lr=cfg["lr"], lam=lam,
                                generator=torch.Generator().manual_seed(s + 1), weight_decay=cfg["weight_decay"],
                                warmup=cfg["warmup"], clip=cfg["clip"], log_every=cfg["log_every"])
                train_s = time.perf_counter() - tt
                ev = evaluate(model, val, cfg["sink_from"], ablation=cfg["ablation"] and lam == 0 and rep == 0,
                              generator=torch.Generator().manual_seed(s + 2))
                ev.update(history=hist, train_seconds=train_s)
                runs.setdefault(variant, {}).setdefault(f"lam={lam:g}", []).append(ev)
                if variant in ("vanilla", "sink"):
                    trained_err = max(trained_err, _trained_gate_error(model, val))
                if rep == 0:
                    models[(variant, lam)] = model
    results["c1"]["trained_max_err"] = trained_err
    results["runs"] = runs
    lam_aux = max(cfg["lams"])
    results["c4"] = {}
    for v in cfg["variants"]:
        base_cv, aux_cv = runs[v]["lam=0"][0]["mean_cv"], runs[v][f"lam={lam_aux:g}"][0]["mean_cv"]
        results["c4"][v] = {"cv_base": base_cv, "cv_aux": aux_cv, "ratio": aux_cv / max(base_cv, 1e-12)}
    results["lam_aux"] = lam_aux
    if cfg["c5_lams"]:
        c5 = {}
        mean_bpb = lambda v, lam: sum(e["bpb"] for e in runs[v][f"lam={lam:g}"]) / len(runs[v][f"lam={lam:g}"])  # noqa: E731
        for v in cfg["variants"]:
            best = min(cfg["c5_lams"], key=lambda lam, v=v: mean_bpb(v, lam))
            c5[v] = {"base_bpb": mean_bpb(v, 0.0), "aux_bpb": mean_bpb(v, best), "lam": best,
                     "diff": mean_bpb(v, best) - mean_bpb(v, 0.0)}
        results["c5"] = c5
    if "vanilla" in cfg["variants"]:
        bar.next("fine-tune pinning")
        base = models[("vanilla", 0.0)]
        ft = {}
        for m in sorted({0, cfg["shared"]}):
            ft[f"m={m}"] = finetune_pinning(base, corpus, cfg, device, seed, shared=m, lam=cfg["ft_lam"])
        ft["control_lam0"] = finetune_pinning(base, corpus, cfg, device, seed, shared=0, lam=0.0)
        results["c6"] = ft
    if cfg["backcopy_steps"]:
        bar.next("Bigram-Backcopy sink")
        tb = time.perf_counter()
        _, points = train_backcopy("vanilla", 0.0, steps=cfg["backcopy_steps"], every=cfg["backcopy_every"],
                                   seed=seed, device=device)
        results["backcopy"] = {"points": points, "final": points[-1], "seconds": time.perf_counter() - tb}
    results["seconds"] = time.perf_counter() - t0
    bar.close()
    return results
