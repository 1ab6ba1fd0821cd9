"""Plotting functions for the AIR notebooks (pure: results in, matplotlib Figure out)."""

from __future__ import annotations

import matplotlib
import matplotlib.patches
import numpy as np
import torch

from icml26.viz import figure

from . import tasks
from .method import influence, step_weights

TYPE_COLORS = {"lookup": "#d62728", "filler": "#7f7f7f", "answer": "#1f77b4"}


def plot_masking(results: dict, k: int = 2, order: str = "top", mode: str = "uniform"):
    """Left: R_h heatmap with the ``k`` masked heads outlined; right: probe accuracy vs number of masked heads."""
    r_h = np.array(results["r_h"])
    key = f"{mode}/{order}"
    if key not in results["mask_curve"]:
        raise ValueError(f"order/mode must be among {sorted(results['mask_curve'])}; got {key!r}")
    curve = results["mask_curve"][key]
    if not 0 <= k < len(curve):
        raise ValueError(f"k must lie in [0, {len(curve) - 1}]; got {k}")
    fig, axes = figure(2, width=3.8, height=3.0)
    a0, a1 = axes[0]
    im = a0.imshow(r_h, cmap="viridis", vmin=0, vmax=1)
    fig.colorbar(im, ax=a0, shrink=0.8, label="retrieval score R_h")
    n_h = r_h.shape[1]
    if order == "top":
        flat = np.argsort(-r_h.flatten(), kind="stable")[:k]
    elif order == "bottom":
        flat = np.argsort(r_h.flatten(), kind="stable")[:k]
    else:
        flat = []
    for f in flat:
        a0.add_patch(matplotlib.patches.Rectangle((f % n_h - 0.5, f // n_h - 0.5), 1, 1, fill=False,
                                                                 ec="red", lw=2.5))
    a0.set_xlabel("head")
    a0.set_ylabel("layer")
    a0.set_title(f"masked: {k} {order} heads" if order != "random" else f"masked: {k} random heads")
    for name, c in results["mask_curve"].items():
        if name.startswith(mode + "/"):
            a1.plot(range(len(c)), c, marker="o", ms=3, label=name.split("/")[1], lw=2.5 if name == key else 1)
    a1.axvline(k, color="k", ls=":")
    a1.set_xlabel("heads masked")
    a1.set_ylabel("copy-probe accuracy")
    a1.set_ylim(-0.02, 1.02)
    a1.set_title(f"{mode} ablation; acc at k={k}: {curve[k]:.2f}")
    a1.legend()
    return fig


def plot_trace(results: dict, example: int = 0, n_masked: int | None = None, form: str = "relative"):
    """Trace viewer: one pool trace, each step coloured by its AIS when the ``n_masked`` heads of highest ``R_h``
    attend uniformly (default: the run's own number of top heads), with base and masked step losses."""
    ex = results["examples"]
    if not 0 <= example < len(ex):
        raise ValueError(f"example must lie in [0, {len(ex) - 1}]; got {example}")
    if form not in ("relative", "absolute"):
        raise ValueError(f"form must be 'relative' or 'absolute'; got {form!r}")
    e = ex[example]
    by_k = e["ref_by_k"]
    n_masked = len(results["top_heads"]) if n_masked is None else n_masked
    if isinstance(n_masked, bool) or not isinstance(n_masked, int) or not 0 <= n_masked < len(by_k):
        raise ValueError(f"n_masked must be an integer in [0, {len(by_k) - 1}]; got {n_masked!r}")
    vocab = tasks.Vocab(results["n_vars"])
    base_l, ref_l = e["ref_by_k"][0], by_k[n_masked]
    ais = influence(torch.tensor(ref_l, dtype=torch.float64), torch.tensor(base_l, dtype=torch.float64), form).numpy()
    toks, step = e["tokens"], e["step"]
    prompt = vocab.decode([t for t, s in zip(toks, step) if s < 0])
    lines = [vocab.decode([t for t, s in zip(toks, step) if s == i]).strip() for i in range(len(ais))]
    fig, axes = figure(2, width=4.2, height=0.35 * len(lines) + 1.8)
    a0, a1 = axes[0]
    a0.axis("off")
    a0.text(0, 1, "prompt: " + prompt.replace("\n", " "), va="top", fontsize=8, family="monospace", wrap=True,
            transform=a0.transAxes)
    scale = {"relative": 2.0, "absolute": 1.0}[form]  # fixed colour scale, so that moving the slider is comparable
    cmap = matplotlib.colormaps["RdBu_r"]
    for i, (line, a) in enumerate(zip(lines, ais)):
        y = 0.85 - 0.8 * i / max(len(lines), 1)
        a0.text(0, y, f"{line:<14s} AIS={a:+.2f}", fontsize=9, family="monospace", transform=a0.transAxes,
                bbox=dict(fc=cmap(0.5 + 0.5 * float(np.clip(a / scale, -1, 1))), ec="none"))
    heads = [tuple(h) for h in _top_order(results)[:n_masked]]
    a0.set_title(f"{e['kind']} trace; {n_masked} top heads masked {heads if n_masked <= 4 else ''}", fontsize=9)
    y = np.arange(len(lines))
    a1.barh(y - 0.2, base_l, 0.4, label="base")
    a1.barh(y + 0.2, ref_l, 0.4, label=f"{n_masked} heads uniform")
    a1.set_yticks(y, [tasks.STEP_TYPES[t] for t in e["stype"]])
    a1.invert_yaxis()
    a1.set_xlabel("step loss (nats)")
    a1.set_title(f"{form} AIS = {'(ref-base)/base' if form == 'relative' else 'ref-base'}")
    a1.legend()
    return fig


def _top_order(results: dict) -> list:
    """All heads ordered by decreasing ``R_h`` (stable), as the experiment masks them."""
    if "head_order" in results:
        return [tuple(h) for h in results["head_order"]]
    r_h = np.array(results["r_h"])
    n_h = r_h.shape[1]
    return [(int(f) // n_h, int(f) % n_h) for f in np.argsort(-r_h.flatten(), kind="stable")]


def plot_step_weights(results: dict, lam: float = 1.0, w_min: float = 0.1, w_max: float = 3.0):
    """Histogram of the step weights of the z-clip map (note §3.4) by step type, on clean traces."""
    ss = results["step_sample"]
    rows = torch.tensor(ss["row"])
    ais = torch.tensor(ss["ais"], dtype=torch.float64)
    n = int(rows.max()) + 1 if len(rows) else 1
    # rebuild a (rows, steps) layout: position within each row
    pos = torch.zeros_like(rows)
    for r in torch.unique(rows):
        m = rows == r
        pos[m] = torch.arange(int(m.sum()))
    s_max = int(pos.max()) + 1
    a = torch.zeros(n, s_max, dtype=torch.float64)
    size = torch.zeros(n, s_max)
    a[rows, pos] = ais
    size[rows, pos] = 1
    w = step_weights(a, size, lam=lam, w_min=w_min, w_max=min(max(w_max, w_min), 10.0))[rows, pos].numpy()
    st = np.array(ss["stype"])
    fig, ax = figure(1, width=5, height=3)
    bins = np.linspace(0, max(w_max, 1.0) + 0.1, 30)
    for t in (1, 2, 3):
        name = tasks.STEP_TYPES[t]
        ax.hist(w[st == t], bins=bins, alpha=0.6, label=f"{name} (mean {w[st == t].mean():.2f})",
                color=TYPE_COLORS[name])
    ax.set_xlabel("step weight w_s")
    ax.set_ylabel("steps")
    ax.set_title(f"w = clip(1 + {lam:.1f} z, {w_min:.1f}, {w_max:.1f})")
    ax.legend()
    return fig


def plot_selection(results: dict):
    """Composition of the top-20% of the pool picked by every selector, and student accuracy per selector."""
    picks = results["picks"]
    names = list(picks)
    fig, axes = figure(2, width=4, height=3)
    a0, a1 = axes[0]
    bottom = np.zeros(len(names))
    for kind, c in zip(tasks.KINDS, ("#2ca02c", "#ff7f0e", "#9467bd")):
        v = np.array([picks[n][kind] for n in names])
        a0.bar(names, v, bottom=bottom, label=kind, color=c)
        bottom += v
    a0.set_ylabel("share of the top-20%")
    a0.legend()
    acc = {k: v for k, v in results["student_acc"].items() if v is not None}
    a1.bar(list(acc), list(acc.values()), color="#1f77b4")
    a1.set_ylabel("held-out accuracy (greedy)")
    a1.set_title("student after SFT on top-K")
    return fig
