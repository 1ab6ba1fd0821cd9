"""Tests of DAG (icml26.papers.dag_tsfx): blocks, injection rule, equivariances, data protocol, baselines."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.dag_tsfx import baselines, data, experiment, explore, layers, method

torch.set_num_threads(1)
T, F, N, D = 48, 12, 1, 2


def model(**kw):
    torch.manual_seed(0)
    return method.DAG(T, F, N, D, d_model=16, d_ff=32, n_heads=2, patch_len=12, stride=12, **kw).eval()


def batch(b=3, n=N, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, T, n + D, generator=g), torch.randn(b, F, D, generator=g)


def test_patchify_replication_padding_and_count():
    x = torch.arange(10.0).view(1, 1, 10)
    p = layers.patchify(x, 4, 3)
    assert p.shape[2] == layers.n_patches(10, 4, 3) == 4
    assert p[0, 0, 0].tolist() == [0, 1, 2, 3]
    assert p[0, 0, -1].tolist() == [9, 9, 9, 9]  # padded by replicating the last value
    with pytest.raises(ValueError, match="patch_len"):
        layers.patchify(x, 11, 3)


def test_instance_stats_biased():
    x = torch.randn(2, 7, 3)
    mu, sd = layers.instance_stats(x, eps=0.0)
    assert torch.allclose(sd.squeeze(1) ** 2, x.var(1, unbiased=False), atol=1e-6)
    assert torch.allclose(mu.squeeze(1), x.mean(1))


@pytest.mark.parametrize("mode", ["softmax_sum", "convex"])
def test_injection_through_logit_prior_matches_reference(mode):
    torch.manual_seed(1)
    layer = layers.EncoderLayer(16, 2, 32, inject_mode=mode).double()
    x = torch.randn(3, 5, 16, dtype=torch.float64)
    _, native = layer(x)
    inj = torch.softmax(torch.randn(3, 2, 5, 5, dtype=torch.float64), -1)
    alpha = torch.rand(3, dtype=torch.float64)
    _, mixed = layer(x, (inj, alpha))
    ref = method.mixed_attention(native, inj, alpha, mode)
    assert torch.allclose(mixed, ref, atol=1e-10)
    assert not torch.allclose(mixed, native, atol=1e-3)
    _, again = layer(x)  # the prior is cleared after the call
    assert torch.allclose(again, native)


def test_softmax_sum_flattens_rows():
    a = torch.softmax(5 * torch.randn(4, 1, 6, 6), -1)
    mixed = method.mixed_attention(a, a, torch.ones(4), "softmax_sum")
    assert (mixed.max(-1).values <= a.max(-1).values + 1e-6).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["softmax_sum", "convex"]))
def test_mixed_rows_are_distributions(seed, mode):
    g = torch.Generator().manual_seed(seed)
    a = torch.softmax(torch.randn(2, 3, 4, 4, generator=g), -1)
    b = torch.softmax(torch.randn(2, 3, 4, 4, generator=g), -1)
    m = method.mixed_attention(a, b, torch.rand(2, generator=g), mode)
    assert torch.allclose(m.sum(-1), torch.ones(2, 3, 4), atol=1e-6)
    assert (m >= 0).all()


def test_injected_maps_train_the_covariate_encoder():
    m = model().train()
    x, ye = batch()
    out = m(x, ye)
    out["pred_t"].sum().backward()  # no L_t term: gradient reaches E_exo only through the injected maps
    g = m.enc_exo.layers[0].attn.q_proj.weight.grad
    assert g is not None and g.abs().sum() > 0
    m.zero_grad()
    mo = model(use_t_exog=False).train()
    mo(x, ye)["pred_t"].sum().backward()
    assert mo.enc_exo.layers[0].attn.q_proj.weight.grad is None


def test_tcm_is_shift_and_scale_equivariant_in_the_target():
    m = model()
    x, ye = batch()
    base = m(x, ye)["pred_t"]
    xs = x.clone()
    xs[..., :N] = 3.0 * xs[..., :N] + 5.0
    assert torch.allclose(m(xs, ye)["pred_t"], 3.0 * base + 5.0, atol=1e-3)


def test_ccm_inputs_are_rescaled_to_target_units():
    m = model()
    x, ye = batch()
    x[..., :N] = 7.0 + 3.0 * x[..., :N]
    seen = {}

    def keep(name):
        def hook(mod, inp, out):
            seen.setdefault(name, inp[0].detach())
        return hook

    m.tok_h.register_forward_hook(keep("h"))
    m.tok_f.register_forward_hook(keep("f"))
    m(x, ye)
    mu, sd = layers.instance_stats(x[..., :N])
    h = seen["h"]  # historical covariates carry the target's mean and std (docs/papers/dag_tsfx.md §3.3 step 1)
    assert torch.allclose(h.mean(1), mu[:, 0].expand(-1, D), atol=1e-4)
    assert torch.allclose(h.std(1, unbiased=False), sd[:, 0].expand(-1, D), atol=1e-2)
    mux, sdx = layers.instance_stats(x[..., N:])
    assert torch.allclose(seen["f"], (ye - mux) / sdx * sd + mu, atol=1e-4)  # future: history statistics


def test_batch_independence_with_two_targets():
    torch.manual_seed(0)
    m = method.DAG(T, F, 2, D, d_model=16, d_ff=32, n_heads=2, patch_len=12, stride=12).eval()
    x, ye = batch(b=3, n=2)
    p = m(x, ye)["pred"]
    x2 = x.clone()
    x2[1:] = torch.randn_like(x2[1:]) * 4  # other samples change: sample 0 must not (repeat_interleave layout)
    ye2 = ye.clone()
    ye2[1:] += 3
    assert torch.allclose(m(x2, ye2)["pred"][0], p[0], atol=1e-5)


def test_infer_use_future_false_ignores_true_future():
    m = model(infer_use_future=False)
    x, ye = batch()
    assert torch.allclose(m(x, ye)["pred"], m(x, ye + 10)["pred"])
    m2 = model()
    assert not torch.allclose(m2(x, ye)["pred"], m2(x, ye + 10)["pred"])


def test_blend_and_aux():
    m = model(alpha=0.3)
    x, ye = batch()
    out = m(x, ye)
    assert torch.allclose(out["pred"], 0.3 * out["pred_t"] + 0.7 * out["pred_c"])
    assert torch.allclose(out["aux"], out["loss_t"] + out["loss_c"])
    y = torch.randn(3, F, N)
    assert torch.allclose(method.dag_loss(out, y, 0.1), (out["pred"] - y).abs().mean() + 0.1 * out["aux"])


def test_dag_bad_inputs():
    m = model()
    x, ye = batch()
    with pytest.raises(ValueError, match="x must be"):
        m(x[:, :-1], ye)
    with pytest.raises(ValueError, match="y_exo"):
        m(x, ye[:, :-1])
    with pytest.raises(ValueError, match="finite"):
        m(x * float("nan"), ye)
    with pytest.raises(ValueError, match="alpha"):
        method.DAG(T, F, N, D, alpha=1.5)
    with pytest.raises(ValueError, match="use_t"):
        method.DAG(T, F, N, D, use_t=False, use_c=False)
    with pytest.raises(ValueError, match="inject_mode"):
        method.DAG(T, F, N, D, inject_mode="mean")


def test_which_inputs_each_baseline_uses():
    x, ye = batch()
    xe = x.clone()
    xe[..., N:] += torch.randn_like(xe[..., N:])
    for name, hist, fut in [("DLinear", False, False), ("PatchTST", False, False), ("TimeXer", True, False),
                            ("TiDE", True, True), ("NBEATSx", True, True), ("TFT", True, True)]:
        torch.manual_seed(0)
        b = baselines.make_model(name, T, F, N, D, d_model=16, d_ff=32, n_heads=2, patch_len=12, stride=12).eval()
        p = b(x, ye)["pred"]
        assert p.shape == (3, F, N)
        assert torch.allclose(b(xe, ye)["pred"], p) != hist, name
        assert torch.allclose(b(x, ye + torch.randn_like(ye))["pred"], p) != fut, name
    with pytest.raises(ValueError, match="name"):
        baselines.make_model("ARIMA", T, F, N, D)


def tft(**kw):
    torch.manual_seed(0)
    return baselines.TFT(T, F, N, D, hidden=8, n_heads=2, **kw)


def test_tft_shapes_and_weights():
    x, ye = batch()
    out = tft().eval()(x, ye)
    assert out["pred"].shape == (3, F, N) and out["aux"].item() == 0
    assert out["attn"].shape == (3, F, T + F) and out["past_weights"].shape == (3, T, N + D)
    assert out["future_weights"].shape == (3, F, D)
    for w in (out["attn"], out["past_weights"], out["future_weights"]):
        assert torch.allclose(w.sum(-1), torch.ones(w.shape[:-1]), atol=1e-5) and (w >= 0).all()
    later = torch.arange(T + F)[None, :] > T + torch.arange(F)[:, None]  # keys after the query's own step
    assert (out["attn"][:, later] == 0).all() and (out["attn"][:, ~later] > 0).all()
    with pytest.raises(ValueError, match="y_exo"):
        tft()(x)
    with pytest.raises(ValueError, match="n_exo"):
        baselines.TFT(T, F, N, 0)


def test_tft_decoder_is_causal():
    m = tft().eval()
    x, ye = batch()
    out = m(x, ye)
    for j in (0, F // 2, F - 1):
        ye2 = ye.clone()
        ye2[:, j] += 3.0
        out2 = m(x, ye2)
        # a change at future step j leaves every earlier step's forecast and attention context unchanged
        assert torch.allclose(out2["pred"][:, :j], out["pred"][:, :j], atol=1e-6)
        assert torch.allclose(out2["attn"][:, :j], out["attn"][:, :j], atol=1e-6)
        assert not torch.allclose(out2["pred"][:, j:], out["pred"][:, j:], atol=1e-4)
        assert not torch.allclose(out2["attn"][:, j:], out["attn"][:, j:], atol=1e-6)


def test_interpretable_attention_shares_values_and_averages_heads():
    from icml26.nn.attention import attention

    torch.manual_seed(2)
    a = baselines.InterpretableAttention(8, 2).double()
    x = torch.randn(3, 10, 8, dtype=torch.float64)
    out, w = a(x, 4)
    q = a.q(x[:, 6:]).view(3, 4, 2, 4).transpose(1, 2)
    k = a.k(x).view(3, 10, 2, 4).transpose(1, 2)
    v = a.v(x).unsqueeze(1).expand(3, 2, 10, 4)  # one value projection for every head
    ref = attention(q, k, v, causal=True, need_weights=True)
    assert torch.allclose(out, a.o(ref.out.mean(1)), atol=1e-10)
    assert torch.allclose(w, ref.weights.mean(1), atol=1e-10)


def test_grouped_grn_equals_separate_grns():
    torch.manual_seed(3)
    g = baselines.GatedResidualNetwork(4, 6, 5, groups=3).double()
    a = torch.randn(3, 7, 4, dtype=torch.float64)
    out = g(a)
    for i in range(3):
        one = baselines.GatedResidualNetwork(4, 6, 5).double()
        with torch.no_grad():
            for name in ("fc2", "fc1", "gate", "skip"):
                getattr(one, name).weight.copy_(getattr(g, name).weight[i:i + 1])
                getattr(one, name).bias.copy_(getattr(g, name).bias[i:i + 1])
            one.norm_w.copy_(g.norm_w[i, 0])
            one.norm_b.copy_(g.norm_b[i, 0])
        assert torch.allclose(one(a[i]), out[i], atol=1e-10)


def test_tft_gradients_reach_every_parameter_and_it_learns():
    m = tft().train()
    x, ye = batch(b=16)
    y = ye[..., :1] ** 2 - x[:, -1:, :1]  # depends on the future covariates and the last target value
    out = m(x, ye)
    (out["pred"] - y).abs().mean().backward()
    for name, p in m.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    first = None
    for _ in range(60):
        loss = (m(x, ye)["pred"] - y).abs().mean()
        first = loss.item() if first is None else first
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.7 * first


def test_generator_causality_and_validation():
    a = data.synthetic_epf(400, kappa=1.0, seed=3)
    b = data.synthetic_epf(400, kappa=0.0, seed=3)
    assert np.array_equal(a["exo"], b["exo"])  # covariates do not depend on the target side
    assert not np.allclose(a["endo"], b["endo"])
    assert np.allclose(b["endo"][:, 0], 1.0 + b["v"], atol=1e-5)  # kappa = 0: price = level + residual
    lag = data.synthetic_epf(400, lag=3, seed=3, sigma_eps=0.0)
    assert lag["exo"].shape == (400, 2)
    with pytest.raises(ValueError, match="sigma_shock"):
        data.synthetic_epf(400, sigma_shock=-1.0)
    with pytest.raises(ValueError, match="n_steps"):
        data.synthetic_epf(10)
    with pytest.raises(ValueError, match="phi"):
        data.synthetic_epf(400, phi=1.0)


def test_oracle_floor_matches_simulation():
    rng = np.random.default_rng(0)
    phi, s, h = 0.8, 0.5, 4
    v0 = np.zeros(200_000)
    errs = []
    v = v0
    for _ in range(h):
        v = phi * v + s * rng.standard_normal(v.shape)
        errs.append((v ** 2).mean())
    assert abs(np.mean(errs) - data.oracle_floor(phi, s, h, 1.0)) < 0.01


def test_windows_match_brute_force_and_split():
    endo = np.arange(100, dtype=np.float32)[:, None]
    exo = np.stack([endo[:, 0] * 10, endo[:, 0] * -1], 1)
    w = data.make_windows(endo, exo, 8, 3, 80, 100)
    assert w["x"].shape == (100 - 80 - 3 + 1, 8, 3)
    k = 5
    s = 80 + k
    assert w["y"][k, :, 0].tolist() == list(range(s, s + 3))
    assert w["x"][k, :, 0].tolist() == list(range(s - 8, s))
    assert w["y_exo"][k, :, 0].tolist() == [10.0 * i for i in range(s, s + 3)]
    sc = data.split_and_scale(endo, exo)
    assert abs(sc["endo"][:70].mean()) < 1e-5 and abs(sc["endo"][:70].std() - 1) < 1e-4
    with pytest.raises(ValueError, match="too short"):
        data.make_windows(endo, exo, 8, 30, 80, 100)
    with pytest.raises(ValueError, match="same length"):
        data.split_and_scale(endo, exo[:-1])


def test_seasonal_naive_repeats_last_period():
    x = torch.arange(48.0).view(1, 48, 1).repeat(1, 1, 2)
    out = data.seasonal_naive_exo(x, 1, 30, period=24)
    assert out[0, :, 0].tolist() == list(range(24, 48)) + list(range(24, 30))


TINY_HP = {n: {"lr": 1e-3} for n in ("TimeXer", "PatchTST", "DLinear", "TiDE", "NBEATSx", "TFT")}
TINY = dict(n_steps=600, seq_len=48, pred_len=12, epochs=1, batch=64, patience=1, beta=0.1,
            train_stride=4, model=dict(d_model=8, d_ff=16, n_heads=2, e_layers=1, patch_len=12, stride=12, dropout=0.0),
            hparams={"DAG": {"lr": 1e-3, "alpha": 0.3}, **TINY_HP}, ridge=True,
            baselines=["TimeXer", "PatchTST", "DLinear"], irrelevant_baselines=["PatchTST", "DLinear"],
            ablations=["no_t", "no_c"], seasonal=True)


def test_tiny_experiment_runs():
    r = experiment.run(TINY, "cpu", 0)
    assert set(r["main"]) == {"DAG", "DAG_no_future", "TimeXer", "PatchTST", "DLinear", "Ridge"}
    assert all(np.isfinite(v["mse"]) for v in r["main"].values())
    assert r["discovery"]["seasonal_naive_mae"] > 0
    assert r["epochs_run"]["DAG"] == 1 and r["hparams"]["DAG"]["alpha"] == 0.3
    with pytest.raises(ValueError, match="ablations"):
        experiment.run(dict(TINY, ablations=["nope"]), "cpu", 0)
    with pytest.raises(ValueError, match="hparams"):
        experiment.run(dict(TINY, hparams={"DAG": {"alpha": 0.5}}), "cpu", 0)


def test_chosen_values_reach_the_model(monkeypatch):
    seen = {}
    real = baselines.make_model

    def spy(name, *a, **kw):
        seen[name] = kw
        return real(name, *a, **kw)

    monkeypatch.setattr(baselines, "make_model", spy)
    experiment._train("DAG", experiment.scenario(TINY, "cpu", 0)["wins"], TINY, "cpu", 0)
    assert seen["DAG"]["alpha"] == 0.3 and "lr" not in seen["DAG"]


def test_ridge_reference_recovers_a_linear_rule():
    g = torch.Generator().manual_seed(0)
    wins = {}
    for k, n in (("train", 400), ("val", 100), ("test", 100)):
        x, ye = torch.randn(n, 6, 3, generator=g), torch.randn(n, 2, 2, generator=g)
        y = (0.5 * x[:, -1:, :1] + ye[..., :1] - 0.3 * ye[..., 1:] ** 2).expand(n, 2, 1).contiguous()
        wins[k] = {"x": x, "y": y, "y_exo": ye}
    y = (0.5 * wins["test"]["x"][:, -1:, :1] + wins["test"]["y_exo"][..., :1]
         - 0.3 * wins["test"]["y_exo"][..., 1:] ** 2)
    r = baselines.ridge_reference(wins, lambdas=(1e-3, 10.0))
    assert r["lam"] == 1e-3 and r["pred"].shape == (100, 2, 1)
    assert torch.allclose(r["pred"], y, atol=1e-2)
    a = baselines.ridge_features(wins["test"], hist_exo=False, future=False)
    assert a.shape == (100, 6 + 1) and a.dtype == torch.float64
    with pytest.raises(ValueError, match="lambdas"):
        baselines.ridge_reference(wins, lambdas=())


def test_csv_loader_reads_the_paper_format_and_feeds_the_models(tmp_path):
    raw = data.synthetic_epf(700, seed=5)
    f = tmp_path / "epf.csv"
    lines = ["date,load,renewables,price"]
    lines += [f"2020-01-01 {i % 24:02d}:00,{a:.6f},{b:.6f},{p:.6f}"
              for i, ((a, b), p) in enumerate(zip(raw["exo"], raw["endo"][:, 0]))]
    f.write_text("\n".join(lines) + "\n")
    d = data.load_tsfx_csv(f)
    assert d["target"] == "price" and d["exo_names"] == ["load", "renewables"]
    assert np.allclose(d["endo"], raw["endo"], atol=1e-5) and np.allclose(d["exo"], raw["exo"], atol=1e-5)
    assert d["dates"][1] == "2020-01-01 01:00"
    only = data.load_tsfx_csv(f, target="load", exo=["price"])
    assert np.allclose(only["endo"][:, 0], raw["exo"][:, 0], atol=1e-5)
    r = experiment.compare_on_series(dict(TINY, epochs=1), d["endo"], d["exo"], "cpu", 0, models=["DAG", "DLinear"])
    assert set(r) == {"DAG", "DLinear", "Ridge"} and all(np.isfinite(v["mse"]) for v in r.values())
    with pytest.raises(ValueError, match="target"):
        data.load_tsfx_csv(f, target="cost")
    bad = tmp_path / "bad.csv"
    bad.write_text("date,x,y\n1,2,\n2,3,4\n3,4,5\n")
    with pytest.raises(ValueError, match="numbers"):
        data.load_tsfx_csv(bad)


def test_tune_grid_and_dev_seeds_only():
    from icml26.papers.dag_tsfx import tune

    assert len(tune.grid_points("DAG")) == len(experiment.TUNE_GRID["lr"]) * len(experiment.TUNE_GRID["alpha"])
    assert tune.grid_points("TiDE") == [{"lr": lr} for lr in experiment.TUNE_GRID["lr"]]
    with pytest.raises(ValueError, match="development"):
        tune.tune(TINY, [0])
    r = tune.tune(dict(TINY, baselines=["DLinear"]), [100], grid={"lr": (1e-3,), "alpha": (0.5,)})
    assert r["DAG"]["best"] == {"lr": 1e-3, "alpha": 0.5} and len(r["DLinear"]["points"]) == 1


def test_linear_value_of_information_shows_the_phenomenon():
    r = explore.linear_value_of_information(1.0, 1.0)
    assert r["+ future covariates"] < 0.7 * r["endogenous only"]
    r0 = explore.linear_value_of_information(1.0, 0.0)
    assert r0["+ future covariates"] > r0["endogenous only"]  # irrelevant covariates only add variance


def test_headline_control_withholds_the_future_covariates():
    from icml26.papers.dag_tsfx import claims

    r = {"main": {"DAG": {"mse": 0.2}, "DAG_no_future": {"mse": 0.8}, "TiDE": {"mse": 0.1}, "NBEATSx": {"mse": 0.4},
                  "TFT": {"mse": 0.25}}}
    head = [c for c in claims.CLAIMS if c.headline]
    assert [c.id for c in head] == ["vs_future_covariate_baselines"]
    assert head[0].metric(r) == pytest.approx(2.0) and head[0].control.metric(r) == pytest.approx(8.0)
    assert claims.future_baseline_details(r)["DAG/TFT"] == pytest.approx(0.8)
