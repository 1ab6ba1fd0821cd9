"""Shared diffusion building blocks: noise schedules, a DDIM/DDPM sampler with a per-step controller
hook, RePaint-style known-region replacement, and a Gaussian-random-field prior whose exact (Wiener)
denoiser serves as an oracle for testing samplers (the exact score is known in closed form).
"""

from icml26.diffusion.grf import WienerDenoiser, grf_spectrum, sample_grf, wiener_x0
from icml26.diffusion.sampler import ddim_sample, ddim_timesteps, eps_from_x0, repaint_replace, x0_from_eps
from icml26.diffusion.schedules import cosine_alpha_bar, linear_alpha_bar

__all__ = [
    "WienerDenoiser", "grf_spectrum", "sample_grf", "wiener_x0",
    "ddim_sample", "ddim_timesteps", "eps_from_x0", "repaint_replace", "x0_from_eps",
    "cosine_alpha_bar", "linear_alpha_bar",
]
