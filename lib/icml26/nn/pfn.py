"""A tiny prior-data fitted network (PFN) and its prior-training loop.

A PFN (Müller et al. 2022; TabPFN, Hollmann et al. 2023) is a transformer that reads a labelled
*context* of table rows and predicts the label of *query* rows in one forward pass; it is trained
on tasks drawn from a synthetic prior (see :mod:`icml26.data.priors`), so that its prediction
approximates the posterior predictive of that prior.

Architecture (``TinyPFN``):

* row encoder ``Linear(d_max -> d_model)``; inputs with ``d < d_max`` features are zero-padded and
  rescaled by ``sqrt(d_max / d)`` so that their norm matches a full row (the TabPFN-v1 trick);
* context rows add a label embedding (``Embedding(n_classes, d_model)`` for ``task="cls"``,
  ``Linear(1 -> d_model)`` on the standardised target for ``task="reg"``);
* ``n_layers`` pre-LN GELU ``nn.TransformerEncoderLayer`` blocks in which **every token attends to
  the context tokens only**: a query never sees another query, itself or any query label. The
  blocks' own weights are used; attention keys/values are the (normed) context tokens, which is
  exactly ``nn.TransformerEncoderLayer`` with the boolean mask of :func:`context_only_mask`
  (:meth:`TinyPFN.forward_masked` computes it that way and the tests check both agree);
* heads: ``cls`` -> class logits; ``reg`` -> a Gaussian (mean, log-variance) of the standardised
  target, trained with the Gaussian negative log-likelihood.

Because queries are independent given the context, :meth:`TinyPFN.predict` encodes the context
once and runs the queries in chunks, so inference costs ``O(n_qry * n_ctx)``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks

TASKS = ("cls", "reg")


def context_only_mask(n_ctx: int, n_qry: int, device=None) -> torch.Tensor:
    """Boolean attention mask (``True`` = blocked) letting every token attend to context tokens only.

    Shape ``(n_ctx + n_qry, n_ctx + n_qry)``: columns ``>= n_ctx`` (query tokens) are blocked for all rows.
    """
    checks.int_at_least("n_ctx", n_ctx)
    checks.int_at_least("n_qry", n_qry, 0)
    n = n_ctx + n_qry
    mask = torch.zeros(n, n, dtype=torch.bool, device=device)
    mask[:, n_ctx:] = True
    return mask


def pad_features(x: torch.Tensor, d_max: int) -> torch.Tensor:
    """Zero-pad the last axis of ``x`` from ``d`` to ``d_max`` and rescale by ``sqrt(d_max / d)``."""
    checks.tensor("x", x)
    return _pad(x, d_max)


def _pad(x: torch.Tensor, d_max: int) -> torch.Tensor:
    """:func:`pad_features` without the finiteness check (the model's forward pass)."""
    d = x.shape[-1]
    if d < 1 or d > d_max:
        raise ValueError(f"x must have between 1 and d_max={d_max} features on its last axis; got {d}")
    if d == d_max:
        return x
    x = x * math.sqrt(d_max / d)
    return F.pad(x, (0, d_max - d))


class TinyPFN(nn.Module):
    """A small PFN over context + query rows (see the module docstring).

    ``forward(x_ctx, y_ctx, x_qry)`` takes ``x_ctx (B, n_ctx, d)``, ``y_ctx (B, n_ctx)`` (integer
    classes for ``cls``, standardised floats for ``reg``) and ``x_qry (B, n_qry, d)`` with
    ``d <= d_max``; it returns logits ``(B, n_qry, n_classes)`` for ``cls`` and a pair
    ``(mean, log_var)``, each ``(B, n_qry)``, for ``reg``.
    """

    def __init__(self, d_max: int = 8, d_model: int = 64, n_layers: int = 3, n_heads: int = 4,
                 d_ff: int = 128, task: str = "cls", n_classes: int = 2, dropout: float = 0.0):
        super().__init__()
        checks.int_at_least("d_max", d_max)
        checks.int_at_least("d_model", d_model)
        checks.int_at_least("n_layers", n_layers)
        checks.int_at_least("n_heads", n_heads)
        checks.int_at_least("d_ff", d_ff)
        if d_model % n_heads:
            raise ValueError(f"d_model must be divisible by n_heads; got d_model={d_model}, n_heads={n_heads}")
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}; got {task!r}")
        if task == "cls":
            checks.int_at_least("n_classes", n_classes, 2)
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1); got {dropout}")
        self.d_max, self.d_model, self.task, self.n_classes = d_max, d_model, task, n_classes
        self.config = dict(d_max=d_max, d_model=d_model, n_layers=n_layers, n_heads=n_heads, d_ff=d_ff,
                           task=task, n_classes=n_classes, dropout=dropout)
        self.encoder = nn.Linear(d_max, d_model)
        if task == "cls":
            self.label_encoder = nn.Embedding(n_classes, d_model)
        else:
            self.label_encoder = nn.Linear(1, d_model)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout, activation="gelu",
                                       batch_first=True, norm_first=True)
            for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes if task == "cls" else 2)

    # ------------------------------------------------------------------ checks and embeddings
    def _check(self, x_ctx, y_ctx, x_qry):
        for name, x in (("x_ctx", x_ctx), ("x_qry", x_qry)):
            if not isinstance(x, torch.Tensor) or x.ndim != 3:
                raise ValueError(f"{name} must be a tensor of shape (B, n, d); got "
                                 f"{getattr(x, 'shape', type(x).__name__)}")
            if not x.is_floating_point():
                raise ValueError(f"{name} must be floating point; got {x.dtype}")
        if x_ctx.shape[0] != x_qry.shape[0] or x_ctx.shape[2] != x_qry.shape[2]:
            raise ValueError(f"x_ctx {tuple(x_ctx.shape)} and x_qry {tuple(x_qry.shape)} must share B and d")
        if x_ctx.shape[1] < 1:
            raise ValueError("x_ctx must hold at least one context row")
        if not isinstance(y_ctx, torch.Tensor) or y_ctx.shape != x_ctx.shape[:2]:
            raise ValueError(f"y_ctx must be a tensor of shape {tuple(x_ctx.shape[:2])}; got "
                             f"{getattr(y_ctx, 'shape', type(y_ctx).__name__)}")
        if self.task == "cls":
            if y_ctx.is_floating_point() and not torch.equal(y_ctx, y_ctx.round()):
                raise ValueError("y_ctx must hold integer class labels for task='cls'")
            if y_ctx.numel() and (y_ctx.min() < 0 or y_ctx.max() >= self.n_classes):
                raise ValueError(f"y_ctx labels must lie in [0, {self.n_classes - 1}]")
        elif not torch.isfinite(y_ctx).all():
            raise ValueError("y_ctx must be finite for task='reg'")

    def _embed_ctx(self, x_ctx, y_ctx):
        h = self.encoder(_pad(x_ctx, self.d_max))
        if self.task == "cls":
            return h + self.label_encoder(y_ctx.long())
        return h + self.label_encoder(y_ctx.to(h.dtype).unsqueeze(-1))

    def _embed_qry(self, x_qry):
        return self.encoder(pad_features(x_qry, self.d_max))

    def _head(self, h):
        out = self.head(self.norm(h))
        if self.task == "cls":
            return out
        return out[..., 0], out[..., 1]

    # ------------------------------------------------------------------ forward passes
    @staticmethod
    def _ff(layer, h):
        z = layer.norm2(h)
        return h + layer.dropout2(layer.linear2(layer.dropout(layer.activation(layer.linear1(z)))))

    def encode_context(self, x_ctx, y_ctx) -> list[torch.Tensor]:
        """The normed context tokens entering each layer's attention (keys and values), one per layer."""
        hc = self._embed_ctx(x_ctx, y_ctx)
        keys = []
        for layer in self.layers:
            zc = layer.norm1(hc)
            keys.append(zc)
            hc = hc + layer.dropout1(layer.self_attn(zc, zc, zc, need_weights=False)[0])
            hc = self._ff(layer, hc)
        return keys

    def query(self, keys: list[torch.Tensor], x_qry):
        """Run query rows through the layers, attending to the cached context ``keys``."""
        hq = self._embed_qry(x_qry)
        for layer, zc in zip(self.layers, keys):
            zq = layer.norm1(hq)
            hq = hq + layer.dropout1(layer.self_attn(zq, zc, zc, need_weights=False)[0])
            hq = self._ff(layer, hq)
        return self._head(hq)

    def forward(self, x_ctx, y_ctx, x_qry):
        self._check(x_ctx, y_ctx, x_qry)
        return self.query(self.encode_context(x_ctx, y_ctx), x_qry)

    def forward_masked(self, x_ctx, y_ctx, x_qry):
        """Reference path: the stock ``nn.TransformerEncoderLayer`` with :func:`context_only_mask`."""
        self._check(x_ctx, y_ctx, x_qry)
        n_ctx, n_qry = x_ctx.shape[1], x_qry.shape[1]
        h = torch.cat([self._embed_ctx(x_ctx, y_ctx), self._embed_qry(x_qry)], dim=1)
        mask = context_only_mask(n_ctx, n_qry, device=h.device)
        for layer in self.layers:
            h = layer(h, src_mask=mask)
        return self._head(h[:, n_ctx:])

    def predict(self, x_ctx, y_ctx, x_qry, chunk_size: int = 2048):
        """Like :meth:`forward`, with the context encoded once and queries run in chunks."""
        self._check(x_ctx, y_ctx, x_qry)
        checks.int_at_least("chunk_size", chunk_size)
        keys = self.encode_context(x_ctx, y_ctx)
        outs = [self.query(keys, x_qry[:, i:i + chunk_size]) for i in range(0, x_qry.shape[1], chunk_size)]
        if self.task == "cls":
            return torch.cat(outs, dim=1)
        return torch.cat([o[0] for o in outs], 1), torch.cat([o[1] for o in outs], 1)


def pfn_loss(model: TinyPFN, x_ctx, y_ctx, x_qry, y_qry) -> torch.Tensor:
    """Mean query loss: cross-entropy (``cls``) or Gaussian negative log-likelihood (``reg``)."""
    checks.instance("model", model, TinyPFN)
    checks.tensor("x_ctx", x_ctx)
    checks.tensor("x_qry", x_qry)
    checks.tensor("y_qry", y_qry, shape=tuple(x_qry.shape[:2]) if x_qry.dim() == 3 else None)
    if model.task == "cls" and y_qry.numel() and (int(y_qry.min()) < 0 or int(y_qry.max()) >= model.n_classes):
        raise ValueError(f"y_qry labels must lie in [0, {model.n_classes - 1}]")
    return _loss(model, x_ctx, y_ctx, x_qry, y_qry)


def _loss(model: TinyPFN, x_ctx, y_ctx, x_qry, y_qry) -> torch.Tensor:
    """:func:`pfn_loss` without the input checks (the training loop's batches come from the sampler)."""
    out = model(x_ctx, y_ctx, x_qry)
    if model.task == "cls":
        return F.cross_entropy(out.reshape(-1, out.shape[-1]).float(), y_qry.reshape(-1).long())
    mean, log_var = out
    log_var = log_var.float().clamp(-10, 10)
    return 0.5 * (log_var + (y_qry - mean.float()) ** 2 * torch.exp(-log_var)).mean() + 0.5 * math.log(2 * math.pi)


def lr_schedule(step: int, steps: int, warmup_frac: float = 0.05) -> float:
    """Learning-rate multiplier: linear warm-up over ``warmup_frac`` of the steps, then cosine decay to 0."""
    checks.nonnegative_int("step", step)
    checks.positive_int("steps", steps)
    checks.probability("warmup_frac", warmup_frac)
    return _lr(step, steps, warmup_frac)


def _lr(step: int, steps: int, warmup_frac: float) -> float:
    warm = max(1, int(round(warmup_frac * steps)))
    if step < warm:
        return (step + 1) / warm
    progress = (step - warm) / max(1, steps - warm)
    return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def train_pfn(model: TinyPFN, sampler: Callable, steps: int, batch_size: int = 32,
              n_ctx: tuple[int, int] = (16, 256), n_qry: int = 64, d: int | None = None, lr: float = 1e-3,
              weight_decay: float = 0.0, warmup_frac: float = 0.05, grad_clip: float = 1.0, seed: int = 0,
              device="cpu", amp: bool | None = None, time_limit: float | None = None) -> dict:
    """Fit ``model`` to tasks drawn from ``sampler`` (prior-data fitting, Müller et al. 2022).

    ``sampler(B, n_ctx, n_qry, d, generator=..., device=...) -> (X, y, meta)`` returns context rows
    first. Each step draws ``n_ctx ~ U[n_ctx[0], n_ctx[1]]``; AdamW with warm-up + cosine decay,
    gradient clipping; bf16 autocast on CUDA when ``amp`` is None or True. ``time_limit`` (seconds)
    stops early. Returns ``{"loss": [...], "steps": k, "seconds": t}``.
    """
    if not isinstance(model, TinyPFN):
        raise ValueError(f"model must be a TinyPFN; got {type(model).__name__}")
    if not callable(sampler):
        raise ValueError("sampler must be callable (see icml26.data.priors)")
    checks.int_at_least("steps", steps)
    checks.int_at_least("batch_size", batch_size)
    checks.int_at_least("n_qry", n_qry)
    if (not isinstance(n_ctx, (tuple, list)) or len(n_ctx) != 2 or not 1 <= n_ctx[0] <= n_ctx[1]):
        raise ValueError(f"n_ctx must be a pair (lo, hi) with 1 <= lo <= hi; got {n_ctx!r}")
    d = model.d_max if d is None else d
    if not 1 <= d <= model.d_max:
        raise ValueError(f"d must lie in [1, d_max={model.d_max}]; got {d}")
    checks.positive_number("lr", lr)
    checks.nonnegative_number("weight_decay", weight_decay)
    checks.probability("warmup_frac", warmup_frac)
    checks.nonnegative_number("grad_clip", grad_clip)
    checks.seed("seed", seed)
    if time_limit is not None:
        checks.positive_number("time_limit", time_limit)
    device = checks.device("device", device)
    use_amp = (device.type == "cuda") if amp is None else (bool(amp) and device.type == "cuda")
    model.to(device).train()
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    cpu_gen = torch.Generator().manual_seed(seed + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: _lr(s, steps, warmup_frac))
    losses, t0 = [], time.perf_counter()
    for _ in range(steps):
        nc = int(torch.randint(n_ctx[0], n_ctx[1] + 1, (1,), generator=cpu_gen))
        X, y, _ = sampler(batch_size, nc, n_qry, d, generator=gen, device=device)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_amp):
            loss = _loss(model, X[:, :nc], y[:, :nc], X[:, nc:], y[:, nc:])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip:
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
    model.eval()
    return {"loss": losses, "steps": len(losses), "seconds": time.perf_counter() - t0}
