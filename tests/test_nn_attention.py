"""Tests of the shared attention block, the tiny GPT and LoRA (icml26.nn)."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.nn.attention import (
    VARIANTS,
    MultiHeadAttention,
    ablate_heads,
    attention,
    capture_attention,
    causal_mask,
)
from icml26.nn.lora import LoRALinear, apply_lora
from icml26.nn.tiny_gpt import GPTConfig, TinyGPT, sequence_logprob, token_losses

torch.set_num_threads(1)


def qkv(b=2, h=3, t=7, d=8, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(b, h, t, d, generator=g, dtype=dtype) for _ in range(3))


@pytest.mark.parametrize("causal", [True, False])
def test_vanilla_matches_sdpa(causal):
    q, k, v = qkv()
    res = attention(q, k, v, variant="vanilla", causal=causal)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert torch.allclose(res.out, ref, atol=1e-12)


def test_prior_matches_sdpa_float_mask():
    q, k, v = qkv()
    prior = torch.randn(1, 3, 7, 7, dtype=torch.float64)
    res = attention(q, k, v, variant="vanilla", causal=False, logit_prior=prior)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=prior)
    assert torch.allclose(res.out, ref, atol=1e-12)


def test_causal_mask_blocks_future():
    q, k, v = qkv(t=6)
    base = attention(q, k, v, causal=True)
    v2 = v.clone()
    v2[:, :, 4:] += 10.0  # change the future of positions 0..3
    k2 = k.clone()
    k2[:, :, 4:] -= 3.0
    res = attention(q, k2, v2, causal=True, need_weights=True)
    assert torch.allclose(res.out[:, :, :4], base.out[:, :, :4], atol=1e-12)
    assert torch.all(res.weights[:, :, :4, 4:] == 0)
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_weights_rows_sum_and_gate_identities():
    q, k, v = qkv()
    van = attention(q, k, v, variant="vanilla", need_weights=True)
    assert torch.allclose(van.weights.sum(-1), torch.ones(2, 3, 7, dtype=torch.float64))
    assert torch.allclose(van.gate[..., 1:], 1 - van.weights[..., 1:, 0], atol=1e-12)
    assert torch.all(van.gate[..., 0] == 0)  # only the first key is visible at t = 0
    sink = torch.tensor([0.0, 1.0, -2.0], dtype=torch.float64)
    snk = attention(q, k, v, variant="sink", sink_logit=sink, need_weights=True)
    assert torch.all(snk.weights.sum(-1) < 1)
    assert torch.allclose(snk.gate, snk.weights.sum(-1), atol=1e-12)


def test_sink_limits():
    q, k, v = qkv()
    van = attention(q, k, v, variant="vanilla")
    off = attention(q, k, v, variant="sink", sink_logit=torch.full((3,), -1e4, dtype=torch.float64))
    assert torch.allclose(off.out, van.out, atol=1e-12)
    on = attention(q, k, v, variant="sink", sink_logit=torch.full((3,), 60.0, dtype=torch.float64))
    assert on.out.abs().max() < 1e-9


def test_gated_variants():
    q, k, v = qkv()
    van = attention(q, k, v)
    g = torch.randn(2, 3, 7, dtype=torch.float64)
    gh = attention(q, k, v, variant="gated_head", gate_logit=g)
    assert torch.allclose(gh.out, van.out * torch.sigmoid(g)[..., None])
    assert torch.allclose(gh.gate, torch.sigmoid(g))
    ge = attention(q, k, v, variant="gated_elem", gate_logit=torch.full((2, 3, 7, 8), 50.0, dtype=torch.float64))
    assert torch.allclose(ge.out, van.out, atol=1e-12)


def test_linear_attention_matches_recurrence():
    q, k, v = qkv(t=5)
    res = attention(q, k, v, variant="linear", need_weights=True)
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    outs = []
    for t in range(5):  # the running-sum (RNN) form of causal linear attention
        s = torch.einsum("bhjd,bhje->bhde", fk[:, :, : t + 1], v[:, :, : t + 1])
        z = fk[:, :, : t + 1].sum(2)
        num = torch.einsum("bhd,bhde->bhe", fq[:, :, t], s)
        outs.append(num / (fq[:, :, t] * z).sum(-1, keepdim=True))
    assert torch.allclose(res.out, torch.stack(outs, 2), atol=1e-10)
    assert res.gate is None and res.lse is None
    assert torch.allclose(res.weights.sum(-1), torch.ones(2, 3, 5, dtype=torch.float64))


def test_gate_gradients_finite_at_position_zero():
    q, k, v = qkv(dtype=torch.float32)
    q.requires_grad_(True)
    res = attention(q, k, v)
    res.gate.sum().backward()
    assert torch.isfinite(q.grad).all()


@settings(max_examples=25, deadline=None)
@given(b=st.integers(1, 3), h=st.integers(1, 4), t=st.integers(1, 9), scale=st.floats(0.1, 5.0))
def test_sink_gate_identity_property(b, h, t, scale):
    g = torch.Generator().manual_seed(b * 100 + h * 10 + t)
    q, k, v = (scale * torch.randn(b, h, t, 4, generator=g, dtype=torch.float64) for _ in range(3))
    sink = torch.randn(h, generator=g, dtype=torch.float64)
    res = attention(q, k, v, variant="sink", sink_logit=sink, need_weights=True)
    assert torch.allclose(res.gate, torch.sigmoid(res.lse - sink.view(1, -1, 1)), atol=1e-12)
    assert torch.allclose(res.gate, res.weights.sum(-1), atol=1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
def test_module_shapes_and_capture(variant):
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4, variant)
    x = torch.randn(3, 5, 16)
    y, res = mha(x, need_weights=True)
    assert y.shape == (3, 5, 16) and res.out.shape == (3, 4, 5, 4) and res.weights.shape == (3, 4, 5, 5)
    if variant != "linear":
        assert res.gate.shape == (3, 4, 5)
    with capture_attention(mha):
        mha(x)
    assert mha.captured.weights.shape == (3, 4, 5, 5)
    assert not mha.capture


def test_module_hooks_ablate_prior_qkv():
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4, "vanilla")
    x = torch.randn(2, 6, 16)
    y0, res0 = mha(x)
    with ablate_heads(mha, [(0, 1)]):
        y1, _ = mha(x)
    manual = res0.out.clone()
    manual[:, 1] = 0
    assert torch.allclose(y1, mha.o_proj(manual.transpose(1, 2).reshape(2, 6, 16)), atol=1e-6)
    assert mha.head_scale is None
    remove = mha.add_head_hook(lambda m, r: r.out * 0)
    y2, _ = mha(x)
    remove()
    assert torch.allclose(y2, mha.o_proj.bias if mha.o_proj.bias is not None else torch.zeros(16))
    mha.logit_prior = torch.zeros(1, 4, 6, 6)
    mha.logit_prior[..., 0] = 1e4  # force everything onto key 0
    _, res3 = mha(x, need_weights=True)
    mha.logit_prior = None
    assert torch.allclose(res3.weights[..., 0], torch.ones(2, 4, 6))

    def zero_v(m, q, k, v):
        return q, k, torch.zeros_like(v)

    rm = mha.add_qkv_hook(zero_v)
    _, res4 = mha(x)
    rm()
    assert res4.out.abs().max() == 0
    assert not torch.allclose(mha(x)[1].out, res4.out)


def test_attention_value_errors():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="variant"):
        attention(q, k, v, variant="softmax")
    with pytest.raises(ValueError, match="sink_logit"):
        attention(q, k, v, variant="sink")
    with pytest.raises(ValueError, match="gate_logit"):
        attention(q, k, v, variant="gated_head", gate_logit=torch.zeros(2, 3, 7, 8))
    with pytest.raises(ValueError, match="4-D"):
        attention(q[0], k, v)
    with pytest.raises(ValueError, match="keys"):
        attention(q, k[:, :, :3], v[:, :, :3], causal=True)
    with pytest.raises(ValueError, match="key_mask"):
        attention(q, k, v, key_mask=torch.ones(7, 7))
    with pytest.raises(ValueError, match="n_heads"):
        MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="x must be"):
        MultiHeadAttention(16, 4)(torch.zeros(2, 3, 8))
    with pytest.raises(ValueError, match="heads must be"):
        with ablate_heads(MultiHeadAttention(16, 4), [(0, 9)]):
            pass


def test_tiny_gpt_logprob_and_causality():
    torch.manual_seed(0)
    model = TinyGPT(GPTConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=2, context=8, variant="sink"))
    idx = torch.randint(0, 11, (3, 8))
    logits, res = model(idx, return_attn=True)
    assert logits.shape == (3, 8, 11) and len(res) == 2
    lp = sequence_logprob(model, idx)
    manual = torch.log_softmax(logits, -1)[:, :-1].gather(-1, idx[:, 1:, None]).squeeze(-1).sum(-1)
    assert torch.allclose(lp, manual, atol=1e-5)
    mask = torch.zeros_like(idx)
    mask[:, -1] = 1
    assert torch.allclose(sequence_logprob(model, idx, mask), -token_losses(model, idx)[:, -1], atol=1e-6)
    idx2 = idx.clone()
    idx2[:, 5:] = (idx2[:, 5:] + 1) % 11
    assert torch.allclose(model(idx2)[:, :5], logits[:, :5], atol=1e-5)
    assert model.head.weight is model.embed.weight


def test_tiny_gpt_value_errors():
    with pytest.raises(ValueError, match="variant"):
        GPTConfig(variant="nope")
    with pytest.raises(ValueError, match="d_model"):
        GPTConfig(d_model=10, n_heads=3)
    model = TinyGPT(GPTConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=1, context=4))
    with pytest.raises(ValueError, match="context"):
        model(torch.zeros(1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="token ids"):
        model(torch.full((1, 3), 11))
    with pytest.raises(ValueError, match="integer tensor"):
        model(torch.zeros(1, 3))


def test_lora_starts_at_base_and_trains_only_adapters():
    torch.manual_seed(0)
    model = TinyGPT(GPTConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=1, context=6))
    idx = torch.randint(0, 11, (2, 6))
    before = model(idx).detach()
    params = apply_lora(model, rank=4)
    assert torch.allclose(model(idx), before)
    assert len(params) == 8 and all(p.requires_grad for p in params)
    assert sum(p.requires_grad for p in model.parameters()) == 8
    lin = model.blocks[0].attn.q_proj
    assert isinstance(lin, LoRALinear)
    with torch.no_grad():
        lin.lora_b.normal_()
    x = torch.randn(3, 16)
    assert torch.allclose(lin(x), x @ lin.merged_weight().T + (lin.base.bias if lin.base.bias is not None else 0),
                          atol=1e-5)
    with pytest.raises(ValueError, match="rank"):
        LoRALinear(torch.nn.Linear(4, 4), rank=0)
    with pytest.raises(ValueError, match="no nn.Linear"):
        apply_lora(torch.nn.Sequential(torch.nn.ReLU()), targets=("q_proj",))


@pytest.mark.parametrize("variant", ["vanilla", "sink", "gated_head", "gated_elem"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("d", [8, 7, 5])  # 8 extra channels, one (no zero padding), three
def test_fused_path_matches_materialised_values_and_gradients(variant, causal, d):
    from icml26.nn.attention import fused_attention

    q, k, v = (x.requires_grad_(True) for x in qkv(t=9, d=d))
    sink = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    g = torch.Generator().manual_seed(1)
    gate = torch.randn((2, 3, 9) if variant == "gated_head" else (2, 3, 9, d), generator=g, dtype=torch.float64)
    gate.requires_grad_(True)
    kw = dict(variant=variant, causal=causal, sink_logit=sink if variant == "sink" else None,
              gate_logit=gate if variant.startswith("gated") else None)
    ref, fused = attention(q, k, v, **kw), fused_attention(q, k, v, **kw)
    assert fused.weights is None and fused.lse is None
    assert torch.allclose(fused.out, ref.out, atol=1e-12) and torch.allclose(fused.gate, ref.gate, atol=1e-12)
    w = torch.randn(ref.out.shape, generator=g, dtype=torch.float64)
    inputs = [q, k, v, sink if variant == "sink" else gate] if variant != "vanilla" else [q, k, v]
    grads = [torch.autograd.grad((r.out * w).sum() + r.gate.sum(), inputs) for r in (ref, fused)]
    for a, b in zip(*grads):
        assert torch.allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("causal", [True, False])
def test_fused_sink_gradients_when_rows_carry_only_a_gate_gradient(causal):
    """The sink's CPU path folds the log-sum-exp gradient into the flash backward through the output's rows;
    rows whose output gradient is zero (here: every other query, and a gate-only loss) take the second call."""
    from icml26.nn.attention import fused_attention

    g = torch.Generator().manual_seed(3)
    base = torch.randn(2, 9, 3, 16, generator=g, dtype=torch.float64)  # (B, T, H, d): heads as a strided view
    sink = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.randn(2, 3, 9, 16, generator=g, dtype=torch.float64)
    w[:, :, ::2] = 0.0
    wg = torch.randn(2, 3, 9, generator=g, dtype=torch.float64)
    for out_weight in (w, torch.zeros_like(w)):
        q, k, v = (torch.roll(base, i, 0).clone().requires_grad_(True) for i in range(3))
        grads = []
        for fn in (attention, fused_attention):
            r = fn(*(x.transpose(1, 2) for x in (q, k, v)), variant="sink", causal=causal, sink_logit=sink)
            grads.append(torch.autograd.grad((r.out * out_weight).sum() + (r.gate * wg).sum(), [q, k, v, sink]))
        for a, b in zip(*grads):
            assert torch.allclose(a, b, atol=1e-10)


def test_fused_module_and_model_agree_with_materialised():
    torch.manual_seed(0)
    for variant in ("vanilla", "sink", "gated_head"):
        model = TinyGPT(GPTConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=2, context=8, variant=variant))
        fused = TinyGPT(GPTConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=2, context=8, variant=variant,
                                  fused=True))
        fused.load_state_dict(model.state_dict())
        idx = torch.randint(0, 11, (3, 8))
        (la, ra), (lb, rb) = model(idx, return_attn=True), fused(idx, return_attn=True)
        assert rb[0].weights is None and torch.allclose(la, lb, atol=1e-5)
        assert all(torch.allclose(a.gate, b.gate, atol=1e-6) for a, b in zip(ra, rb))
        _, rw = fused(idx, return_attn=True, need_weights=True)  # the analysis path still gets the maps
        assert rw[0].weights.shape == (3, 2, 8, 8)
    mha = MultiHeadAttention(16, 4, "vanilla", fused=True)
    mha.need_gate = False
    assert mha(torch.randn(2, 5, 16))[1].gate is None
    with pytest.raises(TypeError, match="fused"):
        MultiHeadAttention(16, 4, fused="yes")
    with pytest.raises(ValueError, match="variant"):
        from icml26.nn.attention import fused_attention

        fused_attention(*qkv(), variant="linear")
