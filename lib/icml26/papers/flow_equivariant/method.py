"""FloWM: flow-equivariant world model with a velocity-lifted egocentric latent map (paper §3; docs page §Method).

The hidden state ``h`` (B, |V|, C, W, W) covers the whole W-torus in egocentric coordinates; the observed
window is the top-left ``[0:w, 0:w]`` of the map (the official code's convention). One recurrent step:

    h[nu] <- ReLU( P Conv_u(f_t) + Conv_h( tau_{-a_t} tau_{nu} h[nu] ) )        (flow shift, self-motion shift)
    f^_t  =  Dec( max_nu h[nu][:, 0:w, 0:w] )

``Conv_h`` (3x3, circular, no bias) is shared by all velocity channels; ``P`` places the encoded frame at the
window location and broadcasts it to every nu. Variants: ``radius=0`` (V0, no velocity channels) and
``self_motion=False`` (no-SME). The two shifts and Conv_h's circular padding are one gather (``torus_shift`` with
``pad=1``) followed by an unpadded convolution: the same numbers as ``roll`` + circular conv, in fewer copies.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks
from icml26.papers.flow_equivariant.recurrent import RolloutModel, check_sequence
from icml26.papers.flow_equivariant.shifts import torus_shift, velocity_grid

REC_INITS = ("default", "identity")


def check_sizes(world, window, channels, radius=0, dec_layers=1) -> None:
    """Validate the map sizes shared by FloWM and its baselines (``window`` may not exceed ``world``)."""
    checks.positive_int("world", world)
    checks.positive_int("window", window)
    checks.positive_int("channels", channels)
    checks.nonnegative_int("radius", radius)
    checks.nonnegative_int("dec_layers", dec_layers)
    if window > world:
        raise ValueError(f"window ({window}) must not exceed world ({world})")


def conv_decoder(channels: int, layers: int, padding_mode: str = "circular") -> nn.Sequential:
    """``layers`` x (3x3 conv C->C + ReLU) then a 3x3 conv C->1, no bias (the official decoder)."""
    checks.positive_int("channels", channels)
    checks.nonnegative_int("layers", layers)
    checks.one_of("padding_mode", padding_mode, ("circular", "zeros"))
    mods = []
    for _ in range(layers):
        mods += [nn.Conv2d(channels, channels, 3, padding=1, padding_mode=padding_mode, bias=False), nn.ReLU()]
    mods.append(nn.Conv2d(channels, 1, 3, padding=1, padding_mode=padding_mode, bias=False))
    return nn.Sequential(*mods)


class FloWM(RolloutModel):
    """The FloWM recurrent world model (the official 2D model).

    Args: ``world`` W (map size = true torus size, a strong prior the baselines lack), ``window`` w, ``channels``
    C, ``radius`` r of the velocity set V = {-r..r}^2, ``self_motion`` (shift the map by -a_t), ``dec_layers`` L,
    ``rec_init`` "default" (PyTorch's init, as the official code) or "identity" (ours: Conv_h starts at the
    identity plus 0.1 x the default init, so the map persists from the first step).
    """

    def __init__(self, world: int, window: int, channels: int = 8, radius: int = 1, self_motion: bool = True,
                 dec_layers: int = 1, rec_init: str = "default", max_gain: float | None = None):
        super().__init__()
        check_sizes(world, window, channels, radius, dec_layers)
        checks.one_of("rec_init", rec_init, REC_INITS)
        self.world, self.window, self.channels, self.self_motion = world, window, channels, bool(self_motion)
        self.max_gain = None if max_gain is None else checks.positive_number("max_gain", max_gain)
        self._rec_weight = None
        self.register_buffer("velocities", velocity_grid(radius), persistent=False)
        self.enc = nn.Conv2d(1, channels, 3, padding=1, padding_mode="circular", bias=False)
        self.rec = nn.Conv2d(channels, channels, 3, padding=0, bias=False)  # circular padding comes with the shift
        self.dec = conv_decoder(channels, dec_layers)
        if rec_init == "identity":
            with torch.no_grad():
                self.rec.weight.mul_(0.1)
                self.rec.weight[:, :, 1, 1] += torch.eye(channels)

    @property
    def n_velocities(self) -> int:
        return int(self.velocities.shape[0])

    def rec_weight(self) -> torch.Tensor:
        """Conv_h's kernel, rescaled so that its gain on the torus is at most ``max_gain`` (when set)."""
        w = self.rec.weight
        if self.max_gain is None:
            return w
        grid = F.pad(w, (0, self.world - 3, 0, self.world - 3))
        gain = torch.linalg.matrix_norm(torch.fft.fft2(grid).permute(2, 3, 0, 1), ord=2).max()
        return w * (self.max_gain / gain).clamp(max=1.0)

    def init_state(self, frames: torch.Tensor) -> torch.Tensor:
        """A zero map (B, |V|, C, W, W); also fixes Conv_h's (rescaled) kernel for the rollout that starts here."""
        b = frames.shape[0]
        if self.max_gain is not None:
            self._rec_weight = self.rec_weight()
        return frames.new_zeros(b, self.n_velocities, self.channels, self.world, self.world)

    def write_in(self, frame: torch.Tensor) -> torch.Tensor:
        """P Conv_u(f): the encoded frame placed at the window location [0:w, 0:w] of a zero W x W map."""
        if frame.dim() != 3 or frame.shape[-2:] != (self.window, self.window):
            raise ValueError(f"frame must be (B, {self.window}, {self.window}); got {tuple(frame.shape)}")
        e = self.enc(frame[:, None])
        gap = self.world - self.window
        return F.pad(e, (0, gap, 0, gap)) if gap else e

    def transport(self, h: torch.Tensor, action: torch.Tensor, pad: int = 0) -> torch.Tensor:
        """tau_{-a} tau_nu h[nu] for every velocity channel (one gather), optionally circularly padded by ``pad``."""
        shifts = self.velocities[None].expand(h.shape[0], -1, -1)                             # (B, V, 2)
        if self.self_motion:
            shifts = shifts - action[:, None, :].long()
        return torus_shift(h, shifts[:, :, None, :], pad=pad)                                 # broadcast over C

    def step(self, h: torch.Tensor, frame: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
        """One recurrent update (the equation in the module docstring)."""
        if action.shape != (h.shape[0], 2):
            raise ValueError(f"action must be (B, 2) = (dy, dx); got {tuple(action.shape)}")
        moved = self.transport(h, action, pad=1)                                              # (B, V, C, W+2, W+2)
        b, v, c = moved.shape[:3]
        weight = self.rec.weight if self.max_gain is None else self._rec_weight
        rec = F.conv2d(moved.reshape(b * v, c, self.world + 2, self.world + 2), weight).reshape(h.shape)
        return torch.relu(self.write_in(frame)[:, None] + rec)

    def readout(self, h: torch.Tensor) -> torch.Tensor:
        """Window crop of the map, max-pooled over velocity channels (B, C, w, w)."""
        return h[..., : self.window, : self.window].amax(1)

    def decode(self, h: torch.Tensor) -> torch.Tensor:
        return self.dec(self.readout(h))[:, 0]


def encode_states(model: RolloutModel, frames: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """All hidden states (B, T, ...) of a model fed ``frames`` (B, T, w, w) with ``actions`` (B, T, 2)."""
    if not isinstance(model, RolloutModel):
        raise TypeError(f"model must be a RolloutModel; got {type(model).__name__}")
    check_sequence(frames, actions)
    state, states = model.init_state(frames), []
    for t in range(frames.shape[1]):
        state = model.step(state, frames[:, t], actions[:, t])
        states.append(state)
    return torch.stack(states, 1)


def _check_flow(flow, device) -> torch.Tensor:
    """``flow`` = nu* as a long (2,) tensor: an integer pair (vy, vx)."""
    try:
        nu = torch.as_tensor(flow, device=device)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"flow must be an integer pair (vy, vx); got {flow!r}") from None
    if nu.shape != (2,) or nu.is_floating_point() or nu.is_complex() or nu.dtype == torch.bool:
        raise ValueError(f"flow must be an integer pair (vy, vx); got {flow!r}")
    return nu.long()


def velocity_index(velocities: torch.Tensor, v) -> int:
    """Index of velocity ``v`` = (vy, vx) in ``velocities`` (|V|, 2); a velocity not in V is an error."""
    checks.tensor("velocities", velocities, ndim=2, dtype_kind="int")
    v = torch.as_tensor(v, device=velocities.device)
    if v.shape != (2,) or v.is_floating_point():
        raise ValueError(f"v must be an integer pair (vy, vx); got {v.tolist()}")
    i = _find_velocity(velocities, v)
    if i < 0:
        raise ValueError(f"v must be one of the model's velocities {velocities.tolist()}; got {v.tolist()}")
    return i


def _find_velocity(velocities: torch.Tensor, v: torch.Tensor) -> int:
    """Index of ``v`` in ``velocities``, or -1 (the channel-pairing search asks for velocities that may be absent)."""
    hit = (velocities == v).all(-1).nonzero()
    return int(hit[0, 0]) if hit.numel() else -1


def _channel_pairs(model, nu) -> list[tuple[int, int]]:
    """(i, j) with velocities[i] - nu = velocities[j]: the channels that a flow at ``nu`` maps onto each other."""
    vels = model.velocities
    return [(i, j) for i in range(len(vels)) if (j := _find_velocity(vels, vels[i] - nu)) >= 0]


def equivariance_errors(model: RolloutModel, pattern: torch.Tensor, camera_path: torch.Tensor, flow,
                        lifted: bool | None = None) -> dict:
    """Exact-equivariance identities with window = world (FERNN theory; paper §3).

    ``pattern`` (W, W); ``camera_path`` (T, 2) integer camera centres; ``flow`` = nu* (the pattern's velocity).
    (a) self-motion: feeding tau_{-c_t} f with actions c_t - c_{t-1} gives states tau_{-c_t} h^static_t;
    (b) flow: feeding tau_{t nu*} f with a static camera gives h_t[nu] = tau_{t nu*} h^static_t[nu - nu*] for
    every nu with nu - nu* in V (a model without velocity channels, or ``lifted=False``: the single state).
    Returns the max-abs errors and the state scale ``{"self_motion", "flow", "scale"}`` (``flow`` is ``None``
    when no channel pair lies in V).
    """
    if not isinstance(model, RolloutModel):
        raise TypeError(f"model must be a RolloutModel; got {type(model).__name__}")
    checks.tensor("pattern", pattern, ndim=2)
    checks.tensor("camera_path", camera_path, ndim=2, shape=(None, 2), dtype_kind="int")
    nu = _check_flow(flow, pattern.device)
    T, W = camera_path.shape[0], pattern.shape[-1]
    frames_static = pattern.expand(1, T, W, W)
    zero = torch.zeros(1, T, 2, dtype=torch.long, device=pattern.device)
    with torch.no_grad():
        h_s = encode_states(model, frames_static, zero)[0]                                    # (T, ...)
        c = camera_path.long() - camera_path[0].long()
        frames_cam = torus_shift(pattern.expand(T, W, W), -c)[None]
        acts = torch.diff(camera_path.long(), dim=0, prepend=camera_path[:1].long())[None]
        h_c = encode_states(model, frames_cam, acts)[0]
        sm_err = (h_c - torus_shift(h_s, -c.view(T, *([1] * (h_s.dim() - 3)), 2))).abs().max()
        t_idx = torch.arange(T, device=pattern.device)[:, None]
        frames_flow = torus_shift(pattern.expand(T, W, W), t_idx * nu)[None]
        h_f = encode_states(model, frames_flow, zero)[0]
        shift = (t_idx * nu).view(T, *([1] * (h_s.dim() - 3)), 2)
        if getattr(model, "velocities", None) is None or lifted is False:
            fl_err = (h_f - torus_shift(h_s, shift)).abs().max()
        else:
            errs = [(h_f[:, i] - torus_shift(h_s[:, j], shift[:, 0])).abs().max() for i, j in _channel_pairs(model, nu)]
            fl_err = torch.stack(errs).max() if errs else None
    return {"self_motion": float(sm_err), "flow": None if fl_err is None else float(fl_err),
            "scale": float(h_s.abs().max())}


def allocentric_states(model: FloWM, frames: torch.Tensor, cams: torch.Tensor) -> torch.Tensor:
    """A world-frame re-statement of FloWM with the same weights: never shifted by actions.

    Each frame (seen from camera centre ``cams[:, t]``) is written at its place on a world-fixed map, the map
    flows by nu per channel, and Conv_h acts on it; nothing depends on the actions. Self-motion equivariance
    says FloWM's egocentric states are exactly these maps shifted by -(c_t - c_0) (docs page, "Checks").
    Returns (B, T, V, C, W, W) in the world frame anchored at the first camera position.
    """
    if not isinstance(model, FloWM):
        raise TypeError(f"model must be a FloWM; got {type(model).__name__}")
    checks.tensor("cams", cams, ndim=3, dtype_kind="int")
    check_sequence(frames, cams, "frames")
    offsets = cams.long() - cams[:, :1].long()
    H, out = model.init_state(frames), []
    vel = model.velocities[None, :, None, :]                                                   # (1, V, 1, 2)
    b, v, c, W = H.shape[0], H.shape[1], model.channels, model.world
    weight = model.rec_weight()  # the same kernel at every step (its gain cap is an FFT and an SVD)
    for t in range(frames.shape[1]):
        placed = torus_shift(model.write_in(frames[:, t]), offsets[:, t, None, :])           # (B, C, W, W)
        moved = torus_shift(H, vel.expand(b, -1, -1, -1), pad=1)
        rec = F.conv2d(moved.reshape(b * v, c, W + 2, W + 2), weight).reshape(H.shape)
        H = torch.relu(placed[:, None] + rec)
        out.append(H)
    return torch.stack(out, 1)


def partial_view_errors(model: FloWM, world: torch.Tensor, cams: torch.Tensor, window: int, flow) -> dict:
    """Exact identities with a window smaller than the world, on any weights (trained or random).

    ``world`` (B, W, W) static worlds, ``cams`` (B, T, 2) integer camera centres, ``flow`` nu* in V.
    (a) self-motion: FloWM's egocentric states equal the :func:`allocentric_states` maps shifted by -(c_t - c_0);
    (b) flow: the world drifting at nu* seen from ``cams`` gives the same frames as the static world seen from
    c_t - t nu*, and FloWM's channel nu for the first equals channel nu - nu* for the second.
    Returns the max-abs errors divided by the state scale ``{"self_motion", "flow", "scale"}`` (``flow`` is
    ``None`` when no channel pair nu, nu - nu* lies in V, e.g. for V0).
    """
    from icml26.papers.flow_equivariant.shifts import window_crop

    if not isinstance(model, FloWM):
        raise TypeError(f"model must be a FloWM; got {type(model).__name__}")
    checks.tensor("world", world, ndim=3)
    if world.shape[-2:] != (model.world, model.world):
        raise ValueError(f"world must be (B, {model.world}, {model.world}) like the model's map; "
                         f"got {tuple(world.shape)}")
    checks.tensor("cams", cams, ndim=3, shape=(world.shape[0], None, 2), dtype_kind="int")
    checks.one_of("window", window, (model.window,))
    T = cams.shape[1]
    nu = _check_flow(flow, world.device)
    t = torch.arange(T, device=world.device)[None, :, None]
    acts = torch.diff(cams.long(), dim=1, prepend=cams[:, :1].long())
    with torch.no_grad():
        frames = window_crop(world[:, None].expand(-1, T, -1, -1), cams.long(), window)
        ego = encode_states(model, frames, acts)
        allo = allocentric_states(model, frames, cams)
        back = -(cams.long() - cams[:, :1].long())[:, :, None, None, :]
        sm = (ego - torus_shift(allo, back)).abs().max()
        drifting = torus_shift(world[:, None].expand(-1, T, -1, -1), t * nu)                 # (B, T, W, W)
        frames_d = window_crop(drifting, cams.long(), window)
        cams_s = cams.long() - t * nu
        frames_s = window_crop(world[:, None].expand(-1, T, -1, -1), cams_s, window)
        h_d = encode_states(model, frames_d, acts)
        h_s = encode_states(model, frames_s, torch.diff(cams_s, dim=1, prepend=cams_s[:, :1]))
        pairs = _channel_pairs(model, nu)
        fl = None
        if pairs:
            fl = torch.stack([(h_d[:, :, i] - h_s[:, :, j]).abs().max() for i, j in pairs]).max()
            fl = torch.maximum(fl, (frames_d - frames_s).abs().max())
        scale = ego.abs().max().clamp_min(1e-12)
    return {"self_motion": float(sm / scale), "flow": None if fl is None else float(fl / scale),
            "scale": float(scale)}


def overwrite_memory(frames: torch.Tensor, actions: torch.Tensor, world: int, velocity=(0, 0),
                     self_motion: bool = True, write: torch.Tensor | None = None) -> torch.Tensor:
    """A parameter-free egocentric memory: the FloWM transport with 'overwrite' instead of learned convs.

    Each step the W x W map is shifted by ``velocity`` (one flow channel) and by ``-a_t`` (self-motion), then the
    frame overwrites the window [0:w, 0:w] where ``write[:, t]`` is true (default: always). Returns maps
    (B, T, W, W). For a static world it remembers every region seen, exactly: the idea FloWM learns.
    """
    check_sequence(frames, actions)
    b, T, w = frames.shape[:3]
    checks.positive_int("world", world)
    if world < w:
        raise ValueError(f"world must be an int >= the window size {w}; got {world!r}")
    if write is None:
        write = torch.ones(b, T, dtype=torch.bool, device=frames.device)
    checks.tensor("write", write, shape=(b, T), dtype_kind="bool")
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
