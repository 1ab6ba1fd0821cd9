"""Synthetic "skills" domains and tiny MLPs trained on their mixtures, many at once (docs/papers/data_mixing.md §2).

Each domain i draws skills with Zipf probabilities p_i(r) ~ r^-(1+alpha_i) over ranks r = 1..S_h+S_t; the
first S_h ranks are a head shared by every domain, the rest are the domain's own tail ("shared head,
disjoint tail" of the paper's abstract). Skill k has a fixed random code u_k in R^p and a fixed label y_k in {0..C-1}.
A training set for mixture h with D samples is a multinomial count over skills from sum_i h_i p_i; since
inputs are deterministic per skill we train full-batch on unique skills weighted by their counts
(``D=None`` gives the infinite-data limit: the population weights themselves). The *measured* loss of
domain i is exact: sum_k p_i(k) CE(f(u_k), y_k) over the skill list (never sampled, never from the law).

Many models (mixtures x seeds x data draws) of one width are trained as ONE grouped model whose weights
carry a leading model axis; Adam is element-wise, so this equals training them one after another. The
grouped model runs in a skill-last layout: the first layer of every model is one matrix product
(M*w, p) @ (p, S), the second a batched product over the model axis, and the logits are (M, C, S) so the
softmax over the C classes runs over a middle axis (on CPU, PyTorch's softmax over a last axis of size 8
was measured ~20x slower than over a middle one). On CPU the group is stepped in blocks of models whose
hidden activations fit in ~2 MB (:func:`block_size`; one block of all 64 models was measured ~1.5x slower
per model than blocks of 16, the activations no longer staying in cache); on a GPU it is one block.
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


def _skill_last(params) -> list:
    """The four grouped tensors in the training layout: W1^T (M, w, p), b1 (M, w, 1), W2^T (M, C, w), b2 (M, C, 1)."""
    return [t.detach().transpose(1, 2).contiguous() for t in params]


def _grouped_ce(fast, XT, y):
    """Cross-entropy (M, S) of the grouped model in the training layout on inputs XT (p, S), labels y (S,)."""
    W1T, b1, W2T, b2 = fast
    M, w, p = W1T.shape
    Z = torch.addmm(b1.reshape(M * w, 1), W1T.reshape(M * w, p), XT).view(M, w, -1)
    logp = torch.log_softmax(torch.baddbmm(b2, W2T, torch.relu(Z)), 1)  # (M, C, S)
    return -logp.gather(1, y.view(1, 1, -1).expand(M, 1, -1)).squeeze(1)


_BLOCK_FLOATS = 2 ** 19
"""Hidden activations per CPU block (2 MB of float32): chosen on the benchmark's sizes, blocks of 8-32 models at
widths 8-16 over 2,040 skills were 1.3-1.9x faster per model than one block of 64-200."""


def block_size(M: int, width: int, S: int, device="cpu") -> int:
    """How many of M models of this width over S skills are stepped together: all of them on a GPU, on a CPU
    as many as keep their hidden activations (models x width x S floats) within ~2 MB, at least one."""
    for name, v in (("M", M), ("width", width), ("S", S)):
        checks.positive_int(name, v)
    device = checks.device("device", device)
    if device.type != "cpu":
        return int(M)
    return int(max(1, min(M, _BLOCK_FLOATS // (width * S))))


def train_batched(dom: SkillDomains, weights: torch.Tensor, width: int, *, steps: int = 1500, lr: float = 0.03,
                  seed: int = 0, chunk: int | None = None) -> torch.Tensor:
    """Train one MLP per row of ``weights`` (M, S) at once; return domain losses (M, K) (float64).

    ``chunk`` is how many models share one step (None: :func:`block_size`); the initial weights are drawn once
    for all M models, so the result does not depend on ``chunk`` (up to float rounding).
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


def _train_batched(dom, weights, width, steps, lr, seed, chunk, start=None):
    M = weights.shape[0]
    dev = dom.X.device
    # one initial draw for the whole group (a model's start does not depend on how the group is blocked);
    # start (M,) picks row start[m] of a draw of max(start)+1 networks for model m (shared starts)
    n = M if start is None else int(start.max()) + 1
    init = _skill_last(_init_mlps(n, dom.X.shape[1], int(width), dom.n_classes, seed, dev))
    if start is not None:
        init = [t[start.to(t.device)] for t in init]
    chunk = block_size(M, int(width), dom.S, dev) if chunk is None else max(1, int(chunk))
    XT = dom.X.t().contiguous()
    out = []
    for s in range(0, M, chunk):
        out.append(_train_block(dom, XT, weights[s:s + chunk].to(dev), [t[s:s + chunk] for t in init], steps, lr))
    return torch.cat(out)


def _train_block(dom, XT, w, init, steps, lr):
    """Adam on one block of the grouped model (full batch, skill weights w (m, S)); domain losses (m, K)."""
    params = [t.clone().requires_grad_(True) for t in init]
    opt = torch.optim.Adam(params, lr=lr)
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        (_grouped_ce(params, XT, dom.y) * w).sum().backward()
        opt.step()
    with torch.no_grad():
        return _grouped_ce(params, XT, dom.y).double() @ dom.P.T


def train_loop(dom: SkillDomains, weights: torch.Tensor, width: int, *, steps: int = 1500, lr: float = 0.03,
               seed: int = 0) -> torch.Tensor:
    """Reference: the same models (the same initial weights as :func:`train_batched`) trained one after another
    (the benchmark's loop)."""
    _check_training(dom, weights, width, steps, lr, seed, None)
    return _train_batched(dom, weights, width, steps, lr, seed, 1)


def capacity_of(width: int, dim: int = 32, n_classes: int = 8, unit: float = 100.0) -> float:
    """The law's N for an MLP of this width: its parameter count divided by ``unit`` (docs/papers/data_mixing.md §2)."""
    for name, v in (("width", width), ("dim", dim), ("n_classes", n_classes)):
        checks.positive_int(name, v)
    checks.positive_number("unit", unit)
    return (dim * width + width + width * n_classes + n_classes) / unit


def measure(dom: SkillDomains, h, width: int, D=None, *, seeds=(0,), steps: int = 1500, lr: float = 0.03,
            data_seed: int = 0, chunk: int | None = None, paired: bool = False) -> np.ndarray:
    """Measured per-domain losses (M, K) for mixtures ``h`` (M, K), averaged over init ``seeds``,
    all mixtures x seeds trained as one batch. ``D`` = samples (None: infinite data).

    ``paired=True`` uses common random numbers, for comparing mixtures with each other: every mixture starts from
    the same ``len(seeds)`` initial networks and its data are drawn with the same random stream (so nearby mixtures
    get nearby samples); otherwise each (seed, mixture) has its own start and the mixtures one joint draw."""
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
    checks.instance("paired", paired, (bool, np.bool_))
    if paired:
        Ds = [None] * M if D is None else np.broadcast_to(np.asarray(D), (M,))
        w = torch.cat([training_weights(dom, h[m], Ds[m], seed=data_seed) for m in range(M)])
    else:
        w = training_weights(dom, h, D, seed=data_seed)
    w_all = w.repeat(len(seeds), 1)
    # one initial draw for all mixtures x seeds: each (seed, mixture) row gets its own initial weights, or, paired,
    # each seed one start shared by every mixture
    start = torch.arange(len(seeds)).repeat_interleave(M) if paired else None
    L = _train_batched(dom, w_all, width, steps, lr, 1000 * int(seeds[0]) + 17, chunk, start)
    return L.reshape(len(seeds), M, dom.K).mean(0).cpu().numpy()
