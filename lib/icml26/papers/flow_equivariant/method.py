"""FloWM: flow-equivariant world model with a velocity-lifted egocentric latent map (note §3.2-3.4).

The hidden state ``h`` (B, |V|, C, W, W) covers the whole W-torus in egocentric coordinates; the observed
window is the top-left ``[0:w, 0:w]`` of the map (official convention). One recurrent step (§3.2):

    h[nu] <- ReLU( P Conv_u(f_t) + Conv_h( tau_{-a_t} tau_{nu} h[nu] ) )        (flow shift, self-motion shift)
    f^_t  =  Dec( max_nu h[nu][:, 0:w, 0:w] )

``Conv_h`` (3x3, circular, no bias) is shared by all velocity channels; ``P`` places the encoded frame at the
window location and broadcasts it to every nu. Variants (§3.4): ``radius=0`` (V0), ``self_motion=False`` (no-SME).
"""

from __future__ import annotations

import torch
from torch import nn

from icml26.papers.flow_equivariant.recurrent import RolloutModel
from icml26.papers.flow_equivariant.shifts import torus_shift, velocity_grid


def _check_sizes(world, window, channels, radius, dec_layers):
    for name, v, lo in (("world", world, 2), ("window", window, 1), ("channels", channels, 1), ("radius", radius, 0),
                        ("dec_layers", dec_layers, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an int >= {lo}; got {v!r}")
    if window > world:
        raise ValueError(f"window ({window}) must not exceed world ({world})")


def conv_decoder(channels: int, layers: int, padding_mode: str = "circular") -> nn.Sequential:
    """``layers`` x (3x3 conv C->C + ReLU) then a 3x3 conv C->1, no bias (note §3.2)."""
    mods = []
    for _ in range(layers):
        mods += [nn.Conv2d(channels, channels, 3, padding=1, padding_mode=padding_mode, bias=False), nn.ReLU()]
    mods.append(nn.Conv2d(channels, 1, 3, padding=1, padding_mode=padding_mode, bias=False))
    return nn.Sequential(*mods)


class FloWM(RolloutModel):
    """The FloWM recurrent world model (official 2D model, note §3.2-3.3).

    Args: ``world`` W (map size = true torus size, a strong prior, §10), ``window`` w, ``channels`` C,
    ``radius`` r of the velocity set V = {-r..r}^2, ``self_motion`` (shift the map by -a_t), ``dec_layers`` L,
    ``rec_init`` "default" (PyTorch init, as official) or "identity" (ours: Conv_h starts near the identity).
    """

    def __init__(self, world: int, window: int, channels: int = 8, radius: int = 1, self_motion: bool = True,
                 dec_layers: int = 1, rec_init: str = "default"):
        super().__init__()
        _check_sizes(world, window, channels, radius, dec_layers)
        if rec_init not in ("default", "identity"):
            raise ValueError(f"rec_init must be 'default' or 'identity'; got {rec_init!r}")
        self.world, self.window, self.channels, self.self_motion = world, window, channels, bool(self_motion)
        self.register_buffer("velocities", velocity_grid(radius), persistent=False)
        self.enc = nn.Conv2d(1, channels, 3, padding=1, padding_mode="circular", bias=False)
        self.rec = nn.Conv2d(channels, channels, 3, padding=1, padding_mode="circular", bias=False)
        self.dec = conv_decoder(channels, dec_layers)
        if rec_init == "identity":  # (inferred, ours) start Conv_h at the identity so the map persists from step 0
            with torch.no_grad():
                self.rec.weight.mul_(0.1)
                self.rec.weight[:, :, 1, 1] += torch.eye(channels)

    @property
    def n_velocities(self) -> int:
        return int(self.velocities.shape[0])

    def init_state(self, frames: torch.Tensor) -> torch.Tensor:
        b = frames.shape[0]
        return frames.new_zeros(b, self.n_velocities, self.channels, self.world, self.world)

    def write_in(self, frame: torch.Tensor) -> torch.Tensor:
        """P Conv_u(f): the encoded frame placed at the window location [0:w, 0:w] of a zero W x W map."""
        if frame.dim() != 3 or frame.shape[-2:] != (self.window, self.window):
            raise ValueError(f"frame must be (B, {self.window}, {self.window}); got {tuple(frame.shape)}")
        e = self.enc(frame[:, None])
        if self.window == self.world:
            return e
        out = e.new_zeros(e.shape[0], self.channels, self.world, self.world)
        out[..., : self.window, : self.window] = e
        return out

    def transport(self, h: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        """tau_{-a} tau_nu h[nu]: flow shift of every velocity channel, then the self-motion shift (one gather)."""
        shifts = self.velocities[None].expand(h.shape[0], -1, -1)                         # (B, V, 2)
        if self.self_motion:
            shifts = shifts - action[:, None, :].long()
        return torus_shift(h, shifts[:, :, None, :])                                         # broadcast over C

    def step(self, h: torch.Tensor, frame: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        """One recurrent update (note §3.2 equation)."""
        if action.shape != (h.shape[0], 2):
            raise ValueError(f"action must be (B, 2) = (dy, dx); got {tuple(action.shape)}")
        moved = self.transport(h, action)
        b, v = moved.shape[:2]
        rec = self.rec(moved.reshape(b * v, self.channels, self.world, self.world)).reshape(moved.shape)
        return torch.relu(self.write_in(frame)[:, None] + rec)

    def readout(self, h: torch.Tensor) -> torch.Tensor:
        """Window crop of the map, max-pooled over velocity channels (B, C, w, w)."""
        return h[..., : self.window, : self.window].amax(1)

    def decode(self, h: torch.Tensor) -> torch.Tensor:
        return self.dec(self.readout(h))[:, 0]


def encode_states(model: RolloutModel, frames: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """All hidden states (B, T, ...) of a model fed ``frames`` (B, T, w, w) with ``actions`` (B, T, 2)."""
    if frames.dim() != 4 or actions.shape != frames.shape[:2] + (2,):
        raise ValueError(f"frames must be (B, T, w, w) and actions (B, T, 2); got {tuple(frames.shape)}, "
                         f"{tuple(actions.shape)}")
    state, states = model.init_state(frames), []
    for t in range(frames.shape[1]):
        state = model.step(state, frames[:, t], actions[:, t])
        states.append(state)
    return torch.stack(states, 1)


def velocity_index(velocities: torch.Tensor, v) -> int:
    """Index of velocity ``v`` = (vy, vx) in ``velocities`` (|V|, 2); -1 when v is not in V."""
    hit = (velocities == torch.as_tensor(v, device=velocities.device)).all(-1).nonzero()
    return int(hit[0, 0]) if hit.numel() else -1


def equivariance_errors(model: RolloutModel, pattern: torch.Tensor, camera_path: torch.Tensor, flow, lifted=None):
    """Exact-equivariance checks of claim 1 with window = world (note §6.1), random weights, no training.

    ``pattern`` (W, W); ``camera_path`` (T, 2) integer camera centres; ``flow`` = nu* (the pattern's velocity).
    (a) self-motion: feeding tau_{-c_t} f with actions c_t - c_{t-1} gives states tau_{-c_t} h^static_t;
    (b) flow: feeding tau_{t nu*} f with a static camera gives h_t[nu] = tau_{t nu*} h^static_t[nu - nu*] for
    every nu with nu - nu* in V (for a model without velocity channels, compare the single channel).
    Returns max-abs errors and the state scale ``{"self_motion", "flow", "scale"}``.
    """
    T = camera_path.shape[0]
    W = pattern.shape[-1]
    frames_static = pattern.expand(1, T, W, W)
    zero = torch.zeros(1, T, 2, dtype=torch.long, device=pattern.device)
    with torch.no_grad():
        h_s = encode_states(model, frames_static, zero)[0]                                    # (T, ...)
        c = camera_path.long() - camera_path[0].long()
        frames_cam = torus_shift(pattern.expand(T, W, W), -c)[None]
        acts = torch.diff(camera_path.long(), dim=0, prepend=camera_path[:1].long())[None]
        h_c = encode_states(model, frames_cam, acts)[0]
        sm_err = (h_c - torus_shift(h_s, -c.view(T, *([1] * (h_s.dim() - 3)), 2))).abs().max()
        nu = torch.as_tensor(flow, device=pattern.device).long()
        t_idx = torch.arange(T, device=pattern.device)[:, None]
        frames_flow = torus_shift(pattern.expand(T, W, W), t_idx * nu)[None]
        h_f = encode_states(model, frames_flow, zero)[0]
        shift = (t_idx * nu).view(T, *([1] * (h_s.dim() - 3)), 2)
        vels = getattr(model, "velocities", None)
        if vels is None or lifted is False:
            fl_err = (h_f - torus_shift(h_s, shift)).abs().max()
        else:
            errs = []
            for i, v in enumerate(vels):
                j = velocity_index(vels, v - nu)
                if j >= 0:
                    errs.append((h_f[:, i] - torus_shift(h_s[:, j], shift[:, 0])).abs().max())
            fl_err = torch.stack(errs).max() if errs else torch.tensor(float("nan"))
    return {"self_motion": float(sm_err), "flow": float(fl_err), "scale": float(h_s.abs().max())}


def overwrite_memory(frames: torch.Tensor, actions: torch.Tensor, world: int, velocity=(0, 0),
                     self_motion: bool = True, write: torch.Tensor | None = None) -> torch.Tensor:
    """A parameter-free egocentric memory: the FloWM transport with 'overwrite' instead of learned convs.

    Each step the W x W map is shifted by ``velocity`` (one flow channel) and by ``-a_t`` (self-motion), then the
    frame overwrites the window [0:w, 0:w] where ``write[:, t]`` is true (default: always). Returns maps
    (B, T, W, W). For a static world it remembers every region seen, exactly: the idea FloWM learns (note §2).
    """
    from icml26.papers.flow_equivariant.recurrent import check_sequence

    check_sequence(frames, actions)
    b, T, w = frames.shape[:3]
    if isinstance(world, bool) or not isinstance(world, int) or world < w:
        raise ValueError(f"world must be an int >= the window size {w}; got {world!r}")
    if write is None:
        write = torch.ones(b, T, dtype=torch.bool, device=frames.device)
    m = frames.new_zeros(b, world, world)
    v = torch.as_tensor(velocity, device=frames.device).long()
    maps = []
    for t in range(T):
        s = v.expand(b, 2) - (actions[:, t].long() if self_motion else 0)
        m = torus_shift(m, s)
        upd = m.clone()
        upd[:, :w, :w] = frames[:, t]
        m = torch.where(write[:, t, None, None], upd, m)
        maps.append(m)
    return torch.stack(maps, 1)
