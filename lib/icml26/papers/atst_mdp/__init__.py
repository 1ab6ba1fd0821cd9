"""Paper 17: Reinforcement Learning with Action-Triggered Observations (ATST-MDPs, arXiv 2510.02149)."""

from icml26.papers.atst_mdp import baselines, claims, experiment, method

__all__ = ["baselines", "claims", "experiment", "method"]
