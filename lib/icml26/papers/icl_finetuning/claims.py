"""The falsifiable claims of the paper, measured on :func:`.experiment.run`'s results.

See docs/papers/icl_finetuning.md §5.

"theory" metrics use the closed-form parameters of docs §3.5 on the run's evaluation prompts; "learned" metrics
use models trained by gradient descent from the pretrained start (``init="theory"``: closed-form optimum plus
noise and a short pretraining; ``"scratch"``: the paper's random init, standard scale and up).
"""

from __future__ import annotations

from icml26.claims import Claim

from .experiment import err

ALL = {"quick": None, "standard": None, "full": None}
SRC_FIG = "§4 synthetic experiments (error vs number of shots on theta0 and -theta0)"


def _ratio20(r, method, task, source="learned", init="theory", ref="pretrained"):
    n = r["config"]["n_ft"]
    return err(r, source, method, task, n, init) / err(r, source, ref, task, n, init)


def _th(quick=None, standard=None, full=None):
    return {k: v for k, v in (("quick", quick), ("standard", standard), ("full", full)) if v is not None}


def _drop(r, method, source="learned", init="theory"):
    e5, e20 = err(r, source, method, "target", 5, init), err(r, source, method, "target", r["config"]["n_ft"], init)
    return (e5 - e20) / e5


def _min_ratio(r, method, source="learned", init="theory"):
    return min(_ratio20(r, method, t, source, init) for t in ("target", "opposite"))


def _c6(r, key):
    return r["softmax"][key]


CLAIMS = [
    # C1: full fine-tuning on the zero-shot loss kills ICL.
    Claim("c1_zs_all_zero_shot",
          "ZS fine-tuning of all parameters reaches the noise floor zero-shot on theta0 (learned)",
          metric=lambda r: err(r, "learned", "zs_all", "target", 0), op="<=", threshold=_th(0.15, 0.15, 0.15),
          kind="paper",
          paper_value="0.100 (theory), 0.101 (learned, ours)", source="Thm. on ZS optima; " + SRC_FIG),
    Claim("c1_zs_all_icl_ratio",
          "after ZS(all), the 20-shot error is >= 2.5x the pretrained one on both theta0 and -theta0 (min ratio)",
          metric=lambda r: _min_ratio(r, "zs_all"), op=">=", threshold=_th(2.5, 2.5, 2.5), kind="paper",
          paper_value="4.1x / 3.6x (theory, closed form)", source=SRC_FIG),
    Claim("c1_zs_all_icl_ratio_theory",
          "the closed-form ZS(all) optimum (w=0.52) has >= 2.5x the pretrained 20-shot error on theta0 and -theta0",
          metric=lambda r: _min_ratio(r, "zs_all", "theory"), op=">=", threshold=_th(2.5, 2.5, 2.5), kind="check",
          paper_value="1.428/0.348, 1.251/0.343", source="closed-form optima (§3 theory); " + SRC_FIG),
    Claim("c1_zs_all_flat_curve",
          "after ZS(all), the error on theta0 drops by < 40% from 5 to 20 shots (more demonstrations stop helping)",
          metric=lambda r: _drop(r, "zs_all"), op="<", threshold=_th(0.40, 0.40, 0.40), kind="paper",
          paper_value="30% (theory), 26% (learned, ours)", source=SRC_FIG),
    Claim("c1_pretrained_uses_context",
          "the pretrained model's error on theta0 drops by >= 45% from 5 to 20 shots",
          metric=lambda r: _drop(r, "pretrained"), op=">=", threshold=_th(0.45, 0.45, 0.45), kind="check",
          paper_value="about 55%", source=SRC_FIG),
    Claim("c1_zs_all_icl_ratio_scratch",
          "the ZS(all) ICL loss (min 20-shot ratio >= 2.5) also holds from a from-scratch pretraining",
          metric=lambda r: _min_ratio(r, "zs_all", init="scratch"), op=">=", threshold=_th(None, 2.5, 2.5),
          kind="paper",
          paper_value="(paper pretrains from random init)", source="§4 synthetic set-up"),
    # C2: value-only fine-tuning preserves ICL.
    Claim("c2_zs_v_zero_shot",
          "ZS fine-tuning of V only improves zero-shot error on theta0 to <= 0.40 (floor sigma2 + 2/(d+4) = 0.322)",
          metric=lambda r: err(r, "learned", "zs_v", "target", 0), op="<=", threshold=_th(0.40, 0.40, 0.40),
          kind="paper",
          paper_value="0.322 (theory), 0.335 (learned, ours)", source="Thm. on value-only ZS optimum"),
    Claim("c2_zs_v_target_icl",
          "after ZS(V), the 20-shot error on theta0 is <= 1.1x the pretrained one",
          metric=lambda r: _ratio20(r, "zs_v", "target"), op="<=", threshold=_th(1.1, 1.1, 1.1), kind="paper",
          paper_value="0.344/0.348 (theory)", source=SRC_FIG),
    Claim("c2_zs_v_unseen_icl",
          "after ZS(V), the 20-shot error on -theta0 is <= 1.35x the pretrained one",
          metric=lambda r: _ratio20(r, "zs_v", "opposite"), op="<=", threshold=_th(1.35, 1.35, 1.35), kind="paper",
          paper_value="1.15x (theory)", source=SRC_FIG),
    Claim("c2_zs_v_unseen_icl_scratch",
          "the ZS(V) -theta0 20-shot ratio <= 1.35 also holds from a from-scratch pretraining",
          metric=lambda r: _ratio20(r, "zs_v", "opposite", init="scratch"), op="<=", threshold=_th(None, 1.35, 1.35),
          kind="paper",
          paper_value="1.15x (theory)", source=SRC_FIG),
    # C3: the auxiliary few-shot loss helps the target and costs other tasks.
    Claim("c3_target_gain_theory",
          "closed form: ZS+FS(V) lowers the 20-shot error on theta0 vs ZS(V) by >= 2%",
          metric=lambda r: 1 - _ratio20(r, "zsfs_v", "target", "theory", ref="zs_v"), op=">=",
          threshold=_th(0.02, 0.02, 0.02),
    kind="check", paper_value="0.320 vs 0.344 (7%)", source="Thm. on w*; " + SRC_FIG),
    Claim("c3_unseen_cost_theory",
          "closed form: ZS+FS(V) raises the 20-shot error on -theta0 vs ZS(V) by >= 8%",
          metric=lambda r: _ratio20(r, "zsfs_v", "opposite", "theory", ref="zs_v") - 1, op=">=",
          threshold=_th(0.08, 0.08, 0.08),
    kind="check", paper_value="0.459 vs 0.396 (16%)", source="Thm. on w*; " + SRC_FIG),
    Claim("c3_target_gain_learned",
          "learned: ZS+FS(V) lowers the 20-shot error on theta0 vs ZS(V) by >= 2%",
          metric=lambda r: 1 - _ratio20(r, "zsfs_v", "target", ref="zs_v"), op=">=",
          threshold=_th(None, 0.02, 0.02), kind="paper", paper_value="0.333 vs 0.345 (learned, ours)", source=SRC_FIG),
    Claim("c3_unseen_cost_learned",
          "learned: ZS+FS(V) raises the 20-shot error on -theta0 vs ZS(V) by >= 8%",
          metric=lambda r: _ratio20(r, "zsfs_v", "opposite", ref="zs_v") - 1, op=">=",
          threshold=_th(None, 0.08, 0.08), kind="paper", paper_value="0.458 vs 0.405 (learned, ours)", source=SRC_FIG),
    Claim("c3_all_target_gain",
          "learned: ZS+FS(all) brings the 20-shot error on theta0 below 0.8x pretrained",
          metric=lambda r: _ratio20(r, "zsfs_all", "target"), op="<=", threshold=_th(None, 0.8, 0.8), kind="paper",
          paper_value="0.211 vs 0.344", source=SRC_FIG),
    Claim("c3_all_unseen_cost",
          "learned: ZS+FS(all) raises the 20-shot error on -theta0 to >= 4x pretrained",
          metric=lambda r: _ratio20(r, "zsfs_all", "opposite"), op=">=", threshold=_th(None, 4.0, 4.0), kind="paper",
          paper_value="1.791 vs 0.345 (5.2x, learned, ours)", source=SRC_FIG,
          why="measured 3.1x (theory start) and 3.7x (from scratch) at standard, seed 0 (1000 steps at "
                        "B=1000; 3.4x / 3.8x with B=2000): ZS+FS(all) does trade the target (0.61x pretrained) for "
                        "-theta0, but less than the 5.2x of our 1500-step NumPy pre-study; an exploratory "
                        "600-step run at B=250 even kept -theta0 near pretrained (0.77x), so the size of this effect "
                        "depends on the optimisation path, not only on the objective"),
    # Real covariates (diabetes, d=10), synthetic tasks: inferred extension of C1/C2 to a correlated Sigma.
    Claim("c1_diabetes_zs_all_icl",
          "diabetes covariates: ZS(all) gives a 20-shot error on -theta0 >= 2.5x pretrained",
          metric=lambda r: _ratio20(r, "zs_all", "opposite", source="diabetes"), op=">=",
          threshold=_th(None, 2.5, 2.5),
          kind="paper", paper_value="(theory allows general Sigma; not run in the paper)",
          source="theory with general covariance; docs/papers/icl_finetuning.md §2 (inferred)"),
    Claim("c2_diabetes_zs_v_icl",
          "diabetes covariates: ZS(V) keeps the 20-shot error on -theta0 <= 1.35x pretrained",
          metric=lambda r: _ratio20(r, "zs_v", "opposite", source="diabetes"), op="<=",
          threshold=_th(None, 1.35, 1.35),
          kind="paper", paper_value="(theory allows general Sigma; not run in the paper)",
          source="theory with general covariance; docs/papers/icl_finetuning.md §2 (inferred)"),
    # C4: closed form of w*.
    Claim("c4_w_star",
          "the learned effective w after ZS+FS(V) is within 0.05 of w*(n_ft) (0.654 at d=5, n=20, sigma2=0.1)",
          metric=lambda r: abs(r["learned"]["theory"]["zsfs_v"]["w_eff"] - r["w_star"]), op="<=",
          threshold=_th(0.05, 0.05, 0.05), kind="paper", paper_value="0.661 vs 0.654 (ours)", source="Thm. on w*(n)"),
    Claim("c4_minimal_change",
          "after ZS(V) the effective w stays within 0.05 of its pretrained value (ZS leaves w undetermined)",
          metric=lambda r: abs(r["learned"]["theory"]["zs_v"]["w_eff"] - r["learned"]["theory"]["pretrained"]["w_eff"]),
          op="<=", threshold=_th(0.05, 0.05, 0.05), kind="check", paper_value="0.996 x 0.769 (unchanged)",
          source="Thm. on value-only ZS optimum"),
    # C5: Q/K-only fine-tuning damages ICL like full fine-tuning.
    Claim("c5_kq_unseen_icl",
          "ZS fine-tuning of Q and K only (split model) gives a 20-shot error on -theta0 >= 2x pretrained",
          metric=lambda r: _ratio20(r, "zs_kq", "opposite", ref="pretrained_split"), op=">=",
          threshold=_th(None, 2.0, 2.0), kind="paper", paper_value="not stated numerically (figure design)",
          source="Q/K/V-subset ablation (comparison.py)"),
    # C6: softmax transformers with LoRA (offline extension of the LLM experiment; full scale, GPU).
    Claim("c6_softmax_v_preserves",
          "softmax GPT, ZS fine-tuning with LoRA on v only keeps the 20-shot error on unseen tasks <= 1.5x pretrained",
          metric=lambda r: _c6(r, "ratio_v"), op="<=", threshold=_th(full=1.5), kind="paper",
          paper_value="LLM: LoRA on v keeps few-shot accuracy (qualitative)", source="§5 LLM experiment (extension)"),
    Claim("c6_softmax_all_damages",
          "softmax GPT, ZS fine-tuning with LoRA on q, k, v pushes the 20-shot error on unseen tasks above 1.5x",
          metric=lambda r: _c6(r, "ratio_all"), op=">", threshold=_th(full=1.5), kind="paper",
          paper_value="LLM: LoRA on all projections loses few-shot accuracy (qualitative)",
          source="§5 LLM experiment (extension)"),
]
