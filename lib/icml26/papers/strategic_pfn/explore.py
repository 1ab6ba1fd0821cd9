"""Plotting functions for the strategic_pfn notebooks and widgets (matplotlib, our style)."""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.nn.pfn import TinyPFN
from icml26.viz import PALETTE, figure

from . import data, method

METHOD_LABELS = {
    "spn": "SPN (replace)", "spn_augment": "SPN (augment)", "spn_in_sample": "SPN (no cross-fit)",
    "base": "base PFN", "oracle": "oracle PFN", "base_clean": "base PFN, clean test",
    "lr_p1": "LR (P1)", "lr_p2": "LR (P2)", "hgb_p1": "HistGBDT (P1)", "hgb_p2": "HistGBDT (P2)",
    "mlp_p1": "MLP (P1)", "mlp_p2": "MLP (P2)", "strategic_lr_p2": "strategic LR (P2)",
    "spn_half_r": "SPN, r' = r/2", "spn_double_r": "SPN, r' = 2r",
}


def _linear_stand_in(x_ctx, y_ctx):
    """A ridge-penalised logistic-regression rule (batched, L-BFGS) used when no PFN is given."""
    w = torch.zeros(x_ctx.shape[0], x_ctx.shape[-1] + 1, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=50)
    A = torch.cat([x_ctx, torch.ones_like(x_ctx[..., :1])], -1)

    def closure():
        opt.zero_grad()
        z = torch.einsum("rnd,rd->rn", A, w)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y_ctx.float()) + 1e-3 * (w**2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    wd = w.detach()
    return lambda x: torch.einsum("rnd,rd->rn", x, wd[:, :-1]) + wd[:, -1:]


def plot_best_response(model=None, budget: float = 1.0, pi: float = 1.0, anisotropy: float = 4.0,
                       mutable: str = "both", show_spn: bool = True, seed: int = 0):
    """2-D strategic toy: agents' moves ``x -> x'`` facing the base rule, base vs SPN boundaries, and
    accuracy / false-positive rates. ``model`` is a trained :class:`TinyPFN` (a logistic-regression
    stand-in when ``None``). ``mutable``: ``"both"`` or ``"x1 only"`` (``x2`` then costs ``inf``)."""
    if mutable not in ("both", "x1 only"):
        raise ValueError(f"mutable must be 'both' or 'x1 only'; got {mutable!r}")
    if not 0 <= pi <= 1 or budget < 0:
        raise ValueError(f"need budget >= 0 and pi in [0, 1]; got {budget}, {pi}")
    checks.nonnegative_number("budget", budget)
    checks.probability("pi", pi)
    checks.seed("seed", seed)
    if model is not None and (not isinstance(model, TinyPFN) or model.task != "cls"):
        raise TypeError(f"model must be a classification TinyPFN or None; got {type(model).__name__}")
    task = data.strategic_gauss(1, 160, 400, d=2, n_mutable=2, anisotropy=anisotropy, separation=1.1, seed=seed)
    cost = task.cost.clone()
    if mutable == "x1 only":
        cost[1] = float("inf")
    g = torch.Generator().manual_seed(seed + 1)
    agents = method.Agents(float(budget), float(pi))
    with torch.no_grad():
        if model is None:
            h0 = _linear_stand_in(task.x_ctx, task.y_ctx)
            factory = None
        else:
            h0 = method.pfn_rule(model, task.x_ctx, task.y_ctx)
            factory = method.context_rule_factory(model, task.x_ctx, task.y_ctx, task.x_ctx.shape[1])
        xm = method.best_response(h0, task.x_test, cost, agents.draw(task.x_test.shape[:2], g, "cpu"))
        if model is None:
            xs, ys = method.strategic_context(h0, task.x_ctx, task.y_ctx, cost, agents, g)
            h1 = _linear_stand_in(xs, ys)
        else:
            xs, ys = method.strategic_context(factory, task.x_ctx, task.y_ctx, cost, agents, g, cross_fit=4)
            h1 = method.pfn_rule(model, xs, ys)
        lim = 3.2
        t = torch.linspace(-lim, lim, 70)
        gx, gy = torch.meshgrid(t, t, indexing="xy")
        grid = torch.stack([gx, gy], -1).reshape(1, -1, 2)
        z0 = h0(grid).reshape(70, 70).numpy()
        z1 = h1(grid).reshape(70, 70).numpy()
        y = task.y_test
        rows = {"base, clean": h0(task.x_test), "base, manipulated": h0(xm), "SPN, manipulated": h1(xm)}
    fig, axes = figure(ncols=2, width=4.2, height=3.8)
    ax, bx = axes[0]
    X0, X1, yy = task.x_test[0].numpy(), xm[0].numpy(), y[0].numpy()
    moved = np.abs(X1 - X0).sum(-1) > 0
    ax.scatter(X1[:, 0], X1[:, 1], c=np.where(yy == 1, PALETTE[0], PALETTE[1]), s=8, alpha=0.6, lw=0)
    ax.quiver(X0[moved, 0], X0[moved, 1], (X1 - X0)[moved, 0], (X1 - X0)[moved, 1], angles="xy",
              scale_units="xy", scale=1, width=0.003, color="0.35", alpha=0.7)
    ax.contour(gx.numpy(), gy.numpy(), z0, levels=[0], colors=[PALETTE[5]], linewidths=1.5)
    if show_spn:
        ax.contour(gx.numpy(), gy.numpy(), z1, levels=[0], colors=[PALETTE[2]], linewidths=1.5, linestyles="--")
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), xlabel="x1 (mutable)", ylabel="x2" + (" (mutable)" if mutable == "both"
                                                                                      else " (immutable)"),
           title=f"moves to the base rule, r={budget:g}, pi={pi:g}")
    ax.plot([], [], color=PALETTE[5], label="base PFN" if model is not None else "base (LR stand-in)")
    if show_spn:
        ax.plot([], [], color=PALETTE[2], ls="--", label="SPN")
    ax.legend(loc="lower left", fontsize=8)
    names = list(rows)
    acc = [((rows[k] >= 0).long() == y).float().mean().item() for k in names]
    neg = y == 0
    fpr = [((rows[k] >= 0) & neg).float().sum().item() / max(1, neg.sum().item()) for k in names]
    pos = np.arange(len(names))
    bx.bar(pos - 0.2, acc, 0.4, color=PALETTE[0], label="accuracy")
    bx.bar(pos + 0.2, fpr, 0.4, color=PALETTE[1], label="false-positive rate")
    for p, a, f in zip(pos, acc, fpr):
        bx.text(p - 0.2, a + 0.01, f"{a:.2f}", ha="center", fontsize=8)
        bx.text(p + 0.2, f + 0.01, f"{f:.2f}", ha="center", fontsize=8)
    bx.set_xticks(pos, [n.replace(", ", "\n") for n in names], fontsize=8)
    bx.set(ylim=(0, 1.05), title="test metrics")
    bx.legend(fontsize=8)
    return fig


STYLES = {"spn": (PALETTE[0], "-"), "spn_augment": (PALETTE[0], "--"), "oracle": (PALETTE[4], ":"),
          "base": (PALETTE[5], "-"), "lr_p1": (PALETTE[1], "--"), "lr_p2": (PALETTE[1], "-"),
          "hgb_p2": (PALETTE[2], "-"), "mlp_p2": (PALETTE[3], "-"), "strategic_lr_p2": (PALETTE[6], "-.")}


def plot_accuracy_vs_budget(results: dict, methods=("spn", "spn_augment", "oracle", "base", "lr_p1", "lr_p2",
                                                    "hgb_p2", "mlp_p2", "strategic_lr_p2")):
    """Accuracy on the manipulated test (P1 unless the label says P2) against the budget ``r``."""
    p1 = results["p1"]
    budgets = results["budgets"]
    fig, ax = figure(width=5.5, height=3.6)
    keys = [f"{r:g}" for r in budgets]
    clean = [p1["base_clean"][k]["acc"] for k in keys]
    ax.plot(budgets, clean, color="0.6", ls=":", label="base PFN, clean test")
    for i, m in enumerate(x for x in methods if x in p1):
        color, ls = STYLES.get(m, (PALETTE[i % len(PALETTE)], "-"))
        ax.plot(budgets, [p1[m][k]["acc"] for k in keys], marker="o", ms=3, color=color, ls=ls,
                label=METHOD_LABELS.get(m, m))
    ax.set(xlabel="budget r (cost-norm, standardised units)", ylabel="accuracy", title="accuracy under manipulation")
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_ctx_sweep(results: dict):
    """Clean-vs-manipulated gap of the base PFN and SPN against the context size (claim S4)."""
    sw = results["ctx_sweep"]
    fig, ax = figure(width=4.5, height=3.2)
    ax.plot(sw["n_ctx"], sw["base_gap"], marker="o", color=PALETTE[5], label="base PFN")
    ax.plot(sw["n_ctx"], sw["spn_gap"], marker="o", color=PALETTE[0], label="SPN")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="context size n_ctx", ylabel="clean - manipulated accuracy", title="the bias is structural")
    ax.legend()
    return fig


def plot_p2(results: dict):
    """Protocol P2 (agents respond to the evaluated rule): base PFN vs one-shot vs iterated SPN."""
    p2 = results["p2"]
    keys = list(p2["base_p2"])
    fig, ax = figure(width=4.5, height=3.2)
    names = [("base_p2", "base PFN"), ("spn_p2_oneshot", "SPN one-shot"), ("spn_p2_iterated", "SPN iterated")]
    pos = np.arange(len(keys))
    for i, (m, lab) in enumerate(names):
        ax.bar(pos + (i - 1) * 0.27, [p2[m][k]["acc"] for k in keys], 0.27, color=PALETTE[[5, 2, 0][i]], label=lab)
    ax.set_xticks(pos, [f"r = {k}" for k in keys])
    ax.set(ylabel="accuracy", ylim=(0.5, 0.9), title="protocol P2")
    ax.legend(fontsize=8)
    return fig
