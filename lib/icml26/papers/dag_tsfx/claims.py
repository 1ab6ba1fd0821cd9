"""Claims of DAG (docs/papers/dag_tsfx.md §5) measured on the synthetic EPF-like
generator (that page §2); MSE on the z-scored target.

A claim on real bundled data (Seatbelts, seattle_weather) is not declared: neither ``pydataset`` nor
``vega_datasets`` is a dependency of the companion, and nothing may be downloaded.

Claims 1-2 are not checked at quick scale: with 3 epochs the ratios swing with the seed (seed 0/1/2:
DAG/no-future 0.69/0.33/0.68, DAG/TimeXer 0.66/0.33/0.60, DAG/best endogenous 0.74/0.34/0.64), so a quick
threshold would be a coin flip; they are checked from the standard scale on.
"""

from __future__ import annotations

from icml26.claims import Claim


def _mse(r, group, name):
    return r[group][name]["mse"]


def future_vs_no_future(r) -> float:
    """MSE of DAG with true future covariates over DAG with ``infer_use_future=False`` (sigma_shock=1)."""
    return _mse(r, "main", "DAG") / _mse(r, "main", "DAG_no_future")


def future_vs_timexer(r) -> float:
    """MSE of DAG over the historical-covariate-only TimeXer-lite (sigma_shock=1)."""
    return _mse(r, "main", "DAG") / _mse(r, "main", "TimeXer")


def vs_endogenous(r) -> float:
    """MSE of DAG over the better endogenous-only model (PatchTST-lite, DLinear)."""
    return _mse(r, "main", "DAG") / min(_mse(r, "main", "PatchTST"), _mse(r, "main", "DLinear"))


def irrelevant_ratio(r) -> float:
    """kappa = 0: MSE of DAG over the better of PatchTST-lite / DLinear."""
    return _mse(r, "irrelevant", "DAG") / min(_mse(r, "irrelevant", "PatchTST"), _mse(r, "irrelevant", "DLinear"))


def discovery_ratio(r) -> float:
    """Test MAE of TCM's predicted covariates over the seasonal-naive covariate forecast (sigma_shock=0.3)."""
    return r["discovery"]["dag_exo_mae"] / r["discovery"]["seasonal_naive_mae"]


def vs_future_covariate_baselines(r) -> float:
    """MSE of DAG over the better baseline that also sees future covariates (TiDE, NBEATSx)."""
    return _mse(r, "main", "DAG") / min(_mse(r, "main", "TiDE"), _mse(r, "main", "NBEATSx"))


def ablation_order(r) -> float:
    """MSE(no CCM) / MSE(no TCM) on contemporaneous data."""
    return _mse(r, "ablation", "no_c") / _mse(r, "ablation", "no_t")


def injection_ratio(r) -> float:
    """MSE(full DAG) / MSE(DAG without both injections)."""
    return _mse(r, "ablation", "full") / _mse(r, "ablation", "no_inj")


SRC = "abstract; §1 (motivation: future covariates); experiments on 12 TSF-X sets"
CLAIMS = [
    Claim("future_vs_no_future", "with unpredictable covariate shocks, using the true future covariates cuts DAG's "
          "MSE to <= 0.6x of DAG that must predict them (infer_use_future=False)", future_vs_no_future, "<=",
          {"standard": 0.6, "full": 0.6}, kind="paper", paper_value="future covariates help (ablation)", source=SRC),
    Claim("future_vs_timexer", "DAG's MSE <= 0.6x of the historical-covariate-only TimeXer-lite at sigma_shock=1",
          future_vs_timexer, "<=", {"standard": 0.6, "full": 0.6}, kind="paper",
          paper_value="DAG beats TimeXer on most TSF-X sets", source=SRC),
    Claim("vs_endogenous_only", "DAG's MSE is >= 30% lower than the better endogenous-only model (PatchTST, DLinear)",
          vs_endogenous, "<=", {"standard": 0.7, "full": 0.7}, kind="paper",
          paper_value="state of the art vs PatchTST/DLinear", source="main result tables"),
    Claim("vs_future_covariate_baselines", "DAG is at least as good as the baselines that also use future "
          "covariates (TiDE, NBEATSx): MSE(DAG) <= best of them", vs_future_covariate_baselines, "<=",
          {"standard": 1.0, "full": 1.0},
          kind="paper", paper_value="state of the art on most TSF-X settings (vs TiDE, NBEATSx)",
          source="main result tables (README result1/result2)",
          why="standard, seeds 0-2: DAG / the best future-covariate baseline = 2.34 / 2.37 / 2.77 (needs <= 1). In "
              "the v0.1.0 run (seed 0): DAG 0.291 vs TiDE 0.127 and NBEATSx 0.299 test MSE (ratio 2.29); on "
                        "this generator the price is a smooth function of contemporaneous covariates, which TiDE's "
                        "per-step temporal decoder fits directly, while DAG's CCM maps whole-series variate tokens"),
    Claim("no_harm_irrelevant", "with covariates independent of the target (kappa=0), DAG's MSE <= 1.10x (quick "
          "1.25x) the better endogenous-only model", irrelevant_ratio, "<=",
          {"quick": 1.25, "standard": 1.10, "full": 1.10}, kind="paper",
          paper_value="(not in the paper; our guard claim)",
          source="docs/papers/dag_tsfx.md §5 (our guard claim; not in the paper)"),
    Claim("temporal_discovery", "TCM's covariate forecast MAE <= 0.8x the seasonal-naive covariate forecast "
          "(sigma_shock=0.3)", discovery_ratio, "<=", {"standard": 0.8, "full": 0.8}, kind="paper",
          paper_value="TCM learns covariate dynamics (L_t)", source="method §TCM"),
    Claim("ablation_c_over_t", "removing CCM hurts more than removing TCM: MSE(no-C) >= 1.3x MSE(no-T)",
          ablation_order, ">=", {"quick": 1.3, "standard": 1.3, "full": 1.3}, kind="paper",
          paper_value="both modules help (ablation table)",
          source="ablation study"),
    Claim("injection_gain", "the attention injections do not hurt: MSE(full) <= 1.02x MSE(no injection)",
          injection_ratio, "<=", {"standard": 1.02, "full": 1.02},
          kind="paper", paper_value="injection helps (ablation table)",
          source="ablation study"),
]
