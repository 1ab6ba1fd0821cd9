"""Claims of trajectory-stabilised inference (docs/papers/video_inpainting.md §5).

The paper's text beyond its abstract was not available: every claim's DIRECTION is the abstract's (improved temporal
coherence and structural fidelity over the comparison class, a lightweight inference-time layer, selective
correction), every threshold is ours (first plan, or "lower" = ratio below 1). Tuning (the trigger threshold tau,
``experiment.calibrate_trigger``) used development seeds 100-102 only; the whys quote those development measurements.
"""

from __future__ import annotations

from icml26.claims import Claim, Premise

SRC = "abstract (method reconstructed: docs/papers/video_inpainting.md §3, §5)"
SRC_CMP = ("abstract: improved coherence and structural fidelity over prior inpainting "
           "(docs/papers/video_inpainting.md §4)")


def _m(r, method, key):
    return r["methods"][method][key]


def c1_flicker(r):
    return _m(r, "plain", "e_warp") / max(5 * _m(r, "gt", "e_warp"), 0.5 * r["texture_variance"])


def reduction(r, key="e_warp", method="tsi", base="plain"):
    return 1 - _m(r, method, key) / _m(r, base, key)


def c2_reduction(r):
    return reduction(r)


def c3_tsi_hf(r):
    return _m(r, "tsi", "hf") / _m(r, "plain", "hf")


def c3_uniform_hf(r):
    return r["uniform_matched"]["hf"] / _m(r, "plain", "hf")


def c3_gap(r):
    return c3_tsi_hf(r) - c3_uniform_hf(r)


def c4_recoverable(r):
    return _m(r, "tsi", "psnr_recoverable") - _m(r, "plain", "psnr_recoverable")


def c4_never(r):
    return _m(r, "tsi", "psnr_never") - _m(r, "plain", "psnr_never")


def c5_fraction(r):
    return r["fraction_corrected"]


def c5_share(r):
    return reduction(r) / reduction(r, method="always_on")


def c6_spearman(r):
    return r["spearman_risk_vs_ewarp"]


def c7_long(r):
    return reduction(r, key="e_warp_long")


def c8_wn_ewarp(r):
    return _m(r, "tsi", "e_warp") / _m(r, "warped_noise", "e_warp")


def c8_wn_hf(r):
    return _m(r, "tsi", "hf") / _m(r, "warped_noise", "hf")


def c9_fp_psnr(r):
    return _m(r, "tsi", "psnr_recoverable") - _m(r, "flow_propagation", "psnr_recoverable")


def c9_fp_ewarp(r):
    return _m(r, "tsi", "e_warp") / _m(r, "flow_propagation", "e_warp")


def c9_flow_epe(r):
    return r["flow_epe"]


def c10_plug_in(r):
    return _m(r, "tsi_warped_noise", "e_warp") / _m(r, "warped_noise", "e_warp")


def _learned(metric):
    """``metric`` read on the learned-denoiser stage's results (``None`` where the scale has no such stage)."""
    def on_learned(r):
        return metric(r["learned"]) if r.get("learned") is not None else None
    on_learned.__name__ = f"learned_{metric.__name__}"
    return on_learned


def l0_x0_error(r):
    return r["learned"]["x0_error"]["ratio"]


FLICKER = Premise("plain_flickers", "plain sampling flickers in the holes: hole E_warp >= max(5 x GT, 0.5 x variance)",
                  c1_flicker, ">=", 1.0)
EXACT_DB = 60.0
"""A PSNR above this on recoverable pixels means propagation copied them exactly (float rounding, not estimation)."""
FLOWS_ESTIMATED = Premise("flows_estimated", "flow propagation is not exact: its recoverable-pixel PSNR is below "
                          f"{EXACT_DB:.0f} dB, as it is with estimated flows (the toy's exact flows, the oracle, give "
                          "148-212 dB)", lambda r: _m(r, "flow_propagation", "psnr_recoverable"), "<", EXACT_DB)
FLICKER_L = Premise("learned_plain_flickers", "plain sampling with the learned denoiser flickers in the holes: hole "
                    "E_warp >= max(5 x GT, 0.5 x variance)", _learned(c1_flicker), ">=", 1.0)
FLOWS_ESTIMATED_L = Premise("learned_flows_estimated", "flow propagation (learned stage) is not exact: its "
                            f"recoverable-pixel PSNR is below {EXACT_DB:.0f} dB",
                            _learned(lambda r: _m(r, "flow_propagation", "psnr_recoverable")), "<", EXACT_DB)
BOTH = ("quick", "standard", "full")
LEARNED_SCALES = ("quick", "standard")
"""The scales with a learned-denoiser stage (full has no shipped model for its 64 px frames)."""


def _at(value, scales=BOTH):
    return dict.fromkeys(scales, value)


CAL = ("the trigger is calibrated for the largest E_warp cut that keeps the never-visible HF ratio >= 0.9 and corrects "
       "<= 50% of pairs (experiment.calibrate_trigger); ")
FRONTIER = ("a contraction toward warped neighbours averages independent posterior samples, which removes detail in "
            "proportion to the consistency gained whichever frames are chosen: ")
WHY = {
    "C2": {"quick": CAL + "on dev seeds 100-102 it cuts 0.324-0.385 (needs 0.4); the calibration grid shows the "
                          "trade: tau factor 0 would cut 0.422 but keeps HF 0.880, below the floor",
           "standard": CAL + "its mean cut on dev seeds 100-102 is 0.344, 0.044 above the threshold (seed 100: "
                             "0.344), so a seed can fall below; factor 0 would cut 0.427 at HF 0.889, below the floor"},
    "C3_gap": FRONTIER + "TSI lies on the uniform frontier, not above it: gap 0.017-0.019 on dev seeds 100-102 at "
                         "quick (HF ratio TSI 0.908-0.914 vs uniform 0.889-0.896 at the same E_warp), 0.005 at "
                         "standard seed 100 (0.918 vs 0.913); always-on sits on it too (quick: cut 0.62-0.67 at HF "
                         "0.74-0.75)",
    "C3_blur": "matching TSI's E_warp takes only uniform lam 0.11-0.12, which keeps HF 0.889-0.896 of plain at quick "
               "(0.913 at standard, seed 100, dev seeds); the uniform constraint drops below 0.8 only from lam ~0.3 "
               "(quick, seed 100: lam 0.2 0.83, lam 0.4 0.72), a consistency the calibrated TSI does not reach",
    "C4": "the recoverable-pixel gain grows with the correction: TSI gains 0.87-0.94 dB on dev seeds 100-102 at quick "
          "(0.93 dB at standard, seed 100) for an E_warp cut of 0.32-0.39, always-on gains 1.8-2.3 dB for a cut of "
          "0.62-0.67; the calibration's detail floor (HF >= 0.9) caps the cut",
    "C5": "TSI cuts 0.32-0.39 vs always-on 0.62-0.67 on dev seeds 100-102 at quick (share 0.52-0.57), 0.344 vs "
          "0.667 (0.515) at standard seed 100; even tau = 0 reaches only 0.422 / 0.646 = 0.65 of always-on (dev means, "
          "quick): a triggered frame's R is reset to 0 and its step is lam_max x min(1, R / 2 rho), so it never "
          "corrects as often or as hard as always-on, which keeps HF 0.74-0.75 instead of >= 0.9",
    "C7": "the long-range cut follows the short-range one, which the detail floor caps: dev seeds 100-102 at quick "
          "0.234-0.245 at k = 4 for 0.324-0.385 at k = 1; standard seed 100 0.232 for 0.344",
    "C8_ew": "warped noise wins: E_warp ratio TSI / warped noise 1.66-3.20 on dev seeds 100-102 at quick, 2.34 at "
             "standard seed 100 (warped noise 0.24-0.49 vs TSI 0.72-0.81 at quick); with deterministic DDIM (eta = 0) "
             "and a per-frame denoiser, frames started from motion-transported noise follow motion-transported "
             "trajectories except near the known pixels; our estimated flows, rounded to whole pixels for the noise, "
             "mostly round to the true integer motion, so warped noise keeps nearly its oracle result (quick oracle "
             "ratio 1.65-3.20); TSI on top of warped noise still helps (C10)",
    "C8_hf": "warped noise is plain sampling from a shared start, so it keeps plain's detail (HF ratio vs plain "
             "0.90-0.99 at quick, 0.97 at standard); TSI's contraction costs some: ratio TSI / warped noise "
             "0.922-1.015 on dev seeds 100-102 at quick, 0.943 at standard seed 100",
    "C9_psnr": "with estimated flows (mean end-point error 0.035-0.038 px on consecutive frames) flow propagation is "
               "no longer exact (20.9-26.1 dB on recoverable pixels on dev seeds 100-102 at quick, 27.5 dB at "
               "standard seed 100; 148-212 dB with the oracle flows), but it still copies observed pixels, while TSI "
               "only pulls its per-frame posterior samples toward their warped neighbours: TSI reaches 11.0-12.4 dB "
               "(a gap of -9.9 to -14.4 dB at quick, -15.0 dB at standard)",
    "C9_ew": "flow propagation's recoverable pixels are copies, so mostly its never-visible pixels (filled by plain) "
             "flicker: its E_warp 0.25-0.38 vs TSI 0.72-0.81 on dev seeds 100-102 at quick (ratio 2.0-3.2; with the "
             "oracle flows 0.22-0.29), 0.207 vs 0.785 (ratio 3.80; oracle 0.175) at standard seed 100",
    # ---- the learned-denoiser stage (experiment.learned_stage; dev seeds 100-102 at quick, 100 at standard)
    "L2": {"quick": CAL + "with the learned score the rule picked factor 0.5 (tau 0.589, rho 1.177): factor 0.25 kept "
                          "the never-visible HF ratio at 0.8996, just under the 0.9 floor; factor 0.5 cuts 0.235-0.301 "
                          "on dev seeds 100-102 (mean 0.257), factor 0 would cut 0.428 at HF 0.864",
           "standard": CAL + "at standard the rule picked factor 0.25 (tau 0.052, rho 0.209): a mean cut of 0.358 "
                             "on dev seeds 100-102 (dev seed 100: 0.388), 0.058 above the threshold, so a seed can "
                             "fall below; factor 0 would cut 0.438 at HF 0.874, below the floor"},
    "L4": {"quick": "the recoverable-pixel gain grows with the correction, which the detail floor caps: TSI gains "
                    "0.60-0.67 dB on dev seeds 100-102 for an E_warp cut of 0.24-0.30 (with the exact score 0.87-0.94 "
                    "dB for 0.32-0.39)",
           "standard": "on the stage's 8 clips the gain varies with the clips as much as with the cut: dev seed 100 "
                       "gains 1.11 dB at a cut of 0.388, seeds 0-2 gain 0.84-0.92 dB at cuts of 0.32-0.39 (with the "
                       "exact score on all 32 clips 0.81-0.96 dB at 0.34-0.35); the detail floor keeps the cut near a "
                       "third, where the gain sits about 1 dB"},
    "L7": {"quick": "the long-range cut follows the short-range one, which the detail floor caps: dev seeds 100-102 "
                    "0.168-0.180 at k = 4 for 0.235-0.301 at k = 1",
           "standard": "the long-range cut follows the short-range one at about 0.65-0.7 of it: dev seed 100 0.273 "
                       "at k = 4 for 0.388 at k = 1; seeds 0-2 0.226-0.251 for 0.316-0.386, so it reaches 0.25 only "
                       "where the short-range cut is near 0.38"},
    "L8_ew": {"quick": "warped noise wins under the learned score too: E_warp ratio TSI / warped noise 1.92-3.67 on "
                       "dev seeds 100-102 (warped noise 0.24-0.49 vs TSI 0.83-0.94); the learned denoiser is per "
                       "frame and translation-equivariant (circular convolutions), so deterministic DDIM from "
                       "motion-transported noise gives nearly motion-transported fills, as with the exact score",
              "standard": "as at quick: E_warp ratio TSI / warped noise 2.15 on dev seed 100 (warped noise 0.373 vs "
                          "TSI 0.803, 8 clips)"},
    "L8_hf": {"quick": "TSI keeps 0.935-0.944 of plain's never-visible HF on dev seeds 100-102, warped noise (plain "
                       "sampling from a shared start) 0.89-0.99 depending on the clip: the ratio TSI / warped noise is "
                       "0.947-1.059 there (1 of 3 dev seeds below 1) and 0.82-0.97 on seeds 0-4",
              "standard": "TSI keeps 0.90 of plain's never-visible HF on dev seed 100, warped noise 1.00 (it is plain "
                          "sampling from a shared start): ratio 0.90; on seeds 0-2 0.815-1.017, warped noise's own "
                          "detail varying with its 8 clips"},
    "L9_psnr": {"quick": "flow propagation with the estimated flows still copies observed pixels: 20.8-26.0 dB on "
                         "recoverable pixels on dev seeds 100-102 vs TSI's 10.7-11.7 dB (a gap of -10.1 to -14.7 dB); "
                         "TSI only pulls per-frame samples of the learned posterior toward their warped neighbours",
                "standard": "as at quick: propagation 23.4 dB on recoverable pixels on dev seed 100 vs TSI's 10.6 "
                            "dB (gap -12.9 dB)"},
    "L9_ew": {"quick": "propagation's recoverable pixels are copies, so mostly its never-visible pixels (filled by the "
                       "learned plain sampler) flicker: its E_warp 0.26-0.39 vs TSI 0.83-0.94 on dev seeds 100-102 "
                       "(ratio 2.3-3.7)",
              "standard": "as at quick: propagation's E_warp 0.249 vs TSI 0.803 on dev seed 100 (ratio 3.23)"},
}


def _why(key, scales=("quick", "standard")):
    text = WHY.get(key, "")
    if not text:
        return None
    return {sc: text[sc] if isinstance(text, dict) else text for sc in scales}


CLAIMS = [
    Claim("C1_plain_flickers", "our per-frame exact-score sampler flickers in holes (a fact of the testbed, the "
          "premise of every stabilisation claim): hole E_warp >= max(5 x GT, 0.5 x variance)",
          c1_flicker, ">=", _at(1.0), kind="check", paper_value="flicker motivates the paper", source=SRC),
    Claim("C2_tsi_stabilises", "TSI lowers hole E_warp relative to plain sampling (relative reduction; first plan: "
          ">= 40% with the analytic prior at quick, >= 30% at standard)",
          c2_reduction, ">=", {"quick": 0.4, "standard": 0.3, "full": 0.3}, kind="paper", requires=FLICKER,
          paper_value="improved temporal coherence", source=SRC, why=_why("C2")),
    Claim("C3_pareto_gap", "at the same hole E_warp TSI keeps more never-visible detail than the uniform constraint: "
          "HF ratio (vs plain) of TSI minus the uniform frontier's, read at TSI's E_warp (>= 0.1)",
          c3_gap, ">=", _at(0.1), kind="paper", paper_value="coherence without losing detail", source=SRC,
          why=_why("C3_gap")),
    Claim("C3_uniform_blurs", "the uniform constraint at TSI's E_warp blurs: its HF ratio vs plain <= 0.8",
          c3_uniform_hf, "<=", _at(0.8), kind="paper", paper_value="uniform constraints wash out detail", source=SRC,
          why=_why("C3_blur")),
    Claim("C4_recoverable_psnr", "TSI raises PSNR on recoverable hole pixels by >= 1 dB", c4_recoverable, ">=",
          _at(1.0), kind="paper", paper_value="improved structural fidelity", source=SRC, why=_why("C4")),
    Claim("C4_never_psnr", "TSI does not lower PSNR on never-visible pixels by more than 0.2 dB", c4_never, ">=",
          _at(-0.2), kind="paper", paper_value="no fidelity loss", source=SRC),
    Claim("C5_fraction_corrected", "TSI corrects <= 50% of (non-anchor frame, step) pairs", c5_fraction, "<=",
          _at(0.5), kind="paper", paper_value="corrects only when instability accumulates", source=SRC),
    Claim("C5_share_of_always_on", "TSI achieves >= 80% of the always-on anchored E_warp reduction", c5_share, ">=",
          _at(0.8), kind="paper", requires=FLICKER, paper_value="selective correction suffices", source=SRC,
          why=_why("C5")),
    Claim("C6_risk_predicts", "mid-trajectory accumulated risk (monitor-only plain run) predicts the final per-frame "
          "hole E_warp: Spearman >= 0.5", c6_spearman, ">=", _at(0.5), kind="paper",
          paper_value="inconsistency is trajectory instability", source=SRC),
    Claim("C7_long_range", "the E_warp reduction holds at long range (k = 4): >= 25%", c7_long, ">=", _at(0.25),
          kind="paper", requires=FLICKER, paper_value="long-horizon coherence", source=SRC, why=_why("C7")),
    Claim("C8_vs_warped_noise_consistency", "TSI is more consistent than warped-noise initialisation: E_warp ratio "
          "TSI / warped noise < 1", c8_wn_ewarp, "<", _at(1.0), kind="paper",
          paper_value="better coherence than prior methods", source=SRC_CMP, why=_why("C8_ew")),
    Claim("C8_vs_warped_noise_detail", "TSI keeps at least the never-visible detail of warped-noise initialisation: HF "
          "ratio TSI / warped noise >= 1", c8_wn_hf, ">=", _at(1.0), kind="paper",
          paper_value="better structural fidelity than prior methods", source=SRC_CMP, why=_why("C8_hf")),
    Claim("C9_vs_flow_propagation_fidelity", "TSI is at least as faithful as flow propagation on recoverable pixels: "
          "PSNR difference (dB) >= 0", c9_fp_psnr, ">=", _at(0.0), kind="paper",
          paper_value="better structural fidelity than prior methods", source=SRC_CMP, requires=FLOWS_ESTIMATED,
          why=_why("C9_psnr")),
    Claim("C9_vs_flow_propagation_consistency", "TSI is more consistent than flow propagation: E_warp ratio TSI / "
          "flow propagation < 1", c9_fp_ewarp, "<", _at(1.0), kind="paper",
          paper_value="better coherence than prior methods", source=SRC_CMP, requires=FLOWS_ESTIMATED,
          why=_why("C9_ew")),
    Claim("C9_flow_estimate_epe", "our flow estimator works on the masked frames (a check of the testbed: the flows "
          "every flow-using method receives): mean end-point error of the estimated consecutive flows <= 0.25 px",
          c9_flow_epe, "<=", _at(0.25), kind="check", paper_value="flows from an estimator on the masked input",
          source="docs/papers/video_inpainting.md §2 (estimated flows)"),
    Claim("C10_plugs_into_warped_noise", "the control layer also stabilises a warped-noise sampler: E_warp ratio "
          "(TSI on warped noise) / warped noise < 1", c10_plug_in, "<", _at(1.0), kind="paper", requires=FLICKER,
          paper_value="plug-in inference-time layer, no retraining", source=SRC),
    # ---- the learned-denoiser stage: the same comparisons where the score is learned (experiment.learned_stage)
    Claim("L0_learned_denoiser_close", "our trained U-Net denoiser is close to the exact score on the stage's frames "
          "(a check of the testbed): x0 MSE learned / exact at the sampler's timesteps <= 1.05", l0_x0_error, "<=",
          _at(1.05, LEARNED_SCALES), kind="check", paper_value="a learned diffusion inpainter", source=SRC),
    Claim("L1_learned_plain_flickers", "plain sampling with the learned denoiser flickers in holes (a fact of the "
          "testbed): hole E_warp >= max(5 x GT, 0.5 x variance)", _learned(c1_flicker), ">=", _at(1.0, LEARNED_SCALES),
          kind="check", paper_value="flicker motivates the paper", source=SRC),
    Claim("L2_learned_tsi_stabilises", "with the learned denoiser TSI lowers hole E_warp relative to plain sampling "
          "(relative reduction; C2's thresholds)", _learned(c2_reduction), ">=", {"quick": 0.4, "standard": 0.3},
          kind="paper", requires=FLICKER_L, paper_value="improved temporal coherence", source=SRC, why=_why("L2")),
    Claim("L4_learned_recoverable_psnr", "with the learned denoiser TSI raises PSNR on recoverable hole pixels by "
          ">= 1 dB", _learned(c4_recoverable), ">=", _at(1.0, LEARNED_SCALES), kind="paper",
          paper_value="improved structural fidelity", source=SRC, why=_why("L4")),
    Claim("L4_learned_never_psnr", "with the learned denoiser TSI does not lower PSNR on never-visible pixels by more "
          "than 0.2 dB", _learned(c4_never), ">=", _at(-0.2, LEARNED_SCALES), kind="paper",
          paper_value="no fidelity loss", source=SRC, why=_why("L4_never")),
    Claim("L5_learned_fraction_corrected", "with the learned denoiser TSI corrects <= 50% of (non-anchor frame, step) "
          "pairs", _learned(c5_fraction), "<=", _at(0.5, LEARNED_SCALES), kind="paper",
          paper_value="corrects only when instability accumulates", source=SRC, why=_why("L5")),
    Claim("L6_learned_risk_predicts", "with the learned denoiser mid-trajectory accumulated risk predicts the final "
          "per-frame hole E_warp: Spearman >= 0.5", _learned(c6_spearman), ">=", _at(0.5, LEARNED_SCALES),
          kind="paper", paper_value="inconsistency is trajectory instability", source=SRC, why=_why("L6")),
    Claim("L7_learned_long_range", "with the learned denoiser the E_warp reduction holds at long range (k = 4): "
          ">= 25%", _learned(c7_long), ">=", _at(0.25, LEARNED_SCALES), kind="paper", requires=FLICKER_L,
          paper_value="long-horizon coherence", source=SRC, why=_why("L7")),
    Claim("L8_learned_vs_warped_noise_consistency", "with the learned denoiser TSI is more consistent than "
          "warped-noise initialisation: E_warp ratio TSI / warped noise < 1", _learned(c8_wn_ewarp), "<",
          _at(1.0, LEARNED_SCALES), kind="paper", paper_value="better coherence than prior methods", source=SRC_CMP,
          why=_why("L8_ew")),
    Claim("L8_learned_vs_warped_noise_detail", "with the learned denoiser TSI keeps at least the never-visible detail "
          "of warped-noise initialisation: HF ratio TSI / warped noise >= 1", _learned(c8_wn_hf), ">=",
          _at(1.0, LEARNED_SCALES), kind="paper", paper_value="better structural fidelity than prior methods",
          source=SRC_CMP, why=_why("L8_hf")),
    Claim("L9_learned_vs_flow_propagation_fidelity", "with the learned denoiser TSI is at least as faithful as flow "
          "propagation on recoverable pixels: PSNR difference (dB) >= 0", _learned(c9_fp_psnr), ">=",
          _at(0.0, LEARNED_SCALES), kind="paper", paper_value="better structural fidelity than prior methods",
          source=SRC_CMP, requires=FLOWS_ESTIMATED_L, why=_why("L9_psnr")),
    Claim("L9_learned_vs_flow_propagation_consistency", "with the learned denoiser TSI is more consistent than flow "
          "propagation: E_warp ratio TSI / flow propagation < 1", _learned(c9_fp_ewarp), "<",
          _at(1.0, LEARNED_SCALES), kind="paper", paper_value="better coherence than prior methods", source=SRC_CMP,
          requires=FLOWS_ESTIMATED_L, why=_why("L9_ew")),
]
