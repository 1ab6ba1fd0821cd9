"""Benchmark of the icl_finetuning hot paths, each against its natural peer in one run.

(1) Evaluation of the error-vs-shots curve: one pass with prefix sums over the per-token attention terms
    (``LinearAttentionICL.shot_curve``) vs re-running the model on each truncated prompt (a loop over n).
(2) The query-only forward (what training needs) vs the full token-by-token attention output (``forward_all``).
(3) One fine-tuning step of value-only (the paper's method) vs all parameters (the baseline), same batch.
Prints each ratio; no timing assertions.
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.icl_finetuning.data import PairDataset, sample_prompts, sample_tasks, truncate_shots
from icml26.papers.icl_finetuning.method import TrainConfig, finetune, theory_params


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    d, n, batch, reps = (5, 20, 2000, 3) if args.quick else (5, 40, 50000, 10)
    g = torch.Generator(device=device)
    g.manual_seed(0)
    th = sample_tasks(1, d, g, device=device)[0]
    model = theory_params("zs_v", d, theta0=th, device=device).requires_grad_(False)
    z, _ = sample_prompts(th, n, batch, generator=g)
    shots = list(range(n + 1))

    t_fast = time_call(lambda: model.shot_curve(z, shots), reps, device)
    t_loop = time_call(lambda: [model(truncate_shots(z, k)) for k in shots], reps, device)
    print(ratio_line(f"error-vs-shots curve ({len(shots)} points, B={batch})", t_loop, t_fast,
                     peer="loop over n", ours="prefix sums"))

    t_q = time_call(lambda: model(z), reps, device)
    t_all = time_call(lambda: model.forward_all(z), reps, device)
    print(ratio_line("forward", t_all, t_q, peer="all-token", ours="query-only"))

    data = PairDataset(th, 10 * batch, generator=g)
    cfg = TrainConfig(steps=5 if args.quick else 20, batch=batch // 4, n_shots=20)
    steps = {}
    for subset in ("v", "all"):
        m = theory_params("pretrained", d, device=device)
        run = lambda m=m, s=subset: finetune(m, data, cfg, subset=s, generator=g)  # noqa: E731
        steps[subset] = time_call(run, repeats=1, device=device) / cfg.steps
    print(f"fine-tuning step: V only {steps['v'] * 1e3:.2f} ms, all {steps['all'] * 1e3:.2f} ms "
          f"-> value-only vs full: {steps['all'] / steps['v']:.2f}x")


if __name__ == "__main__":
    main()
