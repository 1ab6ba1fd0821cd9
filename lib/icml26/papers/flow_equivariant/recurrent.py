"""Convolutional recurrent cells and a generic autoregressive rollout trainer (note §9: shared blocks).

Generic pieces, independent of FloWM:

* :class:`ConvRNNCell` ``h' = act(conv_x(x) + conv_h(h))`` and :class:`ConvGRUCell` (gated), both with a
  configurable padding mode (``"circular"`` for tori, ``"zeros"`` for bounded images);
* :class:`RolloutModel`: the interface every world model here follows (``init_state``, ``step``, ``decode``);
* :func:`rollout`: context phase then autoregressive prediction (note §3.3), with a teacher-forcing ratio;
* :func:`train_rollout` (Adam + MSE, optional periodic evaluation) and :func:`per_step_mse`.
"""

from __future__ import annotations

import time

import torch
from torch import nn


def _check_int(name, value, lo=1):
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ValueError(f"{name} must be an int >= {lo}; got {value!r}")


class ConvRNNCell(nn.Module):
    """``h' = act(conv_x(x) + conv_h(h))`` with ``k x k`` convolutions (no bias by default)."""

    def __init__(self, in_channels: int, hidden: int, kernel: int = 3, padding_mode: str = "circular",
                 bias: bool = False, activation=torch.relu):
        super().__init__()
        _check_int("in_channels", in_channels)
        _check_int("hidden", hidden)
        if kernel % 2 != 1:
            raise ValueError(f"kernel must be an odd int; got {kernel!r}")
        if padding_mode not in ("circular", "zeros", "reflect", "replicate"):
            raise ValueError(f"padding_mode must be circular|zeros|reflect|replicate; got {padding_mode!r}")
        self.hidden = hidden
        self.conv_x = nn.Conv2d(in_channels, hidden, kernel, padding=kernel // 2, padding_mode=padding_mode, bias=bias)
        self.conv_h = nn.Conv2d(hidden, hidden, kernel, padding=kernel // 2, padding_mode=padding_mode, bias=False)
        self.activation = activation

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return self.activation(self.conv_x(x) + self.conv_h(h))


class ConvGRUCell(nn.Module):
    """Convolutional GRU: gates ``z, r = sigmoid(conv([x, h]))``, ``h' = (1 - z) h + z tanh(conv([x, r h]))``."""

    def __init__(self, in_channels: int, hidden: int, kernel: int = 3, padding_mode: str = "zeros"):
        super().__init__()
        _check_int("in_channels", in_channels)
        _check_int("hidden", hidden)
        if kernel % 2 != 1:
            raise ValueError(f"kernel must be an odd int; got {kernel!r}")
        self.hidden = hidden
        pad = dict(padding=kernel // 2, padding_mode=padding_mode)
        self.gates = nn.Conv2d(in_channels + hidden, 2 * hidden, kernel, **pad)
        self.cand = nn.Conv2d(in_channels + hidden, hidden, kernel, **pad)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        z, r = torch.sigmoid(self.gates(torch.cat([x, h], 1))).chunk(2, 1)
        c = torch.tanh(self.cand(torch.cat([x, r * h], 1)))
        return (1 - z) * h + z * c


class RolloutModel(nn.Module):
    """Interface of a frame-level world model: ``state = step(state, frame, action)``, ``frame = decode(state)``.

    Frames are ``(B, w, w)``, actions integer ``(B, 2)`` = (dy, dx) camera displacements.
    """

    def init_state(self, frames: torch.Tensor):  # pragma: no cover - interface
        raise NotImplementedError

    def step(self, state, frame: torch.Tensor, action: torch.Tensor):  # pragma: no cover - interface
        raise NotImplementedError

    def decode(self, state) -> torch.Tensor:  # pragma: no cover - interface
        raise NotImplementedError


def check_sequence(frames: torch.Tensor, actions: torch.Tensor, name: str = "frames") -> None:
    """Validate a (B, T, w, w) frame sequence and its (B, T, 2) integer actions."""
    if not isinstance(frames, torch.Tensor) or frames.dim() != 4 or frames.shape[-1] != frames.shape[-2]:
        raise ValueError(f"{name} must be a tensor (B, T, w, w); got {getattr(frames, 'shape', type(frames).__name__)}")
    if not isinstance(actions, torch.Tensor) or actions.shape != frames.shape[:2] + (2,):
        raise ValueError(f"actions must be a tensor of shape {tuple(frames.shape[:2]) + (2,)}; "
                         f"got {getattr(actions, 'shape', actions)}")
    if actions.dtype.is_floating_point:
        raise ValueError(f"actions must be integer camera displacements; got dtype {actions.dtype}")


def rollout(model: RolloutModel, frames_in: torch.Tensor, actions_in: torch.Tensor, actions_out: torch.Tensor,
            targets: torch.Tensor | None = None, teacher_forcing: float = 0.0, generator=None,
            return_state: bool = False):
    """Encode the context, then predict ``actions_out.shape[1]`` frames autoregressively (note §3.3).

    Context: ``s <- step(s, f_t, a_t)``. Prediction: ``s <- step(s, prev, a'_t)``, ``f^_t = decode(s)``,
    ``prev <- f^_t`` (or the true frame with probability ``teacher_forcing``); ``prev`` starts as the last
    observed frame (the official ordering: the previous frame is written after the current action's shift).
    """
    check_sequence(frames_in, actions_in, "frames_in")
    if (not isinstance(actions_out, torch.Tensor) or actions_out.dim() != 3
            or actions_out.shape[0] != frames_in.shape[0]):
        raise ValueError(f"actions_out must be (B, T_out, 2) with B={frames_in.shape[0]}; got {actions_out.shape}")
    if not 0.0 <= teacher_forcing <= 1.0:
        raise ValueError(f"teacher_forcing must lie in [0, 1]; got {teacher_forcing}")
    if teacher_forcing > 0 and (targets is None or targets.shape[:2] != actions_out.shape[:2]):
        raise ValueError("targets (B, T_out, w, w) are required when teacher_forcing > 0")
    state = model.init_state(frames_in)
    for t in range(frames_in.shape[1]):
        state = model.step(state, frames_in[:, t], actions_in[:, t])
    prev, preds = frames_in[:, -1], []
    for t in range(actions_out.shape[1]):
        state = model.step(state, prev, actions_out[:, t])
        y = model.decode(state)
        preds.append(y)
        prev = y
        if teacher_forcing > 0:
            use = torch.rand(y.shape[0], device=y.device, generator=generator) < teacher_forcing
            prev = torch.where(use[:, None, None], targets[:, t], y)
    out = torch.stack(preds, 1)
    return (out, state) if return_state else out


def per_step_mse(model: RolloutModel, batch: dict, chunk: int = 64) -> torch.Tensor:
    """Per-future-step MSE averaged over the batch and the pixels, shape (T_out,), without gradients."""
    n = batch["frames_in"].shape[0]
    total = None
    with torch.no_grad():
        for i in range(0, n, chunk):
            sl = slice(i, i + chunk)
            pred = rollout(model, batch["frames_in"][sl], batch["actions_in"][sl], batch["actions_out"][sl])
            err = ((pred - batch["targets"][sl]) ** 2).sum(dim=(0, 2, 3))
            total = err if total is None else total + err
    return total / (n * batch["targets"].shape[-1] * batch["targets"].shape[-2])


def train_rollout(model: RolloutModel, sample_batch, iters: int, lr: float, teacher_forcing: float = 0.0,
                  eval_batch: dict | None = None, eval_every: int = 0, grad_clip: float | None = 1.0) -> dict:
    """Adam on the rollout MSE (note §3.3). ``sample_batch(i) -> dict`` gives the i-th training batch.

    Returns ``{"loss": [...], "eval_iters": [...], "eval_mse": [...], "seconds": ...}``; evaluation (the mean
    per-step MSE on ``eval_batch``) runs every ``eval_every`` iterations when both are given.
    """
    _check_int("iters", iters, lo=0)
    if not lr > 0:
        raise ValueError(f"lr must be > 0; got {lr}")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr) if params else None
    hist = {"loss": [], "eval_iters": [], "eval_mse": []}
    t0 = time.perf_counter()
    for i in range(iters + 1):
        if eval_batch is not None and eval_every and i % eval_every == 0:
            hist["eval_iters"].append(i)
            hist["eval_mse"].append(float(per_step_mse(model, eval_batch).mean()))
        if i == iters or opt is None:
            if opt is None:
                break
            continue
        b = sample_batch(i)
        pred = rollout(model, b["frames_in"], b["actions_in"], b["actions_out"], b["targets"], teacher_forcing)
        loss = torch.mean((pred - b["targets"]) ** 2)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip:
            nn.utils.clip_grad_norm_(params, grad_clip)
        opt.step()
        hist["loss"].append(float(loss.detach()))
    hist["seconds"] = time.perf_counter() - t0
    return hist
