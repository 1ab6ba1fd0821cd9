"""The velocity network (paper App. C / the official FlowNetMLP, simplified) and one flow-matching trainer
shared by OTP-FM and its baselines, so that every method gets the same network, optimiser, iterations and
batch size. The trainer has the official code's options: MeanFlow loss, adaptive weighting, weight EMA."""

from __future__ import annotations

import copy
import math
import time

import torch
from torch import nn

from icml26 import checks
from icml26.transport import integrate
from icml26.transport._checks import finite_tensor


class SinusoidalTime(nn.Module):
    """Sinusoidal embedding of a time t (``channels`` features, ``max_positions`` sets the lowest frequency).

    The reference embeds raw t in [0, 1] (coarse resolution: see docs/papers/otp_fm.md); ``scale``
    multiplies t first and defaults to 1 for faithfulness.
    """

    def __init__(self, channels: int = 64, max_positions: float = 1e4, scale: float = 1.0):
        super().__init__()
        if not isinstance(channels, int) or isinstance(channels, bool) or channels < 2 or channels % 2:
            raise ValueError(f"channels must be an even integer >= 2; got {channels!r}")
        max_positions = checks.positive_number("max_positions", max_positions)
        scale = checks.positive_number("scale", scale)
        half = channels // 2
        self.register_buffer("freqs", torch.exp(-math.log(max_positions) * torch.arange(half) / half))
        self.scale = float(scale)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        arg = (self.scale * t)[:, None] * self.freqs[None, :]
        return torch.cat([torch.sin(arg), torch.cos(arg)], dim=1)


class VelocityMLP(nn.Module):
    """v(x, t) or, with ``interval=True``, the average velocity V(x, t, dt) over [t, t + dt] (paper App. C.2).

    A linear x-embedding (64) and sinusoidal embeddings of t (and dt) each followed by a linear layer,
    concatenated, then an MLP of ``depth`` hidden layers of width ``hidden`` with SiLU (the official
    FlowNetMLP without LayerNorm, dropout and residual blocks). With ``interval=True``, ``dt = 0`` is the
    instantaneous velocity, so such a network also samples with an ODE solver.
    """

    def __init__(self, dim: int, hidden: int = 64, depth: int = 3, embed: int = 64, t_scale: float = 1.0,
                 interval: bool = False):
        super().__init__()
        for name, value in (("dim", dim), ("hidden", hidden), ("depth", depth), ("embed", embed)):
            checks.positive_int(name, value)
        checks.positive_number("t_scale", t_scale)
        self.dim, self.interval = dim, bool(interval)
        self.x_embed = nn.Linear(dim, embed)
        self.t_embed = nn.Sequential(SinusoidalTime(embed, scale=t_scale), nn.Linear(embed, embed))
        self.dt_embed = nn.Sequential(SinusoidalTime(embed, scale=t_scale), nn.Linear(embed, embed)) \
            if interval else None
        layers, width = [], (3 if interval else 2) * embed
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.SiLU()]
            width = hidden
        layers.append(nn.Linear(width, dim))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor, t, dt=None) -> torch.Tensor:
        t = _per_row(t, x)
        parts = [self.x_embed(x), self.t_embed(t)]
        if self.dt_embed is not None:
            parts.append(self.dt_embed(torch.zeros_like(t) if dt is None else _per_row(dt, x)))
        return self.mlp(torch.cat(parts, dim=1))


def _per_row(t, x):
    t = torch.as_tensor(t, dtype=x.dtype, device=x.device).reshape(-1)
    return t.expand(x.shape[0]) if t.numel() == 1 else t


LOSSES = ("fm", "meanflow")
WEIGHTINGS = ("mse", "adaptive")


def meanflow_residual(net: VelocityMLP, xt: torch.Tensor, t: torch.Tensor, ut: torch.Tensor, t2: torch.Tensor,
                      clamp: float = 100.0) -> torch.Tensor:
    """Per-sample squared error of the forward-in-time MeanFlow objective (paper App. C.2).

    From (t2 - t) V(x_t, t, t2) = int_t^t2 u ds, differentiating in t along the flow gives
    V = u(x_t, t) + (t2 - t) dV/dt with dV/dt = d_x V . u + d_t V (t2 fixed), a forward-mode JVP with
    tangents (u, 1, 0). The JVP is clamped to +-``clamp`` and the target is stop-gradient. Where t2 = t the
    residual is plain flow matching, V(x, t, 0) ~ u.
    """
    if not getattr(net, "interval", False):
        raise ValueError("net must be an interval network (VelocityMLP(..., interval=True))")
    xt, ut = finite_tensor(xt, "xt", ndim=2), finite_tensor(ut, "ut", ndim=2)
    t, t2 = finite_tensor(t, "t", ndim=1), finite_tensor(t2, "t2", ndim=1)
    if ut.shape != xt.shape or t.shape != (xt.shape[0],) or t2.shape != t.shape:
        raise ValueError(f"ut must have the shape of xt {tuple(xt.shape)} and t, t2 one entry per row; got "
                         f"{tuple(ut.shape)}, {tuple(t.shape)}, {tuple(t2.shape)}")
    if (t2 < t).any():
        raise ValueError("t2 must not precede t (the average runs forward in time)")
    clamp = checks.positive_number("clamp", clamp)

    def avg(x, a, b):
        return net(x, a, b - a)

    v, dv = torch.func.jvp(avg, (xt, t, t2), (ut, torch.ones_like(t), torch.zeros_like(t2)))
    target = (ut + (t2 - t)[:, None] * dv.clamp(-clamp, clamp)).detach()
    return (v - target).pow(2).sum(-1)


def training_clock(module: nn.Module):
    """The clock that training seconds are read from: this process's CPU time for a model on the CPU (robust to
    other work on a shared machine), wall time after a CUDA synchronise for a model on a GPU."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module; got {type(module).__name__}")
    p = next(module.parameters(), None)
    if p is None or p.device.type == "cpu":
        return time.process_time

    def wall():
        if p.device.type == "cuda":
            torch.cuda.synchronize(p.device)
        return time.perf_counter()

    return wall


def _second_times(t: torch.Tensor, diag_prob: float, generator: torch.Generator) -> torch.Tensor:
    """t2 = t + (1 - t) U, and t2 = t with probability ``diag_prob`` (the official sampler's rule)."""
    u = torch.rand(t.shape, generator=generator, device=generator.device).to(t.device, t.dtype)
    keep = torch.rand(t.shape, generator=generator, device=generator.device).to(t.device) < diag_prob
    return torch.where(keep, t, t + (1 - t) * u)


def fit_velocity(net: nn.Module, draw, iters: int, lr: float = 2e-3, ema_decay: float | None = None,
                 loss: str = "fm", weighting: str = "mse", diag_prob: float = 0.75, clip: float | None = None,
                 generator: torch.Generator | None = None, callback=None, callback_every: int = 0):
    """Regress ``net`` on the conditional targets of ``draw(i) -> (x_t, t, u_t)`` for ``iters`` Adam steps.

    ``loss="fm"``: ||v(x_t, t) - u_t||^2 (plain flow matching). ``loss="meanflow"``: the MeanFlow residual of
    :func:`meanflow_residual` on an interval network, with t2 drawn by the official rule (``diag_prob``).
    ``weighting="adaptive"``: each sample's loss l becomes l / (sg(l) + 1e-3) (the official default).
    ``clip``: gradient-norm clipping. ``ema_decay``: keep an exponential moving average of the weights and
    return it (the official code samples with the EMA, decay 0.99).

    Returns ``(model, info)``: ``model`` is the EMA copy when ``ema_decay`` is set, ``info`` holds the loss
    curve and the training seconds (:func:`training_clock`, excluding ``callback`` time).
    ``callback(model, i, seconds)`` runs every ``callback_every`` steps and after the last.
    """
    iters = checks.positive_int("iters", iters)
    lr = checks.positive_number("lr", lr)
    checks.one_of("loss", loss, LOSSES)
    checks.one_of("weighting", weighting, WEIGHTINGS)
    checks.probability("diag_prob", diag_prob)
    if ema_decay is not None:
        checks.in_range("ema_decay", ema_decay, 0.0, 1.0, low_open=True, high_open=True)
    if clip is not None:
        checks.positive_number("clip", clip)
    if loss == "meanflow" and not getattr(net, "interval", False):
        raise ValueError("loss='meanflow' needs an interval network (VelocityMLP(..., interval=True))")
    gen = generator if generator is not None else torch.Generator().manual_seed(0)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    ema = copy.deepcopy(net).requires_grad_(False) if ema_decay else None
    clock = training_clock(net)
    losses, train_s = [], 0.0
    for i in range(iters):
        t0 = clock()
        xt, t, ut = draw(i)
        if loss == "fm":
            per = (net(xt, t) - ut).pow(2).sum(-1)
        else:
            per = meanflow_residual(net, xt, t, ut, _second_times(t, diag_prob, gen))
        obj = (per / (per.detach() + 1e-3)).mean() if weighting == "adaptive" else per.mean()
        opt.zero_grad(set_to_none=True)
        obj.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        opt.step()
        if ema is not None:
            with torch.no_grad():
                for pe, p in zip(ema.parameters(), net.parameters()):
                    pe.lerp_(p, 1 - ema_decay)
        train_s += clock() - t0
        losses.append(float(per.detach().mean()))
        if callback is not None and callback_every and ((i + 1) % callback_every == 0 or i + 1 == iters):
            callback(ema if ema is not None else net, i + 1, train_s)
    return (ema if ema is not None else net), {"losses": losses, "seconds": train_s}


def sample_flow(net: nn.Module, x0: torch.Tensor, times, method: str = "euler", steps: int = 100) -> torch.Tensor:
    """Push ``x0`` through dx/dt = net(x, t) with the ODE solver; the states at each of ``times`` (T, B, d).

    An interval network is integrated with its instantaneous velocity V(x, t, 0).
    """
    if not isinstance(net, nn.Module):
        raise TypeError(f"net must be a torch.nn.Module; got {type(net).__name__}")
    net_was_training = net.training
    net.eval()
    try:
        return integrate(lambda x, t: net(x, t), x0, times, method=method, steps=steps)
    finally:
        net.train(net_was_training)
