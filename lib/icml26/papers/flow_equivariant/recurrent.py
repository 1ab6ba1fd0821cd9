"""Convolutional recurrent cells and a generic autoregressive rollout trainer (generic blocks; docs page).

Generic pieces, independent of FloWM:

* :class:`ConvGRUCell`, a gated convolutional recurrent cell with a configurable padding mode (``"circular"``
  for tori, ``"zeros"`` for bounded images);
* :class:`RolloutModel`: the interface every world model here follows (``init_state``, ``step``, ``decode``);
* :func:`rollout`: context phase then autoregressive prediction (paper §3, official ordering), with a
  teacher-forcing ratio;
* :func:`train_rollout` (Adam + MSE, optional periodic evaluation) and :func:`per_step_mse`.
"""

from __future__ import annotations

import time

import torch
from torch import nn

from icml26 import checks, progress

PADDING_MODES = ("circular", "zeros", "reflect", "replicate")


def _check_cell(in_channels, hidden, kernel, padding_mode) -> None:
    checks.positive_int("in_channels", in_channels)
    checks.positive_int("hidden", hidden)
    checks.positive_int("kernel", kernel)
    if kernel % 2 != 1:
        raise ValueError(f"kernel must be an odd int; got {kernel!r}")
    checks.one_of("padding_mode", padding_mode, PADDING_MODES)


class ConvGRUCell(nn.Module):
    """Convolutional GRU: gates ``z, r = sigmoid(conv([x, h]))``, ``h' = (1 - z) h + z tanh(conv([x, r h]))``."""

    def __init__(self, in_channels: int, hidden: int, kernel: int = 3, padding_mode: str = "zeros"):
        super().__init__()
        _check_cell(in_channels, hidden, kernel, padding_mode)
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

    Frames are ``(B, w, w)``, actions integer ``(B, 2)`` = (dy, dx) camera displacements. ``frame_range``
    (``None`` or ``(lo, hi)``): the range of true frames; :func:`rollout` clips a predicted frame to it before
    writing it back.
    """

    frame_range: tuple[float, float] | None = None

    def init_state(self, frames: torch.Tensor):  # pragma: no cover - interface
        raise NotImplementedError

    def step(self, state, frame: torch.Tensor, action: torch.Tensor):  # pragma: no cover - interface
        raise NotImplementedError

    def decode(self, state) -> torch.Tensor:  # pragma: no cover - interface
        raise NotImplementedError


def check_sequence(frames: torch.Tensor, actions: torch.Tensor, name: str = "frames") -> None:
    """Validate a (B, T, w, w) frame sequence (finite, square frames) and its (B, T, 2) integer actions."""
    checks.tensor(name, frames, ndim=4)
    if frames.shape[-1] != frames.shape[-2]:
        raise ValueError(f"{name} must hold square frames (B, T, w, w); got {tuple(frames.shape)}")
    checks.tensor("actions", actions, shape=tuple(frames.shape[:2]) + (2,), dtype_kind="int")


def rollout(model: RolloutModel, frames_in: torch.Tensor, actions_in: torch.Tensor, actions_out: torch.Tensor,
            targets: torch.Tensor | None = None, teacher_forcing: float = 0.0, generator=None,
            return_state: bool = False, observe=None):
    """Encode the context, then predict ``actions_out.shape[1]`` frames autoregressively (docs page, method).

    Context: ``s <- step(s, f_t, a_t)``. Prediction: ``s <- step(s, prev, a'_t)``, ``f^_t = decode(s)``,
    ``prev <- f^_t`` (or the true frame with probability ``teacher_forcing``); ``prev`` starts as the last
    observed frame (the official ordering: the previous frame is written after the current action's shift).
    ``observe(t, state, frame)``, when given, is called after each prediction step t (0-based), for diagnostics.
    """
    if not isinstance(model, RolloutModel):
        raise TypeError(f"model must be a RolloutModel; got {type(model).__name__}")
    check_sequence(frames_in, actions_in, "frames_in")
    checks.tensor("actions_out", actions_out, shape=(frames_in.shape[0], None, 2), dtype_kind="int")
    checks.probability("teacher_forcing", teacher_forcing)
    if targets is not None:
        checks.tensor("targets", targets, shape=tuple(actions_out.shape[:2]) + tuple(frames_in.shape[-2:]))
    elif teacher_forcing > 0:
        raise ValueError("targets (B, T_out, w, w) are required when teacher_forcing > 0")
    if observe is not None and not callable(observe):
        raise TypeError("observe must be callable (t, state, frame) or None")
    state = model.init_state(frames_in)
    for t in range(frames_in.shape[1]):
        state = model.step(state, frames_in[:, t], actions_in[:, t])
    prev, preds = frames_in[:, -1], []
    for t in range(actions_out.shape[1]):
        state = model.step(state, prev, actions_out[:, t])
        y = model.decode(state)
        preds.append(y)
        prev = y if model.frame_range is None else y.clamp(*model.frame_range)
        if observe is not None:
            observe(t, state, y)
        if teacher_forcing > 0:
            use = torch.rand(y.shape[0], device=y.device, generator=generator) < teacher_forcing
            prev = torch.where(use[:, None, None], targets[:, t], y)
    out = torch.stack(preds, 1)
    return (out, state) if return_state else out


def per_step_mse(model: RolloutModel, batch: dict, chunk: int = 64) -> torch.Tensor:
    """Per-future-step MSE averaged over the batch and the pixels, shape (T_out,), without gradients."""
    if not isinstance(model, RolloutModel):
        raise TypeError(f"model must be a RolloutModel; got {type(model).__name__}")
    need = ("frames_in", "actions_in", "actions_out", "targets")
    if not isinstance(batch, dict) or any(k not in batch for k in need):
        raise ValueError(f"batch must be a dict with keys {need}")
    chunk = checks.positive_int("chunk", chunk)
    checks.tensor("batch['targets']", batch["targets"], ndim=4)
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
                  eval_batch: dict | None = None, eval_every: int = 0, grad_clip: float | None = 1.0,
                  desc: str = "training") -> dict:
    """Adam on the rollout MSE (the official loss). ``sample_batch(i) -> dict`` gives the i-th training batch.

    Returns ``{"loss": [...], "eval_iters": [...], "eval_mse": [...], "seconds": ...}``; evaluation (the mean
    per-step MSE on ``eval_batch``) runs every ``eval_every`` iterations when both are given.
    """
    if not isinstance(model, RolloutModel):
        raise TypeError(f"model must be a RolloutModel; got {type(model).__name__}")
    if not callable(sample_batch):
        raise TypeError("sample_batch must be callable: i -> batch dict")
    iters = checks.nonnegative_int("iters", iters)
    lr = checks.positive_number("lr", lr)
    checks.probability("teacher_forcing", teacher_forcing)
    eval_every = checks.nonnegative_int("eval_every", eval_every)
    if grad_clip is not None:
        grad_clip = checks.positive_number("grad_clip", grad_clip)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr) if params else None
    hist = {"loss": [], "eval_iters": [], "eval_mse": []}
    t0 = time.perf_counter()
    for i in progress.steps(range(iters + 1 if opt is not None else 1), desc=desc):
        if eval_batch is not None and eval_every and i % eval_every == 0:
            hist["eval_iters"].append(i)
            hist["eval_mse"].append(float(per_step_mse(model, eval_batch).mean()))
        if i == iters or opt is None:
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
