"""Claims of VSCD (arXiv 2605.20821). The paper's result tables were not available to us (the arXiv HTML and the PMLR
PDF were found, but only their opening pages), so no paper numbers are quoted: C3-C5 test the direction of the
paper's main and ablation tables with margins of our own, C1, C1b and C6 test mechanisms the method relies on,
C2 is a fact of our generator. Sources cite the paper's sections or docs/papers/scene_change.md.

The headline C3 compares trained networks threshold-free: the mean over test frames with change of each network's
per-frame average precision (AP) of its logits, VSCDNet-mini against the best of the image-based (siamese, same-index
reference) and video-based (reversed-index) baselines; F1 at logit 0 (the paper's metric) is shown beside it. Its
negative control is VSCDNet with its alignment module removed (experiment.CONTROL). F1 at logit 0 alone cannot rank
networks that fire at different logits: when both index baselines predict empty masks, the old per-baseline F1 gaps
(C3_vscd_beats_siamese, C3b_vscd_beats_reversed_index, now extensions) read the same value.

C4-C5 compare trained networks with the mean F1 over test frames whose true mask is not empty: the paper's per-frame
mean F1 gives an empty prediction on an empty frame the score 1, so an always-empty predictor wins every frame
without change (its per-frame F1 is the share of such frames); on non-empty frames it scores 0. Each of them
requires that at least one of the two networks compared detects change at all (pixel AUROC of its logits).
"""

from __future__ import annotations

from icml26.claims import Claim, Control, Premise

NO_TABLE = "paper tables not available to us; direction only"
DETECTS = 0.75
"""Pixel AUROC above which a network is said to detect change (premise of C3-C5)."""


def overlap_ratio(r):
    return r["overlap"]["top1"] / r["overlap"]["same_index"]


def learned_overlap_ratio(r):
    return r["vscd_candidate_overlap"] / r["vscd_same_index_overlap"]


def union_gain(r):
    return r["overlap"]["topk_union"] - r["overlap"]["top1"]


def f1_gap(a, b):
    def metric(r):
        return r["methods"][a]["f1_nonempty"] - r["methods"][b]["f1_nonempty"]
    metric.__qualname__ = f"f1_nonempty_gap_{a}_{b}"
    return metric


def detects(a, b):
    def metric(r):
        return max(r["methods"][a]["pixel_auroc"], r["methods"][b]["pixel_auroc"])
    metric.__qualname__ = f"best_pixel_auroc_{a}_{b}"
    return Premise(f"{a}_or_{b}_detects_change",
                   f"{a} or {b} detects change at all: the better pixel AUROC of their test logits >= {DETECTS}",
                   metric=metric, op=">=", threshold=DETECTS)


C1_MISS = ("the same-index frame is a poor partner, but the training-free raw-pixel matcher recovers only part of the "
           "gap: at quick (8 rooms) the ratio is 1.74, 1.62, 1.73, 1.43, 1.54 on seeds 0-4, at standard (50 rooms) "
           "1.52, 1.59, 1.498 on seeds 0-2: the 1.5x margin is within reach of a search but not of this descriptor "
           "on every room draw (the pose oracle and a colour-histogram matcher are in the results as "
           "overlap.oracle_top1 and overlap.top1_histogram)")
C1B_MISS = ("the learned first candidate has 0.96, 0.98, 1.03x the same-index overlap (seeds 0-2): after 600 steps the "
            "Alignment Token's frame matching is no better than pairing by index, while the training-free raw-pixel "
            "top-1 reaches 1.52, 1.59, 1.50x on the same seeds (C1). The Alignment Token learns only through C_f = "
            "P_frame[t, s] (the candidate choice is not differentiable, notebook 2); the step count was not varied, so "
            "whether a different step count would find the partners is not measured")
GAP_MISS = ("{name}: {values} on seeds 0 and 1; on seed 2 the best pixel AUROC of the two networks is {auroc} < 0.75 "
            "(premise not met). Where the premise holds it is only 0.77: both networks detect change weakly, and "
            "VSCDNet-mini's learned matching picks first candidates no better than the same index (C1b: 0.96-1.03x), "
            "so the method has no better reference to compare against; where the premise holds the gap is negative "
            "or nil (the step count was not varied, so no miss is blamed on it)")
C6_MISS = ("AUROC 0.619, 0.634, 0.640 on seeds 0-2: C_sp carries visibility signal (well above 0.5) but under 0.7. At "
           "quick (30 steps, 8 rooms) it is already 0.629, 0.663, 0.666, 0.599, 0.657 on seeds 0-4: 20x the steps on "
           "more rooms moved the mean by about -0.01 (a comparison across scales, not a controlled "
           "measurement)")
C3_MISS = ("AP on changed frames: VSCDNet-mini 0.209 and 0.224 against the best baseline 0.219 (reversed index) and "
           "0.249 (siamese) on seeds 0 and 1; on seed 2 the best pixel AUROC is 0.738 < 0.75 (premise not met). Both "
           "kinds of network detect change weakly (AUROC 0.77 where the premise holds) and VSCDNet-mini's learned "
           "matching picks first candidates no better than the same index (C1b: 0.96-1.03x), so its fused reference "
           "holds no more than the baselines' do; without its alignment module (the control) the gap is -0.030 and "
           "-0.021 on the same seeds")
"""Whys of the misses, with their measurements (records of quick seeds 0-4 and standard seeds 0-2)."""


BASELINES = ("siamese", "reversed")
"""The image-based (same-index siamese) and video-based (reversed-index AOD) baselines of the headline claim."""


def _ap(r, name):
    return r["methods"][name]["ap_changed"]


def ap_gap_best(who="vscd"):
    """``who``'s AP on changed frames minus the best baseline's (the baselines present in the run)."""
    def metric(r):
        return _ap(r, who) - max(_ap(r, b) for b in BASELINES if b in r["methods"])
    metric.__qualname__ = f"ap_changed_gap_{who}_best_baseline"
    return metric


def ap_details(r):
    out = {}
    for name in ("vscd", *BASELINES, "no_align", "top1", "plain_mean", "oracle"):
        m = r["methods"].get(name)
        if m is not None:
            out[f"ap_{name}"] = m["ap_changed"]
            out[f"f1_nonempty_{name}"] = m["f1_nonempty"]
    if "ap_prevalence" in r:
        out["ap_constant_score"] = r["ap_prevalence"]
    return out


def best_auroc(r):
    return max(r["methods"][n]["pixel_auroc"] for n in ("vscd", *BASELINES) if n in r["methods"])


QUOTE = "Our approach achieves state-of-the-art performance against strong image- and video-based baselines"
def c6_auroc(r):
    return r["c6_auroc"]


CLAIMS = [
    Claim("C3_beats_best_baseline",
          "VSCDNet-mini's average precision on test frames with change (mean per-frame AP of its logits, held-out "
          "rooms) exceeds the best of the image-based siamese (same-index reference) and the video-based "
          "reversed-index baselines (same frozen encoder, head, decoder, steps)",
          metric=ap_gap_best(), op=">", threshold={"standard": 0.0, "full": 0.0}, kind="paper", headline=True,
          quote=QUOTE, control=Control("no_alignment", "VSCDNet with its alignment module removed (no frame "
                                       "matching, no patch warping, no fusion: the same-index reference), trained "
                                       "from its own init and batch order, in VSCDNet's place",
                                       ap_gap_best("no_align")),
          requires=Premise("a_network_detects_change", f"VSCDNet-mini or a baseline detects change at all: the best "
                           f"pixel AUROC of their test logits >= {DETECTS}", best_auroc, ">=", DETECTS),
          details=ap_details, paper_value=NO_TABLE, why={"standard": C3_MISS},
          source="abstract; main results table (image- and video-based baselines)"),
    Claim("C1_matching_beats_same_index",
          "under unsynchronised camera paths, the top-1 reference found by descriptor matching (cosine of "
          "downsampled frames, no training) has >= 1.5x the geometric view overlap of the same-index reference frame",
          metric=overlap_ratio, op=">=", threshold={"standard": 1.5, "full": 1.5}, kind="extension",
          why={"standard": C1_MISS},
          paper_value="qualitative: same-index pairing fails on unsynchronised videos",
          source="ours (a training-free matcher); motivated by §1 (problem setting), §3.2; "
                 "docs/papers/scene_change.md"),
    Claim("C1b_learned_matching_finds_partners",
          "VSCDNet-mini's temporal matching, learned from the change masks alone, picks as its first candidate a "
          "reference frame with >= 1.5x the view overlap of the same-index frame (test rooms)",
          metric=learned_overlap_ratio, op=">=", threshold={"standard": 1.5, "full": 1.5}, kind="paper",
          why={"standard": C1B_MISS},
          paper_value="qualitative: temporal matching is learned implicitly from change-mask supervision",
          source="abstract; §3.2-3.3 (frame-level alignment, candidate set)"),
    Claim("C2_several_references_cover_more",
          "the union of the top-3 candidate references covers >= 0.10 more of the query view than the top-1",
          metric=union_gain, op=">=", threshold={"quick": 0.10, "standard": 0.10, "full": 0.10}, kind="check",
          paper_value="motivates |S_t|max > 1", source="§3.3 (candidate set); a fact of our generator"),
    Claim("C3_vscd_beats_siamese",
          "VSCDNet-mini beats a siamese change detector (same frozen encoder, head and decoder) fed the same-index "
          "reference by >= 0.10 F1 on test frames with change (held-out rooms)",
          metric=f1_gap("vscd", "siamese"), op=">=", threshold={"standard": 0.10, "full": 0.10}, kind="extension",
          requires=detects("vscd", "siamese"),
          why={"standard": GAP_MISS.format(name="vscd - siamese", values="-0.154 and +0.000", auroc="0.738")},
          paper_value=NO_TABLE, source="main results table (image-based baselines); §4 of the docs page"),
    Claim("C3b_vscd_beats_reversed_index",
          "VSCDNet-mini beats the video baseline that pairs query frame t with reference frame T-1-t (a reversed "
          "trajectory) by >= 0.10 F1 on test frames with change",
          metric=f1_gap("vscd", "reversed"), op=">=", threshold={"standard": 0.10, "full": 0.10}, kind="extension",
          requires=detects("vscd", "reversed"),
          why={"standard": GAP_MISS.format(name="vscd - reversed", values="-0.092 and +0.000", auroc="0.727")},
          paper_value=NO_TABLE, source="main results table (video-based AOD baselines); §4 of the docs page"),
    Claim("C4_multi_reference_helps",
          "|S_t|max = 3 beats top-1 only (|S_t|max = 1) by >= 0.03 F1 on test frames with change",
          metric=f1_gap("vscd", "top1"), op=">=", threshold={"standard": 0.03, "full": 0.03}, kind="paper",
          requires=detects("vscd", "top1"),
          why={"standard": GAP_MISS.format(name="|S_t|max 3 - 1", values="-0.161 and -0.059", auroc="0.746")},
          paper_value=NO_TABLE, source="hyper-parameter table (|S_t|max)"),
    Claim("C5_confidence_weighting_helps",
          "confidence-aware fusion (C_f * C_sp) beats a plain mean over the candidates by >= 0.02 F1 on test "
          "frames with change",
          metric=f1_gap("vscd", "plain_mean"), op=">=", threshold={"standard": 0.02, "full": 0.02}, kind="paper",
          requires=detects("vscd", "plain_mean"),
          why={"standard": GAP_MISS.format(name="C_f * C_sp - plain mean", values="-0.141 and -0.000", auroc="0.747")},
          paper_value=NO_TABLE, source="module ablation table (w/o C_f, w/o C_sp)"),
    Claim("C6_patch_confidence_tracks_visibility",
          "the patch confidence C_sp predicts whether a query token's 3D point is visible in the candidate "
          "reference frame with AUROC >= 0.7",
          metric=c6_auroc, op=">=", threshold={"standard": 0.7, "full": 0.7}, kind="extension",
          why={"standard": C6_MISS},
          paper_value="not reported (a mechanism the fusion relies on)",
          source="ours (a mechanism §3.6's fusion relies on; the paper reports no such number)"),
]
