"""Bad-input probes of Strategic PFN (icml26.papers.strategic_pfn)."""

import math

import torch
from harness import Probe

from icml26.nn.pfn import TinyPFN
from icml26.papers.strategic_pfn import baselines, data, experiment, explore, method

INF = math.inf
COST = torch.tensor([1.0, 3.0, INF])
IMMUTABLE = "inf marks an immutable feature (a valid cost); NaN and empty costs are probed by extra"
BAD_COST = [("cost", torch.tensor([1.0, math.nan, INF]), "NaN cost"), ("cost", torch.tensor([1.0, -1.0, INF]),
            "negative cost"), ("cost", torch.tensor([1.0, 2.0]), "cost of the wrong length")]


def _rows(R=2, n=6, d=3, seed=0):
    return torch.randn(R, n, d, generator=torch.Generator().manual_seed(seed))


def _labels(R=2, n=6):
    return (torch.arange(R * n).reshape(R, n) % 2).long()


def _w():
    return torch.tensor([[1.0, -0.5, 0.2], [0.3, 1.0, -1.0]])


def _score(x):
    return torch.einsum("rnd,rd->rn", x, _w()) + 0.1


def _pfn():
    torch.manual_seed(0)
    return TinyPFN(d_max=4, d_model=8, n_layers=1, n_heads=2, d_ff=16).eval()


def _task():
    return data.strategic_gauss(1, 8, 6, d=3, n_mutable=2, n_extra=4, seed=0)


def _lr_rule():
    t = data.strategic_gauss(1, 12, 4, d=3, n_mutable=2, seed=0)
    return baselines.ClassicalRule("lr", t.x_ctx, t.y_ctx)


def _pfn_cfg():
    return dict(d_max=4, d_model=8, n_layers=1, n_heads=2, d_ff=16, steps=1, batch_size=2, n_ctx=(4, 8), n_qry=4,
                lr=1e-3, prior_weights=(0.5, 0.5), time_limit=None)


def _eval_cfg():
    return dict(budgets=[1.0], response="line", cross_fit=0, agents=dict(pi=1.0, random_budget=False), classical=[],
                misspecified=False, p2_budgets=[1.0], rounds=1)


def _run_cfg():
    return dict(_eval_cfg(), pfn=_pfn_cfg(), p2_budgets=[],
                data=dict(d=3, n_mutable=2, n_ctx=8, n_test=6, reps=1, separation=1.1, anisotropy=4.0),
                ctx_sweep=None, real=None, equal_knowledge=[])


SEED0 = {"seed": "seed 0 is valid; a negative seed is probed by extra"}
NEG_SEED = ("seed", -1, "negative seed")

PROBES = [
    Probe(experiment.nonstrategic_context,
          valid=lambda: {"x_ctx": torch.zeros(2, 4, 3), "x_strategic": torch.ones(2, 4, 3), "cost": COST,
                         "generator": torch.Generator().manual_seed(0)},
          skip={"cost": IMMUTABLE},
          extra=[("cost", torch.ones(2), "wrong shape"), ("generator", 0, "not a generator")]),
    # ---- method
    Probe(method.Agents, valid=lambda: {"budget": 1.0, "pi": 0.5, "random_budget": True},
          extra=[("pi", 1.5, "pi above 1"), ("budget", -1.0, "negative budget"), ("random_budget", 1, "not a bool")]),
    Probe(method.cost_norm, valid=lambda: {"delta": _rows(), "cost": COST}, skip={"cost": IMMUTABLE},
          extra=BAD_COST + [("delta", torch.zeros(2, 3), "two dimensions")]),
    Probe(method.move_direction, valid=lambda: {"w": _w(), "cost": COST}, skip={"cost": IMMUTABLE},
          extra=BAD_COST + [("w", torch.zeros(3), "one dimension")]),
    Probe(method.linear_best_response, valid=lambda: {"X": _rows(), "w": _w(), "b": torch.zeros(2), "cost": COST,
                                                      "budget": 1.0, "margin": 1e-3},
          skip={"cost": IMMUTABLE},
          extra=BAD_COST + [("budget", -1.0, "negative budget"), ("budget", torch.ones(3, 3), "budget of wrong shape"),
                            ("b", torch.zeros(3), "b of the wrong length"), ("margin", -1.0, "negative margin")]),
    Probe(method.fit_linear_surrogate, valid=lambda: {"X": _rows(), "logits": _score(_rows()), "ridge": 1e-3,
                                                      "clip": 8.0},
          extra=[("logits", torch.zeros(2, 5), "one logit too few"), ("ridge", -1.0, "negative ridge"),
                 ("clip", 0.0, "zero clip")]),
    Probe(method.best_response, valid=lambda: {"score_fn": _score, "X": _rows(), "cost": COST, "budget": 1.0,
                                               "method": "line", "n_grid": 2, "steps": 2, "lr": 0.05, "kappa": 4.0,
                                               "n_bisect": 2, "tol": 1e-3},
          skip={"cost": IMMUTABLE, "n_bisect": "0 halvings is valid (the plain grid search); -1 is probed by extra"},
          extra=BAD_COST + [("method", "newton", "unknown response"), ("score_fn", 3, "not callable"),
                            ("score_fn", lambda x: x[..., 0].sum(-1), "scores of the wrong shape"),
                            ("surrogate_X", torch.zeros(2, 4, 2), "surrogate rows of the wrong width"),
                            ("budget", "high", "a text budget"), ("n_bisect", -1, "negative bisection count"),
                            ("tol", 0.0, "zero tolerance")]),
    Probe(method.pfn_scores, valid=lambda: {"model": _pfn(), "x_ctx": _rows(), "y_ctx": _labels(), "x": _rows(n=3),
                                            "threshold": 0.5, "chunk_size": 8},
          extra=[("threshold", 1.0, "threshold 1"), ("y_ctx", _labels(n=5), "labels of the wrong length"),
                 ("model", "pfn", "not a PFN"), ("x", torch.zeros(3, 3), "two dimensions")]),
    Probe(method.pfn_rule, valid=lambda: {"model": _pfn(), "x_ctx": _rows(), "y_ctx": _labels(), "threshold": 0.5},
          extra=[("threshold", 0.0, "threshold 0"), ("y_ctx", _labels(n=5), "labels of the wrong length")]),
    Probe(method.context_rule_factory, valid=lambda: {"model": _pfn(), "x_ctx": _rows(), "y_ctx": _labels(), "n": 3,
                                                      "threshold": 0.5},
          extra=[("n", 4, "not a divisor of the rows"), ("model", None, "no model")]),
    Probe(method.strategic_context, valid=lambda: {"rule": _score, "x_ctx": _rows(), "y_ctx": _labels(), "cost": COST,
                                                   "agents": method.Agents(1.0), "method": "surrogate",
                                                   "variant": "replace", "cross_fit": 0},
          skip={"cost": IMMUTABLE},
          extra=BAD_COST + [("variant", "swap", "unknown variant"), ("cross_fit", 1, "one fold"),
                            ("cross_fit", 4, "more folds than n // 2"), ("agents", 1.0, "not Agents"),
                            ("method", "newton", "unknown response"), ("rule", None, "no rule"),
                            ("generator", 3, "not a generator")]),
    Probe(method.StrategicPFN, valid=lambda: {"model": _pfn(), "cost": COST, "agents": method.Agents(1.0),
                                              "threshold": 0.5, "cross_fit": 2, "rounds": 1},
          skip={"cost": IMMUTABLE, "cross_fit": "cross_fit 0 turns cross-fitting off (valid); 1 is probed by extra"},
          extra=BAD_COST[:2] + [("cost", torch.zeros(0), "empty cost"), ("cross_fit", 1, "one fold"),
                                ("variant", "swap", "unknown variant"), ("method", "newton", "unknown response"),
                                ("agents", None, "no agents"), ("model", "pfn", "not a PFN")]),
    # ---- baselines
    Probe(baselines.ClassicalRule, valid=lambda: {"name": "lr", "x_ctx": _rows(), "y_ctx": _labels(), "seed": 0},
          skip=SEED0, extra=[NEG_SEED, ("name", "svm", "unknown model"), ("y_ctx", torch.zeros(2, 6).long(),
                                                                           "a single class")]),
    Probe(baselines.fit_classical, valid=lambda: {"names": ["lr"], "x_ctx": _rows(), "y_ctx": _labels(), "seed": 0},
          skip=SEED0, extra=[NEG_SEED, ("names", [], "no model"), ("names", "lr", "a string"),
                             ("y_ctx", _labels(n=4), "labels of the wrong length")]),
    Probe(baselines.strategic_lr, valid=lambda: {"lr_rule": _lr_rule(), "cost": torch.tensor([1.0, 2.0, INF]),
                                                 "budget": 1.0},
          skip={"cost": IMMUTABLE}, extra=BAD_COST[:2] + [("budget", -1.0, "negative budget"),
                                                          ("lr_rule", _score, "not a classical rule"),
                                                          ("cost", [1.0, 2.0, 3.0], "a list")]),
    # ---- data
    Probe(data.default_costs, valid=lambda: {"d": 4, "n_mutable": 2, "anisotropy": 4.0, "device": "cpu"},
          skip={"n_mutable": "0 mutable features is valid; a negative count is probed by extra"},
          extra=[("n_mutable", -1, "negative"), ("n_mutable", 5, "more than d"), ("anisotropy", 0.5, "below 1")]),
    Probe(data.strategic_gauss, valid=lambda: {"R": 1, "n_ctx": 4, "n_test": 2, "d": 3, "n_mutable": 2, "n_extra": 0,
                                               "separation": 1.1, "decay": 0.7, "anisotropy": 4.0, "seed": 0,
                                               "device": "cpu"},
          skip={"n_mutable": "0 mutable features is valid", **SEED0},
          extra=[("n_ctx", 1, "one context row"), ("n_mutable", 4, "more than d"), ("decay", 1.5, "decay above 1"),
                 ("n_mutable", -1, "negative"), ("generator", 3, "not a generator")]),
    Probe(data.credit_like, valid=lambda: {"R": 1, "n_ctx": 4, "n_test": 2, "n_extra": 0, "seed": 0, "device": "cpu"},
          skip=SEED0, extra=[("n_ctx", 1, "one context row")]),
    Probe(data.breast_cancer_task, valid=lambda: {"R": 1, "n_ctx": 20, "n_features": 3, "n_mutable": 2, "seed": 0,
                                                  "device": "cpu"},
          skip={"n_mutable": "0 mutable features is valid", **SEED0},
          extra=[("n_ctx", 569, "no test row"), ("n_features", 31, "more features than the table"),
                 ("n_mutable", 4, "more than n_features"), ("n_mutable", -1, "negative")]),
    # ---- experiment
    Probe(experiment.pretrain_pfn, valid=lambda: {"cfg": _pfn_cfg(), "device": "cpu", "seed": 0}, skip=SEED0,
          extra=[NEG_SEED, ("cfg", {"steps": 1}, "incomplete config")]),
    Probe(experiment.wrong_cost, valid=lambda: {"cost": COST}, skip={"cost": IMMUTABLE},
          extra=[("cost", torch.ones(2, 3), "two dimensions"), ("cost", torch.zeros(0), "empty")]),
    Probe(experiment.accuracy, valid=lambda: {"scores": torch.randn(2, 6), "y": _labels()},
          skip={"scores": "an infinite score is a sure decision; NaN and empty scores are probed by extra"},
          extra=[("scores", torch.full((2, 6), math.nan), "NaN scores"), ("scores", torch.zeros(2, 0), "empty"),
                 ("y", _labels(n=5), "labels of the wrong length")]),
    Probe(experiment.false_positive_rate, valid=lambda: {"scores": torch.randn(2, 6), "y": _labels()},
          skip={"scores": "an infinite score is a sure decision; NaN and empty scores are probed by extra"},
          extra=[("scores", torch.full((2, 6), math.nan), "NaN scores"), ("scores", torch.zeros(6), "one dimension"),
                 ("y", _labels(n=5), "labels of the wrong length")]),
    Probe(experiment.evaluate_budgets, valid=lambda: {"model": _pfn(), "task": _task(), "config": _eval_cfg(),
                                                      "seed": 0},
          skip=SEED0,
          extra=[NEG_SEED, ("budgets", [math.nan], "NaN budget"), ("budgets", [-1.0], "negative budget"),
                 ("config", {**_eval_cfg(), "response": "newton"}, "unknown response"),
                 ("config", {"budgets": [1.0]}, "incomplete config"), ("task", "gauss", "not a task"),
                 ("model", None, "no model"), ("classical", ["svm"], "unknown classical model")]),
    Probe(experiment.evaluate_p2, valid=lambda: {"model": _pfn(), "task": _task(), "config": _eval_cfg(), "seed": 0},
          skip=SEED0,
          extra=[NEG_SEED, ("config", {**_eval_cfg(), "p2_budgets": [math.inf]}, "infinite budget"),
                 ("config", {**_eval_cfg(), "rounds": 0}, "zero rounds"), ("task", None, "no task")]),
    Probe(experiment.run, valid=lambda: {"config": _run_cfg(), "device": "cpu", "seed": 0}, skip=SEED0,
          extra=[NEG_SEED, ("config", {"pfn": {}}, "incomplete config"),
                 ("config", {**_run_cfg(), "budgets": [math.inf]}, "infinite budget"),
                 ("config", {**_run_cfg(), "data": {"d": 3}}, "incomplete data config"),
                 ("config", {**_run_cfg(), "response": "newton"}, "unknown response"),
                 ("config", {**_run_cfg(), "pfn": {**_pfn_cfg(), "steps": 0}}, "zero steps")]),
    # ---- explore
    Probe(explore.plot_best_response, valid=lambda: {"model": None, "budget": 1.0, "pi": 1.0, "anisotropy": 4.0,
                                                     "mutable": "x1 only", "seed": 0},
          skip=SEED0, extra=[NEG_SEED, ("mutable", "x2 only", "unknown choice"), ("pi", 1.5, "pi above 1"),
                             ("budget", -1.0, "negative budget"), ("model", "pfn", "not a PFN")]),
]
EXEMPT = {
    "icml26.papers.strategic_pfn.data.StrategicTask": "a dataclass of plain tensor fields made by the loaders",
    "icml26.papers.strategic_pfn.explore.plot_accuracy_vs_budget": "draws a results dict made by experiment.run",
    "icml26.papers.strategic_pfn.explore.plot_ctx_sweep": "draws a results dict made by experiment.run",
    "icml26.papers.strategic_pfn.explore.plot_p2": "draws a results dict made by experiment.run",
}
