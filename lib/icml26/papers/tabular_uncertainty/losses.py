"""Training losses shared by the models of ``baselines`` and the paper's method in ``method`` (one floor below both,
so that neither imports the other).

* :func:`_triplet_loss`: the target-aware triplet term of §3.4 without value checks (``method.triplet_loss`` is
  the checked public entry); ``baselines.MLPRegressor.loss`` adds it for the paper's MLP-LRLR + triplet model.
"""

from __future__ import annotations

import torch


def _triplet_loss(z: torch.Tensor, y: torch.Tensor, q: float = 0.2, margin: float = 0.5, normalize: bool = True,
                  generator: torch.Generator | None = None) -> torch.Tensor:
    """:func:`triplet_loss` without the value checks (the training loss of every minibatch)."""
    if z.ndim != 2 or y.ndim != 1 or z.shape[0] != y.shape[0]:
        raise ValueError(f"z must be (B, D) and y (B,); got {tuple(z.shape)}, {tuple(y.shape)}")
    if z.shape[0] < 3:
        raise ValueError(f"the batch must hold at least 3 rows; got {z.shape[0]}")
    if not 0 < q <= 0.5:
        raise ValueError(f"q must be in (0, 0.5]; got {q}")
    if not margin >= 0:
        raise ValueError(f"margin must be >= 0; got {margin}")
    B = z.shape[0]
    if normalize:
        z = torch.nn.functional.normalize(z, dim=1)
    dy = (y[:, None] - y[None, :]).abs()
    dy = dy + torch.eye(B, device=z.device, dtype=dy.dtype) * (dy.max() + 1)  # self goes last
    order = dy.argsort(dim=1)  # closest first, self at the end
    n_pick = max(1, int(q * (B - 1)))
    r = torch.randint(0, n_pick, (2, B), generator=generator, device="cpu").to(z.device)
    ar = torch.arange(B, device=z.device)
    pos = order[ar, r[0]]
    neg = order[ar, B - 2 - r[1]]
    d_ap = (z - z[pos]).pow(2).sum(1)
    d_an = (z - z[neg]).pow(2).sum(1)
    return torch.relu(d_ap - d_an + margin).mean()
