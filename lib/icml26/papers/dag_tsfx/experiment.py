"""DAG vs its baselines on the synthetic EPF-like generator, TFB rolling protocol
(docs/papers/dag_tsfx.md §2, §3.5, §5).

Every model gets the same trainer: Adam, the same learning rate, batch, epochs, MAE loss (+ beta times the
auxiliary losses, zero for baselines), early stopping on validation MAE with the best weights restored.
"""

from __future__ import annotations

import copy
import time

import torch
from torch import nn

from icml26 import checks, progress
from icml26.papers.dag_tsfx import baselines, data

MODEL = dict(d_model=32, d_ff=64, n_heads=4, e_layers=1, patch_len=24, stride=24, dropout=0.0, alpha=0.5)
CONFIGS = {
    "quick": dict(n_steps=3000, seq_len=96, pred_len=24, epochs=3, batch=64, lr=3e-3, patience=3, beta=0.1,
                  train_stride=1, model=MODEL, baselines=["TimeXer", "PatchTST", "DLinear"],
                  irrelevant_baselines=["PatchTST", "DLinear"], ablations=["no_t", "no_c"], seasonal=True),
    "standard": dict(n_steps=8760, seq_len=168, pred_len=24, epochs=10, batch=64, lr=1e-3, patience=3, beta=0.1,
                     train_stride=1, model=MODEL, baselines=["TimeXer", "PatchTST", "DLinear", "TiDE", "NBEATSx"],
                     irrelevant_baselines=["PatchTST", "DLinear", "TimeXer"], ablations=["no_t", "no_c", "no_inj"],
                     seasonal=True),
    "full": dict(n_steps=30000, seq_len=168, pred_len=24, epochs=30, batch=64, lr=1e-3, patience=5, beta=0.1,
                 train_stride=1, model=dict(MODEL, d_model=64, d_ff=128), seasonal=True,
                 baselines=["TimeXer", "PatchTST", "DLinear", "TiDE", "NBEATSx"],
                 irrelevant_baselines=["PatchTST", "DLinear", "TimeXer", "TiDE", "NBEATSx"],
                 ablations=["no_t", "no_c", "no_inj", "no_t_inj", "no_c_inj", "convex"]),
}
ABLATIONS = {"no_t": dict(use_t=False), "no_c": dict(use_c=False),
             "no_inj": dict(use_t_exog=False, use_c_exog=False), "no_t_inj": dict(use_t_exog=False),
             "no_c_inj": dict(use_c_exog=False), "convex": dict(inject_mode="convex")}


def predict(model, win: dict, batch: int = 512, use_future: bool = True) -> dict:
    """Batched evaluation; returns the stacked outputs (``pred`` and, for DAG, ``exo_hat``)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch nn.Module; got {type(model).__name__}")
    checks.config("win", win, required=("x", "y_exo"))
    checks.positive_int("batch", batch)
    model.eval()
    preds, exo = [], []
    with torch.no_grad():
        for i in range(0, len(win["x"]), batch):
            out = model(win["x"][i:i + batch], win["y_exo"][i:i + batch] if use_future else None)
            preds.append(out["pred"])
            if "exo_hat" in out:
                exo.append(out["exo_hat"])
    return {"pred": torch.cat(preds), "exo_hat": torch.cat(exo) if exo else None}


def metrics(pred: torch.Tensor, y: torch.Tensor) -> dict:
    """MSE and MAE on the z-scored scale (``mse_norm``, ``mae_norm``)."""
    checks.tensor("pred", pred)
    checks.tensor("y", y)
    if pred.shape != y.shape:
        raise ValueError(f"pred and y must have the same shape; got {tuple(pred.shape)}, {tuple(y.shape)}")
    return _metrics(pred, y)


def _metrics(pred, y):
    return {"mse": float(((pred - y) ** 2).mean()), "mae": float((pred - y).abs().mean())}


def fit(model, wins: dict, *, epochs: int, batch: int, lr: float, patience: int, beta: float, seed: int) -> dict:
    """Train with Adam on MAE + beta * aux, early stopping on validation MAE, best weights restored."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch nn.Module; got {type(model).__name__}")
    checks.config("wins", wins, required=("train", "val"))
    for part in ("train", "val"):
        checks.config(f"wins[{part!r}]", wins[part], required=("x", "y", "y_exo"))
    for name, v in (("epochs", epochs), ("batch", batch), ("patience", patience)):
        checks.positive_int(name, v)
    checks.positive_number("lr", lr)
    checks.nonnegative_number("beta", beta)
    checks.seed("seed", seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    tr = wins["train"]
    best, best_state, bad, hist = float("inf"), None, 0, []
    for _ in range(epochs):
        model.train()
        perm = torch.randperm(len(tr["x"]), generator=g).to(tr["x"].device)
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            out = model(tr["x"][idx], tr["y_exo"][idx])
            loss = (out["pred"] - tr["y"][idx]).abs().mean() + beta * out["aux"]
            opt.zero_grad()
            loss.backward()
            opt.step()
        val = _metrics(predict(model, wins["val"])["pred"], wins["val"]["y"])["mae"]
        hist.append(val)
        if val < best:
            best, best_state, bad = val, copy.deepcopy(model.state_dict()), 0
        else:
            bad += 1
            if bad >= patience:
                break
    model.load_state_dict(best_state)
    return {"val_mae": hist}


def _train(name, wins, cfg, device, seed, **extra):
    torch.manual_seed(seed)
    x = wins["train"]
    model = baselines.make_model(name, cfg["seq_len"], cfg["pred_len"], x["y"].shape[-1], x["y_exo"].shape[-1],
                                 **{**cfg["model"], **extra}).to(device)
    fit(model, wins, epochs=cfg["epochs"], batch=cfg["batch"], lr=cfg["lr"], patience=cfg["patience"],
        beta=cfg["beta"], seed=seed)
    return model


def scenario(cfg: dict, device, seed: int, **gen) -> dict:
    """Generate, split, scale and window one synthetic data set."""
    checks.config("cfg", cfg, required=("n_steps", "seq_len", "pred_len", "train_stride"))
    checks.device("device", device)
    checks.seed("seed", seed)
    raw = data.synthetic_epf(cfg["n_steps"], seed=seed, **gen)
    sc = data.split_and_scale(raw["endo"], raw["exo"])
    wins = data.tfb_windows(sc["endo"], sc["exo"], cfg["seq_len"], cfg["pred_len"], cfg["train_stride"], device)
    floor = data.oracle_floor(raw["params"]["phi"], raw["params"]["sigma_eps"], cfg["pred_len"], sc["target_var"])
    return {"wins": wins, "floor": floor}


def _check_config(config: dict) -> None:
    need = ("n_steps", "seq_len", "pred_len", "epochs", "batch", "lr", "patience", "beta", "train_stride", "model",
            "baselines", "irrelevant_baselines", "ablations")
    if not isinstance(config, dict) or any(k not in config for k in need):
        raise ValueError(f"config must be a dict with keys {need}; got {config!r:.200}")
    bad = [a for a in config["ablations"] if a not in ABLATIONS]
    if bad:
        raise ValueError(f"config['ablations'] must be among {sorted(ABLATIONS)}; got {bad}")
    if checks.positive_int("config['n_steps']", config["n_steps"]) < 200:
        raise ValueError(f"config['n_steps'] must be >= 200 (the generator's minimum); got {config['n_steps']}")
    for k in ("seq_len", "pred_len", "epochs", "batch", "patience", "train_stride"):
        checks.positive_int(f"config[{k!r}]", config[k])
    checks.positive_number("config['lr']", config["lr"])
    checks.nonnegative_number("config['beta']", config["beta"])
    checks.config("config['model']", config["model"])
    for k in ("baselines", "irrelevant_baselines"):
        for name in config[k]:
            checks.one_of(f"config[{k!r}]", name, [m for m in baselines.MODELS if m != "DAG"])


def run(config: dict, device, seed: int) -> dict:
    """All models on the main data (sigma_shock=1, kappa=1, lag 0), DAG vs endogenous-only models on kappa=0, and
    the temporal discovery error on seasonal+AR covariates (sigma_shock=0.3). Metrics on the test split."""
    _check_config(config)
    checks.device("device", device)
    checks.seed("seed", seed)
    device = torch.device(device)
    t0 = time.perf_counter()
    cfg = config
    res: dict = {"main": {}, "irrelevant": {}, "ablation": {}}
    bar = progress.StageBar(["train DAG", "train baselines", "ablations", "irrelevant covariates"]
                            + (["seasonal discovery"] if cfg.get("seasonal", True) else []), desc="dag_tsfx")
    bar.next("train DAG")
    main = scenario(cfg, device, seed, sigma_shock=1.0, kappa=1.0)
    te = main["wins"]["test"]
    res["oracle_floor_mse"] = main["floor"]
    dag = _train("DAG", main["wins"], cfg, device, seed)
    res["main"]["DAG"] = _metrics(predict(dag, te)["pred"], te["y"])
    dag.infer_use_future = False
    res["main"]["DAG_no_future"] = _metrics(predict(dag, te)["pred"], te["y"])
    dag.infer_use_future = True
    bar.next("train baselines")
    for k, name in enumerate(cfg["baselines"]):
        m = _train(name, main["wins"], cfg, device, seed + 1 + k)
        res["main"][name] = _metrics(predict(m, te)["pred"], te["y"])
    bar.next("ablations")
    for ab in cfg["ablations"]:
        m = _train("DAG", main["wins"], cfg, device, seed, **ABLATIONS[ab])
        res["ablation"][ab] = _metrics(predict(m, te)["pred"], te["y"])
    res["ablation"]["full"] = res["main"]["DAG"]
    bar.next("irrelevant covariates")
    irr = scenario(cfg, device, seed + 100, sigma_shock=1.0, kappa=0.0)
    ite = irr["wins"]["test"]
    m = _train("DAG", irr["wins"], cfg, device, seed)
    res["irrelevant"]["DAG"] = _metrics(predict(m, ite)["pred"], ite["y"])
    for k, name in enumerate(cfg["irrelevant_baselines"]):
        m = _train(name, irr["wins"], cfg, device, seed + 1 + k)
        res["irrelevant"][name] = _metrics(predict(m, ite)["pred"], ite["y"])
    if cfg.get("seasonal", True):
        bar.next("seasonal discovery")
        sea = scenario(cfg, device, seed + 200, sigma_shock=0.3, kappa=1.0)
        ste = sea["wins"]["test"]
        m = _train("DAG", sea["wins"], cfg, device, seed)
        exo_hat = predict(m, ste)["exo_hat"]
        naive = data.seasonal_naive_exo(ste["x"], 1, cfg["pred_len"])
        res["discovery"] = {"dag_exo_mae": float((exo_hat - ste["y_exo"]).abs().mean()),
                            "seasonal_naive_mae": float((naive - ste["y_exo"]).abs().mean())}
    res["config"] = {k: v for k, v in cfg.items() if k != "model"}
    res["seconds"] = time.perf_counter() - t0
    bar.close()
    return res
