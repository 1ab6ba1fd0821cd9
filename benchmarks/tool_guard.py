"""Tasks per second of the offline agent with and without Tool-Guard (ratio measured in one run)."""

from icml26.bench import parse_args, time_call
from icml26.papers.tool_guard import agent, attacks, baselines, env, planner


def main(argv=None):
    args, device = parse_args(__doc__, argv)

    n = 12 if args.quick else 100
    plan = planner.EmbeddingPlanner("banking", device=args.device)
    tasks = env.make_tasks("banking", n, seed=0)
    cat, _ = attacks.poison_catalog(env.suite_tools("banking"), "banking", "authority", 5, 8, seed=0)
    rates = {}
    for name in ("none", "tool_guard"):  # the untimed warm-up call fills the embedding caches
        d = baselines.make_defense(name)
        rates[name] = n / time_call(lambda d=d: [agent.run_episode(t, plan, cat, d) for t in tasks], 1, device)
    print(f"tasks/s  no defense: {rates['none']:.1f}  Tool-Guard: {rates['tool_guard']:.1f}")
    print(f"no defense vs Tool-Guard: {rates['none'] / rates['tool_guard']:.2f}x")
    return rates


if __name__ == "__main__":
    main()
