"""Pure plotting functions for the APO notebooks and explorers (matplotlib, the companion's style)."""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.papers.apo_alignment.baselines import pairwise_dpo_loss
from icml26.papers.apo_alignment.drifting_teachers import bayes_ceiling, make_world
from icml26.papers.apo_alignment.method import apo_loss, consensus
from icml26.papers.apo_alignment.training import score_decisions
from icml26.viz import figure


def plot_drifting_teachers(drift: float = 0.2, fpr_weak: float = 0.35, correlation: float = 0.0,
                           preset: str = "complementary", n_findings: int = 6, n_cases: int = 4000, seed: int = 0,
                           p_private: float = 0.1):
    """Left: each source's hallucination rate along the trajectory step in rounds 0 and 1 (the drift over steps
    and over time, docs/papers/apo_alignment.md §2). Right: test accuracy of each source, the label-free majority
    consensus, and the Bayes ceilings of the student's view and of the sources' pooled view."""
    checks.seed("seed", seed)
    g = torch.Generator().manual_seed(seed)
    w = make_world(n_cases, n_findings, 5, drift=drift, correlation=correlation, preset=preset, generator=g,
                   fpr_weak=fpr_weak, p_private=p_private)
    fig, axes = figure(2, width=4.2, height=3.2)
    ax1, ax2 = axes[0, 0], axes[0, 1]
    steps = np.arange(1, n_findings + 1)
    for rnd, style in ((0, "-"), (1, ":")):
        sel = w.round == rnd
        absent = (w.findings[sel] == 0)[:, None, :]
        hall = ((w.decisions[sel] == 1) & absent).sum(0).float() / absent.sum(0).clamp(min=1)
        for u in range(2):
            ax1.plot(steps, hall[u].numpy(), style, marker="o", color=f"C{u}",
                     label=f"source {u}, round {rnd}")
    ax1.set_xlabel("reasoning step j (finding)")
    ax1.set_ylabel("hallucination rate P(says present | absent)")
    ax1.set_ylim(0, 1)
    ax1.set_title(f"drift d = {drift:.2f} (flips between rounds)")
    ax1.legend(fontsize=7)
    accs = [score_decisions(w.decisions[:, u], w.findings)["accuracy"] for u in range(5)]
    cons = score_decisions(consensus(w.decisions), w.findings)["accuracy"]
    ceil = [score_decisions(bayes_ceiling(w, v), w.findings)["accuracy"] for v in ("student", "pooled")]
    names = [f"src {u}" for u in range(5)] + ["consensus", "ceiling: student", "ceiling: pooled"]
    colors = ["#9aa5b1"] * 5 + ["#d1495b", "#00798c", "#30638e"]
    ax2.bar(names, accs + [cons] + ceil, color=colors)
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


_NAMES = {"apo": "APO (PL, all negatives)", "apo_nll": "APO + NLL anchor (ours)",
          "apo_ln": "APO, length-normalised reward (ours)", "pairwise": "pairwise DPO",
          "dpo_random": "DPO, one random negative", "dpo_divergent": "DPO, most divergent negative",
          "sft_consensus": "SFT on consensus", "sft_best": "SFT on best-agreeing source"}


def results_table(results: dict) -> list[tuple[str, float, float, float, float, float, float]]:
    """Rows ``(name, acc sampled, halluc sampled, well-formed sampled, acc greedy, halluc greedy, well-formed
    greedy)`` of the first run: sources, consensus and Bayes ceilings (one decision rule: the same number in both
    column groups), stage 1 and every stage-2 objective at its tuned and (when it differs) its shared setting."""
    run = _check_runs(results, ("teachers", "consensus", "ceilings", "stage1", "methods"))[0]

    def fixed(name, s):
        return (name, s["accuracy"], s["hallucination"], 1.0, s["accuracy"], s["hallucination"], 1.0)

    def learned(name, m):
        return (name, *(m[d][k] for d in ("sampled", "greedy") for k in ("accuracy", "hallucination", "well_formed")))

    rows = [fixed(f"source {u}", t) for u, t in enumerate(run["teachers"])]
    rows.append(fixed("consensus (label-free)", run["consensus"]))
    rows.append(fixed("Bayes ceiling, student's view", run["ceilings"]["student"]))
    rows.append(fixed("Bayes ceiling, pooled sources", run["ceilings"]["pooled"]))
    rows.append(learned("stage 1 (multi-source SFT)", run["stage1"]))
    settings = run.get("settings", {})
    for obj, m in run["methods"].items():
        st = settings.get(obj, {})
        rows.append(learned(f"{_NAMES.get(obj, obj)} {tuple(st.get('tuned', ()))}", m["tuned"]))
        if m.get("shared") is not m["tuned"] and "shared" in m:
            rows.append(learned(f"{_NAMES.get(obj, obj)}, shared {tuple(st.get('shared', ()))}", m["shared"]))
    return rows


def plot_results(results: dict):
    """Accuracy and hallucination (sampled and greedy) of sources, consensus, ceilings, stage 1 and stage 2."""
    rows = results_table(results)
    fig, axes = figure(2, width=5, height=0.28 * len(rows) + 1.5)
    names = [r[0] for r in rows]
    y = np.arange(len(rows))
    h = 0.4
    for ax, col, label in ((axes[0, 0], 1, "average accuracy (test)"), (axes[0, 1], 2, "hallucination rate")):
        ax.barh(y - h / 2, [r[col] for r in rows], height=h, color="#d1495b", label="sampled")
        ax.barh(y + h / 2, [r[col + 3] for r in rows], height=h, color="#00798c", label="greedy")
        ax.set_xlabel(label)
        ax.set_xlim(0, 1)
        ax.invert_yaxis()
    axes[0, 0].set_yticks(y, names, fontsize=7)
    axes[0, 1].set_yticks(y, [""] * len(rows))
    ceiling = rows[len(results["runs"][0]["teachers"]) + 1][1]
    axes[0, 0].axvline(ceiling, color="k", ls="--", lw=1)
    axes[0, 0].legend(fontsize=7)
    return fig


def plot_training(results: dict):
    """Stage-2 curves of the run (tuned settings): loss and the mean PL weight of t+ (how often t+ ranks first)."""
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
    """Accuracy of stage 1 and APO (both decoders), the best source, the consensus and the student's Bayes
    ceiling as the drift (over steps and rounds) grows."""
    checks.config("results", results, required=("drift_sweep",))
    sw = checks.config("results['drift_sweep']", results["drift_sweep"],
                       required=("drift", "stage1_sampled", "apo_sampled", "stage1_greedy", "apo_greedy",
                                 "best_teacher", "consensus", "ceiling_student"))
    fig, ax = figure(1, width=4.5, height=3.2)
    for key, label, style in (("stage1_sampled", "stage 1, sampled", "o-"), ("apo_sampled", "APO, sampled", "o-"),
                              ("stage1_greedy", "stage 1, greedy", "s:"), ("apo_greedy", "APO, greedy", "s:"),
                              ("best_teacher", "best source", "^-"), ("consensus", "consensus", "^-"),
                              ("ceiling_student", "Bayes ceiling (student)", "k--")):
        ax.plot(sw["drift"], sw[key], style, label=label)
    ax.set_xlabel("drift magnitude d")
    ax.set_ylabel("average accuracy")
    ax.legend(fontsize=6)
    return fig


def plot_selection(selection: dict):
    """Development-seed validation accuracy of every stage-2 objective over the shared (lr, beta) grid.

    ``selection`` is ``experiment.SELECTIONS[scale]`` (``select_hparams``' output): ``val_grid`` maps an
    objective to rows ``[lr, beta, val_acc]``.
    """
    checks.config("selection", selection, required=("val_grid",))
    grid = selection["val_grid"]
    if not isinstance(grid, dict) or not any(grid.values()):
        raise ValueError("selection['val_grid'] must map objectives to non-empty lists of [lr, beta, acc] rows")
    fig, ax = figure(1, width=5.5, height=3.2)
    for obj, rows in grid.items():
        for beta in sorted({b for _, b, _ in rows}):
            pts = [(lr, acc) for lr, b, acc in rows if b == beta]
            label = obj if obj.startswith("sft") else f"{obj}, beta {beta}"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("stage-2 learning rate")
    ax.set_ylabel("validation accuracy (dev seeds)")
    ax.set_title(f"selection on dev seeds {selection.get('seeds')}")
    ax.legend(fontsize=6, ncol=2)
    return fig
