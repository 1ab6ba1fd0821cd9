"""Measurements inside a trained FloWM: which velocity channel carries each digit, what the moving channels add
to a static world's prediction, and how the latent map's size evolves over a long rollout.

* :func:`velocity_selectivity`: out of view, does the channel nu that matches a digit's true velocity hold the
  largest response at that digit's pixels (what the max-pool readout picks)? Chance is 1/|V|.
* :class:`ChannelSubset`: the same trained model read out from a subset of its velocity channels only (e.g. the
  static channel nu = 0), to measure how much of its error the other channels cause.
* :func:`long_rollout_stats`: per prediction step, the mean latent activity and the largest predicted pixel.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.flow_equivariant.method import FloWM, velocity_index
from icml26.papers.flow_equivariant.recurrent import RolloutModel, per_step_mse, rollout
from icml26.papers.flow_equivariant.shifts import torus_shift


class ChannelSubset(RolloutModel):
    """A trained :class:`FloWM` whose readout max-pools over the velocity channels ``keep`` only.

    The recurrence is the model's own; only what is decoded (and so written back during the prediction) changes.
    """

    def __init__(self, model: FloWM, keep):
        super().__init__()
        if not isinstance(model, FloWM):
            raise TypeError(f"model must be a FloWM; got {type(model).__name__}")
        keep = [int(k) for k in keep]
        if not keep or min(keep) < 0 or max(keep) >= model.n_velocities:
            raise ValueError(f"keep must list channel indices in [0, {model.n_velocities - 1}]; got {keep}")
        self.model, self.keep = model, keep

    def init_state(self, frames):
        return self.model.init_state(frames)

    def step(self, state, frame, action):
        return self.model.step(state, frame, action)

    def decode(self, state):
        return self.model.dec(state[:, self.keep, :, : self.model.window, : self.model.window].amax(1))[:, 0]


def _check_world_batch(batch, name: str = "batch") -> None:
    need = ("frames_in", "actions_in", "actions_out", "targets", "positions", "sprites", "cams", "velocities")
    if not isinstance(batch, dict) or any(k not in batch for k in need):
        raise ValueError(f"{name} must be a make_batch(..., keep_world=True) dict with keys {need}")


def velocity_selectivity(model: FloWM, batch: dict, threshold: float = 0.5) -> dict:
    """Share of out-of-view digit pixels whose strongest velocity channel is the digit's own velocity.

    ``batch`` comes from ``data.make_batch(..., keep_world=True)``. At every prediction step, each digit's pixels
    (sprite value > ``threshold``, not covered by another digit) are placed in the egocentric map (map pixel
    (i, j) is world pixel c_t - w//2 + (i, j)); those outside the window are scored. Returns ``{"accuracy",
    "chance", "share"}``: the argmax accuracy, 1/|V|, and the mean share of the total response held by the right
    channel. A static world scores the channel nu = 0.
    """
    if not isinstance(model, FloWM):
        raise TypeError(f"model must be a FloWM; got {type(model).__name__}")
    _check_world_batch(batch)
    checks.probability("threshold", threshold)
    W, w = model.world, model.window
    t_in = batch["frames_in"].shape[1]
    spr = batch["sprites"] > threshold                                                        # (B, D, s, s)
    b, d, s = spr.shape[:3]
    target = torch.tensor([velocity_index(model.velocities, v) for v in batch["velocities"].reshape(-1, 2)],
                          device=spr.device).reshape(b, d)
    outside = torch.ones(W, W, dtype=torch.bool, device=spr.device)
    outside[:w, :w] = False
    hits, total, share = [], [], []

    def observe(t, state, frame):
        k = t_in + t
        canvas = torch.zeros(b, d, W, W, device=spr.device)
        canvas[..., :s, :s] = spr.float()
        masks = torus_shift(canvas, batch["positions"][:, k]) > 0                             # world frame
        masks = torus_shift(masks.float(), w // 2 - batch["cams"][:, k, None, :]) > 0          # map frame
        alone = masks & (masks.sum(1, keepdim=True) == 1) & outside
        energy = state.sum(2)                                                                  # (B, V, W, W)
        best = energy.argmax(1)                                                                # (B, W, W)
        right = torch.gather(energy, 1, target[:, :, None, None].clamp_min(0).expand(-1, -1, W, W))
        frac = right / energy.sum(1, keepdim=True).clamp_min(1e-12)                            # (B, D, W, W)
        lit = energy.sum(1, keepdim=True) > 0
        scored = alone & lit & (target[:, :, None, None] >= 0)
        hits.append(((best[:, None] == target[:, :, None, None]) & scored).sum())
        total.append(scored.sum())
        share.append((frac * scored).sum())

    with torch.no_grad():
        rollout(model, batch["frames_in"], batch["actions_in"], batch["actions_out"], observe=observe)
    n = float(torch.stack(total).sum())
    return {"accuracy": float(torch.stack(hits).sum()) / max(n, 1.0), "chance": 1.0 / model.n_velocities,
            "share": float(torch.stack(share).sum()) / max(n, 1.0), "pixels": n}


def long_rollout_stats(model: RolloutModel, batch: dict) -> dict:
    """Per prediction step: the mean absolute latent activity and the largest predicted pixel value."""
    if not isinstance(model, RolloutModel):
        raise TypeError(f"model must be a RolloutModel; got {type(model).__name__}")
    activity, peak = [], []

    def observe(t, state, frame):
        activity.append(float(state.abs().mean()) if isinstance(state, torch.Tensor) else float("nan"))
        peak.append(float(frame.abs().max()))

    with torch.no_grad():
        rollout(model, batch["frames_in"], batch["actions_in"], batch["actions_out"], observe=observe)
    return {"activity": activity, "peak": peak}


def _check_models(models) -> dict:
    if not isinstance(models, dict) or not all(isinstance(m, RolloutModel) for m in models.values()):
        raise ValueError("models must be a dict {kind: trained RolloutModel}")
    return models


def static_report(models: dict, test: dict) -> dict:
    """Static world: the V1 FloWM's MSE read out from nu = 0 only (beside its full readout) and its selectivity."""
    m = _check_models(models).get("flowm")
    _check_world_batch(test, "test")
    if not isinstance(m, FloWM) or m.n_velocities == 1:
        return {}
    zero = velocity_index(m.velocities, (0, 0))
    return {"flowm_static_channel_mse": float(per_step_mse(ChannelSubset(m, [zero]), test).mean()),
            "selectivity": velocity_selectivity(m, test), "gain": recurrent_gain(m)}


def dynamic_report(models: dict, long: dict) -> dict:
    """Moving world: the V1 FloWM's velocity selectivity and the latent activity along the long rollout."""
    m = _check_models(models).get("flowm")
    _check_world_batch(long, "long")
    if not isinstance(m, FloWM):
        return {}
    out = {"selectivity": velocity_selectivity(m, long), "gain": recurrent_gain(m),
           "flowm_stats": long_rollout_stats(m, long)}
    if isinstance(models.get("flowm_v0"), FloWM):
        out["flowm_v0_stats"] = long_rollout_stats(models["flowm_v0"], long)
    return out


def recurrent_gain(model: FloWM) -> float:
    """The largest gain of the linear map h -> Conv_h(h) on the W-torus: max over spatial frequencies of the
    largest singular value of the kernel's Fourier transform. Above 1, an unobserved map can grow without bound
    (ReLU only shrinks norms, so at or below 1 it cannot)."""
    if not isinstance(model, FloWM):
        raise TypeError(f"model must be a FloWM; got {type(model).__name__}")
    k = model.rec_weight().detach().double()                                                   # (C, C, 3, 3)
    W = model.world
    grid = torch.zeros(k.shape[0], k.shape[1], W, W, dtype=torch.float64, device=k.device)
    grid[..., :3, :3] = k
    spec = torch.fft.fft2(grid).permute(2, 3, 0, 1)                                          # (W, W, C, C)
    return float(torch.linalg.matrix_norm(spec, ord=2).max())
