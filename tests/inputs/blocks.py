"""Bad-input probes of the shared blocks: icml26.ranking, icml26.rl, icml26.optim, icml26.diffusion, icml26.data
and the transport modules' own checks (icml26.transport._checks)."""

import math

import networkx as nx
import torch
from harness import Probe

from icml26 import linalg as la
from icml26.data import graphs, priors
from icml26.diffusion import grf, sampler, schedules
from icml26.optim import simplex
from icml26.ranking import plackett_luce as pl
from icml26.rl import linear
from icml26.transport import _checks as tchecks

DT = torch.float64


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _rand(*shape, seed=0):
    return torch.randn(*shape, generator=_gen(seed), dtype=DT)


# ---- ranking
def _scores():
    return _rand(2, 5)


RANKING = torch.tensor([[0, 3, 1], [4, 2, 0]])
NO_ITEM = ("mask", torch.zeros(2, 5, dtype=torch.bool), "every item masked")
BAD_RANKING = [("ranking", torch.tensor([[0, 0, 1], [4, 2, 0]]), "a repeated item"),
               ("ranking", torch.tensor([[0, 9, 1], [4, 2, 0]]), "an index past N"),
               ("ranking", RANKING.double(), "float indices"), NO_ITEM]


# ---- rl
def _mdp(A=2, S=3):
    P = torch.rand(A, S, S, generator=_gen(1), dtype=DT) + 0.1
    P = P / P.sum(-1, keepdim=True)
    return P, _rand(S, A, seed=2)


def _stats(S=4, D=3):
    st = linear.RidgeStats(D, S, lam=1.0, dtype=DT)
    for i in range(6):
        st.update(_rand(D, seed=10 + i), float(i % 2), next_state=i % S, weight=0.8)
    return st


STATS = _stats()


def _mdp_kwargs(**extra):
    P, r = _mdp()
    return {"P": P, "r": r, "gamma": 0.9, **extra}


NOT_STOCHASTIC = ("P", torch.ones(2, 3, 3, dtype=DT), "rows summing to 3")

# ---- diffusion
SPEC = grf.grf_spectrum(8, 8, 3.0)
AB = schedules.cosine_alpha_bar(10)


def _z(seed=0):
    return _rand(2, 8, 8, seed=seed)


def _keep():
    keep = torch.zeros(2, 8, 8, dtype=DT)
    keep[:, :4] = 1.0
    return keep


# ---- transport checks
def _pts(n=4, d=2, seed=0):
    return _rand(n, d, seed=seed)


# ---- graphs
def _node_graph():
    return {"x": _rand(4, 3).float(), "y": torch.tensor([0, 1, 0, 1]), "edge_index": torch.tensor([[0, 1], [1, 0]]),
            "num_classes": 2}


EDGES = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]])
LABELS = torch.arange(12) % 3


def _adj():
    a = torch.zeros(4, 4)
    a[0, 1] = a[1, 0] = a[2, 3] = a[3, 2] = 1.0
    return a


PRIOR = {"B": 2, "n_ctx": 5, "n_qry": 3, "d": 3, "seed": 0, "device": "cpu"}
N_QRY = {"n_qry": "zero query rows are valid (a context-only batch)"}
SIZES = [("n_qry", -1, "negative query rows"), ("seed", 1.5, "float seed"), ("variable_d", "yes", "not a bool")]

PROBES = [
    # ---- ranking.plackett_luce
    Probe(pl.log_prob, valid=lambda: {"scores": _scores(), "ranking": RANKING}, extra=BAD_RANKING),
    Probe(pl.score_logits, valid=lambda: {"scores": _scores(), "ranking": RANKING}, extra=BAD_RANKING),
    Probe(pl.sample_topk, valid=lambda: {"scores": _scores(), "k": 2, "n": 3, "generator": _gen()},
          extra=[("k", 6, "k past N"), ("generator", 3, "not a generator"), NO_ITEM,
                 ("mask", torch.ones(3, 5, dtype=torch.bool), "mask of the wrong shape"),
                 ("return_perturbed", "yes", "not a bool")]),
    Probe(pl.enumerate_rankings, valid=lambda: {"n": 4, "k": 2, "device": "cpu"},
          extra=[("n", 9, "n past 8"), ("k", 5, "k past n"), ("n", 4.0, "float n")]),
    Probe(pl.gumbel, valid=lambda: {"shape": 5, "generator": _gen(), "device": "cpu", "dtype": DT},
          extra=[("shape", (2, 0), "a zero size"), ("shape", "ab", "a string"), ("dtype", torch.long, "integer dtype"),
                 ("generator", 3, "not a generator")]),
    Probe(pl.inclusion_prob, valid=lambda: {"scores": _scores(), "k": 2, "method": "mc", "n_mc": 4, "n_nodes": 32,
                                            "generator": _gen()},
          extra=[("method", "exact", "unknown method"), ("n_nodes", 8, "too few nodes"), ("k", 6, "k past N"),
                 ("generator", "g", "not a generator"), NO_ITEM]),
    Probe(pl.log_inclusion_prob, valid=lambda: {"scores": _scores(), "items": torch.tensor([[1], [4]]), "k": 2,
                                                "method": "quadrature", "n_mc": 4, "n_nodes": 32},
          extra=[("items", torch.tensor([[1], [7]]), "an index past N"), ("items", torch.ones(2, 1), "float items"),
                 ("items", torch.tensor([1, 4]), "missing the batch dimension"), ("method", "exact", "unknown")]),
    Probe(pl.log1mexp, valid=lambda: {"x": -_rand(5).abs() - 0.1},
          extra=[("x", torch.tensor([0.5], dtype=DT), "a positive entry"), ("x", -1.0, "not a tensor")]),
    Probe(pl.logcumsumexp, valid=lambda: {"x": _rand(2, 3), "dim": 1, "reverse": True},
          skip={"dim": "0 and -1 are valid dimensions of a 2-D tensor; dim=5 is probed below"},
          extra=[("dim", 5, "no such dimension"), ("dim", 1.0, "float dim"), ("reverse", "yes", "not a bool"),
                 ("x", [1.0, 2.0], "a list")]),
    Probe(pl.log_h, valid=lambda: {"z": _rand(5), "cut": 30.0},
          extra=[("cut", -1.0, "negative cut"), ("z", torch.tensor([1, 2]), "integer z")]),
    Probe(pl.top1_nll, valid=lambda: {"pos_score": _rand(3), "neg_scores": _rand(3, 4, seed=1)},
          extra=[("neg_mask", torch.ones(3, 5, dtype=torch.bool), "mask of the wrong shape"),
                 ("pos_score", torch.zeros(4, dtype=DT), "one row too many"),
                 ("pos_score", torch.zeros(3, dtype=torch.long), "integer scores")]),
    Probe(pl.listwise_nll, valid=lambda: {"scores": _scores()},
          extra=[NO_ITEM, ("mask", torch.ones(2, 5), "a float mask")]),
    # ---- rl.linear
    Probe(linear.RidgeStats, valid=lambda: {"dim": 3, "n_states": 4, "lam": 1.0, "device": "cpu", "dtype": DT},
          extra=[("dtype", torch.long, "integer dtype"), ("lam", True, "a bool"), ("dim", 2.0, "float dim")]),
    Probe(STATS.update, name="icml26.rl.linear.RidgeStats.update",
          valid=lambda: {"x": _rand(3), "y": 1.0, "next_state": 2, "weight": 0.5},
          skip={"next_state": "state 0 is a valid next state (4 and -1 are probed below)"},
          extra=[("next_state", 4, "past n_states"), ("next_state", -1, "negative"), ("next_state", 1.5, "float"),
                 ("x", _rand(4), "wrong dimension")]),
    Probe(STATS.weights, name="icml26.rl.linear.RidgeStats.weights", valid=lambda: {"V": _rand(4)},
          extra=[("V", _rand(5), "wrong length")]),
    Probe(linear.sherman_morrison_update, valid=lambda: {"A_inv": torch.eye(3, dtype=DT), "u": _rand(3)},
          extra=[("u", _rand(4), "wrong dimension"), ("A_inv", torch.ones(3, 4, dtype=DT), "not square"),
                 ("A_inv", -torch.eye(3, dtype=DT) * 10, "not positive definite")]),
    Probe(linear.elliptical_bonus, valid=lambda: {"features": _rand(5, 3), "A_inv": torch.eye(3, dtype=DT)},
          extra=[("A_inv", torch.eye(4, dtype=DT), "wrong size"), ("features", [1.0, 2.0], "a list")]),
    Probe(linear.optimistic_value_iteration,
          valid=lambda: {"features": _rand(4, 2, 3), "stats": _stats(), "bonus_scale": 0.5, "v_max": 10.0,
                         "V0": torch.zeros(4, dtype=DT), "tol": 1e-8, "max_iter": 300},
          extra=[("stats", "stats", "not RidgeStats"), ("features", _rand(5, 2, 3), "wrong number of states"),
                 ("V0", torch.zeros(3, dtype=DT), "V0 of the wrong length"), ("tol", -1.0, "negative tol"),
                 ("bonus_scale", -1.0, "negative bonus")]),
    Probe(linear.solve_values, valid=lambda: {"R": _rand(4), "B": torch.full((4, 4), 0.2, dtype=DT)},
          extra=[("B", torch.full((4, 4), 0.3, dtype=DT), "row sums >= 1"),
                 ("B", torch.eye(3, dtype=DT), "wrong size")]),
    Probe(linear.evaluate_policy_exact, valid=lambda: _mdp_kwargs(policy=torch.tensor([0, 1, 1])),
          extra=[("policy", torch.tensor([0, 2, 1]), "an action past A"), ("gamma", 1.0, "gamma 1"), NOT_STOCHASTIC,
                 ("policy", torch.full((3, 2), 0.7, dtype=DT), "rows not summing to 1"),
                 ("r", _rand(2, 3), "r transposed")]),
    Probe(linear.bellman_fixed_point, valid=lambda: _mdp_kwargs(tol=1e-10, max_iter=10_000),
          extra=[("tol", 1e-20, "below float64 resolution"), ("gamma", -0.1, "negative gamma"), NOT_STOCHASTIC,
                 ("policy", torch.tensor([0, 1]), "too few states")]),
    Probe(linear.policy_iteration, valid=lambda: _mdp_kwargs(max_iter=100),
          extra=[("gamma", 1.5, "gamma above 1"), NOT_STOCHASTIC, ("max_iter", 2.0, "float cap")]),
    # ---- optim.simplex
    Probe(simplex.threshold, valid=lambda: {"v": _rand(2, 4), "radius": 1.0, "check": True},
          extra=[("radius", 0.0, "zero radius"), ("radius", -1.0, "negative radius"), ("check", "yes", "not a bool"),
                 ("v", torch.ones(2, 4, dtype=torch.long), "integer v")]),
    Probe(simplex.project, valid=lambda: {"v": _rand(2, 4), "radius": 2.0},
          extra=[("radius", 0.0, "zero radius"), ("v", [1.0, 2.0], "a list")]),
    Probe(simplex.support, valid=lambda: {"v": _rand(2, 4), "radius": 1.0}, extra=[("radius", -1.0, "negative")]),
    Probe(simplex.jacobian, valid=lambda: {"v": _rand(2, 4), "radius": 1.0}, extra=[("radius", 0.0, "zero")]),
    Probe(simplex.jvp, valid=lambda: {"v": _rand(2, 4), "u": _rand(2, 4, seed=1), "radius": 1.0},
          extra=[("u", _rand(2, 5), "u of the wrong shape"), ("v", "v", "not a tensor")]),
    # ---- diffusion
    Probe(grf.grf_spectrum, valid=lambda: {"H": 8, "W": 6, "alpha": 3.0, "k0": 1.0, "device": "cpu", "dtype": DT},
          extra=[("H", 1, "one row"), ("dtype", torch.long, "integer dtype"), ("alpha", -1.0, "negative alpha"),
                 ("k0", 0.0, "zero k0")]),
    Probe(grf.sample_grf, valid=lambda: {"shape": (2,), "spectrum": SPEC.clone(), "generator": _gen()},
          extra=[("shape", (0,), "a zero size"), ("shape", "ab", "a string"), ("generator", 3, "not a generator"),
                 ("spectrum", -SPEC, "negative spectrum"), ("spectrum", SPEC[0], "one dimension")]),
    Probe(grf.wiener_x0, valid=lambda: {"z": _z(), "alpha_bar": 0.5, "spectrum": SPEC.clone()},
          extra=[("alpha_bar", 1.5, "above 1"), ("alpha_bar", 0.0, "zero"), ("z", _rand(2, 8, 7), "wrong image size"),
                 ("alpha_bar", "half", "text")]),
    Probe(grf.WienerDenoiser, valid=lambda: {"spectrum": SPEC.clone(), "alpha_bar": AB.clone()},
          extra=[("alpha_bar", AB[None], "two dimensions"), ("alpha_bar", torch.tensor([0.5, 0.0], dtype=DT), "a zero"),
                 ("spectrum", -SPEC, "negative spectrum")]),
    Probe(sampler.ddim_timesteps, valid=lambda: {"T": 10, "steps": 3},
          extra=[("steps", 11, "more steps than T"), ("T", 10.0, "float T")]),
    Probe(sampler.x0_from_eps, valid=lambda: {"z": _z(), "eps": _z(1), "alpha_bar": 0.5},
          extra=[("alpha_bar", 0.0, "zero"), ("eps", _rand(2, 8, 7), "wrong shape"), ("z", 1.0, "a number")]),
    Probe(sampler.eps_from_x0, valid=lambda: {"z": _z(), "x0": _z(1), "alpha_bar": 0.5},
          extra=[("alpha_bar", 1.0, "one (eps undefined)"), ("x0", _rand(3, 8, 8), "wrong shape")]),
    Probe(sampler.repaint_replace, valid=lambda: {"z": _z(), "known": _z(1), "keep": _keep(), "alpha_bar": 0.5,
                                                  "noise": _z(2)},
          extra=[("keep", _keep() * 0.5, "not 0/1"), ("known", _rand(2, 8, 7), "wrong shape"),
                 ("noise", _rand(2, 8, 7), "wrong shape"), ("alpha_bar", 2.0, "above 1"),
                 ("keep", torch.ones(3, 8, 8), "does not broadcast")]),
    Probe(sampler.ddim_sample,
          valid=lambda: {"eps_fn": grf.WienerDenoiser(SPEC, AB), "alpha_bar": AB.clone(), "steps": 3, "z_T": _z(),
                         "eta": 0.5, "generator": _gen()},
          extra=[("eps_fn", 3, "not callable"), ("steps", 11, "more steps than T"), ("eta", 1.5, "eta above 1"),
                 ("known", _z(1), "known without keep"), ("controller", 3, "not callable"),
                 ("alpha_bar", torch.tensor([0.9, 0.0], dtype=DT), "a zero level"),
                 ("generator", 3, "not a generator")]),
    Probe(schedules.linear_alpha_bar, valid=lambda: {"T": 10, "beta_start": 1e-4, "beta_end": 2e-2, "device": "cpu"},
          extra=[("beta_start", 0.5, "start above end"), ("T", 1, "one step"), ("beta_end", "big", "text")]),
    Probe(schedules.cosine_alpha_bar, valid=lambda: {"T": 10, "s": 8e-3, "max_beta": 0.999, "device": "cpu"},
          extra=[("max_beta", 1.5, "above 1"), ("s", -1.0, "negative s"), ("T", 1, "one step")]),
    # ---- linalg
    Probe(la.solve_ex, valid=lambda: {"A": torch.eye(3, dtype=DT).expand(2, 3, 3), "B": torch.ones(2, 3, dtype=DT)},
          extra=[("A", torch.ones(2, 3, dtype=DT), "not square"), ("B", [1.0, 2.0, 3.0], "a list")]),
    Probe(la.solve, valid=lambda: {"A": torch.eye(3, dtype=DT), "B": torch.ones(3, dtype=DT)},
          extra=[("A", torch.ones(3, dtype=DT), "one dimension")]),
    Probe(la.inv, valid=lambda: {"A": torch.eye(3, dtype=DT)}, extra=[("A", torch.ones(2, 3, dtype=DT), "not square")]),
    # ---- transport._checks (the transport modules' own validators)
    Probe(tchecks.finite_tensor, valid=lambda: {"x": _pts(), "name": "x"}, skip={"x": "the value under test"},
          extra=[("ndim", -1, "negative ndim"), ("ndim", "two", "text ndim"), ("name", "", "empty name")]),
    Probe(tchecks.marginals, valid=lambda: {"value": [_pts(), _pts(seed=1)], "name": "marginals", "min_count": 2},
          extra=[("name", "", "empty name"), ("min_count", 1.5, "float count")]),
    # ---- data.graphs
    Probe(graphs.NodeGraph, valid=_node_graph,
          extra=[("y", torch.tensor([0.0, 1.0, 0.0, 1.0]), "float labels"),
                 ("num_classes", 1, "fewer classes than labels"),
                 ("edge_index", torch.tensor([[0, 9], [9, 0]]), "a node past n"),
                 ("x", _rand(5, 3).float(), "one row too many"),
                 ("y", torch.tensor([0, -1, 0, 1]), "a negative label")]),
    Probe(graphs.csbm, valid=lambda: {"num_nodes": 12, "num_classes": 3, "avg_degree": 4.0, "homophily": 0.5,
                                      "feature_dim": 4, "mean_sep": 1.0, "mode": "random", "seed": 0, "device": "cpu"},
          extra=[("mode", "mixed", "unknown mode"), ("homophily", 1.5, "above 1"), ("feature_dim", 2, "fewer than C"),
                 ("avg_degree", 0.0, "zero degree"), ("homophily", "high", "text")]),
    Probe(graphs.edge_homophily, valid=lambda: {"edge_index": EDGES, "y": LABELS[:3]},
          extra=[("edge_index", torch.zeros(3, 2, dtype=torch.long), "shape (3, 2)"),
                 ("y", LABELS[:3].float(), "float"),
                 ("edge_index", torch.tensor([[0, 5], [5, 0]]), "a node past n"),
                 ("edge_index", torch.zeros(2, 0, dtype=torch.long), "no edge")]),
    Probe(graphs.random_node_split, valid=lambda: {"y": LABELS, "train_frac": 0.3, "val_frac": 0.2, "seed": 0},
          extra=[("val_frac", 0.8, "fractions summing past 1"), ("y", LABELS.float(), "float labels"),
                 ("y", LABELS[None], "two dimensions"), ("balanced", "yes", "not a bool"),
                 ("train_frac", 0.0, "zero")]),
    Probe(graphs.edge_index_from_networkx, valid=lambda: {"G": nx.cycle_graph(4)},
          extra=[("G", EDGES, "a tensor, not a graph")]),
    Probe(graphs.dense_to_edge_index, valid=lambda: {"adj": _adj()},
          extra=[("adj", torch.zeros(3, 4), "not square"), ("adj", torch.zeros(4), "one dimension")]),
    Probe(graphs.to_dense_batch, valid=lambda: {"graphs": [nx.cycle_graph(4), (EDGES, 3)], "n_max": 5,
                                                "device": "cpu"},
          extra=[("graphs", [], "no graph"), ("graphs", "ab", "a string"), ("n_max", 3, "n_max below a graph"),
                 ("graphs", [(EDGES, 2)], "an edge past num_nodes"), ("graphs", [(EDGES, 0)], "zero nodes"),
                 ("graphs", [3], "not a graph")]),
    Probe(graphs.erdos_renyi_graphs, valid=lambda: {"num_graphs": 2, "n_range": (4, 6), "p_range": (0.2, 0.4),
                                                    "seed": 0},
          extra=[("n_range", (6, 4), "lo above hi"), ("p_range", (0.5, 2.0), "p above 1"),
                 ("n_range", (4.5, 6), "float bound"), ("p_range", (math.nan, 0.5), "NaN bound"),
                 ("n_range", 5, "a number")]),
    Probe(graphs.random_regular_graphs, valid=lambda: {"num_graphs": 2, "n": 6, "d": 3, "seed": 0},
          skip={"d": "0-regular graphs are valid (-1 is probed below)"},
          extra=[("d", -1, "negative degree"), ("d", 7, "degree past n"), ("n", 5, "odd n*d")]),
    Probe(graphs.cycle_union, valid=lambda: {"lengths": [3, 4]},
          extra=[("lengths", [2], "a 2-cycle"), ("lengths", [], "no cycle"), ("lengths", [3.5], "float length"),
                 ("lengths", 3, "a number")]),
    Probe(graphs.hard_pair, valid=lambda: {"name": "2C3_C6"}, extra=[("name", "petersen", "unknown pair")]),
    # ---- data.priors
    Probe(priors.make_generator, valid=lambda: {"generator": None, "seed": 0, "device": "cpu"},
          extra=[("generator", 3, "not a generator"), ("seed", 1.5, "float seed")]),
    Probe(priors.sample_inputs, valid=lambda: {"B": 2, "n": 5, "d": 3, "g": _gen(), "device": "cpu"},
          extra=[("g", 3, "not a generator"), ("B", 2.0, "float B")]),
    Probe(priors.standardize, valid=lambda: {"X": _rand(2, 5, 3), "n_ctx": 3, "eps": 1e-6},
          extra=[("n_ctx", 6, "more context rows than rows"), ("X", _rand(5, 3), "two dimensions"),
                 ("eps", 0.0, "zero eps")]),
    Probe(priors.linear_logistic, valid=lambda: dict(PRIOR), skip=N_QRY,
          extra=[*SIZES, ("a_range", (0.0, 1.0), "zero bound"), ("a_range", (1.0, math.inf), "infinite bound"),
                 ("a_range", (2.0, 1.0), "lo above hi"), ("generator", 3, "not a generator")]),
    Probe(priors.mlp_scm, valid=lambda: {**PRIOR, "task": "reg", "hidden": 4, "noise_sd": 0.1}, skip=N_QRY,
          extra=[*SIZES, ("task", "rank", "unknown task"), ("hidden", 1, "one hidden unit"),
                 ("noise_sd", -1.0, "negative")]),
    Probe(priors.gp_rbf, valid=lambda: {**PRIOR, "d": 2, "heteroscedastic": True}, skip=N_QRY,
          extra=[*SIZES, ("lengthscale_range", (0.0, 1.0), "zero bound"), ("lengthscale_range", (1.0, math.nan), "NaN"),
                 ("heteroscedastic", 1, "not a bool")]),
    Probe(priors.mixture, valid=lambda: {"names": ["linear_logistic", "mlp_scm"], "weights": [0.5, 0.5], "task": "cls"},
          extra=[("weights", [math.nan, 1.0], "a NaN weight"), ("weights", [1.0], "one weight too few"),
                 ("names", [], "no prior"), ("names", ["gp_rbf"], "a regression prior for cls"),
                 ("task", "rank", "unknown task"), ("names", "mlp_scm", "a string"),
                 ("weights", [-1.0, 2.0], "negative")]),
]

