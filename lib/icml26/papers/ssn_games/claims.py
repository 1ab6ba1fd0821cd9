"""Claims of the paper (docs/papers/ssn_games.md §5) as measurable functions of :func:`experiment.run`'s results.

Cost is in mat-vec equivalents (docs/papers/ssn_games.md §2). Where the abstract's wording needed a precise reading it
is stated in the claim's statement (see also ``3_reproduce.ipynb``).
"""

from __future__ import annotations

import math

from icml26.claims import TIMED_RERUN_RTOL, Claim, Control

LOCAL_START = 1e-2   # the local phase: the final run of full Newton steps, from its first gap <= this.
# Our first protocol asked for warm starts with gap <= 1e-4; with the line-search globalisation the full steps here
# start from gaps of ~1e-3, which is a harder test of the same statement (fewer steps from farther away).
FLOOR = 1e-13        # gaps at or below this are at the floating-point floor: no order is measured


def _local_tail(gaps, full):
    """Gaps of the final run of full Newton steps, from the first gap <= LOCAL_START (``[]`` if none)."""
    k = len(full)
    while k > 0 and full[k - 1]:
        k -= 1
    tail = gaps[k:]
    for i, g in enumerate(tail):
        if g <= LOCAL_START:
            return tail[i:], i + k
    return [], None


def local_steps(r) -> float:
    """Max over games of full Newton steps from the local start (gap <= LOCAL_START) to gap <= 1e-12."""
    worst = 0
    for gaps, full in zip(r["local"]["gaps"], r["local"]["full_steps"]):
        tail, _ = _local_tail(gaps, full)
        hit = next((i for i, g in enumerate(tail) if g <= 1e-12), None)
        if hit is None:
            return math.inf
        worst = max(worst, hit)
    return float(worst)


def local_order(r) -> float:
    """Min over games and local steps (both gaps above 1e-13) of ``log g_{k+1} / log g_k``."""
    orders = []
    for gaps, full in zip(r["local"]["gaps"], r["local"]["full_steps"]):
        tail, _ = _local_tail(gaps, full)
        if not tail:
            return 0.0
        for g0, g1 in zip(tail, tail[1:]):
            if g1 > FLOOR and g0 < 1:
                orders.append(math.log(g1) / math.log(g0))
    return min(orders) if orders else math.nan


def local_residual_ratio(r) -> float:
    """Max over games of ``||G_{k+1}|| / ||G_k||`` on the last two steps of the local phase."""
    worst = 0.0
    for gaps, res, full in zip(r["local"]["gaps"], r["local"]["residuals"], r["local"]["full_steps"]):
        _, start = _local_tail(gaps, full)
        if start is None:
            return math.inf
        tail = res[start:]
        ratios = [b / a for a, b in zip(tail, tail[1:]) if a > 0]
        if not ratios:
            return math.inf
        worst = max(worst, max(ratios[-2:]))
    return worst


def local_start_gap(r) -> float:
    """Largest gap at which a game's local (full-step) phase started (information for the reader)."""
    starts = [_local_tail(g, f)[0][:1] for g, f in zip(r["local"]["gaps"], r["local"]["full_steps"])]
    return max(s[0] for s in starts) if all(starts) else math.inf


def _ratio(h_costs, prm, budget_iterations, modes) -> float:
    """Min over games of (best PRM+ cost to the target among ``modes``, or the budget) / (hybrid's cost)."""
    out = []
    for b, h in enumerate(h_costs):
        costs = [v["cost_to_target"][b] for k, v in prm.items()
                 if k.split("/")[0] in modes and v["cost_to_target"][b] is not None]
        out.append((min(costs) if costs else 2.0 * budget_iterations) / h)
    return min(out)


def _cost_ratio(r, modes) -> float:
    return _ratio(r["hybrid"]["cost_to_target"], r["prm"], r["prm_budget_iterations"], modes)


def cost_ratio_paper_baseline(r) -> float:
    """Ratio against the paper's baseline: simultaneous PRM+ ("PCFR"), best of last/uniform/linear/quadratic."""
    return _cost_ratio(r, ("simultaneous",))


def cost_ratio_alternating(r) -> float:
    """Ratio against alternating PRM+ (the stronger order; not run in the paper), best of its four averagings."""
    return _cost_ratio(r, ("alternating",))


def cost_ratio(r) -> float:
    """Ratio against every PRM+ variant (simultaneous and alternating, all averagings); shown, not asserted."""
    return _cost_ratio(r, ("simultaneous", "alternating"))


NO_NEWTON = ("alternating/quadratic", "alternating/last")
"""The hybrid's own first-order phase run alone (alternating PRM+, its quadratic average and last iterate: the
two warm starts the hybrid hands to Newton): the hybrid without its Newton phase, the headline's control."""


def _control_ratio(prm, budget_iterations, modes) -> float:
    """The headline's test with the method replaced by its first-order phase alone (:data:`NO_NEWTON`): per game,
    (best PRM+ cost to the target among ``modes``, or twice the budget) / (the no-Newton run's cost, or twice the
    budget where it never got there), min over games."""
    never = 2.0 * budget_iterations
    out = []
    for b in range(len(next(iter(prm.values()))["cost_to_target"])):
        base = [v["cost_to_target"][b] for k, v in prm.items()
                if k.split("/")[0] in modes and v["cost_to_target"][b] is not None]
        ctrl = [prm[k]["cost_to_target"][b] for k in NO_NEWTON if prm[k]["cost_to_target"][b] is not None]
        out.append((min(base) if base else never) / (min(ctrl) if ctrl else never))
    return min(out)


def control_no_newton(r) -> float:
    """Headline control: simultaneous PRM+ against the hybrid's first-order phase without Newton."""
    return _control_ratio(r["prm"], r["prm_budget_iterations"], ("simultaneous",))


def cost_ratio_details(r) -> dict:
    """Per PRM+ order: the worst-game cost ratio of the hybrid (shown with the headline)."""
    return {"vs simultaneous PRM+": cost_ratio_paper_baseline(r), "vs alternating PRM+": cost_ratio_alternating(r),
            "vs every PRM+ variant": cost_ratio(r), "PRM+ budget (iterations)": r["prm_budget_iterations"]}


def family_ratios(r, modes) -> dict:
    """Per game family (``r["families"]``): the worst-game cost ratio against the PRM+ ``modes``."""
    return {f["name"]: _ratio(f["hybrid"]["cost_to_target"], f["prm"], f["prm_budget_iterations"], modes)
            for f in r["families"]}


def families_ratio_paper_baseline(r) -> float:
    """Min over the other families (rectangular, uniform, sign, symmetric) of the ratio vs simultaneous PRM+."""
    return min(family_ratios(r, ("simultaneous",)).values())


def families_ratio_alternating(r) -> float:
    """Min over the other families of the ratio vs alternating PRM+."""
    return min(family_ratios(r, ("alternating",)).values())


def prm_min_gap(r) -> float:
    """Smallest gap any PRM+ variant (sim/alt x last/uniform/linear/quadratic) reached within its budget."""
    return min(min(min(g) for g in v["gap"]) for v in r["prm"].values())


def prm_min_log_gap(r) -> float:
    """log10 of :func:`prm_min_gap`: gaps span decades, so their seed-to-seed noise (the claim's margin) is measured
    on this scale."""
    return math.log10(prm_min_gap(r))


def lp_value_error(r) -> float:
    """Max |hybrid value - HiGHS value| over the square games and the rectangular one."""
    errs = [abs(a - b) for a, b in zip(r["hybrid"]["value"], r["lp"]["value"])]
    errs.append(abs(r["rect"]["hybrid_value"] - r["rect"]["lp_value"]))
    for f in r.get("families", []):
        errs += [abs(a - b) for a, b in zip(f["hybrid"]["value"], f["lp"]["value"])]
    return max(errs)


def hybrid_max_gap(r) -> float:
    """Max duality-gap certificate of the hybrid over all games (square, rectangular and the other families)."""
    return max([*r["hybrid"]["gap"], r["rect"]["hybrid_gap"], *(g for f in r.get("families", [])
                                                                 for g in f["hybrid"]["gap"])])


def cold_failures(r) -> float:
    """Fraction of games where unsafeguarded SSN from the uniform strategy never gets below gap 1e-3 in 30 steps."""
    mins = r["cold"]["min_gap"]
    return sum(g > 1e-3 for g in mins) / len(mins)


def hybrid_success(r) -> float:
    """Fraction of games (square, rectangular and the other families) where the hybrid certifies its tolerance."""
    ok = list(r["hybrid"]["converged"]) + [r["rect"]["converged"]]
    ok += [c for f in r.get("families", []) for c in f["hybrid"]["converged"]]
    return sum(bool(c) for c in ok) / len(ok)


def support_mismatch(r) -> float:
    """Max over games of | |supp x*| - |supp y*| | at the hybrid's solution."""
    s = r["structure"]
    return float(max(abs(a - b) for a, b in zip(s["support_x"], s["support_y"])))


def max_cond(r) -> float:
    """Max condition number of ``V = I - D + eta M D`` at the solution."""
    return max(r["structure"]["cond_V"])


def scaling_ratio(r) -> float:
    """Min over sizes of time(alternating PRM+ to 1e-8, capped at ``time_factor`` x the hybrid's, 20 at standard and
    full) / time(hybrid to 1e-8)."""
    return min(s["time_ratio"] for s in r["scaling"]["sizes"])


ALL = {"quick": 0, "standard": 0, "full": 0}
SRC = "abstract; §4-5 (method, Theorem 4); experiments (Tables 1-2)"

WHY_HYBRID_VS_PRM_PLUS_COST = ("seeds 0-2 give 20, 9.67, 20 (20 = simultaneous PRM+ never reached gap 1e-10 while it "
                               "ran for 20x the hybrid's largest cost). On seed 1 its last iterate reached the target "
                               "on one game of nine at 9.67x the hybrid's cost: just short of an order of magnitude. "
                               "The ratio is bimodal (never reached, or caught up on one game), so its noise margin "
                               "over development seeds 100-102 (20, 8.3, 20) is 6.7 and seed 1 is a tie, not a miss")

WHY_SCALING_TIME_RATIO = ("wall-clock ratios (minimum over 100x100, 300x300 and 400x800) 18.4, 5.12, 4.67 on seeds 0-2 "
                          "(20 = capped: PRM+ never reached 1e-8). The record keeps only the minimum; in the earlier "
                          "10x race (development seed 101) it came from 400x800, where a dense Newton solve "
                          "(n+m = 1200) costs as much as hundreds of mat-vecs, so the hybrid's time there is dominated "
                          "by its solves. The development seeds (20, 7.9, 10.4) spread so widely that seeds 1 and 2 "
                          "are within the noise margin (6.4) of the bar: ties. Wall clock was measured on a shared "
                          "2-core machine (the cost claims, in mat-vecs, do not depend on it)")

WHY_ALT_COST = ("seeds 0-2 give 9.56, 3.79, 17.4. On seeds 0 and 1 the alternating last iterate reached gap 1e-10 on "
                "one game at 9.56x and 3.79x the hybrid's cost; on the seed-1 game the hybrid ran PRM+ long before a "
                "Newton phase succeeded while alternating PRM+ converged linearly there. Alternating PRM+ is not the "
                "paper's baseline (an extension of ours); against it the speed-up is not an order of magnitude on "
                "every game")

WHY_FAMILIES_SIM = ("development seed 100 missed (one uniform [0,1] game where simultaneous quadratic-averaged PRM+ "
                    "reached 1e-10 at 7.6x the hybrid's cost); evaluation seeds 0-2 give 18.1, 20, 20")

WHY_FAMILIES_ALT = ("seeds 0-2 give 9.66, 9.03, 9.31, each from one family and one game (seed 0 uniform [0,1], seed 1 "
                    "rectangular 100x200, seed 2 skew), where alternating PRM+ reached 1e-10 just before 10x the "
                    "hybrid's largest cost; within the noise margin (2.9 over development seeds 100-102) of the bar on "
                    "every seed: against alternating PRM+ the speed-up is about, not clearly at least, an order of "
                    "magnitude")

CLAIMS = [
    Claim("ssn_local_steps",
          "Once the Newton phase takes full steps (from gap <= 1e-2; first plan: <= 1e-4), it reaches gap <= 1e-12 "
          "within 6 steps",
          metric=local_steps, op="<=", threshold={"quick": 6, "standard": 6, "full": 6}, kind="paper",
          paper_value="local quadratic convergence (Theorem 4)", source="§4, Theorem 4"),
    Claim("ssn_local_order",
          "Local order of convergence log g_{k+1}/log g_k >= 1.5 on every full step above the 1e-13 floor",
          metric=local_order, op=">=", threshold={"quick": 1.5, "standard": 1.5, "full": 1.5}, kind="paper",
          paper_value="quadratic (order 2)", source="§4, Theorem 4"),
    Claim("ssn_local_residual_ratio",
          "Residual contraction ||G_{k+1}||/||G_k|| < 1e-2 on the last two Newton steps",
          metric=local_residual_ratio, op="<", threshold={"quick": 1e-2, "standard": 1e-2, "full": 1e-2}, kind="paper",
          paper_value="superlinear", source="§4, Theorem 4"),
    Claim("hybrid_vs_prm_plus_cost",
          "To reach gap 1e-10, simultaneous PRM+ (the paper's 'PCFR' baseline; best of last iterate and "
          "uniform/linear/quadratic averages) needs >= 10x the hybrid's mat-vec equivalents (worst game; "
          "PRM+ runs for 20x the hybrid's largest cost at standard and full, so a bar of 10 can be cleared beyond "
          "its noise margin; a value of 20 means it never got there)",
          metric=cost_ratio_paper_baseline, op=">=", threshold={"standard": 10, "full": 10}, kind="paper",
          headline=True,
          quote="Numerical experiments on matrix games demonstrate order-of-magnitude speedups over PRM+ for "
                "high-precision solutions.",
          control=Control("prm_plus_without_newton", "the same test with the hybrid replaced by its own "
                          "first-order phase alone (alternating PRM+, quadratic average or last iterate, the "
                          "hybrid's two warm starts; no Newton phase), on the same games and budget",
                          control_no_newton),
          details=cost_ratio_details,
          why={"standard": WHY_HYBRID_VS_PRM_PLUS_COST},
          paper_value="an order of magnitude faster than PRM+", source="abstract; Tables 1-2"),
    Claim("hybrid_vs_alt_prm_plus_cost",
          "To reach gap 1e-10, alternating PRM+ (the stronger update order a reviewer asked for; best of last "
          "iterate and uniform/linear/quadratic averages) needs >= 10x the hybrid's mat-vec equivalents (worst "
          "game; same budget of 20x the hybrid's largest cost)",
          metric=cost_ratio_alternating, op=">=", threshold={"standard": 10, "full": 10}, kind="extension",
          why={"standard": WHY_ALT_COST},
          paper_value="an order of magnitude faster than PRM+ (alternating PRM+ not run in the paper)",
          source="abstract; Tables 1-2; docs/papers/ssn_games.md (baselines)"),
    Claim("families_vs_prm_plus_cost",
          "On rectangular (100x200), uniform [0,1], sign (+-1) and symmetric (skew) games, simultaneous PRM+ "
          "needs >= 10x the hybrid's mat-vec equivalents to reach gap 1e-10 (worst game of every family)",
          metric=families_ratio_paper_baseline, op=">=", threshold={"standard": 10, "full": 10}, kind="extension",
          why={"standard": WHY_FAMILIES_SIM},
          paper_value="an order of magnitude faster than PRM+ (the paper's tables: random games incl. 400x800)",
          source="abstract; Tables 1-2"),
    Claim("families_vs_alt_prm_plus_cost",
          "On the same four families, alternating PRM+ needs >= 10x the hybrid's mat-vec equivalents to reach "
          "gap 1e-10 (worst game of every family)",
          metric=families_ratio_alternating, op=">=", threshold={"standard": 10, "full": 10}, kind="extension",
          why={"standard": WHY_FAMILIES_ALT},
          paper_value="an order of magnitude faster than PRM+ (alternating PRM+ not run in the paper)",
          source="abstract; Tables 1-2"),
    Claim("prm_plus_misses_target",
          "No PRM+ variant (simultaneous/alternating x last/uniform/linear/quadratic) reaches gap 1e-10 "
          "(log10 of the smallest gap > -10) within 16k iterations (32k mat-vecs, 2-6x the hybrid's largest cost)",
          metric=prm_min_log_gap, op=">", threshold={"quick": -10.0}, kind="paper",
          paper_value="PRM+ stalls at high precision", source="abstract; Tables 1-2"),
    Claim("hybrid_matches_lp",
          "Hybrid game value matches linprog(HiGHS) to <= 1e-7",
          metric=lp_value_error, op="<=", threshold={"quick": 1e-7, "standard": 1e-7, "full": 1e-7}, kind="check",
          paper_value="(project check; LP baseline requested by reviewers)",
          source="ICLR 2026 reviews (LP baseline); docs/papers/ssn_games.md §4"),
    Claim("hybrid_certificate",
          "Hybrid duality-gap certificate <= 1e-10 on every game (implied by its stopping rule: a guard that the "
          "certificate is computed and met, not a separate result)",
          metric=hybrid_max_gap, op="<=", threshold={"quick": 1e-10, "standard": 1e-10, "full": 1e-10}, kind="check",
          paper_value="machine precision", source="abstract; experiments"),
    Claim("cold_ssn_fails",
          "Unsafeguarded SSN from the uniform strategy fails to get below gap 1e-3 in 30 steps on >= 2/3 of games",
          metric=cold_failures, op=">=", threshold={"quick": 2 / 3, "standard": 2 / 3, "full": 2 / 3}, kind="paper",
          paper_value="SSN is only locally convergent", source="§4-5 (Algorithm 1 motivation)"),
    Claim("hybrid_always_converges",
          "The globalised hybrid certifies every game",
          metric=hybrid_success, op=">=", threshold={"quick": 1.0, "standard": 1.0, "full": 1.0}, kind="paper",
          paper_value="hybrid converges", source="§5, Algorithm 1"),
    Claim("equal_supports",
          "At the solution the two players' support sizes are equal (nondegenerate random games)",
          metric=support_mismatch, op="<=", threshold=dict(ALL), kind="check",
          paper_value="(structure sanity)", source="docs/papers/ssn_games.md §5 (our check)"),
    Claim("newton_matrix_nonsingular",
          "V = I - D + eta M D is nonsingular at the solution (condition number < 1e12)",
          metric=max_cond, op="<", threshold={"quick": 1e12, "standard": 1e12, "full": 1e12}, kind="check",
          paper_value="nonsingular (regularity for Theorem 4)", source="§4"),
    Claim("scaling_time_ratio",
          "Wall clock: alternating PRM+ to gap 1e-8 takes >= 10x the hybrid's time at every size "
          "(standard: 100, 300, 400x800; full: 1000, 400x800, 3000)",
          metric=scaling_ratio, op=">=", threshold={"standard": 10, "full": 10}, kind="paper",
          why={"standard": WHY_SCALING_TIME_RATIO}, rerun_rtol=TIMED_RERUN_RTOL,
          paper_value="order of magnitude; a few seconds at 400x800", source="Tables 1-2; reviews"),
]
