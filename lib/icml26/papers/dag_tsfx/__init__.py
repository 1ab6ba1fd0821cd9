"""DAG: dual correlation network for time-series forecasting with exogenous variables (arXiv 2509.14933)."""

from icml26.papers.dag_tsfx import baselines, claims, data, experiment, layers, method  # noqa: F401
