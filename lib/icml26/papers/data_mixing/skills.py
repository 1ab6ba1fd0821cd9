"""Synthetic "skills" domains and tiny MLPs trained on their mixtures, many at once (note §7).

Each domain i draws skills with Zipf probabilities p_i(r) ~ r^-(1+alpha_i) over ranks r = 1..S_h+S_t; the
first S_h ranks are a head shared by every domain, the rest are the domain's own tail ("shared head,
disjoint tail", §2). Skill k has a fixed random code u_k in R^p and a fixed label y_k in {0..C-1}.
A training set for mixture h with D samples is a multinomial count over skills from sum_i h_i p_i; since
inputs are deterministic per skill we train full-batch on unique skills weighted by their counts
(``D=None`` gives the infinite-data limit: the population weights themselves). The *measured* loss of
domain i is exact: sum_k p_i(k) CE(f(u_k), y_k) over the skill list (never sampled, never from the law).

Many models (mixtures x seeds x data draws) of one width are trained as ONE batched model whose weights
carry a leading model axis (grouped weights, batched matmuls); Adam is element-wise, so this equals
training them one after another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .fitting import check_weights


@dataclass(frozen=True)
class SkillDomains:
    """The generator's fixed world: P (K, S) skill distributions, codes X (S, p), labels y (S,)."""

    P: torch.Tensor
    X: torch.Tensor
    y: torch.Tensor
    alphas: tuple
    n_head: int
    n_tail: int
    n_classes: int

    @property
    def K(self) -> int:
        return self.P.shape[0]

    @property
    def S(self) -> int:
        return self.P.shape[1]

    def to(self, device) -> SkillDomains:
        return SkillDomains(self.P.to(device), self.X.to(device), self.y.to(device), self.alphas,
                            self.n_head, self.n_tail, self.n_classes)


def make_domains(alphas=(0.6, 0.9, 1.2), n_head: int = 40, n_tail: int = 400, dim: int = 32,
                 n_classes: int = 8, seed: int = 1234, device="cpu") -> SkillDomains:
    """Build K = len(alphas) domains sharing ``n_head`` skills, each with ``n_tail`` private skills."""
    alphas = tuple(float(a) for a in alphas)
    K = len(alphas)
    if K < 2:
        raise ValueError(f"alphas must give K >= 2 domains; got K={K}")
    if any(not np.isfinite(a) or a <= 0 for a in alphas):
        raise ValueError(f"alphas must be positive Zipf exponents; got {alphas}")
    for nm, v in (("n_head", n_head), ("n_tail", n_tail), ("dim", dim), ("n_classes", n_classes)):
        if not isinstance(v, (int, np.integer)) or v < (0 if nm == "n_head" else 1):
            raise ValueError(f"{nm} must be a positive integer; got {v!r}")
    if n_classes < 2:
        raise ValueError("n_classes must be >= 2")
    S = n_head + K * n_tail
    ranks = np.arange(1, n_head + n_tail + 1, dtype=np.float64)
    P = np.zeros((K, S))
    for i, a in enumerate(alphas):
        p = ranks ** (-(1 + a))
        p /= p.sum()
        P[i, :n_head] = p[:n_head]
        P[i, n_head + i * n_tail: n_head + (i + 1) * n_tail] = p[n_head:]
    g = np.random.default_rng(seed)
    X = g.standard_normal((S, dim)) / np.sqrt(dim) * 2.0
    y = g.integers(0, n_classes, S)
    return SkillDomains(torch.tensor(P, device=device), torch.tensor(X, dtype=torch.float32, device=device),
                        torch.tensor(y, device=device), alphas, n_head, n_tail, n_classes)


def training_weights(dom: SkillDomains, h, D=None, seed: int = 0) -> torch.Tensor:
    """Per-skill training weights (M, S) for mixtures ``h`` (M, K): empirical frequencies of a
    Multinomial(D, sum_i h_i p_i) draw, or the population frequencies when ``D`` is None."""
    h = check_weights(h, dom.K)
    h = h[None] if h.ndim == 1 else h
    q = torch.as_tensor(h, dtype=torch.float64, device=dom.P.device) @ dom.P  # (M, S)
    if D is None:
        return q.float()
    D = np.broadcast_to(np.asarray(D), (h.shape[0],))
    if np.any(D < 1):
        raise ValueError("D must be >= 1 samples (or None for infinite data)")
    g = np.random.default_rng(seed)
    counts = np.stack([g.multinomial(int(d), qq / qq.sum()) for d, qq in zip(D, q.cpu().numpy())])
    return torch.as_tensor(counts / D[:, None], dtype=torch.float32, device=dom.P.device)


def init_mlps(M: int, dim: int, width: int, n_classes: int, seed: int, device="cpu") -> list:
    """Grouped weights of M independent MLPs dim -> width -> n_classes (PyTorch-default-like init)."""
    g = torch.Generator(device="cpu").manual_seed(seed)
    u = lambda shape, fan: ((torch.rand(shape, generator=g) * 2 - 1) / fan ** 0.5).to(device)
    return [u((M, dim, width), dim).requires_grad_(), u((M, 1, width), dim).requires_grad_(),
            u((M, width, n_classes), width).requires_grad_(), u((M, 1, n_classes), width).requires_grad_()]


def mlp_logits(params, X: torch.Tensor) -> torch.Tensor:
    """Logits (M, S, C) of M MLPs on the shared inputs X (S, p)."""
    W1, b1, W2, b2 = params
    hid = torch.relu(torch.einsum("sp,mpw->msw", X, W1) + b1)
    return torch.bmm(hid, W2) + b2


def per_skill_ce(params, dom: SkillDomains) -> torch.Tensor:
    """Cross-entropy (M, S) of every model on every skill."""
    logits = mlp_logits(params, dom.X)
    picked = logits.gather(2, dom.y.view(1, -1, 1).expand(logits.shape[0], -1, 1)).squeeze(2)
    return torch.logsumexp(logits, 2) - picked


def train_batched(dom: SkillDomains, weights: torch.Tensor, width: int, *, steps: int = 1500, lr: float = 0.03,
                  seed: int = 0, chunk: int | None = None) -> torch.Tensor:
    """Train one MLP per row of ``weights`` (M, S) at once; return domain losses (M, K) (float64).

    ``chunk`` bounds how many models share one batched step (memory); all models in a chunk are
    updated together by one Adam over the grouped weights.
    """
    if weights.dim() != 2 or weights.shape[1] != dom.S:
        raise ValueError(f"weights must be (M, {dom.S}); got {tuple(weights.shape)}")
    if not isinstance(width, (int, np.integer)) or width < 1:
        raise ValueError(f"width must be a positive integer; got {width!r}")
    M = weights.shape[0]
    chunk = M if chunk is None else max(1, int(chunk))
    out = []
    for s in range(0, M, chunk):
        w = weights[s:s + chunk].to(dom.X.device)
        params = init_mlps(w.shape[0], dom.X.shape[1], int(width), dom.n_classes, seed + s, dom.X.device)
        opt = torch.optim.Adam(params, lr=lr)
        for _ in range(steps):
            opt.zero_grad(set_to_none=True)
            ((per_skill_ce(params, dom) * w).sum(1)).sum().backward()
            opt.step()
        with torch.no_grad():
            out.append(per_skill_ce(params, dom).double() @ dom.P.T)
    return torch.cat(out)


def train_loop(dom: SkillDomains, weights: torch.Tensor, width: int, *, steps: int = 1500, lr: float = 0.03,
               seed: int = 0) -> torch.Tensor:
    """Reference: the same models trained one after another (the benchmark's peer)."""
    return torch.cat([train_batched(dom, weights[m:m + 1], width, steps=steps, lr=lr, seed=seed + m)
                      for m in range(weights.shape[0])])


def capacity_of(width: int, dim: int = 32, n_classes: int = 8, unit: float = 100.0) -> float:
    """The law's N for an MLP of this width: its parameter count divided by ``unit`` (§7)."""
    return (dim * width + width + width * n_classes + n_classes) / unit


def measure(dom: SkillDomains, h, width: int, D=None, *, seeds=(0,), steps: int = 1500, lr: float = 0.03,
            data_seed: int = 0, chunk: int | None = None) -> np.ndarray:
    """Measured per-domain losses (M, K) for mixtures ``h`` (M, K), averaged over init ``seeds``,
    all mixtures x seeds trained as one batch. ``D`` = samples (None: infinite data)."""
    h = check_weights(h, dom.K)
    h = h[None] if h.ndim == 1 else h
    M = h.shape[0]
    w = training_weights(dom, h, D, seed=data_seed)
    w_all = w.repeat(len(seeds), 1)
    # seeds enter through the chunk offset: each model gets its own init stream
    L = train_batched(dom, w_all, width, steps=steps, lr=lr, seed=1000 * int(seeds[0]) + 17, chunk=chunk)
    return L.reshape(len(seeds), M, dom.K).mean(0).cpu().numpy()
