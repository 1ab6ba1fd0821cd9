"""Strategic PFN (SPN): prior alignment of tabular foundation models to strategic data (arXiv 2605.19662)."""
