"""Pretraining of the frozen frame encoder on a proxy task of our own (run once; its output is shipped).

**Proxy task (ours, inferred; not the paper's: the paper uses SAM).** Dense cross-view correspondence: two renders
of one room in one scene state, from two poses of the room's survey route
(:func:`icml26.papers.scene_change.rooms.camera_path`), with independent exposure and colour gains. The renderer's
geometry gives, for each token of view ``a``, the token of view ``b`` that sees the same 3D point (projection plus
a z-buffer test); an InfoNCE loss over the 256 tokens of ``b``,
``-log softmax_j(<f_a(i), f_b(j)> / tau)[match(i)]`` on L2-normalised tokens, in both directions, teaches tokens
that recognise a surface point across viewpoints. The pretraining rooms come from a generator stream that no
experiment uses, and no change masks are involved. :func:`correspondence_accuracy` (the share of visible tokens
whose best match lies within one token of the true one) measures the result on held-out rooms.

    python -m icml26.papers.scene_change.pretrain            # writes encoder.safetensors, prints its sha256
    python -m icml26.papers.scene_change.pretrain --small    # the small reproduction the tests run
"""

from __future__ import annotations

import argparse
import json
import time

import torch
import torch.nn.functional as F

from icml26 import checks
from icml26.papers.scene_change import rooms
from icml26.papers.scene_change.encoder import ENCODER_FILE, FrameEncoder, save_encoder
from icml26.progress import steps as progress_steps
from icml26.render import intrinsics, look_at, project, render, visible_in

PRETRAIN = dict(rooms=96, views=16, size=64, steps=3000, batch=8, lr=2e-3, weight_decay=1e-4, temperature=0.1,
                dim=64, width=32, eval_rooms=8, seed=0)
"""The configuration that made the shipped checkpoint (285 s of one CPU core; held-out accuracy 0.17 -> 0.64)."""
PRETRAIN_SMALL = dict(PRETRAIN, rooms=6, views=6, steps=40, batch=4, eval_rooms=3)
"""A small reproduction of :data:`PRETRAIN` for the test suite (a few seconds)."""

GENERATOR_BASE = 7_000_000
"""Pretraining rooms use generator seeds ``GENERATOR_BASE + i`` (the experiments use ``1000 * seed + {1, 2}``)."""


def render_views(n_rooms: int, views: int, size: int, first_seed: int = GENERATOR_BASE, device="cpu") -> dict:
    """``views`` renders of each of ``n_rooms`` rooms (one scene state), half along each of two recordings of the
    room's route. Returns ``rgb (R, V, 3, H, W)``, ``point (R, V, H, W, 3)``, ``depth (R, V, H, W)``, the cameras
    ``rot (R, V, 3, 3)``, ``trans (R, V, 3)`` and ``K``."""
    checks.positive_int("n_rooms", n_rooms)
    checks.positive_int("size", size)
    if size % 4:
        raise ValueError(f"size must be a multiple of 4 (the encoder's stride); got {size!r}")
    checks.int_at_least("views", views, 2)
    checks.nonnegative_int("first_seed", first_seed)
    device = checks.device("device", device)
    K = intrinsics(size, size, 80.0, device=device)
    out = {k: [] for k in ("rgb", "point", "depth", "rot", "trans")}
    for i in range(n_rooms):
        gen = torch.Generator().manual_seed(first_seed + i)
        scene = rooms.make_room(gen, int(torch.randint(10, 17, (1,), generator=gen))).to(device)
        route = rooms.room_route(gen)
        half = [views // 2, views - views // 2]
        eyes, targets, gains = [], [], []
        for n in half:
            e, t = rooms.camera_path(gen, n, route=route)
            eyes.append(e)
            targets.append(t)
            gains.append(torch.full((n,), 1.0 + 0.15 * (2 * torch.rand(1, generator=gen).item() - 1)))
        R, t = look_at(torch.cat(eyes).to(device), torch.cat(targets).to(device))
        r = render(scene, K, R, t, size, size, exposure=torch.cat(gains).to(device), supersample=2)
        for key, value in (("rgb", r["rgb"].permute(0, 3, 1, 2)), ("point", r["point"]), ("depth", r["depth"]),
                           ("rot", R), ("trans", t)):
            out[key].append(value)
    data = {k: torch.stack(v) for k, v in out.items()}
    data["K"] = K
    return data


def token_matches(data: dict, stride: int = 4) -> torch.Tensor:
    """``match (R, V, V, N)``: for each token of view ``a`` (the 3D point at its centre pixel), the index of the
    token of view ``b`` that sees it, or ``-1`` where view ``b`` does not (outside the image or occluded)."""
    checks.config("data", data, required=("point", "depth", "rot", "trans", "K"))
    checks.positive_int("stride", stride)
    H, W = data["depth"].shape[-2:]
    if H % stride or W % stride:
        raise ValueError(f"stride must divide the view size {(H, W)}; got {stride!r}")
    h, w, c = H // stride, W // stride, stride // 2
    R, V = data["depth"].shape[:2]
    out = []
    for i in range(R):  # one room at a time: V x V pairs of views
        pts = data["point"][i, :, c::stride, c::stride].reshape(V, 1, h * w, 3).expand(V, V, h * w, 3)
        pts = pts.reshape(V * V, h * w, 3)
        rot, trans = data["rot"][i].repeat(V, 1, 1), data["trans"][i].repeat(V, 1)
        vis = visible_in(pts, data["K"], rot, trans, data["depth"][i].repeat(V, 1, 1), rel_tol=0.03)
        uv, _ = project(pts, data["K"], rot, trans)
        col = (uv[..., 0].nan_to_num(0.0) / stride).floor().long().clamp(0, w - 1)
        row = (uv[..., 1].nan_to_num(0.0) / stride).floor().long().clamp(0, h - 1)
        out.append(torch.where(vis, row * w + col, torch.full_like(col, -1)).view(V, V, h * w))
    match = torch.stack(out)
    eye = torch.eye(V, dtype=torch.bool, device=match.device)[None, :, :, None]
    return torch.where(eye, torch.full_like(match, -1), match)           # no pair of a view with itself


def _augment(rgb: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Photometric jitter per image: an exposure gain in [0.8, 1.25] and channel gains in [0.9, 1.1]."""
    n = rgb.shape[0]
    gain = torch.exp(torch.empty(n, 1, 1, 1).uniform_(-0.22, 0.22, generator=gen))
    chan = torch.empty(n, 3, 1, 1).uniform_(0.9, 1.1, generator=gen)
    return (rgb * (gain * chan).to(rgb)).clamp(0, 1)


def correspondence_loss(fa: torch.Tensor, fb: torch.Tensor, match: torch.Tensor, temperature: float) -> torch.Tensor:
    """InfoNCE over the tokens of view ``b``: ``fa``, ``fb`` ``(M, N, D)`` L2-normalised, ``match (M, N)``."""
    checks.tensor("fa", fa, ndim=3, dtype_kind="float")
    checks.tensor("fb", fb, shape=tuple(fa.shape), dtype_kind="float")
    checks.tensor("match", match, shape=tuple(fa.shape[:2]), dtype_kind="int")
    if bool(((match < -1) | (match >= fb.shape[1])).any()):
        raise ValueError(f"match must hold token indices of view b (0..{fb.shape[1] - 1}) or -1")
    checks.positive_number("temperature", temperature)
    return _correspondence_loss(fa, fb, match, temperature)


def _correspondence_loss(fa, fb, match, temperature):
    logits = torch.einsum("mnd,mkd->mnk", fa, fb) / temperature
    valid = match >= 0
    if not bool(valid.any()):
        return logits.sum() * 0.0
    return F.cross_entropy(logits[valid], match[valid])


@torch.no_grad()
def correspondence_accuracy(encoder: torch.nn.Module, data: dict, match: torch.Tensor, chunk: int = 8) -> float:
    """Share of visible tokens whose most similar token in the other view is within one token (Chebyshev) of the
    true match, over every ordered pair of views of every room."""
    if not isinstance(encoder, torch.nn.Module):
        raise TypeError(f"encoder must be a torch.nn.Module; got {type(encoder).__name__}")
    checks.config("data", data, required=("rgb",))
    checks.tensor("match", match, ndim=4, dtype_kind="int")
    if tuple(match.shape[:3]) != (data["rgb"].shape[0], data["rgb"].shape[1], data["rgb"].shape[1]):
        raise ValueError(f"match must be (R, V, V, N) for the {tuple(data['rgb'].shape[:2])} views; "
                         f"got {tuple(match.shape)}")
    checks.positive_int("chunk", chunk)
    R, V = match.shape[:2]
    feats = []
    for i in range(0, R, chunk):
        tok, grid = encoder(data["rgb"][i:i + chunk])
        feats.append(F.normalize(tok, dim=-1))
    f = torch.cat(feats)                                               # (R, V, N, D)
    w = grid[1]
    sim = torch.einsum("rand,rbkd->rabnk", f, f)
    best = sim.argmax(-1)
    valid = match >= 0
    dr = (best // w - match // w).abs()
    dc = (best % w - match % w).abs()
    ok = (dr <= 1) & (dc <= 1) & valid
    return float(ok.sum() / valid.sum().clamp_min(1))


def pretrain(config: dict | None = None, device="cpu", log_every: int = 0) -> tuple[FrameEncoder, dict]:
    """Train a :class:`~icml26.papers.scene_change.encoder.FrameEncoder` on the correspondence proxy task (AdamW,
    one-cycle learning rate); returns it and a log with the held-out correspondence accuracy before and after."""
    checks.config("config", PRETRAIN if config is None else config, required=PRETRAIN.keys(), allowed=PRETRAIN.keys())
    cfg = dict(PRETRAIN if config is None else config)
    for key in ("rooms", "views", "size", "steps", "batch", "dim", "width", "eval_rooms"):
        checks.positive_int(f"config['{key}']", cfg[key])
    checks.positive_number("config['lr']", cfg["lr"])
    checks.positive_number("config['temperature']", cfg["temperature"])
    checks.seed("config['seed']", cfg["seed"])
    checks.nonnegative_number("config['weight_decay']", cfg["weight_decay"])
    checks.nonnegative_int("log_every", log_every)
    device = checks.device("device", device)
    start = time.perf_counter()
    torch.manual_seed(cfg["seed"])
    base = GENERATOR_BASE + 10_000 * cfg["seed"]
    train = render_views(cfg["rooms"], cfg["views"], cfg["size"], base, device)
    held = render_views(cfg["eval_rooms"], cfg["views"], cfg["size"], base + 5_000, device)
    m_train, m_held = token_matches(train), token_matches(held)
    enc = FrameEncoder(cfg["dim"], cfg["width"]).to(device)
    acc0 = correspondence_accuracy(enc, held, m_held)
    opt = torch.optim.AdamW(enc.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg["lr"], total_steps=cfg["steps"], pct_start=0.1)
    gen = torch.Generator().manual_seed(cfg["seed"])
    R, V = m_train.shape[:2]
    # pairs of views that share at least 1/16 of their tokens
    share = (m_train >= 0).sum(-1)
    pairs = (share >= max(1, m_train.shape[-1] // 16)).nonzero()
    if pairs.shape[0] == 0:
        raise ValueError("config gives no pair of overlapping views; use more views per room")
    losses = []
    enc.train()
    for step in progress_steps(range(cfg["steps"]), desc="pretrain the frame encoder"):
        pick = pairs[torch.randint(0, pairs.shape[0], (cfg["batch"],), generator=gen).to(pairs.device)]
        r, a, b = pick[:, 0], pick[:, 1], pick[:, 2]
        imgs = _augment(torch.cat([train["rgb"][r, a], train["rgb"][r, b]]), gen)
        tok, _ = enc(imgs[:, None])
        f = F.normalize(tok[:, 0], dim=-1)
        fa, fb = f[: len(r)], f[len(r):]
        loss = 0.5 * (_correspondence_loss(fa, fb, m_train[r, a, b], cfg["temperature"])
                      + _correspondence_loss(fb, fa, m_train[r, b, a], cfg["temperature"]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if log_every and (step + 1) % log_every == 0:
            print(f"step {step + 1}: loss {sum(losses[-log_every:]) / log_every:.3f}", flush=True)
    enc.eval()
    acc = correspondence_accuracy(enc, held, m_held)
    log = {"accuracy_init": acc0, "accuracy": acc, "final_loss": sum(losses[-20:]) / len(losses[-20:]),
           "seconds": time.perf_counter() - start, "config": cfg}
    return enc, log


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Pretrain the scene_change frame encoder (correspondence proxy).")
    parser.add_argument("--out", default=str(ENCODER_FILE))
    parser.add_argument("--small", action="store_true", help="the small configuration of the test suite")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    from icml26.runtime import set_threads

    set_threads()  # cores / jobs (ICML26_THREADS), as for every run
    enc, log = pretrain(PRETRAIN_SMALL if args.small else PRETRAIN, args.device, log_every=100)
    digest = save_encoder(enc, args.out, log)
    print(json.dumps({k: v for k, v in log.items() if k != "config"}), flush=True)
    print(f"wrote {args.out} sha256 {digest}")


if __name__ == "__main__":
    main()
