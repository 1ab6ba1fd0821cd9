"""The experiment: rendered rooms, unsynchronised videos, VSCDNet-mini against its baselines on one frozen encoder.

* C1/C2 (training-free): geometric view overlap of the same-index reference, of the top-1 and of the union
  of the top-K raw-pixel matches (all pairs, train and test rooms).
* C1b, C3-C5: VSCDNet-mini, the same-index and reversed-index siamese baselines, the pose-oracle matcher, top-1
  only (|S_t|max = 1) and the plain mean (no C_f, no C_sp), all on the SAME frozen pretrained encoder
  (:mod:`~icml26.papers.scene_change.encoder`, whose tokens are computed once per video and shared), with the same
  change head, decoder, steps, batch, optimiser and learning rate (one value for all, picked on development
  seeds); test scores on held-out rooms (split by room). PixelDiff (training-free) for reference.
* Metrics (§3.9 and beside it): the paper's per-frame mean F1, which an always-empty predictor wins on every frame
  without change, and two that it cannot win: the mean F1 over frames with a non-empty true mask (what the claims
  use) and the pixel-pooled F1; pixel AUROC of the logits (the premise "the networks detect change").
* C6: AUROC of the patch confidence C_sp for "the query token's 3D point is visible in that candidate" (renderer
  depth), with the trained VSCDNet-mini; C6_raw: the same with fixed raw-pixel tokens and the top-3 raw-frame
  matches as candidates (training-free).
"""

from __future__ import annotations

import time

import numpy as np
import torch
from scipy.stats import rankdata

from icml26 import checks
from icml26.papers.scene_change import baselines, encoder, method, rooms
from icml26.progress import stages
from icml26.progress import steps as progress_steps
from icml26.render import project

MODEL = dict(heads=4, s_max=3, k=5, reduce=16, fuse=16, head_layers=3, dec_width=8, norm=True, corr_temperature=0.1,
             learn_temperature=False)
TRAIN = dict(lr=3e-3, weight_decay=0.01, clip=1.0, batch=2)
METHODS = ("vscd", "siamese", "reversed", "oracle", "top1", "plain_mean", "no_at", "no_warp", "no_align")
CONTROL = "no_align"
"""The negative control of the headline claim: VSCDNet with its alignment module removed (no frame matching, no
patch warping, no fusion: the reference is the same-index frame), i.e. the siamese baseline's network trained from
its own init and batch order (:data:`CONTROL_SEED`). Fed through the headline test in VSCDNet's place, it can pass
only if training noise alone beats the baselines by the threshold."""
CONTROL_SEED = 104729
"""Added to the training seed of the control, so that it is not the siamese network itself."""

CONFIGS = {
    "quick": dict(train_rooms=6, test_rooms=2, n_states=3, frames=8, size=64, supersample=1, n_objects=(8, 12),
                  steps=30, top_k_overlap=3, methods=["vscd", "siamese", "reversed", "no_align"], model=MODEL,
                  train=TRAIN,
                  train_repeats=1),
    "standard": dict(train_rooms=40, test_rooms=10, n_states=3, frames=8, size=64, supersample=2,
                     n_objects=(10, 16), steps=600, top_k_overlap=3,
                     methods=["vscd", "siamese", "reversed", "oracle", "top1", "plain_mean", "no_align"],
                     model=MODEL,
                     train=TRAIN, train_repeats=1),
    "full": dict(train_rooms=400, test_rooms=60, n_states=3, frames=8, size=64, supersample=2,
                 n_objects=(10, 16), steps=3000, top_k_overlap=3, methods=list(METHODS), model=MODEL,
                 train={**TRAIN, "batch": 8}, train_repeats=3),
}
"""The scales and their budgets.

* quick: a smoke run of the training (the claims checked at quick need no training, see ``claims.py``).
* standard: six networks x 600 steps of batch 2 on 80 training pairs. CPU per step (one core, measured): vscd and
  plain_mean 0.21 s, top1 0.12 s, oracle 0.09 s, siamese and reversed 0.08 s, so 0.79 s x 600 = 475 s, plus
  rendering 50 rooms (about 45 s) and the overlap and C6 measurements (about 15 s): about 535 s of CPU per seed
  estimated; measured 1425 s of user CPU for seeds 0, 1, 2 together (475 s per seed, one thread each).
* full (one H200, never run here; an estimate): 460 rooms, eight networks x 3 trainings x 3000 steps of batch 8.
  A batch-8 step is 4x the FLOPs of a batch-2 step, about 6 GFLOP for vscd (0.21 s at the measured ~7 GFLOP/s of
  one CPU core, x4); on the GPU that is well under 1 ms of compute, so a step is bound by its ~400 kernel
  launches: about 4 ms (assumed, not measured). 8 x 3 x 3000 x 4 ms = 288 s; rendering 460 rooms x 5 ray-cast
  passes (about 50 ms a room) = 23 s; encoding and evaluation under 30 s: about 6 minutes in all.
"""

VARIANTS = {  # method name -> (constructor, extra kwargs)
    "vscd": (method.VSCDNet, {}),
    "siamese": (baselines.siamese_cd, {}),
    "reversed": (baselines.reversed_cd, {}),
    "oracle": (baselines.oracle_siamese, {}),
    "top1": (method.VSCDNet, {"s_max": 1}),
    "plain_mean": (method.VSCDNet, {"use_cf": False, "use_csp": False}),
    "no_at": (method.VSCDNet, {"use_at": False}),
    "no_warp": (method.VSCDNet, {"k": 1}),
    "no_align": (baselines.siamese_cd, {}),
}
CONFIG_KEYS = ("train_rooms", "test_rooms", "n_states", "frames", "size", "supersample", "n_objects", "steps",
               "top_k_overlap", "methods", "model", "train", "train_repeats")


def check_config(config: dict) -> dict:
    """Raise ``ValueError`` naming the first bad entry of an experiment configuration."""
    checks.config("config", config, required=CONFIG_KEYS, allowed=CONFIG_KEYS + ("lr",))
    for key in ("train_rooms", "test_rooms", "frames", "size", "supersample", "steps", "top_k_overlap",
                "train_repeats"):
        checks.positive_int(f"config['{key}']", config[key])
    if not isinstance(config["n_states"], int) or config["n_states"] < 2:
        raise ValueError(f"config['n_states'] must be an int >= 2; got {config['n_states']!r}")
    if config["top_k_overlap"] > config["frames"]:
        raise ValueError(f"config['top_k_overlap'] must be <= config['frames']; got {config['top_k_overlap']}")
    for name in config["methods"]:
        checks.one_of("config['methods']", name, VARIANTS)
    return config


def build_data(config: dict, device, seed: int) -> dict:
    """Train and test datasets from disjoint rooms (different generator streams)."""
    check_config(config)
    device = checks.device("device", device)
    checks.seed("seed", seed)
    kw = dict(n_states=config["n_states"], frames=config["frames"], size=config["size"],
              supersample=config["supersample"], n_objects=tuple(config["n_objects"]), device=device)
    train = rooms.make_dataset(config["train_rooms"], generator=torch.Generator().manual_seed(1000 * seed + 1), **kw)
    test = rooms.make_dataset(config["test_rooms"], generator=torch.Generator().manual_seed(1000 * seed + 2), **kw)
    return {"train": train, "test": test}


@torch.no_grad()
def encode(frozen: torch.nn.Module, data: dict, chunk: int = 8) -> dict:
    """Add the frozen encoder's tokens ``tok_q``, ``tok_r`` ``(P, T, N, D)`` to ``data`` (computed once, shared by
    every method)."""
    if not isinstance(frozen, torch.nn.Module):
        raise TypeError(f"frozen must be a torch.nn.Module (the frozen encoder); got {type(frozen).__name__}")
    checks.config("data", data, required=("qry", "ref"))
    checks.tensor("data['qry']", data["qry"], ndim=5, dtype_kind="float")
    checks.positive_int("chunk", chunk)
    for key, video in (("tok_q", "qry"), ("tok_r", "ref")):
        data[key] = torch.cat([frozen(data[video][i:i + chunk])[0] for i in range(0, data[video].shape[0], chunk)])
    return data


def make_model(name: str, model_cfg: dict, frozen: torch.nn.Module, device) -> method.VSCDNet:
    """Method ``name`` of :data:`VARIANTS` on the frozen encoder ``frozen``."""
    checks.one_of("name", name, VARIANTS)
    device = checks.device("device", device)
    if not isinstance(model_cfg, dict):
        raise TypeError(f"model_cfg must be a dict of VSCDNet settings; got {type(model_cfg).__name__}")
    if not isinstance(frozen, torch.nn.Module):
        raise TypeError(f"frozen must be a torch.nn.Module (the frozen encoder); got {type(frozen).__name__}")
    ctor, extra = VARIANTS[name]
    kw = {**model_cfg, **extra}
    if name == "oracle":
        kw.pop("s_max", None)
    return ctor(encoder=frozen, **kw).to(device)


def _forward(model, data, idx):
    cand = baselines.oracle_candidates(data["overlap"][idx]) if model.candidate_mode == "given" else None
    tokens = (data["tok_q"][idx], data["tok_r"][idx])
    return model(data["qry"][idx], data["ref"][idx], cand, tokens=tokens, validate=False)


def train_model(model, data: dict, steps: int, seed: int, lr=1e-3, weight_decay=0.01, clip=1.0, batch=2,
                desc: str = "train") -> list:
    """AdamW on BCE + Dice (§3.8) for ``steps`` steps of ``batch`` pairs drawn with a seeded generator; only the
    parameters that get gradients are optimised (the encoder stays frozen)."""
    checks.instance("model", model, method.VSCDNet)
    checks.config("data", data, required=("qry", "ref", "mask", "tok_q", "tok_r", "overlap"))
    checks.positive_int("steps", steps)
    checks.seed("seed", seed)
    checks.positive_number("lr", lr)
    checks.nonnegative_number("weight_decay", weight_decay)
    checks.positive_number("clip", clip)
    checks.positive_int("batch", batch)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.trainable_parameters(), lr=lr, weight_decay=weight_decay)
    n = data["qry"].shape[0]
    checks.tensor("data['mask']", data["mask"], dtype_kind="float")
    losses = []
    model.train()
    for _ in progress_steps(range(steps), desc=desc):
        idx = torch.randint(0, n, (min(batch, n),), generator=gen).to(data["qry"].device)
        out = _forward(model, data, idx)
        loss = method._bce_dice_loss(out["logits"], data["mask"][idx])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.trainable_parameters(), clip)
        opt.step()
        losses.append(loss.detach())
    if losses and not bool(torch.isfinite(torch.stack(losses)).all()):  # one check, not a sync per step
        raise ValueError("logits must hold only finite numbers: the training loss became NaN or infinite")
    return [float(v) for v in losses]


@torch.no_grad()
def predict(model, data: dict, chunk: int = 4) -> dict:
    """Model outputs on every pair of ``data`` (in chunks): logits, candidates, weights, C_sp."""
    checks.instance("model", model, method.VSCDNet)
    checks.config("data", data, required=("qry", "ref", "tok_q", "tok_r", "overlap"))
    checks.positive_int("chunk", chunk)
    model.eval()
    outs = [_forward(model, data, torch.arange(i, min(i + chunk, data["qry"].shape[0]), device=data["qry"].device))
            for i in range(0, data["qry"].shape[0], chunk)]
    res = {"logits": torch.cat([o["logits"] for o in outs]), "candidates": torch.cat([o["candidates"] for o in outs]),
           "weights": torch.cat([o["weights"] for o in outs]), "C_sp": torch.cat([o["C_sp"] for o in outs])}
    if outs[0]["P_frame"] is not None:
        res["P_frame"] = torch.cat([o["P_frame"] for o in outs])
    return res


def scores(pred: torch.Tensor, mask: torch.Tensor) -> dict:
    """Per-frame mean F1/IoU (§3.9), F1 on frames with a non-empty true mask, and pixel-pooled F1."""
    checks.tensor("pred", pred, ndim=(2, 3, 4, 5))
    checks.tensor("mask", mask, shape=tuple(pred.shape))
    s = method.frame_scores(pred, mask)
    nonempty = mask.flatten(-2).sum(-1) > 0
    p, g = pred.bool(), mask.bool()
    tp, fp, fn = (p & g).sum().item(), (p & ~g).sum().item(), (~p & g).sum().item()
    return {"f1": s["f1"].mean().item(), "iou": s["iou"].mean().item(),
            "f1_nonempty": s["f1"][nonempty].mean().item() if bool(nonempty.any()) else float("nan"),
            "f1_pooled": 2 * tp / max(2 * tp + fp + fn, 1)}


def average_precision(score: torch.Tensor, label: torch.Tensor) -> float:
    """Average precision (area under the precision-recall step curve, ties as one threshold) of ``score`` for the
    binary ``label``: threshold-free, and an always-empty predictor cannot win it."""
    checks.tensor("score", score)
    checks.tensor("label", label, shape=tuple(score.shape))
    s, y = score.flatten().double().cpu().numpy(), label.flatten().bool().cpu().numpy()
    n1 = int(y.sum())
    if n1 == 0:
        raise ValueError("label must contain at least one positive")
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    tp = np.cumsum(y)
    last = np.r_[np.nonzero(np.diff(s))[0], len(s) - 1]  # the last index of each run of tied scores
    precision, recall = tp[last] / (last + 1), tp[last] / n1
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def ap_changed(logits: torch.Tensor, mask: torch.Tensor) -> float:
    """Mean over test frames whose true mask is not empty of the per-frame average precision of the logits."""
    checks.tensor("logits", logits, ndim=(3, 4, 5))
    checks.tensor("mask", mask, shape=tuple(logits.shape))
    lg, mk = logits.flatten(0, -3), mask.flatten(0, -3)
    keep = mk.flatten(1).sum(1) > 0
    if not bool(keep.any()):
        raise ValueError("mask must have at least one frame with change")
    return float(np.mean([average_precision(lg[i], mk[i]) for i in torch.nonzero(keep).flatten().tolist()]))


def auroc(score: torch.Tensor, label: torch.Tensor) -> float:
    """Area under the ROC curve (Mann-Whitney, ties averaged) of ``score`` for the binary ``label``."""
    checks.tensor("score", score)
    checks.tensor("label", label, shape=tuple(score.shape))
    s, y = score.flatten().double().cpu().numpy(), label.flatten().bool().cpu().numpy()
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0:
        raise ValueError("label must contain both classes")
    r = rankdata(s)
    return float((r[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def token_visibility(data: dict, grid: tuple[int, int], candidates: torch.Tensor,
                     window: int | None = None) -> torch.Tensor:
    """``(P, T_q, S, h, w)`` bool: at least half of the token's pixels are visible in candidate reference frame.

    With ``window = k`` a pixel only counts when it is visible AND projects within the ``k x k``-token search
    window around its own grid position (the correspondence the local soft-argmax can reach; a diagnostic)."""
    checks.config("data", data, required=("qry", "mask", "qry_points", "K", "ref_R", "ref_t", "ref_depth"))
    if len(grid) != 2 or not all(isinstance(g, int) and g >= 1 for g in grid):
        raise ValueError(f"grid must be two positive ints (h, w); got {grid!r}")
    checks.tensor("candidates", candidates, ndim=3, dtype_kind="int")
    if candidates.shape[0] != data["qry"].shape[0]:
        raise ValueError(f"candidates must have one row per pair ({data['qry'].shape[0]}); got "
                         f"{tuple(candidates.shape)}")
    if window is not None:
        checks.positive_int("window", window)
    out = []
    H, W = data["mask"].shape[-2:]
    for i in range(data["qry"].shape[0]):
        pts = data["qry_points"][i].flatten(1, 2)
        vis = rooms.visibility(pts, data["K"], data["ref_R"][i], data["ref_t"][i], data["ref_depth"][i])
        T, S = vis.shape[:2]
        if window is not None:
            stride = H / grid[0]
            uv, _ = project(pts.reshape(T, 1, -1, 3).expand(T, S, -1, 3).reshape(T * S, -1, 3), data["K"],
                            data["ref_R"][i].repeat(T, 1, 1), data["ref_t"][i].repeat(T, 1))
            v, u = torch.meshgrid(torch.arange(H) + 0.5, torch.arange(W) + 0.5, indexing="ij")
            own = torch.stack([u.flatten(), v.flatten()], -1).to(uv)
            reach = (uv - own).abs().amax(-1).view(T, S, -1) <= (window // 2 + 0.5) * stride
            vis = vis & reach
        vis = vis.float()
        pooled = torch.nn.functional.adaptive_avg_pool2d(vis.view(T * S, 1, H, W), grid).view(T, S, *grid)
        out.append(pooled[torch.arange(T)[:, None], candidates[i].cpu()] >= 0.5)
    return torch.stack(out)


def raw_patch_tokens(frames: torch.Tensor, patch: int = 4) -> torch.Tensor:
    """Fixed (untrained) token maps ``(B, T, 3 * patch^2, h, w)``: each frame standardised per channel (a global
    photometric normalisation against the exposure jitter), cut into non-overlapping ``patch x patch`` RGB
    patches, each patch mean-centred and L2-normalised. The raw-pixel features of claim C6_raw."""
    checks.tensor("frames", frames, ndim=5, dtype_kind="float")
    if frames.shape[2] != 3:
        raise ValueError(f"frames must be (B, T, 3, H, W), got {tuple(frames.shape)}")
    if not isinstance(patch, int) or patch < 1 or frames.shape[-1] % patch or frames.shape[-2] % patch:
        raise ValueError(f"patch must be a positive int dividing the frame size {tuple(frames.shape[-2:])}, "
                         f"got {patch!r}")
    x = baselines.normalise_frames(frames.flatten(0, 1))
    u = torch.nn.functional.unfold(x, patch, stride=patch)                       # (M, 3 p^2, h w)
    u = torch.nn.functional.normalize(u - u.mean(1, keepdim=True), dim=1)
    h, w = frames.shape[-2] // patch, frames.shape[-1] // patch
    return u.view(*frames.shape[:2], -1, h, w)


def c6_raw_pixels(data: dict, s_max: int = 3, k: int = 5, temperature: float = 0.1, patch: int = 4) -> dict:
    """C6 with fixed raw-pixel tokens (no training): candidates = top-``s_max`` raw-frame matches, local ``k x k``
    soft correspondence at ``temperature`` on :func:`raw_patch_tokens`, C_sp (§3.6), AUROC against token
    visibility in the candidate frame (renderer depth)."""
    checks.config("data", data, required=("qry", "ref", "mask", "qry_points", "K", "ref_R", "ref_t", "ref_depth"))
    checks.positive_int("s_max", s_max)
    if s_max > data["ref"].shape[1]:
        raise ValueError(f"s_max must be <= the reference length {data['ref'].shape[1]}; got {s_max}")
    tq, tr = raw_patch_tokens(data["qry"], patch), raw_patch_tokens(data["ref"], patch)
    cand = baselines.raw_topk(data["qry"], data["ref"], s_max)
    b, t, d, h, w = tq.shape
    bidx = torch.arange(b, device=tq.device).view(b, 1, 1)
    r_sel = tr[bidx, cand].reshape(-1, d, h, w)
    q_rep = tq[:, :, None].expand(b, t, s_max, d, h, w).reshape(-1, d, h, w)
    _, P, _ = method.soft_correspondence(q_rep, r_sel, k, temperature)
    csp = method.patch_confidence(P).view(b, t, s_max, h, w)
    vis = token_visibility(data, (h, w), cand)
    reach = token_visibility(data, (h, w), cand, window=k)
    return {"auroc": auroc(csp.cpu(), vis), "visible_share": vis.float().mean().item(),
            "auroc_in_window": auroc(csp.cpu(), reach), "in_window_share": reach.float().mean().item(),
            "patch": patch, "k": k, "temperature": temperature, "s_max": s_max}


def overlap_stats(data: dict, k: int) -> dict:
    """Mechanism numbers for C1/C2 over every pair of ``data``."""
    checks.config("data", data, required=("qry", "ref", "overlap", "qry_points", "K", "ref_R", "ref_t", "ref_depth"))
    checks.positive_int("k", k)
    ov = data["overlap"]
    top = baselines.raw_topk(data["qry"], data["ref"], k)
    same = ov.diagonal(dim1=1, dim2=2)
    top1 = torch.gather(ov, 2, top[..., :1])[..., 0]
    union = []
    for i in range(ov.shape[0]):
        vis = rooms.visibility(data["qry_points"][i].flatten(1, 2), data["K"], data["ref_R"][i], data["ref_t"][i],
                               data["ref_depth"][i])
        sel = vis[torch.arange(vis.shape[0])[:, None], top[i]]        # (T, k, N)
        union.append(sel.any(1).float().mean(-1))
    hist = baselines.top1_by(baselines.color_histograms(data["qry"]), baselines.color_histograms(data["ref"]))
    T = ov.shape[1]
    return {"same_index": same.mean().item(), "reversed_index": ov[:, torch.arange(T), T - 1 - torch.arange(T)]
            .mean().item(), "top1": top1.mean().item(), "topk_union": torch.stack(union).mean().item(),
            "oracle_top1": ov.max(-1).values.mean().item(), "top1_histogram": torch.gather(ov, 2, hist).mean().item(),
            "k": k}


def _train_and_score(name: str, config: dict, data: dict, frozen, device, seed: int) -> tuple[dict, dict, object]:
    """Train ``config["train_repeats"]`` networks of method ``name`` (independent inits and batch orders on the
    same data) and average their test scores; returns the averaged scores, the first network's test predictions
    and the first network."""
    test = data["test"]
    lr = config.get("lr", {}).get(name, config["train"]["lr"])
    runs, first = [], None
    for rep in range(config["train_repeats"]):
        train_seed = seed + 7919 * rep + (CONTROL_SEED if name == CONTROL else 0)
        torch.manual_seed(train_seed)
        model = make_model(name, config["model"], frozen, device)
        losses = train_model(model, data["train"], config["steps"], train_seed, desc=f"train {name}",
                             **{**config["train"], "lr": lr})
        pred = predict(model, test)
        runs.append({**scores(pred["logits"] > 0, test["mask"]), "final_loss": float(np.mean(losses[-20:])),
                     "pixel_auroc": auroc(pred["logits"], test["mask"]),
                     "ap_changed": ap_changed(pred["logits"], test["mask"])})
        if first is None:
            first = (pred, model)
    avg = {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
    avg["f1_nonempty_per_repeat"] = [r["f1_nonempty"] for r in runs]
    avg["lr"] = lr
    return avg, first[0], first[1]


def run(config: dict, device, seed: int, artifacts: dict | None = None) -> dict:
    """Render, encode once with the frozen encoder, train every method in ``config["methods"]`` on equal footing,
    evaluate on held-out rooms.

    When ``artifacts`` is a dict it receives the data, trained models and test predictions (for notebooks).
    """
    checks.config_like("config", config, CONFIGS.values())
    check_config(config)
    device = checks.device("device", device)
    checks.seed("seed", seed)
    start = time.perf_counter()
    torch.manual_seed(seed)
    names = ["render rooms", "encode", "overlap and C6_raw"] + [f"train {m}" for m in config["methods"]]
    res: dict = {"methods": {}, "train_seconds": {}}
    models, preds = {}, {}
    for stage in stages(names, desc="scene_change"):
        if stage == "render rooms":
            data = build_data(config, device, seed)
            test = data["test"]
            res["data_seconds"] = time.perf_counter() - start
        elif stage == "encode":
            frozen = encoder.load_encoder(device=device)
            encode(frozen, data["train"])
            encode(frozen, test)
        elif stage == "overlap and C6_raw":
            both = {k: torch.cat([data["train"][k], test[k]]) for k in ("qry", "ref", "overlap", "qry_points",
                                                                        "ref_R", "ref_t", "ref_depth")}
            both["K"] = data["train"]["K"]
            nonempty = test["mask"].flatten(-2).sum(-1) > 0
            res.update(overlap=overlap_stats(both, config["top_k_overlap"]),
                       empty_gt_share=(~nonempty).float().mean().item(),
                       n_test_frames=int(nonempty.numel()), n_train_pairs=int(data["train"]["qry"].shape[0]),
                       c6_raw=c6_raw_pixels(test, config["model"]["s_max"], config["model"]["k"]))
            empty = torch.zeros_like(test["mask"])
            res["methods"]["always_empty"] = scores(empty, test["mask"])
            res["methods"]["pixel_diff"] = scores(baselines.pixel_diff(test["qry"], test["ref"]), test["mask"])
            res["ap_prevalence"] = ap_changed(torch.zeros_like(test["mask"]), test["mask"])  # a constant score
        else:
            name = stage.removeprefix("train ")
            t0 = time.perf_counter()
            res["methods"][name], preds[name], models[name] = _train_and_score(name, config, data, frozen, device,
                                                                              seed)
            res["train_seconds"][name] = time.perf_counter() - t0
    if "vscd" in preds:
        p = preds["vscd"]
        grid = tuple(p["C_sp"].shape[-2:])
        vis = token_visibility(test, grid, p["candidates"])
        res["c6_auroc"] = auroc(p["C_sp"].cpu(), vis)
        res["c6_visible_share"] = vis.float().mean().item()
        res["vscd_candidate_overlap"] = torch.gather(test["overlap"], 2, p["candidates"][..., :1]).mean().item()
        res["vscd_same_index_overlap"] = test["overlap"].diagonal(dim1=1, dim2=2).mean().item()
    res["seconds"] = time.perf_counter() - start
    if artifacts is not None:
        artifacts.update(data=data, models=models, preds=preds)
    return res
