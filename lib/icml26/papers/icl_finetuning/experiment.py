"""The runs behind the claims (docs/papers/icl_finetuning.md §5): theory-derived and learned error-vs-shots curves.

``run(config, device, seed)`` returns

* ``theory``: curves of the closed-form parameters (pretrained, ZS-all at w=0.52, ZS-V at the pretrained w,
  ZS+FS-V at w*(n_ft)) on the target ``theta0``, the opposite task ``-theta0`` and a random unit task;
* ``learned[init]`` for each pretraining start (``"scratch"``: the paper's N(0, 0.05^2) init, every scale and the
  one the claims read; ``"theory"``: the closed-form optimum plus N(0, 0.01^2) noise, then the same pretraining, at
  full only, for comparison): the pretrained model and every fine-tuning method (``zs_all``, ``zs_v``,
  ``zsfs_all``, ``zsfs_v``, and, with the split Q/K model, ``zs_q``, ``zs_k``, ``zs_kq`` and their ``zsfs_``
  variants), each with curves, scale-calibrated curves, its effective w, its ZS loss trace and the loss's
  :func:`plateau`; all methods share the same data, budget, optimiser and evaluation prompts (common random
  numbers);
* ``angle``: 20-shot error against the angle between the evaluation task and ``theta0`` (docs §3.6, §6);
* ``diabetes`` (when enabled): the same with real diabetes covariates (docs §2);
* ``softmax`` (when enabled): the softmax-transformer LoRA extension (C6).
"""

from __future__ import annotations

import math
import time

import torch

from icml26 import checks, progress

from . import baselines
from .data import PairDataset, diabetes_covariates, rotate_task, sample_tasks
from .method import EvalSet, LinearAttentionICL, TrainConfig, finetune, pretrain, theory_params, w_star
from .softmax_ext import SOFTMAX_KEYS, run_softmax_extension

CONFIGS = {
    "quick": {
        "d": 5, "sigma2": 0.1, "n_pt": 20, "n_ft": 20, "dataset_size": 20000,
        "pretrain_steps": 1000, "pretrain_batch": 500, "ft_steps": 1500, "ft_batch": 400, "lr": 0.01,
        "inits": ["scratch"], "methods": ["zs_all", "zs_v", "zsfs_v"],
        "eval_batch": 20000, "eval_seeds": 1, "shots": [0, 1, 2, 5, 10, 20],
        "angles": [0, 30, 60, 90, 120, 150, 180], "angle_batch": 5000, "diabetes": False, "softmax": None,
    },
    "standard": {
        "d": 5, "sigma2": 0.1, "n_pt": 20, "n_ft": 20, "dataset_size": 100000,
        "pretrain_steps": 2000, "pretrain_batch": 1000, "ft_steps": 5000, "ft_batch": 1000, "lr": 0.01,
        "inits": ["scratch"],
        "methods": ["zs_all", "zs_v", "zsfs_all", "zsfs_v", "zs_q", "zs_k", "zs_kq", "zsfs_q", "zsfs_k", "zsfs_kq"],
        "eval_batch": 50000, "eval_seeds": 3, "shots": [0, 1, 2, 5, 10, 20],
        "angles": [0, 30, 60, 90, 120, 150, 180], "angle_batch": 20000, "diabetes": True,
        "softmax": {"d_model": 64, "n_layers": 2, "n_heads": 4, "pretrain_steps": 1500, "batch": 128,
                    "ft_steps": 300, "lr": 1e-3, "ft_lr": 1e-3, "rank": 8, "eval_batch": 2000},
    },
    "full": {
        "d": 5, "sigma2": 0.1, "n_pt": 20, "n_ft": 20, "dataset_size": 100000,
        "pretrain_steps": 10000, "pretrain_batch": 5000, "ft_steps": 5000, "ft_batch": 5000, "lr": 0.01,
        "inits": ["scratch", "theory"],
        "methods": ["zs_all", "zs_v", "zsfs_all", "zsfs_v", "zs_q", "zs_k", "zs_kq", "zsfs_q", "zsfs_k", "zsfs_kq"],
        "eval_batch": 50000, "eval_seeds": 5, "shots": [0, 1, 2, 5, 10, 20, 40],
        "angles": [0, 30, 60, 90, 120, 150, 180], "angle_batch": 50000, "diabetes": True,
        "softmax": {"d_model": 128, "n_layers": 2, "n_heads": 4, "pretrain_steps": 4000, "batch": 256,
                    "ft_steps": 1000, "lr": 3e-4, "ft_lr": 1e-3, "rank": 8, "eval_batch": 4000},
    },
}
"""``full`` (not run: no GPU was lent to this task). Estimate for one H200 from the cost measured at standard on CPU
(one thread, an earlier unloaded measurement: 166 s for a seed, of which about 150 s are 60,000 training steps at
B = 1000, i.e. 2.5 ms a step; the recorded standard seeds took 233-1,109 s of wall time each, run three at a time
on the shared 2-core machine, as their records' ``seconds`` show).
full takes 4 pretrainings of 10,000 steps (two starts x merged and split models), 2 x 10 methods x 5000
fine-tuning steps and the diabetes run (2000 + 2 x 5000): about 152,000 steps at B = 5000. Each step is a handful of
(5000, 21, 7) tensor ops, far below the GPU's bandwidth, so it is bound by kernel launches: about 30 kernels x
10 us = 0.3-0.5 ms a step, 45-75 s in all. The softmax extension adds 4000 pretraining and 2 x 1000 LoRA steps of a
2-layer d_model = 128 transformer at batch 256 (a few ms a step on an H200: under 30 s). Evaluation (5 seeds x 50,000
prompts x 3 tasks per model) is a few seconds: about 2 minutes a seed in all, within the 10-minute budget."""

TASKS = ("target", "opposite", "random")


def _pretrained_model(cfg: dict, init: str, split: bool, gen: torch.Generator, device, pool=None,
                      d: int | None = None) -> LinearAttentionICL:
    """The pretrained linear-attention model: from the closed-form optimum plus noise, or from scratch."""
    d = cfg["d"] if d is None else d
    par = "split" if split else "merged"
    if init == "theory":
        model = LinearAttentionICL(d, par, init_std=0.01, generator=gen, device=device)
        g = theory_params("pretrained", d, m=cfg["n_pt"], device=device)
        with torch.no_grad():
            model.V.add_(g.V)
            if split:  # W_q^T W_k = gamma I on the x-block
                root = math.sqrt(float(g.Q[1, 1]))
                model.Wq[1:-1, 1:-1].add_(root * torch.eye(d, device=device))
                model.Wk[1:-1, 1:-1].add_(root * torch.eye(d, device=device))
            else:
                model.Q.add_(g.Q)
    elif init == "scratch":
        model = LinearAttentionICL(d, par, init_std=0.05, generator=gen, device=device)
    else:
        raise ValueError(f"init must be 'theory' or 'scratch'; got {init!r}")
    pcfg = TrainConfig(steps=cfg["pretrain_steps"], batch=cfg["pretrain_batch"],
                       n_shots=cfg["n_pt"], lr=cfg["lr"])
    pretrain(model, pcfg, sigma2=cfg["sigma2"], pool=pool, generator=gen)
    return model


SWEPT = ("pretrained", "zs_all", "zs_v", "zsfs_v")
"""The learned models whose 20-shot error is also swept over the task angle."""


def _learned(cfg: dict, init: str, theta0, evalset: EvalSet, gen, device, pool=None, keep=()) -> tuple[dict, dict]:
    """Pretrain once (per parameterisation), then run every method from that same start on the same data.

    Returns the summaries and the trained models named in ``keep`` (for the angle sweep)."""
    d = theta0.shape[0]
    data = PairDataset(theta0, cfg["dataset_size"], sigma2=cfg["sigma2"], pool=pool, generator=gen)
    fcfg = TrainConfig(steps=cfg["ft_steps"], batch=cfg["ft_batch"], n_shots=cfg["n_ft"], lr=cfg["lr"])
    methods = list(cfg["methods"])
    need_split = any(m in baselines.SPLIT_METHODS for m in methods)
    starts = {"merged": _pretrained_model(cfg, init, False, gen, device, pool, d)}
    if need_split:
        starts["split"] = _pretrained_model(cfg, init, True, gen, device, pool, d)
    out, kept = {}, {}
    for par, model in starts.items():
        key = "pretrained" if par == "merged" else "pretrained_split"
        out[key] = _summary(model, evalset, cfg["shots"], None)
        if key in keep:
            kept[key] = model
    for name in methods:
        par = "split" if name in baselines.SPLIT_METHODS else "merged"
        model = baselines.clone(starts[par])
        subset, objective = baselines.METHODS[name]
        losses = finetune(model, data, fcfg, subset=subset, objective=objective, generator=gen)
        out[name] = _summary(model, evalset, cfg["shots"], losses)
        if name in keep:
            kept[name] = model
    return out, kept


def plateau(losses) -> float:
    """Relative change of the mean loss between the last two tenths of training: ``|mean(9th) - mean(10th)| /
    mean(10th)``; near 0 when the loss has stopped moving (needs at least 20 steps)."""
    losses = [checks.finite_number("losses", v) for v in losses]
    if len(losses) < 20:
        raise ValueError(f"losses must hold at least 20 steps; got {len(losses)}")
    k = len(losses) // 10
    last, prev = sum(losses[-k:]) / k, sum(losses[-2 * k:-k]) / k
    return abs(prev - last) / max(abs(last), 1e-12)


def _summary(model, evalset: EvalSet, shots, losses) -> dict:
    res = {"curves": {t: evalset.curve(model, t, shots) for t in evalset.prompts},
           "calibrated": {t: evalset.curve(model, t, shots, calibrated=True) for t in evalset.prompts},
           "w_eff": model.effective_w()}
    if losses is not None:
        stride = max(1, len(losses) // 50)
        res["loss"] = losses[::stride]
        res["plateau"] = plateau(losses) if len(losses) >= 20 else None
    p = model.params_dict()
    res["Q"], res["V_last"] = p["Q"].cpu().tolist(), p["V"][-1].cpu().tolist()
    return res


def _angle_sweep(cfg, theta0, groups: dict[str, dict], gen, device) -> dict:
    """20-shot error against the angle to ``theta0`` for every model of every group, on the same rotated tasks."""
    n = cfg["n_ft"]
    out = {group: {name: [] for name in models} for group, models in groups.items()}
    for deg in cfg["angles"]:
        theta = rotate_task(theta0, math.radians(deg), generator=gen)
        ev = EvalSet({"t": theta}, n, cfg["angle_batch"], 1, sigma2=cfg["sigma2"], seed=777 + deg)
        for group, models in groups.items():
            for name, model in models.items():
                out[group][name].append(ev.curve(model, "t", [n])[0])
    return {"angles": list(cfg["angles"]), "err": out["theory"], "learned": out.get("learned", {})}


def crossover_angle(angles, better, worse) -> float:
    """The angle at which ``better``'s error first exceeds ``worse``'s, linearly interpolated between the two swept
    angles around the sign change (the last angle plus one step if it never does): where the auxiliary FS loss
    stops helping, the abstract's condition for degraded ICL measured as a sweep."""
    if not isinstance(angles, (list, tuple)) or len(angles) < 2 or len(better) != len(angles) \
            or len(worse) != len(angles):
        raise ValueError("angles, better and worse must be lists of the same length >= 2")
    gaps = [checks.finite_number("better", b) - checks.finite_number("worse", w) for b, w in zip(better, worse)]
    for k, gap in enumerate(gaps):
        if gap > 0:
            if k == 0:
                return float(angles[0])
            g0 = gaps[k - 1]
            return float(angles[k - 1] + (angles[k] - angles[k - 1]) * (-g0) / (gap - g0))
    return float(angles[-1] + (angles[-1] - angles[-2]))


def validate_config(config: dict) -> dict:
    """Check that ``config`` has every key of the quick config with sane values; return it."""
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict like CONFIGS['quick']; got {type(config).__name__}")
    missing = set(CONFIGS["quick"]) - set(config)
    if missing:
        raise ValueError(f"config is missing keys {sorted(missing)}")
    unknown = [m for m in config["methods"] if m not in baselines.METHODS]
    if unknown:
        raise ValueError(f"config['methods'] has unknown methods {unknown}; choose from {list(baselines.METHODS)}")
    if not config["inits"] or any(i not in ("theory", "scratch") for i in config["inits"]):
        raise ValueError(f"config['inits'] must list 'theory' and/or 'scratch'; got {config['inits']!r}")
    if config["n_ft"] not in config["shots"] or 0 not in config["shots"] or 5 not in config["shots"]:
        raise ValueError("config['shots'] must contain 0, 5 and n_ft")
    for key in ("d", "n_pt", "n_ft", "dataset_size", "pretrain_batch", "ft_batch", "eval_batch", "eval_seeds",
                "angle_batch"):
        checks.positive_int(f"config[{key!r}]", config[key])
    for key in ("pretrain_steps", "ft_steps"):
        checks.nonnegative_int(f"config[{key!r}]", config[key])
    checks.nonnegative_number("config['sigma2']", config["sigma2"])
    checks.positive_number("config['lr']", config["lr"])
    for n in config["shots"]:
        checks.nonnegative_int("config['shots']", n)
    for a in config["angles"]:
        checks.in_range("config['angles']", a, 0.0, 180.0)
    angles = list(config["angles"])
    if len(angles) < 2 or angles[0] != 0 or angles != sorted(set(angles)):
        raise ValueError(f"config['angles'] must rise from 0 with at least two angles; got {config['angles']!r}")
    if config["diabetes"] and config["eval_batch"] < 5:
        raise ValueError(f"config['eval_batch'] must be >= 5 (the diabetes run uses a fifth); "
                         f"got {config['eval_batch']}")
    if config["softmax"]:
        checks.config("config['softmax']", config["softmax"], required=SOFTMAX_KEYS)
    return config


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the experiment at one scale; see the module docstring for the returned dict."""
    checks.config_like("config", config, CONFIGS.values())
    t0 = time.perf_counter()
    cfg = validate_config(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    checks.device("device", device)
    device = torch.device(device)
    bar = progress.StageBar(["theory models"] + [f"train {init} init" for init in cfg["inits"]] + ["angle sweep"]
                            + (["diabetes"] if cfg["diabetes"] else [])
                            + (["softmax extension"] if cfg["softmax"] else []), desc="icl_finetuning")
    bar.next("theory models")
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    d, s2, shots = cfg["d"], cfg["sigma2"], cfg["shots"]
    theta0 = sample_tasks(1, d, gen, device=device)[0]
    rnd = sample_tasks(1, d, gen, device=device)[0]
    tasks = {"target": theta0, "opposite": -theta0, "random": rnd}
    evalset = EvalSet(tasks, max(shots), cfg["eval_batch"], cfg["eval_seeds"], sigma2=s2, seed=10_000 * (seed + 1))

    wstar = w_star(cfg["n_ft"], d, s2)
    theory_models = {
        "pretrained": theory_params("pretrained", d, m=cfg["n_pt"], device=device),
        "zs_all": theory_params("zs_all", d, m=cfg["n_pt"], theta0=theta0, w=0.52, device=device),
        "zs_v": theory_params("zs_v", d, m=cfg["n_pt"], theta0=theta0, device=device),
        "zsfs_v": theory_params("zs_v", d, m=cfg["n_pt"], theta0=theta0, w=wstar, device=device),
    }
    results = {"config": {k: v for k, v in cfg.items() if k != "softmax"}, "seed": seed, "shots": list(shots),
               "w_star": wstar,
               "theory": {k: _summary(m, evalset, shots, None) for k, m in theory_models.items()},
               "learned": {}}
    swept = {}
    for init in cfg["inits"]:
        bar.next(f"train {init} init")
        keep = SWEPT if init == cfg["inits"][0] else ()
        results["learned"][init], kept = _learned(cfg, init, theta0, evalset, gen, device, keep=keep)
        swept = swept or kept
    bar.next("angle sweep")
    results["angle"] = _angle_sweep(cfg, theta0, {"theory": theory_models, "learned": swept}, gen, device)

    if cfg["diabetes"]:
        bar.next("diabetes")
        pool, th = diabetes_covariates(device=device)
        ev = EvalSet({"target": th, "opposite": -th, "random": sample_tasks(1, th.shape[0], gen, device=device)[0]},
                     max(shots), cfg["eval_batch"] // 5, 1, sigma2=s2, pool=pool, seed=4242 + seed)
        dcfg = dict(cfg, methods=["zs_all", "zs_v"])
        results["diabetes"] = _learned(dcfg, "theory", th, ev, gen, device, pool=pool)[0]

    if cfg["softmax"]:
        bar.next("softmax extension")
        results["softmax"] = run_softmax_extension(cfg["softmax"], d=d, sigma2=s2, n_shots=cfg["n_ft"],
                                                   theta0=theta0, device=device, generator=gen)
    results["seconds"] = time.perf_counter() - t0
    bar.close()
    return results


def err(results: dict, source: str, method: str, task: str, n: int, init: str = "scratch") -> float:
    """Error of ``method`` on ``task`` at ``n`` shots; ``source``: "theory", "learned" (with ``init``), "diabetes"."""
    checks.config("results", results, required=("theory", "learned", "shots"))
    if source == "learned" and init not in results["learned"]:
        raise ValueError(f"init must be one of {list(results['learned'])}; got {init!r}")
    if source == "diabetes" and "diabetes" not in results:
        raise ValueError("source 'diabetes' needs a run with config['diabetes'] on")
    if n not in results["shots"]:
        raise ValueError(f"n must be one of the run's shots {results['shots']}; got {n!r}")
    if source == "theory":
        block = results["theory"]
    elif source == "learned":
        block = results["learned"][init]
    elif source == "diabetes":
        block = results["diabetes"]
    else:
        raise ValueError(f"source must be 'theory', 'learned' or 'diabetes'; got {source!r}")
    if method not in block:
        raise ValueError(f"method must be one of {list(block)}; got {method!r}")
    if task not in block[method]["curves"]:
        raise ValueError(f"task must be one of {list(block[method]['curves'])}; got {task!r}")
    return block[method]["curves"][task][results["shots"].index(n)]
