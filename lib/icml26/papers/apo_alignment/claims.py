"""Claims of APO (arXiv 2510.04142) as adapted to the drifting-sources toy (docs/papers/apo_alignment.md §5).

All accuracies are test-set averages over findings of one evaluation seed's world (``summary``). Every learned
model is decoded twice: by sampling at temperature 1 (the claims without a suffix) and greedily (``_greedy``).
The Bayes ceilings of the student's view (public evidence only) and of the sources' pooled view (public and
private evidence) are in ``summary`` beside every accuracy. Stage-2 methods are compared at their own settings
(``tuned`` on development seeds 100-101, ``experiment.SELECTIONS``) and, for the objective comparisons, also at
one ``shared`` setting. The planned claim asked for "non-decreasing in >= 3 of 4 consecutive pairs" of the grid
d in {0, .1, .2, .3}; to fit the CPU budget the sweep is d in {0, 0.2, 0.4} and ``gain_grows_with_drift`` asks
for both of its steps.
"""


from __future__ import annotations

from icml26.claims import Claim

# why texts (standard): written from the recorded evaluation seeds 0-2 (results/standard.jsonl).
_UNDER = ("At the standard budget (200 stage-1 steps on 2 shared CPU cores) stage 1 has not learned the trajectory "
          "format under sampling: quick seed 0 stage 1 is 0.209 accurate sampled (well-formed 0.34) and 0.555 greedy "
          "(well-formed 0.65), against a student Bayes ceiling of 0.845. Measured on development seed 100 with 3x "
          "the stage-1 steps (600): stage 1 0.662 sampled (well-formed 0.98) / 0.839 greedy (ceiling 0.851), and "
          "APO 0.713 sampled (+0.051) / 0.830 greedy (-0.009), DPO random 0.705 / 0.830, pairwise 0.707 / 0.830: "
          "with a trained stage 1 the sampled gain appears, while greedy stage 1 already sits at the student's "
          "ceiling and leaves nothing to gain")
_PREF = ("the plain preference objectives can only take small steps: on the development seeds every one of them "
         "collapses at lr >= 1e-4 (validation accuracy 0.00-0.23) and picks the smallest grid lr 3e-5 (beta 0.5), "
         "where the objectives barely differ")
WHY: dict[str, str] = {
    "apo_beats_stage1": "APO - stage 1 (sampled) = -0.094 / -0.222 / -0.031 on seeds 0-2 (needs >= 0.05). " + _UNDER,
    "apo_beats_stage1_greedy": "APO - stage 1 (greedy) = -0.093 / -0.096 / -0.009 on seeds 0-2. " + _UNDER,
    "apo_beats_best_source": "APO - best source (sampled) = -0.688 / -0.614 / -0.400 on seeds 0-2: sampled "
                             "trajectories of the under-trained target are mostly malformed (scored wrong). " + _UNDER,
    "apo_beats_best_source_greedy": "APO - best source (greedy) = -0.340 / -0.024 / +0.026 on seeds 0-2 (1 of 3 "
                                    "passes): the student's Bayes ceiling is only ~7 points above the best source "
                                    "(0.85 vs 0.78 on dev seed 100), and stage 1 does not reach it on seed 0. "
                                    + _UNDER,
    "pl_beats_single_negative_dpo": "APO - single-negative DPO (sampled) = -0.020 / -0.079 / -0.024 on seeds 0-2: "
                                    + _PREF + "; with 3x stage-1 steps (dev seed 100) +0.008",
    "pl_beats_single_negative_dpo_greedy": "APO - single-negative DPO (greedy) = -0.020 / -0.082 / 0.000 on seeds "
                                           "0-2: " + _PREF + "; with 3x stage-1 steps (dev seed 100) both 0.830",
    "pl_beats_single_negative_dpo_shared": "at the shared setting (3e-5, 0.5), which is also both objectives' tuned "
                                           "setting, APO - DPO = -0.020 / -0.079 / -0.024 on seeds 0-2: " + _PREF,
    "pl_not_worse_than_pairwise_greedy": "APO - pairwise DPO (greedy) = +0.010 / -0.081 / 0.000 on seeds 0-2 (2 of "
                                         "3 pass): seed 1's APO run loses 8 points of greedy accuracy that pairwise "
                                         "keeps; " + _PREF,
    "sft_inherits_hallucinations_greedy": "stage-1 hallucination (greedy) / sources' mean = 1.73 / 0.50 / 0.54 on "
                                          "seeds 0-2 (needs >= 0.8; 1 of 3): greedy decoding of the sources' mixture "
                                          "is close to a majority vote, which removes most of the sources' "
                                          "independent hallucinations; under sampling the ratio is 3.36 / 2.59 / "
                                          "2.18 (the sampled claim holds)",
    "sft_below_best_source_greedy": "best source - stage 1 (greedy) = +0.248 / -0.072 / -0.035 on seeds 0-2 (1 of "
                                    "3): greedy stage 1 beats the best source on seeds 1 and 2 (an implicit majority "
                                    "vote) and is below it on seed 0, where its format is not yet learned",
    "gain_grows_with_drift": "non-decreasing steps of the gap APO - stage 1 (sampled) over d = 0 / 0.2 / 0.4: 2 / 1 "
                             "/ 1 of 2 on seeds 0-2: stage 2 does not help at any drift (see "
                             "gain_positive_under_drift), so the gap's order is set by noise between the three "
                             "separately trained stage-1 models",
    "gain_positive_under_drift": "smallest gap APO - stage 1 (sampled) at d >= 0.2: -0.094 / -0.222 / -0.043 on "
                                 "seeds 0-2. " + _UNDER,
    "apo_robust_to_drift": "APO (sampled) at d = 0.4 minus at d = 0: +0.021 / -0.104 / +0.159 on seeds 0-2 (2 of 3 "
                           "pass): the drift does not move the Bayes ceilings or the consensus (0.91 at every d), "
                           "and the swing of +-0.1-0.16 between seeds is the variance of separately trained, "
                           "under-trained stage-1 models rather than an effect of drift",
}


def _acc(r, obj, dec, which="tuned"):
    return r["summary"]["methods"][obj][which][dec]["accuracy"]


def consensus_margin(r) -> float:
    """Consensus accuracy minus the best single source's accuracy (a fact of the generator)."""
    s = r["summary"]
    return s["consensus_acc"] - s["best_teacher_acc"]


def pooled_over_student_ceiling(r) -> float:
    """Bayes ceiling of the sources' pooled view minus that of the student's view (the sources know more)."""
    s = r["summary"]
    return s["ceiling_pooled"] - s["ceiling_student"]


def best_model_over_student_ceiling(r) -> float:
    """The best learned model's accuracy (any objective, setting, decoder) minus the student's Bayes ceiling."""
    s = r["summary"]
    accs = [s[f"stage1_acc_{d}"] for d in ("sampled", "greedy")]
    accs += [v[d]["accuracy"] for m in s["methods"].values() for v in m.values() for d in v]
    return max(accs) - s["ceiling_student"]


def hallucination_inherited(dec):
    def metric(r) -> float:
        """Stage-1 hallucination rate over the sources' mean hallucination rate."""
        s = r["summary"]
        return s[f"stage1_hall_{dec}"] / max(s["mean_teacher_hall"], 1e-9)
    return metric


def stage1_deficit(dec):
    def metric(r) -> float:
        """Best source accuracy minus stage-1 accuracy (> 0: stage 1 is below)."""
        s = r["summary"]
        return s["best_teacher_acc"] - s[f"stage1_acc_{dec}"]
    return metric


def apo_over_stage1(dec):
    def metric(r) -> float:
        return _acc(r, "apo", dec) - r["summary"][f"stage1_acc_{dec}"]
    return metric


def apo_over_best_teacher(dec):
    def metric(r) -> float:
        return _acc(r, "apo", dec) - r["summary"]["best_teacher_acc"]
    return metric


def pl_over(baseline, dec, which="tuned"):
    def metric(r) -> float:
        return _acc(r, "apo", dec, which) - _acc(r, baseline, dec, which)
    return metric


def drift_monotone_pairs(r) -> float:
    """How many consecutive drift values have a non-decreasing gap APO - stage 1 (sampled decoding)."""
    g = r["drift_sweep"]["gap_sampled"]
    return float(sum(b >= a for a, b in zip(g[:-1], g[1:], strict=True)))


def drift_gap_high(r) -> float:
    """Smallest gap APO - stage 1 (sampled) at drift >= 0.2."""
    sw = r["drift_sweep"]
    return min(g for d, g in zip(sw["drift"], sw["gap_sampled"], strict=True) if d >= 0.2 - 1e-9)


def apo_drift_drop(r) -> float:
    """APO accuracy (sampled) at the largest drift minus at no drift (robustness: near 0 or above)."""
    sw = r["drift_sweep"]
    i0, i1 = sw["drift"].index(min(sw["drift"])), sw["drift"].index(max(sw["drift"]))
    return sw["apo_sampled"][i1] - sw["apo_sampled"][i0]


_DEC_TEXT = {"sampled": "sampled at temperature 1", "greedy": "decoded greedily"}
_SUFFIX = {"sampled": "", "greedy": "_greedy"}


def _thr(value, scales=("standard", "full")):
    return {s: value for s in scales}


def _why(cid):
    return {"standard": WHY[cid]} if cid in WHY else None


def _decoder_claims(dec):
    sfx, txt = _SUFFIX[dec], _DEC_TEXT[dec]
    out = [
        Claim(f"sft_inherits_hallucinations{sfx}",
              f"naive multi-source SFT ({txt}) keeps >= 0.8x the sources' mean hallucination rate",
              hallucination_inherited(dec), ">=", _thr(0.8), kind="paper",
              why=_why(f"sft_inherits_hallucinations{sfx}"),
              paper_value="qualitative: the drift-biased target absorbs the union of biases",
              source="abstract; project page"),
        Claim(f"sft_below_best_source{sfx}",
              f"naive multi-source SFT ({txt}) is less accurate on average than the best source",
              stage1_deficit(dec), ">", _thr(0.0), kind="paper", why=_why(f"sft_below_best_source{sfx}"),
              paper_value="qualitative", source="abstract; project page"),
        Claim(f"apo_beats_stage1{sfx}",
              f"stage-2 APO ({txt}) improves average accuracy over the stage-1 model by >= 5 points",
              apo_over_stage1(dec), ">=", _thr(0.05), kind="paper", why=_why(f"apo_beats_stage1{sfx}"),
              paper_value="APO 0.78 avg (stage-1 not reported numerically)", source="MS-CXR-T table"),
        Claim(f"apo_beats_best_source{sfx}",
              f"after stage 2 the target ({txt}) beats the best source by >= 1 point on average",
              apo_over_best_teacher(dec), ">=", _thr(0.01), kind="paper", why=_why(f"apo_beats_best_source{sfx}"),
              paper_value="0.78 vs 0.75 (GPT-5)", source="MS-CXR-T table"),
        Claim(f"pl_beats_single_negative_dpo{sfx}",
              f"the multi-negative PL objective beats single-negative DPO (random source) by >= 2 points ({txt}, "
              "each at its tuned setting)",
              pl_over("dpo_random", dec), ">=", _thr(0.02), kind="paper",
              why=_why(f"pl_beats_single_negative_dpo{sfx}"), paper_value="not reported (our ablation)",
              source="abstract (multi-negative PL); docs/papers/apo_alignment.md §4"),
        Claim(f"pl_not_worse_than_pairwise{sfx}",
              f"the multi-negative PL objective is not worse than pairwise-expanded DPO by more than 1 point ({txt}, "
              "each at its tuned setting)",
              pl_over("pairwise", dec), ">=", _thr(-0.01), kind="paper",
              why=_why(f"pl_not_worse_than_pairwise{sfx}"),
              paper_value="not reported (released recipe is pairwise)",
              source="APO-Qwen2.5.sh (a DPO trainer); docs/papers/apo_alignment.md §4"),
    ]
    return out


CLAIMS = [
    Claim("consensus_beats_best_source",
          "per-finding majority consensus of the sources is at least 3 points more accurate than the best source",
          consensus_margin, ">=", {"quick": 0.03, "standard": 0.03, "full": 0.03}, kind="check",
          paper_value="APO 0.78 vs best source (GPT-5) 0.75 avg accuracy; consensus is the premise",
          source="abstract; MS-CXR-T table; docs/papers/apo_alignment.md §3.3"),
    Claim("sources_know_more_than_student",
          "the Bayes ceiling of the sources' pooled view is >= 5 points above that of the student's view",
          pooled_over_student_ceiling, ">=", {"quick": 0.05, "standard": 0.05, "full": 0.05}, kind="check",
          paper_value="premise of the testbed (private evidence)", source="docs/papers/apo_alignment.md §2"),
    Claim("no_model_beats_student_ceiling",
          "no learned model exceeds the Bayes ceiling of the student's view by more than the finite-test-set noise "
          "(5 points at quick, 4 at standard, 2 at full)",
          best_model_over_student_ceiling, "<=", {"quick": 0.05, "standard": 0.04, "full": 0.02}, kind="check",
          paper_value="guard: the student reads only the public evidence", source="docs/papers/apo_alignment.md §2"),
    *_decoder_claims("sampled"),
    *_decoder_claims("greedy"),
    Claim("pl_beats_single_negative_dpo_shared",
          "at one shared (lr, beta) the multi-negative PL objective beats single-negative DPO by >= 2 points "
          "(sampled)",
          pl_over("dpo_random", "sampled", "shared"), ">=", _thr(0.02), kind="paper",
          why=_why("pl_beats_single_negative_dpo_shared"), paper_value="not reported (our ablation)",
          source="abstract (multi-negative PL); docs/papers/apo_alignment.md §4"),
    Claim("pl_not_worse_than_pairwise_shared",
          "at one shared (lr, beta) the multi-negative PL objective is not worse than pairwise DPO by more than 1 "
          "point (sampled)",
          pl_over("pairwise", "sampled", "shared"), ">=", _thr(-0.01), kind="paper",
          why=_why("pl_not_worse_than_pairwise_shared"), paper_value="not reported",
          source="APO-Qwen2.5.sh (a DPO trainer); docs/papers/apo_alignment.md §4"),
    Claim("gain_grows_with_drift",
          "the gap APO - stage 1 (sampled) is non-decreasing across the 2 steps of d in {0, 0.2, 0.4}",
          drift_monotone_pairs, ">=", _thr(2), kind="paper", why=_why("gain_grows_with_drift"),
          paper_value="qualitative: drift is turned into constraints",
          source="abstract; docs/papers/apo_alignment.md §2"),
    Claim("gain_positive_under_drift",
          "the gap APO - stage 1 (sampled) is positive at every drift d >= 0.2",
          drift_gap_high, ">", _thr(0.0), kind="paper", why=_why("gain_positive_under_drift"),
          paper_value="qualitative", source="abstract; docs/papers/apo_alignment.md §2"),
    Claim("apo_robust_to_drift",
          "APO's accuracy (sampled) at drift d = 0.4 (over steps and rounds) is within 2 points of, or above, its "
          "accuracy at d = 0",
          apo_drift_drop, ">=", _thr(-0.02), kind="paper", why=_why("apo_robust_to_drift"),
          paper_value="qualitative: robust alignment in non-stationary environments", source="title; abstract"),
]
