"""Pure plotting functions for the data-mixing notebooks and the MIXTURE EXPLORER widget
(docs/papers/data_mixing.md)."""

from __future__ import annotations

import numpy as np

from icml26 import checks
from icml26.viz import PALETTE, figure

from . import method, skills


def _ternary_xy(h):
    h = np.atleast_2d(np.asarray(h, float))
    return h[:, 1] + 0.5 * h[:, 2], np.sqrt(3) / 2 * h[:, 2]


def normalise(weights) -> np.ndarray:
    """Slider values -> a mixture on the simplex (all-zero sliders give the uniform mixture)."""
    checks.array("weights", weights, ndim=1)
    w = np.clip(np.asarray(weights, float), 0.0, None)
    return np.full(len(w), 1.0 / len(w)) if w.sum() <= 0 else w / w.sum()


def plot_mixture_explorer(data: dict, w_0: float = 1.0, w_1: float = 1.0, w_2: float = 1.0, width: int = 8,
                          D: int = 2000):
    """THE MIXTURE EXPLORER: for slider weights (normalised onto the simplex), model width and data size D,
    show each domain's predicted loss split into capacity / noise / E with the nearest measured mixture's
    losses beside it, the capacity x_i each domain gets, and a ternary map of the predicted mean loss with
    the current mixture, the law's optimal mixture h* and the measured mixtures."""
    checks.config("data", data, required=("cfg", "params", "h", "rows"))
    for name, v in (("w_0", w_0), ("w_1", w_1), ("w_2", w_2)):
        checks.nonnegative_number(name, v)
    checks.positive_int("width", width)
    checks.positive_number("D", D)
    cfg = data["cfg"]
    h = normalise([w_0, w_1, w_2])
    N = skills.capacity_of(int(width), cfg["dim"], cfg["n_classes"], cfg["capacity_unit"])
    Du = float(D) / cfg["data_unit"]
    terms = method.evaluate_law(data["params"], h, N, Du)
    cache = data.setdefault("_hstar", {})  # h* depends on (width, D) only, not on the weight sliders
    if (int(width), float(D)) not in cache:
        cache[(int(width), float(D))] = method.optimal_mixture(data["params"], N, Du, restarts=4, steps=100)
    hstar = cache[(int(width), float(D))]
    K = len(h)
    fig, axes = figure(ncols=3, width=4.0, height=3.4)
    ax = axes[0, 0]
    idx = np.arange(K)
    bottom = np.zeros(K)
    for name, col in (("capacity", PALETTE[0]), ("noise", PALETTE[2]), ("E", PALETTE[5])):
        v = terms[name][0]
        ax.bar(idx - 0.18, v, 0.36, bottom=bottom, color=col, label=f"law: {name}")
        bottom += v
    row = next((r for r in data["rows"] if r["W"] == int(width) and r["D"] == int(D)), None)
    if row is not None:
        j = int(np.argmin(np.abs(data["h"] - h).sum(1)))
        ax.bar(idx + 0.18, row["L"][j], 0.36, color=PALETTE[1], label="measured (nearest h)")
        ax.set_title(f"nearest measured h = {np.round(data['h'][j], 2)}", fontsize=8)
    else:
        ax.set_title("no measurement at this (width, D): law only", fontsize=8)
    ax.set_xticks(idx, [f"dom {i}\nalpha={a}" for i, a in enumerate(cfg["alphas"])])
    ax.set_ylabel("loss per domain")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    ax.bar(idx, terms["x"][0], color=PALETTE[0])
    ax.axhline(float(data["params"]["H"]), color="k", ls="--", lw=1, label="shared head H")
    ax.set_xticks(idx, [f"dom {i}" for i in idx])
    ax.set_ylabel("capacity x_i*(h)")
    ax.set_title(f"N={N:.2f}, sum x = N + (K-1)H", fontsize=8)
    ax.legend(fontsize=7)
    ax = axes[0, 2]
    g = np.linspace(0.01, 0.98, 28)
    pts = np.array([[a, b, 1 - a - b] for a in g for b in g if 1 - a - b > 0.005])
    mean = method.evaluate_law(data["params"], pts, N, Du)["loss"].mean(1)
    x, y = _ternary_xy(pts)
    sc = ax.scatter(x, y, c=mean, s=14, cmap="viridis")
    fig.colorbar(sc, ax=ax, shrink=0.7, label="predicted mean loss")
    xm, ym = _ternary_xy(data["h"])
    ax.scatter(xm, ym, marker="x", c="k", s=18, label="measured mixtures")
    xs, ys = _ternary_xy(hstar)
    ax.scatter(xs, ys, marker="*", c=PALETTE[3], s=160, edgecolor="k", label=f"h* = {np.round(hstar, 2)}")
    xc, yc = _ternary_xy(h)
    ax.scatter(xc, yc, marker="o", facecolor="none", edgecolor=PALETTE[1], s=120, lw=2,
               label=f"h = {np.round(h, 2)}")
    ax.plot([0, 1, 0.5, 0], [0, 0, np.sqrt(3) / 2, 0], color="k", lw=0.8)
    for (tx, ty), lab in zip([(0, 0), (1, 0), (0.5, np.sqrt(3) / 2)], ["dom 0", "dom 1", "dom 2"]):
        ax.annotate(lab, (tx, ty), fontsize=7, ha="center", va="top" if ty == 0 else "bottom")
    ax.set_aspect("equal")
    ax.axis("off")
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(-0.1, 1.15))
    fig.suptitle(f"width={width}, D={D}", fontsize=9)
    return fig


def plot_law_competition(params: dict, N: float = 20.0, D: float = 10.0, domain: int = 0):
    """The law alone: move h_domain from 0.05 to 0.9 (others' ratios fixed); allocation and losses."""
    K = len(method.as_params(params)["b"])
    checks.positive_number("N", N)
    checks.positive_number("D", D)
    if not isinstance(domain, (int, np.integer)) or isinstance(domain, bool) or not 0 <= domain < K:
        raise ValueError(f"domain must be an integer in [0, {K}); got {domain!r}")
    lv = np.linspace(0.05, 0.9, 40)
    rest = np.delete(np.ones(K), domain) / (K - 1)
    h = np.zeros((len(lv), K))
    h[:, domain] = lv
    h[:, np.arange(K) != domain] = (1 - lv)[:, None] * rest
    t = method.evaluate_law(params, h, N, D)
    fig, axes = figure(ncols=2, width=3.8, height=3.0)
    for i in range(K):
        axes[0, 0].plot(lv, t["x"][:, i], label=f"x_{i}")
        axes[0, 1].plot(lv, t["loss"][:, i], label=f"L_{i}")
    axes[0, 0].set_xlabel(f"h_{domain}")
    axes[0, 1].set_xlabel(f"h_{domain}")
    axes[0, 0].set_ylabel("capacity x_i*")
    axes[0, 1].set_ylabel("predicted loss")
    axes[0, 0].legend(fontsize=7)
    axes[0, 1].legend(fontsize=7)
    return fig


def plot_competition(results: dict):
    """Claim C1: measured loss of each domain vs h_0 at each width (infinite data)."""
    c1 = results["c1"]
    widths = list(c1["losses"])
    K = len(c1["losses"][widths[0]][0])
    fig, axes = figure(ncols=K, width=3.0, height=2.8)
    for j in range(K):
        ax = axes[0, j]
        for k, W in enumerate(widths):
            ax.plot(c1["levels"], np.asarray(c1["losses"][W])[:, j], "o-", color=PALETTE[k], label=f"W={W}")
        ax.set_xlabel("h_0")
        ax.set_title(f"domain {j}", fontsize=9)
        ax.set_yscale("log")
    axes[0, 0].set_ylabel("measured loss")
    axes[0, 0].legend(fontsize=7)
    return fig


def plot_fit_quality(results: dict):
    """Claim C3: held-out MRE per law (mean over scales) and parameter counts."""
    names = list(results["test_mre"])
    fig, axes = figure(ncols=2, width=3.8, height=3.0)
    v = [100 * results["test_mre"][n] for n in names]
    axes[0, 0].bar(names, v, color=[PALETTE[i % len(PALETTE)] for i in range(len(names))])
    axes[0, 0].set_ylabel("held-out MRE (%)")
    axes[0, 0].tick_params(axis="x", rotation=30)
    axes[0, 1].bar(names, [results["n_params"][n] for n in names],
                   color=[PALETTE[i % len(PALETTE)] for i in range(len(names))])
    axes[0, 1].set_ylabel(f"parameters at K={results['K']}")
    axes[0, 1].tick_params(axis="x", rotation=30)
    return fig


def plot_predicted_vs_measured(results: dict):
    """Our law (joint fit) on every measured (mixture, scale): predicted vs measured, held-out marked."""
    sd = results["sweep_data"]
    H = np.asarray(sd["h"])
    p = results["example_fit"]
    cfg_units = results.get("units", {"dim": 32, "n_classes": 8, "capacity_unit": 100.0, "data_unit": 1000.0})
    fig, axes = figure(width=3.6, height=3.4)
    ax = axes
    train = np.asarray(sd["train"])
    for k, r in enumerate(sd["rows"]):
        N = skills.capacity_of(r["W"], cfg_units["dim"], cfg_units["n_classes"], cfg_units["capacity_unit"])
        D = (1e6 if r["D"] is None else r["D"]) / cfg_units["data_unit"]
        pred = method.evaluate_law(p, H, N, D)["loss"]
        L = np.asarray(r["L"])
        ax.scatter(L[train].ravel(), pred[train].ravel(), s=8, color=PALETTE[k % 8], alpha=0.5)
        ax.scatter(L[~train].ravel(), pred[~train].ravel(), s=16, color=PALETTE[k % 8], marker="x",
                   label=f"W={r['W']}, D={r['D']}")
    lim = [min(ax.get_xlim()[0], ax.get_ylim()[0]), max(ax.get_xlim()[1], ax.get_ylim()[1])]
    ax.plot(lim, lim, "k--", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured loss")
    ax.set_ylabel("law (ours)")
    ax.legend(fontsize=6)
    return fig


def explorer_hints(data: dict, width: int = 8, D_low: int = 2000, D_high: int = 64000,
                   start=(0.6, 0.3, 0.1), push: float = 0.4, widths=(8, 16, 32, 64)) -> list[str]:
    """Two slider moves worked out on the fitted law, so that each says what the explorer will then show.

    *Capacity competition*: from the weights ``start``, the domain whose weight pushed up by ``push`` takes the
    most capacity ``x_i*`` (the middle panel) from the other domains. *Noise reduction*: where the law's optimal
    mixture h* (the star) moves when the data size drops from ``D_high`` to ``D_low``, and whether the domain that
    gains most is the one with the flattest Zipf tail (the smallest alpha), as the paper's noise-reduction
    reading expects. A fit in which a move changes nothing says so instead of promising a change.
    """
    checks.config("data", data, required=("cfg", "params"))
    checks.positive_int("width", width)
    checks.positive_number("D_low", D_low)
    if checks.positive_number("D_high", D_high) <= D_low:
        raise ValueError(f"D_high must exceed D_low={D_low}; got {D_high}")
    checks.in_range("push", push, 0.0, 1.0, low_open=True)
    widths = [checks.positive_int(f"widths[{i}]", w) for i, w in enumerate(widths)]
    if not widths:
        raise ValueError("widths must name at least one model width")
    cfg, params = data["cfg"], data["params"]
    K = len(cfg["alphas"])
    w0 = np.asarray(start, float)
    if w0.shape != (K,) or not np.all(np.isfinite(w0)) or np.any(w0 < 0) or w0.sum() <= 0:
        raise ValueError(f"start must give {K} non-negative weights, not all zero; got {start!r}")
    N = skills.capacity_of(int(width), cfg["dim"], cfg["n_classes"], cfg["capacity_unit"])
    Du = float(D_low) / cfg["data_unit"]
    moves = []
    for W in widths:
        NW = skills.capacity_of(int(W), cfg["dim"], cfg["n_classes"], cfg["capacity_unit"])
        x0 = method.evaluate_law(params, normalise(w0), NW, Du)["x"][0]
        for k in range(K):
            w = w0.copy()
            w[k] += push
            x1 = method.evaluate_law(params, normalise(w), NW, Du)["x"][0]
            moves.append((float(np.delete(x0 - x1, k).sum()) / NW, int(W), k, float(x1[k] - x0[k])))
    share, W, k, gain = max(moves)
    if share > 0.01:
        first = (f"Push w_{k} from {w0[k]:g} to {w0[k] + push:g} at width {W}, D {D_low}: the law gives domain {k} "
                 f"{gain:+.2f} capacity, taken from the other domains (middle panel; capacity competition).")
    else:
        first = (f"In this fit no weight moves more than 1% of the capacity between domains at any width of the "
                 f"slider (fitted c = {np.round(np.asarray(params['c']), 3).tolist()}): capacity competition is "
                 "flat in this fit.")
    cache = data.setdefault("_hstar", {})  # the explorer's own h* cache: the same solve, done once
    for D in (D_low, D_high):
        if (int(width), float(D)) not in cache:
            cache[(int(width), float(D))] = method.optimal_mixture(params, N, float(D) / cfg["data_unit"],
                                                                  restarts=4, steps=100)
    lo, hi = cache[(int(width), float(D_low))], cache[(int(width), float(D_high))]
    j, flat = int(np.argmax(lo - hi)), int(np.argmin(cfg["alphas"]))
    second = (f"Lower D from {D_high} to {D_low} at width {width}: h* (the star) moves from {np.round(hi, 2).tolist()} "
              f"to {np.round(lo, 2).tolist()}; domain {j} (alpha={cfg['alphas'][j]}) gains the most")
    if np.abs(lo - hi).max() < 0.02:
        second = (f"Lower D from {D_high} to {D_low} at width {width}: h* barely moves ({np.round(hi, 2).tolist()} to "
                  f"{np.round(lo, 2).tolist()}): this fit shows no noise-reduction shift.")
    elif j == flat:
        second += ", the flattest Zipf tail, as the noise-reduction effect predicts."
    else:
        second += (f", not domain {flat} whose Zipf tail is flattest (alpha={cfg['alphas'][flat]}): this fit does not "
                   "show the noise-reduction effect.")
    return [first, second]
