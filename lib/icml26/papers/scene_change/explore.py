"""Plotting functions for the scene_change notebooks and widgets (matplotlib; each redraw well under 1 s once the
data or model outputs are cached)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from icml26 import checks, viz
from icml26.papers.scene_change import baselines, rooms
from icml26.viz import figure


@lru_cache(maxsize=16)
def example_pair(room_seed: int, n_changes: int, size: int = 48, frames: int = 8) -> dict:
    """One rendered reference/query pair (cached), with ``n_changes`` changes between the two recordings."""
    d = rooms.make_dataset(1, 2, frames, size, supersample=1, n_objects=(10, 12), n_changes=(n_changes, n_changes),
                           generator=torch.Generator().manual_seed(int(room_seed)))
    d["raw_top"] = baselines.raw_topk(d["qry"], d["ref"], 3)
    return d


def _img(x):
    return x.permute(1, 2, 0).clamp(0, 1).cpu().numpy()


def plot_pair(room_seed: int = 0, n_changes: int = 3, t: int = 0):
    """Query frame t, its same-index reference, its best raw-pixel match, the GT change mask, and the geometric
    view overlap omega(t, s) of every reference frame (same-index and top-1 marked)."""
    checks.seed("room_seed", room_seed)
    checks.positive_int("n_changes", n_changes)
    d = example_pair(int(room_seed), int(n_changes))
    T = d["qry"].shape[1]
    t = _index("t", t, T)
    top1 = int(d["raw_top"][0, t, 0])
    fig, axes = figure(5, 1, width=2.4, height=2.4)
    panels = [(d["qry"][0, t], f"query frame t={t}"), (d["ref"][0, t], f"same-index ref s={t}"),
              (d["ref"][0, top1], f"raw top-1 ref s={top1}")]
    for ax, (im, title) in zip(axes[0], panels):
        ax.imshow(_img(im))
        ax.set_title(title, fontsize=9)
        ax.axis("off")
    axes[0, 3].imshow(d["mask"][0, t].cpu().numpy(), cmap="magma", vmin=0, vmax=1)
    axes[0, 3].set_title(f"GT change mask ({int(d['n_changed'][0])} changes)", fontsize=9)
    axes[0, 3].axis("off")
    ov = d["overlap"][0, t].cpu().numpy()
    colors = ["tab:gray"] * T
    colors[t] = "tab:red"
    colors[top1] = "tab:green"
    axes[0, 4].bar(np.arange(T), ov, color=colors)
    axes[0, 4].set_xlabel("reference frame s")
    axes[0, 4].set_ylabel("overlap omega(t, s)")
    axes[0, 4].set_ylim(0, 1)
    axes[0, 4].set_title("red: same index, green: top-1", fontsize=9)
    return fig


def _index(name, value, n) -> int:
    checks.nonnegative_int(name, value)
    if value >= n:
        raise ValueError(f"{name} must be < {n}; got {value}")
    return int(value)


OVERLAP_LABELS = {"same_index": "same index", "reversed_index": "reversed index", "top1": "top-1 raw match",
                  "topk_union": "top-3 union", "oracle_top1": "pose oracle", "top1_histogram": "top-1 histogram"}
METRIC_LABELS = {"f1": "F1 per frame (paper)", "f1_nonempty": "F1, frames with change", "f1_pooled": "F1 pooled",
                 "iou": "IoU per frame", "pixel_auroc": "pixel AUROC"}


def plot_overlap(results: dict):
    """Mean view overlap of the same-index, reversed-index, raw top-1, top-K union and oracle references (C1, C2)."""
    checks.config("results", results, required=("overlap",))
    o = results["overlap"]
    names = [n for n in ("same_index", "reversed_index", "top1", "topk_union", "oracle_top1") if n in o]
    fig, ax = figure(1, 1, width=6, height=3)
    ax.bar([OVERLAP_LABELS[n] for n in names], [o[n] for n in names])
    ax.set_ylabel("mean view overlap")
    ax.set_ylim(0, 1)
    ax.tick_params(axis="x", rotation=20)
    return fig


def plot_scores(results: dict, metrics: tuple = ("f1", "f1_nonempty", "f1_pooled")):
    """Test scores of every method, grouped bars per metric: the paper's per-frame F1 (which an always-empty
    predictor wins on every frame without change), the F1 on frames with change and the pooled F1."""
    checks.config("results", results, required=("methods",))
    names = list(results["methods"])
    if isinstance(metrics, str) or not metrics:
        raise ValueError(f"metrics must be a non-empty sequence of metric names; got {metrics!r}")
    for m in metrics:
        checks.one_of("metrics", m, next(iter(results["methods"].values())).keys())
    fig, ax = figure(1, 1, width=7.5, height=3)
    width = 0.8 / len(metrics)
    x = np.arange(len(names))
    for i, m in enumerate(metrics):
        ax.bar(x + (i - (len(metrics) - 1) / 2) * width, [results["methods"][n].get(m, np.nan) for n in names],
               width, label=METRIC_LABELS.get(m, m))
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel("test score")
    ax.legend(fontsize=8)
    return fig


def scores_table(results: dict, metrics: tuple = ("f1", "f1_nonempty", "f1_pooled", "iou", "pixel_auroc")):
    """The test scores of every method as an HTML table (missing entries shown as a dash)."""
    from IPython.display import HTML

    checks.config("results", results, required=("methods",))
    rows = [[n] + [s.get(m, "-") for m in metrics] for n, s in results["methods"].items()]
    return HTML(viz.html_table(["method"] + [METRIC_LABELS.get(m, m) for m in metrics], rows))


def overlap_table(stats: dict):
    """The mean view overlap of each way of choosing a reference frame, as an HTML table."""
    from IPython.display import HTML

    if not isinstance(stats, dict) or "same_index" not in stats:
        raise ValueError("stats must be the dict of experiment.overlap_stats")
    rows = [[OVERLAP_LABELS[k], v, v / stats["same_index"]] for k, v in stats.items() if k in OVERLAP_LABELS]
    return HTML(viz.html_table(["reference frame", "mean view overlap", "x same index"], rows))


def scrubber_cache(data: dict, preds: dict, n_pairs: int = 3) -> dict:
    """Everything the query-frame scrubber draws, as numpy, for the first ``n_pairs`` test pairs (computed once)."""
    checks.config("data", data, required=("qry", "ref", "mask", "overlap"))
    checks.positive_int("n_pairs", n_pairs)
    if not preds:
        raise ValueError("preds must map at least one method to its predictions")
    n = min(n_pairs, data["qry"].shape[0])
    cache = {"qry": data["qry"][:n].cpu(), "ref": data["ref"][:n].cpu(), "mask": data["mask"][:n].cpu(),
             "overlap": data["overlap"][:n].cpu(), "methods": {}}
    for name, p in preds.items():
        cache["methods"][name] = {"pred": (p["logits"][:n] > 0).float().cpu(), "candidates": p["candidates"][:n].cpu(),
                                  "C_sp": p["C_sp"][:n].cpu(), "weights": p["weights"][:n].cpu()}
    return cache


def _rgb(x: torch.Tensor, cmap: str, vmax: float) -> np.ndarray:
    """A 2-D map as an RGB array through a colormap (so one ``imshow`` can show many panels)."""
    import matplotlib

    return matplotlib.colormaps[cmap](np.clip(x.cpu().numpy() / vmax, 0, 1))[..., :3]


def _upsample(x: np.ndarray, size: int) -> np.ndarray:
    f = size // x.shape[0]
    return np.kron(x, np.ones((f, f, 1))) if f > 1 else x


def plot_scrubber(cache: dict, pair: int = 0, t: int = 0, method: str = "vscd", show_weights: bool = False):
    """Query frame t of a test pair: top row query, predicted mask, true mask and the overlap omega(t, s) of every
    reference frame (chosen candidates in green); below, each chosen reference candidate over its patch-confidence
    map C_sp (or the fused weight C_f * C_sp). Drawn as one mosaic so a redraw stays fast."""
    if method not in cache["methods"]:
        raise ValueError(f"method must be one of {sorted(cache['methods'])}, got {method!r}")
    m = cache["methods"][method]
    pair = _index("pair", pair, cache["qry"].shape[0])
    t = _index("t", t, cache["qry"].shape[1])
    cand = m["candidates"][pair, t].tolist()
    size = cache["qry"].shape[-1]
    conf = m["weights"] if show_weights else m["C_sp"]
    vmax = max(float(conf[pair, t].max()), 1e-6) if show_weights else 2.0
    top = [_img(cache["qry"][pair, t]), _rgb(m["pred"][pair, t], "magma", 1.0),
           _rgb(cache["mask"][pair, t], "magma", 1.0)]
    cols = max(len(cand), 3)
    blank = np.ones((size, size, 3))
    row1 = top + [blank] * (cols - 3)
    row2 = [_img(cache["ref"][pair, s]) for s in cand] + [blank] * (cols - len(cand))
    row3 = [_upsample(_rgb(conf[pair, t, j], "viridis", vmax), size) for j in range(len(cand))]
    row3 += [blank] * (cols - len(cand))
    mosaic = np.concatenate([np.concatenate(r, 1) for r in (row1, row2, row3)], 0)
    fig, axes = figure(2, 1, width=3.4, height=3.4)
    ax = axes[0, 0]
    ax.imshow(mosaic, interpolation="nearest")
    ax.axis("off")
    labels = [(0, 0, f"query t={t}"), (0, 1, f"pred ({method})"), (0, 2, "true mask")]
    labels += [(1, j, f"s={s} overlap={float(cache['overlap'][pair, t, s]):.2f}") for j, s in enumerate(cand)]
    labels += [(2, j, "C_f*C_sp" if show_weights else "C_sp") for j in range(len(cand))]
    for r, c, text in labels:
        ax.text(c * size + 1, r * size + 4, text, fontsize=6, color="white", va="top",
                bbox={"facecolor": "black", "alpha": 0.5, "pad": 1, "lw": 0})
    ov = cache["overlap"][pair, t].numpy()
    axes[0, 1].bar(np.arange(len(ov)), ov, color=["tab:green" if s in cand else "tab:gray" for s in range(len(ov))])
    axes[0, 1].axvline(t, color="tab:red", ls="--", lw=1)
    axes[0, 1].set_xlabel("reference frame s (red: same index)")
    axes[0, 1].set_ylabel("true overlap omega(t, s)")
    axes[0, 1].set_ylim(0, 1)
    return fig
