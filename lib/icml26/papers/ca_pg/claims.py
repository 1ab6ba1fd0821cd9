"""Falsifiable claims of ca_pg (docs/papers/ca_pg.md §5), with our thresholds per scale.

The paper's own numbers were not available to us (only the abstract); ``paper_value`` quotes the paper's
qualitative statement and ``source`` where it is made.
The thresholds come from our calibration on a prototype (docs/papers/ca_pg.md §5), except the variance claims',
re-chosen from the abstract's "significantly reduces" when the peer became the baselined V-PG that training uses,
and the claims added with the digits world and the two sweeps; all were fixed on development seeds 100 and up.
"""

from __future__ import annotations

from icml26.claims import Claim, Control

ABSTRACT = "abstract (arXiv 2605.26385); docs/papers/ca_pg.md §5"
QUOTE = ("Experiments on both synthetic and real-world data demonstrate that CA-PG improves the convergence speed and "
         "training stability for ESRs utilizing the canonical Plackett-Luce model, especially when the candidate-set "
         "size is large.")


def _variance_at(r, key, k):
    v = r["variance"]
    return v[key][v["ks"].index(k)]


PRIOR_ART = ("vpg_mean", "vpg", "topk_wr", "distill")
"""The comparison of the headline: V-PG (with and without the batch-mean baseline), the top-K off-policy correction
(Chen et al. 2019: CA-PG's estimator with the with-replacement inclusion probability) and LSR distillation."""


def _auc_gap(part: dict, method: str, peers) -> float:
    """min over K of: ``method``'s mean value/oracle over the first 100 steps minus the best of ``peers``'."""
    return min(s[method]["auc_100"] - max(s[e]["auc_100"] for e in peers) for s in part.values())


def headline_gap(r) -> float:
    """Noisy-LSR world (g = q + 0.3 eps), K in {10, 100}: CA-PG's mean value/oracle over the first 100 steps minus the
    best of V-PG (both variants), the top-K correction and LSR distillation; min over K."""
    return _auc_gap(r["noisy_grid"], "capg", PRIOR_ART)


def headline_control(r) -> float:
    """The same test with CA-PG's exact inclusion probability replaced by the with-replacement one (the top-K
    correction in CA-PG's place), against the remaining peers (V-PG, distillation)."""
    return _auc_gap(r["noisy_grid"], "topk_wr", ("vpg_mean", "vpg", "distill"))


def headline_details(r) -> dict:
    """Per K and estimator: mean value/oracle over the first 100 steps, and the largest drop below the running max
    after reaching 80% of the oracle (stability), in the noisy-LSR world."""
    out = {}
    for k, s in r["noisy_grid"].items():
        for e in ("capg",) + PRIOR_ART:
            out[f"K={k} {e} auc_100"] = s[e]["auc_100"]
            out[f"K={k} {e} max_drop_after_80"] = s[e]["max_drop_after_80"]
    return out


def aligned_distill_k10(r) -> float:
    """Aligned sharp LSR (g = q), training grid, K = 10: LSR distillation's mean value/oracle over the first 100
    steps minus CA-PG's (> 0: imitating the LSR converges faster there)."""
    s = r["training"]["10"]
    return s["distill"]["auc_100"] - s["capg"]["auc_100"]


def aligned_details(r) -> dict:
    """Aligned sharp LSR, training grid: mean value/oracle over the first 100 steps per K and estimator."""
    return {f"K={k} {e}": s[e]["auc_100"] for k, s in r["training"].items() for e in s}


def ratio_k1_dev(r) -> float:
    """|log2 ratio| of the UNBASELINED estimators at K=1 (the same estimator up to rho-hat): <= 1 iff in [0.5, 2]."""
    import math

    return abs(math.log2(_variance_at(r, "ratio", 1)))


def ratio_k5(r) -> float:
    """trVar(V-PG with the training loop's batch-mean baseline) / trVar(CA-PG) at K=5."""
    return _variance_at(r, "ratio_mean", 5)


def ratio_k50(r) -> float:
    """The same ratio (baselined V-PG, the fair peer) at K=50."""
    return _variance_at(r, "ratio_mean", 50)


def ratio_monotone(r) -> float:
    """Smallest step ratio_mean[K_{i+1}] / ratio_mean[K_i] over the K grid (>= 1 iff monotone increasing)."""
    ratio = r["variance"]["ratio_mean"]
    return min(b / a for a, b in zip(ratio[:-1], ratio[1:]))


def vpg_growth(r) -> float:
    """Baselined V-PG trace-variance at K=50 over its value at K=5."""
    return _variance_at(r, "tr_var_vpg_mean", 50) / _variance_at(r, "tr_var_vpg_mean", 5)


VPG = ("vpg_mean", "vpg")


def _best_vpg(summ, key, better=max):
    return better(summ[e][key] for e in VPG if e in summ)


def capg_within_100(r) -> float:
    """Smallest (over K in {10, 100}) best seed-mean value/oracle of CA-PG within 100 steps."""
    t = r["training"]
    return min(t[k]["capg"]["best_norm_within_100"] for k in ("10", "100"))


def vpg_final_k100(r) -> float:
    """Best V-PG variant's seed-mean final value/oracle at K=100 (at the end of the run)."""
    s = r["training"]["100"]
    return max(s[e]["norm_mean"][-1] for e in VPG if e in s)


def speedup_k100(r) -> float:
    """Steps to 80% of the oracle, best V-PG over CA-PG, K=100 (V-PG never reaching: censored, a lower bound)."""
    s = r["training"]["100"]
    return _best_vpg(s, "steps_to_80", min) / max(s["capg"]["steps_to_80"], 1.0)


def _std(xs):
    m = sum(xs) / len(xs)
    return (sum((x - m) ** 2 for x in xs) / max(len(xs) - 1, 1)) ** 0.5


def stability_std_gap(r) -> float:
    """std over seeds of the final value/oracle: best-V-PG std minus CA-PG std (K=100; > 0 means CA-PG steadier)."""
    s = next(iter(r["stability"].values()))
    return min(_std(s[e]["final_norm"]) for e in VPG if e in s) - _std(s["capg"]["final_norm"])


def capg_max_drop(r) -> float:
    """Largest drop of CA-PG below its running max after reaching 80% of the oracle (any seed, K in {10, 100})."""
    t = r["training"]
    drops = [t[k]["capg"]["max_drop_after_80"] for k in ("10", "100")]
    drops.append(next(iter(r["stability"].values()))["capg"]["max_drop_after_80"])
    return max(drops)


def _at_step(summ, est, step=100) -> float:
    """Seed-mean value/oracle of ``est`` at the last evaluation at or before ``step``."""
    steps = summ[est]["steps"]
    return summ[est]["norm_mean"][max(i for i, s in enumerate(steps) if s <= step)]


def digits_gap_100(r) -> float:
    """Digits world: CA-PG minus the best V-PG variant, value/oracle at step 100, min over K in {10, 100}."""
    return min(_at_step(s, "capg") - max(_at_step(s, e) for e in VPG if e in s) for s in r["digits"].values())


def digits_speedup_k10(r) -> float:
    """Digits world, K=10: steps to 80% of the oracle, best V-PG over CA-PG (censored V-PG: a lower bound)."""
    s = r["digits"]["10"]
    return _best_vpg(s, "steps_to_80", min) / max(s["capg"]["steps_to_80"], 1.0)


def lr_tuned_gap(r) -> float:
    """Learning-rate sweep (K=100): CA-PG at its best lr minus the best V-PG variant at ITS best lr, value/oracle at
    step 100 (each estimator tuned on the same grid)."""
    s = r["lr_sweep"]
    return max(s["capg"]["at_100"]) - max(max(s[e]["at_100"]) for e in VPG if e in s)


def noisy_lsr_gap(r) -> float:
    """LSR alignment sweep (K=100): min over the noisy but positively aligned LSRs g = q + sigma eps with
    sigma <= 0.3 of CA-PG minus the best V-PG variant, value/oracle at step 100."""
    s = r["lsr_noise"]
    rows = [i for i, (a, n) in enumerate(zip(s["anti"], s["noises"])) if not a and 0 < n <= 0.3]
    return min(s["capg"]["at_100"][i] - max(s[e]["at_100"][i] for e in VPG if e in s) for i in rows)


def anti_gap(r) -> float:
    """Anti-aligned LSR: best V-PG final value/oracle minus CA-PG's (>= 0: CA-PG no better)."""
    s = next(iter(r["alignment"].values()))
    return max(s[e]["norm_mean"][-1] for e in VPG if e in s) - s["capg"]["norm_mean"][-1]


HEADLINE_WHY = ("the prior art is not behind: CA-PG's mean value/oracle over the first 100 steps is 0.008, 0.094 and "
                "0.011 below the best peer's on seeds 0-2 (noise margin 0.0065 from development seeds 100-102), and "
                "that peer is the top-K off-policy correction on every seed (K = 10: CA-PG 0.695 / 0.643 / 0.722, "
                "top-K correction 0.703 / 0.737 / 0.734; K = 100 within 0.006 of each other); distillation of the "
                "noisy LSR (0.09-0.39) and V-PG (0.29-0.53) trail far behind. The control (the top-K correction, "
                "CA-PG with the with-replacement inclusion probability) beats V-PG and distillation by 0.35-0.38 on "
                "every seed, so what this testbed shows is that both corrections leave V-PG behind, not that the "
                "exact marginal beats the with-replacement one")

CLAIMS = [
    Claim("capg_faster_than_prior_art",
          "CA-PG converges faster than the best of V-PG, the top-K off-policy correction and LSR distillation: with a "
          "partly aligned noisy LSR (g = q + 0.3 eps), its mean value/oracle over the first 100 steps exceeds the best "
          "peer's, for K in {10, 100} (min gap > 0; per-estimator values and stability in the details; at quick it is "
          "recorded with its control but ties within its noise margin, so it is checked from standard on)",
          headline_gap, ">", {"standard": 0.0, "full": 0.0}, kind="paper", headline=True, quote=QUOTE,
          control=Control("capg_with_replacement_rho",
                          "CA-PG with the with-replacement inclusion probability 1-(1-p)^K in place of the exact "
                          "marginal (the top-K correction of Chen et al. 2019) fed through the same test against V-PG "
                          "and distillation",
                          headline_control),
          details=headline_details,
          why={"standard": HEADLINE_WHY},
          paper_value="improves the convergence speed and training stability, especially for large K",
          source=ABSTRACT + " claim 4 (issue 64: the prior art the abstract's comparison must face)"),
    Claim("aligned_lsr_distillation_faster_k10",
          "where the advantage breaks: with a sharp LSR that scores by the reward itself (g = q), K = 10, distilling "
          "the LSR converges faster than CA-PG (distillation's mean value/oracle over the first 100 steps minus "
          "CA-PG's > 0)",
          aligned_distill_k10, ">", {"quick": 0.0, "full": 0.0}, kind="extension", details=aligned_details,
          paper_value="not stated: our test of where the advantage ends (issue 64)",
          source="issue 64; docs/papers/ca_pg.md §5"),
    Claim("variance_k1_equal",
          "at K=1 the two estimators coincide up to the MC estimate of rho: trVar ratio V-PG/CA-PG in [0.5, 2] "
          "(measured: |log2 ratio|)",
          ratio_k1_dev, "<=", {"quick": 1.0, "standard": 1.0, "full": 1.0}, kind="check",
          paper_value="CA-PG reduces variance, most at large K", source=ABSTRACT + " claim 1"),
    Claim("variance_ratio_k5",
          "CA-PG reduces the variance of V-PG: trVar(V-PG with the batch-mean baseline training uses)/trVar(CA-PG) "
          "> 1 at K=5 beyond the noise margin ('significantly reduces the variance'; N=200, single sample, logits)",
          ratio_k5, ">", {"quick": 1.0, "standard": 1.0, "full": 1.0}, kind="paper",
          paper_value="CA-PG significantly reduces the variance of V-PG", source=ABSTRACT + " claim 1"),
    Claim("variance_ratio_k50",
          "the same reduction at a large candidate set: trVar(baselined V-PG)/trVar(CA-PG) > 1 at K=50 beyond the "
          "noise margin",
          ratio_k50, ">", {"quick": 1.0, "standard": 1.0, "full": 1.0}, kind="extension",
          paper_value="significant variance reduction; V-PG's variance explodes with K", source=ABSTRACT + " claim 1"),
    Claim("variance_ratio_monotone",
          "the variance ratio (baselined V-PG / CA-PG) increases monotonically in K (min step ratio >= 1)",
          ratio_monotone, ">=", {"quick": 1.0, "standard": 1.0, "full": 1.0}, kind="paper",
          paper_value="the reduction comes from marginalising the set's composition, which grows with K",
          source=ABSTRACT + " claim 1"),
    Claim("vpg_variance_grows", "V-PG's variance grows with the candidate-set size: baselined V-PG trace-variance "
          "at K=50 over its value at K=5 > 1 beyond the noise margin ('exploding variance')",
          vpg_growth, ">", {"quick": 1.0, "standard": 1.0, "full": 1.0}, kind="paper",
          paper_value="V-PG's variance explodes with the candidate-set size", source=ABSTRACT + " claim 1"),
    Claim("rao_blackwell_identity", "grad log rho(a) = E[grad log pi(C) | a in C] by enumeration (N=7, K=3)",
          lambda r: r["exact"]["identity_err"], "<=", {"quick": 1e-8, "standard": 1e-8, "full": 1e-8}, kind="check",
          paper_value="CA-PG marginalises over all candidate sets containing the target item",
          source=ABSTRACT + " claim 2"),
    Claim("unbiased_uniform_lsr", "with a uniform LSR, E[g_CA] = grad V (relative error, enumeration)",
          lambda r: r["exact"]["uniform_rel_err"], "<=", {"quick": 1e-6, "standard": 1e-6, "full": 1e-6}, kind="check",
          paper_value="unbiased when the LSR choice does not depend on the other candidates (derived)",
          source="docs/papers/ca_pg.md §3.5 (derived)"),
    Claim("aligned_cosine", "aligned softmax LSR (tau in {0.02, 0.1}): cos(E[g_CA], grad V) >= 0.6",
          lambda r: r["exact"]["min_aligned_cos"], ">=", {"quick": 0.6, "standard": 0.6, "full": 0.6}, kind="paper",
          paper_value="learns the correct ranking when the LSR is reasonably aligned", source=ABSTRACT + " claim 2"),
    Claim("anti_aligned_cosine", "anti-aligned LSR (g = -q, tau=0.02): cos(E[g_CA], grad V) <= 0 (failure mode; "
          "standard and full: at quick, 16 contexts leave it within its noise margin of 0 on some seeds)",
          lambda r: r["exact"]["anti_cos"], "<=", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="the alignment condition is needed (documented limit)",
          source="docs/papers/ca_pg.md §3.5 (derived)"),
    Claim("quadrature_sums_to_k", "quadrature inclusion probabilities sum to K within 1e-6 (N=50, K=10)",
          lambda r: r["inclusion"]["sum_err_quad"], "<=", {"quick": 1e-6, "standard": 1e-6, "full": 1e-6}, kind="check",
          paper_value="-", source="docs/papers/ca_pg.md §3.6"),
    Claim("mc_matches_quadrature", "Gumbel-MC rho (M>=2000) matches quadrature: max abs error <= 0.01",
          lambda r: r["inclusion"]["mc_max_err"], "<=", {"quick": 0.01, "standard": 0.01, "full": 0.01}, kind="check",
          paper_value="-", source="docs/papers/ca_pg.md §3.6"),
    Claim("with_replacement_biased", "the with-replacement marginal errs by >= 0.05 on the top items",
          lambda r: r["inclusion"]["wr_top_err"], ">=", {"quick": 0.05, "standard": 0.05, "full": 0.05}, kind="check",
          paper_value="-", source="docs/papers/ca_pg.md §3.6"),
    Claim("capg_fast_convergence", "CA-PG (no baseline) reaches >= 90% of the oracle within 100 steps, K in {10, 100}",
          capg_within_100, ">=", {"quick": 0.9, "standard": 0.9, "full": 0.9}, kind="extension",
          paper_value="faster convergence, especially for large K", source=ABSTRACT + " claim 4"),
    Claim("vpg_slow_k100", "best V-PG variant is < 90% of the oracle at the end of training, K=100 "
          "(quick: 100 steps; standard/full: 300 steps)",
          vpg_final_k100, "<", {"quick": 0.9, "standard": 0.9, "full": 0.9}, kind="extension",
          paper_value="V-PG converges slowly at large K", source=ABSTRACT + " claim 4"),
    Claim("steps_to_80_ratio", "steps-to-80%-oracle, best V-PG / CA-PG >= 3 at K=100 (censored: lower bound)",
          speedup_k100, ">=", {"quick": 3.0, "standard": 3.0, "full": 3.0}, kind="extension",
          paper_value="faster convergence", source=ABSTRACT + " claim 4"),
    Claim("stability_std", "across 5 seeds the final value of CA-PG varies less than V-PG's (K=100; std gap > 0)",
          stability_std_gap, ">", {"standard": 0.0, "full": 0.0}, kind="paper",
          paper_value="more stable training", source=ABSTRACT + " claim 5"),
    Claim("stability_no_drop", "CA-PG never drops > 0.02 (of the oracle) below its running max after reaching 80%",
          capg_max_drop, "<=", {"standard": 0.02, "full": 0.02}, kind="paper",
          paper_value="more stable training", source=ABSTRACT + " claim 5"),
    Claim("anti_aligned_training",
          "anti-aligned LSR (g=-q, denser q: shift 1.0, K=5): best V-PG ends >= 0.1 (of the oracle) above CA-PG",
          anti_gap, ">=", {"standard": 0.1, "full": 0.1}, kind="extension",
          paper_value="needs a reasonably aligned LSR", source=ABSTRACT + " claim 6"),
    Claim("digits_gap_100",
          "digits world (real pixels): CA-PG's value/oracle at step 100 exceeds the best V-PG variant's, "
          "for K in {10, 100} (min gap > 0)",
          digits_gap_100, ">", {"quick": 0.0, "standard": 0.0, "full": 0.0}, kind="paper",
          paper_value="faster convergence on real-world data", source=ABSTRACT + " claim 4"),
    Claim("digits_speedup_k10",
          "digits world, K=10: steps-to-80%-oracle, best V-PG / CA-PG >= 3 (censored: lower bound)",
          digits_speedup_k10, ">=", {"standard": 3.0, "full": 3.0}, kind="extension",
          why={"standard": "4.2, 4.2, 3.75 on seeds 0-2 against a noise margin of 1.01 (development seeds 100-102: "
                           "5, 5, 3.25): the ratio of two step counts read on a 10-step evaluation grid moves in "
                           "whole grid steps, so seed 2's 3.75 is within the noise of the 3x bar"},
          paper_value="faster convergence on real-world data", source=ABSTRACT + " claim 4"),
    Claim("lr_tuned_gap",
          "equal footing: each estimator at its own best learning rate on {0.01, 0.03, 0.05, 0.1, 0.3, 1}, K=100: "
          "CA-PG's value/oracle at step 100 exceeds the best V-PG variant's (gap > 0)",
          lr_tuned_gap, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="faster convergence, especially for large K", source=ABSTRACT + " claim 4"),
    Claim("noisy_lsr_gap",
          "noisier but aligned LSRs (g = q + sigma eps, sigma in {0.1, 0.3}; corr(g, q) about 0.6 and 0.2), K=100: "
          "CA-PG's value/oracle at step 100 exceeds the best V-PG variant's (min gap > 0)",
          noisy_lsr_gap, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="learns the correct ranking under a reasonably aligned LSR", source=ABSTRACT + " claim 2"),
]
