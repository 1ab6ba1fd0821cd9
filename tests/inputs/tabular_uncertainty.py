"""Bad-input probes of the tabular-uncertainty paper (icml26.papers.tabular_uncertainty)."""

import numpy as np
import torch
from harness import Probe

from icml26.nn.pfn import TinyPFN
from icml26.papers.tabular_uncertainty import baselines, data, embeddings, experiment, explore, method

NAN = float("nan")


def _rng(seed=0):
    return np.random.default_rng(seed)


def _X(n=40, d=3, seed=0):
    return _rng(seed).uniform(-1, 1, (n, d))


def _y(n=40, seed=1):
    return _rng(seed).normal(size=n)


def _Xt(n=40, d=3, seed=0):
    return torch.as_tensor(_X(n, d, seed), dtype=torch.float32)


def _mlp(d=3):
    torch.manual_seed(0)
    return baselines.MLPRegressor(d, width=8, n_blocks=1)


def _edges():
    return embeddings.compute_bins(_Xt(), 4)


def _tiny_cfg():
    return {**experiment.CONFIGS["quick"], "n_train": 120, "n_val": 10, "n_test": 40, "knn_k": 5, "gbdt_iter": 3,
            "nn": {**experiment.NN, "epochs": 1, "width": 8, "n_blocks": 1},
            "est": {"n_folds": 2, "max_iter": 3, "mlp_epochs": 2}, "models": ["knn"]}


def _results():
    block = {"shares": [0.1, 0.1, 0.2, 0.2, 0.4], "shares_oracle": [0.1, 0.1, 0.2, 0.3, 0.3], "excess": 0.1,
             "excess_by_q": [0.05, 0.06, 0.1, 0.2, 0.3]}
    c1 = {"over_joint": 1.4, "over_joint_by_q": [3.0, 2.0, 1.0, 0.9, 0.8], "over_gbdt": 2.0,
          "over_gbdt_by_q": [5.0, 3.0, 1.5, 1.1, 1.2]}
    return {"c1": c1, "c2": {"mlp": {"excess": 0.2, "excess_by_q": [0.1, 0.1, 0.2, 0.3, 0.5]}, "tabm": block},
            "c3": {"scales": [0.0, 0.5, 1.0], "ratio": [1.0, 1.1, 1.3]}}


def _pfn():
    torch.manual_seed(0)
    return TinyPFN(d_max=4, d_model=8, n_layers=1, n_heads=2, d_ff=16, task="reg")


NOT_RESULTS = ("results", {"runs": {}}, "not this paper's results")
NOT_MODEL = ("model", "mlp", "not a model")
NOT_GEN = ("generator", 3, "not a generator")
WIDE_Q = ("X_query", _X(5, 4), "one column too many")

PROBES = [
    # ---- data
    Probe(data.sine_params, valid=lambda: {"d": 4, "seed": 0}, extra=[("seed", 1.5, "float seed")]),
    Probe(data.hetero_sine, valid=lambda: {"n": 20, "d": 4, "seed": 0, "noise_ratio": 20.0, "noise_scale": 1.0,
                                           "sigma_min": 0.05, "noise_dir": "combo", "draw_seed": 3},
          skip={"draw_seed": "draw seed 0 is valid"},
          extra=[("noise_dir", "diag", "unknown direction"), ("noise_ratio", 0.5, "ratio below 1"),
                 ("noise_scale", -1.0, "negative scale"), ("draw_seed", -1, "negative draw seed"),
                 ("sigma_min", 0.0, "zero sd"), ("d", 3, "d 3 with combo"),
                 ("n", 2.5, "float n")]),
    Probe(data.sawtooth, valid=lambda: {"n": 20, "seed": 0, "k": 4.0, "sigma_low": 0.05, "sigma_high": 0.5, "d": 2},
          extra=[("d", 3, "three inputs"), ("k", 0.0, "zero k"), ("sigma_high", -1.0, "negative sd")]),
    Probe(data.make_dataset, valid=lambda: {"name": "sawtooth", "n": 20, "seed": 0},
          extra=[("name", "friedman", "unknown dataset")]),
    Probe(data.hetero_sine_prior, valid=lambda: {"B": 2, "n_ctx": 5, "n_qry": 3, "d": 2, "seed": 0, "device": "cpu",
                                                 "noise_ratio": (5.0, 30.0), "sigma_min": (0.03, 0.1)},
          skip={"n_qry": "no query rows is valid"},
          extra=[("n_qry", -1, "negative"), ("noise_ratio", (30.0, 5.0), "reversed range"),
                 ("noise_ratio", (NAN, 5.0), "NaN bound"), ("sigma_min", (0.0, 0.1), "zero sd"),
                 ("sigma_min", 0.1, "not a pair"), ("seed", 1.5, "float seed")]),
    # ---- embeddings
    Probe(embeddings.PerFeatureLinear, valid=lambda: {"m": 3, "a": 2, "b": 4}),
    Probe(embeddings.LinearReLUEmbedding, valid=lambda: {"n_features": 3, "d_embedding": 4, "n_layers": 2},
          extra=[("n_layers", 3, "three layers")]),
    Probe(embeddings.PeriodicEmbedding, valid=lambda: {"n_features": 3, "d_embedding": 4, "n_frequencies": 2,
                                                       "frequency_init_scale": 0.1, "lite": False}),
    Probe(embeddings.compute_bins, valid=lambda: {"X": _Xt(), "n_bins": 4},
          extra=[("X", _Xt()[:1], "one row"), ("X", torch.zeros(5, 2, dtype=torch.long), "integer X"),
                 ("X", torch.zeros(5), "1-D")]),
    Probe(embeddings.ple_encode, valid=lambda: {"x": _Xt(5), "edges": _edges()},
          extra=[("x", _Xt(5, 2), "one feature too few"), ("edges", torch.zeros(3, 5), "not increasing"),
                 ("edges", torch.zeros(3, 1), "no bin"), ("x", _Xt(5)[0], "1-D")]),
    Probe(embeddings.PiecewiseLinearEmbedding, valid=lambda: {"edges": _edges(), "d_embedding": 4},
          extra=[("edges", torch.zeros(3, 5), "not increasing"), ("edges", torch.zeros(5), "1-D")]),
    Probe(embeddings.make_embedding, valid=lambda: {"kind": "ple", "n_features": 3, "d_embedding": 4,
                                                    "X_train": _Xt(), "n_frequencies": 2,
                                                    "frequency_init_scale": 0.1, "n_bins": 4},
          extra=[("kind", "xyz", "unknown kind"), ("X_train", None, "ple without training rows"),
                 ("X_train", _X(), "a NumPy array")]),
    # ---- baselines
    Probe(baselines.MLPRegressor, valid=lambda: {"n_features": 3, "width": 8, "n_blocks": 1, "dropout": 0.1,
                                                 "embedding": "lr", "d_embedding": 4, "triplet_weight": 0.1,
                                                 "triplet_kwargs": {"q": 0.2, "margin": 0.5}},
          extra=[("embedding", "xyz", "unknown embedding"), ("dropout", 1.0, "dropout 1"),
                 ("triplet_kwargs", {"q": 0.9}, "q above 0.5"), ("triplet_kwargs", {"p": 1}, "unknown option"),
                 ("triplet_weight", -1.0, "negative weight")]),
    Probe(baselines.EnsembleLinear, valid=lambda: {"k": 2, "a": 3, "b": 4}),
    Probe(baselines.BatchEnsembleLinear, valid=lambda: {"k": 2, "a": 3, "b": 4, "generator": torch.Generator()},
          extra=[NOT_GEN]),
    Probe(baselines.TabM, valid=lambda: {"n_features": 3, "k": 2, "width": 8, "n_blocks": 1, "dropout": 0.1,
                                         "variant": "full"},
          extra=[("variant", "maxi", "unknown variant"), ("dropout", -0.1, "negative dropout")]),
    Probe(baselines.ModernNCA, valid=lambda: {"n_features": 3, "width": 8, "n_blocks": 1, "dropout": 0.1,
                                              "embedding": "plr", "sample_rate": 0.3},
          skip={"n_blocks": "0 blocks (a linear encoder) is valid"},
          extra=[("sample_rate", 0.0, "zero rate"), ("n_blocks", -1, "negative blocks"),
                 ("embedding", "xyz", "unknown embedding")]),
    Probe(baselines.fit_nn, valid=lambda: {"model": _mlp(), "X": _X(), "y": _y(), "X_val": _X(10, seed=2),
                                           "y_val": _y(10, seed=3), "epochs": 1, "lr": 1e-3, "batch_size": 16,
                                           "weight_decay": 0.01, "seed": 0, "device": "cpu"},
          extra=[NOT_MODEL, ("y", _y(10), "row mismatch"), ("patience", 0, "zero patience"), ("lr", 0.0, "zero lr"),
                 ("seed", 1.5, "float seed"), ("X", _X(40, 3)[:, 0], "1-D")]),
    Probe(baselines.predict, valid=lambda: {"model": _mlp(), "X": _X(5), "device": "cpu"}, extra=[NOT_MODEL]),
    Probe(baselines.knn_indices, valid=lambda: {"Z_ref": _Xt(), "Z_q": _Xt(5, seed=1), "k": 3, "exclude_self": False,
                                                "chunk": 4},
          extra=[("Z_q", _Xt(5, 2), "width mismatch"), ("k", 41, "more neighbours than rows"),
                 ("Z_ref", torch.zeros(5, 3, dtype=torch.long), "integer rows"), ("chunk", 2.5, "float chunk")]),
    Probe(baselines.knn_predict, valid=lambda: {"X_train": _X(), "y_train": _y(), "X_query": _X(5, seed=2), "k": 3,
                                                "device": "cpu"},
          extra=[WIDE_Q, ("y_train", _y(10), "row mismatch"), ("k", 41, "more neighbours than rows")]),
    Probe(baselines.fit_gbdt, valid=lambda: {"X": _X(), "y": _y(), "max_iter": 3, "learning_rate": 0.1, "seed": 0},
          extra=[("y", _y(10), "row mismatch"), ("seed", 1.5, "float seed"), ("kw", {"bogus": 1}, "unknown option")]),
    # ---- method
    Probe(method.gbdt_uncertainty, valid=lambda: {"X_train": _X(), "y_train": _y(), "X_query": _X(5, seed=2),
                                                  "n_folds": 2, "max_iter": 3, "delta": 1e-6, "seed": 0},
          extra=[WIDE_Q, ("n_folds", 1, "one fold"), ("var_kwargs", {"bogus": 1}, "unknown GBDT option"),
                 ("y_train", _y(10), "row mismatch")]),
    Probe(method.joint_uncertainty, valid=lambda: {"X_train": _X(), "y_train": _y(), "X_query": _X(5, seed=2),
                                                   "n_iter": 5, "lr": 0.1, "lr_var": 0.03, "max_depth": 2,
                                                   "min_samples_leaf": 5, "val_frac": 0.2, "patience": 3, "seed": 0},
          extra=[WIDE_Q, ("val_frac", 1.0, "no training rows"), ("y_train", _y(10), "row mismatch"),
                 ("n_iter", 2.5, "float rounds")]),
    Probe(method.overstatement, valid=lambda: {"u": np.exp(_y(10)), "var": np.exp(_y(10, seed=2)), "n_groups": 5},
          extra=[("u", -np.exp(_y(10)), "negative estimate"), ("var", np.exp(_y(5)), "length mismatch")]),
    Probe(method.HeteroMLP, valid=lambda: {"n_features": 3, "width": 8, "n_blocks": 1}),
    Probe(method.hetero_mlp_uncertainty, valid=lambda: {"X_train": _X(), "y_train": _y(), "X_query": _X(5, seed=2),
                                                        "width": 8, "n_blocks": 1, "epochs": 1, "warm_epochs": 1,
                                                        "lr": 1e-3, "batch_size": 16, "beta": 0.5, "val_frac": 0.2,
                                                        "seed": 0, "device": "cpu"},
          skip={"warm_epochs": "no warm start (0 epochs) is valid"},
          extra=[WIDE_Q, ("warm_epochs", -1, "negative"), ("val_frac", 1.0, "no training rows"),
                 ("beta", -1.0, "negative beta")]),
    Probe(method.quintile_shares, valid=lambda: {"delta": _y(10), "u": _y(10, seed=2), "n_groups": 5,
                                                 "min_total": 1e-12},
          extra=[("u", _y(5), "length mismatch"), ("delta", _y(3), "fewer rows than groups")]),
    Probe(method.group_means, valid=lambda: {"values": _y(10), "u": _y(10, seed=2), "n_groups": 5},
          extra=[("u", _y(5), "length mismatch")]),
    Probe(method.uncertainty_curve, valid=lambda: {"err_base": _y(10) ** 2, "err_method": _y(10, seed=2) ** 2,
                                                   "u": _y(10, seed=3), "sigma_frac": 0.05},
          extra=[("u", _y(5), "length mismatch")]),
    Probe(method.neighbour_target_mse, valid=lambda: {"Z_train": _X(), "y_train": _y(), "Z_query": _X(5, seed=2),
                                                      "y_query": _y(5, seed=3), "k": 3, "device": "cpu"},
          extra=[("Z_query", _X(5, 4), "width mismatch"), ("y_query", _y(4), "row mismatch"),
                 ("k", 41, "more neighbours than rows")]),
    Probe(method.triplet_loss, valid=lambda: {"z": _Xt(8), "y": torch.linspace(0, 1, 8), "q": 0.2, "margin": 0.5,
                                              "generator": torch.Generator().manual_seed(0)},
          extra=[("y", torch.zeros(7), "row mismatch"), ("q", 0.9, "q above 0.5"), ("margin", -1.0, "negative"),
                 ("z", _Xt(2), "two rows"), NOT_GEN]),
    Probe(method.make_triplet_lrlr, valid=lambda: {"n_features": 3, "triplet_weight": 0.1, "q": 0.2, "margin": 0.5,
                                                   "width": 8},
          extra=[("q", 0.0, "zero q"), ("margin", -1.0, "negative margin"), ("triplet_weight", -1.0, "negative")]),
    Probe(method.gradient_noise_split, valid=lambda: {"model": _mlp(), "X": _X(10), "y": _y(10), "f": _y(10, seed=2)},
          extra=[NOT_MODEL, ("f", _y(5), "row mismatch")]),
    Probe(method.pfn_regress, valid=lambda: {"model": _pfn(), "X_ctx": _X(10, 2), "y_ctx": _y(10),
                                             "X_query": _X(4, 2, seed=2), "device": "cpu"},
          extra=[NOT_MODEL, ("y_ctx", _y(5), "row mismatch"), ("X_query", _X(4, 3), "width mismatch"),
                 ("X_ctx", _X(1, 2), "one context row")]),
    Probe(method.spearman, valid=lambda: {"a": _y(10), "b": _y(10, seed=2)},
          extra=[("b", _y(5), "length mismatch"), ("a", _X(10), "2-D")]),
    Probe(method.excess, valid=lambda: {"pred": _y(10), "f": _y(10, seed=2)}, extra=[("f", _y(5), "shape mismatch")]),
    # ---- experiment
    Probe(experiment.run, valid=lambda: {"config": _tiny_cfg(), "device": "cpu", "seed": 0},
          extra=[("config", {}, "empty config"), ("config", "quick", "a string"),
                 ("config", {**_tiny_cfg(), "models": ["xgb"]}, "unknown model"),
                 ("config", {**_tiny_cfg(), "n_train": 0}, "zero rows"),
                 ("config", {**_tiny_cfg(), "nn": {**_tiny_cfg()["nn"], "lr": NAN}}, "NaN learning rate"),
                 ("config", {**_tiny_cfg(), "noise_dir": "diag"}, "unknown noise direction"),
                 ("config", {**_tiny_cfg(), "variant": {"noise_dir": "axis", "models": ["tabm"]}}, "variant = main"),
                 ("config", {**_tiny_cfg(), "variant": {"noise_dir": "multi", "models": ["nca"]}}, "variant model"),
                 ("config", {**_tiny_cfg(), "real": {"table": "iris", "n_folds": 2, "models": ["gbdt"]}}, "table"),
                 ("config", {**_tiny_cfg(), "real": {"table": "diabetes", "n_folds": 1, "models": ["gbdt"]}}, "1 fold"),
                 ("config", {**_tiny_cfg(), "est": {"n_folds": 1, "max_iter": 3, "mlp_epochs": 1}}, "one fold"),
                 ("config", {**_tiny_cfg(), "c4": {"k": 10, "embedding": "xyz"}}, "unknown C4 embedding"),
                 ("seed", 1.5, "float seed")]),
    # ---- explore
    Probe(explore.plot_uncertainty, valid=lambda: {"noise_ratio": 20.0, "noise_scale": 1.0, "method": "knn",
                                                   "estimator": "oracle", "smoothing": 2.0, "n": 40, "seed": 0},
          extra=[("method", "xgb", "unknown method"), ("estimator", "bayes", "unknown estimator"),
                 ("n", 10, "fewer rows than kNN neighbours"), ("noise_ratio", 0.5, "ratio below 1")]),
    Probe(explore.plot_sawtooth_fit, valid=lambda: {"embedding": "ple", "frequency_scale": 1.0, "n_bins": 4, "n": 30,
                                                    "epochs": 1, "seed": 0},
          extra=[("embedding", "lr", "unknown embedding"), ("n", 3, "no validation rows")]),
    Probe(explore.plot_shares, valid=lambda: {"results": _results(), "oracle": True},
          extra=[NOT_RESULTS, ("results", 3, "an int")]),
    Probe(explore.plot_excess_by_quintile, valid=lambda: {"results": _results()}, extra=[NOT_RESULTS]),
    Probe(explore.plot_estimator_levels, valid=lambda: {"results": _results()}, extra=[NOT_RESULTS]),
    Probe(explore.plot_noise_sweep, valid=lambda: {"results": _results()}, extra=[NOT_RESULTS]),
]
EXEMPT = {"icml26.papers.tabular_uncertainty.data.diabetes": "takes no arguments (loads the bundled table)"}
