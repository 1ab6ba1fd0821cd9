"""Synthetic "skills" domains and tiny MLPs trained on their mixtures, many at once (docs/papers/data_mixing.md §2).

Each domain i draws skills with Zipf probabilities p_i(r) ~ r^-(1+alpha_i) over ranks r = 1..S_h+S_t; the
first S_h ranks are a head shared by every domain, the rest are the domain's own tail ("shared head,
disjoint tail" of the paper's abstract). Skill k has a fixed random code u_k in R^p and a fixed label y_k in {0..C-1}.
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

from icml26 import checks

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
    try:
        alphas = tuple(float(a) for a in alphas)
    except (TypeError, ValueError):
        raise TypeError(f"alphas must be a sequence of Zipf exponents (numbers); got {alphas!r:.80}") from None
    checks.seed("seed", seed)
    checks.device("device", device)
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
    _check_domains(dom)
    h = check_weights(h, dom.K)
    h = h[None] if h.ndim == 1 else h
    _check_samples(D, h.shape[0])
    checks.seed("seed", seed)
    q = torch.as_tensor(h, dtype=torch.float64, device=dom.P.device) @ dom.P  # (M, S)
    if D is None:
        return q.float()
    D = np.broadcast_to(np.asarray(D), (h.shape[0],))
    g = np.random.default_rng(seed)
    counts = np.stack([g.multinomial(int(d), qq / qq.sum()) for d, qq in zip(D, q.cpu().numpy())])
    return torch.as_tensor(counts / D[:, None], dtype=torch.float32, device=dom.P.device)


def init_mlps(M: int, dim: int, width: int, n_classes: int, seed: int, device="cpu") -> list:
    """Grouped weights of M independent MLPs dim -> width -> n_classes (PyTorch-default-like init)."""
    for name, v in (("M", M), ("dim", dim), ("width", width), ("n_classes", n_classes)):
        checks.positive_int(name, v)
    checks.seed("seed", seed)
    checks.device("device", device)
    return _init_mlps(M, dim, width, n_classes, seed, device)


def _init_mlps(M, dim, width, n_classes, seed, device):
    g = torch.Generator(device="cpu").manual_seed(seed)
    u = lambda shape, fan: ((torch.rand(shape, generator=g) * 2 - 1) / fan ** 0.5).to(device)
    return [u((M, dim, width), dim).requires_grad_(), u((M, 1, width), dim).requires_grad_(),
            u((M, width, n_classes), width).requires_grad_(), u((M, 1, n_classes), width).requires_grad_()]


def mlp_logits(params, X: torch.Tensor) -> torch.Tensor:
    """Logits (M, S, C) of M MLPs on the shared inputs X (S, p)."""
    checks.tensor("X", X, ndim=2)
    _check_mlps(params, None)
    if X.shape[1] != params[0].shape[1]:
        raise ValueError(f"X must be (S, {params[0].shape[1]}), the input dimension of params; got {tuple(X.shape)}")
    return _mlp_logits(params, X)


def _check_mlps(params, dim: int | None) -> None:
    """params: the four grouped tensors of init_mlps, W1 (M, dim, w), b1 (M, 1, w), W2 (M, w, C), b2 (M, 1, C)."""
    if isinstance(params, (str, bytes, torch.Tensor)) or not hasattr(params, "__len__") or len(params) != 4:
        raise TypeError("params must be the four grouped tensors [W1, b1, W2, b2] of init_mlps")
    for name, v in zip(("W1", "b1", "W2", "b2"), params):
        checks.tensor(f"params ({name})", v, ndim=3)
    W1, b1, W2, b2 = params
    M, w, C = W1.shape[0], W1.shape[2], W2.shape[2]
    dim = W1.shape[1] if dim is None else dim
    want = {"W1": (M, dim, w), "b1": (M, 1, w), "W2": (M, w, C), "b2": (M, 1, C)}
    got = {name: tuple(v.shape) for name, v in zip(want, params)}
    if got != want:
        raise ValueError(f"params must have the shapes {want} (inputs of dimension {dim}); got {got}")


def _mlp_logits(params, X):
    W1, b1, W2, b2 = params
    hid = torch.relu(torch.einsum("sp,mpw->msw", X, W1) + b1)
    return torch.bmm(hid, W2) + b2


def per_skill_ce(params, dom: SkillDomains) -> torch.Tensor:
    """Cross-entropy (M, S) of every model on every skill."""
    _check_domains(dom)
    _check_mlps(params, dom.X.shape[1])
    if params[2].shape[2] != dom.n_classes:
        raise ValueError(f"params must output dom.n_classes={dom.n_classes} logits; got {params[2].shape[2]}")
    return _per_skill_ce(params, dom)


def _per_skill_ce(params, dom):
    logits = _mlp_logits(params, dom.X)
    picked = logits.gather(2, dom.y.view(1, -1, 1).expand(logits.shape[0], -1, 1)).squeeze(2)
    return torch.logsumexp(logits, 2) - picked


def train_batched(dom: SkillDomains, weights: torch.Tensor, width: int, *, steps: int = 1500, lr: float = 0.03,
                  seed: int = 0, chunk: int | None = None) -> torch.Tensor:
    """Train one MLP per row of ``weights`` (M, S) at once; return domain losses (M, K) (float64).

    ``chunk`` bounds how many models share one batched step (memory); all models in a chunk are
    updated together by one Adam over the grouped weights.
    """
    _check_training(dom, weights, width, steps, lr, seed, chunk)
    return _train_batched(dom, weights, width, steps, lr, seed, chunk)


def _check_domains(dom) -> None:
    if not isinstance(dom, SkillDomains):
        raise TypeError(f"dom must be a SkillDomains (from make_domains); got {type(dom).__name__}")


def _check_samples(D, M: int) -> None:
    """D: None (infinite data) or a number of samples >= 1, a scalar or one per mixture (M,)."""
    if D is None:
        return
    arr = checks.array("D", D, ndim=(0, 1))
    if arr.shape not in ((), (M,)) or not np.issubdtype(arr.dtype, np.number) or np.any(arr < 1):
        raise ValueError(f"D must be None or a number of samples >= 1 (a scalar or one per mixture, ({M},)); "
                         f"got {D!r:.80}")


def _check_training(dom, weights, width, steps, lr, seed, chunk) -> None:
    _check_domains(dom)
    checks.tensor("weights", weights, ndim=2)
    if weights.shape[1] != dom.S:
        raise ValueError(f"weights must be (M, {dom.S}); got {tuple(weights.shape)}")
    if bool((weights < 0).any()):
        raise ValueError("weights must be non-negative (per-skill training weights)")
    checks.positive_int("width", width)
    checks.positive_int("steps", steps)
    checks.positive_number("lr", lr)
    checks.seed("seed", seed)
    if chunk is not None:
        checks.positive_int("chunk", chunk)


def _train_batched(dom, weights, width, steps, lr, seed, chunk):
    M = weights.shape[0]
    chunk = M if chunk is None else max(1, int(chunk))
    out = []
    for s in range(0, M, chunk):
        w = weights[s:s + chunk].to(dom.X.device)
        params = _init_mlps(w.shape[0], dom.X.shape[1], int(width), dom.n_classes, seed + s, dom.X.device)
        opt = torch.optim.Adam(params, lr=lr)
        for _ in range(steps):
            opt.zero_grad(set_to_none=True)
            ((_per_skill_ce(params, dom) * w).sum(1)).sum().backward()
            opt.step()
        with torch.no_grad():
            out.append(_per_skill_ce(params, dom).double() @ dom.P.T)
    return torch.cat(out)


def train_loop(dom: SkillDomains, weights: torch.Tensor, width: int, *, steps: int = 1500, lr: float = 0.03,
               seed: int = 0) -> torch.Tensor:
    """Reference: the same models trained one after another (the benchmark's peer)."""
    _check_training(dom, weights, width, steps, lr, seed, None)
    return torch.cat([_train_batched(dom, weights[m:m + 1], width, steps, lr, seed + m, None)
                      for m in range(weights.shape[0])])


def capacity_of(width: int, dim: int = 32, n_classes: int = 8, unit: float = 100.0) -> float:
    """The law's N for an MLP of this width: its parameter count divided by ``unit`` (docs/papers/data_mixing.md §2)."""
    for name, v in (("width", width), ("dim", dim), ("n_classes", n_classes)):
        checks.positive_int(name, v)
    checks.positive_number("unit", unit)
    return (dim * width + width + width * n_classes + n_classes) / unit


def measure(dom: SkillDomains, h, width: int, D=None, *, seeds=(0,), steps: int = 1500, lr: float = 0.03,
            data_seed: int = 0, chunk: int | None = None) -> np.ndarray:
    """Measured per-domain losses (M, K) for mixtures ``h`` (M, K), averaged over init ``seeds``,
    all mixtures x seeds trained as one batch. ``D`` = samples (None: infinite data)."""
    _check_domains(dom)
    h = check_weights(h, dom.K)
    h = h[None] if h.ndim == 1 else h
    M = h.shape[0]
    _check_samples(D, M)
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__") or len(seeds) == 0:
        raise ValueError(f"seeds must be a non-empty sequence of seeds; got {seeds!r}")
    for s in seeds:
        checks.seed("seeds", s)
    checks.positive_int("width", width)
    checks.positive_int("steps", steps)
    checks.positive_number("lr", lr)
    checks.seed("data_seed", data_seed)
    if chunk is not None:
        checks.positive_int("chunk", chunk)
    w = training_weights(dom, h, D, seed=data_seed)
    w_all = w.repeat(len(seeds), 1)
    # seeds enter through the chunk offset: each model gets its own init stream
    L = _train_batched(dom, w_all, width, steps, lr, 1000 * int(seeds[0]) + 17, chunk)
    return L.reshape(len(seeds), M, dom.K).mean(0).cpu().numpy()
