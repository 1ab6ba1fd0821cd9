"""Issue 82: the silent-maths cases of the shared blocks are ValueErrors naming the argument, or intended and tested."""

import math

import pytest
import torch

from icml26 import runner, runtime
from icml26.diffusion import sampler, schedules
from icml26.nn import spectral as S
from icml26.render import cameras
from icml26.transport import metrics, ode, paths

D = torch.float64


# ------------------------------------------------------------------------------------------------ transport
def test_gaussian_w2_refuses_a_non_symmetric_or_non_psd_covariance():
    m = torch.zeros(2, dtype=D)
    eye = torch.eye(2, dtype=D)
    assert metrics.gaussian_w2(m, eye, m, 4 * eye) == pytest.approx(math.sqrt(2))  # sqrt(2 (2 - 1)^2)
    with pytest.raises(ValueError, match="s1 must be positive semi-definite"):
        metrics.gaussian_w2(m, -eye, m, eye)
    with pytest.raises(ValueError, match="s2 must be a symmetric"):
        metrics.gaussian_w2(m, eye, m, torch.tensor([[1.0, 0.5], [0.0, 1.0]], dtype=D))
    rounded = torch.tensor([[1.0, 0.3], [0.3 + 1e-12, 1.0]], dtype=D)  # rounding noise is not an error
    assert metrics.gaussian_w2(m, rounded, m, rounded) == pytest.approx(0.0, abs=1e-6)


def test_integrate_refuses_a_velocity_of_the_wrong_shape():
    x0 = torch.zeros(4, 2, dtype=D)
    out = ode.integrate(lambda x, t: torch.ones_like(x), x0, [0.0, 1.0], steps=4)
    assert torch.allclose(out[-1], torch.ones_like(x0))
    with pytest.raises(ValueError, match=r"velocity\(x, t\) must return a tensor of the state's shape \(4, 2\)"):
        ode.integrate(lambda x, t: torch.ones(4, 1, dtype=D), x0, [0.0, 1.0], steps=4)
    with pytest.raises(ValueError, match="velocity"):
        ode.integrate(lambda x, t: 1.0, x0, [0.0, 1.0], steps=4)


@pytest.mark.parametrize("t", [-0.1, 1.5, [0.5, 2.0]])
def test_linear_path_refuses_t_outside_0_1(t):
    x0, x1 = torch.zeros(2, 3, dtype=D), torch.ones(2, 3, dtype=D)
    with pytest.raises(ValueError, match=r"t must lie in \[0, 1\]"):
        paths.linear_path(x0, x1, t)
    xt, _ = paths.linear_path(x0, x1, [0.0, 1.0])
    assert torch.equal(xt, torch.stack([x0[0], x1[1]]))


# ------------------------------------------------------------------------------------------------ spectral
@pytest.mark.parametrize("response,coeffs", [(S.chebyshev_response, [1.0, 0.5]), (S.bernstein_response, [1.0, 0.5]),
                                             (S.chebii_response, torch.tensor([1.0, 0.5], dtype=D))])
def test_filter_responses_refuse_eigenvalues_outside_0_2(response, coeffs):
    with pytest.raises(ValueError, match=r"lam must hold eigenvalues of a normalised Laplacian, in \[0, 2\]"):
        response(torch.tensor([0.0, 2.5], dtype=D), coeffs)
    with pytest.raises(ValueError, match="lam"):
        response(torch.tensor([-0.5], dtype=D), coeffs)
    response(torch.tensor([-1e-12, 0.0, 1.0, 2.0 + 1e-12], dtype=D), coeffs)  # eigh rounding at the ends is fine


def test_order_zero_chebyshev_filters_are_intended_constants():
    """K = 0 is documented as intended: the zero-order (constant) filter, PyG's ChebConv(K=1)."""
    assert torch.allclose(S.chebii_nodes(0), torch.zeros(1, dtype=D), atol=1e-15)
    gamma = torch.tensor([0.7], dtype=D)
    lam = torch.linspace(0, 2, 5, dtype=D)
    assert torch.allclose(S.chebii_response(lam, gamma), torch.full_like(lam, 0.7))
    conv = S.ChebConv(3, 2, K=0, bias=False)
    x, lap = torch.randn(5, 3), torch.eye(5)
    assert torch.allclose(conv(x, lap), conv.lins[0](x))  # no propagation: x W_0
    with pytest.raises(ValueError, match="K"):
        S.ChebConv(3, 2, K=-1)


# ------------------------------------------------------------------------------------------------ render
def test_project_gives_no_pixel_for_a_point_on_the_camera_plane():
    K = cameras.intrinsics(32, 32, 60.0, dtype=D)
    rot, trans = torch.eye(3, dtype=D), torch.zeros(3, dtype=D)
    pts = torch.tensor([[0.1, 0.0, 0.0], [0.1, 0.0, 1e-13], [0.0, 0.0, 2.0], [0.0, 0.0, -1.0]], dtype=D)
    uv, z = cameras.project(pts, K, rot, trans)
    assert torch.isnan(uv[0, :2]).all()  # on the plane: NaN, not 1e11 pixels
    assert torch.isfinite(uv[0, 2:]).all() and torch.allclose(uv[0, 2], K[:2, 2])
    assert torch.equal(z[0], pts[:, 2])
    assert not cameras.visible_in(pts, K, rot, trans, torch.full((1, 32, 32), 10.0, dtype=D))[0, :2].any()


# ------------------------------------------------------------------------------------------------ diffusion
def test_ddim_sample_refuses_an_increasing_alpha_bar():
    ab = schedules.cosine_alpha_bar(20).to(D)
    z = torch.randn(2, 4, dtype=D)
    sampler.ddim_sample(lambda z, t: torch.zeros_like(z), ab, 5, z)
    with pytest.raises(ValueError, match="alpha_bar must be non-increasing"):
        sampler.ddim_sample(lambda z, t: torch.zeros_like(z), ab.flip(0), 5, z)


# ------------------------------------------------------------------------------------------------ runtime
@pytest.mark.parametrize("device,match", [("cpu:7", "only CUDA takes an index"), ("mps:0", "only CUDA"),
                                          ("auto:1", "only CUDA"), ("cuda:x", "no CUDA|non-negative integer"),
                                          ("gpu", "must be one of")])
def test_device_strings_that_name_no_device_are_refused(device, match):
    with pytest.raises(ValueError, match=match):
        runtime.choose_device(device)
    with pytest.raises(ValueError, match=match):
        runtime.setup("quick", 0, device)


def test_cuda_index_must_exist(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert runtime.choose_device("cuda:0") == torch.device("cuda:0")
    with pytest.raises(ValueError, match="has 1 CUDA device"):
        runtime.choose_device("cuda:3")


@pytest.mark.parametrize("device", ["gpu", "cpu:7"])
def test_run_notebooks_refuses_a_bad_device_even_with_nothing_to_run(device, tmp_path):
    with pytest.raises(ValueError, match="device"):
        runner.run_notebooks([], tmp_path, device=device, progress=False)
