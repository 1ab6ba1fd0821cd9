"""Benchmark of the Strategic PFN hot path.

1. SPN on ``R`` tasks (strategic context + best responses + predictions), batched over tasks in one
   tensor program vs a Python loop over the tasks;
2. PFN inference with the context encoded once and queries attending to it (``TinyPFN.predict``) vs
   the stock ``nn.TransformerEncoderLayer`` over all tokens with the context-only mask.

Run: ``python benchmarks/strategic_pfn.py [--device cpu|cuda] [--quick]``. No timing assertions.
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, ratio_line, time_call
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
    R, n_ctx, n_test, repeat = (4, 64, 200, 1) if args.quick else (16, 256, 2000, 3)
    torch.manual_seed(0)
    dm = 32 if args.quick else 64
    model = TinyPFN(d_max=8, d_model=dm, n_layers=2, n_heads=4, d_ff=2 * dm).to(device).eval()
    task = data.strategic_gauss(R, n_ctx, n_test, seed=0, device=device)
    with torch.no_grad():
        batched = time_call(lambda: spn_pipeline(model, task), repeat, device)

        def loop():
            for i in range(R):
                sub = data.StrategicTask(*(t[i:i + 1] for t in (task.x_ctx, task.y_ctx, task.x_test, task.y_test,
                                                                task.x_extra, task.y_extra)), task.cost)
                spn_pipeline(model, sub)

        looped = time_call(loop, repeat, device)
        print(ratio_line(f"SPN pipeline, {R} tasks x {n_ctx} context x {n_test} test rows on {device.type}",
                         looped, batched, peer="loop", ours="batched"))
        xq = task.x_test
        fast = time_call(lambda: model.predict(task.x_ctx, task.y_ctx, xq), repeat, device)
        masked = time_call(lambda: model.forward_masked(task.x_ctx, task.y_ctx, xq), repeat, device)
        print(ratio_line(f"PFN inference ({n_test} queries)", masked, fast, peer="masked encoder",
                         ours="cached context"))


if __name__ == "__main__":
    main()
