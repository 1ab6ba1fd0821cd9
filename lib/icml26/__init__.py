"""icml26: an executable research companion for 19 ICML 2026 papers.

The shared core (``runtime``, ``claims``, ``registry``) imports neither Jupyter nor plotly, so a
bare GPU machine with torch, numpy, scipy and matplotlib runs every experiment.
"""

__version__ = "0.2.0"
