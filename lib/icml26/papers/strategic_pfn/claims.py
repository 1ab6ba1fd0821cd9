"""Claims S1-S6 (docs/papers/strategic_pfn.md §5), as measured by :func:`.experiment.run`.

The paper's own tables were not available to us (only the abstract), so ``paper_value`` quotes the
abstract's qualitative statement or the numbers of our own pilot simulation (logistic regression).
"""

from __future__ import annotations

from icml26.claims import Claim, Control

SRC = "arXiv 2605.19662, abstract; thresholds: docs/papers/strategic_pfn.md §5"
QUOTE = ("Experiments on real-world and synthetic tabular datasets show that SPN consistently improves robustness and "
         "predictive performance under strategic manipulation compared with both tabular foundation models and "
         "classical tabular methods.")


def _acc(res, m, r, table="p1"):
    return res[table][m][f"{float(r):g}"]["acc"]


def _fpr(res, m, r, table="p1"):
    return res[table][m][f"{float(r):g}"]["fpr"]


def s1_drop(res):
    """Base PFN: clean accuracy minus accuracy on the manipulated test (P1, r = 1)."""
    return _acc(res, "base_clean", 1.0) - _acc(res, "base", 1.0)


def s1_fpr_rise(res):
    """Base PFN: false-positive rate on the manipulated test minus on the clean test (P1, r = 1)."""
    return _fpr(res, "base", 1.0) - _fpr(res, "base_clean", 1.0)


def s2_gain(res):
    """min over r in {1, 1.5} of SPN accuracy minus base accuracy (P1, manipulated test)."""
    return min(_acc(res, "spn", r) - _acc(res, "base", r) for r in (1.0, 1.5))


def s2_gain_nonstrategic(res):
    """The control: min over r in {1, 1.5} of (SPN fed a non-strategic context: every context row moved as far as its
    strategic move, in a random direction of the mutable features) minus the base PFN (P1, manipulated test)."""
    return min(_acc(res, "spn_nonstrategic", r) - _acc(res, "base", r) for r in (1.0, 1.5))


def s2_strategic_vs_nonstrategic(res):
    """min over r in {1, 1.5}: SPN's accuracy minus that of SPN fed the non-strategic (random-direction) context of the
    same size (P1): what the strategic direction adds beyond perturbing the context."""
    return min(_acc(res, "spn", r) - _acc(res, "spn_nonstrategic", r) for r in (1.0, 1.5))


def s2_details(res):
    """Accuracy on the manipulated test (P1) per budget: clean, base PFN, SPN, SPN-augment, the control."""
    out = {}
    for r in ("1", "1.5"):
        for m in ("base_clean", "base", "spn", "spn_augment", "spn_nonstrategic"):
            if m in res["p1"] and r in res["p1"][m]:
                out[f"r={r} {m}"] = res["p1"][m][r]["acc"]
    return out


EQUAL_KNOWLEDGE = ("lr_spnctx_p1", "hgb_spnctx_p1")
"""Classical learners fit on SPN's own simulated context (issue 69), scored on the responses to h_0 SPN faces (P1)."""


def _gap_to_best(mine, others, what):
    """Task-mean of ``mine`` minus the per-task best of ``others`` (lists of per-task accuracies)."""
    if not others:
        raise KeyError(f"no {what} in results")
    best = [max(v) for v in zip(*others)]
    return sum(a - b for a, b in zip(mine, best)) / len(mine)


def _vs_equal_knowledge(block, method, rs):
    """min over ``rs`` of the task-mean of ``method``'s accuracy minus the best equal-knowledge learner's, per task."""
    gaps = []
    for r in rs:
        k = f"{float(r):g}"
        others = [block[m][k]["acc_per_rep"] for m in EQUAL_KNOWLEDGE if m in block]
        gaps.append(_gap_to_best(block[method][k]["acc_per_rep"], others, "equal-knowledge baseline"))
    return min(gaps)


def s5_equal_knowledge(res):
    """P1, min over r in {1, 1.5}: SPN's accuracy minus the best of LR / HistGBDT fit on SPN's own simulated context
    (the same knowledge SPN has), per task, averaged over tasks."""
    return _vs_equal_knowledge(res["p1"], "spn", (1.0, 1.5))


def s5_equal_knowledge_control(res):
    """The same with SPN fed the non-strategic (random-direction) context."""
    return _vs_equal_knowledge(res["p1"], "spn_nonstrategic", (1.0, 1.5))


def s5_equal_knowledge_credit(res):
    """credit_like table, P1, r = 1: SPN minus the best of LR / HistGBDT fit on SPN's simulated context."""
    return _vs_equal_knowledge(res["credit"], "spn", (res["credit"]["budget"],))


def s5_equal_knowledge_details(res):
    """Accuracy (P1 and P2) of SPN and of each equal-knowledge learner, r in {1, 1.5}."""
    out = {}
    for r in ("1", "1.5"):
        for m in ("spn", "spn_nonstrategic", "lr_spnctx_p1", "hgb_spnctx_p1", "lr_spnctx_p2", "hgb_spnctx_p2"):
            if m in res["p1"] and r in res["p1"][m]:
                out[f"r={r} {m}"] = res["p1"][m][r]["acc"]
    return out


def s2_gap(res):
    """max over r in {1, 1.5} of clean accuracy minus SPN's manipulated accuracy (P1)."""
    return max(_acc(res, "base_clean", r) - _acc(res, "spn", r) for r in (1.0, 1.5))


def s3_no_harm(res):
    """|SPN - base| accuracy at r = 0 (D_s = D exactly)."""
    return abs(_acc(res, "spn", 0.0) - _acc(res, "base", 0.0))


def s4_gap_shrink(res):
    """Relative shrinkage of the base gap (clean - manipulated) from the smallest to the largest n_ctx."""
    gaps = res["ctx_sweep"]["base_gap"]
    return (gaps[0] - gaps[-1]) / gaps[0]


def s4_spn_gap(res):
    """Largest SPN gap (clean - manipulated accuracy) over the n_ctx sweep."""
    return max(res["ctx_sweep"]["spn_gap"])


def s5_beats_classical(res):
    """Fraction of tasks where SPN >= the best of LR / HGB / MLP / strategic LR, all under P1, r = 1.

    One protocol (issue 34): every model is scored on the same test agents' responses to the deployed base PFN.
    """
    p1 = res["p1"]
    k = "1"
    spn = p1["spn"][k]["acc_per_rep"]
    others = [p1[f"{n}_p1"][k]["acc_per_rep"] for n in ("lr", "hgb", "mlp", "strategic_lr") if f"{n}_p1" in p1]
    if not others:
        raise KeyError("no classical baseline in results")
    best = [max(vals) for vals in zip(*others)]
    return sum(s >= b for s, b in zip(spn, best)) / len(spn)


P2_BASELINES = ("strategic_lr_p2", "lr_p2", "hgb_p2", "mlp_p2")


def s5_vs_strongest_p2(res):
    """P2 (every rule faces responses to itself), min over r in {1, 1.5}: iterated SPN's accuracy minus the
    strongest baseline's (strategic LR, or LR / HGB / MLP), per-task best averaged over tasks."""
    p1, p2 = res["p1"], res["p2"]
    gaps = []
    for r in ("1", "1.5"):
        others = [p1[m][r]["acc_per_rep"] for m in P2_BASELINES if m in p1]
        gaps.append(_gap_to_best(p2["spn_p2_iterated"][r]["acc_per_rep"], others, "P2 baseline"))
    return min(gaps)


def s7_misspec_budget(res):
    """min over a budget misspecified by x1/2 and x2 of SPN(misspecified) minus base PFN accuracy (P1, r = 1)."""
    return min(_acc(res, m, 1.0) for m in ("spn_half_r", "spn_double_r")) - _acc(res, "base", 1.0)


def s7_misspec_cost(res):
    """SPN built with the mutable costs in reverse order minus base PFN accuracy (P1, r = 1)."""
    return _acc(res, "spn_wrong_cost", 1.0) - _acc(res, "base", 1.0)


def s5_credit(res):
    """credit_like table: SPN minus base PFN accuracy on the manipulated test (P1, r = 1)."""
    c = res["credit"]
    k = f"{float(c['budget']):g}"
    return c["spn"][k]["acc"] - c["base"][k]["acc"]


def s5_real(res):
    """Breast-cancer table: SPN minus base PFN accuracy on the manipulated test (P1, r = 1)."""
    real = res["real"]
    k = f"{float(real['budget']):g}"
    return real["spn"][k]["acc"] - real["base"][k]["acc"]


def s6_p2(res):
    """P2 at r = 1.5: iterated SPN (3 rounds) minus base PFN accuracy, each facing responses to itself."""
    return _acc(res, "spn_p2_iterated", 1.5, "p2") - _acc(res, "base_p2", 1.5, "p2")



CLAIMS = [
    Claim("S1_bias_drop", "the base PFN loses >= 4 accuracy points on the manipulated test (P1, r=1)",
          s1_drop, ">=", {"standard": 0.04, "full": 0.04}, kind="paper",
          paper_value="'systematic prediction bias' (pilot: about 7 points for LR)", source=SRC),
    Claim("S1_fpr_rise", "the base PFN's false-positive rate rises by >= 5 points under manipulation (P1, r=1)",
          s1_fpr_rise, ">=", {"quick": 0.05, "standard": 0.05, "full": 0.05}, kind="paper",
          paper_value="manipulated negatives are accepted", source=SRC),
    Claim("S2_spn_gain", "SPN beats the base PFN on the manipulated test at r in {1, 1.5} (P1): at quick by more "
          "than the noise margin ('consistently improves robustness'), at standard and full by >= 3 points (ours)",
          s2_gain, ">=", {"quick": 0.0, "standard": 0.03, "full": 0.03}, kind="paper", headline=True, quote=QUOTE,
          control=Control("spn_nonstrategic_context",
                          "SPN fed a non-strategic prior: its context rows moved as far as their simulated strategic "
                          "moves but in random directions of the mutable features (not in response to the deployed "
                          "rule), fed through the same test against the base PFN", s2_gain_nonstrategic),
          details=s2_details,
          why={"quick": "SPN beats the base PFN beyond the noise margin on every quick seed, but so does the negative "
                        "control: a context whose rows are moved as far as SPN moves them, in random directions of "
                        "the mutable features, recovers part of the gain, so at quick this test cannot tell the "
                        "strategic prior from perturbing the context (S2_strategic_not_noise compares the two "
                        "directly)",
               "standard": "SPN gains 7.8 / 9.2 / 12.1 points over the base PFN on seeds 0-2, and the negative "
                           "control (the same SPN fed a context moved as far in random directions of the mutable "
                           "features) gains 4.6 / 6.9 / 10.1 points, also past the 3-point bar: most of the gain "
                           "comes from a context that contains moved rows at all; the strategic direction adds 2.6 / "
                           "1.9 / -0.2 points over the random one (S2_strategic_not_noise), so this testbed cannot "
                           "credit the gain to the strategic prior"},
          paper_value="'consistently improves robustness' (pilot: +5.8 / +12.3 points)", source=SRC),
    Claim("S2_strategic_not_noise", "SPN's strategic context beats a non-strategic context perturbed as much (rows "
          "moved as far, in random directions of the mutable features): SPN's accuracy minus that of SPN fed the "
          "non-strategic context > 0 beyond the noise margin, min over r in {1, 1.5} (P1)",
          s2_strategic_vs_nonstrategic, ">", {"full": 0.0}, kind="extension",
          paper_value="not stated: our test that the gain comes from the strategic prior (issue 69's control)",
          source="issue 69; docs/papers/strategic_pfn.md §5"),
    Claim("S2_spn_near_clean", "SPN's manipulated accuracy is within 3 points of clean accuracy (P1, r in {1, 1.5})",
          s2_gap, "<=", {"standard": 0.03, "full": 0.03}, kind="extension",
          paper_value="pilot (LR stand-in): 1.3 / 2.0 points", source=SRC,
          why="standard, seeds 0-2: SPN's manipulated accuracy stays 1.6 / 2.7 / 4.1 points below clean (needs <= 3) "
              "while it recovers 7.8 / 9.2 / 12.1 points over the base PFN (S2_spn_gain): SPN closes most of the gap "
              "on every seed and all of it on seeds 0 and 1; on seed 2, where the base PFN loses most (S1_bias_drop "
              "14.1 points), 4.1 points remain. Not blamed on training: no longer pretraining was measured for S2"),
    Claim("S3_no_harm", "with no manipulation (r=0) SPN equals the base PFN (|diff| <= 0.5 points)",
          s3_no_harm, "<=", {"quick": 0.005, "standard": 0.005, "full": 0.005}, kind="check",
          paper_value="D_s = D at r = 0 (by construction)",
          source="docs/papers/strategic_pfn.md §5 (S3, by construction)"),
    Claim("S4_structural", "the base PFN's gap shrinks by <= 30% from n_ctx=64 to 512 (bias is structural)",
          s4_gap_shrink, "<=", {"standard": 0.30, "full": 0.30}, kind="paper",
          why={"standard": "the shrink of the base PFN's clean-vs-manipulated gap from n_ctx 64 to 512 is a "
                           "difference of two small gaps and swings by seed: -0.31 / 0.14 / 0.005 on seeds 0-2 and "
                           "0.23 / 0.37 / -0.04 on development seeds 100-102 (SD 0.21, its noise margin). Seeds 0 and "
                           "2 are below the 0.30 bar beyond the margin (the gap does not shrink: structural); seed 1's "
                           "0.14 is within the margin, a tie"},
          paper_value="'irreducible structural prediction bias'", source=SRC),
    Claim("S4_spn_gap", "SPN's clean-vs-manipulated gap stays <= 3 points at every n_ctx in {64..512}",
          s4_spn_gap, "<=", {"standard": 0.03, "full": 0.03}, kind="paper",
          paper_value="(our threshold)", source="arXiv 2605.19662, abstract; docs/papers/strategic_pfn.md §5 (S4)"),
    Claim("S5_vs_classical", "SPN >= the best of LR/HistGBDT/MLP/strategic LR on >= 4/5 tasks at r=1, all under P1",
          s5_beats_classical, ">=", {"standard": 0.8, "full": 0.8}, kind="paper",
          why={"standard": "SPN beats the best classical learner on 5/5, 5/5 and 4/5 tasks (1.0 / 1.0 / 0.8), but "
                           "a share of five tasks moves in steps of 0.2 and varies with SD 0.23 over development seeds "
                           "100-102 (1.0 / 1.0 / 0.6): no seed clears the 0.8 bar by more than that noise margin, so "
                           "the five-task testbed cannot separate the two here"},
          paper_value="outperforms classical methods", source=SRC),
    Claim("S5_vs_equal_knowledge", "SPN is at least as accurate as the best classical learner given SPN's own "
          "knowledge (LR and HistGBDT fit on SPN's simulated strategic context), P1, r in {1, 1.5} (task-mean of the "
          "per-task gap >= 0 beyond the noise margin)",
          s5_equal_knowledge, ">=", {"full": 0.0}, kind="paper",
          control=Control("spn_nonstrategic_context", "SPN fed the non-strategic (random-direction) context, against "
                          "the same equal-knowledge learners", s5_equal_knowledge_control),
          details=s5_equal_knowledge_details,
          paper_value="outperforms classical tabular methods (equal-knowledge baselines: issue 69)", source=SRC),
    Claim("S5_credit_vs_equal_knowledge", "on the credit_like table SPN is at least as accurate as the best of LR / "
          "HistGBDT fit on SPN's simulated context (P1, r=1)",
          s5_equal_knowledge_credit, ">=", {"full": 0.0}, kind="paper",
          paper_value="outperforms classical tabular methods on credit data (issue 69)", source=SRC),
    Claim("S5_vs_strongest_p2", "under P2 (each rule faces responses to itself) the iterated SPN is at least as "
          "accurate as the strongest baseline (strategic LR, LR, HistGBDT, MLP) at r in {1, 1.5}",
          s5_vs_strongest_p2, ">=", {"standard": 0.0, "full": 0.0}, kind="paper",
          paper_value="outperforms classical methods (strategy-aware baseline: issue 34)", source=SRC,
          why={"standard": "the threshold-shifted strategic LR wins under P2: iterated SPN minus the best P2 baseline "
                           "is -7.7 / -13.7 / -18.0 points on seeds 0-2 (min over r in {1, 1.5}). With deterministic "
                           "agents who all move as far as r allows, the shifted LR's decisions on manipulated "
                           "rows equal plain LR's on clean rows (unit test "
                           "test_strategic_lr_keeps_clean_decisions_under_gaming), so it keeps LR's clean accuracy, "
                           "close to Bayes on these linear Gaussian tasks, while the iterated SPN, facing responses to "
                           "itself, recovers only part of the loss"}),
    Claim("S5_credit", "on the non-linear credit_like table SPN beats the base PFN under manipulation (P1, r=1)",
          s5_credit, ">", {"standard": 0.0, "full": 0.0}, kind="paper",
          paper_value="improves on real-world tabular data (credit scoring, §1)", source=SRC),
    Claim("S7_misspec_budget", "SPN built with a budget off by x1/2 or x2 still beats the base PFN (P1, r=1)",
          s7_misspec_budget, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="not stated: our robustness test of the abstract's 'robustness' (issue 34)", source=SRC),
    Claim("S7_misspec_cost", "SPN built with the wrong cost (mutable costs reversed) still beats the base PFN "
          "(P1, r=1)", s7_misspec_cost, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="not stated: our robustness test of the abstract's 'robustness' (issue 34)", source=SRC),
    Claim("S5_real_data", "on real data (breast cancer) SPN beats the base PFN under manipulation (r=1)",
          s5_real, ">", {"standard": 0.0, "full": 0.0}, kind="paper",
          paper_value="improves on real-world tabular data", source=SRC,
          why="standard, seeds 0-2: SPN - base PFN = +1.2 / -0.7 / +1.4 points (5 splits each). The breast-cancer "
              "classes are nearly separable on the 6 features used, so the base PFN loses little under manipulation "
              "at r=1 and the margin left for SPN is of the order of one test error in a split; on the harder, "
              "non-linear credit_like table SPN gains 7.0 / 8.3 / 6.7 points on every seed (S5_credit)"),
    Claim("S6_adaptive", "under P2 the iterated SPN (3 rounds) beats the base PFN by >= 2 points at r=1.5",
          s6_p2, ">=", {"standard": 0.02, "full": 0.02}, kind="paper",
          paper_value="(our threshold; pilot: +7.8 points for LR)",
          source="arXiv 2605.19662, abstract; docs/papers/strategic_pfn.md §5 (S6)"),
]
