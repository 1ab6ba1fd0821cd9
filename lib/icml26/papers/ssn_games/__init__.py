"""ssn_games: a direct second-order method for two-player zero-sum games (Yang, Gao, Lin & Kroer, arXiv 2512.12910).

Modules: ``games`` (payoffs, gaps, costs), ``regret`` (RM / RM+ / PRM+), ``method`` (DRS operator, regularized
semismooth Newton, hybrid PRM+ -> SSN), ``baselines`` (DRS iteration, cold SSN, LP via HiGHS), ``experiment``,
``claims`` and ``explore`` (plots for the notebooks).
"""

from icml26.papers.ssn_games import baselines, claims, experiment, games, method, regret

__all__ = ["baselines", "claims", "experiment", "games", "method", "regret"]
