"""Unit tests for ssn_games: DRS operator identities, Jacobian, SSN, hybrid vs LP, regret matching."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.ssn_games import claims as C
from icml26.papers.ssn_games import experiment as E
from icml26.papers.ssn_games.baselines import drs_iterate, lp_solve, restarted_pdhg, ssn_cold
from icml26.papers.ssn_games.games import duality_gap, game_value, random_games, spectral_norm
from icml26.papers.ssn_games.method import DRSOperator, default_eta, hybrid, ssn
from icml26.papers.ssn_games.regret import RegretMatching

D = torch.float64


def _game(n=12, m=15, seed=0, B=2):
    return random_games(B, n, m, seed=seed)


def test_lp_on_known_games():
    rps = torch.tensor([[0.0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=D)
    lp = lp_solve(rps)
    assert abs(lp["value"][0]) < 1e-9
    torch.testing.assert_close(lp["x"][0], torch.full((3,), 1 / 3, dtype=D), atol=1e-8, rtol=0)
    skew = torch.tensor([[3.0, 1.0], [0.0, 2.0]], dtype=D)  # row minimises: x=(1/2,1/2), y=(1/4,3/4), v=3/2
    lp = lp_solve(skew)
    assert abs(lp["value"][0] - 1.5) < 1e-9
    torch.testing.assert_close(lp["y"][0], torch.tensor([0.25, 0.75], dtype=D), atol=1e-8, rtol=0)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 10_000))
def test_gap_nonnegative_and_bounds_value(n, m, seed):
    A = random_games(1, n, m, seed=seed)
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(1, n, generator=g, dtype=D)
    y = torch.rand(1, m, generator=g, dtype=D)
    x, y = x / x.sum(), y / y.sum()
    assert float(duality_gap(A, x, y)) >= -1e-14
    v = lp_solve(A)["value"][0]
    Ay, Atx = A[0] @ y[0], x[0] @ A[0]
    assert float(Ay.min()) - 1e-9 <= v <= float(Atx.max()) + 1e-9


def test_resolvent_and_normal_map_identities():
    A = _game()
    op = DRSOperator(A, 0.3)
    w = torch.randn(2, 27, dtype=D)
    torch.testing.assert_close(op.R((op.IetaM() @ w.unsqueeze(-1)).squeeze(-1)), w)
    torch.testing.assert_close((op.IetaM() @ op.F(w).unsqueeze(-1)).squeeze(-1), op.G(w))
    torch.testing.assert_close(op.F(w), w - op.T(w))


def test_fixed_point_at_lp_equilibrium():
    A = _game(10, 10, seed=3)
    lp = lp_solve(A)
    eta, _ = default_eta(A)
    op = DRSOperator(A, eta)
    w_star = op.lift(lp["x"], lp["y"])
    torch.testing.assert_close(op.P(w_star), torch.cat([lp["x"], lp["y"]], -1), atol=1e-7, rtol=0)
    torch.testing.assert_close(op.T(w_star), w_star, atol=1e-7, rtol=0)
    assert float(op.G(w_star).norm(dim=-1).max()) < 1e-7


def test_V_matches_finite_differences_of_G():
    A = _game(8, 11, seed=5)
    op = DRSOperator(A, 0.2)
    w = torch.randn(2, 19, dtype=D)
    u = torch.randn(2, 19, dtype=D)
    eps = 1e-7
    fd = (op.G(w + eps * u) - op.G(w - eps * u)) / (2 * eps)
    Vu = (op.V(w) @ u.unsqueeze(-1)).squeeze(-1)
    torch.testing.assert_close(Vu, fd, atol=1e-6, rtol=0)
    # V = I - D + eta M D, assembled densely from the block Jacobian.
    Dm = op.D(w)
    M = (op.IetaM() - torch.eye(19, dtype=D)) / 0.2
    torch.testing.assert_close(op.V(w), torch.eye(19, dtype=D) - Dm + 0.2 * M @ Dm)


def test_ssn_quadratic_from_near_solution():
    A = random_games(2, 30, 30, seed=7)
    lp = lp_solve(A)
    eta, _ = default_eta(A)
    op = DRSOperator(A, eta)
    x = 0.999 * lp["x"] + 0.001 / 30
    y = 0.999 * lp["y"] + 0.001 / 30
    r = ssn(A, op.lift(x, y), eta, tol=1e-12)
    assert all(r.converged)
    assert max(r.steps) <= 8
    assert max(r.gap) <= 1e-12


def test_ssn_drs_regularization_also_converges():
    A = random_games(1, 20, 20, seed=8)
    h = hybrid(A, regularize="drs", tol=1e-12)
    assert h.converged[0] and h.gap[0] <= 1e-12


@pytest.mark.parametrize("n,m,switch", [(25, 25, "adaptive"), (15, 30, "threshold"), (40, 20, "adaptive")])
def test_hybrid_matches_lp(n, m, switch):
    A = random_games(2, n, m, seed=n + m)
    h = hybrid(A, switch=switch, tol=1e-12)
    lp = lp_solve(A)
    assert all(h.converged)
    assert max(h.gap) <= 1e-10
    vals = game_value(A, h.x, h.y).tolist()
    assert max(abs(a - b) for a, b in zip(vals, lp["value"])) <= 1e-7
    assert torch.allclose(h.x.sum(-1), torch.ones(2, dtype=D)) and bool((h.x >= 0).all())


def _prm_plus_numpy(A, T, alternating):
    """Plain NumPy transcription of the PRM+ update of docs/papers/ssn_games.md §3.4 (oracle)."""
    n, m = A.shape
    x, y = np.full(n, 1 / n), np.full(m, 1 / m)
    Qx, Qy = np.zeros(n), np.zeros(m)
    norm = lambda p: p / p.sum() if p.sum() > 0 else np.full(len(p), 1 / len(p))
    for _ in range(T):
        lx = A @ y
        rx = x @ lx - lx
        Qx = np.maximum(Qx + rx, 0)
        x_new = norm(np.maximum(Qx + rx, 0))
        uy = A.T @ (x_new if alternating else x)
        ry = uy - y @ uy
        Qy = np.maximum(Qy + ry, 0)
        y = norm(np.maximum(Qy + ry, 0))
        x = x_new
    return x, y


@pytest.mark.parametrize("alternating", [True, False])
def test_prm_plus_matches_numpy_oracle(alternating):
    A = random_games(1, 6, 5, seed=11)
    rm = RegretMatching(A, alternating=alternating)
    rm.run(40)
    x, y = _prm_plus_numpy(A[0].numpy(), 40, alternating)
    np.testing.assert_allclose(rm.x[0].numpy(), x, atol=1e-12)
    np.testing.assert_allclose(rm.y[0].numpy(), y, atol=1e-12)


def test_regret_matching_variants_and_averages():
    A = random_games(2, 10, 10, seed=2)
    rec = {}
    for pred in (False, True):
        rm = RegretMatching(A, predictive=pred, alternating=True)
        out = rm.run(400, record_every=200)
        rec[pred] = out
        assert out["iterations"] == [200, 400] and out["cost"] == [400, 800]
        for a in ("uniform", "linear", "quadratic"):
            x, y = rm.iterate(a)
            torch.testing.assert_close(x.sum(-1), torch.ones(2, dtype=D))
    # The averages of self-play converge: a gap well below the uniform strategy's.
    x0 = torch.full((2, 10), 0.1, dtype=D)
    assert max(rec[True]["gap"]["quadratic"][-1]) < 0.1 * float(duality_gap(A, x0, x0).min())
    rm_plain = RegretMatching(A, plus=False)
    rm_plain.run(50)
    assert not torch.equal(rm_plain.x, RegretMatching(A).x)


def test_drs_and_cold_baselines_run():
    A = random_games(2, 15, 15, seed=4)
    eta, cost = default_eta(A)
    assert cost == 60
    sigma, _ = spectral_norm(A, 200)
    torch.testing.assert_close(sigma, torch.linalg.matrix_norm(A, ord=2), rtol=1e-6, atol=0)
    d = drs_iterate(A, eta, 400, record_every=100)
    assert d["gap"][-1][0] < d["gap"][0][0]
    c = ssn_cold(A, eta, max_newton=3)
    assert len(c.gaps[0]) <= 4


def test_claim_metrics_on_handmade_results():
    r = {"local": {"gaps": [[1e-3, 1e-3, 1e-6, 1e-12, 1e-16]], "residuals": [[1.0, 1.0, 1e-3, 1e-9, 1e-13]],
                   "full_steps": [[False, True, True, True]]}}
    assert C.local_steps(r) == 2
    assert math.isclose(C.local_order(r), 2.0)
    assert math.isclose(C.local_residual_ratio(r), 1e-4)
    r["local"]["full_steps"] = [[True, False, True, True]]  # the damped step moves the local start to 1e-6
    assert C.local_steps(r) == 1
    assert C.cold_failures({"cold": {"min_gap": [0.5, 1e-4, 0.3]}}) == pytest.approx(2 / 3)
    res = {"prm_budget_iterations": 500, "hybrid": {"cost_to_target": [100.0, 50.0]},
           "prm": {"simultaneous/last": {"cost_to_target": [None, None]},
                   "alternating/last": {"cost_to_target": [400.0, None]}}}
    assert C.cost_ratio_paper_baseline(res) == pytest.approx(10.0)  # budget 1000 / 100
    assert C.cost_ratio(res) == pytest.approx(4.0)  # alternating reached it at 400


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="A must be a torch.Tensor"):
        hybrid(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="floating"):
        hybrid(torch.zeros(3, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="finite"):
        hybrid(torch.full((3, 3), float("nan"), dtype=D))
    with pytest.raises(ValueError, match="min_newton"):
        hybrid(torch.eye(3, dtype=D), min_newton=0)
    with pytest.raises(ValueError, match="kappa"):
        ssn(torch.eye(3, dtype=D), torch.zeros(1, 6, dtype=D), 1.0, kappa=-1.0)
    with pytest.raises(ValueError, match="switch"):
        hybrid(torch.eye(3, dtype=D), switch="sometimes")
    with pytest.raises(ValueError, match="eta"):
        DRSOperator(torch.eye(3, dtype=D), -1.0)
    op = DRSOperator(torch.eye(3, dtype=D), 1.0)
    with pytest.raises(ValueError, match="w must be a tensor of shape"):
        op.P(torch.zeros(1, 5, dtype=D))
    with pytest.raises(ValueError, match="regularize"):
        ssn(torch.eye(3, dtype=D), torch.zeros(1, 6, dtype=D), 1.0, regularize="ridge")
    with pytest.raises(ValueError, match="nu"):
        ssn(torch.eye(3, dtype=D), torch.zeros(1, 6, dtype=D), 1.0, nu=1.5)
    with pytest.raises(ValueError, match="alternating"):
        RegretMatching(torch.eye(3, dtype=D), alternating="yes")
    with pytest.raises(ValueError, match="averaging"):
        RegretMatching(torch.eye(3, dtype=D)).iterate("median")
    with pytest.raises(ValueError, match="distribution"):
        random_games(1, 3, 3, distribution="cauchy")
    with pytest.raises(ValueError, match="config lacks the key"):
        E.run({"n": 3}, "cpu", 0)
    with pytest.raises(ValueError, match="seed"):
        E.run(dict(E.CONFIGS["quick"]), "cpu", -1)


def test_skew_games_are_symmetric_with_value_zero():
    A = random_games(2, 9, 9, distribution="skew", seed=4)
    torch.testing.assert_close(A, -A.transpose(1, 2))
    lp = lp_solve(A)
    assert max(abs(v) for v in lp["value"]) < 1e-9
    with pytest.raises(ValueError, match="square"):
        random_games(1, 3, 4, distribution="skew")


def test_restarted_pdhg_converges_and_restarts():
    A = random_games(2, 12, 15, seed=7)
    r = restarted_pdhg(A, 4000, check_every=20)
    assert len(r["cost"]) == len(r["gap"]) == 200
    assert r["cost"][0] == 2 * 30 + 2 + 2 * 20 + 4  # power iteration, first gap, 20 steps, one check
    assert max(r["gap"][-1]) < 1e-8 < min(r["gap"][0])
    assert min(r["restarts"]) >= 1
    early = restarted_pdhg(A, 4000, check_every=20, target=1e-6)
    assert len(early["gap"]) < 200 and max(early["gap"][-1]) <= 1e-6
    # Sufficient decay never met and artificial restarts only for an epoch as long as the run: the one restart left
    # is the first check's (its epoch is the whole run so far, as in PDLP); after it, plain PDHG.
    plain = restarted_pdhg(A, 400, check_every=20, beta=1e-12, artificial=0.999999)
    assert plain["restarts"] == [1, 1]


def test_cost_ratios_per_mode_and_family():
    prm = {"simultaneous/last": {"cost_to_target": [None, 300.0]},
           "alternating/last": {"cost_to_target": [50.0, None]},
           "alternating/linear": {"cost_to_target": [40.0, None]}}
    r = {"hybrid": {"cost_to_target": [10.0, 20.0]}, "prm": prm, "prm_budget_iterations": 100}
    assert C.cost_ratio_paper_baseline(r) == pytest.approx(min(200 / 10, 300 / 20))
    assert C.cost_ratio_alternating(r) == pytest.approx(min(40 / 10, 200 / 20))
    assert C.cost_ratio(r) == pytest.approx(4.0)
    fam = {"name": "f", "hybrid": {"cost_to_target": [10.0, 20.0]}, "prm": prm, "prm_budget_iterations": 100}
    r["families"] = [fam, {**fam, "name": "g", "prm_budget_iterations": 1000}]
    assert C.family_ratios(r, ("simultaneous",)) == {"f": 15.0, "g": 15.0}
    assert C.families_ratio_alternating(r) == pytest.approx(4.0)
    with pytest.raises(KeyError):
        C.families_ratio_paper_baseline({"hybrid": {}})


def test_families_run_every_family_like_the_main_batch():
    cfg = {**E.CONFIGS["quick"], "n": 6, "m": 6, "games": 1, "prm_cap_iterations": 300, "record_every": 50,
           "families": [dict(name="skew", n=8, m=8, distribution="skew", games=2),
                        dict(name="rect", n=5, m=9, distribution="uniform", games=1)]}
    out = E.families(cfg, "cpu", 0)["families"]
    assert [f["name"] for f in out] == ["skew", "rect"]
    for f in out:
        assert all(f["hybrid"]["converged"])
        assert len(f["prm"]) == 8 and f["prm_budget_iterations"] <= 300
        assert max(abs(a - b) for a, b in zip(f["hybrid"]["value"], f["lp"]["value"])) < 1e-7
    assert C.family_ratios({"families": out}, ("alternating",)).keys() == {"skew", "rect"}


def test_headline_control_is_the_first_order_phase_without_newton():
    """The control feeds the headline's test with the hybrid replaced by alternating PRM+ (its warm starts): per game
    the best simultaneous cost (twice the budget where none got there) over the no-Newton run's, min over games."""
    prm = {f"{m}/{a}": {"cost_to_target": [None, 500.0]} for m in ("simultaneous", "alternating")
           for a in ("last", "uniform", "linear", "quadratic")}
    prm["alternating/last"]["cost_to_target"] = [300.0, None]
    r = {"prm": prm, "prm_budget_iterations": 1000, "hybrid": {"cost_to_target": [100.0, 100.0]}}
    assert C.control_no_newton(r) == pytest.approx(1.0)  # game 1: 500 / 500 (alternating/last missed, quadratic 500)
    prm["alternating/quadratic"]["cost_to_target"] = [None, 50.0]
    assert C.control_no_newton(r) == pytest.approx(min(2000 / 300, 500 / 50))
    d = C.cost_ratio_details(r)
    assert d["vs simultaneous PRM+"] == pytest.approx(C.cost_ratio_paper_baseline(r))
    headline = [c for c in C.CLAIMS if c.headline]
    assert [c.id for c in headline] == ["hybrid_vs_prm_plus_cost"] and headline[0].control is not None
    assert next(c for c in C.CLAIMS if c.id == "hybrid_certificate").kind == "check"
