"""The reproduction experiment of ca_pg (docs/papers/ca_pg.md §2, §5): variance, exact identities, inclusion
estimators, training.

``run(config, device, seed)`` returns plain python numbers/lists:

* ``variance``: single-sample trace-variance w.r.t. the logits vs K of CA-PG and of V-PG with the batch-mean
  baseline training uses (the fair peer) and without one (a labelled second figure) (claim 1);
* ``exact``: enumeration checks, N=7, K=3 (claim 2): identity error, uniform-LSR relative error, cosines;
* ``inclusion``: quadrature / Gumbel-MC / with-replacement inclusion probabilities (claim 3);
* ``training``: learning curves of CA-PG and every baseline in the two-tower world (claims 4, 5);
* ``alignment``: the same with an anti-aligned LSR (claim 6);
* ``digits``: the same on the digits world (real pixels, ``digits_world``; the abstract's real-world data);
* ``lr_sweep``: every estimator of the comparison on one learning-rate grid (equal footing), K = 100;
* ``lsr_noise``: noisier LSRs g = q + sigma eps and noisy anti-aligned ones g = -q + sigma eps, K = 100;
* ``noisy_grid``: every estimator (V-PG, the top-K correction, LSR distillation) against CA-PG with a noisy LSR
  g = q + 0.3 eps, K in {10, 100}: the headline's world (the reward is not the LSR's score).
"""

from __future__ import annotations

import math
import time

import torch

from icml26 import checks, progress
from icml26.papers.ca_pg.analysis import exact_gradients, inclusion_errors, variance_probe
from icml26.papers.ca_pg.method import lsr_scores
from icml26.papers.ca_pg.training import ESTIMATORS, make_world, max_drop_after, steps_to, train

NOISY_GRID = {"noise": 0.3, "ks": [10, 100], "steps": 100,
              "estimators": ["capg", "vpg_mean", "vpg", "topk_wr", "distill"]}
"""The headline's world (issue 64): the training grid's world (its items, users, reward q, learning rate) with a
partly aligned, noisy LSR g = q + 0.3 eps, so that the reward is not the LSR's score and imitating the LSR
(distillation) is not the same as maximising the reward; every estimator of the comparison, K in {10, 100}, the
first world seed. At every scale (at standard: 2 K * 5 estimators * 100 steps, well under a minute of CPU)."""

CONFIGS = {
    "quick": {
        "variance": {"n_items": 200, "ks": [1, 5, 20, 50], "n_samples": 1000, "n_mc": 32, "tau": 0.1},
        "exact": {"n_items": 7, "k": 3, "n_contexts": 16, "aligned_taus": [0.02, 0.1], "anti_tau": 0.02},
        "inclusion": {"n_items": 50, "k": 10, "n_mc": 2000, "top": 5},
        "training": {"n_items": 500, "n_users": 200, "d": 16, "ks": [10, 100], "steps": 100, "n_seeds": 1,
                     "batch": 32, "lr": 0.05, "tau": 0.01, "n_mc": 16, "eval_every": 10, "eval_users": 60,
                     "eval_sets": 8, "estimators": ["capg", "vpg_mean", "vpg", "topk_wr", "distill"]},
        "noisy_grid": NOISY_GRID,
        "stability": None,
        "alignment": None,
        "digits": {"n_users": 200, "ks": [10, 100], "steps": 100, "n_seeds": 1,
                   "estimators": ["capg", "vpg_mean", "vpg"]},
        "lr_sweep": None,
        "lsr_noise": None,
    },
    "standard": {
        "variance": {"n_items": 200, "ks": [1, 5, 20, 50, 100], "n_samples": 2000, "n_mc": 32, "tau": 0.1},
        "exact": {"n_items": 7, "k": 3, "n_contexts": 32, "aligned_taus": [0.02, 0.1], "anti_tau": 0.02},
        "inclusion": {"n_items": 50, "k": 10, "n_mc": 4000, "top": 5},
        "training": {"n_items": 1000, "n_users": 300, "d": 16, "ks": [10, 100], "steps": 300, "n_seeds": 3,
                     "batch": 32, "lr": 0.05, "tau": 0.01, "n_mc": 16, "eval_every": 10, "eval_users": 60,
                     "eval_sets": 8,
                     "estimators": ["capg", "capg_mean", "vpg_mean", "vpg", "topk_wr", "distill"]},
        "noisy_grid": NOISY_GRID,
        "stability": {"k": 100, "n_seeds": 5, "estimators": ["capg", "vpg_mean", "vpg"]},
        "alignment": {"k": 5, "n_seeds": 3, "steps": 300, "shift": 1.0, "estimators": ["capg", "vpg_mean", "vpg"]},
        "digits": {"n_users": 200, "ks": [10, 100], "steps": 200, "n_seeds": 1,
                   "estimators": ["capg", "vpg_mean", "vpg"]},
        "lr_sweep": {"k": 100, "steps": 150, "lrs": [0.01, 0.03, 0.1, 0.3, 1.0],
                     "estimators": ["capg", "vpg_mean", "vpg"]},
        "lsr_noise": {"k": 100, "steps": 150, "noises": [0.1, 0.3, 1.0], "anti_noises": [0.3],
                      "estimators": ["capg", "vpg_mean", "vpg"]},
    },
    "full": {
        "variance": {"n_items": 2000, "ks": [1, 5, 20, 50, 100, 500], "n_samples": 2000, "n_mc": 32, "tau": 0.1},
        "exact": {"n_items": 8, "k": 3, "n_contexts": 64, "aligned_taus": [0.02, 0.1], "anti_tau": 0.02},
        "inclusion": {"n_items": 50, "k": 10, "n_mc": 20000, "top": 5},
        "training": {"n_items": 20000, "n_users": 2000, "d": 16, "ks": [10, 100, 1000], "steps": 300,
                     "n_seeds": 5, "batch": 256, "lr": 0.05, "tau": 0.01, "n_mc": 32, "eval_every": 10,
                     "eval_users": 200, "eval_sets": 8,
                     "estimators": ["capg", "capg_mean", "vpg_mean", "vpg", "topk_wr", "distill"]},
        "noisy_grid": NOISY_GRID,
        "stability": {"k": 100, "n_seeds": 5, "estimators": ["capg", "vpg_mean", "vpg"]},
        "alignment": {"k": 5, "n_seeds": 5, "steps": 300, "shift": 1.0, "estimators": ["capg", "vpg_mean", "vpg"]},
        "digits": {"n_users": 1000, "ks": [10, 100], "steps": 300, "n_seeds": 3,
                   "estimators": ["capg", "capg_mean", "vpg_mean", "vpg", "topk_wr", "distill"]},
        "lr_sweep": {"k": 100, "steps": 150, "lrs": [0.01, 0.03, 0.1, 0.3, 1.0],
                     "estimators": ["capg", "vpg_mean", "vpg"]},
        "lsr_noise": {"k": 100, "steps": 150, "noises": [0.1, 0.3, 1.0], "anti_noises": [0.3],
                      "estimators": ["capg", "vpg_mean", "vpg"]},
    },
}
"""Scales. quick: seconds (the notebooks); standard: one seed in a few minutes on 2 CPU cores (178 s of CPU
measured with the sweeps, see docs/papers/ca_pg.md); full: sized for one H200, estimated, NOT measured (no GPU was
lent to us). Arithmetic of the full estimate, from the standard per-step cost: a CA-PG step costs O(B M N) for the
Gumbel-MC rho (a batched k-th value over M draws of N logits per row); at standard (B=32, M=16, N=1000: 5.1e5
elements) one step takes 27 ms on one CPU core (8 s per 300-step run). At full one step touches B M N =
256 * 32 * 20000 = 1.6e8 elements; a memory-bound top-k at >= 2e10 elements/s on an H200 gives <= 8 ms per step.
CA-PG-like steps (capg, capg_mean; topk_wr is O(B N)): training 3 K * 2 * 5 seeds * 300 = 9000, alignment 1500,
lr sweep 5 * 150 = 750, LSR sweep 4 * 150 = 600, the headline's noisy grid 2 K * 100 = 200: about 12100
steps * 8 ms = 97 s; the other estimators' steps (about 15000, O(B (N + K)), ~1 ms) 15 s; evaluations (200
users * 8 sets * N every 10 steps) ~10 s; Python overhead ~0.5 ms * 30000 steps = 15 s. Total about 2-3 minutes;
with a 3x margin for the unmeasured GPU throughput, within the 10-minute budget."""

VPG_VARIANTS = ("vpg_mean", "vpg")
PARTS = {  # part: (positive integer keys, positive number keys, other keys)
    "variance": (("n_items", "n_samples", "n_mc"), ("tau",), ("ks",)),
    "exact": (("n_items", "k", "n_contexts"), ("anti_tau",), ("aligned_taus",)),
    "inclusion": (("n_items", "k", "n_mc", "top"), (), ()),
    "training": (("n_items", "n_users", "d", "steps", "n_seeds", "batch", "n_mc", "eval_every", "eval_users",
                  "eval_sets"), ("lr", "tau"), ("ks", "estimators")),
    "stability": (("k", "n_seeds"), (), ("estimators",)),
    "alignment": (("k", "n_seeds", "steps"), (), ("estimators",)),
    "digits": (("n_users", "steps", "n_seeds"), (), ("ks", "estimators")),
    "lr_sweep": (("k", "steps"), (), ("lrs", "estimators")),
    "lsr_noise": (("k", "steps"), (), ("noises", "estimators")),  # optional: anti_noises
    "noisy_grid": (("steps",), ("noise",), ("ks", "estimators")),
}


def _check_part(part: str, cfg, name: str | None = None) -> None:
    """One part of a config (``CONFIGS[scale][part]``): its keys and the kind of each value."""
    name = name or f"config[{part!r}]"
    ints, nums, other = PARTS[part]
    checks.config(name, cfg, required=ints + nums + other, allowed=("shift", "anti_noises"))
    for k in ints:
        checks.positive_int(f"{name}[{k!r}]", cfg[k])
    for k in nums:
        checks.positive_number(f"{name}[{k!r}]", cfg[k])
    for k in ("ks", "aligned_taus", "estimators", "lrs", "noises", "anti_noises"):
        if k in other or k in cfg:
            v = cfg[k]
            if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)) or not v:
                raise ValueError(f"{name}[{k!r}] must be a non-empty list; got {v!r}")
            for x in v:
                if k == "ks":
                    checks.positive_int(f"{name}['ks']", x)
                elif k in ("aligned_taus", "lrs", "noises", "anti_noises"):
                    checks.positive_number(f"{name}[{k!r}]", x)
                else:
                    checks.one_of(f"{name}['estimators']", x, ESTIMATORS)
    if "shift" in cfg:
        checks.finite_number(f"{name}['shift']", cfg["shift"])
    n = cfg.get("n_items")
    if n is not None:
        for k in list(cfg.get("ks", [])) + ([cfg["k"]] if "k" in cfg else []):
            if k > n:
                raise ValueError(f"{name}: K = {k} exceeds n_items = {n}")
    if part == "exact" and cfg["n_items"] > 8:
        raise ValueError(f"{name}['n_items'] must be <= 8 (enumeration); got {cfg['n_items']}")


def _check_args(device, seed) -> torch.device:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    return checks.device("device", device)


def _check_config(config) -> None:
    if not isinstance(config, dict) or "training" not in config:
        raise ValueError("config must be one of CONFIGS' dicts (with 'variance', 'exact', 'inclusion', 'training')")
    checks.config("config", config, required=("variance", "exact", "inclusion", "training"), allowed=PARTS)
    for part in PARTS:
        if config.get(part) is not None:
            _check_part(part, config[part])
    _check_sweeps(config, "config")


def run_variance(cfg: dict, device, seed: int) -> dict:
    """Claim 1: one context, f ~ N(0,1), q = sigmoid(1.5 z - 1), softmax LSR on q (docs/papers/ca_pg.md §2 (a))."""
    _check_part("variance", cfg, "cfg")
    _check_args(device, seed)
    gen = torch.Generator(device=device).manual_seed(seed)
    n = cfg["n_items"]
    f = torch.randn(n, generator=gen, device=device)
    q = torch.sigmoid(1.5 * torch.randn(n, generator=gen, device=device) - 1.0)
    rows = [variance_probe(f, q, q, k, cfg["tau"], cfg["n_samples"], cfg["n_mc"], generator=gen) for k in cfg["ks"]]
    keys = ("tr_var_vpg", "tr_var_vpg_mean", "tr_var_capg", "ratio", "ratio_mean")
    return {"ks": list(cfg["ks"])} | {key: [r[key] for r in rows] for key in keys}


def run_exact(cfg: dict, device, seed: int) -> dict:
    """Claim 2: enumeration checks on C contexts with free logits (docs/papers/ca_pg.md §2 (c), §3.5)."""
    _check_part("exact", cfg, "cfg")
    _check_args(device, seed)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    c, n, k = cfg["n_contexts"], cfg["n_items"], cfg["k"]
    f = torch.randn(c, n, generator=gen, dtype=torch.float64).to(device)
    q = torch.sigmoid(1.5 * torch.randn(c, n, generator=gen, dtype=torch.float64) - 1.0).to(device)
    uni = exact_gradients(f, q, q, k, math.inf)
    aligned = {str(t): exact_gradients(f, q, lsr_scores(q, "aligned"), k, t)["cos"] for t in cfg["aligned_taus"]}
    anti = exact_gradients(f, q, lsr_scores(q, "anti"), k, cfg["anti_tau"])
    return {"identity_err": uni["identity_err"], "uniform_rel_err": uni["rel_err"], "uniform_cos": uni["cos"],
            "aligned_cos": aligned, "min_aligned_cos": min(aligned.values()), "anti_cos": anti["cos"]}


def run_inclusion(cfg: dict, device, seed: int) -> dict:
    """Claim 3: inclusion-probability estimators at N=50, K=10 (docs/papers/ca_pg.md §3.6)."""
    _check_part("inclusion", cfg, "cfg")
    _check_args(device, seed)
    gen = torch.Generator(device=device).manual_seed(seed)
    f = torch.randn(cfg["n_items"], generator=gen, device=device, dtype=torch.float64)
    out = inclusion_errors(f, cfg["k"], n_mc=cfg["n_mc"], top=cfg["top"], generator=gen)
    return {k: v for k, v in out.items() if isinstance(v, float)} | {
        "quad": out["quad"].tolist(), "mc": out["mc"].tolist(), "wr": out["wr"].tolist(), "f": f.tolist()}


def _train_grid(tcfg: dict, ks, estimators, seeds, device, alignment="aligned", steps=None, shift=2.5,
                world_fn=None, noise=0.0) -> dict:
    """Curves[k][estimator] = list over seeds of {"steps", "value", "oracle"}."""
    out: dict = {}
    for world_seed in seeds:
        if world_fn is None:
            world = make_world(tcfg["n_items"], tcfg["n_users"], tcfg["d"], alignment=alignment, device=device,
                               seed=world_seed, shift=shift, noise=noise)
        else:
            world = world_fn(world_seed)
        for k in ks:
            for est in estimators:
                res = train(world, est, k, steps or tcfg["steps"], batch=tcfg["batch"], lr=tcfg["lr"],
                            tau=tcfg["tau"], n_mc=tcfg["n_mc"], eval_every=tcfg["eval_every"],
                            eval_users=tcfg["eval_users"], eval_sets=tcfg["eval_sets"], seed=world_seed)
                out.setdefault(str(k), {}).setdefault(est, []).append(res)
    return out


def _summarise(curves: dict, horizon_80: int) -> dict:
    """Per K and estimator: seed-mean normalised curve, final value, steps to 80%/90% of the oracle."""
    summ: dict = {}
    for k, by_est in curves.items():
        summ[k] = {}
        for est, runs in by_est.items():
            steps = runs[0]["steps"]
            norm = torch.tensor([[v / r["oracle"] for v in r["value"]] for r in runs])
            mean = norm.mean(0).tolist()
            censor = steps[-1] + (steps[1] - steps[0] if len(steps) > 1 else 1)
            summ[k][est] = {
                "steps": steps, "norm_mean": mean,
                "final_norm": [float(x) for x in norm[:, -1]],
                "final_value": [r["value"][-1] for r in runs], "oracle": [r["oracle"] for r in runs],
                "best_norm_within_100": float(max(m for s, m in zip(steps, mean) if s <= 100)),
                "auc_100": float(sum(m for s, m in zip(steps, mean) if s <= 100)
                                 / sum(1 for s in steps if s <= 100)),
                "steps_to_80": steps_to(steps, mean, 0.8, censor=censor),
                "max_drop_after_80": max(max_drop_after(list(n), 0.8) for n in norm.tolist()),
            }
    return summ


def run_training(cfg: dict, device, seed: int) -> dict:
    """Claims 4-6: learning curves of CA-PG and the baselines (equal footing, docs/papers/ca_pg.md §2 (b), §4)."""
    checks.config("cfg", cfg, required=("training",), allowed=PARTS)
    for part in ("training", "noisy_grid", "stability", "alignment", "digits", "lr_sweep", "lsr_noise"):
        if cfg.get(part) is not None:
            _check_part(part, cfg[part], f"cfg[{part!r}]")
    _check_sweeps(cfg, "cfg")
    _check_args(device, seed)
    tcfg = cfg["training"]
    seeds = [seed + i for i in range(tcfg["n_seeds"])]
    curves = _train_grid(tcfg, tcfg["ks"], tcfg["estimators"], seeds, device)
    out = {"training": _summarise(curves, tcfg["steps"])}
    ncfg = cfg.get("noisy_grid")
    if ncfg:
        noisy = _train_grid(tcfg, ncfg["ks"], ncfg["estimators"], [seed], device, alignment="noisy",
                            steps=ncfg["steps"], noise=ncfg["noise"])
        out["noisy_grid"] = _summarise(noisy, ncfg["steps"])
    scfg = cfg.get("stability")
    if scfg:
        extra = [seed + i for i in range(tcfg["n_seeds"], scfg["n_seeds"])]
        more = _train_grid(tcfg, [scfg["k"]], scfg["estimators"], extra, device) if extra else {}
        merged = {str(scfg["k"]): {e: curves[str(scfg["k"])][e] + more.get(str(scfg["k"]), {}).get(e, [])
                                   for e in scfg["estimators"]}}
        out["stability"] = _summarise(merged, tcfg["steps"])
    acfg = cfg.get("alignment")
    if acfg:
        anti = _train_grid(tcfg, [acfg["k"]], acfg["estimators"], [seed + i for i in range(acfg["n_seeds"])],
                           device, alignment="anti", steps=acfg["steps"], shift=acfg.get("shift", 2.5))
        out["alignment"] = _summarise(anti, acfg["steps"])
    dcfg = cfg.get("digits")
    if dcfg:
        from icml26.papers.ca_pg.digits_world import make_digits_world

        digits = _train_grid(tcfg, dcfg["ks"], dcfg["estimators"], [seed + i for i in range(dcfg["n_seeds"])],
                             device, steps=dcfg["steps"],
                             world_fn=lambda s: make_digits_world(dcfg["n_users"], device=device, seed=s))
        out["digits"] = _summarise(digits, dcfg["steps"])
    if cfg.get("lr_sweep"):
        out["lr_sweep"] = _run_lr_sweep(tcfg, cfg["lr_sweep"], curves, seed, device)
    if cfg.get("lsr_noise"):
        out["lsr_noise"] = _run_lsr_noise(tcfg, cfg["lsr_noise"], curves, seed, device)
    return out


def _norm_points(run: dict, horizon: int) -> dict:
    """Value / oracle at step 100 (the fast-convergence horizon) and at the sweep's ``horizon`` (the last evaluation
    at or before each; a longer run of the training grid is read at the same horizon)."""
    norm = [v / run["oracle"] for v in run["value"]]
    at = {h: max(i for i, s in enumerate(run["steps"]) if s <= h) for h in (100, horizon)}
    return {"at_100": norm[at[100]], "final": norm[at[horizon]]}


def _sweep_rows(runs: dict, estimators, horizon: int) -> dict:
    """``{estimator: {"at_100": [...], "final": [...]}}`` from ``{setting: {estimator: run}}`` in setting order."""
    return {e: {key: [_norm_points(by_est[e], horizon)[key] for by_est in runs.values()]
                for key in ("at_100", "final")} for e in estimators}


def _sweep_train(tcfg: dict, scfg: dict, world, est: str, lr: float, seed: int) -> dict:
    """One run of a sweep: the training grid's protocol for ``scfg['steps']`` steps at learning rate ``lr``."""
    return train(world, est, scfg["k"], scfg["steps"], batch=tcfg["batch"], lr=lr, tau=tcfg["tau"], n_mc=tcfg["n_mc"],
                 eval_every=tcfg["eval_every"], eval_users=tcfg["eval_users"], eval_sets=tcfg["eval_sets"], seed=seed)


def _check_sweeps(cfg: dict, name: str) -> None:
    """A sweep reuses the training grid's first-seed runs: its K and estimators must be among the grid's, and it
    must reach step 100 (its claims read that step)."""
    tcfg = cfg["training"]
    for part in ("lr_sweep", "lsr_noise"):
        scfg = cfg.get(part)
        if not scfg:
            continue
        if scfg["steps"] < 100:
            raise ValueError(f"{name}[{part!r}]['steps'] must be >= 100 (the claims read step 100); "
                             f"got {scfg['steps']}")
        if scfg["k"] not in tcfg["ks"]:
            raise ValueError(f"{name}[{part!r}]['k'] = {scfg['k']} must be one of {name}['training']['ks']")
        missing = [e for e in scfg["estimators"] if e not in tcfg["estimators"]]
        if missing:
            raise ValueError(f"{name}[{part!r}]['estimators'] {missing} must be among {name}['training']['estimators']")


def _run_lr_sweep(tcfg: dict, lcfg: dict, curves: dict, seed: int, device) -> dict:
    """Equal footing: every estimator on the same learning-rate grid (plus the shared lr), K = ``lcfg['k']``,
    first world seed; value/oracle at step 100 and at the end of training per lr."""
    k = lcfg["k"]
    world = make_world(tcfg["n_items"], tcfg["n_users"], tcfg["d"], device=device, seed=seed)
    runs = {tcfg["lr"]: {e: curves[str(k)][e][0] for e in lcfg["estimators"]}}
    for lr in lcfg["lrs"]:
        runs[lr] = {e: _sweep_train(tcfg, lcfg, world, e, lr, seed) for e in lcfg["estimators"]}
    runs = dict(sorted(runs.items()))
    return {"k": k, "steps": lcfg["steps"], "lrs": list(runs), "shared_lr": tcfg["lr"]} | _sweep_rows(
        runs, lcfg["estimators"], lcfg["steps"])


def _run_lsr_noise(tcfg: dict, ncfg: dict, curves: dict, seed: int, device) -> dict:
    """LSR alignment sweep, K = ``ncfg['k']``, first world seed: noisy LSR scores g = q + sigma eps for sigma in
    ``noises`` and g = -q + sigma eps for sigma in ``anti_noises`` (``lsr_scores``); the aligned point (sigma = 0) is
    the training grid's run. Settings are returned in decreasing corr(g, q), with that correlation."""
    k = ncfg["k"]
    runs = {("aligned", 0.0): {e: curves[str(k)][e][0] for e in ncfg["estimators"]}}
    corr = {("aligned", 0.0): 1.0}
    settings = [("noisy", s) for s in ncfg["noises"]] + [("anti_noisy", s) for s in ncfg.get("anti_noises", [])]
    for alignment, noise in settings:
        world = make_world(tcfg["n_items"], tcfg["n_users"], tcfg["d"], alignment=alignment, noise=noise,
                           device=device, seed=seed)
        corr[(alignment, noise)] = float(torch.corrcoef(torch.stack([world.q.flatten(), world.g.flatten()]))[0, 1])
        runs[(alignment, noise)] = {e: _sweep_train(tcfg, ncfg, world, e, tcfg["lr"], seed) for e in ncfg["estimators"]}
    order = sorted(runs, key=lambda s: -corr[s])
    return {"k": k, "steps": ncfg["steps"], "settings": [f"{a} {s:g}" for a, s in order],
            "noises": [s for _, s in order], "anti": [a == "anti_noisy" for a, _ in order],
            "corr": [corr[s] for s in order]} | _sweep_rows({s: runs[s] for s in order}, ncfg["estimators"],
                                                            ncfg["steps"])


def run(config: dict, device, seed: int) -> dict:
    """Run every part of the ca_pg reproduction at one scale; see the module docstring."""
    checks.config_like("config", config, CONFIGS.values())
    _check_config(config)
    device = _check_args(device, seed)
    t0 = time.perf_counter()
    with progress.StageBar(["variance", "exact", "inclusion", "training"], desc="ca_pg") as bar:
        results = {}
        for part, fn in (("variance", run_variance), ("exact", run_exact), ("inclusion", run_inclusion)):
            bar.next(part)
            results[part] = fn(config[part], device, seed)
        bar.next("training")
        results |= run_training(config, device, seed)
    results["config"] = {"training_steps": config["training"]["steps"], "ks": config["training"]["ks"]}
    results["seconds"] = time.perf_counter() - t0
    return results
