"""Tasks per second of the offline agent with and without Tool-Guard (ratio measured in one run)."""

import argparse
import time


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    from icml26.papers.tool_guard import agent, attacks, baselines, env, planner

    n = 12 if args.quick else 100
    plan = planner.EmbeddingPlanner("banking", device=args.device)
    tasks = env.make_tasks("banking", n, seed=0)
    cat, _ = attacks.poison_catalog(env.suite_tools("banking"), "banking", "authority", 5, 8, seed=0)
    rates = {}
    for name in ("none", "tool_guard", "none", "tool_guard"):  # second pass: warm caches
        d = baselines.make_defense(name)
        t0 = time.perf_counter()
        for t in tasks:
            agent.run_episode(t, plan, cat, d)
        rates[name] = n / (time.perf_counter() - t0)
    print(f"tasks/s  no defense: {rates['none']:.1f}  Tool-Guard: {rates['tool_guard']:.1f}")
    print(f"no defense vs Tool-Guard: {rates['none'] / rates['tool_guard']:.2f}x")
    return rates


if __name__ == "__main__":
    main()
