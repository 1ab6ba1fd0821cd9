"""The baselines and references (docs page, "Baselines") on the same rollout interface as FloWM.

* :class:`ActionConcatWM`: the FloWM map and convs with no rolls; (dy, dx) appended as constant channels to
  the input and hidden convs (the official code's ActionConcat ablation).
* :class:`ConvGRUWM`: a ConvGRU world model at window resolution with action channels (the recurrent baseline).
* :class:`SlidingWindowWM`: a CNN over the last K frames and their actions, a deterministic stand-in for
  DFoT's bounded context (NOT a diffusion model).
* :class:`CopyLast` and :class:`AllBlack`: trivial references.
"""

from __future__ import annotations

import torch
from torch import nn

from icml26 import checks
from icml26.papers.flow_equivariant.method import check_sizes, conv_decoder
from icml26.papers.flow_equivariant.recurrent import ConvGRUCell, RolloutModel


def _check_scale(action_scale) -> float:
    return checks.positive_number("action_scale", action_scale)


def _action_maps(action: torch.Tensor, like: torch.Tensor, scale: float) -> torch.Tensor:
    """(B, 2) actions as two constant maps (B, 2, H, W) scaled by ``1/scale``."""
    a = action.to(like.dtype) / scale
    return a[:, :, None, None].expand(-1, -1, *like.shape[-2:])


class ActionConcatWM(RolloutModel):
    """FloWM without any shift: actions enter as two constant channels (the official ActionConcat cell)."""

    def __init__(self, world: int, window: int, channels: int = 8, dec_layers: int = 1, action_scale: float = 1.0):
        super().__init__()
        check_sizes(world, window, channels, 0, dec_layers)
        self.world, self.window, self.channels = world, window, channels
        self.action_scale = _check_scale(action_scale)
        self.enc = nn.Conv2d(3, channels, 3, padding=1, padding_mode="circular", bias=False)
        self.rec = nn.Conv2d(channels + 2, channels, 3, padding=1, padding_mode="circular", bias=False)
        self.dec = conv_decoder(channels, dec_layers)

    def init_state(self, frames):
        return frames.new_zeros(frames.shape[0], self.channels, self.world, self.world)

    def step(self, h, frame, action):
        f = frame[:, None]
        e = self.enc(torch.cat([f, _action_maps(action, f, self.action_scale)], 1))
        placed = e.new_zeros(h.shape)
        placed[..., : self.window, : self.window] = e
        rec = self.rec(torch.cat([h, _action_maps(action, h, self.action_scale)], 1))
        return torch.relu(placed + rec)

    def decode(self, h):
        return self.dec(h[..., : self.window, : self.window])[:, 0]


class ConvGRUWM(RolloutModel):
    """ConvGRU world model at window resolution: input [frame, dy/s, dx/s], zero padding, conv decoder."""

    def __init__(self, window: int, channels: int = 8, dec_layers: int = 1, action_scale: float = 1.0):
        super().__init__()
        check_sizes(checks.positive_int("window", window), window, channels, 0, dec_layers)
        self.window, self.channels, self.action_scale = window, channels, _check_scale(action_scale)
        self.cell = ConvGRUCell(3, channels, 3, padding_mode="zeros")
        self.dec = conv_decoder(channels, dec_layers, padding_mode="zeros")

    def init_state(self, frames):
        return frames.new_zeros(frames.shape[0], self.channels, self.window, self.window)

    def step(self, h, frame, action):
        f = frame[:, None]
        return self.cell(torch.cat([f, _action_maps(action, f, self.action_scale)], 1), h)

    def decode(self, h):
        return self.dec(h)[:, 0]


class SlidingWindowWM(RolloutModel):
    """CNN predictor over the last ``k`` frames and their actions (state = a rolling buffer; frames beyond it are
    forgotten, like DFoT's sliding context). A stand-in, not a diffusion model."""

    def __init__(self, window: int, channels: int = 8, k: int = 4, action_scale: float = 1.0, layers: int = 3):
        super().__init__()
        check_sizes(checks.positive_int("window", window), window, channels, 0, 0)
        self.k = checks.positive_int("k", k)
        checks.positive_int("layers", layers)
        self.window, self.action_scale = window, _check_scale(action_scale)
        width = 2 * channels
        mods, c_in = [], 3 * k
        for _ in range(max(layers - 1, 1)):
            mods += [nn.Conv2d(c_in, width, 3, padding=1), nn.ReLU()]
            c_in = width
        mods.append(nn.Conv2d(c_in, 1, 3, padding=1))
        self.net = nn.Sequential(*mods)

    def init_state(self, frames):
        return frames.new_zeros(frames.shape[0], 3 * self.k, self.window, self.window)

    def step(self, buf, frame, action):
        f = frame[:, None]
        new = torch.cat([f, _action_maps(action, f, self.action_scale)], 1)
        return torch.cat([buf[:, 3:], new], 1)

    def decode(self, buf):
        return self.net(buf)[:, 0] + buf[:, -3]  # residual on the most recent frame


class CopyLast(RolloutModel):
    """Predicts the previous frame (the last observed one, then its own prediction, i.e. the last observation)."""

    def init_state(self, frames):
        return frames[:, -1]

    def step(self, state, frame, action):
        return frame

    def decode(self, state):
        return state


class AllBlack(RolloutModel):
    """Predicts zeros: the error level at which a prediction is useless (the paper's "all black" reference)."""

    def init_state(self, frames):
        return frames[:, -1]

    def step(self, state, frame, action):
        return state

    def decode(self, state):
        return torch.zeros_like(state)


def n_params(model: nn.Module) -> int:
    """Number of trainable parameters."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
