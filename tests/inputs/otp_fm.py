"""Bad-input probes of OTP-FM (icml26.papers.otp_fm) and the transport blocks it owns (icml26.transport)."""

import tempfile
from pathlib import Path

import torch
from harness import Probe

from icml26 import transport
from icml26.papers.otp_fm import baselines, data, experiment, explore, explorer_models, method, networks
from icml26.transport import couplings, metrics, ode, paths

TMP = Path(tempfile.mkdtemp(prefix="icml26-otp-inputs-"))
DT = torch.float64


def _pts(n=6, d=2, seed=0, shift=0.0):
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=DT) + shift


def _ms(k=3, n=8, d=2):
    return [_pts(n, d, seed=i, shift=float(i)) for i in range(k)]


def _path():
    return method.OTPPath([0.5], 10.0)


def _tiny_cfg():
    cfg = {**experiment.CONFIGS["quick"], "hidden": 8, "depth": 1, "batch": 16, "iters": 3, "n": 12,
           "steps_per_segment": 2}
    cfg["efficiency"] = {**experiment.CONFIGS["standard"]["efficiency"], "folds": [2], "n": 12, "batch": 8,
                         "otp_iters": 2, "ode_iters": 1, "evals": 1, "ode_steps": 2}
    return cfg


def _net():
    return networks.VelocityMLP(2, hidden=8, depth=1, embed=8)


def _bad_draw(i):
    return torch.zeros(4, 2), torch.rand(4), torch.zeros(4, 2)


BAD_MS = ("marginals", [torch.zeros(3, 2), torch.zeros(3, 3)], "marginals of different dimensions")

PROBES = [
    # ---- method
    Probe(method.kernel_integrals, valid=lambda: {"kind": "gaussian", "t": torch.linspace(0, 1, 5, dtype=DT),
                                                  "center": 0.5, "width": 0.1},
          extra=[("kind", "cosine", "unknown kernel"), ("center", 1.5, "centre outside (0, 1)")]),
    Probe(method.kernel_density, valid=lambda: {"kind": "box", "t": torch.linspace(0, 1, 5, dtype=DT),
                                                "center": 0.5, "width": 0.1},
          extra=[("kind", "delta", "the delta has no density")]),
    Probe(method.auto_widths, valid=lambda: {"centers": [0.25, 0.5]},
          extra=[("centers", [], "no centre"), ("centers", [0.5, 1.5], "centre outside (0, 1)"),
                 ("centers", [float("nan")], "NaN centre")]),
    Probe(method.alpha_schedule, valid=lambda: {"step": 3, "total": 10, "kind": "sigmoid"},
          skip={"step": "step 0 is the first iteration"},
          extra=[("step", -1, "negative step"), ("step", 11, "step past total"), ("kind", "cosine", "unknown")]),
    Probe(method.OTPPath, valid=lambda: {"centers": [0.3, 0.6], "strengths": 10.0, "widths": 0.1},
          extra=[("centers", [0.6, 0.3], "not increasing"), ("strengths", [-1.0, 1.0], "negative strength"),
                 ("kernel", "cosine", "unknown kernel"), ("potential", "kl", "unknown potential"),
                 ("widths", [0.1, 0.1, 0.1], "one width too many"), ("mmd_bandwidths", [], "no bandwidth"),
                 ("picard_iters", 0, "no Picard iteration"), ("picard_damping", 1.5, "damping above 1")]),
    Probe(method.OTPPath(0.5, 10.0).path, name="icml26.papers.otp_fm.method.OTPPath.path",
          valid=lambda: {"x0": _pts(4), "x1": _pts(4, seed=1), "ys": _pts(4, seed=2)[:, None], "t": 0.3},
          extra=[("ys", torch.zeros(4, 2, 2), "K mismatch"), ("t", torch.zeros(3), "one time too few"),
                 ("alpha", float("nan"), "NaN alpha")]),
    Probe(method.mmd_force, valid=lambda: {"x": _pts(4)[:, None], "y": _pts(4, seed=1)[:, None],
                                           "bandwidths": torch.tensor([1.0], dtype=DT)},
          extra=[("bandwidths", torch.tensor([-1.0], dtype=DT), "negative bandwidth"),
                 ("y", torch.zeros(4, 1, 3, dtype=DT), "dimension mismatch")]),
    Probe(method.sample_tuples, valid=lambda: {"marginals": _ms(), "batch": 4, "generator": torch.Generator()},
          extra=[BAD_MS, ("chains", torch.zeros(5, 2, dtype=torch.long), "chains of the wrong width"),
                 ("generator", 3, "not a generator")]),
    Probe(method.otp_target_sampler, valid=lambda: {"marginals": _ms(), "times": [0.0, 0.5, 1.0], "path": _path(),
                                                    "batch": 4, "total_iters": 5, "generator": torch.Generator()},
          extra=[("times", [0.0, 0.4, 1.0], "centres differ from the times"), ("curriculum", "cosine", "unknown"),
                 ("path", "w2", "not an OTPPath")]),
    # ---- networks
    Probe(networks.SinusoidalTime, valid=lambda: {"channels": 8, "max_positions": 100.0, "scale": 1.0},
          extra=[("channels", 7, "odd channels")]),
    Probe(networks.VelocityMLP, valid=lambda: {"dim": 2, "hidden": 8, "depth": 1, "embed": 8, "t_scale": 1.0}),
    Probe(networks.fit_velocity, valid=lambda: {"net": _net(), "draw": _bad_draw, "iters": 2, "lr": 1e-3},
          extra=[("loss", "l1", "unknown loss"), ("weighting", "edm", "unknown weighting"),
                 ("ema_decay", 1.5, "decay above 1"), ("clip", -1.0, "negative clip"),
                 ("diag_prob", 2.0, "probability above 1"), ("loss", "meanflow", "meanflow without interval net")]),
    Probe(networks.meanflow_residual,
          valid=lambda: {"net": networks.VelocityMLP(2, 8, 1, 8, interval=True), "xt": _pts(4).float(),
                         "t": torch.rand(4), "ut": _pts(4, seed=1).float(), "t2": torch.ones(4)},
          extra=[("t2", torch.zeros(4), "t2 before t"), ("net", _net(), "not an interval network"),
                 ("ut", torch.zeros(3, 2), "one row too few")]),
    Probe(networks.sample_flow, valid=lambda: {"net": _net(), "x0": torch.zeros(3, 2), "times": [0.0, 1.0],
                                               "steps": 4},
          extra=[("net", "net", "not a module"), ("method", "rk45", "unknown solver")]),
    Probe(networks.training_clock, valid=lambda: {"module": _net()}, extra=[("module", "net", "not a module")]),
    # ---- baselines
    Probe(baselines.piecewise_cfm_sampler, valid=lambda: {"marginals": _ms(), "times": [0.0, 0.5, 1.0], "batch": 4,
                                                          "generator": torch.Generator(), "sigma": 0.0},
          extra=[BAD_MS, ("times", [0.0, 0.5], "one time too few"), ("coupling", "sinkhorn", "unknown coupling"),
                 ("sigma", -1.0, "negative sigma")]),
    Probe(baselines.endpoint_cfm_sampler, valid=lambda: {"marginals": _ms(), "times": [0.0, 0.5, 1.0], "batch": 4,
                                                         "generator": torch.Generator()},
          extra=[BAD_MS, ("times", [0.0, 0.0, 1.0], "not increasing")]),
    Probe(baselines.mmfm_sampler, valid=lambda: {"marginals": _ms(), "times": [0.0, 0.5, 1.0], "batch": 4,
                                                 "generator": torch.Generator()},
          extra=[("marginals", _ms(2), "two marginals"), ("times", [0.0, 1.0, 0.5], "not increasing")]),
    Probe(baselines.fit_neural_ode, valid=lambda: {"net": _net(), "marginals": [m.float() for m in _ms()],
                                                   "times": [0.0, 0.5, 1.0],
                                                   "iters": 1, "lr": 1e-3, "batch": 4, "steps": 2, "eps": 0.1,
                                                   "sinkhorn_iters": 3, "clip": 1.0},
          extra=[BAD_MS]),
    # ---- data
    Probe(data.gaussian_marginals, valid=lambda: {"means": [0.0, 1.0], "stds": 0.1, "n": 4, "seed": 0},
          extra=[("means", [[0.0]], "one snapshot"), ("stds", [-1.0, 1.0], "negative std"),
                 ("means", [float("nan"), 1.0], "NaN mean")]),
    Probe(data.steering_gaussians, valid=lambda: {"n": 4, "std": 0.1, "seed": 0}),
    Probe(data.rotating_blobs, valid=lambda: {"n": 4, "T": 3, "deg_per_step": 45.0, "radius": 2.0, "blob_std": 0.25,
                                              "n_blobs": 1, "seed": 0}),
    Probe(data.branching, valid=lambda: {"n": 4, "T": 3, "d": 2, "spread": 1.0, "latent_noise": 0.1,
                                         "ambient_noise": 0.05, "seed": 0},
          extra=[("d", 1, "one dimension")]),
    Probe(data.gapminder, valid=lambda: {"path": None},
          extra=[("path", TMP / "missing.csv", "missing file"), ("path", 3, "an int path")]),
    # ---- experiment
    Probe(experiment.closed_form_checks, valid=lambda: {"seed": 0}, skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed"), ("seed", 1.5, "float seed")]),
    Probe(experiment.train_method, valid=lambda: {"method": "ot_cfm", "marginals": _ms(), "times": [0.0, 0.5, 1.0],
                                                  "cfg": _tiny_cfg(), "device": "cpu", "seed": 0, "strength": 10.0,
                                                  "width": 0.1, "iters": 2},
          skip={"seed": "seed 0 is valid", "strength": "the baselines ignore the strength"},
          extra=[("method", "sb_cfm", "unknown method"), ("seed", -1, "negative seed"), BAD_MS]),
    Probe(experiment.learning_rate_scan, valid=lambda: {"cfg": _tiny_cfg(), "device": "cpu", "seeds": (100,),
                                                        "grid": (1e-3,)},
          extra=[("seeds", (0,), "an evaluation seed"), ("grid", (0.0,), "zero learning rate"),
                 ("cfg", {"batch": 4}, "config without efficiency")]),
    Probe(experiment.run, valid=lambda: {"config": {**_tiny_cfg(), "blobs": {**_tiny_cfg()["blobs"], "methods": []},
                                                    "steering": {"strength": 10.0, "width": 0.1}},
                                         "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("config", {"iters": 1}, "incomplete config"), ("seed", -1, "negative seed"),
                 ("config", {**experiment.CONFIGS["quick"], "iters": 0}, "zero iterations")]),
    # ---- explore and the shipped explorer models
    Probe(explore.plot_trained_flows, valid=lambda: {"t": 0.5, "method": "MMFM", "log10_strength": 2.0},
          extra=[("t", 1.5, "t past 1"), ("method", "SB-CFM", "unknown method"),
                 ("log10_strength", 2.5, "a strength that was not trained")]),
    Probe(explore.plot_conditional_paths, valid=lambda: {"log10_strength": 2.0, "width": 0.1, "kernel": "gaussian",
                                                         "alpha": 1.0, "n_tuples": 3},
          extra=[("kernel", "cosine", "unknown kernel"), ("alpha", 2.0, "alpha above 1")]),
    Probe(explorer_models.snapshots, valid=lambda: {"n": 4, "seed": 0}, skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed")]),
    Probe(explorer_models.train_models, valid=lambda: {"spec": {**explorer_models.SPEC, "n": 12, "iters": 2,
                                                                "ode_iters": 1, "hidden": 8, "depth": 1, "batch": 8,
                                                                "strengths": [10.0]}, "device": "cpu"},
          extra=[("spec", {"n": 4}, "incomplete spec")]),
    Probe(explorer_models.save_models, valid=lambda: {"models": {"a": _net()}, "path": TMP / "m.safetensors"},
          extra=[("models", {"a": 3}, "not a network"), ("models", {}, "no model")]),
    Probe(explorer_models.load_models, valid=lambda: {},
          extra=[("path", TMP / "missing.safetensors", "missing file"), ("sha256", "0" * 64, "wrong checksum")]),
    # ---- transport
    Probe(couplings.cost_matrix, valid=lambda: {"x": _pts(), "y": _pts(seed=1)},
          extra=[("cost", "l1", "unknown cost"), ("y", _pts(d=3), "dimension mismatch")]),
    Probe(couplings.exact_ot_plan, valid=lambda: {"x": _pts(), "y": _pts(seed=1)},
          extra=[("a", torch.ones(6, dtype=DT), "weights not summing to one"),
                 ("num_iter_max", 0, "no iteration")]),
    Probe(couplings.sinkhorn_plan, valid=lambda: {"x": _pts(), "y": _pts(seed=1), "rel_eps": 0.01, "iters": 5}),
    Probe(couplings.ot_map_indices, valid=lambda: {"x": _pts(), "y": _pts(seed=1)},
          extra=[("solver", "lp", "unknown solver")]),
    Probe(couplings.chain_indices, valid=lambda: {"marginals": _ms()},
          extra=[BAD_MS, ("marginals", [_pts()], "one marginal"), ("solver", "lp", "unknown solver")]),
    Probe(couplings.PlanSampler, valid=lambda: {"plan": torch.eye(3, dtype=DT) / 3},
          extra=[("plan", -torch.eye(3, dtype=DT), "negative plan"), ("plan", torch.zeros(3, 3, dtype=DT), "no mass")]),
    Probe(couplings.sample_plan, valid=lambda: {"plan": torch.eye(3, dtype=DT) / 3, "n_samples": 4}),
    Probe(metrics.wasserstein, valid=lambda: {"x": _pts(), "y": _pts(seed=1), "p": 2},
          extra=[("p", 3, "p = 3"), ("y", _pts(d=3), "dimension mismatch")]),
    Probe(metrics.gaussian_w2, valid=lambda: {"m1": torch.zeros(2), "s1": torch.eye(2), "m2": torch.ones(2),
                                              "s2": torch.eye(2)},
          extra=[("s2", torch.eye(3), "covariance of the wrong size")]),
    Probe(metrics.median_bandwidth, valid=lambda: {"x": _pts(), "y": _pts(seed=1)}),
    Probe(metrics.mmd, valid=lambda: {"x": _pts(), "y": _pts(seed=1), "bandwidths": [1.0]},
          extra=[("bandwidths", [-1.0], "negative bandwidth")]),
    Probe(metrics.sliced_wasserstein, valid=lambda: {"x": _pts(), "y": _pts(seed=1), "n_projections": 3}),
    Probe(metrics.sinkhorn_potentials, valid=lambda: {"c": _pts(4, 4).abs(), "eps": 0.1, "iters": 3}),
    Probe(metrics.sinkhorn_divergence, valid=lambda: {"x": _pts(), "y": _pts(seed=1), "eps": 0.1, "iters": 3}),
    Probe(ode.integrate, valid=lambda: {"velocity": lambda x, t: -x, "x0": torch.ones(3, 2), "times": [0.0, 1.0],
                                        "steps": 4},
          extra=[("velocity", 3, "not callable"), ("times", [1.0, 0.0], "decreasing"),
                 ("method", "rk45", "unknown solver"), ("rtol", -1.0, "negative tolerance")]),
    Probe(paths.linear_path, valid=lambda: {"x0": _pts(), "x1": _pts(seed=1), "t": 0.5},
          extra=[("x1", _pts(5), "row mismatch"), ("sigma", -1.0, "negative sigma")]),
    Probe(paths.piecewise_linear_path, valid=lambda: {"xs": _pts(8)[None].reshape(2, 4, 2), "times": [0, 0.3, 0.6, 1],
                                                      "t": 0.5},
          extra=[("times", [0, 0.6, 0.3, 1], "not increasing"), ("t", float("nan"), "NaN time")]),
    Probe(paths.natural_cubic_spline_coeffs, valid=lambda: {"times": [0.0, 0.4, 1.0]},
          extra=[("times", [0.0, 1.0], "two knots"), ("times", [0.0, float("nan"), 1.0], "NaN knot")]),
    Probe(paths.cubic_spline_path, valid=lambda: {"xs": _pts(6)[None].reshape(2, 3, 2), "times": [0, 0.4, 1],
                                                  "t": 0.5},
          extra=[("xs", torch.zeros(2, 3), "two dimensions")]),
]
EXEMPT = {
    "icml26.papers.otp_fm.explorer_models.main": "the command line that retrains the shipped weights (argparse)",
    "icml26.papers.otp_fm.explore.plot_heldout": "draws a results dict made by experiment.run",
    "icml26.papers.otp_fm.explore.plot_gapminder": "draws a results dict made by experiment.run",
    "icml26.papers.otp_fm.explore.plot_strength_sweep": "draws a results dict made by experiment.run",
    "icml26.papers.otp_fm.explore.plot_efficiency": "draws a results dict made by experiment.run",
    "icml26.papers.otp_fm.data.bundled_gapminder_path": "takes no argument; finds plotly's shipped table",
    "icml26.transport._checks.as_points": "the transport modules' own validation helper (it is the check)",
    "icml26.transport._checks.positive": "the transport modules' own validation helper (it is the check)",
    "icml26.transport._checks.positive_int": "the transport modules' own validation helper (it is the check)",
}
assert transport.integrate is ode.integrate
