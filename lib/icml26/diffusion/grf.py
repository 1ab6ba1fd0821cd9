"""Stationary Gaussian random fields on a torus and their exact MMSE (Wiener) denoiser.

A zero-mean field with power spectrum S is diagonal in the orthonormal 2-D Fourier basis, so for
z_t = sqrt(a) x + sqrt(1-a) eps the posterior mean is x0 = F^-1[ sqrt(a) S / (a S + 1 - a) F z_t ]
and eps = (z_t - sqrt(a) x0) / sqrt(1-a) is the exact noise prediction (the exact score up to scale).
"""

from __future__ import annotations

import torch


def grf_spectrum(H: int, W: int, alpha: float = 3.0, k0: float = 1.0, device=None,
                 dtype=torch.float64) -> torch.Tensor:
    """S(k) proportional to (|k|^2 + k0^2)^(-alpha/2) on the H x W integer frequency grid, normalised to mean 1.

    With the orthonormal FFT a mean-1 spectrum gives unit pixel variance. Returns shape (H, W).
    """
    for name, v in (("H", H), ("W", W)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 2:
            raise ValueError(f"{name} must be an integer >= 2; got {v!r}")
    if not alpha >= 0:
        raise ValueError(f"alpha must be >= 0; got {alpha}")
    if not k0 > 0:
        raise ValueError(f"k0 must be > 0; got {k0}")
    ky = torch.fft.fftfreq(H, d=1.0 / H, device=device, dtype=dtype)
    kx = torch.fft.fftfreq(W, d=1.0 / W, device=device, dtype=dtype)
    k2 = ky[:, None] ** 2 + kx[None, :] ** 2
    S = (k2 + k0 ** 2) ** (-alpha / 2)
    return S / S.mean()


def _check_spectrum(spectrum: torch.Tensor) -> None:
    if not isinstance(spectrum, torch.Tensor) or spectrum.dim() != 2:
        raise ValueError("spectrum must be a 2-D tensor (H, W)")
    if not torch.isfinite(spectrum).all() or (spectrum < 0).any():
        raise ValueError("spectrum must be finite and non-negative")


def sample_grf(shape, spectrum: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """Samples of the field, shape (*shape, H, W), dtype of ``spectrum``: x = F^-1[sqrt(S) F w], w white."""
    _check_spectrum(spectrum)
    H, W = spectrum.shape
    w = torch.randn(*shape, H, W, generator=generator, dtype=spectrum.dtype, device=spectrum.device)
    return torch.fft.ifft2(spectrum.sqrt() * torch.fft.fft2(w, norm="ortho"), norm="ortho").real


def wiener_x0(z: torch.Tensor, alpha_bar: torch.Tensor | float, spectrum: torch.Tensor) -> torch.Tensor:
    """Exact E[x0 | z_t] for the field prior; ``alpha_bar`` is a float or broadcastable to z[..., :1, :1]."""
    _check_spectrum(spectrum)
    if z.shape[-2:] != spectrum.shape:
        raise ValueError(f"z must end with the spectrum's shape {tuple(spectrum.shape)}; got {tuple(z.shape)}")
    a = torch.as_tensor(alpha_bar, dtype=spectrum.dtype, device=z.device)
    if ((a <= 0) | (a > 1)).any():
        raise ValueError("alpha_bar must lie in (0, 1]")
    S = spectrum.to(z.device)
    gain = a.sqrt() * S / (a * S + 1 - a)
    Z = torch.fft.fft2(z.to(S.dtype), norm="ortho")
    return torch.fft.ifft2(gain * Z, norm="ortho").real.to(z.dtype)


class WienerDenoiser:
    """Exact noise predictor eps(z_t, t) for a GRF prior under schedule ``alpha_bar`` (the test oracle)."""

    def __init__(self, spectrum: torch.Tensor, alpha_bar: torch.Tensor):
        _check_spectrum(spectrum)
        if not isinstance(alpha_bar, torch.Tensor) or alpha_bar.dim() != 1:
            raise ValueError("alpha_bar must be a 1-D tensor")
        self.spectrum = spectrum
        self.alpha_bar = alpha_bar

    def x0(self, z: torch.Tensor, t: int) -> torch.Tensor:
        return wiener_x0(z, float(self.alpha_bar[t]), self.spectrum)

    def predict_eps(self, z: torch.Tensor, t: int) -> torch.Tensor:
        a = float(self.alpha_bar[t])
        if a >= 1.0:
            raise ValueError("alpha_bar[t] must be < 1 to define eps")
        return (z - a ** 0.5 * self.x0(z, t)) / (1 - a) ** 0.5

    __call__ = predict_eps
