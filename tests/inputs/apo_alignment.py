"""Bad-input probes of APO (icml26.papers.apo_alignment): trajectory language, losses, toy world, training loops."""

import torch
from harness import Probe

from icml26.papers.apo_alignment import baselines as B
from icml26.papers.apo_alignment import drifting_teachers as W
from icml26.papers.apo_alignment import experiment as E
from icml26.papers.apo_alignment import explore as X
from icml26.papers.apo_alignment import method as M
from icml26.papers.apo_alignment import training as T

DT = torch.float64
VOCAB = M.Vocab(2, 3)
WORLD = W.make_world(8, 2, 3, generator=torch.Generator().manual_seed(0))
DATA = T.build_data(WORLD, VOCAB)
EV, DEC3, CONS = WORLD.evidence, WORLD.decisions, DATA["consensus"]
DEC = DEC3[:, 0]
TRAJ = M.render(VOCAB, EV, DEC, VOCAB.target_sig)
SRC = DATA["src"].reshape(-1, DATA["src"].shape[-1])
P_LEN = VOCAB.prompt_len
torch.manual_seed(0)
MODEL = T.make_model(VOCAB, d_model=8, n_layers=1, n_heads=2)
REF_LP = T.reference_logprobs(MODEL, DATA, P_LEN)
_g = torch.Generator().manual_seed(1)
LP, LP_REF = torch.randn(4, 3, generator=_g, dtype=DT), torch.randn(4, 3, generator=_g, dtype=DT)
RP, RN = torch.randn(4, generator=_g, dtype=DT), torch.randn(4, 3, generator=_g, dtype=DT)
MASK = torch.tensor([[True, False, True], [False, True, False], [True, True, True], [False, False, True]])
DIVERGENT = torch.tensor([2, 1, 0, 2])
TINY = {**E.CONFIGS["quick"], "hparams": None, "shared": None,
        "n_findings": 2, "n_teachers": 3, "n_train": 8, "n_val": 4, "n_test": 4, "steps1": 1,
        "steps2": 1, "d_model": 8, "n_layers": 1, "n_heads": 2, "batch1": 4, "batch2": 2}
SCORE = {"accuracy": 0.8, "hallucination": 0.1, "omission": 0.1, "well_formed": 1.0}
DECODED = {"sampled": SCORE, "greedy": SCORE}
RESULTS = {"config": {},
           "runs": [{"teachers": [SCORE, SCORE], "consensus": SCORE, "ceilings": {"student": SCORE, "pooled": SCORE},
                     "stage1": DECODED, "methods": {"apo": {"tuned": DECODED, "shared": DECODED}},
                     "settings": {"apo": {"tuned": [1e-4, 0.5], "shared": [1e-4, 0.5]}},
                     "curves": {"apo": {"loss": [1.0, 0.5], "w_pos": [0.3, 0.5]}}}],
           "drift_sweep": {"drift": [0.0, 0.2], "stage1_sampled": [0.8, 0.7], "apo_sampled": [0.85, 0.8],
                           "stage1_greedy": [0.8, 0.7], "apo_greedy": [0.85, 0.8], "best_teacher": [0.8, 0.75],
                           "consensus": [0.9, 0.85], "ceiling_student": [0.86, 0.86]}}
SELECTION = {"seeds": [100], "val_grid": {"apo": [[1e-4, 0.1, 0.5], [1e-4, 0.5, 0.6]]}}
NOT_A_VOCAB = ("vocab", 3, "not a Vocab")


def _model():
    torch.manual_seed(0)
    return T.make_model(VOCAB, d_model=8, n_layers=1, n_heads=2)


PROBES = [
    # ---- method
    Probe(M.Vocab, valid=lambda: {"n_findings": 2, "n_teachers": 3}, extra=[("n_findings", 2.0, "float count")]),
    Probe(M.prompt_tokens, valid=lambda: {"vocab": VOCAB, "evidence": EV},
          extra=[NOT_A_VOCAB, ("evidence", EV[:, :1], "wrong K"), ("evidence", 2 * EV, "not 0/1"),
                 ("evidence", EV.double(), "float evidence")]),
    Probe(M.render, valid=lambda: {"vocab": VOCAB, "evidence": EV, "decisions": DEC, "sig": VOCAB.target_sig},
          extra=[NOT_A_VOCAB, ("decisions", DEC[:3], "row mismatch"), ("sig", VOCAB.target_sig + 1, "past the voices"),
                 ("sig", torch.full((3,), VOCAB.target_sig), "one signature too few"),
                 ("decisions", 2 * DEC, "not 0/1")]),
    Probe(M.parse, valid=lambda: {"vocab": VOCAB, "evidence": EV, "traj": TRAJ},
          extra=[NOT_A_VOCAB, ("traj", TRAJ[:2], "row mismatch"), ("traj", TRAJ[0], "one dimension")]),
    Probe(M.consensus, valid=lambda: {"decisions": DEC3},
          extra=[("decisions", DEC3[0], "two dimensions"), ("decisions", 3 * DEC3, "not 0/1")]),
    Probe(M.negative_mask, valid=lambda: {"decisions": DEC3, "positive": CONS},
          extra=[("positive", CONS[:, :1], "wrong K"), ("decisions", DEC3[0], "two dimensions"),
                 ("positive", 2 * CONS, "not 0/1")]),
    Probe(M.most_divergent, valid=lambda: {"decisions": DEC3, "positive": CONS},
          extra=[("positive", CONS[:3], "row mismatch"), ("decisions", 2 * DEC3, "not 0/1")]),
    Probe(M.implicit_reward, valid=lambda: {"logp": LP, "logp_ref": LP_REF, "beta": 0.1,
                                            "n_tokens": torch.full((4, 3), 4.0, dtype=DT)},
          extra=[("n_tokens", torch.zeros(4, 3, dtype=DT), "zero tokens"),
                 ("logp_ref", LP_REF[:, :2], "shape mismatch"),
                 ("beta", -1.0, "negative beta"), ("beta", True, "bool beta")]),
    Probe(M.apo_loss, valid=lambda: {"r_pos": RP, "r_neg": RN, "neg_mask": MASK},
          extra=[("neg_mask", MASK[:, :2], "mask of the wrong shape"), ("neg_mask", MASK.long(), "integer mask"),
                 ("r_neg", RN[:3], "row mismatch"), ("r_pos", RP[:, None], "two dimensions")]),
    Probe(M.anchored_apo_loss, valid=lambda: {"r_pos": RP, "r_neg": RN, "logp_pos_per_token": -RP.abs(),
                                              "neg_mask": MASK, "weight": 1.0},
          extra=[("logp_pos_per_token", RP[:2], "row mismatch"), ("weight", -1.0, "negative weight"),
                 ("neg_mask", MASK[:, :2], "mask of the wrong shape")]),
    Probe(M.pl_weights, valid=lambda: {"r_pos": RP, "r_neg": RN, "neg_mask": MASK},
          extra=[("neg_mask", MASK[:, :2], "mask of the wrong shape"), ("r_neg", RN[:3], "row mismatch")]),
    # ---- baselines
    Probe(B.pairwise_dpo_loss, valid=lambda: {"r_pos": RP, "r_neg": RN, "neg_mask": MASK},
          extra=[("neg_mask", MASK.long(), "integer mask"), ("r_neg", RN[0], "one dimension"),
                 ("r_pos", RP[:3], "row mismatch")]),
    Probe(B.single_negative_mask, valid=lambda: {"neg_mask": MASK, "rule": "divergent", "divergent": DIVERGENT,
                                                 "generator": None},
          extra=[("rule", "nearest", "unknown rule"), ("divergent", torch.tensor([9, 0, 0, 0]), "index out of range"),
                 ("divergent", DIVERGENT[:2], "one per row"), ("neg_mask", MASK.long(), "integer mask"),
                 ("generator", 3, "not a generator")]),
    Probe(B.best_source, valid=lambda: {"decisions": DEC3, "positive": CONS},
          extra=[("positive", CONS[:, :1], "wrong K"), ("decisions", 2 * DEC3, "not 0/1")]),
    # ---- drifting teachers
    Probe(W.strong_sets, valid=lambda: {"n_teachers": 3, "n_findings": 2, "preset": "complementary"},
          extra=[("preset", "random", "unknown preset")]),
    Probe(W.teacher_rates, valid=lambda: {"n_teachers": 3, "n_findings": 2, "drift": 0.2, "tpr_strong": 0.95,
                                          "fpr_strong": 0.05, "tpr_weak": 0.6, "fpr_weak": 0.35,
                                          "preset": "complementary", "rounds": 2, "device": "cpu"},
          extra=[("drift", 1.5, "drift above 1"), ("preset", "random", "unknown preset"), ("rounds", 0, "no round")]),
    Probe(W.make_world, valid=lambda: {"n_cases": 4, "n_findings": 2, "n_teachers": 3, "drift": 0.2, "p_miss": 0.1,
                                       "p_spur": 0.1, "correlation": 0.0, "preset": "complementary", "generator": None,
                                       "device": "cpu", "p_private": 0.1, "rounds": 2},
          extra=[("generator", 3, "not a generator"), ("preset", "random", "unknown preset"),
                 ("correlation", 1.5, "above 1"), ("n_cases", 2.0, "float count"), ("p_private", 1.5, "above 1"),
                 ("rounds", 0, "no round")]),
    Probe(W.bayes_ceiling, valid=lambda: {"world": WORLD, "view": "pooled"},
          extra=[("world", 3, "not a World"), ("view", "teacher", "unknown view")]),
    # ---- experiment
    Probe(E.grid_points, valid=lambda: {"config": E.CONFIGS["standard"], "objective": "apo"},
          extra=[("objective", "ppo", "unknown objective"), ("config", {"n_train": 3}, "no grid"),
                 ("config", {"grid": {"lr2": [1e-4]}}, "grid without beta")]),
    Probe(E.pipeline, valid=lambda: {"config": dict(TINY), "device": "cpu", "seed": 0, "drift": 0.2,
                                     "objectives": ["apo"]},
          extra=[("objectives", ["ppo"], "unknown objective"), ("config", {**TINY, "hparams": {"apo": [1e-4]}},
                                                                          "one value"),
                 ("config", {**TINY, "shared": [-1.0, 0.1]}, "negative lr"), ("config", {"n_train": 3}, "incomplete"),
                 ("drift", 1.5, "drift above 1"), ("seed", 1.5, "float seed")]),
    Probe(E.select_hparams, valid=lambda: {"config": {**TINY, "objectives": ["sft_consensus"]}, "device": "cpu",
                                           "seeds": [100]},
          extra=[("config", {"n_train": 3}, "incomplete"), ("seeds", [1.5], "float seed"),
                 ("seeds", [0], "an evaluation seed")]),
    Probe(E.summarize, valid=lambda: {"out": RESULTS["runs"][0]},
          extra=[("out", {}, "no scores"), ("out", [1], "not a mapping")]),
    Probe(E.run, valid=lambda: {"config": dict(TINY), "device": "cpu", "seed": 0},
          extra=[("config", {"n_train": 3}, "incomplete"),
                 ("config", {**TINY, "objectives": ["ppo"]}, "unknown objective"),
                 ("config", {**TINY, "steps1": 0}, "no stage-1 step"), ("config", {**TINY, "d_model": 7}, "odd width"),
                 ("config", {**TINY, "voice": "mine"}, "unknown voice"), ("seed", 1.5, "float seed"),
                 ("config", {**TINY, "drift_sweep": [2.0]}, "drift above 1")]),
    # ---- training
    Probe(T.build_data, valid=lambda: {"world": WORLD, "vocab": VOCAB, "voice": "source"},
          extra=[("voice", "mine", "unknown voice"), ("vocab", M.Vocab(3, 3), "vocab of another world"),
                 ("world", 3, "not a World"), NOT_A_VOCAB]),
    Probe(T.target_mask, valid=lambda: {"seq": SRC, "prompt_len": P_LEN},
          extra=[("seq", [1, 2], "a list"), ("seq", SRC.double(), "float tokens")]),
    Probe(T.make_model, valid=lambda: {"vocab": VOCAB, "d_model": 8, "n_layers": 1, "n_heads": 2, "device": "cpu"},
          extra=[("n_heads", 3, "not dividing d_model"), NOT_A_VOCAB]),
    Probe(T.sequence_logprobs, valid=lambda: {"model": MODEL, "seq": SRC, "prompt_len": P_LEN, "chunk": 8},
          extra=[("seq", SRC + 100, "tokens past the vocabulary"), ("model", "gpt", "not a model"),
                 ("seq", SRC[0], "one dimension")]),
    Probe(T.sft, valid=lambda: {"model": _model(), "seqs": SRC, "prompt_len": P_LEN, "steps": 1, "lr": 1e-3,
                                "batch": 2, "generator": None},
          extra=[("steps", -1, "negative steps"), ("steps", 0, "no step"), ("seqs", SRC[0], "one dimension"),
                 ("model", "gpt", "not a model"),
                 ("generator", 3, "not a generator"), ("seqs", SRC + 100, "tokens past the vocabulary")]),
    Probe(T.reference_logprobs, valid=lambda: {"ref": MODEL, "data": DATA, "prompt_len": P_LEN},
          extra=[("data", {"pos": DATA["pos"]}, "no src"), ("ref", 3, "not a model")]),
    Probe(T.preference, valid=lambda: {"policy": _model(), "data": DATA, "prompt_len": P_LEN, "objective": "apo",
                                       "steps": 1, "lr": 1e-3, "batch": 2, "beta": 0.1, "length_norm": False,
                                       "generator": None, "ref": None, "ref_lp": REF_LP, "clip": 1.0},
          extra=[("steps", 0, "no step"), ("objective", "ppo", "unknown objective"), ("clip", 0.0, "zero clip"),
                 ("ref_lp", REF_LP[:2], "rows"),
                 ("steps", -1, "negative steps"), ("data", {}, "empty data"), ("generator", 3, "not a generator"),
                 ("policy", "gpt", "not a model")]),
    Probe(T.decode, valid=lambda: {"model": MODEL, "prompt": DATA["prompt"], "vocab": VOCAB, "greedy": True,
                                   "generator": None},
          extra=[("prompt", DATA["prompt"][0], "one dimension"), NOT_A_VOCAB, ("model", "gpt", "not a model"),
                 ("prompt", DATA["prompt"] + 100, "tokens past the vocabulary"), ("generator", 3, "not a generator")]),
    Probe(T.score_decisions, valid=lambda: {"decisions": DEC, "truth": WORLD.findings,
                                            "well_formed": torch.ones(8, dtype=torch.bool)},
          extra=[("truth", WORLD.findings[:1], "row mismatch"),
                 ("well_formed", torch.ones(3, dtype=torch.bool), "rows"),
                 ("decisions", 2 * DEC, "not 0/1"), ("well_formed", torch.ones(8), "float flags")]),
    Probe(T.evaluate, valid=lambda: {"model": MODEL, "world": WORLD, "vocab": VOCAB},
          extra=[("world", 3, "not a World"), ("vocab", M.Vocab(3, 3), "vocab of another world"),
                 ("model", "gpt", "not a model")]),
    # ---- explore
    Probe(X.plot_drifting_teachers, valid=lambda: {"drift": 0.2, "fpr_weak": 0.35, "correlation": 0.0,
                                                   "preset": "complementary", "n_findings": 2, "n_cases": 20,
                                                   "seed": 0, "p_private": 0.1},
          extra=[("preset", "random", "unknown preset"), ("seed", 1.5, "float seed"), ("p_private", 2.0, "above 1")]),
    Probe(X.plot_negative_weights, valid=lambda: {"margin": 1.0, "spread": 1.0, "n_negatives": 3, "objective": "apo"},
          extra=[("objective", "ppo", "unknown objective"), ("spread", -1.0, "negative spread")]),
    Probe(X.results_table, valid=lambda: {"results": RESULTS},
          extra=[("results", {}, "no runs"), ("results", {"runs": []}, "empty runs"),
                 ("results", [1], "not a mapping")]),
    Probe(X.plot_results, valid=lambda: {"results": RESULTS}, extra=[("results", {}, "no runs")]),
    Probe(X.plot_training, valid=lambda: {"results": RESULTS},
          extra=[("results", {}, "no runs"), ("results", {"runs": [{}]}, "a run without curves")]),
    Probe(X.plot_drift_sweep, valid=lambda: {"results": RESULTS},
          extra=[("results", {}, "no drift sweep"),
                 ("results", {"drift_sweep": {"drift": [0.0]}}, "incomplete sweep")]),
    Probe(X.plot_selection, valid=lambda: {"selection": SELECTION},
          extra=[("selection", {}, "empty"), ("selection", {"val_grid": {"apo": []}}, "no grid"),
                 ("selection", {"val_grid": [1]}, "grid not a mapping")]),
]
EXEMPT = {
    "icml26.papers.apo_alignment.drifting_teachers.World": "a dataclass of plain tensor fields, filled by make_world",
}
