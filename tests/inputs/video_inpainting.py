"""Bad-input probes of trajectory-stabilised video inpainting (icml26.papers.video_inpainting)."""

import functools
import tempfile
from pathlib import Path

import torch
from harness import Probe

from icml26.diffusion import cosine_alpha_bar, grf_spectrum
from icml26.papers.video_inpainting import baselines, experiment, explore, flowest, learned, method, toyvideo

TINY = dict(n_videos=1, noise_seeds=1, frames=4, size=8, channels=1, hole=3, sub_hole=1, T=20, steps=3,
            flows="estimated", uniform_lams=[0.5], post_hoc_lam=0.5, long_k=2,
            controller=dict(experiment.TSI, tau=0.3, rho=1.0), learned=None)


TINY_L = dict(TINY, size=24, hole=8, sub_hole=3,
              learned=dict(model="quick", clips=1, controller=dict(experiment.TSI, tau=0.3, rho=1.0)))
SMALL_RECIPE = {**learned.RECIPE, **learned.SMALL}
TMP = Path(tempfile.mkdtemp(prefix="vi_probe_"))


@functools.cache
def _data_l():
    return experiment.setup(TINY_L, "cpu", 0)


def _net(size=8):
    torch.manual_seed(0)
    net = learned.DenoiserUNet(4, 8)
    net.size = size
    return net


@functools.cache
def _saved():
    path = TMP / "saved.safetensors"
    learned.save({"quick": _net()}, path, SMALL_RECIPE)
    return path


def _not_safetensors():
    path = TMP / "junk.safetensors"
    path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    return path


def _clip():
    return toyvideo.make_videos(1, frames=4, size=8, hole=3, sub_hole=1, generator=torch.Generator().manual_seed(0))


def _data():
    return experiment.setup(TINY, "cpu", 0)


@functools.cache
def _results():
    return experiment.run(TINY, "cpu", 0)


def _flows_kw():
    c = _clip()
    return {"mask": c["mask"], "known": c["known"], "flows": c["flows"], "valid": c["valid"]}


PROBES = [
    # ---- method
    Probe(method.anchor_set, valid=lambda: {"frames": 9, "stride": 4}, extra=[("stride", 1.5, "float stride")]),
    Probe(method.source_table, valid=lambda: {"frames": 6, "anchors": [0, 4, 5], "ell": 2.0, "kappa_a": 2.0},
          extra=[("anchors", [0, 6], "anchor past the last frame"), ("anchors", 3, "not a list"),
                 ("ell", 0.0, "zero length scale"), ("use_anchors", "yes", "not a bool")]),
    Probe(method.TemporalController,
          valid=lambda: {**_flows_kw(), "mode": "tsi", "padding": "periodic", "tau": 0.2, "lam_max": 0.6,
                         "stride": 2, "rho": 1.0},
          extra=[("mode", "x", "unknown mode"), ("padding", "wrap", "unknown padding"),
                 ("flows", torch.zeros(1, 4, 4, 2, 8, 7), "flows of the wrong width"),
                 ("valid", torch.ones(1, 4, 3, 1, 8, 8), "valid of the wrong shape"),
                 ("known", torch.zeros(1, 4, 1, 8), "a 4-D clip"), ("mask", torch.zeros(1, 3, 1, 8, 8), "F mismatch"),
                 ("lam_max", 1.5, "lam_max above 1"), ("rho", 0.0, "zero rho"), ("tau", -1.0, "negative tau"),
                 ("beta", 1.0, "beta of 1"), ("norm", "mean", "unknown norm"), ("reset", "all", "unknown reset"),
                 ("t_lo", 0.9, "t_lo above t_hi"), ("gamma", float("nan"), "NaN gamma"),
                 ("stride", 0, "zero stride"), ("sigma", 1.0, "unknown parameter")]),
    Probe(method.e_warp, valid=lambda: {"video": _clip()["video"], "flows": _clip()["flows"],
                                        "valid": _clip()["valid"], "region": _clip()["mask"], "k": 1,
                                        "padding": "periodic"},
          extra=[("k", 4, "k = F"), ("flows", torch.zeros(1, 4, 4, 2, 8), "flows of the wrong rank"),
                 ("region", torch.ones(1, 4, 2, 8, 8), "region with 2 of 1 channels"),
                 ("padding", "wrap", "unknown padding"), ("video", torch.zeros(4, 1, 8, 8), "a 4-D video")]),
    Probe(method.psnr, valid=lambda: {"pred": _clip()["known"], "target": _clip()["video"],
                                      "region": _clip()["mask"], "peak": 2.5},
          extra=[("target", torch.zeros(1, 4, 1, 8, 7), "shape mismatch"), ("region", torch.zeros(1, 4, 1, 8, 8),
                                                                             "an empty region"),
                 ("region", torch.ones(1, 4, 1, 3, 3), "region that does not broadcast"),
                 ("peak", 0.0, "zero peak"), ("pred", [1.0], "not a tensor")]),
    Probe(method.laplacian, valid=lambda: {"x": torch.randn(2, 5, 5)}, extra=[("x", torch.ones(3), "one dimension")]),
    Probe(method.hf_energy, valid=lambda: {"x": torch.randn(2, 5, 5), "region": torch.ones(5, 5)},
          extra=[("region", torch.ones(4, 4), "region that does not broadcast"), ("x", "x", "not a tensor")]),
    # ---- baselines
    Probe(baselines.post_hoc_smoothing,
          valid=lambda: {"frames": _clip()["video"], **{k: v for k, v in _flows_kw().items() if k != "known"},
                         "lam": 0.5, "iters": 1, "padding": "periodic"},
          extra=[("lam", 1.5, "lam above 1"), ("iters", 1.0, "float iters"), ("padding", "wrap", "unknown padding"),
                 ("mask", torch.zeros(1, 4, 1, 7, 8), "mask of the wrong height")]),
    Probe(baselines.warped_noise, valid=lambda: {"base": torch.randn(1, 1, 8, 8),
                                                 "flows_from_first": _clip()["flows"][:, :, 0].contiguous(),
                                                 "padding": "periodic"},
          extra=[("flows_from_first", torch.full((1, 2, 2, 8, 8), 0.5), "non-integer flows"),
                 ("flows_from_first", torch.zeros(1, 2, 2, 8, 6), "flows of the wrong width"),
                 ("base", torch.zeros(1, 8, 8), "a 3-D base"), ("padding", "wrap", "unknown padding")]),
    Probe(baselines.flow_propagation, valid=lambda: {**_flows_kw(), "fallback": torch.zeros(1, 4, 1, 8, 8),
                                                     "padding": "periodic"},
          extra=[("fallback", torch.zeros(1, 4, 1, 8, 7), "fallback of the wrong shape"),
                 ("valid", torch.ones(1, 4, 4, 8, 8), "valid of the wrong rank"),
                 ("padding", "wrap", "unknown padding")]),
    # ---- flow estimation
    Probe(flowest.block_match,
          valid=lambda: {"img_a": _clip()["known"][:, 0], "known_a": 1 - _clip()["mask"][:, 0],
                         "img_b": _clip()["known"][:, 1], "known_b": 1 - _clip()["mask"][:, 1], "max_disp": 2,
                         "radius": 2, "min_support": 0.5, "padding": "periodic"},
          extra=[("img_b", torch.zeros(1, 1, 8, 7), "frame of the wrong width"),
                 ("known_a", torch.ones(1, 2, 8, 8), "two-channel observed map"),
                 ("max_disp", 4, "search window larger than the frame"), ("radius", 0, "zero radius"),
                 ("min_support", 1.5, "support above 1"), ("padding", "wrap", "unknown padding")]),
    Probe(flowest.estimate_flows, valid=lambda: {"known": _clip()["known"], "mask": _clip()["mask"], "max_disp": 2,
                                                 "radius": 2, "min_support": 0.5, "padding": "periodic"},
          extra=[("known", torch.zeros(1, 1, 1, 8, 8), "one frame"), ("mask", torch.zeros(1, 4, 1, 8, 7),
                                                                           "mask of the wrong width"),
                 ("known", torch.zeros(4, 1, 8, 8), "a 4-D clip"), ("padding", "wrap", "unknown padding")]),
    Probe(flowest.compose_all_pairs, valid=lambda: {"fwd": torch.ones(1, 3, 2, 8, 8), "bwd": -torch.ones(1, 3, 2, 8, 8),
                                                    "padding": "periodic"},
          extra=[("bwd", torch.ones(1, 2, 2, 8, 8), "bwd with fewer hops"), ("fwd", torch.ones(1, 3, 3, 8, 8),
                                                                             "three flow channels"),
                 ("padding", "wrap", "unknown padding")]),
    Probe(flowest.all_pairs_valid, valid=lambda: {"flows": _clip()["flows"], "padding": "periodic"},
          extra=[("flows", torch.zeros(1, 4, 3, 2, 8, 8), "not square in frames"),
                 ("flows", torch.zeros(1, 4, 4, 2, 8), "flows of the wrong rank"), ("padding", "wrap", "unknown")]),
    # ---- toy world
    Probe(toyvideo.make_videos, valid=lambda: {"n_videos": 1, "frames": 3, "size": 8, "channels": 1, "hole": 3,
                                               "sub_hole": 1, "alpha": 3.0, "k0": 1.0, "max_speed": 1,
                                               "generator": torch.Generator(), "device": "cpu"},
          skip={"sub_hole": "a clip without a sub-hole (0) is valid"},
          extra=[("hole", 8, "hole as large as the frame"), ("sub_hole", 4, "sub-hole larger than the hole"),
                 ("frames", 1, "one frame"), ("size", 4, "frames of 4 pixels"), ("k0", 0.0, "zero k0"),
                 ("alpha", -1.0, "negative alpha"), ("generator", 3, "not a generator"),
                 ("dtype", torch.long, "an integer dtype")]),
    # ---- experiment
    Probe(experiment.setup, valid=lambda: {"config": TINY, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed"), ("seed", 1.5, "float seed"), ("config", {"steps": 3}, "incomplete"),
                 ("config", {**TINY, "n_videos": 0}, "no video"), ("config", {**TINY, "T": 0}, "no diffusion step"),
                 ("config", {**TINY, "hole": 8}, "hole as large as the frame"),
                 ("config", {**TINY, "colour": 1}, "unknown key"),
                 ("config", {**TINY, "flows": "raft"}, "unknown flows"), ("config", [1], "not a mapping")]),
    Probe(experiment.oracle, valid=lambda: {"d": _data()}, extra=[("d", {"video": 1}, "incomplete setup dict")]),
    Probe(experiment.sample, valid=lambda: {"d": _data(), "steps": 3},
          extra=[("steps", 2.5, "float steps"), ("z_T", torch.zeros(1, 4, 1, 8, 7), "noise of the wrong shape"),
                 ("z_T", torch.full((1, 4, 1, 8, 8), float("nan")), "NaN noise"), ("d", {}, "not a setup dict")]),
    Probe(experiment.controller, valid=lambda: {"d": _data(), "mode": "tsi", "tau": 0.2},
          extra=[("mode", "x", "unknown mode"), ("tau", float("nan"), "NaN tau"), ("d", {"video": 1}, "incomplete")]),
    Probe(experiment.metrics, valid=lambda: {"d": _data(), "y": _data()["video"], "long_k": 2},
          extra=[("long_k", 4, "long_k = F"), ("y", torch.zeros(1, 4, 1, 8), "a 4-D output"), ("d", 3, "not a dict")]),
    Probe(experiment.run, valid=lambda: {"config": TINY, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed"), ("config", {"steps": 3}, "incomplete config"),
                 ("config", {**TINY, "steps": 0}, "zero steps"), ("config", {**TINY, "long_k": 4}, "long_k = F"),
                 ("config", {**TINY, "uniform_lams": []}, "no uniform lam"),
                 ("config", {**TINY, "uniform_lams": [1.5]}, "uniform lam above 1"),
                 ("config", {**TINY, "post_hoc_lam": float("nan")}, "NaN post-hoc lam"),
                 ("config", {**TINY, "controller": {"sigma": 1}}, "unknown controller parameter")]),
    Probe(experiment.calibrate_trigger,
          valid=lambda: {"config": TINY, "device": "cpu", "seeds": [100], "factors": [0.0, 1.0], "budget": 0.5,
                         "min_hf": 0.9},
          skip={"min_hf": "a detail floor of 0 (no floor) is valid"},
          extra=[("seeds", [0], "an evaluation seed"), ("seeds", [], "no seed"), ("seeds", "100", "a string"),
                 ("seeds", [100.5], "float seed"), ("factors", [], "no factor"), ("factors", [-1.0], "negative factor"),
                 ("budget", 1.5, "budget above 1"), ("config", {"steps": 3}, "incomplete config"),
                 ("denoiser", "wiener", "unknown denoiser"),
                 ("denoiser", "learned", "a config without a learned stage")]),
    Probe(experiment.learned_data, valid=lambda: {"d": _data_l(), "config": TINY_L, "device": "cpu"},
          extra=[("config", {**TINY_L, "learned": None}, "no learned stage"), ("d", {"video": 1}, "incomplete"),
                 ("config", {**TINY_L, "learned": {"model": "quick", "clips": 2}}, "more clips than the batch"),
                 ("config", {**TINY_L, "learned": {"model": "full", "clips": 1}}, "no model at full"),
                 ("config", {**TINY_L, "size": 32, "hole": 8}, "a model of another frame size"),
                 ("config", {**TINY_L, "learned": {"model": "quick"}}, "no clips")]),
    Probe(experiment.learned_stage, valid=lambda: {"d": _data_l(), "config": TINY_L, "device": "cpu", "seed": 0},
          skip={"seed": "seed 0 is valid"},
          extra=[("seed", -1, "negative seed"), ("config", {**TINY_L, "learned": None}, "no learned stage"),
                 ("config", {**TINY_L, "learned": {**TINY_L["learned"], "controller": {"sigma": 1}}},
                  "unknown controller parameter")]),
    # ---- learned denoiser
    Probe(learned.DenoiserUNet, valid=lambda: {"width": 4, "emb": 8}, extra=[("emb", 7, "odd emb")]),
    Probe(learned.LearnedDenoiser, valid=lambda: {"net": _net(), "alpha_bar": cosine_alpha_bar(20), "chunk": 8},
          extra=[("net", "net", "not a network"), ("alpha_bar", torch.full((5,), 1.5), "alpha_bar above 1"),
                 ("alpha_bar", torch.full((2, 3), 0.5), "a 2-D schedule"), ("chunk", 2.5, "float chunk")]),
    Probe(learned.train, valid=lambda: {"size": 8, "recipe": SMALL_RECIPE, "device": "cpu"},
          extra=[("size", 10, "size not divisible by 4"), ("recipe", {"width": 4}, "incomplete recipe"),
                 ("recipe", {**SMALL_RECIPE, "emb": 15}, "odd emb"),
                 ("recipe", {**SMALL_RECIPE, "steps": 0}, "no step"),
                 ("recipe", {**SMALL_RECIPE, "lr": float("nan")}, "NaN lr")]),
    Probe(learned.save, valid=lambda: {"models": {"quick": _net()}, "path": TMP / "probe.safetensors",
                                       "recipe": SMALL_RECIPE},
          extra=[("models", {}, "no model"), ("models", {"a.b": _net()}, "a dotted name"),
                 ("models", {"quick": torch.nn.Linear(2, 2)}, "not a DenoiserUNet"), ("path", 3, "not a path"),
                 ("recipe", {"width": 4}, "incomplete recipe")]),
    Probe(learned.read, valid=lambda: {"path": _saved(), "expected_sha256": None, "device": "cpu"},
          extra=[("expected_sha256", "0" * 64, "a wrong checksum"), ("path", TMP / "missing.safetensors", "no file"),
                 ("path", _not_safetensors(), "not a safetensors file written by save")]),
    Probe(learned.load, valid=lambda: {"scale": "quick", "device": "cpu"},
          extra=[("scale", "full", "no shipped model at full")]),
    Probe(learned.x0_error,
          valid=lambda: {"denoiser": learned.LearnedDenoiser(_net(), cosine_alpha_bar(20)),
                         "frames": torch.randn(3, 8, 8), "spectrum": grf_spectrum(8, 8),
                         "alpha_bar": cosine_alpha_bar(20), "timesteps": [10, 5],
                         "generator": torch.Generator().manual_seed(0)},
          extra=[("timesteps", [], "no step"), ("timesteps", [20], "a step past T"), ("denoiser", 3, "no x0 method"),
                 ("spectrum", torch.ones(4, 4), "a spectrum of another size"), ("generator", 3, "not a generator"),
                 ("frames", torch.ones(8), "a 1-D frame"), ("alpha_bar", torch.full((20,), 2.0), "alpha_bar above 1")]),
    Probe(experiment.uniform_frontier_at,
          valid=lambda: {"plain": {"e_warp": 1.0, "hf": 1.0}, "sweep": [{"lam": 0.5, "e_warp": 0.5, "hf": 0.6}],
                         "e_warp": 0.7},
          skip={"e_warp": "an E_warp of 0 or below is clamped to the frontier's end"},
          extra=[("plain", {"e_warp": 1.0}, "plain without hf"),
                 ("sweep", [{"lam": 0.5}], "a sweep point without e_warp"),
                 ("sweep", "x", "not a list"), ("e_warp", float("nan"), "NaN E_warp")]),
    # ---- explore
    Probe(explore.plot_flicker, valid=lambda: {"method": "plain", "frame": 3, "lam_max": 0.6, "tau": 0.2, "seed": 0},
          skip={"frame": "frame 0 is valid", "seed": "seed 0 is valid", "tau": "tau 0 is valid",
                "lam_max": "lam_max 0 is valid"},
          extra=[("method", "x", "unknown method"), ("frame", -1, "negative frame"), ("frame", 7, "the last frame"),
                 ("seed", -1, "negative seed"), ("lam_max", 1.5, "lam_max above 1"), ("tau", -1.0, "negative tau")]),
    Probe(explore.plot_trigger_raster, valid=lambda: {"tau": 0.3, "rho": 1.0, "beta": 0.8, "seed": 0},
          skip={"tau": "tau 0 is valid", "beta": "beta 0 (no memory) is valid", "seed": "seed 0 is valid"},
          extra=[("beta", 1.0, "beta of 1"), ("rho", 0.0, "zero rho"), ("tau", -1.0, "negative tau"),
                 ("seed", 1.5, "float seed")]),
    Probe(explore.plot_pareto_front, valid=lambda: {"seed": 0, "lam_max": 0.6},
          skip={"seed": "seed 0 is valid", "lam_max": "lam_max 0 (no correction) is valid"},
          extra=[("lam_max", 1.5, "lam_max above 1"), ("seed", -1, "negative seed")]),
    Probe(explore.plot_results, valid=lambda: {"results": _results()},
          extra=[("results", {}, "empty results"), ("results", {"methods": {}, "uniform_sweep": []}, "no plain"),
                 ("results", {"methods": {"plain": {"hf": 1.0}}, "uniform_sweep": [{"lam": 0.5}]}, "bad sweep")]),
]
EXEMPT = {
    "icml26.papers.video_inpainting.make_weights.main": "a command line (argparse validates its options)",
}
