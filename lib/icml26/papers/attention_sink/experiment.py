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
import time

import torch

from icml26 import checks, progress
from icml26.nn.attention import attention
from icml26.nn.lora import apply_lora
from icml26.nn.tiny_gpt import TinyGPT, token_losses

from .backcopy import train_backcopy
from .baselines import DESCRIPTIONS, make_model
from .corpus import Corpus, load_corpus, sample_batch
from .method import _check_shared, head_importance, layer_cv, moe_decomposition, stack_gates
from .training import (  # noqa: F401  (re-exported: the training loop and the measurements live one level down)
    _check_train,
    _optimizer,
    _val_loss,
    evaluate,
    train_lm,
    zero_first_value_loss,
)

_BASE = dict(variants=["vanilla", "sink", "gated_head"], lams=[0.0, 0.1], c5_lams=[], n_seeds=1, lr=3e-3,
             weight_decay=0.01, warmup=0.05, clip=1.0, ft_lam=1e-2, ft_rank=16, ft_lr=3e-3, shared=1,
             sink_from=16, max_bytes=None, ablation=True, backcopy_steps=0, backcopy_every=500, backcopy_last=4,
             control_lam=None)
CONFIGS = {
    "quick": {**_BASE, "d_model": 32, "n_heads": 4, "n_layers": 2, "context": 32, "batch": 8, "steps": 100,
              "eval_batch": 24, "log_every": 10, "ft_steps": 16, "lr": 1e-2, "max_bytes": 3_000_000},
    "standard": {**_BASE, "d_model": 64, "n_heads": 8, "n_layers": 2, "context": 64, "batch": 16, "steps": 400,
                 "eval_batch": 64, "log_every": 20, "ft_steps": 120, "lams": [0.0, 1e-2, 0.1], "c5_lams": [1e-2],
                 "backcopy_steps": 6000},
    "full": {**_BASE, "d_model": 256, "n_heads": 8, "n_layers": 6, "context": 256, "batch": 64, "steps": 4000,
             "eval_batch": 256, "log_every": 100, "ft_steps": 1500, "lams": [0.0, 1e-3, 1e-2, 0.1],
             "c5_lams": [1e-3, 1e-2], "n_seeds": 2, "backcopy_steps": 8000, "control_lam": 0.1},
}
"""Scales. ``backcopy_steps`` > 0 adds the Bigram-Backcopy stage (:func:`.backcopy.train_backcopy`: a 1-layer,
2-head vanilla model trained on the stream of the evaluation seed, where sinks do form; the C2 Bigram-Backcopy
claims). Its 6,000 steps at standard were chosen on development seeds 100-103 (sinks formed by step 2,000 on
102, 3,000 on 103, 4,000-5,500 on 100; on 101 only from ~6,000): about 5 minutes of one CPU core. ``standard``
also trains every variant with ``lam = 1e-2`` for C5 (one fixed lambda, one training seed: no tuning on the
evaluation data).

``control_lam`` (full; ``--set control_lam=0.1`` at the other scales) adds the control arm
of the headline claims: every variant trained once more with the same CV^2 loss and weight on the heads'
output norms instead of their sink gates (:func:`.training.train_lm` with ``balance="norm"``: plain load
balancing with the sink term removed), measured by the same C4 / C5 tests (``results["control"]``).
``backcopy_last`` is the number of final Bigram-Backcopy evaluations (every ``backcopy_every`` steps) whose
mean the C2 Bigram-Backcopy claims read (``results["backcopy"]["last_mean"]``; decided before re-recording:
the sink share is not monotone in the step under the constant learning rate).

``full`` on one H200, estimated from the per-step cost: the byte LMs are 3 variants x 4 lambdas x 2 seeds = 24
runs of 4,000 steps of a 6-layer d = 256 model at batch 64 x 256 tokens; at an assumed ~6 ms a step on an H200
(fp32, the materialised attention path; not measured) that is 24 x 4,000 x 6 ms = 9.6 minutes, plus the
fine-tuning (3 x 1,500 steps, ~0.5 minute) and the Bigram-Backcopy stage (8,000 steps of a tiny model, ~2 ms a
step: ~0.3 minute): about 10 minutes, plus the control arm (3 more runs of 4,000 steps: ~1.2 minutes), about
11.5 minutes, over the 10-minute budget by ~15 % (``n_seeds = 1`` would bring it to ~6 minutes). No GPU was lent
this round, so neither cost is measured."""
REQUIRED = ("d_model", "n_heads", "n_layers", "context", "batch", "steps", "eval_batch", "log_every", "ft_steps")
FT_KEYS = ("eval_batch", "shared", "ft_rank", "ft_steps", "batch", "ft_lr", "warmup", "clip", "log_every")


def _check_config(config: dict) -> dict:
    cfg = checks.config_like("config", {**_BASE, **checks.config("config", config)}, CONFIGS.values())  # over defaults
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
    checks.positive_int("config['backcopy_last']", cfg["backcopy_last"])
    if cfg["control_lam"] is not None:
        checks.positive_number("config['control_lam']", cfg["control_lam"])
    return cfg


def _check_device_seed(device, seed) -> None:
    checks.device("device", device)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")


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


def backcopy_last_mean(points: list[dict], last: int) -> dict:
    """The Bigram-Backcopy sink statistics averaged over the ``last`` final evaluations of its curve: the sink
    head's BOS share from idle queries, its value-norm ratio, the loss change when ``v_0`` is zeroed and its gate
    contrast (idle over copy share), each read per evaluation (the sink head is re-chosen at each) then averaged."""
    if not isinstance(points, list) or not points:
        raise ValueError("points must be a non-empty list of sink points (backcopy.train_backcopy)")
    checks.positive_int("last", last)
    keys = ("step", "sink_head", "a0_non_trigger", "a0_trigger", "sink_head_v0_ratio", "zero_v0_rel")
    if not all(isinstance(p, dict) and all(k in p for k in keys) for p in points):
        raise ValueError(f"points must be sink points with the keys {', '.join(keys)} (backcopy.train_backcopy)")
    tail = points[-last:]

    def share(p, key):
        layer, head = p["sink_head"]
        return p[key][layer][head]

    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    return {"n": len(tail), "steps": [p["step"] for p in tail],
            "sink_share": mean([share(p, "a0_non_trigger") for p in tail]),
            "sink_head_v0_ratio": mean([p["sink_head_v0_ratio"] for p in tail]),
            "zero_v0_rel": mean([p["zero_v0_rel"] for p in tail]),
            "gate_contrast": mean([share(p, "a0_non_trigger") / max(share(p, "a0_trigger"), 1e-12) for p in tail])}


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the whole experiment at one scale (see module docstring); returns plain Python results."""
    cfg = _check_config(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    checks.device("device", device)
    device = torch.device(device)
    t0 = time.perf_counter()
    bar = progress.StageBar(["load corpus, C1 check"] + [f"train {v}" for v in cfg["variants"]]
                            + (["control: norm balancing"] if cfg["control_lam"] is not None else [])
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
    if cfg["control_lam"] is not None:
        bar.next("control: norm balancing")
        ctrl = {}
        for variant in cfg["variants"]:
            torch.manual_seed(seed)
            model = make_model(variant, cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["context"], device)
            train_lm(model, corpus.train, steps=cfg["steps"], batch=cfg["batch"], lr=cfg["lr"],
                     lam=cfg["control_lam"], generator=torch.Generator().manual_seed(seed + 1),
                     weight_decay=cfg["weight_decay"], warmup=cfg["warmup"], clip=cfg["clip"],
                     log_every=cfg["log_every"], balance="norm")
            ev = evaluate(model, val, cfg["sink_from"])
            base = runs[variant]["lam=0"][0]
            ctrl[variant] = {"mean_cv": ev["mean_cv"], "bpb": ev["bpb"], "bpb_diff": ev["bpb"] - base["bpb"],
                             "cv_ratio": ev["mean_cv"] / max(base["mean_cv"], 1e-12)}
        results["control"] = {"lam": cfg["control_lam"], "balance": "norm", "variants": ctrl}
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
        results["backcopy"] = {"points": points, "final": points[-1], "last_mean": backcopy_last_mean(
            points, cfg["backcopy_last"]), "seconds": time.perf_counter() - tb}
    results["seconds"] = time.perf_counter() - t0
    bar.close()
    return results
