"""The claims of FSpecGNN (docs/papers/fspec_gnn.md §5, F1-F6) with thresholds per scale.

Metrics read the dict returned by :func:`icml26.papers.fspec_gnn.experiment.run`.
"""

from __future__ import annotations

import numpy as np

from icml26.claims import Claim

ALL = ("quick", "standard", "full")


def _t(value, scales=ALL):
    return {s: value for s in scales}


# ----------------------------------------------------------------------------------------------- metrics
def kron_err(r):
    return r["identities"]["kron_err"]


def diag_err(r):
    return r["identities"]["diag_err"]


def separable_err(r):
    return r["identities"]["separable_err"]


def lite_sigma0_err(r):
    return r["identities"]["lite_sigma0_err"]


def lite_dense_err(r):
    return r["identities"]["lite_dense_err"]


def basis_invariance_err(r):
    return r["identities"]["basis_invariance_err"]


def wl_models_gap_2c3(r):
    """Largest relative readout difference of the 1-WL-bounded models (classical spectral GNN, GIN) on 2C3 vs C6."""
    e = r["expressivity"]["2C3_C6"]
    return max(e["spec"], e["gin"])


def fspec_gap_2c3(r):
    return r["expressivity"]["2C3_C6"]["fspec_spd"]


def fspec_gap_rook(r):
    e = r["expressivity"]["rook_shrikhande"]
    return max(e["fspec_spd"], e["fspec_adj"])


def _count(r, model, task):
    return r["counting"]["mae"][model][task]


def tri_ratio_gin(r):
    return _count(r, "fspec", "triangle") / _count(r, "gin", "triangle")


def tri_ratio_spec(r):
    return _count(r, "fspec", "triangle") / _count(r, "spec", "triangle")


def fspec_tri_mae(r):
    return _count(r, "fspec", "triangle")


def fspec_c4_mae(r):
    return _count(r, "fspec", "cycle4")


def gin_over_fspec_min(r):
    """The smaller of MPNN MAE / FSpec MAE over the counting tasks."""
    return min(_count(r, "gin", t) / _count(r, "fspec", t) for t in r["counting"]["tasks"])


def gin_hard_edge_mae(r):
    return r["edge"]["hard_mae"]["gin"]


def fspec_hard_edge_mae(r):
    return r["edge"]["hard_mae"]["fspec"]


def _acc(r, m):
    return np.asarray(r["heterophily"]["acc"][m], dtype=float)


def lite_minus_cheb_mean(r):
    return float(np.mean(_acc(r, "fspec_cheb") - _acc(r, "chebnet")))


def lite_minus_gcn_low_h(r):
    h = np.asarray(r["heterophily"]["homophily"])
    return float(np.min((_acc(r, "fspec_cheb") - _acc(r, "gcn"))[h <= 0.2]))


def lite_minus_cheb_low_h(r):
    h = np.asarray(r["heterophily"]["homophily"])
    return float(np.mean((_acc(r, "fspec_cheb") - _acc(r, "chebnet"))[h <= 0.2]))


def time_ratio(r):
    return r["scalability"]["time_ratio"]


def dense_pair_gb(r):
    return r["scalability"]["dense_pair_gb"]


SRC_ALG = "abstract; Prop. 3.3; docs/papers/fspec_gnn.md §3.1 (full-spectrum convolution, separable filters)"
SRC_EXP = "Thm. 3.8 (FSpecGNN ≤ Local 2-GNN, > 1-WL); Figure 1 caption"

CLAIMS = [
    Claim("F1a_kron_form", "the Kronecker form (U⊗U) diag(G) (U⊗U)^T vec X equals U[G ⊙ U^T X U]U^T (float64, n=12)",
          kron_err, "<", _t(1e-10), kind="check", paper_value="exact identity", source=SRC_ALG),
    Claim("F1b_diagonal_case", "with X = I the full-spectrum filter is the classical filter U diag(G(λ,λ)) U^T",
          diag_err, "<", _t(1e-10), kind="check", paper_value="exact (Prop. 3.3)", source="Prop. 3.3"),
    Claim("F1c_separable", "a separable G = p(λ_i) q(λ_j) gives p(L) X q(L) with no eigendecomposition",
          separable_err, "<", _t(1e-8), kind="check", paper_value="exact identity", source=SRC_ALG),
    Claim("F1d_lite_sigma0", "the scalable layer with σ(α)=0 is the classical spectral filter P2(L)P1(L)h (float32)",
          lite_sigma0_err, "<", _t(1e-5),
    kind="check", paper_value="exact (diagonal case)",
          source="docs/papers/fspec_gnn.md §3.3 (from the official code); Prop. 3.3"),
    Claim("F1d_lite_dense", "the scalable layer equals U[(p2⊗p1) ⊙ U^T(I + σ(α)Att_W)U]U^T h (float32)",
          lite_dense_err, "<", _t(1e-5),
    kind="check", paper_value="rank-1 separable filter (from code)",
          source="docs/papers/fspec_gnn.md §3.3 (inferred from the official code)"),
    Claim("F1e_basis_invariance", "rotating U inside the eigenspaces of C6 leaves the filtered pair signal unchanged",
          basis_invariance_err, "<", _t(1e-8), kind="check", paper_value="permutation equivariance", source=SRC_ALG),
    Claim("F2a_wl_models_blind", "a classical spectral GNN and GIN (constant input) give equal readouts on 2C3 vs C6",
          wl_models_gap_2c3, "<", _t(1e-6), kind="check", paper_value="1-WL bound", source=SRC_EXP),
    Claim("F2a_fspec_separates", "a randomly initialised 2-layer FSpecGNN (SPD input) separates 2C3 from C6 "
          "(relative readout difference)", fspec_gap_2c3, ">", _t(1e-2),
    kind="paper", paper_value="beyond 1-WL", source=SRC_EXP),
    Claim("F2b_fspec_below_2fwl", "FSpecGNN gives equal readouts on the 4x4 rook graph and the Shrikhande graph "
          "(SPD and adjacency input)", fspec_gap_rook, "<", _t(1e-6),
    kind="check", paper_value="≤ Local 2-GNN", source=SRC_EXP),
    Claim("F3_tri_vs_mpnn", "node-level triangle counting: FSpec test MAE ≤ 0.5 × MPNN (GIN) MAE",
          tri_ratio_gin, "<=", {"standard": 0.5, "full": 0.5},
          kind="paper", paper_value="Local 2-GNN tier vs MPNN 1-2 orders worse",
          source="counting benchmark (official logs)"),
    Claim("F3_tri_vs_spectral", "node-level triangle counting: FSpec test MAE ≤ 0.5 × classical spectral GNN MAE",
          tri_ratio_spec, "<=", {"standard": 0.5, "full": 0.5},
          kind="paper", paper_value="classical spectral GNN ≤ 1-WL",
          source="counting benchmark; Prop. 3.3"),
    Claim("F3_tri_mae", "FSpec node-level triangle MAE (std-normalised counts)", fspec_tri_mae, "<=",
          {"standard": 0.05, "full": 3 * 0.0032}, kind="paper", paper_value="0.0032 (cycle3, v)",
          source="official result.count logs"),
    Claim("F3_c4_mae", "FSpec node-level 4-cycle MAE (std-normalised counts)", fspec_c4_mae, "<=",
          {"standard": 0.08, "full": 3 * 0.0089}, kind="paper", paper_value="0.0089 (cycle4, v)",
          source="official result.count logs"),
    Claim("F3_mpnn_gap", "the MPNN (GIN) is at least 3x worse than FSpec on every counting task",
          gin_over_fspec_min, ">=", {"full": 3.0}, kind="paper", paper_value="1-2 orders of magnitude",
          source="abstract (substructure counting); our margin, docs/papers/fspec_gnn.md §5"),
    Claim("F4_mpnn_blind", "edge-level triangle counts on 2C3 / C6: the MPNN (concatenated endpoints) has MAE ≥ 0.25",
          gin_hard_edge_mae, ">=", _t(0.25), kind="check", paper_value="1-WL bound", source=SRC_EXP),
    Claim("F4_fspec_counts", "edge-level triangle counts on 2C3 / C6: FSpec reaches MAE ≤ 0.1",
          fspec_hard_edge_mae, "<=", _t(0.1),
    kind="paper", paper_value="cycle3 e: 0.0031", source="official result.count logs"),
    Claim("F5a_contains_chebnet", "CSBM homophily sweep: FSpec-lite(Cheb) ≥ ChebNet − 1 pt on average",
          lite_minus_cheb_mean, ">=", {"standard": -1.0, "full": -1.0}, kind="paper", paper_value="contains ChebNet",
          source="abstract (diagonal case); docs/papers/fspec_gnn.md §3.3"),
    Claim("F5b_beats_gcn_low_h", "CSBM at h ≤ 0.2: FSpec-lite(Cheb) beats GCN by ≥ 10 accuracy points",
          lite_minus_gcn_low_h, ">=", {"standard": 10.0, "full": 10.0}, kind="paper", paper_value="heterophily benefit",
          source="abstract (heterophilic benchmarks); our margin",
          why="at h=0.2 (random heterophily, C=4) neighbours are nearly uninformative (1/C = 0.25), so "
                        "the margin over GCN is only what keeping the node's own features buys: standard seed 0 gave "
                        "FSpec-lite 45.0% vs GCN 36.7% (+8.3 pts); at h=0.05 the margin is +18.3 pts (57.8 vs 39.5)"),
    Claim("F5c_beats_chebnet_low_h", "CSBM at h ≤ 0.2: FSpec-lite(Cheb) beats ChebNet (mean accuracy difference)",
          lite_minus_cheb_low_h, ">", {"full": 0.0},
          kind="paper", paper_value="FSpec > spectral baselines (directional)",
          source="abstract (heterophilic benchmarks); direction only"),
    Claim("F6_linear_time", "FSpec-lite epoch time grows near-linearly: t(4n)/t(n) ≤ 6 at fixed average degree",
          time_ratio, "<=", _t(6.0), kind="paper", paper_value="O(K |E| C)",
          source="abstract (scalable); docs/papers/fspec_gnn.md §3.3"),
    Claim("F6_dense_memory", "a dense pair tensor at n=2000, d=16 needs ≥ 0.25 GB (why the lite form is needed)",
          dense_pair_gb, ">=", _t(0.25), kind="check", paper_value="O(n^2 d) memory",
          source="docs/papers/fspec_gnn.md §3.2 (dense pair tensors)"),
]
