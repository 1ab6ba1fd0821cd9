"""Benchmark of the Strategic PFN hot path.

1. SPN on ``R`` tasks (strategic context + best responses + predictions), batched over tasks in one
   tensor program vs a Python loop over the tasks;
2. PFN inference with the context encoded once and queries attending to it (``TinyPFN.predict``) vs
   the stock ``nn.TransformerEncoderLayer`` over all tokens with the context-only mask.

Run: ``python benchmarks/strategic_pfn.py [--device cpu|cuda] [--quick]``. No timing assertions.
"""

from __future__ import annotations

import argparse
import time

import torch

from icml26.nn.pfn import TinyPFN
from icml26.papers.strategic_pfn import data, method


def _time(fn, repeat: int, device) -> float:
    fn()  # warm-up
    if device.type == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(repeat):
        fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t) / repeat


def spn_pipeline(model, task, budget=1.0):
    h0 = method.pfn_rule(model, task.x_ctx, task.y_ctx)
    x_m = method.best_response(h0, task.x_test, task.cost, budget)
    factory = method.context_rule_factory(model, task.x_ctx, task.y_ctx, task.x_ctx.shape[1])
    xs, ys = method.strategic_context(factory, task.x_ctx, task.y_ctx, task.cost, method.Agents(budget), cross_fit=4)
    return method.pfn_rule(model, xs, ys)(x_m)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (< 10 s)")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda was asked for, but CUDA is not available")
    R, n_ctx, n_test, repeat = (4, 64, 200, 1) if args.quick else (16, 256, 2000, 3)
    torch.manual_seed(0)
    dm = 32 if args.quick else 64
    model = TinyPFN(d_max=8, d_model=dm, n_layers=2, n_heads=4, d_ff=2 * dm).to(device).eval()
    task = data.strategic_gauss(R, n_ctx, n_test, seed=0, device=device)
    with torch.no_grad():
        batched = _time(lambda: spn_pipeline(model, task), repeat, device)

        def loop():
            for i in range(R):
                sub = data.StrategicTask(*(t[i:i + 1] for t in (task.x_ctx, task.y_ctx, task.x_test, task.y_test,
                                                                task.x_extra, task.y_extra)), task.cost)
                spn_pipeline(model, sub)

        looped = _time(loop, repeat, device)
        print(f"SPN pipeline, {R} tasks x {n_ctx} context x {n_test} test rows on {device.type}: "
              f"batched {batched * 1e3:.1f} ms, loop {looped * 1e3:.1f} ms")
        print(f"batched vs loop: {looped / batched:.1f}x")
        xq = task.x_test
        fast = _time(lambda: model.predict(task.x_ctx, task.y_ctx, xq), repeat, device)
        masked = _time(lambda: model.forward_masked(task.x_ctx, task.y_ctx, xq), repeat, device)
        print(f"PFN inference ({n_test} queries): cached context {fast * 1e3:.1f} ms, "
              f"masked encoder {masked * 1e3:.1f} ms")
        print(f"cached-context vs masked encoder: {masked / fast:.1f}x")


if __name__ == "__main__":
    main()
