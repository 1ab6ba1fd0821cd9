"""Plots for the notebooks and widgets: the attack x defense matrix and a step-by-step episode trace."""

from __future__ import annotations

import numpy as np

from icml26 import checks
from icml26.viz import figure

_PLANNERS: dict = {}


def _planner(suite):
    from icml26.papers.tool_guard.planner import EmbeddingPlanner

    if suite not in _PLANNERS:
        _PLANNERS[suite] = EmbeddingPlanner(suite)
    return _PLANNERS[suite]


def _check_attack(suite, strategy, num_poison, scope, extra_strategies=()) -> None:
    from icml26.papers.tool_guard import attacks, env

    checks.one_of("suite", suite, env.SUITES)
    checks.one_of("strategy", strategy, tuple(attacks.STRATEGIES) + tuple(extra_strategies))
    if strategy in extra_strategies:
        return  # the clean catalog: nothing is poisoned
    n_tools = len(env.suite_tools(suite))
    if not checks._is_int(num_poison) or not 0 <= num_poison < n_tools:
        raise ValueError(f"num_poison must be an integer in [0, {n_tools - 1}] for {suite}; got {num_poison!r}")
    if not checks._is_int(scope) or not 1 <= scope <= n_tools:
        raise ValueError(f"scope must be an integer in [1, {n_tools}] for {suite}; got {scope!r}")


def _check_grid_results(results, suite, strategy=None) -> None:
    checks.config("results", results, required=("grid",))
    if not isinstance(results["grid"], dict) or suite not in results["grid"] or not results["grid"][suite]:
        raise ValueError(f"results['grid'] holds no entry for suite {suite!r}")
    if strategy is not None and strategy not in results["grid"][suite]:
        raise ValueError(f"results['grid'][{suite!r}] holds no entry for strategy {strategy!r}")


def grid(suite="banking", strategy="authority", num_poison=5, scope=8, n_tasks=12, defenses=None, seed=0) -> dict:
    """ASR and utility of each defense on ``n_tasks`` tasks (small; for the explorer)."""
    from icml26.papers.tool_guard import attacks, baselines, env, experiment

    _check_attack(suite, strategy, num_poison, scope)
    checks.positive_int("n_tasks", n_tasks)
    checks.seed("seed", seed)
    if defenses is not None:
        if isinstance(defenses, (str, bytes)) or not hasattr(defenses, "__iter__"):
            raise ValueError(f"defenses must be a list of defense names or None; got {defenses!r}")
        for d in defenses:
            checks.one_of("defenses", d, baselines.DEFENSES)
    defenses = defenses or list(baselines.DEFENSES)
    plan = _planner(suite)
    tasks = env.make_tasks(suite, n_tasks, seed=seed)
    clean = env.suite_tools(suite)
    cat, _ = attacks.poison_catalog(clean, suite, strategy, num_poison, scope, seed=seed)
    return {d: experiment.evaluate(tasks, plan, cat, baselines.make_defense(d)) for d in defenses}


def plot_matrix(suite="banking", strategy="authority", num_poison=5, scope=8, n_tasks=8, results=None):
    """Bars of ASR and utility per defense for one suite / strategy (or from an experiment ``results``)."""
    if results is not None:
        _check_grid_results(results, suite, strategy)
        g = {d: v for d, v in results["grid"][suite][strategy].items() if d != "poisoned_tools"}
    else:
        _check_attack(suite, strategy, num_poison, scope)
        checks.positive_int("n_tasks", n_tasks)
        g = grid(suite, strategy, num_poison, scope, n_tasks)
    names = list(g)
    fig, ax = figure(width=6.5, height=3.0)
    x = np.arange(len(names))
    ax.bar(x - 0.2, [g[d]["asr"] for d in names], 0.4, label="attack success")
    ax.bar(x + 0.2, [g[d]["utility"] for d in names], 0.4, label="utility under attack")
    ax.set_xticks(x, names, rotation=25)
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{suite}, {strategy} poison ({num_poison} tools x scope {scope})" if results is None
                 else f"{suite}, {strategy} poison")
    ax.legend(loc="upper right", fontsize=8)
    return fig


def plot_heatmap(results, suite="banking", key="asr"):
    """Strategy x defense heat map of ``key`` ("asr", "usr": unrequested side effects, or "utility") from an
    experiment's results."""
    checks.one_of("key", key, ("asr", "usr", "utility"))
    _check_grid_results(results, suite)
    g = results["grid"][suite]
    strats = list(g)
    defs = [d for d in g[strats[0]] if d != "poisoned_tools"]
    m = np.array([[g[s][d][key] for d in defs] for s in strats])
    fig, ax = figure(width=6.5, height=0.5 + 0.45 * len(strats))
    im = ax.imshow(m, vmin=0, vmax=1, cmap="Greens" if key == "utility" else "Reds", aspect="auto")
    ax.set_xticks(range(len(defs)), defs, rotation=25)
    ax.set_yticks(range(len(strats)), strats)
    for i in range(len(strats)):
        for j in range(len(defs)):
            ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=8)
    title = {"asr": "attack success", "usr": "unrequested side effects", "utility": "utility under attack"}[key]
    ax.set_title(f"{suite}: {title}")
    fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def episode(suite="banking", task_index=1, strategy="authority", defense="tool_guard", num_poison=5, scope=8,
            seed=0) -> dict:
    from icml26.papers.tool_guard import agent, attacks, baselines, env

    _check_attack(suite, strategy, num_poison, scope, extra_strategies=("clean",))
    checks.nonnegative_int("task_index", task_index)
    checks.one_of("defense", defense, baselines.DEFENSES)
    checks.seed("seed", seed)
    tasks = env.make_tasks(suite, max(task_index + 1, 1), seed=seed)
    clean = env.suite_tools(suite)
    cat = clean if strategy == "clean" else attacks.poison_catalog(clean, suite, strategy, num_poison, scope, seed)[0]
    return agent.run_episode(tasks[task_index], _planner(suite), cat, baselines.make_defense(defense),
                             np.random.default_rng(seed))


def plot_trace(suite="banking", task_index=1, strategy="authority", defense="tool_guard", step=99):
    """Step-by-step trace of one task: each proposal, its context (A/B/full), verdict and the influenced list."""
    checks.positive_int("step", step)
    ep = episode(suite, task_index, strategy, defense)
    tr = [s for s in ep["trace"] if "event" in s][: max(step, 1)]
    fig, ax = figure(width=8.0, height=0.6 + 0.42 * (len(tr) + 2))
    fig.set_layout_engine("none")  # a text-only panel: constrained layout has no axes decorations to fit
    ax.axis("off")
    from icml26.papers.tool_guard.env import make_tasks

    text = make_tasks(suite, task_index + 1, seed=0)[task_index].text
    ax.text(0, 1, f"task: {text}  [{defense}, {strategy}]", fontsize=9, weight="bold", va="top",
            transform=ax.transAxes)
    colors = {"executed": "#2a7f2a", "blocked": "#b22222", "done": "#333333", "abort": "#b22222"}
    n = len(tr) + 2
    for i, s in enumerate(tr):
        ev = s.get("event")
        if ev in ("executed", "blocked"):
            v = s.get("verdict") or {}
            args = ", ".join(f"{k}={val}" for k, val in s.get("args", {}).items())
            line = (f"{i + 1}. [{s.get('cell')}] {ev.upper()} {s['name']}({args[:60]})  <- {s.get('why')}; "
                    f"validator: {v.get('reason', 'n/a')}")
            if ev == "blocked":
                line += f"  => influenced: {s.get('influenced_after')}"
        else:
            line = f"{i + 1}. [{s.get('cell')}] {ev}"
        ax.text(0, 1 - (i + 1.2) / n, line, fontsize=7.5, va="top", color=colors.get(ev, "#333333"),
                transform=ax.transAxes, family="monospace")
    ax.text(0, 1 - (len(tr) + 1.3) / n, f"attack succeeded: {ep['attacked']}   utility: {ep['utility']}   "
            f"influenced list: {ep['influenced']}", fontsize=8.5, va="top", transform=ax.transAxes)
    return fig
