"""The Bigram-Backcopy task (after Guo et al. 2024, arXiv 2410.13835): a setting where attention sinks form.

A token stream over ``vocab`` symbols (ids ``0..vocab-1``; ``BOS = 256`` is prepended by the sampler of
:mod:`.corpus`). Most tokens follow a fixed random bigram chain (each token has ``fanout`` successors with
Dirichlet weights); after one of the ``n_triggers`` trigger tokens the next token copies the token *before* the
trigger. A head that serves the copy has nothing to do on non-trigger positions, which is where a sink forms.
The bigram table and trigger set are our choice (*inferred*: the paper of Guo et al. estimates its bigram from
text); the stream is drawn once, in NumPy, from a seeded generator.

:func:`train_backcopy` trains a small TinyGPT on the stream and measures the first-token (sink) share and the
value drain on a held-out batch as training goes (docs/papers/attention_sink.md §5; the measurements there are
``python -m icml26.papers.attention_sink.backcopy --steps 8000 --seed 100``, about 7 minutes on 2 CPU cores).
The standard and full experiments train the vanilla model per evaluation seed (the C2 Bigram-Backcopy claims);
:mod:`.make_weights` trains the models the explorer shows (:data:`RECIPE`, :mod:`.trained`).
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


RECIPE = dict(steps=4000, every=250, seed=102, d_model=64, n_heads=2, n_layers=1, lr=3e-3, batch=32, context=64,
              sink_from=16)
"""How the shipped models were trained (:mod:`.make_weights`): development seed 102, whose vanilla model grows a
sink by step 2,000 (docs/papers/attention_sink.md §5); never an evaluation seed."""


def _check_recipe_args(steps, every, seed, d_model, n_heads, n_layers, lr, batch, context, sink_from, lam):
    for name, value in (("steps", steps), ("every", every), ("d_model", d_model), ("n_heads", n_heads),
                        ("n_layers", n_layers), ("batch", batch)):
        checks.positive_int(name, value)
    checks.nonnegative_int("seed", seed)
    checks.positive_number("lr", lr)
    checks.nonnegative_number("lam", lam)
    checks.positive_int("sink_from", sink_from)
    checks.int_at_least("context", context, sink_from + 2)


def held_out(seed: int, context: int = 64, n: int = 64) -> dict:
    """The Bigram-Backcopy stream of ``seed`` split 360k / 40k tokens: ``{"train", "val", "triggers"}`` where
    ``val`` are ``n`` fixed windows of the last 40k tokens (the measurement batch of :func:`train_backcopy`)."""
    from icml26.papers.attention_sink.corpus import sample_batch

    checks.nonnegative_int("seed", seed)
    checks.int_at_least("context", context, 2)
    checks.positive_int("n", n)
    stream = backcopy_stream(400_000, seed=seed)
    data = stream["tokens"]
    val = sample_batch(data[360_000:], n, context, torch.Generator().manual_seed(7))
    return {"train": data[:360_000], "val": val, "triggers": torch.tensor(stream["triggers"])}


@torch.no_grad()
def sink_point(model, val: torch.Tensor, triggers: torch.Tensor, sink_from: int = 16) -> dict:
    """Sink statistics of ``model`` on the windows ``val`` (queries ``t >= sink_from``): validation loss, the
    first-token share (mean, and per layer x head from non-trigger and from trigger queries: an active-dormant
    head puts its mass on BOS where it has nothing to copy), the BOS value norm over the median value norm
    (mean over heads, and of the sink head: value drain), the heads' CV and the loss change when ``v_0`` is zeroed
    (:func:`.training.evaluate`). The *sink head* is the head with the largest non-trigger share."""
    from icml26.papers.attention_sink.training import evaluate

    checks.tensor("triggers", triggers, dtype_kind="int")
    checks.positive_int("sink_from", sink_from)  # query 0 is BOS itself, whose only key is BOS
    val = val.to(next(model.parameters()).device)
    ev = evaluate(model, val, sink_from)
    _, res = model(val, return_attn=True, need_weights=True)
    a0 = torch.stack([r.weights[..., sink_from:, 0] for r in res]).cpu().permute(0, 2, 1, 3)  # (L, H, B, T')
    is_trigger = torch.isin(val[:, sink_from:].cpu(), triggers.cpu())
    non, trig = a0[..., ~is_trigger].mean(-1), a0[..., is_trigger].mean(-1)  # (L, H)
    layer, head = divmod(int(non.flatten().argmax()), non.shape[1])
    norms = res[layer].values[:, head].norm(dim=-1).cpu()  # (B, S): the sink head's value norms
    v0 = float(norms[:, 0].mean() / norms[:, 1:].median().clamp_min(1e-12))
    return {"val_loss": ev["val_loss"], "a0_mean": ev["a0_mean"], "v0_ratio": ev["v0_ratio"],
            "mean_cv": ev["mean_cv"], "zero_v0_rel": ev["zero_v0_rel"], "a0_non_trigger": non.tolist(),
            "a0_trigger": trig.tolist(), "sink_head": [layer, head],
            "sink_head_v0_ratio": v0}


def train_backcopy(variant: str = "vanilla", lam: float = 0.0, steps: int = 8000, every: int = 500,
                   seed: int = 100, d_model: int = 64, n_heads: int = 2, n_layers: int = 1, lr: float = 3e-3,
                   batch: int = 32, context: int = 64, sink_from: int = 16, device="cpu", on_point=None):
    """Train a TinyGPT of ``variant`` with ``LM + lam * aux`` (the paper's balancing loss, eq. of §3.4;
    ``lam = 0`` is the baseline) on the Bigram-Backcopy stream of ``seed`` (AdamW, ``lr`` constant after 100
    warm-up steps, clip 1; the model's initialisation is seeded by ``seed`` too) and, after the first update,
    after every ``every``-th and after the last, measure :func:`sink_point` on the held-out windows of
    :func:`held_out` (``step`` = updates done). ``on_point(point)`` is called with each measurement as it is made
    (the command line prints it). Returns ``(model, points)``: the emergence curve of the sink."""
    from icml26.papers.attention_sink.baselines import make_model
    from icml26.papers.attention_sink.training import train_lm

    _check_recipe_args(steps, every, seed, d_model, n_heads, n_layers, lr, batch, context, sink_from, lam)
    dev = checks.device("device", device)
    if on_point is not None and not callable(on_point):
        raise TypeError(f"on_point must be a callable or None; got {type(on_point).__name__}")
    data = held_out(seed, context)
    torch.manual_seed(seed)
    model = make_model(variant, d_model, n_heads, n_layers, context, device=dev)
    val = data["val"].to(dev)
    points = []

    def measure(step, m):
        if step and (step + 1) % every and step != steps - 1:
            return
        point = {"step": step + 1, **sink_point(m, val, data["triggers"], sink_from)}
        points.append(point)
        if on_point is not None:
            on_point(point)

    train_lm(model, data["train"], steps=steps, batch=batch, lr=lr, lam=lam,
             generator=torch.Generator().manual_seed(1), warmup=min(1.0, 100 / steps), log_every=1,
             schedule="constant", on_log=measure)
    return model, points


def _main(argv=None) -> int:
    """``python -m icml26.papers.attention_sink.backcopy``: print the emergence curve as JSON lines."""
    ap = argparse.ArgumentParser(description=_main.__doc__)
    ap.add_argument("--steps", type=int, default=8000)
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--variant", default="vanilla")
    ap.add_argument("--lam", type=float, default=0.0)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args(argv)
    train_backcopy(args.variant, args.lam, args.steps, args.every, args.seed, n_heads=args.heads,
                   n_layers=args.layers, device=args.device, on_point=lambda p: print(json.dumps(p), flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
