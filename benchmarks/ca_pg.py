"""Benchmark of the ca_pg hot path: batched Plackett-Luce operations vs naive loops, in one run.

* ``log_prob``: batched reverse log-cumsum-exp vs the batched masked O(NK) logsumexp a user would write (peer,
  printed first) and vs a Python loop over lists and positions (naive, printed last);
* V-PG score: closed-form O(N+K) ``score_logits`` vs autograd through a masked O(NK) log-probability;
* CA-PG: Gumbel-MC ``log rho`` of the chosen items (O(M N)) + backward vs exact quadrature (O(G N K)).

Prints one ratio line per comparison (both times and the speed-up). No timing assertions.
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.ranking import log_inclusion_prob, log_prob, sample_topk, score_logits


def naive_log_prob(scores: torch.Tensor, ranking: torch.Tensor) -> torch.Tensor:
    """Reference loop: for each list and position, a masked logsumexp over the items still left."""
    out = []
    for s, r in zip(scores, ranking):
        left = torch.ones_like(s, dtype=torch.bool)
        total = s.new_zeros(())
        for a in r.tolist():
            total = total + s[a] - torch.logsumexp(s[left], 0)
            left[a] = False
        out.append(total)
    return torch.stack(out)


def masked_log_prob(scores: torch.Tensor, ranking: torch.Tensor) -> torch.Tensor:
    """Batched but O(NK): one masked logsumexp over all N items at each of the K positions."""
    b, n = scores.shape
    k = ranking.shape[1]
    picked = torch.zeros(b, k, n, dtype=torch.bool, device=scores.device)
    onehot = torch.nn.functional.one_hot(ranking, n).bool()
    picked[:, 1:] = torch.cumsum(onehot[:, :-1].int(), dim=1).bool()
    z = torch.logsumexp(scores.unsqueeze(1).masked_fill(picked, -float("inf")), dim=-1)
    return (torch.gather(scores, 1, ranking) - z).sum(-1)


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    g = torch.Generator(device=device).manual_seed(0)
    if args.quick:
        b_loop, n_loop, k_loop = 8, 200, 10
        b, n, k, m, nodes = 32, 300, 30, 16, 128
    else:
        b_loop, n_loop, k_loop = 32, 1000, 50
        b, n, k, m, nodes = 256, 20000 if device.type == "cuda" else 5000, 100, 32, 256
    print(f"device={device.type}")
    s = torch.randn(b, n, generator=g, device=device)
    r = sample_topk(s, k, generator=g)
    # peers a user would write first (batched), the naive Python loop last
    assert torch.allclose(log_prob(s, r), masked_log_prob(s, r), atol=1e-2)
    t_b = time_call(lambda: log_prob(s, r), device=device)
    t_p = time_call(lambda: masked_log_prob(s, r), device=device)
    print(ratio_line(f"log_prob (B={b}, N={n}, K={k})", t_p, t_b, peer="batched masked O(NK) logsumexp",
                     ours="reverse log-cumsum-exp"))

    def autograd_masked():
        x = s.clone().requires_grad_()
        (grad,) = torch.autograd.grad(masked_log_prob(x, r).sum(), x)
        return grad

    assert torch.allclose(score_logits(s, r), autograd_masked(), atol=1e-4)
    t_c = time_call(lambda: score_logits(s, r), device=device)
    t_m = time_call(autograd_masked, device=device)
    print(ratio_line(f"V-PG score (B={b}, N={n}, K={k})", t_m, t_c, peer="masked O(NK) autograd", ours="closed form"))

    chosen = r[:, :1]

    def capg(method):
        def step():
            x = s.clone().requires_grad_()
            lr = log_inclusion_prob(x, chosen, k, method=method, n_mc=m, generator=g, n_nodes=nodes)
            return torch.autograd.grad(lr.sum(), x)[0]
        return step

    bq = 2 if args.quick else 8  # quadrature is heavy: time it on a few lists and scale
    sq, cq = s[:bq], chosen[:bq]

    def quad():
        x = sq.clone().requires_grad_()
        lr = log_inclusion_prob(x, cq, k, method="quadrature", n_nodes=nodes)
        return torch.autograd.grad(lr.sum(), x)[0]

    t_mc = time_call(capg("mc"), device=device)
    t_q = time_call(quad, repeats=1, device=device) * b / bq
    print(ratio_line(f"CA-PG grad log rho (B={b}, N={n}, K={k}; quadrature extrapolated from B={bq})", t_q, t_mc,
                     peer=f"quadrature (G={nodes})", ours=f"Gumbel-MC (M={m})"))

    s = torch.randn(b_loop, n_loop, generator=g, device=device)
    r = sample_topk(s, k_loop, generator=g)
    assert torch.allclose(log_prob(s, r), naive_log_prob(s, r), atol=1e-3)
    t_b = time_call(lambda: log_prob(s, r), device=device)
    t_l = time_call(lambda: naive_log_prob(s, r), repeats=1, device=device)
    print(ratio_line(f"log_prob (B={b_loop}, N={n_loop}, K={k_loop})", t_l, t_b, peer="naive Python loop",
                     ours="batched"))


if __name__ == "__main__":
    main()
