"""Bad-input probes of the shared neural blocks (icml26.nn) and the optical-flow warps (icml26.render.warp)."""

import functools

import torch
from harness import Probe
from torch import nn

from icml26.nn import attention as att
from icml26.nn import lora, pfn, sentence_encoder, spectral, tiny_gpt
from icml26.render import warp

DT = torch.float64


def _rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=DT)


# ---- attention
def _qkv(t=4, s=4):
    return {"q": _rand(1, 2, t, 4), "k": _rand(1, 2, s, 4, seed=1), "v": _rand(1, 2, s, 4, seed=2)}


def _gpt(**kw):
    return tiny_gpt.TinyGPT(tiny_gpt.GPTConfig(vocab_size=11, d_model=8, n_heads=2, n_layers=1, context=8, **kw))


GPT = _gpt()
IDX = torch.tensor([[1, 2, 3, 4, 5]])


def _tmp_weights():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="icml26-nn-")) / "m.safetensors"


@functools.cache
def _saved_gpt():
    path = _tmp_weights()
    return path, tiny_gpt.save_model(GPT, path, {"note": "probe"})
ROPE = att.rope_cache(4, 4, dtype=DT)

# ---- spectral
EDGES = torch.tensor([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
LAP = spectral.normalized_laplacian(EDGES, 4).to_dense().to(DT)
X = _rand(4, 3)
LAM = torch.linspace(0, 2, 5, dtype=DT)
COEF = _rand(3)
K0 = "K = 0 is valid (the constant filter)"


def _adj():
    a = torch.zeros(4, 4, dtype=DT)
    a[EDGES[0], EDGES[1]] = 1.0
    return a


# ---- pfn
def _ctx(n=6, q=3, d=2):
    return {"x_ctx": _rand(1, n, d).float(), "y_ctx": torch.tensor([[0, 1, 0, 1, 1, 0]]),
            "x_qry": _rand(1, q, d, seed=3).float()}


PFN = pfn.TinyPFN(d_max=2, d_model=8, n_layers=1, n_heads=2, d_ff=8)


def _sampler(B, n_ctx, n_qry, d, generator=None, device="cpu"):
    X = torch.randn(B, n_ctx + n_qry, d, generator=generator, device=device)
    return X, (X[..., 0] > 0).long(), {}


# ---- warp
def _img(n=1, c=2):
    return _rand(n, c, 4, 5)


def _flow(n=1, seed=4):
    return 0.3 * _rand(n, 2, 4, 5, seed=seed)


PROBES = [
    Probe(att.causal_mask, valid=lambda: {"t": 3, "s": 5}),
    Probe(att.attention, valid=lambda: _qkv(),
          extra=[("variant", "nope", "unknown variant"), ("q", _rand(2, 4, 4), "3-D q"),
                 ("k", _rand(1, 2, 4, 3), "k of another head size")]),
    Probe(att.attention, name="icml26.nn.attention.attention[sink]",
          valid=lambda: {**_qkv(), "variant": "sink", "sink_logit": _rand(2, seed=5)},
          extra=[("sink_logit", _rand(3), "one logit per head expected")]),
    Probe(att.fused_attention, valid=lambda: _qkv(),
          extra=[("variant", "linear", "not a fused variant"), ("k", _rand(1, 2, 3, 4), "fewer keys than queries")]),
    Probe(att.fused_attention, name="icml26.nn.attention.fused_attention[gated_head]",
          valid=lambda: {**_qkv(), "variant": "gated_head", "gate_logit": _rand(1, 2, 4, seed=6)},
          extra=[("gate_logit", _rand(1, 2, 3), "gate of the wrong shape")]),
    Probe(att.rope_cache, valid=lambda: {"t": 4, "d": 4, "base": 100.0}, extra=[("d", 3, "odd d")]),
    Probe(att.apply_rope, valid=lambda: {"x": _rand(1, 4, 4), "cos": ROPE[0], "sin": ROPE[1]},
          extra=[("cos", ROPE[0][:2], "cos for fewer positions")]),
    Probe(att.MultiHeadAttention, valid=lambda: {"d_model": 8, "n_heads": 2, "rope_base": 100.0},
          extra=[("n_heads", 3, "heads not dividing d_model"), ("variant", "nope", "unknown variant"),
                 ("fused", "yes", "a string for a bool")]),
    Probe(att.attention_modules, valid=lambda: {"model": GPT}, extra=[("model", nn.Linear(2, 2), "no attention")]),
    Probe(att.capture_attention, valid=lambda: {"model": GPT}, extra=[("model", nn.Linear(2, 2), "no attention")]),
    Probe(att.ablate_heads, valid=lambda: {"model": GPT, "heads": [(0, 1)]},
          extra=[("heads", [(0, 2)], "head out of range"), ("heads", [(1, 0)], "layer out of range"),
                 ("heads", [0], "not a pair")]),
    Probe(lora.LoRALinear, valid=lambda: {"base": nn.Linear(3, 2), "rank": 2, "alpha": 4.0},
          extra=[("base", nn.Conv1d(1, 1, 1), "not a Linear")]),
    Probe(lora.apply_lora, valid=lambda: {"model": _gpt(), "rank": 2, "alpha": 4.0},
          extra=[("targets", ["nope"], "no such layer"), ("targets", [], "no target")]),
    Probe(pfn.context_only_mask, valid=lambda: {"n_ctx": 3, "n_qry": 2}, skip={"n_qry": "0 queries is valid"},
          extra=[("n_qry", -1, "negative")]),
    Probe(pfn.pad_features, valid=lambda: {"x": _rand(2, 3, 2), "d_max": 4},
          extra=[("d_max", 1, "fewer than the features")]),
    Probe(pfn.TinyPFN, valid=lambda: {"d_max": 2, "d_model": 8, "n_layers": 1, "n_heads": 2, "d_ff": 8,
                                      "n_classes": 2, "dropout": 0.1},
          extra=[("task", "nope", "unknown task"), ("n_heads", 3, "heads not dividing d_model"),
                 ("dropout", 1.0, "dropout of 1"), ("n_classes", 1, "one class")]),
    Probe(pfn.pfn_loss, valid=lambda: {"model": PFN, **_ctx(), "y_qry": torch.tensor([[1, 0, 1]])},
          extra=[("model", nn.Linear(2, 2), "not a TinyPFN"), ("y_qry", torch.tensor([[1, 0]]), "too few labels"),
                 ("y_ctx", torch.tensor([[0, 1, 0, 1, 1, 2]]), "a label past n_classes")]),
    Probe(pfn.lr_schedule, valid=lambda: {"step": 3, "steps": 10, "warmup_frac": 0.1},
          skip={"step": "step 0 is valid"},
          extra=[("step", -1, "negative"), ("warmup_frac", 1.5, "a fraction above 1")]),
    Probe(pfn.train_pfn, valid=lambda: {"model": pfn.TinyPFN(d_max=2, d_model=8, n_layers=1, n_heads=2, d_ff=8),
                                        "sampler": _sampler, "steps": 1, "batch_size": 2, "n_ctx": (4, 6),
                                        "n_qry": 2, "lr": 1e-3, "weight_decay": 0.0, "warmup_frac": 0.05,
                                        "grad_clip": 1.0, "time_limit": 5.0},
          skip={"seed": "every integer seed is valid"},
          extra=[("sampler", 3, "not callable"), ("n_ctx", (6, 4), "lo above hi"), ("d", 3, "d above d_max"),
                 ("model", nn.Linear(2, 2), "not a TinyPFN")]),
    Probe(sentence_encoder.SentenceEncoder, valid=lambda: {"max_tokens": 16},
          extra=[("max_tokens", 1, "one token"), ("path", "/nonexistent", "no checkpoint")]),
    Probe(sentence_encoder.default_encoder, valid=lambda: {"device": "cpu"}),
    Probe(sentence_encoder.encode, valid=lambda: {"texts": ["a cat", "a dog"], "batch_size": 2},
          extra=[("texts", "a cat", "a bare string"), ("texts", ["a", 3], "a number among the texts")]),
    Probe(spectral.normalized_laplacian, valid=lambda: {"edge_index": EDGES, "num_nodes": 4},
          extra=[("edge_index", EDGES.double(), "float indices"), ("edge_index", EDGES + 3, "an index past n"),
                 ("edge_weight", torch.ones(5, dtype=DT), "weights of another length")]),
    Probe(spectral.normalized_laplacian, name="icml26.nn.spectral.normalized_laplacian[weighted]",
          valid=lambda: {"edge_index": EDGES, "num_nodes": 4, "edge_weight": torch.ones(6, dtype=DT)},
          extra=[("edge_weight", -torch.ones(6, dtype=DT), "negative weights")]),
    Probe(spectral.dense_normalized_laplacian, valid=lambda: {"adj": _adj()},
          extra=[("adj", _rand(4, 3), "not square"), ("mask", torch.ones(3, dtype=torch.bool), "mask of n-1")]),
    Probe(spectral.laplacian_matmul, valid=lambda: {"lap": LAP, "x": X}, extra=[("x", _rand(3, 3), "n-1 rows")]),
    Probe(spectral.chebyshev_basis, valid=lambda: {"lap": LAP, "x": X, "K": 2}, skip={"K": K0},
          extra=[("K", -1, "negative")]),
    Probe(spectral.chebyshev_basis, name="icml26.nn.spectral.chebyshev_basis[sparse]",
          valid=lambda: {"lap": spectral.normalized_laplacian(EDGES, 4), "x": X.float(), "K": 2}, skip={"K": K0},
          extra=[("x", X.float()[:3], "fewer rows than nodes")]),
    Probe(spectral.chebyshev_filter, valid=lambda: {"lap": LAP, "x": X, "coeffs": COEF},
          extra=[("coeffs", _rand(3, 2), "coefficients for 2 of 3 channels")]),
    Probe(spectral.chebyshev_response, valid=lambda: {"lam": LAM, "coeffs": COEF}),
    Probe(spectral.bernstein_filter, valid=lambda: {"lap": LAP, "x": X, "theta": COEF}),
    Probe(spectral.bernstein_response, valid=lambda: {"lam": LAM, "theta": COEF}),
    Probe(spectral.chebii_nodes, valid=lambda: {"K": 3}, skip={"K": K0}, extra=[("K", -1, "negative")]),
    Probe(spectral.chebii_coefficients, valid=lambda: {"gamma": COEF},
          extra=[("gamma", _rand(2, 2, 2), "3-D gamma")]),
    Probe(spectral.chebii_filter, valid=lambda: {"lap": LAP, "x": X, "gamma": COEF}),
    Probe(spectral.chebii_response, valid=lambda: {"lam": LAM, "gamma": COEF}),
    Probe(spectral.eig_filter, valid=lambda: {"lap": LAP, "x": X, "response": lambda lam: 1.0 - lam / 2},
          extra=[("response", 3, "not callable"), ("lap", _rand(4, 3), "not square")]),
    Probe(spectral.ChebConv, valid=lambda: {"in_channels": 3, "out_channels": 2, "K": 2}, skip={"K": K0},
          extra=[("K", -1, "negative")]),
    Probe(spectral.BernProp, valid=lambda: {"K": 2, "channels": 3}, skip={"K": K0}, extra=[("K", -1, "negative")]),
    Probe(spectral.ChebIIProp, valid=lambda: {"K": 2, "channels": 3}, skip={"K": K0},
          extra=[("K", -1, "negative")]),
    Probe(tiny_gpt.GPTConfig, valid=lambda: {"vocab_size": 11, "d_model": 8, "n_heads": 2, "n_layers": 1,
                                             "context": 8, "mlp_ratio": 2},
          extra=[("n_heads", 3, "heads not dividing d_model"), ("variant", "nope", "unknown variant"),
                 ("fused", 1, "an int for a bool")]),
    Probe(tiny_gpt.Block, valid=lambda: {"cfg": tiny_gpt.GPTConfig(d_model=8, n_heads=2)},
          extra=[("cfg", {"d_model": 8}, "a dict for a config")]),
    Probe(tiny_gpt.TinyGPT, valid=lambda: {"cfg": tiny_gpt.GPTConfig(vocab_size=11, d_model=8, n_heads=2,
                                                                     n_layers=1, context=8)},
          extra=[("cfg", {"d_model": 8}, "a dict for a config")]),
    Probe(tiny_gpt.token_losses, valid=lambda: {"model": GPT, "idx": IDX},
          extra=[("idx", IDX[:, :1], "one token"), ("idx", IDX + 10, "token ids past the vocabulary"),
                 ("model", nn.Linear(2, 2), "not a TinyGPT"), ("logits", _rand(1, 5, 3), "logits of another width")]),
    Probe(tiny_gpt.sequence_logprob, valid=lambda: {"model": GPT, "idx": IDX},
          extra=[("mask", torch.ones(1, 4, dtype=torch.bool), "mask of another length"),
                 ("idx", IDX.double(), "float ids")]),
    Probe(tiny_gpt.save_model, valid=lambda: {"model": GPT, "path": _tmp_weights(), "metadata": {"a": 1}},
          extra=[("model", "weights", "not a model"), ("metadata", [1], "a list for a dict"),
                 ("metadata", {"config": 1}, "the reserved key")]),
    Probe(tiny_gpt.read_model, valid=lambda: {"path": _saved_gpt()[0], "expected_sha256": _saved_gpt()[1],
                                              "device": "cpu"},
          extra=[("expected_sha256", "0" * 64, "a wrong checksum"), ("path", "/nonexistent.safetensors", "absent"),
                 ("build", 3, "a non-callable builder")]),
    Probe(warp.warp, valid=lambda: {"img": _img(), "flow": _flow()},
          extra=[("padding", "nope", "unknown padding"), ("mode", "cubic", "unknown mode"),
                 ("flow", _flow()[:, :1], "one flow channel")]),
    Probe(warp.compose_flows, valid=lambda: {"u_fg": _flow(), "u_gh": _flow(seed=5)},
          extra=[("u_gh", _flow(2), "another batch")]),
    Probe(warp.fb_valid, valid=lambda: {"u_fg": _flow(), "u_gf": -_flow(), "abs_tol": 0.5, "rel_tol": 0.01},
          extra=[("abs_tol", -1.0, "negative tolerance")]),
    Probe(warp.warp_video, valid=lambda: {"frames": _rand(3, 2, 4, 5), "flows": 0.3 * _rand(3, 2, 4, 5, seed=4)},
          extra=[("flows", 0.3 * _rand(2, 2, 4, 5), "fewer flows than frames"),
                 ("frames", _rand(3, 4, 5), "3-D frames")]),
]

EXEMPT = {
    "icml26.nn.attention.AttentionResult": "a dataclass of the tensors one attention call computed",
    "icml26.nn.sentence_encoder.model_dir": "takes no argument: the packaged checkpoint's folder",
}
