"""Plotting functions for the notebooks and widgets (matplotlib; pure: parameters in, Figure out)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from icml26 import checks
from icml26.viz import PALETTE, figure

TARGET = 1e-10


def _check_results(results, keys) -> None:
    checks.config("results", results, required=keys)


def _floor(g):
    return [max(float(v), 1e-17) for v in g]


def plot_explorer(n: int = 40, m: int = 40, seed: int = 0, distribution: str = "gaussian", eta_scale: float = 1.0,
                  averaging: str = "quadratic", alternating: bool = True, predictive: bool = True,
                  line_search: bool = True, budget: int = 2000):
    """Gap vs mat-vec equivalents on one random game: hybrid (PRM+ -> SSN), PRM+/RM+, plain DRS; plus x*, y*.

    ``budget`` is the first-order budget in mat-vec equivalents. Every argument changes the picture.
    """
    from icml26.papers.ssn_games.baselines import drs_iterate
    from icml26.papers.ssn_games.games import random_games
    from icml26.papers.ssn_games.method import default_eta, hybrid
    from icml26.papers.ssn_games.regret import AVERAGINGS, RegretMatching

    checks.positive_int("n", n)
    checks.positive_int("m", m)
    checks.seed("seed", seed)
    checks.positive_number("eta_scale", eta_scale)
    checks.one_of("averaging", averaging, AVERAGINGS)
    for name, v in (("alternating", alternating), ("predictive", predictive), ("line_search", line_search)):
        if not isinstance(v, bool):
            raise TypeError(f"{name} must be a bool; got {v!r}")
    checks.positive_int("budget", budget)
    A = random_games(1, int(n), int(m), distribution=distribution, seed=int(seed))
    with warnings.catch_warnings():  # the budget caps the hybrid on purpose; the title shows its gap
        warnings.simplefilter("ignore", checks.IterationCapReached)
        h = hybrid(A, eta_scale=float(eta_scale), averaging=averaging if averaging != "last" else "quadratic",
                   warm_starts=("last",) if averaging == "last" else ("average", "last"), alternating=alternating,
                   globalization="linesearch" if line_search else "fallback", max_iterations=max(200, budget // 2))
    iters = max(50, int(budget) // 2)
    rm = RegretMatching(A, predictive=predictive, alternating=alternating)
    rec = rm.run(iters, record_every=max(1, iters // 60))
    eta, _ = default_eta(A, float(eta_scale))
    drs = drs_iterate(A, eta, max(10, int(budget) // 3), record_every=max(1, int(budget) // 90))
    fig, axes = figure(ncols=2, width=4.6, height=3.3)
    ax, ax2 = axes[0, 0], axes[0, 1]
    hc, hg = zip(*h.trace[0]) if h.trace[0] else ([], [])
    ax.semilogy(hc, _floor(hg), "o-", color=PALETTE[0], ms=3, label="hybrid PRM+ -> SSN")
    name = ("PRM+" if predictive else "RM+") + (" alt" if alternating else " sim")
    ax.semilogy(rec["cost"], _floor(np.array(rec["gap"][averaging])[:, 0]), color=PALETTE[1],
                label=f"{name} ({averaging})")
    ax.semilogy(drs["cost"], _floor(np.array(drs["gap"])[:, 0]), color=PALETTE[2], label="plain DRS")
    ax.axhline(TARGET, color="k", lw=0.8, ls=":")
    ax.set_xlabel("mat-vec equivalents")
    ax.set_ylabel("duality gap")
    ax.set_title(f"{n}x{m} {distribution}, eta={eta_scale:g}/||A||", fontsize=9)
    ax.legend(fontsize=7)
    x, y = h.x[0].numpy(), h.y[0].numpy()
    ax2.bar(np.arange(len(x)), x, color=PALETTE[0], alpha=0.8, label=f"x* (support {int((x > 0).sum())})")
    ax2.bar(np.arange(len(y)), -y, color=PALETTE[3], alpha=0.8, label=f"-y* (support {int((y > 0).sum())})")
    ax2.set_xlabel("pure strategy")
    ax2.set_title(f"hybrid solution, gap {h.gap[0]:.1e}", fontsize=9)
    ax2.legend(fontsize=7)
    return fig


def plot_convergence(results: dict, game: int = 0, variants=("alternating/quadratic", "alternating/last",
                                                              "simultaneous/quadratic", "simultaneous/last")):
    """Gap vs mat-vec equivalents for one game of :func:`experiment.run`: hybrid, PRM+ variants, DRS."""
    _check_results(results, ("hybrid", "prm", "prm_cost", "drs", "target", "n", "m"))
    B = len(results["hybrid"]["trace"])
    if not 0 <= checks.nonnegative_int("game", game) < B:
        raise ValueError(f"game must lie in [0, {B - 1}]; got {game}")
    if isinstance(variants, str) or any(v not in results["prm"] for v in variants):
        raise ValueError(f"variants must be a sequence of PRM+ variants among {sorted(results['prm'])}; "
                         f"got {variants!r}")
    fig, ax = figure(width=6.0, height=3.8)
    tr = results["hybrid"]["trace"][game]
    if tr:
        c, g = zip(*tr)
        ax.semilogy(c, _floor(g), "o-", ms=3, color=PALETTE[0], label="hybrid (adaptive switch)")
    for k, v in enumerate(variants):
        ax.semilogy(results["prm_cost"], _floor(results["prm"][v]["gap"][game]), color=PALETTE[1 + k],
                    label=f"PRM+ {v}")
    ax.semilogy(results["drs"]["cost"], _floor(results["drs"]["gap"][game]), color=PALETTE[6], ls="--",
                label="plain DRS")
    ax.axhline(results["target"], color="k", lw=0.8, ls=":", label="target")
    ax.set_xlabel("mat-vec equivalents")
    ax.set_ylabel("duality gap")
    ax.set_title(f"game {game}: {results['n']}x{results['m']}", fontsize=10)
    ax.legend(fontsize=7, loc="lower left")
    return fig


def plot_newton_paths(results: dict):
    """Gap along the successful Newton phase of each game (damped steps hollow, full steps filled)."""
    _check_results(results, ("local",))
    checks.config("results['local']", results["local"], required=("gaps", "full_steps"))
    fig, ax = figure(width=5.0, height=3.4)
    loc = results["local"]
    for b, (g, full) in enumerate(zip(loc["gaps"], loc["full_steps"])):
        ax.semilogy(range(len(g)), _floor(g), color=PALETTE[b % len(PALETTE)], label=f"game {b}")
        for k, f in enumerate(full):
            ax.semilogy([k + 1], _floor([g[k + 1]]), "o", color=PALETTE[b % len(PALETTE)],
                        mfc=PALETTE[b % len(PALETTE)] if f else "white", ms=5)
    ax.set_xlabel("Newton step (hollow: damped by line search)")
    ax.set_ylabel("duality gap of P(w)")
    ax.legend(fontsize=7)
    return fig


def plot_basin(n: int = 40, seed: int = 0, alphas=(1e-4, 1e-3, 1e-2, 0.05, 0.2, 0.5, 1.0)):
    """Final gap of SSN started from ``(1-a) z* + a * uniform`` (z* from the LP), with and without safeguards."""
    from icml26.papers.ssn_games.baselines import lp_solve
    from icml26.papers.ssn_games.games import random_games
    from icml26.papers.ssn_games.method import DRSOperator, default_eta, ssn

    checks.positive_int("n", n)
    checks.seed("seed", seed)
    if isinstance(alphas, (str, bytes)) or not isinstance(alphas, (list, tuple)) or not alphas:
        raise ValueError(f"alphas must be a non-empty sequence of mixing weights in (0, 1]; got {alphas!r}")
    for a in alphas:
        checks.in_range("alphas", a, 0.0, 1.0, low_open=True)
    A = random_games(1, n, n, seed=seed)
    lp = lp_solve(A)
    eta, _ = default_eta(A)
    op = DRSOperator(A, eta)
    fig, ax = figure(width=5.0, height=3.4)
    for k, (label, kw) in enumerate([("no safeguard", dict(safeguard=False)),
                                     ("safeguard + fallback", dict(globalization="fallback")),
                                     ("safeguard + line search", dict(globalization="linesearch"))]):
        finals = []
        for a in alphas:
            x = (1 - a) * lp["x"] + a / n
            y = (1 - a) * lp["y"] + a / n
            r = ssn(A, op.lift(x, y), eta, max_newton=30, **kw)
            finals.append(r.gap[0] if math.isfinite(r.gap[0]) else 10.0)
        ax.loglog(alphas, _floor(finals), "o-", color=PALETTE[k], label=label)
    ax.set_xlabel("distance of warm start from z* (mixing weight a)")
    ax.set_ylabel("gap after <= 30 Newton steps")
    ax.legend(fontsize=7)
    return fig


def plot_scaling(results: dict):
    """Wall-clock of the hybrid and of alternating PRM+ (to 1e-8 or capped) per game size."""
    _check_results(results, ("scaling",))
    checks.config("results['scaling']", results["scaling"], required=("sizes",))
    checks.mapping_items("results['scaling']['sizes']", results["scaling"]["sizes"],
                         keys=("n", "m", "hybrid_seconds", "prm_seconds", "prm_reached"))
    sizes = results["scaling"]["sizes"]
    fig, ax = figure(width=5.0, height=3.4)
    labels = [f"{s['n']}x{s['m']}" for s in sizes]
    xs = np.arange(len(sizes))
    lp = all("lp_seconds" in s for s in sizes)
    w = 0.27 if lp else 0.4
    ax.bar(xs - w / 2 - (w / 2 if lp else 0), [s["hybrid_seconds"] for s in sizes], w, color=PALETTE[0],
           label="hybrid")
    ax.bar(xs + w / 2 - (w / 2 if lp else 0), [s["prm_seconds"] for s in sizes], w, color=PALETTE[1],
           label="alt. PRM+ (hatched: capped, never reached 1e-8)")
    for i, s in enumerate(sizes):
        if not s["prm_reached"]:
            ax.bar([i + w / 2 - (w / 2 if lp else 0)], [s["prm_seconds"]], w, color="none", edgecolor="k",
                   hatch="//")
    if lp:
        ax.bar(xs + w, [s["lp_seconds"] for s in sizes], w, color=PALETTE[2], label="LP (HiGHS, exact vertex)")
    ax.set_yscale("log")
    ax.set_xticks(xs, labels)
    ax.set_ylabel("seconds to gap 1e-8 (wall clock)")
    ax.legend(fontsize=7)
    return fig


def _cell(v, fmt="{:.1f}x"):
    return "-" if v is None else fmt.format(v)


def peer_table(results: dict) -> str:
    """HTML table of every peer the run measured: cost ratios (mat-vec equivalents) and wall clock.

    Rows: the main batch against simultaneous / alternating PRM+ (worst game) and restarted PDHG (per game,
    where run); each other game family (where run); per scaling size, seconds of the hybrid (to 1e-8 and to
    1e-6), HiGHS and alternating PRM+ (to 1e-6). A ratio above 1 means the peer needs more than the hybrid.
    """
    from icml26.papers.ssn_games import claims

    _check_results(results, ("hybrid", "prm", "prm_budget_iterations"))
    rows = [("main batch (Gaussian)", _cell(claims.cost_ratio_paper_baseline(results)),
             _cell(claims.cost_ratio_alternating(results)),
             ", ".join(_cell(v) for v in results["pdhg"]["ratio"]) if results.get("pdhg") else "-")]
    sim, alt = (claims.family_ratios(results, (mode,)) if results.get("families") else {}
                for mode in ("simultaneous", "alternating"))
    rows += [(name, _cell(sim[name]), _cell(alt[name]), "-") for name in sim]
    head = ("<tr><th>games</th><th>sim. PRM+ / hybrid</th><th>alt. PRM+ / hybrid</th>"
            "<th>restarted PDHG / hybrid</th></tr>")
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    html = ("<p>Mat-vec equivalents to gap 1e-10, worst game (a peer that never got there counts its budget, "
            f"10x the hybrid's largest cost):</p><table>{head}{body}</table>")
    if "lp" in results and "seconds" in results["hybrid"]:
        h_s, lp_s = results["hybrid"]["seconds"], results["lp"]["seconds"]
        html += (f"<p>Main batch, wall clock: the hybrid certified all games in {h_s:.3f} s, HiGHS solved them in "
                 f"{lp_s:.3f} s (largest HiGHS gap {max(results['lp']['gap']):.1e}): "
                 f"{'HiGHS' if lp_s < h_s else 'the hybrid'} is {max(h_s, lp_s) / min(h_s, lp_s):.1f}x faster.</p>")
    if results.get("scaling"):
        sizes = results["scaling"]["sizes"]
        head = ("<tr><th>size</th><th>hybrid to 1e-8</th><th>hybrid to 1e-6</th><th>HiGHS</th>"
                "<th>alt. PRM+ to 1e-6</th><th>alt. PRM+ to 1e-8</th></tr>")
        s_ = "{:.3f} s"
        body = "".join(
            f"<tr><td>{s['n']}x{s['m']}</td><td>{_cell(s['hybrid_seconds'], s_)}</td>"
            f"<td>{_cell(s.get('hybrid_seconds_low'), s_)}</td><td>{_cell(s.get('lp_seconds'), s_)}</td>"
            f"<td>{_cell(s.get('prm_seconds_low'), s_)}</td>"
            f"<td>{_cell(s['prm_seconds'], s_) + ('' if s['prm_reached'] else ' (capped)')}</td></tr>"
            for s in sizes)
        html += f"<p>Wall clock on this machine (one thread):</p><table>{head}{body}</table>"
    return html
