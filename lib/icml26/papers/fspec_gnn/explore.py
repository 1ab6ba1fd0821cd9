"""Plotting functions for the FSpecGNN notebooks and widgets (matplotlib; each returns a Figure)."""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np
import torch

from icml26 import checks
from icml26.data import graphs as gdata
from icml26.nn.spectral import dense_normalized_laplacian
from icml26.papers.fspec_gnn import baselines
from icml26.papers.fspec_gnn.method import DenseFSpecGNN, full_spectrum_conv
from icml26.viz import figure

PRESETS = ("low-pass", "high-pass", "band", "off-diagonal", "separable")
GRAPHS = {"petersen": nx.petersen_graph, "cycle C8": lambda: nx.cycle_graph(8),
          "karate": nx.karate_club_graph, "2C3 + C6": lambda: nx.disjoint_union(gdata.cycle_union([3, 3]),
                                                                              nx.cycle_graph(6))}


def bivariate_filter(li, lj, preset: str = "low-pass", width: float = 0.5):
    """A hand-made bivariate filter G(λ_i, λ_j) (numpy, broadcasting) for the explorer."""
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {PRESETS}; got {preset!r}")
    checks.positive_number("width", width)
    for name, value in (("li", li), ("lj", lj)):
        if not np.issubdtype(checks.array(name, value).dtype, np.number):
            raise TypeError(f"{name} must hold eigenvalues (numbers); got {value!r:.60}")
    if preset == "low-pass":
        return np.exp(-(li + lj) / width)
    if preset == "high-pass":
        return 1 - np.exp(-(li + lj) / width)
    if preset == "band":
        return np.exp(-((li - 1) ** 2 + (lj - 1) ** 2) / width**2)
    if preset == "off-diagonal":
        return np.tanh(np.abs(li - lj) / width)
    return np.exp(-li / width) * (1 - np.exp(-lj / width))  # separable: low-pass ⊗ high-pass


@functools.lru_cache(maxsize=8)
def _spectrum(graph: str):
    g = GRAPHS[graph]()
    adj = torch.tensor(nx.to_numpy_array(g), dtype=torch.float64)
    lam, U = torch.linalg.eigh(dense_normalized_laplacian(adj))
    return adj, lam, U


def plot_bivariate_filter(preset: str = "low-pass", width: float = 0.5, graph: str = "karate", show_diag: bool = True):
    """Left: G over [0, 2]^2 with the graph's eigenvalue pairs; right: the filtered pair signal Y for X = A."""
    if graph not in GRAPHS:
        raise ValueError(f"graph must be one of {sorted(GRAPHS)}; got {graph!r}")
    grid = np.linspace(0, 2, 121)
    Gg = bivariate_filter(grid[:, None], grid[None, :], preset, width)
    adj, lam, U = _spectrum(graph)
    ln = lam.numpy()
    G = torch.tensor(bivariate_filter(ln[:, None], ln[None, :], preset, width))
    Y = full_spectrum_conv(U, adj, G).numpy()
    Y[np.abs(Y) < 1e-10] = 0.0  # round-off (e.g. an off-diagonal filter on a regular graph kills A exactly)
    fig, ax = figure(3, 1, width=3.6, height=3.3)
    ax[0, 0].imshow(Gg, origin="lower", extent=(0, 2, 0, 2), cmap="viridis")
    ax[0, 0].scatter(*np.meshgrid(ln, ln), s=4, c="w", alpha=0.6)
    if show_diag:
        ax[0, 0].plot([0, 2], [0, 2], "r--", lw=1, label="diagonal = classical g(λ)")
        ax[0, 0].legend(loc="upper left", fontsize=7)
    ax[0, 0].set(xlabel="λ_j", ylabel="λ_i", title=f"G(λ_i, λ_j): {preset}")
    ax[0, 1].plot(grid, np.diag(Gg), label="G(λ, λ)")
    ax[0, 1].set(xlabel="λ", title="diagonal restriction", ylim=(-0.05, 1.05))
    v = np.abs(Y).max() or 1.0
    im2 = ax[0, 2].imshow(Y, cmap="RdBu_r", vmin=-v, vmax=v)
    ax[0, 2].set(title=f"Y = U[G ⊙ UᵀAU]Uᵀ on {graph}", xticks=[], yticks=[])
    fig.colorbar(im2, ax=ax[0, 2], shrink=0.8)
    return fig


def hard_pair_readouts(pair: str, channels: int = 16, seed: int = 0) -> dict:
    """Relative graph-readout differences of randomly initialised models on a 1-WL-hard pair (float64)."""
    checks.one_of("pair", pair, sorted(gdata.HARD_PAIRS))
    if not checks._is_int(channels) or channels < 2:
        raise ValueError(f"channels must be an integer >= 2; got {channels!r}")
    checks.seed("seed", seed)
    torch.manual_seed(seed)
    g1, g2 = gdata.hard_pair(pair)
    adj, mask = gdata.to_dense_batch([g1, g2])
    adj = adj.double()
    models = {"GIN (MPNN)": baselines.DenseGIN(channels, 3), "SpecGNN (classical)": baselines.DenseSpecGNN(channels, 2),
              "FSpec (adj input)": DenseFSpecGNN(channels, 2, pair_input="adj"),
              "FSpec (SPD input)": DenseFSpecGNN(channels, 2, pair_input="spd")}
    out = {}
    with torch.no_grad():
        for name, m in models.items():
            e = m.double().eval().graph_embedding(adj, mask)
            out[name] = float((e[0] - e[1]).abs().max() / e.abs().max().clamp_min(1e-12))
    return out


@functools.lru_cache(maxsize=4)
def _pair_layouts(pair: str):
    return [(g, nx.kamada_kawai_layout(g)) for g in gdata.hard_pair(pair)]


def plot_hard_pair(pair: str = "2C3_C6", seed: int = 0, channels: int = 16):
    """Bar chart (log scale) of how far each model's readouts are apart on the pair; ~1e-16 = cannot separate."""
    d = hard_pair_readouts(pair, channels, seed)
    fig, ax = figure(3, 1, width=3.3, height=3.0)
    for a, (g, pos), t in zip((ax[0, 0], ax[0, 1]), _pair_layouts(pair), ("graph 1", "graph 2")):
        nx.draw(g, pos=pos, ax=a, node_size=40, node_color="#1f5fa8", width=1.0)
        a.set_title(t)
    names = list(d)
    vals = [max(d[k], 1e-17) for k in names]
    ax[0, 2].barh(names, vals, color=["#7a7a7a", "#2a9d8f", "#e9a03b", "#1f5fa8"])
    ax[0, 2].set_xscale("log")
    ax[0, 2].set_xlim(1e-17, 10)
    ax[0, 2].axvline(1e-6, color="r", ls="--", lw=1)
    ax[0, 2].set(title=f"readout gap (seed {seed})", xlabel="max|e1−e2| / max|e|")
    return fig


def separable_error(preset: str = "off-diagonal", width: float = 0.5, n: int = 64):
    """Relative Frobenius error of the best rank-R approximation of G on an n x n eigenvalue grid, R = 1..n."""
    if not checks._is_int(n) or n < 2:
        raise ValueError(f"n must be an integer >= 2 (grid points); got {n!r}")
    grid = np.linspace(0, 2, n)
    G = bivariate_filter(grid[:, None], grid[None, :], preset, width)
    s = np.linalg.svd(G, compute_uv=False)
    tail = np.sqrt(np.maximum(np.cumsum((s**2)[::-1])[::-1], 0))
    return np.append(tail[1:], 0.0) / np.linalg.norm(G), G


def plot_rank(rank: int = 1, preset: str = "off-diagonal", width: float = 0.5):
    """The rank-R separable approximation Σ_r p_r(λ_i) q_r(λ_j) of a bivariate filter and its error vs R."""
    n = 64
    if not checks._is_int(rank) or not 1 <= rank <= n:
        raise ValueError(f"rank must be an integer in [1, {n}]; got {rank!r}")
    err, G = separable_error(preset, width, n)
    U, s, Vt = np.linalg.svd(G)
    Gr = (U[:, :rank] * s[:rank]) @ Vt[:rank]
    fig, ax = figure(3, 1, width=3.3, height=3.0)
    ax[0, 0].imshow(G, origin="lower", extent=(0, 2, 0, 2))
    ax[0, 0].set(title=f"target G ({preset})", xlabel="λ_j", ylabel="λ_i")
    ax[0, 1].imshow(Gr, origin="lower", extent=(0, 2, 0, 2), vmin=G.min(), vmax=G.max())
    ax[0, 1].set(title=f"rank-{rank} separable approximation", xlabel="λ_j")
    R = np.arange(1, 16)
    ax[0, 2].semilogy(R, np.maximum(err[:15], 1e-16), "o-", ms=3)
    ax[0, 2].semilogy([rank], [max(err[rank - 1], 1e-16)], "o", color="#d1495b", ms=8)
    ax[0, 2].set(xlabel="rank R", ylabel="relative error", title="error of the best rank-R filter")
    return fig


# ----------------------------------------------------------------------------------------------- results
def plot_counting(results: dict):
    """Test MAE per counting task and model (F3) and the 2C3/C6 edge-level MAE (F4)."""
    checks.config("results", results, required=("counting", "edge"))
    checks.config("results['counting']", results["counting"], required=("mae", "tasks"))
    checks.config("results['edge']", results["edge"], required=("hard_mae",))
    fig, ax = figure(2, 1, width=4.0, height=3.2)
    mae = results["counting"]["mae"]
    tasks = results["counting"]["tasks"]
    models = list(mae)
    x = np.arange(len(tasks))
    w = 0.8 / max(1, len(models))
    for k, m in enumerate(models):
        ax[0, 0].bar(x + w * k, [mae[m][t] for t in tasks], w, label=m)
    ax[0, 0].set_xticks(x + w * (len(models) - 1) / 2, tasks)
    ax[0, 0].set(ylabel="test MAE (std-normalised)", title="F3 node-level counting", yscale="log")
    ax[0, 0].legend()
    hm = results["edge"]["hard_mae"]
    ax[0, 1].bar(list(hm), list(hm.values()), color=["#1f5fa8", "#7a7a7a", "#8fb3de", "#c47b2b"][: len(hm)])
    ax[0, 1].axhline(0.25, color="r", ls="--", lw=1)
    ax[0, 1].set(ylabel="MAE (raw counts)", title="F4 edge triangles on 2C3 / C6")
    return fig


def plot_heterophily(results: dict):
    """Test accuracy vs edge homophily on CSBM (F5) and the learned pair weight σ(α)."""
    checks.config("results", results, required=("heterophily",))
    checks.config("results['heterophily']", results["heterophily"], required=("acc", "homophily", "alpha"))
    r = results["heterophily"]
    fig, ax = figure(2, 1, width=4.0, height=3.2)
    for m, accs in r["acc"].items():
        ax[0, 0].plot(r["homophily"], accs, "o-", label=m)
    ax[0, 0].set(xlabel="edge homophily h", ylabel="test accuracy (%)", title="F5 CSBM sweep")
    ax[0, 0].legend()
    ax[0, 1].plot(r["homophily"], r["alpha"], "o-")
    ax[0, 1].set(xlabel="edge homophily h", ylabel="σ(α)", title="learned pair-branch weight")
    return fig


def plot_scalability(results: dict):
    """Epoch time of FSpec-lite vs graph size (F6)."""
    checks.config("results", results, required=("scalability",))
    checks.config("results['scalability']", results["scalability"], required=("sizes", "epoch_s", "time_ratio"))
    r = results["scalability"]
    if not len(r["sizes"]) or len(r["sizes"]) != len(r["epoch_s"]):
        raise ValueError("results['scalability'] must hold one epoch time per size (and at least one)")
    fig, ax = figure(1, 1, width=4.0, height=3.2)
    ax.loglog(r["sizes"], r["epoch_s"], "o-", label="FSpec-lite (Cheb)")
    n0, t0 = r["sizes"][0], r["epoch_s"][0]
    ax.loglog(r["sizes"], [t0 * n / n0 for n in r["sizes"]], "k--", lw=1, label="linear")
    ax.set(xlabel="nodes (avg degree 10)", ylabel="seconds / epoch", title=f"F6: ratio {r['time_ratio']:.2f}")
    ax.legend()
    return fig
