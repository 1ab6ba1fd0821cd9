"""The experiment behind the claims: random zero-sum matrix games, hybrid vs baselines.

See docs/papers/ssn_games.md §2 and §5.

``run(config, device, seed)`` draws ``games`` Gaussian games of size ``n x m`` (seeded by ``seed``) and
measures, in mat-vec equivalents (docs/papers/ssn_games.md §2) and seconds:

* the hybrid PRM+ -> SSN (adaptive switch; Algorithm 1) and its cost to reach ``target``;
* PRM+ simultaneous and alternating (last / uniform / linear / quadratic averages tracked in one run)
  for a budget of ``budget_factor`` x the hybrid's largest cost, capped at ``prm_cap_iterations``;
* the local rate of the successful Newton phase (claim 1) and, where enabled, the threshold switch (PSSN-like);
* SSN from a cold start without safeguard (claim 4), plain DRS iteration, and the LP (HiGHS) reference;
* structure at the solution (support sizes, condition number of ``V``; claim 6);
* optionally (``scaling``) wall-clock PRM+ vs hybrid to ``1e-8`` over several sizes (claim 5).
"""

from __future__ import annotations

import inspect
import math
import time

import torch

from icml26 import checks
from icml26.papers.ssn_games.baselines import drs_iterate, lp_solve, ssn_cold
from icml26.papers.ssn_games.games import DISTRIBUTIONS, game_value, random_games
from icml26.papers.ssn_games.method import DRSOperator, default_eta, hybrid
from icml26.papers.ssn_games.regret import AVERAGINGS, RegretMatching

CONFIGS = {
    "quick": dict(n=100, m=100, games=3, distribution="gaussian", target=1e-10, budget_factor=10.0,
                  prm_cap_iterations=16_000, record_every=500, rect=(60, 120), drs_iterations=600,
                  eps_switch=1e-4, cold_steps=30, hybrid=dict(T0="auto", tol=1e-12), threshold_switch=False,
                  scaling=None),
    "standard": dict(n=100, m=100, games=9, distribution="gaussian", target=1e-10, budget_factor=10.0,
                     prm_cap_iterations=120_000, record_every=500, rect=(60, 120), drs_iterations=2000,
                     eps_switch=1e-4, cold_steps=30, hybrid=dict(T0="auto", tol=1e-12), threshold_switch=True,
                     scaling=dict(sizes=[(100, 100), (300, 300), (400, 800)], target=1e-8, time_factor=12.0,
                                  prm_cap_iterations=200_000, check_every=200)),
    "full": dict(n=100, m=100, games=9, distribution="gaussian", target=1e-10, budget_factor=10.0,
                 prm_cap_iterations=300_000, record_every=1000, rect=(400, 800), drs_iterations=5000,
                 eps_switch=1e-4, cold_steps=30, hybrid=dict(T0="auto", tol=1e-12), threshold_switch=True,
                 scaling=dict(sizes=[(1000, 1000), (400, 800), (3000, 3000), (5000, 5000)], target=1e-8,
                              time_factor=12.0, prm_cap_iterations=1_000_000, check_every=500)),
}


def _first_cost(costs, gaps, target):
    """First cost at which ``gaps <= target`` (``None`` if never)."""
    for c, g in zip(costs, gaps):
        if g <= target:
            return float(c)
    return None


def _sync(device):
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def _check_config(config: dict, scaling: bool = False) -> None:
    """Every key of ``CONFIGS['quick']`` with a value of the right kind (and ``scaling``'s keys when asked)."""
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict (see CONFIGS); got {type(config).__name__}")
    missing = [k for k in CONFIGS["quick"] if k not in config]
    if missing:
        raise ValueError(f"config is missing keys {missing}; start from CONFIGS['quick']")
    for k in ("n", "m", "games", "prm_cap_iterations", "record_every", "drs_iterations"):
        checks.positive_int(f"config[{k!r}]", config[k])
    checks.nonnegative_int("config['cold_steps']", config["cold_steps"])
    for k in ("target", "budget_factor", "eps_switch"):
        checks.positive_number(f"config[{k!r}]", config[k])
    checks.one_of("config['distribution']", config["distribution"], DISTRIBUTIONS)
    rect = config["rect"]
    if not isinstance(rect, (list, tuple)) or len(rect) != 2:
        raise ValueError(f"config['rect'] must be a pair (n, m); got {rect!r}")
    for v in rect:
        checks.positive_int("config['rect']", v)
    checks.config("config['hybrid']", config["hybrid"])
    unknown = set(config["hybrid"]) - (set(inspect.signature(hybrid).parameters) - {"A", "switch"})
    if unknown:
        raise ValueError(f"config['hybrid'] has argument(s) {sorted(unknown)} that hybrid() does not take here")
    if not isinstance(config.get("threshold_switch", False), bool):
        raise ValueError(f"config['threshold_switch'] must be a bool; got {config['threshold_switch']!r}")
    sc = config["scaling"]
    if sc is None and not scaling:
        return
    checks.config("config['scaling']", sc, required=("sizes", "target", "time_factor", "prm_cap_iterations",
                                                     "check_every"))
    sizes = sc["sizes"]
    if not isinstance(sizes, (list, tuple)) or not sizes or \
            not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in sizes):
        raise ValueError(f"config['scaling']['sizes'] must be a non-empty list of (n, m) pairs; got {sizes!r}")
    for p in sizes:
        for v in p:
            checks.positive_int("config['scaling']['sizes']", v)
    for k in ("target", "time_factor"):
        checks.positive_number(f"config['scaling'][{k!r}]", sc[k])
    for k in ("prm_cap_iterations", "check_every"):
        checks.positive_int(f"config['scaling'][{k!r}]", sc[k])


def _check_args(config, device, seed, scaling: bool = False) -> torch.device:
    _check_config(config, scaling)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    return checks.device("device", device)


def compare(config: dict, device, seed: int) -> dict:
    """Claims 1-4 and 6 on ``games`` random games (one batch)."""
    _check_args(config, device, seed)
    n, m, B, target = config["n"], config["m"], config["games"], config["target"]
    A = random_games(B, n, m, distribution=config["distribution"], seed=1000 * seed + 1, device=device)
    hk = dict(config["hybrid"])
    # Hybrid (adaptive switch).
    h = hybrid(A, switch="adaptive", **hk)
    h_cost = [_first_cost([c for c, _ in tr], [g for _, g in tr], target) for tr in h.trace]
    h_cost = [c if c is not None else math.inf for c in h_cost]
    # PRM+ sim + alt in one batch, budget = budget_factor x the hybrid's largest cost.
    finite = [c for c in h_cost if math.isfinite(c)] or [1.0]
    budget_iters = int(min(config["prm_cap_iterations"], math.ceil(config["budget_factor"] * max(finite) / 2)))
    alt = torch.tensor([False] * B + [True] * B, device=A.device)
    rm = RegretMatching(torch.cat([A, A]), alternating=alt)
    t0 = time.perf_counter()
    rec = rm.run(budget_iters, record_every=config["record_every"])
    prm_seconds = time.perf_counter() - t0
    prm = {}
    for mode, off in (("simultaneous", 0), ("alternating", B)):
        for a in AVERAGINGS:
            gaps = [[row[off + b] for row in rec["gap"][a]] for b in range(B)]
            prm[f"{mode}/{a}"] = {"gap": gaps, "final_gap": [g[-1] for g in gaps],
                                  "cost_to_target": [_first_cost(rec["cost"], g, target) for g in gaps]}
    best_prm = []
    for b in range(B):
        costs = [v["cost_to_target"][b] for v in prm.values() if v["cost_to_target"][b] is not None]
        best_prm.append(min(costs) if costs else float(2 * budget_iters))
    ratio = [p / c for p, c in zip(best_prm, h_cost)]
    eta, _ = default_eta(A)
    # Threshold switch (PSSN-like variant), where the scale affords it.
    th = None
    if config.get("threshold_switch", False):
        t = hybrid(A, switch="threshold", eps_switch=config["eps_switch"], **hk)
        th = {"cost": t.cost, "converged": t.converged, "gap": t.gap, "prm_iterations": t.prm_iterations,
              "cost_to_target": [_first_cost([c for c, _ in tr], [g for _, g in tr], target) for tr in t.trace]}
    # Cold SSN without safeguard (claim 4).
    cold = ssn_cold(A, eta, max_newton=config["cold_steps"])
    # Plain DRS iteration (ablation curve).
    drs = drs_iterate(A, eta, config["drs_iterations"], record_every=max(1, config["drs_iterations"] // 20))
    # LP reference and the hybrid's value (claim 3), incl. one rectangular game.
    lp = lp_solve(A)
    hv = game_value(A, h.x, h.y).tolist()
    rn, rm_ = config["rect"]
    Ar = random_games(1, rn, rm_, distribution=config["distribution"], seed=1000 * seed + 2, device=device)
    hr = hybrid(Ar, switch="adaptive", **hk)
    lpr = lp_solve(Ar)
    # Structure at the solution (claim 6).
    op = DRSOperator(A, eta)
    w_star = op.lift(h.x, h.y)
    V = op.V(w_star)
    cond = torch.linalg.cond(V).tolist()
    supp_x = (h.x > 0).sum(-1).tolist()
    supp_y = (h.y > 0).sum(-1).tolist()
    return {
        "n": n, "m": m, "games": B, "target": target,
        "hybrid": {"cost_to_target": h_cost, "cost": h.cost, "gap": h.gap, "converged": h.converged,
                   "prm_iterations": h.prm_iterations, "newton_steps": h.newton_steps, "attempts": h.attempts,
                   "seconds": h.seconds, "trace": h.trace, "value": hv, "eta": h.eta},
        "prm": prm, "prm_cost": rec["cost"], "prm_budget_iterations": budget_iters, "prm_seconds": prm_seconds,
        "best_prm_cost_to_target": best_prm, "cost_ratio": ratio,
        "local": {"gaps": h.newton_gaps, "residuals": h.newton_residuals, "full_steps": h.newton_full},
        "threshold": th,
        "cold": {"gaps": cold.gaps, "min_gap": [min(g) for g in cold.gaps]},
        "drs": {"cost": drs["cost"], "gap": [[row[b] for row in drs["gap"]] for b in range(B)]},
        "lp": {"value": lp["value"], "gap": lp["gap"], "seconds": lp["seconds"]},
        "rect": {"n": rn, "m": rm_, "hybrid_gap": hr.gap[0], "hybrid_value": game_value(Ar, hr.x, hr.y).item(),
                 "lp_value": lpr["value"][0], "converged": hr.converged[0]},
        "structure": {"support_x": supp_x, "support_y": supp_y, "cond_V": cond},
    }


def scaling(config: dict, device, seed: int) -> dict:
    """Claim 5: wall-clock of alternating PRM+ (best averaging) vs the hybrid to ``target``, per size."""
    _check_args(config, device, seed, scaling=True)
    sc, hk = config["scaling"], dict(config["hybrid"])
    out = []
    for k, (n, m) in enumerate(sc["sizes"]):
        A = random_games(1, n, m, distribution=config["distribution"], seed=1000 * seed + 10 + k, device=device)
        hk_t = {**hk, "tol": sc["target"]}  # each solver is timed to the same target gap
        hybrid(A[:, :8, :8], **hk_t)  # warm-up (kernels, allocator) outside the timing
        h = hybrid(A, switch="adaptive", **hk_t)
        h_time = h.seconds
        rm = RegretMatching(A, alternating=True)
        _sync(device)
        t0, reached, elapsed = time.perf_counter(), None, 0.0
        while rm.t < sc["prm_cap_iterations"]:
            for _ in range(sc["check_every"]):
                rm.step()
            g = float(rm.gaps().min())
            _sync(device)
            elapsed = time.perf_counter() - t0
            if g <= sc["target"]:
                reached = elapsed
                break
            if elapsed > sc["time_factor"] * h_time:
                break
        out.append({"n": n, "m": m, "hybrid_seconds": h_time, "hybrid_gap": h.gap[0],
                    "hybrid_converged": h.converged[0],
                    "prm_seconds": elapsed, "prm_reached": reached is not None, "prm_iterations": rm.t,
                    "prm_gap": float(rm.gaps().min()), "time_ratio": elapsed / h_time})
    return {"sizes": out}


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the experiment at one scale; returns plain python numbers/lists (see module docstring)."""
    device = _check_args(config, device, seed)
    t0 = time.perf_counter()
    res = compare(config, device, seed)
    if config.get("scaling"):
        res["scaling"] = scaling(config, device, seed)
    res["seconds"] = time.perf_counter() - t0
    return res
