"""Claims of AIR at toy scale (docs/papers/air_reasoning.md); metrics read the dict of :func:`experiment.run`.

The paper's claims (abstract; method and experiments sections): retrieval heads matter, AIS isolates the critical
steps and samples, and AIS-selected (and step-weighted) data distils better than the length, entropy and loss
heuristics. Every AIS claim presupposes retrieval heads (:data:`HEADS`); every selection claim is measured on
held-out longer chains, on two pools: ``contrast`` (built so that the heuristics are fooled) and ``natural``
(no kind of trace built for any score).
"""

from __future__ import annotations

from icml26.claims import Claim, Premise

from .baselines import HEURISTICS

DOC = "docs/papers/air_reasoning.md"


def drop_top(r):
    return r["drop_top"]


def drop_ratio(r):
    return r["drop_top"] / max(r["drop_random"], 1e-3)


HEADS = Premise("retrieval_heads_exist", "retrieval heads exist: masking the top heads lowers copy-probe accuracy "
                "by >= 0.3", drop_top, ">=", 0.3)


def _pool(r, pool):
    return r["pools"][pool]


def lookup_filler_ratio(pool):
    def metric(r):
        s = _pool(r, pool)["step_stats"]
        return s["lookup"]["ais"] / max(s["filler"]["ais"], 1e-3)

    metric.__name__ = f"lookup_filler_ratio_{pool}"
    return metric


def auroc(pool):
    def metric(r):
        return _pool(r, pool)["auroc_lookup"]

    metric.__name__ = f"auroc_{pool}"
    return metric


def picks(selector, trait, pool="contrast"):
    def metric(r):
        return _pool(r, pool)["picks"][selector][trait]

    metric.__name__ = f"picks_{selector}_{trait}_{pool}"
    return metric


def air_bad(r):
    p = _pool(r, "contrast")["picks"]["air"]
    return p["padded"] + p["noisy"]


def _correct(r, pool, name, key="students"):
    """Held-out questions solved (an integer) and asked."""
    out = r[key][pool][name]
    return out["correct"], out["n"]


def gap(pool, a, b, key="students"):
    """Accuracy difference of two students from integer counts (one rounding: 43/100 - 38/100 reads 0.05)."""

    def metric(r):
        (ca, n), (cb, _) = _correct(r, pool, a, key), _correct(r, pool, b, key)
        return (ca - cb) / n

    metric.__name__ = f"gap_{pool}_{a}_{b}"
    return metric


def best_heuristic(r, pool) -> str:
    return max(HEURISTICS, key=lambda k: _correct(r, pool, k)[0])


def gap_best(pool):
    def metric(r):
        return gap(pool, "air", best_heuristic(r, pool))(r)

    metric.__name__ = f"gap_best_{pool}"
    return metric


WHY_SPREAD = ("copying is spread over three heads of layer 1 (R_h 0.60, 0.25, 0.23 on dev seed 101), and the random "
              "heads are drawn from the top heads' layer first: masking two of them usually removes one of the other "
              "copiers, which costs 0.25 probe accuracy against 0.39 for the top two (ratio 1.53 / 1.43 on dev seeds "
              "100 / 101)")
WHY_STEPS = ("the shipped scoring model does not do the traces' lookups by retrieval: it copies the binding tokens of "
             "trace lookups with accuracy 0.44 (0.89 on copy probes), and masking its top heads lowers that only to "
             "0.36; so masking raises the loss of lookup steps by 8% (1.42 -> 1.53 nats) and that of filler steps as "
             "much (2.10 -> 2.27; dev seed 101). Step AIS cannot single out lookups that the model does not solve by "
             "copying: a weakness of our scoring model (not fixed in this round), not a measurement of the paper's")
WHY_NATURAL = {"standard": (
    "on the natural pool AIS's top 20% is hardly cleaner than the pool (flawless 0.67 vs 0.65, slipped 0.16 vs 0.15, "
    "skipped computation 0.17 vs 0.20, dev seed 100): with a scoring model whose lookups are not done by retrieval "
    "(see step_ais_auroc) AIS mainly drops verbose traces (0.23 restating lines per trace vs 1.32) and keeps shorter "
    "chains (2.09 hops vs 2.49), while length keeps the longest (3.82 hops), nearer the held-out 5-6 hops. And the "
    "students are at the floor after 120 SFT steps: on dev seed 100 the natural-pool AIS student wrote no answer on "
    "any of 100 held-out problems (it loops to the context limit), the random student solved 9 and the entropy "
    "student 15; longer SFT was not measured in this round")}
PAPER_SELECT = "surpasses the length, entropy and loss heuristics (abstract; experiments section, Table of sample " \
               "selection); AIME24 66.67 / AIME25 53.33 for AIR, the baselines' numbers not available to us"
CLAIMS = [
    Claim("mask_top_heads_drop", "uniformly masking the top heads by retrieval score R_h lowers copy-probe accuracy "
          "by >= 0.30 absolute", drop_top, ">=", {"standard": 0.30, "full": 0.30}, kind="paper",
          paper_value="retrieval heads are critical (qualitative)", source=f"paper, method section (retrieval "
          f"heads); {DOC}"),
    Claim("mask_top_vs_random", "the drop from masking the top heads is >= 2x the drop from masking as many random "
          "non-top heads (same layers first, 5 draws)", drop_ratio, ">=", {"quick": 2.0, "standard": 2.0,
                                                                           "full": 2.0},
          kind="paper", requires=HEADS, why=WHY_SPREAD, paper_value="qualitative",
          source=f"paper, method section; {DOC}"),
    Claim("step_ais_lookup_vs_filler", "on clean traces of the contrast pool, mean step AIS of lookup steps >= 3x "
          "that of filler steps", lookup_filler_ratio("contrast"), ">=", {"quick": 3.0, "standard": 3.0, "full": 3.0},
          kind="paper", requires=HEADS, why=WHY_STEPS, paper_value="AIS isolates the most critical steps (abstract)",
          source=f"abstract; {DOC}"),
    Claim("step_ais_auroc", "on clean traces of the contrast pool, AUROC of step AIS for 'lookup, not filler' >= 0.85",
          auroc("contrast"), ">=", {"quick": 0.85, "standard": 0.85, "full": 0.85}, kind="paper", requires=HEADS,
          why=WHY_STEPS, paper_value="qualitative", source=f"abstract; {DOC}"),
    Claim("step_ais_lookup_vs_filler_natural", "on the natural pool (filler lines restate a sum or a variable: a "
          "local copy), mean step AIS of lookup steps >= 3x that of filler steps", lookup_filler_ratio("natural"),
          ">=", {"quick": 3.0, "standard": 3.0, "full": 3.0}, kind="paper", requires=HEADS,
          paper_value="AIS isolates the most critical steps (abstract)", source=f"abstract; {DOC}"),
    Claim("step_ais_auroc_natural", "on the natural pool, AUROC of step AIS for 'lookup, not filler' >= 0.85",
          auroc("natural"), ">=", {"quick": 0.85, "standard": 0.85, "full": 0.85}, kind="paper", requires=HEADS,
          why=WHY_STEPS, paper_value="qualitative", source=f"abstract; {DOC}"),
    Claim("air_avoids_bad", "top-20% of the contrast pool by sample AIS holds <= 15% padded + noisy traces", air_bad,
          "<=", {"quick": 0.15, "standard": 0.15, "full": 0.15}, kind="paper", requires=HEADS,
          paper_value="AIS isolates the most critical samples (abstract)", source=f"abstract; {DOC}"),
    Claim("contrast_fools_length", "the contrast pool is built to fool length: its top-20% by length is >= 50% "
          "padded traces", picks("length", "padded"), ">=", {"quick": 0.5, "standard": 0.5, "full": 0.5},
          kind="check", source=f"{DOC} (the pools)"),
    Claim("contrast_fools_loss", "the contrast pool is built to fool loss: its top-20% by scoring-model loss is >= 50% "
          "noisy traces", picks("loss", "noisy"), ">=", {"quick": 0.5, "standard": 0.5, "full": 0.5},
          kind="check", source=f"{DOC} (the pools)"),
]
for _pool_name in ("contrast", "natural"):
    CLAIMS += [
        Claim(f"selection_vs_random_{_pool_name}", f"a student SFT'd on the AIS top-K of the {_pool_name} pool solves "
              ">= 5 points more held-out longer-chain problems (greedy decoding to the context limit) than one "
              "SFT'd on a random K", gap(_pool_name, "air", "random"), ">=", {"standard": 0.05, "full": 0.05},
              kind="paper", requires=HEADS, paper_value=PAPER_SELECT, source=f"abstract; experiments; {DOC}",
              why=WHY_NATURAL if _pool_name == "natural" else None),
        Claim(f"selection_vs_best_heuristic_{_pool_name}", f"the AIS top-K student of the {_pool_name} pool solves >= "
              "3 points more held-out problems than the best of the length / entropy / loss students",
              gap_best(_pool_name), ">=", {"standard": 0.03, "full": 0.03}, kind="paper", requires=HEADS,
              paper_value=PAPER_SELECT, source=f"abstract; experiments; {DOC}",
              why=WHY_NATURAL if _pool_name == "natural" else None),
        Claim(f"weighting_vs_uniform_{_pool_name}", f"AIS step-weighted SFT on the whole {_pool_name} pool solves >= 2 "
              "points more held-out problems than uniform SFT", gap(_pool_name, "weighted", "uniform", "weighting"),
              ">=", {"full": 0.02}, kind="paper", requires=HEADS,
              paper_value="step-level weighted fine-tuning improves accuracy (abstract)",
              source=f"abstract; experiments; {DOC}"),
    ]
