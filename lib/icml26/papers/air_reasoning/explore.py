"""Plotting functions for the AIR notebooks (pure: results in, matplotlib Figure out)."""

from __future__ import annotations

import matplotlib
import matplotlib.patches
import numpy as np
import torch

from icml26 import checks
from icml26.viz import figure

from . import tasks
from .baselines import SELECTORS
from .method import influence, step_weights

TYPE_COLORS = {"lookup": "#d62728", "compute": "#2ca02c", "filler": "#7f7f7f", "answer": "#1f77b4"}
SELECTOR_COLORS = {"air": "#d62728", "random": "#7f7f7f", "length": "#1f77b4", "entropy": "#9467bd",
                   "loss": "#ff7f0e", "low_loss": "#8c564b", "air_random": "#e377c2", "none": "#2ca02c"}
"""One colour per selector; ``air_random`` is the control, ``none`` the untuned student."""


def _results(results) -> dict:
    checks.config("results", results, required=("pools", "students", "r_h", "mask_curve", "head_order", "top_heads",
                                                 "n_vars", "config"))
    return results


def _pool(results: dict, pool: str) -> dict:
    checks.one_of("pool", pool, sorted(_results(results)["pools"]))
    return results["pools"][pool]


def plot_masking(results: dict, k: int = 2, order: str = "top", mode: str = "uniform"):
    """Left: R_h heatmap with the ``k`` masked heads outlined; right: probe accuracy vs number of masked heads."""
    r_h = np.array(_results(results)["r_h"])
    checks.one_of("order", order, ("top", "bottom", "random"))
    checks.one_of("mode", mode, ("uniform", "zero", "mean"))
    key = f"{mode}/{order}"
    curve = results["mask_curve"][key]
    checks.int_between("k", k, 0, len(curve) - 1)
    fig, axes = figure(2, width=3.8, height=3.0)
    a0, a1 = axes[0]
    im = a0.imshow(r_h, cmap="viridis", vmin=0, vmax=1)
    fig.colorbar(im, ax=a0, shrink=0.8, label="retrieval score R_h")
    n_h = r_h.shape[1]
    flat = {"top": np.argsort(-r_h.flatten(), kind="stable")[:k],
            "bottom": np.argsort(r_h.flatten(), kind="stable")[:k],
            "random": []}[order]
    for f in flat:
        a0.add_patch(matplotlib.patches.Rectangle((f % n_h - 0.5, f // n_h - 0.5), 1, 1, fill=False, ec="red", lw=2.5))
    a0.set_xlabel("head")
    a0.set_ylabel("layer")
    a0.set_title(f"masked: {k} {order} heads")
    for name, c in results["mask_curve"].items():
        if name.startswith(mode + "/"):
            a1.plot(range(len(c)), c, marker="o", ms=3, label=name.split("/")[1], lw=2.5 if name == key else 1)
    a1.axvline(k, color="k", ls=":")
    a1.set_xlabel("heads masked")
    a1.set_ylabel("copy-probe accuracy")
    a1.set_ylim(-0.02, 1.02)
    a1.set_title(f"{mode} ablation; accuracy at k={k}: {curve[k]:.2f}")
    a1.legend()
    return fig


def _top_order(results: dict) -> list:
    return [tuple(h) for h in results["head_order"]]


def plot_trace(results: dict, pool: str = "natural", example: int = 0, n_masked: int | None = None,
               form: str = "relative"):
    """Trace viewer: one pool trace, each step coloured by its AIS when the ``n_masked`` heads of highest ``R_h``
    attend uniformly (default: the run's own number of top heads), with base and masked step losses."""
    ex = _pool(results, pool)["examples"]
    checks.int_between("example", example, 0, len(ex) - 1)
    checks.one_of("form", form, ("relative", "absolute"))
    e = ex[example]
    by_k = e["ref_by_k"]
    n_masked = len(results["top_heads"]) if n_masked is None else n_masked
    checks.int_between("n_masked", n_masked, 0, len(by_k) - 1)
    vocab = tasks.Vocab(results["n_vars"])
    base_l, ref_l = by_k[0], by_k[n_masked]
    ais = influence(torch.tensor(ref_l, dtype=torch.float64), torch.tensor(base_l, dtype=torch.float64), form).numpy()
    toks, step = e["tokens"], e["step"]
    prompt = vocab.decode([t for t, s in zip(toks, step) if s < 0])
    lines = [vocab.decode([t for t, s in zip(toks, step) if s == i]).strip() for i in range(len(ais))]
    fig, axes = figure(2, width=4.2, height=0.3 * len(lines) + 1.8)
    a0, a1 = axes[0]
    a0.axis("off")
    a0.text(0, 1, "prompt: " + prompt.replace("\n", " "), va="top", fontsize=7, family="monospace", wrap=True,
            transform=a0.transAxes)
    scale = {"relative": 2.0, "absolute": 1.0}[form]  # a fixed colour scale, so that moving the slider compares
    cmap = matplotlib.colormaps["RdBu_r"]
    for i, (line, a) in enumerate(zip(lines, ais)):
        y = 0.88 - 0.84 * i / max(len(lines), 1)
        a0.text(0, y, f"{line:<12s} AIS={a:+.2f}", fontsize=8, family="monospace", transform=a0.transAxes,
                bbox=dict(fc=cmap(0.5 + 0.5 * float(np.clip(a / scale, -1, 1))), ec="none"))
    heads = _top_order(results)[:n_masked]
    flaws = [w for w, on in (("slips", e["slips"]), ("skips compute", e["skipped"]), ("wrong answer", not e["correct"]))
             if on]
    a0.set_title(f"{pool}/{e['kind']} trace ({', '.join(flaws) or 'flawless'}); {n_masked} top heads masked "
                 f"{heads if n_masked <= 3 else ''}", fontsize=8)
    y = np.arange(len(lines))
    a1.barh(y - 0.2, base_l, 0.4, label="base")
    a1.barh(y + 0.2, ref_l, 0.4, label=f"{n_masked} heads uniform")
    a1.set_yticks(y, [tasks.STEP_TYPES[t] for t in e["stype"]])
    a1.invert_yaxis()
    a1.set_xlabel("step loss (nats)")
    a1.set_title(f"{form} AIS = {'(ref-base)/base' if form == 'relative' else 'ref-base'}")
    a1.legend()
    return fig


def plot_step_ais(results: dict):
    """Mean step AIS by step type, on both pools (signed: a negative mean means masking *lowers* the loss)."""
    _results(results)
    fig, axes = figure(len(results["pools"]), width=3.6, height=2.8)
    for ax, (name, p) in zip(np.ravel(axes), results["pools"].items()):
        types = list(p["step_stats"])
        ax.bar(types, [p["step_stats"][t]["ais"] for t in types], color=[TYPE_COLORS[t] for t in types])
        ax.axhline(0, color="k", lw=0.8)
        ax.set_ylabel("mean step AIS")
        ax.set_title(f"{name} pool: AUROC lookup vs filler {p['auroc_lookup']:.2f}")
    return fig


def plot_step_weights(results: dict, pool: str = "natural", lam: float = 1.0, w_min: float = 0.1,
                      w_max: float = 3.0):
    """Histogram of the step weights of the z-clip map by step type, on a sample of the pool's traces."""
    ss = _pool(results, pool)["step_sample"]
    checks.finite_number("lam", lam)
    checks.nonnegative_number("w_min", w_min)
    checks.nonnegative_number("w_max", w_max)
    rows = torch.tensor(ss["row"])
    ais = torch.tensor(ss["ais"], dtype=torch.float64)
    n = int(rows.max()) + 1 if len(rows) else 1
    pos = torch.zeros_like(rows)  # rebuild a (rows, steps) layout: position within each row
    for r in torch.unique(rows):
        m = rows == r
        pos[m] = torch.arange(int(m.sum()))
    a = torch.zeros(n, int(pos.max()) + 1, dtype=torch.float64)
    size = torch.zeros_like(a)
    a[rows, pos] = ais
    size[rows, pos] = 1
    w = step_weights(a, size, lam=lam, w_min=w_min, w_max=max(w_max, w_min))[rows, pos].numpy()
    st = np.array(ss["stype"])
    fig, ax = figure(1, width=5, height=3)
    bins = np.linspace(0, max(w_max, 1.0) + 0.1, 30)
    for t in range(1, len(tasks.STEP_TYPES)):
        name = tasks.STEP_TYPES[t]
        if (st == t).any():
            ax.hist(w[st == t], bins=bins, alpha=0.6, label=f"{name} (mean {w[st == t].mean():.2f})",
                    color=TYPE_COLORS[name])
    ax.set_xlabel("step weight w_s")
    ax.set_ylabel("steps")
    ax.set_title(f"{pool} pool: w = clip(1 + {lam:.1f} z, {w_min:.1f}, {w_max:.1f})")
    ax.legend()
    return fig


PICK_TRAITS = {"contrast": ("clean", "padded", "noisy"), "natural": ("flawless", "skipped", "slips")}


def plot_selection(results: dict):
    """Per pool: what each selector's top-20% holds (left) and the accuracy of its student (right): on held-out longer
    chains (solid) and, where measured, on in-range chains (pale)."""
    _results(results)
    pools = list(results["pools"])
    fig, axes = figure(2, nrows=len(pools), width=4, height=2.8)
    for row, name in zip(axes, pools):
        picks = results["pools"][name]["picks"]
        names = [s for s in (*SELECTORS, "pool") if s in picks]
        x = np.arange(len(names))
        traits = PICK_TRAITS[name]
        for j, tr in enumerate(traits):
            row[0].bar(x + (j - 1) * 0.27, [picks[s][tr] for s in names], 0.27, label=tr)
        row[0].set_xticks(x, names)
        row[0].set_ylabel("share of the top-20%")
        row[0].set_title(f"{name} pool: what each score ranks first")
        row[0].legend(fontsize=7)
        studs = results["students"].get(name, {})
        if studs:
            sel = list(studs)
            x = np.arange(len(sel))
            cfg = results["config"]
            splits = [("held-out hops {}-{}".format(*cfg["eval_hops"]), [studs[s] for s in sel])]
            if all("in_range" in studs[s] for s in sel):
                lo = max(cfg["hops"][0], cfg["hops"][1] - 1)
                splits.insert(0, (f"in-range hops {lo}-{cfg['hops'][1]}", [studs[s]["in_range"] for s in sel]))
            w = 0.8 / len(splits)
            for j, (label, outs) in enumerate(splits):
                row[1].bar(x + (j - (len(splits) - 1) / 2) * w, [o["correct"] / o["n"] for o in outs], w,
                           color=[SELECTOR_COLORS[s] for s in sel], alpha=1.0 if j == len(splits) - 1 else 0.45,
                           label=label)
            row[1].set_xticks(x, sel)
            row[1].set_ylim(0, 1)
            row[1].set_title(f"{name} pool: students SFT'd on each top-K")
            row[1].set_ylabel("accuracy (greedy)")
            row[1].legend(fontsize=7)
        else:
            row[1].axis("off")
    return fig
