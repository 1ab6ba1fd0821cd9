"""Pure plotting functions for the APO notebooks and explorers (matplotlib, the companion's style)."""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.papers.apo_alignment.baselines import pairwise_dpo_loss
from icml26.papers.apo_alignment.drifting_teachers import make_world
from icml26.papers.apo_alignment.method import apo_loss, consensus
from icml26.papers.apo_alignment.training import score_decisions
from icml26.viz import figure


def plot_drifting_teachers(drift: float = 0.2, fpr_weak: float = 0.35, correlation: float = 0.0,
                           preset: str = "complementary", n_findings: int = 6, n_cases: int = 3000, seed: int = 0):
    """Left: each source's hallucination rate along the trajectory step (the drift, docs/papers/apo_alignment.md §2).
    Right: test accuracy of each source and of the label-free majority consensus (claim 1)."""
    checks.seed("seed", seed)
    g = torch.Generator().manual_seed(seed)
    w = make_world(n_cases, n_findings, 5, drift=drift, correlation=correlation, preset=preset, generator=g,
                   fpr_weak=fpr_weak)
    fig, axes = figure(2, width=4.2, height=3.2)
    ax1, ax2 = axes[0, 0], axes[0, 1]
    absent = (w.findings == 0)[:, None, :]
    hall = ((w.decisions == 1) & absent).sum(0).float() / absent.sum(0).clamp(min=1)
    steps = np.arange(1, n_findings + 1)
    for u in range(5):
        ax1.plot(steps, hall[u].numpy(), marker="o", label=f"source {u}" + (" (verbose)" if w.verbose[u] else ""))
    ax1.set_xlabel("reasoning step j (finding)")
    ax1.set_ylabel("hallucination rate P(says present | absent)")
    ax1.set_ylim(0, 1)
    ax1.set_title(f"drift d = {drift:.2f}")
    ax1.legend(fontsize=7)
    accs = [score_decisions(w.decisions[:, u], w.findings)["accuracy"] for u in range(5)]
    cons = score_decisions(consensus(w.decisions), w.findings)["accuracy"]
    names = [f"src {u}" for u in range(5)] + ["consensus"]
    colors = ["#9aa5b1"] * 5 + ["#d1495b"]
    ax2.bar(names, accs + [cons], color=colors)
    ax2.set_ylim(0.5, 1.0)
    ax2.set_ylabel("average accuracy (test)")
    ax2.set_title(f"consensus - best source = {cons - max(accs):+.3f}")
    ax2.tick_params(axis="x", rotation=45)
    return fig


def plot_negative_weights(margin: float = 1.0, spread: float = 1.0, n_negatives: int = 5, objective: str = "apo"):
    """How hard each negative is pushed down (``dL/dr_u``) for one case, by objective
    (docs/papers/apo_alignment.md §3.4, §4).

    Negatives' rewards are ``r+ - margin + spread * linspace(-1, 1)``; the PL loss concentrates its push on
    the highest-reward (most probable) drifting trajectories, pairwise DPO spreads it, DPO picks one.
    """
    if objective not in ("apo", "pairwise", "dpo_top"):
        raise ValueError(f"objective must be 'apo', 'pairwise' or 'dpo_top'; got {objective!r}")
    checks.finite_number("margin", margin)
    checks.nonnegative_number("spread", spread)
    checks.positive_int("n_negatives", n_negatives)
    rp = torch.zeros(1, dtype=torch.float64)
    rn = (-margin + spread * torch.linspace(-1, 1, n_negatives, dtype=torch.float64))[None].requires_grad_(True)
    if objective == "apo":
        loss = apo_loss(rp, rn)
    elif objective == "pairwise":
        loss = pairwise_dpo_loss(rp, rn)
    else:
        mask = torch.zeros(1, n_negatives, dtype=torch.bool)
        mask[0, -1] = True
        loss = apo_loss(rp, rn, mask)
    loss.sum().backward()
    fig, ax = figure(1, width=5, height=3.2)
    x = np.arange(n_negatives)
    ax.bar(x, rn.grad[0].numpy(), color="#00798c")
    ax.set_xticks(x, [f"r={v:.2f}" for v in rn.detach()[0].tolist()], rotation=30)
    ax.set_ylabel("push-down dL/dr_u")
    ax.set_ylim(0, 1)
    ax.set_title(f"{objective}: loss {float(loss.detach()):.3f}")
    return fig


def _check_runs(results, keys) -> list:
    checks.config("results", results, required=("runs",))
    runs = checks.mapping_items("results['runs']", results["runs"], keys)
    if not runs:
        raise ValueError("results['runs'] must hold at least one run")
    return runs


def results_table(results: dict) -> list[tuple[str, float, float, float]]:
    """Rows (name, accuracy, hallucination, well-formed) averaged over seeds: sources, consensus, students."""
    runs = _check_runs(results, ("teachers", "consensus", "stage1", "methods"))

    def avg(xs):
        return float(np.mean(xs))

    rows = [(f"source {u}", avg([r["teachers"][u]["accuracy"] for r in runs]),
             avg([r["teachers"][u]["hallucination"] for r in runs]), 1.0) for u in range(len(runs[0]["teachers"]))]
    rows.append(("consensus (label-free)", avg([r["consensus"]["accuracy"] for r in runs]),
                 avg([r["consensus"]["hallucination"] for r in runs]), 1.0))
    rows.append(("stage 1 (multi-source SFT)", avg([r["stage1"]["accuracy"] for r in runs]),
                 avg([r["stage1"]["hallucination"] for r in runs]), avg([r["stage1"]["well_formed"] for r in runs])))
    for obj in runs[0]["methods"]:
        cfg = results.get("config", {})
        name = {"apo": "APO (PL, all negatives)",
                "apo_note": f"APO, planned setting (lr {cfg.get('note_lr2')}, beta {cfg.get('note_beta')})"}
        name = name.get(obj, obj)
        rows.append((name, avg([r["methods"][obj]["accuracy"] for r in runs]),
                     avg([r["methods"][obj]["hallucination"] for r in runs]),
                     avg([r["methods"][obj]["well_formed"] for r in runs])))
    return rows


def plot_results(results: dict):
    """Average accuracy and hallucination rate of sources, consensus, stage 1 and every stage-2 objective."""
    rows = results_table(results)
    fig, axes = figure(2, width=5, height=3.4)
    names = [r[0] for r in rows]
    y = np.arange(len(rows))
    colors = ["#9aa5b1" if n.startswith("source") else "#d1495b" if n.startswith("APO") else "#edae49"
              for n in names]
    axes[0, 0].barh(y, [r[1] for r in rows], color=colors)
    axes[0, 0].set_yticks(y, names)
    axes[0, 0].set_xlabel("average accuracy (test)")
    axes[0, 0].set_xlim(0, 1)
    axes[0, 1].barh(y, [r[2] for r in rows], color=colors)
    axes[0, 1].set_yticks(y, [""] * len(rows))
    axes[0, 1].set_xlabel("hallucination rate")
    axes[0, 1].set_xlim(0, 1)
    return fig


def plot_training(results: dict):
    """Stage-2 curves of the first seed: loss and the mean PL weight of t+ (how often t+ ranks first)."""
    curves = _check_runs(results, ("curves",))[0]["curves"]
    fig, axes = figure(2, width=4, height=3)
    for obj, c in curves.items():
        x = np.arange(len(c["loss"])) * 5
        axes[0, 0].plot(x, c["loss"], label=obj)
        if c["w_pos"]:
            axes[0, 1].plot(x, c["w_pos"], label=obj)
    axes[0, 0].set_xlabel("stage-2 step")
    axes[0, 0].set_ylabel("loss")
    axes[0, 1].set_xlabel("stage-2 step")
    axes[0, 1].set_ylabel("PL weight of t+")
    axes[0, 0].legend(fontsize=7)
    return fig


def plot_drift_sweep(results: dict):
    """Accuracy of stage 1, APO, the best source and the consensus as drift grows (claim 5)."""
    checks.config("results", results, required=("drift_sweep",))
    sw = checks.config("results['drift_sweep']", results["drift_sweep"],
                       required=("drift", "stage1", "apo", "best_teacher", "consensus"))
    fig, ax = figure(1, width=4.5, height=3.2)
    for key, label in (("stage1", "stage 1"), ("apo", "APO"), ("best_teacher", "best source"),
                       ("consensus", "consensus")):
        ax.plot(sw["drift"], sw[key], marker="o", label=label)
    ax.set_xlabel("drift magnitude d")
    ax.set_ylabel("average accuracy")
    ax.legend(fontsize=7)
    return fig


def plot_selection(selection: dict):
    """Validation accuracy of every stage-2 objective over the shared (lr, beta) grid.

    ``selection`` maps objective -> ``{"lr2", "beta", "val_grid": [[lr, beta, val_acc], ...]}`` (a run's
    ``runs[0]["selection"]`` or ``experiment.SELECTIONS[scale]``); objectives without a grid are skipped.
    """
    if not isinstance(selection, dict) or not any(s.get("val_grid") for s in selection.values()):
        raise ValueError("selection must map objectives to dicts with a non-empty 'val_grid'")
    sel = selection
    fig, ax = figure(1, width=5.5, height=3.2)
    for obj, s in sel.items():
        grid = s["val_grid"]
        if not grid:
            continue
        for beta in sorted({b for _, b, _ in grid}):
            pts = [(lr, acc) for lr, b, acc in grid if b == beta]
            label = obj if obj.startswith("sft") else f"{obj}, beta {beta}"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("stage-2 learning rate")
    ax.set_ylabel("validation accuracy")
    ax.set_title("equal-effort selection (validation split only)")
    ax.legend(fontsize=6, ncol=2)
    return fig
