"""Baselines of FSpecGNN (docs/papers/fspec_gnn.md §4), on the same inputs, budget and training loop as the method.

Counting / expressivity (dense padded batches, like :class:`~.method.DenseFSpecGNN`):

* :class:`DenseGIN`: the MPNN (GIN, Xu et al. 2019) with constant node input (no random IDs: a fair 1-WL model);
  the edge readout concatenates endpoint embeddings (``[h_u, h_v]``).
* :class:`DenseSpecGNN`: the classical spectral GNN, ``h ← MLP((1+ε) h + U g(Λ) U^T W h)`` with a learned
  univariate filter ``g = MLP(λ)`` per channel: the diagonal restriction of FSpecGNN (Prop. 3.3).
* :class:`DenseLocal2GNN`: Local 2-GNN (Zhang et al., ICLR 2024), the tier FSpecGNN is bounded by (Thm. 3.8):
  ``h(u,v) ← MLP((1+ε) h(u,v) + W1 Σ_{w∈N(v)} h(u,w) + W2 Σ_{w∈N(u)} h(w,v))`` on the same atomic pair input
  (non-edge / edge / diagonal) and with the same readouts as :class:`~.method.DenseFSpecGNN` (``pair_input="adj"``).

Node classification (one sparse graph):

* :class:`MLP`, :class:`GCN` (Kipf & Welling 2017), :class:`GAT` (two :class:`~.method.GATLayer`);
* ChebNet / ChebNetII / BernNet = :func:`spectral_baseline`, i.e. :class:`~.method.FSpecLite` with the pair branch
  removed, so the only difference to the method is the ``σ(α) Att_W`` term.
"""

from __future__ import annotations

import torch
from torch import nn

from icml26 import checks
from icml26.papers.fspec_gnn.method import DenseFSpecGNN, FSpecLite, GATLayer, _check_batch, padded_eigh

__all__ = ["DenseGIN", "DenseSpecGNN", "DenseLocal2GNN", "MLP", "GCN", "GAT", "spectral_baseline", "gcn_operator"]


def _mlp(d_in, d, d_out):
    return nn.Sequential(nn.Linear(d_in, d), nn.ReLU(), nn.Linear(d, d_out))


class _DenseNodeModel(nn.Module):
    """Shared readouts for node-feature models on padded batches."""

    def _setup(self, channels, out_dim, level):
        checks.one_of("level", level, ("graph", "node", "edge"))
        checks.positive_int("channels", channels)
        checks.positive_int("out_dim", out_dim)
        self.level = level
        self.inp = nn.Parameter(torch.randn(channels) * 0.5)  # constant node input (same for every node)
        self.head = _mlp(2 * channels if level == "edge" else channels, 2 * channels, out_dim)

    def node_embeddings(self, adj, mask, spectrum=None):  # pragma: no cover - abstract
        raise NotImplementedError

    def graph_embedding(self, adj, mask, spectrum=None):
        h = self.node_embeddings(adj, mask, spectrum)
        return h.sum(1) / mask.sum(1, keepdim=True).clamp_min(1).to(h.dtype)

    def forward(self, adj, mask, spectrum=None):
        _check_batch(adj, mask)
        h = self.node_embeddings(adj, mask, spectrum)
        if self.level == "node":
            return self.head(h)
        if self.level == "graph":
            return self.head(h.sum(1) / mask.sum(1, keepdim=True).clamp_min(1).to(h.dtype))
        n = h.shape[1]
        pair = torch.cat([h.unsqueeze(2).expand(-1, n, n, -1), h.unsqueeze(1).expand(-1, n, n, -1)], dim=-1)
        return self.head(pair)


class DenseGIN(_DenseNodeModel):
    """GIN: ``h ← MLP((1+ε) h + A h)``, constant input, ``layers`` layers (1-WL bounded)."""

    def __init__(self, channels: int = 32, layers: int = 3, out_dim: int = 1, level: str = "node"):
        super().__init__()
        checks.positive_int("layers", layers)
        self._setup(channels, out_dim, level)
        self.mlps = nn.ModuleList(_mlp(channels, channels, channels) for _ in range(layers))
        self.eps = nn.Parameter(torch.zeros(layers))

    def node_embeddings(self, adj, mask, spectrum=None):
        _check_batch(adj, mask)
        m = mask.unsqueeze(-1).to(self.inp.dtype)
        h = self.inp.expand(*mask.shape, -1) * m
        a = adj.to(h.dtype)
        for k, mlp in enumerate(self.mlps):
            h = torch.relu(mlp((1 + self.eps[k]) * h + a @ h)) * m
        return h


class DenseSpecGNN(_DenseNodeModel):
    """Classical spectral GNN: ``h ← ReLU(MLP((1+ε) h + U diag(g(λ)) U^T W h))``, ``g = MLP(λ) ∈ R^d``."""

    def __init__(self, channels: int = 32, layers: int = 2, out_dim: int = 1, level: str = "node"):
        super().__init__()
        checks.positive_int("layers", layers)
        self._setup(channels, out_dim, level)
        self.lins = nn.ModuleList(nn.Linear(channels, channels) for _ in range(layers))
        self.filters = nn.ModuleList(
            nn.Sequential(nn.Linear(1, channels), nn.GELU(), nn.Linear(channels, channels), nn.GELU(),
                          nn.Linear(channels, channels)) for _ in range(layers))
        self.mlps = nn.ModuleList(_mlp(channels, channels, channels) for _ in range(layers))
        self.eps = nn.Parameter(torch.zeros(layers))

    def node_embeddings(self, adj, mask, spectrum=None):
        _check_batch(adj, mask)
        dtype = self.inp.dtype
        lam, U, _ = spectrum if spectrum is not None else padded_eigh(adj, mask, dtype)
        lam, U = lam.to(dtype), U.to(dtype)
        m = mask.unsqueeze(-1).to(dtype)
        h = self.inp.expand(*mask.shape, -1) * m
        for k in range(len(self.lins)):
            g = self.filters[k](lam.unsqueeze(-1))  # (B, n, d): one response per eigenvalue and channel
            z = U @ (g * (U.transpose(-1, -2) @ torch.relu(self.lins[k](h)) * m))
            h = torch.relu(self.mlps[k]((1 + self.eps[k]) * h + z)) * m
        return h


class _Local2Layer(nn.Module):
    """One Local 2-GNN update on a batched pair tensor ``S (B, n, n, d)`` (dense einsums, no loop over pairs)."""

    def __init__(self, channels):
        super().__init__()
        self.w_right = nn.Linear(channels, channels, bias=False)  # Σ_{w ∈ N(v)} h(u, w)
        self.w_left = nn.Linear(channels, channels, bias=False)   # Σ_{w ∈ N(u)} h(w, v)
        self.mlp = _mlp(channels, channels, channels)
        self.eps = nn.Parameter(torch.zeros(1))

    def forward(self, S, a, m2):
        right = torch.einsum("buwd,bwv->buvd", S, a)
        left = torch.einsum("buw,bwvd->buvd", a, S)
        return torch.relu(self.mlp((1 + self.eps) * S + self.w_right(right) + self.w_left(left))) * m2


class DenseLocal2GNN(DenseFSpecGNN):
    """Local 2-GNN with atomic pair input (non-edge / edge / diagonal) and FSpecGNN's readouts; no spectrum used."""

    def __init__(self, channels: int = 32, layers: int = 2, out_dim: int = 1, level: str = "node"):
        super().__init__(channels, layers, out_dim, level, pair_input="adj")
        self.layers = nn.ModuleList(_Local2Layer(channels) for _ in range(layers))

    def embed_pairs(self, adj, mask, spectrum=None):
        _check_batch(adj, mask)
        dtype = self.embed.weight.dtype
        m2 = (mask.unsqueeze(1) & mask.unsqueeze(2)).unsqueeze(-1).to(dtype)
        a = adj.to(dtype)
        S = self.pair_features(adj, mask) * m2
        for layer in self.layers:
            S = layer(S, a, m2)
        return S


# ----------------------------------------------------------------------------------------------- node classification
def gcn_operator(edge_index: torch.Tensor, num_nodes: int, dtype=torch.float32) -> torch.Tensor:
    """Sparse ``D̃^{-1/2}(A + I)D̃^{-1/2}`` (``= I - L`` of the graph with self-loops)."""
    checks.tensor("edge_index", edge_index, ndim=2, dtype_kind="int", nonempty=False)
    checks.positive_int("num_nodes", num_nodes)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype; got {dtype!r}")
    if edge_index.dim() != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"edge_index must be (2, E); got {tuple(edge_index.shape)}")
    if edge_index.numel() and (int(edge_index.min()) < 0 or int(edge_index.max()) >= num_nodes):
        raise ValueError(f"edge_index entries must lie in [0, num_nodes={num_nodes})")
    loops = torch.arange(num_nodes, device=edge_index.device).repeat(2, 1)
    keep = edge_index[0] != edge_index[1]
    ei = torch.cat([edge_index[:, keep], loops], 1)
    w = torch.ones(ei.shape[1], dtype=dtype, device=edge_index.device)
    deg = torch.zeros(num_nodes, dtype=dtype, device=edge_index.device).index_add_(0, ei[0], w)
    dinv = deg.rsqrt()
    return torch.sparse_coo_tensor(ei, dinv[ei[0]] * dinv[ei[1]], (num_nodes, num_nodes),
                                   check_invariants=False).coalesce()


def _check_node_sizes(in_channels, hidden, num_classes, dropout) -> None:
    checks.positive_int("in_channels", in_channels)
    checks.positive_int("hidden", hidden)
    checks.positive_int("num_classes", num_classes)
    checks.in_range("dropout", dropout, 0.0, 1.0, high_open=True)


class MLP(nn.Module):
    """Two-layer MLP on node features (no graph)."""

    def __init__(self, in_channels, hidden, num_classes, dropout=0.5):
        super().__init__()
        _check_node_sizes(in_channels, hidden, num_classes, dropout)
        self.lin1, self.lin2, self.dropout = nn.Linear(in_channels, hidden), nn.Linear(hidden, num_classes), dropout

    def forward(self, x, lap=None, edge_index=None, gcn_op=None):
        h = torch.relu(self.lin1(nn.functional.dropout(x, self.dropout, self.training)))
        return torch.log_softmax(self.lin2(nn.functional.dropout(h, self.dropout, self.training)), -1)


class GCN(nn.Module):
    """Two-layer GCN: ``Â ReLU(Â X W1) W2`` with ``Â = D̃^{-1/2}(A+I)D̃^{-1/2}``."""

    def __init__(self, in_channels, hidden, num_classes, dropout=0.5):
        super().__init__()
        _check_node_sizes(in_channels, hidden, num_classes, dropout)
        self.lin1, self.lin2, self.dropout = nn.Linear(in_channels, hidden), nn.Linear(hidden, num_classes), dropout

    def forward(self, x, lap=None, edge_index=None, gcn_op=None):
        if gcn_op is None:
            raise ValueError("GCN needs gcn_op (see gcn_operator)")
        h = torch.relu(torch.sparse.mm(gcn_op, self.lin1(nn.functional.dropout(x, self.dropout, self.training))))
        h = self.lin2(nn.functional.dropout(h, self.dropout, self.training))
        return torch.log_softmax(torch.sparse.mm(gcn_op, h), -1)


class GAT(nn.Module):
    """Two-layer GAT (``heads`` heads concatenated in the hidden layer, ELU)."""

    def __init__(self, in_channels, hidden, num_classes, heads=4, dropout=0.5):
        super().__init__()
        _check_node_sizes(in_channels, hidden, num_classes, dropout)
        checks.positive_int("heads", heads)
        hid = max(1, hidden // heads)
        self.l1 = GATLayer(in_channels, hid, heads, dropout, concat=True)
        self.l2 = GATLayer(hid * heads, num_classes, 1, dropout)
        self.dropout = dropout

    def forward(self, x, lap=None, edge_index=None, gcn_op=None):
        x = nn.functional.dropout(x, self.dropout, self.training)
        h = nn.functional.elu(self.l1(x, edge_index))
        h = nn.functional.dropout(h, self.dropout, self.training)
        return torch.log_softmax(self.l2(h, edge_index), -1)


def spectral_baseline(in_channels, hidden, num_classes, basis="cheb", K=2, dropout=0.5, dprate=0.5) -> FSpecLite:
    """ChebNet (``basis="cheb"``), ChebNetII (``"chebii"``) or BernNet (``"bern"``): FSpecLite minus its pair branch."""
    return FSpecLite(in_channels, hidden, num_classes, basis=basis, K=K, dropout=dropout, dprate=dprate,
                     use_pair=False)
