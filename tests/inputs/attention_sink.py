"""Bad-input probes of the attention-sink paper (icml26.papers.attention_sink)."""

import math

import torch
from harness import Probe

from icml26.nn.attention import attention
from icml26.papers.attention_sink import backcopy, baselines, corpus, experiment, explore, method, trained

DT = torch.float64
NAN = float("nan")


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def _scores(b=2, h=3, t=5):
    s = torch.randn(b, h, t, t, generator=_g(), dtype=DT)
    return s.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), -math.inf)


def _model(variant="vanilla", heads=4, layers=1, context=8):
    torch.manual_seed(0)
    return baselines.make_model(variant, 16, heads, layers, context)


def _idx(b=2, t=8):
    return torch.randint(0, 256, (b, t), generator=_g(1))


def _bytes(n=200):
    return torch.arange(n) % 256


def _bc_model():
    return _model(heads=2, context=24)


def _bc_val():
    return torch.cat([torch.full((2, 1), 256), (torch.arange(46) % 16).view(2, 23)], dim=1)


def _results_list():
    q, k, v = (torch.randn(1, 2, 4, 3, generator=_g(i), dtype=DT) for i in range(3))
    return [attention(q, k, v), attention(q, k, v)]


def _ft_cfg():
    return experiment._check_config({**experiment.CONFIGS["quick"], "d_model": 16, "n_heads": 4, "n_layers": 1,
                                     "context": 8, "batch": 2, "eval_batch": 2, "ft_steps": 1, "ft_rank": 2,
                                     "sink_from": 2,
                                     "log_every": 1})


def _run_cfg():
    return {**experiment.CONFIGS["quick"], "d_model": 8, "n_heads": 2, "n_layers": 1, "context": 8, "batch": 2,
            "steps": 1, "eval_batch": 2, "log_every": 1, "ft_steps": 1, "variants": ["sink"], "lams": [0.0],
            "shared": 0, "sink_from": 2, "ablation": False, "max_bytes": 20_000}


def _ev(shift=0.0):
    imp = [[0.5 + shift, 0.3, 0.7, 0.4], [0.6, 0.5, 0.2, 0.8]]
    return {"imp": imp, "mean_cv": 0.3, "mean_imp": 0.5, "a0_per_layer": [[0.3, 0.4, 0.5, 0.2]], "a0_mean": 0.35,
            "history": {"step": [0, 1], "loss": [5.0, 4.0], "cv": [0.3, 0.2], "mean_imp": [0.5, 0.5]},
            "ablation_delta": [[0.1, 0.0, 0.2, 0.05], [0.0, 0.1, 0.3, 0.2]], "spearman_imp_ablation": 0.4}


def _results():
    ft = {"imp_before": [[0.5, 0.3, 0.7, 0.4]], "imp_after": [[0.5, 0.4, 0.6, 0.4]], "cv_before": 0.3,
          "cv_after": 0.2}
    return {"runs": {v: {"lam=0": [_ev()], "lam=0.1": [_ev(0.1)]} for v in ("vanilla", "sink")}, "lam_aux": 0.1,
            "c6": {"m=0": ft, "m=1": ft}}


NOT_RESULTS = ("results", {"c2": {}}, "not a run's results")
NOT_MODEL = ("model", "gpt", "not a model")
FLOAT_IDX = ("idx", torch.zeros(2, 8), "float token ids")
LONG_IDX = ("idx", torch.zeros(2, 9, dtype=torch.long), "longer than the context")
BIG_IDX = ("idx", torch.full((2, 8), 300), "token id past the vocabulary")
NOT_GEN = ("generator", 3, "not a generator")

PROBES = [
    Probe(experiment.backcopy_last_mean,
          valid=lambda: {"points": [{"step": 1, "sink_head": (0, 0), "a0_non_trigger": [[0.5]], "a0_trigger": [[0.1]],
                                     "sink_head_v0_ratio": 0.2, "zero_v0_rel": 0.01}], "last": 1},
          extra=[("points", [], "empty"), ("points", [{"step": 1}], "not sink points")]),
    # ---- method
    Probe(method.vanilla_gate, valid=lambda: {"scores": _scores()},
          extra=[("scores", torch.zeros(5), "1-D"), ("scores", torch.zeros(2, 5, dtype=torch.long), "integer scores"),
                 ("scores", [[0.0, 1.0]], "a list")]),
    Probe(method.sink_gate, valid=lambda: {"lse": torch.randn(2, 3, 5, generator=_g()), "sink_logit": torch.zeros(3)},
          extra=[("sink_logit", torch.zeros(2), "one head too few"), ("sink_logit", torch.tensor([0.0, NAN, 1.0]),
                                                                       "NaN sink")]),
    Probe(method.moe_decomposition, valid=lambda: {"weights": torch.softmax(_scores(), -1),
                                                   "values": torch.randn(2, 3, 5, 4, dtype=DT, generator=_g(2))},
          extra=[("values", torch.zeros(2, 3, 4, 4, dtype=DT), "S mismatch"),
                 ("weights", torch.zeros(3, 5, 5), "3-D")]),
    Probe(method.stack_gates, valid=lambda: {"results": _results_list()},
          extra=[("results", [], "empty"), ("results", [3], "not an AttentionResult"),
                 ("results", torch.zeros(2, 2), "a tensor"),
                 ("results", [_results_list()[0], attention(*(torch.zeros(1, 2, 5, 3),) * 3)], "shapes differ")]),
    Probe(method.head_importance, valid=lambda: {"gates": torch.rand(2, 3, 4, 6, generator=_g()), "skip": 1},
          skip={"skip": "skip 0 keeps position 0, which is valid"},
          extra=[("skip", -1, "negative"), ("skip", 6, "skip == T"), ("skip", 1.5, "float"),
                 ("gates", torch.rand(3, 4, 6), "3-D")]),
    Probe(method.layer_cv, valid=lambda: {"imp": torch.rand(2, 4, generator=_g()), "eps": 1e-6},
          extra=[("imp", torch.rand(2, 1), "one head"), ("eps", -1.0, "negative eps")]),
    Probe(method.routed_mask, valid=lambda: {"imp": torch.rand(2, 4, generator=_g()), "shared": 1},
          skip={"shared": "shared 0 is the from-scratch form"},
          extra=[("shared", -1, "negative"), ("shared", 3, "more than H-2"), ("shared", 1.0, "float"),
                 ("imp", torch.rand(4), "1-D")]),
    Probe(method.load_balance_loss, valid=lambda: {"imp": torch.rand(2, 4, generator=_g()), "lam": 0.3, "shared": 1,
                                                   "eps": 1e-6},
          skip={"shared": "shared 0 is the from-scratch form"},
          extra=[("shared", -1, "negative"), ("shared", 3, "more than H-2"), ("lam", -1.0, "negative lam")]),
    Probe(method.sink_aware_loss, valid=lambda: {"model": _model("sink"), "idx": _idx(), "lam": 0.5, "shared": 0},
          extra=[NOT_MODEL, FLOAT_IDX, LONG_IDX, BIG_IDX, ("idx", torch.zeros(8, dtype=torch.long), "1-D"),
                 ("shared", 3, "more than H-2"), ("lam", -1.0, "negative lam")]),
    Probe(method.switch_balance_loss, valid=lambda: {"gates": torch.rand(1, 2, 4, 6, generator=_g()), "lam": 1.0},
          extra=[("gates", torch.rand(2, 4, 6), "3-D"), ("lam", -1.0, "negative lam")]),
    # ---- baselines
    Probe(baselines.make_model, valid=lambda: {"variant": "vanilla", "d_model": 16, "n_heads": 4, "n_layers": 1,
                                               "context": 8, "device": "cpu"},
          extra=[("variant", "flash", "unknown variant"), ("d_model", 15, "not divisible by n_heads"),
                 ("fused", "yes", "not a bool")]),
    Probe(baselines.random_head_order, valid=lambda: {"n_layers": 2, "n_heads": 3, "generator": _g()},
          extra=[NOT_GEN, ("n_heads", 1.5, "float")]),
    # ---- corpus
    Probe(corpus.Corpus, valid=lambda: {"train": _bytes(), "val": _bytes(50), "shift": _bytes(60), "source": "test",
                                        "python": "3", "checksum": "abc"},
          extra=[("train", torch.rand(10), "float bytes"), ("val", torch.zeros(3, 3, dtype=torch.long), "2-D"),
                 ("shift", torch.full((5,), 300), "not bytes"), ("shift", torch.zeros(0, dtype=torch.long), "empty"),
                 ("source", 3, "not a string")]),
    Probe(corpus.load_corpus, valid=lambda: {"max_bytes": 5000, "synthetic": True},
          extra=[("max_bytes", 100, "below 1024"), ("max_bytes", 5000.0, "float")]),
    Probe(corpus.sample_batch, valid=lambda: {"data": _bytes(), "batch": 3, "context": 8, "generator": _g(),
                                              "device": "cpu"},
          extra=[("data", torch.rand(100), "float bytes"), ("data", torch.zeros(4, 50, dtype=torch.long), "2-D"),
                 ("context", 500, "longer than data"), ("context", 1, "one position"), NOT_GEN]),
    Probe(backcopy.backcopy_stream, valid=lambda: {"n": 200, "vocab": 16, "n_triggers": 2, "fanout": 3, "seed": 0},
          extra=[("n", 8, "too short"), ("vocab", 300, "over 256"), ("n_triggers", 16, "all triggers"),
                 ("fanout", 17, "more successors than symbols")]),
    Probe(backcopy.train_backcopy, valid=lambda: {"variant": "sink", "lam": 0.1, "steps": 2, "every": 1, "seed": 0,
                                                  "d_model": 8, "n_heads": 2, "n_layers": 1, "lr": 1e-3, "batch": 2,
                                                  "context": 20, "sink_from": 4, "device": "cpu", "on_point": None},
          skip={"lam": "lam = 0 is valid (the baseline without the aux loss)"},
          extra=[("context", 5, "shorter than sink_from + 2"), ("on_point", 3, "not callable"),
                 ("variant", "nope", "unknown variant"), ("lam", -0.1, "negative")]),
    Probe(backcopy.held_out, valid=lambda: {"seed": 0, "context": 16, "n": 2},
          extra=[("context", 1, "one position")]),
    Probe(backcopy.sink_point, valid=lambda: {"model": _bc_model(), "val": _bc_val(), "triggers": torch.tensor([1, 2]),
                                              "sink_from": 4},
          extra=[("triggers", torch.tensor([1.0]), "float triggers"), ("sink_from", 30, "past the window"),
                 ("val", torch.zeros(2, 8), "float tokens")]),
    # ---- experiment
    Probe(experiment.train_lm, valid=lambda: {"model": _model(), "data": _bytes(), "steps": 2, "batch": 2, "lr": 1e-3,
                                              "lam": 0.1, "shared": 0, "generator": _g(), "weight_decay": 0.01,
                                              "warmup": 0.05, "clip": 1.0, "log_every": 1, "schedule": "constant",
                                              "on_log": None},
          extra=[NOT_MODEL, ("data", torch.rand(100), "float bytes"), ("data", _bytes(5), "shorter than context"),
                 ("generator", None, "no generator"), ("shared", 3, "more than H-2"), ("warmup", 1.5, "above 1"),
                 ("lr", 0.0, "zero learning rate"), ("schedule", "linear", "unknown schedule"),
                 ("on_log", 3, "not callable")]),
    Probe(experiment.zero_first_value_loss, valid=lambda: {"model": _model(), "idx": _idx()},
          extra=[NOT_MODEL, FLOAT_IDX, LONG_IDX, BIG_IDX]),
    Probe(experiment.evaluate, valid=lambda: {"model": _model(), "idx": _idx(), "sink_from": 2, "ablation": True,
                                              "generator": _g()},
          skip={"sink_from": "sink_from 0 includes every position, which is valid"},
          extra=[NOT_MODEL, FLOAT_IDX, BIG_IDX, ("sink_from", -1, "negative"), ("sink_from", 8, "sink_from == T"),
                 NOT_GEN]),
    Probe(experiment.gate_identity_check, valid=lambda: {"device": "cpu", "seed": 0, "batch": 2, "heads": 2, "t": 6,
                                                         "d": 4},
          extra=[("t", 1, "one position"), ("seed", 1.5, "float seed")]),
    Probe(experiment.finetune_pinning, valid=lambda: {"base": _model(), "corpus": corpus.load_corpus(5000, True),
                                                      "cfg": _ft_cfg(), "device": "cpu", "seed": 0, "shared": 0,
                                                      "lam": 0.01},
          extra=[("base", "gpt", "not a model"), ("corpus", 3, "not a corpus"), ("cfg", {"batch": 2}, "incomplete"),
                 ("cfg", {**_ft_cfg(), "ft_steps": 0}, "zero steps"), ("shared", 3, "more than H-2"),
                 ("lam", -1.0, "negative lam")]),
    Probe(experiment.run, valid=lambda: {"config": _run_cfg(), "device": "cpu", "seed": 0},
          extra=[("config", {"steps": 3}, "incomplete"), ("config", "quick", "a string"),
                 ("config", {**_run_cfg(), "variants": ["flash"]}, "unknown variant"),
                 ("config", {**_run_cfg(), "lr": NAN}, "NaN learning rate"),
                 ("config", {**_run_cfg(), "d_model": 9}, "d_model not divisible by n_heads"),
                 ("config", {**_run_cfg(), "lams": [0.0, math.inf]}, "infinite lam"),
                 ("config", {**_run_cfg(), "c5_lams": [0.5]}, "c5 lam not trained"),
                 ("config", {**_run_cfg(), "warmup": 2.0}, "warm-up above 1"),
                 ("config", {**_run_cfg(), "max_bytes": 10}, "max_bytes below 1024"),
                 ("seed", 1.5, "float seed")]),
    # ---- explore
    Probe(explore.toy_head, valid=lambda: {"sink_logit": 1.0, "first_token_bias": 2.0, "v0_scale": 0.2,
                                           "gate_bias": 0.0, "seq_len": 6, "d": 4, "seed": 0},
          extra=[("seq_len", 300, "too long"), ("seq_len", 6.0, "float"), ("v0_scale", -1.0, "negative")]),
    Probe(explore.plot_sink_explorer, valid=lambda: {"variant": "sink", "sink_logit": 1.0, "first_token_bias": 2.0,
                                                     "v0_scale": 0.2, "gate_bias": 0.0, "seq_len": 6, "seed": 0},
          extra=[("variant", "linear", "unknown variant")]),
    Probe(explore.plot_training, valid=lambda: {"results": _results()}, extra=[NOT_RESULTS, ("results", 3, "an int")]),
    Probe(explore.plot_importance, valid=lambda: {"results": _results(), "lam": 0.1},
          extra=[NOT_RESULTS, ("lam", 0.5, "a lam that was not trained"), ("lam", "0", "a string")]),
    Probe(explore.plot_ablation, valid=lambda: {"results": _results()}, extra=[NOT_RESULTS]),
    Probe(explore.plot_pinning, valid=lambda: {"results": _results()}, extra=[NOT_RESULTS]),
    Probe(explore.plot_trained_explorer, valid=lambda: {"variant": "sink", "lam": 0.1, "head": 1, "window": 2},
          skip={"head": "head 0 is valid", "window": "window 0 is valid"},
          extra=[("variant", "linear", "no shipped model"), ("lam", 0.5, "no shipped model"),
                 ("head", 2, "past the heads"), ("head", -1, "negative"), ("window", 64, "past the windows"),
                 ("window", -1, "negative"), ("head", True, "a bool")]),
    Probe(explore.plot_emergence, valid=lambda: {"variant": "gated_head", "lam": 0.0},
          extra=[("variant", "nope", "unknown variant"), ("lam", 1.0, "no shipped model")]),
    Probe(trained.filename, valid=lambda: {"variant": "vanilla", "lam": 0.1}, extra=[("lam", 0.2, "not shipped")]),
    Probe(trained.load, valid=lambda: {"variant": "vanilla", "lam": 0.0, "device": "cpu"},
          extra=[("variant", "gated_elem", "not shipped")]),
    Probe(explore.plot_run, valid=lambda: {"results": _results(), "variant": "sink", "lam": 0.0},
          extra=[NOT_RESULTS, ("variant", "flash", "unknown variant"), ("lam", 0.5, "a lam that was not trained")]),
]
EXEMPT = {
    "icml26.papers.attention_sink.make_weights.main": "a command line (argparse validates its options)",
}
