"""Training and evaluation loops of the toy APO pipeline, batched on ``device``.

Section numbers § are those of docs/papers/apo_alignment.md.

* :func:`build_data`: prompts, the N source trajectories, the consensus ``t+`` and the negative masks;
* :func:`sft`: next-token SFT on chosen rows (stage 1 on all sources; the SFT baselines);
* :func:`preference`: stage 2 with a preference objective, ``pi_ref`` = the frozen stage-1 model whose
  sequence log-probs are computed once and cached (§3.2);
* :func:`decode` / :func:`evaluate`: greedy (or sampled) decoding and strict scoring against the labels.
"""

from __future__ import annotations

import copy

import torch

from icml26 import checks, progress
from icml26.nn.tiny_gpt import GPTConfig, TinyGPT, sequence_logprob, token_losses
from icml26.papers.apo_alignment.baselines import OBJECTIVES, _pairwise_dpo_loss, _single_negative_mask
from icml26.papers.apo_alignment.drifting_teachers import World
from icml26.papers.apo_alignment.method import (
    EOS,
    PAD,
    Vocab,
    _anchored_apo_loss,
    _apo_loss,
    _check_binary,
    _check_vocab,
    _implicit_reward,
    consensus,
    most_divergent,
    negative_mask,
    parse,
    prompt_tokens,
    render,
)

__all__ = ["build_data", "make_model", "sft", "preference", "decode", "evaluate", "score_decisions",
           "sequence_logprobs", "reference_logprobs"]


def build_data(world: World, vocab: Vocab, voice: str = "source") -> dict:
    """Token tensors for a world: ``prompt (C, P)``, ``src (C, N, T)``, ``pos (C, T)``, masks and indices.

    ``voice`` is the signature ``t+`` is written with: ``"source"`` *(inferred)* = that of the concise
    source agreeing most with the consensus (the bootstrapped target writes in a style it learned from
    the sources, §3.3, so ``t+`` lies in its own distribution), ``"target"`` = a signature unseen in
    stage 1. With ``"source"`` a source whose decisions equal the consensus is exactly ``t+`` and is
    dropped from the negatives (§3.5).
    """
    if voice not in ("source", "target"):
        raise ValueError(f"voice must be 'source' or 'target'; got {voice!r}")
    checks.instance("world", world, World)
    _check_vocab(vocab)
    c, n, k = world.n_cases, world.n_teachers, world.n_findings
    if (vocab.n_findings, vocab.n_teachers) != (k, n):
        raise ValueError(f"vocab is for K={vocab.n_findings}, N={vocab.n_teachers}; the world has K={k}, N={n}")
    dev = world.evidence.device
    prompt = prompt_tokens(vocab, world.evidence)
    ev_rep = world.evidence[:, None, :].expand(c, n, k).reshape(c * n, k)
    sig = vocab.sig(torch.arange(n, device=dev)).repeat(c)
    src = render(vocab, ev_rep, world.decisions.reshape(c * n, k), sig).view(c, n, -1)
    t_plus = consensus(world.decisions)
    if voice == "target" or not (~world.verbose).any():
        pos_sig = torch.tensor(vocab.target_sig, device=dev)
    else:
        agree = (world.decisions == t_plus[:, None, :]).sum(-1).masked_fill(world.verbose[None, :], -1)
        pos_sig = vocab.sig(agree.argmax(1))
    pos = render(vocab, world.evidence, t_plus, pos_sig)
    src = torch.cat([prompt[:, None].expand(c, n, -1), src], 2)
    pos = torch.cat([prompt, pos], 1)
    return {"prompt": prompt, "src": src, "pos": pos, "consensus": t_plus, "decisions": world.decisions,
            "neg_mask": negative_mask(world.decisions, t_plus),
            "divergent": most_divergent(world.decisions, t_plus)}


def target_mask(seq: torch.Tensor, prompt_len: int) -> torch.Tensor:
    """True on trajectory tokens (after the prompt, not padding): the tokens a loss or log-prob counts."""
    checks.tensor("seq", seq, dtype_kind="int")
    checks.positive_int("prompt_len", prompt_len)
    return _target_mask(seq, prompt_len)


def _target_mask(seq, prompt_len):
    m = seq != PAD
    m[..., :prompt_len] = False
    return m


def make_model(vocab: Vocab, d_model: int = 64, n_layers: int = 2, n_heads: int = 4, device=None) -> TinyGPT:
    """The target: the shared tiny decoder-only transformer sized for the trajectory language."""
    _check_vocab(vocab)
    if device is not None:
        checks.device("device", device)
    cfg = GPTConfig(vocab_size=vocab.size, d_model=d_model, n_heads=n_heads, n_layers=n_layers,
                    context=vocab.context)
    return TinyGPT(cfg).to(device)


def sequence_logprobs(model: TinyGPT, seq: torch.Tensor, prompt_len: int, chunk: int = 4096) -> torch.Tensor:
    """Summed trajectory log-probs ``(B,)`` under ``model`` without gradients (for caching ``pi_ref``)."""
    _check_model(model)
    _check_tokens("seq", seq, model)
    checks.positive_int("prompt_len", prompt_len)
    checks.positive_int("chunk", chunk)
    was = model.training
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, seq.shape[0], chunk):
            s = seq[i:i + chunk]
            out.append(sequence_logprob(model, s, _target_mask(s, prompt_len)))
    model.train(was)
    return torch.cat(out)


def _check_model(model, name: str = "model") -> TinyGPT:
    return checks.instance(name, model, TinyGPT)


def _check_tokens(name: str, seq, model: TinyGPT, ndim: int = 2) -> torch.Tensor:
    """Integer token rows ``(B, T)`` with ids in the model's vocabulary and ``T`` within its context."""
    checks.tensor(name, seq, ndim=ndim, dtype_kind="int")
    size = model.cfg.vocab_size
    if bool(((seq < 0) | (seq >= size)).any()):
        raise ValueError(f"{name} must hold token ids in [0, {size}); got [{int(seq.min())}, {int(seq.max())}]")
    if seq.shape[-1] > model.cfg.context:
        raise ValueError(f"{name} has {seq.shape[-1]} tokens per row, more than the model's context "
                         f"{model.cfg.context}")
    return seq


def _check_generator(generator) -> None:
    if generator is not None:
        checks.instance("generator", generator, torch.Generator)


def _check_steps(steps, lr, batch):
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer (a trainer with no step returns its input); got {steps!r}")
    if not isinstance(lr, (int, float)) or not lr > 0:
        raise ValueError(f"lr must be positive; got {lr!r}")
    checks.positive_number("lr", lr)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ValueError(f"batch must be a positive integer; got {batch!r}")


def sft(model: TinyGPT, seqs: torch.Tensor, prompt_len: int, steps: int, lr: float, batch: int,
        generator: torch.Generator | None = None) -> list[float]:
    """Token-averaged next-token SFT on rows of ``seqs`` ``(R, T)`` (§3.2); returns the loss curve."""
    _check_steps(steps, lr, batch)
    if not isinstance(seqs, torch.Tensor) or seqs.dim() != 2:
        raise ValueError("seqs must be a (R, T) token tensor")
    _check_model(model)
    _check_tokens("seqs", seqs, model)
    checks.positive_int("prompt_len", prompt_len)
    _check_generator(generator)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    curve = []
    for _ in progress.steps(range(steps), desc="stage-1 SFT"):
        idx = torch.randint(0, seqs.shape[0], (batch,), generator=generator, device=seqs.device)
        s = seqs[idx]
        m = _target_mask(s, prompt_len)[:, 1:].float()
        loss = (token_losses(model, s) * m).sum() / m.sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        curve.append(float(loss.detach()))
    return curve


def reference_logprobs(ref: TinyGPT, data: dict, prompt_len: int) -> torch.Tensor:
    """Cached ``log pi_ref`` ``(C, 1 + N)`` of (t+, tau_1..tau_N) under the frozen stage-1 model (eval mode).

    Computed once per stage-1 model and shared by every stage-2 objective and grid point (§3.2).
    """
    _check_model(ref, "ref")
    _check_data(data, ("pos", "src"))
    flat = torch.cat([data["pos"][:, None], data["src"]], 1)
    c, m, t = flat.shape
    return sequence_logprobs(ref, flat.reshape(-1, t), prompt_len).view(c, m)


def _check_data(data, keys) -> dict:
    checks.config("data", data, required=keys)
    for key in keys:
        checks.instance(f"data[{key!r}]", data[key], torch.Tensor)
    return data


def preference(policy: TinyGPT, data: dict, prompt_len: int, objective: str, steps: int, lr: float, batch: int,
               beta: float = 0.1, length_norm: bool = False, generator: torch.Generator | None = None,
               ref: TinyGPT | None = None, ref_lp: torch.Tensor | None = None, clip: float | None = 1.0) -> dict:
    """Stage 2 (§3.4) with ``objective`` in :data:`OBJECTIVES`; ``policy`` starts at ``pi_ref``.

    ``apo_nll`` is APO with an NLL anchor on ``t+`` (:func:`method.anchored_apo_loss`, a stabilised variant);
    ``apo_ln`` is APO on length-normalised rewards (``beta`` times the mean per-token log-ratio, whatever
    ``length_norm`` says; the other objectives normalise only with ``length_norm=True``).
    Only cases with at least one usable negative are sampled (the same pool for every objective).
    ``ref_lp`` (from :func:`reference_logprobs`) avoids recomputing the frozen reference; otherwise it is
    computed from ``ref`` (default: a frozen copy of ``policy``). ``clip``: max global gradient norm
    (``None`` = no clipping), the same for every objective. Returns the loss curve and the mean PL weight
    of ``t+`` per step (how far the ranking is learned).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}; got {objective!r}")
    _check_steps(steps, lr, batch)
    if clip is not None and not (isinstance(clip, (int, float)) and clip > 0):
        raise ValueError(f"clip must be a positive number or None; got {clip!r}")
    if clip is not None:
        checks.positive_number("clip", clip)
    _check_model(policy, "policy")
    if ref is not None:
        _check_model(ref, "ref")
    checks.positive_number("beta", beta)
    checks.positive_int("prompt_len", prompt_len)
    _check_generator(generator)
    _check_data(data, ("pos", "src", "neg_mask") + (("divergent",) if objective == "dpo_divergent" else ())
                + (("decisions", "consensus") if objective == "sft_best" else ()))
    if ref_lp is not None:
        checks.tensor("ref_lp", ref_lp, dtype_kind="float")
    pos, src, neg_mask = data["pos"], data["src"], data["neg_mask"]
    c, n, t = src.shape
    pool = torch.nonzero(neg_mask.any(1)).squeeze(1)
    if pool.numel() == 0:
        raise ValueError("no case has a usable negative (every source agrees with the consensus)")
    flat = torch.cat([pos[:, None], src], 1)  # (C, 1+N, T)
    ntok = _target_mask(flat, prompt_len).sum(-1).float()
    sft_like = objective in ("sft_consensus", "sft_best")
    if ref_lp is None and not sft_like:
        ref_lp = reference_logprobs(copy.deepcopy(policy) if ref is None else ref, data, prompt_len)
    if ref_lp is not None and ref_lp.shape != (c, 1 + n):
        raise ValueError(f"ref_lp must be (C, 1 + N) = {(c, 1 + n)}; got {tuple(ref_lp.shape)}")

    def update(loss):
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(policy.parameters(), clip)
        opt.step()
        curve.append(float(loss.detach()))
    if objective == "sft_best":
        from icml26.papers.apo_alignment.baselines import best_source

        best = best_source(data["decisions"], data["consensus"])
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    policy.train()
    curve, w_pos = [], []
    for _ in progress.steps(range(steps), desc="stage-2 preference"):
        idx = pool[torch.randint(0, pool.numel(), (batch,), generator=generator, device=pool.device)]
        if objective in ("sft_consensus", "sft_best"):
            s = pos[idx] if objective == "sft_consensus" else src[idx, best]
            m = _target_mask(s, prompt_len)[:, 1:].float()
            update((token_losses(policy, s) * m).sum() / m.sum())
            continue
        seq = flat[idx].reshape(-1, t)
        lp = sequence_logprob(policy, seq, _target_mask(seq, prompt_len)).view(batch, 1 + n)
        norm = length_norm or objective == "apo_ln"
        r = _implicit_reward(lp, ref_lp[idx], beta, ntok[idx] if norm else None)
        mask = neg_mask[idx]
        if objective in ("apo", "apo_ln"):
            per = _apo_loss(r[:, 0], r[:, 1:], mask)
        elif objective == "apo_nll":
            per = _anchored_apo_loss(r[:, 0], r[:, 1:], lp[:, 0] / ntok[idx, 0], mask)
        elif objective == "pairwise":
            per = _pairwise_dpo_loss(r[:, 0], r[:, 1:], mask)
        else:
            rule = objective.split("_", 1)[1]
            one = _single_negative_mask(mask, rule, data["divergent"][idx], generator)
            per = _apo_loss(r[:, 0], r[:, 1:], one)
        update(per.float().mean())
        with torch.no_grad():
            w = torch.softmax(torch.cat([r[:, :1], r[:, 1:].masked_fill(~mask, float("-inf"))], 1), 1)[:, 0]
            w_pos.append(float(w.mean()))
    return {"loss": curve, "w_pos": w_pos}


@torch.no_grad()
def decode(model: TinyGPT, prompt: torch.Tensor, vocab: Vocab, greedy: bool = True,
           generator: torch.Generator | None = None) -> torch.Tensor:
    """Batched autoregressive decoding of trajectories ``(C, 6K+3)`` after each prompt (PAD after EOS)."""
    _check_model(model)
    _check_vocab(vocab)
    _check_tokens("prompt", prompt, model)
    _check_generator(generator)
    was = model.training
    model.eval()
    seq = prompt
    done = torch.zeros(prompt.shape[0], dtype=torch.bool, device=prompt.device)
    for _ in range(vocab.traj_len):
        logits = model(seq)[:, -1].float()
        if greedy:
            nxt = logits.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(1)
        nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
        done = done | (nxt == EOS)
        seq = torch.cat([seq, nxt[:, None]], 1)
        if bool(done.all()):  # every row has ended: the rest would be PAD
            break
    model.train(was)
    out = seq[:, prompt.shape[1]:]
    pad = torch.full((out.shape[0], vocab.traj_len - out.shape[1]), PAD, dtype=out.dtype, device=out.device)
    return torch.cat([out, pad], 1)


def score_decisions(decisions: torch.Tensor, truth: torch.Tensor, well_formed: torch.Tensor | None = None) -> dict:
    """Per-finding accuracy, average accuracy, hallucination and omission rates; malformed rows count as wrong."""
    if not isinstance(decisions, torch.Tensor) or not isinstance(truth, torch.Tensor) \
            or decisions.shape != truth.shape or decisions.dim() != 2:
        raise ValueError("decisions and truth must both be (C, K)")
    _check_binary("decisions", decisions, decisions.shape[-1])
    _check_binary("truth", truth, truth.shape[-1])
    if well_formed is not None:
        checks.tensor("well_formed", well_formed, shape=(decisions.shape[0],), dtype_kind="bool")
    if well_formed is None:
        well_formed = torch.ones(decisions.shape[0], dtype=torch.bool, device=decisions.device)
    eff = torch.where(well_formed[:, None], decisions, 1 - truth)
    acc = (eff == truth).float().mean(0)
    absent, present = truth == 0, truth == 1
    return {"per_finding": acc.tolist(), "accuracy": float(acc.mean()),
            "hallucination": float(((eff == 1) & absent).sum() / absent.sum().clamp(min=1)),
            "omission": float(((eff == 0) & present).sum() / present.sum().clamp(min=1)),
            "well_formed": float(well_formed.float().mean())}


def evaluate(model: TinyGPT, world: World, vocab: Vocab, greedy: bool = True,
             generator: torch.Generator | None = None) -> dict:
    """Decode every test case, parse strictly, score against the labels (evaluation only)."""
    _check_model(model)
    checks.instance("world", world, World)
    _check_vocab(vocab)
    if (vocab.n_findings, vocab.n_teachers) != (world.n_findings, world.n_teachers):
        raise ValueError(f"vocab is for K={vocab.n_findings}, N={vocab.n_teachers}; the world has "
                         f"K={world.n_findings}, N={world.n_teachers}")
    traj = decode(model, prompt_tokens(vocab, world.evidence), vocab, greedy, generator)
    dec, wf = parse(vocab, world.evidence, traj)
    out = score_decisions(dec, world.findings, wf)
    sig = traj[:, 0] - vocab.sig(0)
    out["signature_share"] = [float((sig == u).float().mean()) for u in range(vocab.n_teachers + 1)]
    return out
