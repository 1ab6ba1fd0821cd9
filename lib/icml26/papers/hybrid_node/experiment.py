"""The experiments behind ``claims.py`` at three scales; ``run(config, device, seed)`` returns plain numbers.

Sections of the results dict:

- ``analytic``: continuity of the analytic Φ of every system on sampled trajectories, exact (C-1)/(C-2)
  gaps on guard pairs, the paper's 1D two-speed example (§3) and the Betti numbers of Φ's image (these
  validate the generator and the topology pipeline; no training).
- ``detection``: the speed-threshold detector against the simulator's resets, on every system.
- one section per learned system (``config["systems"]``): CHyLL++ and, trained in the same ensemble from the
  same initialisation and windows, the Latent ODE baseline and the configured loss ablations (``no_latent``:
  w_z = 0, ``no_glue``: w_g = 0, ``no_velocity``: w_v = 0, ``no_cov``: w_c = 0, and ``oracle``: the
  simulator's reset pairs instead of the detected ones, trained only where detection is imperfect); then the
  separately trained baselines (``chyll``, ``node``, ``event``). Each model reports rollout errors; the
  CHyLL++ ensemble members also report latent jump / velocity-jump statistics and, where configured, the
  Betti numbers of the encoder's image; ``example`` holds the first coordinate of one test rollout.
- ``dimension`` (full): rollout error against the latent dimension m on the Möbius band, torus and Klein
  bottle.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from icml26 import checks, progress
from icml26.papers.hybrid_node import baselines, jumps, method, simulators, topology

_COMMON = {"width": 64, "depth": 2, "lr": 3e-3, "batch": 64, "stages": (4, 10, 20), "jump_factor": 5.0,
           "train_steps": 60, "horizon": 40, "n_train": 128, "n_test": 64, "event_seeds": 3,
           "topology_grid": 24, "landmarks": 200, "dimension": {}}

CONFIGS = {
    # quick: the sawtooth only, CHyLL++ and the Latent ODE as one two-member ensemble (about 22 s of CPU a seed on
    # one thread, docs/papers/hybrid_node.md; 95-130 s wall a seed on the shared 2-core machine, results/quick.jsonl)
    "quick": {**_COMMON, "n_test": 32, "iters": {"sawtooth": 600},
              "systems": {"sawtooth": {"ablations": (), "baselines": ()}}, "topology": False},
    # standard: every buildable system of the paper plus the sawtooth; see the docs page for the budget
    "standard": {**_COMMON, "iters": {"sawtooth": 1500, "ball": 1000, "torus": 1000, "klein": 1000,
                                      "ball3d": 1500},
                 "systems": {"sawtooth": {"ablations": ("no_glue", "no_velocity"), "baselines": ("node", "chyll")},
                             "ball": {"ablations": (), "baselines": ("node", "chyll", "event")},
                             "torus": {"ablations": ("no_latent",), "baselines": ("chyll",)},
                             "klein": {"ablations": (), "baselines": ("chyll",)},
                             "ball3d": {"ablations": (), "baselines": ("chyll",)}},
                 "topology": True},
    "full": {**_COMMON, "width": 128, "n_train": 4096, "n_test": 512, "batch": 256, "stages": (4, 10, 20, 40),
             "train_steps": 120, "event_seeds": 5, "landmarks": 300,
             "iters": {s: 800 for s in ("sawtooth", "ball", "torus", "klein", "ball3d", "mobius")},
             "systems": {"sawtooth": {"ablations": ("no_glue", "no_velocity"), "baselines": ("node", "chyll")},
                         "ball": {"ablations": ("no_latent", "no_velocity"),
                                  "baselines": ("node", "chyll", "event")},
                         "torus": {"ablations": ("no_latent", "no_velocity", "no_cov"), "baselines": ("chyll", "node")},
                         "klein": {"ablations": ("no_latent",), "baselines": ("chyll", "node")},
                         "ball3d": {"ablations": ("no_cov", "no_latent"), "baselines": ("chyll", "node")}},
             "topology": True, "dimension": {"mobius": (2, 5), "torus": (3, 5), "klein": (3, 4)}},
}
"""Scales. ``full`` is sized for one H200 (at most 10 minutes; not run: no GPU was lent), from measured
per-iteration costs. A CHyLL++ training
iteration (forward, backward, Adam) of a 3-member ensemble at full sizes (width 128, batch 256, 3D ball) issues
429 + 171 L tensor ops for a window of L steps (counted with torch.profiler on CPU: 3 849 at L = 20, 7 269 at
L = 40); at these sizes the GPU is launch-bound, so at an assumed ~10 us per eager op an iteration costs
~36 ms over the curriculum's mean window (4, 10, 20, 40: L = 18.5, 3 590 ops), whatever the batch. Work: 5
systems x (one ensemble + the two-phase CHyLL-style model + a state NODE at ~0.4 of the cost) + the ball's
event-ODE ensemble + 6 latent-dimension models = 19 run-equivalents x 800 iterations x 36 ms = 547 s, plus
~50 s of ripser and the analytic checks on the CPU: ~10 minutes. (On one CPU thread the same iteration takes
0.32 s at L = 20 and 0.63 s at L = 40; at standard sizes, width 64, batch 64, 2 members, 0.043 s at L = 20.)"""

ABLATIONS = {"no_latent": {"z": 0.0}, "no_glue": {"g": 0.0}, "no_velocity": {"v": 0.0}, "no_cov": {"c": 0.0}}
_SEEDS = {"sawtooth": 1000, "ball": 4000, "torus": 6000, "klein": 10000, "ball3d": 12000, "mobius": 8000}
_TRAIN_KEYS = ("width", "depth", "lr", "batch", "stages")


def _check_config(config):
    checks.config("config", config, required=CONFIGS["quick"])
    for key in ("horizon", "n_train", "n_test", "train_steps", "event_seeds", "landmarks", "topology_grid"):
        if checks.positive_int(f"config[{key!r}]", config[key]) < 2:
            raise ValueError(f"config[{key!r}] must be >= 2; got {config[key]!r}")
    for system, spec in config["systems"].items():
        checks.one_of("config['systems']", system, simulators.SYSTEMS)
        checks.positive_int(f"config['iters'][{system!r}]", config["iters"].get(system))
        for a in spec["ablations"]:
            checks.one_of(f"config['systems'][{system!r}]['ablations']", a, tuple(ABLATIONS))
        for b in spec["baselines"]:
            checks.one_of(f"config['systems'][{system!r}]['baselines']", b, ("node", "chyll", "event"))


def near_reset_mask(resets: torch.Tensor) -> torch.Tensor:
    """(B, T) mask of samples within one Δt of a true reset (excluded from the 'clean' error)."""
    checks.tensor("resets", resets, ndim=2, dtype_kind="bool")
    near = torch.zeros(resets.shape[0], resets.shape[1] + 1, dtype=torch.bool, device=resets.device)
    near[:, 1:] |= resets
    near[:, :-1] |= resets
    return near


def rollout_errors(model, test: simulators.HybridData, horizon: int, coord: int | None = None) -> list[dict]:
    """Rollout errors of every member over ``horizon`` steps from the test initial states (original units,
    never wrapped), one dict per member.

    ``mse``: the paper's metric over all samples and coordinates; ``rel_l2``: ‖x̂ − x‖ / ‖x‖;
    ``mae_clean``: mean |error| of coordinate ``coord`` (all coordinates if None) excluding samples
    within one Δt of a true reset.
    """
    checks.instance("test", test, simulators.HybridData)
    horizon = checks.positive_int("horizon", horizon)
    if horizon >= test.x.shape[1]:
        raise ValueError(f"horizon must be below the test length {test.x.shape[1]}; got {horizon}")
    x = test.x[:, : horizon + 1]
    pred = method.predict(model, x[:, 0], horizon, test.dt)
    err = pred - x
    near = near_reset_mask(test.resets[:, :horizon])
    e = err if coord is None else err[..., coord: coord + 1]
    out = []
    for k in range(err.shape[0]):
        row = {"mse": (err[k] ** 2).mean().item(), "rel_l2": (err[k].norm() / x.norm()).item(),
               "mae_clean": e[k].abs()[~near].mean().item()}
        out.append({name: (v if np.isfinite(v) else float("inf")) for name, v in row.items()})
    return out


def analytic_checks(n_traj: int = 16, n_steps: int = 80, seed: int = 0, grid: int = 24, landmarks: int = 200,
                    betti: bool = True) -> dict:
    """Φ jump ratios, finite-difference velocity-jump excess, exact (C-1)/(C-2) gaps of every system; the
    paper's 1D example; with ``betti``, the Betti numbers of Φ's image (the topology pipeline's own test)."""
    grid, landmarks = checks.positive_int("grid", grid), checks.positive_int("landmarks", landmarks)
    out = {}
    for system in simulators.SYSTEMS:
        data = simulators.simulate(system, n_traj, n_steps, seed=seed, dtype=torch.float64)
        z = simulators.embed(system, data.x)
        out[system] = {"latent_jump_ratio": jumps.jump_ratio(z, data.resets),
                       "state_jump_ratio": jumps.jump_ratio(data.x, data.resets),
                       "fd_velocity": jumps.velocity_jump(z, data.resets, data.dt),
                       "exact_gap": simulators.c2_gap(system)}
        if betti and system in topology.EXPECTED:
            cloud = simulators.embed(system, simulators.domain_grid(system, grid, torch.float64))
            out[system]["betti"] = topology.betti_error(system, cloud, landmarks)
    out["naive_ball_gap"] = simulators.c2_gap("ball", simulators.naive_ball_embed)
    out["two_speed"] = simulators.two_speed_check()
    return out


def _latent_stats(model, test, k):
    z = method.encode(model, test.x)[k]
    return {"jump_ratio": jumps.jump_ratio(z, test.resets),
            "velocity": jumps.velocity_jump(z, test.resets, test.dt),
            "min_var": z.reshape(-1, z.shape[-1]).var(0).min().item(),
            "var_ratio": (lambda v: (v.min() / v.max()).item())(z.reshape(-1, z.shape[-1]).var(0))}


def _system(system, spec, config, device, seed):
    """CHyLL++ ensemble (method, Latent ODE, ablations, oracle) and the baselines on one system."""
    T, H, iters = config["train_steps"], config["horizon"], config["iters"][system]
    kw = {**{k: config[k] for k in _TRAIN_KEYS}, "iters": iters}
    base = _SEEDS[system]
    tr = simulators.simulate(system, config["n_train"], T, seed=base + seed, device=device)
    te = simulators.simulate(system, config["n_test"], H + 1, seed=base + 500 + seed, device=device)
    coord = 0 if system == "sawtooth" else None
    detected = jumps.detect_jumps(tr.x, tr.dt, config["jump_factor"])
    precision, recall = jumps.precision_recall(detected, tr.resets)
    names = ["chyllpp", "latent_ode", *spec["ablations"]]
    weights = [method.DEFAULT_WEIGHTS, method.LATENT_ODE] + [{**method.DEFAULT_WEIGHTS, **ABLATIONS[a]}
                                                            for a in spec["ablations"]]
    masks = [None] * len(names)
    perfect = bool(torch.equal(detected, tr.resets))
    if not perfect:  # with perfect detection the oracle member would be the method itself, step for step
        names.append("oracle")
        weights.append(method.DEFAULT_WEIGHTS)
        masks.append(tr.resets)
    out = {"state_jump_ratio": jumps.jump_ratio(te.x, te.resets),
           "train_detection": {"precision": precision, "recall": recall, "perfect": perfect}}
    model, info = method.train_chyllpp(tr.x, tr.dt, weights=weights, masks=masks, jump_factor=config["jump_factor"],
                                       seed=seed, **kw)
    errs = rollout_errors(model, te, H, coord)
    example = {"t": te.t[: H + 1].tolist(), "truth": te.x[0, : H + 1, 0].tolist()}
    pred = method.predict(model, te.x[:1, 0], H, te.dt)[:, 0, :, 0]
    example.update({name: pred[k].tolist() for k, name in enumerate(names[:2])})
    for k, name in enumerate(names):
        out[name] = {**errs[k], **_latent_stats(model, te, k)}
        if config["topology"] and system in topology.EXPECTED and name in ("chyllpp", "latent_ode"):
            grid = simulators.domain_grid(system, config["topology_grid"]).to(device)
            out[name]["betti"] = topology.betti_error(system, method.encode(model, grid)[k], config["landmarks"])
    out["chyllpp"]["seconds"] = info["seconds"]
    if perfect:
        out["oracle"] = {**out["chyllpp"], "same_as_detected": True}
    if "node" in spec["baselines"]:
        node, _ = baselines.train_state_node(tr.x, tr.dt, seed=seed, **kw)
        out["node"] = rollout_errors(node, te, H, coord)[0]
        example["node"] = method.predict(node, te.x[:1, 0], H, te.dt)[0, 0, :, 0].tolist()
    out["example"] = example
    if "chyll" in spec["baselines"]:
        chyll, _ = baselines.train_chyll(tr.x, tr.dt, jump_factor=config["jump_factor"], seed=seed, **kw)
        out["chyll"] = {**rollout_errors(chyll, te, H, coord)[0], **_latent_stats(chyll, te, 0)}
    if "event" in spec["baselines"]:
        ev, _ = baselines.train_event_ode(tr.x, tr.dt, members=config["event_seeds"], seed=seed, **kw)
        mse = [e["mse"] for e in rollout_errors(ev, te, H, coord)]
        out["event"] = {"mse": mse, "median_mse": float(np.median(mse))}
    return out


def _dimension(system, ms, config, device, seed):
    T, H = config["train_steps"], config["horizon"]
    kw = {**{k: config[k] for k in _TRAIN_KEYS}, "iters": config["iters"][system]}
    tr = simulators.simulate(system, config["n_train"], T, seed=_SEEDS[system] + 200 + seed, device=device)
    te = simulators.simulate(system, config["n_test"], H + 1, seed=_SEEDS[system] + 700 + seed, device=device)
    out = {}
    for mm in ms:
        model, _ = method.train_chyllpp(tr.x, tr.dt, m=mm, jump_factor=config["jump_factor"], seed=seed, **kw)
        out[f"m{mm}"] = rollout_errors(model, te, H)[0]
    return out


def run(config: dict, device, seed: int) -> dict:
    """Run the configured experiments (see the module doc); returns plain python numbers."""
    checks.config_like("config", config, CONFIGS.values())
    _check_config(config)
    device = checks.device("device", device)
    seed = checks.seed("seed", seed)
    t0 = time.perf_counter()
    torch.manual_seed(seed)
    res = {"config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in config.items() if k != "systems"}}
    stages = ["analytic checks", "detection", *config["systems"], *(f"dimension {s}" for s in config["dimension"])]
    res["stage_seconds"] = {}
    for stage in progress.stages(stages, desc="hybrid_node"):
        t_stage = time.perf_counter()
        if stage == "analytic checks":
            res["analytic"] = analytic_checks(seed=seed, grid=config["topology_grid"], landmarks=config["landmarks"],
                                              betti=config["topology"])
        elif stage == "detection":
            det = {}
            for system in simulators.SYSTEMS:
                d = simulators.simulate(system, config["n_train"], config["train_steps"], seed=3000 + seed,
                                        device=device)
                p, r = jumps.precision_recall(jumps.detect_jumps(d.x, d.dt, config["jump_factor"]), d.resets)
                det[system] = {"precision": p, "recall": r}
            res["detection"] = det
        elif stage.startswith("dimension "):
            system = stage.split()[1]
            res.setdefault("dimension", {})[system] = _dimension(system, config["dimension"][system], config,
                                                                 device, seed)
        else:
            res[stage] = _system(stage, config["systems"][stage], config, device, seed)
        res["stage_seconds"][stage] = time.perf_counter() - t_stage
    res["seconds"] = time.perf_counter() - t0
    return res
