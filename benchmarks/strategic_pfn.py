"""Benchmark of the Strategic PFN hot path.

1. PFN inference with the context encoded once and queries attending to it (``TinyPFN.predict``) vs
   the stock ``nn.TransformerEncoderLayer`` over all tokens with the context-only mask.
2. SPN on ``R`` tasks (strategic context + best responses + predictions), batched over tasks in one
   tensor program vs a Python loop over the tasks, at two sizes: the experiment's (5 tasks x 256 context x 4000
   test rows) and many small tasks (64 x 32 x 64, the meta-training regime).

Measured on 2 CPU cores (2026-12-03, three runs): batched over tasks is 1.0-1.2x the loop at the experiment's size
and 8.3-9.8x on many small tasks. At the experiment's size each task's attention (4000 queries x 256 keys) already
keeps both cores busy, so the loop's Python and dispatch overhead is 4-13% of the run and batching cannot win more
than that on a CPU; on small tasks the overhead is most of the loop's time. A GPU, which one task does not fill, is
where batching the experiment's tasks pays.

Run: ``python benchmarks/strategic_pfn.py [--device cpu|cuda] [--quick]``. No timing assertions.
"""

from __future__ import annotations

import torch

from icml26.bench import paired_times, parse_args, ratio_line, time_call
from icml26.nn.pfn import TinyPFN
from icml26.papers.strategic_pfn import data, method


def spn_pipeline(model, task, budget=1.0):
    h0 = method.pfn_rule(model, task.x_ctx, task.y_ctx)
    x_m = method.best_response(h0, task.x_test, task.cost, budget)
    factory = method.context_rule_factory(model, task.x_ctx, task.y_ctx, task.x_ctx.shape[1])
    xs, ys = method.strategic_context(factory, task.x_ctx, task.y_ctx, task.cost, method.Agents(budget), cross_fit=4)
    return method.pfn_rule(model, xs, ys)(x_m)


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda was asked for, but CUDA is not available")
    sizes = [(2, 32, 64), (8, 16, 32)] if args.quick else [(5, 256, 4000), (64, 32, 64)]
    repeat = 1 if args.quick else 3
    torch.manual_seed(0)
    dm = 32 if args.quick else 64
    model = TinyPFN(d_max=8, d_model=dm, n_layers=2, n_heads=4, d_ff=2 * dm).to(device).eval()
    with torch.no_grad():
        # the real peer first: the stock encoder layer over all tokens with the context-only mask
        R, n_ctx, n_test = sizes[0]
        task = data.strategic_gauss(R, n_ctx, n_test, seed=0, device=device)
        fast = time_call(lambda: model.predict(task.x_ctx, task.y_ctx, task.x_test), repeat, device)
        masked = time_call(lambda: model.forward_masked(task.x_ctx, task.y_ctx, task.x_test), repeat, device)
        print(ratio_line(f"PFN inference ({R} tasks x {n_test} queries)", masked, fast, peer="masked encoder",
                         ours="cached context"))
        for R, n_ctx, n_test in sizes:
            task = data.strategic_gauss(R, n_ctx, n_test, seed=0, device=device)

            def loop(task=task, R=R):
                for i in range(R):
                    sub = data.StrategicTask(*(t[i:i + 1] for t in (task.x_ctx, task.y_ctx, task.x_test,
                                                                    task.y_test, task.x_extra, task.y_extra)),
                                             task.cost)
                    spn_pipeline(model, sub)

            looped, batched = paired_times(loop, lambda task=task: spn_pipeline(model, task), repeat, device,
                                           rounds=1 if args.quick else 3)
            print(ratio_line(f"SPN pipeline, {R} tasks x {n_ctx} context x {n_test} test rows on {device.type}",
                             looped, batched, peer="loop", ours="batched"))


if __name__ == "__main__":
    main()
