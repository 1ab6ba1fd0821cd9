"""Plotting functions for the DAG notebooks and explorers (pure: parameters in, matplotlib Figure out)."""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.papers.dag_tsfx import baselines, data, method
from icml26.viz import figure


def plot_series(sigma_shock: float = 1.0, kappa: float = 1.0, lag: int = 0, days: int = 7, seed: int = 0):
    """The synthetic EPF-like data (docs/papers/dag_tsfx.md §2): the two covariates and the price they drive."""
    checks.positive_int("days", days)
    raw = data.synthetic_epf(max(24 * days, 200), sigma_shock=sigma_shock, kappa=kappa, lag=lag, seed=seed)
    n = 24 * days
    fig, axes = figure(1, 2, width=8.0, height=2.0, sharex=True)
    axes[0, 0].plot(raw["exo"][:n, 0], label="load forecast L")
    axes[0, 0].plot(raw["exo"][:n, 1], label="renewables forecast R")
    axes[0, 0].legend(fontsize=7, loc="upper right")
    axes[0, 0].set_title(f"covariates (sigma_shock={sigma_shock}), known for the future")
    axes[1, 0].plot(raw["endo"][:n, 0], color="k", lw=1)
    axes[1, 0].set_title(f"target price (kappa={kappa}, lag={lag})")
    axes[1, 0].set_xlabel("hour")
    return fig


def linear_value_of_information(sigma_shock: float, kappa: float, lag: int = 0, n_steps: int = 2400,
                                seq_len: int = 48, pred_len: int = 24, ridge: float = 100.0, seed: int = 0) -> dict:
    """Test MSE of ridge forecasters fed (a) target history, (b) + historical covariates, (c) + future covariates.

    A closed-form stand-in for the three model families the claims compare (docs/papers/dag_tsfx.md §5:
    endogenous-only, TimeXer-like, DAG-like),
    fast enough for a slider; on the z-scored target, TFB 70/10/20 split (val folded into train).
    """
    checks.positive_number("ridge", ridge)
    for name, v in (("seq_len", seq_len), ("pred_len", pred_len)):
        checks.positive_int(name, v)
    raw = data.synthetic_epf(n_steps, sigma_shock=sigma_shock, kappa=kappa, lag=lag, seed=seed)
    sc = data.split_and_scale(raw["endo"], raw["exo"])
    b1, b2, n = sc["borders"]
    tr = data.make_windows(sc["endo"], sc["exo"], seq_len, pred_len, 0, b2, 1)
    te = data.make_windows(sc["endo"], sc["exo"], seq_len, pred_len, b2, n, 1)
    out = {}
    for which, name in enumerate(["endogenous only", "+ historical covariates", "+ future covariates"]):
        w = baselines.ridge_solve(baselines.ridge_features(tr, which >= 1, which >= 2), tr["y"][..., 0], ridge)
        pred = baselines.ridge_features(te, which >= 1, which >= 2) @ w
        out[name] = float(((pred - te["y"][..., 0].double()) ** 2).mean())
    out["oracle floor"] = data.oracle_floor(0.9, 0.1, pred_len, sc["target_var"])
    return out


def plot_value_of_future(sigma_shock: float = 1.0, kappa: float = 1.0, lag: int = 0):
    """Bar chart of :func:`linear_value_of_information` (the first explorer of notebook 1)."""
    res = linear_value_of_information(sigma_shock, kappa, lag)
    fig, ax = figure(width=5.0, height=3.0)
    names = list(res)
    ax.bar(range(len(names)), [res[k] for k in names], color=["#999", "#69c", "#c63", "#3a3"])
    ax.set_xticks(range(len(names)), names, rotation=15, fontsize=7)
    ax.set_ylabel("test MSE (z-scored target)")
    ax.set_title(f"sigma_shock={sigma_shock}, kappa={kappa}, lag={lag}")
    return fig


def plot_attention_mix(sharpness: float = 3.0, alpha: float = 0.5, mode: str = "softmax_sum", seed: int = 0):
    """Native map A, injected map A_inj and the mixed map
    (docs/papers/dag_tsfx.md §3.2 step 5, §6: softmax of a sum flattens rows)."""
    checks.finite_number("sharpness", sharpness)
    checks.probability("alpha", alpha)
    checks.one_of("mode", mode, method.INJECT_MODES)
    checks.seed("seed", seed)
    g = torch.Generator().manual_seed(seed)
    a = torch.softmax(sharpness * torch.randn(1, 1, 6, 6, generator=g), -1)
    inj = torch.softmax(sharpness * torch.randn(1, 1, 6, 6, generator=g), -1)
    mixed = method.mixed_attention(a, inj, torch.tensor([alpha]), mode)
    fig, axes = figure(3, 1, width=2.4, height=2.4)
    for ax, m, title in zip(axes[0], (a, inj, mixed), ("native A", "injected A_inj", f"mixed ({mode})")):
        ax.imshow(m[0, 0].numpy(), vmin=0, vmax=1, cmap="viridis")
        ax.set_title(f"{title}\nmax row mass {float(m.max(-1).values.mean()):.2f}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    return fig


def plot_results(results: dict):
    """Test MSE of every model on the main data, the kappa=0 data (when run) and the ablation grid."""
    groups = [(k, t) for k, t in (("main", "sigma_shock=1, kappa=1"), ("irrelevant", "kappa=0 (covariates irrelevant)"),
                                  ("ablation", "DAG ablations")) if results.get(k)]
    fig, axes = figure(len(groups), 1, width=3.6, height=3.0)
    for ax, (key, title) in zip(axes[0], groups):
        names = list(results[key])
        vals = [results[key][k]["mse"] for k in names]
        ax.bar(range(len(names)), vals, color=["#c63" if k.startswith("DAG") or k == "full" else "#69c" for k in names])
        ax.set_xticks(range(len(names)), names, rotation=35, fontsize=7)
        ax.set_title(title, fontsize=9)
        if key == "main":
            ax.axhline(results["oracle_floor_mse"], color="k", ls=":", lw=1, label="oracle floor")
            ax.legend(fontsize=7)
    axes[0, 0].set_ylabel("test MSE (z-scored)")
    return fig


def forecast_example(model, win: dict, index: int = 0) -> dict:
    """One test window's history, truth and the DAG branch forecasts as numpy arrays."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch nn.Module; got {type(model).__name__}")
    checks.config("win", win, required=("x", "y", "y_exo"))
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(win["x"]):
        raise ValueError(f"index must be in [0, {len(win['x'])}); got {index}")
    model.eval()
    with torch.no_grad():
        out = model(win["x"][index:index + 1], win["y_exo"][index:index + 1])
    get = lambda k: out[k][0, :, 0].cpu().numpy() if k in out else None  # noqa: E731
    return {"hist": win["x"][index, :, 0].cpu().numpy(), "truth": win["y"][index, :, 0].cpu().numpy(),
            "pred_t": get("pred_t"), "pred_c": get("pred_c")}


def plot_forecast(example: dict, alpha: float = 0.5):
    """Overlay of the TCM forecast, the CCM forecast and their alpha-blend (the second explorer)."""
    checks.config("example", example, required=("hist", "truth", "pred_t", "pred_c"))
    for k in ("hist", "truth", "pred_t", "pred_c"):
        checks.array(f"example[{k!r}]", example[k], ndim=1)
    if not len(example["truth"]) == len(example["pred_t"]) == len(example["pred_c"]):
        raise ValueError("example's truth, pred_t and pred_c must have one length (the horizon)")
    checks.probability("alpha", alpha)
    h, y = example["hist"], example["truth"]
    t0 = len(h)
    fig, ax = figure(width=6.0, height=2.6)
    ax.plot(np.arange(t0), h, color="k", lw=1, label="history")
    ax.plot(np.arange(t0, t0 + len(y)), y, color="k", ls="--", lw=1, label="truth")
    ax.plot(np.arange(t0, t0 + len(y)), example["pred_t"], label="TCM (pred_t)", alpha=0.7)
    ax.plot(np.arange(t0, t0 + len(y)), example["pred_c"], label="CCM (pred_c)", alpha=0.7)
    ax.plot(np.arange(t0, t0 + len(y)), alpha * example["pred_t"] + (1 - alpha) * example["pred_c"],
            lw=2, label=f"blend alpha={alpha:.2f}")
    ax.legend(fontsize=7, ncol=3)
    return fig
