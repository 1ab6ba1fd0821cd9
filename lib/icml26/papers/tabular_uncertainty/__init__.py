"""Data uncertainty explains modern tabular deep learning (Kartashev, Rubachev, Babenko; arXiv 2509.04430)."""
