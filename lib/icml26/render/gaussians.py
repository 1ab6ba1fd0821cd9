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

from icml26.render.cameras import _as_batch, _check_size


def quaternion_to_matrix(quats: torch.Tensor) -> torch.Tensor:
    """Rotation matrices ``(N, 3, 3)`` of quaternions ``(N, 4)`` in ``(w, x, y, z)`` order (normalised first)."""
    if not isinstance(quats, torch.Tensor) or quats.dim() != 2 or quats.shape[-1] != 4:
        raise ValueError(f"quats must be a tensor of shape (N, 4), got {getattr(quats, 'shape', quats)}")
    q = quats / quats.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    w, x, y, z = q.unbind(-1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ], dim=-1).reshape(-1, 3, 3)


def covariance_3d(log_scales: torch.Tensor, quats: torch.Tensor) -> torch.Tensor:
    """World-space covariances ``R_q diag(exp(2 s)) R_q^T`` ``(N, 3, 3)``."""
    rq = quaternion_to_matrix(quats)
    return rq @ torch.diag_embed(torch.exp(2.0 * log_scales)) @ rq.transpose(-1, -2)


def project_gaussians(means: torch.Tensor, cov3d: torch.Tensor, K: torch.Tensor, rot: torch.Tensor,
                      trans: torch.Tensor, width: int, height: int, dilation: float = 0.3, near: float = 0.05):
    """EWA projection of Gaussians into cameras ``(B, 3, 3)``, ``(B, 3)``.

    Returns ``mean2d`` ``(B, N, 2)`` (pixels), ``cov2d`` ``(B, N, 2, 2)`` (pixels^2, dilated), ``z`` ``(B, N)``
    and ``valid`` ``(B, N)`` (in front of ``near`` and with a 3-sigma footprint that touches the image).
    """
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
    radius = footprint_radius(cov2d)
    u, v = mean2d[..., 0].detach(), mean2d[..., 1].detach()
    touches = (u + radius > 0) & (u - radius < width) & (v + radius > 0) & (v - radius < height)
    return mean2d, cov2d, z, front & touches


def footprint_radius(cov2d: torch.Tensor, sigmas: float = 3.5) -> torch.Tensor:
    """``sigmas`` times the largest standard deviation of 2D covariances ``(..., 2, 2)`` (no gradient).

    At 3.5 sigma a Gaussian of opacity 1 has fallen to ``exp(-6.125) < 1/255``, so with the default alpha
    cutoff nothing outside this radius is ever composited.
    """
    cov = cov2d.detach()
    mid = 0.5 * (cov[..., 0, 0] + cov[..., 1, 1])
    det = cov[..., 0, 0] * cov[..., 1, 1] - cov[..., 0, 1] ** 2
    lam = mid + torch.sqrt((mid * mid - det).clamp_min(0.0))
    return sigmas * torch.sqrt(lam.clamp_min(0.0))


def _check_gaussians(means, log_scales, quats, opacity_logits, colors):
    if not isinstance(means, torch.Tensor) or means.dim() != 2 or means.shape[-1] != 3:
        raise ValueError(f"means must be a tensor of shape (N, 3), got {getattr(means, 'shape', means)}")
    n = means.shape[0]
    if n == 0:
        raise ValueError("means must hold at least one Gaussian (N >= 1)")
    checks = (("log_scales", log_scales, (n, 3)), ("quats", quats, (n, 4)), ("opacity_logits", opacity_logits, (n,)))
    for name, value, shape in checks:
        if not isinstance(value, torch.Tensor) or tuple(value.shape) != shape:
            raise ValueError(f"{name} must be a tensor of shape {shape}, got {getattr(value, 'shape', value)}")
    if not isinstance(colors, torch.Tensor) or colors.dim() != 2 or colors.shape[0] != n:
        raise ValueError(f"colors must be a tensor of shape ({n}, C), got {getattr(colors, 'shape', colors)}")


def _check_rotation(rot: torch.Tensor) -> None:
    eye = torch.eye(3, dtype=rot.dtype, device=rot.device)
    err = (rot @ rot.transpose(-1, -2) - eye).abs().amax()
    if not bool(torch.isfinite(rot).all()) or float(err) > 1e-3 or bool((torch.linalg.det(rot) <= 0).any()):
        raise ValueError(f"rot must hold proper rotation matrices (R R^T = I, det R = 1); max |R R^T - I| = {err:.3g}")


def rasterize(means: torch.Tensor, log_scales: torch.Tensor, quats: torch.Tensor, opacity_logits: torch.Tensor,
              colors: torch.Tensor, K: torch.Tensor, rot: torch.Tensor, trans: torch.Tensor, width: int, height: int,
              *, background=None, dilation: float = 0.3, alpha_cap: float = 0.99, alpha_min: float = 1.0 / 255.0,
              near: float = 0.05, camera_chunk: int | None = None,
              tile: int | None = 8) -> dict[str, torch.Tensor]:
    """Render ``N`` Gaussians into cameras ``(R, t)``; differentiable in every Gaussian parameter.

    Returns ``rgb`` ``(B, H, W, C)``, ``depth`` ``(B, H, W)`` (accumulated z, see the module docstring) and
    ``alpha`` ``(B, H, W)``. ``background`` is a scalar or a ``(C,)`` colour (default black). ``tile`` is the side
    of the pixel blocks that are composited with their overlapping Gaussians only (``None``: every pixel meets
    every Gaussian; both give the same image).
    """
    _check_gaussians(means, log_scales, quats, opacity_logits, colors)
    _check_size(width, height)
    rot = _as_batch(rot, "rot", (3, 3))
    trans = _as_batch(trans, "trans", (3,))
    if trans.shape[0] != rot.shape[0]:
        raise ValueError(f"rot and trans must hold the same number of cameras; got {rot.shape[0]} and {trans.shape[0]}")
    _check_rotation(rot)
    if not isinstance(K, torch.Tensor) or tuple(K.shape) != (3, 3):
        raise ValueError(f"K must be a (3, 3) tensor, got {getattr(K, 'shape', K)}")
    if not 0.0 < alpha_cap <= 1.0:
        raise ValueError(f"alpha_cap must lie in (0, 1], got {alpha_cap}")
    if not 0.0 <= alpha_min < alpha_cap:
        raise ValueError(f"alpha_min must lie in [0, alpha_cap), got {alpha_min}")
    if dilation < 0:
        raise ValueError(f"dilation must be >= 0, got {dilation}")
    if tile is not None and (not isinstance(tile, int) or tile < 1):
        raise ValueError(f"tile must be a positive int or None, got {tile!r}")
    if camera_chunk is not None and (not isinstance(camera_chunk, int) or camera_chunk < 1):
        raise ValueError(f"camera_chunk must be a positive int or None, got {camera_chunk!r}")
    b = rot.shape[0]
    if camera_chunk is not None and camera_chunk < b:
        parts = [rasterize(means, log_scales, quats, opacity_logits, colors, K, rot[s:s + camera_chunk],
                           trans[s:s + camera_chunk], width, height, background=background, dilation=dilation,
                           alpha_cap=alpha_cap, alpha_min=alpha_min, near=near, tile=tile)
                 for s in range(0, b, camera_chunk)]
        return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}

    dtype, device = means.dtype, means.device
    rot, trans = rot.to(means), trans.to(means)
    cov3d = covariance_3d(log_scales, quats)
    mean2d, cov2d, z, valid = project_gaussians(means, cov3d, K, rot, trans, width, height, dilation, near)
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
                                     valid[:, None], alpha_cap, alpha_min, bg, direct=True)
        return {"rgb": rgb.reshape(b, height, width, -1), "depth": depth.reshape(b, height, width),
                "alpha": acc.reshape(b, height, width)}
    return _tiled(mean2d, cov2d, conic, opac, col, z, valid, width, height, tile, alpha_cap, alpha_min, bg)


def _composite(pix, mean2d, conic, opac, col, z, valid, alpha_cap, alpha_min, bg, direct=False):
    """Front-to-back alpha compositing of depth-sorted Gaussians ``(..., M)`` at pixels ``(..., P, 2)``.

    With ``direct=False`` the exponent ``log o_i - d^T Sigma'^{-1} d / 2``, a quadratic polynomial in the pixel
    coordinates, is evaluated for all pixel-Gaussian pairs as one matrix product of the monomials
    ``(u^2, uv, v^2, u, v, 1)`` with six coefficients per Gaussian (coordinates relative to the block's centre,
    which keeps float32 cancellation small for small blocks); ``direct=True`` evaluates ``d`` explicitly.
    """
    ia, ib, ic = conic.unbind(-1)
    if direct:
        dx = pix[..., :, None, 0] - mean2d[..., None, :, 0]                                 # (..., P, M)
        dy = pix[..., :, None, 1] - mean2d[..., None, :, 1]
        power = -0.5 * (ia[..., None, :] * dx * dx + 2.0 * ib[..., None, :] * dx * dy + ic[..., None, :] * dy * dy)
        alpha = (opac[..., None, :] * torch.exp(power.clamp_max(0.0))).clamp_max(alpha_cap)
    else:
        origin = pix.mean(-2, keepdim=True)                                                # (..., 1, 2)
        p = pix - origin
        m = mean2d - origin
        mx, my = m[..., 0], m[..., 1]
        coef = torch.stack([-0.5 * ia, -ib, -0.5 * ic, ia * mx + ib * my, ib * mx + ic * my,
                            -0.5 * (ia * mx * mx + 2.0 * ib * mx * my + ic * my * my)
                            + torch.log(opac.clamp_min(1e-30))], -1)                       # (..., M, 6)
        pu, pv = p[..., 0], p[..., 1]
        feats = torch.stack([pu * pu, pu * pv, pv * pv, pu, pv, torch.ones_like(pu)], -1)  # (..., P, 6)
        alpha = torch.exp(feats @ coef.transpose(-1, -2)).clamp_max(alpha_cap)            # (..., P, M)
    alpha = torch.where(valid[..., None, :] & (alpha >= alpha_min), alpha, torch.zeros_like(alpha))
    trans_incl = torch.cumprod(1.0 - alpha, dim=-1)
    t_excl = torch.cat([torch.ones_like(trans_incl[..., :1]), trans_incl[..., :-1]], dim=-1)
    weights = t_excl * alpha
    t_final = trans_incl[..., -1]
    rgb = weights @ col + t_final[..., None] * bg
    depth = (weights @ z[..., :, None])[..., 0]
    return rgb, depth, 1.0 - t_final


def _tiled(mean2d, cov2d, conic, opac, col, z, valid, width, height, tile, alpha_cap, alpha_min, bg):
    """Composite per ``tile x tile`` block, each block meeting only the Gaussians whose footprint overlaps it.

    Gaussians stay in depth order inside every block (a stable sort moves the overlapping ones first), and the
    lists are padded to the longest one with masked entries, so the result equals the dense one.
    """
    b, device, dtype = mean2d.shape[0], mean2d.device, mean2d.dtype
    ty, tx = -(-height // tile), -(-width // tile)
    radius = footprint_radius(cov2d)
    u, v = mean2d[..., 0].detach(), mean2d[..., 1].detach()
    x0 = (torch.arange(tx, device=device, dtype=dtype) * tile).repeat(ty)                  # (T,)
    y0 = (torch.arange(ty, device=device, dtype=dtype) * tile).repeat_interleave(tx)
    u, v, rr = u[:, None], v[:, None], radius[:, None]                                      # (B, 1, N)
    x0c, y0c = x0[:, None], y0[:, None]                                                      # (T, 1)
    hit = valid[:, None] & (u + rr > x0c) & (u - rr < x0c + tile) & (v + rr > y0c) & (v - rr < y0c + tile)
    m = max(int(hit.sum(-1).max()), 1)
    idx = torch.argsort((~hit).to(torch.int8), dim=-1, stable=True)[..., :m]                 # (B, T, M)
    ok = hit.gather(-1, idx)

    def take(x):
        flat = idx.reshape(b, -1)
        if x.dim() == 2:
            return x.gather(1, flat).reshape(idx.shape)
        return x.gather(1, flat[..., None].expand(-1, -1, x.shape[-1])).reshape(*idx.shape, x.shape[-1])

    off = torch.arange(tile, device=device, dtype=dtype) + 0.5
    ov, ou = torch.meshgrid(off, off, indexing="ij")
    pix = torch.stack([x0[:, None] + ou.reshape(1, -1), y0[:, None] + ov.reshape(1, -1)], -1)[None]  # (1, T, t*t, 2)
    rgb, depth, acc = _composite(pix, take(mean2d), take(conic), take(opac), take(col), take(z), ok,
                                 alpha_cap, alpha_min, bg)

    def untile(x):
        x = x.reshape(b, ty, tx, tile, tile, *x.shape[3:]).transpose(2, 3)
        return x.reshape(b, ty * tile, tx * tile, *x.shape[5:])[:, :height, :width]

    return {"rgb": untile(rgb), "depth": untile(depth), "alpha": untile(acc)}
