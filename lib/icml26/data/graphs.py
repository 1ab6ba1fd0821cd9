"""Synthetic graphs (shared block): contextual SBMs with controllable homophily, random graph batches,
1-WL-hard graph pairs, and helpers to batch them as padded dense adjacencies.

Everything is generated offline and returned as torch tensors: ``edge_index`` of shape ``(2, E)`` holding both
directions of every undirected edge, or dense ``(B, n_max, n_max)`` adjacencies with a ``(B, n_max)`` node mask.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch

from icml26 import checks

__all__ = [
    "NodeGraph", "csbm", "edge_homophily", "random_node_split", "erdos_renyi_graphs", "random_regular_graphs",
    "cycle_union", "hard_pair", "HARD_PAIRS", "to_dense_batch", "edge_index_from_networkx", "dense_to_edge_index",
]


def _check_edge_index(edge_index, num_nodes: int | None = None, name: str = "edge_index") -> torch.Tensor:
    """An integer ``(2, E)`` tensor (E may be 0) of node indices in ``[0, num_nodes)`` when that is given."""
    if not isinstance(edge_index, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape (2, E); got {type(edge_index).__name__}")
    if edge_index.dim() != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"{name} must have shape (2, E); got {tuple(edge_index.shape)}")
    if edge_index.is_floating_point() or edge_index.is_complex() or edge_index.dtype == torch.bool:
        raise ValueError(f"{name} must hold integer node indices; got dtype {edge_index.dtype}")
    if edge_index.numel() and int(edge_index.min()) < 0:
        raise ValueError(f"{name} must hold non-negative node indices")
    if num_nodes is not None and edge_index.numel() and int(edge_index.max()) >= num_nodes:
        raise ValueError(f"{name} must hold node indices below {num_nodes}; got {int(edge_index.max())}")
    return edge_index


def _check_labels(y, name: str = "y") -> torch.Tensor:
    """A non-empty 1-D integer tensor of non-negative class labels."""
    checks.tensor(name, y, ndim=1)
    if y.is_floating_point() or y.is_complex() or y.dtype == torch.bool:
        raise ValueError(f"{name} must hold integer class labels; got dtype {y.dtype}")
    if int(y.min()) < 0:
        raise ValueError(f"{name} must hold non-negative class labels; got {int(y.min())}")
    return y


def _generator(seed, device=None) -> torch.Generator:
    g = torch.Generator(device="cpu")
    g.manual_seed(int(seed))
    return g


# ----------------------------------------------------------------------------------------------- CSBM
@dataclass
class NodeGraph:
    """One node-classification graph: ``x`` ``(n, F)``, ``y`` ``(n,)``, undirected ``edge_index`` ``(2, E)``."""

    x: torch.Tensor
    y: torch.Tensor
    edge_index: torch.Tensor
    num_classes: int

    def __post_init__(self):
        y = _check_labels(self.y)
        checks.tensor("x", self.x, ndim=2, dtype_kind="float")
        if self.x.shape[0] != y.shape[0]:
            raise ValueError(f"x must have one row per label in y ({y.shape[0]}); got {tuple(self.x.shape)}")
        _check_edge_index(self.edge_index, y.shape[0])
        checks.positive_int("num_classes", self.num_classes)
        if int(y.max()) >= self.num_classes:
            raise ValueError(f"num_classes must exceed every label in y; got {self.num_classes} for label "
                             f"{int(y.max())}")

    @property
    def num_nodes(self) -> int:
        return int(self.y.shape[0])

    def to(self, device) -> NodeGraph:
        return NodeGraph(self.x.to(device), self.y.to(device), self.edge_index.to(device), self.num_classes)


def _symmetrise_unique(src: torch.Tensor, dst: torch.Tensor, n: int) -> torch.Tensor:
    keep = src != dst
    src, dst = src[keep], dst[keep]
    lo, hi = torch.minimum(src, dst), torch.maximum(src, dst)
    key = torch.unique(lo * n + hi)
    lo, hi = key // n, key % n
    return torch.stack([torch.cat([lo, hi]), torch.cat([hi, lo])])


def csbm(num_nodes: int, num_classes: int = 4, avg_degree: float = 10.0, homophily: float = 0.5,
         feature_dim: int = 16, mean_sep: float = 1.0, mode: str = "random", seed: int = 0,
         device="cpu") -> NodeGraph:
    """A contextual stochastic block model with a chosen *edge* homophily.

    ``num_nodes * avg_degree / 2`` undirected edges are drawn: a uniform endpoint ``u``, then with probability
    ``homophily`` a uniform partner of the same class, otherwise a partner from another class: uniform over the
    other classes (``mode="random"``) or from class ``y_u + 1 mod C`` (``mode="structured"``). Self-loops and
    duplicates are removed, so the realised degree is slightly below ``avg_degree``. Features are Gaussian,
    ``x_v = mean_sep * e_{y_v} + N(0, I_F)`` (class means on orthogonal axes, ``F >= C``). Classes are balanced.
    """
    n = checks.int_at_least("num_nodes", num_nodes, 2)
    C = checks.int_at_least("num_classes", num_classes, 2)
    F = checks.int_at_least("feature_dim", feature_dim, C)
    checks.probability("homophily", homophily)
    checks.positive_number("avg_degree", avg_degree)
    checks.nonnegative_number("mean_sep", mean_sep)
    checks.seed("seed", seed)
    checks.device("device", device)
    if mode not in ("random", "structured"):
        raise ValueError(f"mode must be 'random' or 'structured'; got {mode!r}")
    if n < C:
        raise ValueError(f"num_nodes must be >= num_classes={C}; got {n}")
    g = _generator(seed)
    y = torch.arange(n) % C
    y = y[torch.randperm(n, generator=g)]
    order = torch.argsort(y, stable=True)  # nodes grouped by class
    counts = torch.bincount(y, minlength=C)
    starts = torch.cumsum(counts, 0) - counts
    m = max(1, int(round(n * float(avg_degree) / 2)))
    src = torch.randint(0, n, (m,), generator=g)
    same = torch.rand(m, generator=g) < float(homophily)
    cu = y[src]
    if mode == "random":
        other = (cu + torch.randint(1, C, (m,), generator=g)) % C
    else:
        other = (cu + 1) % C
    tc = torch.where(same, cu, other)
    pos = (torch.rand(m, generator=g) * counts[tc]).long().clamp_max(counts[tc] - 1)
    dst = order[starts[tc] + pos]
    edge_index = _symmetrise_unique(src, dst, n)
    x = torch.randn(n, F, generator=g)
    x[torch.arange(n), y] += float(mean_sep)
    return NodeGraph(x, y, edge_index, C).to(device)


def edge_homophily(edge_index: torch.Tensor, y: torch.Tensor) -> float:
    """Fraction of (directed) edges whose endpoints share a label."""
    y = _check_labels(y)
    _check_edge_index(edge_index, y.shape[0])
    if edge_index.shape[1] == 0:
        raise ValueError("edge_index must hold at least one edge")
    return float((y[edge_index[0]] == y[edge_index[1]]).float().mean())


def random_node_split(y: torch.Tensor, train_frac: float, val_frac: float, seed: int = 0,
                      balanced: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Boolean train/val/test masks. ``balanced``: ``round(train_frac * n / C)`` training nodes per class,
    the same for validation, the rest test (the BernNet-style split); otherwise a uniform random split."""
    _check_labels(y)
    checks.finite_number("train_frac", train_frac)
    checks.finite_number("val_frac", val_frac)
    checks.seed("seed", seed)
    if not isinstance(balanced, bool):
        raise TypeError(f"balanced must be a bool; got {type(balanced).__name__}")
    if not (0 < train_frac < 1 and 0 < val_frac < 1 and train_frac + val_frac < 1):
        raise ValueError(f"train_frac, val_frac must be in (0, 1) with sum < 1; got {train_frac}, {val_frac}")
    n = int(y.shape[0])
    g = _generator(seed)
    train = torch.zeros(n, dtype=torch.bool)
    val = torch.zeros(n, dtype=torch.bool)
    perm = torch.randperm(n, generator=g)
    yc = y.cpu()[perm]
    if balanced:
        C = int(yc.max()) + 1
        per_tr, per_va = max(1, round(train_frac * n / C)), max(1, round(val_frac * n / C))
        rank = torch.zeros(n, dtype=torch.long)
        for c in range(C):  # C is tiny; the nodes themselves are handled by tensor ops
            idx = (yc == c).nonzero().squeeze(1)
            rank[idx] = torch.arange(idx.numel())
        train[perm[rank < per_tr]] = True
        val[perm[(rank >= per_tr) & (rank < per_tr + per_va)]] = True
    else:
        ntr, nva = int(round(train_frac * n)), int(round(val_frac * n))
        train[perm[:ntr]] = True
        val[perm[ntr:ntr + nva]] = True
    test = ~(train | val)
    return train.to(y.device), val.to(y.device), test.to(y.device)


# ----------------------------------------------------------------------------------------------- small graphs
def edge_index_from_networkx(G: nx.Graph) -> torch.Tensor:
    """Both directions of every edge of ``G`` (nodes relabelled 0..n-1 in sorted order)."""
    if not isinstance(G, nx.Graph):
        raise TypeError(f"G must be a networkx graph; got {type(G).__name__}")
    G = nx.convert_node_labels_to_integers(G, ordering="sorted")
    e = torch.tensor(list(G.edges()), dtype=torch.long).reshape(-1, 2).t()
    return torch.cat([e, e.flip(0)], dim=1)


def dense_to_edge_index(adj: torch.Tensor) -> torch.Tensor:
    """``edge_index`` of the non-zero entries of a dense ``(n, n)`` adjacency."""
    checks.tensor("adj", adj, ndim=2)
    if adj.dim() != 2 or adj.shape[0] != adj.shape[1]:
        raise ValueError(f"adj must be (n, n); got {tuple(adj.shape)}")
    return adj.nonzero().t().contiguous()


def to_dense_batch(graphs, n_max: int | None = None, device="cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Stack graphs (``networkx`` graphs or ``(edge_index, num_nodes)`` pairs) into a padded float adjacency
    ``(B, n_max, n_max)`` and a bool node mask ``(B, n_max)``."""
    if isinstance(graphs, (str, bytes, nx.Graph)) or not hasattr(graphs, "__iter__"):
        raise TypeError(f"graphs must be a list of graphs; got {type(graphs).__name__}")
    if n_max is not None:
        checks.positive_int("n_max", n_max)
    checks.device("device", device)
    items = []
    for g in graphs:
        if isinstance(g, nx.Graph):
            items.append((edge_index_from_networkx(g), g.number_of_nodes()))
        elif isinstance(g, tuple) and len(g) == 2:
            k = checks.positive_int("graphs: num_nodes", g[1])
            items.append((_check_edge_index(g[0], k, "graphs: edge_index"), k))
        else:
            raise ValueError("graphs must hold networkx graphs or (edge_index, num_nodes) pairs")
    if not items:
        raise ValueError("graphs must not be empty")
    sizes = torch.tensor([k for _, k in items])
    n_max = int(sizes.max()) if n_max is None else int(n_max)
    if int(sizes.max()) > n_max:
        raise ValueError(f"n_max={n_max} is smaller than the largest graph ({int(sizes.max())} nodes)")
    B = len(items)
    bidx = torch.cat([torch.full((e.shape[1],), b, dtype=torch.long) for b, (e, _) in enumerate(items)])
    e = torch.cat([e for e, _ in items], dim=1)
    adj = torch.zeros(B, n_max, n_max)
    adj[bidx, e[0], e[1]] = 1.0
    mask = torch.arange(n_max).unsqueeze(0) < sizes.unsqueeze(1)
    return adj.to(device), mask.to(device)


def erdos_renyi_graphs(num_graphs: int, n_range=(8, 20), p_range=(0.15, 0.4), seed: int = 0) -> list[nx.Graph]:
    """``num_graphs`` G(n, p) graphs with ``n ~ U{n_range}`` and ``p ~ U[p_range]`` (networkx, reproducible)."""
    num = checks.int_at_least("num_graphs", num_graphs)
    if not _pair(n_range) or not all(checks._is_int(v) for v in n_range):
        raise ValueError(f"n_range must be a pair of integers (lo, hi); got {n_range!r}")
    lo, hi = n_range
    if not 1 <= lo <= hi:
        raise ValueError(f"n_range must be (lo, hi) with 1 <= lo <= hi; got {n_range}")
    if not _pair(p_range) or not all(checks._is_real(v) for v in p_range):
        raise ValueError(f"p_range must be a pair of numbers (lo, hi); got {p_range!r}")
    if not 0 <= p_range[0] <= p_range[1] <= 1:
        raise ValueError(f"p_range must be (lo, hi) within [0, 1]; got {p_range}")
    checks.seed("seed", seed)
    rng = np.random.default_rng(seed)
    ns = rng.integers(lo, hi + 1, size=num)
    ps = rng.uniform(p_range[0], p_range[1], size=num)
    seeds = rng.integers(0, 2**31 - 1, size=num)
    return [nx.gnp_random_graph(int(n), float(p), seed=int(s)) for n, p, s in zip(ns, ps, seeds)]


def random_regular_graphs(num_graphs: int, n: int, d: int, seed: int = 0) -> list[nx.Graph]:
    """``num_graphs`` random ``d``-regular graphs on ``n`` nodes (all 1-WL-equivalent to each other)."""
    num = checks.int_at_least("num_graphs", num_graphs)
    n = checks.int_at_least("n", n)
    d = checks.int_at_least("d", d, 0)
    if d >= n or (n * d) % 2:
        raise ValueError(f"need d < n and n*d even for a d-regular graph; got n={n}, d={d}")
    checks.seed("seed", seed)
    rng = np.random.default_rng(seed)
    return [nx.random_regular_graph(d, n, seed=int(s)) for s in rng.integers(0, 2**31 - 1, size=num)]


def cycle_union(lengths) -> nx.Graph:
    """The disjoint union of cycles of the given lengths (each >= 3): 2-regular, 1-WL-equivalent to C_n."""
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        raise TypeError(f"lengths must be a list of integers; got {type(lengths).__name__}")
    lengths = list(lengths)
    if not lengths or any(not checks._is_int(k) or k < 3 for k in lengths):
        raise ValueError(f"lengths must be a non-empty list of integers >= 3; got {lengths}")
    return nx.disjoint_union_all([nx.cycle_graph(int(k)) for k in lengths])


def _pair(value) -> bool:
    return isinstance(value, (tuple, list)) and len(value) == 2


def _shrikhande() -> nx.Graph:
    G = nx.Graph()
    Z = list(itertools.product(range(4), range(4)))
    idx = {v: i for i, v in enumerate(Z)}
    for a, b in Z:
        for da, db in ((1, 0), (0, 1), (1, 1)):
            for s in (1, -1):
                G.add_edge(idx[(a, b)], idx[((a + s * da) % 4, (b + s * db) % 4)])
    return G


def _decalin() -> nx.Graph:
    # two hexagons sharing an edge (10 nodes)
    return nx.Graph([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 6), (6, 7), (7, 8), (8, 9), (9, 5)])


def _bicyclopentyl() -> nx.Graph:
    # two pentagons joined by an edge (10 nodes)
    return nx.Graph([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (5, 6), (6, 7), (7, 8), (8, 9), (9, 5), (0, 5)])


HARD_PAIRS = {
    "2C3_C6": (lambda: cycle_union([3, 3]), lambda: nx.cycle_graph(6)),
    "decalin_bicyclopentyl": (_decalin, _bicyclopentyl),
    "rook_shrikhande": (lambda: nx.convert_node_labels_to_integers(
        nx.cartesian_product(nx.complete_graph(4), nx.complete_graph(4))), _shrikhande),
}
"""Pairs of non-isomorphic graphs that 1-WL cannot tell apart. The first two are separated by Local 2-GNNs;
the 4x4 rook graph and the Shrikhande graph are strongly regular with equal parameters (16, 6, 2, 2), so even
2-FWL (3-WL) cannot tell them apart."""


def hard_pair(name: str) -> tuple[nx.Graph, nx.Graph]:
    """The pair of graphs called ``name`` (one of :data:`HARD_PAIRS`)."""
    if name not in HARD_PAIRS:
        raise ValueError(f"name must be one of {sorted(HARD_PAIRS)}; got {name!r}")
    a, b = HARD_PAIRS[name]
    return a(), b()
