"""Benchmark of AIR's hot path: scoring a pool with step and sample AIS (two forward passes per trace, the
second with the retrieval heads attending uniformly), measured in one run (ratios only).

1. The peer a user would pick first: the same model on materialised ("eager") attention, with the retrieval heads
   made uniform by patching their attention probabilities, which is how one patches a HuggingFace model (here a
   query hook that zeroes the heads' queries, so every visible score is equal and the softmax is uniform).
   Ours: torch's fused attention kernel for both passes, the masked heads' output replaced by the running mean of
   their values (uniform attention over the visible positions, without forming any attention matrix).
2. The naive loop second: the same batched code called one trace at a time.

Both comparisons check that the scores agree.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from icml26.bench import paired_times, parse_args, ratio_line, time_call
from icml26.nn.tiny_gpt import TinyGPT
from icml26.papers.air_reasoning import method, tasks, training

HEADS = [(1, 0), (1, 1)]


def eager_copy(model: TinyGPT) -> TinyGPT:
    """The same weights on the materialised attention path."""
    eager = TinyGPT(replace(model.cfg, fused=False)).to(next(model.parameters()).device).eval()
    eager.load_state_dict(model.state_dict())
    return eager


def eager_scores(eager: TinyGPT, idx: torch.Tensor, step: torch.Tensor) -> torch.Tensor:
    """Sample AIS on the materialised attention path, with the masked heads' queries zeroed (the peer)."""
    base = method.step_losses(eager, idx, step)
    removers = []
    for layer in {h[0] for h in HEADS}:
        sel = [h for lay, h in HEADS if lay == layer]

        def zero_q(module, q, k, v, sel=sel):
            q = q.clone()
            q[:, sel] = 0
            return q, k, v

        removers.append(eager.blocks[layer].attn.add_qkv_hook(zero_q))
    ref = method.step_losses(eager, idx, step)
    for rm in removers:
        rm()
    resp = (step[:, 1:] >= 0).double()
    n = resp.sum(1)
    lb, lr = (base[2] * resp).sum(1) / n, (ref[2] * resp).sum(1) / n
    return method.influence(lr, lb)


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    torch.set_num_threads(1) if device.type == "cpu" else None
    n, d, reps = (48, 32, 1) if args.quick else (1000, 64, 3)
    vocab = tasks.Vocab(12)
    torch.manual_seed(0)
    model = training.make_model(vocab, d, 4, 2, 96, device).eval()
    pool = tasks.natural_pool(n, vocab, generator=torch.Generator().manual_seed(0)).to(device)

    def ours():
        return method.attention_influence(model, HEADS, pool.idx, pool.step)["sample_ais"]

    eager = eager_copy(model)

    def peer():
        return eager_scores(eager, pool.idx, pool.step)

    def loop():
        return torch.cat([method.attention_influence(model, HEADS, pool.idx[i: i + 1, : int(pool.lengths[i])],
                                                     pool.step[i: i + 1, : int(pool.lengths[i])])["sample_ais"]
                          for i in range(n)])

    t_peer, t_ours = paired_times(peer, ours, reps, device)
    agree = float((ours() - peer()).abs().max())
    print(ratio_line(f"AIS scoring of {n} traces on {device} (max |difference| {agree:.1e})", t_peer, t_ours,
                     peer="eager attention with patched probabilities", ours="fused attention + running-mean heads"))
    t_loop = time_call(loop, 1, device)
    agree = float((ours() - loop()).abs().max())
    print(ratio_line(f"AIS scoring of {n} traces on {device} (max |difference| {agree:.1e})", t_loop, t_ours,
                     peer="one trace at a time", ours="batched"))


if __name__ == "__main__":
    main()
