"""Full-reference image metrics: PSNR and SSIM (Wang et al. 2004) for batches of images in [0, data_range].

Images are ``(N, C, H, W)`` tensors. SSIM uses an ``11 x 11`` Gaussian window (sigma 1.5), the constants
``C1 = (0.01 L)^2``, ``C2 = (0.03 L)^2`` and a "valid" convolution (no padding), as in the reference code.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from icml26 import checks


def _check_pair(pred, target):
    for name, x in (("pred", pred), ("target", target)):
        if not isinstance(x, torch.Tensor) or x.dim() != 4:
            raise ValueError(f"{name} must be a 4-D tensor (N, C, H, W), got {getattr(x, 'shape', x)}")
        checks.tensor(name, x.detach(), ndim=4)
    if pred.shape != target.shape:
        raise ValueError(f"pred and target must have the same shape, got {tuple(pred.shape)} and {tuple(target.shape)}")


def psnr(pred: torch.Tensor, target: torch.Tensor, data_range: float = 1.0) -> torch.Tensor:
    """Per-image PSNR ``10 log10(L^2 / MSE)`` in dB, shape ``(N,)``."""
    _check_pair(pred, target)
    if not isinstance(data_range, (int, float)) or not math.isfinite(data_range) or data_range <= 0:
        raise ValueError(f"data_range must be a finite number > 0, got {data_range}")
    mse = ((pred - target) ** 2).flatten(1).mean(1)
    return 10.0 * torch.log10(data_range ** 2 / mse.clamp_min(1e-12))


def _window(size: int, sigma: float, like: torch.Tensor) -> torch.Tensor:
    """The normalised 1-D Gaussian taps ``(size,)``; the 2-D window is their outer product (separable)."""
    x = torch.arange(size, dtype=like.dtype, device=like.device) - (size - 1) / 2.0
    g = torch.exp(-x ** 2 / (2 * sigma ** 2))
    return g / g.sum()


def ssim(pred: torch.Tensor, target: torch.Tensor, data_range: float = 1.0, window: int = 11,
         sigma: float = 1.5) -> torch.Tensor:
    """Per-image mean SSIM, shape ``(N,)``; differentiable (``1 - ssim`` is the usual D-SSIM loss).

    The five local moments (means, variances, covariance) are filtered in one grouped convolution with the
    separable Gaussian window (a row pass, then a column pass).
    """
    _check_pair(pred, target)
    if not isinstance(data_range, (int, float)) or not math.isfinite(data_range) or data_range <= 0:
        raise ValueError(f"data_range must be a finite number > 0, got {data_range}")
    if not isinstance(window, int) or window < 1 or window % 2 == 0:
        raise ValueError(f"window must be a positive odd int, got {window!r}")
    if min(pred.shape[-2:]) < window:
        raise ValueError(f"pred must be at least window={window} pixels high and wide, got {tuple(pred.shape[-2:])}")
    if not isinstance(sigma, (int, float)) or not math.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a finite number > 0, got {sigma}")
    c = pred.shape[1]
    g = _window(window, sigma, pred)
    stack = torch.cat([pred, target, pred * pred, target * target, pred * target], 1)       # (N, 5C, H, W)
    k = 5 * c
    stack = F.conv2d(stack, g.reshape(1, 1, 1, -1).expand(k, 1, 1, window), groups=k)
    stack = F.conv2d(stack, g.reshape(1, 1, -1, 1).expand(k, 1, window, 1), groups=k)
    mu_x, mu_y, exx, eyy, exy = stack.split(c, 1)
    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    sxx, syy, sxy = exx - mu_x ** 2, eyy - mu_y ** 2, exy - mu_x * mu_y
    num = (2 * mu_x * mu_y + c1) * (2 * sxy + c2)
    den = (mu_x ** 2 + mu_y ** 2 + c1) * (sxx + syy + c2)
    return (num / den).flatten(1).mean(1)
