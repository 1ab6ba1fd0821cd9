"""Stationary Gaussian random fields on a torus and their exact MMSE (Wiener) denoiser.

A zero-mean field with power spectrum S is diagonal in the orthonormal 2-D Fourier basis, so for
z_t = sqrt(a) x + sqrt(1-a) eps the posterior mean is x0 = F^-1[ sqrt(a) S / (a S + 1 - a) F z_t ]
and eps = (z_t - sqrt(a) x0) / sqrt(1-a) is the exact noise prediction (the exact score up to scale).
"""

from __future__ import annotations

import operator

import torch

from icml26 import checks
from icml26.diffusion.sampler import _eps_from_x0


def grf_spectrum(H: int, W: int, alpha: float = 3.0, k0: float = 1.0, device=None,
                 dtype=torch.float64) -> torch.Tensor:
    """S(k) proportional to (|k|^2 + k0^2)^(-alpha/2) on the H x W integer frequency grid, normalised to mean 1.

    With the orthonormal FFT a mean-1 spectrum gives unit pixel variance. Returns shape (H, W).
    """
    H, W = checks.int_at_least("H", H, 2), checks.int_at_least("W", W, 2)
    alpha = checks.nonnegative_number("alpha", alpha)
    k0 = checks.positive_number("k0", k0)
    device = None if device is None else checks.device("device", device)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
    ky = torch.fft.fftfreq(H, d=1.0 / H, device=device, dtype=dtype)
    kx = torch.fft.fftfreq(W, d=1.0 / W, device=device, dtype=dtype)
    k2 = ky[:, None] ** 2 + kx[None, :] ** 2
    S = (k2 + k0 ** 2) ** (-alpha / 2)
    return S / S.mean()


def _check_spectrum(spectrum: torch.Tensor) -> None:
    if not isinstance(spectrum, torch.Tensor) or spectrum.dim() != 2:
        raise ValueError("spectrum must be a 2-D tensor (H, W)")
    if spectrum.numel() == 0 or not spectrum.is_floating_point():
        raise ValueError(f"spectrum must be a non-empty floating tensor; got shape {tuple(spectrum.shape)}, "
                         f"dtype {spectrum.dtype}")
    if not torch.isfinite(spectrum).all() or (spectrum < 0).any():
        raise ValueError("spectrum must be finite and non-negative")


def _check_alpha_bar(alpha_bar, name: str = "alpha_bar") -> torch.Tensor:
    """A non-empty finite tensor (or number) of signal levels in (0, 1]."""
    if isinstance(alpha_bar, bool) or not isinstance(alpha_bar, (torch.Tensor, int, float)):
        raise TypeError(f"{name} must be a number or a tensor; got {type(alpha_bar).__name__}")
    a = torch.as_tensor(alpha_bar)
    if a.numel() == 0 or not bool(torch.isfinite(a).all()) or bool(((a <= 0) | (a > 1)).any()):
        raise ValueError(f"{name} must be non-empty and lie in (0, 1]")
    return a


def sample_grf(shape, spectrum: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """Samples of the field, shape (*shape, H, W), dtype of ``spectrum``: x = F^-1[sqrt(S) F w], w white."""
    _check_spectrum(spectrum)
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError(f"shape must be an int or a sequence of ints; got {type(shape).__name__}")
    shape = tuple(checks.positive_int("shape", s) for s in shape)
    checks.generator("generator", generator)
    H, W = spectrum.shape
    w = torch.randn(*shape, H, W, generator=generator, dtype=spectrum.dtype, device=spectrum.device)
    return torch.fft.ifft2(spectrum.sqrt() * torch.fft.fft2(w, norm="ortho"), norm="ortho").real


def wiener_x0(z: torch.Tensor, alpha_bar: torch.Tensor | float, spectrum: torch.Tensor) -> torch.Tensor:
    """Exact E[x0 | z_t] for the field prior; ``alpha_bar`` is a float or broadcastable to z[..., :1, :1]."""
    _check_spectrum(spectrum)
    checks.tensor("z", z)
    if z.shape[-2:] != spectrum.shape:
        raise ValueError(f"z must end with the spectrum's shape {tuple(spectrum.shape)}; got {tuple(z.shape)}")
    _check_alpha_bar(alpha_bar)
    return _wiener_x0(z, alpha_bar, spectrum)


def _wiener_x0(z: torch.Tensor, alpha_bar, spectrum: torch.Tensor) -> torch.Tensor:
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
        _check_alpha_bar(alpha_bar)
        self.spectrum = spectrum
        self.alpha_bar = alpha_bar

    def _t(self, t) -> int:
        n = int(self.alpha_bar.shape[0])
        try:
            i = operator.index(t)
        except TypeError:
            raise TypeError(f"t must be an integer timestep; got {type(t).__name__}") from None
        if not 0 <= i < n:
            raise ValueError(f"t must be an integer timestep in [0, {n}); got {t!r}")
        return t

    def x0(self, z: torch.Tensor, t: int) -> torch.Tensor:
        """E[x0 | z_t] (the sampler's hot loop calls this: ``z``'s entries are trusted, only its shape is checked)."""
        if not isinstance(z, torch.Tensor) or z.shape[-2:] != self.spectrum.shape:
            raise ValueError(f"z must be a tensor ending with the spectrum's shape {tuple(self.spectrum.shape)}")
        return _wiener_x0(z, float(self.alpha_bar[self._t(t)]), self.spectrum)

    def predict_eps(self, z: torch.Tensor, t: int) -> torch.Tensor:
        a = float(self.alpha_bar[self._t(t)])
        if a >= 1.0:
            raise ValueError("alpha_bar[t] must be < 1 to define eps")
        return _eps_from_x0(z, self.x0(z, t), a)

    __call__ = predict_eps
