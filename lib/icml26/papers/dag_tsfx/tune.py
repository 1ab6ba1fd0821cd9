"""Development-seed tuning of every model on one grid (issue 28; docs/papers/dag_tsfx.md §3.5).

Each model of the main comparison is trained under the shared protocol of a scale (:func:`experiment.fit`) for every
point of :data:`experiment.TUNE_GRID` (``lr`` for all models, ``alpha`` too for DAG) on the main data of development
seeds (100 and up), and scored by its *validation* MSE; the point with the lowest mean over the seeds is chosen.
Evaluation seeds 0-4 are refused. ``python -m icml26.papers.dag_tsfx.tune --scale standard --seeds 100,101``.
"""

from __future__ import annotations

import argparse
import itertools
import json

import torch

from icml26 import checks
from icml26.papers.dag_tsfx import experiment

DEV_SEED_MIN = 100


def grid_points(name: str, grid: dict | None = None) -> list[dict]:
    """The grid points of model ``name``: every ``lr``, crossed with every ``alpha`` for DAG only."""
    grid = experiment.TUNE_GRID if grid is None else grid
    checks.config("grid", grid, required=("lr",))
    keys = ["lr"] + (["alpha"] if name == "DAG" and "alpha" in grid else [])
    return [dict(zip(keys, vals)) for vals in itertools.product(*(grid[k] for k in keys))]


def tune(config: dict, seeds, models=None, grid: dict | None = None, device="cpu") -> dict:
    """Validation MSE of each model at each grid point on each development seed, and the chosen point.

    Returns ``{model: {"points": [{"hp": ..., "val_mse": [per seed], "mean": ...}], "best": hp}}``.
    """
    experiment._check_config(config)
    if not isinstance(seeds, (list, tuple)) or not seeds:
        raise ValueError(f"seeds must be a non-empty list of development seeds (>= {DEV_SEED_MIN}); got {seeds!r}")
    for s in seeds:
        if checks.seed("seeds", s) < DEV_SEED_MIN:
            raise ValueError(f"seeds must be development seeds >= {DEV_SEED_MIN} (0-4 are evaluation seeds); got {s}")
    models = ["DAG", *config["baselines"]] if models is None else list(models)
    for name in models:
        checks.one_of("models", name, ["DAG", *config["baselines"]])
    checks.device("device", device)
    out = {name: {"points": []} for name in models}
    scen = {s: experiment.scenario(config, torch.device(device), s, sigma_shock=1.0, kappa=1.0) for s in seeds}
    for name in models:
        for hp in grid_points(name, grid):
            vals = []
            for s in seeds:
                wins = scen[s]["wins"]
                m, _ = experiment._train(name, wins, config, torch.device(device), s, hp=hp)
                vals.append(experiment._metrics(experiment.predict(m, wins["val"])["pred"], wins["val"]["y"])["mse"])
            out[name]["points"].append({"hp": hp, "val_mse": vals, "mean": sum(vals) / len(vals)})
            print(name, hp, " ".join(f"{v:.4f}" for v in vals), flush=True)
        out[name]["best"] = min(out[name]["points"], key=lambda p: p["mean"])["hp"]
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", default="standard", choices=sorted(experiment.CONFIGS))
    ap.add_argument("--seeds", default="100,101")
    ap.add_argument("--models", default=None, help="comma-separated; default DAG and the scale's baselines")
    ap.add_argument("--out", default=None, help="write the table as JSON here")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    res = tune(experiment.CONFIGS[a.scale], [int(s) for s in a.seeds.split(",")],
               a.models.split(",") if a.models else None)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    for name, r in res.items():
        print(name, "best", r["best"])
    return res


if __name__ == "__main__":
    main()
