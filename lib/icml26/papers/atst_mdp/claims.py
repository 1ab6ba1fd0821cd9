"""Claims for ATST-MDPs (arXiv 2510.02149; docs/papers/atst_mdp.md §5).

The paper is theory-only (no experiments in the accessible text), so ``paper_value`` quotes the
statement being tested (theorem-level) and the thresholds are our margins. The exact identities (claims
1-3) and the drifting ring's calibration (claim 4: deterministic, seed-independent facts of our environment)
are checks. The regret-slope and rate claims need ``K >= 1000`` and are checked from ``standard`` on.

At quick (K = 300, three replicates) one learning claim is checked: the last-quarter / first-quarter
per-episode regret of ATST-LSVI-UCB <= 0.9. On development seeds 100-104 it measured 0.40 / 0.77 / 0.71 /
0.53 / 0.62, while ATST / stale LSVI-UCB at quick measured 0.66 / 0.78 / 1.45 / 0.53 / 0.80 (not checked at
quick: at K = 300 the ordering of the two learners flips on one development seed in five).
"""

from __future__ import annotations

from icml26.claims import Claim, Control, Premise

# The ICML abstract's regret statement (OpenReview zdZJutupvE), the sentence the headline claim tests.
QUOTE_BOUND = ("we derive ST-LSVI-UCB, an optimistic algorithm achieving regret O~(sqrt(K d^3 (1-gamma)^-3)) for "
               "episodic learning with geometrically distributed horizons")

ALL = ("quick", "standard", "full")


def _all(x):
    return {s: x for s in ALL}


def equivalence_sup(r):
    return r["equivalence"]["max_sup_diff"]


def equivalence_mc(r):
    return r["equivalence"]["max_mc_z"]


def linear_err(r):
    return r["linear"]["max_abs_err"]


def min_increment(r):
    return r["monotone"]["min_increment"]


def excess_over_bound(r):
    return r["monotone"]["max_excess_over_bound"]


def ring_order(r):
    return r["ring"]["default"]["order_margin"]


def ring_gap(r):
    return r["ring"]["default"]["gap_qmdp"]


def ring_gap_near_one(r):
    return r["ring"]["gap_near_one"]


def psi_slope(r):
    return r["psi"]["slope"]


def _lq(r, name):
    return r["regret"]["learners"][name]["last_quarter"]


def regret_last_over_first(r):
    d = r["regret"]["learners"]["atst_lsvi_ucb"]
    return d["last_quarter"] / d["first_quarter"]


def regret_vs_stale(r):
    return _lq(r, "atst_lsvi_ucb") / _lq(r, "stale_lsvi_ucb")


def atst_slope(r):
    return r["regret"]["learners"]["atst_lsvi_ucb"]["slope"]


def stale_slope(r):
    return r["regret"]["learners"]["stale_lsvi_ucb"]["slope"]


def repeat_gap(r):
    """Mean per-episode value the best constant-sequence policy (all the stale learner can play) loses to V*."""
    return sum(r["regret"]["best_repeat_gap"]) / len(r["regret"]["best_repeat_gap"])


def full_last_over_first(r):
    d = r["regret"]["learners"]["full_lsvi_ucb"]
    return d["last_quarter"] / d["first_quarter"]


def dir1_last_over_first(r):
    d = r["regret_dir1"]["learners"]["atst_lsvi_ucb"]
    return d["last_quarter"] / d["first_quarter"]


def dir1_vs_stale(r):
    L = r["regret_dir1"]["learners"]
    return L["atst_lsvi_ucb"]["last_quarter"] / L["stale_lsvi_ucb"]["last_quarter"]


def dir1_repeat_gap(r):
    g = r["regret_dir1"]["best_repeat_gap"]
    return sum(g) / len(g)


def rate_max_slope(r):
    return r["rate"]["max_slope"]["atst_lsvi_ucb"]


def rate_slope_gap(r):
    gaps = r["rate"]["slope_gap"]["per_cell"]
    return sum(abs(g) for g in gaps) / len(gaps)


def rate_d_lo(r):
    return r["rate"]["exponents"]["atst_lsvi_ucb"]["d"]["lo"]


def rate_d_value(r):
    return r["rate"]["exponents"]["atst_lsvi_ucb"]["d"]["value"]


def rate_h_lo(r):
    return r["rate"]["exponents"]["atst_lsvi_ucb"]["horizon"]["lo"]


def rate_h_value(r):
    return r["rate"]["exponents"]["atst_lsvi_ucb"]["horizon"]["value"]


def _sequences_matter(metric, part):
    return Premise(f"{part}_constant_class_gap",
                   f"{part}: the best constant-sequence policy (all that stale LSVI-UCB can play) loses >= 0.1 per "
                   "episode to V* (mean over replicates), so sequences have room to beat it",
                   metric, ">=", 0.1)


SRC = "abstracts (v1, v2, ICML); derivations in docs/papers/atst_mdp.md §3"

WHY_MATCH = ("ATST's exponent in K exceeds the fully observed reference's in 4 of 5 cells (seed 0: +0.22, +0.27, "
             "-0.07, +0.30, +0.10) and the gap does not close at 3x K: re-run to K = 9000 (seed 0), cell d = 5, "
             "gamma = 0.8 goes from 0.52 vs 0.25 (K = 3000) to 0.38 vs 0.14, and gamma = 0.9 from 0.70 vs 0.60 to "
             "0.79 vs 0.46. The fully observed learner (d features, 3 options against 2d features and 27 "
             "sequences) enters its flat phase far earlier (last / first quarter 0.04-0.08 against ATST's 0.25-0.44 "
             "at gamma <= 0.8), so within K <= 9000 the two curves are in different phases; the bound's equal rate "
             "is a worst-case, large-K statement that our grid does not reach")
WHY_HORIZON = ("the point exponent (1.56 / 1.66 / 1.62) exceeds 3/2 but its 90% bootstrap interval is wide (seed 0: "
               "[0.50, 2.26]), and the fully observed reference on the same MDPs grows faster still (1.92, [0.47, "
               "2.75]), so the excess does not come from partial observation. It comes from the gamma = 0.9 cell, "
               "still early in learning at K = 3000 (ATST last / first quarter 0.52 against 0.16-0.44 in the other "
               "cells, seed 0) and more so at 3x K (K = 9000, seed 0: its exponent in K rises from 0.70 to 0.79, "
               "last / first quarter 0.68): the bound's (1-gamma)^-3/2 holds as K grows, and the longest-horizon "
               "cell has not reached that regime at our K")

CLAIMS = [
    Claim("equivalence_sup",
          "augmented-state value iteration and action-sequence enumeration give the same V* (sup-norm) on "
          "random tabular ATST-MDPs (|S| <= 6, |A| = 3, L <= 4)",
          equivalence_sup, "<=", _all(1e-10), kind="check",
          paper_value="an optimal policy exists and equals committing to action sequences (theorem)",
          source=SRC + " (§3.2-§3.3)"),
    Claim("equivalence_monte_carlo",
          "simulator Monte Carlo returns (20k rollouts) agree with the sequence formula Q(s, alpha): max |z|",
          equivalence_mc, "<=", _all(4.0), kind="check",
          paper_value="Bellman equations on the augmented state (theorem)", source=SRC + " (§3.1-§3.3)"),
    Claim("linear_representation",
          "under a linear MDP, belief-propagated Q(s, alpha; V) equals Psi(s, alpha)^T [theta; w_V] for any V "
          "(d = 5, |S| = 20): max abs error",
          linear_err, "<=", _all(1e-10), kind="check",
          paper_value="value is linear in a d-dimensional induced feature map (theorem)", source=SRC + " (§3.5)"),
    Claim("monotone_in_L",
          "V*_L is nondecreasing in the sequence-length cap L: smallest increment V*_{L+1} - V*_L",
          min_increment, ">=", _all(-1e-10), kind="check",
          paper_value="(not in the accessible text; our tail rule, docs page §3.4)",
          source="docs/papers/atst_mdp.md §3.4 (inferred)"),
    Claim("tail_bound",
          "V*_{L+1} - V*_L <= (gamma max(1-beta))^L / (1-gamma): largest excess over the bound",
          excess_over_bound, "<=", _all(1e-10), kind="check",
          paper_value="(not in the accessible text; our tail rule, docs page §3.4)",
          source="docs/papers/atst_mdp.md §3.4 (inferred)"),
    Claim("ring_ordering",
          "drifting ring: V_MDP >= V*_ATST >= V_QMDP >= V_stale at every state (smallest margin)",
          ring_order, ">=", _all(-1e-9), kind="check",
          paper_value="(no experiments in the paper; our environment)",
          source="docs/papers/atst_mdp.md §2, §4"),
    Claim("ring_gap_vs_qmdp",
          "drifting ring at beta_move = 0.1: (V*_ATST - V_QMDP) / V*_ATST (start-averaged) >= 5% (the ring's "
          "calibration: sensing has information value)",
          ring_gap, ">=", _all(0.05), kind="check",
          paper_value="(no experiments in the paper; a fact of our environment)",
          source="docs/papers/atst_mdp.md §2, §4"),
    Claim("ring_gap_near_full_observation",
          "the ATST-QMDP gap vanishes as the move actions' trigger probability grows (beta_move = 0.9)",
          ring_gap_near_one, "<=", _all(0.01), kind="check",
          paper_value="(no experiments in the paper; a fact of our environment)",
          source="docs/papers/atst_mdp.md §2, §4"),
    Claim("psi_rate_upper",
          "off-policy Psi_hat sup-error decays with offline n: log-log slope <= -0.35",
          psi_slope, "<=", _all(-0.35), kind="paper",
          paper_value="off-policy estimators with statistical error guarantees (v1 abstract)",
          source="v1 abstract; docs/papers/atst_mdp.md §3.6"),
    Claim("psi_rate_lower",
          "off-policy Psi_hat sup-error: log-log slope >= -0.65 (ours: a parametric n^-1/2 rate, not faster; a "
          "faster decay would not contradict the paper's error guarantee, so this is not counted as the paper's)",
          psi_slope, ">=", _all(-0.65), kind="extension",
          paper_value="off-policy estimators with statistical error guarantees (v1 abstract)",
          source="v1 abstract; docs/papers/atst_mdp.md §3.6"),
    Claim("regret_decreases",
          "ATST-LSVI-UCB: mean per-episode regret over the last quarter / first quarter of K episodes",
          regret_last_over_first, "<=", {"quick": 0.9, "standard": 0.5, "full": 0.5}, kind="paper",
          paper_value="regret O~(sqrt(K d^3 (1-gamma)^-3)), i.e. sublinear",
          source="abstracts; docs/papers/atst_mdp.md §3.7"),
    Claim("regret_vs_stale_lsvi",
          "ATST-LSVI-UCB last-quarter regret / stale LSVI-UCB (features phi(s_last, a)) last-quarter regret",
          regret_vs_stale, "<=", {"standard": 0.3, "full": 0.3}, kind="extension",
          requires=_sequences_matter(repeat_gap, "regret"),
          paper_value="(no experiments in the paper; our baseline)",
          source="docs/papers/atst_mdp.md §4"),
    Claim("regret_slope_upper",
          "the bound as a bound (one-sided): the log-log slope of ATST-LSVI-UCB's cumulative regret over K in "
          "[K/8, K] is at most 0.75, the theorem's exponent 1/2 plus room for its log factors at finite K (a "
          "flatter regret never contradicts an upper bound, so there is no lower edge)",
          atst_slope, "<=", {"standard": 0.75, "full": 0.75}, kind="paper", headline=True, quote=QUOTE_BOUND,
          control=Control("stale_lsvi_ucb_slope", "a learner with a wrong trigger model: stale LSVI-UCB (features "
                          "phi(s_last, a), ignoring the trigger probabilities beta and the time since the last "
                          "observation) on the same MDPs, episodes and bonus rule: its cumulative-regret slope",
                          stale_slope),
          paper_value="0.5 (sqrt(K) rate)", source="abstracts (regret bound); docs/papers/atst_mdp.md §3.7"),
    Claim("stale_linear_regret",
          "stale LSVI-UCB's cumulative-regret slope >= 0.9 (linear regret: it cannot represent sequences)",
          stale_slope, ">=", {"standard": 0.9}, kind="extension",
          paper_value="(no experiments in the paper)", source="docs/papers/atst_mdp.md §4",
          why="measured at K = 3000 (5 replicates, seed 0): stale LSVI-UCB still improves inside its restricted "
              "one-action-per-segment class (per-episode regret 0.40 in the first quarter, 0.28 in the last), so "
              "its cumulative-regret slope over [K/8, K] is 0.83, not >= 0.9, while its regret does not vanish "
              "(last quarter 4.5x ATST-LSVI-UCB's 0.064); no run at larger K was made, so whether the slope "
              "reaches 0.9 later is open"),
    Claim("dir1_vs_stale_lsvi",
          "the regret testbed with Dir(1) features (K = 1000, 4 replicates): ATST-LSVI-UCB last-quarter regret / "
          "stale LSVI-UCB last-quarter regret <= 0.3",
          dir1_vs_stale, "<=", {"standard": 0.3, "full": 0.3}, kind="extension",
          requires=_sequences_matter(dir1_repeat_gap, "regret_dir1"),
          why={"standard": "the Dir(1) testbed is the null result: its constant-sequence policies lose only 0.115 / "
                           "0.076 / 0.073 per episode to V* on seeds 0 / 1 / 2 (0.19 / 0.15 / 0.16 with Dir(0.1)), "
                           "so the premise holds on seed 0 alone, and there ATST / stale LSVI-UCB measured 0.66 "
                           "(0.93 / 0.68 on seeds 1-2, 1.01 / 0.78 on development seeds 100-101): with so little "
                           "for sequences to win, ATST does not pull ahead of stale within K = 1000"},
          paper_value="(no experiments in the paper; our baseline, on the Dir(1) null testbed)",
          source="docs/papers/atst_mdp.md §2, §4"),
    Claim("rate_sublinear_every_cell",
          "regret against K on the grid d in {3, 5, 8} (gamma = 0.8) and gamma in {0.7, 0.8, 0.9} (d = 5): the "
          "largest fitted exponent in K of ATST-LSVI-UCB's cumulative regret over [K/8, K] is <= 0.75",
          rate_max_slope, "<=", {"standard": 0.75, "full": 0.75}, kind="paper",
          why={"standard": "the largest exponent over the five grid cells is 0.70 / 0.74 / 0.68 on seeds 0-2, below "
                           "the 0.75 bar on every seed; the maximum of five noisy fitted slopes varies with SD 0.056 "
                           "over development seeds 100-102 (0.65 / 0.55 / 0.64), so seeds 0 and 1 lie within that "
                           "noise margin of the bar (ties) and only seed 2 clears it"},
          paper_value="exponent 1/2 in K: O~(sqrt(K d^3 (1-gamma)^-3))",
          source="abstracts (regret bound); docs/papers/atst_mdp.md §3.7, §5"),
    Claim("rate_matches_full_observation",
          "the same grid: mean over cells of |exponent in K of ATST-LSVI-UCB - exponent in K of fully observed "
          "LSVI-UCB on the same MDPs| <= 0.15",
          rate_slope_gap, "<=", {"standard": 0.15, "full": 0.15}, kind="extension", why={"standard": WHY_MATCH},
          paper_value="the rate matches the fully observed linear-MDP rate (v2 and ICML abstracts)",
          source="abstracts (v2, ICML); docs/papers/atst_mdp.md §4, §5"),
    Claim("rate_grows_with_d",
          "final regret grows with d (gamma = 0.8): the 90% bootstrap interval of the fitted exponent in d lies "
          "above 0 (its lower end)",
          rate_d_lo, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          why={"standard": "the lower end of the interval is above 0 on every seed (0.08 / 0.63 / 0.21), but seed "
                           "0's 0.08 is within its noise margin (SD 0.18 over development seeds 100-102: 0.29 / "
                           "0.59 / 0.62); three values of d give a wide interval on the exponent"},
          paper_value="d^{3/2} in the bound", source="abstracts (regret bound); docs/papers/atst_mdp.md §5"),
    Claim("rate_d_within_bound",
          "fitted exponent of the final regret in d (gamma = 0.8) <= 3/2, the bound's",
          rate_d_value, "<=", {"standard": 1.5, "full": 1.5}, kind="paper",
          paper_value="d^{3/2} in the bound", source="abstracts (regret bound); docs/papers/atst_mdp.md §5"),
    Claim("rate_grows_with_horizon",
          "final regret grows with the effective horizon (1-gamma)^-1 (d = 5): the 90% bootstrap interval of the "
          "fitted exponent lies above 0 (its lower end)",
          rate_h_lo, ">", {"standard": 0.0, "full": 0.0}, kind="extension",
          paper_value="(1-gamma)^{-3/2} in the bound", source="abstracts (regret bound); docs/papers/atst_mdp.md §5"),
    Claim("rate_horizon_within_bound",
          "fitted exponent of the final regret in (1-gamma)^-1 (d = 5) <= 3/2, the bound's",
          rate_h_value, "<=", {"standard": 1.5, "full": 1.5}, kind="paper", why={"standard": WHY_HORIZON},
          paper_value="(1-gamma)^{-3/2} in the bound", source="abstracts (regret bound); docs/papers/atst_mdp.md §5"),
]
