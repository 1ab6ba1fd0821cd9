"""The claims of FSpecGNN (docs/papers/fspec_gnn.md §5, F1-F6) with thresholds per scale.

Metrics read the dict returned by :func:`icml26.papers.fspec_gnn.experiment.run`.
"""

from __future__ import annotations

import numpy as np

from icml26.claims import TIMED_RERUN_RTOL, Claim, Control

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
    """Relative readout gap of FSpecGNN with atomic (adjacency) pair input: the filter's own separation."""
    return r["expressivity"]["2C3_C6"]["fspec_adj"]


def fspec_gap_rook(r):
    e = r["expressivity"]["rook_shrikhande"]
    return max(e[k] for k in ("fspec_spd", "fspec_adj", "local2") if k in e)


FSPEC = "fspec_adj"  # the counting claims use FSpecGNN on atomic pair input, the information every model gets


def _count(r, model, task):
    return r["counting"]["mae"][model][task]


def tri_ratio_gin(r):
    return _count(r, FSPEC, "triangle") / _count(r, "gin", "triangle")


def c4_ratio_gin(r):
    return _count(r, FSPEC, "cycle4") / _count(r, "gin", "cycle4")


def tri_ratio_spec(r):
    return _count(r, FSPEC, "triangle") / _count(r, "spec", "triangle")


def spec_tri_ratio_gin(r):
    """The control of F3_tri_vs_mpnn: the classical spectral GNN (FSpec's diagonal case, no off-diagonal pair
    filter, same input, layers, width and budget) in FSpec's place: its triangle MAE / GIN's."""
    return _count(r, "spec", "triangle") / _count(r, "gin", "triangle")


def counting_details(r):
    """Per-model and per-task test MAEs and ratios behind the counting claims (shown, never counted)."""
    out = {}
    for model, per in r["counting"]["mae"].items():
        for task, v in per.items():
            out[f"{model}_{task}_mae"] = v
    for task in r["counting"]["tasks"]:
        out[f"fspec_over_gin_{task}"] = _count(r, FSPEC, task) / _count(r, "gin", task)
        out[f"fspec_over_local2_{task}"] = _count(r, FSPEC, task) / _count(r, "local2", task)
    return out


def local2_ratio_max(r):
    """The larger of FSpec MAE / Local 2-GNN MAE over the counting tasks (1 = the same error)."""
    return max(_count(r, FSPEC, t) / _count(r, "local2", t) for t in r["counting"]["tasks"])


def fspec_tri_mae(r):
    return _count(r, FSPEC, "triangle")


def fspec_c4_mae(r):
    return _count(r, FSPEC, "cycle4")


def gin_over_fspec_min(r):
    """The smaller of MPNN MAE / FSpec MAE over the counting tasks."""
    return min(_count(r, "gin", t) / _count(r, FSPEC, t) for t in r["counting"]["tasks"])


def gin_hard_edge_mae(r):
    return r["edge"]["hard_mae"]["gin"]


def fspec_hard_edge_mae(r):
    return r["edge"]["hard_mae"][FSPEC]


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


def lite_minus_mlp_low_h(r):
    h = np.asarray(r["heterophily"]["homophily"])
    return float(np.mean((_acc(r, "fspec_cheb") - _acc(r, "mlp"))[h <= 0.2]))


def time_ratio(r):
    return r["scalability"]["time_ratio"]


def dense_pair_gb(r):
    return r["scalability"]["dense_pair_gb"]


LOCAL2_WHY = {"standard": "FSpec's counting error sits 1.44-2.10x Local 2-GNN's on seeds 0-2 (the max over triangles "
                          "and 4-cycles), on both sides of the 2x bar we set for 'same tier'; the per-task values are "
                          "in F3_c4_vs_mpnn, F3_tri_mae and F3_c4_mae (FSpec errors 0.0098-0.025)"}
F5C_WHY = {"standard": "the pair branch adds little over ChebNet on a random CSBM: the labels do not depend on pair "
                        "structure, both models see the same features and polynomial filters, and a learned high-pass "
                        "filter already uses the class-mixing pattern of random heterophily; the recorded differences "
                        "are -0.77 to +0.93 points on seeds 0-2"}
F5D_WHY = {"standard": "at h = 0.2 (C = 4) a neighbour is less likely to share the node's class than a random node "
                        "(0.2 < 0.25), so propagation mixes in near-noise and a graph-free MLP can win there; the "
                        "recorded differences are -1.07 to +0.18 points on seeds 0-2"}
F5B_WHY = {"standard": "at h = 0.2 (random heterophily, C = 4) a neighbour shares the node's class with probability "
                        "0.2, below the 0.25 of a random node, so the graph carries almost no class signal and the "
                        "margin over GCN is what keeping the node's own features buys: 4.4-6.3 points on seeds 0-2, "
                        "under the 10-point bar we set"}

QUOTE_EXPR = "Empirically, FSpecGNN validates the predicted expressivity and delivers strong performance on " \
             "heterophilic benchmarks."
CSBM = (" Random-heterophily CSBM: labels do not depend on pair structure, so the pair filter has nothing to "
        "exploit; a control testbed, not the paper's heterophilic benchmarks")

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
    Claim("F2a_fspec_separates", "a randomly initialised 2-layer FSpecGNN on atomic pair input (non-edge / edge / "
          "diagonal, no shortest paths) separates 2C3 from C6 (relative readout difference), where the 1-WL models "
          "give equal readouts to 1e-16", fspec_gap_2c3, ">", _t(1e-6),
          kind="check", paper_value="beyond 1-WL (Thm. 3.8)", source=SRC_EXP),
    Claim("F2b_fspec_below_2fwl", "FSpecGNN (SPD and atomic input) and Local 2-GNN give equal readouts on the 4x4 "
          "rook graph and the Shrikhande graph", fspec_gap_rook, "<", _t(1e-6),
          kind="check", paper_value="≤ Local 2-GNN", source=SRC_EXP),
    Claim("F3_tri_vs_mpnn", "node-level triangle counting, every model on adjacency-only input: FSpec test MAE below "
          "the MPNN's (GIN): ratio ≤ 0.75 (quick), ≤ 0.5 (standard, full)", tri_ratio_gin, "<=",
          {"quick": 0.75, "standard": 0.5, "full": 0.5},
          kind="paper", paper_value="Local 2-GNN tier vs MPNN 1-2 orders worse",
          source="abstract: 'Empirically, FSpecGNN validates the predicted expressivity' (beyond 1-WL); official "
                 "counting logs", headline=True, quote=QUOTE_EXPR,
          control=Control("diagonal_case", "the classical spectral GNN (FSpec's diagonal case: the same layers, "
                          "width, input and budget without the off-diagonal pair filter) in FSpec's place: its "
                          "triangle MAE / GIN's", spec_tri_ratio_gin),
          details=counting_details),
    Claim("F3_c4_vs_mpnn", "node-level 4-cycle counting, adjacency-only input: FSpec test MAE ≤ 0.5 × MPNN (GIN) MAE "
          "(F3_tri_vs_mpnn's comparison on a second task; our variant)",
          c4_ratio_gin, "<=", {"standard": 0.5, "full": 0.5},
          why={"standard": "FSpec's 4-cycle MAE is 0.31 / 0.48 / 0.33 of GIN's on seeds 0-2, below the 0.5 bar on "
                           "every seed; seed 1's 0.48 is within the noise margin (SD 0.048 over development seeds "
                           "100-102: 0.32 / 0.41 / 0.34), a tie"},
          kind="extension", paper_value="Local 2-GNN tier vs MPNN 1-2 orders worse",
          source="abstract (substructure counting); official logs"),
    Claim("F3_tri_vs_spectral", "node-level triangle counting: FSpec test MAE ≤ 0.5 × classical spectral GNN MAE "
          "(the diagonal restriction, same input)", tri_ratio_spec, "<=", _t(0.5),
          kind="paper", paper_value="classical spectral GNN ≤ 1-WL",
          source="counting benchmark; Prop. 3.3"),
    Claim("F3_local2_tier", "FSpec matches the Local 2-GNN tier on counting: FSpec MAE ≤ 2 × Local 2-GNN MAE on "
          "every task (same atomic pair input, layers, width, budget)", local2_ratio_max, "<=",
          {"standard": 2.0, "full": 2.0}, kind="paper", paper_value="as expressive as Local 2-GNN; same error tier",
          source="abstract ('at most as expressive as Local 2-GNN'); Thm. 3.8; our margin for 'same tier'",
          why=LOCAL2_WHY, details=counting_details),
    Claim("F3_tri_mae", "FSpec node-level triangle MAE (std-normalised counts, adjacency-only input; our bar at "
          "standard, 3x the official log at full)",
          fspec_tri_mae, "<=", {"standard": 0.05, "full": 3 * 0.0032}, kind="extension",
          paper_value="0.0032 (cycle3, v; SPD input)", source="official result.count logs"),
    Claim("F3_c4_mae", "FSpec node-level 4-cycle MAE (std-normalised counts, adjacency-only input; our bar at "
          "standard, 3x the official log at full)", fspec_c4_mae,
          "<=", {"standard": 0.08, "full": 3 * 0.0089}, kind="extension", paper_value="0.0089 (cycle4, v; SPD input)",
          source="official result.count logs"),
    Claim("F3_mpnn_gap", "the MPNN (GIN) is at least 3x worse than FSpec on every counting task (F3_tri_vs_mpnn "
          "over every task, with our 3x bar; full only)",
          gin_over_fspec_min, ">=", {"full": 3.0}, kind="extension", paper_value="1-2 orders of magnitude",
          source="abstract (substructure counting); our margin, docs/papers/fspec_gnn.md §5"),
    Claim("F4_mpnn_blind", "edge-level triangle counts on 2C3 / C6: the MPNN (concatenated endpoints) has MAE ≥ 0.25 "
          "(forced: 1-WL gives both graphs' edges one value, true counts 1 and 0)",
          gin_hard_edge_mae, ">=", _t(0.25), kind="check", paper_value="1-WL bound", source=SRC_EXP),
    Claim("F4_fspec_counts", "edge-level triangle counts on 2C3 / C6, adjacency-only input: trained FSpec reaches "
          "MAE ≤ 0.1 (the MPNN is stuck at 0.5). Scored on the two graphs it TRAINS on (copies of the pair are in the "
          "training pool): a test that the learned filter can represent the separation, not held-out counting",
          fspec_hard_edge_mae, "<=", _t(0.1),
          kind="extension", paper_value="cycle3 e: 0.0031 (held-out, on the paper's benchmark)",
          source="Thm. 3.8 (beyond 1-WL) on learned weights; official result.count logs"),
    Claim("F5a_contains_chebnet", "CSBM homophily sweep: FSpec-lite(Cheb) ≥ ChebNet − 1 pt on average (trained "
          "counterpart of the diagonal-case identity F1d; random-heterophily CSBM, our testbed)",
          lite_minus_cheb_mean, ">=", {"standard": -1.0, "full": -1.0}, kind="extension",
          paper_value="contains ChebNet",
          source="abstract (diagonal case); docs/papers/fspec_gnn.md §3.3"),
    Claim("F5b_beats_gcn_low_h", "CSBM at h ≤ 0.2: FSpec-lite(Cheb) beats GCN by ≥ 10 accuracy points." + CSBM,
          lite_minus_gcn_low_h, ">=", {"standard": 10.0, "full": 10.0}, kind="extension",
          paper_value="heterophily benefit",
          source="abstract (heterophilic benchmarks); our margin",
          why=F5B_WHY),
    Claim("F5c_beats_chebnet_low_h", "CSBM at h ≤ 0.2: FSpec-lite(Cheb) beats ChebNet (mean accuracy difference)."
          + CSBM, lite_minus_cheb_low_h, ">", {"standard": 0.0, "full": 0.0},
          kind="extension", paper_value="FSpec > spectral baselines (directional)",
          source="abstract (heterophilic benchmarks); direction only", why=F5C_WHY),
    Claim("F5d_beats_mlp_low_h", "CSBM at h ≤ 0.2: FSpec-lite(Cheb) beats a graph-free MLP (mean accuracy "
          "difference)." + CSBM, lite_minus_mlp_low_h, ">", {"standard": 0.0, "full": 0.0},
          kind="extension", paper_value="strong on heterophilic graphs (implied: uses the graph)",
          source="abstract (heterophilic benchmarks); direction only", why=F5D_WHY),
    # A wall-clock ratio: not checked at quick, where CI times it beside other jobs (1.4-5.5 measured there).
    Claim("F6_linear_time", "FSpec-lite epoch time grows near-linearly: t(4n)/t(n) ≤ 6 at fixed average degree "
          "(a cost guard: sparse products are linear in |E| by construction)",
          time_ratio, "<=", _t(6.0, ("standard", "full")), kind="check", paper_value="O(K |E| C)",
          source="abstract (scalable); docs/papers/fspec_gnn.md §3.3", rerun_rtol=TIMED_RERUN_RTOL),
    Claim("F6_dense_memory", "a dense pair tensor at n=2000, d=16 needs ≥ 0.25 GB (why the lite form is needed)",
          dense_pair_gb, ">=", _t(0.25), kind="check", paper_value="O(n^2 d) memory",
          source="docs/papers/fspec_gnn.md §3.2 (dense pair tensors)"),
]
