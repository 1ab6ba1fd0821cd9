"""Bad-input probes of the data-mixing law (icml26.papers.data_mixing): method, fitting, baselines, skills,
experiment and explore."""

import numpy as np
import torch
from harness import Probe

from icml26.papers.data_mixing import baselines, experiment, explore, fitting, method, realdata, skills

F64 = torch.float64
P3 = {"b": [0.5, 0.8, 1.1], "c": [2.0, 3.0, 1.0], "A": [0.3, 0.2, 0.1], "a": [0.3, 0.4, 0.5], "E": [0.5, 0.4, 0.3],
      "H": 1.0}
P3T = method.as_params(P3)
H2 = torch.tensor([[0.3, 0.7], [0.5, 0.5]], dtype=F64)
B2, C2 = torch.tensor([0.5, 1.0], dtype=F64), torch.ones(2, dtype=F64)
X2, LAM2 = method.solve_allocation(H2, B2, C2, 10.0, 0.5, return_lambda=True)
H3T = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]], dtype=F64)
H4 = np.array([[0.3, 0.7], [0.5, 0.5], [0.2, 0.8], [0.9, 0.1]])
L4 = 1.0 + H4
FIT = fitting.FitResult(baselines.LINEAR, 2, {"W": np.eye(2), "w0": np.ones(2)}, 0.0)
DOM = skills.make_domains((0.6, 1.2), n_head=2, n_tail=5, dim=4, n_classes=3, seed=0)
PARAMS = skills.init_mlps(2, 4, 3, 3, seed=0)
W1 = skills.training_weights(DOM, np.array([[0.3, 0.7]]))
CFG3 = {**experiment.CONFIGS["quick"], "n_head": 2, "n_tail": 5, "dim": 4, "n_classes": 3}


def _real_table_path():
    """A tiny loss table in the authors' CSV format (2 domains, 6 mixtures, one scale), one file per process (the
    test workers collect this module at the same time: a shared file could be read while another rewrites it)."""
    import os
    import tempfile
    from pathlib import Path

    path = Path(tempfile.gettempdir()) / f"icml26_data_mixing_probe_table_{os.getpid()}.csv"
    rows = ["weight_a,weight_b,model_size,n_tokens,a_loss,b_loss"]
    rows += [f"{w},{1 - w},1e8,1e9,{2 + w},{3 - w}" for w in (0.1, 0.2, 0.4, 0.5, 0.7, 0.9)]
    path.write_text("\n".join(rows) + "\n")
    return path


def _real_table():
    return realdata.load_loss_table(_real_table_path())


def _tiny_config():
    q = experiment.CONFIGS["quick"]
    return {**q, "n_head": 2, "n_tail": 5, "dim": 4, "n_classes": 3, "steps": 2,
            "c1": {**q["c1"], "widths": (2, 4), "levels": (0.3, 0.7), "seeds": 1, "spearman_widths": (4,)},
            "sweep": {**q["sweep"], "n_mix": 12, "widths": (4,), "seeds": 1},
            "fit": {**q["fit"], "restarts": 1, "maxiter": 2}}


def _with(key, **change):
    cfg = _tiny_config()
    return {**cfg, key: {**cfg[key], **change}}


def _explorer_data():
    return {"cfg": {k: CFG3[k] for k in ("dim", "n_classes", "capacity_unit", "data_unit", "alphas")},
            "params": {k: np.asarray(v) for k, v in P3.items()}, "h": np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]),
            "rows": [{"W": 8, "D": 2000, "L": np.ones((2, 3))}]}


NAN_P3 = ("params", {**P3, "b": [float("nan"), 0.8, 1.1]}, "NaN exponent")
BAD_DOM = ("dom", "domains", "not a SkillDomains")

PROBES = [
    # ---- real loss tables (a user path)
    Probe(realdata.load_loss_table, valid=lambda: {"path": _real_table_path()},
          extra=[("path", 3, "not a path"), ("path", "/nonexistent/table.csv", "missing file")]),
    Probe(realdata.scales_of, valid=lambda: {"table": _real_table()},
          extra=[("table", {"h": 1}, "incomplete table")]),
    Probe(realdata.fit_real, valid=lambda: {"table": _real_table(), "laws": {"linear": baselines.LINEAR},
                                            "scales": [(100.0, 1.0)], "train_frac": 0.7, "split_seed": 3,
                                            "active": 0.1, "restarts": 1, "maxiter": 2, "seed": 0, "loss": "mse",
                                            "device": "cpu"},
          skip={"split_seed": "0 is a valid seed; -1 is probed by extra", "seed": "0 is valid; -1 by extra"},
          extra=[("table", {"h": 1}, "incomplete table"), ("laws", {}, "no law"), ("seed", -1, "negative seed"),
                 ("scales", [], "no scale"),
                 ("scales", [(5.0, 5.0)], "a scale the table lacks"), ("scales", "ab", "text"),
                 ("loss", "l1", "unknown loss"), ("split_seed", -1, "negative seed")]),
    # ---- fitting
    Probe(fitting.check_weights, valid=lambda: {"h": np.array([0.3, 0.7]), "K": 2, "atol": 1e-6},
          extra=[("h", [0.5, 0.6], "not summing to one"), ("h", np.ones((1, 1, 2)) / 2, "3-D"),
                 ("K", 1, "one domain"), ("h", "ab", "text"), ("h", [-0.5, 1.5], "negative weight")]),
    Probe(fitting.as_batch, valid=lambda: {"h": H4[:2], "N": 10.0, "D": 5.0, "K": 2, "device": "cpu"},
          extra=[("N", np.ones(3), "one N too many"), ("D", -1.0, "negative D"), ("K", 3, "K mismatch")]),
    Probe(fitting.mre, valid=lambda: {"pred": np.full((3, 2), 1.1), "obs": np.ones((3, 2))},
          extra=[("obs", np.ones((2, 2)), "shape mismatch"), ("mask", np.zeros((3, 2), bool), "selects nothing"),
                 ("mask", np.ones(5, bool), "mask of the wrong shape"), ("obs", np.zeros((3, 2)), "zero obs")]),
    Probe(fitting.split_by_mixture, valid=lambda: {"groups": np.repeat(np.arange(4), 2), "train_frac": 0.5, "seed": 0},
          extra=[("groups", np.zeros(4, int), "one mixture"), ("groups", np.zeros((2, 2)), "2-D groups"),
                 ("train_frac", 1.0, "all train"), ("seed", 1.5, "float seed")]),
    Probe(fitting.fit_law, valid=lambda: {"spec": baselines.LINEAR, "h": H4, "N": 1.0, "D": 1.0, "L": L4,
                                          "restarts": 1, "seed": 0, "maxiter": 2, "huber_delta": 1.0,
                                          "active_threshold": 0.0, "loss": "mse", "device": "cpu"},
          skip={"seed": "seed 0 is valid; -1 is probed by extra"},
          extra=[("seed", -1, "negative seed"), ("spec", "linear", "not a LawSpec"), ("loss", "l1", "unknown loss"),
                 ("L", np.ones((3, 2)), "L of the wrong shape"), ("L", -L4, "negative losses"),
                 ("active", np.ones((2, 2), bool), "mask of the wrong shape"), ("init", {"W": 0.0}, "incomplete init"),
                 ("active_threshold", 1.0, "threshold 1")]),
    Probe(FIT.predict,
          name="icml26.papers.data_mixing.fitting.FitResult.predict",
          valid=lambda: {"h": H4, "N": 1.0, "D": 1.0, "device": "cpu"},
          extra=[("h", np.ones((2, 3)) / 3, "K mismatch"), ("N", 0.0, "zero N")]),
    Probe(fitting.simplex_from_logits, valid=lambda: {"z": torch.zeros(2, 3, dtype=F64), "h_min": 0.01},
          extra=[("z", torch.zeros(2, 1), "one logit"), ("h_min", 0.5, "h_min past 1/K"), ("z", [0.0, 1.0], "a list")]),
    Probe(fitting.minimize_on_simplex, valid=lambda: {"loss_fn": lambda h: ((h - 0.5) ** 2).sum(1), "K": 2,
                                                      "restarts": 2, "steps": 2, "lr": 0.1, "h_min": 1e-4, "seed": 0,
                                                      "device": "cpu"},
          extra=[("loss_fn", 3, "not callable"), ("K", 2.0, "float K"), ("h_min", 0.6, "h_min past 1/K")]),
    # ---- method
    Probe(method.n_params, valid=lambda: {"K": 7}, extra=[("K", 1, "one domain"), ("K", 2.5, "float")]),
    Probe(method.solve_allocation, valid=lambda: {"h": H2, "b": B2, "c": C2, "N": 10.0, "H": 0.5, "iters": 5,
                                                  "newton": 0, "log_bracket": 300.0},
          extra=[("b", torch.ones(3, dtype=F64), "K mismatch"), ("h", torch.ones(2, 1, dtype=F64), "one domain"),
                 ("h", -H2, "negative weights"), ("c", torch.zeros(2, dtype=F64), "zero c"),
                 ("N", torch.ones(3, dtype=F64), "N of the wrong length"),
                 ("H", torch.ones(2, dtype=F64), "H a vector"),
                 ("b", [0.5, 1.0], "a list"), ("iters", 2.5, "float iterations")]),
    Probe(method.kkt_residual, valid=lambda: {"x": X2, "lam": LAM2, "h": H2, "b": B2, "c": C2, "N": 10.0, "H": 0.5},
          extra=[("lam", torch.ones(3, dtype=F64), "one multiplier too many"), ("lam", -LAM2, "negative multiplier"),
                 ("x", X2[:, :1], "x of the wrong shape")]),
    Probe(method.law_terms, valid=lambda: {"p": P3T, "h": H3T, "N": torch.full((2,), 10.0, dtype=F64),
                                           "D": torch.full((2,), 5.0, dtype=F64), "h_floor": 1e-4, "iters": 5},
          extra=[("p", {**P3T, "b": torch.tensor([float("nan"), 0.8, 1.1], dtype=F64)}, "NaN exponent"),
                 ("p", {"b": P3T["b"]}, "incomplete parameters"), ("h", H2, "K mismatch"),
                 ("N", torch.ones(3, dtype=F64), "N of the wrong length"),
                 ("D", -torch.ones(2, dtype=F64), "negative D")]),
    Probe(method.predict, valid=lambda: {"p": P3T, "h": H3T, "N": torch.full((2,), 10.0, dtype=F64),
                                         "D": torch.full((2,), 5.0, dtype=F64)},
          extra=[("p", {**P3T, "c": -P3T["c"]}, "negative c"), ("h", H3T[:, :2], "K mismatch")]),
    Probe(method.as_params, valid=lambda: {"params": P3, "device": "cpu"},
          extra=[NAN_P3, ("params", {**P3, "c": [1.0, 1.0]}, "c of the wrong length"), ("params", [1, 2], "a list"),
                 ("params", {**P3, "b": ["x", "y", "z"]}, "text"),
                 ("params", {**P3, "b": [-0.5, 0.8, 1.1]}, "negative b"),
                 ("params", {k: v for k, v in P3.items() if k != "H"}, "no head H"),
                 ("params", {**P3, "H": float("inf")}, "infinite H")]),
    Probe(method.evaluate_law, valid=lambda: {"params": P3, "h": np.array([0.2, 0.3, 0.5]), "N": 10.0, "D": 5.0,
                                              "device": "cpu"},
          extra=[NAN_P3, ("h", [0.5, 0.5], "K mismatch"), ("h", [0.5, 0.6, 0.1], "not summing to one")]),
    Probe(method.optimal_mixture, valid=lambda: {"params": P3, "N": 10.0, "D": 5.0,
                                                 "weights": np.array([0.2, 0.3, 0.5]), "restarts": 2, "steps": 2,
                                                 "h_min": 1e-4, "seed": 0, "device": "cpu"},
          extra=[NAN_P3, ("weights", [-1.0, 1.0, 1.0], "negative weight"), ("h_min", 0.5, "h_min past 1/K"),
                 ("weights", [1.0, 1.0], "one weight too few")]),
    Probe(method.noise_only_optimum, valid=lambda: {"A": np.array([1.0, 2.0, 3.0]), "a": np.array([0.3, 0.5, 0.4]),
                                                    "D": 10.0},
          extra=[("a", np.array([0.3, 0.5]), "one exponent too few"), ("A", np.array([-1.0, 1.0, 1.0]), "negative A")]),
    Probe(method.reference_allocation_slsqp, valid=lambda: {"h": np.array([0.3, 0.7]), "b": np.array([0.5, 1.0]),
                                                            "c": np.array([1.0, 1.0]), "N": 10.0, "H": 0.5},
          extra=[("b", np.ones(3), "one exponent too many"), ("c", np.array([0.0, 1.0]), "zero c"),
                 ("h", np.array([-0.3, 1.3]), "negative weight")]),
    # ---- baselines
    Probe(baselines.exp_law_n_params, valid=lambda: {"K": 3}, extra=[("K", 1, "one domain")]),
    Probe(baselines.uniform_mixture, valid=lambda: {"K": 3}, extra=[("K", 1, "one domain"), ("K", 3.0, "float")]),
    Probe(baselines.simplex_grid, valid=lambda: {"K": 3, "n": 4},
          extra=[("n", 10 ** 6, "a grid past the cap"), ("K", 1, "one domain"), ("n", 2.5, "float n")]),
    Probe(baselines.grid_search, valid=lambda: {"candidates": baselines.simplex_grid(3, 2),
                                                "mean_losses": np.arange(6.0)},
          extra=[("mean_losses", np.ones(3), "one loss per candidate missing"),
                 ("candidates", [[0.5, 0.6, 0.1]], "not a mixture")]),
    Probe(baselines.law_optimum, valid=lambda: {"fit": FIT, "N": 10.0, "D": 5.0, "restarts": 2, "steps": 2, "seed": 0,
                                                "h_min": 1e-4},
          extra=[("fit", {"W": 1.0}, "not a FitResult"), ("N", -1.0, "negative N")]),
    Probe(baselines.law_optimum, name="icml26.papers.data_mixing.baselines.law_optimum[hull]",
          valid=lambda: {"fit": FIT, "N": 10.0, "D": 5.0, "hull": H4, "restarts": 2, "steps": 2, "seed": 0},
          extra=[("hull", H4[:1], "one mixture"), ("hull", np.ones((2, 3)) / 3, "three domains for two"),
                 ("hull", H4 * 2, "rows not summing to one")]),
    # ---- skills
    Probe(skills.make_domains, valid=lambda: {"alphas": (0.6, 1.2), "n_head": 2, "n_tail": 5, "dim": 4, "n_classes": 3,
                                              "seed": 0, "device": "cpu"},
          skip={"n_head": "0 shared skills is a valid world (disjoint domains); -1 is probed by extra"},
          extra=[("n_head", -1, "negative"), ("alphas", (0.5,), "one domain"), ("alphas", (float("nan"), 1.0), "NaN"),
                 ("alphas", ("a", "b"), "text"), ("n_classes", 1, "one class")]),
    Probe(skills.training_weights, valid=lambda: {"dom": DOM, "h": np.array([[0.3, 0.7]]), "D": 100, "seed": 0},
          extra=[("D", np.array([100, 200]), "two sizes for one mixture"), ("D", float("nan"), "NaN size"), BAD_DOM,
                 ("h", np.array([0.3, 0.3, 0.4]), "K mismatch")]),
    Probe(skills.init_mlps, valid=lambda: {"M": 2, "dim": 4, "width": 3, "n_classes": 3, "seed": 0, "device": "cpu"},
          extra=[("width", 2.5, "float width")]),
    Probe(skills.mlp_logits, valid=lambda: {"params": PARAMS, "X": DOM.X},
          extra=[("params", PARAMS[:3], "three tensors"), ("X", torch.zeros(5, 7), "input dimension mismatch")]),
    Probe(skills.per_skill_ce, valid=lambda: {"params": PARAMS, "dom": DOM},
          extra=[BAD_DOM, ("params", skills.init_mlps(2, 4, 3, 5, seed=0), "five classes for three")]),
    Probe(skills.train_batched, valid=lambda: {"dom": DOM, "weights": W1, "width": 3, "steps": 2, "lr": 0.03, "seed": 0,
                                               "chunk": 1},
          extra=[("weights", torch.zeros(1, 5), "S mismatch"), ("weights", -W1, "negative weights"), BAD_DOM]),
    Probe(skills.block_size, valid=lambda: {"M": 8, "width": 4, "S": 100, "device": "cpu"},
          extra=[("M", 0, "no models"), ("width", 2.5, "float width"), ("S", -1, "negative S")]),
    Probe(skills.train_loop, valid=lambda: {"dom": DOM, "weights": W1, "width": 3, "steps": 2, "lr": 0.03, "seed": 0},
          extra=[("weights", torch.zeros(1, 5), "S mismatch"), BAD_DOM]),
    Probe(skills.capacity_of, valid=lambda: {"width": 8, "dim": 32, "n_classes": 8, "unit": 100.0},
          extra=[("width", 8.5, "float width")]),
    Probe(skills.measure, valid=lambda: {"dom": DOM, "h": np.array([[0.3, 0.7]]), "width": 3, "D": None, "seeds": (0,),
                                         "steps": 2, "lr": 0.03, "data_seed": 0, "chunk": 1},
          extra=[("seeds", (), "no seed"), ("seeds", (-1,), "negative seed"), ("D", -5, "negative size"), BAD_DOM,
                 ("h", np.array([[0.3, 0.3, 0.4]]), "K mismatch")]),
    # ---- experiment
    Probe(experiment.run, valid=lambda: {"config": _tiny_config(), "device": "cpu", "seed": 0},
          extra=[("config", {**_tiny_config(), "steps": 0}, "zero steps"),
                 ("config", {"steps": 1}, "incomplete config"),
                 ("config", _with("fit", laws=("ours", "sb")), "unknown law"),
                 ("config", {**_tiny_config(), "alphas": (0.5,)}, "one domain"),
                 ("config", _with("sweep", D=(None, 2000)), "infinite and finite data mixed"),
                 ("config", _with("c1", levels=(0.3, 1.5)), "a level past 1"),
                 ("config", {**_tiny_config(), "c4": {"width": 4}}, "incomplete c4"),
                 ("config", {**_tiny_config(), "epochs": 3}, "unknown key"), ("seed", 1.5, "float seed")]),
    Probe(experiment.solver_check, valid=lambda: {"seed": 0, "n": 3}, extra=[("seed", 1.5, "float seed")]),
    Probe(experiment.fixture_check, valid=lambda: {"seed": 0}, extra=[("seed", "0", "text seed")]),
    Probe(experiment.explorer_data, valid=lambda: {"seed": 0, "widths": (4,), "Ds": (100, 200), "n_mix": 4, "steps": 2,
                                                   "cfg": CFG3, "restarts": 1, "maxiter": 2},
          extra=[("widths", (), "no width"), ("Ds", (0,), "zero samples"),
                 ("cfg", {**CFG3, "alphas": (0.5, 1.0)}, "two domains"), ("cfg", {"dim": 4}, "incomplete cfg")]),
    # ---- explore
    Probe(explore.normalise, valid=lambda: {"weights": np.array([1.0, 2.0, 0.0])},
          extra=[("weights", [[1.0]], "2-D weights")]),
    Probe(explore.plot_mixture_explorer, valid=lambda: {"data": _explorer_data(), "w_0": 1.0, "w_1": 1.0, "w_2": 1.0,
                                                        "width": 8, "D": 2000},
          extra=[("data", {"cfg": {}}, "incomplete data"), ("w_0", -1.0, "negative weight")]),
    Probe(explore.explorer_hints, valid=lambda: {"data": _explorer_data(), "width": 8, "D_low": 2000,
                                                 "D_high": 64000, "push": 0.4, "widths": (8, 32)},
          extra=[("data", {"cfg": {}}, "incomplete data"), ("D_high", 1000, "D_high below D_low"),
                 ("push", 1.5, "a push past 1"), ("start", (0.5, 0.5), "two weights for three domains"),
                 ("start", (0.0, 0.0, 0.0), "all-zero weights"), ("widths", (8, 0), "a zero width"),
                 ("widths", (), "no width")]),
    Probe(explore.plot_law_competition, valid=lambda: {"params": P3, "N": 20.0, "D": 10.0, "domain": 0},
          extra=[("domain", 3, "past K"), NAN_P3]),
]
EXEMPT = {
    "icml26.papers.data_mixing.fitting.Param": "a frozen dataclass of plain fields (a law's parameter block)",
    "icml26.papers.data_mixing.fitting.LawSpec": "a frozen dataclass of plain fields (a law's name and blocks)",
    "icml26.papers.data_mixing.fitting.FitResult": "a dataclass of fit_law's outputs; its predict is probed",
    "icml26.papers.data_mixing.skills.SkillDomains": "a frozen dataclass built (and validated) by make_domains",
    "icml26.papers.data_mixing.explore.plot_competition": "draws a results dict made by experiment.run",
    "icml26.papers.data_mixing.explore.plot_fit_quality": "draws a results dict made by experiment.run",
    "icml26.papers.data_mixing.explore.plot_predicted_vs_measured": "draws a results dict made by experiment.run",
}
