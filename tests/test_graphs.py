"""Tests of the shared graph blocks: icml26.data.graphs and icml26.nn.spectral."""

import math

import networkx as nx
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.data import graphs as G
from icml26.nn import spectral as S

torch.set_num_threads(1)


def _dense_lap(seed, n=9, B=3):
    adj, mask = G.to_dense_batch(G.erdos_renyi_graphs(B, (max(2, n - 4), n), (0.2, 0.6), seed=seed))
    return S.dense_normalized_laplacian(adj.double(), mask), adj, mask


# ----------------------------------------------------------------------------------------------- graphs
@pytest.mark.parametrize("h", [0.05, 0.5, 0.9])
@pytest.mark.parametrize("mode", ["random", "structured"])
def test_csbm_homophily_and_shapes(h, mode):
    g = G.csbm(1500, 4, 10.0, h, feature_dim=8, mode=mode, seed=1)
    assert g.x.shape == (1500, 8) and g.y.shape == (1500,)
    assert abs(G.edge_homophily(g.edge_index, g.y) - h) < 0.04
    e = g.edge_index
    assert not bool((e[0] == e[1]).any())
    # symmetric and free of duplicates
    keys = set(map(tuple, e.t().tolist()))
    assert len(keys) == e.shape[1] and all((b, a) in keys for a, b in keys)
    assert 8.5 < e.shape[1] / 1500 <= 10.0
    assert torch.bincount(g.y).tolist() == [375] * 4


def test_csbm_structured_links_next_class():
    g = G.csbm(800, 4, 8.0, 0.0, mode="structured", seed=0)
    yu, yv = g.y[g.edge_index[0]], g.y[g.edge_index[1]]
    assert bool((((yu + 1) % 4 == yv) | ((yv + 1) % 4 == yu)).all())


def test_csbm_features_carry_class_means():
    g = G.csbm(4000, 4, 5.0, 0.5, feature_dim=6, mean_sep=2.0, seed=3)
    means = torch.stack([g.x[g.y == c].mean(0) for c in range(4)])
    assert torch.allclose(means[:, :4], 2.0 * torch.eye(4), atol=0.15)


def test_csbm_reproducible_and_seed_dependent():
    a, b, c = G.csbm(300, seed=5), G.csbm(300, seed=5), G.csbm(300, seed=6)
    assert torch.equal(a.edge_index, b.edge_index) and torch.equal(a.x, b.x)
    assert not torch.equal(a.x, c.x)


@pytest.mark.parametrize("kw", [dict(homophily=1.5), dict(num_classes=1), dict(avg_degree=0), dict(mode="x"),
                                dict(num_nodes=3), dict(feature_dim=2), dict(mean_sep=-1.0)])
def test_csbm_rejects_bad_input(kw):
    args = dict(num_nodes=100, num_classes=4, feature_dim=8) | kw
    with pytest.raises(ValueError):
        G.csbm(**args)


def test_split_is_a_partition_and_balanced():
    y = torch.arange(400) % 4
    tr, va, te = G.random_node_split(y, 0.1, 0.1, seed=0)
    assert int(tr.sum()) == 40 and int(va.sum()) == 40
    assert bool((tr.int() + va.int() + te.int() == 1).all())
    assert torch.bincount(y[tr]).tolist() == [10] * 4
    with pytest.raises(ValueError):
        G.random_node_split(y, 0.6, 0.5)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_hard_pairs_are_1wl_equivalent_but_not_isomorphic():
    for name in G.HARD_PAIRS:
        a, b = G.hard_pair(name)
        assert not nx.is_isomorphic(a, b)
        assert nx.weisfeiler_lehman_graph_hash(a, iterations=5) == nx.weisfeiler_lehman_graph_hash(b, iterations=5)
    rook, shri = G.hard_pair("rook_shrikhande")
    for g in (rook, shri):  # SRG(16, 6, 2, 2)
        assert g.number_of_nodes() == 16 and {d for _, d in g.degree()} == {6}
        assert {len(list(nx.common_neighbors(g, u, v))) for u, v in g.edges()} == {2}
    with pytest.raises(ValueError):
        G.hard_pair("nope")


def test_dense_batch_and_generators():
    gs = G.erdos_renyi_graphs(5, (4, 7), seed=0)
    adj, mask = G.to_dense_batch(gs)
    assert adj.shape == (5, 7, 7) and mask.sum(1).tolist() == [g.number_of_nodes() for g in gs]
    assert torch.equal(adj, adj.transpose(1, 2))
    assert [int(a.sum()) // 2 for a in adj] == [g.number_of_edges() for g in gs]
    assert bool((adj.sum(2)[~mask] == 0).all())
    rr = G.random_regular_graphs(3, 10, 3, seed=0)
    assert all({d for _, d in g.degree()} == {3} for g in rr)
    with pytest.raises(ValueError):
        G.random_regular_graphs(2, 5, 3)  # n*d odd
    with pytest.raises(ValueError):
        G.to_dense_batch(gs, n_max=3)
    cu = G.cycle_union([3, 4])
    assert cu.number_of_nodes() == 7 and nx.number_connected_components(cu) == 2
    with pytest.raises(ValueError):
        G.cycle_union([2])


# ----------------------------------------------------------------------------------------------- Laplacians
def test_sparse_and_dense_laplacian_agree_and_isolated_nodes_are_safe():
    g = nx.petersen_graph()
    g.add_node(10)  # isolated
    ei = G.edge_index_from_networkx(g)
    Ls = S.normalized_laplacian(ei, 11, dtype=torch.float64).to_dense()
    adj, _ = G.to_dense_batch([g])
    Ld = S.dense_normalized_laplacian(adj[0].double())
    assert torch.allclose(Ls, Ld, atol=1e-12) and torch.isfinite(Ls).all()
    assert Ls[10, 10] == 1.0
    lam = torch.linalg.eigvalsh(Ld)
    assert lam.min() > -1e-12 and lam.max() < 2 + 1e-12
    with pytest.raises(ValueError):
        S.normalized_laplacian(ei, 5)
    with pytest.raises(ValueError):
        S.dense_normalized_laplacian(torch.zeros(3, 4))


# ----------------------------------------------------------------------------------------------- filters vs eigh
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), K=st.integers(0, 5), per_channel=st.booleans())
def test_polynomial_filters_match_eigendecomposition(seed, K, per_channel):
    L, _, _ = _dense_lap(seed)
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(*L.shape[:2], 3, dtype=torch.float64, generator=gen)
    c = torch.randn((K + 1, 3) if per_channel else (K + 1,), dtype=torch.float64, generator=gen)
    for filt, resp in ((S.chebyshev_filter, S.chebyshev_response), (S.bernstein_filter, S.bernstein_response),
                       (S.chebii_filter, S.chebii_response)):
        ref = S.eig_filter(L, x, lambda lam, resp=resp: resp(lam, c))
        assert torch.allclose(filt(L, x, c), ref, atol=1e-9), filt.__name__


def test_sparse_matches_dense_filtering():
    g = nx.gnp_random_graph(30, 0.2, seed=2)
    ei = G.edge_index_from_networkx(g)
    Ls = S.normalized_laplacian(ei, 30, dtype=torch.float64)
    Ld = Ls.to_dense()
    x = torch.randn(30, 4, dtype=torch.float64)
    c = torch.randn(4, dtype=torch.float64)
    for f in (S.chebyshev_filter, S.bernstein_filter, S.chebii_filter):
        assert torch.allclose(f(Ls, x, c), f(Ld, x, c), atol=1e-12)


def test_chebii_interpolates_at_chebyshev_nodes_and_bernstein_partition_of_unity():
    gamma = torch.tensor([0.3, 1.5, -0.2, 2.0, 0.7], dtype=torch.float64)
    nodes = S.chebii_nodes(4) + 1  # in λ units
    assert torch.allclose(S.chebii_response(nodes, gamma), gamma, atol=1e-12)
    assert bool((S.chebii_nodes(4).diff() > 0).all())
    lam = torch.linspace(0, 2, 11, dtype=torch.float64)
    one = torch.ones(11, dtype=torch.float64)
    assert torch.allclose(S.bernstein_response(lam, torch.ones(6, dtype=torch.float64)), one)
    # a Bernstein filter with θ_k = g(2k/K) for linear g reproduces g exactly
    th = torch.tensor([2 - 2 * k / 4 for k in range(5)], dtype=torch.float64)
    assert torch.allclose(S.bernstein_response(lam, th), 2 - lam, atol=1e-12)
    t2 = torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64)
    assert torch.allclose(S.chebyshev_response(lam, t2), 2 * (lam - 1) ** 2 - 1)


def test_modules_batched_and_initially_all_pass():
    L, _, mask = _dense_lap(0)
    x = torch.randn(*L.shape[:2], 5, dtype=torch.float64) * mask.unsqueeze(-1)
    for m in (S.BernProp(3), S.ChebIIProp(4)):
        assert torch.allclose(m.double()(x, L), x, atol=1e-10)  # θ = γ = 1 is the identity filter
    conv = S.ChebConv(5, 2, 2).double()
    y = conv(x, L)
    assert y.shape == (*L.shape[:2], 2)
    y.sum().backward()
    assert all(p.grad is not None for p in conv.parameters())
    with pytest.raises(ValueError):
        S.ChebConv(5, 2, -1)
    with pytest.raises(ValueError):
        S.chebyshev_filter(L, x, torch.zeros(3, 4))  # wrong channel count
    with pytest.raises(ValueError):
        S.laplacian_matmul(L, x[:, :4])


def test_chebyshev_basis_is_bounded_on_the_spectrum():
    L, _, _ = _dense_lap(4)
    lam, U = torch.linalg.eigh(L)
    x = U  # columns are eigenvectors
    for k, t in enumerate(S.chebyshev_basis(L, x, 6)):
        expected = torch.cos(k * torch.arccos((lam - 1).clamp(-1, 1)))
        assert torch.allclose((U.transpose(-1, -2) @ t).diagonal(dim1=-2, dim2=-1), expected, atol=1e-9)
    assert math.isclose(float(S.chebii_nodes(0)[0]), 0.0, abs_tol=1e-12)
