"""Plotting functions for the notebooks and widgets. Pure: parameters in, matplotlib Figure out."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from icml26 import checks
from icml26.viz import figure

from . import baselines as B
from . import data as D
from . import method as M

METHODS = ("tabm", "knn", "nca", "gbdt", "plr", "ple")
ESTIMATORS = ("joint", "gbdt", "hetero_mlp", "oracle")
LABELS = {"tabm": "TabM-mini (k=8)", "knn": "kNN (k=20)", "nca": "ModernNCA", "gbdt": "GBDT",
          "plr": "MLP-PLR", "ple": "MLP-PLE", "mlp": "MLP"}
_NN = dict(width=64, n_blocks=2, epochs=12, lr=3e-3, batch_size=64)


@lru_cache(maxsize=8)
def _data(noise_ratio: float, noise_scale: float, n: int, seed: int):
    X, y, f, var = D.hetero_sine(2 * n + n // 5, seed=seed, noise_ratio=noise_ratio, noise_scale=noise_scale)
    a, b = n, n + n // 5
    return dict(Xtr=X[:a], ytr=y[:a], Xva=X[a:b], yva=y[a:b], Xte=X[b:], fte=f[b:], vte=var[b:])


@lru_cache(maxsize=32)
def _excess(kind: str, noise_ratio: float, noise_scale: float, n: int, seed: int) -> np.ndarray:
    S = _data(noise_ratio, noise_scale, n, seed)
    if kind == "knn":
        pred = B.knn_predict(S["Xtr"], S["ytr"], S["Xte"], k=20)
    elif kind == "gbdt":
        pred = B.fit_gbdt(S["Xtr"], S["ytr"], max_iter=100, seed=seed).predict(S["Xte"])
    else:
        torch.manual_seed(seed)
        Xt = torch.as_tensor(S["Xtr"], dtype=torch.float32)
        w = dict(width=_NN["width"], n_blocks=_NN["n_blocks"])
        model = {"mlp": lambda: B.MLPRegressor(4, **w), "tabm": lambda: B.TabM(4, k=8, **w),
                 "nca": lambda: B.ModernNCA(4, embedding="plr", frequency_init_scale=0.3, **w),
                 "plr": lambda: B.MLPRegressor(4, embedding="plr", frequency_init_scale=0.3, **w),
                 "ple": lambda: B.MLPRegressor(4, embedding="ple", X_train=Xt, **w)}[kind]()
        B.fit_nn(model, S["Xtr"], S["ytr"], S["Xva"], S["yva"], epochs=_NN["epochs"], lr=_NN["lr"],
                 batch_size=_NN["batch_size"], seed=seed)
        pred = B.predict(model, S["Xte"])
    return M.excess(pred, S["fte"])


@lru_cache(maxsize=16)
def _u(estimator: str, noise_ratio: float, noise_scale: float, n: int, seed: int) -> np.ndarray:
    S = _data(noise_ratio, noise_scale, n, seed)
    if estimator == "oracle":
        return S["vte"]
    if estimator == "joint":
        return M.joint_uncertainty(S["Xtr"], S["ytr"], S["Xte"], seed=seed)
    if estimator == "gbdt":
        return M.gbdt_uncertainty(S["Xtr"], S["ytr"], S["Xte"], n_folds=3, max_iter=60, seed=seed)
    return M.hetero_mlp_uncertainty(S["Xtr"], S["ytr"], S["Xte"], epochs=20, warm_epochs=5, seed=seed)


def _check_n_seed(n, seed, least: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < least:
        raise ValueError(f"n must be an integer >= {least}; got {n!r}")
    checks.seed("seed", seed)


def _need(results, key: str):
    checks.config("results", results, required=(key,))
    return checks.config(f"results[{key!r}]", results[key])


def plot_uncertainty(noise_ratio: float = 20.0, noise_scale: float = 1.0, method: str = "tabm",
                     estimator: str = "oracle", smoothing: float = 2.0, show_mse: bool = True, n: int = 800,
                     seed: int = 0):
    """The uncertainty plot (docs/papers/tabular_uncertainty.md §3.2).

    ``Delta = e_MLP - e_method`` (excess error vs the true ``f``) over test samples sorted by ``u``
    (``estimator``), Gaussian-smoothed with sd ``smoothing``% of ``n``; the MLP's own smoothed excess error on a
    second axis.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}; got {estimator!r}")
    checks.finite_number("noise_ratio", noise_ratio)
    if not noise_ratio >= 1:
        raise ValueError(f"noise_ratio must be >= 1; got {noise_ratio!r}")
    checks.nonnegative_number("noise_scale", noise_scale)
    checks.positive_number("smoothing", smoothing)
    _check_n_seed(n, seed, 20)
    args = (float(noise_ratio), float(noise_scale), int(n), int(seed))
    e_b, e_m, u = _excess("mlp", *args), _excess(method, *args), _u(estimator, *args)
    rank, delta, base = M.uncertainty_curve(e_b, e_m, u, sigma_frac=smoothing / 100)
    shares = M.quintile_shares(e_b - e_m, u)
    fig, ax = figure(width=6.0, height=3.4)
    ax.plot(rank, delta, color="C0", label=f"MLP - {LABELS[method]}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(f"test samples sorted by uncertainty ({estimator})")
    ax.set_ylabel("excess-error difference")
    if show_mse:
        ax2 = ax.twinx()
        ax2.plot(rank, base, color="C3", alpha=0.7, label="MLP excess error")
        ax2.set_ylabel("MLP excess error", color="C3")
    txt = "S_5 = n/a (the models agree)" if np.isnan(shares[-1]) else f"S_5 = {shares[-1]:+.2f}"
    ax.set_title(f"noise ratio {noise_ratio:g}, scale {noise_scale:g}: {txt}")
    ax.legend(loc="upper left", fontsize=8)
    return fig


def plot_sawtooth_fit(embedding: str = "plr", frequency_scale: float = 1.0, n_bins: int = 16, n: int = 600,
                      epochs: int = 40, seed: int = 0):
    """Fit an MLP with a numerical embedding to the 1-D sawtooth (noisy for x > 0) and draw the fitted curve
    over the data: small PLR frequency scales / few PLE bins under-smooth the teeth, large ones chase noise."""
    if embedding not in ("none", "plr", "ple"):
        raise ValueError(f"embedding must be 'none', 'plr' or 'ple'; got {embedding!r}")
    checks.positive_number("frequency_scale", frequency_scale)
    checks.positive_int("n_bins", n_bins)
    checks.positive_int("epochs", epochs)
    _check_n_seed(n, seed, 5)
    X, y, f, _ = D.sawtooth(n + n // 5, seed=seed, d=1)
    Xt = torch.as_tensor(X[:n], dtype=torch.float32)
    torch.manual_seed(seed)
    kw = {"plr": dict(frequency_init_scale=float(frequency_scale)), "ple": dict(n_bins=int(n_bins))}.get(embedding, {})
    model = B.MLPRegressor(1, width=64, embedding=embedding, X_train=Xt, **kw)
    B.fit_nn(model, X[:n], y[:n], X[n:], y[n:], epochs=epochs, lr=3e-3, batch_size=64, seed=seed)
    grid = np.linspace(-1, 1, 400)[:, None]
    fig, ax = figure(width=6.0, height=3.2)
    ax.scatter(X[:n, 0], y[:n], s=4, color="grey", alpha=0.4, label="noisy data")
    ax.plot(grid[:, 0], (4 * grid[:, 0]) % 1.0, color="k", lw=1, label="true f")
    ax.plot(grid[:, 0], B.predict(model, grid), color="C0", lw=2, label=f"MLP-{embedding.upper()} fit")
    label = {"plr": f"sigma={frequency_scale:g}", "ple": f"{n_bins} bins", "none": "plain"}[embedding]
    ax.set_title(f"sawtooth, {label}")
    ax.legend(fontsize=8, loc="lower right")
    return fig


def plot_shares(results: dict, oracle: bool = False):
    """Quintile shares ``S_q`` of each model's excess-error gain over the MLP (from ``experiment.run``)."""
    models = [k for k in _need(results, "c2") if k != "mlp"]
    fig, ax = figure(width=6.0, height=3.2)
    w = 0.8 / max(1, len(models))
    for i, m in enumerate(models):
        s = np.array(results["c2"][m]["shares_oracle" if oracle else "shares"], dtype=float)
        ax.bar(np.arange(5) + i * w, np.nan_to_num(s), width=w, label=LABELS.get(m, m))
    ax.axhline(0.2, color="grey", ls="--", lw=0.8, label="uniform")
    ax.set_xticks(np.arange(5) + 0.4 - w / 2, [f"Q{q + 1}" for q in range(5)])
    ax.set_xlabel("uncertainty quintile (Q5 = highest)")
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_ylabel("signed share of gain over MLP")
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_excess_by_quintile(results: dict):
    """Mean excess error per uncertainty quintile, MLP vs the compared models."""
    _need(results, "c2")
    fig, ax = figure(width=6.0, height=3.2)
    for m, block in results["c2"].items():
        ax.plot(range(1, 6), block["excess_by_q"], marker="o", label=LABELS.get(m, m), lw=2 if m == "mlp" else 1)
    ax.set_xlabel("uncertainty quintile")
    ax.set_ylabel("excess error (vs true f)")
    ax.set_yscale("log")
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_estimator_levels(results: dict):
    """C1: geometric-mean over-statement ``u_hat / sigma^2`` of each estimator per true-noise quintile (1 = exact)."""
    c1 = _need(results, "c1")
    fig, ax = figure(width=5.0, height=3.2)
    names = {"joint": "joint likelihood (GBDT)", "gbdt": "two-stage GBDT", "mlp": "heteroscedastic MLP"}
    for key, label in names.items():
        if f"over_{key}_by_q" in c1:
            ax.plot(range(1, 6), c1[f"over_{key}_by_q"], marker="o", label=f"{label}: {c1[f'over_{key}']:.2f}x overall")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("true noise-variance quintile (Q1 = lowest)")
    ax.set_ylabel("u_hat / sigma^2 (geometric mean)")
    ax.legend(fontsize=7)
    return fig


def plot_noise_sweep(results: dict):
    """C3: excess(MLP) / excess(TabM-mini) against the global noise multiplier."""
    c3 = _need(results, "c3")
    fig, ax = figure(width=4.5, height=3.2)
    ax.plot(c3["scales"], c3["ratio"], marker="o")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlabel("noise multiplier s")
    ax.set_ylabel("excess MLP / excess TabM-mini")
    return fig
