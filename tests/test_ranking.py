"""Tests of the shared Plackett-Luce block (icml26.ranking.plackett_luce) against brute-force oracles."""

import itertools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.ranking import (
    enumerate_rankings,
    gumbel,
    inclusion_prob,
    listwise_nll,
    log1mexp,
    log_h,
    log_inclusion_prob,
    log_prob,
    logcumsumexp,
    sample_topk,
    score_logits,
    top1_nll,
)

D = torch.float64


def _naive_log_prob(s, order):
    """Sequential definition: pick, renormalise over what is left."""
    left = list(range(len(s)))
    total = 0.0
    for a in order:
        z = math.log(sum(math.exp(s[b]) for b in left))
        total += s[a] - z
        left.remove(a)
    return total


@pytest.mark.parametrize("n,k", [(4, 4), (5, 2), (6, 3), (7, 1)])
def test_probabilities_of_all_rankings_sum_to_one(n, k):
    s = torch.randn(n, dtype=D, generator=torch.Generator().manual_seed(n * 10 + k)) * 1.5
    perms = enumerate_rankings(n, k)
    assert perms.shape[0] == math.perm(n, k)
    lp = log_prob(s.expand(perms.shape[0], n), perms)
    assert abs(lp.exp().sum().item() - 1.0) < 1e-12


def test_log_prob_matches_sequential_definition_and_is_batched():
    g = torch.Generator().manual_seed(1)
    s = torch.randn(3, 2, 6, dtype=D, generator=g)
    r = sample_topk(s, 4, generator=g)
    assert r.shape == (3, 2, 4)
    lp = log_prob(s, r)
    for i, j in itertools.product(range(3), range(2)):
        assert abs(lp[i, j].item() - _naive_log_prob(s[i, j].tolist(), r[i, j].tolist())) < 1e-12


def test_log_prob_no_cancellation_when_top_item_dominates():
    s = torch.tensor([60.0, 0.0, -1.0, 0.5], dtype=torch.float32)
    r = torch.tensor([0, 3, 1])
    lp = log_prob(s, r)
    expect = _naive_log_prob([0.0, -60.0, -61.0, -59.5], [0, 3, 1])  # shift-invariant
    assert torch.isfinite(lp) and abs(lp.item() - expect) < 1e-4


def test_mask_excludes_items_from_normalisers():
    s = torch.randn(6, dtype=D, generator=torch.Generator().manual_seed(2))
    mask = torch.tensor([True, True, False, True, True, False])
    r = torch.tensor([3, 0])
    sub = torch.tensor([0, 1, 3, 4])
    expect = log_prob(s[sub], torch.tensor([2, 0]))
    assert abs(log_prob(s, r, mask=mask).item() - expect.item()) < 1e-12
    rho = inclusion_prob(s, 2, method="quadrature", mask=mask)
    assert rho[~mask].abs().max() == 0 and abs(rho.sum().item() - 2) < 1e-8
    rho_sub = inclusion_prob(s[sub], 2, method="enumerate")
    assert (rho[sub] - rho_sub).abs().max() < 1e-7
    g = torch.Generator().manual_seed(0)
    draws = sample_topk(s, 2, n=200, generator=g, mask=mask)
    assert mask[draws].all()


def test_sampling_frequencies_match_log_prob():
    """Monte Carlo frequencies of Gumbel-top-k orders vs exact PL probabilities (fixed seed, chi^2-like bound)."""
    s = torch.tensor([0.8, 0.0, -0.5, 0.3], dtype=D)
    k, n = 2, 40000
    draws = sample_topk(s, k, n=n, generator=torch.Generator().manual_seed(0))
    perms = enumerate_rankings(4, k)
    p = log_prob(s.expand(len(perms), 4), perms).exp()
    codes = draws[:, 0] * 4 + draws[:, 1]
    counts = torch.bincount(codes, minlength=16).to(D)
    expected = torch.zeros(16, dtype=D)
    expected[perms[:, 0] * 4 + perms[:, 1]] = p * n
    used = expected > 0
    assert counts[~used].sum() == 0
    chi2 = ((counts[used] - expected[used]) ** 2 / expected[used]).sum().item()
    assert chi2 < 35.0  # 11 dof: P(chi2 > 35) < 3e-4
    # the set-level inclusion frequency agrees with the exact marginal
    freq = torch.zeros(4, dtype=D).scatter_add_(0, draws.reshape(-1), torch.ones(n * k, dtype=D)) / n
    assert (freq - inclusion_prob(s, k, method="enumerate")).abs().max() < 0.01


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 9), k=st.integers(1, 9), seed=st.integers(0, 10_000))
def test_closed_form_score_equals_autograd(n, k, seed):
    k = min(k, n)
    g = torch.Generator().manual_seed(seed)
    s = (torch.randn(2, n, dtype=D, generator=g) * 2).requires_grad_()
    r = sample_topk(s, k, generator=g)
    log_prob(s, r).sum().backward()
    assert torch.allclose(score_logits(s, r), s.grad, atol=1e-12, rtol=1e-10)


def test_score_with_mask_matches_autograd():
    s = torch.randn(5, dtype=D, requires_grad=True)
    mask = torch.tensor([True, False, True, True, True])
    r = torch.tensor([4, 2])
    log_prob(s, r, mask=mask).backward()
    got = score_logits(s, r, mask=mask)
    assert torch.allclose(got, s.grad, atol=1e-12) and got[1] == 0


def test_gradcheck_log_prob_and_quadrature():
    s = torch.randn(5, dtype=D, requires_grad=True)
    r = torch.tensor([2, 0, 4])
    assert torch.autograd.gradcheck(lambda x: log_prob(x, r), (s,))
    s2 = torch.randn(5, dtype=D, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: inclusion_prob(x, 2, method="quadrature", n_nodes=256), (s2,),
                                    atol=1e-6)


@pytest.mark.parametrize("n,k", [(5, 2), (7, 3), (8, 5)])
def test_inclusion_probabilities_vs_enumeration(n, k):
    s = torch.randn(n, dtype=D, generator=torch.Generator().manual_seed(n + k)) * 1.3
    exact = inclusion_prob(s, k, method="enumerate")
    # brute force: sum the probabilities of all rankings containing each item
    perms = enumerate_rankings(n, k)
    p = log_prob(s.expand(len(perms), n), perms).exp()
    brute = torch.stack([p[(perms == a).any(-1)].sum() for a in range(n)])
    assert (exact - brute).abs().max() < 1e-12
    assert abs(exact.sum().item() - k) < 1e-12
    quad = inclusion_prob(s, k, method="quadrature")
    assert (quad - exact).abs().max() < 1e-7
    mc = inclusion_prob(s, k, method="mc", n_mc=4000, generator=torch.Generator().manual_seed(0))
    assert (mc - exact).abs().max() < 0.02
    wr = inclusion_prob(s, k, method="with_replacement")
    assert (wr - exact).abs().max() > 1e-3  # biased, not equal


def test_inclusion_gradient_matches_enumeration_and_conditional_score_identity():
    """grad log rho(a) = E[grad log P(o) | a in o] (Rao-Blackwell identity, docs/papers/ca_pg.md §3.5)."""
    n, k = 6, 3
    s = torch.randn(n, dtype=D, generator=torch.Generator().manual_seed(3), requires_grad=True)
    items = torch.arange(n)
    jac_e = torch.autograd.functional.jacobian(lambda x: log_inclusion_prob(x, items, k, method="enumerate"), s)
    jac_q = torch.autograd.functional.jacobian(
        lambda x: log_inclusion_prob(x, items, k, method="quadrature"), s)
    assert (jac_e - jac_q).abs().max() < 1e-6
    perms = enumerate_rankings(n, k)
    sd = s.detach()
    p = log_prob(sd.expand(len(perms), n), perms).exp()
    sc = score_logits(sd.expand(len(perms), n), perms)
    for a in range(n):
        inside = (perms == a).any(-1)
        cond = (p[inside, None] * sc[inside]).sum(0) / p[inside].sum()
        assert (cond - jac_e[a]).abs().max() < 1e-10
    # MC gradient is close on average (pathwise through the threshold item)
    jac_mc = torch.autograd.functional.jacobian(
        lambda x: inclusion_prob(x, k, method="mc", n_mc=20000, generator=torch.Generator().manual_seed(1)), s)
    jac_rho = torch.autograd.functional.jacobian(lambda x: inclusion_prob(x, k, method="enumerate"), s)
    assert (jac_mc - jac_rho).abs().max() < 0.02


def test_mc_log_inclusion_is_batched_and_k_equal_n_gives_one():
    s = torch.randn(4, 9, dtype=D)
    items = torch.tensor([[0], [3], [8], [1]])
    out = log_inclusion_prob(s, items, 3, method="mc", n_mc=8)
    assert out.shape == (4, 1) and (out <= 1e-12).all()
    full = inclusion_prob(s, 9, method="mc", n_mc=4)
    assert torch.allclose(full, torch.ones_like(full))


def test_utilities():
    x = torch.tensor([-1e-20, -1e-5, -0.5, -1.0, -50.0], dtype=D)
    ref = torch.tensor([math.log(-math.expm1(v)) for v in x.tolist()], dtype=D)
    assert torch.allclose(log1mexp(x), ref, rtol=1e-12)
    z = torch.tensor([-80.0, -31.0, -1.0, 0.0, 2.0, 40.0], dtype=D, requires_grad=True)
    lh = log_h(z)
    ref = [z_ if z_ < -30 else math.log(-math.expm1(-math.exp(z_))) for z_ in z.tolist()]
    assert torch.allclose(lh, torch.tensor(ref, dtype=D), atol=1e-12)
    lh.sum().backward()
    assert torch.isfinite(z.grad).all()
    v = torch.randn(3, 5, dtype=D)
    assert torch.allclose(logcumsumexp(v, reverse=True)[:, 0], torch.logsumexp(v, -1))
    gm = gumbel((200000,), generator=torch.Generator().manual_seed(0), dtype=D)
    assert abs(gm.mean().item() - 0.5772156649) < 0.01


def test_top1_and_listwise_nll():
    pos = torch.tensor([1.0, 0.0], dtype=D)
    neg = torch.tensor([[0.0, -1.0, 2.0], [0.0, 0.0, 0.0]], dtype=D)
    out = top1_nll(pos, neg)
    ref = -torch.log_softmax(torch.cat([pos[:, None], neg], -1), -1)[:, 0]
    assert torch.allclose(out, ref)
    masked = top1_nll(pos, neg, neg_mask=torch.tensor([[True, True, False], [True, True, True]]))
    assert masked[0] < out[0] and masked[1] == out[1]
    s = torch.randn(2, 5, dtype=D)
    full = listwise_nll(s)
    assert torch.allclose(full, -log_prob(s, torch.arange(5).expand(2, 5)))
    m = torch.tensor([[True, True, False, True, False]] * 2)
    sub = listwise_nll(s, mask=m)
    assert torch.allclose(sub, -log_prob(s[:, [0, 1, 3]], torch.arange(3).expand(2, 3)))


def test_value_errors():
    s = torch.randn(5)
    with pytest.raises(ValueError, match="ranking"):
        log_prob(s, torch.tensor([1, 1]))
    with pytest.raises(ValueError, match="ranking"):
        log_prob(s, torch.tensor([0, 7]))
    with pytest.raises(ValueError, match="ranking"):
        log_prob(s, torch.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="scores"):
        log_prob(torch.tensor([0.0, float("nan")]), torch.tensor([0]))
    with pytest.raises(ValueError, match="scores"):
        log_prob(torch.tensor([0, 1]), torch.tensor([0]))
    with pytest.raises(ValueError, match="k must"):
        sample_topk(s, 6)
    with pytest.raises(ValueError, match="k must"):
        inclusion_prob(s, 0)
    with pytest.raises(ValueError, match="method"):
        inclusion_prob(s, 2, method="exact")
    with pytest.raises(ValueError, match="N <= 8"):
        inclusion_prob(torch.randn(12), 2, method="enumerate")
    with pytest.raises(ValueError, match="mask"):
        log_prob(s, torch.tensor([0]), mask=torch.tensor([False] * 5))
    with pytest.raises(ValueError, match="mask"):
        log_prob(s, torch.tensor([1]), mask=torch.tensor([True, False, True, True, True]))
    with pytest.raises(ValueError, match="items"):
        log_inclusion_prob(s, torch.tensor([9]), 2)
    with pytest.raises(ValueError, match="n_mc"):
        inclusion_prob(s, 2, method="mc", n_mc=0)
    with pytest.raises(ValueError, match="pos_score"):
        top1_nll(torch.zeros(3), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="log1mexp"):
        log1mexp(torch.tensor([0.5]))
