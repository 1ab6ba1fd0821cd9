"""Noise schedules: cumulative signal levels alpha_bar_t for t = 0..T-1 (Ho et al. 2020; Nichol & Dhariwal 2021)."""

from __future__ import annotations

import math

import torch

from icml26 import checks


def _check_T(T) -> int:
    return checks.int_at_least("T", T, 2)


def linear_alpha_bar(T: int, beta_start: float = 1e-4, beta_end: float = 2e-2, device=None) -> torch.Tensor:
    """alpha_bar_t = prod_{s<=t} (1 - beta_s) with betas linear in t (DDPM schedule), float64, shape (T,)."""
    _check_T(T)
    beta_start, beta_end = checks.finite_number("beta_start", beta_start), checks.finite_number("beta_end", beta_end)
    if not (0.0 < beta_start < beta_end < 1.0):
        raise ValueError(f"need 0 < beta_start < beta_end < 1; got beta_start={beta_start}, beta_end={beta_end}")
    device = None if device is None else checks.device("device", device)
    betas = torch.linspace(beta_start, beta_end, T, dtype=torch.float64, device=device)
    return torch.cumprod(1.0 - betas, 0)


def cosine_alpha_bar(T: int, s: float = 8e-3, max_beta: float = 0.999, device=None) -> torch.Tensor:
    """The cosine schedule alpha_bar_t = f(t+1)/f(0), f(u) = cos^2(((u/T)+s)/(1+s) * pi/2), betas clipped."""
    _check_T(T)
    s = checks.positive_number("s", s)
    max_beta = checks.in_range("max_beta", max_beta, 0.0, 1.0, low_open=True, high_open=True)
    device = None if device is None else checks.device("device", device)
    u = torch.arange(T + 1, dtype=torch.float64, device=device)
    f = torch.cos(((u / T) + s) / (1 + s) * math.pi / 2) ** 2
    betas = (1 - f[1:] / f[:-1]).clamp(max=max_beta)
    return torch.cumprod(1.0 - betas, 0)
