"""Bad-input probes of scene_change (VSCD) and of the shared renderer modules it owns (render.scene, render.raycast,
render.cameras): one cheap valid call per public function (see tests/inputs/harness.py)."""

import tempfile
from dataclasses import fields
from functools import lru_cache
from pathlib import Path

import torch
from harness import Probe

from icml26.papers.scene_change import baselines, encoder, experiment, explore, method, pretrain, rooms
from icml26.render import cameras, raycast, scene

TMP = Path(tempfile.mkdtemp(prefix="icml26-inputs-scene-change-"))
G = lambda: torch.Generator().manual_seed(0)  # noqa: E731
NAN_OK = "non-finite entries are valid here (no surface: never visible / no projection)"


def video(b=1, t=3, size=8):
    return torch.rand(b, t, 3, size, size, generator=G())


@lru_cache(maxsize=1)
def data():
    d = rooms.make_dataset(1, 2, 3, 16, supersample=1, n_objects=(3, 4), generator=G())
    experiment.encode(small_encoder(), d)
    return d


@lru_cache(maxsize=1)
def small_encoder():
    return encoder.FrameEncoder(8, 8).eval().requires_grad_(False)


@lru_cache(maxsize=1)
def views():
    return pretrain.render_views(1, 2, 8)


def small_model(**kw):
    return method.VSCDNet(encoder=small_encoder(), heads=2, s_max=2, reduce=4, fuse=4, head_layers=1, dec_width=4,
                          k=3, **kw)


def a_scene():
    return rooms.make_room(G(), 3)


def camera():
    return cameras.look_at(torch.tensor([0.0, -1.0, 1.5]), torch.tensor([0.5, 1.0, 0.5]))


NET = dict(dim=8, width=8, heads=2, reduce=4, fuse=4, head_layers=1, dec_width=4)
TINY_RUN = dict(experiment.CONFIGS["quick"], train_rooms=1, test_rooms=1, n_states=2, frames=3, size=16,
                n_objects=(3, 4), steps=1, top_k_overlap=2, methods=["vscd"],
                model=dict(experiment.MODEL, s_max=2, k=3))
TINY_PRETRAIN = dict(pretrain.PRETRAIN, rooms=1, views=2, size=8, steps=1, batch=1, eval_rooms=1)


def _path_to_nowhere():
    return TMP / "missing.safetensors"


def _saved():
    path = TMP / "enc.safetensors"
    encoder.save_encoder(small_encoder(), path, {"note": "probe"})
    return path


PROBES = [
    Probe(experiment.average_precision, valid=lambda: {"score": torch.tensor([0.1, 0.9, 0.5]),
                                                       "label": torch.tensor([0.0, 1.0, 1.0])},
          extra=[("label", torch.zeros(3), "no positive"), ("label", torch.ones(2), "wrong shape")]),
    Probe(experiment.ap_changed, valid=lambda: {"logits": torch.randn(2, 4, 4, generator=G()),
                                                "mask": torch.ones(2, 4, 4)},
          extra=[("mask", torch.zeros(2, 4, 4), "no frame with change"), ("logits", torch.randn(4, 4), "2-D")]),
    # rooms
    Probe(rooms.room_shell, valid=lambda: {"gen": G()}, extra=[("gen", 3, "an int")]),
    Probe(rooms.make_room, valid=lambda: {"gen": G(), "n_objects": 3}, extra=[("gen", None, "None")]),
    Probe(rooms.change_scene, valid=lambda: {"scene": a_scene(), "gen": G(), "n_changes": 2, "next_id": 20},
          skip={"next_id": "checked against the scene's ids instead (extra below)"},
          extra=[("next_id", 5, "an id already in use"), ("next_id", -1, "negative"), ("scene", None, "None")]),
    Probe(rooms.catmull_rom, valid=lambda: {"points": torch.rand(4, 3), "s": torch.linspace(0, 1, 5)},
          extra=[("points", torch.rand(1, 3), "one control point"), ("points", torch.rand(4, 2), "2-D points")]),
    Probe(rooms.room_route, valid=lambda: {"gen": G(), "n_waypoints": 4}, extra=[("n_waypoints", 1, "one")]),
    Probe(rooms.camera_path, valid=lambda: {"gen": G(), "frames": 3, "n_waypoints": 4},
          extra=[("jitter", (float("nan"), 0.1), "NaN jitter"), ("jitter", (0.1,), "one number"),
                 ("route", (torch.rand(4, 2), torch.rand(4, 2)), "2-D route")]),
    Probe(rooms.make_dataset, valid=lambda: {"n_rooms": 1, "n_states": 2, "frames": 2, "size": 8, "supersample": 1,
                                            "n_objects": (3, 3), "fov_deg": 80.0, "exposure_jitter": 0.1,
                                            "generator": G(), "device": "cpu"},
          extra=[("n_states", 1, "one state"), ("n_objects", (3, 2), "low > high"), ("generator", 3, "an int"),
                 ("n_changes", (0, 2), "zero changes")]),
    Probe(rooms.visibility, valid=lambda: {"points": data()["qry_points"][0].flatten(1, 2), "K": data()["K"],
                                           "ref_R": data()["ref_R"][0], "ref_t": data()["ref_t"][0],
                                           "ref_depth": data()["ref_depth"][0], "rel_tol": 0.03},
          skip={"points": NAN_OK, "ref_depth": "inf marks a pixel with no surface (NaN probed below)"},
          extra=[("points", torch.rand(0, 4, 3), "empty"), ("ref_depth", torch.full((3, 16, 16), float("nan")),
                                                            "NaN depth"), ("ref_t", torch.rand(2, 3), "wrong count")]),
    Probe(rooms.view_overlap, valid=lambda: {"points": data()["qry_points"][0], "K": data()["K"],
                                             "ref_R": data()["ref_R"][0], "ref_t": data()["ref_t"][0],
                                             "ref_depth": data()["ref_depth"][0]},
          skip={"points": NAN_OK, "ref_depth": "inf marks a pixel with no surface (NaN probed below)"},
          extra=[("points", torch.rand(3, 16, 3), "3-D points"),
                 ("ref_depth", torch.full((3, 16, 16), float("nan")), "NaN depth")]),
    # encoder and its pretraining
    Probe(encoder.FrameEncoder, valid=lambda: {"dim": 8, "width": 8}, extra=[("width", 6, "not a multiple of 4")]),
    Probe(encoder.sha256_of, valid=lambda: {"path": encoder.ENCODER_FILE},
          extra=[("path", _path_to_nowhere(), "a missing file"), ("path", 3, "an int")]),
    Probe(encoder.save_encoder, valid=lambda: {"encoder": small_encoder(), "path": TMP / "s.safetensors", "log": {}},
          extra=[("encoder", torch.nn.Linear(2, 2), "not a FrameEncoder"), ("log", {"x": float("nan")}, "NaN"),
                 ("log", [1], "a list"), ("path", None, "None")]),
    Probe(encoder.load_encoder, valid=lambda: {"path": _saved(), "sha256": None, "device": "cpu"},
          extra=[("path", _path_to_nowhere(), "a missing file"), ("sha256", "0" * 64, "a wrong checksum")]),
    Probe(encoder.checkpoint_log, valid=lambda: {"path": _saved()},
          extra=[("path", _path_to_nowhere(), "a missing file")]),
    Probe(pretrain.render_views, valid=lambda: {"n_rooms": 1, "views": 2, "size": 8, "first_seed": 7,
                                                "device": "cpu"},
          skip={"first_seed": "0 is a valid seed (-1 probed below)"},
          extra=[("first_seed", -1, "negative"), ("views", 1, "one view"), ("size", 6, "not a multiple of 4")]),
    Probe(pretrain.token_matches, valid=lambda: {"data": views(), "stride": 4},
          extra=[("stride", 3, "not dividing the size"), ("data", {}, "no views")]),
    Probe(pretrain.correspondence_loss, valid=lambda: {"fa": torch.rand(1, 4, 8), "fb": torch.rand(1, 4, 8),
                                                       "match": torch.tensor([[0, -1, 2, 3]]), "temperature": 0.1},
          extra=[("match", torch.tensor([[0, 9, 2, 3]]), "an index out of range"),
                 ("match", torch.zeros(1, 3, dtype=torch.long), "wrong shape")]),
    Probe(pretrain.correspondence_accuracy, valid=lambda: {"encoder": small_encoder(), "data": views(),
                                                           "match": pretrain.token_matches(views()), "chunk": 1},
          extra=[("encoder", 3, "an int"), ("match", torch.zeros(1, 1, 1, 4, dtype=torch.long), "wrong shape")]),
    Probe(pretrain.pretrain, valid=lambda: {"config": TINY_PRETRAIN, "device": "cpu", "log_every": 0},
          skip={"log_every": "0 is valid (no log; -1 probed below)"},
          extra=[("log_every", -1, "negative"), ("config", {"rooms": 1}, "missing keys"),
                 ("config", dict(TINY_PRETRAIN, lr=float("nan")), "NaN lr"),
                 ("config", dict(TINY_PRETRAIN, oops=1), "an unknown key")]),
    # method
    Probe(method.check_videos, valid=lambda: {"query": video(), "reference": video(t=4)},
          extra=[("reference", video(size=4), "another resolution"), ("query", torch.rand(1, 3, 1, 8, 8), "1 channel"),
                 ("reference", video(b=2), "another batch size")]),
    Probe(method.keyframe_indices, valid=lambda: {"length": 5, "t_key": 3}),
    Probe(method.AlignmentToken, valid=lambda: {"dim": 8, "heads": 2}, extra=[("heads", 3, "not dividing dim")]),
    Probe(method.frame_descriptors, valid=lambda: {"tokens": torch.rand(1, 2, 4, 8), "at": None},
          extra=[("at", 3, "an int"), ("tokens", torch.rand(2, 4, 8), "3-D")]),
    Probe(method.AlignmentRefiner, valid=lambda: {"hidden": 4}),
    Probe(method.frame_similarity, valid=lambda: {"vq": torch.rand(1, 2, 8), "vr": torch.rand(1, 3, 8)},
          extra=[("vr", torch.rand(1, 3, 4), "another width")]),
    Probe(method.segment_labels, valid=lambda: {"top1": torch.tensor([0, 1, 3]), "delta": 2, "l_max": 5},
          skip={"delta": "0 is valid (exact diagonal steps only; -1 probed below)"},
          extra=[("delta", -1, "negative"), ("top1", torch.rand(3), "floats"),
                 ("top1", torch.tensor([], dtype=torch.long), "empty")]),
    Probe(method.matched_segments, valid=lambda: {"top1": torch.tensor([0, 1, 3]), "delta": 2, "l_max": 5},
          skip={"delta": "0 is valid (exact diagonal steps only; -1 probed below)"},
          extra=[("delta", -1, "negative"), ("top1", torch.zeros(2, 3, dtype=torch.long), "2-D")]),
    Probe(method.candidate_sets, valid=lambda: {"P": torch.softmax(torch.rand(1, 4, 5), -1), "s_max": 2, "top_k": 4,
                                                "delta": 2, "l_max": 5},
          skip={"delta": "0 is valid (exact diagonal steps only; -1 probed below)"},
          extra=[("delta", -1, "negative"), ("s_max", 6, "more than the reference frames")]),
    Probe(method.local_correlation, valid=lambda: {"q": torch.rand(1, 4, 5, 5), "r": torch.rand(1, 4, 5, 5), "k": 3},
          extra=[("k", 4, "even"), ("r", torch.rand(1, 4, 4, 5), "another shape")]),
    Probe(method.window_offsets, valid=lambda: {"k": 3, "device": "cpu"}, extra=[("k", 2, "even")]),
    Probe(method.soft_correspondence, valid=lambda: {"q": torch.rand(1, 4, 5, 5), "r": torch.rand(1, 4, 5, 5),
                                                     "k": 3, "temperature": 0.1},
          extra=[("temperature", torch.tensor(-1.0), "a negative tensor"),
                 ("values", torch.rand(2, 3, 5, 5), "another batch"), ("values", torch.full((1, 3, 5, 5), float("nan")),
                                                                       "NaN values")]),
    Probe(method.patch_confidence, valid=lambda: {"P": torch.softmax(torch.rand(1, 9, 2, 2), 1), "c_peak": 1.0,
                                                  "c_ent": 1.0},
          extra=[("P", -torch.rand(1, 9, 2, 2), "negative probabilities")]),
    Probe(method.ChangeHead, valid=lambda: {"dim": 8, "reduce": 4, "fuse": 4, "layers": 2, "norm": True},
          extra=[("fuse", 6, "not a multiple of 4 with norm")]),
    Probe(method.Decoder, valid=lambda: {"fuse": 4, "width": 4, "rgb": 4}),
    Probe(method.VSCDNet, valid=lambda: {**NET, "s_max": 2, "top_k": 2, "k": 3, "tau_f": 0.5, "delta": 1, "l_max": 3,
                                         "corr_temperature": 0.1},
          skip={"delta": "0 is valid (exact diagonal steps only; -1 probed below)"},
          extra=[("delta", -1, "negative"), ("candidate_mode", "nope", "an unknown mode"), ("k", 2, "even")]),
    Probe(method.bce_dice_loss, valid=lambda: {"logits": torch.rand(1, 4, 4), "target": torch.rand(1, 4, 4),
                                               "eps": 1e-6},
          extra=[("target", torch.rand(1, 4, 3), "another shape")]),
    Probe(method.frame_scores, valid=lambda: {"pred": torch.rand(1, 4, 4), "target": torch.rand(1, 4, 4), "eps": 1e-6},
          extra=[("target", torch.rand(1, 3, 4), "another shape")]),
    # baselines
    Probe(baselines.siamese_cd, valid=lambda: dict(NET)),
    Probe(baselines.reversed_cd, valid=lambda: dict(NET)),
    Probe(baselines.oracle_siamese, valid=lambda: dict(NET)),
    Probe(baselines.oracle_candidates, valid=lambda: {"overlap": torch.rand(1, 2, 3)}),
    Probe(baselines.normalise_frames, valid=lambda: {"x": torch.rand(1, 3, 4, 4)}),
    Probe(baselines.pixel_diff, valid=lambda: {"query": video(), "reference": video(), "threshold": 1.5},
          extra=[("reference", video(t=2), "another length")]),
    Probe(baselines.raw_descriptors, valid=lambda: {"frames": video(), "size": 2}),
    Probe(baselines.raw_topk, valid=lambda: {"query": video(), "reference": video(t=4), "k": 2, "size": 2},
          extra=[("k", 5, "more than the reference frames")]),
    Probe(baselines.color_histograms, valid=lambda: {"frames": video(), "bins": 3}),
    Probe(baselines.top1_by, valid=lambda: {"vq": torch.rand(1, 2, 8), "vr": torch.rand(1, 3, 8)},
          extra=[("vq", torch.rand(2, 2, 8), "another batch")]),
    # experiment
    Probe(experiment.check_config, valid=lambda: {"config": experiment.CONFIGS["quick"]},
          extra=[("config", {"steps": 1}, "missing keys"),
                 ("config", dict(experiment.CONFIGS["quick"], methods=["nope"]), "an unknown method"),
                 ("config", dict(experiment.CONFIGS["quick"], steps=0), "zero steps"), ("config", 3, "an int")]),
    Probe(experiment.build_data, valid=lambda: {"config": TINY_RUN, "device": "cpu", "seed": 1},
          skip={"seed": "0 is a valid seed (-1 probed below)"}, extra=[("seed", -1, "negative")]),
    Probe(experiment.encode, valid=lambda: {"frozen": small_encoder(), "data": data(), "chunk": 2},
          extra=[("frozen", 3, "an int"), ("data", {}, "no videos")]),
    Probe(experiment.make_model, valid=lambda: {"name": "vscd", "model_cfg": dict(experiment.MODEL, heads=2, s_max=2),
                                                "frozen": small_encoder(), "device": "cpu"},
          extra=[("name", "nope", "an unknown method"), ("model_cfg", 3, "an int"), ("frozen", None, "None")]),
    Probe(experiment.train_model, valid=lambda: {"model": small_model(), "data": data(), "steps": 1, "seed": 1,
                                                 "lr": 1e-3, "weight_decay": 0.01, "clip": 1.0, "batch": 1},
          skip={"steps": "0 steps is a valid no-op (-1 probed below)", "seed": "0 is a valid seed (-1 probed below)"},
          extra=[("steps", -1, "negative"), ("seed", -1, "negative"), ("model", 3, "an int"),
                 ("data", {}, "no data")]),
    Probe(experiment.predict, valid=lambda: {"model": small_model(), "data": data(), "chunk": 1},
          extra=[("model", 3, "an int")]),
    Probe(experiment.scores, valid=lambda: {"pred": torch.rand(1, 2, 4, 4), "mask": torch.rand(1, 2, 4, 4)},
          extra=[("mask", torch.rand(1, 2, 4, 3), "another shape")]),
    Probe(experiment.auroc, valid=lambda: {"score": torch.rand(6), "label": torch.tensor([0, 1, 0, 1, 1, 0.0])},
          extra=[("label", torch.zeros(6), "one class"), ("label", torch.zeros(5), "another shape")]),
    Probe(experiment.token_visibility, valid=lambda: {"data": data(), "grid": (4, 4),
                                                      "candidates": torch.zeros(1, 3, 1, dtype=torch.long),
                                                      "window": 3},
          extra=[("grid", (0, 4), "a zero grid"), ("candidates", torch.zeros(2, 3, 1, dtype=torch.long),
                                                   "another pair count"), ("window", 0, "zero")]),
    Probe(experiment.raw_patch_tokens, valid=lambda: {"frames": video(), "patch": 2},
          extra=[("patch", 3, "not dividing the size")]),
    Probe(experiment.c6_raw_pixels, valid=lambda: {"data": data(), "s_max": 2, "k": 3, "temperature": 0.1,
                                                   "patch": 4},
          extra=[("s_max", 4, "more than the reference frames"), ("patch", 5, "not dividing the size")]),
    Probe(experiment.overlap_stats, valid=lambda: {"data": data(), "k": 2}, extra=[("k", 4, "more than the frames")]),
    Probe(experiment.run, valid=lambda: {"config": TINY_RUN, "device": "cpu", "seed": 1},
          skip={"seed": "0 is a valid seed (-1 probed below)"},
          extra=[("seed", -1, "negative"), ("config", dict(TINY_RUN, methods=["nope"]), "an unknown method")]),
    # explore
    Probe(explore.plot_pair, valid=lambda: {"room_seed": 1, "n_changes": 2, "t": 1},
          skip={"room_seed": "0 is a valid seed (-1 probed below)", "t": "0 is a valid frame (-1 probed below)"},
          extra=[("room_seed", -1, "negative"), ("t", -1, "negative"), ("t", 8, "past the last frame")]),
    Probe(explore.plot_overlap, valid=lambda: {"results": {"overlap": {"same_index": 0.3, "top1": 0.5,
                                                                       "topk_union": 0.7, "oracle_top1": 0.6,
                                                                       "k": 3}}},
          extra=[("results", {}, "no overlap")]),
    Probe(explore.plot_scores, valid=lambda: {"results": {"methods": {"vscd": {"f1": 0.5}}}, "metrics": ("f1",)},
          extra=[("metrics", ("nope",), "an unknown metric"), ("metrics", "f1", "a bare string"),
                 ("results", {}, "no methods")]),
    Probe(explore.scores_table, valid=lambda: {"results": {"methods": {"vscd": {"f1": 0.5}}}},
          extra=[("results", {}, "no methods")]),
    Probe(explore.overlap_table, valid=lambda: {"stats": {"same_index": 0.3, "top1": 0.5, "k": 3}},
          extra=[("stats", {}, "no same-index overlap")]),
    Probe(explore.scrubber_cache, valid=lambda: {"data": data(), "preds": {"vscd": experiment.predict(small_model(),
                                                                                                      data())},
                                                 "n_pairs": 1},
          extra=[("preds", {}, "no method")]),
    Probe(explore.plot_scrubber, valid=lambda: {"cache": explore.scrubber_cache(data(), {"vscd": experiment.predict(
        small_model(), data())}, 1), "pair": 0, "t": 1, "method": "vscd"},
          skip={"pair": "0 is the first pair (-1 probed below)", "t": "0 is the first frame (3 probed below)"},
          extra=[("pair", -1, "negative"), ("t", 3, "past the last frame"), ("method", "nope", "an unknown method")]),
    # the shared renderer modules
    Probe(scene.Scene, valid=lambda: {f.name: getattr(a_scene(), f.name) for f in fields(scene.Scene)},
          extra=[("kind", torch.tensor([9] * 9), "an unknown kind code"), ("object_id", -torch.ones(9).long(),
                                                                           "negative ids")]),
    Probe(scene.make_scene, valid=lambda: {"kind": ["box"], "object_id": [1], "center": torch.zeros(1, 3),
                                           "size": torch.ones(1, 3), "device": "cpu"},
          extra=[("kind", ["cone"], "an unknown kind"), ("kind", "box", "a bare string"),
                 ("size", -torch.ones(1, 3), "a negative size")]),
    Probe(raycast.intersect, valid=lambda: {"scene": a_scene(), "origins": torch.zeros(4, 3) + 0.5,
                                            "directions": torch.nn.functional.normalize(torch.rand(4, 3), dim=-1)},
          extra=[("scene", None, "None"), ("directions", torch.rand(3, 3), "another count")]),
    Probe(raycast.surface_normals, valid=lambda: {"scene": a_scene(), "prim": torch.tensor([0, 6]),
                                                  "points": torch.rand(2, 3), "directions": torch.rand(2, 3)},
          extra=[("prim", torch.tensor([0, 99]), "an index out of range")]),
    Probe(raycast.albedo, valid=lambda: {"scene": a_scene(), "prim": torch.tensor([0, 6]), "points": torch.rand(2, 3)},
          extra=[("prim", torch.tensor([-1, 0]), "a negative index")]),
    Probe(raycast.cast, valid=lambda: {"scene": a_scene(), "origins": torch.zeros(4, 3) + 0.5,
                                       "directions": torch.nn.functional.normalize(torch.rand(4, 3), dim=-1),
                                       "chunk": 2}),
    Probe(raycast.render, valid=lambda: {"scene": a_scene(), "K": cameras.intrinsics(4, 4, 80.0), "rot": camera()[0],
                                         "trans": camera()[1], "width": 4, "height": 4, "ambient": 0.35,
                                         "exposure": 1.0, "supersample": 1, "chunk": 64},
          extra=[("ambient", 1.5, "above 1"), ("exposure", -1.0, "negative"), ("light", (0.0, float("nan"), 1.0),
                                                                                "NaN light")]),
    Probe(cameras.intrinsics, valid=lambda: {"width": 4, "height": 4, "fov_deg": 80.0, "device": "cpu"},
          extra=[("fov_deg", 180.0, "180 degrees")]),
    Probe(cameras.look_at, valid=lambda: {"eye": torch.tensor([0.0, 0.0, 1.0]), "target": torch.tensor([1.0, 0, 1])},
          extra=[("target", torch.tensor([0.0, 0.0, 1.0]), "the eye itself"), ("up", (0.0, 0.0), "two numbers")]),
    Probe(cameras.camera_centers, valid=lambda: {"rot": camera()[0], "trans": camera()[1]}),
    Probe(cameras.pixel_rays, valid=lambda: {"K": cameras.intrinsics(4, 4, 80.0), "rot": camera()[0],
                                             "trans": camera()[1], "width": 4, "height": 4, "supersample": 1}),
    Probe(cameras.project, valid=lambda: {"points": torch.rand(5, 3), "K": cameras.intrinsics(4, 4, 80.0),
                                          "rot": camera()[0], "trans": camera()[1]},
          skip={"points": NAN_OK + "; zero points give zero projections"},
          extra=[("points", torch.rand(5, 2), "2-D points")]),
    Probe(cameras.backproject, valid=lambda: {"depth": torch.rand(4, 4) + 1, "K": cameras.intrinsics(4, 4, 80.0),
                                              "rot": camera()[0], "trans": camera()[1]},
          skip={"depth": "inf marks a pixel with no surface (NaN and empty probed below)"},
          extra=[("depth", torch.full((4, 4), float("nan")), "NaN"), ("depth", torch.rand(0, 4), "empty")]),
    Probe(cameras.visible_in, valid=lambda: {"points": torch.rand(5, 3), "K": cameras.intrinsics(4, 4, 80.0),
                                             "rot": camera()[0], "trans": camera()[1],
                                             "depth": torch.rand(1, 4, 4) + 1, "rel_tol": 0.02},
          skip={"points": NAN_OK, "depth": "inf marks a pixel with no surface (NaN probed below)"},
          extra=[("depth", torch.full((1, 4, 4), float("nan")), "NaN"), ("depth", torch.rand(2, 4, 4), "two maps")]),
]
EXEMPT = {
    "icml26.papers.scene_change.pretrain.main": "the command line: argparse checks its arguments",
}
