"""Claims (docs/papers/data_mixing.md §5) for "Explaining Data Mixing Scaling Laws" (Dai & Zheng, ICML 2026).

The paper's own numbers (tables) were not available to us (only the abstract and the official
code were read), so ``paper_value`` quotes the abstract's qualitative statement where no figure exists.
"""

from __future__ import annotations

from icml26.claims import Claim, Control

SRC = "arXiv 2606.08167 abstract; docs/papers/data_mixing.md §5"


def _c1_rho(r):
    return round(r["c1"]["min_spearman"], 6)  # Spearman over 5 levels takes discrete values


def _c1_width(r):
    return r["c1"]["max_ratio_big_small"]


def _c2_margin(r):
    return r["c2"]["min_margin_K_ge_5"]


def _c2_fixture(r):
    return r["c2"]["max_abs_loss_diff_vs_slsqp"]


_C3_COMPETITORS = ("exp", "bimix", "shukor", "linear")


def _c3_best(r):
    return max(r["mre_ratio_each"].values())  # ours / the lowest competing MRE


def _c3_control(r):
    # the same test for our law without its capacity term (baselines.NOCAP): its MRE over the best competitor's
    return max(r["mre_ratio_control_each"].values())


def _c3_details(r):
    out = {f"ours/{n}": v for n, v in r["mre_ratio_each"].items()}
    out.update({f"mre_{n}": v for n, v in r["test_mre"].items()})
    return out


_WHY_C3 = ("at standard the ratio of our law's held-out MRE to the best competitor's is 1.10 / 1.19 / 1.10 on seeds "
           "0-2 (details: the ratio to each law and each law's MRE): the linear and exp laws fit the held-out toy "
           "losses better on every seed, and every law's MRE lies within about 3 points of the others'. The control, "
           "our law without its capacity term, has the same MRE as ours to within 0.0005 on every seed (mre_nocap "
           "against mre_ours in the details), so on this testbed the capacity term buys no fit. On the authors' "
           "real SlimPajama table (not shipped, docs §2b, a user path) our law also has a higher MRE than exp, "
           "Shukor and linear")


def _c3_abs(r):
    return r["test_mre"]["ours"]


def _c4_law(r):
    return r["c4"]["law_margin"]


def _c4_grid(r):
    return r["c4"]["grid_margin"]


def _c4_shift(r):
    return r["c4"]["shift_small_minus_large_D"]


def _c5_gap(r):
    return r["c5"]["gap_law_vs_best"]


def _c5_better(r):
    return r["c5"]["ratio_vs_best_rival"]  # ours / the best of BiMix's, Shukor's and the exp law's reused optimum


def _c5_control(r):
    return r["c5"]["control_ratio_vs_best_rival"]


def _c5_details(r):
    c = r["c5"]
    out = {f"ours/{n}": c[f"ratio_vs_{n}"] for n in ("bimix", "shukor", "exp_small") if f"ratio_vs_{n}" in c}
    out.update({f"L1(ours,{n})": c[f"l1_vs_{n}"] for n in ("bimix", "shukor", "exp_small") if f"l1_vs_{n}" in c})
    out.update({f"control/{n}": v for n, v in c.get("control_ratio_each", {}).items()})
    return out


def _c6_feas(r):
    return r["c6"]["feas_over_N"]


def _c6_kkt(r):
    return max(r["c6"]["stat"], r["c6"]["dual"], r["c6"]["floor"])


ALL = ("quick", "standard", "full")
CLAIMS = [
    Claim("C1_capacity_competition",
          "with infinite data, domain j's measured loss rises monotonically with h_i (i != j): min Spearman "
          "rho(h_0, L_j) over j != 0 at widths 16 and 64",
          _c1_rho, ">=", {s: 0.9 for s in ALL}, kind="paper",
          paper_value="capacity competition explains cross-domain coupling (abstract)", source=SRC + " C1",
          why={"standard": "standard, seeds 0-2 (losses averaged over 2 init seeds, as at quick): min rho = 1.0 / "
                           "1.0 / 0.6 (needs >= 0.9; 5 levels of h_0). On seed 2 the low value is the easiest domain "
                           "at width 16, whose loss moves least with h_0, so two of its five points swap order; the "
                           "other domains at width 16 and every domain at width 64 have rho = 1.0 on that seed "
                           "(re-measured by experiment._run_c1(seed=2))"}),
    Claim("C1_width_helps",
          "testbed check: at every mixture, every domain's loss is lower at width 64 than at width 4 (max ratio "
          "L(64)/L(4)); a fact of our MLPs that the law's N input needs, not a statement of the paper",
          _c1_width, "<", {s: 1.0 for s in ALL}, kind="check",
          paper_value="capacity N enters the law explicitly", source=SRC + " C1"),
    Claim("C2_fewer_params",
          "5K+1 < K^2+K for every K >= 5 (smallest margin over K = 5..50)",
          _c2_margin, ">", {s: 0 for s in ALL}, kind="check",
          paper_value="36 vs 56 parameters at K=7",
          source="official README (5K+1); docs/papers/data_mixing.md §3.2, §4"),
    Claim("C2_fixture_vs_slsqp",
          "capacity losses on the authors' 7-domain parameters agree with an SLSQP solve of the inner problem",
          _c2_fixture, "<=", {s: 1e-6 for s in ALL}, kind="check",
          paper_value="authors' fitted SlimPajama parameters (official repo)",
          source="official optimal_mixture.py; docs/papers/data_mixing.md §3.7"),
    Claim("C3_mre_quick_loose",
          "guard of the fitter: held-out MRE (by mixture) of the 5K+1 law on measured toy losses is below 15% "
          "(a loose check that the fit runs and generalises, not the paper's comparison)",
          _c3_abs, "<", {"quick": 0.15}, kind="check",
          source="docs/papers/data_mixing.md §5 (our guard)"),
    Claim("C3_mre_vs_best",
          "held-out MRE of the 5K+1 law is lower than that of the best competing law (exp, BiMix, Shukor, "
          "linear; ratio ours / min competitor, mean over scales; per-law ratios in the details)",
          _c3_best, "<", {"standard": 1.0, "full": 1.0}, kind="paper", headline=True,
          quote="our framework outperforms existing baselines by fitting the loss landscape with a lower Mean "
                "Relative Error",
          control=Control("C3_nocap_law", "the same test for our law with its capacity term removed (L_i = "
                          "A_i (D h_i)^-a_i + E_i, 3K parameters, baselines.NOCAP), fitted by the same fitter on the "
                          "same mixtures: its held-out MRE over the best competitor's", _c3_control),
          details=_c3_details,
          paper_value="lower MRE than existing laws with fewer parameters (abstract)", source=SRC + " C3",
          why={"standard": _WHY_C3}),
    Claim("C3_mre_abs",
          "held-out MRE of the 5K+1 law is at most 5% (our bar, not the paper's: the paper states only a comparison)",
          _c3_abs, "<=", {"standard": 0.05, "full": 0.05}, kind="extension",
          details=lambda r: {f"mre_{n}": v for n, v in r["test_mre"].items()},
          source="docs/papers/data_mixing.md §5 (our bar)",
          why="at standard the held-out MRE of every law, ours included, is well above 5% (details: each law's "
              "MRE): the laws are fitted to measured toy losses whose deviations from any of the fitted forms are "
              "of that size; this bar is ours, the paper's statement is the comparison (C3_mre_vs_best)"),
    Claim("C4_noise_reduction_law",
          "at ample width and scarce data the fitted law's h* gives the flattest-tailed domain the largest weight, "
          "h*_hard > 1/K > h*_easy (smallest of the three margins); it reads the law's own optimum, so it follows "
          "from the fitted form and parameters, not from a measured loss",
          _c4_law, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="noise reduction pushes the optimum toward harder domains (abstract)", source=SRC + " C4"),
    Claim("C4_noise_reduction_grid",
          "the best measured mixture of the sweep gives the hardest domain more than 1/K",
          _c4_grid, ">", {"standard": 0.0, "full": 0.0}, kind="paper",
          paper_value="noise reduction (abstract)", source=SRC + " C4",
          why="at standard the best of the sweep's 50 random (Dirichlet) mixtures, each a measured noisy loss, gives "
              "the hardest domain less than 1/K on some seeds, while the law's own optimum favours it on every "
              "seed (C4_noise_reduction_law): the grid's argmin over 50 random mixtures is the weaker test"),
    Claim("C4_shift_grows_as_D_shrinks",
          "the fitted law's weight on the hardest domain is larger at the smaller D (reads the law's own optimum)",
          _c4_shift, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="noise reduction (abstract)", source="docs/papers/data_mixing.md §3.4, §5 C4"),
    Claim("C5_extrapolated_optimum",
          "h* of the 5K+1 law fitted jointly at the small scales (inside the hull of its training mixtures), trained "
          "at the large scale, is within 2% of an optimised reference mixture (best of a 58-mixture two-round search "
          "at the target, re-trained; both means over 3 init seeds; relative gap of mean loss)",
          _c5_gap, "<=", {"standard": 0.02, "full": 0.02}, kind="paper",
          why={"standard": "at standard the gap is -0.048 / +0.020 / +0.015 on seeds 0-2: the law's h* beats the "
                           "searched reference on seed 0 and lands within 2% on seed 2; on seed 1 it misses by 0.0003 "
                           "(a gap of 0.0203 against 0.02)"},
          paper_value="successful cross-scale extrapolation (abstract)", source=SRC + " C5"),
    Claim("C5_better_mixtures",
          "at the large scale, the 5K+1 law's extrapolated h* gives a lower mean loss than the best of the other "
          "laws' optima: BiMix's and Shukor's extrapolated h* and the exp law's small-scale optimum reused (it has "
          "no N or D input); same fit data and hull, 3 paired init seeds each; ratio ours / best rival below 1, "
          "per-rival ratios and L1 distances of the optima in the details",
          _c5_better, "<", {"standard": 1.0, "full": 1.0}, kind="paper", headline=True,
          quote="identifying higher-performing training mixtures ... predicting highly effective mixtures for "
                "large, unseen scales using parameters fitted on smaller ones",
          control=Control("C5_nocap_optimum", "the same test for the extrapolated h* of our law with its capacity "
                          "term removed (baselines.NOCAP, fitted jointly on the same small scales, trained with the "
                          "same paired seeds): its mean loss over the best rival's", _c5_control),
          details=_c5_details,
          why={"standard": "at standard ours / best rival = 0.997 / 0.982 / 0.997 on seeds 0-2 (BiMix's optimum is "
                           "the best rival, tied on seed 2 by the exp law's reused one; details). The control, the "
                           "optimum of our law without its capacity term, gives 0.996 / 0.958 / 1.007 against the "
                           "same rivals, as good as ours on seed 0 and better on seed 1: this testbed cannot tell our "
                           "law's optimum from that of a law without capacity competition"},
          paper_value="better mixtures than existing laws; extrapolation (abstract)", source=SRC + " C5"),
    Claim("C6_solver_feasible",
          "bisection solution satisfies |sum x - (N + (K-1)H)| / N on 3x1000 random instances",
          _c6_feas, "<", {s: 1e-8 for s in ALL}, kind="check",
          paper_value="KKT solution of the inner problem (§3.3)", source="docs/papers/data_mixing.md §3.3; C6"),
    Claim("C6_solver_kkt",
          "KKT stationarity / dual / floor residual of the bisection solution on 3x1000 random instances",
          _c6_kkt, "<", {s: 1e-6 for s in ALL}, kind="check",
          paper_value="KKT solution of the inner problem (§3.3)", source="docs/papers/data_mixing.md §3.3; C6"),
]
