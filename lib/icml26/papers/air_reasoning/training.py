"""Training and evaluation loops of the AIR experiment (note §7): the scoring ("base") model, the student's
pre-training on copy probes, (weighted) SFT on a selected subset, and greedy-decoding evaluation.

One training recipe (AdamW, cosine schedule, clipping) is used for every selector, so methods and baselines
share the same budget (note §4).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from icml26.nn.tiny_gpt import GPTConfig, TinyGPT, token_losses

from . import tasks
from .method import token_weights, weighted_sft_loss


def make_model(vocab: tasks.Vocab, d_model: int, n_heads: int, n_layers: int, context: int, device) -> TinyGPT:
    """A :class:`TinyGPT` (shared block) over the task vocabulary."""
    cfg = GPTConfig(vocab_size=vocab.size, d_model=d_model, n_heads=n_heads, n_layers=n_layers, context=context)
    return TinyGPT(cfg).to(device)


class AdamW:
    """A minimal AdamW (decoupled weight decay, bias-corrected moments) with a warm-up + cosine schedule.

    Written out (a few tensor ops per parameter) because constructing ``torch.optim.AdamW`` imports
    ``torch._dynamo``, which costs seconds of start-up in every short notebook run; the update is the standard one.
    """

    def __init__(self, params, lr: float, steps: int, betas=(0.9, 0.98), eps: float = 1e-8,
                 weight_decay: float = 0.01, clip: float = 1.0):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.steps, self.betas, self.eps = lr, max(1, steps), betas, eps
        self.wd, self.clip = weight_decay, clip
        self.warm = max(1, self.steps // 20)
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    def rate(self) -> float:
        s = self.t
        return self.lr * min(1.0, (s + 1) / self.warm) * 0.5 * (1 + math.cos(math.pi * min(s, self.steps) / self.steps))

    def step(self, loss: torch.Tensor) -> None:
        """Back-propagate ``loss``, clip the gradient norm, take one AdamW step."""
        for p in self.params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            self._update()

    def _update(self) -> None:
        grads = [torch.zeros_like(p) if p.grad is None else p.grad for p in self.params]
        norm = torch.sqrt(sum((g.float() ** 2).sum() for g in grads))
        scale = min(1.0, self.clip / (float(norm) + 1e-6)) if self.clip else 1.0
        lr = self.rate()
        self.t += 1
        b1, b2 = self.betas
        c1, c2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            g = g * scale
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            p.mul_(1 - lr * self.wd)
            p.addcdiv_(m / c1, (v / c2).sqrt_().add_(self.eps), value=-lr)


def _lm_loss(model, idx, target):
    tl = token_losses(model, idx)
    m = target[:, 1:].float()
    return (tl * m).sum() / m.sum()


def pretrain(model, vocab: tasks.Vocab, *, steps: int, batch: int, lr: float, trace_frac: float, hops, n_distract: int,
             n_pairs: int, n_queries: int, generator, device) -> list[float]:
    """Pre-training on a mixture of copy probes (loss on the needles) and clean traces (loss on the response),
    ``trace_frac`` of each batch being traces.

    The model never sees step types or pool kinds (note §10). ``trace_frac=0`` gives copy probes only
    (the student's pre-training). Returns the loss curve.
    """
    opt = AdamW(model.parameters(), lr, steps)
    n_tr = int(round(trace_frac * batch))
    curve = []
    model.train()
    for _ in range(steps):
        probe, needle = tasks.copy_probes(batch - n_tr, vocab, n_pairs, n_queries, generator=generator)
        loss = _lm_loss(model, probe.to(device), needle.to(device))
        if n_tr:
            tr = tasks.traces(n_tr, vocab, hops=hops, n_distract=n_distract, generator=generator)
            loss = (loss * (batch - n_tr) + _lm_loss(model, tr.idx.to(device), tr.response_mask.to(device)) * n_tr)
            loss = loss / batch
        opt.step(loss)
        curve.append(float(loss.detach()))
    model.eval()
    return curve


def sft(model, data: tasks.TraceBatch, *, steps: int, batch: int, lr: float, step_w: torch.Tensor | None = None,
        generator=None) -> list[float]:
    """SFT on the response tokens of ``data`` (minibatches drawn with replacement), optionally with per-step
    weights ``step_w`` ``(N, S)`` (note §3.4); ``None`` is uniform token-averaged SFT."""
    if len(data) < 1:
        raise ValueError("data must hold at least one trace")
    if step_w is not None and step_w.shape[0] != len(data):
        raise ValueError(f"step_w must have one row per trace ({len(data)}); got {tuple(step_w.shape)}")
    opt = AdamW(model.parameters(), lr, steps)
    n_s = int(data.step.max()) + 1
    w_all = torch.ones(len(data), n_s, device=data.idx.device) if step_w is None else step_w.float()
    curve = []
    model.train()
    for _ in range(steps):
        rows = torch.randint(len(data), (min(batch, len(data)) if batch else len(data),), generator=generator)
        rows = rows.to(data.idx.device)
        idx, step = data.idx[rows], data.step[rows]
        t = int((idx != tasks.PAD).sum(1).max())
        idx, step = idx[:, :t], step[:, :t]
        tw = token_weights(w_all[rows] * (step_sizes(step, n_s) > 0), step)
        loss = weighted_sft_loss(token_losses(model, idx), tw)
        opt.step(loss)
        curve.append(float(loss.detach()))
    model.eval()
    return curve


def step_sizes(step: torch.Tensor, n_steps: int) -> torch.Tensor:
    """Number of target tokens of every step ``(B, n_steps)``."""
    st = step[:, 1:]
    cnt = torch.zeros(step.shape[0], n_steps, device=step.device)
    cnt.scatter_add_(1, st.clamp_min(0), (st >= 0).float())
    return cnt


@torch.no_grad()
def greedy_correct(model, vocab: tasks.Vocab, *, hops, n: int, n_distract: int, generator, device,
                   max_extra: int = 8) -> int:
    """Number of held-out questions solved by greedy decoding of the whole trace (note §10): a question counts
    as solved when the first ``ans`` token the model writes is followed by the correct digit. Questions are
    grouped by hop count so that every prompt in a group has the same length (no padding inside the prompt).
    An integer, so that accuracy differences between selectors are exact (no float rounding)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    correct = 0
    hs = list(range(hops[0], hops[1] + 1))
    per = [n // len(hs) + (i < n % len(hs)) for i in range(len(hs))]
    for h, m in zip(hs, per):
        if m == 0:
            continue
        tb = tasks.traces(m, vocab, hops=(h, h), n_distract=n_distract, n_filler=(0, 0), generator=generator)
        p = int(tb.prompt_len[0])
        x = tb.idx[:, :p].to(device)
        new = 3 * h + 3 + max_extra
        for _ in range(new):
            if x.shape[1] >= model.cfg.context:
                break
            nxt = model(x)[:, -1].argmax(-1, keepdim=True)
            x = torch.cat([x, nxt], 1)
        gen = x[:, p:]
        is_ans = gen[:, :-1] == tasks.ANS
        first = torch.where(is_ans.any(1), is_ans.float().argmax(1), torch.full((m,), -1, device=device))
        ok = (first >= 0) & (gen.gather(1, (first.clamp_min(0) + 1)[:, None]).squeeze(1) == tb.answer.to(device))
        correct += int(ok.sum())
    return correct


def greedy_accuracy(model, vocab: tasks.Vocab, *, hops, n: int, n_distract: int, generator, device,
                    max_extra: int = 8) -> float:
    """:func:`greedy_correct` divided by ``n``."""
    return greedy_correct(model, vocab, hops=hops, n=n, n_distract=n_distract, generator=generator, device=device,
                          max_extra=max_extra) / n


def lm_state(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def copy_model(model, state: dict):
    m = TinyGPT(model.cfg).to(next(model.parameters()).device)
    m.load_state_dict(state)
    return m


__all__ = ["make_model", "pretrain", "sft", "greedy_accuracy", "greedy_correct", "step_sizes", "lm_state",
           "copy_model", "F"]
