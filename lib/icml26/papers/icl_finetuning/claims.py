"""The falsifiable claims of the paper, measured on :func:`.experiment.run`'s results.

See docs/papers/icl_finetuning.md §5.

"theory" metrics use the closed-form parameters of docs §3.5 on the run's evaluation prompts; "learned" metrics
use models trained by gradient descent: pretrained from the paper's random init (``init="scratch"``, every scale),
then fine-tuned by every method from that same start. That value-only ZS fine-tuning leaves the effective w
exactly unchanged (the ZS prompt's label slot is 0) is a unit test, not a claim.
"""

from __future__ import annotations

from icml26.claims import Claim, Premise

from .experiment import crossover_angle, err

ALL = {"quick": None, "standard": None, "full": None}
SRC_FIG = "§4 synthetic experiments (error vs number of shots on theta0 and -theta0)"


def _ratio20(r, method, task, source="learned", init="scratch", ref="pretrained"):
    n = r["config"]["n_ft"]
    return err(r, source, method, task, n, init) / err(r, source, ref, task, n, init)


def _th(quick=None, standard=None, full=None):
    return {k: v for k, v in (("quick", quick), ("standard", standard), ("full", full)) if v is not None}


def _drop(r, method, source="learned", init="scratch"):
    e5, e20 = err(r, source, method, "target", 5, init), err(r, source, method, "target", r["config"]["n_ft"], init)
    return (e5 - e20) / e5


def _min_ratio(r, method, source="learned", init="scratch"):
    return min(_ratio20(r, method, t, source, init) for t in ("target", "opposite"))


def _calibrated_ratio20(r, method, task, ref):
    """Ratio of the scale-calibrated 20-shot errors (:meth:`.method.EvalSet.curve`); at most E y^2 / ref's."""
    i = r["shots"].index(r["config"]["n_ft"])
    block = r["learned"]["scratch"]
    return block[method]["calibrated"][task][i] / block[ref]["calibrated"][task][i]


def _zs_gain(r, method, ref):
    """Relative drop of the zero-shot error on theta0 from ``ref`` to ``method``."""
    return 1 - err(r, "learned", method, "target", 0, "scratch") / err(r, "learned", ref, "target", 0, "scratch")


def _plateau(r, method):
    return r["learned"]["scratch"][method]["plateau"]


def _crossover(r, source):
    a = r["angle"]
    errs = a["err"] if source == "theory" else a["learned"]
    return crossover_angle(a["angles"], errs["zsfs_v"], errs["zs_v"])


def _c6(r, key):
    return r["softmax"][key]


C6_ICL = Premise("c6_pretrained_icl",
                 "the pretrained softmax model does in-context regression: its 20-shot error on unseen tasks is "
                 "<= 0.5 (no context: about 1.1)",
                 metric=lambda r: r["softmax"]["pretrained"]["unseen20"], op="<=", threshold=0.5)


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
          requires=Premise("c3_all_at_zs_optimum",
                           "ZS+FS(all) ends inside the set of zero-shot optima (the annealed FS loss picks a point "
                           "there): zero-shot error on theta0 <= 0.15",
                           metric=lambda r: err(r, "learned", "zsfs_all", "target", 0), op="<=", threshold=0.15),
          paper_value="0.211 vs 0.344", source=SRC_FIG),
    Claim("c3_all_unseen_cost",
          "learned: ZS+FS(all) raises the 20-shot error on -theta0 to >= 4x pretrained",
          metric=lambda r: _ratio20(r, "zsfs_all", "opposite"), op=">=", threshold=_th(None, 4.0, 4.0), kind="paper",
          requires=Premise("c3_all_converged",
                           "ZS+FS(all) is trained to a plateau: its zero-shot loss moves by <= 2% between the last "
                           "two tenths of the steps",
                           metric=lambda r: _plateau(r, "zsfs_all"), op="<=", threshold=0.02),
          paper_value="1.791 vs 0.345 (5.2x, learned, ours)", source=SRC_FIG),
    # The abstract's condition for degraded ICL, as a sweep over the angle between the evaluation task and theta0.
    Claim("c3_degradation_angle",
          "learned: the auxiliary FS loss helps only tasks near the target: the first swept angle at which ZS+FS(V)'s "
          "20-shot error exceeds ZS(V)'s is <= 90 degrees (tasks orthogonal to theta0 already lose)",
          metric=lambda r: _crossover(r, "learned"), op="<=", threshold=_th(None, 90.0, 90.0), kind="paper",
          requires=Premise("c3_helps_target",
                           "ZS+FS(V) beats ZS(V) at angle 0 (the target), so there is a crossover to find",
                           metric=lambda r: r["angle"]["learned"]["zs_v"][0] - r["angle"]["learned"]["zsfs_v"][0],
                           op=">", threshold=0.0),
          paper_value="abstract: ICL improves primarily on the target task, degrades on tasks not seen",
          source="abstract; " + SRC_FIG),
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
          metric=lambda r: abs(r["learned"]["scratch"]["zsfs_v"]["w_eff"] - r["w_star"]), op="<=",
          threshold=_th(0.05, 0.05, 0.05), kind="paper", paper_value="0.661 vs 0.654 (ours)", source="Thm. on w*(n)"),
    # C5: Q/K-only fine-tuning damages ICL like full fine-tuning.
    Claim("c5_kq_unseen_icl",
          "ZS fine-tuning of Q and K only (split model, V frozen) damages in-context ability on -theta0: its "
          "scale-calibrated 20-shot error is >= 2x the pretrained one (bounded: at most E y^2 / pretrained, "
          "about 3.2x)",
          metric=lambda r: _calibrated_ratio20(r, "zs_kq", "opposite", "pretrained_split"), op=">=",
          threshold=_th(None, 2.0, 2.0), kind="paper",
          requires=Premise("c5_kq_learned_zero_shot",
                           "ZS(KQ) did fine-tune the target: its zero-shot error on theta0 is >= 10% below the "
                           "pretrained split model's",
                           metric=lambda r: _zs_gain(r, "zs_kq", "pretrained_split"), op=">=", threshold=0.10),
          paper_value="not stated numerically (Q/K ablation: like full fine-tuning, ICL lost)",
          source="Q/K/V-subset ablation (§4, official comparison.py)",
          why={"standard": "on the bounded scale Q/K-only fine-tuning keeps part of the in-context information: on "
                           "development seeds 100-102 its calibrated 20-shot error on -theta0 was 1.52x, 2.47x and "
                           "1.24x pretrained (ZS(all): 3.0x), while its raw 20-shot error was 210-380x pretrained. "
                           "With V frozen at 'copy y' the only route to the target is V's small leftover entries "
                           "amplified by an ever larger Q (effective w -1.8 to -3.9 against +0.79 pretrained); the "
                           "run does not plateau on seeds 101-102 (zero-shot loss still moving 4.4-4.6% over the "
                           "last tenth; 0.4% on seed 100) and its zero-shot error on theta0 is 0.45-0.74 against "
                           "0.10 for ZS(all). The raw damage is a blow-up of scale; how much context information "
                           "survives it depends on the direction Q grows in, so the verdict varies by seed"}),
    # C6: softmax transformers with LoRA (offline extension of the LLM experiment; CPU-sized at standard).
    Claim("c6_softmax_v_preserves",
          "softmax GPT, ZS fine-tuning with LoRA on v only keeps the 20-shot error on unseen tasks <= 1.5x pretrained",
          metric=lambda r: _c6(r, "ratio_v"), op="<=", threshold=_th(standard=1.5, full=1.5), kind="paper",
          requires=C6_ICL,
          paper_value="LLM: LoRA on v keeps few-shot accuracy (qualitative)", source="§5 LLM experiment (extension)",
          why={"standard": "in the 2-layer softmax model (MLPs, two attention layers) LoRA on v alone is expressive "
                           "enough to write the target into the residual stream: on development seeds 100-101 it "
                           "reaches the zero-shot noise floor (0.109, 0.112; the linear model's V-only floor is "
                           "0.32), and it then costs unseen-task ICL too: 20-shot error 1.96x and 1.80x pretrained "
                           "(LoRA on q, k, v: 2.59x, 3.36x). The linear model's protection (V alone cannot reach "
                           "theta0 without the query-key channel) does not carry over to this architecture at this "
                           "size; the paper's LLM result is qualitative and not available to compare"}),
    Claim("c6_softmax_all_damages",
          "softmax GPT, ZS fine-tuning with LoRA on q, k, v pushes the 20-shot error on unseen tasks above 1.5x",
          metric=lambda r: _c6(r, "ratio_all"), op=">", threshold=_th(standard=1.5, full=1.5), kind="paper",
          requires=C6_ICL,
          paper_value="LLM: LoRA on all projections loses few-shot accuracy (qualitative)",
          source="§5 LLM experiment (extension)"),
]
