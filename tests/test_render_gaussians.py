"""Tests of the shared pure-torch 3D Gaussian splatting rasteriser and the image metrics (icml26.render)."""

import math

import pytest
import torch

from icml26.render import intrinsics, look_at, make_scene, project, render
from icml26.render.gaussians import covariance_3d, quaternion_to_matrix, rasterize
from icml26.render.image_metrics import psnr, ssim


def identity_camera(dtype=torch.float32):
    return torch.eye(3, dtype=dtype)[None], torch.zeros(1, 3, dtype=dtype)


def gaussians(means, scales, opac, colors, dtype=torch.float32):
    means = torch.as_tensor(means, dtype=dtype)
    n = means.shape[0]
    quats = torch.zeros(n, 4, dtype=dtype)
    quats[:, 0] = 1.0
    log_s = torch.as_tensor(scales, dtype=dtype).log()
    logit = torch.logit(torch.as_tensor(opac, dtype=dtype))
    return means, log_s, quats, logit, torch.as_tensor(colors, dtype=dtype)


def test_quaternion_gives_rotations_and_covariance_is_psd():
    q = torch.randn(16, 4, generator=torch.Generator().manual_seed(0))
    R = quaternion_to_matrix(q)
    assert torch.allclose(R @ R.transpose(1, 2), torch.eye(3).expand(16, 3, 3), atol=1e-5)
    assert torch.allclose(torch.linalg.det(R), torch.ones(16), atol=1e-5)
    cov = covariance_3d(torch.randn(16, 3) * 0.3, q)
    assert bool((torch.linalg.eigvalsh(cov) > 0).all())


def test_single_isotropic_gaussian_renders_the_analytic_2d_gaussian():
    """On the optical axis at depth z, an isotropic Gaussian of std s projects to std f s / z (plus the dilation)."""
    W = H = 33
    K = intrinsics(W, H, 60.0)
    f, z, s, o = float(K[0, 0]), 3.0, 0.08, 0.6
    R, t = identity_camera()
    out = rasterize(*gaussians([[0.0, 0.0, z]], [[s, s, s]], [o], [[1.0, 1.0, 1.0]]), K, R, t, W, H,
                    alpha_min=0.0, tile=None)
    var = (f * s / z) ** 2 + 0.3
    u = torch.arange(W) + 0.5
    v = torch.arange(H) + 0.5
    d2 = (u[None, :] - W / 2) ** 2 + (v[:, None] - H / 2) ** 2
    expected = o * torch.exp(-0.5 * d2 / var)
    assert torch.allclose(out["alpha"][0], expected, atol=1e-5)
    assert torch.allclose(out["rgb"][0, ..., 0], expected, atol=1e-5)
    assert torch.allclose(out["depth"][0], expected * z, atol=1e-4)


def test_front_opaque_gaussian_hides_the_one_behind():
    W = H = 17  # odd: the centre pixel's centre is on the optical axis
    K = intrinsics(W, H, 60.0)
    R, t = identity_camera()
    g = gaussians([[0.0, 0.0, 2.0], [0.0, 0.0, 4.0]], [[0.5] * 3, [0.5] * 3], [0.999, 0.999],
                  [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    out = rasterize(*g, K, R, t, W, H)
    centre = out["rgb"][0, H // 2, W // 2]
    assert centre[0] > 0.985 and centre[2] < 0.0105        # alpha is capped at 0.99: 1% of the back shows
    # the same pair listed in the opposite order renders the same image (the depth sort, not the list order)
    rev = [x.flip(0) for x in g]
    assert torch.allclose(rasterize(*rev, K, R, t, W, H)["rgb"], out["rgb"], atol=1e-6)
    # moved behind, the red one is hidden
    g2 = gaussians([[0.0, 0.0, 5.0], [0.0, 0.0, 4.0]], [[0.5] * 3, [0.5] * 3], [0.999, 0.999],
                   [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert rasterize(*g2, K, R, t, W, H)["rgb"][0, H // 2, W // 2, 0] < 0.0105


def test_alpha_cutoff_and_cap():
    W = H = 21
    K = intrinsics(W, H, 60.0)
    R, t = identity_camera()
    out = rasterize(*gaussians([[0.0, 0.0, 2.0]], [[0.05] * 3], [0.9999], [[1.0, 1.0, 1.0]]), K, R, t, W, H)
    a = out["alpha"][0]
    assert float(a.max()) <= 0.99 + 1e-6
    assert bool(((a == 0) | (a >= 1 / 255 - 1e-7)).all())


def test_gradients_match_finite_differences_on_two_gaussians():
    dtype = torch.float64
    W = H = 8
    K = intrinsics(W, H, 60.0, dtype=dtype)
    R, t = look_at(torch.tensor([0.3, -2.5, 0.4], dtype=dtype), torch.zeros(3, dtype=dtype))
    means, log_s, quats, logit, colors = gaussians([[0.1, 0.0, 0.05], [-0.15, 0.3, -0.1]],
                                                   [[0.15, 0.1, 0.2], [0.2, 0.25, 0.1]], [0.7, 0.6],
                                                   [[0.9, 0.2, 0.1], [0.1, 0.5, 0.8]], dtype=dtype)
    quats = quats + torch.tensor([[0.0, 0.2, -0.1, 0.3], [0.0, -0.3, 0.1, 0.2]], dtype=dtype)
    inputs = tuple(x.clone().requires_grad_(True) for x in (means, log_s, quats, logit, colors))

    def f(*args):
        out = rasterize(*args, K, R, t, W, H, alpha_min=0.0, background=(0.2, 0.2, 0.2))
        return out["rgb"], out["depth"], out["alpha"]

    assert torch.autograd.gradcheck(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-4)


def test_tiled_equals_dense_and_cameras_batch():
    gen = torch.Generator().manual_seed(3)
    n = 60
    means = torch.randn(n, 3, generator=gen) * 0.4
    log_s = torch.full((n, 3), -2.5) + 0.3 * torch.randn(n, 3, generator=gen)
    quats = torch.randn(n, 4, generator=gen)
    logit = torch.randn(n, generator=gen)
    colors = torch.rand(n, 3, generator=gen)
    eye = torch.tensor([[2.5, 0.3, 0.8], [-0.4, 2.7, 1.1], [0.2, -2.4, 1.5]])
    R, t = look_at(eye, torch.zeros(3))
    K = intrinsics(30, 22, 60.0)
    dense = rasterize(means, log_s, quats, logit, colors, K, R, t, 30, 22, tile=None)
    for tile in (4, 8, 16):
        tiled = rasterize(means, log_s, quats, logit, colors, K, R, t, 30, 22, tile=tile)
        for k in dense:
            assert torch.allclose(tiled[k], dense[k], atol=5e-5), (tile, k)
    single = rasterize(means, log_s, quats, logit, colors, K, R[1:2], t[1:2], 30, 22)
    assert torch.allclose(single["rgb"][0], dense["rgb"][1], atol=1e-5)
    chunked = rasterize(means, log_s, quats, logit, colors, K, R, t, 30, 22, camera_chunk=2)
    assert torch.allclose(chunked["alpha"], dense["alpha"], atol=1e-6)


def test_splatted_sphere_matches_the_ray_caster_silhouette_and_depth():
    """A sphere densely covered by small opaque Gaussians on its surface looks like the ray-cast sphere."""
    c, r = torch.tensor([0.0, 0.0, 0.5]), 0.5
    k = torch.arange(3000, dtype=torch.float32)
    phi = torch.arccos(1 - 2 * (k + 0.5) / 3000)
    theta = math.pi * (1 + 5 ** 0.5) * k
    pts = c + r * torch.stack([phi.sin() * theta.cos(), phi.sin() * theta.sin(), phi.cos()], -1)
    g = gaussians(pts, torch.full((3000, 3), 0.03), torch.full((3000,), 0.95), torch.ones(3000, 3))
    R, t = look_at(torch.tensor([2.5, 1.0, 1.2]), c)
    K = intrinsics(40, 40, 50.0)
    splat = rasterize(*g, K, R, t, 40, 40)
    scene = make_scene(["sphere"], [1], center=[c.tolist()], size=[[r, r, r]])
    ray = render(scene, K, R, t, 40, 40)
    hit = torch.isfinite(ray["depth"][0])
    covered = splat["alpha"][0] > 0.5
    # agree everywhere except on a two-pixel band around the silhouette (Gaussians bleed past it)
    h = hit.float()[None, None]
    band = (torch.nn.functional.max_pool2d(h, 5, 1, 2) - (-torch.nn.functional.max_pool2d(-h, 5, 1, 2)))[0, 0] > 0
    assert bool((covered == hit)[~band].all())
    assert (covered == hit).float().mean() > 0.9 and bool(covered[hit].all())
    inner = hit & ~band
    est = splat["depth"][0][inner] / splat["alpha"][0][inner]
    assert (est - ray["depth"][0][inner]).abs().median() < 0.03


def test_projection_of_a_known_point_matches_the_camera_model():
    W = H = 32
    K = intrinsics(W, H, 60.0)
    R, t = look_at(torch.tensor([2.0, -1.0, 1.0]), torch.zeros(3))
    p = torch.tensor([[0.2, 0.1, 0.3]])
    uv, _ = project(p, K, R, t)
    out = rasterize(*gaussians(p, [[0.01] * 3], [0.9], [[1.0, 1.0, 1.0]]), K, R, t, W, H)
    a = out["alpha"][0]
    v, u = divmod(int(a.argmax()), W)
    assert abs(u + 0.5 - float(uv[0, 0, 0])) <= 0.5 and abs(v + 0.5 - float(uv[0, 0, 1])) <= 0.5


def test_bad_inputs_raise_value_errors_naming_the_argument():
    g = gaussians([[0.0, 0.0, 2.0]], [[0.1] * 3], [0.5], [[1.0, 1.0, 1.0]])
    K = intrinsics(8, 8, 60.0)
    R, t = identity_camera()
    with pytest.raises(ValueError, match="means"):
        rasterize(torch.zeros(0, 3), *g[1:], K, R, t, 8, 8)
    with pytest.raises(ValueError, match="log_scales"):
        rasterize(g[0], torch.zeros(2, 3), *g[2:], K, R, t, 8, 8)
    with pytest.raises(ValueError, match="rot"):
        rasterize(*g, K, 2 * R, t, 8, 8)
    with pytest.raises(ValueError, match="width"):
        rasterize(*g, K, R, t, 0, 8)
    with pytest.raises(ValueError, match="alpha_cap"):
        rasterize(*g, K, R, t, 8, 8, alpha_cap=1.5)
    with pytest.raises(ValueError, match="tile"):
        rasterize(*g, K, R, t, 8, 8, tile=0)
    with pytest.raises(ValueError, match="pred"):
        ssim(torch.zeros(1, 3, 8, 8), torch.zeros(1, 3, 8, 8))
    with pytest.raises(ValueError, match="same shape"):
        psnr(torch.zeros(1, 3, 8, 8), torch.zeros(1, 3, 8, 9))


def test_image_metrics_identities():
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(2, 3, 24, 24, generator=gen)
    assert torch.allclose(ssim(x, x), torch.ones(2), atol=1e-5)
    noisy = (x + 0.1 * torch.randn(x.shape, generator=gen)).clamp(0, 1)
    assert bool((ssim(noisy, x) < 0.95).all())
    y = x + 0.1
    assert torch.allclose(psnr(y, x), torch.full((2,), 20.0), atol=1e-3)
