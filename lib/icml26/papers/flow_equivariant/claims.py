"""FloWM claims measured on DigitsWorld (docs/papers/flow_equivariant.md, "Claims").

Paper claims are the paper's statements about FloWM, its ablations and its baselines, measured on trained
models; checks are exact identities of the architecture (they hold for any weights) and guards.
``OUT_OF_SCOPE`` lists what the paper claims that this companion does not test, with the reason.
"""

from __future__ import annotations

import math

from icml26.claims import Claim, Control, Premise


def _mse(r, world, kind):
    return r[world][kind]["mse"]


def _mean(curve, lo, hi):
    part = curve[lo:hi]
    return sum(part) / len(part)


def equivariance_error(r):
    e = r["equivariance"]["flowm"]
    return max(e["self_motion"], e["flow"])


def partial_view_error(r):
    """Window < world, on the trained FloWM's weights: the larger relative error of the two identities."""
    e = r["partial_view"]
    return max(v for v in (e["self_motion"], e["flow"]) if v is not None)


def action_concat_error(r):
    e = r["equivariance"]["action_concat"]
    return min(e["self_motion"], e["flow"])


def flowm_over_convgru(r):
    return _mse(r, "static", "flowm") / _mse(r, "static", "convgru")


def flowm_over_copy_last(r):
    return _mse(r, "static", "flowm") / _mse(r, "static", "copy_last")


def flowm_over_all_black(r):
    return _mse(r, "static", "flowm") / _mse(r, "static", "all_black")


def no_sme_over_convgru(r):
    """The control of memory_vs_convgru: the same network without self-motion equivariance (no map shift by -a_t,
    the same velocity set as FloWM) over the ConvGRU world model, static world."""
    return _mse(r, "static", "no_sme") / _mse(r, "static", "convgru")


QUOTE_MEMORY = ("We demonstrate the advantage of this framework over state-of-the-art diffusion, memory-augmented, and "
                "recurrent world model architectures on 2D and 3D partially observed video world modeling benchmarks")


def no_sme_over_flowm(r):
    """no-SME / FloWM with the same velocity set (V0 at quick, V1 at standard and full)."""
    return _mse(r, "static", "no_sme") / _mse(r, "static", "flowm")


def v0_over_v1_dynamic(r):
    """Moving world, rollout steps 10-20 (1-based, from the long evaluation): MSE(V0) / MSE(V1)."""
    d = r["dynamic"]
    return _mean(d["flowm_v0"]["long_curve"], 9, 20) / _mean(d["flowm"]["long_curve"], 9, 20)


def v0_over_v1_static(r):
    return _mse(r, "static", "flowm_v0") / _mse(r, "static", "flowm")


def flowm_length_growth(r):
    """FloWM's mean MSE over the last 20 steps of the long rollout / over its first 20."""
    c = r["dynamic"]["flowm"]["long_curve"]
    return _mean(c, len(c) - 20, len(c)) / _mean(c, 0, 20)


def flowm_early_over_black(r):
    """Premise of the length claim: within the first 20 steps FloWM predicts far better than all-black."""
    d = r["dynamic"]
    return _mean(d["flowm"]["long_curve"], 0, 20) / _mean(d["all_black"]["long_curve"], 0, 20)


def _late_ratio(r, kind):
    d = r["dynamic"]
    c, b = d["flowm"]["long_curve"], d[kind]["long_curve"]
    return _mean(c, len(c) - 20, len(c)) / _mean(b, len(b) - 20, len(b))


def late_over_convgru(r):
    return _late_ratio(r, "convgru")


def late_over_sliding(r):
    return _late_ratio(r, "sliding")


def velocity_selectivity(r):
    return r["diagnostics"]["dynamic"]["selectivity"]["accuracy"]


def speedup_iterations(r):
    """ConvGRU's iterations / FloWM's; a model that never gets there counts as the whole budget (a lower bound)."""
    it, budget = r["iters_to_half_black"], float(r["config"]["iters"])
    if math.isinf(it["flowm"]):
        return 0.0
    return min(it["convgru"], budget) / max(it["flowm"], 1.0)


_V1_WEAK = ("at standard FloWM is the V1 model (9 velocity channels, default init, Conv_h gain capped at 1, 1000 "
            "iterations) and in the static world it is worse than its own V0 ablation: MSE(V0) / MSE(V1) = "
            "0.24 / 0.23 / 0.31 on seeds 0-2 (velocity_channels_static_low); the same V0 recipe meets the memory "
            "claims (quick, V0, seeds 0-4)")
WHY = {
    "memory_vs_convgru": f"seeds 0-2: V1 / ConvGRU = 0.72 / 0.69 / 0.65 (needs <= 0.3); {_V1_WEAK}: on seed 0 "
                         "V0 / ConvGRU = 0.72 x 0.24 = 0.17 <= 0.3, and 0.18 +- 0.06 at quick. The miss is the "
                         "velocity channels' cost in a static world, not the memory map (no run at 2-3x the "
                         "iterations was made)",
    "memory_vs_copy_last": f"seeds 0-2: V1 / copy-last = 0.37 / 0.34 / 0.33; {_V1_WEAK}: on seed 0 V0 / copy-last "
                           "= 0.37 x 0.24 = 0.09",
    "self_motion_needed": f"seeds 0-2: no-SME / V1 = 1.41 / 1.47 / 1.55 < 2; {_V1_WEAK}. The V1 model itself "
                          "reaches only 0.58 / 0.55 / 0.53 x the all-black MSE (below_all_black), so an aligned map "
                          "has little margin over a misaligned one",
    "velocity_channels_dynamic": "seeds 0-2: MSE(V0) / MSE(V1) over steps 10-20 = 1.27 / 1.38 / 1.32: the velocity "
                                 "channels help in the moving world but by less than 2x. The mechanism is present "
                                 "(velocity_selectivity 0.56 / 0.52 / 0.49, chance 0.11), but V1's early "
                                 "predictions stay blurred (seed 0: steps 1-20 at 0.62 x all-black, the premise of "
                                 "length_generalisation)",
    "velocity_channels_static_low": "seeds 0-2: MSE(V0) / MSE(V1) = 0.24 / 0.23 / 0.31: in the static world V1 is "
                                    "3-4x worse than V0. Every frame is written into all 9 velocity copies and the "
                                    "moving copies carry displaced copies of static content that the max-pool "
                                    "readout picks up. Measured on the recorded models (same seeds, init order and "
                                    "batches; static world, seeds 0-2): V1 read out from nu = 0 alone has MSE "
                                    "0.041 / 0.048 / 0.037 against 0.068 / 0.067 / 0.059 with the max-pool over all "
                                    "9 channels and 0.016 / 0.015 / 0.019 for V0, so the moving copies' readout "
                                    "explains 36-56% of the gap; the rest is V1's own nu = 0 channel, 2.0-3.1x worse "
                                    "than V0's map after the same 1000 iterations (its recurrence is shared with "
                                    "the moving channels).",
    "long_rollout_vs_convgru": "seeds 0-2: FloWM / ConvGRU over steps 181-200 = 1.05 / 1.60 / 1.03: after 200 "
                               "steps FloWM, ConvGRU and the sliding window are all near the all-black level (seed "
                               "0, FloWM: 1.43 x its steps 1-20 MSE, which is 0.62 x all-black, i.e. about 0.9 x "
                               "all-black): in these runs no model keeps out-of-view content for 200 steps",
    "long_rollout_vs_sliding": "seeds 0-2: FloWM / sliding window over steps 181-200 = 1.05 / 1.59 / 1.03; as for "
                               "long_rollout_vs_convgru, every model is near the all-black level after 200 steps",
    "below_all_black": "seeds 0-2: V1 / all-black = 0.58 / 0.55 / 0.53 (needs <= 0.2; the paper's figure is about "
                       "0.004): the standard V1 model learns little of the static world in its 1000 iterations; "
                       "its own V0 ablation reaches 0.24 / 0.23 / 0.31 x V1's error (velocity_channels_static_low). "
                       "No run at 2-3x the iterations has been recorded (issue 79)",
    "velocity_selectivity": "seeds 0-2: 0.562 / 0.515 / 0.487 (needs >= 0.5): the velocity-matched channel holds the "
                            "strongest response 4.4-5.1x as often as chance (1/9) on every seed, so the mechanism is "
                            "there, but the share sits on the 50% cut with a seed-to-seed spread of 0.04",
}


def _why(claim_id):
    return {"standard": WHY[claim_id]}


PAPER = "arXiv 2601.01075 (FloWM)"
CODE = "official code (AnonFloWM/Flow-Equivariant-World-Modeling, models.py)"

def _at(value, scales=("quick", "standard", "full")):
    return {s: value for s in scales}


CLAIMS = [
    # ---- checks: identities that hold for any weights, and the guard that they can fail
    Claim("exact_equivariance", "with window = world and random weights, FloWM's hidden map is exactly equivariant "
          "to camera motion and to flows in V (max abs error)", equivariance_error, "<", _at(1e-5), kind="check",
          paper_value="exact by construction", source=f"{PAPER}, method (flow equivariance); FERNN theory"),
    Claim("partial_view_equivariance", "with a window smaller than the world, on the trained V1 FloWM's weights "
          "(random V1 weights at quick, where the trained FloWM is V0): its "
          "egocentric map equals a world-frame re-statement of the model shifted by the camera, and a world "
          "drifting at nu* equals a static world seen by a counter-moving camera with channels nu -> nu - nu* "
          "(relative error)", partial_view_error, "<", _at(1e-5), kind="check",
          paper_value="exact by construction", source=f"{PAPER}, method (self-motion as a flow); docs page"),
    Claim("action_concat_not_equivariant", "the ActionConcat cell (actions as input channels, no shifts) breaks "
          "both equivariances (the smaller of the two errors)", action_concat_error, ">", _at(1e-2), kind="check",
          paper_value="not equivariant", source=f"{CODE}, FERNN_Cell_ActionConcat"),
    # ---- paper claims
    Claim("memory_vs_convgru", "static world, moving camera: FloWM's rollout MSE <= 0.3 x the ConvGRU world "
          "model's (FloWM = the velocity-channel model V1 at standard and full, V0 at quick)",
          flowm_over_convgru, "<=", _at(0.3, ("standard", "full")), kind="paper", why=_why("memory_vs_convgru"),
          headline=True, quote=QUOTE_MEMORY,
          control=Control("no_sme_over_convgru", "the same network without (self-motion) flow equivariance: no map "
                          "shift by -a_t, same velocity set, same training; its static-world rollout MSE over the "
                          "ConvGRU world model's", no_sme_over_convgru),
          paper_value="FloWM beats recurrent world models (abstract); per-frame 0.0006 vs 0.21 (DFoT), repo figure",
          source=f"{PAPER}, abstract and MNIST World experiments"),
    Claim("memory_vs_copy_last", "static world: FloWM's rollout MSE <= 0.3 x copy-last-frame's", flowm_over_copy_last,
          "<=", _at(0.3), kind="paper", why=_why("memory_vs_copy_last"), paper_value="remembers revisited regions",
          source=f"{PAPER}, MNIST World experiments"),
    Claim("below_all_black", "static world: FloWM learns the world: its rollout MSE is at most 0.2 x the all-black "
          "reference's (the paper's ratio is about 0.004; at quick, where FloWM is V0, the claim is not checked)",
          flowm_over_all_black, "<=", _at(0.2, ("standard", "full")), kind="paper", why=_why("below_all_black"),
          paper_value="0.0006 vs 0.15 (repo figure)",
          source=f"{PAPER}, MNIST World figure (all-black as the level of useless predictions)"),
    Claim("self_motion_needed", "without self-motion equivariance (no map shift by -a_t) the static-world MSE is "
          ">= 2 x FloWM's (same velocity set)", no_sme_over_flowm, ">=", _at(2.0), kind="paper",
          why=_why("self_motion_needed"),
          paper_value="ablation: self-motion equivariance keeps the map aligned",
          source=f"{PAPER}, ablations (no self-motion equivariance)"),
    Claim("velocity_channels_dynamic", "moving world, rollout steps 10-20: MSE(V0) >= 2 x MSE(V1)",
          v0_over_v1_dynamic, ">=", _at(2.0, ("standard", "full")), kind="paper", why=_why("velocity_channels_dynamic"),
          paper_value="velocity channels track dynamics out of view", source=f"{PAPER}, ablations (no velocity "
          "channels)"),
    Claim("velocity_selectivity", "moving world, out of view: the velocity channel matching a digit's own velocity "
          "holds the strongest response at its pixels for >= 50% of them (chance 1/9)", velocity_selectivity, ">=",
          _at(0.5, ("standard", "full")), kind="paper", why=_why("velocity_selectivity"),
          paper_value="content in channel nu moves with nu (mechanism)", source=f"{PAPER}, method (velocity "
          "channels); docs page, diagnostics"),
    Claim("velocity_channels_static_low", "static world: the velocity channels cost little when nothing moves: "
          "MSE(V0) / MSE(V1) >= 0.7. One claim: the former upper edge of a band (<= 1.4, 'no large benefit') was "
          "met whenever V1 was worse than V0, so it is dropped rather than counted as a pass",
          v0_over_v1_static, ">=", _at(0.7, ("standard", "full")), kind="extension",
          why=_why("velocity_channels_static_low"),
          paper_value="velocity channels matter when the world moves", source=f"{PAPER}, static vs dynamic "
          "MNIST World ablations (our reading, not a statement of the paper)"),
    Claim("length_generalisation", "moving world, trained on 12-step rollouts: FloWM's mean MSE over steps 181-200 "
          "<= 2 x its mean over steps 1-20", flowm_length_growth, "<=", _at(2.0, ("standard", "full")),
          kind="paper", requires=Premise("flowm_learned", "FloWM predicts the first 20 steps at <= 0.5 x the "
                                         "all-black MSE", flowm_early_over_black, "<=", 0.5),
          paper_value="stable for hundreds of steps; 20 -> 150 steps", source=f"{PAPER}, abstract; length "
          "generalisation experiment"),
    Claim("long_rollout_vs_convgru", "moving world, steps 181-200: FloWM's MSE <= 0.5 x the ConvGRU world model's",
          late_over_convgru, "<=", _at(0.5, ("standard", "full")), kind="paper", why=_why("long_rollout_vs_convgru"),
          paper_value="outperforms recurrent world models, particularly on long rollouts",
          source=f"{PAPER}, abstract; length generalisation experiment"),
    Claim("long_rollout_vs_sliding", "moving world, steps 181-200: FloWM's MSE <= 0.5 x the sliding-window "
          "predictor's (a deterministic stand-in for DFoT's bounded context)", late_over_sliding, "<=",
          _at(0.5, ("standard", "full")), kind="paper", why=_why("long_rollout_vs_sliding"),
          paper_value="outperforms sliding-window diffusion (DFoT), particularly on long rollouts",
          source=f"{PAPER}, abstract; MNIST World comparison with DFoT"),
    Claim("training_speed", "iterations to reach val MSE <= 0.5 x all-black: ConvGRU / FloWM >= 5",
          speedup_iterations, ">=", {"full": 5.0}, kind="paper",
          paper_value="an order of magnitude fewer iterations (workshop version)",
          source=f"{PAPER}, abstract (trains faster); SpaVLE 2025 workshop version"),
]

OUT_OF_SCOPE = [
    ("FloWM beats DFoT and DFoT-SSM (video diffusion with a sliding window / an SSM memory) on MNIST World",
     "needs trained video diffusion models; our sliding-window CNN is a deterministic stand-in for the bounded "
     "context only, so only the memory gap is tested (long_rollout_vs_sliding), not the diffusion comparison"),
    ("the same on the 3D Dynamic Block World (static, dynamic and textured)",
     "needs a 3D renderer, first-person views and the 3D FloWM, whose lifting is not in the released code"),
    ("PSNR / SSIM / LPIPS on the 3D benchmark", "3D only; LPIPS also needs pretrained network weights"),
    ("results at the paper's scale (50-torus, 32-pixel window, 5 MNIST digits, 50 context frames, 150-step rollouts)",
     "MNIST cannot be downloaded here; DigitsWorld (16-torus, 8-pixel window, 2 sklearn digits) keeps the "
     "structure at CPU size; the full config is the GPU-sized step towards it"),
]
