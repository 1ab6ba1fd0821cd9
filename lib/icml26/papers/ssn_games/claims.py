"""Claims of the paper (docs/papers/ssn_games.md §5) as measurable functions of :func:`experiment.run`'s results.

Cost is in mat-vec equivalents (docs/papers/ssn_games.md §2). Where the abstract's wording needed a precise reading it
is stated in the claim's statement (see also ``3_reproduce.ipynb``).
"""

from __future__ import annotations

import math

from icml26.claims import Claim

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


def _cost_ratio(r, modes) -> float:
    """Min over games of (best PRM+ cost to the target among ``modes``, or the budget) / (hybrid's cost)."""
    budget = 2.0 * r["prm_budget_iterations"]
    out = []
    for b, h in enumerate(r["hybrid"]["cost_to_target"]):
        costs = [v["cost_to_target"][b] for k, v in r["prm"].items()
                 if k.split("/")[0] in modes and v["cost_to_target"][b] is not None]
        out.append((min(costs) if costs else budget) / h)
    return min(out)


def cost_ratio_paper_baseline(r) -> float:
    """Ratio against the paper's baseline: simultaneous PRM+ ("PCFR"), best of last/uniform/linear/quadratic."""
    return _cost_ratio(r, ("simultaneous",))


def cost_ratio(r) -> float:
    """Ratio against every PRM+ variant (simultaneous and alternating, all averagings).

    Reported, not asserted: against alternating PRM+ (not run in the paper) the 10x margin is seed-dependent.
    At standard scale the worst game gave 9.6x (seed 0) and 3.8x (seed 1; alternating last iterate converged
    linearly), while all 27 games of seed 2 gave >= 10x. A threshold would be flaky and an expected miss
    would fail on seed 2, so the numbers are shown in ``3_reproduce.ipynb`` instead.
    """
    return _cost_ratio(r, ("simultaneous", "alternating"))


def prm_min_gap(r) -> float:
    """Smallest gap any PRM+ variant (sim/alt x last/uniform/linear/quadratic) reached within its budget."""
    return min(min(min(g) for g in v["gap"]) for v in r["prm"].values())


def lp_value_error(r) -> float:
    """Max |hybrid value - HiGHS value| over the square games and the rectangular one."""
    errs = [abs(a - b) for a, b in zip(r["hybrid"]["value"], r["lp"]["value"])]
    errs.append(abs(r["rect"]["hybrid_value"] - r["rect"]["lp_value"]))
    return max(errs)


def hybrid_max_gap(r) -> float:
    """Max duality-gap certificate of the hybrid over all games (square and rectangular)."""
    return max(max(r["hybrid"]["gap"]), r["rect"]["hybrid_gap"])


def cold_failures(r) -> float:
    """Fraction of games where unsafeguarded SSN from the uniform strategy never gets below gap 1e-3 in 30 steps."""
    mins = r["cold"]["min_gap"]
    return sum(g > 1e-3 for g in mins) / len(mins)


def hybrid_success(r) -> float:
    """Fraction of games (square and rectangular) where the hybrid certifies gap <= its tolerance."""
    ok = list(r["hybrid"]["converged"]) + [r["rect"]["converged"]]
    return sum(bool(c) for c in ok) / len(ok)


def support_mismatch(r) -> float:
    """Max over games of | |supp x*| - |supp y*| | at the hybrid's solution."""
    s = r["structure"]
    return float(max(abs(a - b) for a, b in zip(s["support_x"], s["support_y"])))


def max_cond(r) -> float:
    """Max condition number of ``V = I - D + eta M D`` at the solution."""
    return max(r["structure"]["cond_V"])


def scaling_ratio(r) -> float:
    """Min over sizes of time(alternating PRM+ to 1e-8, capped at 12x the hybrid) / time(hybrid to 1e-8)."""
    return min(s["time_ratio"] for s in r["scaling"]["sizes"])


ALL = {"quick": 0, "standard": 0, "full": 0}
SRC = "abstract; §4-5 (method, Theorem 4); experiments (Tables 1-2)"

WHY_HYBRID_VS_PRM_PLUS_COST = ("seeds 0-2 give 10, 9.67, 10: on seeds 0 and 2 simultaneous PRM+ never reached gap "
                               "1e-10 within its budget of 10x the hybrid's largest cost; on seed 1 it got there at"
                               " 9.67x on its worst game, just short of an order of magnitude (a margin of 3%); not"
                               " re-run with more games per seed")

WHY_SCALING_TIME_RATIO = ("wall-clock ratios 12.0, 5.8, 4.5 on seeds 0-2, measured on a shared 2-core machine whose"
                          " load average varied between 4 and 20 while these seeds ran (other experiments in "
                          "parallel); the load-free cost ratio (hybrid_vs_prm_plus_cost, mat-vec equivalents) is "
                          "10, 9.67, 10. Not re-measured on an idle machine this round")

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
          "PRM+ runs for 10x the hybrid's largest cost, so 10 means it never got there)",
          metric=cost_ratio_paper_baseline, op=">=", threshold={"standard": 10, "full": 10}, kind="paper",
          why={"standard": WHY_HYBRID_VS_PRM_PLUS_COST},
          paper_value="an order of magnitude faster than PRM+", source="abstract; Tables 1-2"),
    Claim("prm_plus_misses_target",
          "No PRM+ variant (simultaneous/alternating x last/uniform/linear/quadratic) reaches gap 1e-10 "
          "within 16k iterations (32k mat-vecs, 2-6x the hybrid's largest cost)",
          metric=prm_min_gap, op=">", threshold={"quick": 1e-10}, kind="paper",
          paper_value="PRM+ stalls at high precision", source="abstract; Tables 1-2"),
    Claim("hybrid_matches_lp",
          "Hybrid game value matches linprog(HiGHS) to <= 1e-7",
          metric=lp_value_error, op="<=", threshold={"quick": 1e-7, "standard": 1e-7, "full": 1e-7}, kind="check",
          paper_value="(project check; LP baseline requested by reviewers)",
          source="ICLR 2026 reviews (LP baseline); docs/papers/ssn_games.md §4"),
    Claim("hybrid_certificate",
          "Hybrid duality-gap certificate <= 1e-10 on every game",
          metric=hybrid_max_gap, op="<=", threshold={"quick": 1e-10, "standard": 1e-10, "full": 1e-10}, kind="paper",
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
          "(standard: 100, 300, 400x800; full: 1000, 400x800, 3000, 5000)",
          metric=scaling_ratio, op=">=", threshold={"standard": 10, "full": 10}, kind="paper",
          why={"standard": WHY_SCALING_TIME_RATIO},
          paper_value="order of magnitude; a few seconds at 400x800", source="Tables 1-2; reviews"),
]
