"""Bad-input probes of the credit-assigned policy gradient for two-stage rankers (icml26.papers.ca_pg)."""

import functools

import torch
from harness import Probe

from icml26.papers.ca_pg import analysis, baselines, digits_world, experiment, explore, method, training

D = torch.float64
TRAIN = {"n_items": 12, "n_users": 8, "d": 4, "ks": [3], "steps": 2, "n_seeds": 1, "batch": 4, "lr": 0.05,
         "tau": 0.01, "n_mc": 4, "eval_every": 1, "eval_users": 4, "eval_sets": 2, "estimators": ["capg", "vpg"]}
TINY = {
    "variance": {"n_items": 10, "ks": [1, 3], "n_samples": 8, "n_mc": 4, "tau": 0.1},
    "exact": {"n_items": 5, "k": 2, "n_contexts": 2, "aligned_taus": [0.1], "anti_tau": 0.1},
    "inclusion": {"n_items": 10, "k": 3, "n_mc": 16, "top": 3},
    "training": TRAIN,
    "stability": None, "alignment": None, "digits": None, "noisy_grid": None, "lr_sweep": None, "lsr_noise": None,
}
SWEEPS = {**TINY, "lr_sweep": {"k": 3, "steps": 100, "lrs": [0.1], "estimators": ["capg", "vpg"]},
          "lsr_noise": {"k": 3, "steps": 100, "noises": [0.1], "anti_noises": [0.1], "estimators": ["capg", "vpg"]}}


def _gen():
    return torch.Generator().manual_seed(0)


def _scores(b=4, n=10):
    return torch.randn(b, n, generator=_gen())


def _cand(b=4, k=3):
    return torch.arange(k).repeat(b, 1)


def _q(b=4, n=10):
    return torch.rand(b, n, generator=_gen())


def _world():
    return training.make_world(12, 8, d=4, seed=0)


@functools.cache
def _sweep_results():
    return experiment.run(SWEEPS, "cpu", 0)


@functools.cache
def _results():
    return experiment.run(TINY, "cpu", 0)


BAD_CAND = [("candidates", torch.full((4, 3), 10), "index past the last item"),
            ("candidates", torch.zeros(4, 3, dtype=torch.int32), "int32 indices"),
            ("candidates", torch.zeros(3, 3, dtype=torch.long), "one row too few")]

PROBES = [
    # ---- method
    Probe(method.lsr_scores, valid=lambda: {"q": _q(), "alignment": "noisy", "noise": 0.1, "generator": _gen()},
          extra=[("alignment", "sideways", "unknown alignment"), ("noise", -1.0, "negative noise"),
                 ("q", torch.zeros(3, dtype=torch.long), "integer q"), ("generator", 3, "not a generator")]),
    Probe(method.lsr_probs, valid=lambda: {"g": _q(), "candidates": _cand(), "tau": 0.1},
          skip={"tau": "tau = inf is the uniform LSR"},
          extra=BAD_CAND + [("tau", float("nan"), "NaN tau"), ("tau", -1.0, "negative tau")]),
    Probe(method.lsr_choose, valid=lambda: {"g": _q(), "candidates": _cand(), "tau": 0.1, "generator": _gen()},
          skip={"tau": "tau = inf is the uniform LSR"},
          extra=BAD_CAND + [("tau", float("nan"), "NaN tau"), ("generator", "g", "not a generator")]),
    Probe(method.reward_baseline, valid=lambda: {"rewards": torch.rand(4), "kind": "mean"},
          extra=[("kind", "median", "unknown baseline"), ("rewards", [1.0], "a list")]),
    Probe(method.capg_loss, valid=lambda: {"scores": _scores(), "chosen": torch.tensor([0, 1, 2, 3]),
                                           "rewards": torch.rand(4), "k": 3, "n_mc": 4, "generator": _gen()},
          extra=[("chosen", torch.tensor([0, 1, 2, 10]), "index past the last item"),
                 ("chosen", torch.tensor([0, 1, 2]), "one row too few"), ("k", 11, "K above N"),
                 ("rho", "exact", "unknown estimator"), ("baseline", "median", "unknown baseline"),
                 ("rewards", torch.rand(3), "one reward too few"), ("scores", torch.zeros(4), "1-D scores")]),
    Probe(method.lsr_rank, valid=lambda: {"g": _q(), "candidates": _cand(), "tau": 0.1, "m": 2, "generator": _gen()},
          extra=BAD_CAND + [("m", 4, "m above K"), ("m", 1.0, "float m")]),
    Probe(method.TwoTowerESR, valid=lambda: {"d": 4, "init_scale": 0.1, "generator": _gen(), "device": "cpu",
                                             "d_item": 3},
          extra=[("dtype", torch.long, "integer dtype"), ("d", 2.0, "float d")]),
    # ---- baselines
    Probe(baselines.vpg_loss, valid=lambda: {"scores": _scores(), "ranking": _cand(), "rewards": torch.rand(4)},
          extra=[("ranking", torch.full((4, 3), 10), "index past the last item"),
                 ("rewards", torch.rand(3), "one reward too few"), ("baseline", "median", "unknown baseline")]),
    Probe(baselines.topk_wr_loss, valid=lambda: {"scores": _scores(), "chosen": torch.tensor([0, 1, 2, 3]),
                                                 "rewards": torch.rand(4), "k": 3},
          extra=[("k", 11, "K above N"), ("chosen", torch.tensor([0, 1, 2, -1]), "negative index")]),
    Probe(baselines.distill_loss, valid=lambda: {"scores": _scores(), "candidates": _cand(), "g": _q()},
          extra=BAD_CAND + [("g", torch.zeros(4, 9), "g of the wrong width")]),
    Probe(baselines.oracle_candidates, valid=lambda: {"q": _q(), "k": 3},
          extra=[("k", 11, "K above N"), ("k", 2.0, "float k")]),
    # ---- training
    Probe(training.make_world, valid=lambda: {"n_items": 6, "n_users": 3, "d": 2, "sharp": 3.0, "shift": 2.5,
                                              "alignment": "noisy", "noise": 0.1, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("n_items", 1, "one item"), ("alignment", "sideways", "unknown alignment"),
                 ("seed", -1, "negative seed"), ("shift", float("nan"), "NaN shift")]),
    Probe(training.evaluate_value, valid=lambda: {"scores": _scores(), "q": _q(), "g": _q(), "k": 3, "tau": 0.1,
                                                  "n_sets": 2, "generator": _gen()},
          skip={"tau": "tau = inf is the uniform LSR"},
          extra=[("k", 11, "K above N"), ("scores", torch.zeros(4, 9), "scores of the wrong width"),
                 ("generator", None, "no generator"), ("tau", float("nan"), "NaN tau")]),
    Probe(training.oracle_value, valid=lambda: {"q": _q(), "g": _q(), "k": 3, "tau": 0.1},
          skip={"tau": "tau = inf is the uniform LSR"},
          extra=[("k", 11, "K above N"), ("g", torch.zeros(3, 10), "g of the wrong height"),
                 ("tau", -1.0, "negative tau")]),
    Probe(training.train, valid=lambda: {"world": _world(), "estimator": "capg", "k": 3, "steps": 2, "batch": 4,
                                         "lr": 0.05, "tau": 0.01, "n_mc": 4, "eval_every": 1, "eval_users": 4,
                                         "eval_sets": 2, "seed": 0},
          skip={"seed": "seed 0 is valid", "tau": "tau = inf is the uniform LSR"},
          extra=[("estimator", "ppo", "unknown estimator"), ("k", 13, "K above N"), ("seed", -1, "negative seed"),
                 ("world", {"q": 1}, "not a World"), ("lr", 0.0, "zero lr"), ("tau", float("nan"), "NaN tau")]),
    Probe(training.steps_to, valid=lambda: {"curve_steps": [0, 10, 20], "curve": [0.1, 0.5, 0.9], "target": 0.8,
                                            "censor": 30.0},
          extra=[("curve", [0.1, 0.5], "one value too few"), ("curve", [[0.1]], "2-D curve")]),
    Probe(training.max_drop_after, valid=lambda: {"curve": [0.1, 0.9, 0.7], "target": 0.8},
          extra=[("curve", "abc", "a string curve")]),
    # ---- analysis
    Probe(analysis.exact_gradients, valid=lambda: {"f": _scores(2, 4).double(), "q": _q(2, 4).double(),
                                                   "g": _q(2, 4).double(), "k": 2, "tau": 0.1},
          skip={"tau": "tau = inf is the uniform LSR"},
          extra=[("k", 5, "K above N"), ("f", torch.zeros(2, 9, dtype=D), "too many items to enumerate"),
                 ("g", torch.zeros(2, 3, dtype=D), "g of the wrong width"), ("tau", -1.0, "negative tau")]),
    Probe(analysis.variance_probe, valid=lambda: {"f": torch.randn(8), "q": torch.rand(8), "g": torch.rand(8),
                                                  "k": 3, "tau": 0.1, "n_samples": 4, "n_mc": 4,
                                                  "generator": _gen()},
          skip={"tau": "tau = inf is the uniform LSR"},
          extra=[("n_samples", 1, "one sample"), ("k", 9, "K above N"), ("rho", "exact", "unknown estimator"),
                 ("tau", float("nan"), "NaN tau")]),
    Probe(analysis.inclusion_errors, valid=lambda: {"f": torch.randn(10, dtype=D), "k": 3, "n_mc": 8, "top": 3,
                                                    "generator": _gen(), "n_nodes": 64},
          extra=[("k", 11, "K above N"), ("f", torch.zeros(2, 3), "2-D logits")]),
    # ---- digits world
    Probe(digits_world.make_digits_world, valid=lambda: {"n_users": 5, "n_label": 100, "pca_dim": 4,
                                                         "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("pca_dim", 65, "more components than pixels"), ("n_label", 5, "fewer labels than classes"),
                 ("seed", -1, "negative seed"), ("proto_noise", -1.0, "negative noise"),
                 ("alpha", float("nan"), "NaN alpha"), ("n_proto", 0, "no prototype image")]),
    # ---- experiment
    Probe(experiment.run_variance, valid=lambda: {"cfg": TINY["variance"], "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("cfg", {**TINY["variance"], "ks": [11]}, "K above N"), ("cfg", {"n_items": 5}, "incomplete"),
                 ("cfg", {**TINY["variance"], "tau": float("nan")}, "NaN tau"), ("seed", -1, "negative seed")]),
    Probe(experiment.run_exact, valid=lambda: {"cfg": TINY["exact"], "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("cfg", {**TINY["exact"], "n_items": 9}, "too many items to enumerate"),
                 ("cfg", {**TINY["exact"], "aligned_taus": []}, "no tau")]),
    Probe(experiment.run_inclusion, valid=lambda: {"cfg": TINY["inclusion"], "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("cfg", {**TINY["inclusion"], "n_mc": 0}, "no Monte Carlo draw"), ("device", 3, "an int device")]),
    Probe(experiment.run_training, valid=lambda: {"cfg": TINY, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("cfg", {**TINY, "training": {**TRAIN, "estimators": ["ppo"]}}, "unknown estimator"),
                 ("cfg", {**TINY, "training": {**TRAIN, "ks": [13]}}, "K above N"),
                 ("cfg", {**TINY, "alignment": {"k": 3}}, "incomplete alignment part"),
                 ("cfg", {**SWEEPS, "lr_sweep": {**SWEEPS["lr_sweep"], "k": 2}}, "a sweep K not trained"),
                 ("cfg", {**SWEEPS, "lsr_noise": {**SWEEPS["lsr_noise"], "estimators": ["distill"]}},
                  "a sweep estimator not trained"),
                 ("cfg", {**SWEEPS, "lr_sweep": {**SWEEPS["lr_sweep"], "lrs": [0.0]}}, "a zero learning rate"),
                 ("cfg", {**SWEEPS, "lsr_noise": {**SWEEPS["lsr_noise"], "steps": 10}}, "a sweep shorter than 100"),
                 ("cfg", {**SWEEPS, "lsr_noise": {**SWEEPS["lsr_noise"], "anti_noises": []}}, "no anti noise")]),
    Probe(experiment.run, valid=lambda: {"config": TINY, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("config", {"training": TRAIN}, "incomplete config"), ("seed", -1, "negative seed"),
                 ("config", {**TINY, "training": {**TRAIN, "steps": 0}}, "zero steps"),
                 ("config", {**TINY, "extra": 1}, "unknown part")]),
    # ---- explore
    Probe(explore.plot_variance_vs_k, valid=lambda: {"n_items": 10, "k_max": 3, "tau": 0.1, "n_samples": 4,
                                                     "n_mc": 2, "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("n_samples", 1, "one sample"), ("seed", -1, "negative seed"), ("tau", -1.0, "negative tau")]),
    Probe(explore.plot_alignment_bias, valid=lambda: {"alignment": "noisy", "tau": 0.1, "noise": 0.05, "k": 2,
                                                      "n_items": 4, "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("alignment", "sideways", "unknown alignment"), ("n_items", 9, "too many items to enumerate"),
                 ("k", 5, "K above N"), ("seed", -1, "negative seed")]),
    Probe(explore.plot_inclusion, valid=lambda: {"n_items": 10, "k": 3, "method": "mc", "n_mc": 4, "spread": 1.0,
                                                 "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("method", "exact", "unknown estimator"), ("seed", -1, "negative seed")]),
    Probe(explore.plot_learning_curves, valid=lambda: {"results": _results(), "part": "training"},
          extra=[("part", "digits", "a part that was not run"), ("results", {}, "empty results"),
                 ("results", {"training": {"3": {"capg": {}}}}, "a curve without steps")]),
    Probe(explore.plot_variance_results, valid=lambda: {"results": _results()},
          extra=[("results", {}, "no variance part"), ("results", {"variance": {"ks": [1]}}, "incomplete")]),
    Probe(explore.plot_lr_sweep, valid=lambda: {"results": _sweep_results()},
          extra=[("results", {"training": {}}, "no lr_sweep part"), ("results", {"lr_sweep": {"k": 3}}, "no lrs")]),
    Probe(explore.plot_lsr_noise, valid=lambda: {"results": _sweep_results()},
          extra=[("results", {"training": {}}, "no lsr_noise part"),
                 ("results", {"lsr_noise": {"k": 3}}, "no correlations")]),
]
EXEMPT = {
    "icml26.papers.ca_pg.training.World": "a dataclass of four tensors; train() checks a World at its boundary",
}
