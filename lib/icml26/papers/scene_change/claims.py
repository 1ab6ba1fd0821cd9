"""Claims of the note's §6 (VSCD, arXiv 2605.20821). The paper's tables were not available to the note, so no
paper numbers are quoted: C3-C5 mirror the direction of the paper's main and ablation tables, C1, C2 and C6
test mechanisms the method relies on."""

from __future__ import annotations

from icml26.claims import Claim

NO_TABLE = "paper tables not available to the note (§5); direction only"
TRAIN_MISS = ("at standard (48x48, 48 training pairs, 600 AdamW steps from scratch, 1 CPU thread, seed 0) none of the "
              "trained networks fires above the 0.5 threshold yet: vscd, siamese and top1 all predict empty masks "
              "(per-frame F1 0.211 each = the share of empty-GT test frames; threshold-free pixel AUROC 0.767 / "
              "0.781 / 0.782, loss still falling at 1.08). A 24-pair, 600-step probe gave vscd 0.231 vs siamese 0.204 "
              "(gap 0.027). The margin needs far longer training (the full scale, GPU) than a CPU standard run allows")
C6_MISS = ("AUROC 0.468 at standard (seed 0; 0.46-0.50 at quick): with a from-scratch encoder trained for 600 steps "
           "the 5x5 local softmax peaks are not yet tied to true correspondences, so C_sp carries no visibility "
           "signal (27.6% of candidate tokens are visible)")
C1_MISS = ("the direction holds but not the 1.5x margin: raw downsampled-frame matching gives 1.42x, 1.31x, 1.35x "
           "the same-index overlap at quick (seeds 0, 1, 2) and 1.35x at standard (seed 0), while the pose oracle "
           "reaches ~2x; a colour-histogram descriptor gets 1.48-1.70x. In our rooms the same-index overlap is "
           "already ~0.25-0.29 (independent random paths in a 6 x 4 m room, 80 deg field of view)")


def overlap_ratio(r):
    return r["overlap"]["top1"] / r["overlap"]["same_index"]


def union_gain(r):
    return r["overlap"]["topk_union"] - r["overlap"]["top1"]


def f1_gap(a, b):
    def metric(r):
        return r["methods"][a]["f1"] - r["methods"][b]["f1"]
    metric.__qualname__ = f"f1_gap_{a}_{b}"
    return metric


def c6_auroc(r):
    return r["c6_auroc"]


CLAIMS = [
    Claim("C1_matching_beats_same_index",
          "under unsynchronised camera paths, the top-1 reference found by descriptor matching (cosine of "
          "downsampled frames) has >= 1.5x the geometric view overlap of the same-index reference frame",
          metric=overlap_ratio, op=">=", threshold={"quick": 1.5, "standard": 1.5, "full": 1.5},
          expected_miss={"quick": C1_MISS, "standard": C1_MISS},
          paper_value="qualitative: same-index pairing fails under unsynchronised videos",
          source="§1 (problem setting) and §3.2; mechanism claim of the note"),
    Claim("C2_several_references_cover_more",
          "the union of the top-3 candidate references covers >= 0.10 more of the query view than the top-1",
          metric=union_gain, op=">=", threshold={"quick": 0.15, "standard": 0.15, "full": 0.10},
          paper_value="motivates |S_t|max > 1", source="§3.3 (candidate set); mechanism claim of the note"),
    Claim("C3_vscd_beats_siamese",
          "VSCDNet-mini beats a siamese image CD model (same blocks) fed the same-index reference, test F1 gap "
          ">= 0.10 on held-out rooms",
          metric=f1_gap("vscd", "siamese"), op=">=", threshold={"standard": 0.10, "full": 0.10},
          expected_miss={"standard": TRAIN_MISS},
          paper_value=NO_TABLE, source="main results table (synthetic test F1), not available"),
    Claim("C4_multi_reference_helps",
          "|S_t|max = 3 beats top-1 only (|S_t|max = 1) by >= 0.03 test F1",
          metric=f1_gap("vscd", "top1"), op=">=", threshold={"standard": 0.03, "full": 0.03},
          expected_miss={"standard": TRAIN_MISS},
          paper_value=NO_TABLE, source="hyper-parameter table (|S_t|max), not available"),
    Claim("C5_confidence_weighting_helps",
          "confidence-aware fusion (C_f * C_sp) beats a plain mean over candidates by >= 0.02 test F1",
          metric=f1_gap("vscd", "plain_mean"), op=">=", threshold={"full": 0.02},
          paper_value=NO_TABLE, source="module ablation table (w/o C_f, w/o C_sp), not available"),
    Claim("C6_patch_confidence_tracks_visibility",
          "the patch confidence C_sp predicts whether a query token's 3D point is visible in the candidate "
          "reference frame with AUROC >= 0.7",
          metric=c6_auroc, op=">=", threshold={"standard": 0.7, "full": 0.7},
          expected_miss={"standard": C6_MISS},
          paper_value="not reported (mechanism claim of the note)", source="§3.6 (patch confidence)"),
]
