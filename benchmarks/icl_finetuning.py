"""Benchmark of the icl_finetuning hot paths, each against its natural peer in one run.

(0) Peer first: fine-tuning steps with our loop (``finetune``: ``HeavyBallSGD`` on ``autograd.grad``) vs the loop a
    user would write with ``torch.optim.SGD(momentum=0.9)``, ``backward`` and ``clip_grad_norm_`` (same model, batch
    and loss).
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
from icml26.papers.icl_finetuning.method import TrainConfig, finetune, set_trainable, theory_params


def _torch_sgd_loop(model, data, cfg, subset, generator):
    """The peer: the same fine-tuning written with torch's optimiser and clipping."""
    params = set_trainable(model, subset)
    opt = torch.optim.SGD(params, lr=cfg.lr, momentum=cfg.momentum)
    for _ in range(cfg.steps):
        z, y = data.prompts(cfg.n_shots, cfg.batch, generator)
        loss = ((model(z[:, -1:]) - y) ** 2).mean()       # the zero-shot loss, as a user would write it
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, cfg.clip)
        opt.step()


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    d, n, batch, reps = (5, 20, 2000, 3) if args.quick else (5, 40, 50000, 10)
    g = torch.Generator(device=device)
    g.manual_seed(0)
    th = sample_tasks(1, d, g, device=device)[0]
    model = theory_params("zs_v", d, theta0=th, device=device).requires_grad_(False)
    z, _ = sample_prompts(th, n, batch, generator=g)
    shots = list(range(n + 1))

    data = PairDataset(th, 10 * batch, generator=g)
    cfg = TrainConfig(steps=5 if args.quick else 20, batch=batch // 4, n_shots=20)
    ours = time_call(lambda: finetune(theory_params("pretrained", d, device=device), data, cfg, subset="all",
                                      generator=g), repeats=3, device=device)
    peer = time_call(lambda: _torch_sgd_loop(theory_params("pretrained", d, device=device), data, cfg, "all", g),
                     repeats=3, device=device)
    print(ratio_line(f"fine-tuning, {cfg.steps} steps of B={cfg.batch}", peer, ours,
                     peer="torch.optim.SGD + clip_grad_norm_", ours="finetune"))

    t_fast = time_call(lambda: model.shot_curve(z, shots), reps, device)
    t_loop = time_call(lambda: [model(truncate_shots(z, k)) for k in shots], reps, device)
    print(ratio_line(f"error-vs-shots curve ({len(shots)} points, B={batch})", t_loop, t_fast,
                     peer="loop over n", ours="prefix sums"))

    t_q = time_call(lambda: model(z), reps, device)
    t_all = time_call(lambda: model.forward_all(z), reps, device)
    print(ratio_line("forward", t_all, t_q, peer="all-token", ours="query-only"))

    steps = {}
    for subset in ("v", "all"):
        m = theory_params("pretrained", d, device=device)
        run = lambda m=m, s=subset: finetune(m, data, cfg, subset=s, generator=g)  # noqa: E731
        steps[subset] = time_call(run, repeats=1, device=device) / cfg.steps
    print(f"fine-tuning step: V only {steps['v'] * 1e3:.2f} ms, all {steps['all'] * 1e3:.2f} ms "
          f"-> value-only vs full: {steps['all'] / steps['v']:.2f}x")


if __name__ == "__main__":
    main()
