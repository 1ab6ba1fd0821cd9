"""Claims of Creat3r. The paper's tables, budgets and seed sizes were not available (docs/papers/creat3r_nbv.md),
so every claim is relative (Creat3r against a baseline on the same instances) and ``paper_value`` quotes only what
the abstract and the public reviews state. Each margin is the mean over the run's instances of a paired
per-instance difference; the experiment also reports its 95% interval."""

from __future__ import annotations

from icml26.claims import TIMED_RERUN_RTOL, Claim, Control, Premise

NO_TABLE = "no number available (tables not accessible); qualitative claim"
SRC = "abstract (ICML 2026) and public OpenReview reviews; docs/papers/creat3r_nbv.md"


def _m(key):
    def metric(r):
        return r["summary"]["margins"][key]["mean"]
    metric.__name__ = key
    return metric


def farthest_ssim_vs_random(r):
    """The control of C2b: the farthest-view selector (prior art, no confidence field) in Creat3r's place: its mean
    held-out SSIM minus random's over the same instances."""
    s = r["summary"]["ssim"]
    return s["farthest"] - s["random"]


# The verbatim ICML abstract was not available; this is the abstract's claim as the public reviews and digests
# state it (docs/papers/creat3r_nbv.md, "Sources").
QUOTE_QUALITY = "higher SSIM and F1 than the baselines with fewer views"


def random_coverage(r):
    return r["summary"]["coverage_at_B"]["random"]


def fit_drift(r):
    """Largest |held-out PSNR at the end - at half the iterations| over the fitted selectors (dB)."""
    return max(abs(v) for v in r["summary"]["fit_second_half_gain"].values())


def selection_speedup(r):
    return r["summary"]["timing"]["ratio"]


def alpha_balance(r):
    return r["summary"]["alpha_balanced_win_frac"]


UNSATURATED = Premise("coverage_unsaturated", "the budget leaves room: random's triangulable coverage after B views "
                      "is at most 0.9 (otherwise every selector sees almost everything)", random_coverage, "<=", 0.9)
CONVERGED = Premise("fits_converged", "the 3DGS fits converged: held-out PSNR moves by at most 0.3 dB over the "
                    "second half of the iterations, for every fitted selector", fit_drift, "<=", 0.3)

COVERAGE_WHY = {
    "standard": (
        "Measured on development instance 10000 at standard (occluder scene, 48 candidates): coverage after B = 4 "
        "is Creat3r 0.805, creat3r_oracle 0.847, random 0.828, farthest 0.844, coverage heuristic 0.863 (ceiling "
        "1.0): not saturated, and the oracle matcher lifts Creat3r by +0.04 only, to random's level. At quick, over "
        "the evaluation seeds 0-4, Creat3r minus random was +0.031 / +0.026 / -0.018 / +0.033 / +0.042 (random "
        "at 0.70-0.77): a small gain, a third of the +0.08 the claim asks. The reconstructed score (the paper's "
        "Eq. (7) was not available) holds only points matched in two views, so a region seen by one selected "
        "view scores as unseen as a region seen by none, and the rule cannot prefer the second view that would "
        "make it triangulable. The matcher is not the cause: on development seeds 100-102 at quick Creat3r with "
        "the depth oracle as matcher gained only +0.01-0.02 over random."),
}
QUALITY_WHY = {"standard": (
    "Every seed's values: Creat3r minus random held-out PSNR -1.11 / +0.74 / +0.24 dB, SSIM -0.06 / +0.05 / +0.04, "
    "F1 -0.05 / +0.04 / +0.06 on seeds 0 / 1 / 2 (4 instances each). The fits' held-out PSNR still moved by 0.57 "
    "and 0.32 dB over the second half of the 400 steps on seeds 0 and 2 (the premise allows 0.3), so only seed 1 "
    "is evaluable; seed 0 is the seed on which Creat3r lost on every quality metric. What holds therefore rests on "
    "the 4 instances of one seed. The selection itself does not beat random on coverage (-0.038 / -0.014 / +0.041; "
    "see the coverage claim's why), so no measured mechanism carries the quality margins; Creat3r at B - 2 views "
    "stays below random at B on every seed (C4)."
)}

CLAIMS = [
    Claim("C1a_coverage_vs_random",
          "Creat3r's views cover the geometry better than random: triangulable coverage after B views is at "
          "least random's + 0.08",
          _m("coverage_vs_random"), ">=", {"standard": 0.08, "full": 0.08}, kind="paper",
          requires=UNSATURATED, why=COVERAGE_WHY, paper_value=NO_TABLE, source=SRC),
    Claim("C1b_coverage_vs_farthest",
          "Creat3r's triangulable coverage after B views is within 0.02 of the farthest-view baseline or better",
          _m("coverage_vs_farthest"), ">=", {"standard": -0.02, "full": -0.02}, kind="paper",
          requires=UNSATURATED, why={"standard": COVERAGE_WHY["standard"]}, paper_value=NO_TABLE, source=SRC),
    Claim("C2a_psnr_vs_random",
          "Better novel-view synthesis at equal budget: held-out PSNR of the final 3DGS >= random's + 0.7 dB",
          _m("psnr_vs_random"), ">=", {"standard": 0.7, "full": 0.7}, kind="paper", requires=CONVERGED,
          why=QUALITY_WHY, paper_value=NO_TABLE, source=SRC),
    Claim("C2b_ssim_vs_random",
          "Better novel-view synthesis at equal budget: held-out SSIM >= random's + 0.02",
          _m("ssim_vs_random"), ">=", {"standard": 0.02, "full": 0.02}, kind="paper", requires=CONVERGED,
          why=QUALITY_WHY, paper_value="higher SSIM than the baselines (abstract; no number available)", source=SRC,
          headline=True, quote=QUOTE_QUALITY,
          control=Control("farthest_ssim_vs_random", "prior art in Creat3r's place: the farthest-view selector (no "
                          "confidence field, no matcher), same seed views, budget, 3DGS recipe and instances: its "
                          "held-out SSIM minus random's", farthest_ssim_vs_random)),
    Claim("C2c_psnr_vs_farthest",
          "Held-out PSNR >= the farthest-view baseline's + 0.3 dB",
          _m("psnr_vs_farthest"), ">=", {"standard": 0.3, "full": 0.3}, kind="paper", requires=CONVERGED,
          why=QUALITY_WHY, paper_value=NO_TABLE, source=SRC),
    Claim("C3_f1_vs_random",
          "Better surface reconstruction: F1 at tau = 2% of the region's diagonal >= random's + 0.05",
          _m("f1_vs_random"), ">=", {"standard": 0.05, "full": 0.05}, kind="paper", requires=CONVERGED,
          why=QUALITY_WHY, paper_value="higher F1 than the baselines (abstract; no number available)", source=SRC),
    Claim("C4_fewer_views",
          "Fewer views for the same quality: Creat3r with B - 2 added views reaches random's held-out PSNR with B "
          "added views (measured: PSNR of Creat3r at B - 2 minus random's at B, dB)",
          _m("prefix_psnr_vs_random"), ">=", {"standard": 0.0, "full": 0.0}, kind="paper", requires=CONVERGED,
          why=QUALITY_WHY, paper_value="'with fewer views' (abstract; no number available)", source=SRC),
    Claim("C5_selection_speedup",
          "Selection is much cheaper than optimisation-coupled selection: one round of the Fisher-diagonal "
          "selector (3DGS fit with the shared recipe + Fisher) takes more than 2x the time of a Creat3r round "
          "(the paper's 'more than 2x faster'), both timed on the same state after the same warm-up round",
          selection_speedup, ">=", {"quick": 2.0, "standard": 2.0, "full": 2.0}, kind="paper",
          paper_value="more than 2x faster than optimisation-coupled baselines (reviews)",
          source="public OpenReview reviews", rerun_rtol=TIMED_RERUN_RTOL),
    Claim("C6_balance",
          "Balance matters: S_alpha with alpha = 0.5 reaches a PSNR >= both extremes (alpha = 0, 1) in >= 2/3 "
          "of the instances",
          alpha_balance, ">=", {"full": 0.67}, kind="extension", requires=CONVERGED, paper_value=NO_TABLE,
          source="abstract ('balances exploitation of reliable regions against exploration'); an ablation we infer"),
]
