"""DigitsWorld: a toroidal world of moving digit sprites seen through a moving window (an offline MNIST World).

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

from icml26 import checks
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
    checks.one_of("split", split, ("train", "test"))
    checks.one_of("upsample", upsample, (1, 2))
    return torch.from_numpy(_digits(upsample)[TRAIN_SPRITES if split == "train" else TEST_SPRITES].copy())


def render(sprite_imgs: torch.Tensor, positions: torch.Tensor, world: int) -> torch.Tensor:
    """Paste sprites (B, D, s, s) at integer top-left ``positions`` (..., B, D, 2) on a W-torus; sum, clamp to [0, 1].

    ``positions`` may carry a leading time axis: (T, B, D, 2) gives worlds (T, B, W, W).
    """
    checks.tensor("sprite_imgs", sprite_imgs, ndim=4)
    if sprite_imgs.shape[-1] != sprite_imgs.shape[-2]:
        raise ValueError(f"sprite_imgs must be (B, D, s, s) with square sprites; got {tuple(sprite_imgs.shape)}")
    checks.tensor("positions", positions, dtype_kind="int")
    if positions.dim() < 3 or positions.shape[-3:] != sprite_imgs.shape[:2] + (2,):
        raise ValueError(f"positions must end in {tuple(sprite_imgs.shape[:2]) + (2,)}; got {tuple(positions.shape)}")
    checks.positive_int("world", world)
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
    world is covered, then random; target: uniform random walk with steps in [-step, step]^2 (the official
    generator's camera)."""
    for name, v in (("batch", batch), ("world", world), ("window", window), ("t_context", t_context)):
        checks.positive_int(name, v)
    checks.nonnegative_int("step", step)
    checks.nonnegative_int("t_target", t_target)
    device = checks.device("device", device)
    if window > world:
        raise ValueError(f"window ({window}) must not exceed world ({world})")
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
    for name, v in (("batch", batch), ("world", world), ("window", window), ("n_digits", n_digits), ("t_in", t_in),
                    ("t_out", t_out)):
        checks.positive_int(name, v)
    checks.nonnegative_int("step", step)
    checks.nonnegative_int("digit_speed", digit_speed)
    device = checks.device("device", device)
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
        out.update(world=worlds, cams=cams, positions=((pos0 + t * vel) % world).permute(1, 0, 2, 3), sprites=imgs)
    return out


def make_pool(n: int, chunk: int = 256, **kwargs) -> dict:
    """``n`` DigitsWorld sequences generated once (in chunks of ``chunk``), to draw training batches from.

    ``kwargs`` are :func:`make_batch`'s (without ``batch``); one generator makes the whole pool, so it is the
    same for every model trained on it.
    """
    n, chunk = checks.positive_int("n", n), checks.positive_int("chunk", chunk)
    parts = [make_batch(min(chunk, n - i), **kwargs) for i in range(0, n, chunk)]
    return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}


def take(pool: dict, index: torch.Tensor) -> dict:
    """The sequences ``index`` (a 1-d integer tensor) of a pool made by :func:`make_pool` or :func:`make_batch`."""
    if not isinstance(pool, dict) or "frames_in" not in pool:
        raise ValueError("pool must be a dict made by make_pool or make_batch")
    n = pool["frames_in"].shape[0]
    checks.tensor("index", index, ndim=1, dtype_kind="int")
    if int(index.min()) < 0 or int(index.max()) >= n:
        raise ValueError(f"index must lie in [0, {n - 1}]; got [{int(index.min())}, {int(index.max())}]")
    return {k: v[index] for k, v in pool.items()}
