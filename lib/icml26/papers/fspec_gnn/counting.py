"""Substructure-count labels for the counting benchmark (docs/papers/fspec_gnn.md §2),
batched on padded dense adjacencies.

* triangles through node v: ``(A^3)_vv / 2``;
* 4-cycles through node v: ``[(A^4)_vv - d_v^2 - sum_{u~v}(d_u - 1)] / 2`` (closed 4-walks minus the degenerate ones);
* triangles on edge (u, v): ``(A^2)_uv A_uv`` (common neighbours of an edge's endpoints);
* brute-force counters over networkx graphs for the tests.
"""

from __future__ import annotations

import networkx as nx
import torch

from icml26 import checks

__all__ = ["node_triangles", "node_four_cycles", "edge_triangles", "brute_force_node_cycles", "TASKS"]


def _adj(adj: torch.Tensor) -> torch.Tensor:
    checks.tensor("adj", adj)
    if not isinstance(adj, torch.Tensor) or adj.dim() not in (2, 3) or adj.shape[-1] != adj.shape[-2]:
        raise ValueError(f"adj must be a square (n, n) or (B, n, n) tensor; got {getattr(adj, 'shape', adj)}")
    a = adj.to(torch.float64)
    if not torch.equal(a, a.transpose(-1, -2)) or bool(((a != 0) & (a != 1)).any()):
        raise ValueError("adj must be a symmetric 0/1 adjacency")
    if bool(torch.diagonal(a, dim1=-2, dim2=-1).any()):
        raise ValueError("adj must have no self-loops")
    return a


def node_triangles(adj: torch.Tensor) -> torch.Tensor:
    """Triangles through each node, ``diag(A^3) / 2``."""
    a = _adj(adj)
    return torch.diagonal(a @ a @ a, dim1=-2, dim2=-1) / 2


def node_four_cycles(adj: torch.Tensor) -> torch.Tensor:
    """4-cycles through each node (as subgraphs, not necessarily induced)."""
    a = _adj(adj)
    a2 = a @ a
    deg = a.sum(-1)
    closed = torch.diagonal(a2 @ a2, dim1=-2, dim2=-1)
    return (closed - deg**2 - (a @ (deg - 1).unsqueeze(-1)).squeeze(-1)) / 2


def edge_triangles(adj: torch.Tensor) -> torch.Tensor:
    """Triangles containing each edge, ``(A^2)_uv A_uv`` (zero on non-edges)."""
    a = _adj(adj)
    return (a @ a) * a


def brute_force_node_cycles(G: nx.Graph, length: int) -> list[int]:
    """Simple cycles of ``length`` through each node, by enumerating node subsets (tiny graphs only)."""
    if not isinstance(G, nx.Graph):
        raise TypeError(f"G must be a networkx Graph; got {type(G).__name__}")
    if not checks._is_int(length) or length < 3:
        raise ValueError(f"length must be an integer >= 3 (a simple cycle has at least 3 nodes); got {length!r}")
    n = G.number_of_nodes()
    if set(G.nodes) != set(range(n)):
        raise ValueError("G must have the nodes 0, ..., n-1 (relabel with nx.convert_node_labels_to_integers)")
    counts = [0] * n
    for cyc in nx.simple_cycles(G, length_bound=length):
        if len(cyc) == length:
            for v in cyc:
                counts[v] += 1
    return counts


def _tri(adj, mask):
    return node_triangles(adj)


def _c4(adj, mask):
    return node_four_cycles(adj)


TASKS = {"triangle": _tri, "cycle4": _c4}
"""Node-level counting tasks: name -> ``f(adj, mask) -> (B, n)`` raw counts."""

