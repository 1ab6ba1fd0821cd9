"""Credit-assigned policy gradient for early-stage retrieval in two-stage ranking (arXiv 2605.26385)."""
