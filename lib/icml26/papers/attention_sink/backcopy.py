"""The Bigram-Backcopy task (after Guo et al. 2024, arXiv 2410.13835): a setting where attention sinks form.

A token stream over ``vocab`` symbols (ids ``0..vocab-1``; ``BOS = 256`` is prepended by the sampler of
:mod:`.corpus`). Most tokens follow a fixed random bigram chain (each token has ``fanout`` successors with
Dirichlet weights); after one of the ``n_triggers`` trigger tokens the next token copies the token *before* the
trigger. A head that serves the copy has nothing to do on non-trigger positions, which is where a sink forms.
The bigram table and trigger set are our choice (*inferred*: the paper of Guo et al. estimates its bigram from
text); the stream is drawn once, in NumPy, from a seeded generator.

:func:`emergence_curve` trains a small vanilla TinyGPT on the stream and measures the first-token (sink) share and
the value drain on a held-out batch as training goes (docs/papers/attention_sink.md §5; the measurements there
are ``python -m icml26.papers.attention_sink.backcopy --steps 8000 --seed 100``, about 7 minutes on 2 CPU cores).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from icml26 import checks


def _stream(n: int, vocab: int, n_triggers: int, fanout: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    triggers = rng.choice(vocab, size=n_triggers, replace=False)
    succ = np.stack([rng.choice(vocab, size=fanout, replace=False) for _ in range(vocab)])
    probs = rng.dirichlet(np.ones(fanout), size=vocab)
    cum = probs.cumsum(1)
    u = rng.random(n)
    is_trig = np.zeros(vocab, dtype=bool)
    is_trig[triggers] = True
    out = np.empty(n, dtype=np.int64)
    out[0], out[1] = rng.integers(vocab), rng.integers(vocab)
    for i in range(2, n):
        prev = out[i - 1]
        if is_trig[prev]:
            out[i] = out[i - 2]
        else:
            out[i] = succ[prev, min(int(np.searchsorted(cum[prev], u[i])), fanout - 1)]
    return out, np.sort(triggers)


def backcopy_stream(n: int, vocab: int = 64, n_triggers: int = 3, fanout: int = 4, seed: int = 0) -> dict:
    """A Bigram-Backcopy stream of ``n`` tokens: ``{"tokens": LongTensor (n,), "triggers": list}``."""
    checks.positive_int("n", n)
    if n < 16:
        raise ValueError(f"n must be at least 16; got {n}")
    checks.positive_int("vocab", vocab)
    if not 4 <= vocab <= 256:
        raise ValueError(f"vocab must be in [4, 256]; got {vocab}")
    checks.positive_int("n_triggers", n_triggers)
    if n_triggers >= vocab:
        raise ValueError(f"n_triggers must be < vocab; got {n_triggers}")
    checks.positive_int("fanout", fanout)
    if fanout > vocab:
        raise ValueError(f"fanout must be <= vocab; got {fanout}")
    checks.nonnegative_int("seed", seed)
    toks, trig = _stream(n, vocab, n_triggers, fanout, seed)
    return {"tokens": torch.from_numpy(toks), "triggers": [int(t) for t in trig]}


def emergence_curve(steps: int = 8000, every: int = 500, seed: int = 100, d_model: int = 64, n_heads: int = 2,
                    n_layers: int = 1, lr: float = 3e-3, batch: int = 32, context: int = 64, sink_from: int = 16,
                    device="cpu", on_point=None) -> list[dict]:
    """Train a vanilla TinyGPT on a Bigram-Backcopy stream (AdamW, ``lr`` constant after 100 warm-up steps, clip 1)
    and, after the first update, after every ``every``-th and after the last, measure on a held-out batch of 64
    windows (``step`` = updates done): the validation loss, the first-token
    share over queries ``t >= sink_from`` (overall, and per layer and head from non-trigger and from trigger
    queries: an active-dormant head puts its mass on BOS where it has nothing to copy), the BOS value norm over the
    median value norm (value drain, :func:`.experiment.evaluate`), the heads' CV and the loss change when ``v_0``
    is zeroed. ``on_point(point)`` is called with each measurement as it is made (the command line prints it)."""
    from icml26.papers.attention_sink.baselines import make_model
    from icml26.papers.attention_sink.corpus import sample_batch
    from icml26.papers.attention_sink.experiment import evaluate, train_lm

    for name, value in (("steps", steps), ("every", every), ("d_model", d_model), ("n_heads", n_heads),
                        ("n_layers", n_layers), ("batch", batch)):
        checks.positive_int(name, value)
    checks.nonnegative_int("seed", seed)
    checks.positive_number("lr", lr)
    checks.positive_int("sink_from", sink_from)
    checks.int_at_least("context", context, sink_from + 2)
    dev = checks.device("device", device)
    if on_point is not None and not callable(on_point):
        raise TypeError(f"on_point must be a callable or None; got {type(on_point).__name__}")
    stream = backcopy_stream(400_000, seed=seed)
    data, triggers = stream["tokens"], torch.tensor(stream["triggers"])
    train, held_out = data[:360_000], data[360_000:]
    val = sample_batch(held_out, 64, context, torch.Generator().manual_seed(7)).to(dev)
    is_trigger = torch.isin(val[:, sink_from:].cpu(), triggers)
    torch.manual_seed(seed)
    model = make_model("vanilla", d_model, n_heads, n_layers, context, device=dev)
    points = []

    def measure(step, m):
        if step and (step + 1) % every and step != steps - 1:
            return
        with torch.no_grad():
            _, res = m(val, return_attn=True, need_weights=True)
            a0 = torch.stack([r.weights[..., sink_from:, 0] for r in res]).cpu()  # (L, B, H, T')
        ev = evaluate(m, val, sink_from)
        a0 = a0.permute(0, 2, 1, 3)  # (L, H, B, T')
        point = {"step": step + 1, "val_loss": ev["val_loss"], "a0_mean": ev["a0_mean"], "v0_ratio": ev["v0_ratio"],
                 "mean_cv": ev["mean_cv"], "zero_v0_rel": ev["zero_v0_rel"],
                 "a0_non_trigger": a0[..., ~is_trigger].mean(-1).tolist(),
                 "a0_trigger": a0[..., is_trigger].mean(-1).tolist()}
        points.append(point)
        if on_point is not None:
            on_point(point)

    train_lm(model, train, steps=steps, batch=batch, lr=lr, generator=torch.Generator().manual_seed(1),
             warmup=min(1.0, 100 / steps), log_every=1, schedule="constant",
             on_log=measure)
    return points


def _main(argv=None) -> int:
    """``python -m icml26.papers.attention_sink.backcopy``: print the emergence curve as JSON lines."""
    ap = argparse.ArgumentParser(description=_main.__doc__)
    ap.add_argument("--steps", type=int, default=8000)
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args(argv)
    emergence_curve(args.steps, args.every, args.seed, n_heads=args.heads, n_layers=args.layers, device=args.device,
                    on_point=lambda p: print(json.dumps(p), flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
