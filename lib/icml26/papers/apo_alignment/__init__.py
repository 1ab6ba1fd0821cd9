"""APO: autonomous preference optimization across drifting sources (arXiv 2510.04142)."""
