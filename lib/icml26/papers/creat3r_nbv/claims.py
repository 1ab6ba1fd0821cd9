"""Claims of Creat3r (note §6). The paper's tables, budgets and seed sizes were not available, so every claim is
relative (method vs baselines) and ``paper_value`` quotes only what the abstract and the public reviews state."""

from __future__ import annotations

from icml26.claims import Claim

NO_TABLE = "no number available (tables not accessible); qualitative claim"
SRC_ABS = "abstract (ICML 2026) and OpenReview reviews; note §5-6"


def _s(r):
    return r["summary"]


def coverage_vs_random(r):
    return _s(r)["coverage_at_B"]["creat3r"] - _s(r)["coverage_at_B"]["random"]


def coverage_vs_farthest(r):
    return _s(r)["coverage_at_B"]["creat3r"] - _s(r)["coverage_at_B"]["farthest"]


def psnr_vs_random(r):
    return _s(r)["psnr"]["creat3r"] - _s(r)["psnr"]["random"]


def ssim_vs_random(r):
    return _s(r)["ssim"]["creat3r"] - _s(r)["ssim"]["random"]


def psnr_vs_farthest(r):
    return _s(r)["psnr"]["creat3r"] - _s(r)["psnr"]["farthest"]


def f1_vs_random(r):
    return _s(r)["f1"]["creat3r"] - _s(r)["f1"]["random"]


def views_saved(r):
    return _s(r)["views_saved"]


def selection_speedup(r):
    return _s(r)["timing"]["ratio"]


def alpha_balance(r):
    return _s(r)["alpha_balanced_win_frac"]


def no_leaks(r):
    return -float(_s(r)["leaks"])


QUICK_C1_MISS = (
    "At quick scale (2 scenes x 2 repeats, 32 candidates, B = 6) a random choice of 6 out of 30 views already "
    "sees almost as much of these small scenes from >= 2 views as Creat3r: measured creat3r - random = +0.0004, "
    "+0.069, +0.006 for seeds 0, 1, 2 (coverage 0.92-0.93 for both). Creat3r matches the farthest-view baseline "
    "(C1b passes), but the +0.08 margin over random does not reproduce on these toy scenes."
)

STD = ("At standard scale (4 scenes x 2 repeats, 64 candidates, B = 10, 48x48 images, 120-iteration 3DGS fits) "
       "measured for seeds 0 / 1: ")
STD_WHY = (" Creat3r (as reconstructed; the paper's Eq. (7) is unknown) behaves like a farthest-view rule with an "
           "overlap gate on these small analytic scenes, where 10 views of 62 cover almost everything whatever the "
           "rule; differences in PSNR below ~0.3 dB are within the 3DGS fit noise (note §10).")

CLAIMS = [
    Claim("C1a_coverage_vs_random",
          "Creat3r's views cover the geometry better than random: triangulable coverage after B views is at "
          "least random's + 0.08",
          coverage_vs_random, ">=", {"quick": 0.08, "standard": 0.08, "full": 0.08}, kind="paper",
          paper_value=NO_TABLE, source=SRC_ABS,
          why={"quick": QUICK_C1_MISS,
                         "standard": STD + "creat3r - random coverage = +0.016 / +0.003 (0.982 vs 0.966, 0.986 vs "
                                           "0.983): all selectors reach 0.97-0.99." + STD_WHY}),
    Claim("C1b_coverage_vs_farthest",
          "Creat3r's triangulable coverage after B views is within 0.02 of the farthest-view baseline or better",
          coverage_vs_farthest, ">=", {"quick": -0.02, "standard": -0.02, "full": -0.02}, kind="paper",
          paper_value=NO_TABLE, source=SRC_ABS),
    Claim("C2a_psnr_vs_random",
          "Better novel-view synthesis at equal budget: held-out PSNR of the final 3DGS >= random's + 0.7 dB",
          psnr_vs_random, ">=", {"standard": 0.7, "full": 0.7}, kind="paper", paper_value=NO_TABLE, source=SRC_ABS,
          why={"standard": STD + "PSNR creat3r - random = +0.44 / -0.28 dB (25.31 vs 24.87, 24.34 vs "
                                           "24.62)." + STD_WHY}),
    Claim("C2b_ssim_vs_random",
          "Better novel-view synthesis at equal budget: held-out SSIM >= random's + 0.02",
          ssim_vs_random, ">=", {"standard": 0.02, "full": 0.02}, kind="paper",
          paper_value="higher SSIM than the baselines (abstract; no number available)", source=SRC_ABS,
          why={"standard": STD + "SSIM creat3r - random = +0.007 / -0.005." + STD_WHY}),
    Claim("C2c_psnr_vs_farthest",
          "Held-out PSNR >= the farthest-view baseline's + 0.3 dB",
          psnr_vs_farthest, ">=", {"standard": 0.3, "full": 0.3}, kind="paper", paper_value=NO_TABLE, source=SRC_ABS,
          why={"standard": STD + "PSNR creat3r - farthest = -0.11 / -0.73 dB: the farthest-view baseline "
                                           "is better here." + STD_WHY}),
    Claim("C3_f1_vs_random",
          "Better surface reconstruction: F1 at tau = 2% of the region's diagonal >= random's + 0.05",
          f1_vs_random, ">=", {"standard": 0.05, "full": 0.05}, kind="paper",
          paper_value="higher F1 than the baselines (abstract; no number available)", source=SRC_ABS,
          why={"standard": STD + "F1 creat3r - random = +0.009 / +0.016 (0.861 vs 0.852, 0.847 vs "
                                           "0.831): better, but by less than 0.05." + STD_WHY}),
    Claim("C4_fewer_views",
          "Fewer views for the same quality: Creat3r reaches random's PSNR at B with at most B - 2 views "
          "(measured: B minus the smallest such b). Not checked at standard, where it is not resolvable: measured "
          "+2 for seed 0 (Creat3r at B - 2 beats random at B by 0.12 dB) and -1 for seed 1 (Creat3r at B is 0.28 dB "
          "below random at B), both within the 3DGS fit noise",
          views_saved, ">=", {"full": 2}, kind="paper",
          paper_value="'with fewer views' (abstract; no number available)", source=SRC_ABS),
    Claim("C5_selection_speedup",
          "Selection is much cheaper than optimisation-coupled selection: one Fisher-diagonal round (3DGS fit + "
          "Fisher) takes >= 10x (quick/standard; note: >= 5x, >= 3x in CI) the time of a Creat3r round",
          selection_speedup, ">=", {"quick": 10.0, "standard": 10.0, "full": 5.0}, kind="paper",
          paper_value="more than 2x faster than optimisation-coupled baselines (reviews)", source="OpenReview reviews"),
    Claim("C6_balance",
          "Balance matters: S_alpha with alpha = 0.5 reaches a PSNR >= both extremes (alpha = 0, 1) in >= 2/3 "
          "of the scenes",
          alpha_balance, ">=", {"full": 0.67},
    kind="paper", paper_value=NO_TABLE, source="note §6 (inferred ablation)"),
    Claim("no_information_leak",
          "No selector read the image or depth of a view before selecting it (the note's §10 access hook; "
          "measured: minus the number of such reads)",
          no_leaks, ">=", {"quick": 0.0, "standard": 0.0, "full": 0.0}, kind="check",
          paper_value="the paper argues against leakage through SfM on all candidates", source="reviews; note §10"),
]
