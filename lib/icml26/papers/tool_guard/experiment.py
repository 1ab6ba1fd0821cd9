"""The attack x defense grid on ToyDojo with the offline embedding planner (note §6, §7.5).

For each suite, strategy and defense: attack success rate (ASR: executed calls carrying attacker ids) and
utility under attack; and benign utility with the clean catalog. Tool-Guard's random tie-break is averaged
over ``tie_seeds`` seeds. ``run(config, device, seed)`` returns plain nested dicts.
"""

from __future__ import annotations

import time

import numpy as np

from icml26.papers.tool_guard import agent, attacks, baselines, env, planner

CONFIGS = {
    "quick": {"suites": ["banking"], "n_tasks": 30, "strategies": ["authority"],
              "defenses": ["none", "spotlight", "sandwich", "tool_filter", "tool_guard"],
              "num_poison": {"banking": 5, "workspace": 3}, "scope": {"banking": 8, "workspace": 5}, "tie_seeds": 1},
    "standard": {"suites": ["banking", "workspace"], "n_tasks": 100,
                 "strategies": ["authority", "append", "redirect", "paraphrase", "bypass"],
                 "defenses": list(baselines.DEFENSES),
                 "num_poison": {"banking": 5, "workspace": 3}, "scope": {"banking": 8, "workspace": 5}, "tie_seeds": 3},
    "full": {"suites": ["banking", "workspace"], "n_tasks": 400,
             "strategies": ["authority", "append", "redirect", "paraphrase", "bypass"],
             "defenses": list(baselines.DEFENSES),
             "num_poison": {"banking": 5, "workspace": 3}, "scope": {"banking": 8, "workspace": 5}, "tie_seeds": 5},
}


def evaluate(tasks, plan, catalog, defense, seeds=(0,)) -> dict:
    """Mean utility and ASR of ``defense`` over ``tasks`` (averaged over tie-break ``seeds``)."""
    u, a, per = [], [], []
    for s in seeds:
        rs = [agent.run_episode(t, plan, catalog, defense, np.random.default_rng([s, i])) for i, t in enumerate(tasks)]
        u.append(np.mean([r["utility"] for r in rs]))
        a.append(np.mean([r["attacked"] for r in rs]))
        per = [{"family": r["family"], "utility": bool(r["utility"]), "attacked": bool(r["attacked"]),
                "status": r["status"]} for r in rs]
    return {"utility": float(np.mean(u)), "asr": float(np.mean(a)), "per_task": per}


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the grid described by ``config`` (see :data:`CONFIGS`)."""
    need = ("suites", "n_tasks", "strategies", "defenses", "num_poison", "scope", "tie_seeds")
    if not isinstance(config, dict) or any(k not in config for k in need):
        raise ValueError(f"config must be a dict with keys {need}")
    bad = [d for d in config["defenses"] if d not in baselines.DEFENSES]
    if bad:
        raise ValueError(f"config['defenses'] has unknown defenses {bad}")
    t0 = time.perf_counter()
    dev = str(device)
    out = {"benign": {}, "grid": {}, "n_tasks": config["n_tasks"], "defenses": list(config["defenses"]),
           "strategies": list(config["strategies"])}
    for suite in config["suites"]:
        plan = planner.EmbeddingPlanner(suite, device=dev, seed=seed)
        tasks = env.make_tasks(suite, config["n_tasks"], seed=seed)
        clean = env.suite_tools(suite)
        defs = {d: baselines.make_defense(d) for d in config["defenses"]}
        seeds = tuple(range(seed, seed + config["tie_seeds"]))
        out["benign"][suite] = {d: evaluate(tasks, plan, clean, D, seeds)["utility"] for d, D in defs.items()}
        out["benign"][suite]["clean_asr"] = evaluate(tasks, plan, clean, baselines.make_defense("none"))["asr"]
        out["grid"][suite] = {}
        for strat in config["strategies"]:
            cat, poisoned = attacks.poison_catalog(clean, suite, strat, config["num_poison"][suite],
                                                   config["scope"][suite], seed=seed)
            out["grid"][suite][strat] = {d: evaluate(tasks, plan, cat, D, seeds) for d, D in defs.items()}
            out["grid"][suite][strat]["poisoned_tools"] = poisoned
    out["seconds"] = time.perf_counter() - t0
    return out
