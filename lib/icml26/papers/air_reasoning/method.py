"""AIR (Liu et al., arXiv 2512.13279): retrieval heads, the weakened reference model, the Attention
Influence Score (AIS), AIS-based step weights and top-K sample selection.

* :func:`retrieval_scores` — Wu et al.'s copy-paste rule (note §3.1): head ``h`` copy-pastes needle token
  ``w_t`` iff the position of its maximum attention (from the row that predicts ``w_t``) holds ``w_t``;
  ``R_h`` is the fraction of needle tokens it copy-pastes.
* :func:`top_heads` — the top-``delta`` fraction of heads by ``R_h`` (``H_crit``).
* :func:`masked_heads` — the reference model ``theta_ref`` (note §3.2): the chosen heads attend uniformly
  over the visible positions (``a_ij = 1/(i+1)``, causal), implemented as a head hook of the shared
  attention block; ``"zero"`` and ``"mean"`` ablations for comparison.
* :func:`step_losses` / :func:`attention_influence` — step and sample AIS (note §3.3):
  ``AIS(s) = (L_ref(s) - L_base(s)) / max(L_base(s), eps)`` (relative, default; *inferred*) or the absolute
  difference; the sample score is the same over all response tokens (length-neutral mean, *inferred*) or
  the mean of the step scores.
* :func:`step_weights` / :func:`weighted_sft_loss` — step-weighted SFT (note §3.4; the map is *inferred*).
* :func:`select_top_k` — budgeted selection by a score.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import torch

from icml26.nn.attention import attention_modules
from icml26.nn.tiny_gpt import token_losses

ABLATIONS = ("uniform", "zero", "mean")


def _check_idx(idx: torch.Tensor, name: str = "idx") -> None:
    if not isinstance(idx, torch.Tensor) or idx.dim() != 2 or idx.dtype != torch.long or idx.shape[1] < 2:
        raise ValueError(f"{name} must be a long tensor (B, T) with T >= 2; got {getattr(idx, 'shape', idx)!r}")


@torch.no_grad()
def retrieval_scores(model, idx: torch.Tensor, needle: torch.Tensor) -> torch.Tensor:
    """Retrieval score ``R_h`` ``(n_layers, n_heads)`` of every head on the needle tokens (note §3.1).

    ``needle`` ``(B, T)`` bool marks the target tokens ``w_t`` (C1). The row ``t-1`` (which predicts ``w_t``)
    of head ``h`` has its maximum at ``j*`` (first index on ties); the head copy-pastes iff ``idx[j*] == w_t``
    (C2). ``R_h`` = copy-pasted needle tokens / needle tokens.
    """
    _check_idx(idx)
    if not isinstance(needle, torch.Tensor) or needle.shape != idx.shape or needle.dtype != torch.bool:
        raise ValueError(f"needle must be a bool tensor of shape {tuple(idx.shape)}")
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
    if not isinstance(scores, torch.Tensor) or scores.dim() != 2:
        raise ValueError("scores must be a (n_layers, n_heads) tensor")
    if (delta is None) == (k is None):
        raise ValueError("give exactly one of delta and k")
    total = scores.numel()
    if k is None:
        if not 0 < delta <= 1:
            raise ValueError(f"delta must lie in (0, 1]; got {delta}")
        k = max(1, round(delta * total))
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= total:
        raise ValueError(f"k must be an integer in [1, {total}]; got {k!r}")
    order = torch.argsort(scores.flatten().cpu(), descending=True, stable=True)[:k]
    h = scores.shape[1]
    return [(int(i) // h, int(i) % h) for i in order]


def uniform_head_output(values: torch.Tensor) -> torch.Tensor:
    """Output of causal heads with uniform attention over visible positions: ``O_i = mean_{j<=i} v_j``."""
    s = values.shape[-2]
    count = torch.arange(1, s + 1, device=values.device, dtype=values.dtype).view(-1, 1)
    return values.cumsum(-2) / count


@contextlib.contextmanager
def masked_heads(model, heads: Iterable[tuple[int, int]], mode: str = "uniform") -> Iterator[None]:
    """Within the block the given ``(layer, head)`` pairs are ablated: ``"uniform"`` attention over the
    visible positions (the paper's ``theta_ref``), ``"zero"`` output, or ``"mean"`` (output replaced by its
    mean over batch and positions)."""
    if mode not in ABLATIONS:
        raise ValueError(f"mode must be one of {ABLATIONS}; got {mode!r}")
    mods = attention_modules(model)
    by_layer: dict[int, list[int]] = {}
    for pair in heads:
        ok = isinstance(pair, (tuple, list)) and len(pair) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in pair)
        if not ok or not 0 <= pair[0] < len(mods) or not 0 <= pair[1] < mods[pair[0]].n_heads:
            raise ValueError(f"heads must be (layer, head) pairs with 0 <= layer < {len(mods)} and "
                             f"0 <= head < {mods[0].n_heads}; got {pair!r}")
        layer, head = pair
        by_layer.setdefault(layer, []).append(head)

    def make_hook(hs):
        sel = torch.tensor(sorted(set(hs)))

        def hook(module, res):
            out = res.out.clone()
            if mode == "uniform":
                if not module.causal:
                    raise ValueError("uniform masking is implemented for causal heads")
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
    if not isinstance(target, torch.Tensor) or target.shape != idx.shape or target.dtype != torch.bool:
        raise ValueError(f"target must be a bool tensor of shape {tuple(idx.shape)}")
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
    if step.shape != idx.shape:
        raise ValueError(f"step must have the shape of idx {tuple(idx.shape)}; got {tuple(step.shape)}")
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
    if form not in ("relative", "absolute"):
        raise ValueError(f"form must be 'relative' or 'absolute'; got {form!r}")
    if not eps > 0:
        raise ValueError(f"eps must be > 0; got {eps}")
    if l_ref.shape != l_base.shape:
        raise ValueError("l_ref and l_base must have the same shape")
    diff = l_ref - l_base
    return diff / l_base.clamp_min(eps) if form == "relative" else diff


@torch.no_grad()
def attention_influence(model, heads, idx: torch.Tensor, step: torch.Tensor, *, form: str = "relative",
                        eps: float = 1e-3, sample: str = "tokens", mode: str = "uniform",
                        batch_size: int = 512) -> dict:
    """Step and sample Attention Influence Scores of a batch (note §3.3): two forward passes, no gradients.

    Returns a dict of tensors: ``step_ais`` ``(B, S)``, ``step_size`` ``(B, S)``, ``step_base``/``step_ref``
    (step losses), ``sample_ais`` ``(B,)``, ``base_loss``/``ref_loss`` (mean response loss) and
    ``entropy`` (mean predictive entropy of the base model over the response, for the entropy baseline).
    ``sample="tokens"``: the score of the whole response (token mean); ``"steps"``: the mean of step AIS.
    """
    if sample not in ("tokens", "steps"):
        raise ValueError(f"sample must be 'tokens' or 'steps'; got {sample!r}")
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
    """Per-step weights ``(B, S)`` from step AIS (note §3.4, map *inferred*); 0 for empty steps.

    ``"zclip"``: ``clip(1 + lam * z_s, w_min, w_max)`` with ``z_s`` the per-sample z-score of AIS;
    ``"softmax"``: ``S * softmax(AIS / tau)`` with ``tau`` the per-sample std unless given; ``"uniform"``: 1.
    """
    if kind not in ("zclip", "softmax", "uniform"):
        raise ValueError(f"kind must be 'zclip', 'softmax' or 'uniform'; got {kind!r}")
    if step_ais.shape != step_size.shape:
        raise ValueError("step_ais and step_size must have the same shape")
    if not 0 <= w_min <= w_max:
        raise ValueError(f"need 0 <= w_min <= w_max; got {w_min}, {w_max}")
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
    st = step[:, 1:]
    valid = st >= 0
    w = weights.gather(1, st.clamp_min(0).clamp_max(weights.shape[1] - 1)) * valid
    n = valid.sum(1, keepdim=True).to(w.dtype)
    return w * n / w.sum(1, keepdim=True).clamp_min(1e-12)


def weighted_sft_loss(token_loss: torch.Tensor, tok_w: torch.Tensor) -> torch.Tensor:
    """``sum w_t l_t / sum_t [response token]`` over the batch (``tok_w`` from :func:`token_weights`)."""
    if token_loss.shape != tok_w.shape:
        raise ValueError(f"token_loss and tok_w must match; got {tuple(token_loss.shape)}, {tuple(tok_w.shape)}")
    return (token_loss * tok_w).sum() / (tok_w > 0).sum().clamp_min(1)


def select_top_k(scores: torch.Tensor, k: int) -> torch.Tensor:
    """Indices of the ``k`` largest scores (stable order on ties)."""
    if not isinstance(scores, torch.Tensor) or scores.dim() != 1:
        raise ValueError("scores must be a 1-D tensor")
    if scores.numel() == 0:
        raise ValueError("scores must score at least one sample; got an empty pool")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= scores.numel():
        raise ValueError(f"k (the selection budget) must be an integer in [1, pool size {scores.numel()}]; got {k!r}")
    if not torch.isfinite(scores).all():
        raise ValueError("scores must be finite")
    return torch.argsort(scores, descending=True, stable=True)[:k]
