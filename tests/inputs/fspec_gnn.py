"""Bad-input probes of FSpecGNN (icml26.papers.fspec_gnn; see tests/inputs/harness.py)."""

import networkx as nx
import numpy as np
import torch
from harness import Probe

from icml26.data import graphs as gdata
from icml26.nn.spectral import dense_normalized_laplacian, normalized_laplacian
from icml26.papers.fspec_gnn import baselines, counting, experiment, explore, method

DT = torch.float64


def _batch():
    """Two padded graphs (a triangle with a tail, a 4-cycle) as a float (2, 5, 5) adjacency and its mask."""
    return gdata.to_dense_batch([nx.lollipop_graph(3, 2), nx.cycle_graph(4)], n_max=5)


def _spectrum(n=5):
    adj = torch.tensor(nx.to_numpy_array(nx.cycle_graph(n)), dtype=DT)
    lap = dense_normalized_laplacian(adj)
    return lap, torch.linalg.eigh(lap)[1].contiguous()


def _x(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=DT)


def _chain(n=6):
    e = torch.stack([torch.arange(n - 1), torch.arange(1, n)])
    return torch.cat([e, e.flip(0)], 1)


def _lite(basis="chebii"):
    model = method.FSpecLite(3, 4, 3, basis=basis, K=2, alpha_init=0.0).eval()
    model.gat.bias = None
    return model


def _node_inputs():
    g = gdata.csbm(16, 2, 4.0, 0.5, feature_dim=3, seed=0)
    masks = gdata.random_node_split(g.y, 0.25, 0.25, seed=0)
    lap = normalized_laplacian(g.edge_index, g.num_nodes)
    return g, lap, baselines.gcn_operator(g.edge_index, g.num_nodes), masks


NODE = _node_inputs()
LAP_NAN = torch.sparse_coo_tensor(NODE[1].indices(), torch.full_like(NODE[1].values(), float("nan")),
                                  NODE[1].shape, check_invariants=False)
TRAIN = {"lr": 0.01, "weight_decay": 5e-4, "epochs": 2, "patience": 5}
DENSE = {"channels": 4, "layers": 1, "gin_layers": 1, "epochs": 1, "lr": 5e-3, "batch_size": 4}
COUNT = {"n_train": 4, "n_val": 2, "n_test": 2, "n_range": (4, 6), "p_range": (0.3, 0.5), **DENSE,
         "tasks": ("triangle",), "models": ("gin",)}
EDGE = {"n_random": 2, "n_cycles": 1, "n_hard": 1, "n_range": (6, 6), "p_range": (0.3, 0.5), **DENSE,
        "models": ("gin",)}
HET = {**experiment.CONFIGS["quick"]["heterophily"], "num_nodes": 24, "homophily": (0.5,), "feature_dim": 4,
       "hidden": 4, "epochs": 2, "models": ("mlp",)}
SCALE = {**experiment.CONFIGS["quick"]["scalability"], "sizes": (20, 30), "reps": 1, "hidden": 4, "dense_n": 10,
         "dense_d": 2}
FAKE = {"counting": {"mae": {"fspec": {"triangle": 0.1}, "gin": {"triangle": 0.4}}, "tasks": ["triangle"]},
        "edge": {"hard_mae": {"fspec": 0.01, "gin": 1.0}},
        "heterophily": {"homophily": [0.1, 0.5], "acc": {"fspec_cheb": [60.0, 80.0]}, "alpha": [0.2, 0.1]},
        "scalability": {"sizes": [100, 200], "epoch_s": [0.01, 0.02], "time_ratio": 2.0}}
BAD_ADJ = ("adj", torch.zeros(2, 5, 4), "not square")
BAD_MASK = ("mask", torch.ones(2, 5), "a float mask")
SEED = ("seed", 1.5, "float seed")

PROBES = [
    # ---- method
    Probe(method.padded_eigh, valid=lambda: {"adj": _batch()[0], "mask": _batch()[1]},
          extra=[BAD_ADJ, BAD_MASK, ("dtype", torch.int64, "an integer dtype"),
                 ("adj", -_batch()[0], "negative weights"), ("adj", torch.triu(_batch()[0]), "not symmetric")]),
    Probe(method.full_spectrum_conv, valid=lambda: {"U": _spectrum()[1], "X": _x(5, 5), "G": _x(5, 5, seed=1)},
          extra=[("X", _x(4, 4), "X of the wrong size"), ("G", _x(5, 4), "G of the wrong size"),
                 ("U", _x(5, 4), "U not square"), ("U", np.eye(5), "a numpy U")]),
    Probe(method.kron_full_spectrum, valid=lambda: {"U": _spectrum()[1], "X": _x(5, 5), "G": _x(5, 5, seed=1)},
          extra=[("X", _x(5, 5, 2), "two channels")]),
    Probe(method.separable_full_spectrum,
          valid=lambda: {"lap": _spectrum()[0], "X": _x(5, 5), "left": [lambda L, Z: L @ Z],
                         "right": [lambda L, Z: Z]},
          extra=[("left", [3], "not callable"), ("right", [], "no filter"), ("X", _x(4, 4), "X of the wrong size"),
                 ("lap", _x(5, 4), "lap not square")]),
    Probe(method.shortest_path_distances, valid=lambda: {"adj": _batch()[0], "mask": _batch()[1], "max_dist": 3},
          extra=[BAD_ADJ, BAD_MASK, ("max_dist", 2.5, "float distance")]),
    Probe(method.pair_type_labels, valid=lambda: {"adj": _batch()[0], "mask": _batch()[1]},
          extra=[BAD_ADJ, BAD_MASK, ("adj", [[0, 1], [1, 0]], "a list")]),
    Probe(method.BivariateFilter, valid=lambda: {"channels": 4, "kind": "fourier"},
          extra=[("kind", "spline", "unknown kind"), ("channels", 1, "one channel"), ("channels", 4.0, "float")]),
    Probe(method.BSGL, valid=lambda: {"channels": 4, "filter_kind": "mlp"},
          extra=[("filter_kind", "spline", "unknown kind"), ("channels", 1, "one channel")]),
    Probe(method.DenseFSpecGNN, valid=lambda: {"channels": 4, "layers": 1, "out_dim": 2, "level": "edge",
                                               "pair_input": "adj", "max_spd": 3},
          extra=[("level", "pair", "unknown level"), ("pair_input", "rwse", "unknown pair input"),
                 ("filter_kind", "spline", "unknown filter"), ("channels", 1, "one channel"),
                 ("layers", 1.5, "float layers")]),
    Probe(method.GATLayer, valid=lambda: {"in_channels": 3, "out_channels": 2, "heads": 2, "dropout": 0.1},
          extra=[("dropout", 1.0, "dropout 1"), ("dropout", -0.1, "negative dropout")]),
    Probe(method.FSpecLite, valid=lambda: {"in_channels": 3, "hidden": 4, "num_classes": 2, "K": 1, "heads": 1,
                                           "alpha_init": -2.0, "dropout": 0.5, "dprate": 0.5, "att_dropout": 0.1},
          skip={"K": "K = 0 is a valid (constant) polynomial filter"},
          extra=[("basis", "legendre", "unknown basis"), ("K", -1, "negative order"), ("dprate", 1.5, "above 1"),
                 ("att_dropout", 1.0, "dropout 1"), ("hidden", 2.5, "float hidden")]),
    Probe(method.lite_dense_reference, valid=lambda: {"model": _lite(), "h": _x(6, 3).float(),
                                                      "lap": normalized_laplacian(_chain(), 6).to_dense(),
                                                      "edge_index": _chain()},
          extra=[("model", method.FSpecLite(3, 4, 3, basis="cheb"), "a vector basis"), ("model", 3, "not a model"),
                 ("lap", torch.eye(5), "lap of the wrong size"),
                 ("lap", torch.sparse_coo_tensor(torch.zeros(2, 1, dtype=torch.long), torch.tensor([float("nan")]),
                                                 (6, 6), check_invariants=False), "sparse lap with NaN"),
                 ("edge_index", _chain().float(), "float edge_index"),
                 ("edge_index", _chain() + 10, "out-of-range node"), ("h", _x(6), "1-D h")]),
    Probe(method.pair_tensor_bytes, valid=lambda: {"num_nodes": 10, "channels": 4, "dtype": torch.float64},
          extra=[("dtype", "float32", "a string dtype"), ("num_nodes", 2.5, "float size")]),
    # ---- baselines
    Probe(baselines.DenseGIN, valid=lambda: {"channels": 4, "layers": 1, "out_dim": 1, "level": "graph"},
          extra=[("level", "pair", "unknown level"), ("channels", 2.5, "float channels")]),
    Probe(baselines.DenseSpecGNN, valid=lambda: {"channels": 4, "layers": 1, "out_dim": 1, "level": "node"},
          extra=[("level", "pair", "unknown level")]),
    Probe(baselines.DenseLocal2GNN, valid=lambda: {"channels": 4, "layers": 1, "out_dim": 1, "level": "edge"},
          extra=[("level", "pair", "unknown level"), ("channels", 1, "one channel")]),
    Probe(baselines.gcn_operator, valid=lambda: {"edge_index": _chain(), "num_nodes": 6},
          extra=[("edge_index", _chain().float(), "float edge_index"), ("edge_index", _chain()[:1], "one row"),
                 ("edge_index", _chain() + 10, "out-of-range node"), ("dtype", torch.int64, "an integer dtype"),
                 ("num_nodes", 3, "fewer nodes than the edges name")]),
    Probe(baselines.MLP, valid=lambda: {"in_channels": 3, "hidden": 4, "num_classes": 2, "dropout": 0.5},
          extra=[("dropout", 1.0, "dropout 1")]),
    Probe(baselines.GCN, valid=lambda: {"in_channels": 3, "hidden": 4, "num_classes": 2, "dropout": 0.5},
          extra=[("dropout", -0.5, "negative dropout")]),
    Probe(baselines.GAT, valid=lambda: {"in_channels": 3, "hidden": 4, "num_classes": 2, "heads": 2,
                                        "dropout": 0.5}),
    Probe(baselines.spectral_baseline, valid=lambda: {"in_channels": 3, "hidden": 4, "num_classes": 2,
                                                      "basis": "bern", "K": 2, "dropout": 0.5, "dprate": 0.5},
          skip={"K": "K = 0 is a valid (constant) polynomial filter"},
          extra=[("basis", "legendre", "unknown basis"), ("K", -1, "negative order")]),
    # ---- counting
    Probe(counting.node_triangles, valid=lambda: {"adj": _batch()[0]},
          extra=[("adj", torch.zeros(2, 3), "not square"), ("adj", 2 * _batch()[0], "weights other than 0/1"),
                 ("adj", [[0, 1], [1, 0]], "a list")]),
    Probe(counting.node_four_cycles, valid=lambda: {"adj": _batch()[0]},
          extra=[("adj", torch.triu(_batch()[0]), "not symmetric"), ("adj", torch.eye(3), "self-loops")]),
    Probe(counting.edge_triangles, valid=lambda: {"adj": _batch()[0][0]},
          extra=[("adj", torch.zeros(5), "1-D")]),
    Probe(counting.brute_force_node_cycles, valid=lambda: {"G": nx.cycle_graph(5), "length": 4},
          extra=[("length", 2, "length 2"), ("length", 4.0, "float length"), ("G", np.eye(3), "not a graph"),
                 ("G", nx.relabel_nodes(nx.cycle_graph(4), {0: "a"}), "nodes not 0..n-1")]),
    # ---- experiment
    Probe(experiment.identities, valid=lambda: {"cfg": {"n": 6}, "device": "cpu", "seed": 0},
          extra=[("cfg", {"n": 1}, "one node"), ("cfg", {}, "no n"), ("cfg", 6, "not a mapping"), SEED]),
    Probe(experiment.expressivity, valid=lambda: {"cfg": {"channels": 4}, "device": "cpu", "seed": 0},
          extra=[("cfg", {"channels": 1}, "one channel"), SEED]),
    Probe(experiment.learned_counting, valid=lambda: {"cfg": dict(COUNT), "device": "cpu", "seed": 0},
          extra=[("cfg", {**COUNT, "tasks": ("cycle5",)}, "unknown task"),
                 ("cfg", {**COUNT, "models": ()}, "no model"), ("cfg", {**COUNT, "models": ("gcn",)}, "node model"),
                 ("cfg", {**COUNT, "n_range": (6, 4)}, "lo > hi"), ("cfg", {**COUNT, "p_range": (0.5, 1.5)}, "p > 1"),
                 ("cfg", {**COUNT, "epochs": 0}, "no epoch"), ("cfg", {**COUNT, "lr": float("nan")}, "NaN lr"),
                 ("cfg", {**COUNT, "n_train": 1}, "one training graph"),
                 ("cfg", {**COUNT, "normalise": "max"}, "unknown normalisation"),
                 ("cfg", {"n_train": 4}, "incomplete config")]),
    Probe(experiment.edge_separation, valid=lambda: {"cfg": dict(EDGE), "device": "cpu", "seed": 0},
          extra=[("cfg", {**EDGE, "n_range": (4, 5)}, "too small for the 6-node hard pair"),
                 ("cfg", {**EDGE, "n_random": -1}, "negative count"),
                 ("cfg", {**EDGE, "n_random": 0, "n_cycles": 0, "n_hard": 0}, "no graph"),
                 ("cfg", {**EDGE, "batch_size": 0}, "zero batch")]),
    Probe(experiment.train_node_model,
          valid=lambda: {"model": baselines.MLP(3, 4, 2), "g": NODE[0], "lap": NODE[1], "gcn_op": NODE[2],
                         "masks": NODE[3], "cfg": dict(TRAIN), "seed": 0},
          skip={"lap": "a sparse operator (its NaN is probed by extra)",
                "gcn_op": "a sparse operator (its NaN is probed by extra)"},
          extra=[("lap", LAP_NAN, "NaN in the sparse lap"), ("lap", torch.eye(3), "lap of the wrong size"),
                 ("model", "mlp", "not a module"), ("g", NODE[0].x, "not a NodeGraph"),
                 ("masks", NODE[3][:2], "two masks"), ("masks", (NODE[3][0], NODE[3][1], NODE[3][2].float()),
                                                       "a float mask"),
                 ("masks", (torch.zeros(16, dtype=torch.bool), NODE[3][1], NODE[3][2]), "no training node"),
                 ("cfg", {**TRAIN, "epochs": 0}, "no epoch"), ("cfg", {**TRAIN, "patience": -1}, "negative patience"),
                 ("cfg", {"lr": 0.01}, "incomplete config"), SEED]),
    Probe(experiment.heterophily, valid=lambda: {"cfg": dict(HET), "device": "cpu", "seed": 0},
          extra=[("cfg", {**HET, "homophily": (1.5,)}, "homophily above 1"), ("cfg", {**HET, "homophily": ()}, "none"),
                 ("cfg", {**HET, "models": ("fspec_legendre",)}, "unknown model"),
                 ("cfg", {**HET, "train_frac": 0.6, "val_frac": 0.5}, "no test nodes"),
                 ("cfg", {**HET, "mode": "ring"}, "unknown mode"), ("cfg", {**HET, "feature_dim": 2}, "F < C"),
                 ("cfg", {**HET, "dropout": 1.0}, "dropout 1")]),
    Probe(experiment.scalability, valid=lambda: {"cfg": dict(SCALE), "device": "cpu", "seed": 0},
          extra=[("cfg", {**SCALE, "sizes": ()}, "no size"), ("cfg", {**SCALE, "sizes": (0, 10)}, "zero nodes"),
                 ("cfg", {**SCALE, "reps": 0}, "no repetition")]),
    Probe(experiment.run, valid=lambda: {"config": {"sections": ("identities",), "identities": {"n": 6}},
                                         "device": "cpu", "seed": 0},
          extra=[("config", {"sections": ("identities",)}, "no settings for the section"),
                 ("config", {"sections": ("training",), "training": {}}, "unknown section"),
                 ("config", {"sections": "identities", "identities": {"n": 6}}, "sections as a string"),
                 ("config", {"sections": ("identities", "counting"), "identities": {"n": 6},
                             "counting": {**COUNT, "epochs": 0}}, "a bad later section"),
                 SEED]),
    # ---- explore
    Probe(explore.bivariate_filter, valid=lambda: {"li": np.linspace(0, 2, 5)[:, None],
                                                   "lj": np.linspace(0, 2, 5)[None, :], "preset": "band",
                                                   "width": 0.5},
          extra=[("preset", "notch", "unknown preset"), ("width", 0.0, "zero width"), ("li", "abc", "text")]),
    Probe(explore.plot_bivariate_filter, valid=lambda: {"preset": "separable", "width": 0.5, "graph": "cycle C8"},
          extra=[("graph", "K5", "unknown graph"), ("preset", "notch", "unknown preset"),
                 ("width", -1.0, "negative width")]),
    Probe(explore.hard_pair_readouts, valid=lambda: {"pair": "2C3_C6", "channels": 4, "seed": 0},
          extra=[("pair", "C4_C5", "unknown pair"), ("channels", 1, "one channel"), SEED]),
    Probe(explore.plot_hard_pair, valid=lambda: {"pair": "2C3_C6", "seed": 0, "channels": 4},
          extra=[("pair", "C4_C5", "unknown pair"), ("channels", 1, "one channel")]),
    Probe(explore.separable_error, valid=lambda: {"preset": "off-diagonal", "width": 0.5, "n": 8},
          extra=[("n", 1, "one grid point"), ("preset", "notch", "unknown preset")]),
    Probe(explore.plot_rank, valid=lambda: {"rank": 2, "preset": "band", "width": 0.5},
          extra=[("rank", 65, "rank above the grid size"), ("rank", 1.5, "float rank"),
                 ("preset", "notch", "unknown preset")]),
    Probe(explore.plot_counting, valid=lambda: {"results": FAKE},
          extra=[("results", {"counting": FAKE["counting"]}, "no edge section"),
                 ("results", {**FAKE, "counting": {"mae": {}}}, "no tasks"), ("results", [1], "a list")]),
    Probe(explore.plot_heterophily, valid=lambda: {"results": FAKE},
          extra=[("results", {}, "no heterophily section"),
                 ("results", {"heterophily": {"acc": {}}}, "incomplete section")]),
    Probe(explore.plot_scalability, valid=lambda: {"results": FAKE},
          extra=[("results", {}, "no scalability section"),
                 ("results", {"scalability": {**FAKE["scalability"], "epoch_s": []}}, "no epoch time")]),
]
EXEMPT = {}
