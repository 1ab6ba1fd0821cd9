"""Shared neural building blocks (attention variants, tiny GPT, PFN, MLPs), used by several papers."""
