"""Bad-input probes of icml26.papers.hybrid_node (see tests/inputs/harness.py)."""

import torch
from harness import Probe

from icml26.papers.hybrid_node import baselines, experiment, explore, jumps, method, simulators, topology

P = "icml26.papers.hybrid_node"


def _saw(n=8, t=12):
    return simulators.simulate("sawtooth", n, t, seed=0)


def _trained():
    d = _saw()
    return method.train_chyllpp(d.x, d.dt, iters=2, width=4, stages=(3,), seed=0)[0], d


def _window():
    d = _saw()
    xs = (d.x - d.x.mean((0, 1))) / d.x.std((0, 1))
    return xs[:, :7], jumps.detect_jumps(d.x, d.dt)[None, :, :6], d.dt


def _ens_loss(model, win, wm, dt):
    return method.chyllpp_loss(model, win, wm, dt, method.weight_table(method.DEFAULT_WEIGHTS), torch.tensor([0.01]))


TRAIN = {"stages": (3,), "iters": 2, "width": 4}
FAKE_RESULTS = {"sawtooth": {"chyllpp": {"mse": 0.01}, "node": {"mse": 0.1},
                             "example": {"t": [0.0, 0.1], "truth": [0.0, 0.1], "chyllpp": [0.0, 0.1]}}}
SAW = _saw()
SAW_X, SAW_DT = SAW.x, SAW.dt
BAD_SHAPE = ("x", torch.zeros(3, 2), "2-D instead of (B, T, n)")

PROBES = [
    # simulators
    Probe(simulators.simulate, valid=lambda: {"system": "klein", "n_traj": 2, "n_steps": 5, "dt": 0.05, "seed": 0,
                                              "device": "cpu"},
          extra=[("system", "cube", "unknown system"), ("n_steps", 1, "a single sample")]),
    Probe(simulators.embed, valid=lambda: {"system": "torus", "x": torch.rand(4, 2)},
          extra=[("x", torch.rand(4, 3), "wrong state dimension"), ("system", "cube", "unknown system")]),
    Probe(simulators.naive_ball_embed, valid=lambda: {"x": torch.rand(4, 2)},
          extra=[("x", torch.rand(4, 6), "wrong state dimension")]),
    Probe(simulators.two_speed_embed, valid=lambda: {"x": torch.tensor([0.5, 2.5])},
          extra=[("x", torch.tensor([1.5]), "outside both pieces")]),
    Probe(simulators.two_speed_field, valid=lambda: {"x": torch.tensor([0.5, 2.5])}),
    Probe(simulators.two_speed_check, valid=lambda: {"n_grid": 50}, extra=[("n_grid", 5, "too coarse")]),
    Probe(simulators.guard_pairs, valid=lambda: {"system": "ball3d", "k": 6, "seed": 0},
          extra=[("system", "cube", "unknown system")]),
    Probe(simulators.vector_field, valid=lambda: {"system": "klein", "x": torch.rand(4, 2)},
          extra=[("x", torch.rand(4, 6), "wrong state dimension")]),
    Probe(simulators.c2_gap, valid=lambda: {"system": "mobius", "k": 8, "seed": 0},
          extra=[("encoder", 3, "not callable")]),
    Probe(simulators.domain_grid, valid=lambda: {"system": "klein", "per_axis": 4},
          extra=[("per_axis", 2, "too coarse"), ("system", "ball3d", "not a 2-D system")]),
    # jumps
    Probe(jumps.step_speed, valid=lambda: {"x": SAW_X, "dt": SAW_DT}, extra=[BAD_SHAPE]),
    Probe(jumps.detect_jumps, valid=lambda: {"x": SAW_X, "dt": SAW_DT, "factor": 5.0}, extra=[BAD_SHAPE]),
    Probe(jumps.precision_recall, valid=lambda: {"detected": SAW.resets, "truth": SAW.resets},
          extra=[("truth", SAW.resets[:, :3], "wrong shape"), ("detected", SAW_X, "not a mask")]),
    Probe(jumps.jump_ratio, valid=lambda: {"z": SAW_X, "resets": SAW.resets},
          extra=[("resets", SAW.resets[:, :3], "wrong shape"), ("z", torch.zeros(3, 2), "2-D")]),
    Probe(jumps.velocity_jump, valid=lambda: {"z": SAW_X, "resets": SAW.resets, "dt": SAW_DT},
          extra=[("resets", SAW.resets[:, :3], "wrong shape")]),
    # method
    Probe(method.Linear, valid=lambda: {"d_in": 2, "d_out": 3, "members": 2}),
    Probe(method.mlp, valid=lambda: {"d_in": 2, "d_out": 3, "width": 4, "depth": 1, "members": 1},
          extra=[("last", "tanh", "unknown activation")]),
    Probe(method.n_params, valid=lambda: {"module": method.mlp(2, 2, 4)}, extra=[("module", 3, "not a module")]),
    Probe(method.rollout_ode, valid=lambda: {"field": method.Field(torch.nn.Identity()), "z0": torch.zeros(1, 3, 2),
                                             "n_steps": 2, "dt": 0.1, "substeps": 1},
          extra=[("z0", torch.zeros(3, 2), "no member axis")]),
    Probe(method.CHyLLpp, valid=lambda: {"n": 2, "m": 3, "width": 4, "members": 1},
          extra=[("last", "tanh", "unknown activation")]),
    Probe(method.glue_velocity_terms, valid=lambda: {"zenc": torch.rand(1, 2, 5, 3),
                                                     "jumps": torch.zeros(1, 2, 4, dtype=torch.bool), "dt": 0.1},
          extra=[("jumps", torch.zeros(1, 2, 3, dtype=torch.bool), "wrong shape"),
                 ("zenc", torch.rand(2, 5, 3), "no member axis")]),
    Probe(method.covariance_floor, valid=lambda: {"z": torch.rand(1, 10, 3), "floor": 0.1},
          extra=[("z", torch.rand(3), "1-D")]),
    Probe(method.weight_table, valid=lambda: {"weights": [method.DEFAULT_WEIGHTS]},
          extra=[("weights", [], "no member"), ("weights", [{"x": 0.0}], "w_x = 0"),
                 ("weights", [{"x": 1.0, "q": 1.0}], "unknown term")]),
    Probe(method.curriculum_lengths, valid=lambda: {"stages": (2, 4), "iters": 4},
          extra=[("stages", (4, 2), "decreasing"), ("stages", (), "empty")]),
    Probe(method.sample_windows, valid=lambda: {"x": SAW_X, "mask": SAW.resets, "length": 3, "batch": 2,
                                                "gen": torch.Generator().manual_seed(0)},
          extra=[("length", 50, "longer than the data"), ("mask", SAW.resets[:, :3], "wrong shape")]),
    Probe(method.train_rollout, valid=lambda: (lambda m: {
        "params": list(m.parameters()), "loss_fn": lambda w, wm, s: ((m(w[:, 0], w.shape[1] - 1, 0.05) - w) ** 2)
        .mean((1, 2, 3)), "x": SAW_X, "mask": SAW.resets, "stages": (2,), "iters": 2, "batch": 2, "lr": 1e-3})(
            baselines.StateNODE(2, 4)),
        skip={"params": "a list of parameters; emptiness is probed by extra"},
        extra=[("params", [], "no parameters"), ("mask", SAW.resets[:, :3], "wrong shape")]),
    Probe(method.normaliser, valid=lambda: {"x": SAW_X}, extra=[BAD_SHAPE]),
    Probe(method.train_chyllpp, valid=lambda: {"x": SAW_X, "dt": SAW_DT, "m": 3, **TRAIN, "batch": 4},
          extra=[BAD_SHAPE, ("weights", {"x": -1.0}, "negative weight"),
                 ("masks", [None, None], "one mask per member expected")]),
    Probe(method.predict, valid=lambda: (lambda md: {"model": md[0], "x0": md[1].x[:, 0], "n_steps": 3,
                                                     "dt": md[1].dt})(_trained()),
          extra=[("x0", torch.zeros(3), "1-D"), ("model", method.CHyLLpp(2, 3, 4), "untrained (no normaliser)")]),
    Probe(method.encode, valid=lambda: (lambda md: {"model": md[0], "x": md[1].x})(_trained()),
          extra=[("model", method.CHyLLpp(2, 3, 4), "untrained (no normaliser)")]),
    Probe(method.chyllpp_loss, name=f"{P}.method.chyllpp_loss",
          valid=lambda: (lambda w: {"model": method.CHyLLpp(2, 5, 4), "window": w[0], "jumps": w[1], "dt": w[2],
                                    "weights": method.weight_table(method.DEFAULT_WEIGHTS),
                                    "floor": torch.tensor([0.01])})(_window()),
          extra=[("window", torch.zeros(3, 2), "2-D"),
                 ("jumps", torch.zeros(1, 8, 3, dtype=torch.bool), "wrong shape")]),
    # baselines
    Probe(baselines.matched_width, valid=lambda: {"target": 500, "d_in": 2, "d_out": 2, "depth": 2}),
    Probe(baselines.StateNODE, valid=lambda: {"n": 2, "width": 4, "depth": 1, "members": 1}),
    Probe(baselines.EventODE, valid=lambda: {"n": 2, "width": 4, "depth": 1, "members": 1}),
    Probe(baselines.train_state_node, valid=lambda: {"x": SAW_X, "dt": SAW_DT, **TRAIN}, extra=[BAD_SHAPE]),
    Probe(baselines.train_latent_ode, valid=lambda: {"x": SAW_X, "dt": SAW_DT, **TRAIN},
          extra=[BAD_SHAPE, ("weights", {"x": 1.0}, "weights are fixed")]),
    Probe(baselines.train_chyll, valid=lambda: {"x": SAW_X, "dt": SAW_DT, **TRAIN}, extra=[BAD_SHAPE]),
    Probe(baselines.train_event_ode, valid=lambda: {"x": SAW_X, "dt": SAW_DT, **TRAIN}, extra=[BAD_SHAPE]),
    # topology
    Probe(topology.persistence_ratios, valid=lambda: {"points": torch.rand(30, 3), "maxdim": 1, "coeff": 3,
                                                      "n_landmarks": 20},
          extra=[("coeff", 4, "not a prime"), ("points", torch.rand(3, 3), "too few points"),
                 ("maxdim", 3, "above 2")]),
    Probe(topology.betti_numbers, valid=lambda: {"points": torch.rand(30, 3), "maxdim": 1, "n_landmarks": 20},
          extra=[("min_ratio", (0.5, 1.5), "a ratio <= 1")]),
    Probe(topology.betti_error, valid=lambda: {"system": "sawtooth", "points": torch.rand(30, 3), "n_landmarks": 20},
          extra=[("system", "ball3d", "no expected Betti numbers")]),
    # experiment
    Probe(experiment.near_reset_mask, valid=lambda: {"resets": SAW.resets},
          extra=[("resets", SAW_X, "not a mask")]),
    Probe(experiment.rollout_errors, valid=lambda: (lambda md: {"model": md[0], "test": md[1], "horizon": 5})(
        _trained()), extra=[("test", SAW_X, "a tensor instead of HybridData"), ("horizon", 50, "past the data")]),
    Probe(experiment.analytic_checks, valid=lambda: {"n_traj": 2, "n_steps": 30, "seed": 0, "grid": 6,
                                                     "landmarks": 20, "betti": False},
          skip={"n_steps": "0/-1 are probed; a short run may lack resets, which jump_ratio reports"}),
    Probe(experiment.run, valid=lambda: {"config": {**experiment.CONFIGS["quick"], "iters": {"sawtooth": 2},
                                                    "n_train": 4, "n_test": 4}, "device": "cpu", "seed": 0},
          extra=[("config", {"iters": 1}, "incomplete config"), ("config", 3, "not a mapping"),
                 ("config", {**experiment.CONFIGS["quick"], "systems": {"cube": {}}}, "unknown system")]),
    # explore
    Probe(explore.plot_system, valid=lambda: {"system": "ball", "x0": 1.0, "p1": 0.5, "horizon": 1.0},
          extra=[("system", "cube", "unknown system")]),
    Probe(explore.plot_detection, valid=lambda: {"system": "ball", "factor": 5.0, "n_traj": 4},
          extra=[("system", "cube", "unknown system")]),
    Probe(explore.plot_rollouts, valid=lambda: {"data": SAW, "preds": {"copy": SAW.x}, "traj": 0, "coord": 0},
          extra=[("data", SAW_X, "a tensor instead of HybridData"), ("traj", 99, "past the data")]),
    Probe(explore.plot_scores, valid=lambda: {"results": FAKE_RESULTS},
          extra=[("results", {}, "no learned system"), ("results", 3, "not a dict")]),
    Probe(explore.plot_example, valid=lambda: {"results": FAKE_RESULTS, "system": "sawtooth"},
          extra=[("system", "ball", "not in the results"), ("results", 3, "not a dict")]),
    Probe(explore.plot_latent_cloud, valid=lambda: {"points": torch.rand(20, 5)},
          extra=[("points", torch.rand(3, 5), "too few points")]),
]

EXEMPT = {
    f"{P}.simulators.HybridData": "a plain container of tensors built by simulate, which validates its inputs",
    f"{P}.method.Field": "a one-line torchdiffeq wrapper around a module (no input of its own)",
}
