"""FloWM claims (note §6), measured on DigitsWorld; thresholds per scale from the note."""

from __future__ import annotations

import math

from icml26.claims import Claim


def _mse(r, world, kind):
    return r[world][kind]["mse"]


def equivariance_error(r):
    e = r["equivariance"]["flowm"]
    return max(e["self_motion"], e["flow"])


def action_concat_error(r):
    e = r["equivariance"]["action_concat"]
    return min(e["self_motion"], e["flow"])


def _v0_static(r):
    """Static-world MSE of FloWM V0 (the quick runs' main model is V0; standard/full train it as an ablation)."""
    if "flowm_v0" in r["static"]:
        return _mse(r, "static", "flowm_v0")
    if r["config"]["radius"] != 0:
        raise KeyError("no V0 FloWM in these results")
    return _mse(r, "static", "flowm")


def flowm_over_convgru(r):
    return _v0_static(r) / _mse(r, "static", "convgru")


def flowm_v1_over_convgru(r):
    return _mse(r, "static", "flowm") / _mse(r, "static", "convgru")


def flowm_over_copy_last(r):
    return _v0_static(r) / _mse(r, "static", "copy_last")


def flowm_over_all_black(r):
    return _v0_static(r) / _mse(r, "static", "all_black")


def no_sme_over_flowm(r):
    """no-SME / FloWM with the same velocity set (both V0 at quick, both V1 at standard/full)."""
    return _mse(r, "static", "no_sme") / _mse(r, "static", "flowm")


def _window(curve, lo, hi):
    part = curve[lo:hi]
    return sum(part) / len(part)


def v0_over_v1_dynamic(r):
    """Dynamic world, rollout steps 10-20 (1-based, from the long evaluation): MSE(V0) / MSE(V1)."""
    d = r["dynamic"]
    return _window(d["flowm_v0"]["long_curve"], 9, 20) / _window(d["flowm"]["long_curve"], 9, 20)


def v0_over_v1_static(r):
    return _mse(r, "static", "flowm_v0") / _mse(r, "static", "flowm")


def flowm_length_growth(r):
    c = r["dynamic"]["flowm"]["long_curve"]
    return _window(c, len(c) - 20, len(c)) / _window(c, 0, 20)


def _breakdown(r, kind):
    """max(late MSE / late all-black MSE, growth / 3): >= 1 means 'exceeds all-black by step 60 or grows >= 3x'."""
    d = r["dynamic"]
    c, b = d[kind]["long_curve"], d["all_black"]["long_curve"]
    late = _window(c, 59, len(c)) / _window(b, 59, len(b))
    growth = _window(c, len(c) - 20, len(c)) / _window(c, 0, 20)
    return max(late, growth / 3.0)


def convgru_breakdown(r):
    return _breakdown(r, "convgru")


def sliding_breakdown(r):
    return _breakdown(r, "sliding")


def speedup_iterations(r):
    """ConvGRU's iterations / FloWM's; a model that never gets there counts as the whole budget (a lower bound)."""
    it, budget = r["iters_to_half_black"], float(r["config"]["iters"])
    if math.isinf(it["flowm"]):
        return 0.0
    return min(it["convgru"], budget) / max(it["flowm"], 1.0)


SRC = "note §6; arXiv 2601.01075 (FloWM) and FERNN theory"
CLAIMS = [
    Claim("exact_equivariance", "FloWM's hidden map is exactly equivariant to self-motion and to flows in V "
          "(max abs error, random weights, window = world)", equivariance_error, "<",
          {"quick": 1e-5, "standard": 1e-5, "full": 1e-5}, kind="check", paper_value="exact by construction (FERNN)",
          source=SRC + " claim 1a-b"),
    Claim("action_concat_not_equivariant", "the ActionConcat cell breaks both equivariances (min of the two errors)",
          action_concat_error, ">", {"quick": 1e-2, "standard": 1e-2, "full": 1e-2}, kind="check",
          paper_value="not equivariant", source=SRC + " claim 1c"),
    Claim("memory_vs_convgru", "static world, moving camera: FloWM V0 rollout MSE <= 0.3 x the ConvGRU world "
          "model's (the note allows V0 or V1)", flowm_over_convgru, "<=", {"quick": 0.3, "standard": 0.3, "full": 0.3},
          kind="paper",
          paper_value="FloWM 0.0006 vs DFoT 0.21 per-frame MSE (repo examples)", source=SRC + " claim 2"),
    Claim("memory_vs_copy_last", "FloWM V0 rollout MSE <= 0.3 x copy-last-frame", flowm_over_copy_last, "<=",
          {"quick": 0.3, "standard": 0.3, "full": 0.3}, kind="paper", paper_value="-", source=SRC + " claim 2"),
    Claim("below_all_black", "FloWM V0 rollout MSE is below the all-black MSE", flowm_over_all_black, "<",
          {"quick": 1.0, "standard": 1.0, "full": 1.0}, kind="paper", paper_value="0.0006 vs 0.15 (repo example)",
          source=SRC + " claim 2"),
    Claim("memory_vs_convgru_v1", "static world: FloWM V1 (9 velocity channels) rollout MSE <= 0.3 x ConvGRU's",
          flowm_v1_over_convgru, "<=", {"standard": 0.3, "full": 0.3},
          kind="paper", paper_value="FloWM beats recurrent baselines",
          source=SRC + " claim 2",
          why="standard, seed 0: V1 0.0564 vs ConvGRU 0.0907 (ratio 0.62) after 100 iterations; V1 learns "
                        "slower than V0 (0.0230) at this tiny budget"),
    Claim("self_motion_needed", "without self-motion equivariance the MSE is >= 2 x FloWM's (both V0)",
          no_sme_over_flowm, ">=", {"quick": 2.0}, kind="paper", paper_value="ablation: both components matter",
          source=SRC + " claim 3"),
    Claim("self_motion_needed_v1", "without self-motion equivariance the MSE is >= 2 x FloWM's (both V1)",
          no_sme_over_flowm, ">=", {"standard": 2.0, "full": 2.0},
          kind="paper", paper_value="ablation: both components matter",
          source=SRC + " claim 3",
          why="standard, seed 0: no-SME V1 0.0911 vs FloWM V1 0.0564 (ratio 1.6): V1 is undertrained at "
                        "100 iterations (the V0 pair gives ~6 at quick)"),
    Claim("velocity_channels_dynamic", "dynamic world, rollout steps 10-20: MSE(V0) >= 2 x MSE(V1)",
          v0_over_v1_dynamic, ">=", {"standard": 2.0, "full": 2.0}, kind="paper",
          paper_value="velocity channels track out-of-view dynamics", source=SRC + " claim 4"),
    Claim("velocity_channels_static_low", "static world: MSE(V0)/MSE(V1) >= 0.7", v0_over_v1_static, ">=",
          {"standard": 0.7, "full": 0.7},
          kind="paper", paper_value="no benefit without motion", source=SRC + " claim 4",
          why="standard, seed 0: V0 0.0230 vs V1 0.0564 (ratio 0.41): V1's extra channels slow its "
                        "training at 100 iterations, so V1 is worse, not equal, in the static world"),
    Claim("velocity_channels_static_high", "static world: MSE(V0)/MSE(V1) <= 1.4", v0_over_v1_static, "<=",
          {"standard": 1.4, "full": 1.4},
    kind="paper", paper_value="no benefit without motion", source=SRC + " claim 4"),
    Claim("length_generalisation", "FloWM's mean MSE over the last 20 of the long rollout <= 2 x over the first 20",
          flowm_length_growth, "<=", {"standard": 2.0, "full": 2.0}, kind="paper",
          paper_value="stable for hundreds of steps (20 -> 150)", source=SRC + " claim 5",
          why="standard, seed 0: trained on 8 steps, FloWM's map grows without bound beyond ~15 steps "
                        "(MSE 0.06 -> 1e4 at step 55): the learned Conv_h has gain > 1 at 100 iterations"),
    Claim("convgru_breaks_down", "ConvGRU exceeds all-black by step 60 or grows >= 3x (score >= 1)",
          convgru_breakdown, ">=", {"standard": 1.0, "full": 1.0}, kind="paper", paper_value="baselines degrade",
          source=SRC + " claim 5",
          why="standard, seed 0: ConvGRU settles at a blurry ~0.09, below all-black ~0.11 (score 0.82)"),
    Claim("sliding_breaks_down", "the sliding-window predictor (DFoT stand-in) exceeds all-black by step 60 or grows "
          ">= 3x (score >= 1)", sliding_breakdown, ">=", {"standard": 1.0, "full": 1.0}, kind="paper",
          paper_value="DFoT hallucinates on revisits", source=SRC + " claim 5",
          why="standard, seed 0: the sliding-window CNN settles at ~0.09, below all-black (score 0.82)"),
    Claim("training_speed", "iterations to reach val MSE <= 0.5 x all-black: ConvGRU / FloWM >= 5",
          speedup_iterations, ">=", {"full": 5.0},
          kind="paper", paper_value="an order of magnitude fewer iterations (workshop)",
          source=SRC + " claim 6"),
]
