"""Tests of the strategic_pfn paper: response model, SPN construction, baselines, data, claims."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.nn.pfn import TinyPFN
from icml26.papers.strategic_pfn import baselines, claims, data, method

torch.set_num_threads(1)


def _linear_setup(seed=0, R=2, n=50, d=3):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(R, n, d, generator=g)
    w = torch.randn(R, d, generator=g)
    b = torch.randn(R, generator=g) * 0.3
    cost = torch.tensor([1.0, 3.0, math.inf])[:d]
    return X, w, b, cost


def _score(w, b):
    return lambda x: torch.einsum("rnd,rd->rn", x, w) + b[:, None]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), r=st.floats(0.0, 3.0))
def test_linear_best_response_properties(seed, r):
    X, w, b, cost = _linear_setup(seed)
    Xn = method.linear_best_response(X, w, b, cost, r, margin=1e-3)
    s0, s1 = _score(w, b)(X), _score(w, b)(Xn)
    moved = (Xn != X).any(-1)
    assert torch.equal(Xn[..., 2], X[..., 2])  # immutable feature never moves
    assert not moved[s0 >= 0].any()  # accepted agents stay
    assert (s1[moved] > 0).all()  # movers cross the boundary
    dist = method.cost_norm(Xn - X, cost)
    assert (dist[moved] <= r + 1e-5).all()
    # a rejected agent that stayed could not afford the crossing
    _, gain = method.move_direction(w, cost)
    needed = -s0 / gain[:, None] + 1e-3
    stayed = (~moved) & (s0 < 0)
    assert (needed[stayed] > r - 1e-5).all()


def test_closed_form_is_the_cheapest_crossing_brute_force():
    # d = 2, both mutable: minimise the cost over a fine grid of x' with w.x' + b >= 0
    w, b = torch.tensor([[1.0, 2.0]]), torch.tensor([-1.0])
    cost = torch.tensor([2.0, 0.5])
    x = torch.tensor([[[0.0, 0.0]]])
    xn = method.linear_best_response(x, w, b, cost, 5.0, margin=0.0)
    grid = torch.stack(torch.meshgrid(torch.linspace(-1, 2, 601), torch.linspace(-1, 2, 601), indexing="ij"), -1)
    feasible = grid @ w[0] + b >= 0
    costs = (cost * grid**2).sum(-1)
    best = grid[feasible][costs[feasible].argmin()]
    assert torch.allclose(xn[0, 0], best, atol=0.01)
    assert method.cost_norm(xn - x, cost).item() == pytest.approx(costs[feasible].min().sqrt().item(), abs=0.01)


def test_line_search_equals_closed_form_on_linear_rule():
    X, w, b, cost = _linear_setup(1)
    ref = method.linear_best_response(X, w, b, cost, 1.0, margin=1e-3)
    for m in ("surrogate", "line"):
        got = method.best_response(_score(w, b), X, cost, 1.0, method=m, margin=1e-3)
        torch.testing.assert_close(got, ref, atol=1e-4, rtol=1e-4)


def test_gradient_response_moves_within_budget_and_crosses():
    X, w, b, cost = _linear_setup(2)
    got = method.best_response(_score(w, b), X, cost, 1.5, method="gradient", steps=80, lr=0.05)
    moved = (got != X).any(-1)
    assert moved.any()
    assert (_score(w, b)(got)[moved] >= 0).all()
    assert (method.cost_norm(got - X, cost)[moved] <= 1.5 + 1e-5).all()
    assert torch.equal(got[..., 2], X[..., 2])
    ref = method.linear_best_response(X, w, b, cost, 1.5)
    assert ((ref != X).any(-1) | ~moved).all()  # gradient movers can also afford the closed form


def test_surrogate_recovers_linear_logits():
    X, w, b, _ = _linear_setup(3)
    w2, b2 = method.fit_linear_surrogate(X, _score(w, b)(X), ridge=1e-8)
    torch.testing.assert_close(w2, w, atol=1e-3, rtol=1e-3)
    torch.testing.assert_close(b2, b, atol=1e-3, rtol=1e-3)


def test_strategic_lr_keeps_clean_decisions_under_gaming():
    task = data.strategic_gauss(2, 100, 400, seed=0)
    lr = baselines.ClassicalRule("lr", task.x_ctx, task.y_ctx)
    slr = baselines.strategic_lr(lr, task.cost, 1.0)
    xm = method.linear_best_response(task.x_test, slr.w, slr.b, task.cost, 1.0)
    assert torch.equal(slr(xm) >= 0, lr(task.x_test) >= 0)


def _tiny_pfn():
    torch.manual_seed(0)
    return TinyPFN(d_max=8, d_model=16, n_layers=1, n_heads=2, d_ff=32).eval()


def test_spn_at_zero_budget_is_the_base_pfn():
    task = data.strategic_gauss(2, 40, 30, seed=1)
    model = _tiny_pfn()
    with torch.no_grad():
        spn = method.StrategicPFN(model, task.cost, method.Agents(0.0)).fit(task.x_ctx, task.y_ctx)
        assert torch.equal(spn.x_s, task.x_ctx)
        torch.testing.assert_close(spn.scores(task.x_test), spn.base_scores(task.x_test))


def test_strategic_context_ignores_labels_and_accepted_rows():
    task = data.strategic_gauss(2, 40, 10, seed=2)
    model = _tiny_pfn()
    with torch.no_grad():
        rule = method.pfn_rule(model, task.x_ctx, task.y_ctx)
        a = method.strategic_context(rule, task.x_ctx, task.y_ctx, task.cost, method.Agents(1.0))
        b = method.strategic_context(rule, task.x_ctx, 1 - task.y_ctx, task.cost, method.Agents(1.0))
        assert torch.equal(a[0], b[0]) and torch.equal(a[1], task.y_ctx)
        accepted = rule(task.x_ctx) >= 0
        assert torch.equal(a[0][accepted], task.x_ctx[accepted])
        aug = method.strategic_context(rule, task.x_ctx, task.y_ctx, task.cost, method.Agents(1.0), variant="augment")
        assert aug[0].shape[1] == 80 and torch.equal(aug[0][:, :40], task.x_ctx)


def test_cross_fit_folds_face_rules_without_themselves():
    task = data.strategic_gauss(1, 40, 10, seed=3)
    model = _tiny_pfn()
    seen = []
    factory = method.context_rule_factory(model, task.x_ctx, task.y_ctx, 40)

    def spy(keep):
        seen.append(keep.clone())
        return factory(keep)

    with torch.no_grad():
        xs, _ = method.strategic_context(spy, task.x_ctx, task.y_ctx, task.cost, method.Agents(1.0), cross_fit=4)
    assert len(seen) == 4 and all(k.sum() == 30 for k in seen)
    assert torch.equal(sum((~k).long() for k in seen), torch.ones(40, dtype=torch.long))
    assert xs.shape == task.x_ctx.shape


def test_stochastic_agents():
    g = torch.Generator().manual_seed(0)
    r = method.Agents(2.0, pi=0.5, random_budget=True).draw((4, 1000), g, "cpu")
    assert 0.45 < (r > 0).float().mean() < 0.55 and r.max() <= 2.0
    assert r[r > 0].mean() == pytest.approx(1.0, abs=0.1)


def test_data_generators():
    task = data.strategic_gauss(3, 100, 50, d=6, n_mutable=3, n_extra=20, seed=0)
    assert task.x_ctx.shape == (3, 100, 6) and task.x_extra.shape == (3, 20, 6)
    assert torch.allclose(task.x_ctx.mean(1), torch.zeros(3, 6), atol=1e-5)
    assert task.mutable.tolist() == [True] * 3 + [False] * 3
    c = task.cost[:3]
    assert c.max() / c.min() == pytest.approx(4.0) and torch.prod(c).item() == pytest.approx(1.0, rel=1e-5)
    credit = data.credit_like(2, 60, 40, seed=0)
    assert credit.x_ctx.shape == (2, 60, 6) and 0.2 < credit.y_ctx.float().mean() < 0.9
    bc = data.breast_cancer_task(2, n_ctx=200)
    assert bc.x_test.shape == (2, 369, 6) and len(bc.names) == 6


def test_claim_metrics_on_a_fake_result():
    p1 = {m: {k: {"acc": a, "fpr": 0.1, "acc_per_rep": [a] * 5} for k, a in (("0", 0.86), ("1", acc), ("1.5", acc))}
          for m, acc in (("base_clean", 0.86), ("base", 0.78), ("spn", 0.84), ("lr_p1", 0.83), ("lr_p2", 0.80),
                         ("strategic_lr_p1", 0.82), ("strategic_lr_p2", 0.857), ("spn_half_r", 0.80),
                         ("spn_double_r", 0.81), ("spn_wrong_cost", 0.79))}
    p2 = {"spn_p2_iterated": {k: {"acc": 0.83, "fpr": 0.1, "acc_per_rep": [0.83] * 5} for k in ("1", "1.5")}}
    res = {"p1": p1, "p2": p2}
    assert claims.s1_drop(res) == pytest.approx(0.08)
    assert claims.s2_gain(res) == pytest.approx(0.06)
    assert claims.s2_gap(res) == pytest.approx(0.02)
    assert claims.s3_no_harm(res) == pytest.approx(0.0)
    assert claims.s5_beats_classical(res) == 1.0
    assert claims.s5_vs_strongest_p2(res) == pytest.approx(0.83 - 0.857)  # the strategic LR wins under P2
    assert claims.s7_misspec_budget(res) == pytest.approx(0.02)
    assert claims.s7_misspec_cost(res) == pytest.approx(0.01)


def test_wrong_cost_reverses_mutable_costs():
    from icml26.papers.strategic_pfn import experiment

    c = data.default_costs(6, 3)
    w = experiment.wrong_cost(c)
    assert torch.equal(w[:3], c[:3].flip(0)) and torch.isinf(w[3:]).all()
    with pytest.raises(ValueError, match="cost"):
        experiment.wrong_cost(torch.ones(2, 3))


def test_value_errors():
    X, w, b, cost = _linear_setup()
    with pytest.raises(ValueError, match="budget"):
        method.linear_best_response(X, w, b, cost, -1.0)
    with pytest.raises(ValueError, match="cost"):
        method.linear_best_response(X, w, b, torch.tensor([1.0, -1.0, 1.0]), 1.0)
    with pytest.raises(ValueError, match="w must"):
        method.linear_best_response(X, w[:, :2], b, cost, 1.0)
    with pytest.raises(ValueError, match="method"):
        method.best_response(_score(w, b), X, cost, 1.0, method="magic")
    with pytest.raises(ValueError, match="pi"):
        method.Agents(1.0, pi=1.5)
    with pytest.raises(ValueError, match="X must"):
        method.linear_best_response(X[0], w, b, cost, 1.0)
    with pytest.raises(ValueError, match="cross_fit"):
        method.strategic_context(_score(w, b), X, torch.zeros(2, 50, dtype=torch.long), cost, method.Agents(1.0),
                                 cross_fit=1)
    with pytest.raises(ValueError, match="rounds"):
        method.StrategicPFN(_tiny_pfn(), cost, method.Agents(1.0), rounds=0)
    with pytest.raises(ValueError, match="name"):
        baselines.ClassicalRule("svm", X, torch.zeros(2, 50, dtype=torch.long))
    with pytest.raises(ValueError, match="n_mutable"):
        data.default_costs(3, 4)


def test_experiment_smoke_all_branches():
    from icml26.papers.strategic_pfn import experiment

    cfg = dict(experiment.CONFIGS["full"])
    cfg.update(
        pfn=dict(d_max=8, d_model=16, n_layers=1, n_heads=2, d_ff=32, steps=3, batch_size=4, n_ctx=(16, 32),
                 n_qry=8, lr=1e-3, prior_weights=(0.5, 0.5), time_limit=None),
        data=dict(d=6, n_mutable=3, n_ctx=32, n_test=40, reps=2, separation=1.1, anisotropy=4.0),
        budgets=[0.0, 1.0, 1.5], classical=["lr"], p2_budgets=[1.0, 1.5], rounds=2, misspecified=True,
        ctx_sweep=dict(n_ctx=[16, 32], budget=1.0),
        real=dict(name="breast_cancer", reps=1, n_ctx=64, budget=1.0, classical=["lr"]),
        credit=dict(reps=2, n_ctx=32, n_test=40, budget=1.0, classical=["lr"]),
        stochastic=dict(pis=[0.5, 1.0], budget=1.0),
    )
    res = experiment.run(cfg, "cpu", 0)
    assert set(res["p1"]["spn"]) == {"0", "1", "1.5"} and "lr_p2" in res["p1"] and "spn_double_r" in res["p1"]
    assert "strategic_lr_p1" in res["p1"] and "spn_wrong_cost" in res["p1"] and "spn" in res["credit"]
    assert set(res["p1"]["spn_nonstrategic"]) == {"0", "1", "1.5"}  # the headline's negative control, every budget
    heads = [c for c in claims.CLAIMS if c.headline]
    assert [c.id for c in heads] == ["S2_spn_gain"] and isinstance(float(heads[0].control.metric(res)), float)
    assert res["p1"]["spn"]["0"]["acc"] == res["p1"]["base"]["0"]["acc"]  # S3 by construction
    assert len(res["ctx_sweep"]["spn_gap"]) == 2 and set(res["stochastic"]) == {"0.5", "1"}
    for c in claims.CLAIMS:
        assert isinstance(float(c.metric(res)), float)
    with pytest.raises(ValueError, match="seed"):
        experiment.run(cfg, "cpu", -1)
    with pytest.raises(ValueError, match="config"):
        experiment.run({"pfn": {}}, "cpu", 0)


def test_line_search_lands_at_the_boundary_of_a_nonlinear_rule():
    """Issue 34: the line search used to jump to the next grid point (up to r/8 past the boundary)."""
    g = torch.Generator().manual_seed(5)
    X = torch.randn(2, 400, 2, generator=g)
    cost = torch.tensor([1.0, math.inf])

    def rule(x):  # monotone in the one mutable feature, boundary at x0 = 0.4; not linear
        return 10 * (x[..., 0] - 0.4) ** 3

    got = method.best_response(rule, X, cost, 1.5, method="line", margin=1e-3)
    moved = (got != X).any(-1)
    assert moved.sum() > 50
    assert (rule(got)[moved] >= 0).all()
    overshoot = got[..., 0][moved] - 0.4
    assert overshoot.max() <= 0.01, f"agents overshoot the boundary by up to {overshoot.max():.3f}"
    # every agent within budget of the boundary moves
    assert torch.equal(moved, (X[..., 0] < 0.4) & (0.4 - X[..., 0] <= 1.5 - 1e-3))


def test_surrogate_fit_is_not_biased_by_clipped_logits():
    """Issue 34: clamping far-off logits at +-8 tilted the fitted line, so closed-form movers missed."""
    g = torch.Generator().manual_seed(6)
    X = torch.randn(2, 500, 3, generator=g)
    w = torch.tensor([[12.0, -4.0, 2.0], [6.0, 9.0, -3.0]])
    b = torch.tensor([-9.0, -5.0])
    cost = torch.tensor([1.0, 3.0, math.inf])
    w2, b2 = method.fit_linear_surrogate(X, _score(w, b)(X))
    torch.testing.assert_close(w2, w, atol=1e-2, rtol=1e-2)
    torch.testing.assert_close(b2, b, atol=1e-2, rtol=1e-2)
    ref = method.linear_best_response(X, w, b, cost, 1.0)
    got = method.best_response(_score(w, b), X, cost, 1.0, method="surrogate")
    assert torch.equal((got != X).any(-1), (ref != X).any(-1)), "surrogate responses miss movers"


def test_nonstrategic_context_moves_as_far_but_not_towards_the_rule():
    """Issue 69's control: every row moves by its strategic move's length, along the mutable features only, in a
    direction that does not depend on the deployed rule."""
    from icml26.papers.strategic_pfn import experiment

    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 50, 4, generator=g)
    cost = torch.tensor([1.0, 4.0, math.inf, math.inf])
    moved = x.clone()
    moved[..., 0] += torch.rand(2, 50, generator=g)  # a strategic-looking move along the first feature
    out = experiment.nonstrategic_context(x, moved, cost, torch.Generator().manual_seed(0))
    assert torch.allclose((out - x).norm(dim=-1), (moved - x).norm(dim=-1), atol=1e-5)
    assert torch.equal(out[..., 2:], x[..., 2:])  # immutable features stay
    cos = torch.nn.functional.cosine_similarity(out - x, moved - x, dim=-1)
    assert cos.abs().mean() < 0.9  # random directions, not the strategic one
    still = experiment.nonstrategic_context(x, x, cost, torch.Generator().manual_seed(0))
    assert torch.equal(still, x)  # who does not move strategically does not move
    with pytest.raises(ValueError, match="cost"):
        experiment.nonstrategic_context(x, moved, cost[:3], torch.Generator())
