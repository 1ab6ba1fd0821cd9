"""Benchmark of the attention-sink hot path (note §3.4: sink-aware training overhead reported below 2%).

Times, in one run: (1) a training step with the auxiliary balance loss vs the same step without it;
(2) our materialised attention that also returns LSE and gates vs torch's fused scaled_dot_product_attention;
(3) batched head importance + CV vs a Python loop over layers and heads. Prints each ratio.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26.bench import parse_args, ratio_line, time_call
from icml26.nn.attention import attention
from icml26.papers.attention_sink import baselines, method


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    d, h, n_layers, ctx, batch, reps = (32, 4, 2, 32, 8, 3) if args.quick else (128, 8, 4, 128, 32, 10)
    torch.manual_seed(0)
    model = baselines.make_model("vanilla", d, h, n_layers, ctx, device)
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    idx = torch.randint(0, 256, (batch, ctx), device=device)

    def step(lam):
        def run():
            total = method.sink_aware_loss(model, idx, lam=lam)[0]
            opt.zero_grad()
            total.backward()
            opt.step()
        return run

    t_base, t_aux = time_call(step(0.0), reps, device), time_call(step(0.1), reps, device)
    print(f"train step without aux: {t_base * 1e3:.2f} ms, with aux: {t_aux * 1e3:.2f} ms "
          f"-> aux overhead {100 * (t_aux / t_base - 1):+.1f}%")

    q, k, v = (torch.randn(batch, h, ctx, d // h, device=device) for _ in range(3))
    t_ours = time_call(lambda: attention(q, k, v), reps * 3, device)
    t_sdpa = time_call(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), reps * 3, device)
    print(f"materialised attention with LSE gates {t_ours * 1e3:.2f} ms vs fused SDPA (no gates) "
          f"{t_sdpa * 1e3:.2f} ms: {t_ours / t_sdpa:.2f}x slower")

    gates = torch.rand(n_layers, batch, h, ctx, device=device)

    def loop():
        out = torch.zeros(n_layers, h, device=device)
        for layer in range(n_layers):
            for head in range(h):
                out[layer, head] = gates[layer, :, head, 1:].mean()
        cvs = [out[layer].std(unbiased=False) / (out[layer].mean() + 1e-6) for layer in range(n_layers)]
        return sum(cvs) / n_layers

    batched = lambda: method.layer_cv(method.head_importance(gates)).mean()  # noqa: E731
    assert torch.allclose(loop(), batched(), atol=1e-6)
    t_loop, t_batched = time_call(loop, reps * 3, device), time_call(batched, reps * 3, device)
    print(ratio_line("head importance + CV", t_loop, t_batched, peer="loop", ours="batched"))


if __name__ == "__main__":
    main()
