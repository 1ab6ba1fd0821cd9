"""Falsifiable claims of OTP-FM, read from ``experiment.run``'s results.

The paper claims smoother flows than stitched pairwise flow matching, better interpolation of held-out
snapshots than the multimarginal baselines (state of the art on its real data sets) and the fastest
training (abstract; introduction; experiments section). The thresholds follow those words ("better" is
a ratio below 1) or the companion's docs page (docs/papers/otp_fm.md), where the paper gives no number
we could read. Identities of the closed-form paths are checks, run and shown apart.
"""

from __future__ import annotations

from icml26.claims import TIMED_RERUN_RTOL, Claim, Control, Premise

ALL = ("quick", "standard", "full")
LATER = ("standard", "full")


def _all(x):
    return {s: x for s in ALL}


def _later(x):
    return {s: x for s in LATER}


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
    t = r["blobs"]["trained"]
    return t["otp_w2"]["jump"] / t["ot_cfm"]["jump"]


def jump_trained_otcfm(r):
    return r["blobs"]["trained"]["ot_cfm"]["jump"]


def heldout_training_free_ratio(r):
    return r["blobs"]["training_free"]["ratio"]


def _held(r, part, a, b):
    t = r[part]["trained"]
    return t[a]["mean_held_w2"] / t[b]["mean_held_w2"]


def heldout_trained_ratio(r):
    return _held(r, "blobs", "otp_w2", "ot_cfm")


def heldout_vs_mmfm(r):
    return _held(r, "blobs", "otp_w2", "mmfm")


def heldout_meanflow_ratio(r):
    return _held(r, "blobs", "otp_w2_meanflow", "ot_cfm")


def heldout_random_ratio(r):
    return _held(r, "blobs", "otp_w2inf", "i_cfm")


MULTIMARGINAL = ("ot_cfm", "mmfm")
"""The multimarginal baselines the held-out headline compares with (those the scale runs): piecewise OT-CFM
(stitched pairwise flows through OT chains) and MMFM (cubic splines through the same chains)."""


def _baselines(r):
    t = r["blobs"]["trained"]
    return [b for b in MULTIMARGINAL if b in t]


def heldout_vs_best(r):
    """OTP-FM's mean held-out W2 over the best multimarginal baseline's (the max of the per-baseline ratios)."""
    return max(_held(r, "blobs", "otp_w2", b) for b in _baselines(r))


def heldout_vs_best_details(r):
    return {f"vs_{b}": _held(r, "blobs", "otp_w2", b) for b in _baselines(r)}


def chord_vs_best(r):
    """Control: the piecewise construction without potentials (the untrained chord through the same pairwise OT
    chains, read at the same held-out times) in OTP-FM's place, over the best baseline's trained flow."""
    chord = float(sum(r["blobs"]["training_free"]["chord"]) / len(r["blobs"]["training_free"]["chord"]))
    t = r["blobs"]["trained"]
    return max(chord / t[b]["mean_held_w2"] for b in _baselines(r))


def gapminder_details(r):
    g = r["gapminder"]
    return {"vs_ot_cfm": gapminder_vs_otcfm(r), "vs_mmfm": gapminder_vs_mmfm(r),
            "chord_vs_otp": g["chord_w2"] / g["trained"]["otp_w2"]["mean_held_w2"]}


def gapminder_vs_otcfm(r):
    return _held(r, "gapminder", "otp_w2", "ot_cfm")


def gapminder_vs_mmfm(r):
    return _held(r, "gapminder", "otp_w2", "mmfm")


def strength_spearman(r):
    return r["strength_sweep"]["spearman"]


def strength_improvement(r):
    return r["strength_sweep"]["improvement"]


def efficiency_time_ratio(r):
    return r["efficiency"]["time_ratio"]


def efficiency_w1_ratio(r):
    return r["efficiency"]["w1_ratio"]


def baseline_vs_trivial(r):
    return r["efficiency"]["baseline_vs_trivial"]


SRC = "paper §3 (closed-form solution and its linear solve; docs/papers/otp_fm.md, 'Method as implemented')"
NO_NUMBER = "no number (the paper's tables were not available to us)"
DOCS = "docs/papers/otp_fm.md, 'Claims'"
KINK_LEARNED = Premise(
    "baseline_kink_learned",
    "the trained piecewise OT-CFM network shows the kink its targets have (J >= 1 along its trajectories; the "
    "targets give sqrt(2)); a network too small or too briefly trained to show it leaves nothing to smooth",
    jump_trained_otcfm, ">=", 1.0)
JUMP_WHY = (
    "the metric has a floor on this testbed: within +-0.05 of a snapshot the true blob itself turns 36 degrees, so an "
    "exactly smooth flow scores J = 2 sin 18 deg = 0.62 against 1.41 for the chord (ratio 0.44); OTP-FM's own "
    "conditional targets with the official 'auto' width sit above half the chord's jump, and the trained networks "
    "follow their targets (jump_trained_ratio 0.52-0.53 at standard, 0.54-0.56 at quick)")
GAP_WHY = {s: (
    "on these slowly drifting real snapshots the OT-chain methods nearly tie: OTP-FM's held-out W2 over OT-CFM's is "
    "1.007, 1.134, 0.970 and over MMFM's 1.051, 1.116, 0.917 on seeds 0-2, both sides of 1. Between ten-year "
    "snapshots the countries move almost in straight lines, so a curved interpolant has little to add (the "
    "untrained chord through the same OT chains is shown beside it in the details) and the seed-to-seed spread "
    "of the fits decides the sign") for s in LATER}
EFFICIENCY_WHY = (
    "with its own tuned learning rate (3e-3), clipping and its best-validation checkpoint the neural ODE reaches its "
    "final level early, and that level is the common target (the worse of the two): OTP-FM's gain is accuracy "
    "(heldout_vs_simulation), not time to the baseline's level")
QUOTE = ("We demonstrate state-of-the-art performance and training efficiency of OT-potential FM (OTP-FM) on diverse "
         "single-cell RNA sequencing, oceanographic, and meteorological datasets.")
BASELINE_WORKS = Premise(
    "baseline_learned",
    "the simulation baseline learned the held-out snapshots: its final held-out W1 is below that of copying the "
    "nearest training snapshot (ratio, summed over folds)",
    baseline_vs_trivial, "<", 1.0)

CLAIMS = [
    # ---- checks: identities of the closed form and facts of the conditional targets (never counted)
    Claim("closed_form_delta",
          "one delta potential: |X_k - y_k| = |X_base(t_k) - y_k| / (1 + s t_k (1 - t_k)) (max abs error)",
          delta_err, "<=", _all(1e-6), kind="check", paper_value="exact (closed form)", source=SRC),
    Claim("closed_form_direct_vs_picard",
          "K=3 Gaussian W2-inf potentials: the direct linear solve equals damped Picard iteration (max abs diff)",
          picard_err, "<=", _all(1e-5), kind="check", paper_value="equal (direct vs fixed-point solve)", source=SRC),
    Claim("closed_form_endpoints",
          "the corrected conditional path meets x_0 at t=0 and x_1 at t=1 for every kernel (max abs error)",
          boundary_err, "<=", _all(1e-12), kind="check", paper_value="exact", source=SRC),
    Claim("closed_form_kernel_integrals",
          "closed-form Lambda and Lambda^(2) of the Gaussian/box/triangle kernels match trapezoid quadrature",
          quadrature_err, "<=", _all(1e-4), kind="check", paper_value="exact (closed form)", source=SRC),
    Claim("jump_conditional_otcfm",
          "piecewise OT-CFM's conditional velocity jumps at each training marginal (jump ratio J, eps=1e-3; "
          "sqrt(2) for 90-degree turns)",
          jump_cond_otcfm, ">", _all(1.0), kind="check", paper_value="kinks at every marginal (introduction)",
          source="paper §1; " + DOCS),
    Claim("jump_conditional_otp",
          "OTP-FM's conditional velocity (Gaussian kernel) is continuous at the marginals: J < 0.05",
          jump_cond_otp, "<", _all(0.05), kind="check", paper_value="smooth (introduction)",
          source="paper §1; " + DOCS),
    # ---- paper claims (the paper's words: "better", "faster", "smoother" are ratios below 1)
    Claim("heldout_trained_vs_mmfm",
          "trained OTP-FM (W2, OT chains) interpolates the held-out snapshots of the rotating blob better than the "
          "best multimarginal baseline run at the scale (piecewise OT-CFM; from standard on also MMFM): max over "
          "the baselines of the mean held-out W2 ratio < 1",
          heldout_vs_best, "<", _all(1.0), kind="paper", headline=True, quote=QUOTE,
          control=Control("chord_no_potentials",
                          "OTP-FM's potentials replaced by the pairwise OT construction: the untrained piecewise-"
                          "linear chord through the same OT chains, read at the same held-out times, over the best "
                          "baseline's trained flow", chord_vs_best),
          details=heldout_vs_best_details,
          paper_value="state-of-the-art performance (abstract)", source="abstract; " + DOCS,
          why={"quick": ("uninformative at quick: the control, the untrained chord through the same OT chains, also "
                         "beats the trained piecewise OT-CFM there (the only baseline run at quick), so at quick the "
                         "OT-CFM network's own fitting error, not the potentials, can decide the comparison; the "
                         "extension heldout_trained_vs_otcfm gives the OT-CFM ratio"),
               **{s: ("the binding baseline is MMFM (held-out W2 ratio 1.147, 0.984, 1.065 on seeds 0-2, while the "
                   "ratio to piecewise OT-CFM is 0.46, 0.50, 0.42: heldout_trained_vs_otcfm): a blob turning at "
                   "constant speed is the case a cubic spline through OT chains fits best, close to the true "
                   "circle, while OTP-FM with the 'auto' width bends the path mostly near the training "
                   "snapshots") for s in LATER}}),
    Claim("steering_ratio",
          "with a potential at t=0.5, OTP-FM's marginal at 0.5 is far closer to mu_0.5 than endpoint CFM's "
          "(W2 ratio OTP-FM / CFM, same budget)",
          steering_ratio, "<=", _all(0.25), kind="paper", paper_value=NO_NUMBER,
          source="abstract ('steering the flow towards the intermediate marginals'); " + DOCS),
    Claim("jump_trained_ratio",
          "trained networks along their own trajectories (eps=0.05): OTP-FM's velocity jumps less at the marginals "
          "than piecewise OT-CFM's (jump ratio J(OTP-FM) / J(OT-CFM) < 1)",
          jump_trained_ratio, "<", _all(1.0), kind="paper", requires=KINK_LEARNED,
          paper_value="smooth vs kinked (introduction)", source="paper §1; " + DOCS),
    Claim("heldout_random_vs_icfm",
          "with random tuples (W2-inf, no OT), OTP-FM interpolates held-out snapshots better than piecewise I-CFM "
          "with random pairs (mean held-out W2 ratio < 1)",
          heldout_random_ratio, "<", _later(1.0), kind="paper", paper_value=NO_NUMBER,
          source="paper §3 (W2-inf potential, the default); " + DOCS),
    Claim("gapminder_vs_mmfm",
          "real snapshots (Gapminder, 142 countries every 5 years, odd years held out): OTP-FM's held-out W2 is "
          "below MMFM's (ratio < 1)",
          gapminder_vs_mmfm, "<", _later(1.0), kind="paper", details=gapminder_details,
          paper_value="state of the art on real data", source="abstract; " + DOCS, why=GAP_WHY),
    Claim("efficiency_vs_simulation",
          "over every leave-one-out fold (branching 5-D), OTP-FM reaches the common held-out W1 target (the worse "
          "of the two methods' final best-validation values) in less training time than the neural ODE (ratio < 1)",
          efficiency_time_ratio, "<", _later(1.0), kind="paper", requires=BASELINE_WORKS, rerun_rtol=TIMED_RERUN_RTOL,
          paper_value="training efficiency (abstract)", source="abstract; " + DOCS),
    Claim("heldout_vs_simulation",
          "over the same folds, OTP-FM's final held-out W1 is below the tuned neural ODE's (ratio < 1)",
          efficiency_w1_ratio, "<", _later(1.0), kind="paper", requires=BASELINE_WORKS,
          paper_value="state of the art against MIOFlow-style baselines", source="abstract; " + DOCS),
    # ---- extensions: our stricter bars, variants and hypotheses (recorded and shown, counted apart)
    Claim("heldout_trained_vs_otcfm",
          "our stricter bar: trained OTP-FM's mean held-out W2 is <= 0.8x (quick) / 0.7x piecewise OT-CFM's",
          heldout_trained_ratio, "<=", {"quick": 0.8, "standard": 0.7, "full": 0.7}, kind="extension",
          paper_value="state of the art on the Gulf of Mexico eddy (W2)", source="abstract; " + DOCS),
    Claim("steering_absolute",
          "our bar: OTP-FM's marginal at t=0.5 matches mu_0.5 = N((2,2), 0.1^2): W2 <= 0.35 (CFM sits near 2)",
          steering_w2, "<=", _all(0.35), kind="extension", paper_value=NO_NUMBER, source=DOCS),
    Claim("heldout_training_free",
          "rotating blob, held-out odd snapshots: W2 of OTP-FM's closed-form conditional-path marginal <= 0.6 x "
          "the chord's (mean over held-out times; no network)",
          heldout_training_free_ratio, "<=", _all(0.6), kind="extension", paper_value=NO_NUMBER, source=DOCS),
    Claim("heldout_meanflow_vs_otcfm",
          "a variant: OTP-FM trained with the official recipe (MeanFlow loss, adaptive weighting, EMA 0.99) also "
          "beats piecewise OT-CFM on the held-out snapshots (mean held-out W2 ratio <= 0.7)",
          heldout_meanflow_ratio, "<=", _later(0.7), kind="extension", paper_value=NO_NUMBER,
          source="paper App. C (MeanFlow training); " + DOCS),
    Claim("gapminder_vs_otcfm",
          "the same real snapshots: OTP-FM's held-out W2 is below piecewise OT-CFM's (ratio < 1)",
          gapminder_vs_otcfm, "<", _later(1.0), kind="extension", paper_value="state of the art on real data",
          source="abstract; " + DOCS, why=GAP_WHY),
    Claim("strength_monotone",
          "W2 to a training marginal falls monotonically as s goes 10 -> 100 -> 1000 (W2-inf, random coupling; "
          "Spearman correlation)",
          strength_spearman, "<=", _later(-0.999), kind="extension", paper_value=NO_NUMBER, source=DOCS),
    Claim("strength_improvement",
          "the largest strength is >= 3x closer to the training marginal than the smallest (W2 ratio)",
          strength_improvement, ">=", _later(3.0), kind="extension", paper_value=NO_NUMBER, source=DOCS),
    Claim("jump_trained_half",
          "our stricter bar: J(OTP-FM) <= 0.5 J(piecewise OT-CFM) along the trained networks' trajectories (the same "
          "ratio as jump_trained_ratio's, a stricter bar)",
          jump_trained_ratio, "<=", _later(0.5), kind="extension", requires=KINK_LEARNED,
          paper_value="smooth vs kinked (introduction)", source="paper §1; " + DOCS,
          why=dict.fromkeys(LATER, JUMP_WHY)),
    Claim("efficiency_third",
          "our stricter bar: OTP-FM reaches the common held-out W1 target in <= 1/3 of the neural ODE's training "
          "time (the same ratio as efficiency_vs_simulation's, a stricter bar)",
          efficiency_time_ratio, "<=", _later(1 / 3), kind="extension", requires=BASELINE_WORKS,
          rerun_rtol=TIMED_RERUN_RTOL, paper_value="fastest training of all methods", source="abstract; " + DOCS,
          why=dict.fromkeys(("standard", "full"), EFFICIENCY_WHY)),
]
