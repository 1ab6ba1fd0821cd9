"""Falsifiable claims of OTP-FM (note §6), read from ``experiment.run``'s results.

Only the paper's abstract/introduction were available to the note's author, so most claims restate
mathematical properties of the method (§3 of the note, from the official code's docstrings) and its
qualitative headline (smoother, better held-out interpolation, faster than simulation); the
thresholds are the note's.
"""

from __future__ import annotations

import numpy as np

from icml26.claims import Claim

ALL = ("quick", "standard", "full")


def _all(x):
    return {s: x for s in ALL}


def delta_err(r):
    return r["closed_form"]["delta_err"]


def picard_err(r):
    return r["closed_form"]["picard_err"]


def boundary_err(r):
    return r["closed_form"]["boundary_err"]


def quadrature_err(r):
    return r["closed_form"]["quadrature_err"]


def steering_ratio(r):
    return r["steering"]["ratio"]


def steering_w2(r):
    return r["steering"]["otp_w2inf"]["w2_mid"]


def jump_cond_otcfm(r):
    return r["blobs"]["jump_conditional"]["ot_cfm"]


def jump_cond_otp(r):
    return r["blobs"]["jump_conditional"]["otp"]


def jump_trained_ratio(r):
    runs = r["blobs_seeds"]
    return float(np.mean([x["trained"]["otp_w2"]["jump"] for x in runs]) /
                 np.mean([x["trained"]["ot_cfm"]["jump"] for x in runs]))


def heldout_training_free_ratio(r):
    return float(np.mean([x["training_free"]["ratio"] for x in r["blobs_seeds"]]))


def heldout_trained_ratio(r):
    return r["blobs_mean"]["otp_w2"] / r["blobs_mean"]["ot_cfm"]


def heldout_vs_mmfm(r):
    return r["blobs_mean"]["otp_w2"] / r["blobs_mean"]["mmfm"]


def strength_spearman(r):
    return r["strength_sweep"]["spearman"]


def strength_improvement(r):
    return r["strength_sweep"]["improvement"]


def efficiency_time_ratio(r):
    return r["efficiency"]["time_ratio"]


SRC = "note §6 (paper §3 Eq. 18-21, via the official code's docstrings)"
NO_NUMBER = "no number available (only the abstract/intro were read)"

CLAIMS = [
    Claim("closed_form_delta",
          "one delta potential: |X_k - y_k| = |X_base(t_k) - y_k| / (1 + s t_k (1 - t_k)) (max abs error)",
          delta_err, "<=", _all(1e-6), kind="check", paper_value="exact (closed form)", source=SRC),
    Claim("closed_form_direct_vs_picard",
          "K=3 Gaussian W2-inf potentials: the direct linear solve equals damped Picard iteration (max abs diff)",
          picard_err, "<=", _all(1e-5), kind="check", paper_value="equal (Eq. 20 vs Eq. 21)", source=SRC),
    Claim("closed_form_endpoints",
          "the corrected conditional path meets x_0 at t=0 and x_1 at t=1 for every kernel (max abs error)",
          boundary_err, "<=", _all(1e-12), kind="check", paper_value="exact", source=SRC),
    Claim("closed_form_kernel_integrals",
          "closed-form Lambda and Lambda^(2) of the Gaussian/box/triangle kernels match trapezoid quadrature",
          quadrature_err, "<=", _all(1e-4), kind="check", paper_value="exact (closed form)", source="note §3.3, §10"),
    Claim("steering_ratio",
          "with a potential at t=0.5, OTP-FM's marginal at 0.5 is far closer to mu_0.5 than endpoint CFM's "
          "(W2 ratio OTP-FM / CFM, same 600-iteration budget at quick)",
          steering_ratio, "<=", _all(0.25), kind="paper", paper_value=NO_NUMBER, source="note §6 claim 2; abstract"),
    Claim("steering_absolute",
          "OTP-FM's marginal at t=0.5 matches mu_0.5 = N((2,2), 0.1^2): W2 <= 0.35 (CFM sits near 2)",
          steering_w2, "<=", _all(0.35), kind="paper", paper_value=NO_NUMBER, source="note §6 claim 2"),
    Claim("jump_conditional_otcfm",
          "piecewise OT-CFM's conditional velocity jumps at each training marginal (jump ratio J, eps=1e-3; "
          "sqrt(2) for 90-degree turns)",
          jump_cond_otcfm, ">", _all(1.0),
    kind="check", paper_value="kinks at every marginal (intro)", source="note §6 claim 3a"),
    Claim("jump_conditional_otp",
          "OTP-FM's conditional velocity (Gaussian kernel, width 0.1) is continuous at the marginals: J < 0.05",
          jump_cond_otp, "<", _all(0.05), kind="check", paper_value="smooth (intro)", source="note §6 claim 3a"),
    Claim("jump_trained_ratio",
          "trained networks along their own trajectories (eps=0.05): J(OTP-FM) <= 0.5 J(piecewise OT-CFM)",
          jump_trained_ratio, "<=", _all(0.5),
          kind="paper", paper_value="smooth vs kinked (intro)", source="note §6 claim 3b",
          why=("measured 0.60/0.62/0.61 (quick, seeds 0/1/2): on the rotating blob the true velocity "
                         "itself turns 36 deg within +-0.05 of each snapshot (J = 2 sin 18 deg = 0.62 vs sqrt(2) = "
                         "1.41 for the ideal chord, a floor of 0.44), and OTP-FM's own conditional targets (Gaussian "
                         "width 0.1) give J = 0.83 there (ratio 0.59); the trained networks match that, so the "
                         "note's 0.5 is below what the method's targets allow at eps = 0.05")),
    Claim("heldout_training_free",
          "rotating blob, held-out odd snapshots: W2 of OTP-FM's closed-form conditional-path marginal <= 0.6 x "
          "the chord's (mean over held-out times)",
          heldout_training_free_ratio, "<=", _all(0.6),
    kind="paper", paper_value="note's numpy: 0.42", source="note §6 claim 4"),
    Claim("heldout_trained_vs_otcfm",
          "trained OTP-FM (W2, OT chains) interpolates held-out snapshots better than piecewise OT-CFM "
          "(mean held-out W2 ratio; 3 seeds at standard)",
          heldout_trained_ratio, "<=", {"quick": 0.8, "standard": 0.7, "full": 0.7}, kind="paper",
          paper_value="state of the art on Gulf of Mexico (W2)", source="note §6 claim 4; abstract"),
    Claim("heldout_trained_vs_mmfm",
          "trained OTP-FM is within 1.3x of MMFM's mean held-out W2 (3 seeds)",
          heldout_vs_mmfm, "<=", {"standard": 1.3, "full": 1.3},
          kind="paper", paper_value=NO_NUMBER, source="note §6 claim 4",
          why=("measured 1.305 at standard (seed 0; mean held-out W2 0.344 for OTP-FM vs 0.263 for MMFM "
                         "over 3 seeds): on a blob turning at constant speed the cubic spline through OT chains is "
                         "almost the true circle, while OTP-FM with the note's width 0.1 turns mostly near the "
                         "snapshots; borderline, full scale not measured")),
    Claim("strength_monotone",
          "W2 to a training marginal falls monotonically as s goes 10 -> 100 -> 1000 (W2-inf, random coupling; "
          "Spearman correlation)",
          strength_spearman, "<=", {"standard": -0.999, "full": -0.999}, kind="paper", paper_value=NO_NUMBER,
          source="note §6 claim 5"),
    Claim("strength_improvement",
          "the largest strength is >= 3x closer to the training marginal than the smallest (W2 ratio)",
          strength_improvement, ">=", {"standard": 3.0, "full": 3.0}, kind="paper", paper_value=NO_NUMBER,
          source="note §6 claim 5"),
    Claim("efficiency_vs_simulation",
          "OTP-FM reaches the simulation-based baseline's final held-out W1 (branching 5-D) in <= 1/3 of the "
          "baseline's training wall-clock (time ratio)",
          efficiency_time_ratio, "<=", {"standard": 1 / 3, "full": 1 / 3}, kind="paper",
          paper_value="fastest training of all methods", source="note §6 claim 6; abstract"),
]
