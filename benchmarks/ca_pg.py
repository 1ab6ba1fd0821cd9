"""Benchmark of the ca_pg hot path: batched Plackett-Luce operations vs naive loops, in one run.

* ``log_prob``: batched reverse log-cumsum-exp vs a Python loop over lists and positions (masked logsumexp);
* V-PG score: closed-form O(N+K) ``score_logits`` vs autograd through a masked O(NK) log-probability;
* CA-PG: Gumbel-MC ``log rho`` of the chosen items (O(M N)) + backward vs exact quadrature (O(G N K)).

Prints ``<name>: batched vs loop: <ratio>x``. No timing assertions.
"""

from __future__ import annotations

import argparse
import time

import torch

from icml26.ranking import log_inclusion_prob, log_prob, sample_topk, score_logits


def _time(fn, device, repeat: int = 3) -> float:
    fn()  # warm-up
    if device.type == "cuda":
        torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t)
    return best


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (< 10 s)")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    g = torch.Generator(device=device).manual_seed(0)
    if args.quick:
        b_loop, n_loop, k_loop = 8, 200, 10
        b, n, k, m, nodes = 32, 300, 30, 16, 128
    else:
        b_loop, n_loop, k_loop = 32, 1000, 50
        b, n, k, m, nodes = 256, 20000 if device.type == "cuda" else 5000, 100, 32, 256
    print(f"device={device.type}")

    s = torch.randn(b_loop, n_loop, generator=g, device=device)
    r = sample_topk(s, k_loop, generator=g)
    assert torch.allclose(log_prob(s, r), naive_log_prob(s, r), atol=1e-3)
    t_b = _time(lambda: log_prob(s, r), device)
    t_l = _time(lambda: naive_log_prob(s, r), device, repeat=1)
    print(f"log_prob (B={b_loop}, N={n_loop}, K={k_loop}): batched vs loop: {t_l / t_b:.1f}x "
          f"({t_b * 1e3:.2f} ms vs {t_l * 1e3:.1f} ms)")

    s = torch.randn(b, n, generator=g, device=device)
    r = sample_topk(s, k, generator=g)

    def autograd_masked():
        x = s.clone().requires_grad_()
        (grad,) = torch.autograd.grad(masked_log_prob(x, r).sum(), x)
        return grad

    assert torch.allclose(score_logits(s, r), autograd_masked(), atol=1e-4)
    t_c = _time(lambda: score_logits(s, r), device)
    t_m = _time(autograd_masked, device)
    print(f"V-PG score (B={b}, N={n}, K={k}): closed form vs masked O(NK) autograd: {t_m / t_c:.1f}x "
          f"({t_c * 1e3:.2f} ms vs {t_m * 1e3:.1f} ms)")

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

    t_mc = _time(capg("mc"), device)
    t_q = _time(quad, device, repeat=1) * b / bq
    print(f"CA-PG grad log rho (B={b}, N={n}, K={k}): Gumbel-MC (M={m}) vs quadrature (G={nodes}): "
          f"{t_q / t_mc:.1f}x ({t_mc * 1e3:.2f} ms vs {t_q * 1e3:.0f} ms, quadrature extrapolated from B={bq})")


if __name__ == "__main__":
    main()
