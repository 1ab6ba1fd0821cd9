"""A pure-torch, differentiable 3D Gaussian splatting rasteriser (dense per-pixel compositing, batched cameras).

Camera conventions are those of :mod:`icml26.render.cameras` (world-to-camera ``X_c = R X + t``, OpenCV axes,
pixel centres at ``u + 0.5``, ``K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]``).

A scene of ``N`` Gaussians has means ``(N, 3)``, log-scales ``(N, 3)``, quaternions ``(N, 4)`` (``w, x, y, z``;
normalised here), opacity logits ``(N,)`` and colours ``(N, C)`` (spherical harmonics of degree 0, i.e. one
view-independent colour per Gaussian). For camera ``b``:

* camera-space mean ``mu_c = R mu + t``, 3D covariance ``Sigma = R_q diag(exp(2 s)) R_q^T``;
* EWA projection with the perspective Jacobian ``J = [[fx/z, 0, -fx x/z^2], [0, fy/z, -fy y/z^2]]``:
  ``Sigma' = J R Sigma R^T J^T + 0.3 I`` (the 0.3 px^2 dilation of 3DGS acts as an anti-aliasing filter);
* per pixel ``p``: ``alpha_i(p) = min(0.99, sigmoid(o_i) exp(-d^T Sigma'^{-1} d / 2))``, set to 0 below 1/255;
* Gaussians sorted front to back by ``z``; transmittance ``T_i = prod_{j<i} (1 - alpha_j)`` (exclusive cumprod);
* ``rgb = sum_i T_i alpha_i c_i + T_N background``, ``depth = sum_i T_i alpha_i z_i`` (the *accumulated*
  z-depth; the expected depth of the covered part is ``depth / alpha``) and ``alpha = 1 - T_N``.

Every pixel meets every Gaussian (memory ``B * H * W * N`` per intermediate tensor), which is simple, exact and
fast enough for images up to ~128^2 and a few thousand Gaussians. By default the image is cut into
``tile x tile`` blocks and each block meets only the Gaussians whose 3.5-sigma footprint overlaps it (padded
to the longest list, so still one batched tensor op). ``camera_chunk`` bounds the batch of cameras
processed at once. Gaussians behind ``near`` or whose 3-sigma footprint misses the image are culled.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.render.cameras import _as_batch, _check_size


def _quat_to_matrix(quats: torch.Tensor) -> torch.Tensor:
    q = quats / quats.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    w, x, y, z = q.unbind(-1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ], dim=-1).reshape(-1, 3, 3)


def quaternion_to_matrix(quats: torch.Tensor) -> torch.Tensor:
    """Rotation matrices ``(N, 3, 3)`` of quaternions ``(N, 4)`` in ``(w, x, y, z)`` order (normalised first)."""
    checks.tensor("quats", quats, shape=(None, 4), dtype_kind="float")
    if bool((quats.detach().norm(dim=-1) < 1e-12).any()):
        raise ValueError("quats must not hold zero quaternions")
    return _quat_to_matrix(quats)


def _covariance(log_scales: torch.Tensor, quats: torch.Tensor) -> torch.Tensor:
    rq = _quat_to_matrix(quats)
    return rq @ torch.diag_embed(torch.exp(2.0 * log_scales)) @ rq.transpose(-1, -2)


def covariance_3d(log_scales: torch.Tensor, quats: torch.Tensor) -> torch.Tensor:
    """World-space covariances ``R_q diag(exp(2 s)) R_q^T`` ``(N, 3, 3)``."""
    checks.tensor("log_scales", log_scales, shape=(None, 3), dtype_kind="float")
    quaternion_to_matrix(checks.tensor("quats", quats, shape=(log_scales.shape[0], 4)))
    return _covariance(log_scales, quats)


def _project(means, cov3d, K, rot, trans, width, height, dilation, near):
    K = K.to(rot)
    cam = torch.einsum("bij,nj->bni", rot, means) + trans[:, None, :]
    z = cam[..., 2]
    front = z > near
    zs = torch.where(front, z, torch.ones_like(z))
    x, y = cam[..., 0], cam[..., 1]
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    zero = torch.zeros_like(zs)
    jac = torch.stack([torch.stack([fx / zs, zero, -fx * x / zs ** 2], -1),
                       torch.stack([zero, fy / zs, -fy * y / zs ** 2], -1)], -2)          # (B, N, 2, 3)
    cov_cam = rot[:, None] @ cov3d[None] @ rot[:, None].transpose(-1, -2)                 # (B, N, 3, 3)
    cov2d = jac @ cov_cam @ jac.transpose(-1, -2)
    cov2d = cov2d + dilation * torch.eye(2, dtype=cov2d.dtype, device=cov2d.device)
    mean2d = torch.stack([fx * x / zs + cx, fy * y / zs + cy], -1)
    radius = _footprint_radius(cov2d, 3.5)
    u, v = mean2d[..., 0].detach(), mean2d[..., 1].detach()
    touches = (u + radius > 0) & (u - radius < width) & (v + radius > 0) & (v - radius < height)
    return mean2d, cov2d, z, front & touches


def project_gaussians(means: torch.Tensor, cov3d: torch.Tensor, K: torch.Tensor, rot: torch.Tensor,
                      trans: torch.Tensor, width: int, height: int, dilation: float = 0.3, near: float = 0.05):
    """EWA projection of Gaussians into cameras ``(B, 3, 3)``, ``(B, 3)``.

    Returns ``mean2d`` ``(B, N, 2)`` (pixels), ``cov2d`` ``(B, N, 2, 2)`` (pixels^2, dilated), ``z`` ``(B, N)``
    and ``valid`` ``(B, N)`` (in front of ``near`` and with a 3.5-sigma footprint that touches the image).
    """
    means = checks.tensor("means", means, shape=(None, 3), dtype_kind="float")
    checks.tensor("cov3d", cov3d, shape=(means.shape[0], 3, 3))
    K, rot, trans = _check_cameras(K, rot, trans)
    _check_size(width, height)
    dilation = checks.nonnegative_number("dilation", dilation)
    near = checks.positive_number("near", near)
    return _project(means, cov3d, K, rot.to(means), trans.to(means), width, height, dilation, near)


def _footprint_radius(cov2d, sigmas):
    cov = cov2d.detach()
    mid = 0.5 * (cov[..., 0, 0] + cov[..., 1, 1])
    det = cov[..., 0, 0] * cov[..., 1, 1] - cov[..., 0, 1] ** 2
    lam = mid + torch.sqrt((mid * mid - det).clamp_min(0.0))
    return sigmas * torch.sqrt(lam.clamp_min(0.0))


def footprint_radius(cov2d: torch.Tensor, sigmas: float = 3.5) -> torch.Tensor:
    """``sigmas`` times the largest standard deviation of 2D covariances ``(..., 2, 2)`` (no gradient).

    At 3.5 sigma a Gaussian of opacity 1 has fallen to ``exp(-6.125) < 1/255``, so with the default alpha
    cutoff nothing outside this radius is ever composited.
    """
    checks.tensor("cov2d", cov2d, dtype_kind="float")
    if cov2d.dim() < 2 or tuple(cov2d.shape[-2:]) != (2, 2):
        raise ValueError(f"cov2d must have shape (..., 2, 2); got {tuple(cov2d.shape)}")
    return _footprint_radius(cov2d, checks.positive_number("sigmas", sigmas))


def _check_gaussians(means, log_scales, quats, opacity_logits, colors):
    means = checks.tensor("means", means, shape=(None, 3), dtype_kind="float")
    n = means.shape[0]
    checks.tensor("log_scales", log_scales, shape=(n, 3))
    checks.tensor("quats", quats, shape=(n, 4))
    checks.tensor("opacity_logits", opacity_logits, shape=(n,))
    checks.tensor("colors", colors, shape=(n, None))


def _check_cameras(K, rot, trans):
    checks.tensor("K", K, shape=(3, 3))
    rot = checks.tensor("rot", _as_batch(rot, "rot", (3, 3)))
    trans = checks.tensor("trans", _as_batch(trans, "trans", (3,)))
    if trans.shape[0] != rot.shape[0]:
        raise ValueError(f"rot and trans must hold the same number of cameras; got {rot.shape[0]} and {trans.shape[0]}")
    eye = torch.eye(3, dtype=rot.dtype, device=rot.device)
    err = (rot @ rot.transpose(-1, -2) - eye).abs().amax()
    if float(err) > 1e-3 or bool((torch.linalg.det(rot) <= 0).any()):
        raise ValueError(f"rot must hold proper rotation matrices (R R^T = I, det R = 1); max |R R^T - I| = {err:.3g}")
    return K, rot, trans


def rasterize(means: torch.Tensor, log_scales: torch.Tensor, quats: torch.Tensor, opacity_logits: torch.Tensor,
              colors: torch.Tensor, K: torch.Tensor, rot: torch.Tensor, trans: torch.Tensor, width: int, height: int,
              *, background=None, dilation: float = 0.3, alpha_cap: float = 0.99, alpha_min: float = 1.0 / 255.0,
              near: float = 0.05, camera_chunk: int | None = None, tile: int | None = 8,
              screen_offset: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """Render ``N`` Gaussians into cameras ``(R, t)``; differentiable in every Gaussian parameter.

    Returns ``rgb`` ``(B, H, W, C)``, ``depth`` ``(B, H, W)`` (accumulated z, see the module docstring) and
    ``alpha`` ``(B, H, W)``. ``background`` is a scalar or a ``(C,)`` colour (default black). ``tile`` is the side
    of the pixel blocks that are composited with their overlapping Gaussians only (``None``: every pixel meets
    every Gaussian; both give the same image). ``screen_offset`` ``(B, N, 2)`` is added to the projected means; pass
    a zero tensor that requires grad to read the screen-space positional gradient that 3DGS densifies on.
    """
    _check_gaussians(means, log_scales, quats, opacity_logits, colors)
    _check_size(width, height)
    K, rot, trans = _check_cameras(K, rot, trans)
    alpha_cap = checks.in_range("alpha_cap", alpha_cap, 0.0, 1.0, low_open=True)
    alpha_min = checks.in_range("alpha_min", alpha_min, 0.0, alpha_cap, high_open=True)
    dilation = checks.nonnegative_number("dilation", dilation)
    near = checks.positive_number("near", near)
    if background is not None:
        checks.tensor("background", torch.as_tensor(background, dtype=torch.float64).reshape(-1))
    if tile is not None and (not isinstance(tile, int) or tile < 1):
        raise ValueError(f"tile must be a positive int or None, got {tile!r}")
    if camera_chunk is not None and (not isinstance(camera_chunk, int) or camera_chunk < 1):
        raise ValueError(f"camera_chunk must be a positive int or None, got {camera_chunk!r}")
    b = rot.shape[0]
    if screen_offset is not None:
        checks.tensor("screen_offset", screen_offset, shape=(b, means.shape[0], 2))
    if camera_chunk is not None and camera_chunk < b:
        parts = [rasterize(means, log_scales, quats, opacity_logits, colors, K, rot[s:s + camera_chunk],
                           trans[s:s + camera_chunk], width, height, background=background, dilation=dilation,
                           alpha_cap=alpha_cap, alpha_min=alpha_min, near=near, tile=tile,
                           screen_offset=None if screen_offset is None else screen_offset[s:s + camera_chunk])
                 for s in range(0, b, camera_chunk)]
        return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}

    dtype, device = means.dtype, means.device
    rot, trans = rot.to(means), trans.to(means)
    cov3d = _covariance(log_scales, quats)
    mean2d, cov2d, z, valid = _project(means, cov3d, K, rot, trans, width, height, dilation, near)
    if screen_offset is not None:
        mean2d = mean2d + screen_offset.to(mean2d)
    # front-to-back order per camera (invalid Gaussians go last; they get alpha = 0 anyway)
    order = torch.argsort(torch.where(valid, z, torch.full_like(z, float("inf"))).detach(), dim=1)
    mean2d = mean2d.gather(1, order[..., None].expand(-1, -1, 2))
    cov2d = cov2d.gather(1, order[..., None, None].expand(-1, -1, 2, 2))
    z = z.gather(1, order)
    valid = valid.gather(1, order)
    opac = torch.sigmoid(opacity_logits)[order]                                             # (B, N)
    col = colors[order]                                                                     # (B, N, C)

    a, bb, c = cov2d[..., 0, 0], cov2d[..., 0, 1], cov2d[..., 1, 1]
    det = (a * c - bb * bb).clamp_min(1e-12)
    ia, ib, ic = c / det, -bb / det, a / det                                                # conic (inverse)
    bg = torch.zeros(col.shape[-1], dtype=dtype, device=device) if background is None else \
        torch.as_tensor(background, dtype=dtype, device=device).expand(col.shape[-1])
    conic = torch.stack([ia, ib, ic], -1)
    if tile is None:
        us = torch.arange(width, device=device, dtype=dtype) + 0.5
        vs = torch.arange(height, device=device, dtype=dtype) + 0.5
        pv, pu = torch.meshgrid(vs, us, indexing="ij")
        pix = torch.stack([pu.reshape(-1), pv.reshape(-1)], -1)[None, None]                 # (1, 1, P, 2)
        rgb, depth, acc = _composite(pix, mean2d[:, None], conic[:, None], opac[:, None], col[:, None], z[:, None],
                                     valid[:, None], alpha_cap, alpha_min, bg)
        return {"rgb": rgb.reshape(b, height, width, -1), "depth": depth.reshape(b, height, width),
                "alpha": acc.reshape(b, height, width)}
    return _tiled(mean2d, cov2d, conic, opac, col, z, valid, width, height, tile, alpha_cap, alpha_min, bg)


def _composite(pix, mean2d, conic, opac, col, z, valid, alpha_cap, alpha_min, bg):
    """Reference front-to-back compositing (plain autograd, ``d`` evaluated explicitly) of depth-sorted Gaussians
    ``(..., M)`` at pixels ``(..., P, 2)``: the dense path of :func:`rasterize`, against which the tiled one is
    tested."""
    ia, ib, ic = conic.unbind(-1)
    dx = pix[..., :, None, 0] - mean2d[..., None, :, 0]                                     # (..., P, M)
    dy = pix[..., :, None, 1] - mean2d[..., None, :, 1]
    power = -0.5 * (ia[..., None, :] * dx * dx + 2.0 * ib[..., None, :] * dx * dy + ic[..., None, :] * dy * dy)
    alpha = (opac[..., None, :] * torch.exp(power.clamp_max(0.0))).clamp_max(alpha_cap)
    alpha = torch.where(valid[..., None, :] & (alpha >= alpha_min), alpha, torch.zeros_like(alpha))
    trans_incl = torch.cumprod(1.0 - alpha, dim=-1)
    t_excl = torch.cat([torch.ones_like(trans_incl[..., :1]), trans_incl[..., :-1]], dim=-1)
    weights = t_excl * alpha
    t_final = trans_incl[..., -1]
    rgb = weights @ col + t_final[..., None] * bg
    depth = (weights @ z[..., :, None])[..., 0]
    return rgb, depth, 1.0 - t_final


class _Composite(torch.autograd.Function):
    """Front-to-back compositing with a hand-written backward (the tiled path's hot loop).

    ``alpha_i(p) = min(cap, exp(f_p . k_i))`` where ``f_p = (u^2, uv, v^2, u, v, 1)`` are the monomials of the
    pixel offset from the block centre and ``k_i`` six coefficients per Gaussian (the quadratic form of the
    conic and ``log o_i``; ``-inf`` for padding); entries below ``alpha_min`` are 0. ``cz`` ``(..., M, C + 1)``
    holds each Gaussian's colour and depth, so one product gives both images. With ``w_i = T_i alpha_i``,
    ``s_i = g_rgb . c_i + g_depth z_i`` and ``R_i = sum_{j > i} w_j s_j``, the gradient is
    ``dL/dalpha_i = T_i s_i - (R_i + T_N (g_rgb . bg - g_alpha)) / (1 - alpha_i)``, then
    ``dL/dk_i = sum_p dL/dalpha_i alpha_i f_p`` (zero where alpha is capped or cut).
    """

    @staticmethod
    def forward(ctx, feats, coef, cz, bg, alpha_cap, alpha_min):
        ctx.set_materialize_grads(False)
        alpha = torch.exp(feats @ coef.transpose(-1, -2))                                  # (..., P, M)
        alpha = torch.where(alpha >= alpha_min, alpha.clamp_max_(alpha_cap), 0.0)
        t_excl = torch.cumprod(1.0 - alpha, dim=-1)
        t_final = t_excl[..., -1].clone()
        t_excl = t_excl.roll(1, -1)
        t_excl[..., 0] = 1.0
        weights = t_excl.mul_(alpha)
        out = weights @ cz                                                                  # (..., P, C + 1)
        ctx.save_for_backward(feats, cz, bg, alpha, weights, t_final)
        ctx.alpha_cap = alpha_cap
        return out[..., :-1] + t_final[..., None] * bg, out[..., -1], 1.0 - t_final

    @staticmethod
    def backward(ctx, g_rgb, g_depth, g_alpha):
        feats, cz, bg, alpha, weights, t_final = ctx.saved_tensors
        zero = torch.zeros((), dtype=alpha.dtype, device=alpha.device)
        g_rgb = zero.expand(*weights.shape[:-1], cz.shape[-1] - 1) if g_rgb is None else g_rgb
        g_depth = zero.expand(weights.shape[:-1]) if g_depth is None else g_depth
        g_out = torch.cat([g_rgb, g_depth[..., None]], -1)                                  # (..., P, C + 1)
        s = g_out @ cz.transpose(-1, -2)                                                    # (..., P, M)
        g_tn = (g_rgb * bg).sum(-1)
        if g_alpha is not None:
            g_tn = g_tn - g_alpha
        ws = weights * s
        rest = ws.sum(-1, keepdim=True) - torch.cumsum(ws, dim=-1)                           # sum over j > i
        rest += (t_final * g_tn)[..., None]
        # alpha dL/dalpha = w s - alpha R / (1 - alpha); zero where alpha was capped (or cut: alpha = 0)
        rest *= torch.where(alpha < ctx.alpha_cap, alpha / (1.0 - alpha), 0.0)
        g_power = ws.sub_(rest).mul_(alpha < ctx.alpha_cap)
        g_coef = g_power.transpose(-1, -2) @ feats.expand(*g_power.shape[:-2], *feats.shape[-2:])
        g_cz = weights.transpose(-1, -2) @ g_out
        return None, g_coef, g_cz, None, None, None


def _footprint_extent(cov2d: torch.Tensor, opac: torch.Tensor, alpha_min: float) -> torch.Tensor:
    """Half-widths ``(..., 2)`` (pixels, no gradient) of the axis-aligned box outside which a Gaussian's alpha is
    below ``alpha_min``: the ellipse ``d^T Sigma'^{-1} d <= k^2`` with ``k^2 = 2 log(o / alpha_min)`` has the
    half-widths ``k sqrt(Sigma'_xx)`` and ``k sqrt(Sigma'_yy)`` (0 where ``o < alpha_min``; ``k = 3.5`` when
    ``alpha_min = 0``, where no finite box is exact)."""
    cov = cov2d.detach()
    if alpha_min > 0:
        k2 = 2.0 * torch.log(opac.detach().clamp_min(1e-30) / (alpha_min * (1.0 - 1e-3))).clamp_min(0.0)
    else:
        k2 = torch.full_like(opac.detach(), 3.5 ** 2)
    return torch.sqrt(k2[..., None] * torch.stack([cov[..., 0, 0], cov[..., 1, 1]], -1).clamp_min(0.0))


def _tiled(mean2d, cov2d, conic, opac, col, z, valid, width, height, tile, alpha_cap, alpha_min, bg,
           cuts=(0.5, 0.8, 0.95)):
    """Composite per ``tile x tile`` block, each block meeting only the Gaussians whose alpha footprint overlaps
    its pixel centres.

    Gaussians stay in depth order inside every block (a stable sort moves the overlapping ones first). Blocks of
    all cameras are sorted by how many Gaussians they meet and cut at the fractions ``cuts`` into a few groups,
    each padded to its own longest list with masked entries, so that a few crowded blocks do not pad all the
    others; the result equals the dense one.
    """
    b, n = mean2d.shape[:2]
    device, dtype = mean2d.device, mean2d.dtype
    ty, tx = -(-height // tile), -(-width // tile)
    nt = ty * tx
    ext = _footprint_extent(cov2d, opac, alpha_min) + 1e-3                                   # (B, N, 2)
    u, v = mean2d[..., 0].detach()[:, None], mean2d[..., 1].detach()[:, None]               # (B, 1, N)
    ex, ey = ext[..., 0][:, None], ext[..., 1][:, None]
    x0 = (torch.arange(tx, device=device, dtype=dtype) * tile).repeat(ty)[:, None]           # (T, 1)
    y0 = (torch.arange(ty, device=device, dtype=dtype) * tile).repeat_interleave(tx)[:, None]
    hit = (valid[:, None] & (u + ex >= x0 + 0.5) & (u - ex <= x0 + tile - 0.5)
           & (v + ey >= y0 + 0.5) & (v - ey <= y0 + tile - 0.5)).reshape(b * nt, n)          # (B*T, N)
    counts = hit.sum(-1)
    order = torch.argsort(counts)
    bounds = sorted({0, *(round(f * b * nt) for f in cuts), b * nt})
    off = torch.arange(tile, device=device, dtype=dtype) + 0.5 - tile / 2.0
    ov, ou = torch.meshgrid(off, off, indexing="ij")
    pu, pv = ou.reshape(-1), ov.reshape(-1)
    feats = torch.stack([pu * pu, pu * pv, pv * pv, pu, pv, torch.ones_like(pu)], -1)[None]  # (1, t*t, 6)
    # one table of every per-Gaussian attribute, so that each group needs a single gather
    table = torch.cat([conic, torch.log(opac.clamp_min(1e-30))[..., None], mean2d, col, z[..., None]], -1)
    table = table.reshape(b * n, -1)
    centres = torch.cat([x0, y0], -1) + tile / 2.0                                           # (T, 2)
    outs = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi <= lo:
            continue
        part = order[lo:hi]
        h = hit[part]
        m = max(int(counts[part].max()), 1)
        idx = torch.argsort((~h).to(torch.int8), dim=-1, stable=True)[:, :m]               # (G, M)
        ok = h.gather(1, idx)
        g = table[(part // nt)[:, None] * n + idx]                                          # (G, M, 7 + C)
        ia, ib, ic, logo = g[..., 0], g[..., 1], g[..., 2], g[..., 3]
        cen = centres[part % nt][:, None]                                                    # (G, 1, 2)
        mx, my = g[..., 4] - cen[..., 0], g[..., 5] - cen[..., 1]
        const = -0.5 * (ia * mx * mx + 2.0 * ib * mx * my + ic * my * my) + logo
        const = torch.where(ok, const, float("-inf"))                                       # padding: alpha 0
        coef = torch.stack([-0.5 * ia, -ib, -0.5 * ic, ia * mx + ib * my, ib * mx + ic * my, const], -1)
        outs.append(_Composite.apply(feats, coef, g[..., 6:], bg, alpha_cap, alpha_min))
    inverse = torch.argsort(order)
    rgb, depth, acc = (torch.cat([o[k] for o in outs])[inverse] for k in range(3))

    def untile(x):
        x = x.reshape(b, ty, tx, tile, tile, *x.shape[2:]).transpose(2, 3)
        return x.reshape(b, ty * tile, tx * tile, *x.shape[5:])[:, :height, :width]

    return {"rgb": untile(rgb), "depth": untile(depth), "alpha": untile(acc)}
