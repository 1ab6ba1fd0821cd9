"""Claims of APO (arXiv 2510.04142) as adapted to the drifting-teachers toy (docs/papers/apo_alignment.md §5).

All accuracies are test-set averages over findings, averaged over the run's seeds (``summary``).
The planned claim asked for "non-decreasing in >= 3 of 4 consecutive pairs" of a 4-point drift grid, which has only
3 pairs; claim ``gain_grows_with_drift`` asks for all 3.
"""


from __future__ import annotations

from icml26.claims import Claim

# Claim 2 is not checked at quick: there the tiny greedy-decoded stage-1 student varies across seeds.
# Measured (quick, greedy): stage 1 0.877 / 0.802 / 0.757 accuracy (best source 0.818 / 0.835 / 0.805) and
# hallucination 0.55x / 0.66x / 1.25x the sources' mean (seeds 0/1/2): mostly an implicit majority vote.

# Stage-2 (lr, beta) at standard: every objective tuned on the same grid, lr {1e-5, 3e-5, 1e-4} x beta {0.1, 0.5},
# by validation accuracy on a separate selection seed (experiment.SELECTIONS). Chosen: APO (1e-4, 0.5), pairwise
# (1e-5, 0.5), DPO random (3e-5, 0.5), DPO divergent (1e-5, 0.5), SFT consensus lr 3e-5, SFT best lr 1e-5.
# Measured at standard by the v0.1.0 code (seed 0 -> internal seeds 0/1000/2000 mean): sources best 0.802,
# consensus 0.879, stage 1 0.891
# (halluc. 0.102 vs sources' 0.246); stage 2: APO 0.449 (well-formed 0.50; per seed 0.444/0.202/0.701),
# pairwise 0.874, DPO random 0.888, DPO divergent 0.881, SFT consensus 0.896, SFT best 0.896, APO at the planned
# setting (1e-4, 0.1) 0.018 (well-formed 0.02). Drift sweep (1 seed): gap APO - stage 1 = -0.171/-0.171/-0.063/-0.550.
_S2 = ("evaluation seeds 0-2: stage-1 hallucination / the sources' mean = 0.42 / 0.58 / 0.68 (needs >= 0.8) and "
       "stage 1 beats the best source by 0.080 / 0.045 / 0.014. At the <=6-min standard budget (1000 train cases, "
       "250 stage-1 steps) the greedy stage-1 student is the mode of the sources' mixture, an implicit majority "
       "vote: in the v0.1.0 run (seed 0, internal seeds 0/1000/2000) accuracy 0.891 vs best source 0.802, "
       "hallucination 0.102 vs "
       "the sources' mean 0.246. With the earlier 4x budget (2000 "
       "cases, 600 steps) it copied one source's style instead and passed narrowly (ratio 1.01, 0.0011 below the "
       "best source), so this claim depends on the training budget in our toy")
_APO = ("stage-2 APO does not improve on stage 1 on any evaluation seed (APO - stage 1 = -0.32 / -0.45 / -0.51 on "
        "seeds 0-2). In the v0.1.0 run that chose the settings (seed 0), tuned on the shared grid (lr 1e-4, "
        "beta 0.5 chosen on a validation split, 0.889 "
        "there), it collapses on 2 of 3 internal seeds: test accuracy 0.444/0.202/0.701 vs stage 1 "
        "0.904/0.877/0.892 (well-formed 0.48/0.23/0.78), mean 0.449 vs 0.891; the planned setting (lr 1e-4, beta 0.1) "
        "gives 0.018 (well-formed 0.02). Every baseline's tuned point (small lr) stays near stage 1 (0.874-0.896): "
        "the greedy stage-1 student already is the consensus (0.879), so there is nothing left for t+ to teach")


def consensus_margin(r) -> float:
    """Consensus accuracy minus the best single source's accuracy (claim 1)."""
    s = r["summary"]
    return s["consensus_acc"] - s["best_teacher_acc"]


def hallucination_inherited(r) -> float:
    """Stage-1 hallucination rate over the sources' mean hallucination rate (claim 2a)."""
    s = r["summary"]
    return s["stage1_hall"] / max(s["mean_teacher_hall"], 1e-9)


def stage1_deficit(r) -> float:
    """Best source accuracy minus stage-1 accuracy (claim 2b; > 0 means stage 1 is below)."""
    s = r["summary"]
    return s["best_teacher_acc"] - s["stage1_acc"]


def apo_over_stage1(r) -> float:
    s = r["summary"]
    return s["methods"]["apo"]["accuracy"] - s["stage1_acc"]


def apo_over_best_teacher(r) -> float:
    s = r["summary"]
    return s["methods"]["apo"]["accuracy"] - s["best_teacher_acc"]


def pl_over_dpo(r) -> float:
    m = r["summary"]["methods"]
    return m["apo"]["accuracy"] - m["dpo_random"]["accuracy"]


def pl_over_pairwise(r) -> float:
    m = r["summary"]["methods"]
    return m["apo"]["accuracy"] - m["pairwise"]["accuracy"]


def drift_monotone_pairs(r) -> float:
    """How many consecutive drift values have a non-decreasing gap APO - stage 1 (claim 5a)."""
    g = r["drift_sweep"]["gap"]
    return float(sum(b >= a for a, b in zip(g[:-1], g[1:], strict=True)))


def drift_gap_high(r) -> float:
    """Smallest gap APO - stage 1 at drift >= 0.2 (claim 5b)."""
    sw = r["drift_sweep"]
    return min(g for d, g in zip(sw["drift"], sw["gap"], strict=True) if d >= 0.2 - 1e-9)

_PL_DPO = ("evaluation seeds 0-2: APO - single-negative DPO = -0.31 / -0.47 / -0.51. In the v0.1.0 run (seed "
        "0): APO (tuned) "
        "0.449 vs single-negative DPO (tuned) 0.888, -0.439: APO's best validation point (lr "
        "1e-4, beta 0.5) collapses on 2 of 3 test seeds while DPO's (lr 3e-5) barely moves the stage-1 model "
        '(0.891)')
_PL_PAIR = ('evaluation seeds 0-2: APO - pairwise DPO = -0.30 / -0.47 / -0.56. v0.1.0 run (seed 0): APO (tuned) 0.449 '
        'vs pairwise DPO (tuned, lr 1e-5, beta 0.5) 0.874, -0.425; same cause as '
        'pl_beats_single_negative_dpo')
_DRIFT = ('evaluation seeds 0-2: 1 / 1 / 2 of 3 pairs non-decreasing (needs 3). v0.1.0 run (seed 0): '
        'gap APO - stage 1 at d = 0/.1/.2/.3 is -0.171/-0.171/-0.063/-0.550 (1 '
        'seed, APO at its tuned lr 1e-4, beta 0.5): stage 2 never helps here, and its collapse varies by seed'
        ' more than by drift')
_DRIFT_POS = ('evaluation seeds 0-2: gap APO - stage 1 under drift = -0.42 / -0.51 / -0.43. v0.1.0 run (seed 0): '
              '-0.063 at d=0.2 and -0.550 at d=0.3 (1 seed); see gain_grows_with_drift')


CLAIMS = [
    Claim("consensus_beats_best_source",
          "per-finding majority consensus of the sources is at least 3 points more accurate than the best source",
          consensus_margin, ">=", {"quick": 0.03, "standard": 0.03, "full": 0.03}, kind="check",
          paper_value="APO 0.78 vs best source (GPT-5) 0.75 avg accuracy; consensus is the premise",
          source="abstract; MS-CXR-T table; docs/papers/apo_alignment.md §3.3"),
    Claim("sft_inherits_hallucinations",
          "naive multi-source SFT keeps >= 0.8x the sources' mean hallucination rate",
          hallucination_inherited, ">=", {"standard": 0.8, "full": 0.8}, kind="paper",
          why={"standard": _S2},
          paper_value="qualitative: the drift-biased target absorbs the union of biases",
          source="abstract; project page"),
    Claim("sft_below_best_source",
          "naive multi-source SFT is less accurate on average than the best source",
          stage1_deficit, ">", {"standard": 0.0, "full": 0.0}, kind="paper",
          why={"standard": _S2},
          paper_value="qualitative", source="abstract; project page"),
    Claim("apo_beats_stage1",
          "stage-2 APO improves average accuracy over the stage-1 model by >= 5 points",
          apo_over_stage1, ">=", {"quick": 0.05, "standard": 0.05, "full": 0.05}, kind="paper",
          why={
              "quick": "with the planned beta=0.1, lr=1e-4 (60 steps; no grid at quick) the summed-log-ratio PL step "
                       "collapses the tiny target (likelihood displacement: log pi(t+) falls too): accuracy "
                       "0.877/0.802/0.757 -> 0.047/0.000/0.497, well-formed 1.00 -> 0.05/0.00/0.55 (seeds 0/1/2), "
                       "APO - stage 1 = -0.830/-0.802/-0.260",
              "standard": _APO + "; APO - stage 1 = -0.442"},
          paper_value="APO 0.78 avg (stage-1 not reported numerically)", source="MS-CXR-T table"),
    Claim("apo_beats_best_source",
          "after stage 2 the target beats the best source by >= 1 point on average (seed mean)",
          apo_over_best_teacher, ">=", {"standard": 0.01, "full": 0.01}, kind="paper",
          why={"standard": _APO + "; APO - best source = -0.24 / -0.40 / -0.50 on seeds 0-2"},
          paper_value="0.78 vs 0.75 (GPT-5)", source="MS-CXR-T table"),
    Claim("pl_beats_single_negative_dpo",
          "the multi-negative PL objective beats single-negative DPO (random source) by >= 2 points",
          pl_over_dpo, ">=", {"standard": 0.02, "full": 0.02}, kind="paper",
          why={"standard": _PL_DPO},
          paper_value="not reported (our ablation)",
          source="abstract (multi-negative PL); docs/papers/apo_alignment.md §4"),
    Claim("pl_not_worse_than_pairwise",
          "the multi-negative PL objective is not worse than pairwise-expanded DPO by more than 1 point",
          pl_over_pairwise, ">=", {"standard": -0.01, "full": -0.01}, kind="paper",
          why={"standard": _PL_PAIR},
          paper_value="not reported (released recipe is pairwise)",
          source="APO-Qwen2.5.sh (a DPO trainer); docs/papers/apo_alignment.md §4"),
    Claim("gain_grows_with_drift",
          "the gap APO - stage 1 is non-decreasing across the 3 consecutive steps of d in {0, .1, .2, .3}",
          drift_monotone_pairs, ">=", {"standard": 3, "full": 3}, kind="paper",
          why={"standard": _DRIFT},
          paper_value="qualitative: drift is turned into constraints",
          source="abstract; docs/papers/apo_alignment.md §2"),
    Claim("gain_positive_under_drift",
          "the gap APO - stage 1 is positive at every drift d >= 0.2",
          drift_gap_high, ">", {"standard": 0.0, "full": 0.0}, kind="paper",
          why={"standard": _DRIFT_POS},
          paper_value="qualitative", source="abstract; docs/papers/apo_alignment.md §2"),
]
