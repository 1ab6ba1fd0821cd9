"""DAG vs its baselines on the synthetic EPF-like generator, TFB rolling protocol
(docs/papers/dag_tsfx.md §2, §3.5, §5).

One protocol for every model (issue 28): the same trainer (:func:`fit`: Adam, MAE loss + beta times the auxiliary
losses, zero for baselines, early stopping on validation MAE with the best weights restored), the same epoch budget,
patience and batch, and the same tuning grid :data:`TUNE_GRID` (learning rate for all, DAG's fusion weight alpha
too), whose chosen values :data:`HPARAMS` come from development seeds (DEV below); the evaluation seeds 0-4 never
enter the choice. DAG's ablations reuse DAG's values. The ridge reference chooses its penalty on the validation
split of each run (closed form, no training budget).

Development measurements (standard protocol: 15 epochs, patience 3, batch 128; validation MSE on dev seeds 100 /
101, ``python -m icml26.papers.dag_tsfx.tune --scale standard``; lower is better; chosen values marked *):

* DAG: lr 1e-3, alpha 0.05: 0.241 / 0.297; lr 1e-3, alpha 0.5: 0.240 / 0.283; *lr 3e-3, alpha 0.05: 0.185 / 0.285
  (mean 0.235); lr 3e-3, alpha 0.5: 0.199 / 0.277 (mean 0.238);
* TiDE: lr 1e-3: 0.075 / 0.051; *lr 3e-3: 0.072 / 0.050;  NBEATSx: 1e-3: 0.251 / 0.331; *3e-3: 0.241 / 0.305;
* TimeXer: 1e-3: 0.871 / 0.914; *3e-3: 0.852 / 0.912;  PatchTST: 1e-3: 0.879 / 0.927; *3e-3: 0.887 / 0.898;
* DLinear: *1e-3: 0.831 / 0.889; 3e-3: 0.843 / 0.885;
* TFT (hidden 16; ``--models TFT``, 346 s of CPU for the four runs): 1e-3: 0.058 / 0.051; *3e-3: 0.041 / 0.043.

Budget (dev seed 100, DAG lr 3e-3, alpha 0.05, no early stopping): test MSE 0.274 after 15 epochs, 0.217 after 40
(2.7x the steps; validation 0.225 -> 0.180); the ridge reference reaches 0.183 and TiDE's validation MSE is 0.07
at 15 epochs, so DAG's gap to them is not closed by training longer. Quick uses the values chosen at standard.

``full`` on one H200 (estimate; no GPU was available to measure): one DAG step at batch 128, T = 168 costs 41 ms
on one CPU thread (TiDE 32 ms, TFT ~170 ms, the other baselines <= 10 ms). These models are launch-bound on a GPU;
assuming ~10 ms per DAG step, ~3 ms per step of the small baselines and ~15 ms per TFT step (its two LSTMs run 168 +
24 sequential cells), full trains 8 DAG models (main, 5 ablations, kappa = 0, seasonal), 7 small baselines and TFT
for at most 30 epochs of 20000 * 0.7 - 168 = 13832 windows / 128 = 108 steps: 8 * 3240 * 10 ms = 259 s +
7 * 3240 * 3 ms = 68 s + 3240 * 15 ms = 49 s, about 6.3 minutes per seed (early stopping only shortens it).
"""

from __future__ import annotations

import copy
import time

import torch
from torch import nn

from icml26 import checks, progress
from icml26.papers.dag_tsfx import baselines, data

MODEL = dict(d_model=32, d_ff=64, n_heads=4, e_layers=1, patch_len=24, stride=24, dropout=0.0)
#: the tuning grid shared by every model (``alpha`` only applies to DAG); see :mod:`.tune` and the docstring below
TUNE_GRID = {"lr": (1e-3, 3e-3), "alpha": (0.05, 0.5)}
#: values chosen on development seeds by ``python -m icml26.papers.dag_tsfx.tune`` (validation MSE, see below)
HPARAMS = {"DAG": dict(lr=3e-3, alpha=0.05), "TimeXer": dict(lr=3e-3), "PatchTST": dict(lr=3e-3),
           "DLinear": dict(lr=1e-3), "TiDE": dict(lr=3e-3), "NBEATSx": dict(lr=3e-3), "TFT": dict(lr=3e-3)}
_BASE = ["TimeXer", "PatchTST", "DLinear", "TiDE", "NBEATSx", "TFT"]
CONFIGS = {
    "quick": dict(n_steps=3000, seq_len=96, pred_len=24, epochs=6, batch=128, patience=3, beta=0.1,
                  train_stride=1, model=MODEL, hparams=HPARAMS, baselines=_BASE, ridge=True,
                  irrelevant_baselines=["PatchTST", "DLinear"], ablations=["no_t", "no_c"], seasonal=False),
    "standard": dict(n_steps=8760, seq_len=168, pred_len=24, epochs=15, batch=128, patience=3, beta=0.1,
                     train_stride=1, model=MODEL, hparams=HPARAMS, baselines=_BASE, ridge=True,
                     irrelevant_baselines=["PatchTST", "DLinear"], ablations=["no_t", "no_t_inj", "no_c_inj"],
                     seasonal=True),
    "full": dict(n_steps=20000, seq_len=168, pred_len=24, epochs=30, batch=128, patience=5, beta=0.1,
                 train_stride=1, model=MODEL, hparams=HPARAMS, baselines=_BASE, ridge=True, seasonal=True,
                 irrelevant_baselines=["PatchTST", "DLinear"],
                 ablations=["no_t", "no_c", "no_t_inj", "no_c_inj", "convex"]),
}
#: data seeds of the kappa = 0 and seasonal worlds are ``seed`` plus these offsets, far above every development seed
#: (100 and up), so no evaluation seed's series is a tuning seed's series (they were ``seed + 100`` and ``+ 200``)
IRRELEVANT_DATA_OFFSET, SEASONAL_DATA_OFFSET = 10_000, 20_000
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


def _train(name, wins, cfg, device, seed, hp=None, **extra):
    """Train model ``name`` with its chosen values ``cfg['hparams'][name]`` (or ``hp``) under the shared protocol."""
    torch.manual_seed(seed)
    hp = dict(cfg["hparams"].get(name, {}) if hp is None else hp)
    lr = hp.pop("lr")
    x = wins["train"]
    model = baselines.make_model(name, cfg["seq_len"], cfg["pred_len"], x["y"].shape[-1], x["y_exo"].shape[-1],
                                 **{**cfg["model"], **hp, **extra}).to(device)
    hist = fit(model, wins, epochs=cfg["epochs"], batch=cfg["batch"], lr=lr, patience=cfg["patience"],
               beta=cfg["beta"], seed=seed)
    return model, hist


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


def compare_on_series(config: dict, endo, exo, device="cpu", seed: int = 0, models=("DAG", "TiDE")) -> dict:
    """Train ``models`` under ``config``'s protocol and chosen values on one given series (for example a CSV read by
    :func:`.data.load_tsfx_csv`): TFB 70/10/20 split, z-scoring with train statistics, stride-1 windows; returns the
    test ``{"mse", "mae"}`` per model and of the ridge reference (``"Ridge"``)."""
    _check_config(config)
    checks.device("device", device)
    checks.seed("seed", seed)
    if not isinstance(models, (list, tuple)) or not models:
        raise ValueError(f"models must be a non-empty list of model names; got {models!r}")
    for name in models:
        checks.one_of("models", name, list(baselines.MODELS))
        if name not in config["hparams"]:
            raise ValueError(f"models: {name!r} has no chosen values in config['hparams']")
    sc = data.split_and_scale(endo, exo)
    wins = data.tfb_windows(sc["endo"], sc["exo"], config["seq_len"], config["pred_len"], config["train_stride"],
                            torch.device(device))
    te = wins["test"]
    out = {}
    for k, name in enumerate(models):
        m, _ = _train(name, wins, config, torch.device(device), seed + k)
        out[name] = _metrics(predict(m, te)["pred"], te["y"])
    if te["y"].shape[-1] == 1:
        out["Ridge"] = _metrics(baselines.ridge_reference(wins)["pred"], te["y"])
    return out


def _check_config(config: dict) -> None:
    need = ("n_steps", "seq_len", "pred_len", "epochs", "batch", "patience", "beta", "train_stride", "model",
            "hparams", "baselines", "irrelevant_baselines", "ablations")
    if not isinstance(config, dict) or any(k not in config for k in need):
        raise ValueError(f"config must be a dict with keys {need}; got {config!r:.200}")
    bad = [a for a in config["ablations"] if a not in ABLATIONS]
    if bad:
        raise ValueError(f"config['ablations'] must be among {sorted(ABLATIONS)}; got {bad}")
    if checks.positive_int("config['n_steps']", config["n_steps"]) < 200:
        raise ValueError(f"config['n_steps'] must be >= 200 (the generator's minimum); got {config['n_steps']}")
    for k in ("seq_len", "pred_len", "epochs", "batch", "patience", "train_stride"):
        checks.positive_int(f"config[{k!r}]", config[k])
    checks.config("config['hparams']", config["hparams"])
    used = {"DAG", *config["baselines"], *config["irrelevant_baselines"]}
    for name in used:
        hp = config["hparams"].get(name)
        if not isinstance(hp, dict) or "lr" not in hp:
            raise ValueError(f"config['hparams'][{name!r}] must be a dict with a learning rate 'lr'; got {hp!r}")
        checks.positive_number(f"config['hparams'][{name!r}]['lr']", hp["lr"])
    checks.nonnegative_number("config['beta']", config["beta"])
    checks.config("config['model']", config["model"])
    for k in ("baselines", "irrelevant_baselines"):
        for name in config[k]:
            checks.one_of(f"config[{k!r}]", name, [m for m in baselines.MODELS if m != "DAG"])


def run(config: dict, device, seed: int) -> dict:
    """All models and the ridge reference on the main data (sigma_shock=1, kappa=1, lag 0), DAG's ablations, DAG vs
    endogenous-only models on kappa=0 (when ``irrelevant_baselines`` is not empty), and the temporal discovery error
    on seasonal+AR covariates (sigma_shock=0.3). Metrics on the test split; ``epochs_run`` per model."""
    checks.config_like("config", config, CONFIGS.values(), maps=("hparams",))  # hparams: model -> settings
    _check_config(config)
    checks.device("device", device)
    checks.seed("seed", seed)
    device = torch.device(device)
    t0 = time.perf_counter()
    cfg = config
    res: dict = {"main": {}, "irrelevant": {}, "ablation": {}, "epochs_run": {}}
    stages = ["train DAG", "train baselines", "ablations"] + (["irrelevant covariates"] if cfg["irrelevant_baselines"]
                                                              else [])
    bar = progress.StageBar(stages + (["seasonal discovery"] if cfg["seasonal"] else []), desc="dag_tsfx")
    bar.next("train DAG")
    main = scenario(cfg, device, seed, sigma_shock=1.0, kappa=1.0)
    te = main["wins"]["test"]
    res["oracle_floor_mse"] = main["floor"]
    dag, hist = _train("DAG", main["wins"], cfg, device, seed)
    res["epochs_run"]["DAG"] = len(hist["val_mae"])
    res["main"]["DAG"] = _metrics(predict(dag, te)["pred"], te["y"])
    dag.infer_use_future = False
    res["main"]["DAG_no_future"] = _metrics(predict(dag, te)["pred"], te["y"])
    dag.infer_use_future = True
    bar.next("train baselines")
    for k, name in enumerate(cfg["baselines"]):
        m, hist = _train(name, main["wins"], cfg, device, seed + 1 + k)
        res["epochs_run"][name] = len(hist["val_mae"])
        res["main"][name] = _metrics(predict(m, te)["pred"], te["y"])
    if cfg["ridge"]:
        ridge = baselines.ridge_reference(main["wins"])
        res["main"]["Ridge"] = _metrics(ridge["pred"], te["y"])
        res["ridge_lambda"] = ridge["lam"]
    bar.next("ablations")
    for ab in cfg["ablations"]:
        m, hist = _train("DAG", main["wins"], cfg, device, seed, **ABLATIONS[ab])
        res["epochs_run"][f"DAG_{ab}"] = len(hist["val_mae"])
        res["ablation"][ab] = _metrics(predict(m, te)["pred"], te["y"])
    res["ablation"]["full"] = res["main"]["DAG"]
    if cfg["irrelevant_baselines"]:
        bar.next("irrelevant covariates")
        irr = scenario(cfg, device, seed + IRRELEVANT_DATA_OFFSET, sigma_shock=1.0, kappa=0.0)
        ite = irr["wins"]["test"]
        m, _ = _train("DAG", irr["wins"], cfg, device, seed)
        res["irrelevant"]["DAG"] = _metrics(predict(m, ite)["pred"], ite["y"])
        for k, name in enumerate(cfg["irrelevant_baselines"]):
            m, _ = _train(name, irr["wins"], cfg, device, seed + 1 + k)
            res["irrelevant"][name] = _metrics(predict(m, ite)["pred"], ite["y"])
    if cfg["seasonal"]:
        bar.next("seasonal discovery")
        sea = scenario(cfg, device, seed + SEASONAL_DATA_OFFSET, sigma_shock=0.3, kappa=1.0)
        ste = sea["wins"]["test"]
        m, _ = _train("DAG", sea["wins"], cfg, device, seed)
        exo_hat = predict(m, ste)["exo_hat"]
        naive = data.seasonal_naive_exo(ste["x"], 1, cfg["pred_len"])
        res["discovery"] = {"dag_exo_mae": float((exo_hat - ste["y_exo"]).abs().mean()),
                            "seasonal_naive_mae": float((naive - ste["y_exo"]).abs().mean())}
    res["config"] = {k: v for k, v in cfg.items() if k not in ("model", "hparams")}
    res["hparams"] = {k: dict(v) for k, v in cfg["hparams"].items()}
    res["seconds"] = time.perf_counter() - t0
    bar.close()
    return res
