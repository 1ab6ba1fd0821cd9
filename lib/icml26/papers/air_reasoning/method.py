"""AIR (Liu et al., arXiv 2512.13279): retrieval heads, the weakened reference model, the Attention
Influence Score (AIS), AIS-based step weights and top-K sample selection (docs/papers/air_reasoning.md).

* :func:`retrieval_scores`: Wu et al.'s copy-paste rule (paper, method section, retrieval-head
  identification): head ``h`` copy-pastes needle token ``w_t`` iff the position of its maximum attention (from
  the row that predicts ``w_t``) holds ``w_t`` (C1, C2); ``R_h = |g_h| / |k|`` is the share of needle tokens it
  copy-pastes.
* :func:`top_heads`: the top-``delta`` fraction of heads by ``R_h`` (``H_crit``).
* :func:`masked_heads`: the reference model ``theta_ref``: the chosen heads attend uniformly over the visible
  positions (``a_ij = 1/N_i``, ``N_i = i + 1`` under the causal mask), a head hook of the shared attention block;
  ``"zero"`` and ``"mean"`` ablations for comparison.
* :func:`step_losses` / :func:`attention_influence`: step and sample AIS, the loss divergence of the two models:
  ``AIS(s) = (L_ref(s) - L_base(s)) / max(L_base(s), eps)`` (relative, default; *inferred* form) or the absolute
  difference; the sample score is the same over all response tokens (a length-neutral mean, *inferred*) or the
  mean of the step scores.
* :func:`step_weights` / :func:`weighted_sft_loss`: step-weighted SFT (the AIS-to-weight map is *inferred*).
* :func:`select_top_k`: budgeted selection by a score.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import torch

from icml26 import checks
from icml26.nn.attention import attention_modules
from icml26.nn.tiny_gpt import token_losses

ABLATIONS = ("uniform", "zero", "mean")


def _check_idx(idx: torch.Tensor, name: str = "idx") -> None:
    checks.tensor(name, idx, ndim=2, dtype_kind="int")
    if idx.shape[1] < 2:
        raise ValueError(f"{name} must be a long tensor (B, T) with T >= 2; got shape {tuple(idx.shape)}")


def _check_mask(name: str, mask, idx: torch.Tensor) -> None:
    if not isinstance(mask, torch.Tensor) or mask.shape != idx.shape or mask.dtype != torch.bool:
        raise ValueError(f"{name} must be a bool tensor of shape {tuple(idx.shape)}; got "
                         f"{getattr(mask, 'dtype', type(mask).__name__)} {tuple(getattr(mask, 'shape', ()))}")


@torch.no_grad()
def retrieval_scores(model, idx: torch.Tensor, needle: torch.Tensor) -> torch.Tensor:
    """Retrieval score ``R_h`` ``(n_layers, n_heads)`` of every head on the needle tokens (docs page, method).

    ``needle`` ``(B, T)`` bool marks the target tokens ``w_t`` (C1). The row ``t-1`` (which predicts ``w_t``)
    of head ``h`` has its maximum at ``j*`` (first index on ties); the head copy-pastes iff ``idx[j*] == w_t``
    (C2). ``R_h`` = copy-pasted needle tokens / needle tokens.
    """
    _check_idx(idx)
    _check_mask("needle", needle, idx)
    if needle[:, 0].any():
        raise ValueError("needle must not mark position 0 (it has no predicting row)")
    n = int(needle.sum())
    if n == 0:
        raise ValueError("needle marks no token")
    _, res = model(idx, return_attn=True, need_weights=True)
    b, t = idx.shape
    bi, ti = needle.nonzero(as_tuple=True)
    scores = []
    for r in res:  # one entry per layer
        rows = r.weights[bi, :, ti - 1]  # (n, H, T)
        jstar = rows.argmax(-1)  # (n, H)
        hit = idx[bi[:, None], jstar] == idx[bi, ti][:, None]
        scores.append(hit.float().mean(0))
    return torch.stack(scores)


def top_heads(scores: torch.Tensor, delta: float | None = None, k: int | None = None) -> list[tuple[int, int]]:
    """The heads with the largest ``R_h``: ``k`` of them, or ``max(1, round(delta * n_heads_total))``."""
    checks.tensor("scores", scores, ndim=2)
    if (delta is None) == (k is None):
        raise ValueError("give exactly one of delta and k")
    total = scores.numel()
    if k is None:
        delta = checks.in_range("delta", delta, 0.0, 1.0, low_open=True)
        k = max(1, round(delta * total))
    checks.int_between("k", k, 1, total)
    order = torch.argsort(scores.flatten().cpu(), descending=True, stable=True)[:k]
    h = scores.shape[1]
    return [(int(i) // h, int(i) % h) for i in order]


def uniform_head_output(values: torch.Tensor) -> torch.Tensor:
    """Output of causal heads with uniform attention over visible positions: ``O_i = mean_{j<=i} v_j``
    (``values`` ``(..., S, d)``)."""
    checks.tensor("values", values, ndim=(2, 3, 4))
    s = values.shape[-2]
    count = torch.arange(1, s + 1, device=values.device, dtype=values.dtype).view(-1, 1)
    return values.cumsum(-2) / count


def masked_heads(model, heads: Iterable[tuple[int, int]], mode: str = "uniform"):
    """A context manager within which the given ``(layer, head)`` pairs are ablated: ``"uniform"`` attention over
    the visible positions (the paper's ``theta_ref``), ``"zero"`` output, or ``"mean"`` (output replaced by its
    mean over batch and positions). The arguments are checked at the call, before the block runs."""
    checks.one_of("mode", mode, ABLATIONS)
    mods = attention_modules(model)
    by_layer: dict[int, list[int]] = {}
    for pair in heads:
        ok = isinstance(pair, (tuple, list)) and len(pair) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in pair)
        if not ok or not 0 <= pair[0] < len(mods) or not 0 <= pair[1] < mods[pair[0]].n_heads:
            raise ValueError(f"heads must be (layer, head) pairs with 0 <= layer < {len(mods)} and "
                             f"0 <= head < {mods[0].n_heads}; got {pair!r}")
        if mode == "uniform" and not mods[pair[0]].causal:
            raise ValueError("uniform masking of heads is implemented for causal heads")
        by_layer.setdefault(pair[0], []).append(pair[1])
    return _hooked(mods, by_layer, mode)


@contextlib.contextmanager
def _hooked(mods, by_layer: dict, mode: str) -> Iterator[None]:
    def make_hook(hs):
        sel = torch.tensor(sorted(set(hs)))

        def hook(module, res):
            out = res.out.clone()
            if mode == "uniform":
                out[:, sel] = uniform_head_output(res.values[:, sel]).to(out.dtype)
            elif mode == "zero":
                out[:, sel] = 0
            else:
                out[:, sel] = out[:, sel].mean(dim=(0, 2), keepdim=True)
            return out

        return hook

    removers = [mods[layer].add_head_hook(make_hook(hs)) for layer, hs in by_layer.items()]
    try:
        yield
    finally:
        for rm in removers:
            rm()


@torch.no_grad()
def token_hits(model, idx: torch.Tensor, target: torch.Tensor) -> tuple[int, int]:
    """Teacher-forced argmax hits on the tokens ``target`` ``(B, T)`` marks, and their number (integers)."""
    _check_idx(idx)
    _check_mask("target", target, idx)
    pred = model(idx).argmax(-1)
    hit = pred[:, :-1] == idx[:, 1:]
    m = target[:, 1:]
    if not m.any():
        raise ValueError("target marks no token")
    return int(hit[m].sum()), int(m.sum())


def token_accuracy(model, idx: torch.Tensor, target: torch.Tensor) -> float:
    """Teacher-forced argmax accuracy on the tokens ``target`` ``(B, T)`` marks (copy-probe exact match)."""
    hits, n = token_hits(model, idx, target)
    return hits / n


@torch.no_grad()
def step_losses(model, idx: torch.Tensor, step: torch.Tensor, n_steps: int | None = None):
    """Per-step mean loss ``(B, S)``, step sizes ``(B, S)`` and per-token losses ``(B, T-1)``.

    ``step`` ``(B, T)``: step index of each token (-1 outside the response). Token ``t``'s loss
    ``-log p(x_t | x_<t)`` counts for ``step[:, t]``. Steps with no token have size 0 and loss 0.
    """
    _check_idx(idx)
    checks.tensor("step", step, dtype_kind="int")
    if step.shape != idx.shape:
        raise ValueError(f"step must have the shape of idx {tuple(idx.shape)}; got {tuple(step.shape)}")
    if n_steps is not None and checks.positive_int("n_steps", n_steps) < int(step.max()) + 1:
        raise ValueError(f"n_steps must be >= the number of steps ({int(step.max()) + 1}); got {n_steps}")
    tl = token_losses(model, idx).double()
    st = step[:, 1:]
    s = int(step.max()) + 1 if n_steps is None else n_steps
    if s < 1:
        raise ValueError("step marks no response token")
    valid = st >= 0
    col = st.clamp_min(0)
    tot = torch.zeros(idx.shape[0], s, dtype=torch.float64, device=idx.device)
    cnt = torch.zeros_like(tot)
    tot.scatter_add_(1, col, tl * valid)
    cnt.scatter_add_(1, col, valid.double())
    return tot / cnt.clamp_min(1), cnt, tl


def influence(l_ref: torch.Tensor, l_base: torch.Tensor, form: str = "relative", eps: float = 1e-3) -> torch.Tensor:
    """``(L_ref - L_base) / max(L_base, eps)`` (``"relative"``, default) or ``L_ref - L_base`` (``"absolute"``)."""
    checks.one_of("form", form, ("relative", "absolute"))
    checks.positive_number("eps", eps)
    checks.tensor("l_ref", l_ref, nonempty=False)
    checks.tensor("l_base", l_base, nonempty=False)
    if l_ref.shape != l_base.shape:
        raise ValueError("l_ref and l_base must have the same shape")
    diff = l_ref - l_base
    return diff / l_base.clamp_min(eps) if form == "relative" else diff


@torch.no_grad()
def attention_influence(model, heads, idx: torch.Tensor, step: torch.Tensor, *, form: str = "relative",
                        eps: float = 1e-3, sample: str = "tokens", mode: str = "uniform",
                        batch_size: int = 512) -> dict:
    """Step and sample Attention Influence Scores of a batch (docs page, method): two forward passes, no gradients.

    Returns a dict of tensors: ``step_ais`` ``(B, S)``, ``step_size`` ``(B, S)``, ``step_base``/``step_ref``
    (step losses), ``sample_ais`` ``(B,)``, ``base_loss``/``ref_loss`` (mean response loss) and
    ``entropy`` (mean predictive entropy of the base model over the response, for the entropy baseline).
    ``sample="tokens"``: the score of the whole response (token mean); ``"steps"``: the mean of step AIS.
    """
    checks.one_of("sample", sample, ("tokens", "steps"))
    checks.one_of("form", form, ("relative", "absolute"))
    checks.one_of("mode", mode, ABLATIONS)
    checks.positive_number("eps", eps)
    if isinstance(idx, torch.Tensor) and idx.dim() == 2 and idx.shape[0] == 0:
        raise ValueError("idx must hold at least one trace; got an empty pool")
    _check_idx(idx)
    if not isinstance(step, torch.Tensor) or step.shape != idx.shape:
        raise ValueError(f"step must be a tensor of the shape of idx {tuple(idx.shape)}")
    if not (step >= 0).any(1).all():
        raise ValueError("step must mark at least one response token (step >= 0) in every trace")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
    heads = list(heads)
    if not heads:
        raise ValueError("heads must name at least one (layer, head)")
    s = int(step.max()) + 1
    outs = []
    for lo in range(0, idx.shape[0], batch_size):
        x, st = idx[lo: lo + batch_size], step[lo: lo + batch_size]
        logits = model(x)
        lp = torch.log_softmax(logits[:, :-1].double(), -1)
        ent = -(lp.exp() * lp).sum(-1)
        lb, cnt, tlb = step_losses(model, x, st, s)
        with masked_heads(model, heads, mode):
            lr, _, tlr = step_losses(model, x, st, s)
        outs.append((lb, lr, cnt, tlb, tlr, ent))
    lb, lr, cnt = (torch.cat([o[i] for o in outs]) for i in range(3))
    t = max(o[3].shape[1] for o in outs)
    tlb, tlr, ent = (torch.cat([torch.nn.functional.pad(o[i], (0, t - o[i].shape[1])) for o in outs])
                     for i in (3, 4, 5))
    resp = (step[:, 1:] >= 0).double()
    n = resp.sum(1).clamp_min(1)
    base, ref = (tlb * resp).sum(1) / n, (tlr * resp).sum(1) / n
    step_ais = influence(lr, lb, form, eps) * (cnt > 0)
    if sample == "tokens":
        sample_ais = influence(ref, base, form, eps)
    else:
        sample_ais = step_ais.sum(1) / (cnt > 0).sum(1).clamp_min(1)
    return {"step_ais": step_ais, "step_size": cnt, "step_base": lb, "step_ref": lr, "sample_ais": sample_ais,
            "base_loss": base, "ref_loss": ref, "entropy": (ent * resp).sum(1) / n}


def step_weights(step_ais: torch.Tensor, step_size: torch.Tensor, *, kind: str = "zclip", lam: float = 1.0,
                 w_min: float = 0.1, w_max: float = 3.0, tau: float | None = None) -> torch.Tensor:
    """Per-step weights ``(B, S)`` from step AIS (docs page; map *inferred*); 0 for empty steps.

    ``"zclip"``: ``clip(1 + lam * z_s, w_min, w_max)`` with ``z_s`` the per-sample z-score of AIS;
    ``"softmax"``: ``S * softmax(AIS / tau)`` with ``tau`` the per-sample std unless given; ``"uniform"``: 1.
    """
    checks.one_of("kind", kind, ("zclip", "softmax", "uniform"))
    checks.tensor("step_ais", step_ais, ndim=2)
    checks.tensor("step_size", step_size, ndim=2)
    if step_ais.shape != step_size.shape:
        raise ValueError("step_ais and step_size must have the same shape")
    checks.finite_number("lam", lam)
    checks.nonnegative_number("w_min", w_min)
    checks.nonnegative_number("w_max", w_max)
    if not w_min <= w_max:
        raise ValueError(f"need w_min <= w_max; got w_min={w_min}, w_max={w_max}")
    if tau is not None:
        checks.positive_number("tau", tau)
    valid = step_size > 0
    v = valid.to(step_ais.dtype)
    n = v.sum(1, keepdim=True).clamp_min(1)
    mu = (step_ais * v).sum(1, keepdim=True) / n
    sd = (((step_ais - mu) ** 2 * v).sum(1, keepdim=True) / n).sqrt()
    if kind == "uniform":
        w = torch.ones_like(step_ais)
    elif kind == "zclip":
        w = (1 + lam * (step_ais - mu) / sd.clamp_min(1e-8)).clamp(w_min, w_max)
    else:
        t = sd.clamp_min(1e-8) if tau is None else torch.as_tensor(tau, dtype=step_ais.dtype)
        logits = (step_ais / t).masked_fill(~valid, float("-inf"))
        w = n * torch.softmax(logits, 1)
    return w * v


def token_weights(weights: torch.Tensor, step: torch.Tensor) -> torch.Tensor:
    """Spread step weights ``(B, S)`` onto target tokens ``(B, T-1)`` and renormalise each sample so that its
    total weight equals its number of response tokens (weighting only moves emphasis between steps)."""
    checks.tensor("weights", weights, ndim=2)
    checks.tensor("step", step, ndim=2, dtype_kind="int")
    if weights.shape[0] != step.shape[0] or bool((weights < 0).any()):
        raise ValueError(f"weights must be non-negative with one row per trace ({step.shape[0]}); got "
                         f"{tuple(weights.shape)}")
    st = step[:, 1:]
    valid = st >= 0
    w = weights.gather(1, st.clamp_min(0).clamp_max(weights.shape[1] - 1)) * valid
    n = valid.sum(1, keepdim=True).to(w.dtype)
    return w * n / w.sum(1, keepdim=True).clamp_min(1e-12)


def weighted_sft_loss(token_loss: torch.Tensor, tok_w: torch.Tensor) -> torch.Tensor:
    """``sum w_t l_t / sum_t [response token]`` over the batch (``tok_w`` from :func:`token_weights`)."""
    checks.tensor("token_loss", token_loss, ndim=2)
    checks.tensor("tok_w", tok_w, ndim=2)
    if token_loss.shape != tok_w.shape:
        raise ValueError(f"token_loss and tok_w must match; got {tuple(token_loss.shape)}, {tuple(tok_w.shape)}")
    if bool((tok_w < 0).any()):
        raise ValueError(f"tok_w must be >= 0 (a negative weight would reward the token's loss); "
                         f"got min {float(tok_w.min()):.3g}")
    return (token_loss * tok_w).sum() / (tok_w > 0).sum().clamp_min(1)


def select_top_k(scores: torch.Tensor, k: int) -> torch.Tensor:
    """Indices of the ``k`` largest scores (stable order on ties)."""
    checks.tensor("scores", scores, ndim=1, nonempty=False, finite=False)
    if scores.numel() == 0:
        raise ValueError("scores must score at least one sample; got an empty pool")
    checks.int_between("k (the selection budget)", k, 1, scores.numel(), what="pool size")
    if not torch.isfinite(scores).all():
        raise ValueError("scores must be finite")
    return torch.argsort(scores, descending=True, stable=True)[:k]
