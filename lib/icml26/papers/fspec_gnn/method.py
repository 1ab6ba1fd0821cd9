"""FSpecGNN: full-spectrum graph convolution on node-pair signals (arXiv 2605.05759).

Section numbers §3.x below are those of docs/papers/fspec_gnn.md, not the paper's.

Notation: ``L = I - D^{-1/2} A D^{-1/2} = U Λ U^T``. A node-pair signal ``X`` (``n x n`` per channel)
is filtered by a *bivariate* filter ``G(λ_i, λ_j)`` acting on the pair spectrum ``U ⊗ U``:

    vec(Y) = (U ⊗ U) diag(G) (U ⊗ U)^T vec(X)   <=>   Y = U [G ⊙ (U^T X U)] U^T          (§3.1)

* diagonal case (Prop. 3.3): ``X = I`` gives ``Y = g(L)`` with ``g(λ) = G(λ, λ)``, the classical spectral GNN;
* separable case: ``G = sum_r p_r(λ_i) q_r(λ_j)`` gives ``Y = sum_r p_r(L) X q_r(L)`` (no eigendecomposition).

Two models are built on it:

* :class:`DenseFSpecGNN` (§3.2, counting tasks): SPD-embedded pair features, ``BSGL`` layers with an MLP filter
  ``G = MLP([λ_i, λ_j])``, padded batches with masks, eigendecomposition of each graph;
* :class:`FSpecLite` (§3.3, node classification): ``P2(L) (I + σ(α) Att_W) P1(L) h``, a rank-1 separable filter
  around the sparse GAT attention pair signal, cost linear in the number of edges.
"""

from __future__ import annotations

import torch
from torch import nn

from icml26 import checks
from icml26.nn.spectral import BernProp, ChebConv, ChebIIProp, dense_normalized_laplacian

__all__ = [
    "padded_eigh", "full_spectrum_conv", "kron_full_spectrum", "separable_full_spectrum", "shortest_path_distances",
    "pair_type_labels", "BivariateFilter", "BSGL", "DenseFSpecGNN", "GATLayer", "FSpecLite", "lite_dense_reference",
    "pair_tensor_bytes",
]

PAD_EIGENVALUE = 3.0  # outside [0, 2]: padded coordinates form their own eigenspace and are masked out (§10)


def _check_batch(adj: torch.Tensor, mask: torch.Tensor) -> None:
    if not isinstance(adj, torch.Tensor) or adj.dim() != 3 or adj.shape[1] != adj.shape[2]:
        raise ValueError(f"adj must be a (B, n, n) tensor; got {getattr(adj, 'shape', adj)}")
    if not isinstance(mask, torch.Tensor) or mask.shape != adj.shape[:2] or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a bool tensor of shape {tuple(adj.shape[:2])}; got "
                         f"{getattr(mask, 'shape', mask)} {getattr(mask, 'dtype', '')}")


def _check_adj(adj, mask) -> None:
    """Public-boundary check of a padded batch: a finite, non-empty (B, n, n) ``adj`` and its bool ``mask``."""
    checks.tensor("adj", adj, ndim=3)
    _check_batch(adj, mask)


def _check_float_dtype(name: str, dtype) -> None:
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"{name} must be a floating torch.dtype; got {dtype!r}")


def padded_eigh(adj: torch.Tensor, mask: torch.Tensor, dtype: torch.dtype | None = None):
    """Eigendecomposition of each graph's normalised Laplacian in a padded batch.

    Padded nodes get ``L_vv = 3`` (outside the spectrum ``[0, 2]``), so they form a separate eigenspace and never
    mix with the real eigenvectors (padding *with zeros* would add spurious zero
    eigenvalues, docs/papers/fspec_gnn.md §3.2).
    Returns ``lam (B, n)``, ``U (B, n, n)`` and an eigen-mask ``(B, n)``; padded eigenpairs are zeroed.
    """
    _check_adj(adj, mask)
    if dtype is not None:
        _check_float_dtype("dtype", dtype)
    if bool((adj < 0).any()):
        raise ValueError("adj must hold non-negative edge weights")
    a = adj if adj.is_floating_point() else adj.to(torch.float32)
    if not torch.allclose(a, a.transpose(-1, -2)):
        raise ValueError("adj must be symmetric (an undirected graph); eigh would read only one triangle")
    dtype = dtype or (adj.dtype if adj.is_floating_point() else torch.float32)
    lap = dense_normalized_laplacian(adj.to(dtype), mask)
    lap = lap + torch.diag_embed((~mask).to(dtype) * PAD_EIGENVALUE)
    lam, U = torch.linalg.eigh(lap)
    emask = lam < (2.0 + PAD_EIGENVALUE) / 2
    U = U * emask.unsqueeze(1).to(dtype) * mask.unsqueeze(2).to(dtype)
    lam = lam * emask.to(dtype)
    return lam, U, emask


def full_spectrum_conv(U: torch.Tensor, X: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    """``Y = U [G ⊙ (U^T X U)] U^T`` per channel (§3.1, the exact full-spectrum convolution).

    ``U``: ``(n, n)`` or ``(B, n, n)``; ``X``, ``G``: ``(..., n, n, d)`` (channels last) or ``(..., n, n)``.
    The inputs are checked (finite, non-empty tensors); the layers call the unchecked core.
    """
    checks.tensor("U", U, ndim=(2, 3))
    checks.tensor("X", X)
    checks.tensor("G", G)
    return _full_spectrum_conv(U, X, G)


def _full_spectrum_conv(U: torch.Tensor, X: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    """``Y = U [G ⊙ (U^T X U)] U^T`` per channel (§3.1, the exact full-spectrum convolution).

    ``U``: ``(n, n)`` or ``(B, n, n)``; ``X``, ``G``: ``(..., n, n, d)`` (channels last) or ``(..., n, n)``.
    """
    if U.dim() not in (2, 3) or U.shape[-1] != U.shape[-2]:
        raise ValueError(f"U must be (n, n) or (B, n, n); got {tuple(U.shape)}")
    n = U.shape[-1]
    squeeze = X.dim() == U.dim()
    if squeeze:
        X, G = X.unsqueeze(-1), G.unsqueeze(-1) if G.dim() == U.dim() else G
    if X.dim() != U.dim() + 1 or X.shape[-3:-1] != (n, n):
        raise ValueError(f"X must be (..., {n}, {n}, d) matching U {tuple(U.shape)}; got {tuple(X.shape)}")
    if G.shape[-3:-1] != (n, n):
        raise ValueError(f"G must be (..., {n}, {n}, d or 1); got {tuple(G.shape)}")
    spec = _sandwich(U.transpose(-1, -2), X)  # U^T X U
    Y = _sandwich(U, G * spec)  # U (G ⊙ spec) U^T
    return Y.squeeze(-1) if squeeze else Y


def _sandwich(U: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """``Z[..., i, j, c] = sum_kl U[..., i, k] X[..., k, l, c] U[..., j, l]`` (``U X U^T`` per channel) as two
    matrix products with channels kept last: ``U`` times the ``(n, n d)`` block of each graph, then ``U`` times
    the middle result, either row by row (``U`` broadcast over the ``n`` rows' ``(n, d)`` slices: torch copies
    ``U`` once a row, so only while ``n <= d`` keeps that copy no larger than ``X``) or as one product with the
    ``(n, n d)`` block transposed. Timings of that second product on 2 CPU cores: row by row 41 ms against 53 ms
    at B=256, n=30, d=64 (the full convolution 4-6x a Python loop over graphs and channels); transposed 16 ms
    against 143 ms at n=600, d=4 and 6.6 ms against 20 ms at B=64, n=60, d=16."""
    *lead, n, _, d = X.shape
    T = (U @ X.reshape(*lead, n, n * d)).reshape(*lead, n, n, d)  # sum_k U[i, k] X[k, l, c], as [i, l, c]
    if n <= d:
        return U.unsqueeze(-3) @ T  # sum_l U[j, l] T[i, l, c], as [i, j, c]
    T = T.transpose(-3, -2).reshape(*lead, n, n * d)  # [l, (i, c)]
    return (U @ T).reshape(*lead, n, n, d).transpose(-3, -2)  # sum_l U[j, l] T[l, (i, c)], as [i, j, c]


def kron_full_spectrum(U: torch.Tensor, X: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    """The same operator written on vectorised pair signals, ``(U⊗U) diag(vec G) (U⊗U)^T vec X`` (oracle; O(n^4))."""
    checks.tensor("U", U)
    checks.tensor("X", X)
    checks.tensor("G", G)
    if U.dim() != 2 or X.shape != U.shape or G.shape != U.shape:
        raise ValueError("kron_full_spectrum takes one channel: U, X and G must all be (n, n)")
    K = torch.kron(U, U)
    # row-major vec: vec(U A U^T) = (U ⊗ U) vec(A)
    y = K @ (G.reshape(-1) * (K.T @ X.reshape(-1)))
    return y.reshape(U.shape)


def separable_full_spectrum(lap: torch.Tensor, X: torch.Tensor, left, right) -> torch.Tensor:
    """``sum_r p_r(L) X q_r(L)`` for callables ``left[r](L, Z) = p_r(L) Z`` and ``right[r]`` (§3.1, separable case).

    This is the full-spectrum convolution with ``G(λ_i, λ_j) = sum_r p_r(λ_i) q_r(λ_j)``; only products with ``L``.
    """
    checks.tensor("lap", lap, ndim=2)
    checks.tensor("X", X)
    if lap.shape[0] != lap.shape[1]:
        raise ValueError(f"lap must be a square (n, n) matrix; got {tuple(lap.shape)}")
    if X.dim() < 2 or X.shape[-2:] != lap.shape:
        raise ValueError(f"X must be (..., {lap.shape[0]}, {lap.shape[0]}) to match lap; got {tuple(X.shape)}")
    for name, filters in (("left", left), ("right", right)):
        if isinstance(filters, (str, bytes)) or not hasattr(filters, "__len__") or \
                not all(callable(f) for f in filters):
            raise TypeError(f"{name} must be a list of callables f(L, Z) -> p(L) Z; got {filters!r:.80}")
    if len(left) != len(right) or not left:
        raise ValueError(f"left and right must be equally long, non-empty lists of filters; "
                         f"got {len(left)}, {len(right)}")
    out = 0
    for p, q in zip(left, right):
        out = out + p(lap, q(lap, X.transpose(-1, -2)).transpose(-1, -2))  # X q(L) = (q(L) X^T)^T for symmetric L
    return out


def shortest_path_distances(adj: torch.Tensor, mask: torch.Tensor, max_dist: int = 5) -> torch.Tensor:
    """Batched shortest-path distances clamped to ``max_dist`` (unreachable pairs also get ``max_dist``).

    Breadth-first by boolean matrix powers (``max_dist`` products). Padded pairs get ``max_dist``.
    """
    _check_adj(adj, mask)
    if isinstance(max_dist, bool) or not isinstance(max_dist, int) or max_dist < 1:
        raise ValueError(f"max_dist must be a positive integer; got {max_dist!r}")
    return _shortest_path_distances(adj, mask, max_dist)


def _shortest_path_distances(adj: torch.Tensor, mask: torch.Tensor, max_dist: int) -> torch.Tensor:
    """:func:`shortest_path_distances` on a checked batch (the model's forward pass)."""
    n = adj.shape[-1]
    a = (adj > 0).float()
    eye = torch.eye(n, device=adj.device, dtype=torch.bool).expand_as(a)
    reach = eye.clone()
    dist = torch.full(a.shape, max_dist, dtype=torch.long, device=adj.device)
    dist[eye] = 0
    for k in range(1, max_dist):
        new = ((reach.float() @ a) > 0) & ~reach
        dist[new] = k
        reach = reach | new
    pair = mask.unsqueeze(1) & mask.unsqueeze(2)
    return torch.where(pair, dist, torch.full_like(dist, max_dist))


def pair_type_labels(adj: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Atomic pair types: 0 non-edge, 1 edge, 2 diagonal (the ``X^0 = I, A`` input of the no-SPD ablation,
    docs/papers/fspec_gnn.md §6)."""
    _check_adj(adj, mask)
    return _pair_type_labels(adj)


def _pair_type_labels(adj: torch.Tensor) -> torch.Tensor:
    """:func:`pair_type_labels` on a checked batch (the model's forward pass)."""
    n = adj.shape[-1]
    t = (adj > 0).long()
    t = t + 2 * torch.eye(n, dtype=torch.long, device=adj.device) * (1 - t)
    return t


class BivariateFilter(nn.Module):
    """``G = MLP([λ_i, λ_j]) ∈ R^d`` (§3.2 step 2). ``kind``: ``"mlp"`` (Linear-GELU-Linear-GELU-Linear) or
    ``"fourier"`` (Linear(2→d/2) → [sin, cos] → Linear-GELU-Linear, used by the code for 5-/6-cycles)."""

    def __init__(self, channels: int, kind: str = "mlp"):
        super().__init__()
        if not checks._is_int(channels) or channels < 2:
            raise ValueError(f"channels must be an integer >= 2; got {channels!r}")
        checks.one_of("kind", kind, ("mlp", "fourier"))
        if kind == "mlp":
            self.net = nn.Sequential(nn.Linear(2, channels), nn.GELU(), nn.Linear(channels, channels), nn.GELU(),
                                     nn.Linear(channels, channels))
            self.freq = None
        elif kind == "fourier":
            self.freq = nn.Linear(2, channels // 2)
            self.net = nn.Sequential(nn.Linear(2 * (channels // 2), channels), nn.GELU(),
                                     nn.Linear(channels, channels))
        else:
            raise ValueError(f"kind must be 'mlp' or 'fourier'; got {kind!r}")

    def forward(self, lam_i: torch.Tensor, lam_j: torch.Tensor) -> torch.Tensor:
        z = torch.stack(torch.broadcast_tensors(lam_i, lam_j), dim=-1)
        if self.freq is not None:
            f = self.freq(z)
            z = torch.cat([torch.sin(f), torch.cos(f)], dim=-1)
        return self.net(z)


class BSGL(nn.Module):
    """One full-spectrum layer (§3.2 step 3): gate, filter in the pair spectrum, GIN-style residual update.

    ``S' = ReLU(W S) ⊙ M2``; ``S_out = U[(G ⊙ U^T S' U)]U^T``; ``S ← ReLU(MLP((1+ε) S + S_out)) ⊙ M2``.
    """

    def __init__(self, channels: int, filter_kind: str = "mlp"):
        super().__init__()
        if not checks._is_int(channels) or channels < 2:
            raise ValueError(f"channels must be an integer >= 2; got {channels!r}")
        checks.one_of("filter_kind", filter_kind, ("mlp", "fourier"))
        self.lin = nn.Linear(channels, channels)
        self.filter = BivariateFilter(channels, filter_kind)
        self.mlp = nn.Sequential(nn.Linear(channels, channels), nn.ReLU(), nn.Linear(channels, channels))
        self.eps = nn.Parameter(torch.zeros(()))

    def forward(self, S, lam, U, m2):
        Sp = torch.relu(self.lin(S)) * m2
        G = self.filter(lam.unsqueeze(-1), lam.unsqueeze(-2))  # (B, n, n, d)
        S_out = _full_spectrum_conv(U, Sp, G) * m2
        return torch.relu(self.mlp((1 + self.eps) * S + S_out)) * m2


class DenseFSpecGNN(nn.Module):
    """Dense FSpecGNN for counting (§3.2): pair input → ``layers`` BSGL layers → node/graph/edge readout.

    ``pair_input``: ``"spd"`` (Embedding(min(SPD, max_spd)), the code's choice) or ``"adj"`` (atomic types
    non-edge/edge/diagonal; the no-SPD ablation, docs/papers/fspec_gnn.md §6). Readouts average over *real* nodes only
    (the code averages over the padded axis; docs/papers/fspec_gnn.md §6).
    """

    def __init__(self, channels: int = 32, layers: int = 2, out_dim: int = 1, level: str = "node",
                 pair_input: str = "spd", max_spd: int = 5, filter_kind: str = "mlp"):
        super().__init__()
        if level not in ("graph", "node", "edge"):
            raise ValueError(f"level must be 'graph', 'node' or 'edge'; got {level!r}")
        if pair_input not in ("spd", "adj"):
            raise ValueError(f"pair_input must be 'spd' or 'adj'; got {pair_input!r}")
        if not checks._is_int(channels) or channels < 2:
            raise ValueError(f"channels must be an integer >= 2; got {channels!r}")
        checks.positive_int("layers", layers)
        checks.positive_int("out_dim", out_dim)
        checks.positive_int("max_spd", max_spd)
        checks.one_of("filter_kind", filter_kind, ("mlp", "fourier"))
        self.level, self.pair_input, self.max_spd = level, pair_input, max_spd
        self.embed = nn.Embedding(max_spd + 1 if pair_input == "spd" else 3, channels)
        self.layers = nn.ModuleList(BSGL(channels, filter_kind) for _ in range(layers))
        self.node_mlp = nn.Sequential(nn.Linear(channels, channels), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(channels, 2 * channels), nn.ReLU(), nn.Linear(2 * channels, out_dim))

    def pair_features(self, adj, mask):
        if self.pair_input == "spd":
            return self.embed(_shortest_path_distances(adj, mask, self.max_spd))
        return self.embed(_pair_type_labels(adj))

    def embed_pairs(self, adj, mask, spectrum=None):
        """Final pair representation ``S (B, n, n, d)`` (``spectrum`` = cached ``padded_eigh`` output)."""
        _check_batch(adj, mask)
        dtype = self.embed.weight.dtype
        lam, U, _ = spectrum if spectrum is not None else padded_eigh(adj, mask, dtype)
        lam, U = lam.to(dtype), U.to(dtype)
        m2 = (mask.unsqueeze(1) & mask.unsqueeze(2)).unsqueeze(-1).to(dtype)
        S = self.pair_features(adj, mask) * m2
        for layer in self.layers:
            S = layer(S, lam, U, m2)
        return S

    def node_embeddings(self, adj, mask, spectrum=None):
        S = self.embed_pairs(adj, mask, spectrum)
        m = mask.to(S.dtype)
        h = (S * m[:, None, :, None]).sum(2) / m.sum(1).clamp_min(1)[:, None, None]
        return self.node_mlp(h) * m.unsqueeze(-1)

    def graph_embedding(self, adj, mask, spectrum=None):
        h = self.node_embeddings(adj, mask, spectrum)
        return h.sum(1) / mask.sum(1, keepdim=True).clamp_min(1).to(h.dtype)

    def forward(self, adj, mask, spectrum=None):
        if self.level == "edge":
            return self.head(self.embed_pairs(adj, mask, spectrum))  # (B, n, n, out)
        if self.level == "node":
            return self.head(self.node_embeddings(adj, mask, spectrum))  # (B, n, out)
        return self.head(self.graph_embedding(adj, mask, spectrum))  # (B, out)


# ----------------------------------------------------------------------------------------------- scalable model
class GATLayer(nn.Module):
    """Graph attention (Veličković et al. 2018) on ``edge_index`` with self-loops, plain torch scatter ops.

    ``out_i = mean_h sum_{j ∈ N(i) ∪ {i}} a^h_{ij} W^h x_j (+ b)`` (``concat=False``, as in the code's GATConv).
    """

    def __init__(self, in_channels: int, out_channels: int, heads: int = 1, dropout: float = 0.0,
                 bias: bool = True, concat: bool = False):
        super().__init__()
        checks.positive_int("in_channels", in_channels)
        checks.positive_int("out_channels", out_channels)
        checks.positive_int("heads", heads)
        checks.in_range("dropout", dropout, 0.0, 1.0, high_open=True)
        self.heads, self.out_channels, self.dropout, self.concat = heads, out_channels, dropout, concat
        self.lin = nn.Linear(in_channels, heads * out_channels, bias=False)
        self.att_src = nn.Parameter(torch.empty(heads, out_channels))
        self.att_dst = nn.Parameter(torch.empty(heads, out_channels))
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)
        self.bias = nn.Parameter(torch.zeros(heads * out_channels if concat else out_channels)) if bias else None

    @staticmethod
    def with_self_loops(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
        keep = edge_index[0] != edge_index[1]
        loops = torch.arange(num_nodes, device=edge_index.device).repeat(2, 1)
        return torch.cat([edge_index[:, keep], loops], dim=1)

    def attention(self, x: torch.Tensor, edge_index: torch.Tensor):
        """``(edge_index with self-loops, attention (E, heads), projected features (n, heads, C))``."""
        n = x.shape[0]
        ei = self.with_self_loops(edge_index, n)
        src, dst = ei[0], ei[1]
        h = self.lin(x).view(n, self.heads, self.out_channels)
        score = (h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst]  # (E, heads)
        score = nn.functional.leaky_relu(score, 0.2)
        smax = torch.full((n, self.heads), float("-inf"), dtype=score.dtype, device=score.device)
        smax = smax.scatter_reduce(0, dst.unsqueeze(1).expand_as(score), score, reduce="amax", include_self=True)
        e = torch.exp(score - smax[dst])
        denom = torch.zeros(n, self.heads, dtype=e.dtype, device=e.device).index_add_(0, dst, e)
        return ei, e / denom[dst], h

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2:
            raise ValueError(f"x must be (n, C); got {tuple(x.shape)}")
        ei, att, h = self.attention(x, edge_index)
        att = nn.functional.dropout(att, self.dropout, self.training)
        msg = h[ei[0]] * att.unsqueeze(-1)
        out = torch.zeros_like(h).index_add_(0, ei[1], msg)
        out = out.reshape(x.shape[0], -1) if self.concat else out.mean(1)
        return out if self.bias is None else out + self.bias


def _make_prop(basis: str, channels: int, K: int):
    if basis == "cheb":
        return ChebConv(channels, channels, K)
    if basis == "chebii":
        return ChebIIProp(K)
    if basis == "bern":
        return BernProp(K)
    raise ValueError(f"basis must be 'cheb', 'chebii' or 'bern'; got {basis!r}")


class FSpecLite(nn.Module):
    """Scalable FSpecGNN (§3.3): ``out = P2(L) (I + σ(α) Att_W) P1(L) MLP(x)`` with ``log_softmax``.

    ``use_pair=False`` drops the pair branch and gives the classical spectral GNN with filter ``P2 P1`` (the
    diagonal special case, Prop. 3.3); it is the ChebNet / ChebNetII / BernNet baseline on equal footing.
    ``alpha_init`` is the logit of the pair weight (the code uses {-6, -4, -2, 0}).
    """

    def __init__(self, in_channels: int, hidden: int, num_classes: int, basis: str = "cheb", K: int = 2,
                 heads: int = 1, alpha_init: float = -2.0, dropout: float = 0.5, dprate: float = 0.5,
                 att_dropout: float = 0.0, use_pair: bool = True, learn_alpha: bool = True):
        super().__init__()
        checks.positive_int("in_channels", in_channels)
        checks.positive_int("hidden", hidden)
        checks.positive_int("num_classes", num_classes)
        checks.one_of("basis", basis, ("cheb", "chebii", "bern"))
        checks.nonnegative_int("K", K)
        checks.positive_int("heads", heads)
        checks.finite_number("alpha_init", alpha_init)
        checks.in_range("dropout", dropout, 0.0, 1.0, high_open=True)
        checks.in_range("dprate", dprate, 0.0, 1.0, high_open=True)
        checks.in_range("att_dropout", att_dropout, 0.0, 1.0, high_open=True)
        self.basis, self.use_pair, self.dropout, self.dprate = basis, use_pair, dropout, dprate
        self.lin1 = nn.Linear(in_channels, hidden)
        self.lin2 = nn.Linear(hidden, num_classes)
        self.prop1 = _make_prop(basis, num_classes, K)
        self.prop2 = _make_prop(basis, num_classes, K)
        self.gat = GATLayer(num_classes, num_classes, heads, att_dropout) if use_pair else None
        alpha = torch.tensor(float(alpha_init))
        if learn_alpha:
            self.alpha = nn.Parameter(alpha)
        else:
            self.register_buffer("alpha", alpha)

    def prop_parameters(self):
        """Filters, GAT and α (the code trains them with their own lr / weight decay)."""
        mods = [self.prop1, self.prop2] + ([self.gat] if self.gat is not None else [])
        params = [p for m in mods for p in m.parameters()]
        if isinstance(self.alpha, nn.Parameter):
            params.append(self.alpha)
        return params

    def mlp_parameters(self):
        return list(self.lin1.parameters()) + list(self.lin2.parameters())

    def pair_weight(self) -> torch.Tensor:
        return torch.sigmoid(self.alpha)

    def features(self, x):
        x = nn.functional.dropout(x, self.dropout, self.training)
        h = torch.relu(self.lin1(x))
        h = nn.functional.dropout(h, self.dropout, self.training)
        return self.lin2(h)

    def propagate(self, h, lap, edge_index):
        """``P2 (I + σ(α) Att_W) P1 h`` (no MLP, no softmax); in training, dropout ``dprate`` before P1 and P2."""
        h = nn.functional.dropout(h, self.dprate, self.training)
        h = self.prop1(h, lap)
        if self.use_pair:
            h = h + self.pair_weight() * self.gat(h, edge_index)
        h = nn.functional.dropout(h, self.dprate, self.training)  # the official code drops out before both filters
        return self.prop2(h, lap)

    def forward(self, x, lap, edge_index):
        if x.dim() != 2:
            raise ValueError(f"x must be (n, F); got {tuple(x.shape)}")
        return torch.log_softmax(self.propagate(self.features(x), lap, edge_index), dim=-1)


def lite_dense_reference(model: FSpecLite, h: torch.Tensor, lap: torch.Tensor, edge_index: torch.Tensor):
    """The pair-domain reading of :meth:`FSpecLite.propagate` computed by eigendecomposition (F1d oracle).

    For scalar filter bases (``chebii``, ``bern``), single-head GAT without bias:
    ``U[(p2(λ_i) p1(λ_j)) ⊙ U^T (I + σ(α) Att) U] U^T`` applied to ``h`` with the GAT channel map ``W`` on the
    pair branch. Eval mode (no dropout).
    """
    if not isinstance(model, FSpecLite):
        raise TypeError(f"model must be an FSpecLite; got {type(model).__name__}")
    checks.tensor("h", h, ndim=2)
    if not isinstance(lap, torch.Tensor):
        raise TypeError(f"lap must be a torch.Tensor (dense or sparse); got {type(lap).__name__}")
    if tuple(lap.shape) != (h.shape[0], h.shape[0]):
        raise ValueError(f"lap must be ({h.shape[0]}, {h.shape[0]}) to match h; got {tuple(lap.shape)}")
    checks.tensor("lap", lap.coalesce().values() if lap.is_sparse else lap, nonempty=False)
    checks.tensor("edge_index", edge_index, ndim=2, dtype_kind="int", nonempty=False)
    if edge_index.shape[0] != 2 or (edge_index.numel() and (int(edge_index.min()) < 0
                                                            or int(edge_index.max()) >= h.shape[0])):
        raise ValueError(f"edge_index must be (2, E) with entries in [0, {h.shape[0]}); got shape "
                         f"{tuple(edge_index.shape)}")
    if model.basis not in ("chebii", "bern"):
        raise ValueError(f"model must use a scalar basis ('chebii' or 'bern'); got {model.basis!r}")
    if model.gat is not None and (model.gat.heads != 1 or model.gat.bias is not None):
        raise ValueError("model must have a single-head GAT without bias")
    dense = lap.to_dense() if lap.is_sparse else lap
    lam, U = torch.linalg.eigh(dense)
    p1, p2 = model.prop1.response(lam), model.prop2.response(lam)
    Gsep = p2.unsqueeze(-1) * p1.unsqueeze(0)  # G_ij = p2(λ_i) p1(λ_j)
    n = h.shape[0]
    eye = torch.eye(n, dtype=h.dtype, device=h.device)
    out = _full_spectrum_conv(U, eye, Gsep) @ h
    if model.use_pair:
        h1 = model.prop1(h, lap)
        ei, att, _ = model.gat.attention(h1, edge_index)
        A = torch.zeros(n, n, dtype=h.dtype, device=h.device)
        A[ei[1], ei[0]] = att[:, 0]
        W = model.gat.lin.weight.T
        out = out + model.pair_weight() * (_full_spectrum_conv(U, A, Gsep) @ h) @ W
    return out


def pair_tensor_bytes(num_nodes: int, channels: int, dtype: torch.dtype = torch.float32) -> int:
    """Bytes of one dense node-pair tensor ``(n, n, d)``: what the dense layer needs per tensor (F6)."""
    checks.positive_int("num_nodes", num_nodes)
    checks.positive_int("channels", channels)
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype; got {dtype!r}")
    return int(num_nodes) ** 2 * int(channels) * torch.empty((), dtype=dtype).element_size()
