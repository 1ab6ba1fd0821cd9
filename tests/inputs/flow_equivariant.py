"""Bad-input probes of icml26.papers.flow_equivariant (see tests/inputs/harness.py)."""

import torch
from harness import Probe

from icml26.papers.flow_equivariant import baselines, data, diagnostics, experiment, explore, method, recurrent, shifts

P = "icml26.papers.flow_equivariant"
LONG = torch.long
TINY = {**experiment.CONFIGS["quick"], "world": 8, "window": 4, "n_digits": 1, "step": 2, "t_in": 3, "t_out": 2,
        "channels": 2, "batch": 2, "iters": 1, "pool": 2, "n_eval": 2}
WORLD_KW = dict(world=8, window=4, n_digits=1, step=2, t_in=3, t_out=2)


def _batch(keep_world=False):
    return data.make_batch(2, generator=torch.Generator().manual_seed(0), keep_world=keep_world, **WORLD_KW)


def _flowm(radius=1):
    torch.manual_seed(0)
    return method.FloWM(8, 4, 2, radius)


def _results():
    rec = {"params": 10, "mse": 0.1, "mse_curve": [0.1, 0.1], "long_curve": [0.1] * 40, "eval_iters": [0],
           "eval_mse": [0.1]}
    world = {k: dict(rec) for k in ("flowm", "convgru", "all_black")}
    return {"config": {"t_out": 2}, "static": world, "dynamic": world, "diagnostics": {"dynamic": {}}}


BAD_FRAMES = ("frames", torch.rand(1, 2, 4, 5), "frames that are not square")
FLOAT_ACTIONS = ("actions", torch.zeros(1, 2, 2), "float actions")

PROBES = [
    # ---- shifts
    Probe(shifts.torus_shift, valid=lambda: {"x": torch.rand(2, 3, 5, 5), "shifts": torch.ones(2, 3, 2, dtype=LONG),
                                             "pad": 0},
          skip={"x": "a shift moves any value exactly, NaN included; emptiness is probed by extra"},
          extra=[("x", torch.zeros(0, 5, 5), "empty"), ("shifts", torch.ones(2, 3, 2), "float shifts"),
                 ("shifts", torch.ones(4, 2, dtype=LONG), "shifts that do not broadcast"),
                 ("shifts", (1,), "a 1-tuple")]),
    Probe(shifts.velocity_grid, valid=lambda: {"radius": 0}, extra=[("radius", 1.5, "a float radius")]),
    Probe(shifts.window_crop, valid=lambda: {"world": torch.rand(2, 6, 6), "centers": torch.ones(2, 2, dtype=LONG),
                                             "window": 4},
          skip={"world": "a crop copies any value exactly; emptiness is probed by extra"},
          extra=[("world", torch.zeros(0, 6), "empty"), ("centers", torch.ones(2, 2), "float centres"),
                 ("window", 7, "a window larger than the world")]),
    # ---- data
    Probe(data.sprites, valid=lambda: {"split": "train", "upsample": 1}, extra=[("split", "val", "unknown split")]),
    Probe(data.render, valid=lambda: {"sprite_imgs": torch.rand(2, 1, 4, 4),
                                      "positions": torch.ones(2, 1, 2, dtype=LONG), "world": 6},
          extra=[("positions", torch.ones(2, 3, 2, dtype=LONG), "one position per digit expected"),
                 ("world", 3, "a world smaller than a sprite")]),
    Probe(data.camera_path, valid=lambda: {"batch": 2, "world": 8, "window": 4, "step": 0, "t_context": 3,
                                           "t_target": 0, "device": "cpu"},
          extra=[("window", 9, "a window larger than the world")]),
    Probe(data.make_batch, valid=lambda: {"batch": 2, "device": "cpu", **WORLD_KW, "step": 0},
          extra=[("window", 9, "a window larger than the world"), ("split", "val", "unknown split")]),
    Probe(data.make_pool, valid=lambda: {"n": 2, "chunk": 1, **WORLD_KW, "step": 0},
          extra=[("window", 9, "too large")]),
    Probe(data.take, valid=lambda: {"pool": _batch(), "index": torch.tensor([1, 0])},
          extra=[("index", torch.tensor([2]), "out of range"), ("index", torch.tensor([0.0]), "float index"),
                 ("pool", {}, "not a pool")]),
    # ---- method
    Probe(method.check_sizes, valid=lambda: {"world": 8, "window": 4, "channels": 2, "radius": 0, "dec_layers": 0},
          extra=[("window", 9, "a window larger than the world")]),
    Probe(method.conv_decoder, valid=lambda: {"channels": 2, "layers": 0, "padding_mode": "circular"},
          extra=[("padding_mode", "mirror", "unknown padding")]),
    Probe(method.FloWM, valid=lambda: {"world": 8, "window": 4, "channels": 2, "radius": 0, "dec_layers": 0},
          extra=[("window", 9, "a window larger than the world"), ("rec_init", "orthogonal", "unknown init"),
                 ("max_gain", float("nan"), "NaN gain cap"), ("max_gain", -1.0, "negative gain cap")]),
    Probe(method.encode_states, valid=lambda: {"model": _flowm(0), "frames": torch.rand(1, 2, 4, 4),
                                               "actions": torch.zeros(1, 2, 2, dtype=LONG)},
          extra=[BAD_FRAMES, FLOAT_ACTIONS, ("model", "flowm", "not a model")]),
    Probe(method.velocity_index, valid=lambda: {"velocities": shifts.velocity_grid(1), "v": (0, 0)},
          extra=[("v", (0.5, 1.0), "a float velocity"), ("v", (1, 1, 1), "three components"),
                 ("velocities", torch.zeros(9, 2), "float velocities")]),
    Probe(method.equivariance_errors, valid=lambda: {"model": method.FloWM(6, 6, 2, 1), "pattern": torch.rand(6, 6),
                                                     "camera_path": torch.ones(3, 2, dtype=LONG), "flow": (1, 0)},
          extra=[("flow", (0.5, 0.0), "a float flow"), ("camera_path", torch.ones(3, 2), "a float path"),
                 ("model", 3, "not a model")]),
    Probe(method.allocentric_states, valid=lambda: {"model": _flowm(), "frames": torch.rand(1, 3, 4, 4),
                                                    "cams": torch.ones(1, 3, 2, dtype=LONG)},
          extra=[("cams", torch.ones(1, 3, 2), "float cameras"), ("model", baselines.CopyLast(), "not a FloWM")]),
    Probe(method.partial_view_errors, valid=lambda: {"model": _flowm(), "world": torch.rand(1, 8, 8),
                                                     "cams": torch.ones(1, 3, 2, dtype=LONG), "window": 4,
                                                     "flow": (1, 0)},
          extra=[("world", torch.rand(1, 6, 6), "a world of another size"), ("flow", "east", "not a pair")]),
    Probe(method.overwrite_memory, valid=lambda: {"frames": torch.rand(1, 3, 4, 4),
                                                  "actions": torch.zeros(1, 3, 2, dtype=LONG), "world": 8},
          extra=[("world", 3, "a world smaller than the window"), BAD_FRAMES, FLOAT_ACTIONS,
                 ("write", torch.ones(1, 2, dtype=torch.bool), "a write mask of the wrong length")]),
    # ---- recurrent
    Probe(recurrent.ConvGRUCell, valid=lambda: {"in_channels": 1, "hidden": 2, "kernel": 3, "padding_mode": "zeros"},
          extra=[("kernel", 2, "an even kernel"), ("padding_mode", "mirror", "unknown padding")]),
    Probe(recurrent.check_sequence, valid=lambda: {"frames": torch.rand(1, 2, 4, 4),
                                                   "actions": torch.zeros(1, 2, 2, dtype=LONG)},
          extra=[BAD_FRAMES, FLOAT_ACTIONS, ("actions", torch.zeros(1, 3, 2, dtype=LONG), "one action too many")]),
    Probe(recurrent.rollout, valid=lambda: {"model": _flowm(0), "frames_in": torch.rand(1, 2, 4, 4),
                                            "actions_in": torch.zeros(1, 2, 2, dtype=LONG),
                                            "actions_out": torch.zeros(1, 2, 2, dtype=LONG)},
          extra=[("actions_out", torch.zeros(2, 2, 2, dtype=LONG), "another batch size"),
                 ("teacher_forcing", 2.0, "a ratio above 1"), ("model", "flowm", "not a model"),
                 ("observe", 3, "not callable")]),
    Probe(recurrent.per_step_mse, valid=lambda: {"model": _flowm(0), "batch": _batch(), "chunk": 4},
          extra=[("batch", {}, "not a batch"), ("model", None, "not a model")]),
    Probe(recurrent.train_rollout, valid=lambda: {"model": _flowm(0), "sample_batch": lambda i: _batch(),
                                                  "iters": 0, "lr": 1e-2},
          extra=[("sample_batch", 3, "not callable"), ("teacher_forcing", -0.5, "a negative ratio"),
                 ("grad_clip", 0.0, "a zero clip")]),
    # ---- baselines
    Probe(baselines.ActionConcatWM, valid=lambda: {"world": 8, "window": 4, "channels": 2, "dec_layers": 0,
                                                   "action_scale": 1.0},
          extra=[("window", 9, "a window larger than the world"), ("action_scale", 0.0, "a zero scale")]),
    Probe(baselines.ConvGRUWM, valid=lambda: {"window": 4, "channels": 2, "dec_layers": 0, "action_scale": 1.0}),
    Probe(baselines.SlidingWindowWM, valid=lambda: {"window": 4, "channels": 2, "k": 2, "action_scale": 1.0,
                                                    "layers": 1}),
    Probe(baselines.n_params, valid=lambda: {"model": _flowm(0)}, extra=[("model", "flowm", "not a module")]),
    # ---- diagnostics
    Probe(diagnostics.ChannelSubset, valid=lambda: {"model": _flowm(), "keep": [4]},
          extra=[("keep", [9], "no such channel"), ("keep", [], "no channel"),
                 ("model", baselines.CopyLast(), "not a FloWM")]),
    Probe(diagnostics.velocity_selectivity, valid=lambda: {"model": _flowm(), "batch": _batch(True), "threshold": 0.5},
          extra=[("batch", _batch(), "a batch without its world"), ("threshold", 1.5, "a threshold above 1")]),
    Probe(diagnostics.long_rollout_stats, valid=lambda: {"model": _flowm(), "batch": _batch()},
          extra=[("model", "flowm", "not a model")]),
    Probe(diagnostics.static_report, valid=lambda: {"models": {"flowm": _flowm()}, "test": _batch(True)},
          extra=[("models", ["flowm"], "not a dict"), ("test", _batch(), "a batch without its world")]),
    Probe(diagnostics.dynamic_report, valid=lambda: {"models": {"flowm": _flowm()}, "long": _batch(True)},
          extra=[("models", {"flowm": 3}, "not a model"), ("long", None, "no long rollout")]),
    Probe(diagnostics.recurrent_gain, valid=lambda: {"model": _flowm()}, extra=[("model", "flowm", "not a FloWM")]),
    # ---- experiment
    Probe(experiment.check_config, valid=lambda: {"config": dict(TINY)},
          extra=[("config", {"world": 8}, "missing keys"), ("config", {**TINY, "window": 9}, "window > world"),
                 ("config", {**TINY, "colour": 1}, "an unknown key"), ("config", {**TINY, "lr": -1.0}, "negative lr"),
                 ("config", [1], "not a mapping")]),
    Probe(experiment.equivariance_check, valid=lambda: {"device": "cpu", "seed": 0, "world": 6, "channels": 2,
                                                        "radius": 1, "steps": 3, "flow": (1, 0)},
          extra=[("flow", (0.5, 0), "a float flow")]),
    Probe(experiment.partial_view_check, valid=lambda: {"model": _flowm(), "cfg": dict(TINY), "device": "cpu",
                                                        "seed": 0, "flow": (1, 0), "n": 1},
          extra=[("cfg", {"world": 8}, "a bad config"), ("model", baselines.CopyLast(), "not a FloWM")]),
    Probe(experiment.make_model, valid=lambda: {"kind": "convgru", "cfg": dict(TINY)},
          extra=[("kind", "transformer", "unknown kind"), ("cfg", {}, "empty config")]),
    Probe(experiment.study, valid=lambda: {"cfg": dict(TINY), "device": "cpu", "seed": 0, "dynamic": False,
                                           "kinds": ["copy_last"], "t_long": None},
          extra=[("kinds", [], "no model"), ("kinds", ["transformer"], "unknown kind"),
                 ("kinds", "flowm", "a string")]),
    Probe(experiment.run, valid=lambda: {"config": dict(TINY), "device": "cpu", "seed": 0},
          extra=[("config", {**TINY, "dynamic": True}, "moving world without t_long"),
                 ("config", {**TINY, "t_long": 10}, "t_long too short")]),
    # ---- explore
    Probe(explore.plot_partial_observability, valid=lambda: {"t": 20, "step": 3, "seed": 0},
          skip={"t": "t = 0 is the first frame; out-of-range t is probed by extra"},
          extra=[("t", 40, "past the episode"), ("t", -1, "negative")]),
    Probe(explore.plot_memory_mse, valid=lambda: {"step": 3, "seed": 0}),
    Probe(explore.plot_mse_curves, valid=lambda: {"results": _results(), "world": "static"},
          extra=[("world", "moon", "unknown world"), ("results", {}, "not results")]),
    Probe(explore.plot_training_curves, valid=lambda: {"results": _results(), "world": "dynamic"},
          extra=[("world", "moon", "unknown world")]),
    Probe(explore.plot_long_rollout, valid=lambda: {"results": _results()},
          extra=[("results", {"static": {}}, "no moving-world study")]),
    Probe(explore.mse_rows, valid=lambda: {"results": _results()}, extra=[("results", [], "not results")]),
]
EXEMPT = {
    f"{P}.recurrent.RolloutModel": "an abstract interface without arguments",
    f"{P}.baselines.CopyLast": "a reference model without arguments",
    f"{P}.baselines.AllBlack": "a reference model without arguments",
}
