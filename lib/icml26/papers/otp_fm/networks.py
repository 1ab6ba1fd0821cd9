"""The velocity network (note §3.8, plain-FM form) and a generic flow-matching trainer shared by OTP-FM and
its baselines, so that every method gets the same network, optimiser, iterations and batch size."""

from __future__ import annotations

import copy
import math
import time

import torch
from torch import nn

from icml26.transport import integrate


class SinusoidalTime(nn.Module):
    """Sinusoidal embedding of a time t (``channels`` features, ``max_positions`` sets the lowest frequency).

    The reference embeds raw t in [0, 1] (note §10: poor resolution); ``scale`` multiplies t first and
    defaults to 1 for faithfulness.
    """

    def __init__(self, channels: int = 64, max_positions: float = 1e4, scale: float = 1.0):
        super().__init__()
        if channels < 2 or channels % 2:
            raise ValueError(f"channels must be an even integer >= 2; got {channels}")
        half = channels // 2
        self.register_buffer("freqs", torch.exp(-math.log(max_positions) * torch.arange(half) / half))
        self.scale = float(scale)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        arg = (self.scale * t)[:, None] * self.freqs[None, :]
        return torch.cat([torch.sin(arg), torch.cos(arg)], dim=1)


class VelocityMLP(nn.Module):
    """v(x, t): linear x-embedding (64) and sinusoidal t-embedding (64 -> linear), concatenated, then an
    MLP of ``depth`` hidden layers of width ``hidden`` with SiLU (note §3.8, without the Delta-t input of
    the MeanFlow variant)."""

    def __init__(self, dim: int, hidden: int = 64, depth: int = 3, embed: int = 64, t_scale: float = 1.0):
        super().__init__()
        if dim < 1 or hidden < 1 or depth < 1:
            raise ValueError(f"dim, hidden and depth must be positive; got {dim}, {hidden}, {depth}")
        self.dim = dim
        self.x_embed = nn.Linear(dim, embed)
        self.t_embed = nn.Sequential(SinusoidalTime(embed, scale=t_scale), nn.Linear(embed, embed))
        layers, width = [], 2 * embed
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.SiLU()]
            width = hidden
        layers.append(nn.Linear(width, dim))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor, t) -> torch.Tensor:
        t = torch.as_tensor(t, dtype=x.dtype, device=x.device).reshape(-1)
        if t.numel() == 1:
            t = t.expand(x.shape[0])
        return self.mlp(torch.cat([self.x_embed(x), self.t_embed(t)], dim=1))


def fit_velocity(net: nn.Module, draw, iters: int, lr: float = 2e-3, ema_decay: float | None = None,
                 callback=None, callback_every: int = 0):
    """Regress ``net(x_t, t)`` on ``u_t`` (plain flow-matching MSE) for ``iters`` Adam steps.

    ``draw(i) -> (x_t, t, u_t)`` supplies the targets. Returns ``(model, info)`` where ``model`` is the
    EMA copy when ``ema_decay`` is set, and ``info`` holds the loss curve and the training seconds
    (excluding ``callback`` time). ``callback(model, i, seconds)`` runs every ``callback_every`` steps.
    """
    if isinstance(iters, bool) or not isinstance(iters, int) or iters < 1:
        raise ValueError(f"iters must be a positive integer; got {iters!r}")
    if not lr > 0:
        raise ValueError(f"lr must be positive; got {lr}")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    ema = copy.deepcopy(net).requires_grad_(False) if ema_decay else None
    losses, train_s = [], 0.0
    for i in range(iters):
        t0 = time.perf_counter()
        xt, t, ut = draw(i)
        loss = (net(xt, t) - ut).pow(2).sum(-1).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if ema is not None:
            with torch.no_grad():
                for pe, p in zip(ema.parameters(), net.parameters()):
                    pe.lerp_(p, 1 - ema_decay)
        train_s += time.perf_counter() - t0
        losses.append(float(loss.detach()))
        if callback is not None and callback_every and ((i + 1) % callback_every == 0 or i + 1 == iters):
            callback(ema if ema is not None else net, i + 1, train_s)
    return (ema if ema is not None else net), {"losses": losses, "seconds": train_s}


def sample_flow(net: nn.Module, x0: torch.Tensor, times, method: str = "euler", steps: int = 100) -> torch.Tensor:
    """Push ``x0`` through dx/dt = net(x, t); the states at each of ``times`` (T, B, d)."""
    net_was_training = net.training
    net.eval()
    try:
        return integrate(lambda x, t: net(x, t), x0, times, method=method, steps=steps)
    finally:
        net.train(net_was_training)
