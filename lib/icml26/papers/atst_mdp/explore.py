"""Plotting functions for the ATST-MDP notebooks and widgets (pure: parameters in, matplotlib Figure out)."""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.papers.atst_mdp import experiment as E
from icml26.papers.atst_mdp import method as M
from icml26.viz import PALETTE, figure

LABELS = {"mdp": "full-observation oracle", "atst": "ATST optimum (sequences)", "qmdp": "QMDP", "stale": "stale state"}
LEARNER_LABELS = {"atst_lsvi_ucb": "ATST-LSVI-UCB", "stale_lsvi_ucb": "stale LSVI-UCB",
                  "atst_greedy": "ATST greedy (no bonus)", "random": "random sequences",
                  "full_lsvi_ucb": "fully observed LSVI-UCB (vs V*_MDP)"}


def blind_beliefs(n_positions=7, slip=0.2, steps=8, action=2, start=0) -> np.ndarray:
    """Open-loop belief over ring positions after 0..steps blind plays of ``action`` from ``start``."""
    checks.nonnegative_int("steps", steps)
    checks.nonnegative_int("action", action)
    if action >= len(M.RING_ACTIONS):
        raise ValueError(f"action must be one of the ring's {len(M.RING_ACTIONS)} actions (0-3); got {action!r}")
    checks.nonnegative_int("start", start)
    m = M.drifting_ring(n_positions, slip)
    if start >= n_positions:
        raise ValueError(f"start must lie in [0, n_positions={n_positions}); got {start!r}")
    b = torch.zeros(n_positions, dtype=M.DTYPE)
    b[start] = 1.0
    rows = [b]
    for _ in range(steps):
        b = b @ m.P[action]
        rows.append(b)
    return torch.stack(rows).numpy()


def plot_ring_values(beta_move: float = 0.1, slip: float = 0.2, gamma: float = 0.9, L: int = 4):
    """Values of the four policies on the drifting ring (start-averaged), the optimal sequence
    committed at the target, and the belief spreading during blind collection."""
    out = E.ring_values(slip=slip, beta_move=beta_move, gamma=gamma, L=L)
    fig, axes = figure(ncols=2, width=4.4, height=3.3)
    ax1, ax2 = axes[0]
    keys = ["mdp", "atst", "qmdp", "stale"]
    vals = [out["mean"][k] for k in keys]
    ax1.bar(range(4), vals, color=[PALETTE[5], PALETTE[0], PALETTE[1], PALETTE[3]])
    ax1.set_xticks(range(4), ["oracle", "ATST", "QMDP", "stale"])
    ax1.set_ylabel("value (start-averaged)")
    ax1.set_title(f"ATST vs QMDP gap: {100 * out['gap_qmdp']:.1f}%", fontsize=9)
    for i, v in enumerate(vals):
        ax1.text(i, v, f"{v:.2f}", ha="center", va="bottom", fontsize=8)
    ax1.text(0.02, -0.28, "at target: " + ", ".join(out["first_sequences"][0]), transform=ax1.transAxes, fontsize=8)
    bel = blind_beliefs(slip=slip, steps=8)
    ax2.imshow(bel.T, aspect="auto", cmap="viridis", vmin=0, vmax=1, origin="lower")
    ax2.set_xlabel("blind steps since the last observation")
    ax2.set_ylabel("ring position (target = 0)")
    ax2.set_title("belief while collecting blind", fontsize=9)
    ax2.grid(False)
    return fig


def plot_L_convergence(L_max: int = 5, gamma: float = 0.9, beta_low: float = 0.2, seed: int = 0):
    """``V*_L`` (state-averaged) against the cap ``L`` with the tail bound of §3.4."""
    checks.positive_int("L_max", L_max)
    checks.probability("beta_low", beta_low)
    m = M.random_tabular(5, 3, [beta_low, 0.5, 1.0], gamma, seed=seed)
    Vs = [float(M.sequence_policy_iteration(*M.sequence_model(m, M.enumerate_sequences(3, L)))[0].mean())
          for L in range(1, L_max + 1)]
    fig, ax = figure(width=4.6)
    Ls = np.arange(1, L_max + 1)
    ax.plot(Ls, Vs, "o-", label="$V^*_L$ (mean over states)")
    bound = [Vs[i] + M.tail_gap_bound(gamma, m.beta, int(Ls[i])) for i in range(L_max)]
    ax.plot(Ls, bound, "--", color=PALETTE[5], label="$V^*_L$ + tail bound")
    ax.set_ylim(min(Vs) - 0.2, max(Vs) + 1.0)
    ax.set_xlabel("sequence length cap L")
    ax.set_ylabel("value")
    ax.legend(fontsize=8)
    return fig


def _results_part(results, part: str, keys) -> dict:
    checks.config("results", results, required=(part,))
    return checks.config(f"results[{part!r}]", results[part], required=keys)


def plot_psi_error(results: dict):
    """Sup-error of ``Psi_hat`` against the offline sample size, with a fitted slope."""
    _results_part(results, "psi", ("ns", "sup_err", "slope"))
    ns, err = np.asarray(results["psi"]["ns"]), np.asarray(results["psi"]["sup_err"])
    fig, ax = figure(width=4.4)
    ax.loglog(ns, err, "o-", label=f"measured (slope {results['psi']['slope']:.2f})")
    ax.loglog(ns, err[0] * (ns / ns[0]) ** -0.5, "--", color=PALETTE[5], label="$n^{-1/2}$")
    ax.set_xlabel("offline transitions n")
    ax.set_ylabel(r"$\max |\hat\Psi - \Psi|$")
    ax.legend(fontsize=8)
    return fig


def plot_regret(results: dict, loglog: bool = True):
    """Cumulative (seed-averaged, exact) regret of every learner."""
    _results_part(results, "regret", ("K", "learners"))
    fig, ax = figure(width=5.0, height=3.6)
    ks = np.arange(1, results["regret"]["K"] + 1)
    for i, (name, d) in enumerate(results["regret"]["learners"].items()):
        ax.plot(ks, d["cum_regret"], color=PALETTE[i], label=f"{LEARNER_LABELS.get(name, name)} "
                f"(slope {d['slope']:.2f})")
    if loglog:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("episode k")
    ax.set_ylabel("cumulative regret")
    ax.legend(fontsize=8)
    return fig


def plot_rate(results: dict):
    """Regret against K on the grid of d and gamma (ATST-LSVI-UCB solid, fully observed LSVI-UCB dashed), and the
    final regret against d and (1-gamma)^-1 with the fitted exponents (90% bootstrap intervals)."""
    _results_part(results, "rate", ("cells", "exponents", "K", "dim", "gamma"))
    rate = results["rate"]
    fig, axes = figure(ncols=3, width=3.8, height=3.3)
    for i, row in enumerate(rate["cells"]):
        for name, style in (("atst_lsvi_ucb", "-"), ("full_lsvi_ucb", "--")):
            if name in row:
                axes[0, 0].loglog(row["ks"], row[name]["cum_regret"], style, color=PALETTE[i],
                                  label=f"d={row['d']}, gamma={row['gamma']}" if style == "-" else None)
    ks = np.asarray(rate["cells"][0]["ks"], float)
    axes[0, 0].loglog(ks, 3 * np.sqrt(ks), ":", color=PALETTE[5], label="sqrt(K)")
    axes[0, 0].set_xlabel("episode k")
    axes[0, 0].set_ylabel("cumulative regret")
    axes[0, 0].legend(fontsize=7)
    for ax, key, label in ((axes[0, 1], "d", "d"), (axes[0, 2], "horizon", "(1-gamma)^-1")):
        for name, style in (("atst_lsvi_ucb", "o-"), ("full_lsvi_ucb", "s--")):
            if name not in rate["exponents"]:
                continue
            pts = [(row["d"] if key == "d" else 1 / (1 - row["gamma"]), row[name]["final"]) for row in rate["cells"]
                   if (row["gamma"] == rate["gamma"] if key == "d" else row["d"] == rate["dim"])]
            pts.sort()
            e = rate["exponents"][name][key]
            ax.loglog(*zip(*pts), style, label=f"{LEARNER_LABELS[name].split(' (')[0]}: {e['value']:.2f} "
                      f"[{e['lo']:.2f}, {e['hi']:.2f}]")
        ax.set_xlabel(label)
        ax.set_ylabel(f"regret at K = {rate['K']}")
        ax.legend(fontsize=7, title="exponent [90% CI]", title_fontsize=7)
    return fig


def plot_equivalence(results: dict):
    """Monte Carlo returns (with 4 standard errors) against the sequence formula ``Q(s, alpha)``."""
    _results_part(results, "equivalence", ("mc_rows",))
    rows = results["equivalence"]["mc_rows"]
    fig, ax = figure(width=4.6)
    x = np.arange(len(rows))
    ax.errorbar(x, [r["mc"] for r in rows], yerr=[4 * r["se"] for r in rows], fmt="o", label="Monte Carlo +- 4 se")
    ax.plot(x, [r["Q"] for r in rows], "x", color=PALETTE[1], markersize=9, label="formula Q(s, alpha)")
    ax.set_xticks(x, [f"S={r['S']},L={r['L']}" for r in rows], rotation=30, fontsize=7)
    ax.set_ylabel("return")
    ax.legend(fontsize=8)
    return fig


def plot_regret_live(bonus_scale: float = 5.0, K: int = 150, seed: int = 0):
    """A small live run (one replicate): cumulative regret of ATST-LSVI-UCB vs stale LSVI-UCB."""
    checks.nonnegative_number("bonus_scale", bonus_scale)
    checks.positive_int("K", K)
    checks.seed("seed", seed)
    cfg = dict(E.CONFIGS["quick"]["regret"])
    cfg.update(K=int(K), n_seeds=1, bonus_scale=float(bonus_scale), bonus_by_learner={},
               learners=["atst_lsvi_ucb", "stale_lsvi_ucb"], n_offline=20_000)
    res = {"regret": E.run_regret(cfg, torch.device("cpu"), int(seed))}
    return plot_regret(res, loglog=False)
