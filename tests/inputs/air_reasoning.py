"""Bad-input probes of icml26.papers.air_reasoning (see tests/inputs/harness.py)."""

import functools

import torch
from harness import Probe

from icml26.nn.tiny_gpt import GPTConfig
from icml26.papers.air_reasoning import baselines as B
from icml26.papers.air_reasoning import experiment as E
from icml26.papers.air_reasoning import explore as X
from icml26.papers.air_reasoning import method as M
from icml26.papers.air_reasoning import pretrained as P
from icml26.papers.air_reasoning import tasks as D
from icml26.papers.air_reasoning import training as T

PKG = "icml26.papers.air_reasoning"
V = D.Vocab(12)
SMALL_BASE = P.small(P.RECIPES["base"])
SMALL_STUDENT = P.small(P.RECIPES["student"])


def _gen():
    return torch.Generator().manual_seed(0)


def _model():
    torch.manual_seed(0)
    return T.make_model(V, 16, 2, 2, 96, "cpu").eval()


@functools.cache
def _batch():
    return D.natural_pool(6, V, generator=_gen())


def _probe():
    return D.copy_probes(4, V, 4, 2, generator=_gen())


@functools.cache
def _scores():
    b = _batch()
    return M.attention_influence(_model(), [(1, 0)], b.idx, b.step)


@functools.cache
def _results():
    cfg = dict(base=SMALL_BASE, student=SMALL_STUDENT, pool=30, k=6, sft_steps=1, sft_batch=4, n_probe=8, n_eval=2,
               n_random=1, selectors=("air", "random"), weighting=("natural",))
    return E.run(cfg, "cpu", 0)


def _tmp():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="icml26-air-")) / "m.safetensors"


@functools.cache
def _saved():
    path = _tmp()
    return path, P.save(_model(), path, SMALL_BASE)


BAD_RANGE = ("hops", (3, 1), "a reversed range")
PROBES = [
    Probe(D.Vocab, valid=lambda: {"n_vars": 12}, extra=[("n_vars", 3, "fewer than 4 variables")]),
    Probe(D.copy_probes, valid=lambda: {"n": 3, "vocab": V, "n_pairs": 4, "n_queries": 2, "generator": _gen()},
          extra=[("n_queries", 5, "more queries than pairs"), ("vocab", 12, "not a Vocab")]),
    Probe(D.traces, valid=lambda: {"n": 3, "vocab": V, "noise": 0.3, "wrong_p": 0.5, "generator": _gen()},
          extra=[BAD_RANGE, ("kind", "natural", "a kind traces() does not make"), ("noise", 1.5, "above 1"),
                 ("n_distract", (0, 12), "too many variables"), ("length", 3, "shorter than a trace")]),
    Probe(D.contrast_pool, valid=lambda: {"n": 8, "vocab": V, "noise": 0.3, "wrong_p": 0.5, "generator": _gen()},
          extra=[("frac", (0.5, 0.6, 0.0), "not summing to one"), ("frac", (1.0,), "one fraction"), BAD_RANGE]),
    Probe(D.natural_pool, valid=lambda: {"n": 4, "vocab": V, "slip_p": 0.3, "skip_p": 0.2, "generator": _gen()},
          extra=[("verbose", (0.5, 0.1), "a reversed range"), ("slip", (0.1, 1.5), "above 1"),
                 ("skip_p", -0.1, "below 0"), BAD_RANGE]),
    Probe(D.longest_response, valid=lambda: {"hops": 6, "n_filler": 12},
          skip={"n_filler": "no filler lines (0) is a valid count"},
          extra=[("n_filler", 1.5, "a float"), ("n_filler", -1, "negative")]),
    Probe(D.problems, valid=lambda: {"n": 2, "vocab": V, "hops": 5, "context_bindings": 8, "generator": _gen()},
          extra=[("context_bindings", 4, "fewer bindings than hops"), ("context_bindings", 13, "more than n_vars")]),
    Probe(D.concat, valid=lambda: {"batches": [_batch(), _batch()]},
          extra=[("batches", [], "an empty list"), ("batches", [3], "not trace batches")]),
    Probe(M.retrieval_scores, valid=lambda: {"model": _model(), "idx": _probe()[0], "needle": _probe()[1]},
          extra=[("needle", torch.zeros(2, 3, dtype=torch.bool), "a wrong shape"),
                 ("idx", torch.zeros(2, 3), "float tokens")]),
    Probe(M.top_heads, valid=lambda: {"scores": torch.rand(2, 2), "k": 1},
          extra=[("delta", 1.5, "above 1"), ("k", 5, "more heads than there are"), ("scores", torch.rand(4), "1-D")]),
    Probe(M.uniform_head_output, valid=lambda: {"values": torch.rand(1, 2, 5, 4)},
          extra=[("values", torch.rand(5), "1-D")]),
    Probe(M.masked_heads, valid=lambda: {"model": _model(), "heads": [(0, 1)], "mode": "uniform"},
          extra=[("heads", [(4, 0)], "a layer out of range"), ("mode", "drop", "unknown mode")]),
    Probe(M.token_hits, valid=lambda: {"model": _model(), "idx": _probe()[0], "target": _probe()[1]},
          extra=[("target", torch.zeros(2, 3, dtype=torch.bool), "a wrong shape")]),
    Probe(M.token_accuracy, valid=lambda: {"model": _model(), "idx": _probe()[0], "target": _probe()[1]},
          extra=[("target", torch.zeros_like(_probe()[1]), "no token marked")]),
    Probe(M.step_losses, valid=lambda: {"model": _model(), "idx": _batch().idx, "step": _batch().step, "n_steps": 30},
          extra=[("step", torch.zeros(2, 3, dtype=torch.long), "a wrong shape")]),
    Probe(M.influence, valid=lambda: {"l_ref": torch.rand(3), "l_base": torch.rand(3), "eps": 1e-3},
          extra=[("form", "ratio", "unknown form"), ("l_base", torch.rand(4), "a wrong shape")]),
    Probe(M.attention_influence, valid=lambda: {"model": _model(), "heads": [(1, 0)], "idx": _batch().idx,
                                                "step": _batch().step, "eps": 1e-3, "batch_size": 4},
          extra=[("heads", [], "no heads"), ("sample", "sum", "unknown sample score"),
                 ("step", torch.full_like(_batch().step, -1), "no response tokens")]),
    Probe(M.step_weights, valid=lambda: {"step_ais": torch.rand(2, 3), "step_size": torch.ones(2, 3), "lam": 1.0,
                                         "w_min": 0.1, "w_max": 3.0, "tau": 0.5},
          extra=[("w_min", 4.0, "above w_max"), ("kind", "rank", "unknown map"),
                 ("step_size", torch.ones(2, 4), "a wrong shape")]),
    Probe(M.token_weights, valid=lambda: {"weights": torch.ones(2, 3), "step": torch.tensor([[-1, 0, 1, 2]] * 2)},
          extra=[("weights", -torch.ones(2, 3), "negative weights")]),
    Probe(M.weighted_sft_loss, valid=lambda: {"token_loss": torch.rand(2, 3), "tok_w": torch.ones(2, 3)},
          extra=[("tok_w", torch.ones(2, 4), "a wrong shape")]),
    Probe(M.select_top_k, valid=lambda: {"scores": torch.rand(5), "k": 2},
          extra=[("k", 6, "more than the pool"), ("scores", torch.rand(2, 2), "2-D")]),
    Probe(B.selector_scores, valid=lambda: {"name": "air", "scores": _scores(), "lengths": _batch().lengths},
          extra=[("name", "oracle", "unknown selector"), ("scores", {}, "missing scores")]),
    Probe(B.select, valid=lambda: {"name": "loss", "scores": _scores(), "lengths": _batch().lengths, "k": 2},
          extra=[("k", 99, "more than the pool")]),
    Probe(T.build, valid=lambda: {"cfg": GPTConfig(vocab_size=V.size, d_model=16, n_heads=2, n_layers=1)},
          extra=[("cfg", {"d_model": 16}, "a dict")]),
    Probe(T.make_model, valid=lambda: {"vocab": V, "d_model": 16, "n_heads": 2, "n_layers": 1, "context": 32,
                                       "device": "cpu"}, extra=[("vocab", 12, "not a Vocab")]),
    Probe(T.AdamW, valid=lambda: {"params": list(_model().parameters()), "lr": 1e-3, "steps": 5, "eps": 1e-8,
                                  "weight_decay": 0.01, "clip": 1.0}, extra=[("params", [], "no parameters")]),
    Probe(T.pretrain, valid=lambda: {"model": _model(), "vocab": V, "steps": 1, "batch": 4, "lr": 1e-3,
                                     "trace_frac": 0.5, "hops": (1, 2), "n_distract": (0, 1), "n_pairs": 4,
                                     "n_queries": 2, "generator": _gen(), "device": "cpu"},
          extra=[("trace_frac", 1.5, "above 1")]),
    Probe(T.step_sizes, valid=lambda: {"step": _batch().step, "n_steps": 30},
          extra=[("step", _batch().step.float(), "float steps")]),
    Probe(T.sft, valid=lambda: {"model": _model(), "data": _batch(), "steps": 1, "batch": 2, "lr": 1e-3,
                                "step_w": torch.ones(6, 30)},
          extra=[("data", "pool", "not a TraceBatch"), ("step_w", torch.ones(5, 30), "a row short")]),
    Probe(T.with_context, valid=lambda: {"model": _model(), "context": 80}, extra=[("context", 2.5, "a float")]),
    Probe(T.decode, valid=lambda: {"model": _model(), "prompts": _batch().idx[:, :10], "max_len": 20},
          extra=[("max_len", 200, "beyond the context"), ("prompts", torch.rand(2, 3), "float prompts")]),
    Probe(T.answers, valid=lambda: {"gen": torch.tensor([[D.ANS, 9]])}, extra=[("gen", torch.rand(2, 2), "floats")]),
    Probe(T.greedy_correct, valid=lambda: {"model": _model(), "vocab": V, "hops": (5, 5), "n": 2, "context_bindings": 8,
                                           "generator": _gen(), "device": "cpu", "max_new": 40},
          extra=[("hops", (5, 3), "a reversed range"), ("context_bindings", 4, "fewer than hops")]),
    Probe(P.check_recipe, valid=lambda: {"recipe": SMALL_BASE},
          extra=[("recipe", {**SMALL_BASE, "phases": ()}, "no phases"), ("recipe", {"d_model": 4}, "missing keys")]),
    Probe(P.train, valid=lambda: {"recipe": {**SMALL_BASE, "phases": ((1, 0.0, 1e-3),)}, "seed": 0, "device": "cpu"},
          extra=[("recipe", {**SMALL_BASE, "batch": 0}, "a zero batch")]),
    Probe(P.save, valid=lambda: {"model": _model(), "path": _tmp(), "recipe": SMALL_BASE},
          extra=[("model", "weights", "not a model")]),
    Probe(P.read, valid=lambda: {"path": _saved()[0], "expected_sha256": _saved()[1], "device": "cpu"},
          extra=[("expected_sha256", "0" * 64, "a wrong checksum"), ("path", "/nonexistent.safetensors", "absent")]),
    Probe(P.load, valid=lambda: {"name": "base", "device": "cpu"}, extra=[("name", "teacher", "unknown model")]),
    Probe(P.small, valid=lambda: {"recipe": P.RECIPES["student"]}, extra=[("recipe", [], "a list")]),
    Probe(E.random_heads, valid=lambda: {"scores": torch.rand(2, 4), "top": [(0, 0)], "n": 2, "same_layer": True,
                                         "generator": _gen()},
          skip={"n": "n=0 draws no head, a valid call"}, extra=[("n", 8, "more than the non-top heads")]),
    Probe(E.make_pool, valid=lambda: {"name": "natural", "cfg": E._BASE, "vocab": V, "gen": _gen()},
          extra=[("name", "mixed", "unknown pool")]),
    Probe(E.run, valid=lambda: {"config": {"base": SMALL_BASE, "student": SMALL_STUDENT, "pool": 20, "k": 4,
                                           "sft_steps": 1, "sft_batch": 2, "n_probe": 4, "n_eval": 2, "n_random": 1,
                                           "selectors": ("air",), "pools": ("natural",)}, "device": "cpu", "seed": 0},
          extra=[("config", {"bogus": 1}, "an unknown key"), ("config", {"k": 10, "pool": 5}, "k above the pool"),
                 ("config", {"eval_hops": (2, 5)}, "evaluation inside the training range"), ("seed", -1, "negative"),
                 ("config", {"weighting": "natural"}, "a string, not a tuple")]),
    Probe(X.plot_masking, valid=lambda: {"results": _results(), "k": 1}, skip={"k": "k=0 masks no head, valid"},
          extra=[("k", -1, "negative"), ("k", 9, "more heads than there are"), ("order", "best", "unknown order")]),
    Probe(X.plot_trace, valid=lambda: {"results": _results(), "pool": "natural", "example": 0, "n_masked": 1},
          skip={"n_masked": "n_masked=0 shows the unmasked model, valid"},
          extra=[("n_masked", -1, "negative"), ("example", 99, "no such example"), ("pool", "mixed", "unknown pool"),
                 ("n_masked", 9, "too many")]),
    Probe(X.plot_step_ais, valid=lambda: {"results": _results()}, extra=[("results", {}, "not results")]),
    Probe(X.plot_step_weights, valid=lambda: {"results": _results(), "pool": "natural", "lam": 1.0, "w_min": 0.1,
                                              "w_max": 3.0}, extra=[("pool", "mixed", "unknown pool")]),
    Probe(X.plot_selection, valid=lambda: {"results": _results()}, extra=[("results", {}, "not results")]),
]
EXEMPT = {
    f"{PKG}.tasks.TraceBatch": "a plain container of tensors built by the generators (which validate their inputs)",
    f"{PKG}.tasks.Style": "a frozen record of one trace's style, built only inside the generators",
    f"{PKG}.pretrained.sha256": "hashes the bytes of a path; a missing file raises FileNotFoundError naming it",
    f"{PKG}.training.lm_state": "copies a model's state dict; nothing to validate",
    f"{PKG}.training.copy_model": "rebuilds a model from its own config and a state dict produced by lm_state",
    f"{PKG}.make_weights.main": "a command line (argparse validates its two options)",
}
