"""Plotting functions for the notebooks and their explorers. Pure: parameters in, Figure out."""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26 import checks
from icml26.viz import figure

from .baselines import LABELS
from .data import _check_pos, rotate_task, sample_tasks
from .method import EvalSet, gamma_pretrained, theory_params, w_star, zs_v_floor

_FAMILIES = ("zs_all", "zs_v")


def _theta0(d: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator()
    g.manual_seed(seed)
    return sample_tasks(1, d, g)[0]


def _check_sizes(d, sigma2, n, batch, n_name: str) -> None:
    checks.int_at_least("d", d, 1)
    _check_pos("sigma2", sigma2, allow_zero=True)
    checks.int_at_least(n_name, n, 0)
    checks.int_at_least("batch", batch, 1)


def plot_w_family(family: str = "zs_v", w: float = 0.77, d: int = 5, sigma2: float = 0.1, n_max: int = 20,
                  batch: int = 2000):
    """Error vs shots of a closed-form fine-tuned optimum at scale ``w``, on theta0 and -theta0.

    See docs/papers/icl_finetuning.md §3.5.

    ``family="zs_all"``: ``V_last = (0, w theta0, 1)``, ``Q[0,0] = 1/w`` (every w is zero-shot optimal);
    ``"zs_v"``: value-only optimum with effective ``w`` on ``y`` (w*(n_max) is the few-shot optimum).
    """
    if family not in _FAMILIES:
        raise ValueError(f"family must be one of {_FAMILIES}; got {family!r}")
    if not w > 0:
        raise ValueError(f"w must be > 0; got {w!r}")
    checks.positive_number("w", w)
    _check_sizes(d, sigma2, n_max, batch, "n_max")
    th = _theta0(d)
    ev = EvalSet({"theta0": th, "-theta0": -th}, n_max, batch, 1, sigma2=sigma2, seed=3)
    shots = list(range(n_max + 1))
    pre = theory_params("pretrained", d)
    model = theory_params(family, d, theta0=th, w=w)
    fig, axes = figure(ncols=2, width=4.2, height=3.2, sharey=True)
    axes = axes.ravel()
    for ax, task in zip(axes, ("theta0", "-theta0")):
        ax.plot(shots, ev.curve(pre, task, shots), color="#7a7a7a", ls="--", label="pretrained")
        ax.plot(shots, ev.curve(model, task, shots), lw=2, label=f"{LABELS[family]}, w={w:.2f}")
        if family == "zs_v":
            ws = w_star(n_max, d, sigma2)
            ax.plot(shots, ev.curve(theory_params("zs_v", d, theta0=th, w=ws), task, shots), color="#2a9d8f",
                    lw=1, label=f"w*({n_max})={ws:.3f}")
        ax.axhline(sigma2, color="k", lw=0.6, ls=":")
        ax.set_title(f"task {task}")
        ax.set_xlabel("demonstrations n")
        ax.set_yscale("log")
    axes[0].set_ylabel("test MSE")
    axes[0].legend(fontsize=7)
    return fig


def plot_angle(method: str = "zs_all", angle: float = 180.0, d: int = 5, sigma2: float = 0.1, n: int = 20,
               batch: int = 1500):
    """20-shot error against the angle between the evaluation task and theta0, closed-form models (docs §3.6).

    ``method``: ``"zs_all"``, ``"zs_v"`` or ``"zsfs_v"``; the marker shows the curve at ``angle`` (degrees).
    """
    _check_sizes(d, sigma2, n, batch, "n")
    kinds = {"zs_all": ("zs_all", 0.52), "zs_v": ("zs_v", None), "zsfs_v": ("zs_v", w_star(n, d, sigma2))}
    if method not in kinds:
        raise ValueError(f"method must be one of {list(kinds)}; got {method!r}")
    if not 0 <= angle <= 180:
        raise ValueError(f"angle must be in [0, 180] degrees; got {angle!r}")
    th = _theta0(d)
    kind, w = kinds[method]
    pre = theory_params("pretrained", d)
    model = theory_params(kind, d, theta0=th, w=w)
    grid = sorted(set(np.linspace(0, 180, 7).tolist() + [float(angle)]))
    g = torch.Generator()
    g.manual_seed(1)
    errs_m, errs_p = [], []
    for deg in grid:
        ev = EvalSet({"t": rotate_task(th, math.radians(deg), generator=g)}, n, batch, 1, sigma2=sigma2, seed=11)
        errs_m.append(ev.curve(model, "t", [n])[0])
        errs_p.append(ev.curve(pre, "t", [n])[0])
    fig, ax = figure(width=4.6, height=3.2)
    ax.plot(grid, errs_p, color="#7a7a7a", ls="--", label="pretrained")
    ax.plot(grid, errs_m, lw=2, marker="o", ms=3, label=LABELS[method])
    i = grid.index(float(angle))
    ax.plot([angle], [errs_m[i]], "s", color="#d1495b", ms=8, label=f"{angle:.0f} deg: {errs_m[i]:.3f}")
    ax.set_xlabel("angle between task and theta0 (degrees)")
    ax.set_ylabel(f"{n}-shot test MSE")
    ax.legend(fontsize=7)
    return fig


def plot_theory_scalars(d: int = 5, sigma2: float = 0.1, n_pt: int = 20):
    """How the pretrained scale, the value-only zero-shot floor and w*(n) move with d, sigma2 and N_pt (docs §3.5)."""
    checks.int_at_least("d", d, 1)
    _check_pos("sigma2", sigma2, allow_zero=True)
    checks.int_at_least("n_pt", n_pt, 1)
    ns = np.arange(1, 101)
    fig, axes = figure(ncols=2, width=4.0, height=3.0)
    axes = axes.ravel()
    axes[0].plot(ns, [w_star(int(k), d, sigma2) for k in ns], lw=2, label="w*(n)")
    axes[0].axhline(gamma_pretrained(d, n_pt), color="#7a7a7a", ls="--",
                    label=f"pretrained Gamma = {gamma_pretrained(d, n_pt):.3f}")
    axes[0].axhline(w_star(math.inf, d, sigma2), color="#2a9d8f", ls=":", label="w*(inf) = (d+3)/(d+4)")
    axes[0].set_xlabel("fine-tuning shots n")
    axes[0].set_ylabel("w")
    axes[0].legend(fontsize=7)
    axes[1].bar(["noise", "ZS(V) floor"], [sigma2, zs_v_floor(d, sigma2)], color=["#7a7a7a", "#1f5fa8"])
    axes[1].set_title(f"d={d}, sigma2={sigma2:.2f}")
    axes[1].set_ylabel("zero-shot MSE")
    return fig


def plot_curves(results: dict, source: str = "learned", init: str = "scratch", methods=None):
    """Error vs shots for each method on theta0, -theta0 and a random task, from :func:`.experiment.run`."""
    block = results["theory"] if source == "theory" else results[source][init] if source == "learned" \
        else results[source]
    methods = [m for m in (methods or block) if m in block and not m.endswith("_split")]
    shots = results["shots"]
    fig, axes = figure(ncols=3, width=3.6, height=3.0, sharey=True)
    axes = axes.ravel()
    for ax, task in zip(axes, ("target", "opposite", "random")):
        for m in methods:
            ax.plot(shots, block[m]["curves"][task], marker="o", ms=3, label=LABELS.get(m, m),
                    ls="--" if m == "pretrained" else "-")
        ax.set_title({"target": "theta0 (target)", "opposite": "-theta0", "random": "random task"}[task])
        ax.set_xlabel("demonstrations n")
        ax.set_yscale("log")
    axes[0].set_ylabel("test MSE")
    axes[0].legend(fontsize=6)
    return fig


def plot_angle_sweep(results: dict):
    """20-shot error against the task angle: closed-form models (left) and learned ones (right, when run)."""
    a = results["angle"]
    panels = [("closed form", a["err"])] + ([("learned", a["learned"])] if a.get("learned") else [])
    fig, axes = figure(ncols=len(panels), width=4.4, height=3.2)
    axes = axes if len(panels) > 1 else np.array([[axes]])
    for ax, (title, errs) in zip(axes[0], panels):
        for m, ys in errs.items():
            ax.plot(a["angles"], ys, marker="o", ms=3, label=LABELS.get(m, m), ls="--" if m == "pretrained" else "-")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("angle to theta0 (degrees)")
        ax.set_yscale("log")
    axes[0][0].set_ylabel("20-shot test MSE")
    axes[0][0].legend(fontsize=7)
    return fig


def plot_losses(results: dict, init: str = "scratch"):
    """Training loss traces (ZS loss, plus the annealed FS term for ZS+FS) of every learned method."""
    fig, ax = figure(width=4.6, height=3.2)
    for m, v in results["learned"][init].items():
        if "loss" in v:
            ax.plot(v["loss"], label=LABELS.get(m, m))
    ax.set_yscale("log")
    ax.set_xlabel("step (subsampled)")
    ax.set_ylabel("training loss")
    ax.legend(fontsize=7)
    return fig


def method_table(results: dict, init: str = "scratch"):
    """An HTML table of every learned model of a run: zero-shot and 20-shot errors on theta0 and -theta0 (raw and
    scale-calibrated, :meth:`.method.EvalSet.curve`), the effective w and the loss plateau of the last tenth."""
    from IPython.display import HTML

    checks.config("results", results, required=("learned", "shots", "config"))
    if init not in results["learned"]:
        raise ValueError(f"init must be one of {list(results['learned'])}; got {init!r}")
    i, rows = results["shots"].index(results["config"]["n_ft"]), []
    for m, v in results["learned"][init].items():
        c, k = v["curves"], v["calibrated"]
        plateau = "" if v.get("plateau") is None else f"{100 * v['plateau']:.2f}%"
        cells = [LABELS.get(m, m), f"{c['target'][0]:.3f}", f"{c['target'][i]:.3f}", f"{c['opposite'][0]:.3f}",
                 f"{c['opposite'][i]:.3g}", f"{k['opposite'][i]:.3f}", f"{v['w_eff']:.3f}", plateau]
        rows.append("<tr>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
    head = ["model", "θ0, 0-shot", "θ0, 20-shot", "−θ0, 0-shot", "−θ0, 20-shot", "−θ0, 20-shot calibrated",
            "effective w", "loss change, last tenth"]
    return HTML("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>")
