"""Benchmark of AIR's hot path: scoring a pool with step/sample AIS (two forward passes per sample, note §3.3).

Times, in one run, batched :func:`method.attention_influence` over the whole pool against a naive loop that
scores one trace at a time (what a per-sample script would do), and prints the ratio. No timing assertions.
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, time_call
from icml26.papers.air_reasoning import method, tasks, training


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    torch.set_num_threads(1) if device.type == "cpu" else None
    n, d = (48, 32) if args.quick else (1000, 64)
    vocab = tasks.Vocab(12)
    model = training.make_model(vocab, d, 4, 2, 64, device).eval()
    pool = tasks.make_pool(n, vocab, generator=torch.Generator().manual_seed(0)).to(device)
    heads = [(1, 0), (1, 1)]

    def batched():
        return method.attention_influence(model, heads, pool.idx, pool.step)

    def loop():
        out = []
        for i in range(n):
            t = int(pool.lengths[i])
            out.append(method.attention_influence(model, heads, pool.idx[i: i + 1, :t], pool.step[i: i + 1, :t]))
        return out

    tb, tl = time_call(batched, 1, device), time_call(loop, 1, device)
    a = batched()["sample_ais"]
    b = torch.cat([o["sample_ais"] for o in loop()])
    print(f"AIS scoring of {n} traces on {device}: batched {tb * 1e3:.1f} ms ({n / tb:.0f} samples/s), "
          f"per-sample loop {tl * 1e3:.1f} ms ({n / tl:.0f} samples/s)")
    print(f"batched vs loop: {tl / tb:.1f}x (max |difference| {float((a - b).abs().max()):.2e})")


if __name__ == "__main__":
    main()
