"""Per-feature numerical embeddings (Gorishniy et al. 2022), batched over features.

See docs/papers/tabular_uncertainty.md §3.4-§3.5.

Each module maps ``x (B, m)`` to ``(B, m, d)`` (one ``d``-vector per numerical feature, no weights
shared across features unless ``lite``); the MLP backbone reads the flattened ``(B, m * d)``.

* :class:`LinearReLUEmbedding` - LR (``n_layers=1``) and LRLR (``n_layers=2``, the base of the
  paper's triplet-regularised embedding, docs §3.4): ``ReLU(W2_j ReLU(w1_j x_j + b1_j) + b2_j)``.
* :class:`PeriodicEmbedding` - PLR: ``[sin 2 pi c_i x, cos 2 pi c_i x]_{i<=k}`` with trainable
  ``c ~ N(0, sigma^2)``, then Linear(2k -> d) + ReLU per feature (shared when ``lite``).
* :class:`PiecewiseLinearEmbedding` - PLE (piecewise-linear encoding on quantile bins computed on
  the training split, :func:`compute_bins`) followed by a per-feature Linear + ReLU.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from icml26 import checks

KINDS = ("none", "lr", "lrlr", "plr", "ple")


def _check_pos(name, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be a positive integer; got {v!r}")
    return v


def _check_x(x: torch.Tensor, m: int) -> None:
    if not isinstance(x, torch.Tensor) or x.ndim != 2 or x.shape[1] != m:
        raise ValueError(f"x must be a (B, {m}) tensor; got {getattr(x, 'shape', type(x).__name__)}")


def _uniform_(t: torch.Tensor, fan_in: int) -> torch.Tensor:
    bound = 1.0 / math.sqrt(fan_in)
    return nn.init.uniform_(t, -bound, bound)


class PerFeatureLinear(nn.Module):
    """``(B, m, a) -> (B, m, b)`` with a separate ``a x b`` weight for every feature (one einsum)."""

    def __init__(self, m: int, a: int, b: int):
        super().__init__()
        for name, value in (("m", m), ("a", a), ("b", b)):
            _check_pos(name, value)
        self.weight = nn.Parameter(_uniform_(torch.empty(m, a, b), a))
        self.bias = nn.Parameter(_uniform_(torch.empty(m, b), a))

    def forward(self, z):
        return torch.einsum("nma,mao->nmo", z, self.weight) + self.bias


class LinearReLUEmbedding(nn.Module):
    """LR / LRLR embeddings: per-feature ``Linear(1 -> d) + ReLU`` (then ``Linear(d -> d) + ReLU`` for LRLR)."""

    def __init__(self, n_features: int, d_embedding: int = 16, n_layers: int = 2):
        super().__init__()
        self.m, self.d = _check_pos("n_features", n_features), _check_pos("d_embedding", d_embedding)
        if n_layers not in (1, 2):
            raise ValueError(f"n_layers must be 1 (LR) or 2 (LRLR); got {n_layers!r}")
        self.w1 = nn.Parameter(_uniform_(torch.empty(n_features, d_embedding), 1))
        self.b1 = nn.Parameter(_uniform_(torch.empty(n_features, d_embedding), 1))
        self.second = PerFeatureLinear(n_features, d_embedding, d_embedding) if n_layers == 2 else None

    def forward(self, x):
        _check_x(x, self.m)
        z = torch.relu(x[..., None] * self.w1 + self.b1)
        return torch.relu(self.second(z)) if self.second is not None else z


class PeriodicEmbedding(nn.Module):
    """PLR (and PLR-lite): periodic features with trainable frequencies, then Linear + ReLU (docs §3.5)."""

    def __init__(self, n_features: int, d_embedding: int = 16, n_frequencies: int = 16,
                 frequency_init_scale: float = 0.1, lite: bool = False):
        super().__init__()
        self.m, self.d = _check_pos("n_features", n_features), _check_pos("d_embedding", d_embedding)
        _check_pos("n_frequencies", n_frequencies)
        checks.positive_number("frequency_init_scale", frequency_init_scale)
        self.frequencies = nn.Parameter(torch.randn(n_features, n_frequencies) * frequency_init_scale)
        self.lite = bool(lite)
        if lite:
            self.linear = nn.Linear(2 * n_frequencies, d_embedding)
        else:
            self.linear = PerFeatureLinear(n_features, 2 * n_frequencies, d_embedding)

    def periodic(self, x):
        """The raw periodic features ``[sin, cos](2 pi c x)``: ``(B, m, 2k)``."""
        _check_x(x, self.m)
        z = 2 * math.pi * self.frequencies * x[..., None]
        return torch.cat([torch.sin(z), torch.cos(z)], -1)

    def forward(self, x):
        return torch.relu(self.linear(self.periodic(x)))


def compute_bins(X: torch.Tensor, n_bins: int = 16) -> torch.Tensor:
    """Quantile bin edges per feature from the **training** rows ``X (n, m)``: ``(m, n_bins + 1)``.

    Edges are made strictly increasing (ties, e.g. from discrete features, are nudged apart) so that
    every bin has positive width.
    """
    if not isinstance(X, torch.Tensor) or X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"X must be an (n >= 2, m) tensor; got {getattr(X, 'shape', type(X).__name__)}")
    _check_pos("n_bins", n_bins)
    if not X.is_floating_point():
        raise ValueError(f"X must hold floats; got dtype {X.dtype}")
    if not torch.isfinite(X).all():
        raise ValueError("X must be finite")
    q = torch.linspace(0, 1, n_bins + 1, dtype=X.dtype, device=X.device)
    edges = torch.quantile(X, q, dim=0).T.contiguous()  # (m, T+1)
    span = (edges[:, -1:] - edges[:, :1]).clamp_min(1e-6)
    step = 1e-6 * span
    gaps = torch.diff(edges, dim=1).clamp_min(step)
    return torch.cat([edges[:, :1], edges[:, :1] + gaps.cumsum(1)], 1)


def ple_encode(x: torch.Tensor, edges: torch.Tensor) -> torch.Tensor:
    """Piecewise-linear encoding (docs §3.5): ``x (B, m)``, ``edges (m, T + 1)`` -> ``(B, m, T)``.

    Component ``t`` is 0 left of bin ``t``, 1 right of it, linear inside; the first bin is not clipped
    below and the last not clipped above, so values outside the training range extrapolate linearly.
    """
    checks.tensor("x", x, ndim=2, dtype_kind="float")
    checks.tensor("edges", edges, ndim=2, dtype_kind="float")
    if edges.shape[1] >= 2 and not bool((torch.diff(edges, dim=1) > 0).all()):
        raise ValueError("edges must be strictly increasing along each row (see compute_bins)")
    return _ple_encode(x, edges)


def _ple_encode(x: torch.Tensor, edges: torch.Tensor) -> torch.Tensor:
    """:func:`ple_encode` without the value checks (the embedding's forward pass)."""
    if edges.ndim != 2 or edges.shape[1] < 2:
        raise ValueError(f"edges must be (m, T + 1) with T >= 1; got {tuple(edges.shape)}")
    _check_x(x, edges.shape[0])
    left, right = edges[:, :-1], edges[:, 1:]
    r = (x[..., None] - left) / (right - left)
    T = edges.shape[1] - 1
    if T == 1:
        return r
    first = r[..., :1].clamp(max=1.0)
    mid = r[..., 1:-1].clamp(0.0, 1.0)
    last = r[..., -1:].clamp(min=0.0)
    return torch.cat([first, mid, last], -1)


class PiecewiseLinearEmbedding(nn.Module):
    """PLE + per-feature Linear(T -> d) + ReLU. ``edges`` come from :func:`compute_bins` on the train split."""

    def __init__(self, edges: torch.Tensor, d_embedding: int = 16):
        super().__init__()
        checks.tensor("edges", edges, ndim=2, dtype_kind="float")
        if not isinstance(edges, torch.Tensor) or edges.ndim != 2 or edges.shape[1] < 2:
            raise ValueError("edges must be an (m, T + 1) tensor from compute_bins")
        if not (torch.diff(edges, dim=1) > 0).all():
            raise ValueError("edges must be strictly increasing along each row")
        self.m, self.d = edges.shape[0], _check_pos("d_embedding", d_embedding)
        self.register_buffer("edges", edges.float().clone())
        self.linear = PerFeatureLinear(self.m, edges.shape[1] - 1, d_embedding)

    def forward(self, x):
        return torch.relu(self.linear(_ple_encode(x, self.edges)))


def make_embedding(kind: str, n_features: int, d_embedding: int = 16, X_train: torch.Tensor | None = None,
                   n_frequencies: int = 16, frequency_init_scale: float = 0.1, n_bins: int = 16,
                   lite: bool = False) -> nn.Module | None:
    """Build an embedding by name (:data:`KINDS`); ``"none"`` gives ``None`` (a plain MLP)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    for name, value in (("n_features", n_features), ("d_embedding", d_embedding), ("n_frequencies", n_frequencies),
                        ("n_bins", n_bins)):
        _check_pos(name, value)
    checks.positive_number("frequency_init_scale", frequency_init_scale)
    if kind == "ple" and X_train is not None:
        checks.tensor("X_train", X_train, ndim=2, dtype_kind="float")
    if kind == "none":
        return None
    if kind in ("lr", "lrlr"):
        return LinearReLUEmbedding(n_features, d_embedding, 1 if kind == "lr" else 2)
    if kind == "plr":
        return PeriodicEmbedding(n_features, d_embedding, n_frequencies, frequency_init_scale, lite)
    if X_train is None:
        raise ValueError("X_train (the training split) is required for kind='ple' (bins use train data only)")
    return PiecewiseLinearEmbedding(compute_bins(X_train, n_bins), d_embedding)
