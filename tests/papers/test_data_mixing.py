"""Tests for the data mixing law (icml26.papers.data_mixing): solver (C6), counts (C2), fitting, search."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.data_mixing import baselines, method, skills
from icml26.papers.data_mixing.fitting import (
    FitResult,
    check_weights,
    fit_law,
    minimize_on_simplex,
    mre,
    split_by_mixture,
)

torch.set_num_threads(1)
F64 = torch.float64


def _random_instances(n, K, seed):
    rng = np.random.default_rng(seed)
    h = rng.dirichlet(np.full(K, 0.5), n)
    h[rng.random((n, K)) < 0.1] = 0.0  # some inactive domains
    h[h.sum(1) == 0, 0] = 1.0
    h /= h.sum(1, keepdims=True)
    b = rng.uniform(0.05, 5.0, K)
    c = rng.uniform(0.1, 20.0, K)
    N = rng.uniform(1.0, 1e4, n)
    H = float(rng.uniform(0.01, 0.5) * N.min())
    return (torch.tensor(h), torch.tensor(b), torch.tensor(c), torch.tensor(N), torch.tensor(H, dtype=F64))


@pytest.mark.parametrize("K", [2, 5, 17])
def test_c6_kkt_and_feasibility_on_1000_random_instances(K):
    h, b, c, N, H = _random_instances(1000, K, seed=K)
    x, lam = method.solve_allocation(h, b, c, N, H, return_lambda=True)
    total = N + (K - 1) * H
    assert torch.all((x.sum(1) - total).abs() < 1e-8 * N)
    assert torch.all(x >= H * (1 - 1e-12))
    r = method.kkt_residual(x, lam, h, b, c, N, H)
    assert r["stat"] < 1e-6 and r["dual"] < 1e-6 and r["floor"] == 0.0


def test_solver_matches_slsqp_reference_on_authors_parameters():
    """C2 (second half): the authors' 7-domain fixture, our solve vs an independent SLSQP solve, to 1e-6."""
    p = method.as_params(method.AUTHORS_SLIMPAJAMA7)
    K = 7
    rng = np.random.default_rng(0)
    for N in (122.0, 1300.0):
        h = rng.dirichlet(np.ones(K), 4)
        x = method.solve_allocation(torch.tensor(h), p["b"], p["c"], N, p["H"]).numpy()
        b, c, H = p["b"].numpy(), p["c"].numpy(), float(p["H"])
        T = N + (K - 1) * H
        for m in range(len(h)):
            xr = method.reference_allocation_slsqp(h[m], b, c, N, H)
            obj = lambda z, hm=h[m], b=b, c=c: float(np.sum(hm * c * z ** (-b)))
            assert obj(x[m]) <= obj(xr) * (1 + 1e-9)  # ours is at least as good as the reference
            np.testing.assert_allclose(x[m], xr, rtol=1e-4, atol=1e-4 * T)
            # losses (what the law uses) agree to 1e-6
            np.testing.assert_allclose(c * x[m] ** -b, c * xr ** -b, rtol=1e-6, atol=1e-6)


def test_c2_parameter_counts():
    for K in range(2, 30):
        assert method.n_params(K) == method.LAW.n_params(K) == 5 * K + 1
        assert baselines.exp_law_n_params(K) == baselines.EXP_LAW.n_params(K) == K * K + K
        assert (method.n_params(K) < baselines.exp_law_n_params(K)) == (K >= 5)
    assert method.n_params(7) == 36 and baselines.exp_law_n_params(17) == 306


def test_gradients_through_the_solver_match_finite_differences():
    p = method.as_params(method.AUTHORS_SLIMPAJAMA7)
    h = torch.tensor(np.random.default_rng(3).dirichlet(np.ones(7) * 3, 4))
    N = torch.full((4,), 122.0, dtype=F64)
    args = [t.clone().requires_grad_(True) for t in (h, p["b"], p["c"], p["H"], N)]
    f = lambda hh, bb, cc, HH, NN: method.solve_allocation(hh, bb, cc, NN, HH) @ torch.arange(1.0, 8.0, dtype=F64)
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-5)


def test_capacity_competition_in_the_law():
    """Raising h_0 (others' ratios fixed) lowers x_j and raises L_j for j != 0 (§3.3)."""
    p = {"b": [0.5, 0.8, 1.1], "c": [2.0, 3.0, 1.0], "A": [0.3, 0.2, 0.1], "a": [0.3, 0.4, 0.5],
         "E": [0.5, 0.4, 0.3], "H": 1.0}
    lv = np.linspace(0.05, 0.9, 8)
    h = np.stack([lv, (1 - lv) / 2, (1 - lv) / 2], 1)
    out = method.evaluate_law(p, h, 50.0, 10.0)
    assert np.all(np.diff(out["x"][:, 1]) < 0) and np.all(np.diff(out["loss"][:, 1]) > 0)
    assert np.all(np.diff(out["x"][:, 0]) > 0)


def test_degenerate_head_gives_floor_everywhere():
    h = torch.tensor([[0.3, 0.7]], dtype=F64)
    x = method.solve_allocation(h, torch.tensor([0.5, 1.0], dtype=F64), torch.ones(2, dtype=F64), 2.0,
                                torch.tensor(5.0, dtype=F64))
    assert torch.allclose(x, torch.full_like(x, 5.0))


def test_recovers_known_parameters_from_data_of_the_law():
    rng = np.random.default_rng(1)
    K = 3
    true = {"b": np.array([0.4, 0.7, 1.0]), "c": np.array([2.0, 4.0, 3.0]), "A": np.array([1.0, 2.0, 0.5]),
            "a": np.array([0.3, 0.5, 0.4]), "E": np.array([0.5, 0.8, 0.3]), "H": 0.4}
    h = rng.dirichlet(np.ones(K), 40)
    N = np.repeat([4.0, 8.0, 16.0, 32.0], 10)
    D = np.tile([1.0, 2.0, 4.0, 8.0, 16.0], 8)
    L = method.evaluate_law(true, h, N, D)["loss"]
    fit = fit_law(method.LAW, h, N, D, L, restarts=1, maxiter=600, seed=0)
    assert mre(fit.predict(h, N, D), L) < 1e-3
    h_new = rng.dirichlet(np.ones(K), 20)
    L_new = method.evaluate_law(true, h_new, 64.0, 32.0)["loss"]  # extrapolate in N and D
    assert mre(fit.predict(h_new, np.full(20, 64.0), np.full(20, 32.0)), L_new) < 1e-2
    np.testing.assert_allclose(fit.params["b"], true["b"], rtol=0.1)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10_000))
def test_mixture_search_stays_on_the_simplex(K, seed):
    rng = np.random.default_rng(seed)
    p = {"b": rng.uniform(0.2, 2, K), "c": rng.uniform(0.5, 5, K), "A": rng.uniform(0.1, 3, K),
         "a": rng.uniform(0.1, 1, K), "E": rng.uniform(0, 1, K), "H": 0.5}
    h = method.optimal_mixture(p, N=float(rng.uniform(5, 100)), D=float(rng.uniform(1, 100)), restarts=2, steps=10,
                               seed=seed)
    assert h.shape == (K,) and np.all(h >= 1e-4 - 1e-12) and abs(h.sum() - 1) < 1e-9
    check_weights(h, K)


def test_mixture_search_finds_the_grid_optimum():
    p = {"b": [0.5, 1.5, 0.8], "c": [3.0, 2.0, 5.0], "A": [2.0, 0.3, 1.0], "a": [0.3, 0.6, 0.5],
         "E": [0.2, 0.1, 0.3], "H": 0.5}
    hs = method.optimal_mixture(p, 20.0, 5.0, restarts=4, steps=200)
    grid = baselines.simplex_grid(3, 60)
    grid = grid[(grid > 0).all(1)]
    vals = method.evaluate_law(p, grid, 20.0, 5.0)["loss"].mean(1)
    best = method.evaluate_law(p, hs, 20.0, 5.0)["loss"].mean()
    assert best <= vals.min() + 1e-9


def test_noise_only_optimum_is_stationary_and_favours_large_A():
    A, a = np.array([3.0, 1.0, 0.5]), np.array([0.5, 0.5, 0.5])
    h = method.noise_only_optimum(A, a, 10.0)
    assert abs(h.sum() - 1) < 1e-9 and h[0] > h[1] > h[2]
    q = a * A * 10.0 ** (-a)
    np.testing.assert_allclose(h, q ** (1 / 1.5) / (q ** (1 / 1.5)).sum(), rtol=1e-9)
    obj = lambda z: np.sum(A * (10.0 * np.abs(z) / np.abs(z).sum()) ** (-a))
    assert obj(h) <= obj(np.array([0.5, 0.3, 0.2]))


def test_simplex_minimiser_on_a_quadratic():
    target = torch.tensor([0.2, 0.5, 0.3], dtype=F64)
    h, v = minimize_on_simplex(lambda hh: ((hh - target) ** 2).sum(1), 3, restarts=4, steps=400, h_min=0.0)
    np.testing.assert_allclose(h, target.numpy(), atol=1e-3)


def test_baselines_fit_their_own_forms():
    rng = np.random.default_rng(2)
    h = rng.dirichlet(np.ones(3), 30)
    T = np.array([[-1.0, 0.5, 0.2], [0.3, -2.0, 0.1], [0.0, 0.4, -1.5]])
    L = 0.3 + np.exp(h @ T.T)
    fit = fit_law(baselines.EXP_LAW, h, 1.0, 1.0, L, restarts=3, maxiter=1000)
    assert mre(fit.predict(h, 1.0, 1.0), L) < 1e-3
    L2 = h @ T.T + 3.0
    fit2 = fit_law(baselines.LINEAR, h, 1.0, 1.0, L2, restarts=1, maxiter=1000)
    assert mre(fit2.predict(h, 1.0, 1.0), L2) < 1e-4


def test_grid_and_uniform():
    g = baselines.simplex_grid(3, 4)
    assert len(g) == 15 and np.allclose(g.sum(1), 1)
    best, i = baselines.grid_search(g, np.arange(15.0)[::-1])
    assert i == 14 and np.allclose(best, g[14])
    assert np.allclose(baselines.uniform_mixture(4), 0.25)


@pytest.mark.parametrize("h, msg", [
    ([0.5, -0.1, 0.6], "non-negative"), ([0.5, 0.4, 0.2], "sum to one"), ([0.5, 0.5], "length K=3"),
    ([np.nan, 0.5, 0.5], "finite"), ([1.0], "K >= 2"),
])
def test_bad_weights_raise(h, msg):
    p = {"b": [0.5] * 3, "c": [1.0] * 3, "A": [1.0] * 3, "a": [0.5] * 3, "E": [0.1] * 3, "H": 0.5}
    with pytest.raises(ValueError, match=msg) as e:
        method.evaluate_law(p, h, 10.0, 10.0)
    assert "h" in str(e.value)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="K"):
        method.n_params(1)
    with pytest.raises(ValueError, match="K >= 2"):
        check_weights([1.0])
    h = np.random.default_rng(0).dirichlet(np.ones(3), 3)
    with pytest.raises(ValueError, match="fewer than the 16 parameters"):
        fit_law(method.LAW, h, 10.0, 10.0, np.ones((3, 3)))
    with pytest.raises(ValueError, match="train_frac"):
        split_by_mixture(np.arange(5), 1.5)
    with pytest.raises(ValueError, match="alphas"):
        skills.make_domains(alphas=(0.5,))
    with pytest.raises(ValueError, match="N"):
        method.evaluate_law(method.AUTHORS_SLIMPAJAMA7, np.ones(7) / 7, -1.0, 10.0)


def test_split_holds_out_whole_mixtures():
    groups = np.repeat(np.arange(10), 3)
    tr = split_by_mixture(groups, 0.7, seed=0)
    for g in range(10):
        assert len(set(tr[groups == g])) == 1
    assert tr.sum() == 21


def test_batched_training_equals_one_by_one():
    dom = skills.make_domains(alphas=(0.6, 1.2), n_head=5, n_tail=20, dim=8, n_classes=3)
    w = skills.training_weights(dom, np.array([[0.3, 0.7], [0.8, 0.2], [0.5, 0.5]]), D=None)
    Lb = skills.train_batched(dom, w, 4, steps=20, seed=3)
    # the initial weights are drawn once for the whole group, so blocking it differently (or training one model at a
    # time) trains the same models
    Lc = skills.train_batched(dom, w, 4, steps=20, seed=3, chunk=2)
    Ll = skills.train_loop(dom, w, 4, steps=20, seed=3)
    torch.testing.assert_close(Lc, Lb)
    torch.testing.assert_close(Ll, Lb)
    assert Lb.shape == (3, 2) and torch.all(Lb > 0)
    assert not torch.allclose(Lb[0], Lb[1])  # different mixtures, different models


def test_grouped_training_matches_autograd_of_the_public_model():
    """The training layout (skill-last, classes in the middle) computes the same loss and gradient as the public
    (M, S, C) model."""
    dom = skills.make_domains(alphas=(0.6, 1.2), n_head=5, n_tail=20, dim=8, n_classes=3)
    params = skills.init_mlps(3, 8, 4, 3, seed=1)
    w = skills.training_weights(dom, np.array([[0.3, 0.7], [0.8, 0.2], [0.5, 0.5]]), D=None)
    ref = torch.nn.functional.cross_entropy(skills.mlp_logits(params, dom.X).permute(0, 2, 1),
                                            dom.y.expand(3, -1), reduction="none")
    (ref * w).sum().backward()
    fast = [t.requires_grad_(True) for t in skills._skill_last(params)]
    ce = skills._grouped_ce(fast, dom.X.t().contiguous(), dom.y)
    torch.testing.assert_close(ce, ref.detach())
    (ce * w).sum().backward()
    for slow, quick in zip(params, fast):
        torch.testing.assert_close(quick.grad, slow.grad.transpose(1, 2))


def test_block_size_keeps_cpu_blocks_small_and_gpu_whole():
    assert skills.block_size(200, 16, 2040) == 16
    assert skills.block_size(200, 8, 2040) == 32
    assert skills.block_size(3, 4, 100) == 3
    assert skills.block_size(50, 10 ** 4, 10 ** 4) == 1


def test_law_optimum_in_hull_stays_in_hull_and_finds_the_best_vertex():
    """A linear law is minimised at a vertex of the hull: the hull-constrained optimum must find the best training
    mixture, while the free optimum leaves the hull for a simplex corner."""
    fit = FitResult(baselines.LINEAR, 3, {"W": np.diag([1.0, 2.0, 3.0]), "w0": np.zeros(3)}, 0.0)
    hull = np.array([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2], [0.3, 0.3, 0.4]])
    h_in = baselines.law_optimum(fit, 1.0, 1.0, hull=hull, steps=400)
    mean = lambda h: float((np.diag([1.0, 2.0, 3.0]) @ h).mean())  # noqa: E731
    assert mean(h_in) == pytest.approx(min(mean(v) for v in hull), abs=1e-3)
    np.testing.assert_allclose(h_in, hull[1], atol=0.02)
    h_free = baselines.law_optimum(fit, 1.0, 1.0, steps=400)
    assert h_free[0] > 0.99


def test_domain_losses_are_exact_expectations():
    dom = skills.make_domains(alphas=(0.6, 1.2), n_head=5, n_tail=20, dim=8, n_classes=3)
    params = skills.init_mlps(1, 8, 4, 3, seed=0)
    ce = skills.per_skill_ce(params, dom)
    ref = torch.nn.functional.cross_entropy(skills.mlp_logits(params, dom.X)[0], dom.y, reduction="none")
    torch.testing.assert_close(ce[0], ref)
    assert torch.allclose(dom.P.sum(1), torch.ones(2, dtype=F64))
    assert torch.all(dom.P[0, 5:25] > 0) and torch.all(dom.P[0, 25:] == 0)  # disjoint tails


def _hint_data(c):
    from icml26.papers.data_mixing import experiment

    cfg = {k: experiment.CONFIGS["quick"][k] for k in ("dim", "n_classes", "capacity_unit", "data_unit", "alphas")}
    params = {"b": np.array([0.5, 0.8, 1.1]), "c": np.asarray(c, float), "A": np.array([0.3, 0.2, 0.1]),
              "a": np.array([0.3, 0.4, 0.5]), "E": np.array([0.0, 0.0, 0.0]), "H": np.float64(0.2)}
    return {"cfg": cfg, "params": params}


def _capacity(data, weights, width, D):
    from icml26.papers.data_mixing import explore

    cfg = data["cfg"]
    N = skills.capacity_of(width, cfg["dim"], cfg["n_classes"], cfg["capacity_unit"])
    return method.evaluate_law(data["params"], explore.normalise(weights), N, D / cfg["data_unit"])["x"][0], N


@pytest.mark.parametrize("c", [[2.0, 3.0, 1.0], [1e-6, 1e-6, 0.04], [0.6, 0.04, 1e-6]])
def test_explorer_hints_promise_only_what_the_sliders_show(c):
    """The mixture explorer's first hint: the move it names shifts > 1% of N between domains, and a domain with
    c_i ~ 0 (the quick fit's fault seen in issue 46) is never the one it tells you to push; where no move of the
    slider does that, the hint says the competition is flat, and that is checked too."""
    import re

    from icml26.papers.data_mixing import explore

    data = _hint_data(c)
    first, second = explore.explorer_hints(data, widths=(8, 32))
    start = np.array([0.6, 0.3, 0.1])

    def shifted(k, width, D=2000, push=0.4):
        moved = start.copy()
        moved[k] += push
        (x0, N), (x1, _) = _capacity(data, start, width, D), _capacity(data, moved, width, D)
        return np.delete(x0 - x1, k).sum() / N

    m = re.match(r"Push w_(\d) from ([\d.]+) to ([\d.]+) at width (\d+), D (\d+)", first)
    if m:
        k, width = int(m[1]), int(m[4])
        assert float(m[2]) == start[k] and int(m[5]) == 2000
        assert shifted(k, width) > 0.01 and c[k] > 0.01
    else:
        assert "competition is flat" in first, first
        assert max(shifted(k, w) for k in range(3) for w in (8, 32)) <= 0.01
    assert second.startswith("Lower D from 64000 to 2000")


def test_nocap_control_law_is_ours_without_the_capacity_term():
    """The headlines' control: A_i (D h_i)^-a_i + E_i with 3K parameters, never counted among the competitors."""
    K = 3
    f64 = torch.float64
    p = {"A": torch.tensor([0.5, 1.0, 2.0], dtype=f64), "a": torch.tensor([0.3, 0.4, 0.5], dtype=f64),
         "E": torch.tensor([0.1, 0.2, 0.3], dtype=f64)}
    h = torch.tensor([[0.2, 0.3, 0.5]], dtype=torch.float64)
    D = torch.tensor([4.0], dtype=torch.float64)
    out = baselines.NOCAP.predict(p, h, torch.tensor([8.0], dtype=torch.float64), D)
    want = p["A"] * (4.0 * h[0]) ** -p["a"] + p["E"]
    assert torch.allclose(out[0], want)
    assert baselines.NOCAP.n_params(K) == 3 * K
    assert "nocap" not in baselines.COMPETITORS and set(baselines.COMPETITORS) < set(baselines.LAWS_BASELINE)
    from icml26.papers.data_mixing import claims
    heads = {c.id: c for c in claims.CLAIMS if c.headline}
    assert set(heads) == {"C3_mre_vs_best", "C5_better_mixtures"}
    r = {"mre_ratio_each": {"exp": 1.1, "bimix": 0.9}, "mre_ratio_control_each": {"exp": 1.2, "bimix": 1.0},
         "test_mre": {"ours": 0.1, "exp": 0.09, "bimix": 0.11, "nocap": 0.12}}
    assert heads["C3_mre_vs_best"].metric(r) == 1.1 and heads["C3_mre_vs_best"].control.metric(r) == 1.2
