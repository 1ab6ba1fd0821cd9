"""Pure plotting functions for the ca_pg notebooks and widgets (each returns a matplotlib Figure)."""

from __future__ import annotations

import math

import torch

from icml26 import checks
from icml26.papers.ca_pg.analysis import exact_gradients, variance_probe
from icml26.papers.ca_pg.method import ALIGNMENTS, RHO_METHODS, lsr_scores
from icml26.papers.ca_pg.training import LABELS
from icml26.ranking import inclusion_prob
from icml26.viz import PALETTE, figure


def plot_variance_vs_k(n_items: int = 200, k_max: int = 50, tau: float = 0.1, n_samples: int = 60,
                       n_mc: int = 8, seed: int = 0):
    """Single-sample trace-variance of V-PG and CA-PG against K (log axes), one random context."""
    for name, v in (("n_items", n_items), ("k_max", k_max), ("n_mc", n_mc)):
        checks.positive_int(name, v)
    if checks.positive_int("n_samples", n_samples) < 2:
        raise ValueError(f"n_samples must be >= 2 (a variance); got {n_samples}")
    checks.nonnegative_number("tau", tau)
    checks.seed("seed", seed)
    gen = torch.Generator().manual_seed(seed)
    f = torch.randn(n_items, generator=gen)
    q = torch.sigmoid(1.5 * torch.randn(n_items, generator=gen) - 1.0)
    ks = sorted({k for k in (1, 5, 20, 50, 100, 200) if k <= min(k_max, n_items)} | {min(k_max, n_items)})
    rows = [variance_probe(f, q, q, k, tau, n_samples, n_mc, generator=gen) for k in ks]
    fig, axes = figure(ncols=2, width=4.2)
    a0, a1 = axes[0]
    a0.loglog(ks, [r["tr_var_capg"] for r in rows], "o-", label="CA-PG", color=PALETTE[0])
    a0.loglog(ks, [r["tr_var_vpg"] for r in rows], "s-", label="V-PG", color=PALETTE[1])
    a0.set(xlabel="candidate-set size K", ylabel="trace variance (logits)", title=f"N={n_items}, tau={tau:g}")
    a0.legend()
    a1.loglog(ks, [r["ratio"] for r in rows], "o-", color=PALETTE[2])
    a1.axhline(1.0, color="grey", lw=0.8)
    a1.set(xlabel="K", ylabel="trVar V-PG / trVar CA-PG", title="variance ratio")
    return fig


def plot_alignment_bias(alignment: str = "aligned", tau: float = 0.1, noise: float = 0.05, k: int = 3,
                        n_items: int = 7, seed: int = 0):
    """Exact (enumeration) cosine between E[CA-PG] and the true gradient for a range of LSR temperatures."""
    checks.one_of("alignment", alignment, ALIGNMENTS)
    checks.nonnegative_number("tau", tau)
    checks.nonnegative_number("noise", noise)
    if not 2 <= checks.positive_int("n_items", n_items) <= 8:
        raise ValueError(f"n_items must lie in [2, 8] (enumeration); got {n_items}")
    if not 1 <= checks.positive_int("k", k) <= n_items:
        raise ValueError(f"k must lie in [1, n_items={n_items}]; got {k}")
    checks.seed("seed", seed)
    gen = torch.Generator().manual_seed(seed)
    f = torch.randn(4, n_items, generator=gen, dtype=torch.float64)
    q = torch.sigmoid(1.5 * torch.randn(4, n_items, generator=gen, dtype=torch.float64) - 1.0)
    g = lsr_scores(q, alignment, noise, generator=gen)
    taus = [0.01, 0.03, 0.1, 0.3, 1.0, 5.0]
    cos = [exact_gradients(f, q, g, k, t)["cos"] for t in taus]
    here = exact_gradients(f, q, g, k, tau)
    uniform = exact_gradients(f, q, g, k, math.inf)["cos"]
    fig, axes = figure(ncols=2, width=4.2)
    a0, a1 = axes[0]
    a0.semilogx(taus, cos, "o-", color=PALETTE[0], label="E[CA-PG] vs grad V")
    a0.axhline(uniform, color=PALETTE[2], ls="--", label="uniform LSR")
    a0.axhline(0.0, color="grey", lw=0.8)
    a0.plot([tau], [here["cos"]], "*", ms=14, color=PALETTE[3])
    a0.set(xlabel="LSR temperature tau", ylabel="cosine", ylim=(-1.05, 1.05), title=f"LSR: {alignment}")
    a0.legend(loc="lower right")
    gv, gc = here["grad_v"][0].numpy(), here["e_capg"][0].numpy()
    x = range(n_items)
    a1.bar([i - 0.2 for i in x], gv / abs(gv).max(), width=0.4, label="grad V", color=PALETTE[1])
    a1.bar([i + 0.2 for i in x], gc / abs(gc).max(), width=0.4, label="E[CA-PG]", color=PALETTE[0])
    a1.set(xlabel="item", ylabel="normalised gradient (context 0)", title=f"tau={tau:g}, cos={here['cos']:.2f}")
    a1.legend()
    return fig


def plot_inclusion(n_items: int = 50, k: int = 10, method: str = "mc", n_mc: int = 32, spread: float = 1.0,
                   seed: int = 0):
    """Inclusion probabilities: the chosen estimator vs exact quadrature, items sorted by logit."""
    for name, v in (("n_items", n_items), ("k", k), ("n_mc", n_mc)):
        checks.positive_int(name, v)
    checks.one_of("method", method, RHO_METHODS)
    checks.finite_number("spread", spread)
    checks.seed("seed", seed)
    gen = torch.Generator().manual_seed(seed)
    f = torch.randn(n_items, generator=gen, dtype=torch.float64) * spread
    f, _ = torch.sort(f, descending=True)
    k = min(k, n_items)
    exact = inclusion_prob(f, k, method="quadrature", n_nodes=1024)
    est = inclusion_prob(f, k, method=method, n_mc=n_mc, generator=gen, n_nodes=1024)
    fig, ax = figure(width=6.0)
    ax.plot(exact.numpy(), "k-", lw=2, label="exact (quadrature)")
    ax.plot(est.numpy(), "o", ms=3, color=PALETTE[0], label=f"{method}" + (f" (M={n_mc})" if method == "mc" else ""))
    err = float((est - exact).abs().max())
    ax.set(xlabel="item (sorted by logit)", ylabel="rho(a) = P(a in C)",
           title=f"N={n_items}, K={k}: max |error| = {err:.3f}, sum = {float(est.sum()):.3f}")
    ax.legend()
    return fig


def plot_learning_curves(results: dict, part: str = "training"):
    """Seed-mean value/oracle against training steps, one panel per K, one line per estimator."""
    checks.config("results", results)
    if not isinstance(part, str) or not isinstance(results.get(part), dict) or not results[part]:
        raise ValueError(f"part must name a trained part of results among "
                         f"{[p for p, v in results.items() if isinstance(v, dict) and p != 'config']}; got {part!r}")
    for k, by_est in results[part].items():
        for est, s in by_est.items():
            checks.config(f"results[{part!r}][{k!r}][{est!r}]", s, required=("steps", "norm_mean"))
    summ = results[part]
    fig, axes = figure(ncols=len(summ), width=4.0)
    axes = list(axes.ravel()) if hasattr(axes, "ravel") else [axes]
    for ax, (k, by_est) in zip(axes, summ.items()):
        for i, (est, s) in enumerate(by_est.items()):
            ax.plot(s["steps"], s["norm_mean"], label=LABELS.get(est, est), color=PALETTE[i % len(PALETTE)])
        ax.axhline(0.9, color="grey", ls=":", lw=0.8)
        ax.set(xlabel="training step", ylabel="value / oracle", title=f"{part}: K={k}", ylim=(0, 1.05))
    axes[0].legend(fontsize=8)
    return fig


def plot_variance_results(results: dict):
    """The variance table of the experiment (claim 1)."""
    checks.config("results", results, required=("variance",))
    checks.config("results['variance']", results["variance"], required=("ks", "tr_var_vpg", "tr_var_capg", "ratio"))
    v = results["variance"]
    fig, ax = figure(width=5.0)
    ax.loglog(v["ks"], v["tr_var_vpg"], "s-", label="V-PG", color=PALETTE[1])
    ax.loglog(v["ks"], v["tr_var_capg"], "o-", label="CA-PG", color=PALETTE[0])
    for k, r, y in zip(v["ks"], v["ratio"], v["tr_var_vpg"]):
        ax.annotate(f"x{r:.0f}" if r >= 2 else f"x{r:.2f}", (k, y), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    ax.set(xlabel="K", ylabel="single-sample trace variance", title="gradient variance vs K")
    ax.legend()
    return fig
