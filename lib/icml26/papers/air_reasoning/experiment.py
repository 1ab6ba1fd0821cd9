"""The AIR experiment (note §6-§7): retrieval heads, step/sample AIS, heuristics vs AIS, selection and weighting.

``run(config, device, seed)``:

1. pre-trains a *student init* on copy probes (plus ``init_trace_frac`` clean traces, 10% by default: retrieval
   then emerges within a few hundred steps), then the *base* (scoring) model on copy probes + clean
   traces (it never sees step types or pool kinds); computes ``R_h`` on held-out probes (C1/C2 rule), masks
   the top heads uniformly and compares with masking random non-top heads (claim 1);
2. scores a mixed pool (clean / padded / noisy) with step and sample AIS (two forward passes each) and the
   heuristic scores (length, entropy, loss) (claims 2-3);
3. fine-tunes a student on the top-K subset of every selector with the same recipe and greedy-decodes
   held-out long-chain questions (claim 4), and compares AIS-weighted with uniform SFT on the full pool
   (claim 5).

At ``quick`` (a few seconds on one CPU thread) the base model is a 2x4-head d=32 model trained for 220 steps: too
little for retrieval heads to emerge (induction-style copying is a phase transition that needs ~1k steps of
a d=64 model here), so claim 1 is an expected miss there and the AIS claims are only checked from ``standard``;
the student has the base model's size and starts from the stage-1 checkpoint (mostly probes) the base model
also started from (a deviation from "smaller student", to stay within seconds). At ``standard``/``full`` the
student is a smaller model pre-trained separately the same way.
"""

from __future__ import annotations

import time

import torch
from sklearn.metrics import roc_auc_score

from . import tasks, training
from .baselines import SELECTORS, select
from .method import (
    attention_influence,
    masked_heads,
    retrieval_scores,
    step_weights,
    token_accuracy,
    token_hits,
    top_heads,
)
from .method import step_losses as method_step_losses

_BASE = dict(n_vars=12, n_pairs=4, n_queries=4, hops=(1, 4), eval_hops=(3, 4), n_distract=2, context=64,
             d_model=64, n_heads=4, n_layers=2, init_steps=600, base_steps=100, batch=128, lr=3e-3,
             trace_frac=0.5, init_trace_frac=0.1, n_top=2, n_random=5, random_same_layer=True, mode="uniform",
             n_probe=256,
             pool=1000, frac=(0.5, 0.25, 0.25), padded_filler=(4, 6), noise=0.3, wrong_p=0.5, top_frac=0.2,
             form="relative", eps=1e-3, sample="tokens", student=None, student_steps=250, k=200,
             sft_steps=120, sft_batch=32, sft_lr=3e-3, selectors=("air", "random", "loss"), n_eval=100,
             weighting=False, weight_kind="zclip", lam=1.0, w_min=0.1, w_max=3.0, n_student_seeds=1)
CONFIGS = {
    # quick: a 2x4-head d=32 base model trained for 220 steps (a few seconds on one CPU thread); retrieval
    # heads have not emerged yet at this budget (claim 1 is an expected miss at quick), the rest is measured
    "quick": {**_BASE, "d_model": 32, "init_steps": 120, "base_steps": 100, "batch": 32, "n_probe": 64,
              "pool": 400, "k": 80, "sft_steps": 50, "sft_batch": 16, "n_eval": 60},
    "standard": {**_BASE, "init_steps": 500, "base_steps": 300, "pool": 4000, "k": 600, "sft_steps": 400,
                 "student": dict(d_model=48, n_heads=2, n_layers=2), "student_steps": 600,
                 "selectors": ("air", "random", "length", "entropy", "loss"), "weighting": True, "n_eval": 300,
                 "n_student_seeds": 2},
    "full": {**_BASE, "n_vars": 24, "hops": (1, 6), "eval_hops": (4, 6), "n_distract": 3, "context": 128,
             "d_model": 256, "n_heads": 8, "n_layers": 6, "init_steps": 3000, "base_steps": 2000, "n_top": 3,
             "pool": 50000, "k": 5000, "sft_steps": 3000, "sft_batch": 128, "student_steps": 3000,
             "student": dict(d_model=64, n_heads=2, n_layers=2), "n_probe": 2048, "n_eval": 2000,
             "selectors": ("air", "random", "length", "entropy", "loss"), "weighting": True, "n_student_seeds": 3},
}


def _check(config: dict) -> dict:
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict (see CONFIGS); got {type(config).__name__}")
    unknown = set(config) - set(_BASE)
    if unknown:
        raise ValueError(f"config has unknown keys {sorted(unknown)}")
    cfg = {**_BASE, **config}
    for key in ("n_vars", "d_model", "n_heads", "n_layers", "init_steps", "batch", "n_top", "n_probe", "pool", "k",
                "sft_steps", "sft_batch", "n_eval", "n_random", "n_student_seeds", "context"):
        v = cfg[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"config[{key!r}] must be a positive integer; got {v!r}")
    if cfg["k"] > cfg["pool"]:
        raise ValueError(f"config['k'] must be <= config['pool']; got {cfg['k']} > {cfg['pool']}")
    if cfg["n_top"] >= cfg["n_heads"] * cfg["n_layers"]:
        raise ValueError("config['n_top'] must be smaller than the number of heads")
    bad = [s for s in cfg["selectors"] if s not in SELECTORS]
    if bad:
        raise ValueError(f"config['selectors'] must be among {SELECTORS}; got {bad}")
    if not 0 < cfg["top_frac"] < 1:
        raise ValueError(f"config['top_frac'] must lie in (0, 1); got {cfg['top_frac']}")
    return cfg


def _acc(counts: list[int], n_eval: int) -> float | None:
    """Mean held-out accuracy over student seeds from integer counts of solved questions."""
    return sum(counts) / (n_eval * len(counts)) if counts else None


def random_heads(scores: torch.Tensor, top: list, n: int, same_layer: bool, generator) -> list[tuple[int, int]]:
    """``n`` random heads outside ``top``, from the layers of ``top`` first when ``same_layer`` (note §10)."""
    n_l, n_h = scores.shape
    others = [(layer, h) for layer in range(n_l) for h in range(n_h) if (layer, h) not in top]
    if n > len(others):
        raise ValueError(f"cannot draw {n} random heads from {len(others)} non-top heads")
    perm = torch.randperm(len(others), generator=generator).tolist()
    others = [others[i] for i in perm]
    if same_layer:
        layers = {layer for layer, _ in top}
        others = [x for x in others if x[0] in layers] + [x for x in others if x[0] not in layers]
    return others[:n]


def _student(cfg, vocab, device, gen, init_state, base_model):
    if cfg["student"] is None:
        return training.copy_model(base_model, init_state)
    s = cfg["student"]
    m = training.make_model(vocab, s["d_model"], s["n_heads"], s["n_layers"], cfg["context"], device)
    training.pretrain(m, vocab, steps=cfg["student_steps"], batch=cfg["batch"], lr=cfg["lr"],
                      trace_frac=cfg["init_trace_frac"],
                      hops=cfg["hops"], n_distract=cfg["n_distract"], n_pairs=cfg["n_pairs"],
                      n_queries=cfg["n_queries"], generator=gen, device=device)
    return m


def run(config: dict, device, seed: int) -> dict:
    """Run the experiment; return plain numbers (see the module docstring)."""
    cfg = _check(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    device = torch.device(device)
    t0 = time.perf_counter()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    vocab = tasks.Vocab(cfg["n_vars"])
    kw = dict(hops=cfg["hops"], n_distract=cfg["n_distract"], n_pairs=cfg["n_pairs"], n_queries=cfg["n_queries"],
              generator=gen, device=device)
    # 1. base model: probe-only init, then probes + clean traces
    model = training.make_model(vocab, cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["context"], device)
    curve = training.pretrain(model, vocab, steps=cfg["init_steps"], batch=cfg["batch"], lr=cfg["lr"],
                              trace_frac=cfg["init_trace_frac"], **kw)
    init_state = training.lm_state(model)
    curve += training.pretrain(model, vocab, steps=cfg["base_steps"], batch=cfg["batch"], lr=cfg["lr"] / 3,
                               trace_frac=cfg["trace_frac"], **kw)
    probe, needle = tasks.copy_probes(cfg["n_probe"], vocab, cfg["n_pairs"], cfg["n_queries"], generator=gen)
    probe, needle = probe.to(device), needle.to(device)
    r_h = retrieval_scores(model, probe, needle)
    top = top_heads(r_h, k=cfg["n_top"])
    hits, n_needle = token_hits(model, probe, needle)
    with masked_heads(model, top, cfg["mode"]):
        hits_top, _ = token_hits(model, probe, needle)
    hits_rand = []
    for _ in range(cfg["n_random"]):
        rh = random_heads(r_h, top, cfg["n_top"], cfg["random_same_layer"], gen)
        with masked_heads(model, rh, cfg["mode"]):
            hits_rand.append(token_hits(model, probe, needle)[0])
    # accuracies and drops from integer hit counts (exact up to one final rounding)
    acc, acc_top, acc_rand = hits / n_needle, hits_top / n_needle, [h / n_needle for h in hits_rand]
    drop_top = (hits - hits_top) / n_needle
    drop_random = (cfg["n_random"] * hits - sum(hits_rand)) / (cfg["n_random"] * n_needle)
    ablations = {}
    for mode in ("uniform", "zero", "mean"):
        with masked_heads(model, top, mode):
            ablations[mode] = token_accuracy(model, probe, needle)
    n_all = cfg["n_heads"] * cfg["n_layers"]
    order = {"top": top_heads(r_h, k=n_all), "bottom": top_heads(-r_h, k=n_all),
             "random": random_heads(r_h, [], n_all, False, gen)}
    mask_curve = {}
    for mode in ("uniform", "zero", "mean"):
        for name, heads in order.items():
            accs = [acc]
            for kk in range(1, n_all):
                with masked_heads(model, heads[:kk], mode):
                    accs.append(token_accuracy(model, probe, needle))
            mask_curve[f"{mode}/{name}"] = accs
    # R_h on the reasoning traces themselves (lookup targets as needles)
    tr = tasks.traces(cfg["n_probe"], vocab, hops=cfg["hops"], n_distract=cfg["n_distract"], generator=gen)
    lk = (tr.stype == 1) & (torch.roll(tr.stype, 1, 1) == 1) & (torch.roll(tr.idx, -1, 1) == tasks.NL)
    r_h_traces = retrieval_scores(model, tr.idx.to(device), lk.to(device))
    t_base = time.perf_counter() - t0

    # 2. score the pool
    pool = tasks.make_pool(cfg["pool"], vocab, frac=cfg["frac"], hops=cfg["hops"], n_distract=cfg["n_distract"],
                           padded_filler=cfg["padded_filler"], noise=cfg["noise"], wrong_p=cfg["wrong_p"],
                           generator=gen).to(device)
    ts = time.perf_counter()
    sc = attention_influence(model, top, pool.idx, pool.step, form=cfg["form"], eps=cfg["eps"],
                             sample=cfg["sample"], mode=cfg["mode"])
    t_score = time.perf_counter() - ts
    s_n = sc["step_ais"].shape[1]
    stype = torch.zeros(len(pool), s_n, dtype=torch.long, device=device)
    st = pool.step[:, 1:]
    stype.scatter_(1, st.clamp_min(0), pool.stype[:, 1:] * (st >= 0))
    valid = sc["step_size"] > 0
    clean = (pool.kind == 0)[:, None] & valid
    step_stats = {}
    for i, name in enumerate(tasks.STEP_TYPES[1:], start=1):
        m = clean & (stype == i)
        step_stats[name] = {"ais": float(sc["step_ais"][m].mean()),
                            "abs": float((sc["step_ref"] - sc["step_base"])[m].mean()),
                            "base": float(sc["step_base"][m].mean()), "ref": float(sc["step_ref"][m].mean())}
    lf = clean & ((stype == 1) | (stype == 2))
    auroc = float(roc_auc_score((stype[lf] == 1).cpu().numpy(), sc["step_ais"][lf].cpu().numpy()))
    n_top = max(1, int(round(cfg["top_frac"] * len(pool))))
    lengths = pool.lengths.to(device)
    picks = {}
    for name in ("air", "length", "entropy", "loss", "random"):
        idx = select(name, sc, lengths, n_top, generator=gen)
        kinds = torch.bincount(pool.kind[idx], minlength=3).double() / n_top
        picks[name] = {k: float(kinds[i]) for i, k in enumerate(tasks.KINDS)}

    # a few pool traces for the trace viewer, with step losses for 0..n_all-1 masked heads (top-R_h order)
    ex_rows = [row for kind in range(3) for row in (pool.kind == kind).nonzero().flatten()[:3].tolist()]
    ex_t = int(pool.lengths[ex_rows].max())
    ex_idx, ex_step = pool.idx[ex_rows, :ex_t], pool.step[ex_rows, :ex_t]
    ref_by_k = [method_step_losses(model, ex_idx, ex_step, s_n)[0]]
    for kk in range(1, n_all):
        with masked_heads(model, order["top"][:kk], cfg["mode"]):
            ref_by_k.append(method_step_losses(model, ex_idx, ex_step, s_n)[0])
    examples = []
    for e, row in enumerate(ex_rows):
        n_tok = int(pool.lengths[row])
        n_st = int(valid[row].sum())
        examples.append({"kind": tasks.KINDS[int(pool.kind[row])], "tokens": pool.idx[row, :n_tok].tolist(),
                         "step": pool.step[row, :n_tok].tolist(), "stype": stype[row, :n_st].tolist(),
                         "base": sc["step_base"][row, :n_st].tolist(), "ref": sc["step_ref"][row, :n_st].tolist(),
                         "ref_by_k": [r[e, :n_st].tolist() for r in ref_by_k],
                         "sample_ais": float(sc["sample_ais"][row])})
    m_cl = clean[: min(len(pool), 300)]
    step_sample = {"ais": sc["step_ais"][: m_cl.shape[0]][m_cl].tolist(),
                   "stype": stype[: m_cl.shape[0]][m_cl].tolist(),
                   "row": m_cl.nonzero()[:, 0].tolist()}

    # 3. students
    acc_sel: dict[str, list[float]] = {name: [] for name in cfg["selectors"]}
    acc_w: dict[str, list[float]] = {"uniform": [], "weighted": []}
    for rep in range(cfg["n_student_seeds"] if (cfg["selectors"] or cfg["weighting"]) else 0):
        sgen = torch.Generator().manual_seed(seed * 1000 + rep + 1)
        s0 = _student(cfg, vocab, device, sgen, init_state, model)
        s_state = training.lm_state(s0)
        for name in cfg["selectors"]:
            rows = select(name, sc, lengths, cfg["k"], generator=sgen)
            st_m = training.copy_model(s0, s_state)
            training.sft(st_m, pool.subset(rows.cpu()).to(device), steps=cfg["sft_steps"], batch=cfg["sft_batch"],
                         lr=cfg["sft_lr"], generator=torch.Generator().manual_seed(seed + 7))
            acc_sel[name].append(training.greedy_correct(st_m, vocab, hops=cfg["eval_hops"], n=cfg["n_eval"],
                                                          n_distract=cfg["n_distract"],
                                                          generator=torch.Generator().manual_seed(10_000 + seed),
                                                          device=device))
        if cfg["weighting"]:
            w = step_weights(sc["step_ais"], sc["step_size"], kind=cfg["weight_kind"], lam=cfg["lam"],
                             w_min=cfg["w_min"], w_max=cfg["w_max"])
            for name, sw in (("uniform", None), ("weighted", w)):
                st_m = training.copy_model(s0, s_state)
                training.sft(st_m, pool, steps=cfg["sft_steps"], batch=cfg["sft_batch"], lr=cfg["sft_lr"], step_w=sw,
                             generator=torch.Generator().manual_seed(seed + 7))
                acc_w[name].append(training.greedy_correct(st_m, vocab, hops=cfg["eval_hops"], n=cfg["n_eval"],
                                                            n_distract=cfg["n_distract"],
                                                            generator=torch.Generator().manual_seed(10_000 + seed),
                                                            device=device))
    return {
        "r_h": r_h.tolist(), "r_h_traces": r_h_traces.tolist(), "top_heads": [list(h) for h in top],
        "head_order": [list(h) for h in order["top"]],
        "probe_acc": acc, "probe_acc_top_masked": acc_top, "probe_acc_random_masked": acc_rand,
        "drop_top": drop_top, "drop_random": drop_random, "ablations": ablations,
        "step_stats": step_stats, "auroc_lookup": auroc, "picks": picks,
        "mask_curve": mask_curve, "examples": examples, "step_sample": step_sample, "n_vars": cfg["n_vars"],
        "n_eval": cfg["n_eval"], "student_correct": acc_sel, "weighting_correct": acc_w,
        "student_acc": {k: _acc(v, cfg["n_eval"]) for k, v in acc_sel.items()},
        "weighting_acc": {k: _acc(v, cfg["n_eval"]) for k, v in acc_w.items()},
        "sample_ais_by_kind": {k: float(sc["sample_ais"][pool.kind == i].mean()) for i, k in enumerate(tasks.KINDS)},
        "loss_curve": curve[:: max(1, len(curve) // 50)],
        "seconds_base": t_base, "seconds_scoring": t_score, "seconds": time.perf_counter() - t0,
        "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
    }
