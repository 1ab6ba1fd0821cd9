"""Benchmark of DAG's hot path (docs page §3): one training step of DAG vs the TimeXer-lite, PatchTST-lite and TFT
baselines (the cost of the dual modules and their attention injection; TFT works per time step), and the batched
rolling-window builder vs a Python loop over windows. Prints each ratio; no timing assertions.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.dag_tsfx import baselines, data


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    seq, pred, b, d, reps = (96, 24, 32, 16, 3) if args.quick else (168, 24, 64, 64, 10)
    torch.manual_seed(0)
    x = torch.randn(b, seq, 3, device=device)
    ye, y = torch.randn(b, pred, 2, device=device), torch.randn(b, pred, 1, device=device)

    def step(model):
        opt = torch.optim.Adam(model.parameters(), 1e-3)

        def run():
            out = model(x, ye)
            loss = (out["pred"] - y).abs().mean() + 0.1 * out["aux"]
            opt.zero_grad()
            loss.backward()
            opt.step()
        return run

    times = {}
    for name in ("DAG", "TimeXer", "PatchTST", "TFT"):
        m = baselines.make_model(name, seq, pred, 1, 2, d_model=d, d_ff=2 * d, n_heads=4, patch_len=24,
                                 stride=24).to(device)
        times[name] = time_call(step(m), reps, device)
    for name in ("TimeXer", "PatchTST", "TFT"):
        print(f"train step DAG vs {name}: {times['DAG'] / times[name]:.2f}x the time")

    n = 2000 if args.quick else 20000
    endo, exo = np.random.randn(n, 1).astype(np.float32), np.random.randn(n, 2).astype(np.float32)

    def loop():
        full = np.concatenate([endo, exo], 1)
        xs = [full[s - seq:s] for s in range(seq, n - pred + 1)]
        ys = [full[s:s + pred, :1] for s in range(seq, n - pred + 1)]
        return torch.as_tensor(np.stack(xs)), torch.as_tensor(np.stack(ys))

    t_batched = time_call(lambda: data.make_windows(endo, exo, seq, pred, 0, n), 3, torch.device("cpu"))
    t_loop = time_call(loop, 3, torch.device("cpu"))
    w = data.make_windows(endo, exo, seq, pred, 0, n)
    lx, ly = loop()
    assert torch.equal(w["x"], lx) and torch.equal(w["y"], ly)
    print(ratio_line("rolling windows", t_loop, t_batched, peer="loop", ours="batched (unfold)"))


if __name__ == "__main__":
    main()
