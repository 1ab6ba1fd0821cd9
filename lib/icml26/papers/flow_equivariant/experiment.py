"""FloWM experiments on DigitsWorld (note §6-7): exact equivariance, memory of revisited regions, self-motion
ablation, velocity channels (static vs dynamic), length generalisation and training speed.

``run(config, device, seed)`` returns plain numbers; ``claims.py`` reads them. Every trained model gets the same
data stream, optimiser (Adam), learning rate, batch size and iteration budget (note §7 "equal footing").
"""

from __future__ import annotations

import math
import time

import torch

from icml26.papers.flow_equivariant import baselines, data
from icml26.papers.flow_equivariant.method import FloWM, equivariance_errors
from icml26.papers.flow_equivariant.recurrent import per_step_mse, train_rollout

_WORLD = {"world": 16, "window": 8, "n_digits": 2, "step": 4, "t_in": 8, "t_out": 6, "upsample": 1}
CONFIGS = {
    # quick: V0 FloWM (claim 2 allows V0 or V1) in a 16-torus; claims 1-3 only.
    "quick": {**_WORLD, "channels": 8, "radius": 0, "rec_init": "identity", "batch": 16, "iters": 100, "lr": 5e-3,
              "n_eval": 64, "t_eval": None, "dynamic": False, "eval_every": 0},
    # standard: V1 FloWM, all ablations, static and dynamic worlds, 60-step length generalisation.
    "standard": {**_WORLD, "t_in": 12, "t_out": 8, "channels": 8, "radius": 1, "rec_init": "identity", "batch": 16,
                 "iters": 100, "lr": 5e-3, "n_eval": 32, "t_eval": 60, "dynamic": True, "eval_every": 0},
    # full (one GPU): closer to the note's default/full table.
    "full": {"world": 32, "window": 16, "n_digits": 4, "step": 5, "t_in": 30, "t_out": 16, "upsample": 2,
             "channels": 16, "radius": 1, "rec_init": "identity", "batch": 32, "iters": 3000, "lr": 1e-3,
             "n_eval": 256, "t_eval": 100, "dynamic": True, "eval_every": 100},
}
REQUIRED = ("world", "window", "n_digits", "step", "t_in", "t_out", "channels", "radius", "batch", "iters", "lr",
            "n_eval")


def _check_config(config: dict) -> None:
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict like CONFIGS['quick']; got {type(config).__name__}")
    missing = [k for k in REQUIRED if k not in config]
    if missing:
        raise ValueError(f"config is missing keys {missing}")
    if config["window"] > config["world"]:
        raise ValueError(f"config['window'] ({config['window']}) must not exceed config['world'] ({config['world']})")
    if config["radius"] < 0 or config["iters"] < 0 or config["lr"] <= 0:
        raise ValueError("config needs radius >= 0, iters >= 0 and lr > 0")


def equivariance_check(device, seed: int, world: int = 12, channels: int = 4, radius: int = 1, steps: int = 8,
                       flow=(1, -1)) -> dict:
    """Claim 1: exact self-motion and flow equivariance with random weights and window = world (float32)."""
    g = torch.Generator().manual_seed(seed + 1000)
    torch.manual_seed(seed + 1000)
    pattern = torch.zeros(world, world)
    pattern[2:7, 3:6] = torch.rand(5, 3, generator=g)
    path = torch.cumsum(torch.randint(-3, 4, (steps, 2), generator=g), 0)
    out = {}
    for name, model in (("flowm", FloWM(world, world, channels, radius)),
                        ("action_concat", baselines.ActionConcatWM(world, world, channels))):
        errs = equivariance_errors(model.to(device), pattern.to(device), path.to(device), flow)
        out[name] = errs
    return out


def _make_model(kind: str, cfg: dict, radius: int | None = None):
    W, w, C = cfg["world"], cfg["window"], cfg["channels"]
    r = cfg["radius"] if radius is None else radius
    ri = cfg.get("rec_init", "identity")
    if kind == "flowm":
        return FloWM(W, w, C, r, rec_init=ri)
    if kind == "flowm_v0":
        return FloWM(W, w, C, 0, rec_init=ri)
    if kind == "no_sme":
        return FloWM(W, w, C, r, self_motion=False, rec_init=ri)
    if kind == "convgru":
        return baselines.ConvGRUWM(w, C, action_scale=max(cfg["step"], 1))
    if kind == "sliding":
        return baselines.SlidingWindowWM(w, C, k=4, action_scale=max(cfg["step"], 1))
    if kind == "copy_last":
        return baselines.CopyLast()
    if kind == "all_black":
        return baselines.AllBlack()
    raise ValueError(f"unknown model kind {kind!r}")


def _iters_to(curve_iters, curve_mse, level) -> float:
    for i, m in zip(curve_iters, curve_mse):
        if m <= level:
            return float(i)
    return math.inf


def study(cfg: dict, device, seed: int, dynamic: bool, kinds, t_eval: int | None = None) -> dict:
    """Train ``kinds`` on one DigitsWorld variant with identical data and budgets; per-step test MSE curves."""
    world_kw = dict(world=cfg["world"], window=cfg["window"], n_digits=cfg["n_digits"], step=cfg["step"],
                    t_in=cfg["t_in"], upsample=cfg.get("upsample", 1), dynamic=dynamic, device=device)
    test = data.make_batch(cfg["n_eval"], t_out=cfg["t_out"], split="test",
                           generator=torch.Generator(device=device).manual_seed(10_000 + seed), **world_kw)
    long = None
    if t_eval:
        long = data.make_batch(cfg["n_eval"], t_out=t_eval, split="test",
                               generator=torch.Generator(device=device).manual_seed(20_000 + seed), **world_kw)
    out = {}
    for k, kind in enumerate(kinds):
        torch.manual_seed(seed * 100 + k)
        model = _make_model(kind, cfg).to(device)
        gen = torch.Generator(device=device).manual_seed(seed)          # same training stream for every model

        def sample(i, gen=gen):
            return data.make_batch(cfg["batch"], t_out=cfg["t_out"], split="train", generator=gen, **world_kw)

        iters = cfg["iters"] if baselines.n_params(model) else 0
        hist = train_rollout(model, sample, iters, cfg["lr"], eval_batch=test if cfg.get("eval_every") else None,
                             eval_every=cfg.get("eval_every", 0))
        curve = per_step_mse(model, test).tolist()
        rec = {"params": baselines.n_params(model), "train_seconds": hist["seconds"], "mse_curve": curve,
               "mse": sum(curve) / len(curve), "loss_last": hist["loss"][-1] if hist["loss"] else None,
               "eval_iters": hist["eval_iters"], "eval_mse": hist["eval_mse"]}
        if long is not None:
            lc = per_step_mse(model, long).tolist()
            rec["long_curve"] = lc
        out[kind] = rec
        if cfg.get("verbose"):
            print(f"{'dynamic' if dynamic else 'static'} {kind}: mse {rec['mse']:.4f} ({hist['seconds']:.0f} s)",
                  flush=True)
    return out


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the FloWM study at one scale (see ``CONFIGS``); plain numbers only."""
    _check_config(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int; got {seed!r}")
    device = torch.device(device)
    t0 = time.perf_counter()
    cfg = dict(config)
    res = {"config": {k: v for k, v in cfg.items()}, "equivariance": equivariance_check(device, seed)}
    static_kinds = ["flowm", "no_sme", "convgru", "copy_last", "all_black"]
    if cfg.get("dynamic"):
        static_kinds = ["flowm", "flowm_v0", "no_sme", "convgru", "copy_last", "all_black"]
    res["static"] = study(cfg, device, seed, dynamic=False, kinds=static_kinds)
    if cfg.get("dynamic"):
        res["dynamic"] = study(cfg, device, seed, dynamic=True, t_eval=cfg.get("t_eval"),
                               kinds=["flowm", "flowm_v0", "convgru", "sliding", "copy_last", "all_black"])
        dyn = res["dynamic"]
        black = dyn["all_black"]["mse"]
        res["iters_to_half_black"] = {k: _iters_to(dyn[k]["eval_iters"], dyn[k]["eval_mse"], 0.5 * black)
                                      for k in ("flowm", "convgru")}
    res["seconds"] = time.perf_counter() - t0
    return res
