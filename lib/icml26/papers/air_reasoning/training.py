"""Training and evaluation loops of the AIR experiment: pre-training (the scoring model and the student's
initialisation), (weighted) SFT on a selected subset, and evaluation by greedy decoding.

One training recipe (AdamW, warm-up + cosine schedule, clipping) is used for every selector, so methods and
baselines share the same budget. Evaluation decodes up to a token budget that no trace style of the pools can
exhaust (twice the longest response any style writes, :func:`tasks.longest_response`), beyond the model's training
context where needed (the positions are rotary, so a longer context adds no parameter): a student that imitates
the most verbose traces is never cut off before its answer.
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from icml26 import checks, progress
from icml26.nn.tiny_gpt import GPTConfig, TinyGPT, token_losses

from . import tasks
from .method import token_weights, weighted_sft_loss


def build(cfg: GPTConfig) -> TinyGPT:
    """A :class:`TinyGPT` of ``cfg`` on torch's fused attention kernel (attention maps, when asked for, and the
    masking hooks still work), without the attention gate nobody here reads."""
    if not isinstance(cfg, GPTConfig):
        raise TypeError(f"cfg must be a GPTConfig; got {type(cfg).__name__}")
    model = TinyGPT(replace(cfg, fused=True))
    for attn in model.attentions:
        attn.need_gate = False
    return model


def make_model(vocab: tasks.Vocab, d_model: int, n_heads: int, n_layers: int, context: int, device) -> TinyGPT:
    """A :class:`TinyGPT` (shared block) over the task vocabulary."""
    if not isinstance(vocab, tasks.Vocab):
        raise TypeError(f"vocab must be a Vocab; got {type(vocab).__name__}")
    device = checks.device("device", device)
    cfg = GPTConfig(vocab_size=vocab.size, d_model=checks.positive_int("d_model", d_model),
                    n_heads=checks.positive_int("n_heads", n_heads), n_layers=checks.positive_int("n_layers", n_layers),
                    context=checks.positive_int("context", context))
    return build(cfg).to(device)


class AdamW:
    """A minimal AdamW (decoupled weight decay, bias-corrected moments) with a warm-up + cosine schedule and
    gradient-norm clipping.

    Written out (a few tensor ops per parameter) because constructing ``torch.optim.AdamW`` imports
    ``torch._dynamo``, which costs seconds of start-up in every short notebook run; the update is the standard one
    (a test compares it with ``torch.optim.AdamW``).
    """

    def __init__(self, params, lr: float, steps: int, betas=(0.9, 0.98), eps: float = 1e-8,
                 weight_decay: float = 0.01, clip: float = 1.0):
        self.params = [p for p in params if p.requires_grad]
        if not self.params:
            raise ValueError("params must hold at least one trainable tensor")
        self.lr, self.steps = checks.positive_number("lr", lr), checks.positive_int("steps", steps)
        self.betas, self.eps = betas, checks.positive_number("eps", eps)
        self.wd, self.clip = checks.nonnegative_number("weight_decay", weight_decay), checks.nonnegative_number(
            "clip", clip)
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


def pretrain(model, vocab: tasks.Vocab, *, steps: int, batch: int, lr: float, trace_frac: float, hops, n_distract,
             n_pairs: int, n_queries: int, generator, device, desc: str = "pre-training") -> list[float]:
    """Pre-training on a mixture of copy probes (loss on the needles) and clean traces (loss on the response),
    ``trace_frac`` of each batch being traces.

    The model never sees step types or pool kinds. ``trace_frac=0`` gives copy probes only. Returns the loss curve.
    """
    checks.positive_int("steps", steps)
    checks.positive_int("batch", batch)
    checks.probability("trace_frac", trace_frac)
    device = checks.device("device", device)
    opt = AdamW(model.parameters(), lr, steps)
    n_tr = int(round(trace_frac * batch))
    curve = []
    model.train()
    for _ in progress.steps(range(steps), desc=desc):
        loss = torch.zeros((), device=device)
        if n_tr < batch:
            probe, needle = tasks.copy_probes(batch - n_tr, vocab, n_pairs, n_queries, generator=generator)
            loss = _lm_loss(model, probe.to(device), needle.to(device)) * (batch - n_tr)
        if n_tr:
            tr = tasks.traces(n_tr, vocab, hops=hops, n_distract=n_distract, generator=generator).to(device)
            loss = loss + _lm_loss(model, tr.idx, tr.response_mask) * n_tr
        loss = loss / batch
        opt.step(loss)
        curve.append(float(loss.detach()))
    model.eval()
    return curve


def step_sizes(step: torch.Tensor, n_steps: int) -> torch.Tensor:
    """Number of target tokens of every step ``(B, n_steps)`` (token ``t`` counts for ``step[:, t]``, t >= 1)."""
    checks.tensor("step", step, ndim=2, dtype_kind="int")
    if checks.positive_int("n_steps", n_steps) < int(step.max()) + 1:
        raise ValueError(f"n_steps must be >= the number of steps ({int(step.max()) + 1}); got {n_steps}")
    st = step[:, 1:]
    cnt = torch.zeros(step.shape[0], n_steps, device=step.device)
    cnt.scatter_add_(1, st.clamp_min(0), (st >= 0).float())
    return cnt


def sft(model, data: tasks.TraceBatch, *, steps: int, batch: int, lr: float, step_w: torch.Tensor | None = None,
        generator=None, desc: str = "SFT") -> list[float]:
    """SFT on the response tokens of ``data`` (minibatches drawn with replacement), optionally with per-step
    weights ``step_w`` ``(N, S)`` (step-weighted fine-tuning); ``None`` is uniform token-averaged SFT."""
    if not isinstance(data, tasks.TraceBatch) or len(data) < 1:
        raise ValueError("data must be a TraceBatch holding at least one trace")
    checks.positive_int("steps", steps)
    checks.positive_int("batch", batch)
    n_s = int(data.step.max()) + 1
    if step_w is not None:
        checks.tensor("step_w", step_w, shape=(len(data), None))
        if step_w.shape[1] < n_s or bool((step_w < 0).any()):
            raise ValueError(f"step_w must be non-negative with at least {n_s} columns; got {tuple(step_w.shape)}")
    opt = AdamW(model.parameters(), lr, steps)
    dev = data.idx.device
    w_all = torch.ones(len(data), n_s, device=dev) if step_w is None else step_w[:, :n_s].float().to(dev)
    curve = []
    model.train()
    for _ in progress.steps(range(steps), desc=desc):
        rows = torch.randint(len(data), (min(batch, len(data)),), generator=generator).to(dev)
        idx, step = data.idx[rows], data.step[rows]
        t = int((idx != tasks.PAD).sum(1).max())
        idx, step = idx[:, :t], step[:, :t]
        tw = token_weights(w_all[rows] * (step_sizes(step, n_s) > 0), step)
        loss = weighted_sft_loss(token_losses(model, idx), tw)
        opt.step(loss)
        curve.append(float(loss.detach()))
    model.eval()
    return curve


@torch.no_grad()
def with_context(model, context: int):
    """``model`` itself when its context holds ``context`` tokens, else a copy of its weights with that context
    (rotary positions only: a learned position table cannot be extended)."""
    context = checks.positive_int("context", context)
    if context <= model.cfg.context:
        return model
    if not getattr(model.cfg, "rope", False):
        raise ValueError(f"context={context} exceeds the model's context {model.cfg.context} and the model has "
                         "learned positions")
    out = build(replace(model.cfg, context=context)).to(next(model.parameters()).device)
    out.load_state_dict(model.state_dict())
    return out.eval()


def decode(model, prompts: torch.Tensor, max_len: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy continuation of equal-length ``prompts`` ``(B, P)`` up to ``max_len`` tokens in all (default: the
    model's context limit), stopping early once every row has written ``ans`` and the token after it.

    Returns the generated tokens ``(B, <= max_len - P)`` and, per row, whether it finished (wrote ``ans x``)."""
    checks.tensor("prompts", prompts, ndim=2, dtype_kind="int")
    limit = model.cfg.context if max_len is None else checks.positive_int("max_len", max_len)
    if limit > model.cfg.context or limit <= prompts.shape[1]:
        raise ValueError(f"max_len must lie in ({prompts.shape[1]}, context={model.cfg.context}]; got {limit}")
    x = prompts
    p = prompts.shape[1]
    done = torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
    while x.shape[1] < limit and not bool(done.all()):
        nxt = model(x)[:, -1].argmax(-1, keepdim=True)
        done |= x[:, -1] == tasks.ANS  # the token after `ans` is being written now
        x = torch.cat([x, nxt], 1)
    return x[:, p:], done


def answers(gen: torch.Tensor) -> torch.Tensor:
    """The token after the first ``ans`` of every generated row, or -1 where there is none."""
    checks.tensor("gen", gen, ndim=2, dtype_kind="int", nonempty=False)
    if gen.shape[1] < 2:
        return torch.full((gen.shape[0],), -1, device=gen.device, dtype=torch.long)
    is_ans = gen[:, :-1] == tasks.ANS
    first = is_ans.float().argmax(1)
    tok = gen.gather(1, (first + 1)[:, None]).squeeze(1)
    return torch.where(is_ans.any(1), tok, torch.full_like(tok, -1))


@torch.no_grad()
def greedy_correct(model, vocab: tasks.Vocab, *, hops, n: int, context_bindings: int, generator, device,
                   max_new: int | None = None) -> dict:
    """Held-out questions solved by greedy decoding of the whole trace: a question counts as solved when the first
    ``ans`` the model writes is followed by the correct digit. ``max_new`` new tokens at most (the model's context
    is extended to hold them, :func:`with_context`); ``None`` decodes to the model's context limit.

    ``n`` questions are split evenly over the hop counts ``hops`` (inclusive range); every prompt has
    ``context_bindings`` bindings, so all prompts of a run have one length. Returns integer counts (exact
    accuracy differences): ``correct`` and ``correct_by_hops``, plus ``unfinished`` (rows that used up the budget
    without an answer), ``longest`` (the most tokens a row wrote up to its answer digit) and ``n``."""
    checks.positive_int("n", n)
    lo, hi = tasks._span("hops", hops, 1)
    device = checks.device("device", device)
    if max_new is not None:
        checks.positive_int("max_new", max_new)
    hs = list(range(lo, hi + 1))
    per = [n // len(hs) + (i < n % len(hs)) for i in range(len(hs))]
    out = {"correct": 0, "unfinished": 0, "n": n, "correct_by_hops": {}, "longest": 0}
    for h, m in zip(hs, per):
        if m == 0:
            continue
        tb = tasks.problems(m, vocab, hops=h, context_bindings=context_bindings, generator=generator)
        p = int(tb.prompt_len[0])
        limit = None if max_new is None else p + max_new
        gen, done = decode(model if limit is None else with_context(model, limit), tb.idx[:, :p].to(device), limit)
        ok = int((answers(gen) == tb.answer.to(device)).sum())
        out["correct"] += ok
        out["correct_by_hops"][h] = ok
        out["unfinished"] += int((~done).sum())
        if bool(done.any()):  # tokens written up to the answer digit, longest over the rows that answered
            first = (gen == tasks.ANS).float().argmax(1)
            out["longest"] = max(out["longest"], int((first + 2)[done].max()))
    return out


def lm_state(model) -> dict:
    """A detached copy of the model's parameters and buffers."""
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def copy_model(model, state: dict):
    """A new model of ``model``'s configuration with the parameters ``state``."""
    m = build(model.cfg).to(next(model.parameters()).device)
    m.load_state_dict(state)
    return m
