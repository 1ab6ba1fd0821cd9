"""The AIR experiment: retrieval heads, step and sample AIS, and AIS against the heuristics on two pools.

``run(config, device, seed)``:

1. **Scoring model.** The shipped off-the-shelf model (``base="shipped"``, :mod:`.pretrained`) or one trained for
   this seed by the same recipe (``base=<recipe>``). Retrieval scores ``R_h`` on held-out copy probes (C1/C2
   rule), uniform masking of the top heads against as many random non-top heads.
2. **Scoring the pools.** Each pool (``contrast``: clean / padded / noisy, built so that the heuristics are fooled;
   ``natural``: continuous variation of verbosity, slips, skipped computation, chain length) is scored with step and
   sample AIS (two forward passes) and the heuristics' scores (length, entropy, loss).
3. **Students.** One pre-trained student (shipped, or trained for this seed) is fine-tuned on the top-K subset of
   every selector with the same recipe and minibatch sequence, then greedy-decodes *held-out* problems (chains
   longer than any in the pools, contexts as long as the longest training contexts) with a token budget that no
   trace style of the pools can exhaust; optionally also in-range problems (the pools' longest chains), reported
   apart.
   Optionally AIS step-weighted SFT on a whole pool against uniform SFT.

``quick`` and ``standard`` use the shipped models (the seeds vary probes, pools, SFT order and evaluation problems);
``quick`` scores the pools only (seconds), ``standard`` adds the students; ``full`` trains larger models per seed.
"""

from __future__ import annotations

import time

import torch
from sklearn.metrics import roc_auc_score

from icml26 import checks, progress

from . import pretrained, tasks, training
from .baselines import CONTROL, SELECTORS, select
from .method import (
    attention_influence,
    masked_heads,
    retrieval_scores,
    step_losses,
    step_weights,
    token_accuracy,
    token_hits,
    top_heads,
)

POOLS = ("contrast", "natural")
_BASE = dict(
    n_vars=12, n_pairs=4, n_queries=4, hops=(1, 4), n_distract=(0, 4), eval_hops=(5, 6),
    base="shipped", student="shipped",
    n_top=2, n_random=5, random_same_layer=True, mode="uniform", n_probe=256,
    pools=POOLS, pool=1000, frac=(0.5, 0.25, 0.25), padded_filler=(6, 8), noise=0.3, wrong_p=0.5, top_frac=0.2,
    form="relative", eps=1e-3, sample="tokens",
    k=200, sft_steps=120, sft_batch=32, sft_lr=2e-3, selectors=SELECTORS, n_eval=100, n_eval_in_range=0,
    weighting=(), weight_kind="zclip", lam=1.0, w_min=0.1, w_max=3.0,
)
CONFIGS = {
    # quick: scoring only (the claims checked at quick need no student); seconds of CPU
    "quick": {**_BASE, "selectors": (), "weighting": ()},
    # standard: the shipped models and 12 selection students of 120 SFT steps each, evaluated on 100 held-out and
    # 100 in-range problems with the full decoding budget: 145-166 s per seed on one thread (evaluation seeds 0-2, two
    # seeds side by side on the 2-core machine): SFT 12 x 120 x 44 ms = 63 s, scoring 12 s, the rest decoding (a
    # batch runs until its slowest student answers); step weighting (two more whole-pool students) is left to ``full``
    "standard": {**_BASE, "pool": 1500, "k": 300, "sft_steps": 120, "n_eval": 100, "n_eval_in_range": 100,
                 "weighting": ()},
    "full": {**_BASE, "base": {**pretrained.RECIPES["base"], "d_model": 256, "n_heads": 8, "n_layers": 4,
                               "batch": 256, "phases": ((3000, 0.1, 1e-3), (2000, 0.5, 5e-4))},
             "student": {**pretrained.RECIPES["student"], "d_model": 64, "batch": 256},
             "n_top": 3, "n_probe": 2048, "pool": 50000, "k": 5000, "sft_steps": 3000, "sft_batch": 128,
             "n_eval": 2000, "n_eval_in_range": 1000, "weighting": POOLS},
}
"""``full`` (not run: no GPU was lent). Estimate for one H200 from the costs measured on CPU (SFT step of the d=48
student, batch 32: 44 ms; greedy decoding of 100 held-out problems: 3.2 s) and a per-step cost on the GPU bounded
by kernel launches (about 4 ms for these widths): pre-training 5000 + 3500 steps, 12 selection and 4 weighting
students of 3000 steps = 56500 steps x 4 ms = 230 s; decoding 16 x 3000 problems in batches, every batch to its
full budget in the worst case (162 new tokens for 5-6 hops, 110 for 3-4: 16 students x 2 x (162 + 110) tokens x
4 ms) = 35 s; scoring two pools of 50000 traces (two forward passes each) well under a minute: about 5 minutes in
all."""


def _check(config) -> dict:
    cfg = checks.config_like("config", {**_BASE, **checks.config("config", config)}, CONFIGS.values())  # over defaults
    for key in ("n_vars", "n_pairs", "n_queries", "n_top", "n_random", "n_probe", "pool", "k", "sft_steps",
                "sft_batch", "n_eval"):
        checks.positive_int(f"config[{key!r}]", cfg[key])
    checks.nonnegative_int("config['n_eval_in_range']", cfg["n_eval_in_range"])
    for key in ("sft_lr", "eps"):
        checks.positive_number(f"config[{key!r}]", cfg[key])
    checks.in_range("config['top_frac']", cfg["top_frac"], 0.0, 1.0, low_open=True, high_open=True)
    if cfg["k"] > cfg["pool"]:
        raise ValueError(f"config['k'] must be <= config['pool']; got {cfg['k']} > {cfg['pool']}")
    for key, allowed in (("selectors", SELECTORS), ("pools", POOLS), ("weighting", POOLS)):
        bad = [s for s in cfg[key] if s not in allowed]
        if bad or isinstance(cfg[key], str):
            raise ValueError(f"config[{key!r}] must be a tuple of names among {allowed}; got {cfg[key]!r}")
    for key in ("base", "student"):
        if cfg[key] != "shipped":
            pretrained.check_recipe(cfg[key])
    lo, hi = tasks._span("config['eval_hops']", cfg["eval_hops"], 1)
    if lo <= cfg["hops"][1]:
        raise ValueError(f"config['eval_hops'] must lie above the training range hops={cfg['hops']} (held out); "
                         f"got {cfg['eval_hops']}")
    if hi > cfg["hops"][1] + cfg["n_distract"][1]:
        raise ValueError("config['eval_hops'] must fit in the longest training context: eval_hops[1] <= "
                         f"hops[1] + n_distract[1] = {cfg['hops'][1] + cfg['n_distract'][1]}")
    return cfg


def random_heads(scores: torch.Tensor, top: list, n: int, same_layer: bool, generator) -> list[tuple[int, int]]:
    """``n`` random heads outside ``top``, from the layers of ``top`` first when ``same_layer``."""
    checks.tensor("scores", scores, ndim=2)
    checks.nonnegative_int("n", n)
    n_l, n_h = scores.shape
    others = [(layer, h) for layer in range(n_l) for h in range(n_h) if (layer, h) not in top]
    if n > len(others):
        raise ValueError(f"cannot draw n={n} random heads from {len(others)} non-top heads")
    perm = torch.randperm(len(others), generator=generator).tolist()
    others = [others[i] for i in perm]
    if same_layer:
        layers = {layer for layer, _ in top}
        others = [x for x in others if x[0] in layers] + [x for x in others if x[0] not in layers]
    return others[:n]


def _model(spec, name: str, seed: int, device):
    if spec == "shipped":
        return pretrained.load(name, device)
    return pretrained.train(spec, seed=seed, device=device, desc=name)


def _heads(cfg, model, vocab, gen, device) -> dict:
    """Retrieval scores, top-vs-random masking and the masking curves (paper: retrieval-head identification)."""
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
    n_all = r_h.numel()
    order = {"top": top_heads(r_h, k=n_all), "bottom": top_heads(-r_h, k=n_all),
             "random": random_heads(r_h, [], n_all, False, gen)}
    mask_curve = {}
    for mode in ("uniform", "zero", "mean"):
        for name, heads in order.items():
            accs = [hits / n_needle]
            for kk in range(1, n_all):
                with masked_heads(model, heads[:kk], mode):
                    accs.append(token_accuracy(model, probe, needle))
            mask_curve[f"{mode}/{name}"] = accs
    tr = tasks.traces(cfg["n_probe"], vocab, hops=cfg["hops"], n_distract=cfg["n_distract"], generator=gen)
    look = tr.stype == tasks.LOOKUP  # the binding's two copied tokens (y, c): needles of the traces
    needles = look & torch.roll(look, 1, 1) & (tr.idx != tasks.NL)
    r_h_traces = retrieval_scores(model, tr.idx.to(device), needles.to(device))
    return {"r_h": r_h.tolist(), "r_h_traces": r_h_traces.tolist(), "top": top,
            "top_heads": [list(h) for h in top], "head_order": [list(h) for h in order["top"]],
            "probe_acc": hits / n_needle, "probe_acc_top_masked": hits_top / n_needle,
            "probe_acc_random_masked": [h / n_needle for h in hits_rand],
            "drop_top": (hits - hits_top) / n_needle,
            "drop_random": (cfg["n_random"] * hits - sum(hits_rand)) / (cfg["n_random"] * n_needle),
            "ablations": {m: c[len(top)] for m, c in mask_curve.items() if m.endswith("/top")},
            "mask_curve": mask_curve, "order": order["top"]}


def make_pool(name: str, cfg: dict, vocab, gen) -> tasks.TraceBatch:
    """The pool ``name`` (``"contrast"`` or ``"natural"``) of a config."""
    checks.one_of("name", name, POOLS)
    if name == "contrast":
        return tasks.contrast_pool(cfg["pool"], vocab, frac=cfg["frac"], hops=cfg["hops"],
                                   n_distract=cfg["n_distract"], padded_filler=cfg["padded_filler"],
                                   noise=cfg["noise"], wrong_p=cfg["wrong_p"], generator=gen)
    return tasks.natural_pool(cfg["pool"], vocab, hops=cfg["hops"], n_distract=cfg["n_distract"], generator=gen)


def _step_types(pool: tasks.TraceBatch, n_steps: int) -> torch.Tensor:
    """The type of every step ``(N, S)`` (0 for empty steps)."""
    stype = torch.zeros(len(pool), n_steps, dtype=torch.long, device=pool.idx.device)
    st = pool.step[:, 1:]
    stype.scatter_(1, st.clamp_min(0), pool.stype[:, 1:] * (st >= 0))
    return stype


def _traits(pool: tasks.TraceBatch) -> dict:
    """Per-trace facts the picks are described by (never seen by any selector)."""
    flawless = pool.correct & ~pool.skipped & (pool.slips == 0)
    if int(pool.kind[0]) != tasks.KINDS.index("natural"):
        flawless = flawless & (pool.kind == 0)
    return {"flawless": flawless.double(), "hops": pool.hops.double(), "fillers": pool.fillers.double(),
            "slips": (pool.slips > 0).double(), "skipped": pool.skipped.double(), "correct": pool.correct.double(),
            **{k: (pool.kind == i).double() for i, k in enumerate(tasks.KINDS[:3])}}


def _score_pool(name, cfg, model, heads, vocab, gen, device, order, cgen=None) -> tuple[tasks.TraceBatch, dict, dict]:
    """Score pool ``name``; ``cgen`` (default: a fixed generator) draws the control selector's random step scores,
    apart from ``gen`` so that the other selectors' draws do not depend on it."""
    cgen = torch.Generator().manual_seed(0) if cgen is None else cgen
    pool = make_pool(name, cfg, vocab, gen).to(device)
    sc = attention_influence(model, heads, pool.idx, pool.step, form=cfg["form"], eps=cfg["eps"],
                             sample=cfg["sample"], mode=cfg["mode"])
    s_n = sc["step_ais"].shape[1]
    stype = _step_types(pool, s_n)
    valid = sc["step_size"] > 0
    # the step claim is about clean traces of the contrast pool; on the natural pool every trace counts
    rows = (pool.kind == 0) if name == "contrast" else torch.ones(len(pool), dtype=torch.bool, device=device)
    scope = rows[:, None] & valid
    step_stats = {}
    for i, tname in enumerate(tasks.STEP_TYPES[1:], start=1):
        m = scope & (stype == i)
        if m.any():
            step_stats[tname] = {"ais": float(sc["step_ais"][m].mean()),
                                 "abs": float((sc["step_ref"] - sc["step_base"])[m].mean()),
                                 "base": float(sc["step_base"][m].mean()), "ref": float(sc["step_ref"][m].mean()),
                                 "sd": float(sc["step_ais"][m].double().std()) if int(m.sum()) > 1 else 0.0,
                                 "n": int(m.sum())}
    lf = scope & ((stype == tasks.LOOKUP) | (stype == tasks.FILLER))
    y = (stype[lf] == tasks.LOOKUP).cpu().numpy()
    auroc = float(roc_auc_score(y, sc["step_ais"][lf].cpu().numpy())) if 0 < y.sum() < len(y) else float("nan")
    lf_d = float("nan")
    if {"lookup", "filler"} <= set(step_stats):
        lk, fl = step_stats["lookup"], step_stats["filler"]
        lf_d = (lk["ais"] - fl["ais"]) / max(((lk["sd"] ** 2 + fl["sd"] ** 2) / 2) ** 0.5, 1e-12)
    n_top = max(1, int(round(cfg["top_frac"] * len(pool))))
    traits = {k: v.to(device) for k, v in _traits(pool).items()}
    picks = {}
    for sel in SELECTORS:
        idx = select(sel, sc, pool.lengths, n_top, generator=cgen if sel == CONTROL else gen)
        picks[sel] = {k: float(v[idx].mean()) for k, v in traits.items()}
    picks["pool"] = {k: float(v.mean()) for k, v in traits.items()}
    out = {"step_stats": step_stats, "auroc_lookup": auroc, "picks": picks, "lookup_filler_d": lf_d,
           "examples": _examples(name, pool, sc, stype, valid, model, order, cfg["mode"])}
    m_cl = scope[: min(len(pool), 300)]
    out["step_sample"] = {"ais": sc["step_ais"][: m_cl.shape[0]][m_cl].tolist(),
                          "stype": stype[: m_cl.shape[0]][m_cl].tolist(), "row": m_cl.nonzero()[:, 0].tolist()}
    return pool, sc, out


def _example_rows(name: str, pool: tasks.TraceBatch) -> list[int]:
    if name == "contrast":
        return [row for kind in range(3) for row in (pool.kind == kind).nonzero().flatten()[:3].tolist()]
    t = _traits(pool)
    rows = []
    for key in ("flawless", "fillers", "slips", "skipped"):
        cand = (t[key] >= (2 if key == "fillers" else 1)).nonzero().flatten().tolist()
        rows += [r for r in cand if r not in rows][:2]
    return rows


def _examples(name, pool, sc, stype, valid, model, order, mode) -> list[dict]:
    """A few traces for the trace viewer, with step losses for 0..n_heads-1 masked heads (top-R_h order)."""
    rows = _example_rows(name, pool)
    if not rows:
        return []
    t = int(pool.lengths[rows].max())
    idx, step = pool.idx[rows, :t], pool.step[rows, :t]
    s_n = sc["step_ais"].shape[1]
    by_k = [step_losses(model, idx, step, s_n)[0]]
    for kk in range(1, len(order)):
        with masked_heads(model, order[:kk], mode):
            by_k.append(step_losses(model, idx, step, s_n)[0])
    out = []
    for e, row in enumerate(rows):
        n_tok, n_st = int(pool.lengths[row]), int(valid[row].sum())
        out.append({"kind": tasks.KINDS[int(pool.kind[row])], "tokens": pool.idx[row, :n_tok].tolist(),
                    "step": pool.step[row, :n_tok].tolist(), "stype": stype[row, :n_st].tolist(),
                    "ref_by_k": [r[e, :n_st].tolist() for r in by_k], "sample_ais": float(sc["sample_ais"][row]),
                    "correct": bool(pool.correct[row]), "slips": int(pool.slips[row]),
                    "skipped": bool(pool.skipped[row]), "fillers": int(pool.fillers[row])})
    return out


def _decode_budget(cfg: dict, h: int) -> int:
    """New tokens a student may write on a problem of at most ``h`` hops: twice the longest response any trace style
    of the pools writes for it (padded traces: ``padded_filler[1]`` filler lines; natural traces: at most one
    restating line per reasoning line, ``2 h``), so imitating the most verbose style never exhausts it."""
    return 2 * tasks.longest_response(h, max(cfg["padded_filler"][1], 2 * h))


def _fit_and_eval(cfg, init, data, vocab, seed, device, step_w=None, desc="SFT") -> dict:
    """Fine-tune a copy of ``init`` on ``data`` (fixed minibatch sequence) and evaluate on held-out problems;
    ``data=None``: no fine-tuning (the untuned student, evaluated on the same problems)."""
    student = training.copy_model(init, training.lm_state(init))
    if data is not None:
        training.sft(student, data, steps=cfg["sft_steps"], batch=cfg["sft_batch"], lr=cfg["sft_lr"], step_w=step_w,
                     generator=torch.Generator().manual_seed(seed + 7), desc=desc)
    return _evaluate(cfg, student, vocab, seed, device)


def _evaluate(cfg, student, vocab, seed, device) -> dict:
    """Greedy decoding of the held-out (and, if asked, in-range) problems of seed ``seed``."""
    bindings = cfg["hops"][1] + cfg["n_distract"][1]
    budget = _decode_budget(cfg, cfg["eval_hops"][1])
    out = training.greedy_correct(student, vocab, hops=cfg["eval_hops"], n=cfg["n_eval"], context_bindings=bindings,
                                  generator=torch.Generator().manual_seed(10_000 + seed), device=device,
                                  max_new=budget)
    out["max_new"] = budget
    if cfg["n_eval_in_range"]:
        lo = max(cfg["hops"][0], cfg["hops"][1] - 1)
        out["in_range"] = training.greedy_correct(student, vocab, hops=(lo, cfg["hops"][1]),
                                                  n=cfg["n_eval_in_range"], context_bindings=bindings,
                                                  generator=torch.Generator().manual_seed(20_000 + seed),
                                                  device=device, max_new=_decode_budget(cfg, cfg["hops"][1]))
    return out


def run(config: dict, device, seed: int) -> dict:
    """Run the experiment; return plain numbers (see the module docstring)."""
    cfg = _check(config)
    seed = checks.seed("seed", seed)
    device = checks.device("device", device)
    t0 = time.perf_counter()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    vocab = tasks.Vocab(cfg["n_vars"])
    stages = ["scoring model", "retrieval heads"] + [f"score {p} pool" for p in cfg["pools"]]
    stages += ["student"] if cfg["selectors"] or cfg["weighting"] else []
    stages += [f"select from {p}" for p in cfg["pools"] if cfg["selectors"]]
    stages += [f"step weighting on {p}" for p in cfg["weighting"]]
    res: dict = {"pools": {}, "students": {}, "weighting": {}, "n_vars": cfg["n_vars"], "n_eval": cfg["n_eval"]}
    scored = {}
    for stage in progress.stages(stages, desc="air_reasoning"):
        if stage == "scoring model":
            model = _model(cfg["base"], "base", seed, device)
            if model.cfg.vocab_size != vocab.size:
                raise ValueError(f"the scoring model's vocabulary ({model.cfg.vocab_size}) does not fit n_vars="
                                 f"{cfg['n_vars']}")
            res["seconds_base"] = time.perf_counter() - t0
        elif stage == "retrieval heads":
            heads = _heads(cfg, model, vocab, gen, device)
            top, order = heads.pop("top"), heads.pop("order")
            res.update(heads)
        elif stage.startswith("score "):
            name = stage.split()[1]
            ts = time.perf_counter()
            pool, sc, res["pools"][name] = _score_pool(name, cfg, model, top, vocab, gen, device, order,
                                                       torch.Generator().manual_seed(seed * 1000 + 3))
            res["pools"][name]["seconds"] = time.perf_counter() - ts
            scored[name] = (pool, sc)
        elif stage == "student":
            init = _model(cfg["student"], "student", seed + 1, device)
            res["untuned"] = _fit_and_eval(cfg, init, None, vocab, seed, device)
        elif stage.startswith("select from "):
            name = stage.split()[-1]
            pool, sc = scored[name]
            sgen = torch.Generator().manual_seed(seed * 1000 + 1)
            cgen = torch.Generator().manual_seed(seed * 1000 + 2)  # the control's own draws (see baselines.CONTROL)
            res["students"][name] = {
                sel: _fit_and_eval(cfg, init, pool.subset(select(sel, sc, pool.lengths, cfg["k"],
                                                                 generator=cgen if sel == CONTROL else sgen)),
                                   vocab, seed, device, desc=f"SFT {name}/{sel}")
                for sel in cfg["selectors"]}
            res["students"][name]["none"] = res["untuned"]
        else:
            name = stage.split()[-1]
            pool, sc = scored[name]
            w = step_weights(sc["step_ais"], sc["step_size"], kind=cfg["weight_kind"], lam=cfg["lam"],
                             w_min=cfg["w_min"], w_max=cfg["w_max"])
            res["weighting"][name] = {
                label: _fit_and_eval(cfg, init, pool, vocab, seed, device, step_w=sw, desc=f"SFT {name}/{label}")
                for label, sw in (("uniform", None), ("weighted", w))}
    res["seconds"] = time.perf_counter() - t0
    res["config"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()}
    return res
