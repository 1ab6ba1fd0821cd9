"""FSpecGNN experiments (docs/papers/fspec_gnn.md §5): identities (F1),
expressivity (F2), learned counting (F3), edge-level separation (F4), heterophily on contextual SBMs (F5)
and scalability (F6).

``run(config, device, seed)`` runs the sections named in ``config["sections"]`` and returns plain numbers.
"""

from __future__ import annotations

import copy
import math
import time

import networkx as nx
import numpy as np
import torch
from torch import nn

from icml26 import checks, progress
from icml26.data import graphs as gdata
from icml26.nn.spectral import (
    chebyshev_filter,
    chebyshev_response,
    dense_normalized_laplacian,
    normalized_laplacian,
)
from icml26.papers.fspec_gnn import baselines, counting
from icml26.papers.fspec_gnn.method import (
    DenseFSpecGNN,
    FSpecLite,
    full_spectrum_conv,
    kron_full_spectrum,
    lite_dense_reference,
    padded_eigh,
    pair_tensor_bytes,
    separable_full_spectrum,
)

SECTIONS = ("identities", "expressivity", "counting", "edge", "heterophily", "scalability")

_COUNT = {"n_train": 100, "n_val": 30, "n_test": 50, "n_range": (6, 10), "p_range": (0.15, 0.4),
          "channels": 16, "layers": 2, "gin_layers": 3, "epochs": 40, "lr": 5e-3, "batch_size": 25,
          "tasks": ("triangle",), "models": ("fspec_adj", "local2", "gin", "spec", "fspec"),
          "normalise": "graph_std"}
_EDGE = {"n_random": 60, "n_cycles": 30, "n_hard": 10, "n_range": (6, 10), "p_range": (0.15, 0.4),
         "channels": 16, "layers": 2, "gin_layers": 3, "epochs": 80, "lr": 5e-3, "batch_size": 25,
         "models": ("fspec_adj", "gin", "fspec")}
_HET = {"num_nodes": 400, "num_classes": 4, "avg_degree": 10.0, "feature_dim": 16, "mean_sep": 1.0,
        "homophily": (0.05, 0.8), "mode": "random", "seeds": 1, "train_frac": 0.1, "val_frac": 0.1,
        "hidden": 64, "K": 2, "heads": 1, "alpha_init": -2.0, "dropout": 0.5, "dprate": 0.5, "lr": 0.01,
        "weight_decay": 5e-4, "epochs": 40, "patience": 50, "models": ("fspec_cheb", "chebnet", "gcn")}
_SCALE = {"sizes": (1000, 4000), "avg_degree": 10.0, "reps": 3, "hidden": 64, "K": 2, "num_classes": 4,
          "dense_n": 2000, "dense_d": 16}

CONFIGS = {
    # quick: the CI run (about 40 s per seed on a shared 2-core CPU). standard: about 4-9 minutes per seed on 2 CPU
    # cores (counting ~70 s CPU for four models, edge ~20 s, heterophily the rest).
    # full (estimate only, never run here: no GPU was available). Dense steps are kernel-latency bound on a GPU at
    # these sizes (one BSGL conv at B=256, n=30, d=150 is 2 x 256 x 30^3 x 150 ~ 2 GFLOP); we assume ~8 ms per
    # train step with backward for every dense model. counting: 5000/256 = 20 batches x 200 epochs x 5 models =
    # 20,000 steps ~ 160 s; edge: 2600/128 = 21 batches x 150 epochs x 3 models ~ 9,500 steps ~ 76 s. heterophily:
    # 4 h x 3 graphs x 6 models = 72 trainings; the official stopping rule ends most after 300-500 epochs; one epoch
    # (train + eval forward, 50k nodes, 500k edges, K = 5, two filters, GAT) ~ 4 ms -> 72 x 500 x 4 ms ~ 144 s.
    # scalability and the rest ~ 20 s. Total ~ 400 s, inside the 10-minute budget with ~1.5x slack for the guesses.
    "quick": {
        "sections": SECTIONS, "identities": {"n": 12}, "expressivity": {"channels": 32},
        "counting": dict(_COUNT), "edge": dict(_EDGE), "heterophily": dict(_HET), "scalability": dict(_SCALE),
    },
    "standard": {
        "sections": SECTIONS, "identities": {"n": 12}, "expressivity": {"channels": 32},
        "counting": {**_COUNT, "n_train": 300, "n_val": 100, "n_test": 100, "n_range": (8, 14), "channels": 32,
                     "epochs": 150, "lr": 3e-3, "batch_size": 100, "tasks": ("triangle", "cycle4")},
        "edge": {**_EDGE, "n_random": 150, "n_cycles": 60, "n_hard": 20, "n_range": (6, 12), "channels": 32,
                 "epochs": 80},
        "heterophily": {**_HET, "num_nodes": 2000, "homophily": (0.05, 0.2, 0.5, 0.8), "seeds": 3, "epochs": 1000,
                        "patience": 200, "stopping": "official", "models": ("fspec_cheb", "chebnet", "gcn", "mlp")},
        "scalability": {**_SCALE, "reps": 5},
    },
    "full": {
        "sections": SECTIONS, "identities": {"n": 12}, "expressivity": {"channels": 64},
        "counting": {**_COUNT, "n_train": 5000, "n_val": 1000, "n_test": 1000, "n_range": (10, 30), "channels": 150,
                     "epochs": 200, "lr": 1e-3, "batch_size": 256, "tasks": ("triangle", "cycle4")},
        "edge": {**_EDGE, "n_random": 2000, "n_cycles": 500, "n_hard": 50, "n_range": (6, 20), "channels": 64,
                 "epochs": 150, "lr": 1e-3, "batch_size": 128},
        "heterophily": {**_HET, "num_nodes": 50000, "homophily": (0.05, 0.2, 0.5, 0.8), "seeds": 3, "epochs": 1000,
                        "patience": 200, "stopping": "official", "hidden": 64, "K": 5,
                        "models": ("fspec_cheb", "chebnet", "fspec_chebii", "chebnetii", "gcn", "mlp")},
        "scalability": {**_SCALE, "sizes": (10000, 40000), "reps": 10},
    },
}


COUNT_MODELS = ("fspec", "fspec_adj", "local2", "gin", "spec")
NODE_MODELS = ("fspec_cheb", "fspec_chebii", "fspec_bern", "chebnet", "chebnetii", "bernnet", "gcn", "mlp", "gat")


def _choices(name, value, allowed):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") or not list(value):
        raise ValueError(f"{name} must be a non-empty list drawn from {allowed}; got {value!r}")
    for v in value:
        checks.one_of(name, v, allowed)


def _int_range(name, value, low):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"{name} must be a pair (lo, hi); got {value!r}")
    lo, hi = checks.int_at_least(name, value[0], 1), checks.int_at_least(name, value[1], low)
    if lo > hi:
        raise ValueError(f"{name} must have lo <= hi; got {value!r}")


def _prob_range(name, value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"{name} must be a pair (lo, hi) of probabilities; got {value!r}")
    lo, hi = checks.probability(name, value[0]), checks.probability(name, value[1])
    if lo > hi:
        raise ValueError(f"{name} must have lo <= hi; got {value!r}")


def _check_dense_training(cfg, name):
    checks.int_at_least(f"{name}['channels']", cfg["channels"], 2)
    checks.positive_int(f"{name}['layers']", cfg["layers"])
    checks.positive_int(f"{name}['gin_layers']", cfg["gin_layers"])
    checks.positive_int(f"{name}['epochs']", cfg["epochs"])
    checks.positive_number(f"{name}['lr']", cfg["lr"])
    checks.positive_int(f"{name}['batch_size']", cfg["batch_size"])
    _choices(f"{name}['models']", cfg["models"], COUNT_MODELS)


def _check_identities(cfg, name="cfg"):
    checks.config(name, cfg, required=("n",))
    checks.int_at_least(f"{name}['n']", cfg["n"], 2)


def _check_expressivity(cfg, name="cfg"):
    checks.config(name, cfg, required=("channels",))
    checks.int_at_least(f"{name}['channels']", cfg["channels"], 2)


def _check_counting(cfg, name="cfg"):
    checks.config(name, cfg, required=("n_train", "n_val", "n_test", "n_range", "p_range", "channels", "layers",
                                       "gin_layers", "epochs", "lr", "batch_size", "tasks", "models"))
    checks.int_at_least(f"{name}['n_train']", cfg["n_train"], 2)
    checks.positive_int(f"{name}['n_val']", cfg["n_val"])
    checks.positive_int(f"{name}['n_test']", cfg["n_test"])
    _int_range(f"{name}['n_range']", cfg["n_range"], 1)
    _prob_range(f"{name}['p_range']", cfg["p_range"])
    _choices(f"{name}['tasks']", cfg["tasks"], tuple(counting.TASKS))
    checks.one_of(f"{name}['normalise']", cfg.get("normalise", "graph_std"), ("graph_std", "node_std"))
    _check_dense_training(cfg, name)


def _check_edge(cfg, name="cfg"):
    checks.config(name, cfg, required=("n_random", "n_cycles", "n_hard", "n_range", "p_range", "channels", "layers",
                                       "gin_layers", "epochs", "lr", "batch_size", "models"))
    for k in ("n_random", "n_cycles", "n_hard"):
        checks.nonnegative_int(f"{name}[{k!r}]", cfg[k])
    if cfg["n_random"] + cfg["n_cycles"] + 2 * cfg["n_hard"] < 2:
        raise ValueError(f"{name} must ask for at least two graphs (n_random + n_cycles + 2 n_hard >= 2)")
    _int_range(f"{name}['n_range']", cfg["n_range"], 6)  # the hard pair 2C3 / C6 has 6 nodes
    _prob_range(f"{name}['p_range']", cfg["p_range"])
    _check_dense_training(cfg, name)


def _check_node_training(cfg, name):
    checks.config(name, cfg, required=("lr", "weight_decay", "epochs", "patience"))
    checks.positive_number(f"{name}['lr']", cfg["lr"])
    checks.nonnegative_number(f"{name}['weight_decay']", cfg["weight_decay"])
    checks.positive_int(f"{name}['epochs']", cfg["epochs"])
    checks.nonnegative_int(f"{name}['patience']", cfg["patience"])
    checks.one_of(f"{name}['stopping']", cfg.get("stopping", "patience"), ("patience", "official"))


def _check_heterophily(cfg, name="cfg"):
    checks.config(name, cfg, required=("num_nodes", "num_classes", "avg_degree", "feature_dim", "mean_sep",
                                       "homophily", "mode", "seeds", "train_frac", "val_frac", "hidden", "K", "heads",
                                       "alpha_init", "dropout", "dprate", "lr", "weight_decay", "epochs", "patience",
                                       "models"))
    C = checks.int_at_least(f"{name}['num_classes']", cfg["num_classes"], 2)
    checks.int_at_least(f"{name}['num_nodes']", cfg["num_nodes"], C)
    checks.int_at_least(f"{name}['feature_dim']", cfg["feature_dim"], C)
    checks.positive_number(f"{name}['avg_degree']", cfg["avg_degree"])
    checks.nonnegative_number(f"{name}['mean_sep']", cfg["mean_sep"])
    hs = cfg["homophily"]
    if isinstance(hs, (str, bytes)) or not hasattr(hs, "__len__") or not len(hs):
        raise ValueError(f"{name}['homophily'] must be a non-empty list of probabilities; got {hs!r}")
    for h in hs:
        checks.probability(f"{name}['homophily']", h)
    checks.one_of(f"{name}['mode']", cfg["mode"], ("random", "structured"))
    checks.positive_int(f"{name}['seeds']", cfg["seeds"])
    tr = checks.in_range(f"{name}['train_frac']", cfg["train_frac"], 0.0, 1.0, low_open=True, high_open=True)
    va = checks.in_range(f"{name}['val_frac']", cfg["val_frac"], 0.0, 1.0, low_open=True, high_open=True)
    if tr + va >= 1:
        raise ValueError(f"{name}['train_frac'] + {name}['val_frac'] must be < 1 (test nodes left); got {tr + va:g}")
    checks.positive_int(f"{name}['hidden']", cfg["hidden"])
    checks.nonnegative_int(f"{name}['K']", cfg["K"])
    checks.positive_int(f"{name}['heads']", cfg["heads"])
    checks.finite_number(f"{name}['alpha_init']", cfg["alpha_init"])
    checks.in_range(f"{name}['dropout']", cfg["dropout"], 0.0, 1.0, high_open=True)
    checks.in_range(f"{name}['dprate']", cfg["dprate"], 0.0, 1.0, high_open=True)
    _check_node_training(cfg, name)
    _choices(f"{name}['models']", cfg["models"], NODE_MODELS)


def _check_scalability(cfg, name="cfg"):
    checks.config(name, cfg, required=("sizes", "avg_degree", "reps", "hidden", "K", "num_classes", "dense_n",
                                       "dense_d"))
    C = checks.int_at_least(f"{name}['num_classes']", cfg["num_classes"], 2)
    sizes = cfg["sizes"]
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__len__") or not len(sizes):
        raise ValueError(f"{name}['sizes'] must be a non-empty list of graph sizes; got {sizes!r}")
    for n in sizes:
        checks.int_at_least(f"{name}['sizes']", n, C)
    checks.positive_number(f"{name}['avg_degree']", cfg["avg_degree"])
    checks.positive_int(f"{name}['reps']", cfg["reps"])
    checks.positive_int(f"{name}['hidden']", cfg["hidden"])
    checks.nonnegative_int(f"{name}['K']", cfg["K"])
    checks.positive_int(f"{name}['dense_n']", cfg["dense_n"])
    checks.positive_int(f"{name}['dense_d']", cfg["dense_d"])


_SECTION_CHECKS = {"identities": _check_identities, "expressivity": _check_expressivity, "counting": _check_counting,
                   "edge": _check_edge, "heterophily": _check_heterophily, "scalability": _check_scalability}


def _check_call(device, seed) -> None:
    checks.device("device", device)
    checks.seed("seed", seed)


def _check_config(config) -> None:
    if not isinstance(config, dict) or "sections" not in config:
        raise ValueError("config lacks the key 'sections' (a dict like CONFIGS['quick'])")
    if isinstance(config["sections"], (str, bytes)) or not hasattr(config["sections"], "__iter__"):
        raise ValueError(f"config['sections'] must be a list of section names; got {config['sections']!r}")
    bad = [s for s in config["sections"] if s not in SECTIONS]
    if bad:
        raise ValueError(f"config['sections'] names unknown sections {bad}; known: {SECTIONS}")
    missing = [s for s in config["sections"] if s not in config]
    if missing:
        raise ValueError(f"config lacks the settings of sections {missing}")
    for s in config["sections"]:
        _SECTION_CHECKS[s](config[s], f"config[{s!r}]")


def run(config: dict, device, seed: int) -> dict:
    """Run the configured sections; return a dict of plain numbers (plus ``"seconds"``)."""
    _check_config(config)  # first: it checks config["sections"]
    unselected = set(SECTIONS) - set(config["sections"])
    checks.config_like("config", config, CONFIGS.values(), optional=unselected)  # unselected sections may be absent
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    checks.device("device", device)
    device = torch.device(device)
    t0 = time.perf_counter()
    out = {}
    fns = {"identities": identities, "expressivity": expressivity, "counting": learned_counting,
           "edge": edge_separation, "heterophily": heterophily, "scalability": scalability}
    bar = progress.StageBar(list(config["sections"]) or ["no sections"], desc="fspec_gnn")  # empty: nothing runs
    for name in config["sections"]:
        bar.next(name)
        t = time.perf_counter()
        out[name] = fns[name](config[name], device, seed)
        out[name]["seconds"] = time.perf_counter() - t
    out["seconds"] = time.perf_counter() - t0
    bar.close()
    return out


# ----------------------------------------------------------------------------------------------- F1
def _rotate_within_eigenspaces(lam, U, gen, tol=1e-8):
    """Replace U by U Q with Q a random orthogonal matrix acting inside each eigenspace."""
    U = U.clone()
    i, n = 0, lam.shape[0]
    while i < n:
        j = i + 1
        while j < n and abs(float(lam[j] - lam[i])) < tol:
            j += 1
        if j - i > 1:
            Q, _ = torch.linalg.qr(torch.randn(j - i, j - i, generator=gen, dtype=U.dtype))
            U[:, i:j] = U[:, i:j] @ Q
        i = j
    return U


def identities(cfg, device, seed) -> dict:
    """F1: exact algebra of the full-spectrum convolution (float64 except the float32 lite check)."""
    _check_identities(cfg)
    _check_call(device, seed)
    gen = torch.Generator().manual_seed(seed)
    n = int(cfg["n"])
    G_nx = nx.gnp_random_graph(n, 0.4, seed=seed)
    adj = torch.tensor(nx.to_numpy_array(G_nx), dtype=torch.float64)
    L = dense_normalized_laplacian(adj).to(device)
    lam, U = torch.linalg.eigh(L)
    X = torch.randn(n, n, dtype=torch.float64, generator=gen).to(device)
    G = torch.randn(n, n, dtype=torch.float64, generator=gen).to(device)
    res = {}
    res["kron_err"] = float((kron_full_spectrum(U, X, G) - full_spectrum_conv(U, X, G)).abs().max())
    eye = torch.eye(n, dtype=torch.float64, device=device)
    res["diag_err"] = float((full_spectrum_conv(U, eye, G) - U @ torch.diag(torch.diagonal(G)) @ U.T).abs().max())
    cp = torch.randn(4, dtype=torch.float64, generator=gen).to(device)
    cq = torch.randn(3, dtype=torch.float64, generator=gen).to(device)
    Gsep = chebyshev_response(lam, cp).unsqueeze(1) * chebyshev_response(lam, cq).unsqueeze(0)
    sep = separable_full_spectrum(L, X, [lambda lap, z: chebyshev_filter(lap, z, cp)],
                                  [lambda lap, z: chebyshev_filter(lap, z, cq)])
    res["separable_err"] = float((full_spectrum_conv(U, X, Gsep) - sep).abs().max())
    # (d) scalable layer vs its dense pair-domain reading, float32, eval mode (no dropout)
    torch.manual_seed(seed)
    ei = gdata.edge_index_from_networkx(G_nx).to(device)
    lap32 = normalized_laplacian(ei, n, dtype=torch.float32, device=device)
    h = torch.randn(n, 3, generator=gen).to(device)
    errs0, errs = [], []
    for basis in ("chebii", "bern"):
        model = FSpecLite(3, 8, 3, basis=basis, K=3, heads=1, alpha_init=0.5).to(device).eval()
        model.gat.bias = None
        with torch.no_grad():
            for p in (model.prop1, model.prop2):  # non-trivial filters (ReLU keeps them >= 0)
                next(p.parameters()).uniform_(0.1, 2.0)
            errs.append(float((model.propagate(h, lap32, ei) - lite_dense_reference(model, h, lap32, ei)).abs().max()))
            model.alpha.fill_(-math.inf)  # σ(α) = 0: the diagonal (classical) case
            ref = lite_dense_reference(model, h, lap32, ei)
            errs0.append(float((model.propagate(h, lap32, ei) - model.prop2(model.prop1(h, lap32), lap32)).abs().max()))
            errs0.append(float((model.propagate(h, lap32, ei) - ref).abs().max()))
    res["lite_sigma0_err"] = max(errs0)
    res["lite_dense_err"] = max(errs)
    # (e) basis invariance on C6 (eigenvalues 0.5 and 1.5 are double)
    c6 = torch.tensor(nx.to_numpy_array(nx.cycle_graph(6)), dtype=torch.float64)
    lam6, U6 = torch.linalg.eigh(dense_normalized_laplacian(c6))
    X6 = torch.randn(6, 6, dtype=torch.float64, generator=gen)
    G6 = torch.sin(3 * lam6).unsqueeze(1) + lam6.unsqueeze(0) ** 2 + lam6.unsqueeze(1) * lam6.unsqueeze(0)
    U6r = _rotate_within_eigenspaces(lam6, U6, gen)
    res["rotation_change"] = float((U6r - U6).abs().max())
    res["basis_invariance_err"] = float((full_spectrum_conv(U6, X6, G6) - full_spectrum_conv(U6r, X6, G6)).abs().max())
    return res


# ----------------------------------------------------------------------------------------------- F2
def _graph_embeddings(model, graphs, device):
    adj, mask = gdata.to_dense_batch(graphs, device=device)
    with torch.no_grad():
        return model.graph_embedding(adj.double(), mask).cpu()


def expressivity(cfg, device, seed) -> dict:
    """F2: relative readout differences ``max|e1 - e2| / max|e|`` of randomly initialised models on 1-WL-hard
    pairs (float64 graph embeddings before the prediction head)."""
    _check_expressivity(cfg)
    _check_call(device, seed)
    d = int(cfg["channels"])
    torch.manual_seed(seed)
    models = {
        "fspec_spd": DenseFSpecGNN(d, 2, pair_input="spd"),
        "fspec_adj": DenseFSpecGNN(d, 2, pair_input="adj"),
        "local2": baselines.DenseLocal2GNN(d, 2),
        "spec": baselines.DenseSpecGNN(d, 2),
        "gin": baselines.DenseGIN(d, 3),
    }
    res = {}
    for pair in gdata.HARD_PAIRS:
        g1, g2 = gdata.hard_pair(pair)
        res[pair] = {}
        for name, m in models.items():
            m = m.double().to(device).eval()
            e = _graph_embeddings(m, [g1, g2], device)
            scale = float(e.abs().max().clamp_min(1e-12))
            res[pair][name] = float((e[0] - e[1]).abs().max()) / scale  # relative: random init sets the scale
    return res


# ----------------------------------------------------------------------------------------------- training (dense)
def _make_dense(name, cfg, out_dim, level):
    d, L = int(cfg["channels"]), int(cfg["layers"])
    if name == "fspec":
        return DenseFSpecGNN(d, L, out_dim, level, pair_input="spd")
    if name == "fspec_adj":
        return DenseFSpecGNN(d, L, out_dim, level, pair_input="adj")
    if name == "local2":
        return baselines.DenseLocal2GNN(d, L, out_dim, level)
    if name == "gin":
        return baselines.DenseGIN(d, int(cfg["gin_layers"]), out_dim, level)
    if name == "spec":
        return baselines.DenseSpecGNN(d, L, out_dim, level)
    raise ValueError(f"unknown counting model {name!r}; use fspec, fspec_adj, local2, gin or spec")


def _slice_spec(spec, idx):
    return tuple(t[idx] for t in spec)


def _train_dense(model, data, cfg, seed, device):
    """Adam + L1 on masked targets, minibatches, best-validation checkpoint; returns the model (best state)."""
    torch.manual_seed(seed)
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=float(cfg["lr"]))
    tr, va = data["train"], data["val"]
    n_tr = tr["adj"].shape[0]
    bs = int(cfg["batch_size"])
    best, best_state = math.inf, None
    gen = torch.Generator().manual_seed(seed)
    for _epoch in range(int(cfg["epochs"])):
        model.train()
        perm = torch.randperm(n_tr, generator=gen).to(device)
        for s in range(0, n_tr, bs):
            idx = perm[s:s + bs]
            pred = model(tr["adj"][idx], tr["mask"][idx], _slice_spec(tr["spec"], idx))
            w = tr["w"][idx]
            loss = ((pred - tr["y"][idx]).abs() * w).sum() / w.sum().clamp_min(1)
            opt.zero_grad()
            loss.backward()
            opt.step()
        val = _mae(model, va)
        if val < best:
            best, best_state = val, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    return model


def _predict(model, split):
    model.eval()
    with torch.no_grad():
        return model(split["adj"], split["mask"], split["spec"])


def _mae(model, split):
    pred = _predict(model, split)
    w = split["w"]
    return float(((pred - split["y"]).abs() * w).sum() / w.sum().clamp_min(1))


def _split(graphs, device, n_max):
    adj, mask = gdata.to_dense_batch(graphs, n_max=n_max, device=device)
    return {"adj": adj, "mask": mask, "spec": padded_eigh(adj, mask)}


def learned_counting(cfg, device, seed) -> dict:
    """F3: node-level triangle and 4-cycle counts on G(n, p) graphs (targets / std of graph-level counts)."""
    _check_counting(cfg)
    _check_call(device, seed)
    rng_seed = 1000 + seed
    n_all = int(cfg["n_train"]) + int(cfg["n_val"]) + int(cfg["n_test"])
    graphs = gdata.erdos_renyi_graphs(n_all, tuple(cfg["n_range"]), tuple(cfg["p_range"]), seed=rng_seed)
    n_max = int(cfg["n_range"][1])
    cuts = np.cumsum([int(cfg["n_train"]), int(cfg["n_val"])])
    parts = {"train": graphs[:cuts[0]], "val": graphs[cuts[0]:cuts[1]], "test": graphs[cuts[1]:]}
    data = {k: _split(v, device, n_max) for k, v in parts.items()}
    tasks = list(cfg["tasks"])
    per = {"triangle": 3.0, "cycle4": 4.0}  # a graph's count = sum of node counts / pattern size
    raw = {k: torch.stack([counting.TASKS[t](s["adj"], s["mask"]) for t in tasks], -1).float() for k, s in data.items()}
    if cfg.get("normalise", "graph_std") == "graph_std":
        scale = torch.stack([raw["train"][..., i].sum(1).std() / per[t] for i, t in enumerate(tasks)])
    else:
        m = data["train"]["mask"]
        scale = torch.stack([raw["train"][..., i][m].std() for i in range(len(tasks))])
    scale = scale.clamp_min(1e-6)
    for k, s in data.items():
        s["y"] = raw[k] / scale
        s["w"] = s["mask"].unsqueeze(-1).float().expand_as(s["y"])
    res = {"scale": [float(v) for v in scale], "tasks": tasks, "mae": {}}
    for name in cfg["models"]:
        torch.manual_seed(seed)  # same initial-weights seed for every model, independent of earlier sections
        model = _train_dense(_make_dense(name, cfg, len(tasks), "node"), data, cfg, seed, device)
        pred = _predict(model, data["test"])
        err = (pred - data["test"]["y"]).abs()
        m = data["test"]["mask"]
        res["mae"][name] = {t: float(err[..., i][m].mean()) for i, t in enumerate(tasks)}
    return res


# ----------------------------------------------------------------------------------------------- F4
def _random_cycle_union(n, rng):
    parts, left = [], n
    while left >= 3:
        k = int(rng.integers(3, left + 1))
        if left - k in (1, 2):
            k = left
        parts.append(k)
        left -= k
    return gdata.cycle_union(parts)


def edge_separation(cfg, device, seed) -> dict:
    """F4: edge-level triangle counts; MAE on 2C3 and C6 graphs (raw counts) for the MPNN and FSpec."""
    _check_edge(cfg)
    _check_call(device, seed)
    rng = np.random.default_rng(2000 + seed)
    lo, hi = cfg["n_range"]
    er = gdata.erdos_renyi_graphs(int(cfg["n_random"]), (lo, hi), tuple(cfg["p_range"]), seed=3000 + seed)
    cyc = [_random_cycle_union(int(rng.integers(max(lo, 6), hi + 1)), rng) for _ in range(int(cfg["n_cycles"]))]
    hard_a, hard_b = gdata.hard_pair("2C3_C6")
    hard = [hard_a, hard_b] * int(cfg["n_hard"])
    pool = er + cyc + hard
    order = rng.permutation(len(pool))
    pool = [pool[i] for i in order]
    n_val = max(1, len(pool) // 8)
    parts = {"train": pool[n_val:], "val": pool[:n_val], "hard": [hard_a, hard_b]}
    data = {k: _split(v, device, hi) for k, v in parts.items()}
    scale = float(counting.edge_triangles(data["train"]["adj"])[data["train"]["adj"] > 0].std().clamp_min(1e-6))
    for s in data.values():
        s["y"] = (counting.edge_triangles(s["adj"]).float() / scale).unsqueeze(-1)
        s["w"] = (s["adj"] > 0).float().unsqueeze(-1)
    res = {"scale": scale, "hard_mae": {}, "val_mae": {}}
    for name in cfg["models"]:
        torch.manual_seed(seed)
        model = _train_dense(_make_dense(name, cfg, 1, "edge"), data, cfg, seed, device)
        h = data["hard"]
        pred = _predict(model, h) * scale
        e = (h["adj"] > 0)
        res["hard_mae"][name] = float((pred.squeeze(-1) - h["y"].squeeze(-1) * scale).abs()[e].mean())
        res["val_mae"][name] = _mae(model, data["val"]) * scale
    return res


# ----------------------------------------------------------------------------------------------- F5
def _make_node_model(name, cfg, F, C):
    hid, K, dr, dp = int(cfg["hidden"]), int(cfg["K"]), float(cfg["dropout"]), float(cfg["dprate"])
    bases = {"cheb": "cheb", "chebii": "chebii", "bern": "bern"}
    if name.startswith("fspec_"):
        return FSpecLite(F, hid, C, basis=bases[name[6:]], K=K, heads=int(cfg["heads"]),
                         alpha_init=float(cfg["alpha_init"]), dropout=dr, dprate=dp,
                         att_dropout=dr)  # the official GATConv uses the model's dropout on attention
    spectral = {"chebnet": "cheb", "chebnetii": "chebii", "bernnet": "bern"}
    if name in spectral:
        return baselines.spectral_baseline(F, hid, C, spectral[name], K, dr, dp)
    if name == "gcn":
        return baselines.GCN(F, hid, C, dr)
    if name == "mlp":
        return baselines.MLP(F, hid, C, dr)
    if name == "gat":
        return baselines.GAT(F, hid, C, heads=4, dropout=dr)
    raise ValueError(f"unknown node model {name!r}")


def _forward(model, g, lap, gcn_op):
    if isinstance(model, FSpecLite):
        return model(g.x, lap, g.edge_index)
    return model(g.x, lap, g.edge_index, gcn_op)


def _check_node_inputs(model, g, lap, gcn_op, masks) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch nn.Module; got {type(model).__name__}")
    if not isinstance(g, gdata.NodeGraph):
        raise TypeError(f"g must be an icml26.data.graphs.NodeGraph; got {type(g).__name__}")
    checks.tensor("g.x", g.x, ndim=2)
    n = g.num_nodes
    for name, op in (("lap", lap), ("gcn_op", gcn_op)):
        if op is None and name == "gcn_op":
            continue
        if not isinstance(op, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor (dense or sparse); got {type(op).__name__}")
        if tuple(op.shape) != (n, n):
            raise ValueError(f"{name} must be ({n}, {n}) to match g; got {tuple(op.shape)}")
        checks.tensor(name, op.coalesce().values() if op.is_sparse else op, nonempty=False)
    if not isinstance(masks, (tuple, list)) or len(masks) != 3:
        raise ValueError("masks must be a (train, val, test) triple of bool node masks")
    for part, m in zip(("train", "val", "test"), masks):
        checks.tensor(f"masks ({part})", m, shape=(n,), dtype_kind="bool")
        if not bool(m.any()):
            raise ValueError(f"masks: the {part} mask selects no node")


def train_node_model(model, g, lap, gcn_op, masks, cfg, seed):
    """Adam (lr, weight decay), NLL on train nodes, best-validation-loss checkpoint. The same loop for every model.

    Early stopping (``cfg["stopping"]``): ``"patience"`` (default) stops after ``patience`` epochs without a better
    validation loss; ``"official"`` is the rule of the official ``train.py``: after epoch ``patience`` stop as soon as
    the validation loss exceeds the mean of the previous ``patience`` ones. One parameter group: the official code
    uses one for Cheb_GAT and two for ChebII/Bern_GAT whose default learning rates and weight decays are equal, which
    Adam makes identical to one group. Returns (test acc, val acc, epochs)."""
    _check_node_inputs(model, g, lap, gcn_op, masks)
    _check_node_training(cfg, "cfg")
    checks.seed("seed", seed)
    torch.manual_seed(seed)
    train, val, test = masks
    opt = torch.optim.Adam(model.parameters(), lr=float(cfg["lr"]), weight_decay=float(cfg["weight_decay"]))
    best, best_state, since = math.inf, None, 0
    official = cfg.get("stopping", "patience") == "official"
    history = []
    epochs_run = 0
    for ep in range(int(cfg["epochs"])):
        epochs_run = ep + 1
        model.train()
        out = _forward(model, g, lap, gcn_op)
        loss = nn.functional.nll_loss(out[train], g.y[train])
        opt.zero_grad()
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            out = _forward(model, g, lap, gcn_op)
            vl = float(nn.functional.nll_loss(out[val], g.y[val]))
        history.append(vl)
        if vl < best:
            best, best_state, since = vl, copy.deepcopy(model.state_dict()), 0
        else:
            since += 1
        pat = int(cfg["patience"])
        if official:
            if pat > 0 and ep > pat and vl > float(np.mean(history[-(pat + 1):-1])):
                break
        elif since > pat:
            break
    model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        pred = _forward(model, g, lap, gcn_op).argmax(-1)
    acc = lambda m: float((pred[m] == g.y[m]).float().mean())  # noqa: E731
    return acc(test), acc(val), epochs_run


def heterophily(cfg, device, seed) -> dict:
    """F5: test accuracy (%) of FSpec-lite and baselines on CSBM graphs over a homophily sweep."""
    _check_heterophily(cfg)
    _check_call(device, seed)
    res = {"homophily": [float(h) for h in cfg["homophily"]], "acc": {m: [] for m in cfg["models"]},
           "measured_h": [], "alpha": []}
    for h in cfg["homophily"]:
        per = {m: [] for m in cfg["models"]}
        mh, al = [], []
        for r in range(int(cfg["seeds"])):
            s = 100 * seed + r
            g = gdata.csbm(int(cfg["num_nodes"]), int(cfg["num_classes"]), float(cfg["avg_degree"]), float(h),
                           int(cfg["feature_dim"]), float(cfg["mean_sep"]), cfg["mode"], seed=s, device=device)
            mh.append(gdata.edge_homophily(g.edge_index, g.y))
            masks = gdata.random_node_split(g.y, float(cfg["train_frac"]), float(cfg["val_frac"]), seed=s)
            lap = normalized_laplacian(g.edge_index, g.num_nodes, device=device)
            gcn_op = baselines.gcn_operator(g.edge_index, g.num_nodes)
            for m in cfg["models"]:
                torch.manual_seed(s)
                model = _make_node_model(m, cfg, g.x.shape[1], g.num_classes).to(device)
                acc, _, _ = train_node_model(model, g, lap, gcn_op, masks, cfg, s)
                per[m].append(100 * acc)
                if m == "fspec_cheb":
                    al.append(float(model.pair_weight().detach()))
        for m in cfg["models"]:
            res["acc"][m].append(float(np.mean(per[m])))
        res["measured_h"].append(float(np.mean(mh)))
        res["alpha"].append(float(np.mean(al)) if al else float("nan"))
    return res


# ----------------------------------------------------------------------------------------------- F6
def _epoch_time(model, g, lap, reps):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    times = []
    for _ in range(reps + 1):
        t = time.perf_counter()
        out = model(g.x, lap, g.edge_index)
        loss = nn.functional.nll_loss(out, g.y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if g.x.is_cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return float(np.median(times[1:]))


def scalability(cfg, device, seed) -> dict:
    """F6: per-epoch time of FSpec-lite vs n (avg degree fixed) and the memory of one dense pair tensor."""
    _check_scalability(cfg)
    _check_call(device, seed)
    res = {"sizes": [int(n) for n in cfg["sizes"]], "epoch_s": [], "edges": []}
    for n in cfg["sizes"]:
        g = gdata.csbm(int(n), int(cfg["num_classes"]), float(cfg["avg_degree"]), 0.3, seed=seed, device=device)
        lap = normalized_laplacian(g.edge_index, g.num_nodes, device=device)
        torch.manual_seed(seed)
        model = FSpecLite(g.x.shape[1], int(cfg["hidden"]), g.num_classes, "cheb", int(cfg["K"])).to(device)
        res["epoch_s"].append(_epoch_time(model, g, lap, int(cfg["reps"])))
        res["edges"].append(int(g.edge_index.shape[1]))
    res["time_ratio"] = res["epoch_s"][-1] / res["epoch_s"][0]
    res["size_ratio"] = res["sizes"][-1] / res["sizes"][0]
    res["dense_pair_gb"] = pair_tensor_bytes(int(cfg["dense_n"]), int(cfg["dense_d"])) / 1e9
    return res

