"""Claims of DAG (docs/papers/dag_tsfx.md §5) measured on the synthetic EPF-like
generator (that page §2); MSE on the z-scored target.

Paper claims test DAG's own contribution against models that get the same inputs: the best baseline that also
sees the future covariates, a closed-form ridge on the same inputs, and DAG without its temporal module or without
either correlation injection (every model under one protocol, :mod:`.experiment`). Claims that any model given
the future covariates would pass (DAG vs itself without them, vs TimeXer-lite or endogenous-only models, DAG
without its only future-covariate branch) are ``kind="check"``: they establish that the testbed's future
covariates carry information, and say nothing about DAG's method. ``no_harm_irrelevant`` is our guard, not in
the paper, also a check. A claim on real bundled data is not declared: no package of the lock ships a
time series with known-future covariates (:func:`.data.load_tsfx_csv` reads the paper's CSV format from a path).
"""

from __future__ import annotations

from icml26.claims import Claim, Control


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


FUTURE_BASELINES = ("TiDE", "NBEATSx", "TFT")


def vs_future_covariate_baselines(r) -> float:
    """MSE of DAG over the best baseline that also sees future covariates (:data:`FUTURE_BASELINES`)."""
    return _mse(r, "main", "DAG") / min(_mse(r, "main", name) for name in FUTURE_BASELINES)


def no_future_vs_future_covariate_baselines(r) -> float:
    """Headline control: DAG with the future covariates withheld at inference (``infer_use_future=False``: TCM's
    own covariate forecast feeds the channel branch), over the same best future-covariate baseline."""
    return _mse(r, "main", "DAG_no_future") / min(_mse(r, "main", name) for name in FUTURE_BASELINES)


def future_baseline_details(r) -> dict:
    """Per future-covariate baseline: MSE(DAG) / MSE(baseline); and the control's ratio to each."""
    out = {f"DAG/{n}": _mse(r, "main", "DAG") / _mse(r, "main", n) for n in FUTURE_BASELINES}
    out.update({f"DAG_no_future/{n}": _mse(r, "main", "DAG_no_future") / _mse(r, "main", n)
                for n in FUTURE_BASELINES})
    return out


def vs_ridge(r) -> float:
    """MSE of DAG over the closed-form ridge on the target history and past and future covariates."""
    return _mse(r, "main", "DAG") / _mse(r, "main", "Ridge")


def ablation_order(r) -> float:
    """MSE(no CCM) / MSE(no TCM) on contemporaneous data."""
    return _mse(r, "ablation", "no_c") / _mse(r, "ablation", "no_t")


def _ablation(name):
    def ratio(r) -> float:
        return _mse(r, "ablation", "full") / _mse(r, "ablation", name)
    ratio.__doc__ = f"MSE(full DAG) / MSE(DAG ablation {name!r}), same protocol and chosen values."
    return ratio


WHY_BASE = ("standard, seeds 0/1/2: MSE(DAG) / best of TiDE, NBEATSx, TFT = 3.43 / 2.19 / 2.16 (needs <= 1). Every "
            "model was tuned on the same grid on development seeds (experiment.HPARAMS). On this generator the price "
            "is a pointwise convex function of each hour's covariates: TFT's and TiDE's decoders see each hour's "
            "covariates at that hour, while DAG's CCM turns each covariate's whole 24-hour future into one variate "
            "token (iTransformer style) and must rebuild the hourly nonlinearity from two tokens (our reading, not "
            "measured further)")
WHY_RIDGE = ("standard, seeds 0/1/2: MSE(DAG) / MSE(ridge) = 1.53 / 1.18 / 1.11 (needs <= 1). The ridge sees each "
             "hour's covariates and their squares, close to the generator's convex price rule")
WHY_T = ("standard, seeds 0/1/2: MSE(DAG) / MSE(DAG without TCM) = 1.017 / 0.813 / 1.029: removing the temporal "
         "module helps slightly on seeds 0 and 2 and hurts on seed 1; with alpha = 0.05 (chosen on development seeds) "
         "TCM's forecast has 5% of the blend, and the seed-to-seed spread of the ratio is larger than any consistent "
         "effect")
WHY_C = ("standard, seeds 0/1/2: MSE(DAG) / MSE(DAG without the CCM injection) = 1.018 / 0.870 / 0.990: the "
         "injection helps on seeds 1 and 2 and hurts by 1.8% on seed 0, a spread of the same size as the effect")
SRC = "abstract; §1 (motivation: future covariates); experiments on 12 TSF-X sets"
ABL = "§5 ablation study (tables not read): both modules and their injections help"
STD = {"standard": 1.0, "full": 1.0}
CLAIMS = [
    Claim("vs_future_covariate_baselines", "DAG is at least as good as the best baseline that gets the same future "
          "covariates (TiDE, NBEATSx, TFT): MSE(DAG) <= the best of them (per-baseline ratios in the details)",
          vs_future_covariate_baselines, "<=", STD, kind="paper", headline=True,
          quote="to better leverage exogenous variables, especially future exogenous variables, we propose DAG",
          control=Control("DAG_future_withheld", "the same test for DAG with the future covariates withheld at "
                          "inference (the same trained model, infer_use_future=False: its channel branch gets TCM's "
                          "forecast of the covariates instead)", no_future_vs_future_covariate_baselines),
          details=future_baseline_details,
          paper_value="state of the art on most TSF-X settings (vs TiDE, TFT, ...)",
          source="main result tables (README result1/result2)", why={"standard": WHY_BASE}),
    Claim("vs_ridge_reference", "DAG beats a closed-form ridge regression on the same inputs (target history, past "
          "and future covariates and their squares; our reference, not the paper's): MSE(DAG) <= MSE(ridge)", vs_ridge,
          "<=", STD, kind="extension",
          paper_value="DAG beats the linear forecasters (DLinear, CrossLinear)",
          source="main result tables; the ridge is our reference (issue 28)", why={"standard": WHY_RIDGE}),
    Claim("temporal_module", "removing the temporal correlation module raises the MSE: MSE(DAG) <= MSE(DAG without "
          "TCM)", _ablation("no_t"), "<=", STD, kind="paper", paper_value="both modules help (ablation)",
          source=ABL, why={"standard": WHY_T}),
    Claim("temporal_injection", "the temporal attention injection lowers the MSE: MSE(DAG) <= MSE(DAG without the "
          "TCM injection)", _ablation("no_t_inj"), "<=", STD, kind="paper",
          paper_value="the injections help (ablation)", source=ABL,
          why={"standard": "DAG over DAG without the TCM injection is 0.987 / 0.879 / 0.987 on seeds 0-2: below 1 on "
                           "every seed, but on seeds 0 and 2 by 1.3 %, inside the ablation's noise margin (SD 0.12 "
                           "over development seeds 100-102: 0.94 / 1.16 / 0.96); the injection's gain here is small "
                           "next to the seed-to-seed spread of one trained model against another"}),
    Claim("channel_injection", "the channel attention injection lowers the MSE: MSE(DAG) <= MSE(DAG without the "
          "CCM injection; its future-covariate branch kept)", _ablation("no_c_inj"), "<=", STD, kind="paper",
          paper_value="the injections help (ablation)", source=ABL, why={"standard": WHY_C}),
    Claim("temporal_discovery", "TCM's covariate forecast MAE <= 0.8x the seasonal-naive covariate forecast "
          "(sigma_shock=0.3)", discovery_ratio, "<=", {"standard": 0.8, "full": 0.8}, kind="paper",
          paper_value="TCM learns covariate dynamics (L_t)", source="method §TCM"),
    # ---- checks of the testbed: any model given the future covariates passes them
    Claim("future_vs_no_future", "testbed check: with unpredictable covariate shocks, the true future covariates "
          "cut DAG's MSE to <= 0.6x of DAG that must predict them (infer_use_future=False)", future_vs_no_future,
          "<=", {"standard": 0.6, "full": 0.6}, kind="check", source=SRC),
    Claim("future_vs_timexer", "testbed check: DAG (future covariates) has <= 0.6x the MSE of the "
          "historical-covariate-only TimeXer-lite at sigma_shock=1", future_vs_timexer, "<=",
          {"standard": 0.6, "full": 0.6}, kind="check", source=SRC),
    Claim("vs_endogenous_only", "testbed check: DAG (future covariates) has >= 30% lower MSE than the better "
          "endogenous-only model (PatchTST, DLinear)", vs_endogenous, "<=", {"standard": 0.7, "full": 0.7},
          kind="check", source=SRC),
    Claim("ablation_c_over_t", "testbed check: removing CCM (DAG's only future-covariate branch) hurts more than "
          "removing TCM: MSE(no-C) >= 1.3x MSE(no-T)", ablation_order, ">=", {"quick": 1.3, "full": 1.3},
          kind="check", source="ablation study"),
    Claim("no_harm_irrelevant", "guard (ours, not in the paper): with covariates independent of the target "
          "(kappa=0), DAG's MSE <= 1.25x at quick (1.10x at standard and full) the better endogenous-only model",
          irrelevant_ratio, "<=",
          {"quick": 1.25, "standard": 1.10, "full": 1.10}, kind="check",
          source="docs/papers/dag_tsfx.md §5 (our guard claim; not in the paper)"),
]
