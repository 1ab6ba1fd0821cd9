"""Experiments for the claims of docs/papers/atst_mdp.md §5 (all synthetic; the paper itself reports no experiments).

``run(config, device, seed)`` returns a plain dict with one entry per claim family:

* ``equivalence`` -- augmented-state value iteration vs sequence enumeration vs simulator Monte Carlo
  on random tabular ATST-MDPs (claim 1);
* ``linear`` -- belief-propagated ``Q(s, alpha; V)`` vs ``Psi(s, alpha)^T [theta; w_V]`` (claim 2);
* ``monotone`` -- ``V*_L`` against the horizon cap ``L`` and the tail bound (claim 3);
* ``ring`` -- oracle / ATST / QMDP / stale values on the drifting ring, and the gap as the move
  actions' trigger probability grows (claim 4);
* ``psi`` -- sup-error of the off-policy ``Psi_hat`` against the offline sample size (claim 5);
* ``regret`` -- ATST-LSVI-UCB against stale LSVI-UCB, greedy ATST and random (claim 6), with exact
  per-episode regret.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from icml26 import checks, progress
from icml26.papers.atst_mdp import baselines as B
from icml26.papers.atst_mdp import method as M

BONUS = {"atst_lsvi_ucb": 5.0, "stale_lsvi_ucb": 5.0, "full_lsvi_ucb": 2.5}
"""Bonus scale per optimistic learner, tuned with equal effort: the grid {0.5, 1, 2.5, 5, 10}, development seeds
100-102 (two replicates each), K = 1000 at d = 5, gamma = 0.8, least mean cumulative regret (mean +- sd over the six
runs: ATST 259 +- 106 at 5 vs 263 at 2.5 and 295 at 10; stale 284 +- 115 at 5 vs 309 at 2.5 and 339 at 10; fully
observed 143 +- 85 at 2.5 vs 157 at 1 and 168 at 5)."""

_BASE = {
    "equivalence": {"sizes": [4, 5, 6], "L": [2, 3, 4], "n_actions": 3, "beta": [0.2, 0.4, 1.0], "gamma": 0.9,
                    "mc_rollouts": 20_000, "mc_pairs": 2},
    "linear": {"n_states": 20, "n_actions": 3, "dim": 5, "L": 3, "beta": [0.1, 0.3, 1.0], "gamma": 0.8},
    "monotone": {"n_models": 3, "n_states": 5, "n_actions": 3, "L_max": 5, "beta": [0.2, 0.4, 1.0], "gamma": 0.9},
    "ring": {"n_positions": 7, "slip": 0.2, "beta_move": 0.1, "beta_sense": 1.0, "gamma": 0.9, "L": 5,
             "beta_sweep": [0.1, 0.3, 0.5, 0.7, 0.9, 1.0], "beta_near_one": 0.9},
    "psi": {"n_states": 20, "n_actions": 3, "dim": 5, "L": 3, "beta": [0.05, 0.2, 1.0], "gamma": 0.8,
            "concentration": 0.1, "ns": [1000, 2000, 5000, 10000, 20000], "reps": 4, "lam": 1.0},
    "regret": {"n_states": 20, "n_actions": 3, "dim": 5, "L": 3, "beta": [0.05, 0.2, 1.0], "gamma": 0.8,
               "concentration": 0.1, "K": 300, "n_seeds": 3, "bonus_scale": 5.0, "bonus_by_learner": BONUS,
               "lam": 1.0, "n_offline": 100_000, "psi_source": "estimated", "replan": "every",
               "learners": ["atst_lsvi_ucb", "stale_lsvi_ucb", "full_lsvi_ucb", "atst_greedy", "random"]},
}
_DIR1 = dict(_BASE["regret"], concentration=1.0, K=1000, n_seeds=4, learners=["atst_lsvi_ucb", "stale_lsvi_ucb",
                                                                                  "random"])
"""The regret testbed with Dir(1) features (reported as a null result: the policies it separates differ little)."""
_RATE = {"n_states": 20, "n_actions": 3, "dim": 5, "L": 3, "beta": [0.05, 0.2, 1.0], "gamma": 0.8,
         "concentration": 0.1, "K": 3000, "n_seeds": 4, "bonus_scale": 5.0, "bonus_by_learner": BONUS, "lam": 1.0,
         "n_offline": 100_000,
         "psi_source": "estimated", "replan": "doubling", "learners": ["atst_lsvi_ucb", "full_lsvi_ucb"],
         "dims": [3, 5, 8], "gammas": [0.7, 0.8, 0.9], "n_boot": 2000}


def _merge(base: dict, **over) -> dict:
    out = {k: dict(v) for k, v in base.items()}
    for key, upd in over.items():
        out[key].update(upd)
    return out


CONFIGS = {
    "quick": _merge(_BASE),
    "standard": {**_merge(_BASE, psi={"ns": [1000, 3000, 10000, 30000, 100000], "reps": 6},
                          regret={"K": 3000, "n_seeds": 5}), "regret_dir1": dict(_DIR1), "rate": dict(_RATE)},
    "full": {**_merge(_BASE, equivalence={"mc_rollouts": 200_000, "mc_pairs": 4},
                   psi={"ns": [1000, 3000, 10000, 30000, 100000, 300000], "reps": 10},
                   regret={"K": 20_000, "n_seeds": 5, "n_states": 100, "dim": 10, "n_actions": 4, "L": 5,
                           "beta": [0.05, 0.1, 0.2, 1.0], "n_offline": 1_000_000, "replan": "doubling"}),
    "regret_dir1": dict(_DIR1, K=3000, n_seeds=5), "rate": dict(_RATE, K=6000, n_seeds=6)},
}
"""Scales. ``standard`` adds the Dir(1) null testbed and the rate grid (K = 3000, four replicates per cell, the
rarely switching schedule). ``full`` estimate for the rate grid, from its measured cost at standard: 66 s of one
CPU core for 5 cells x 4 replicates x 2 learners x 3000 episodes = 1.2e5 learner-episodes, i.e. 0.55 ms each;
full has 5 x 6 x 2 x 6000 = 3.6e5, about 200 s. The learners and the simulator are sequential (one segment at a
time), so an H200 does not shorten them; the Dir(1) part at full (3 learners x 5 x 3000 = 4.5e4 episodes of the
every-episode planner, about 1 ms each as measured at standard) adds about 45 s. The other parts' full sizes
predate this estimate and have not been timed in this round."""


_OPTIONAL = ("bonus_by_learner",)
_INTS = {"rate": ("n_states", "n_actions", "dim", "L", "K", "n_seeds", "n_offline", "n_boot"),
         "equivalence": ("n_actions", "mc_rollouts", "mc_pairs"), "linear": ("n_states", "n_actions", "dim", "L"),
         "monotone": ("n_models", "n_states", "n_actions", "L_max"), "ring": ("n_positions", "L"),
         "psi": ("n_states", "n_actions", "dim", "L", "reps"),
         "regret": ("n_states", "n_actions", "dim", "L", "K", "n_seeds", "n_offline")}
_INT_LISTS = {"equivalence": ("sizes", "L"), "psi": ("ns",), "rate": ("dims",)}
_PROB_LISTS = {"ring": ("beta_sweep",)}
_PROBS = {"ring": ("slip", "beta_move", "beta_sense", "beta_near_one")}
LEARNERS = ("atst_lsvi_ucb", "stale_lsvi_ucb", "atst_greedy", "random", "full_lsvi_ucb")


def _check_part(part: str, cfg, name: str = "cfg") -> dict:
    """The settings of one part (keys of ``CONFIGS[scale][part]``), checked before any work."""
    base = {"rate": _RATE, "regret_dir1": _DIR1}.get(part) or _BASE[part]
    checks.config(name, cfg, required=[k for k in base if k not in _OPTIONAL])
    part = "regret" if part == "regret_dir1" else part
    for key in _INTS.get(part, ()):
        checks.positive_int(f"{name}[{key!r}]", cfg[key])
    for key in _INT_LISTS.get(part, ()):
        vals = cfg[key]
        if isinstance(vals, (str, bytes)) or not hasattr(vals, "__len__") or len(vals) == 0:
            raise ValueError(f"{name}[{key!r}] must be a non-empty list of positive integers; got {vals!r}")
        for v in vals:
            checks.positive_int(f"{name}[{key!r}] entries", v)
    for key in _PROBS.get(part, ()):
        checks.probability(f"{name}[{key!r}]", cfg[key])
    for key in _PROB_LISTS.get(part, ()):
        vals = cfg[key]
        if isinstance(vals, (str, bytes)) or not hasattr(vals, "__len__") or len(vals) == 0:
            raise ValueError(f"{name}[{key!r}] must be a non-empty list of probabilities; got {vals!r}")
        for v in vals:
            checks.probability(f"{name}[{key!r}] entries", v)
    gamma = cfg["gamma"]
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0 < gamma < 1:
        raise ValueError(f"{name}['gamma'] must lie in (0, 1); got {gamma!r}")
    if "beta" in cfg:
        beta = cfg["beta"]
        ok = hasattr(beta, "__len__") and not isinstance(beta, (str, bytes)) and len(beta) == cfg["n_actions"]
        if not ok or not all(isinstance(b, (int, float)) and not isinstance(b, bool) and 0 <= b <= 1 for b in beta):
            raise ValueError(f"{name}['beta'] must list n_actions={cfg['n_actions']} probabilities in [0, 1]; "
                             f"got {beta!r}")
    if part == "equivalence" and len(cfg["sizes"]) != len(cfg["L"]):
        raise ValueError(f"{name}['sizes'] and {name}['L'] must have the same length; got {len(cfg['sizes'])} "
                         f"and {len(cfg['L'])}")
    if part in ("psi", "regret", "rate"):
        checks.positive_number(f"{name}['concentration']", cfg["concentration"])
        checks.positive_number(f"{name}['lam']", cfg["lam"])
    if part == "rate":
        for g in cfg["gammas"] if isinstance(cfg["gammas"], (list, tuple)) and cfg["gammas"] else [None]:
            if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0 < g < 1:
                raise ValueError(f"{name}['gammas'] must be a non-empty list of numbers in (0, 1); got "
                                 f"{cfg['gammas']!r}")
        if len(cfg["dims"]) < 2 or len(cfg["gammas"]) < 2:
            raise ValueError(f"{name}['dims'] and {name}['gammas'] need at least two values each to fit an exponent")
    if part in ("regret", "rate"):
        checks.nonnegative_number(f"{name}['bonus_scale']", cfg["bonus_scale"])
        for ln, v in cfg.get("bonus_by_learner", {}).items():
            checks.one_of(f"{name}['bonus_by_learner'] keys", ln, LEARNERS)
            checks.nonnegative_number(f"{name}['bonus_by_learner'][{ln!r}]", v)
        checks.one_of(f"{name}['psi_source']", cfg["psi_source"], ("estimated", "true"))
        checks.one_of(f"{name}['replan']", cfg["replan"], ("every", "doubling"))
        learners = cfg["learners"]
        if isinstance(learners, (str, bytes)) or not hasattr(learners, "__len__") or len(learners) == 0:
            raise ValueError(f"{name}['learners'] must be a non-empty list of learner names; got {learners!r}")
        for ln in learners:
            checks.one_of(f"{name}['learners'] entries", ln, LEARNERS)
    return cfg


def _check_call(part: str, cfg, device, seed: int):
    _check_part(part, cfg)
    checks.seed("seed", seed)
    return checks.device("device", device)


def run_equivalence(cfg: dict, device, seed: int) -> dict:
    """Claim 1: augmented-state VI == sequence enumeration (sup-norm), MC within standard errors."""
    device = _check_call("equivalence", cfg, device, seed)
    diffs, zs, rows = [], [], []
    for i, (S, L) in enumerate(zip(cfg["sizes"], cfg["L"])):
        m = M.random_tabular(S, cfg["n_actions"], cfg["beta"], cfg["gamma"], seed=1000 * seed + i, device=device)
        seqs = M.enumerate_sequences(cfg["n_actions"], L, device=device)
        R, Bq = M.sequence_model(m, seqs)
        V_enum, pol, Q = M.sequence_policy_iteration(R, Bq)
        V_aug = M.augmented_value_iteration(m, L)
        diffs.append(float((V_enum - V_aug).abs().max()))
        rng = np.random.default_rng(1000 * seed + i)
        for j in range(cfg["mc_pairs"]):
            s0 = int(rng.integers(S))
            q = int(pol[s0]) if j == 0 else int(rng.integers(seqs.shape[0]))
            ret = M.simulate_returns(m, seqs, s0, q, pol, cfg["mc_rollouts"], seed=1000 * seed + 10 * i + j)
            mean, se = float(ret.mean()), float(ret.std() / np.sqrt(ret.numel()))
            zs.append(abs(mean - float(Q[s0, q])) / se)
            rows.append({"S": S, "L": L, "s": s0, "seq": seqs[q].tolist(), "Q": float(Q[s0, q]), "mc": mean,
                         "se": se})
    return {"sup_diff": diffs, "max_sup_diff": max(diffs), "mc_z": zs, "max_mc_z": max(zs), "mc_rows": rows}


def run_linear(cfg: dict, device, seed: int) -> dict:
    """Claim 2: Q(s, alpha; V) by belief propagation == Psi^T [theta; w_V] for arbitrary V."""
    device = _check_call("linear", cfg, device, seed)
    lr = M.random_low_rank(cfg["n_states"], cfg["n_actions"], cfg["dim"], cfg["beta"], cfg["gamma"], seed=seed,
                           device=device)
    seqs = M.enumerate_sequences(cfg["n_actions"], cfg["L"], device=device)
    R, Bq = M.sequence_model(lr.tabular(), seqs)
    psi = M.psi_features(lr.phi, M.transition_operators(lr.phi, lr.mu), lr.beta, lr.gamma, seqs)
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    errs = []
    for _ in range(3):
        V = 10 * torch.randn(cfg["n_states"], generator=gen, device=device, dtype=M.DTYPE)
        Q_belief = M.sequence_q(R, Bq, V)
        Q_lin = psi @ torch.cat([lr.theta, lr.mu @ V])
        errs.append(float((Q_belief - Q_lin).abs().max()))
    return {"max_abs_err": max(errs), "psi_shape": list(psi.shape)}


def run_monotone(cfg: dict, device, seed: int) -> dict:
    """Claim 3: V*_L nondecreasing in L and V*_{L+1} - V*_L <= (gamma max(1-beta))^L / (1-gamma)."""
    device = _check_call("monotone", cfg, device, seed)
    min_inc, max_excess, curves = np.inf, -np.inf, []
    for i in range(cfg["n_models"]):
        m = M.random_tabular(cfg["n_states"], cfg["n_actions"], cfg["beta"], cfg["gamma"], seed=7000 + 1000 * seed + i,
                             device=device)
        Vs = []
        for L in range(1, cfg["L_max"] + 1):
            R, Bq = M.sequence_model(m, M.enumerate_sequences(cfg["n_actions"], L, device=device))
            Vs.append(M.sequence_policy_iteration(R, Bq)[0])
        for L in range(1, cfg["L_max"]):
            inc = Vs[L] - Vs[L - 1]
            min_inc = min(min_inc, float(inc.min()))
            max_excess = max(max_excess, float(inc.max()) - M.tail_gap_bound(m.gamma, m.beta, L))
        curves.append([float(v.mean()) for v in Vs])
    return {"min_increment": min_inc, "max_excess_over_bound": max_excess, "mean_V_by_L": curves,
            "bounds": [M.tail_gap_bound(cfg["gamma"], torch.tensor(cfg["beta"]), L) for L in range(1, cfg["L_max"])]}


def ring_values(n_positions=7, slip=0.2, beta_move=0.1, beta_sense=1.0, gamma=0.9, L=5, device="cpu") -> dict:
    """Oracle / ATST / QMDP / stale values (per state, exact) on the drifting ring."""
    checks.positive_int("L", L)
    m = M.drifting_ring(n_positions, slip, beta_move, beta_sense, gamma, device=device)
    Q_mdp, V_mdp, pi_mdp = B.mdp_oracle(m)
    seqs = M.enumerate_sequences(m.n_actions, L, device=device)
    R, Bq = M.sequence_model(m, seqs)
    V_atst, pol, _ = M.sequence_policy_iteration(R, Bq)
    V_qmdp, _ = B.qmdp_values(m, Q_mdp)
    V_stale, _ = B.stale_values(m, pi_mdp)
    vals = {"mdp": V_mdp, "atst": V_atst, "qmdp": V_qmdp, "stale": V_stale}
    out = {k: v.tolist() for k, v in vals.items()}
    out["mean"] = {k: float(v.mean()) for k, v in vals.items()}
    out["gap_qmdp"] = (out["mean"]["atst"] - out["mean"]["qmdp"]) / out["mean"]["atst"]
    out["order_margin"] = float(min((V_mdp - V_atst).min(), (V_atst - V_qmdp).min(), (V_qmdp - V_stale).min()))
    out["first_sequences"] = [[M.RING_ACTIONS[a] for a in seqs[int(q)].tolist()] for q in pol]
    return out


def run_ring(cfg: dict, device, seed: int) -> dict:
    """Claim 4 (deterministic: the ring has no randomness; ``seed`` is unused)."""
    device = _check_call("ring", cfg, device, seed)
    kw = {k: cfg[k] for k in ("n_positions", "slip", "beta_sense", "gamma", "L")}
    default = ring_values(beta_move=cfg["beta_move"], device=device, **kw)
    sweep = [ring_values(beta_move=b, device=device, **kw)["gap_qmdp"] for b in cfg["beta_sweep"]]
    near = ring_values(beta_move=cfg["beta_near_one"], device=device, **kw)["gap_qmdp"]
    return {"default": default, "beta_sweep": list(cfg["beta_sweep"]), "gap_sweep": sweep, "gap_near_one": near}


def run_psi(cfg: dict, device, seed: int) -> dict:
    """Claim 5: sup-error of Psi_hat (from off-policy M_hat) vs the offline sample size n."""
    device = _check_call("psi", cfg, device, seed)
    lr = M.random_low_rank(cfg["n_states"], cfg["n_actions"], cfg["dim"], cfg["beta"], cfg["gamma"], seed=seed,
                           concentration=cfg["concentration"], device=device)
    seqs = M.enumerate_sequences(cfg["n_actions"], cfg["L"], device=device)
    psi = M.psi_features(lr.phi, M.transition_operators(lr.phi, lr.mu), lr.beta, lr.gamma, seqs)
    errs = []
    for n in cfg["ns"]:
        e = []
        for rep in range(cfg["reps"]):
            s, a, sn = M.sample_offline(lr, n, seed=100_000 * seed + 100 * rep + n % 97)
            Mh = M.estimate_operators(lr.phi, s, a, sn, cfg["lam"])
            e.append(float((M.psi_features(lr.phi, Mh, lr.beta, lr.gamma, seqs) - psi).abs().max()))
        errs.append(float(np.mean(e)))
    return {"ns": list(cfg["ns"]), "sup_err": errs, "slope": M.loglog_slope(cfg["ns"], errs)}


def bonus_for(name: str, cfg: dict) -> float:
    """The bonus scale of learner ``name``: ``cfg["bonus_by_learner"][name]`` where given (tuned per learner on
    development seeds, equal grid), else ``cfg["bonus_scale"]``."""
    checks.one_of("name", name, LEARNERS)
    checks.config("cfg", cfg, required=("bonus_scale",))
    return float(cfg.get("bonus_by_learner", {}).get(name, cfg["bonus_scale"]))


def make_learner(name: str, cfg: dict, psi, lr, seqs, seed: int):
    """The learner ``name`` (one of :data:`LEARNERS`) on features ``psi`` / ``lr.phi`` with the settings of ``cfg``.

    ``full_lsvi_ucb`` is standard LSVI-UCB with features ``phi(s, a)`` on the fully observed MDP (every step a
    segment of length one); it ignores ``seqs`` and must be run on ``lr.tabular().with_beta(1)``."""
    checks.one_of("name", name, LEARNERS)
    checks.config("cfg", cfg, required=("gamma", "bonus_scale", "lam", "replan"))
    checks.tensor("psi", psi, ndim=3, dtype_kind="float")
    checks.instance("lr", lr, M.LowRankMDP)
    M._check_seqs(seqs, lr.phi.shape[1])
    checks.seed("seed", seed)
    bonus = bonus_for(name, cfg)
    if name == "atst_lsvi_ucb":
        return M.ATSTLSVIUCB(psi, cfg["gamma"], bonus, cfg["lam"], seed=seed, replan=cfg["replan"])
    if name == "atst_greedy":
        return M.ATSTLSVIUCB(psi, cfg["gamma"], 0.0, cfg["lam"], eps=cfg.get("greedy_eps", 0.0), seed=seed,
                             replan=cfg["replan"])
    if name == "stale_lsvi_ucb":
        return B.StaleLSVIUCB(lr.phi, seqs, cfg["gamma"], bonus, cfg["lam"], replan=cfg["replan"])
    if name == "full_lsvi_ucb":
        single = M.enumerate_sequences(lr.phi.shape[1], 1, device=lr.phi.device)
        return B.StaleLSVIUCB(lr.phi, single, cfg["gamma"], bonus, cfg["lam"], replan=cfg["replan"])
    return B.RandomSequences(psi.shape[0], seqs.shape[0], seed=seed, device=psi.device)


def _replicate(cfg: dict, device, rs: int, dim: int, gamma: float) -> dict:
    """One replicate world of the regret experiments: a random linear MDP (seed ``rs``), its exact sequence model,
    ``V*``, the learners' features (``Psi_hat`` from offline data, or the true ``Psi``) and the gap of the best
    constant-sequence ("play one action until a burst") policy."""
    lr = M.random_low_rank(cfg["n_states"], cfg["n_actions"], dim, cfg["beta"], gamma, seed=rs,
                           concentration=cfg["concentration"], device=device)
    m = lr.tabular()
    seqs = M.enumerate_sequences(cfg["n_actions"], cfg["L"], device=device)
    R, Bq = M.sequence_model(m, seqs)
    V_star = M.sequence_policy_iteration(R, Bq)[0]
    rho0 = torch.full((cfg["n_states"],), 1.0 / cfg["n_states"], dtype=M.DTYPE, device=device)
    if cfg["psi_source"] == "estimated":
        s, a, sn = M.sample_offline(lr, cfg["n_offline"], seed=rs + 17)
        Mop = M.estimate_operators(lr.phi, s, a, sn, cfg["lam"])
    else:
        Mop = M.transition_operators(lr.phi, lr.mu)
    psi = M.psi_features(lr.phi, Mop, lr.beta, lr.gamma, seqs)
    rep = B.repeat_index(seqs, cfg["n_actions"])
    V_rep = M.sequence_policy_iteration(R[:, rep], Bq[:, rep])[0]
    return {"lr": lr, "m": m, "seqs": seqs, "R": R, "Bq": Bq, "V_star": V_star, "rho0": rho0, "psi": psi,
            "repeat_gap": float(rho0 @ (V_star - V_rep)),
            "value_range": float(rho0 @ V_star) - float(rho0 @ M.evaluate_sequence_policy(
                R, Bq, torch.full((cfg["n_states"], seqs.shape[0]), 1.0 / seqs.shape[0], dtype=M.DTYPE,
                                  device=device)))}


def _curve(name: str, cfg: dict, w: dict, K: int, seed: int, sim_seed: int) -> list:
    """Exact per-episode regret of learner ``name`` (seeded ``seed``) in world ``w`` over ``K`` episodes, the simulator
    seeded ``sim_seed``. The fully observed learner runs on the same MDP with every action revealing the state
    (``beta = 1``, segments of one step), against the full-observation optimum."""
    learner = make_learner(name, cfg, w["psi"], w["lr"], w["seqs"], seed=seed)
    m, seqs, R, Bq, V_star = w["m"], w["seqs"], w["R"], w["Bq"], w["V_star"]
    if name == "full_lsvi_ucb":
        m = m.with_beta(torch.ones_like(m.beta))
        seqs = M.enumerate_sequences(cfg["n_actions"], 1, device=seqs.device)
        R, Bq = M.sequence_model(m, seqs)
        V_star = M.sequence_policy_iteration(R, Bq)[0]
    sim = M.SegmentSimulator(m, seqs, seed=sim_seed)
    return M.run_learner(learner, sim, R, Bq, w["rho0"], V_star, K).tolist()


def run_regret(cfg: dict, device, seed: int) -> dict:
    """Claim 6: exact per-episode regret of the learners over ``K`` episodes, ``n_seeds`` replicates
    (each replicate draws its own linear MDP, offline data and simulator randomness; within a replicate every
    learner meets the same simulator seed)."""
    device = _check_call("regret", cfg, device, seed)
    K = cfg["K"]
    curves = {name: [] for name in cfg["learners"]}
    gaps, ranges = [], []
    for i in range(cfg["n_seeds"]):
        rs = 1000 * seed + i
        w = _replicate(cfg, device, rs, cfg["dim"], cfg["gamma"])
        gaps.append(w["repeat_gap"])
        ranges.append(w["value_range"])
        for j, name in enumerate(cfg["learners"]):
            curves[name].append(_curve(name, cfg, w, K, rs + 31 * j, rs + 7))
    out = {"K": K, "n_seeds": cfg["n_seeds"], "best_repeat_gap": gaps, "random_gap": ranges, "learners": {}}
    for name, cs in curves.items():
        out["learners"][name] = _summary(np.asarray(cs), K)
    return out


def _summary(arr: np.ndarray, K: int) -> dict:
    """Quarters, cumulative regret and the log-log slope over ``[K/8, K]`` of the replicate-mean curve."""
    q, lo = max(K // 4, 1), max(K // 8, 1)
    mean = arr.mean(0)
    cum = np.cumsum(mean)
    ks = np.arange(1, K + 1)
    return {"mean_regret": mean.tolist(), "cum_regret": cum.tolist(),
            "first_quarter": float(mean[:q].mean()), "last_quarter": float(mean[-q:].mean()),
            "slope": M.loglog_slope(ks[lo - 1:], cum[lo - 1:]), "per_seed_cum": arr.sum(1).tolist()}


def _k_slopes(arr: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Log-log slope over ``[K/8, K]`` of the mean cumulative regret of each bootstrap resample ``idx`` (B, n)."""
    K = arr.shape[1]
    lo = max(K // 8, 1)
    x = np.log(np.arange(lo, K + 1))
    cum = np.cumsum(arr[idx].mean(1), axis=1)[:, lo - 1:]            # (B, K - lo + 1)
    y = np.log(np.maximum(cum, 1e-300))
    xc = x - x.mean()
    return (y - y.mean(1, keepdims=True)) @ xc / (xc @ xc)


def _exponent(xs, finals: list, idx: list) -> np.ndarray:
    """Log-log slope of the mean final regret against ``xs`` (one cell per x; ``finals[c]`` the per-replicate final
    regrets of cell ``c``), once per bootstrap resample (``idx[c]`` of shape (B, n))."""
    lx = np.log(np.asarray(xs, float))
    ly = np.log(np.stack([np.maximum(f[i].mean(1), 1e-300) for f, i in zip(finals, idx)], 1))   # (B, cells)
    xc = lx - lx.mean()
    return (ly - ly.mean(1, keepdims=True)) @ xc / (xc @ xc)


def _interval(boot: np.ndarray, point: float) -> dict:
    lo, hi = np.quantile(boot, [0.05, 0.95])
    return {"value": float(point), "lo": float(lo), "hi": float(hi)}


def _log_ks(K: int) -> np.ndarray:
    """About 40 log-spaced episode counts in [1, K] (where the rate figure samples the cumulative regret)."""
    return np.unique(np.geomspace(1, K, 40).round().astype(int))


def run_rate(cfg: dict, device, seed: int) -> dict:
    """Regret against ``K`` on a cross of ``dims`` (at ``gamma``) and ``gammas`` (at ``dim``), ATST-LSVI-UCB beside
    fully observed LSVI-UCB on the same MDPs: the exponent in ``K`` per cell and learner, and the exponents of the
    final regret in ``d`` and ``(1-gamma)^-1``, each with a 90% bootstrap interval over replicates (the bound:
    ``O~(sqrt(K d^3 (1-gamma)^-3))``, i.e. 1/2 in ``K``, at most 3/2 in ``d`` and in ``(1-gamma)^-1``)."""
    device = _check_call("rate", cfg, device, seed)
    K, n = cfg["K"], cfg["n_seeds"]
    cells = [(d, cfg["gamma"]) for d in cfg["dims"]]
    cells += [(cfg["dim"], g) for g in cfg["gammas"] if (cfg["dim"], g) not in cells]
    rng = np.random.default_rng(seed)
    idx = [rng.integers(n, size=(cfg["n_boot"], n)) for _ in cells]
    arrs = {name: [] for name in cfg["learners"]}
    rows = []
    for c, (d, g) in enumerate(cells):
        sub = dict(cfg, dim=d, gamma=g)
        per = {name: [] for name in cfg["learners"]}
        for i in range(n):
            rs = 1000 * seed + 100 * c + i + 50_000
            w = _replicate(sub, device, rs, d, g)
            for j, name in enumerate(cfg["learners"]):
                per[name].append(_curve(name, sub, w, K, rs + 31 * j, rs + 7))
        row = {"d": d, "gamma": g, "ks": _log_ks(K).tolist()}
        for name in cfg["learners"]:
            arr = np.asarray(per[name])
            arrs[name].append(arr)
            s = _summary(arr, K)
            row[name] = {"slope": _interval(_k_slopes(arr, idx[c]), s["slope"]), "final": float(s["cum_regret"][-1]),
                         "last_quarter": s["last_quarter"], "first_quarter": s["first_quarter"],
                         "cum_regret": np.asarray(s["cum_regret"])[_log_ks(K) - 1].tolist()}
        rows.append(row)
    out = {"K": K, "n_seeds": n, "dim": cfg["dim"], "gamma": cfg["gamma"], "cells": rows, "exponents": {}}
    horizons = [1.0 / (1.0 - g) for g in cfg["gammas"]]
    at_d = [cells.index((d, cfg["gamma"])) for d in cfg["dims"]]
    at_g = [cells.index((cfg["dim"], g)) for g in cfg["gammas"]]
    whole = np.arange(n)[None, :]
    for name, a in arrs.items():
        fin = [x.sum(1) for x in a]                                  # final regret per replicate, per cell
        out["exponents"][name] = {
            key: _interval(_exponent(xs, [fin[c] for c in at], [idx[c] for c in at]),
                           float(_exponent(xs, [fin[c] for c in at], [whole] * len(at))[0]))
            for key, xs, at in (("d", cfg["dims"], at_d), ("horizon", horizons, at_g))}
    slopes = {name: [r[name]["slope"]["value"] for r in rows] for name in cfg["learners"]}
    out["max_slope"] = {name: max(v) for name, v in slopes.items()}
    if {"atst_lsvi_ucb", "full_lsvi_ucb"} <= set(cfg["learners"]):
        diff = [a - b for a, b in zip(slopes["atst_lsvi_ucb"], slopes["full_lsvi_ucb"])]
        out["slope_gap"] = {"per_cell": diff, "max_abs": float(max(abs(x) for x in diff))}
    return out


PARTS = {"equivalence": run_equivalence, "linear": run_linear, "monotone": run_monotone, "ring": run_ring,
         "psi": run_psi, "regret": run_regret, "regret_dir1": run_regret, "rate": run_rate}


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run every part of ``config`` (keys of :data:`PARTS`; a part set to ``None`` is switched off, a part left
    out is an error); returns plain python results."""
    checks.config_like("config", config, CONFIGS.values())
    if not isinstance(config, dict) or not config:
        raise ValueError("config must be a non-empty dict such as CONFIGS['quick']")
    unknown = set(config) - set(PARTS)
    if unknown:
        raise ValueError(f"config names unknown parts {sorted(unknown)}; known: {sorted(PARTS)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    parts = {name: cfg for name, cfg in config.items() if cfg is not None}  # None: the part switched off
    if not parts:
        raise ValueError("config must switch on at least one part (every part is None)")
    for name, cfg in parts.items():
        _check_part(name, cfg, f"config[{name!r}]")
    device = checks.device("device", device)
    t0 = time.perf_counter()
    out = {}
    bar = progress.StageBar(list(parts), desc="atst_mdp")
    for name, cfg in parts.items():
        bar.next(name)
        t = time.perf_counter()
        out[name] = PARTS[name](cfg, device, seed)
        out[name]["seconds"] = time.perf_counter() - t
    bar.close()
    out["seconds"] = time.perf_counter() - t0
    return out
