"""The falsifiable claims of "Attention Sink Forges Native MoE in Attention Layers" (C1-C6,
docs/papers/attention_sink.md §5).

Every metric reads the dict returned by :func:`icml26.papers.attention_sink.experiment.run`.
"""

from __future__ import annotations

from icml26.claims import Claim, Premise

BASE = "lam=0"


def _base(r, variant):
    return r["runs"][variant][BASE][0]


def c1_f32(r):
    return max(r["c1"]["max_err_f32"], r["c1"]["trained_max_err"])


def c1_f64(r):
    return r["c1"]["max_err_f64"]


def c1_moe(r):
    return r["c1"]["moe_rel_err_f32"]


def c2_sink_share(r):
    return _base(r, "vanilla")["a0_mean"]


def c2_value_drain(r):
    return _base(r, "vanilla")["v0_ratio"]


def c2_zero_v0(r):
    return _base(r, "vanilla")["zero_v0_rel"]


def c3_cv(r):
    return min(_base(r, v)["mean_cv"] for v in ("vanilla", "sink"))


def c3_dormant(r):
    return min(_base(r, v)["dormant_frac"] for v in ("vanilla", "sink"))


def c3_spearman(r):
    return min(_base(r, v)["spearman_imp_ablation"] for v in ("vanilla", "sink"))


def c3_low_minus_high(r):
    return max(_base(r, v)["ablate_low_quarter"] - _base(r, v)["ablate_high_quarter"] for v in ("vanilla", "sink"))


def c4_cv_ratio(r):
    return max(v["ratio"] for v in r["c4"].values())


def c5_bpb_gap(r):
    return max(v["diff"] for v in r["c5"].values())


def c5_n_better(r):
    return sum(v["diff"] < 0 for v in r["c5"].values())


def _bc(r):
    return r["backcopy"]["final"]


def bc_sink_share(r):
    """The sink head's first-token share from queries with nothing to copy (the largest over heads)."""
    p = _bc(r)
    layer, head = p["sink_head"]
    return p["a0_non_trigger"][layer][head]


def bc_value_drain(r):
    return _bc(r)["sink_head_v0_ratio"]


def bc_zero_v0(r):
    return _bc(r)["zero_v0_rel"]


def bc_gate_contrast(r):
    """Sink head: first-token share from non-trigger queries over that from copy queries (the gate closes on BOS
    when the head, an expert, has nothing to do)."""
    p = _bc(r)
    layer, head = p["sink_head"]
    return p["a0_non_trigger"][layer][head] / max(p["a0_trigger"][layer][head], 1e-12)


def c6_dominant_shift(r):
    return abs(r["c6"]["m=0"]["d_imp_dominant"])


def c6_others_rise(r):
    return r["c6"]["m=0"]["d_imp_others"]


def c6_shared_helps(r):
    shared = [k for k in r["c6"] if k.startswith("m=") and k != "m=0"]
    return r["c6"][shared[0]]["cv_fall"] - r["c6"]["m=0"]["cv_fall"]


ALL = ("quick", "standard", "full")
_NO_SINK = ("at standard scale (2 layers, d=64, 8 heads, ctx 64, 400 steps; val loss 2.09 nats/byte, seed 0) no "
            "attention sink has formed yet: mean A_t0 over layer-1 heads and t >= 16 is 0.011 (needs >= 0.3), "
            "first-token value norm / median = 0.92 (needs <= 0.5); our planned default (4 layers, d=128, 3000 steps) "
            "and full scales were not run on this 2-core machine. Sinks need long training (Gu et al. 2024)")
_NO_COLLAPSE = ("without a grown sink the gates of the lam=0 models stay near 0.96 (vanilla) and heads stay balanced "
                "at standard scale (seed 0): CV vanilla 0.031 / sink 0.033 (needs >= 0.3), dormant share 0.0 "
                "(needs >= 0.25), Spearman(Imp, ablation) vanilla 0.51 / sink 0.26 (needs min > 0.5); the "
                "quarter-ablation ordering does hold. Full scale not run")
SF = ("standard", "full")

SINK_FORMED = Premise("sink_formed", "a sink formed in the vanilla LM trained without the aux loss: mean attention "
                      "on the first token (heads in layers >= 1, positions t >= 16) >= 0.3",
                      c2_sink_share, ">=", 0.3)
"""Value drain and the harmlessness of zeroing v_0 are statements about a sink; without one they say nothing."""
BACKCOPY_SINK = Premise("backcopy_sink_formed", "a sink formed in the Bigram-Backcopy model: its sink head puts >= 0.3 "
                        "of the attention of queries with nothing to copy on BOS", bc_sink_share, ">=",
                        dict.fromkeys(SF, 0.3))
"""The Bigram-Backcopy value-drain, zeroing and gating claims are statements about a sink."""
HEADS_COLLAPSED = Premise("heads_collapsed", "the models trained without the aux loss have collapsed heads: mean "
                          "layer CV of head importance >= 0.3 (min over vanilla and sink attention)",
                          c3_cv, ">=", 0.3)
"""Balancing heads (C4) and pinning dominant heads (C6) presuppose an imbalance to correct."""

WHY_C3_LOW_QUARTER_CHEAPER = ("low minus high quarter-ablation cost -0.19, -0.02, +0.03 on seeds 0-2: no sink grew "
                              "(C2_sink_emerges 0.011-0.012) and heads did not collapse (CV 0.02-0.03), so "
                              "importance orders heads only weakly (Spearman with the ablation cost 0.26, 0.17, "
                              "-0.08) and on seed 2 the ordering flips")

WHY_BC_SINK = ("the sink head's BOS share from idle queries at the 6,000-step budget is 0.27, 0.34, 0.46 on seeds 0-2. "
               "Seed 0's sink did form and then faded: its curve (python -m icml26.papers.attention_sink.backcopy "
               "--steps 6000 --seed 0, the standard stage's training) reads 0.37 / 0.30 (the two heads) at step "
               "2,000, 0.39 / 0.41 at 4,000 and 0.27 / 0.23 at 6,000; the share decays after its peak under the "
               "constant learning rate, as on development seed 102 (0.43 at step 4,000, 0.23 at 7,000), so a "
               "verdict read at one step of a non-monotone curve can miss")
WHY_BC_PREMISE = ("holds on seeds 1 and 2, where the sink stands at the budget (value ratio 0.09 and 0.05, loss "
                  "change 0.13 % and 0.01 %); on seed 0 the sink head's idle BOS share has fallen to 0.27 < 0.3 by "
                  "step 6,000 (0.37-0.39 at steps 2,000-5,000), so the premise is not met there (its values, 0.075 "
                  "and 0.01 %, would pass): see C2_backcopy_sink_emerges")
WHY_BC_GATE = ("idle / copy BOS share of the sink head 2.3 (seed 0, premise unmet), 5.0, 1.3 on seeds 0-2: the "
               "'sink head' is the head with the largest idle share, and that can be a head that sinks on every "
               "token; on seed 2 (its curve, python -m icml26.papers.attention_sink.backcopy --steps 6000 --seed 2, "
               "reproduces the recorded value) head 1 puts 0.46 / 0.36 on BOS from idle / copy queries (1.26) while "
               "head 0, the copying head, gates at 0.37 / 0.10 (3.7); the same on development seed 102 (head 1 "
               "0.49 / 0.37, head 0 0.42 / 0.07); the metric was fixed before the evaluation runs and is kept")
WHY_C5 = ("with lambda = 1e-2 the largest bpb change over the three variants is +0.0054, +0.0038, +0.0055 on seeds 0-2 "
          "(tolerance +0.005) and bpb falls for 1, 2, 1 of the 3 variants: at this scale no head collapsed (C3 CV "
          "0.02-0.03, the heads_collapsed premise of C4 is unmet), so the balancing loss has no imbalance to correct "
          "and costs a few thousandths of a bit; not measured at 2-3x the 400 steps")

CLAIMS = [
    Claim("C1_gate_identity_f32",
          "G from the LSE formulas equals 1 - A_{t,0} (vanilla) and sum_j A_{t,j} (sink) in float32, on random heads "
          "and on the trained models",
          metric=c1_f32, op="<", threshold=dict.fromkeys(ALL, 1e-5), kind="check",
          paper_value="exact identity", source="§3 (sink as gate, LSE closed form)"),
    Claim("C1_gate_identity_f64", "the same identity in float64",
          metric=c1_f64, op="<", threshold=dict.fromkeys(ALL, 1e-12), kind="check",
          paper_value="exact identity", source="§3 (sink as gate, LSE closed form)"),
    Claim("C1_moe_decomposition",
          "with v_0 = 0 a vanilla head's output equals G times the renormalised (expert) output",
          metric=c1_moe, op="<", threshold=dict.fromkeys(ALL, 1e-5), kind="check",
          paper_value="exact identity", source="§3, MoE reformulation"),
    Claim("C2_sink_emerges",
          "vanilla LM: mean attention on the first token over heads in layers >= 1 and positions t >= 16",
          metric=c2_sink_share, op=">=", threshold=dict.fromkeys(SF, 0.3), kind="paper",
          paper_value="sink dominates most heads", source="§2-3, attention sink analysis",
          why=_NO_SINK),
    Claim("C2_value_drain",
          "vanilla LM: first-token value norm / median value norm (mean over heads in layers >= 1)",
          metric=c2_value_drain, op="<=", threshold=dict.fromkeys(SF, 0.5), kind="paper", requires=SINK_FORMED,
          paper_value="value drain: v_0 close to 0", source="§3, value drain",
          why=_NO_SINK),
    Claim("C2_zero_v0_harmless",
          "vanilla LM: relative change of validation loss when v_0 is zeroed in every layer",
          metric=c2_zero_v0, op="<", threshold=dict.fromkeys(SF, 0.02), kind="paper", requires=SINK_FORMED,
          paper_value="output barely changes", source="§3, value drain"),
    Claim("C2_backcopy_sink_emerges",
          "Bigram-Backcopy (1 layer, 2 heads, vanilla; 6,000 Adam steps at standard, 8,000 at full): the sink head's "
          "attention on BOS from queries with nothing to copy",
          metric=bc_sink_share, op=">=", threshold=dict.fromkeys(SF, 0.3), kind="paper",
          paper_value="a sink dominates heads with nothing to do", source="§2-3 sink analysis; setting of Guo et al. "
          "2024 (arXiv 2410.13835)", why={"standard": WHY_BC_SINK}),
    Claim("C2_backcopy_value_drain",
          "Bigram-Backcopy: the sink head's BOS value norm / median value norm",
          metric=bc_value_drain, op="<=", threshold=dict.fromkeys(SF, 0.5), kind="paper", requires=BACKCOPY_SINK,
          paper_value="value drain: v_0 close to 0", source="§3, value drain", why={"standard": WHY_BC_PREMISE}),
    Claim("C2_backcopy_zero_v0_harmless",
          "Bigram-Backcopy: relative change of validation loss when v_0 is zeroed",
          metric=bc_zero_v0, op="<", threshold=dict.fromkeys(SF, 0.02), kind="paper", requires=BACKCOPY_SINK,
          paper_value="output barely changes", source="§3, value drain", why={"standard": WHY_BC_PREMISE}),
    Claim("C2_backcopy_gate_routes",
          "Bigram-Backcopy: the sink head's BOS share from queries with nothing to copy is >= 2x that from copy "
          "queries (its gate G = 1 - A_0 opens where the head has work)",
          metric=bc_gate_contrast, op=">=", threshold=dict.fromkeys(SF, 2.0), kind="paper", requires=BACKCOPY_SINK,
          paper_value="the sink gates a head on and off per token (MoE view)",
          source="§3, sink as a gate / MoE reformulation", why={"standard": WHY_BC_GATE}),
    Claim("C3_head_collapse_cv",
          "without aux loss (vanilla and sink): mean layer CV of head importance (min over the two)",
          metric=c3_cv, op=">=", threshold=dict.fromkeys(SF, 0.3), kind="paper",
          paper_value="few bright heads in LLaMA/GPT-OSS/Qwen3 heat-maps", source="§3, head importance heat-maps",
          why=_NO_COLLAPSE),
    Claim("C3_dormant_heads",
          "without aux loss: share of dormant heads (Imp < 0.5 x layer mean), min over vanilla and sink",
          metric=c3_dormant, op=">=", threshold=dict.fromkeys(SF, 0.25), kind="paper",
          paper_value=">25% of heads removable", source="earlier version, head-zeroing study",
          why=_NO_COLLAPSE),
    Claim("C3_importance_predicts_ablation",
          "Spearman rho between head importance and ablation delta-loss (min over vanilla and sink)",
          metric=c3_spearman, op=">", threshold=dict.fromkeys(SF, 0.5), kind="paper",
          paper_value="low-Imp heads are dispensable", source="§3-4, head collapse analysis",
          why=_NO_COLLAPSE),
    Claim("C3_low_quarter_cheaper",
          "ablating the lowest-Imp quarter costs less loss than the highest-Imp quarter (max of low - high)",
          metric=c3_low_minus_high, op="<", threshold=dict.fromkeys(SF, 0.0), kind="paper",
          why={"standard": WHY_C3_LOW_QUARTER_CHEAPER},
          paper_value="low-Imp heads are dispensable", source="§3-4, head collapse analysis"),
    Claim("C4_aux_balances_heads",
          "training with the aux loss (lambda = 0.1) divides the mean layer CV (max ratio over the 3 variants)",
          metric=c4_cv_ratio, op="<=", threshold={"quick": 0.5, "standard": 0.7, "full": 0.7}, kind="paper",
          requires=HEADS_COLLAPSED,
          paper_value="balanced heat-maps with sink-aware training", source="§4, sink-aware training"),
    Claim("C5_bpb_not_worse",
          "with aux, validation bpb <= no-aux + 0.005 for all variants (standard: lambda = 1e-2, one training seed; "
          "full: lambda tuned in {1e-3, 1e-2}, 2 training seeds)",
          metric=c5_bpb_gap, op="<=", threshold={"standard": 0.005, "full": 0.005}, kind="paper",
          why={"standard": WHY_C5},
          paper_value="lower val bpb in every case; +0.15..+1.4 benchmark points", source="§5, from-scratch table"),
    Claim("C5_bpb_better_2of3",
          "with aux, validation bpb is strictly lower for at least 2 of the 3 variants",
          metric=c5_n_better, op=">=", threshold={"standard": 2, "full": 2}, kind="paper",
          why={"standard": WHY_C5},
          paper_value="all 9 cells improve", source="§5, from-scratch table"),
    Claim("C6_dominant_heads_pinned",
          "LoRA fine-tuning with aux, no shared heads: |change of mean Imp of the dominant heads|",
          metric=c6_dominant_shift, op="<", threshold=dict.fromkeys(SF, 0.05), kind="paper", requires=HEADS_COLLAPSED,
          paper_value="dominant heads resist change (head pinning)", source="§4, fine-tuning / shared heads"),
    Claim("C6_other_heads_rise",
          "LoRA fine-tuning with aux, no shared heads: change of mean Imp of the other heads (> 0: they rise)",
          metric=c6_others_rise, op=">", threshold=dict.fromkeys(SF, 0.0), kind="paper", requires=HEADS_COLLAPSED,
          paper_value="all gates go up", source="§4, head pinning effect"),
    Claim("C6_shared_heads_help",
          "CV falls more with m shared heads excluded than without (CV fall with m minus CV fall with 0)",
          metric=c6_shared_helps, op=">", threshold=dict.fromkeys(SF, 0.0), kind="paper", requires=HEADS_COLLAPSED,
          paper_value="shared heads fix pinning", source="§4, DeepSeekMoE-style shared heads"),
]
