"""The note's §6 experiment: rendered rooms, unsynchronised videos, VSCDNet-mini against its baselines.

* C1/C2 (training-free): geometric view overlap of the same-index reference, of the top-1 and of the union
  of the top-K raw-pixel matches (all pairs, train and test rooms).
* C3-C5: VSCDNet-mini, the siamese same-index baseline, top-1 only (|S_t|max = 1), plain mean (no C_f, no
  C_sp) and the overlap oracle, all with the same blocks, steps, batch, optimiser and seed; test F1 on
  held-out rooms (split by room). PixelDiff (training-free) for reference.
* C6: AUROC of the patch confidence C_sp for "the query token's 3D point is visible in that candidate"
  (renderer depth), with the trained VSCDNet-mini; C6_raw: the same with fixed raw-pixel tokens and the top-3
  raw-frame matches as candidates (training-free; the note's §7 notebook-2 variant).
"""

from __future__ import annotations

import time

import numpy as np
import torch
from scipy.stats import rankdata

from icml26.papers.scene_change import baselines, method, rooms
from icml26.render import project

MODEL = dict(dim=32, width=16, heads=4, s_max=3, k=5, reduce=24, fuse=24, head_layers=3, dec_width=8, norm=True)
TRAIN = dict(lr=3e-3, weight_decay=0.01, clip=1.0, batch=2)

# standard: 32x32 (not the note's 64x64) and batch 4 so that 500 steps x 3 networks fit the CPU budget; at 48x48,
# batch 2, 600 steps and without GroupNorm in the head/decoder no network fired above 0.5 at all.
CONFIGS = {
    "quick": dict(train_rooms=6, test_rooms=2, n_states=3, frames=8, size=48, supersample=1, n_objects=(8, 12),
                  steps=6, top_k_overlap=3, methods=["vscd", "siamese"], model=MODEL, train=TRAIN),
    "standard": dict(train_rooms=40, test_rooms=8, n_states=3, frames=8, size=32, supersample=2,
                     n_objects=(10, 16), steps=500, top_k_overlap=3,
                     methods=["vscd", "siamese", "top1"], model=MODEL, train={**TRAIN, "batch": 4}, train_repeats=2),
    "full": dict(train_rooms=300, test_rooms=50, n_states=4, frames=16, size=128, supersample=2,
                 n_objects=(10, 20), steps=4000, top_k_overlap=3,
                 methods=["vscd", "siamese", "top1", "plain_mean", "no_at", "no_warp", "oracle"],
                 model={**MODEL, "dim": 64, "width": 32, "s_max": 6, "reduce": 32, "fuse": 32, "head_layers": 5,
                        "dec_width": 16}, train={**TRAIN, "batch": 16}, train_repeats=3),
}

VARIANTS = {  # method name -> (constructor, extra kwargs)
    "vscd": (method.VSCDNet, {}),
    "siamese": (baselines.siamese_cd, {}),
    "top1": (method.VSCDNet, {"s_max": 1}),
    "plain_mean": (method.VSCDNet, {"use_cf": False, "use_csp": False}),
    "no_at": (method.VSCDNet, {"use_at": False}),
    "no_warp": (method.VSCDNet, {"k": 1}),
    "oracle": (baselines.oracle_siamese, {}),
}


def build_data(config: dict, device, seed: int) -> dict:
    """Train and test datasets from disjoint rooms (different generator streams)."""
    kw = dict(n_states=config["n_states"], frames=config["frames"], size=config["size"],
              supersample=config["supersample"], n_objects=tuple(config["n_objects"]), device=device)
    train = rooms.make_dataset(config["train_rooms"], generator=torch.Generator().manual_seed(1000 * seed + 1), **kw)
    test = rooms.make_dataset(config["test_rooms"], generator=torch.Generator().manual_seed(1000 * seed + 2), **kw)
    return {"train": train, "test": test}


def make_model(name: str, model_cfg: dict, device) -> method.VSCDNet:
    if name not in VARIANTS:
        raise ValueError(f"name must be one of {sorted(VARIANTS)}, got {name!r}")
    ctor, extra = VARIANTS[name]
    kw = {**model_cfg, **extra}
    if name == "oracle":
        kw.pop("s_max", None)
    return ctor(**kw).to(device)


def _forward(model, data, idx):
    cand = baselines.oracle_candidates(data["overlap"][idx]) if model.candidate_mode == "given" else None
    return model(data["qry"][idx], data["ref"][idx], cand)


def train_model(model, data: dict, steps: int, seed: int, lr=1e-3, weight_decay=0.01, clip=1.0, batch=2) -> list:
    """AdamW on BCE + Dice (§3.8) for ``steps`` steps of ``batch`` pairs drawn with a seeded generator."""
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be a non-negative int, got {steps!r}")
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    n = data["qry"].shape[0]
    losses = []
    model.train()
    for _ in range(steps):
        idx = torch.randint(0, n, (min(batch, n),), generator=gen).to(data["qry"].device)
        out = _forward(model, data, idx)
        loss = method.bce_dice_loss(out["logits"], data["mask"][idx])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        losses.append(float(loss.detach()))
    return losses


@torch.no_grad()
def predict(model, data: dict, chunk: int = 4) -> dict:
    """Model outputs on every pair of ``data`` (in chunks): logits, candidates, weights, C_sp."""
    model.eval()
    outs = [_forward(model, data, torch.arange(i, min(i + chunk, data["qry"].shape[0]), device=data["qry"].device))
            for i in range(0, data["qry"].shape[0], chunk)]
    res = {"logits": torch.cat([o["logits"] for o in outs]), "candidates": torch.cat([o["candidates"] for o in outs]),
           "weights": torch.cat([o["weights"] for o in outs]), "C_sp": torch.cat([o["C_sp"] for o in outs])}
    if outs[0]["P_frame"] is not None:
        res["P_frame"] = torch.cat([o["P_frame"] for o in outs])
    return res


def scores(pred: torch.Tensor, mask: torch.Tensor) -> dict:
    """Per-frame mean F1/IoU (§3.9), pixel-pooled F1, and F1 on frames with a non-empty GT."""
    s = method.frame_scores(pred, mask)
    nonempty = mask.flatten(-2).sum(-1) > 0
    p, g = pred.bool(), mask.bool()
    tp, fp, fn = (p & g).sum().item(), (p & ~g).sum().item(), (~p & g).sum().item()
    return {"f1": s["f1"].mean().item(), "iou": s["iou"].mean().item(),
            "f1_nonempty": s["f1"][nonempty].mean().item() if bool(nonempty.any()) else float("nan"),
            "f1_pooled": 2 * tp / max(2 * tp + fp + fn, 1)}


def auroc(score: torch.Tensor, label: torch.Tensor) -> float:
    """Area under the ROC curve (Mann-Whitney, ties averaged) of ``score`` for the binary ``label``."""
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
        out.append(pooled[torch.arange(T)[:, None], candidates[i]] >= 0.5)
    return torch.stack(out)


def raw_patch_tokens(frames: torch.Tensor, patch: int = 4) -> torch.Tensor:
    """Fixed (untrained) token maps ``(B, T, 3 * patch^2, h, w)``: each frame standardised per channel (a global
    photometric normalisation against the exposure jitter), cut into non-overlapping ``patch x patch`` RGB
    patches, each patch mean-centred and L2-normalised. The raw-pixel features the note (§7, notebook 2)
    allows for the C_sp mechanism claim C6."""
    if frames.dim() != 5 or frames.shape[2] != 3:
        raise ValueError(f"frames must be (B, T, 3, H, W), got {tuple(frames.shape)}")
    if not isinstance(patch, int) or patch < 1 or frames.shape[-1] % patch or frames.shape[-2] % patch:
        raise ValueError(f"patch must be a positive int dividing the frame size {tuple(frames.shape[-2:])}, "
                         f"got {patch!r}")
    x = baselines._normalise(frames.flatten(0, 1))
    u = torch.nn.functional.unfold(x, patch, stride=patch)                       # (M, 3 p^2, h w)
    u = torch.nn.functional.normalize(u - u.mean(1, keepdim=True), dim=1)
    h, w = frames.shape[-2] // patch, frames.shape[-1] // patch
    return u.view(*frames.shape[:2], -1, h, w)


def c6_raw_pixels(data: dict, s_max: int = 3, k: int = 5, temperature: float = 0.1, patch: int = 4) -> dict:
    """C6 with fixed raw-pixel tokens (no training): candidates = top-``s_max`` raw-frame matches, local ``k x k``
    soft correspondence at ``temperature`` on :func:`raw_patch_tokens`, C_sp (§3.6), AUROC against token
    visibility in the candidate frame (renderer depth)."""
    tq, tr = raw_patch_tokens(data["qry"], patch), raw_patch_tokens(data["ref"], patch)
    cand = baselines.raw_topk(data["qry"], data["ref"], s_max)
    b, t, d, h, w = tq.shape
    bidx = torch.arange(b, device=tq.device).view(b, 1, 1)
    r_sel = tr[bidx, cand].reshape(-1, d, h, w)
    q_rep = tq[:, :, None].expand(b, t, s_max, d, h, w).reshape(-1, d, h, w)
    _, P, _ = method.soft_correspondence(q_rep, r_sel, k, temperature)
    csp = method.patch_confidence(P).view(b, t, s_max, h, w)
    vis = token_visibility(data, (h, w), cand.cpu())
    reach = token_visibility(data, (h, w), cand.cpu(), window=k)
    return {"auroc": auroc(csp.cpu(), vis), "visible_share": vis.float().mean().item(),
            "auroc_in_window": auroc(csp.cpu(), reach), "in_window_share": reach.float().mean().item(),
            "patch": patch, "k": k, "temperature": temperature, "s_max": s_max}


def overlap_stats(data: dict, k: int) -> dict:
    """Mechanism numbers for C1/C2 over every pair of ``data``."""
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
    return {"same_index": same.mean().item(), "top1": top1.mean().item(),
            "topk_union": torch.stack(union).mean().item(),
            "oracle_top1": ov.max(-1).values.mean().item(), "top1_histogram": torch.gather(ov, 2, hist).mean().item(),
            "k": k}


def run(config: dict, device, seed: int, artifacts: dict | None = None) -> dict:
    """Render, train every method in ``config["methods"]`` on equal footing, evaluate on held-out rooms.

    When ``artifacts`` is a dict it receives the data, trained models and test predictions (for notebooks).
    """
    start = time.perf_counter()
    device = torch.device(device)
    torch.manual_seed(seed)
    data = build_data(config, device, seed)
    t_data = time.perf_counter() - start
    both = {k: torch.cat([data["train"][k], data["test"][k]]) for k in ("qry", "ref", "overlap", "qry_points",
                                                                        "ref_R", "ref_t", "ref_depth")}
    both["K"] = data["train"]["K"]
    test = data["test"]
    res = {"overlap": overlap_stats(both, config["top_k_overlap"]), "methods": {}, "train_seconds": {},
           "f1_per_repeat": {},
           "data_seconds": t_data, "empty_gt_share": (test["mask"].flatten(-2).sum(-1) == 0).float().mean().item(),
           "n_test_frames": int(test["mask"].shape[0] * test["mask"].shape[1]),
           "n_train_pairs": int(data["train"]["qry"].shape[0])}
    res["c6_raw"] = c6_raw_pixels(test, config["model"]["s_max"], config["model"]["k"])
    res["methods"]["pixel_diff"] = scores(baselines.pixel_diff(test["qry"], test["ref"]), test["mask"])
    models, preds = {}, {}
    repeats = config.get("train_repeats", 1)
    for name in config["methods"]:
        t0 = time.perf_counter()
        runs = []
        for rep in range(repeats):  # independent trainings (init and batch order) on the same data; F1 averaged
            train_seed = seed + 7919 * rep
            torch.manual_seed(train_seed)
            model = make_model(name, config["model"], device)
            losses = train_model(model, data["train"], config["steps"], train_seed, **config["train"])
            pred = predict(model, test)
            runs.append({**scores(pred["logits"] > 0, test["mask"]), "final_loss": float(np.mean(losses[-20:])),
                         "pixel_auroc": auroc(pred["logits"], test["mask"])})
            if rep == 0:
                models[name], preds[name] = model, pred
        res["train_seconds"][name] = time.perf_counter() - t0
        res["methods"][name] = {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
        res["f1_per_repeat"][name] = [r["f1"] for r in runs]
    if "vscd" in preds:
        p = preds["vscd"]
        grid = tuple(p["C_sp"].shape[-2:])
        vis = token_visibility(test, grid, p["candidates"].cpu())
        res["c6_auroc"] = auroc(p["C_sp"].cpu(), vis)
        res["c6_visible_share"] = vis.float().mean().item()
        ov = test["overlap"]
        res["vscd_candidate_overlap"] = torch.gather(ov, 2, p["candidates"][..., :1]).mean().item()
    res["seconds"] = time.perf_counter() - start
    if artifacts is not None:
        artifacts.update(data=data, models=models, preds=preds)
    return res
