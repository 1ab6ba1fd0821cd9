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
    """Single-sample trace-variance of CA-PG and of V-PG with and without the batch-mean baseline (batches of 32
    draws, as in training) against K (log axes), one random context."""
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
    a0.loglog(ks, [r["tr_var_vpg_mean"] for r in rows], "s-", label="V-PG, batch-mean baseline", color=PALETTE[1])
    a0.loglog(ks, [r["tr_var_vpg"] for r in rows], "s:", label="V-PG, no baseline", color=PALETTE[2])
    a0.set(xlabel="candidate-set size K", ylabel="trace variance (logits)", title=f"N={n_items}, tau={tau:g}")
    a0.legend(fontsize=8)
    a1.loglog(ks, [r["ratio_mean"] for r in rows], "o-", color=PALETTE[1], label="baselined V-PG / CA-PG")
    a1.loglog(ks, [r["ratio"] for r in rows], "o:", color=PALETTE[2], label="unbaselined V-PG / CA-PG")
    a1.axhline(1.0, color="grey", lw=0.8)
    a1.set(xlabel="K", ylabel="trVar V-PG / trVar CA-PG", title="variance ratio")
    a1.legend(fontsize=8)
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
    """The variance table of the experiment (claim 1): CA-PG as trained against V-PG with the batch-mean baseline
    training uses (the fair peer, annotated ratio) and, labelled apart, V-PG without a baseline."""
    checks.config("results", results, required=("variance",))
    checks.config("results['variance']", results["variance"],
                  required=("ks", "tr_var_vpg", "tr_var_vpg_mean", "tr_var_capg", "ratio_mean"))
    v = results["variance"]
    fig, ax = figure(width=5.0)
    ax.loglog(v["ks"], v["tr_var_vpg"], "s:", label="V-PG, no baseline (second figure)", color=PALETTE[2])
    ax.loglog(v["ks"], v["tr_var_vpg_mean"], "s-", label="V-PG, batch-mean baseline (as trained)", color=PALETTE[1])
    ax.loglog(v["ks"], v["tr_var_capg"], "o-", label="CA-PG (as trained)", color=PALETTE[0])
    for k, r, y in zip(v["ks"], v["ratio_mean"], v["tr_var_vpg_mean"]):
        ax.annotate(f"x{r:.0f}" if r >= 10 else f"x{r:.1f}", (k, y), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    ax.set(xlabel="K", ylabel="single-sample trace variance",
           title="gradient variance vs K (x: baselined V-PG / CA-PG)")
    ax.legend(fontsize=8)
    return fig


def _check_sweep(results: dict, part: str, axis: str) -> dict:
    checks.config("results", results)
    if not isinstance(results.get(part), dict):
        raise ValueError(f"results has no {part!r} part (run a scale whose config has one)")
    s = results[part]
    checks.config(f"results[{part!r}]", s, required=(axis,))
    return s


def _plot_sweep(s: dict, xs, xscale: str, xlabel: str, title: str, mark=None):
    fig, axes = figure(ncols=2, width=4.2)
    for ax, key, name in zip(axes[0], ("at_100", "final"), ("step 100", f"step {s.get('steps', 'end')}")):
        for i, est in enumerate(e for e in s if isinstance(s[e], dict)):
            ax.plot(xs, s[est][key], "o-", label=LABELS.get(est, est), color=PALETTE[i % len(PALETTE)])
        if mark is not None:
            ax.axvline(mark, color="grey", ls="--", lw=0.8)
        ax.set(xscale=xscale, xlabel=xlabel, ylabel="value / oracle", title=f"{title}, K={s['k']}: {name}")
    axes[0][0].legend(fontsize=8)
    return fig


def plot_lr_sweep(results: dict):
    """Equal footing: value/oracle at step 100 and at the sweep's horizon against the learning rate, per estimator
    (the dashed line is the learning rate the comparison shares)."""
    s = _check_sweep(results, "lr_sweep", "lrs")
    return _plot_sweep(s, s["lrs"], "log", "Adam learning rate", "learning-rate sweep", mark=s.get("shared_lr"))


def plot_lsr_noise(results: dict):
    """LSR alignment: value/oracle against corr(g, q) of the LSR's scores (g = q + sigma eps, and g = -q + sigma eps
    for the negatively correlated points), aligned LSR at 1 on the right."""
    s = _check_sweep(results, "lsr_noise", "corr")
    return _plot_sweep(s, s["corr"], "linear", "corr(g, q) of the LSR", "noisy LSR", mark=0.0)
