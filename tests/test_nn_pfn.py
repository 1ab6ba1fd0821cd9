"""Tests of the shared tiny PFN (icml26.nn.pfn) and its priors (icml26.data.priors)."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.data import priors
from icml26.nn.pfn import TinyPFN, context_only_mask, lr_schedule, pad_features, pfn_loss, train_pfn

torch.set_num_threads(1)


def _model(task="cls", **kw):
    torch.manual_seed(0)
    return TinyPFN(d_max=5, d_model=16, n_layers=2, n_heads=2, d_ff=32, task=task, **kw).eval()


def _data(B=2, n_ctx=7, n_qry=5, d=4, seed=0, task="cls"):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, n_ctx + n_qry, d, generator=g)
    y = torch.randint(0, 2, (B, n_ctx), generator=g) if task == "cls" else torch.randn(B, n_ctx, generator=g)
    return x[:, :n_ctx], y, x[:, n_ctx:]


def test_shapes_cls_and_reg():
    xc, yc, xq = _data()
    assert _model()(xc, yc, xq).shape == (2, 5, 2)
    m = _model("reg")
    xc, yc, xq = _data(task="reg")
    mean, log_var = m(xc, yc, xq)
    assert mean.shape == log_var.shape == (2, 5)


def test_matches_stock_encoder_layer_with_mask():
    m = _model()
    xc, yc, xq = _data()
    with torch.no_grad():
        a = m(xc, yc, xq)
        b = m.forward_masked(xc, yc, xq)
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def test_mask_blocks_queries_only():
    mask = context_only_mask(3, 2)
    assert mask.shape == (5, 5)
    assert not mask[:, :3].any() and mask[:, 3:].all()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n_qry=st.integers(2, 6))
def test_queries_do_not_see_each_other(seed, n_qry):
    m = _model()
    xc, yc, xq = _data(n_qry=n_qry, seed=seed)
    with torch.no_grad():
        base = m(xc, yc, xq)
        perm = torch.randperm(n_qry, generator=torch.Generator().manual_seed(seed))
        permuted = m(xc, yc, xq[:, perm])
        xq2 = xq.clone()
        xq2[:, 1:] = xq2[:, 1:] * 5 + 3  # perturb every query except the first
        perturbed = m(xc, yc, xq2)
    torch.testing.assert_close(permuted, base[:, perm], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(perturbed[:, 0], base[:, 0], atol=1e-5, rtol=1e-5)
    assert not torch.allclose(perturbed[:, 1:], base[:, 1:])


def test_context_matters_and_is_permutation_invariant():
    m = _model()
    xc, yc, xq = _data()
    with torch.no_grad():
        base = m(xc, yc, xq)
        perm = torch.randperm(xc.shape[1])
        torch.testing.assert_close(m(xc[:, perm], yc[:, perm], xq), base, atol=1e-5, rtol=1e-5)
        assert not torch.allclose(m(xc, 1 - yc, xq), base)


def test_predict_chunks_equal_forward():
    m = _model()
    xc, yc, xq = _data(n_qry=11)
    with torch.no_grad():
        torch.testing.assert_close(m.predict(xc, yc, xq, chunk_size=3), m(xc, yc, xq), atol=1e-5, rtol=1e-5)


def test_pad_features_keeps_norm_scale():
    x = torch.ones(1, 3, 2)
    p = pad_features(x, 8)
    assert p.shape == (1, 3, 8)
    assert torch.allclose(p.norm(dim=-1), x.norm(dim=-1) * 2)
    with pytest.raises(ValueError, match="d_max"):
        pad_features(torch.ones(1, 3, 9), 8)


def test_value_errors():
    with pytest.raises(ValueError, match="task"):
        TinyPFN(task="seg")
    with pytest.raises(ValueError, match="divisible"):
        TinyPFN(d_model=10, n_heads=3)
    m = _model()
    xc, yc, xq = _data()
    with pytest.raises(ValueError, match="y_ctx"):
        m(xc, yc + 2, xq)
    with pytest.raises(ValueError, match="x_qry"):
        m(xc, yc, xq[0])
    with pytest.raises(ValueError, match="share"):
        m(xc, yc, xq[:1])
    with pytest.raises(ValueError, match="n_ctx"):
        train_pfn(m, priors.linear_logistic, 2, n_ctx=(10, 5))
    with pytest.raises(ValueError, match="model"):
        train_pfn(object(), priors.linear_logistic, 2)


def test_lr_schedule_warmup_and_decay():
    vals = [lr_schedule(s, 100, 0.1) for s in range(100)]
    assert vals[0] == pytest.approx(0.1) and max(vals) == pytest.approx(1.0)
    assert vals[-1] < 0.01 and all(a >= b for a, b in zip(vals[10:], vals[11:]))


def test_training_reduces_loss_and_beats_chance():
    torch.manual_seed(0)
    m = TinyPFN(d_max=4, d_model=32, n_layers=2, n_heads=4, d_ff=64)
    sampler = priors.mixture(["linear_logistic"])
    g = torch.Generator().manual_seed(123)
    X, y, _ = priors.linear_logistic(64, 64, 32, 4, generator=g)
    with torch.no_grad():
        before = pfn_loss(m, X[:, :64], y[:, :64], X[:, 64:], y[:, 64:]).item()
    hist = train_pfn(m, sampler, 120, batch_size=16, n_ctx=(16, 64), n_qry=32, lr=3e-3, seed=0)
    with torch.no_grad():
        after = pfn_loss(m, X[:, :64], y[:, :64], X[:, 64:], y[:, 64:]).item()
        acc = (m(X[:, :64], y[:, :64], X[:, 64:]).argmax(-1) == y[:, 64:]).float().mean().item()
    assert hist["steps"] == 120 and after < before - 0.05
    majority = (y[:, 64:] == (y[:, :64].float().mean(1, keepdim=True) > 0.5).long()).float().mean().item()
    assert acc > majority + 0.1


def test_regression_head_trains():
    torch.manual_seed(0)
    m = TinyPFN(d_max=3, d_model=16, n_layers=1, n_heads=2, d_ff=32, task="reg")
    hist = train_pfn(m, priors.mixture(["gp_rbf"], task="reg"), 60, batch_size=8, n_ctx=(16, 32), n_qry=16,
                     lr=3e-3, seed=0)
    first, last = sum(hist["loss"][:10]) / 10, sum(hist["loss"][-10:]) / 10
    assert last < first


# ----------------------------------------------------------------- priors
@pytest.mark.parametrize("name", ["linear_logistic", "mlp_scm"])
def test_cls_prior_shapes_and_standardisation(name):
    X, y, meta = priors.PRIORS[name](32, 50, 20, 5, seed=1)
    assert X.shape == (32, 70, 5) and y.shape == (32, 70) and y.dtype == torch.long
    assert set(y.unique().tolist()) <= {0, 1}
    ctx = X[:, :50]
    assert torch.allclose(ctx.mean(1), torch.zeros(32, 5), atol=1e-4)
    assert torch.allclose(ctx.std(1, unbiased=False), torch.ones(32, 5), atol=1e-3)


def test_linear_logistic_labels_follow_the_score():
    X, y, meta = priors.linear_logistic(200, 100, 0, 3, seed=2)
    s = torch.einsum("bnd,bd->bn", X, meta["w"]) + meta["b"][:, None]
    agree = ((s > 0).long() == y).float().mean().item()
    assert agree > 0.8  # a ~ LogU[1, 10] keeps label noise moderate
    assert 0.9 <= meta["a"].min().item() and meta["a"].max().item() <= 10.1
    assert abs(meta["w"].pow(2).sum(1).mean().item() - 1.0) < 0.2  # w ~ N(0, I/d)


def test_mlp_scm_class_balance_follows_quantile():
    X, y, meta = priors.mlp_scm(400, 100, 100, 4, seed=3)
    frac = y.float().mean(1)
    assert torch.allclose(frac, 1 - meta["quantile"], atol=0.02)


def test_regression_priors_standardised_targets():
    for name in ("mlp_scm", "gp_rbf"):
        kw = {"task": "reg"} if name == "mlp_scm" else {}
        X, y, meta = priors.PRIORS[name](16, 60, 10, 3, seed=4, **kw)
        assert y.dtype == torch.float32 and y.shape == (16, 70)
        assert torch.allclose(y[:, :60].mean(1), torch.zeros(16), atol=1e-4)
        assert torch.allclose(y[:, :60].std(1, unbiased=False), torch.ones(16), atol=1e-3)


def test_gp_smoothness_depends_on_lengthscale():
    X, y, meta = priors.gp_rbf(64, 80, 0, 1, seed=5, heteroscedastic=False)
    order = X[..., 0].argsort(1)
    f = meta["f"].gather(1, order)
    rough = (f[:, 1:] - f[:, :-1]).abs().mean(1)
    ls = meta["lengthscale"]
    short, long = rough[ls < ls.median()].mean(), rough[ls >= ls.median()].mean()
    assert short > long


def test_variable_d_zero_pads_and_rescales():
    X, y, meta = priors.linear_logistic(64, 40, 10, 6, seed=6, variable_d=True)
    d_eff = meta["d_eff"]
    for b in range(64):
        assert (X[b, :, d_eff[b]:] == 0).all()
    sq = X[:, :40].pow(2).sum(-1).mean(1)
    assert torch.allclose(sq, torch.full_like(sq, 6.0), rtol=1e-3)


def test_seed_reproducible_and_mixture_split():
    a = priors.mlp_scm(4, 10, 5, 3, seed=7)[0]
    b = priors.mlp_scm(4, 10, 5, 3, seed=7)[0]
    assert torch.equal(a, b)
    s = priors.mixture(["linear_logistic", "mlp_scm"], [0.75, 0.25])
    X, y, meta = s(8, 10, 5, 3, seed=0)
    assert X.shape == (8, 15, 3) and meta["prior"].tolist() == [0] * 6 + [1] * 2


def test_prior_value_errors():
    with pytest.raises(ValueError, match="n_ctx"):
        priors.linear_logistic(2, 0, 3, 2)
    with pytest.raises(ValueError, match="task"):
        priors.mlp_scm(2, 5, 3, 2, task="rank")
    with pytest.raises(ValueError, match="names"):
        priors.mixture(["gp_rbf"], task="cls")
    with pytest.raises(ValueError, match="weights"):
        priors.mixture(["linear_logistic", "mlp_scm"], [1.0])
    with pytest.raises(ValueError, match="either"):
        priors.linear_logistic(2, 5, 3, 2, generator=torch.Generator(), seed=1)
    assert math.isfinite(priors.gp_rbf(2, 5, 3, 2, seed=0)[1].sum().item())
