import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.diffusion import (
    WienerDenoiser,
    cosine_alpha_bar,
    ddim_sample,
    ddim_timesteps,
    eps_from_x0,
    grf_spectrum,
    linear_alpha_bar,
    repaint_replace,
    sample_grf,
    wiener_x0,
    x0_from_eps,
)


def test_schedules_monotone_in_unit_interval():
    for ab in (linear_alpha_bar(100), cosine_alpha_bar(100)):
        assert (ab > 0).all() and (ab < 1).all() and (ab[1:] < ab[:-1]).all()


@settings(max_examples=25, deadline=None)
@given(T=st.integers(2, 300), frac=st.floats(0.01, 1.0))
def test_timesteps_descending_distinct(T, frac):
    steps = max(1, int(frac * T))
    ts = ddim_timesteps(T, steps)
    assert len(ts) == steps and len(set(ts)) == steps and ts == sorted(ts, reverse=True) and ts[0] == T - 1


def test_x0_eps_roundtrip():
    z, e = torch.randn(3, 4), torch.randn(3, 4)
    x0 = x0_from_eps(z, e, 0.3)
    assert torch.allclose(eps_from_x0(z, x0, 0.3), e, atol=1e-5)


def test_grf_has_its_spectrum():
    S = grf_spectrum(16, 16, 3.0)
    x = sample_grf((2000,), S, generator=torch.Generator().manual_seed(0))
    P = (torch.fft.fft2(x, norm="ortho").abs() ** 2).mean(0)
    assert torch.allclose(P / S, torch.ones_like(S), atol=0.15)


def test_wiener_is_mmse_brute_force():
    # the Wiener estimate beats (or equals) any shrunk version of itself in MSE, and matches linear regression
    S = grf_spectrum(8, 8, 2.0)
    g = torch.Generator().manual_seed(1)
    x = sample_grf((8000,), S, generator=g)
    a = 0.4
    z = a ** 0.5 * x + (1 - a) ** 0.5 * torch.randn(x.shape, generator=g, dtype=x.dtype)
    xh = wiener_x0(z, a, S)
    mse = ((xh - x) ** 2).mean()
    for c in (0.8, 1.2):
        assert mse < ((c * xh - x) ** 2).mean()
    # oracle: posterior variance is sum_k S(1-a)/(aS+1-a) / N
    post = (S * (1 - a) / (a * S + 1 - a)).mean()
    assert abs(float(mse) / float(post) - 1) < 0.03


@pytest.mark.parametrize("eta,steps,tol", [(0.0, 100, 0.08), (1.0, 100, 0.12)])
def test_sampler_with_exact_score_reproduces_gaussian(eta, steps, tol):
    ab = cosine_alpha_bar(200)
    S = grf_spectrum(8, 8, 3.0)
    g = torch.Generator().manual_seed(0)
    z = torch.randn(600, 8, 8, generator=g, dtype=torch.float64)
    x = ddim_sample(WienerDenoiser(S, ab), ab, steps, z, eta=eta, generator=g)
    ratio = (torch.fft.fft2(x, norm="ortho").abs() ** 2).mean(0) / S
    assert abs(float(ratio.mean()) - 1) < tol
    assert abs(float(x.mean())) < 0.05


def test_ddim_variance_converges_with_steps():
    ab = cosine_alpha_bar(200)
    S = grf_spectrum(8, 8, 3.0)
    v = []
    for steps in (5, 25, 100):
        z = torch.randn(500, 8, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
        v.append(float(ddim_sample(WienerDenoiser(S, ab), ab, steps, z).var()))
    assert abs(v[2] - 1) < abs(v[1] - 1) < abs(v[0] - 1)


def test_controller_hook_called_and_repaint_keeps_known():
    ab = cosine_alpha_bar(50)
    S = grf_spectrum(8, 8)
    calls = []

    def hook(t, x0, z, state):
        calls.append(state["step"])
        return x0

    known = torch.randn(2, 8, 8, dtype=torch.float64)
    keep = torch.zeros(2, 8, 8, dtype=torch.float64)
    keep[:, :4] = 1
    out = ddim_sample(WienerDenoiser(S, ab), ab, 10, torch.randn(2, 8, 8, dtype=torch.float64), controller=hook,
                      known=known, keep=keep)
    assert calls == list(range(10))
    assert torch.allclose(out[:, :4], known[:, :4])
    assert torch.allclose(repaint_replace(out, known, keep, 1.0)[:, :4], known[:, :4])


def test_bad_inputs():
    with pytest.raises(ValueError, match="T"):
        cosine_alpha_bar(1)
    with pytest.raises(ValueError, match="steps"):
        ddim_timesteps(10, 11)
    with pytest.raises(ValueError, match="eta"):
        ddim_sample(lambda z, t: z, cosine_alpha_bar(10), 5, torch.zeros(2), eta=2.0)
    with pytest.raises(ValueError, match="alpha"):
        grf_spectrum(8, 8, alpha=-1)
    with pytest.raises(ValueError, match="known"):
        ddim_sample(lambda z, t: z, cosine_alpha_bar(10), 5, torch.zeros(2), known=torch.zeros(2))
