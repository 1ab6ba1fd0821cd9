"""The reproduction experiment of APO (docs/papers/apo_alignment.md §5) on the drifting-teachers toy.

``run(config, device, seed)`` returns, per seed (``runs``) and averaged over seeds (``summary``):
the N sources' and the consensus operator's test scores (claim 1), the stage-1 naive multi-source SFT
student (claim 2), every stage-2 objective of ``config["objectives"]`` started from the same stage-1
model with the same steps, batch and clipping and (lr, beta) chosen for each by the same validation-split
grid rule (claims 3, 4; the planned setting is reported as ``apo_note``), and optionally a drift sweep (claim 5).
Rewards are summed (not length-normalised) sequence log-ratios unless ``length_norm`` is set.
"""

from __future__ import annotations

import copy
import time

import torch

from icml26 import checks, progress
from icml26.papers.apo_alignment.baselines import OBJECTIVES
from icml26.papers.apo_alignment.drifting_teachers import PRESETS, make_world
from icml26.papers.apo_alignment.method import Vocab, consensus
from icml26.papers.apo_alignment.training import (
    build_data,
    evaluate,
    make_model,
    preference,
    reference_logprobs,
    score_decisions,
    sft,
)

# Equal-effort stage-2 tuning (the project's rule). Every objective gets the SAME grid ``_GRID`` and the same rule:
# the (lr, beta) with the best greedy-decoded accuracy on a labelled VALIDATION split (ties: first grid point);
# SFT objectives ignore beta, so they get the grid's lrs. At standard the full grid does not fit the CPU budget
# inside every run, so it was run ONCE, at the standard size, on a separate selection seed (99; the reported runs use
# seeds 0/1000/2000 and 7 for the sweep) by ``select_hparams({**CONFIGS["standard"], "hparams": None}, "cpu", 99)``
# (193 s CPU); its validation table is kept below and the chosen values are fixed in ``CONFIGS["standard"]``.
# No test labels are read. ``full`` tunes inside the run (first seed's validation split). quick has no grid.
SELECTIONS = {
    "standard": {
        "apo": {"lr2": 0.0001, "beta": 0.5, "val_grid": [
            [1e-05, 0.1, 0.8378], [1e-05, 0.5, 0.8667], [3e-05, 0.1, 0.7500],
            [3e-05, 0.5, 0.8578], [0.0001, 0.1, 0.7067], [0.0001, 0.5, 0.8889],
        ]},
        "pairwise": {"lr2": 1e-05, "beta": 0.5, "val_grid": [
            [1e-05, 0.1, 0.8378], [1e-05, 0.5, 0.8667], [3e-05, 0.1, 0.7867],
            [3e-05, 0.5, 0.8533], [0.0001, 0.1, 0.6311], [0.0001, 0.5, 0.7678],
        ]},
        "dpo_random": {"lr2": 3e-05, "beta": 0.5, "val_grid": [
            [1e-05, 0.1, 0.8733], [1e-05, 0.5, 0.8733], [3e-05, 0.1, 0.7544],
            [3e-05, 0.5, 0.8944], [0.0001, 0.1, 0.7600], [0.0001, 0.5, 0.8889],
        ]},
        "dpo_divergent": {"lr2": 1e-05, "beta": 0.5, "val_grid": [
            [1e-05, 0.1, 0.8033], [1e-05, 0.5, 0.8544], [3e-05, 0.1, 0.7078],
            [3e-05, 0.5, 0.7889], [0.0001, 0.1, 0.4022], [0.0001, 0.5, 0.8256],
        ]},
        "sft_consensus": {"lr2": 3e-05, "beta": 0.1, "val_grid": [
            [1e-05, 0.1, 0.8911], [3e-05, 0.1, 0.8944], [0.0001, 0.1, 0.8944],
        ]},
        "sft_best": {"lr2": 1e-05, "beta": 0.1, "val_grid": [
            [1e-05, 0.1, 0.8944], [3e-05, 0.1, 0.8944], [0.0001, 0.1, 0.8944],
        ]},
    },
}


def chosen(selection: dict) -> dict:
    """``{objective: [lr, beta]}`` from a selection table (the values its validation grid picked)."""
    checks.config("selection", selection)
    for obj, s in selection.items():
        checks.config(f"selection[{obj!r}]", s, required=("lr2", "beta"))
    return {obj: [s["lr2"], s["beta"]] for obj, s in selection.items()}


_GRID = {"lr2": [1e-5, 3e-5, 1e-4], "beta": [0.1, 0.5]}
_BASE = {"n_findings": 4, "n_teachers": 5, "drift": 0.2, "p_miss": 0.1, "p_spur": 0.1, "correlation": 0.0,
         "preset": "complementary", "d_model": 64, "n_layers": 2, "n_heads": 4,
         "lr1": 3e-3, "batch1": 64, "batch2": 32, "length_norm": False, "clip": 1.0,
         "note_lr2": 1e-4, "note_beta": 0.1, "grid": _GRID, "hparams": None, "report_note_setting": True,
         "greedy": True, "voice": "source", "n_val": 150, "n_seeds": 1, "drift_sweep": None, "sweep_seeds": 1,
         "sweep_steps1": None}

CONFIGS = {
    # quick runs APO at the planned stage-2 setting only (no grid: it would not fit the notebook budget)
    "quick": {**_BASE, "n_train": 400, "n_val": 50, "n_test": 150, "steps1": 250, "steps2": 60, "d_model": 32,
              "objectives": ["apo"], "hparams": {"apo": [1e-4, 0.1]}, "report_note_setting": False},
    "standard": {**_BASE, "n_findings": 6, "n_train": 1000, "n_test": 300, "steps1": 250, "steps2": 40,
                 "batch2": 16, "n_seeds": 3, "sweep_seeds": 1, "sweep_steps1": None,
                 "objectives": ["apo", "pairwise", "dpo_random", "dpo_divergent", "sft_consensus", "sft_best"],
                 "hparams": chosen(SELECTIONS["standard"]), "drift_sweep": [0.0, 0.1, 0.2, 0.3]},
    "full": {**_BASE, "n_findings": 6, "n_train": 100_000, "n_val": 2000, "n_test": 5000, "steps1": 6000,
             "steps2": 1500, "d_model": 256, "n_layers": 4, "batch1": 256, "batch2": 128, "n_seeds": 5,
             "sweep_seeds": 5, "sweep_steps1": 6000,
             "objectives": ["apo", "pairwise", "dpo_random", "dpo_divergent", "sft_consensus", "sft_best"],
             "drift_sweep": [0.0, 0.1, 0.2, 0.3]},
}

REQUIRED = tuple(CONFIGS["quick"])


def _check_config(config: dict) -> dict:
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict like CONFIGS['quick']; got {type(config).__name__}")
    missing = [k for k in REQUIRED if k not in config]
    if missing:
        raise ValueError(f"config is missing keys {missing}")
    for key in ("n_train", "n_val", "n_test", "steps1", "steps2", "n_seeds"):
        if isinstance(config[key], bool) or not isinstance(config[key], int) or config[key] < 1:
            raise ValueError(f"config[{key!r}] must be a positive integer; got {config[key]!r}")
    for key in ("n_findings", "n_teachers", "d_model", "n_layers", "n_heads", "batch1", "batch2", "sweep_seeds"):
        checks.positive_int(f"config[{key!r}]", config[key])
    if config["d_model"] % config["n_heads"]:
        raise ValueError(f"config['n_heads'] must divide config['d_model']; got {config['n_heads']} and "
                         f"{config['d_model']}")
    for key in ("drift", "p_miss", "p_spur", "correlation"):
        checks.probability(f"config[{key!r}]", config[key])
    for key in ("lr1", "note_lr2", "note_beta"):
        checks.positive_number(f"config[{key!r}]", config[key])
    if config["clip"] is not None:
        checks.positive_number("config['clip']", config["clip"])
    if config["sweep_steps1"] is not None:
        checks.positive_int("config['sweep_steps1']", config["sweep_steps1"])
    checks.one_of("config['preset']", config["preset"], PRESETS)
    checks.one_of("config['voice']", config["voice"], ("source", "target"))
    _check_objectives("config['objectives']", config["objectives"])
    grid = checks.config("config['grid']", config["grid"], required=("lr2", "beta"))
    for key in ("lr2", "beta"):
        _check_positive_list(f"config['grid'][{key!r}]", grid[key])
    if config["hparams"] is not None:
        _check_hparams("config['hparams']", config["hparams"])
    if config["drift_sweep"]:
        for d in config["drift_sweep"]:
            checks.probability("config['drift_sweep'] entries", d)
    return config


def _check_positive_list(name: str, values) -> None:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) == 0:
        raise ValueError(f"{name} must be a non-empty list of positive numbers; got {values!r}")
    for v in values:
        checks.positive_number(f"{name} entries", v)


def _check_objectives(name: str, objectives) -> list:
    if isinstance(objectives, (str, bytes)) or not hasattr(objectives, "__iter__"):
        raise ValueError(f"{name} must be a list of objective names from {OBJECTIVES}; got {objectives!r}")
    objectives = list(objectives)
    for obj in objectives:
        checks.one_of(f"{name} entries", obj, OBJECTIVES)
    return objectives


def _check_hparams(name: str, hparams) -> None:
    checks.config(name, hparams)
    for obj, pair in hparams.items():
        checks.one_of(f"{name} keys", obj, OBJECTIVES)
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"{name}[{obj!r}] must be a pair (lr, beta); got {pair!r}")
        checks.positive_number(f"{name}[{obj!r}] lr", pair[0])
        checks.positive_number(f"{name}[{obj!r}] beta", pair[1])


SFT_OBJECTIVES = ("sft_consensus", "sft_best")


def grid_points(config: dict, objective: str) -> list[tuple[float, float]]:
    """The stage-2 ``(lr, beta)`` candidates of ``objective``: the same grid for every objective.

    The SFT objectives do not use beta, so they get the grid's lrs once (with the first beta, unused).
    """
    checks.one_of("objective", objective, OBJECTIVES)
    checks.config("config", config, required=("grid",))
    grid = checks.config("config['grid']", config["grid"], required=("lr2", "beta"))
    betas = grid["beta"][:1] if objective in SFT_OBJECTIVES else grid["beta"]
    return [(float(lr), float(b)) for lr in grid["lr2"] for b in betas]


def pipeline(config: dict, device, seed: int, drift: float | None = None, objectives=None,
             hparams: dict | None = None) -> dict:
    """One seed: sample a world, score sources and consensus, train stage 1, run each stage-2 objective.

    Cases are split train / validation / test. ``hparams`` maps an objective to its stage-2 ``(lr, beta)``;
    an objective without an entry is tuned here on ``config["grid"]`` by greedy-decoded accuracy on the
    VALIDATION split (test labels are never read for selection; ties go to the first grid point). The planned
    setting (``note_lr2``, ``note_beta``) is always run for APO too and reported as ``apo_note``.
    """
    cfg = _check_config(config)
    device = checks.device("device", device)
    checks.seed("seed", seed)
    if drift is not None:
        checks.probability("drift", drift)
    if objectives is not None:
        _check_objectives("objectives", objectives)
    if hparams is not None:
        _check_hparams("hparams", hparams)
    gen = torch.Generator(device=device).manual_seed(int(seed))
    torch.manual_seed(int(seed))
    n_tr, n_val, n_te = cfg["n_train"], cfg["n_val"], cfg["n_test"]
    n_all = n_tr + n_val + n_te
    world = make_world(n_all, cfg["n_findings"], cfg["n_teachers"], cfg["drift"] if drift is None else drift,
                       cfg["p_miss"], cfg["p_spur"], cfg["correlation"], cfg["preset"], generator=gen)
    train = world.subset(torch.arange(n_tr, device=device))
    val = world.subset(torch.arange(n_tr, n_tr + n_val, device=device))
    test = world.subset(torch.arange(n_tr + n_val, n_all, device=device))
    vocab = Vocab(cfg["n_findings"], cfg["n_teachers"])
    out = {"teachers": [score_decisions(test.decisions[:, u], test.findings) for u in range(cfg["n_teachers"])],
           "consensus": score_decisions(consensus(test.decisions), test.findings)}
    data = build_data(train, vocab, cfg["voice"])
    model = make_model(vocab, cfg["d_model"], cfg["n_layers"], cfg["n_heads"], device)
    out["stage1_loss"] = sft(model, data["src"].reshape(-1, data["src"].shape[-1]), vocab.prompt_len,
                             cfg["steps1"], cfg["lr1"], cfg["batch1"], gen)[-1]
    out["stage1"] = evaluate(model, test, vocab, cfg["greedy"], gen)
    ref_lp = reference_logprobs(model, data, vocab.prompt_len)
    out["methods"], out["curves"], out["selection"] = {}, {}, {}
    hparams = {} if hparams is None else hparams
    note = (float(cfg["note_lr2"]), float(cfg["note_beta"]))

    def train2(obj, lr, beta):
        policy = copy.deepcopy(model)
        curves = preference(policy, data, vocab.prompt_len, obj, cfg["steps2"], lr, cfg["batch2"], beta,
                            cfg["length_norm"], gen, ref_lp=ref_lp, clip=cfg["clip"])
        return policy, {"loss": curves["loss"][::5], "w_pos": curves["w_pos"][::5]}

    objs = list(cfg["objectives"] if objectives is None else objectives)
    for obj in objs:
        if obj in hparams:
            lr, beta = hparams[obj]
            policy, curves = train2(obj, float(lr), float(beta))
            table = None
        else:
            best, table = None, []
            for lr, beta in grid_points(cfg, obj):
                policy, curves = train2(obj, lr, beta)
                acc = evaluate(policy, val, vocab, cfg["greedy"], gen)["accuracy"]
                table.append([lr, beta, acc])
                if best is None or acc > best[0]:
                    best = (acc, lr, beta, policy, curves)
                if obj == "apo" and (lr, beta) == note:
                    out["methods"]["apo_note"] = evaluate(policy, test, vocab, cfg["greedy"], gen)
            _, lr, beta, policy, curves = best
        out["selection"][obj] = {"lr2": float(lr), "beta": float(beta), "val_grid": table}
        out["methods"][obj] = evaluate(policy, test, vocab, cfg["greedy"], gen)
        out["curves"][obj] = curves
    if "apo" in objs and "apo_note" not in out["methods"] and cfg["report_note_setting"]:
        policy, curves = train2("apo", *note)
        out["methods"]["apo_note"] = evaluate(policy, test, vocab, cfg["greedy"], gen)
    return out


def select_hparams(config: dict, device, seed: int = 0) -> dict:
    """Run the validation grid of every objective once (one seed) and return ``{objective: (lr, beta)}``.

    Used to choose the standard-scale values at a reduced size (see ``CONFIGS``); reads no test labels.
    """
    cfg = {**_check_config(config), "report_note_setting": False}
    out = pipeline(cfg, device, seed, hparams={})
    return {obj: (sel["lr2"], sel["beta"]) for obj, sel in out["selection"].items()}, out["selection"]


def _summary(runs: list[dict]) -> dict:
    def mean(xs):
        return float(sum(xs) / len(xs))

    s = {
        "best_teacher_acc": mean([max(t["accuracy"] for t in r["teachers"]) for r in runs]),
        "mean_teacher_acc": mean([mean([t["accuracy"] for t in r["teachers"]]) for r in runs]),
        "mean_teacher_hall": mean([mean([t["hallucination"] for t in r["teachers"]]) for r in runs]),
        "consensus_acc": mean([r["consensus"]["accuracy"] for r in runs]),
        "stage1_acc": mean([r["stage1"]["accuracy"] for r in runs]),
        "stage1_hall": mean([r["stage1"]["hallucination"] for r in runs]),
        "methods": {obj: {key: mean([r["methods"][obj][key] for r in runs])
                          for key in ("accuracy", "hallucination", "omission", "well_formed")}
                    for obj in runs[0]["methods"]},
    }
    return s


def run(config: dict, device, seed: int) -> dict:
    """The experiment at one scale: ``n_seeds`` seeds (``seed``, ``seed+1000``, ...) and the drift sweep."""
    t0 = time.perf_counter()
    cfg = _check_config(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    checks.device("device", device)
    bar = progress.StageBar([f"seed {seed + 1000 * i}" for i in range(cfg["n_seeds"])]
                            + [f"drift sweep {d:g}" for d in cfg["drift_sweep"] or []], desc="apo_alignment")
    hp = None if cfg["hparams"] is None else {k: tuple(v) for k, v in cfg["hparams"].items()}
    runs = []
    for i in range(cfg["n_seeds"]):
        bar.next(f"seed {seed + 1000 * i}")
        runs.append(pipeline(cfg, device, seed + 1000 * i, hparams=hp))
        if hp is None:  # tuned on the first seed's validation split, then fixed for the other seeds
            hp = {obj: (sel["lr2"], sel["beta"]) for obj, sel in runs[0]["selection"].items()}
    results = {"config": {k: v for k, v in cfg.items()}, "runs": runs, "summary": _summary(runs),
               "hparams": {k: list(v) for k, v in hp.items()}}
    if cfg["drift_sweep"]:
        sweep = {"drift": list(cfg["drift_sweep"]), "stage1": [], "apo": [], "gap": [], "best_teacher": [],
                 "consensus": []}
        for d in cfg["drift_sweep"]:
            bar.next(f"drift sweep {d:g}")
            sw_cfg = {**cfg, "steps1": cfg["sweep_steps1"] or cfg["steps1"], "report_note_setting": False}
            rs = [pipeline(sw_cfg, device, seed + 1000 * i + 7, drift=d, objectives=["apo"], hparams=hp)
                  for i in range(cfg["sweep_seeds"])]
            sm = _summary(rs)
            sweep["stage1"].append(sm["stage1_acc"])
            sweep["apo"].append(sm["methods"]["apo"]["accuracy"])
            sweep["gap"].append(sm["methods"]["apo"]["accuracy"] - sm["stage1_acc"])
            sweep["best_teacher"].append(sm["best_teacher_acc"])
            sweep["consensus"].append(sm["consensus_acc"])
        results["drift_sweep"] = sweep
    results["seconds"] = time.perf_counter() - t0
    bar.close()
    return results
