"""The reproduction experiment (docs/papers/data_mixing.md §2, §5): every loss is measured on tiny MLPs trained here.

Parts: (C1) capacity competition at infinite data; (sweep) random mixtures x widths x data sizes,
fits of our law and the baselines, held-out MRE by mixture (C3); (C4) noise reduction: h* at large
width / small data; (C5) cross-scale extrapolation: fit every scale-aware law (ours, BiMix, Shukor) jointly at
small (W, D), predict each h* at a larger (W, D) inside the hull of the training mixtures, train them there with
3 init seeds and compare them with each other, with the exp law's reused small-scale optimum and with an
optimised reference (the best of a two-round search at the target, re-trained with 3 fresh seeds).
"""

from __future__ import annotations

import time

import numpy as np
import torch
from scipy.stats import spearmanr

from icml26 import checks, progress

from . import baselines, method, skills
from .fitting import fit_law, mre, split_by_mixture

# Fitting objective (all laws alike): squared log-ratio, i.e. relative error, because the toy domains' losses
# differ by 10x and the metric is MRE; the authors fit plain MSE on LLM losses of similar size (deviation).
_BASE = dict(alphas=(0.6, 0.9, 1.2), n_head=40, n_tail=400, dim=32, n_classes=8, lr=0.03, world_seed=1234,
             data_unit=1000.0, capacity_unit=100.0)

CONFIGS = {
    "quick": dict(_BASE, steps=300,
                  c1=dict(widths=(4, 16, 64), levels=(0.1, 0.3, 0.5, 0.7, 0.9), seeds=2, spearman_widths=(16, 64)),
                  sweep=dict(n_mix=16, widths=(16,), D=(None,), seeds=2, train_frac=0.7, active=0.1),
                  fit=dict(restarts=2, maxiter=200, laws=("ours", "exp"), loss="log_mse"),
                  c4=None, c5=None),
    "standard": dict(_BASE, alphas=(0.6, 0.9, 1.2, 1.5, 1.8), steps=400,
                     c1=dict(widths=(4, 16, 64), levels=(0.1, 0.3, 0.5, 0.7, 0.9), seeds=2, spearman_widths=(16, 64)),
                     sweep=dict(n_mix=50, widths=(8, 16), D=(2000, 8000), seeds=2, train_frac=0.7, active=0.1),
                     fit=dict(restarts=3, maxiter=300, laws=("ours", "exp", "bimix", "shukor", "linear", "nocap"),
                              loss="log_mse"),
                     c4=dict(width=16, D=2000),
                     c5=dict(width=32, D=32000, n_candidates=40, refine=16, seeds=3)),
    "full": dict(_BASE, alphas=(0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.8), n_tail=2000, steps=1500,
                 c1=dict(widths=(4, 16, 64), levels=(0.1, 0.3, 0.5, 0.7, 0.9), seeds=3, spearman_widths=(16, 64)),
                 sweep=dict(n_mix=80, widths=(8, 16, 32), D=(2000, 8000, 32000), seeds=3, train_frac=0.7,
                            active=0.1),
                 fit=dict(restarts=4, maxiter=500, laws=("ours", "exp", "bimix", "shukor", "linear", "nocap"),
                          loss="log_mse"),
                 c4=dict(width=32, D=2000),
                 c5=dict(width=128, D=128000, n_candidates=64, refine=24, seeds=3)),
}

"""``full`` on one H200, estimated (not run: no GPU was available). Training: a model-step costs ~6 S (p W + W C)
FLOPs = 6 x 14,040 x 40 W = 3.4e6 W (S = 40 + 7 x 2,000 skills, p = 32, C = 8); the sweep trains 80 mixtures x 3 D x
3 seeds = 720 models at each of W = 8, 16, 32 (720 x 3.4e6 x 56 x 1,500 steps = 2.0e14 FLOPs), C1 45 models at
W = 4, 16, 64 (6e12), C5 64 + 2 + 24 one-seed and 7 x 3 paired models at W = 128 (111 x 3.4e6 x 128 x 1,500 =
7.2e13): ~2.8e14 FLOPs, ~15 s at 20 TFLOP/s (fp32, one block per width on a GPU), say 60 s with the element-wise
passes. Fits: at standard one fit of our law (35 train mixtures, 3 starts x <= 300 L-BFGS-B iterations) takes ~1 s
of CPU; full fits 9 scales x 5 laws + 3 joint fits with 4 starts x <= 500 iterations on ~56 mixtures, ~3x standard's
work per fit (joint fits ~9x): ~(45 x 3 + 3 x 9) x 1.5 s (all laws, our law the slowest) ~ 250 s if the float64 KKT
solve runs as fast on the GPU as on one CPU core (it is launch-bound there, the uncertain term). Total ~5-6 min."""

LAWS = {"ours": method.LAW, **baselines.LAWS_BASELINE}


def _positive_ints(name, value, allow_none=False) -> list:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) == 0:
        raise ValueError(f"{name} must be a non-empty sequence; got {value!r}")
    for v in value:
        if not (allow_none and v is None):
            checks.positive_int(name, v)
    return list(value)


def _check_config(config) -> dict:
    """Raise ``ValueError`` naming the key unless ``config`` is a complete, consistent experiment config
    (the keys of :data:`CONFIGS`); returns it."""
    top = ("alphas", "n_head", "n_tail", "dim", "n_classes", "lr", "world_seed", "data_unit", "capacity_unit",
           "steps", "c1", "sweep", "fit", "c4", "c5")
    checks.config("config", config, required=top, allowed=("D_inf",))
    alphas = config["alphas"]
    if isinstance(alphas, (str, bytes)) or not hasattr(alphas, "__len__") or len(alphas) < 2:
        raise ValueError(f"config['alphas'] must list K >= 2 Zipf exponents; got {alphas!r}")
    for a in alphas:
        checks.positive_number("config['alphas']", a)
    checks.nonnegative_int("config['n_head']", config["n_head"])
    for k in ("n_tail", "dim", "steps"):
        checks.positive_int(f"config[{k!r}]", config[k])
    if checks.positive_int("config['n_classes']", config["n_classes"]) < 2:
        raise ValueError(f"config['n_classes'] must be >= 2; got {config['n_classes']!r}")
    for k in ("lr", "data_unit", "capacity_unit") + (("D_inf",) if "D_inf" in config else ()):
        checks.positive_number(f"config[{k!r}]", config[k])
    checks.seed("config['world_seed']", config["world_seed"])
    c1 = checks.config("config['c1']", config["c1"], required=("widths", "levels", "seeds", "spearman_widths"))
    widths = _positive_ints("config['c1']['widths']", c1["widths"])
    if not set(_positive_ints("config['c1']['spearman_widths']", c1["spearman_widths"])) <= set(widths):
        raise ValueError("config['c1']['spearman_widths'] must be among config['c1']['widths']")
    if isinstance(c1["levels"], (str, bytes)) or not hasattr(c1["levels"], "__len__") or len(c1["levels"]) < 2:
        raise ValueError(f"config['c1']['levels'] must list at least two levels of h_0; got {c1['levels']!r}")
    for v in c1["levels"]:
        checks.in_range("config['c1']['levels']", v, 0.0, 1.0, low_open=True, high_open=True)
    checks.positive_int("config['c1']['seeds']", c1["seeds"])
    sw = checks.config("config['sweep']", config["sweep"],
                       required=("n_mix", "widths", "D", "seeds", "train_frac", "active"))
    if checks.positive_int("config['sweep']['n_mix']", sw["n_mix"]) < 2:
        raise ValueError("config['sweep']['n_mix'] must be >= 2 (train and held-out mixtures)")
    sweep_widths = _positive_ints("config['sweep']['widths']", sw["widths"])
    Ds = _positive_ints("config['sweep']['D']", sw["D"], allow_none=True)
    if None in Ds and any(d is not None for d in Ds):
        raise ValueError(f"config['sweep']['D'] must be all None (infinite data) or all sample counts; got {Ds}")
    checks.positive_int("config['sweep']['seeds']", sw["seeds"])
    checks.in_range("config['sweep']['train_frac']", sw["train_frac"], 0.0, 1.0, low_open=True, high_open=True)
    checks.in_range("config['sweep']['active']", sw["active"], 0.0, 1.0, high_open=True)
    fit = checks.config("config['fit']", config["fit"], required=("restarts", "maxiter", "laws"), allowed=("loss",))
    checks.positive_int("config['fit']['restarts']", fit["restarts"])
    checks.positive_int("config['fit']['maxiter']", fit["maxiter"])
    checks.one_of("config['fit']['loss']", fit.get("loss", "mse"), ("mse", "huber", "log_mse"))
    laws = fit["laws"]
    if isinstance(laws, (str, bytes)) or not hasattr(laws, "__len__"):
        raise ValueError(f"config['fit']['laws'] must be a sequence of law names; got {laws!r}")
    for name in laws:
        checks.one_of("config['fit']['laws']", name, LAWS)
    if not {"ours", "exp"} <= set(laws):
        raise ValueError("config['fit']['laws'] must include 'ours' and 'exp' (the claims compare them)")
    for key, need in (("c4", ("width", "D")), ("c5", ("width", "D", "n_candidates", "refine", "seeds"))):
        part = config[key]
        if part is None:
            continue
        checks.config(f"config[{key!r}]", part, required=need)
        for k in need:
            (checks.nonnegative_int if k == "refine" else checks.positive_int)(f"config[{key!r}][{k!r}]", part[k])
        if None in Ds:
            raise ValueError(f"config[{key!r}] needs finite data sizes in config['sweep']['D']; got {Ds}")
    if config["c4"] is not None and (config["c4"]["width"] not in sweep_widths or config["c4"]["D"] not in Ds):
        raise ValueError("config['c4']'s width and D must be among config['sweep']'s widths and D")
    return config


def _measure(dom, h, width, D, cfg, seeds, device, data_seed, paired=False):
    # init streams depend on the run's seed (data_seed) so that seeds 0, 1, 2 train different networks
    return skills.measure(dom, h, width, D, seeds=tuple(range(data_seed * seeds, (data_seed + 1) * seeds)),
                          steps=cfg["steps"], lr=cfg["lr"], data_seed=data_seed, paired=paired)


def _run_c1(dom, cfg, seed, device) -> dict:
    """Capacity competition at infinite data: raise h_0 with the other weights' ratios fixed."""
    c = cfg["c1"]
    lv = np.asarray(c["levels"], float)
    K = dom.K
    h = np.concatenate([lv[:, None], np.repeat(((1 - lv) / (K - 1))[:, None], K - 1, 1)], 1)
    out = {"levels": lv.tolist(), "losses": {}}
    for W in c["widths"]:
        out["losses"][str(W)] = _measure(dom, h, W, None, cfg, c["seeds"], device, seed).tolist()
    rho = {str(W): [float(spearmanr(lv, np.asarray(out["losses"][str(W)])[:, j])[0]) for j in range(1, K)]
           for W in c["widths"]}
    out["spearman"] = rho
    out["min_spearman"] = float(min(min(rho[str(W)]) for W in c["spearman_widths"]))
    Lsmall = np.asarray(out["losses"][str(min(c["widths"]))])
    Lbig = np.asarray(out["losses"][str(max(c["widths"]))])
    out["max_ratio_big_small"] = float((Lbig / Lsmall).max())
    return out


def _run_sweep(dom, cfg, seed, device) -> dict:
    """Measure losses of random mixtures at every (width, D); all of one width form one batch."""
    s = cfg["sweep"]
    rng = np.random.default_rng(seed + 7)
    H = rng.dirichlet(np.ones(dom.K), s["n_mix"])
    rows = []
    for W in s["widths"]:
        h_all = np.tile(H, (len(s["D"]), 1))
        D_all = None if s["D"][0] is None else np.repeat(np.asarray(s["D"]), len(H))
        L = _measure(dom, h_all, W, D_all, cfg, s["seeds"], device, seed)
        for k, D in enumerate(s["D"]):
            rows.append({"W": int(W), "D": None if D is None else int(D), "L": L[k * len(H):(k + 1) * len(H)]})
    return {"h": H, "rows": rows}


def _units(cfg, W, D):
    """The law's (N, D) for width W and D samples (D=None, infinite data, is given ``D_inf`` samples)."""
    D = cfg.get("D_inf", 1e6) if D is None else D
    return skills.capacity_of(W, cfg["dim"], cfg["n_classes"], cfg["capacity_unit"]), D / cfg["data_unit"]


def _fit_scale(cfg, h, L, N, D, train, laws, seed, active_thr, device="cpu"):
    """Fit each law on the train mixtures of one data set; held-out MRE on the others (active entries)."""
    act = h > active_thr
    f = cfg["fit"]
    out, fits = {}, {}
    for name in laws:
        fit = fit_law(LAWS[name], h[train], N[train], D[train], L[train], act[train], restarts=f["restarts"],
                      maxiter=f["maxiter"], seed=seed, loss=f.get("loss", "mse"), device=device)
        pred = fit.predict(h, N, D)
        fits[name] = fit
        out[name] = {"n_params": LAWS[name].n_params(h.shape[1]),
                     "train_mre": mre(pred[train], L[train], act[train]),
                     "test_mre": mre(pred[~train], L[~train], act[~train]), "seconds": fit.seconds}
    return out, fits


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the experiment at one scale; returns plain numbers (see module docstring)."""
    checks.config_like("config", config, CONFIGS.values())
    _check_config(config)
    checks.device("device", device)
    checks.seed("seed", seed)
    t0 = time.perf_counter()
    cfg = config
    device = torch.device(device) if not isinstance(device, torch.device) else device
    bar = progress.StageBar(["solver checks", "C1 competition", "mixture sweep", "law fits"]
                            + (["C4 noise reduction"] if cfg["c4"] else [])
                            + (["C5 extrapolation"] if cfg["c5"] else []), desc="data_mixing")
    dom = skills.make_domains(cfg["alphas"], cfg["n_head"], cfg["n_tail"], cfg["dim"], cfg["n_classes"],
                              cfg["world_seed"], device=device)
    K = dom.K
    res = {"K": K, "alphas": list(cfg["alphas"]), "n_params": {n: LAWS[n].n_params(K) for n in LAWS}}
    bar.next("solver checks")
    res["c6"] = solver_check(seed)
    res["c2"] = fixture_check(seed)
    bar.next("C1 competition")
    res["c1"] = _run_c1(dom, cfg, seed, device)
    bar.next("mixture sweep")
    t_sweep = time.perf_counter()
    sw = _run_sweep(dom, cfg, seed, device)
    res["sweep_seconds"] = time.perf_counter() - t_sweep
    bar.next("law fits")
    s = cfg["sweep"]
    H = sw["h"]
    train_mix = split_by_mixture(np.arange(len(H)), s["train_frac"], seed=seed + 11)
    per_scale, fits_by_scale = [], {}
    for row in sw["rows"]:
        N, D = _units(cfg, row["W"], row["D"])
        Nv, Dv = np.full(len(H), N), np.full(len(H), D)
        out, fits = _fit_scale(cfg, H, row["L"], Nv, Dv, train_mix, cfg["fit"]["laws"], seed, s["active"],
                               device)
        per_scale.append({"W": row["W"], "D": row["D"], "mre": out})
        fits_by_scale[(row["W"], row["D"])] = fits
    res["per_scale"] = per_scale
    laws = cfg["fit"]["laws"]
    res["test_mre"] = {n: float(np.mean([p["mre"][n]["test_mre"] for p in per_scale])) for n in laws}
    res["train_mre"] = {n: float(np.mean([p["mre"][n]["train_mre"] for p in per_scale])) for n in laws}
    # the paper's "lower MRE than existing laws": ours over each published competitor (the largest ratio: the best
    # of them); the control ("nocap", our law without its capacity term) over the same competitors
    comp = [n for n in laws if n in baselines.COMPETITORS]
    res["mre_ratio_each"] = {n: res["test_mre"]["ours"] / res["test_mre"][n] for n in comp}
    if "nocap" in laws:
        res["mre_ratio_control_each"] = {n: res["test_mre"]["nocap"] / res["test_mre"][n] for n in comp}
    # joint multi-scale fit of the laws that take N and D (same held-out mixtures)
    hj = np.concatenate([H] * len(sw["rows"]))
    Lj = np.concatenate([r["L"] for r in sw["rows"]])
    NDj = np.array([_units(cfg, r["W"], r["D"]) for r in sw["rows"] for _ in range(len(H))])
    trj = np.concatenate([train_mix] * len(sw["rows"]))
    joint_laws = [n for n in laws if LAWS[n].uses_scale] if len(sw["rows"]) > 1 else []
    joint_out, joint_fits = _fit_scale(cfg, hj, Lj, NDj[:, 0], NDj[:, 1], trj, joint_laws, seed, s["active"],
                                       device)
    res["joint"] = joint_out
    res["fit_seconds_ours"] = float(np.mean([p["mre"]["ours"]["seconds"] for p in per_scale]))
    if "ours" not in joint_fits:  # a single scale: the joint fit is the per-scale fit
        joint_fits["ours"] = fits_by_scale[(sw["rows"][0]["W"], sw["rows"][0]["D"])]["ours"]
    res["example_fit"] = {k: np.asarray(v).tolist() for k, v in joint_fits["ours"].params.items()}
    res["sweep_data"] = {"h": H.tolist(), "rows": [{"W": r["W"], "D": r["D"], "L": r["L"].tolist()}
                                                  for r in sw["rows"]], "train": train_mix.tolist()}
    if cfg["c4"]:
        bar.next("C4 noise reduction")
        res["c4"] = _run_c4(cfg, sw, fits_by_scale, joint_fits["ours"], K, seed)
    if cfg["c5"]:
        bar.next("C5 extrapolation")
        res["c5"] = _run_c5(dom, cfg, joint_fits, fits_by_scale, H[train_mix], sw, K, seed, device)
    res["seconds"] = time.perf_counter() - t0
    bar.close()
    return res


def _run_c4(cfg, sw, fits_by_scale, joint_fit, K, seed) -> dict:
    """Noise reduction: at ample width and scarce data, h* favours the flattest-tailed (hardest) domain."""
    c = cfg["c4"]
    hard, easy = int(np.argmin(cfg["alphas"])), int(np.argmax(cfg["alphas"]))
    Ds = sorted(cfg["sweep"]["D"])
    out = {"hard": hard, "easy": easy}
    hstar = {}
    for D in Ds:
        N, Du = _units(cfg, c["width"], D)
        hstar[D] = method.optimal_mixture(joint_fit.params, N, Du, seed=seed)
    out["h_star"] = {str(D): hstar[D].tolist() for D in Ds}
    hs = hstar[c["D"]]
    others = np.delete(hs, hard)
    out["law_margin"] = float(min(hs[hard] - others.max(), hs[hard] - 1 / K, 1 / K - hs[easy]))
    out["shift_small_minus_large_D"] = float(hstar[Ds[0]][hard] - hstar[Ds[-1]][hard])
    row = next(r for r in sw["rows"] if r["W"] == c["width"] and r["D"] == c["D"])
    best, i = baselines.grid_search(sw["h"], row["L"].mean(1))
    out["grid_best"] = best.tolist()
    out["grid_margin"] = float(best[hard] - 1 / K)
    out["grid_argmax_is_hard"] = float(int(np.argmax(best)) == hard)
    out["fitted_A"] = np.asarray(joint_fit.params["A"]).tolist()
    return out


def _run_c5(dom, cfg, joint_fits, fits_by_scale, hull, sw, K, seed, device) -> dict:
    """Cross-scale extrapolation: each scale-aware law, fitted jointly on the small scales, predicts h* at the target
    (N, D) inside the convex hull of its training mixtures; those optima are trained at the target with ``seeds``
    init seeds and compared with each other and with an optimised reference mixture measured the same way."""
    c = cfg["c5"]
    N, Du = _units(cfg, c["width"], c["D"])
    names = [n for n in ("ours", "bimix", "shukor", "nocap") if n in joint_fits]
    h_star = {n: baselines.law_optimum(joint_fits[n], N, Du, hull=hull, seed=seed) for n in names}
    # the exp law has no N or D input: its optimum at the largest fitted scale is reused as is (also in the hull)
    W_s, D_s = max(cfg["sweep"]["widths"]), max(cfg["sweep"]["D"])
    Ns, Ds_ = _units(cfg, W_s, D_s)
    h_star["exp_small"] = baselines.law_optimum(fits_by_scale[(W_s, D_s)]["exp"], Ns, Ds_, hull=hull, seed=seed)
    h_star["ours_small"] = baselines.law_optimum(fits_by_scale[(W_s, D_s)]["ours"], Ns, Ds_, hull=hull, seed=seed)
    small = next(r for r in sw["rows"] if r["W"] == W_s and r["D"] == D_s)
    grid_best, _ = baselines.grid_search(sw["h"], small["L"].mean(1))  # the sweep's best measured mixture
    ref, search = _reference_search(dom, cfg, grid_best, K, seed, device)
    h_star["reference"] = ref
    h_star["uniform"] = baselines.uniform_mixture(K)
    keys = list(h_star)
    allh = np.vstack([h_star[k] for k in keys])
    allh = allh / allh.sum(1, keepdims=True)
    # fresh init seeds and data stream (seed + 5), not the search's (seed + 6, 7): no winner's curse on the reference;
    # paired (common starts and data stream for every mixture), so that the ratios compare mixtures, not draws
    L = _measure(dom, allh, c["width"], np.full(len(allh), c["D"]), cfg, c["seeds"], device, seed + 5, paired=True)
    loss = dict(zip(keys, L.mean(1).tolist()))
    out = {"h": {k: h_star[k].tolist() for k in keys}, "loss": loss, "search": search,
           "gap_law_vs_best": loss["ours"] / loss["reference"] - 1,
           "ratio_law_vs_exp_small": loss["ours"] / loss["exp_small"]}
    rivals = [n for n in names[1:] if n != "nocap"] + ["exp_small"]
    for n in rivals:
        out[f"ratio_vs_{n}"] = loss["ours"] / loss[n]
        out[f"l1_vs_{n}"] = float(np.abs(h_star["ours"] - h_star[n]).sum())
    # "better mixtures than existing laws": ours against the best of the other laws' optima (the largest ratio);
    # the control: the optimum of our law without its capacity term, against the same optima
    out["ratio_vs_best_rival"] = max(out[f"ratio_vs_{n}"] for n in rivals)
    if "nocap" in loss:
        out["control_ratio_each"] = {n: loss["nocap"] / loss[n] for n in rivals}
        out["control_ratio_vs_best_rival"] = max(out["control_ratio_each"].values())
    return out


def _reference_search(dom, cfg, grid_best, K, seed, device):
    """The optimised reference at the target scale: ``n_candidates`` Dirichlet(1) mixtures, the uniform one and the
    sweep's best measured mixture at the largest small scale, then ``refine`` mixtures drawn around the best of those
    (Dirichlet with concentration 40 at it), each trained with one init seed, paired (one start and one data stream
    for all); returns the best mixture found and the search's record."""
    c = cfg["c5"]
    rng = np.random.default_rng(seed + 99)
    first = np.vstack([rng.dirichlet(np.ones(K), c["n_candidates"]), baselines.uniform_mixture(K), grid_best])
    L1 = _measure(dom, first, c["width"], np.full(len(first), c["D"]), cfg, 1, device, seed + 6, paired=True).mean(1)
    best = first[int(np.argmin(L1))]
    second = rng.dirichlet(40.0 * best + 0.05, c["refine"]) if c["refine"] else np.zeros((0, K))
    L2 = _measure(dom, second, c["width"], np.full(len(second), c["D"]), cfg, 1, device, seed + 6,
                  paired=True).mean(1) if len(second) else np.zeros(0)
    cand, losses = np.vstack([first, second]), np.concatenate([L1, L2])
    i = int(np.argmin(losses))
    return cand[i], {"n": len(cand), "best_round": 1 + int(i >= len(first)), "best_one_seed_loss": float(losses[i]),
                     "best_first_round": float(L1.min()), "grid_best_one_seed_loss": float(L1[len(first) - 1]),
                     "grid_best": np.asarray(grid_best).tolist()}


def solver_check(seed: int, n: int = 1000) -> dict:
    """Claim C6: feasibility and KKT residuals of the batched solver on ``n`` random instances per K."""
    checks.seed("seed", seed)
    checks.positive_int("n", n)
    rng = np.random.default_rng(seed + 3)
    worst = {"feas_over_N": 0.0, "stat": 0.0, "dual": 0.0, "floor": 0.0}
    for K in (2, 5, 17):
        h = rng.dirichlet(np.full(K, 0.5), n)
        h[rng.random((n, K)) < 0.1] = 0.0
        h[h.sum(1) == 0, 0] = 1.0
        h /= h.sum(1, keepdims=True)
        b, c = torch.tensor(rng.uniform(0.05, 5.0, K)), torch.tensor(rng.uniform(0.1, 20.0, K))
        N = torch.tensor(rng.uniform(1.0, 1e4, n))
        H = torch.tensor(float(rng.uniform(0.01, 0.5) * N.min()), dtype=torch.float64)
        ht = torch.tensor(h)
        x, lam = method.solve_allocation(ht, b, c, N, H, return_lambda=True)
        r = method.kkt_residual(x, lam, ht, b, c, N, H)
        worst["feas_over_N"] = max(worst["feas_over_N"], r["feas"])
        for k in ("stat", "dual", "floor"):
            worst[k] = max(worst[k], r[k])
    return worst


def fixture_check(seed: int) -> dict:
    """Claim C2: parameter counts, and the law on the authors' 7-domain parameters against an SLSQP solve."""
    checks.seed("seed", seed)
    p = method.AUTHORS_SLIMPAJAMA7
    rng = np.random.default_rng(seed + 5)
    h = rng.dirichlet(np.ones(7), 5)
    pt = method.as_params(p)
    err = 0.0
    for N in (122.0, 1300.0):
        x = method.solve_allocation(torch.tensor(h), pt["b"], pt["c"], N, pt["H"]).numpy()
        for m in range(len(h)):
            xr = method.reference_allocation_slsqp(h[m], p["b"], p["c"], N, p["H"])
            b, c = np.asarray(p["b"]), np.asarray(p["c"])
            cap, cap_r = c * x[m] ** -b, c * xr ** -b
            err = max(err, float(np.abs(cap - cap_r).max()))
    margin = {int(k): baselines.exp_law_n_params(int(k)) - method.n_params(int(k)) for k in range(2, 51)}
    return {"max_abs_loss_diff_vs_slsqp": err, "n_params_ours_K7": method.n_params(7),
            "n_params_exp_K7": baselines.exp_law_n_params(7),
            "min_margin_K_ge_5": min(v for k, v in margin.items() if k >= 5),
            "max_margin_K_lt_5": max(v for k, v in margin.items() if k < 5)}


def explorer_data(seed: int = 0, widths=(8, 32), Ds=(2000, 16000), n_mix: int = 10, steps: int = 250,
                  cfg: dict | None = None, restarts: int = 2, maxiter: int = 200) -> dict:
    """Measured losses for the mixture explorer (K=3, a few mixtures at a few (width, D)) and the law fitted
    to all of them jointly. Returns plain arrays."""
    cfg = dict(CONFIGS["quick"]) if cfg is None else cfg
    checks.seed("seed", seed)
    checks.config("cfg", cfg, required=("alphas", "n_head", "n_tail", "dim", "n_classes", "world_seed", "lr",
                                        "capacity_unit", "data_unit"))
    if len(cfg["alphas"]) != 3:
        raise ValueError(f"cfg['alphas'] must give K=3 domains (the explorer's ternary map); got {cfg['alphas']!r}")
    _positive_ints("widths", widths)
    _positive_ints("Ds", Ds)
    if checks.positive_int("n_mix", n_mix) < 2:
        raise ValueError(f"n_mix must be >= 2; got {n_mix}")
    checks.positive_int("steps", steps)
    checks.positive_int("restarts", restarts)
    checks.positive_int("maxiter", maxiter)
    dom = skills.make_domains(cfg["alphas"], cfg["n_head"], cfg["n_tail"], cfg["dim"], cfg["n_classes"],
                              cfg["world_seed"])
    rng = np.random.default_rng(seed + 21)
    H = np.vstack([rng.dirichlet(np.ones(dom.K), n_mix - 1), baselines.uniform_mixture(dom.K)])
    rows = []
    for W in widths:
        h_all = np.tile(H, (len(Ds), 1))
        D_all = np.repeat(np.asarray(Ds), len(H))
        L = skills.measure(dom, h_all, W, D_all, seeds=(0,), steps=steps, lr=cfg["lr"], data_seed=seed)
        for k, D in enumerate(Ds):
            rows.append({"W": int(W), "D": int(D), "L": L[k * len(H):(k + 1) * len(H)]})
    hj = np.concatenate([H] * len(rows))
    Lj = np.concatenate([r["L"] for r in rows])
    ND = np.array([_units(cfg, r["W"], r["D"]) for r in rows for _ in range(len(H))])
    fit = fit_law(method.LAW, hj, ND[:, 0], ND[:, 1], Lj, restarts=restarts, maxiter=maxiter, seed=seed,
                  loss="log_mse")
    return {"h": H, "rows": rows, "params": {k: np.asarray(v) for k, v in fit.params.items()},
            "cfg": {k: cfg[k] for k in ("dim", "n_classes", "capacity_unit", "data_unit", "alphas")},
            "train_mre": mre(fit.predict(hj, ND[:, 0], ND[:, 1]), Lj)}
