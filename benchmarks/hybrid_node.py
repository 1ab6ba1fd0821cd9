"""Benchmark CHyLL++'s hot path: one training step (latent RK4 rollout + five-term loss + backward).

Compares, in one run, the CHyLL++ step against the state-space Neural ODE step of equal parameter
count (its natural peer), and the batched window rollout against a per-window Python loop.
Prints the ratios; no timing assertions.
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.hybrid_node import baselines, method, simulators


def main(argv=None):
    args, dev = parse_args(__doc__.splitlines()[0], argv)
    batch, length, width, reps = (16, 8, 32, 2) if args.quick else (256, 20, 64, 5)
    d = simulators.simulate("ball", batch, length + 1, device=dev)
    win = (d.x - d.x.mean((0, 1))) / d.x.std((0, 1))
    mask = torch.zeros(batch, length, dtype=torch.bool, device=dev)
    model = method.CHyLLpp(2, 5, width).to(dev)
    node = baselines.StateNODE(2, baselines.matched_width(method.n_params(model), 2, 2), 2).to(dev)

    def step_chyllpp():
        model.zero_grad()
        method.chyllpp_loss(model, win, mask, d.dt, method.DEFAULT_WEIGHTS, 0.01).backward()

    def step_node():
        node.zero_grad()
        ((node(win[:, 0], length, d.dt) - win) ** 2).mean().backward()

    def batched():
        with torch.no_grad():
            model.latent(win[:, 0], length, d.dt)

    def loop():
        with torch.no_grad():
            for b in range(batch):
                model.latent(win[b: b + 1, 0], length, d.dt)

    t_c, t_n = time_call(step_chyllpp, reps, dev), time_call(step_node, reps, dev)
    t_b, t_l = time_call(batched, reps, dev), time_call(loop, reps, dev)
    print(f"CHyLL++ step {t_c * 1e3:.1f} ms, state NODE step {t_n * 1e3:.1f} ms: CHyLL++ vs NODE: {t_c / t_n:.2f}x")
    print(ratio_line(f"rollout ({batch} windows x {length} steps)", t_l, t_b, peer="loop", ours="batched"))


if __name__ == "__main__":
    main()
