"""Shared reinforcement-learning tooling (linear MDPs, exact tabular evaluation).

``icml26.rl.linear`` holds ridge regression with rank-one Sherman-Morrison updates, elliptical
confidence bonuses, the optimistic least-squares value iteration backbone of LSVI-UCB for the
discounted / geometric-horizon setting, and exact policy evaluation on tabular models.
"""

from icml26.rl.linear import (
    RidgeStats,
    bellman_fixed_point,
    elliptical_bonus,
    evaluate_policy_exact,
    optimistic_value_iteration,
    policy_iteration,
    sherman_morrison_update,
    solve_values,
)

__all__ = [
    "RidgeStats",
    "bellman_fixed_point",
    "elliptical_bonus",
    "evaluate_policy_exact",
    "optimistic_value_iteration",
    "policy_iteration",
    "sherman_morrison_update",
    "solve_values",
]
