"""One sub-package per paper: method, baselines, experiment, claims, explore."""
