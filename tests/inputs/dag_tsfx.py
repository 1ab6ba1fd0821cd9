"""Bad-input probes of DAG (icml26.papers.dag_tsfx): layers, method, baselines, data, experiment and explore."""

import tempfile
from pathlib import Path

import numpy as np
import torch
from harness import Probe

from icml26.papers.dag_tsfx import baselines, data, experiment, explore, layers, method, tune

T, F = 24, 6
SMALL = {"d_model": 8, "d_ff": 16, "n_heads": 2, "e_layers": 1, "patch_len": 12, "stride": 12, "dropout": 0.0}
E40 = np.arange(40, dtype=np.float32)[:, None]
X40 = np.concatenate([np.sin(E40), np.cos(E40)], 1)
E100 = np.sin(np.arange(100, dtype=np.float32))[:, None]
X100 = np.concatenate([E100 * 2, -E100], 1)
WINS = data.tfb_windows(np.sin(np.arange(120, dtype=np.float32))[:, None],
                        np.cos(np.arange(240, dtype=np.float32)).reshape(120, 2), T, F, 4)
WIN = {k: v[:3] for k, v in WINS["test"].items()}
A = torch.softmax(torch.randn(2, 1, 3, 3, generator=torch.Generator().manual_seed(0)), -1)
A2 = torch.softmax(torch.randn(2, 1, 3, 3, generator=torch.Generator().manual_seed(1)), -1)
torch.manual_seed(0)
DAG_MODEL = method.DAG(T, F, 1, 2, **SMALL).eval()
EXAMPLE = explore.forecast_example(DAG_MODEL, WIN, 0)
TINY = {"n_steps": 200, "seq_len": T, "pred_len": F, "epochs": 1, "batch": 64, "patience": 1, "beta": 0.1,
        "train_stride": 8, "model": dict(SMALL), "baselines": [],
        "hparams": {"DAG": {"lr": 1e-3, "alpha": 0.5}, "DLinear": {"lr": 1e-3}},
        "irrelevant_baselines": [], "ablations": [], "seasonal": False, "ridge": False}
CSV = Path(tempfile.mkdtemp(prefix="dag_tsfx_probe_")) / "tsfx.csv"
CSV.write_text("date,load,price\n" + "".join(f"{i},{np.sin(i):.4f},{np.cos(i):.4f}\n" for i in range(120)))
RIDGE_A = torch.randn(8, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
SIZES = {"seq_len": T, "pred_len": F, "n_endo": 1, "n_exo": 2}
NO_EXO = {"n_exo": "0 covariates is a valid input of the endogenous-only baselines; -1 is probed by extra"}
NEG_EXO = ("n_exo", -1, "negative")


def _dlinear():
    return baselines.DLinear(T, F, 1, 2, kernel=5)


PROBES = [
    # ---- layers
    Probe(layers.instance_stats, valid=lambda: {"x": torch.randn(2, 5, 3), "eps": 1e-5},
          extra=[("x", torch.zeros(5, 3), "2-D")]),
    Probe(layers.patchify, valid=lambda: {"x": torch.randn(1, 2, 10), "patch_len": 4, "stride": 3},
          extra=[("patch_len", 11, "longer than T"), ("x", torch.zeros(2, 10), "2-D")]),
    Probe(layers.n_patches, valid=lambda: {"seq_len": 10, "patch_len": 4, "stride": 3},
          extra=[("patch_len", 11, "longer than seq_len"), ("stride", 1.5, "float stride")]),
    Probe(layers.sinusoidal, valid=lambda: {"m": 4, "d": 8}),
    Probe(layers.PatchEmbedding, valid=lambda: {"seq_len": 12, "patch_len": 4, "stride": 4, "d_model": 8,
                                                "dropout": 0.0},
          extra=[("dropout", 1.5, "dropout above 1"), ("patch_len", 13, "longer than seq_len")]),
    Probe(layers.CompressAndProject, valid=lambda: {"n_channels": 2, "length": 6, "d_out": 4}),
    Probe(layers.VariateEmbedding, valid=lambda: {"length": 6, "n_vars": 2, "d_model": 8, "dropout": 0.0}),
    Probe(layers.EncoderLayer, valid=lambda: {"d_model": 8, "n_heads": 2, "d_ff": 16, "dropout": 0.0,
                                              "inject_mode": "softmax_sum"},
          extra=[("n_heads", 3, "not dividing d_model"), ("inject_mode", "mean", "unknown mode")]),
    Probe(layers.Encoder, valid=lambda: {"d_model": 8, "n_heads": 2, "d_ff": 16, "e_layers": 1, "dropout": 0.0,
                                         "inject_mode": "convex"},
          extra=[("inject_mode", "mean", "unknown mode"), ("dropout", -0.1, "negative dropout")]),
    Probe(layers.FlattenHead, valid=lambda: {"m": 3, "d_model": 8, "pred_len": 4}),
    Probe(layers.ExogProjector, valid=lambda: {"n_vars": 2, "d_model": 8, "length": 6}),
    Probe(layers.moving_average, valid=lambda: {"x": torch.randn(2, 10, 1), "kernel": 3},
          extra=[("kernel", 2.5, "float kernel")]),
    # ---- method
    Probe(method.check_inputs, valid=lambda: {"x": torch.zeros(2, 4, 3), "y_exo": torch.zeros(2, 2, 2), "seq_len": 4,
                                              "pred_len": 2, "n_endo": 1, "n_exo": 2},
          extra=[("x", torch.zeros(2, 4, 2), "one channel too few"), ("x", "x", "text"),
                 ("y_exo", torch.zeros(2, 3, 2), "horizon mismatch")]),
    Probe(method.mixed_attention, valid=lambda: {"native": A, "injected": A2, "alpha": torch.tensor([0.5, 0.5]),
                                                 "mode": "softmax_sum"},
          extra=[("mode", "mean", "unknown mode"), ("alpha", torch.tensor([1.5, 0.5]), "alpha above 1"),
                 ("injected", A[:, :, :2], "shape mismatch"), ("alpha", torch.tensor([0.5]), "one alpha too few")]),
    Probe(method.DAG, valid=lambda: {**SIZES, **SMALL, "alpha": 0.5},
          extra=[("alpha", 1.5, "alpha above 1"), ("inject_mode", "mean", "unknown mode"),
                 ("patch_len", 48, "longer than seq_len"), ("n_heads", 3, "not dividing d_model"),
                 ("seq_len", 24.0, "float seq_len")]),
    Probe(method.dag_loss, valid=lambda: {"out": {"pred": torch.zeros(2, F, 1), "aux": torch.tensor(0.0)},
                                          "y": torch.zeros(2, F, 1), "beta": 0.1},
          extra=[("out", {"pred": torch.zeros(2, F, 1)}, "no aux"), ("y", torch.zeros(2, F - 1, 1), "shape mismatch")]),
    # ---- baselines
    Probe(baselines.DLinear, valid=lambda: {**SIZES, "kernel": 5}, skip=NO_EXO,
          extra=[NEG_EXO, ("kernel", 2.5, "float")]),
    Probe(baselines.PatchTST, valid=lambda: {**SIZES, **SMALL}, skip=NO_EXO,
          extra=[NEG_EXO, ("patch_len", 48, "longer than seq_len")]),
    Probe(baselines.TimeXer, valid=lambda: {**SIZES, **SMALL}, skip=NO_EXO,
          extra=[NEG_EXO, ("n_heads", 3, "not dividing d_model")]),
    Probe(baselines.TiDE, valid=lambda: {**SIZES, "d_model": 8, "d_ff": 16, "proj_dim": 2, "dec_dim": 4,
                                         "dropout": 0.0},
          skip=NO_EXO, extra=[NEG_EXO]),
    Probe(baselines.NBEATSx, valid=lambda: {**SIZES, "d_ff": 16, "n_blocks": 1, "n_layers": 1, "dropout": 0.0},
          skip=NO_EXO, extra=[NEG_EXO]),
    Probe(baselines.GatedResidualNetwork, valid=lambda: {"d_in": 4, "d_hidden": 8, "d_out": 4, "groups": 0,
                                                         "dropout": 0.0},
          extra=[("groups", 1.5, "float groups"), ("dropout", 1.5, "dropout above 1")]),
    Probe(baselines.GatedSkip, valid=lambda: {"d_model": 8, "dropout": 0.0}, extra=[("dropout", -0.1, "negative")]),
    Probe(baselines.VariableSelection, valid=lambda: {"n_vars": 3, "d_model": 8, "dropout": 0.0}),
    Probe(baselines.InterpretableAttention, valid=lambda: {"d_model": 8, "n_heads": 2},
          extra=[("n_heads", 3, "not dividing d_model")]),
    Probe(baselines.TFT, valid=lambda: {**SIZES, "hidden": 8, "n_heads": 2, "dropout": 0.0},
          extra=[("n_heads", 3, "not dividing hidden"), ("dropout", 1.5, "dropout above 1")]),
    Probe(baselines.make_model, valid=lambda: {"name": "DLinear", **SIZES}, skip=NO_EXO,
          extra=[NEG_EXO, ("name", "ARIMA", "unknown model")]),
    Probe(baselines.ridge_features, valid=lambda: {"win": WIN, "hist_exo": True, "future": True},
          extra=[("win", {"x": WIN["x"]}, "no y_exo"), ("win", {**WIN, "x": WIN["x"][0]}, "2-D x")]),
    Probe(baselines.ridge_solve, valid=lambda: {"a": RIDGE_A, "y": RIDGE_A[:, :2] * 2, "lam": 1.0},
          extra=[("y", RIDGE_A[:5, :2], "row mismatch"), ("lam", 0.0, "zero penalty")]),
    Probe(baselines.ridge_reference, valid=lambda: {"wins": WINS, "lambdas": (1.0, 10.0), "hist_exo": True,
                                                    "future": True},
          extra=[("wins", {"train": WINS["train"]}, "no val/test"), ("lambdas", (), "no penalty"),
                 ("lambdas", (1.0, -1.0), "negative penalty")]),
    # ---- data
    Probe(data.load_tsfx_csv, valid=lambda: {"path": CSV, "target": None, "date_col": "date", "exo": None},
          extra=[("path", CSV.with_name("none.csv"), "missing file"), ("target", "cost", "unknown column"),
                 ("exo", ["price"], "the target as covariate"), ("date_col", "time", "no such column"),
                 ("exo", [], "no covariate")]),
    Probe(data.synthetic_epf, valid=lambda: {"n_steps": 200, "sigma_shock": 1.0, "kappa": 1.0, "lag": 0, "phi": 0.9,
                                             "sigma_eps": 0.1, "gamma": 4.0, "z0": 0.6, "spike": 0.5, "seed": 0},
          extra=[("phi", 1.0, "unit root"), ("lag", 48, "lag of two days"), ("n_steps", 100, "too short"),
                 ("seed", 1.5, "float seed")]),
    Probe(data.oracle_floor, valid=lambda: {"phi": 0.9, "sigma_eps": 0.1, "horizon": 24, "target_var": 2.0},
          extra=[("phi", 1.0, "unit root"), ("target_var", 0.0, "zero variance")]),
    Probe(data.split_and_scale, valid=lambda: {"endo": E40, "exo": X40, "train": 0.7, "val": 0.1},
          extra=[("train", 0.95, "train + val past 1"), ("exo", X40[:, :0], "no covariate"),
                 ("endo", E40[:, 0], "1-D")]),
    Probe(data.make_windows, valid=lambda: {"endo": E40, "exo": X40, "seq_len": 8, "pred_len": 3, "start": 0,
                                            "stop": 40, "stride": 1, "device": "cpu"},
          extra=[("stop", 41, "past the series"), ("exo", X40[:30], "length mismatch"), ("pred_len", 40, "too long")]),
    Probe(data.tfb_windows, valid=lambda: {"endo": E100, "exo": X100, "seq_len": 8, "pred_len": 3, "train_stride": 1,
                                           "device": "cpu"},
          extra=[("exo", X100[:50], "length mismatch"), ("seq_len", 2.5, "float seq_len")]),
    Probe(data.seasonal_naive_exo, valid=lambda: {"x": torch.randn(2, 24, 3), "n_endo": 1, "pred_len": 30,
                                                  "period": 24},
          extra=[("period", 25, "longer than the history"), ("n_endo", 3, "no covariate left")]),
    # ---- experiment
    Probe(experiment.predict, valid=lambda: {"model": _dlinear(), "win": WIN, "batch": 2, "use_future": True},
          extra=[("model", "m", "not a module"), ("win", {"x": WIN["x"]}, "no y_exo")]),
    Probe(experiment.metrics, valid=lambda: {"pred": torch.zeros(3, 2, 1), "y": torch.ones(3, 2, 1)},
          extra=[("y", torch.ones(3, 2, 2), "shape mismatch")]),
    Probe(experiment.fit, valid=lambda: {"model": _dlinear(), "wins": WINS, "epochs": 1, "batch": 8, "lr": 1e-3,
                                         "patience": 1, "beta": 0.1, "seed": 0},
          extra=[("wins", {"train": WINS["train"]}, "no validation windows"), ("model", None, "no model")]),
    Probe(experiment.scenario, valid=lambda: {"cfg": {"n_steps": 200, "seq_len": T, "pred_len": F, "train_stride": 4},
                                              "device": "cpu", "seed": 0},
          extra=[("cfg", {"n_steps": 200}, "incomplete cfg")]),
    Probe(experiment.run, valid=lambda: {"config": TINY, "device": "cpu", "seed": 0},
          extra=[("config", {**TINY, "ablations": ["nope"]}, "unknown ablation"), ("config", {**TINY, "epochs": 0},
                                                                                    "zero epochs"),
                 ("config", {**TINY, "baselines": ["ARIMA"]}, "unknown baseline"), ("config", {"n_steps": 200},
                                                                                   "incomplete config"),
                 ("config", {**TINY, "hparams": {"DAG": {"lr": float("nan")}}}, "NaN learning rate"),
                 ("config", {**TINY, "hparams": {"DAG": {"alpha": 0.5}}}, "no learning rate"),
                 ("seed", 1.5, "float seed")]),
    Probe(experiment.compare_on_series, valid=lambda: {"config": TINY, "endo": E100, "exo": X100, "device": "cpu",
                                                       "seed": 0, "models": ["DLinear"]},
          extra=[("models", ["ARIMA"], "unknown model"), ("models", ["TiDE"], "no chosen values"),
                 ("models", [], "no model"), ("config", {"n_steps": 200}, "incomplete config")]),
    # ---- tune
    Probe(tune.grid_points, valid=lambda: {"name": "DAG", "grid": {"lr": (1e-3,), "alpha": (0.5,)}},
          extra=[("grid", {"alpha": (0.5,)}, "no learning rates")]),
    Probe(tune.tune, valid=lambda: {"config": {**TINY, "baselines": ["DLinear"]}, "seeds": [100], "models": ["DLinear"],
                                    "grid": {"lr": (1e-3,)}, "device": "cpu"},
          skip={"seeds": "a list; its bad values are the extras"},
          extra=[("seeds", [0], "an evaluation seed"), ("seeds", [], "no seed"), ("models", ["TiDE"], "not in config"),
                 ("config", {"n_steps": 200}, "incomplete config")]),
    # ---- explore
    Probe(explore.plot_series, valid=lambda: {"sigma_shock": 1.0, "kappa": 1.0, "lag": 0, "days": 1, "seed": 0}),
    Probe(explore.linear_value_of_information, valid=lambda: {"sigma_shock": 1.0, "kappa": 1.0, "lag": 0,
                                                              "n_steps": 300, "seq_len": T, "pred_len": F,
                                                              "ridge": 100.0, "seed": 0}),
    Probe(explore.plot_value_of_future, valid=lambda: {"sigma_shock": 1.0, "kappa": 1.0, "lag": 0},
          extra=[("lag", 48, "lag of two days")]),
    Probe(explore.plot_attention_mix, valid=lambda: {"sharpness": 3.0, "alpha": 0.5, "mode": "convex", "seed": 0},
          extra=[("mode", "mean", "unknown mode"), ("alpha", 1.5, "alpha above 1")]),
    Probe(explore.forecast_example, valid=lambda: {"model": DAG_MODEL, "win": WIN, "index": 0},
          extra=[("index", 99, "past the windows"), ("win", {"x": WIN["x"]}, "incomplete windows"),
                 ("model", "dag", "not a module")]),
    Probe(explore.plot_forecast, valid=lambda: {"example": EXAMPLE, "alpha": 0.5},
          extra=[("example", {**EXAMPLE, "pred_c": None}, "no CCM forecast"), ("alpha", 1.5, "alpha above 1")]),
]
EXEMPT = {
    "icml26.papers.dag_tsfx.tune.main": "the command line; argparse checks its arguments",
    "icml26.papers.dag_tsfx.explore.plot_results": "draws a results dict made by experiment.run",
}
