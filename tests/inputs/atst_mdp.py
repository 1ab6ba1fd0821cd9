"""Bad-input probes of the ATST-MDP paper (icml26.papers.atst_mdp): models, sequences, features, learners."""

import numpy as np
import torch
from harness import Probe

from icml26.papers.atst_mdp import baselines as B
from icml26.papers.atst_mdp import experiment as E
from icml26.papers.atst_mdp import explore as X
from icml26.papers.atst_mdp import method as M

DT = torch.float64
MODEL = M.random_tabular(3, 2, [0.3, 1.0], 0.8, seed=0)
SEQS = M.enumerate_sequences(2, 2)
R, BQ = M.sequence_model(MODEL, SEQS)
LR = M.random_low_rank(4, 2, 2, [0.3, 1.0], 0.8, seed=0)
MOP = M.transition_operators(LR.phi, LR.mu)
PSI = M.psi_features(LR.phi, MOP, LR.beta, LR.gamma, SEQS)
R_LR, BQ_LR = M.sequence_model(LR.tabular(), SEQS)
V_LR = M.sequence_policy_iteration(R_LR, BQ_LR)[0]
S_OFF, A_OFF, SN_OFF = M.sample_offline(LR, 10, seed=0)
Q_MDP, V_MDP, PI_MDP = B.mdp_oracle(MODEL)
POLICY = torch.zeros(3, dtype=torch.long)


def _ints(n, value=0):
    return torch.full((n,), value, dtype=torch.long)


EQ = {"sizes": [3], "L": [2], "n_actions": 2, "beta": [0.3, 1.0], "gamma": 0.8, "mc_rollouts": 50, "mc_pairs": 1}
LIN = {"n_states": 4, "n_actions": 2, "dim": 2, "L": 2, "beta": [0.3, 1.0], "gamma": 0.8}
MONO = {"n_models": 1, "n_states": 3, "n_actions": 2, "L_max": 2, "beta": [0.3, 1.0], "gamma": 0.8}
RING = {"n_positions": 4, "slip": 0.2, "beta_move": 0.1, "beta_sense": 1.0, "gamma": 0.9, "L": 2, "beta_sweep": [0.5],
        "beta_near_one": 0.9}
PSI_CFG = {"n_states": 4, "n_actions": 2, "dim": 2, "L": 2, "beta": [0.3, 1.0], "gamma": 0.8, "concentration": 0.1,
           "ns": [20, 40], "reps": 1, "lam": 1.0}
REG = {"n_states": 4, "n_actions": 2, "dim": 2, "L": 2, "beta": [0.3, 1.0], "gamma": 0.8, "concentration": 0.1,
       "K": 2, "n_seeds": 1, "bonus_scale": 1.0, "lam": 1.0, "n_offline": 50, "psi_source": "estimated",
       "replan": "every", "learners": ["atst_lsvi_ucb", "random"]}
RATE = {**REG, "K": 4, "n_seeds": 2, "learners": ["atst_lsvi_ucb", "full_lsvi_ucb"], "dims": [2, 3],
        "gammas": [0.7, 0.8], "n_boot": 5}
RESULTS = {
    "rate": E.run_rate(dict(RATE), "cpu", 0),
    "psi": {"ns": [100, 200, 400], "sup_err": [0.1, 0.07, 0.05], "slope": -0.5},
    "regret": {"K": 3, "learners": {"random": {"cum_regret": [0.5, 1.0, 1.5], "slope": 1.0}}},
    "equivalence": {"mc_rows": [{"S": 3, "L": 2, "mc": 1.0, "se": 0.1, "Q": 1.05}]},
}


def _learner():
    return M.ATSTLSVIUCB(PSI, 0.8, 1.0)


def _part(fn, cfg, extra=()):
    return Probe(fn, valid=lambda: {"cfg": dict(cfg), "device": "cpu", "seed": 0},
                 extra=[("cfg", {}, "empty part config"), ("cfg", [1], "not a mapping"), ("seed", 1.5, "float seed"),
                        *extra])


PROBES = [
    # ---- method: models
    Probe(M.ATSTMDP, valid=lambda: {"P": MODEL.P, "r": MODEL.r, "beta": MODEL.beta, "gamma": 0.8},
          extra=[("P", MODEL.P[:, :, :2], "non-square kernel"), ("P", 2 * MODEL.P, "rows not summing to 1"),
                 ("P", MODEL.P.long(), "integer kernel"), ("r", MODEL.r.T, "transposed rewards"),
                 ("r", MODEL.r + 2, "rewards above 1"), ("beta", torch.tensor([0.3, 1.5], dtype=DT), "beta above 1"),
                 ("gamma", 1.0, "gamma 1"), ("gamma", "0.8", "text gamma")]),
    Probe(M.LowRankMDP, valid=lambda: {"phi": LR.phi, "mu": LR.mu, "theta": LR.theta, "beta": LR.beta, "gamma": 0.8},
          extra=[("mu", LR.mu.T, "transposed mu"), ("theta", LR.theta[:1], "theta of the wrong size"),
                 ("beta", LR.beta[:1], "one beta too few"), ("gamma", 1.5, "gamma above 1"),
                 ("phi", LR.phi[0], "two dimensions")]),
    Probe(M.random_tabular, valid=lambda: {"n_states": 3, "n_actions": 2, "beta": [0.3, 1.0], "gamma": 0.8,
                                           "seed": 0, "device": "cpu"},
          extra=[("beta", [0.3], "one beta too few"), ("beta", [float("nan"), 1.0], "NaN beta"),
                 ("seed", 1.5, "float seed"), ("gamma", 1.0, "gamma 1"), ("n_states", 2.5, "float size")]),
    Probe(M.random_low_rank, valid=lambda: {"n_states": 4, "n_actions": 2, "dim": 2, "beta": [0.3, 1.0],
                                            "gamma": 0.8, "seed": 0, "concentration": 1.0, "device": "cpu"},
          extra=[("concentration", -1.0, "negative concentration"), ("gamma", 0.0, "gamma 0"),
                 ("beta", [0.3, 1.2], "beta above 1")]),
    Probe(M.drifting_ring, valid=lambda: {"n_positions": 4, "slip": 0.2, "beta_move": 0.1, "beta_sense": 1.0,
                                          "gamma": 0.9, "target": 0, "device": "cpu"},
          extra=[("n_positions", 2, "too few positions"), ("target", 4, "target past the ring"),
                 ("slip", 1.5, "slip above 1"), ("beta_move", -0.1, "negative beta")]),
    # ---- method: sequences
    Probe(M.enumerate_sequences, valid=lambda: {"n_actions": 2, "L": 2, "device": "cpu"},
          extra=[("L", 30, "too many sequences"), ("L", 2.0, "float L")]),
    Probe(M.tail_inverse, valid=lambda: {"M": MODEL.P, "beta": MODEL.beta, "gamma": 0.8},
          extra=[("M", MODEL.P[:, :, :2], "non-square operators"), ("beta", torch.ones(3, dtype=DT), "one per state"),
                 ("gamma", 1.0, "gamma 1"), ("beta", torch.tensor([0.3, 1.5], dtype=DT), "beta above 1")]),
    Probe(M.sequence_model, valid=lambda: {"model": MODEL, "seqs": SEQS},
          extra=[("model", "ring", "not a model"), ("seqs", SEQS.double(), "float sequences"),
                 ("seqs", SEQS + 5, "actions out of range"), ("seqs", SEQS[:0], "no sequence"),
                 ("seqs", SEQS[:, 0], "one dimension")]),
    Probe(M.sequence_q, valid=lambda: {"R": R, "Bseq": BQ, "V": torch.ones(3, dtype=DT)},
          extra=[("V", torch.ones(4, dtype=DT), "V of the wrong length"),
                 ("Bseq", BQ[:, :, :2], "Bseq of the wrong shape"),
                 ("R", R[:, :2], "R with too few sequences")]),
    Probe(M.policy_matrices, valid=lambda: {"R": R, "Bseq": BQ, "policy": POLICY},
          extra=[("policy", torch.tensor([0, 0, 9]), "index out of range"),
                 ("policy", torch.full((3, 4), 0.5, dtype=DT), "rows not summing to 1"),
                 ("policy", [0, 0, 0], "a list"),
                 ("Bseq", BQ[:2], "Bseq of the wrong shape")]),
    Probe(M.evaluate_sequence_policy, valid=lambda: {"R": R, "Bseq": BQ, "policy": POLICY},
          extra=[("policy", torch.tensor([0, 0, 9]), "index out of range"), ("policy", POLICY[:2], "too short"),
                 ("Bseq", 20 * BQ, "not discounted")]),
    Probe(M.sequence_policy_iteration, valid=lambda: {"R": R, "Bseq": BQ, "max_iter": 50},
          extra=[("Bseq", BQ[:, :2], "Bseq of the wrong shape"), ("Bseq", 20 * BQ, "not discounted")]),
    Probe(M.augmented_value_iteration, valid=lambda: {"model": MODEL, "L": 2, "tol": 1e-12, "max_iter": 1000},
          extra=[("model", 3, "not a model"), ("tol", 1e-20, "a tolerance float64 cannot reach"),
                 ("tol", -1.0, "negative tolerance")]),
    Probe(M.simulate_returns, valid=lambda: {"model": MODEL, "seqs": SEQS, "start": 0, "first_seq": 0,
                                             "policy": POLICY, "n_rollouts": 20, "seed": 0},
          extra=[("start", 3, "start past the states"), ("first_seq", 4, "sequence past the table"),
                 ("policy", torch.tensor([0, 0, 7]), "policy index out of range"), ("policy", POLICY[:2], "too short"),
                 ("policy", POLICY.double(), "float policy"), ("model", "m", "not a model"), ("seed", 1.5, "float")]),
    Probe(M.SegmentSimulator, valid=lambda: {"model": MODEL, "seqs": SEQS, "seed": 0},
          extra=[("model", "m", "not a model"), ("seed", 1.5, "float seed"),
                 ("seqs", SEQS + 2, "actions out of range")]),
    # ---- method: features and estimation
    Probe(M.transition_operators, valid=lambda: {"phi": LR.phi, "mu": LR.mu},
          extra=[("mu", LR.mu.T, "transposed mu"), ("phi", LR.phi[0], "two dimensions")]),
    Probe(M.psi_features, valid=lambda: {"phi": LR.phi, "M": MOP, "beta": LR.beta, "gamma": 0.8, "seqs": SEQS},
          extra=[("beta", LR.beta[:1], "one beta too few"), ("gamma", 1.0, "gamma 1"),
                 ("seqs", SEQS + 3, "bad actions"),
                 ("M", MOP[:1], "one operator too few")]),
    Probe(M.estimate_operators, valid=lambda: {"phi": LR.phi, "s": S_OFF, "a": A_OFF, "s_next": SN_OFF, "lam": 1.0},
          extra=[("s", S_OFF[:3], "length mismatch"), ("a", A_OFF + 5, "action out of range"),
                 ("s_next", SN_OFF + 10, "state out of range"), ("lam", -1.0, "negative ridge"),
                 ("s", S_OFF.double(), "float states")]),
    Probe(M.sample_offline, valid=lambda: {"model": LR, "n": 5, "seed": 0},
          extra=[("model", MODEL, "a tabular model"), ("seed", 1.5, "float seed")]),
    # ---- method: learner
    Probe(M.ATSTLSVIUCB, valid=lambda: {"psi": PSI, "gamma": 0.8, "bonus_scale": 0.1, "lam": 1.0, "eps": 0.0,
                                        "seed": 0, "replan": "every"},
          extra=[("replan", "never", "unknown replan"), ("eps", 1.5, "eps above 1"), ("psi", PSI[0], "two dimensions"),
                 ("bonus_scale", -1.0, "negative bonus"), ("lam", 0.0, "zero ridge"), ("seed", 1.5, "float seed")]),
    Probe(M.run_learner, valid=lambda: {"learner": _learner(), "sim": M.SegmentSimulator(LR.tabular(), SEQS, seed=0),
                                        "R": R_LR, "Bseq": BQ_LR, "rho0": torch.full((4,), 0.25, dtype=DT),
                                        "V_star": V_LR, "K": 2},
          extra=[("rho0", torch.full((4,), 0.5, dtype=DT), "not summing to 1"), ("V_star", V_LR[:3], "too short"),
                 ("learner", "ucb", "not a learner"), ("sim", None, "no simulator"), ("R", R_LR[:, :2], "R mismatch"),
                 ("rho0", torch.full((3,), 1 / 3, dtype=DT), "wrong length")]),
    Probe(M.loglog_slope, valid=lambda: {"x": np.array([1.0, 2.0, 4.0]), "y": np.array([1.0, 0.5, 0.25])},
          extra=[("y", np.ones(2), "length mismatch"), ("x", np.ones((3, 2)), "two dimensions")]),
    Probe(M.tail_gap_bound, valid=lambda: {"gamma": 0.9, "beta": MODEL.beta, "L": 2},
          extra=[("beta", torch.tensor([1.5], dtype=DT), "beta above 1"), ("gamma", 1.0, "gamma 1"),
                 ("L", 2.5, "float L")]),
    # ---- baselines
    Probe(B.mdp_oracle, valid=lambda: {"model": MODEL}, extra=[("model", "x", "not a model")]),
    Probe(B.open_loop_values, valid=lambda: {"model": MODEL, "rule": lambda b, s0, k: torch.zeros(3, dtype=torch.long),
                                             "horizon": 5, "tol": 1e-12},
          extra=[("rule", 3, "not callable"), ("tol", -1.0, "negative tolerance"), ("tol", 2.0, "tolerance above 1"),
                 ("horizon", 2.5, "float horizon"), ("model", 3, "not a model")]),
    Probe(B.qmdp_values, valid=lambda: {"model": MODEL, "Q_mdp": Q_MDP},
          extra=[("Q_mdp", Q_MDP.T, "transposed Q"), ("model", 3, "not a model")]),
    Probe(B.stale_values, valid=lambda: {"model": MODEL, "pi_mdp": PI_MDP},
          extra=[("pi_mdp", torch.tensor([0, 0, 5]), "action out of range"), ("pi_mdp", PI_MDP[:2], "too short"),
                 ("pi_mdp", PI_MDP.double(), "float actions")]),
    Probe(B.repeat_index, valid=lambda: {"seqs": SEQS, "n_actions": 2},
          extra=[("seqs", SEQS[1:3], "lacks the constant sequences"), ("seqs", SEQS.double(), "float sequences")]),
    Probe(B.StaleLSVIUCB, valid=lambda: {"phi": LR.phi, "seqs": SEQS, "gamma": 0.8, "bonus_scale": 0.1, "lam": 1.0,
                                         "replan": "every"},
          extra=[("replan", "x", "unknown replan"), ("seqs", SEQS[1:3], "lacks the constant sequences"),
                 ("gamma", 1.0, "gamma 1"), ("phi", LR.phi[0], "two dimensions"), ("bonus_scale", -1.0, "negative")]),
    Probe(B.RandomSequences, valid=lambda: {"n_states": 3, "n_seq": 4, "seed": 0, "device": "cpu"},
          extra=[("seed", 1.5, "float seed")]),
    # ---- experiment
    _part(E.run_equivalence, EQ, [("cfg", {**EQ, "L": [2, 3]}, "sizes and L of different lengths"),
                                  ("cfg", {**EQ, "mc_rollouts": 0}, "zero rollouts")]),
    _part(E.run_linear, LIN, [("cfg", {**LIN, "L": 0}, "L 0"), ("cfg", {**LIN, "beta": [0.3]}, "one beta too few")]),
    _part(E.run_monotone, MONO, [("cfg", {**MONO, "n_models": 0}, "no model"),
                                 ("cfg", {**MONO, "L_max": 0}, "L_max 0")]),
    _part(E.run_ring, RING, [("cfg", {**RING, "beta_sweep": []}, "empty sweep"),
                             ("cfg", {**RING, "beta_near_one": float("nan")}, "NaN beta")]),
    _part(E.run_psi, PSI_CFG, [("cfg", {**PSI_CFG, "ns": []}, "no sample size"),
                               ("cfg", {**PSI_CFG, "reps": 0}, "no rep"),
                               ("cfg", {**PSI_CFG, "ns": [20, 0]}, "zero sample size")]),
    _part(E.run_regret, REG, [("cfg", {**REG, "psi_source": "oracle"}, "unknown psi source"),
                              ("cfg", {**REG, "learners": ["ppo"]}, "unknown learner"),
                              ("cfg", {**REG, "learners": []}, "no learner"), ("cfg", {**REG, "K": 0}, "no episode"),
                              ("cfg", {**REG, "n_seeds": 0}, "no replicate")]),
    _part(E.run_rate, RATE, [("cfg", {**RATE, "dims": [2]}, "one d only"),
                             ("cfg", {**RATE, "gammas": [0.8, 1.0]}, "gamma 1 in the grid"),
                             ("cfg", {**RATE, "gammas": []}, "no gamma"), ("cfg", {**RATE, "n_boot": 0}, "no resample"),
                             ("cfg", {**RATE, "bonus_by_learner": {"ppo": 1.0}}, "bonus for an unknown learner"),
                             ("cfg", {**RATE, "bonus_by_learner": {"full_lsvi_ucb": -1.0}}, "negative bonus")]),
    Probe(E.bonus_for, valid=lambda: {"name": "full_lsvi_ucb", "cfg": dict(REG)},
          extra=[("name", "ppo", "unknown learner"), ("cfg", {"gamma": 0.8}, "no bonus_scale")]),
    Probe(E.ring_values, valid=lambda: {"n_positions": 4, "slip": 0.2, "beta_move": 0.1, "beta_sense": 1.0,
                                        "gamma": 0.9, "L": 2, "device": "cpu"},
          extra=[("beta_move", 1.5, "beta above 1"), ("L", 2.5, "float L")]),
    Probe(E.make_learner, valid=lambda: {"name": "atst_lsvi_ucb", "cfg": dict(REG), "psi": PSI, "lr": LR, "seqs": SEQS,
                                         "seed": 0},
          extra=[("name", "ppo", "unknown learner"), ("cfg", {"gamma": 0.8}, "incomplete config"),
                 ("psi", PSI[0], "two dimensions"), ("lr", MODEL, "not a low-rank model"), ("seed", 1.5, "float")]),
    Probe(E.run, valid=lambda: {"config": {**dict.fromkeys(E.CONFIGS["quick"]), "linear": dict(LIN)}, "device": "cpu",
                                "seed": 0},
          extra=[("config", {"nope": {}}, "unknown part"), ("config", {"linear": {"n_states": 4}}, "incomplete part"),
                 ("config", {}, "empty config"), ("seed", 1.5, "float seed"),
                 ("config", {"linear": dict(LIN), "ring": {**RING, "L": 0}}, "a bad later part")]),
    # ---- explore
    Probe(X.blind_beliefs, valid=lambda: {"n_positions": 4, "slip": 0.2, "steps": 2, "action": 2, "start": 0},
          skip={"steps": "0 blind steps is valid (the start belief only)", "action": "action 0 (left) is valid"},
          extra=[("steps", -1, "negative steps"), ("action", 4, "action past the ring's four"),
                 ("action", -1, "negative"), ("start", 4, "start past the ring"),
                 ("n_positions", 2, "too few positions"), ("slip", 1.5, "slip > 1")]),
    Probe(X.plot_ring_values, valid=lambda: {"beta_move": 0.1, "slip": 0.2, "gamma": 0.9, "L": 2},
          extra=[("beta_move", 1.5, "beta above 1"), ("gamma", 1.0, "gamma 1")]),
    Probe(X.plot_L_convergence, valid=lambda: {"L_max": 2, "gamma": 0.9, "beta_low": 0.2, "seed": 0},
          extra=[("beta_low", 1.5, "beta above 1"), ("gamma", 1.0, "gamma 1"), ("seed", 1.5, "float seed")]),
    Probe(X.plot_psi_error, valid=lambda: {"results": RESULTS},
          extra=[("results", {}, "no psi part"), ("results", {"psi": {"ns": [1]}}, "incomplete psi part")]),
    Probe(X.plot_regret, valid=lambda: {"results": RESULTS, "loglog": True},
          extra=[("results", {}, "no regret part"), ("results", {"regret": {"K": 3}}, "no learners")]),
    Probe(X.plot_rate, valid=lambda: {"results": RESULTS},
          extra=[("results", {}, "no rate part"), ("results", {"rate": {"K": 3}}, "incomplete rate part")]),
    Probe(X.plot_equivalence, valid=lambda: {"results": RESULTS},
          extra=[("results", {}, "no equivalence part"), ("results", [1], "not a mapping")]),
    Probe(X.plot_regret_live, valid=lambda: {"bonus_scale": 1.0, "K": 2, "seed": 0},
          extra=[("bonus_scale", -1.0, "negative bonus"), ("seed", 1.5, "float seed")]),
]
EXEMPT = {}
