"""Tool-Guard's cost against the peer a user would run (the same agent without defense), then the planner's
batched description encoding against a one-sentence-at-a-time loop. Ratios measured in one run."""

from icml26.bench import paired_times, parse_args, ratio_line
from icml26.nn.sentence_encoder import default_encoder
from icml26.papers.tool_guard import agent, attacks, baselines, env, planner


def main(argv=None):
    args, device = parse_args(__doc__, argv)

    n = 12 if args.quick else 100
    plan = planner.EmbeddingPlanner("banking", device=args.device)
    tasks = env.make_tasks("banking", n, seed=0)
    cat, _ = attacks.poison_catalog(env.suite_tools("banking"), "banking", "adaptive", 5, 8, seed=0)
    none, guard = baselines.make_defense("none"), baselines.make_defense("tool_guard")
    peer, ours = paired_times(lambda: [agent.run_episode(t, plan, cat, none) for t in tasks],
                              lambda: [agent.run_episode(t, plan, cat, guard) for t in tasks], 1, device,
                              rounds=3 if args.quick else 5)
    print(ratio_line(f"{n} banking tasks, adaptive poison", peer, ours, "no defense", "Tool-Guard"))
    enc = default_encoder(args.device)
    sents = [s for t in cat for s in env.split_sentences(t.description)]

    def fresh(batches):  # the encoder caches by text: empty the cache so every call embeds
        enc.cache.clear()
        return [enc.encode(b) for b in batches]

    loop, batched = paired_times(lambda: fresh([[s] for s in sents]), lambda: fresh([sents]), 3, device)
    print(ratio_line(f"{len(sents)} description sentences", loop, batched, "one at a time", "batched"))
    return {"tool_guard_vs_none": peer / ours, "batched_vs_loop": loop / batched}


if __name__ == "__main__":
    main()
