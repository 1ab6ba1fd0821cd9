"""OTP-FM: multimarginal flow matching with optimal-transport potentials (arXiv 2606.05327)."""

from icml26.papers.otp_fm import baselines, claims, data, experiment, method, networks

__all__ = ["baselines", "claims", "data", "experiment", "method", "networks"]
