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

from icml26 import checks
from icml26.papers.atst_mdp import baselines as B
from icml26.papers.atst_mdp import method as M

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
               "concentration": 0.1, "K": 300, "n_seeds": 3, "bonus_scale": 5.0, "lam": 1.0,
               "n_offline": 100_000, "psi_source": "estimated", "replan": "every",
               "learners": ["atst_lsvi_ucb", "stale_lsvi_ucb", "atst_greedy", "random"]},
}


def _merge(base: dict, **over) -> dict:
    out = {k: dict(v) for k, v in base.items()}
    for key, upd in over.items():
        out[key].update(upd)
    return out


CONFIGS = {
    "quick": _merge(_BASE),
    "standard": _merge(_BASE, psi={"ns": [1000, 3000, 10000, 30000, 100000], "reps": 6},
                       regret={"K": 3000, "n_seeds": 5}),
    "full": _merge(_BASE, equivalence={"mc_rollouts": 200_000, "mc_pairs": 4},
                   psi={"ns": [1000, 3000, 10000, 30000, 100000, 300000], "reps": 10},
                   regret={"K": 20_000, "n_seeds": 5, "n_states": 100, "dim": 10, "n_actions": 4, "L": 5,
                           "beta": [0.05, 0.1, 0.2, 1.0], "n_offline": 1_000_000, "replan": "doubling"}),
}


_INTS = {"equivalence": ("n_actions", "mc_rollouts", "mc_pairs"), "linear": ("n_states", "n_actions", "dim", "L"),
         "monotone": ("n_models", "n_states", "n_actions", "L_max"), "ring": ("n_positions", "L"),
         "psi": ("n_states", "n_actions", "dim", "L", "reps"),
         "regret": ("n_states", "n_actions", "dim", "L", "K", "n_seeds", "n_offline")}
_INT_LISTS = {"equivalence": ("sizes", "L"), "psi": ("ns",)}
_PROB_LISTS = {"ring": ("beta_sweep",)}
_PROBS = {"ring": ("slip", "beta_move", "beta_sense", "beta_near_one")}
LEARNERS = ("atst_lsvi_ucb", "stale_lsvi_ucb", "atst_greedy", "random")


def _check_part(part: str, cfg, name: str = "cfg") -> dict:
    """The settings of one part (keys of ``CONFIGS[scale][part]``), checked before any work."""
    checks.config(name, cfg, required=_BASE[part])
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
    if part in ("psi", "regret"):
        checks.positive_number(f"{name}['concentration']", cfg["concentration"])
        checks.positive_number(f"{name}['lam']", cfg["lam"])
    if part == "regret":
        checks.nonnegative_number(f"{name}['bonus_scale']", cfg["bonus_scale"])
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


def make_learner(name: str, cfg: dict, psi, lr, seqs, seed: int):
    """The learner ``name`` (one of :data:`LEARNERS`) on features ``psi`` / ``lr.phi`` with the settings of ``cfg``."""
    checks.one_of("name", name, LEARNERS)
    checks.config("cfg", cfg, required=("gamma", "bonus_scale", "lam", "replan"))
    checks.tensor("psi", psi, ndim=3, dtype_kind="float")
    checks.instance("lr", lr, M.LowRankMDP)
    M._check_seqs(seqs, lr.phi.shape[1])
    checks.seed("seed", seed)
    if name == "atst_lsvi_ucb":
        return M.ATSTLSVIUCB(psi, cfg["gamma"], cfg["bonus_scale"], cfg["lam"], seed=seed, replan=cfg["replan"])
    if name == "atst_greedy":
        return M.ATSTLSVIUCB(psi, cfg["gamma"], 0.0, cfg["lam"], eps=cfg.get("greedy_eps", 0.0), seed=seed,
                             replan=cfg["replan"])
    if name == "stale_lsvi_ucb":
        return B.StaleLSVIUCB(lr.phi, seqs, cfg["gamma"], cfg["bonus_scale"], cfg["lam"], replan=cfg["replan"])
    if name == "random":
        return B.RandomSequences(psi.shape[0], seqs.shape[0], seed=seed, device=psi.device)
    raise ValueError(f"learner must be one of atst_lsvi_ucb, atst_greedy, stale_lsvi_ucb, random; got {name!r}")


def run_regret(cfg: dict, device, seed: int) -> dict:
    """Claim 6: exact per-episode regret of the learners over ``K`` episodes, ``n_seeds`` replicates
    (each replicate draws its own linear MDP, offline data and simulator randomness)."""
    device = _check_call("regret", cfg, device, seed)
    K = cfg["K"]
    curves = {name: [] for name in cfg["learners"]}
    gaps = []
    for i in range(cfg["n_seeds"]):
        rs = 1000 * seed + i
        lr = M.random_low_rank(cfg["n_states"], cfg["n_actions"], cfg["dim"], cfg["beta"], cfg["gamma"], seed=rs,
                               concentration=cfg["concentration"], device=device)
        m = lr.tabular()
        seqs = M.enumerate_sequences(cfg["n_actions"], cfg["L"], device=device)
        R, Bq = M.sequence_model(m, seqs)
        V_star = M.sequence_policy_iteration(R, Bq)[0]
        rho0 = torch.full((cfg["n_states"],), 1.0 / cfg["n_states"], dtype=M.DTYPE, device=device)
        if cfg["psi_source"] == "estimated":
            s, a, sn = M.sample_offline(lr, cfg["n_offline"], seed=rs + 17)
            Mop = M.estimate_operators(lr.phi, s, a, sn, cfg["lam"])
        elif cfg["psi_source"] == "true":
            Mop = M.transition_operators(lr.phi, lr.mu)
        else:
            raise ValueError(f"psi_source must be 'estimated' or 'true'; got {cfg['psi_source']!r}")
        psi = M.psi_features(lr.phi, Mop, lr.beta, lr.gamma, seqs)
        rep = B.repeat_index(seqs, cfg["n_actions"])
        V_rep = M.sequence_policy_iteration(R[:, rep], Bq[:, rep])[0]
        gaps.append(float(rho0 @ (V_star - V_rep)))
        for j, name in enumerate(cfg["learners"]):
            learner = make_learner(name, cfg, psi, lr, seqs, seed=rs + 31 * j)
            sim = M.SegmentSimulator(m, seqs, seed=rs + 7)       # same environment randomness for all learners
            curves[name].append(M.run_learner(learner, sim, R, Bq, rho0, V_star, K).tolist())
    out = {"K": K, "n_seeds": cfg["n_seeds"], "best_repeat_gap": gaps, "learners": {}}
    q = max(K // 4, 1)
    ks = np.arange(1, K + 1)
    lo = max(K // 8, 1)
    for name, cs in curves.items():
        arr = np.asarray(cs)
        mean = arr.mean(0)
        cum = np.cumsum(mean)
        out["learners"][name] = {
            "mean_regret": mean.tolist(), "cum_regret": cum.tolist(),
            "first_quarter": float(mean[:q].mean()), "last_quarter": float(mean[-q:].mean()),
            "slope": M.loglog_slope(ks[lo - 1:], cum[lo - 1:]),
            "per_seed_cum": arr.sum(1).tolist(),
        }
    return out


PARTS = {"equivalence": run_equivalence, "linear": run_linear, "monotone": run_monotone, "ring": run_ring,
         "psi": run_psi, "regret": run_regret}


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run every part named in ``config`` (keys of :data:`PARTS`); returns plain python results."""
    if not isinstance(config, dict) or not config:
        raise ValueError("config must be a non-empty dict such as CONFIGS['quick']")
    unknown = set(config) - set(PARTS)
    if unknown:
        raise ValueError(f"config names unknown parts {sorted(unknown)}; known: {sorted(PARTS)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    for name, cfg in config.items():
        _check_part(name, cfg, f"config[{name!r}]")
    device = checks.device("device", device)
    t0 = time.perf_counter()
    out = {}
    for name, cfg in config.items():
        t = time.perf_counter()
        out[name] = PARTS[name](cfg, device, seed)
        out[name]["seconds"] = time.perf_counter() - t
    out["seconds"] = time.perf_counter() - t0
    return out
