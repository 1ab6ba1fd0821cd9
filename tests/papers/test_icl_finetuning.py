"""Unit tests for icl_finetuning: the linear-attention model, closed forms, training loop, data, extension."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.icl_finetuning import baselines, claims, experiment
from icml26.papers.icl_finetuning.data import (
    PairDataset,
    build_prompts,
    diabetes_covariates,
    rotate_task,
    sample_prompts,
    sample_tasks,
    truncate_shots,
)
from icml26.papers.icl_finetuning.method import (
    EvalSet,
    HeavyBallSGD,
    LinearAttentionICL,
    TrainConfig,
    finetune,
    fs_schedule,
    gamma_exact,
    set_trainable,
    theory_params,
    w_star,
    zs_v_floor,
)


def gen(seed=0):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


def test_prompt_format_constant_feature_and_hidden_query_label():
    g = gen()
    th = sample_tasks(1, 4, g)[0]
    z, y = sample_prompts(th, 3, 8, sigma2=0.0, generator=g)
    assert z.shape == (8, 4, 6)
    assert torch.all(z[..., 0] == 1)
    assert torch.all(z[:, -1, -1] == 0)
    torch.testing.assert_close(z[:, :-1, -1], z[:, :-1, 1:-1] @ th)
    torch.testing.assert_close(y, z[:, -1, 1:-1] @ th)


def test_pair_dataset_prompts_hide_query_label():
    g = gen(1)
    th = sample_tasks(1, 3, g)[0]
    data = PairDataset(th, 50, sigma2=0.0, generator=g)
    z, y = data.prompts(4, 16, g)
    assert z.shape == (16, 5, 5) and torch.all(z[:, -1, -1] == 0)
    torch.testing.assert_close(y, z[:, -1, 1:-1] @ th)
    torch.testing.assert_close(z[:, :-1, -1], z[:, :-1, 1:-1] @ th)


@pytest.mark.parametrize("par", ["merged", "split"])
def test_fast_forward_matches_full_token_outputs(par):
    model = LinearAttentionICL(4, par, init_std=0.3, generator=gen(2), dtype=torch.float64)
    z, _ = sample_prompts(sample_tasks(1, 4, gen(3), dtype=torch.float64)[0], 6, 10, generator=gen(4))
    torch.testing.assert_close(model(z), model.forward_all(z)[:, -1, -1])
    # normalisation by N including the query: doubling every token's score halves nothing else
    n = z.shape[1]
    manual = z[:, -1, -1] + sum((z[:, -1] @ model.score_matrix() @ z[:, m].T).diagonal() * (z[:, m] @ model.V[-1])
                                for m in range(n)) / n
    torch.testing.assert_close(model(z), manual)


def test_split_model_equals_merged_with_product_matrix():
    split = LinearAttentionICL(3, "split", init_std=0.4, generator=gen(5), dtype=torch.float64)
    merged = LinearAttentionICL(3, "merged", init_std=0.0, dtype=torch.float64)
    with torch.no_grad():
        merged.Q.copy_(split.Wq.T @ split.Wk)
        merged.V.copy_(split.V)
    z, _ = sample_prompts(sample_tasks(1, 3, gen(6), dtype=torch.float64)[0], 5, 7, generator=gen(7))
    torch.testing.assert_close(split(z), merged(z))


def test_shot_curve_matches_truncated_prompts():
    model = LinearAttentionICL(5, init_std=0.2, generator=gen(8))
    z, _ = sample_prompts(sample_tasks(1, 5, gen(9))[0], 8, 32, generator=gen(10))
    shots = [0, 1, 3, 8]
    fast = model.shot_curve(z, shots)
    for i, n in enumerate(shots):
        torch.testing.assert_close(fast[i], model(truncate_shots(z, n)), rtol=1e-5, atol=1e-5)


def test_gradients_match_finite_differences():
    model = LinearAttentionICL(2, "split", init_std=0.3, generator=gen(11), dtype=torch.float64)
    z, y = sample_prompts(sample_tasks(1, 2, gen(12), dtype=torch.float64)[0], 3, 5, generator=gen(13))
    args = tuple(p.detach().clone().requires_grad_(True) for p in (model.Wq, model.Wk, model.V))
    assert torch.autograd.gradcheck(lambda a, b, c: ((_bind(model, a, b, c)(z) - y) ** 2).mean(), args)


def _bind(model, wq, wk, v):
    """A functional copy of ``model`` with the given tensors as its matrices (for gradcheck)."""
    clone = LinearAttentionICL(model.d, "split", init_std=0.0, dtype=torch.float64)
    del clone.Wq, clone.Wk, clone.V
    clone.Wq, clone.Wk, clone.V = wq, wk, v
    return clone


@settings(max_examples=25, deadline=None)
@given(w=st.floats(0.05, 50.0), seed=st.integers(0, 1000))
def test_zs_all_family_is_exact_zero_shot_for_every_w(w, seed):
    th = sample_tasks(1, 5, gen(seed), dtype=torch.float64)[0]
    model = theory_params("zs_all", 5, theta0=th, w=w, dtype=torch.float64)
    z, y = sample_prompts(th, 0, 64, sigma2=0.0, generator=gen(seed + 1))
    torch.testing.assert_close(model(z), y)


def test_zs_v_prediction_is_cubic_and_floor_matches_monte_carlo():
    d = 5
    th = sample_tasks(1, d, gen(20), dtype=torch.float64)[0]
    model = theory_params("zs_v", d, theta0=th, dtype=torch.float64).requires_grad_(False)
    z, y = sample_prompts(th, 0, 200_000, sigma2=0.1, generator=gen(21))
    x = z[:, 0, 1:-1]
    torch.testing.assert_close(model(z), (x * x).sum(1) * (x @ th) / (d + 4))
    mse = float(((model(z) - y) ** 2).mean())
    assert abs(mse - zs_v_floor(d, 0.1)) < 0.01, mse


@pytest.mark.parametrize("d,n", [(5, 20), (3, 8)])
def test_w_star_is_the_least_squares_optimum(d, n):
    """The ZS(V) prediction is affine in w, so the few-shot optimal w is a 1-D regression (Monte Carlo)."""
    s2 = 0.1
    th = sample_tasks(1, d, gen(30), dtype=torch.float64)[0]
    z, y = sample_prompts(th, n, 100_000, sigma2=s2, generator=gen(31))
    with torch.no_grad():
        a = theory_params("zs_v", d, theta0=th, w=1e-12, dtype=torch.float64)(z)
        b = theory_params("zs_v", d, theta0=th, w=1.0, dtype=torch.float64)(z) - a
    w_mc = float(((y - a) * b).sum() / (b * b).sum())
    assert abs(w_mc - w_star(n, d, s2)) < 0.01, (w_mc, w_star(n, d, s2))
    assert w_star(20, 5, 0.1) == pytest.approx(0.654, abs=1e-3)
    assert w_star(math.inf, d, s2) == pytest.approx((d + 3) / (d + 4))


def test_exact_pretrained_scale_is_the_least_squares_optimum():
    """The pretrained prediction is linear in the scale gamma; its MC optimum is (n+1)/(n+1+d(1+sigma2))."""
    d, n = 5, 20
    th = sample_tasks(100_000, d, gen(40), dtype=torch.float64)
    z, y = sample_prompts(th, n, 100_000, sigma2=0.1, generator=gen(41))
    with torch.no_grad():
        unit = theory_params("pretrained", d, gamma=1.0, dtype=torch.float64)(z)
    assert abs(float((y * unit).sum() / (unit * unit).sum()) - gamma_exact(d, n, 0.1)) < 0.01


def test_heavy_ball_matches_torch_sgd_with_clipping():
    torch.manual_seed(0)
    a = torch.randn(3, 3, requires_grad=True)
    b = a.detach().clone().requires_grad_(True)
    target = torch.randn(3, 3)
    mine = HeavyBallSGD([a], lr=0.1, momentum=0.9, clip=0.5)
    ref = torch.optim.SGD([b], lr=0.1, momentum=0.9)
    for _ in range(5):
        mine.step(((a @ a - target) ** 2).sum())
        ref.zero_grad()
        ((b @ b - target) ** 2).sum().backward()
        torch.nn.utils.clip_grad_norm_([b], 0.5)
        ref.step()
    torch.testing.assert_close(a, b)


@pytest.mark.parametrize("subset,frozen", [("v", ("Wq", "Wk")), ("q", ("Wk", "V")), ("k", ("Wq", "V")),
                                           ("kq", ("V",))])
def test_finetune_moves_only_the_trainable_subset(subset, frozen):
    model = LinearAttentionICL(3, "split", init_std=0.1, generator=gen(60))
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    data = PairDataset(sample_tasks(1, 3, gen(61))[0], 200, generator=gen(62))
    finetune(model, data, TrainConfig(steps=5, batch=16, n_shots=4, lr=0.05), subset=subset, objective="zs+fs",
             generator=gen(63))
    for name, p in model.named_parameters():
        moved = not torch.equal(p, before[name])
        assert moved == (name not in frozen), name


@pytest.mark.parametrize("objective", ["zs", "zs+fs"])
def test_value_only_zs_leaves_effective_w_exactly_unchanged(objective):
    """Former claim c4_minimal_change: the ZS prompt's label slot is 0, so the ZS loss has no gradient on V[-1,-1]
    and Q is frozen; the effective w is unchanged to the bit (ZS) but moved by the annealed FS term (ZS+FS)."""
    g = gen(64)
    model = LinearAttentionICL(4, init_std=0.05, generator=g)
    with torch.no_grad():
        model.V[-1, -1] += 1.0
        model.Q[1:-1, 1:-1] += 0.8 * torch.eye(4)
    w0, v0 = model.effective_w(), float(model.V[-1, -1].detach())
    data = PairDataset(sample_tasks(1, 4, g)[0], 500, generator=g)
    finetune(model, data, TrainConfig(steps=30, batch=64, n_shots=8), subset="v", objective=objective, generator=g)
    if objective == "zs":
        assert float(model.V[-1, -1].detach()) == v0 and model.effective_w() == w0
    else:
        assert abs(model.effective_w() - w0) > 1e-4


def test_finetune_returns_the_zero_shot_term():
    g = gen(65)
    model = LinearAttentionICL(3, init_std=0.1, generator=g)
    data = PairDataset(sample_tasks(1, 3, g)[0], 200, generator=g)
    cfg = TrainConfig(steps=1, batch=32, n_shots=4, lr=1e-12)
    state = gen(66).get_state()
    losses = finetune(model, data, cfg, subset="v", objective="zs+fs", generator=gen(66))
    g2 = torch.Generator()
    g2.set_state(state)
    z, y = data.prompts(4, 32, g2)
    with torch.no_grad():
        assert losses[0] == pytest.approx(float(((model(z[:, -1:]) - y) ** 2).mean()), rel=1e-4)


def test_calibrated_error_is_scale_free_and_bounded():
    th = sample_tasks(1, 4, gen(67))[0]
    ev = EvalSet({"t": th}, 10, 4000, 1, seed=3)
    pre = theory_params("pretrained", 4)
    big = theory_params("pretrained", 4)
    with torch.no_grad():
        big.V.mul_(1e4)                             # the same predictions times 1e4 (the residual term is 0)
    plain, cal = ev.curve(big, "t", [0, 10]), ev.curve(big, "t", [0, 10], calibrated=True)
    assert plain[1] > 1e6 * ev.curve(pre, "t", [10])[0]
    torch.testing.assert_close(torch.tensor(cal), torch.tensor(ev.curve(pre, "t", [0, 10], calibrated=True)))
    z, y = ev.prompts["t"][0]
    assert max(cal) <= float((y.double() ** 2).mean()) + 1e-9
    assert cal[1] <= ev.curve(pre, "t", [10])[0] + 1e-6   # the best rescaling never does worse than scale 1


def test_plateau_is_the_relative_change_of_the_last_tenth():
    assert experiment.plateau([2.0] * 80 + [1.1] * 10 + [1.0] * 10) == pytest.approx(0.1)
    assert experiment.plateau([1.0] * 40) == 0.0
    with pytest.raises(ValueError, match="at least 20"):
        experiment.plateau([1.0] * 5)


def test_crossover_angle_interpolates_the_sign_change():
    assert experiment.crossover_angle([0, 90, 180], [1.0, 3.0, 5.0], [2.0, 2.0, 2.0]) == pytest.approx(45.0)
    assert experiment.crossover_angle([0, 90], [3.0, 3.0], [2.0, 2.0]) == 0.0
    assert experiment.crossover_angle([0, 90], [1.0, 1.0], [2.0, 2.0]) == 180.0   # never: one step past the sweep
    with pytest.raises(ValueError, match="same length"):
        experiment.crossover_angle([0, 90], [1.0], [2.0, 2.0])


def test_fs_schedule_anneals_from_one_to_zero():
    vals = [fs_schedule(t, 11) for t in range(11)]
    assert vals[0] == 1.0 and vals[-1] == 0.0
    assert all(a > b for a, b in zip(vals, vals[1:]))


def test_evalset_uses_common_random_numbers():
    th = sample_tasks(1, 3, gen(70))[0]
    e1 = EvalSet({"t": th}, 5, 100, 2, seed=9)
    e2 = EvalSet({"t": th}, 5, 100, 2, seed=9)
    model = theory_params("pretrained", 3)
    assert e1.curve(model, "t", [0, 5]) == e2.curve(model, "t", [0, 5])


def test_rotate_task_angle():
    th = sample_tasks(1, 6, gen(80))[0]
    for deg in (0, 37, 90, 180):
        r = rotate_task(th, math.radians(deg), generator=gen(81))
        assert float(r.norm()) == pytest.approx(1.0, abs=1e-5)
        assert float(r @ th) == pytest.approx(math.cos(math.radians(deg)), abs=1e-5)


def test_diabetes_covariates_are_standardised():
    x, th = diabetes_covariates()
    assert x.shape == (442, 10) and th.shape == (10,)
    assert float(x.mean(0).abs().max()) < 1e-5 and float((x.std(0, unbiased=False) - 1).abs().max()) < 1e-4
    assert float(th.norm()) == pytest.approx(1.0, abs=1e-5)


def test_tiny_experiment_runs_and_claims_evaluate():
    cfg = dict(experiment.CONFIGS["quick"], pretrain_steps=3, ft_steps=20, ft_batch=16, pretrain_batch=16,
               dataset_size=100, eval_batch=200, angle_batch=100, methods=list(baselines.METHODS),
               inits=["theory", "scratch"], angles=[0, 180], diabetes=True)
    r = experiment.run(cfg, "cpu", 0)
    assert r["seconds"] > 0 and set(r["learned"]["scratch"]) >= set(baselines.METHODS) | {"pretrained"}
    for c in claims.CLAIMS:
        if not c.id.startswith("c6"):
            assert math.isfinite(c.metric(r)), c.id
            assert c.requires is None or not math.isnan(c.requires.metric(r)), c.id  # inf: premise unmet
            assert c.control is None or math.isfinite(c.control.metric(r)), c.id
    assert "c4_minimal_change" not in {c.id for c in claims.CLAIMS}   # an identity: a unit test above


def test_headlines_and_their_controls():
    heads = {c.id: c for c in claims.CLAIMS if c.headline}
    assert set(heads) == {"c1_zs_all_icl_ratio", "c2_zs_v_unseen_icl"}
    assert all(c.kind == "paper" and c.quote and c.control is not None for c in heads.values())


def test_no_import_circle_between_experiment_and_softmax_ext():
    import ast
    import pathlib

    src = pathlib.Path(experiment.__file__).with_name("softmax_ext.py").read_text()
    names = {n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom) and n.module}
    assert not any(m.endswith("experiment") for m in names), names


def test_softmax_extension_lora_subsets():
    from icml26.nn.lora import LoRALinear
    from icml26.papers.icl_finetuning.softmax_ext import SoftmaxICL, lora_finetune

    torch.manual_seed(0)
    model = SoftmaxICL(3, d_model=16, n_layers=1, n_heads=2)
    th = sample_tasks(1, 3, gen(90))[0]
    tuned = lora_finetune(model, th, "v", steps=2, batch=8, lr=1e-2, rank=2, generator=gen(91))
    attn = tuned.blocks[0].attn
    assert isinstance(attn.v_proj, LoRALinear) and not isinstance(attn.q_proj, LoRALinear)
    z, _ = sample_prompts(th, 4, 5, generator=gen(92))
    assert tuned(z).shape == (5,) and torch.isfinite(tuned(z)).all()
    with pytest.raises(ValueError, match="subset"):
        lora_finetune(model, th, "o", steps=1, batch=2, lr=1e-2, rank=2)


def test_bad_inputs_raise_value_errors():
    th = sample_tasks(1, 3, gen())[0]
    with pytest.raises(ValueError, match="d must"):
        LinearAttentionICL(0)
    with pytest.raises(ValueError, match="parameterisation"):
        LinearAttentionICL(3, "tied")
    with pytest.raises(ValueError, match="z must"):
        LinearAttentionICL(3)(torch.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="subset"):
        set_trainable(LinearAttentionICL(3), "o")
    with pytest.raises(ValueError, match="objective"):
        finetune(LinearAttentionICL(3), PairDataset(th, 10), TrainConfig(steps=1), objective="fs")
    with pytest.raises(ValueError, match="lr"):
        TrainConfig(lr=-1.0)
    with pytest.raises(ValueError, match="w must"):
        theory_params("zs_all", 3, theta0=th, w=0.0)
    with pytest.raises(ValueError, match="theta0"):
        theory_params("zs_v", 3)
    with pytest.raises(ValueError, match="sigma2"):
        sample_prompts(th, 2, 4, sigma2=-0.1)
    with pytest.raises(ValueError, match="n_shots"):
        truncate_shots(torch.zeros(2, 3, 5), 5)
    with pytest.raises(ValueError, match="x must"):
        build_prompts(torch.zeros(2, 3), torch.zeros(2))
    with pytest.raises(ValueError, match="methods"):
        experiment.run(dict(experiment.CONFIGS["quick"], methods=["lora"]), "cpu", 0)
    with pytest.raises(ValueError, match="config lacks the key"):
        experiment.run({"d": 5}, "cpu", 0)
    with pytest.raises(ValueError, match="n must"):
        w_star(-1, 5, 0.1)
