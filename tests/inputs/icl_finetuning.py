"""Bad-input probes of fine-tuning without forgetting in-context learning (icml26.papers.icl_finetuning)."""

import math

import torch
from harness import Probe

from icml26.papers.icl_finetuning import baselines, data, experiment, explore, method, softmax_ext

D = 3
ZERO_OK = "0 is valid here (no demonstration, no step); a negative value is probed by extra"


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def _theta():
    return data.sample_tasks(1, D, _g())[0]


def _pool():
    return torch.randn(10, D, generator=_g(1))


def _model(par="merged"):
    return method.LinearAttentionICL(D, par, generator=_g(2))


def _prompts():
    return data.sample_prompts(_theta(), 3, 4, generator=_g(3))


def _cfg():
    return method.TrainConfig(steps=1, batch=4, n_shots=2)


def _softmax():
    torch.manual_seed(0)
    return softmax_ext.SoftmaxICL(D, d_model=8, n_layers=1, n_heads=2)


SOFTMAX_CFG = {"d_model": 8, "n_layers": 1, "n_heads": 2, "pretrain_steps": 1, "batch": 4, "ft_steps": 1, "lr": 1e-3,
               "ft_lr": 1e-3, "rank": 2, "eval_batch": 4}


def _run_cfg():
    return dict(experiment.CONFIGS["quick"], d=D, n_pt=5, n_ft=5, dataset_size=8, pretrain_steps=1, pretrain_batch=4,
                ft_steps=1, ft_batch=4, inits=["theory"], methods=["zs_v"], eval_batch=8, shots=[0, 5], angles=[0, 90],
                angle_batch=4)


def _results():
    curve = {"curves": {"target": [1.0, 0.5]}}
    return {"theory": {"zs_v": curve}, "learned": {"theory": {"zs_v": curve}}, "shots": [2, 5]}


class _Adapter:
    def __init__(self):
        self.w = torch.nn.Parameter(torch.ones(2))

    def trainable_subset(self, name):
        return [self.w]

    def zero_shot_loss(self, batch):
        return (self.w * batch).sum() ** 2

    def few_shot_loss(self, batch):
        return (self.w * batch).sum().abs()


PROBES = [
    # ---- data
    Probe(data.sample_tasks, valid=lambda: {"n": 2, "d": D, "device": "cpu"},
          extra=[("generator", 3, "not a generator")]),
    Probe(data.rotate_task, valid=lambda: {"theta0": _theta(), "angle": 0.5, "generator": _g()},
          extra=[("theta0", torch.zeros(D), "zero vector"), ("theta0", torch.ones(1), "one dimension"),
                 ("angle", "pi", "text angle")]),
    Probe(data.sample_covariates, valid=lambda: {"batch": 2, "length": 3, "d": D, "x_std": 1.0, "pool": _pool(),
                                                 "device": "cpu"},
          extra=[("pool", torch.zeros(10, D + 1), "pool of the wrong width"), ("x_std", 0.0, "zero x_std")]),
    Probe(data.build_prompts, valid=lambda: {"x": torch.randn(2, 3, D, generator=_g()), "y": torch.zeros(2, 3)},
          extra=[("y", torch.zeros(2, 4), "one label too many"), ("x", torch.zeros(2, 3), "two dimensions"),
                 ("x", [[0.0]], "a list")]),
    Probe(data.sample_prompts, valid=lambda: {"theta": _theta(), "n_shots": 2, "batch": 4, "sigma2": 0.1,
                                              "x_std": 1.0, "pool": _pool()},
          skip={"n_shots": ZERO_OK},
          extra=[("n_shots", -1, "negative"), ("sigma2", -0.1, "negative noise"),
                 ("theta", torch.zeros(3, D), "one task per prompt, too few"),
                 ("pool", torch.full((10, D), math.nan), "NaN pool")]),
    Probe(data.truncate_shots, valid=lambda: {"z": _prompts()[0], "n_shots": 1},
          skip={"n_shots": ZERO_OK, "z": "a selection of tokens: it computes nothing from their values, so a NaN "
                                          "passes through as given (scanning would cost more than the selection)"},
          extra=[("n_shots", -1, "negative"), ("n_shots", 4, "more demonstrations than z holds"),
                 ("z", torch.zeros(4, 5), "two dimensions"), ("z", torch.zeros(0, 4, 5), "empty")]),
    Probe(data.PairDataset, valid=lambda: {"theta0": _theta(), "size": 8, "sigma2": 0.1, "x_std": 1.0,
                                           "pool": _pool()},
          extra=[("theta0", torch.zeros(2, D), "two dimensions")]),
    Probe(data.diabetes_covariates, valid=lambda: {"device": "cpu"}),
    # ---- method
    Probe(method.LinearAttentionICL, valid=lambda: {"d": D, "parameterisation": "split", "init_std": 0.05,
                                                    "device": "cpu"},
          extra=[("parameterisation", "tied", "unknown"), ("init_std", -1.0, "negative std"),
                 ("generator", 3, "not a generator")]),
    Probe(method.set_trainable, valid=lambda: {"model": _model(), "subset": "v"},
          extra=[("subset", "o", "unknown subset"), ("model", torch.nn.Linear(2, 2), "another module")]),
    Probe(method.gamma_pretrained, valid=lambda: {"d": 5, "m": 20}),
    Probe(method.gamma_exact, valid=lambda: {"d": 5, "n": 20, "sigma2": 0.1},
          extra=[("sigma2", -0.1, "negative noise")]),
    Probe(method.w_star, valid=lambda: {"n": 20, "d": 5, "sigma2": 0.1},
          skip={"n": "n = 0 demonstrations is valid (and n = inf gives the limit); bad n are probed by extra"},
          extra=[("n", -1, "negative"), ("n", math.nan, "NaN"), ("n", "20", "text")]),
    Probe(method.zs_v_floor, valid=lambda: {"d": 5, "sigma2": 0.1}),
    Probe(method.theory_params, valid=lambda: {"kind": "zs_v", "d": D, "m": 20, "theta0": _theta(), "w": 0.5,
                                               "device": "cpu"},
          extra=[("kind", "zs_q", "unknown kind"), ("theta0", torch.ones(D + 1), "theta0 of the wrong size"),
                 ("gamma", 0.0, "zero gamma"), ("w", 0.0, "zero w")]),
    Probe(method.TrainConfig, valid=lambda: {"steps": 2, "batch": 4, "n_shots": 3, "lr": 0.01, "momentum": 0.9,
                                             "clip": 1.0},
          skip={"steps": ZERO_OK, "n_shots": ZERO_OK},
          extra=[("steps", -1, "negative"), ("n_shots", -1, "negative"), ("momentum", 1.0, "momentum 1"),
                 ("lr", 0.0, "zero lr")]),
    Probe(method.HeavyBallSGD, valid=lambda: {"params": [torch.zeros(2, requires_grad=True)], "lr": 0.01,
                                              "momentum": 0.9, "clip": 1.0},
          extra=[("params", [], "no parameter"), ("params", ["w"], "not a tensor"), ("momentum", 1.0, "momentum 1"),
                 ("lr", -1.0, "negative lr"), ("clip", 0.0, "zero clip")]),
    Probe(method.pretrain, valid=lambda: {"model": _model(), "cfg": _cfg(), "sigma2": 0.1, "x_std": 1.0,
                                          "pool": _pool(), "generator": _g()},
          extra=[("cfg", {"steps": 1}, "a dict"), ("model", _softmax(), "another model"),
                 ("pool", torch.full((10, D), math.inf), "infinite pool"), ("sigma2", -1.0, "negative noise")]),
    Probe(method.finetune_loss, valid=lambda: {"model": _model(), "z": _prompts()[0], "y": _prompts()[1],
                                               "fs_weight": 0.5},
          extra=[("fs_weight", -1.0, "negative weight"), ("y", torch.zeros(3), "one label too few"),
                 ("z", torch.zeros(4, 3, D + 1), "z of the wrong width"), ("model", _softmax(), "another model")]),
    Probe(method.fs_schedule, valid=lambda: {"step": 0, "steps": 3}, extra=[("step", 3, "step past the end")]),
    Probe(method.finetune, valid=lambda: {"model": _model(), "data": data.PairDataset(_theta(), 8, generator=_g()),
                                          "cfg": _cfg(), "subset": "v", "objective": "zs+fs", "generator": _g()},
          extra=[("objective", "fs", "unknown objective"), ("subset", "o", "unknown subset"),
                 ("data", [1, 2], "not a PairDataset"), ("model", None, "no model"),
                 ("data", data.PairDataset(torch.ones(D + 1) / 2, 8), "data of another dimension")]),
    Probe(method.EvalSet, valid=lambda: {"tasks": {"t": _theta()}, "max_shots": 3, "batch": 4, "seeds": 1,
                                         "sigma2": 0.1, "x_std": 1.0, "pool": _pool(), "seed": 12345},
          skip={"max_shots": ZERO_OK, "seed": "seed 0 is valid; a negative seed is probed by extra"},
          extra=[("max_shots", -1, "negative"), ("seed", -1, "negative seed"), ("tasks", {}, "no task"),
                 ("tasks", {"t": torch.full((D,), math.nan)}, "NaN task"), ("tasks", {"t": torch.ones(2, D)},
                                                                             "a task matrix")]),
    # ---- baselines
    Probe(baselines.clone, valid=lambda: {"model": _model()}, extra=[("model", "model", "not a model")]),
    Probe(baselines.finetune_adapter, valid=lambda: {"adapter": _Adapter(), "batches": [torch.ones(2)],
                                                     "subset": "v", "aux_fs": True, "lr": 1e-3, "clip": 1.0},
          extra=[("subset", "o", "unknown subset"), ("batches", [], "no batch"), ("adapter", object(), "no methods"),
                 ("aux_fs", 1, "not a bool")]),
    # ---- experiment
    Probe(experiment.validate_config, valid=lambda: {"config": _run_cfg()},
          extra=[("config", {"d": 5}, "incomplete config"), ("config", {**_run_cfg(), "methods": ["lora"]},
                                                             "unknown method"),
                 ("config", {**_run_cfg(), "shots": [5]}, "no zero-shot point"),
                 ("config", {**_run_cfg(), "d": 0}, "zero dimension"),
                 ("config", {**_run_cfg(), "sigma2": math.nan}, "NaN noise"),
                 ("config", {**_run_cfg(), "angles": [270]}, "angle past 180"),
                 ("config", {**_run_cfg(), "softmax": {"d_model": 8}}, "incomplete softmax config"),
                 ("config", [1], "a list")]),
    Probe(experiment.run, valid=lambda: {"config": _run_cfg(), "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid; a negative seed is probed by extra"},
          extra=[("seed", -1, "negative seed"), ("config", {**_run_cfg(), "lr": -1.0}, "negative lr"),
                 ("config", {**_run_cfg(), "inits": ["random"]}, "unknown init")]),
    Probe(experiment.plateau, valid=lambda: {"losses": [1.0] * 20},
          extra=[("losses", [1.0] * 5, "fewer than 20 steps"), ("losses", [math.nan] * 20, "NaN losses")]),
    Probe(experiment.crossover_angle, valid=lambda: {"angles": [0, 90], "better": [1.0, 3.0], "worse": [2.0, 2.0]},
          extra=[("better", [1.0], "a shorter list"), ("angles", [0], "one angle"),
                 ("worse", [math.nan, 2.0], "NaN error")]),
    Probe(experiment.err, valid=lambda: {"results": _results(), "source": "learned", "method": "zs_v",
                                         "task": "target", "n": 5, "init": "theory"},
          extra=[("source", "lab", "unknown source"), ("method", "zs_all", "a method not run"),
                 ("task", "opposite", "a task not evaluated"), ("init", "scratch", "an init not run"),
                 ("results", {}, "empty results")]),
    # ---- explore
    Probe(explore.plot_w_family, valid=lambda: {"family": "zs_v", "w": 0.5, "d": D, "sigma2": 0.1, "n_max": 3,
                                                "batch": 20},
          skip={"n_max": ZERO_OK}, extra=[("n_max", -1, "negative"), ("family", "zs_q", "unknown family"),
                                          ("w", -1.0, "negative w")]),
    Probe(explore.plot_angle, valid=lambda: {"method": "zsfs_v", "angle": 90.0, "d": D, "sigma2": 0.1, "n": 3,
                                             "batch": 20},
          skip={"n": ZERO_OK}, extra=[("n", -1, "negative"), ("method", "zs_q", "unknown method"),
                                      ("angle", 270.0, "angle past 180")]),
    Probe(explore.plot_theory_scalars, valid=lambda: {"d": D, "sigma2": 0.1, "n_pt": 20},
          extra=[("sigma2", -0.1, "negative noise")]),
    # ---- softmax extension
    Probe(softmax_ext.SoftmaxICL, valid=lambda: {"d": D, "d_model": 8, "n_layers": 1, "n_heads": 2},
          extra=[("n_heads", 3, "heads not dividing d_model")]),
    Probe(softmax_ext.pretrain_softmax, valid=lambda: {"model": _softmax(), "steps": 1, "batch": 4, "n_shots": 2,
                                                       "lr": 1e-3, "sigma2": 0.1, "generator": _g()},
          skip={"steps": ZERO_OK, "n_shots": ZERO_OK},
          extra=[("steps", -1, "negative"), ("n_shots", -1, "negative"), ("model", _model(), "another model"),
                 ("lr", 0.0, "zero lr")]),
    Probe(softmax_ext.lora_finetune, valid=lambda: {"model": _softmax(), "theta0": _theta(), "subset": "v", "steps": 1,
                                                    "batch": 4, "lr": 1e-3, "rank": 2, "sigma2": 0.1},
          skip={"steps": ZERO_OK},
          extra=[("steps", -1, "negative"), ("subset", "o", "unknown subset"),
                 ("theta0", torch.ones(D + 1), "theta0 of the wrong size"), ("model", None, "no model")]),
    Probe(softmax_ext.unseen_error, valid=lambda: {"model": _softmax(), "n_shots": 2, "batch": 4, "d": D,
                                                   "sigma2": 0.1, "seed": 99, "device": "cpu"},
          skip={"n_shots": ZERO_OK, "seed": "seed 0 is valid; a negative seed is probed by extra"},
          extra=[("n_shots", -1, "negative"), ("seed", -1, "negative seed"), ("d", D + 1, "d of another model"),
                 ("model", "model", "not a module")]),
    Probe(softmax_ext.run_softmax_extension, valid=lambda: {"cfg": SOFTMAX_CFG, "d": D, "sigma2": 0.1, "n_shots": 2,
                                                            "theta0": _theta(), "device": "cpu", "generator": _g()},
          skip={"n_shots": ZERO_OK},
          extra=[("n_shots", -1, "negative"), ("cfg", {"d_model": 8}, "incomplete config"),
                 ("theta0", torch.ones(D + 1), "theta0 of the wrong size")]),
]
EXEMPT = {
    "icml26.papers.icl_finetuning.baselines.ModelAdapter": "a typing Protocol: the interface a user's model offers",
    "icml26.papers.icl_finetuning.explore.plot_curves": "draws a results dict made by experiment.run",
    "icml26.papers.icl_finetuning.explore.plot_angle_sweep": "draws a results dict made by experiment.run",
    "icml26.papers.icl_finetuning.explore.plot_losses": "draws a results dict made by experiment.run",
    "icml26.papers.icl_finetuning.explore.method_table": "formats a results dict made by experiment.run",
}
