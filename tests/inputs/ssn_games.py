"""Bad-input probes of the hybrid PRM+ -> semismooth Newton solver for matrix games (icml26.papers.ssn_games)."""

import functools

import torch
from harness import Probe

from icml26.papers.ssn_games import baselines, experiment, explore, games, method, regret

D = torch.float64
TINY = dict(n=6, m=6, games=1, distribution="gaussian", target=1e-10, budget_factor=2.0, prm_cap_iterations=200,
            record_every=50, rect=(4, 6), drs_iterations=20, eps_switch=1e-4, cold_steps=5,
            hybrid=dict(T0="auto", tol=1e-12), threshold_switch=False, scaling=None)
FAMILIES = [dict(name="skew 6", n=6, m=6, distribution="skew", games=1)]
SCALING = dict(sizes=[(6, 6)], target=1e-8, time_factor=2.0, prm_cap_iterations=200, check_every=50)


def _A(n=4, m=5, B=2):
    return games.random_games(B, n, m, seed=0)


def _uniform(B=2, n=4, m=5):
    return torch.full((B, n), 1.0 / n, dtype=D), torch.full((B, m), 1.0 / m, dtype=D)


def _w0():
    op = method.DRSOperator(_A(), 1.0)
    return baselines.uniform_lift(op)


@functools.cache
def _results():
    return experiment.run(TINY, "cpu", 0)


PROBES = [
    # ---- games
    Probe(games.check_games, valid=lambda: {"A": _A(), "name": "A"},
          extra=[("A", torch.zeros(2, 3, 4, 5, dtype=D), "4-D"), ("A", torch.zeros(3, 0, dtype=D), "no column"),
                 ("A", torch.zeros(3, 3, dtype=torch.long), "integer payoffs"), ("A", [[1.0]], "a list"),
                 ("name", 3, "a non-string name")]),
    Probe(games.random_games, valid=lambda: {"batch": 2, "n": 3, "m": 4, "distribution": "sign", "seed": 1,
                                             "device": "cpu", "dtype": D},
          skip={"seed": "seed 0 is valid"},
          extra=[("distribution", "cauchy", "unknown distribution"), ("seed", -1, "negative seed"),
                 ("seed", 1.5, "float seed"), ("dtype", torch.long, "integer dtype"), ("n", 2.0, "float n"),
                 ("distribution", "skew", "a symmetric game that is not square")]),
    Probe(games.split, valid=lambda: {"z": torch.zeros(2, 9, dtype=D), "n": 4},
          extra=[("n", 9, "nothing left for y"), ("z", [0.0, 1.0], "a list")]),
    Probe(games.matvecs, valid=lambda: {"A": _A(), "x": _uniform()[0], "y": _uniform()[1]},
          extra=[("x", torch.zeros(2, 5, dtype=D), "x of the column size"), ("y", torch.zeros(2, 4, dtype=D),
                                                                             "y of the row size"),
                 ("A", torch.zeros(4, dtype=D), "1-D payoffs")]),
    Probe(games.duality_gap, valid=lambda: {"A": _A(), "x": _uniform()[0], "y": _uniform()[1]},
          extra=[("x", torch.zeros(2, 3, dtype=D), "x of the wrong size"), ("y", "y", "not a tensor")]),
    Probe(games.game_value, valid=lambda: {"A": _A(), "x": _uniform()[0], "y": _uniform()[1]},
          extra=[("y", torch.zeros(2, 4, dtype=D), "y of the wrong size")]),
    Probe(games.spectral_norm, valid=lambda: {"A": _A(), "iterations": 3},
          extra=[("iterations", 2.0, "float iterations")]),
    Probe(games.newton_solve_cost, valid=lambda: {"n": 4, "m": 5}, extra=[("m", 1.5, "float m")]),
    # ---- regret matching
    Probe(regret.RegretMatching, valid=lambda: {"A": _A(), "predictive": True, "plus": True, "alternating": True},
          extra=[("alternating", torch.tensor([True]), "alternating of the wrong length"),
                 ("plus", 1, "an int flag"), ("A", torch.zeros(3, dtype=D), "1-D payoffs")]),
    # ---- method
    Probe(method.default_eta, valid=lambda: {"A": _A(), "scale": 1.0, "iterations": 3},
          extra=[("scale", -1.0, "negative scale"), ("scale", 0.0, "zero scale")]),
    Probe(method.DRSOperator, valid=lambda: {"A": _A(), "eta": 0.5},
          extra=[("eta", torch.ones(3, dtype=D), "one eta per game too many"), ("eta", -1.0, "negative eta"),
                 ("eta", "auto", "a string eta")]),
    Probe(method.ssn, valid=lambda: {"A": _A(), "w0": _w0(), "eta": 1.0, "kappa": 1e-2, "nu": 0.9, "tol": 1e-12,
                                     "max_newton": 3, "sigma": 1e-4, "max_backtracks": 3},
          skip={"kappa": "kappa = 0 (no regularisation) is valid", "max_newton": "max_newton = 0 is valid",
                "max_backtracks": "max_backtracks = 0 is valid"},
          extra=[("w0", torch.zeros(2, 8, dtype=D), "w0 of the wrong length"), ("nu", 1.5, "nu above 1"),
                 ("regularize", "tikhonov", "unknown regularisation"), ("globalization", "trust", "unknown"),
                 ("safeguard", 1, "an int flag"), ("kappa", -1.0, "negative kappa"),
                 ("max_newton", -1, "negative max_newton"), ("max_backtracks", -1, "negative max_backtracks"),
                 ("tol", 0.0, "zero tol"), ("tol", 1e-17, "tol below float64 resolution")]),
    Probe(method.hybrid, valid=lambda: {"A": _A(), "switch": "threshold", "T0": 50, "growth": 2.0,
                                        "max_iterations": 400, "eps_switch": 1e-3, "check_every": 50,
                                        "eta_scale": 1.0, "kappa": 1e-2, "nu": 0.9, "tol": 1e-12, "max_newton": 10,
                                        "min_newton": 4},
          skip={"kappa": "kappa = 0 (no regularisation) is valid", "max_newton": "max_newton = 0 is valid"},
          extra=[("switch", "sometimes", "unknown switch"), ("growth", 0.5, "shrinking chunks"),
                 ("warm_starts", (), "no warm start"), ("warm_starts", ("first",), "unknown warm start"),
                 ("averaging", "last", "last is not an average"), ("balance", 1, "an int flag"),
                 ("max_newton", -1, "negative max_newton"),
                 ("A", torch.randn(4, 4), "float32 game with tol 1e-12 (unreachable)"),
                 ("alternating", "yes", "a string flag"), ("regularize", "x", "unknown regularisation"),
                 ("T0", "soon", "unknown T0")]),
    # ---- baselines
    Probe(baselines.uniform_lift, valid=lambda: {"op": method.DRSOperator(_A(), 1.0)},
          extra=[("op", _A(), "a tensor instead of an operator")]),
    Probe(baselines.drs_iterate, valid=lambda: {"A": _A(), "eta": 1.0, "iterations": 5, "record_every": 2},
          skip={"iterations": "zero iterations are valid (the uniform lift only)"},
          extra=[("iterations", -1, "negative iterations"), ("eta", float("nan"), "NaN eta")]),
    Probe(baselines.ssn_cold, valid=lambda: {"A": _A(), "eta": 1.0, "max_newton": 3, "kappa": 1e-2},
          skip={"max_newton": "max_newton = 0 is valid", "kappa": "kappa = 0 is valid"},
          extra=[("max_newton", -1, "negative max_newton"), ("kappa", -1.0, "negative kappa"),
                 ("safeguard", "no", "a string flag")]),
    Probe(baselines.restarted_pdhg, valid=lambda: {"A": _A(), "iterations": 20, "check_every": 5, "beta": 0.2,
                                                   "artificial": 0.36, "step": 0.9, "target": 1e-10},
          skip={"iterations": "zero iterations are valid", "target": "target 0 (never stop early) is valid"},
          extra=[("beta", 1.0, "beta of 1"), ("step", 1.5, "step above 1/||A||"), ("target", -1.0, "negative target"),
                 ("iterations", 2.5, "float iterations")]),
    Probe(baselines.lp_solve, valid=lambda: {"A": _A()}, extra=[("A", torch.zeros(2, 2, dtype=torch.long), "ints")]),
    # ---- experiment
    Probe(experiment.compare, valid=lambda: {"config": TINY, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed"), ("config", {"n": 5}, "incomplete config"),
                 ("config", {**TINY, "n": 0}, "zero rows"), ("config", {**TINY, "rect": (4,)}, "rect not a pair"),
                 ("config", {**TINY, "distribution": "cauchy"}, "unknown distribution"),
                 ("config", {**TINY, "target": float("nan")}, "NaN target"),
                 ("config", {**TINY, "hybrid": {"tol": 1e-12, "gamma": 1}}, "unknown hybrid argument")]),
    Probe(experiment.scaling, valid=lambda: {"config": {**TINY, "scaling": SCALING}, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("config", TINY, "no scaling settings"), ("seed", 2.0, "float seed"),
                 ("config", {**TINY, "scaling": {**SCALING, "sizes": []}}, "no size"),
                 ("config", {**TINY, "scaling": {**SCALING, "check_every": 0}}, "zero check_every"),
                 ("config", {**TINY, "scaling": {**SCALING, "sizes": [(6, 0)]}}, "a size with no column")]),
    Probe(experiment.families, valid=lambda: {"config": {**TINY, "families": FAMILIES}, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("config", TINY, "no families"), ("config", {**TINY, "families": []}, "empty families"),
                 ("config", {**TINY, "families": [{"name": "x"}]}, "incomplete family"),
                 ("config", {**TINY, "families": [{**FAMILIES[0], "games": 0}]}, "zero games"),
                 ("config", {**TINY, "families": [{**FAMILIES[0], "distribution": "cauchy"}]}, "unknown family")]),
    Probe(experiment.run, valid=lambda: {"config": TINY, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed"), ("config", [], "not a dict"),
                 ("config", {**TINY, "prm_cap_iterations": 0}, "zero PRM+ cap"),
                 ("config", {**TINY, "threshold_switch": "yes"}, "a string flag"),
                 ("config", {**TINY, "scaling": {"sizes": [(6, 6)]}}, "incomplete scaling"),
                 ("config", {**TINY, "pdhg": {"games": 1}}, "incomplete pdhg settings")]),
    # ---- explore
    Probe(explore.plot_explorer, valid=lambda: {"n": 6, "m": 5, "seed": 0, "distribution": "gaussian",
                                                "eta_scale": 1.0, "averaging": "quadratic", "budget": 200},
          skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed"), ("averaging", "median", "unknown averaging"),
                 ("distribution", "cauchy", "unknown distribution"), ("alternating", "yes", "a string flag"),
                 ("eta_scale", 0.0, "zero eta_scale"), ("n", 4.5, "float n")]),
    Probe(explore.plot_convergence, valid=lambda: {"results": _results(), "game": 0},
          skip={"game": "game 0 is valid"},
          extra=[("game", 1, "game past the batch"), ("game", -1, "negative game"),
                 ("variants", ("alternating/median",), "unknown variant"), ("results", {}, "empty results")]),
    Probe(explore.plot_newton_paths, valid=lambda: {"results": _results()},
          extra=[("results", {"local": {}}, "empty local"), ("results", [], "not a dict")]),
    Probe(explore.plot_basin, valid=lambda: {"n": 4, "seed": 0, "alphas": (0.1, 1.0)},
          skip={"seed": "seed 0 is valid"},
          extra=[("alphas", (0.0,), "zero mixing weight"), ("alphas", (), "no alpha"), ("alphas", (1.5,), "above 1"),
                 ("seed", -1, "negative seed")]),
    Probe(explore.peer_table, valid=lambda: {"results": _results()},
          extra=[("results", {}, "empty results"), ("results", [], "not a dict")]),
    Probe(explore.plot_scaling, valid=lambda: {"results": {"scaling": experiment.scaling({**TINY, "scaling": SCALING},
                                                                                         "cpu", 0)}},
          extra=[("results", {}, "no scaling"), ("results", {"scaling": {"sizes": [{"n": 1}]}}, "incomplete size")]),
]
EXEMPT = {
    "icml26.papers.ssn_games.method.SSNResult": "a dataclass of plain result fields, made by method.ssn",
    "icml26.papers.ssn_games.method.HybridResult": "a dataclass of plain result fields, made by method.hybrid",
}
