"""Benchmark for APO (arXiv 2510.04142): one stage-2 step, multi-negative PL batched vs pairwise-expanded DPO.

The released recipe feeds an off-the-shelf DPO trainer N (t+, tau_u) rows per input, i.e. N forward
passes of (chosen, rejected) pairs that recompute t+ each time; APO's PL loss scores t+ and all N
negatives in one batched forward. Both steps include the backward pass and an optimiser update.
"""

from __future__ import annotations

import copy

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.nn.tiny_gpt import sequence_logprob
from icml26.papers.apo_alignment.baselines import pairwise_dpo_loss
from icml26.papers.apo_alignment.drifting_teachers import make_world
from icml26.papers.apo_alignment.method import Vocab, apo_loss, implicit_reward
from icml26.papers.apo_alignment.training import build_data, make_model, sequence_logprobs, target_mask


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    k, n, batch, d, reps = (3, 5, 16, 32, 3) if args.quick else (6, 5, 64, 128, 10)
    vocab = Vocab(k, n)
    world = make_world(batch, k, n, generator=torch.Generator(device=device).manual_seed(0))
    data = build_data(world, vocab)
    torch.manual_seed(0)
    ref = make_model(vocab, d_model=d, n_layers=2, n_heads=4, device=device)
    p = vocab.prompt_len
    flat = torch.cat([data["pos"][:, None], data["src"]], 1)
    t = flat.shape[-1]
    ref_lp = sequence_logprobs(ref, flat.reshape(-1, t), p).view(batch, 1 + n)
    mask = data["neg_mask"]

    def step_factory(kind):
        policy = copy.deepcopy(ref)
        opt = torch.optim.Adam(policy.parameters(), lr=1e-4)

        def batched():
            seq = flat.reshape(-1, t)
            lp = sequence_logprob(policy, seq, target_mask(seq, p)).view(batch, 1 + n)
            r = implicit_reward(lp, ref_lp, 0.1)
            loss = apo_loss(r[:, 0], r[:, 1:], mask).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

        def expanded():
            opt.zero_grad()
            for u in range(n):  # one DPO row (t+, tau_u) per negative, as an expanded data set would
                seq = torch.stack([flat[:, 0], flat[:, 1 + u]], 1).reshape(-1, t)
                lp = sequence_logprob(policy, seq, target_mask(seq, p)).view(batch, 2)
                r = implicit_reward(lp, ref_lp[:, [0, 1 + u]], 0.1)
                loss = pairwise_dpo_loss(r[:, 0], r[:, 1:], mask[:, u:u + 1]).mean() / n
                loss.backward()
            opt.step()

        return batched if kind == "pl" else expanded

    t_pl = time_call(step_factory("pl"), reps, device)
    t_pair = time_call(step_factory("pairwise"), reps, device)
    print(f"APO stage-2 step, batch {batch} cases x {n} negatives, K={k}, d_model={d}, device {device}")
    print(ratio_line("stage-2 step", t_pair, t_pl, peer="pairwise-expanded DPO loop", ours="batched multi-negative PL"))
    return {"pl_s": t_pl, "pairwise_s": t_pair}


if __name__ == "__main__":
    main()
