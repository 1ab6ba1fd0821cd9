"""Claims of VSCD (arXiv 2605.20821). The paper's result tables were not available to us (the arXiv HTML and the PMLR
PDF were found, but only their opening pages), so no paper numbers are quoted: C3-C5 test the direction of the
paper's main and ablation tables with margins of our own, C1, C1b and C6 test mechanisms the method relies on,
C2 is a fact of our generator. Sources cite the paper's sections or docs/papers/scene_change.md.

C3-C5 compare trained networks with the mean F1 over test frames whose true mask is not empty: the paper's per-frame
mean F1 gives an empty prediction on an empty frame the score 1, so an always-empty predictor wins every frame
without change (its per-frame F1 is the share of such frames); on non-empty frames it scores 0. Each of them
requires that at least one of the two networks compared detects change at all (pixel AUROC of its logits).
"""

from __future__ import annotations

from icml26.claims import Claim, Premise

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


C1_MISS = ("the same-index frame does fail (it sees 0.42 of the query view on seed 3), but the training-free raw-pixel "
           "matcher recovers only part of the gap: at quick (8 rooms) the ratio is 1.74, 1.62, 1.73, 1.43, 1.54 on "
           "seeds 0-4, at standard (50 rooms) 1.52, 1.59, 1.498 on seeds 0-2, and seed 3 stays at 1.43 over 50 rooms "
           "(top-1 0.596 vs same-index 0.416), so more rooms do not lift it; the pose oracle reaches 0.739 (1.78x) "
           "and a colour-histogram matcher 0.634 (1.52x) on those rooms: the 1.5x margin is within reach of a search "
           "but not of this descriptor on every room draw")
C1B_MISS = ("the learned first candidate has 1.00, 1.04, 1.12x the same-index overlap (seeds 0-2): after 600 steps the "
            "Alignment Token's frame matching is no better than pairing by index, while the training-free raw-pixel "
            "top-1 reaches 1.52, 1.59, 1.50x on the same seeds (C1). The Alignment Token learns only through C_f = "
            "P_frame[t, s] (the candidate choice is not differentiable, notebook 2); no longer run was made, so "
            "whether more training would find the partners is not measured")
GAP_MISS = ("{name}: {values} on seeds 0 and 1; on seed 2 the best pixel AUROC of the two networks is 0.742 < 0.75 "
            "(premise not met). Where the premise holds it is only 0.77: both networks detect change weakly, and "
            "VSCDNet-mini's learned matching picks first candidates no better than the same index (C1b: 1.00-1.12x), "
            "so the method has no better reference to compare against; the sign of the gap changes between seeds "
            "(no run at more steps was made, so undertraining is not established)")
C6_MISS = ("AUROC 0.628, 0.660, 0.651 on seeds 0-2: C_sp carries visibility signal (well above 0.5) but under 0.7. At "
           "quick (30 steps, 8 rooms) it is already 0.635, 0.648, 0.665, 0.589, 0.657 on seeds 0-4, so 20x the steps "
           "moved the mean by about +0.01: training length is not the lever here. The frozen encoder finds the true "
           "token within one token for 0.64 of visible tokens (pretraining log), which bounds how peaked and how "
           "correct the 5x5 local softmax can be")
"""Whys of the misses, with their measurements (records of quick seeds 0-4, standard seeds 0-2, and the standard
data of seed 3 for C1)."""


def c6_auroc(r):
    return r["c6_auroc"]


CLAIMS = [
    Claim("C1_matching_beats_same_index",
          "under unsynchronised camera paths, the top-1 reference found by descriptor matching (cosine of "
          "downsampled frames, no training) has >= 1.5x the geometric view overlap of the same-index reference frame",
          metric=overlap_ratio, op=">=", threshold={"standard": 1.5, "full": 1.5}, kind="paper",
          why={"standard": C1_MISS},
          paper_value="qualitative: same-index pairing fails on unsynchronised videos",
          source="§1 (problem setting), §3.2 (frame-level alignment); docs/papers/scene_change.md (C1)"),
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
          metric=f1_gap("vscd", "siamese"), op=">=", threshold={"standard": 0.10, "full": 0.10}, kind="paper",
          requires=detects("vscd", "siamese"),
          why={"standard": GAP_MISS.format(name="vscd - siamese", values="-0.157 and +0.074")},
          paper_value=NO_TABLE, source="main results table (image-based baselines); §4 of the docs page"),
    Claim("C3b_vscd_beats_reversed_index",
          "VSCDNet-mini beats the video baseline that pairs query frame t with reference frame T-1-t (a reversed "
          "trajectory) by >= 0.10 F1 on test frames with change",
          metric=f1_gap("vscd", "reversed"), op=">=", threshold={"standard": 0.10, "full": 0.10}, kind="paper",
          requires=detects("vscd", "reversed"),
          why={"standard": GAP_MISS.format(name="vscd - reversed", values="-0.126 and +0.074")},
          paper_value=NO_TABLE, source="main results table (video-based AOD baselines); §4 of the docs page"),
    Claim("C4_multi_reference_helps",
          "|S_t|max = 3 beats top-1 only (|S_t|max = 1) by >= 0.03 F1 on test frames with change",
          metric=f1_gap("vscd", "top1"), op=">=", threshold={"standard": 0.03, "full": 0.03}, kind="paper",
          requires=detects("vscd", "top1"),
          why={"standard": GAP_MISS.format(name="|S_t|max 3 - 1", values="-0.146 and +0.009")},
          paper_value=NO_TABLE, source="hyper-parameter table (|S_t|max)"),
    Claim("C5_confidence_weighting_helps",
          "confidence-aware fusion (C_f * C_sp) beats a plain mean over the candidates by >= 0.02 F1 on test "
          "frames with change",
          metric=f1_gap("vscd", "plain_mean"), op=">=", threshold={"standard": 0.02, "full": 0.02}, kind="paper",
          requires=detects("vscd", "plain_mean"),
          why={"standard": GAP_MISS.format(name="C_f * C_sp - plain mean", values="-0.115 and +0.065 (holds)")},
          paper_value=NO_TABLE, source="module ablation table (w/o C_f, w/o C_sp)"),
    Claim("C6_patch_confidence_tracks_visibility",
          "the patch confidence C_sp predicts whether a query token's 3D point is visible in the candidate "
          "reference frame with AUROC >= 0.7",
          metric=c6_auroc, op=">=", threshold={"standard": 0.7, "full": 0.7}, kind="paper",
          why={"standard": C6_MISS},
          paper_value="not reported (a mechanism the fusion relies on)", source="§3.6 (patch confidence)"),
]
