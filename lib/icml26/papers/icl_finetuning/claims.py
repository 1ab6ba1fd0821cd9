"""The falsifiable claims of the paper, measured on :func:`.experiment.run`'s results.

See docs/papers/icl_finetuning.md §5.

"theory" metrics use the closed-form parameters of docs §3.5 on the run's evaluation prompts; "learned" metrics
use models trained by gradient descent: pretrained from the paper's random init (``init="scratch"``, every scale),
then fine-tuned by every method from that same start. That value-only ZS fine-tuning leaves the effective w
exactly unchanged (the ZS prompt's label slot is 0) is a unit test, not a claim.
"""

from __future__ import annotations

from icml26.claims import Claim, Control, Premise

from .experiment import crossover_angle, err

ALL = {"quick": None, "standard": None, "full": None}
ANGLE_TOL = 15.0
"""Tolerance of the learned crossover angle against the closed form's (degrees): half the 30-degree spacing of the
swept angles, fixed before the standard runs (at quick the gap was 2.9, 1.3, 33.8, 28.4, 11.1 degrees on development
seeds 100-104, too noisy to check there)."""
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


def c3_angle_gap(r):
    """|learned - closed-form crossover angle|: where ZS+FS(V) starts to cost ICL, learned against the closed form
    (both read on the same rotated tasks and prompts)."""
    return abs(_crossover(r, "learned") - _crossover(r, "theory"))


def c3_angle_details(r):
    return {"learned_deg": _crossover(r, "learned"), "theory_deg": _crossover(r, "theory")}


QUOTE = ("We show that fine-tuning all attention parameters can harm in-context learning, whereas restricting updates "
         "to the value matrix improves zero-shot performance while preserving in-context learning.")
C1_CONTROL = Control("c1_value_only", "the same test fed with value-only ZS fine-tuning (ZS(V)) in place of "
                     "fine-tuning all parameters: min over theta0 and -theta0 of its 20-shot error / pretrained",
                     lambda r: _min_ratio(r, "zs_v"))
C2_CONTROL = Control("c2_value_only_condition_violated",
                     "value-only fine-tuning with the closed form's condition violated: ZS+FS(V) trains V on prompts "
                     "with demonstrations (the few-shot loss), so the label slot is no longer 0 and the ICL scalar w "
                     "moves (to w*); its 20-shot error on -theta0 / pretrained, the same test",
                     lambda r: _ratio20(r, "zsfs_v", "opposite"))


HELPS_TARGET = Premise("c3_helps_target",
                       "ZS+FS(V) beats ZS(V) at angle 0 (the target), so there is a crossover to find",
                       metric=lambda r: r["angle"]["learned"]["zs_v"][0] - r["angle"]["learned"]["zsfs_v"][0],
                       op=">", threshold=0.0)

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
          headline=True, quote=QUOTE, control=C1_CONTROL,
          details=lambda r: {t: _ratio20(r, "zs_all", t) for t in ("target", "opposite")},
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
          "ZS fine-tuning of V only improves zero-shot error on theta0 to <= 0.40 (floor sigma2 + 2/(d+4) = 0.322; "
          "not checked at quick, where its noise margin, 0.058 on development seeds 100-104, leaves seeds 0 and 1 "
          "within it)",
          metric=lambda r: err(r, "learned", "zs_v", "target", 0), op="<=", threshold=_th(None, 0.40, 0.40),
          kind="paper",
          paper_value="0.322 (theory), 0.335 (learned, ours)", source="Thm. on value-only ZS optimum"),
    Claim("c2_zs_v_target_icl",
          "after ZS(V), the 20-shot error on theta0 is <= 1.1x the pretrained one",
          metric=lambda r: _ratio20(r, "zs_v", "target"), op="<=", threshold=_th(1.1, 1.1, 1.1), kind="paper",
          paper_value="0.344/0.348 (theory)", source=SRC_FIG),
    Claim("c2_zs_v_unseen_icl",
          "after ZS(V), the 20-shot error on -theta0 (a task not seen in fine-tuning) is <= 1.25x the pretrained one",
          metric=lambda r: _ratio20(r, "zs_v", "opposite"), op="<=", threshold=_th(1.25, 1.25, 1.25), kind="paper",
          headline=True, quote=QUOTE, control=C2_CONTROL,
          paper_value="1.15x (theory)", source="abstract; " + SRC_FIG),
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
    Claim("c3_crossover_agrees",
          "learned vs closed form: the angle between the evaluation task and theta0 beyond which ZS+FS(V)'s 20-shot "
          f"error exceeds ZS(V)'s (the auxiliary loss starts to degrade ICL) agrees with the closed form's within "
          f"{ANGLE_TOL:g} degrees (|learned - theory|, both interpolated on the same swept angles; not checked at "
          "quick, where the learned angle is too noisy: 1-34 degrees off on development seeds 100-104; checked at "
          "standard and full)",
          metric=c3_angle_gap, op="<=", threshold=_th(standard=ANGLE_TOL, full=ANGLE_TOL), kind="paper",
          requires=HELPS_TARGET, details=c3_angle_details,
          why={"standard": "the learned crossover is within 5.4 / 3.6 / 8.9 degrees of the closed form's on seeds 0-2, "
                           "inside the 15-degree tolerance on every seed, but the gap swings with SD 9.3 degrees over "
                           "development seeds 100-102 (3.4 / 18.1 / 0.9): seed 2's 8.9 is within that noise margin of "
                           "the tolerance, a tie"},
          paper_value="abstract: identifies conditions under which fine-tuning degrades few-shot performance",
          source="abstract; " + SRC_FIG),
    Claim("c3_degradation_angle",
          "a direction only (ours): the first swept angle at which the learned ZS+FS(V)'s 20-shot error exceeds "
          "ZS(V)'s is <= 90 degrees (tasks orthogonal to theta0 already lose); c3_crossover_agrees tests agreement "
          "with the closed form",
          metric=lambda r: _crossover(r, "learned"), op="<=", threshold=_th(None, 90.0, 90.0), kind="extension",
          requires=HELPS_TARGET,
          paper_value="abstract: ICL improves primarily on the target task, degrades on tasks not seen",
          source="abstract; " + SRC_FIG),
    # Real covariates (diabetes, d=10), synthetic tasks: inferred extension of C1/C2 to a correlated Sigma.
    Claim("c1_diabetes_zs_all_icl",
          "diabetes covariates: ZS(all) gives a 20-shot error on -theta0 >= 2.5x pretrained",
          metric=lambda r: _ratio20(r, "zs_all", "opposite", source="diabetes"), op=">=",
          threshold=_th(None, 2.5, 2.5),
          kind="extension", paper_value="(theory allows general Sigma; not run in the paper)",
          source="theory with general covariance; docs/papers/icl_finetuning.md §2 (inferred)"),
    Claim("c2_diabetes_zs_v_icl",
          "diabetes covariates: ZS(V) keeps the 20-shot error on -theta0 <= 1.35x pretrained",
          metric=lambda r: _ratio20(r, "zs_v", "opposite", source="diabetes"), op="<=",
          threshold=_th(None, 1.35, 1.35),
          kind="extension", paper_value="(theory allows general Sigma; not run in the paper)",
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
          why={"standard": "calibrated 20-shot error on -theta0 0.78x, 2.66x, 3.07x pretrained on seeds 0-2: with V "
                           "frozen at 'copy y' the only route to the target is V's small leftover entries amplified "
                           "by an ever larger Q, whose direction decides how much context information survives, so "
                           "the verdict varies by seed (on development seeds 101-102 the zero-shot loss was still "
                           "moving 4.4-4.6% over the last tenth; a convergence premise is left for a re-recorded "
                           "standard stage)"}),
    # C6: softmax transformers with LoRA (offline extension of the LLM experiment; CPU-sized at standard).
    Claim("c6_softmax_v_preserves",
          "softmax GPT, ZS fine-tuning with LoRA on v only keeps the 20-shot error on unseen tasks <= 1.5x pretrained",
          metric=lambda r: _c6(r, "ratio_v"), op="<=", threshold=_th(standard=1.5, full=1.5), kind="paper",
          requires=C6_ICL,
          paper_value="LLM: LoRA on v keeps few-shot accuracy (qualitative)", source="§5 LLM experiment (extension)",
          why={"standard": "LoRA on v alone costs unseen-task ICL too: 20-shot error 2.01x, 1.64x, 1.76x pretrained "
                           "on seeds 0-2 (LoRA on q, k, v: 2.86x, 1.65x, 2.95x, c6_softmax_all_damages). In the "
                           "2-layer softmax model (MLPs, two attention layers) the value path can write the target "
                           "into the residual stream without the query-key channel, so the linear model's protection "
                           "does not carry over to this architecture at this size"}),
    Claim("c6_softmax_all_damages",
          "softmax GPT, ZS fine-tuning with LoRA on q, k, v pushes the 20-shot error on unseen tasks above 1.5x",
          metric=lambda r: _c6(r, "ratio_all"), op=">", threshold=_th(standard=1.5, full=1.5), kind="paper",
          requires=C6_ICL,
          why={"standard": "LoRA on q, k, v raises the unseen-task 20-shot error to 2.86x / 1.65x / 2.95x on seeds "
                           "0-2, above the 1.5x bar on every seed; seed 1's 1.65x is within the noise margin (SD 0.29 "
                           "over development seeds 100-102: 4.15 / 3.91 / 3.57), a tie"},
          paper_value="LLM: LoRA on all projections loses few-shot accuracy (qualitative)",
          source="§5 LLM experiment (extension)"),
]
