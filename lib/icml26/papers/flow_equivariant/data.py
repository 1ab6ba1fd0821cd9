"""DigitsWorld: a toroidal world of moving digit sprites seen through a moving window (note §3.5, §7).

Offline stand-in for the official MNIST World: sprites are scikit-learn's bundled 8x8 digits (scaled to [0, 1],
optionally upsampled x2 with ``np.kron``), split by index so that test worlds use unseen digits. Rendering follows
the official semantics: sum of wrapped sprites clamped to [0, 1], integer digit velocities, a camera that walks
towards unseen cells during the context phase (until the world is covered) and a uniform random walk afterwards,
and a window crop centred on the camera. Everything is batched torch on ``device``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from icml26.papers.flow_equivariant.shifts import torus_shift, window_crop

TRAIN_SPRITES = slice(0, 1400)
TEST_SPRITES = slice(1400, 1797)


@lru_cache(maxsize=4)
def _digits(upsample: int) -> np.ndarray:
    from sklearn.datasets import load_digits

    imgs = load_digits().images.astype(np.float32) / 16.0
    if upsample > 1:
        imgs = np.stack([np.kron(im, np.ones((upsample, upsample), np.float32)) for im in imgs])
    return imgs


def sprites(split: str = "train", upsample: int = 1) -> torch.Tensor:
    """Digit sprites (N, s, s) in [0, 1]: ``split`` "train" (indices 0-1399) or "test" (1400-1796)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test'; got {split!r}")
    if upsample not in (1, 2):
        raise ValueError(f"upsample must be 1 or 2; got {upsample!r}")
    return torch.from_numpy(_digits(upsample)[TRAIN_SPRITES if split == "train" else TEST_SPRITES].copy())


def render(sprite_imgs: torch.Tensor, positions: torch.Tensor, world: int) -> torch.Tensor:
    """Paste sprites (B, D, s, s) at integer top-left ``positions`` (..., B, D, 2) on a W-torus; sum, clamp to [0, 1].

    ``positions`` may carry a leading time axis: (T, B, D, 2) gives worlds (T, B, W, W).
    """
    if sprite_imgs.dim() != 4 or sprite_imgs.shape[-1] != sprite_imgs.shape[-2]:
        raise ValueError(f"sprite_imgs must be (B, D, s, s); got {tuple(sprite_imgs.shape)}")
    if positions.shape[-3:] != sprite_imgs.shape[:2] + (2,):
        raise ValueError(f"positions must end in {tuple(sprite_imgs.shape[:2]) + (2,)}; got {tuple(positions.shape)}")
    s = sprite_imgs.shape[-1]
    if s > world:
        raise ValueError(f"world ({world}) must be at least the sprite size ({s})")
    canvas = torch.zeros(*positions.shape[:-3], *sprite_imgs.shape[:2], world, world, device=sprite_imgs.device)
    canvas[..., :s, :s] = sprite_imgs.expand_as(canvas[..., :s, :s])
    canvas = torus_shift(canvas, positions.long())
    return canvas.sum(-3).clamp(0.0, 1.0)


def _box_sums(mask: torch.Tensor, window: int) -> torch.Tensor:
    """For every camera centre c on the torus, the sum of ``mask`` (B, W, W) over the window seen from c."""
    # window seen from c covers rows c - w//2 .. c - w//2 + w - 1 (mod W)
    world = mask.shape[-1]
    out = torch.zeros_like(mask)
    for dy in range(window):  # w shifted copies; small loop over the window size, batched over B and positions
        row = torus_shift(mask, (window // 2 - dy, 0))
        out = out + row
    cols = torch.zeros_like(mask)
    for dx in range(window):
        cols = cols + torus_shift(out, (0, window // 2 - dx))
    assert cols.shape[-1] == world
    return cols


def camera_path(batch: int, world: int, window: int, step: int, t_context: int, t_target: int,
                coverage: bool = True, generator: torch.Generator | None = None, device="cpu") -> torch.Tensor:
    """Integer camera centres (B, T, 2). Context: greedy walk to unseen cells (ties broken at random) until the
    world is covered, then random; target: uniform random walk with steps in [-step, step]^2 (note §3.5)."""
    if step < 0 or window > world:
        raise ValueError(f"step must be >= 0 and window <= world; got step={step}, window={window}, world={world}")
    cams = torch.randint(0, world, (batch, 2), generator=generator, device=device)
    seen = torch.zeros(batch, world, world, device=device)
    path = []
    r = torch.arange(-step, step + 1, device=device)
    cand = torch.stack(torch.meshgrid(r, r, indexing="ij"), -1).reshape(-1, 2)            # (K, 2)
    bidx = torch.arange(batch, device=device)
    for t in range(t_context + t_target):
        if t > 0:
            rand_step = torch.randint(-step, step + 1, (batch, 2), generator=generator, device=device)
            if coverage and t < t_context:
                unseen = _box_sums(1.0 - seen, window)                                       # (B, W, W)
                new = (cams[:, None, :] + cand[None]) % world                                 # (B, K, 2)
                gain = unseen[bidx[:, None], new[..., 0], new[..., 1]]
                gain = gain + torch.rand(gain.shape, generator=generator, device=device) * 0.5
                greedy = cand[gain.argmax(1)]
                done = (seen.flatten(1).min(1).values > 0)[:, None]
                rand_step = torch.where(done, rand_step, greedy)
            cams = (cams + rand_step) % world
        path.append(cams)
        ones = torch.ones(batch, window, window, device=device)
        pad = torch.zeros(batch, world, world, device=device)
        pad[:, :window, :window] = ones
        seen = torch.maximum(seen, torus_shift(pad, cams - window // 2))
    return torch.stack(path, 1)


def make_batch(batch: int, world: int, window: int, n_digits: int, step: int, t_in: int, t_out: int,
               dynamic: bool = True, split: str = "train", upsample: int = 1, coverage: bool = True,
               generator: torch.Generator | None = None, device="cpu", keep_world: bool = False,
               digit_speed: int = 1) -> dict:
    """One batch of DigitsWorld sequences.

    Returns ``frames_in`` (B, t_in, w, w), ``actions_in`` (B, t_in, 2) with ``actions_in[:, 0] = 0``,
    ``actions_out`` (B, t_out, 2), ``targets`` (B, t_out, w, w) (and ``world`` (B, T, W, W), ``cams`` (B, T, 2)
    when ``keep_world``). Digit velocities are drawn from {-speed, 0, speed}^2 minus the zero vector when
    ``dynamic`` (every digit moves), else zero.
    """
    for name, v, lo in (("batch", batch, 1), ("world", world, 2), ("window", window, 1), ("n_digits", n_digits, 1),
                        ("t_in", t_in, 1), ("t_out", t_out, 1), ("step", step, 0), ("digit_speed", digit_speed, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an int >= {lo}; got {v!r}")
    if window > world:
        raise ValueError(f"window ({window}) must not exceed world ({world})")
    spr = sprites(split, upsample).to(device)
    idx = torch.randint(0, spr.shape[0], (batch, n_digits), generator=generator, device=device)
    imgs = spr[idx]                                                                            # (B, D, s, s)
    pos0 = torch.randint(0, world, (batch, n_digits, 2), generator=generator, device=device)
    if dynamic:
        r = torch.tensor([-1, 0, 1], device=device)
        vs = torch.stack(torch.meshgrid(r, r, indexing="ij"), -1).reshape(-1, 2)
        vs = vs[(vs != 0).any(-1)] * digit_speed
        vel = vs[torch.randint(0, vs.shape[0], (batch, n_digits), generator=generator, device=device)]
    else:
        vel = torch.zeros(batch, n_digits, 2, dtype=torch.long, device=device)
    T = t_in + t_out
    t = torch.arange(T, device=device)[:, None, None, None]
    worlds = render(imgs, (pos0 + t * vel) % world, world)                                  # (T, B, W, W)
    worlds = worlds.transpose(0, 1)                                                           # (B, T, W, W)
    cams = camera_path(batch, world, window, step, t_in, t_out, coverage, generator, device)
    frames = window_crop(worlds, cams, window)
    acts = torch.diff(cams, dim=1, prepend=cams[:, :1])
    acts = (acts + world // 2) % world - world // 2                                           # minimal torus step
    out = {"frames_in": frames[:, :t_in], "actions_in": acts[:, :t_in], "targets": frames[:, t_in:],
           "actions_out": acts[:, t_in:], "velocities": vel}
    if keep_world:
        out["world"], out["cams"] = worlds, cams
    return out
