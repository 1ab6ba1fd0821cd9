"""Dense correspondences between the selected views: the first step of Creat3r (paper §3; the paper uses learned
matchers, LightGlue and MASt3R, which need downloaded weights, so two stand-ins are provided).

* :class:`NCCMatcher` (the default): uses the selected *images* only. For a grid of textured pixels of each
  selected view it searches the epipolar line in each of the ``k`` nearest selected views (the segment inside the
  scene's known bounding box, sampled uniformly in inverse depth) by normalised cross-correlation of ``patch x
  patch`` RGB windows, refines the peak with a parabola, rejects ambiguous peaks (a second peak within
  ``margin`` of the best) and keeps a match only when the reverse search from the matched pixel comes back within
  ``lr_tol_px`` (a left-right check).
* :class:`OracleNoisyMatcher` (the upper bound): reads the renderer's depth of the *selected* views (the role a
  pointmap network plays when it is right), keeps the pixels that pass a z-buffer test in another selected view,
  and adds ``noise_px`` Gaussian noise and a fraction ``outliers`` of random pixels.

Both return multi-view tracks ``uv`` ``(V, M, 2)``, ``mask`` ``(V, M)`` (which views observe each track) and
``anchor`` ``(M,)`` (the view each track was seeded in), and read nothing but selected views of the store.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26 import checks
from icml26.papers.creat3r_nbv.geometry import box_interval, pixel_ray
from icml26.papers.creat3r_nbv.scenes import SCENE_CENTRE, ViewStore
from icml26.render import backproject, project, visible_in


def _views(store, views) -> list[int]:
    if not isinstance(store, ViewStore):
        raise TypeError(f"store must be a ViewStore; got {type(store).__name__}")
    views = [checks.nonnegative_int("views", v) for v in views]
    if len(views) < 2 or len(set(views)) != len(views):
        raise ValueError(f"views must hold at least two distinct selected views; got {views}")
    return views


def _grid_pixels(height: int, width: int, step: int, device=None) -> torch.Tensor:
    """Pixel centres ``(P, 2)`` of every ``step``-th pixel (starting at ``step // 2``), as ``(u, v)``."""
    rows = torch.arange(step // 2, height, step, device=device, dtype=torch.float32) + 0.5
    cols = torch.arange(step // 2, width, step, device=device, dtype=torch.float32) + 0.5
    v, u = torch.meshgrid(rows, cols, indexing="ij")
    return torch.stack([u.reshape(-1), v.reshape(-1)], -1)


def _nearest_views(cams, views, k: int) -> list[list[int]]:
    """For each of ``views``, the positions (in ``views``) of its ``k`` nearest other views by the angle between
    camera centres about the scene centre (the pairs that are matched; paper §3's compute constraint)."""
    c = torch.nn.functional.normalize(cams[views].centers - torch.tensor(SCENE_CENTRE, device=cams.rot.device), dim=-1)
    cos = c @ c.T
    cos.fill_diagonal_(-2.0)
    k = min(k, len(views) - 1)
    return cos.topk(k, dim=1).indices.tolist()


class OracleNoisyMatcher:
    """Correspondences from the renderer's depth of *selected* views only (the upper bound; see the module doc)."""

    name = "oracle"

    def __init__(self, step: int = 3, noise_px: float = 0.5, outliers: float = 0.05):
        self.step = checks.positive_int("step", step)
        self.noise_px = checks.nonnegative_number("noise_px", noise_px)
        self.outliers = checks.in_range("outliers", outliers, 0.0, 1.0, high_open=True)

    def tracks(self, store: ViewStore, views, gen: torch.Generator):
        """Multi-view tracks over ``views`` (see the module docstring). Every selected view seeds a grid."""
        views = _views(store, views)
        cams = store.cams[views]
        depth = torch.stack([store.depth(v) for v in views])                      # selected views only
        H, W = depth.shape[-2:]
        s = self.step
        grid = depth[:, s // 2::s, s // 2::s]
        rows = torch.arange(s // 2, H, s, device=depth.device)
        cols = torch.arange(s // 2, W, s, device=depth.device)
        pts = backproject(depth, cams.K, cams.rot, cams.trans)[:, rows][:, :, cols]   # (V, h, w, 3)
        ok_anchor = torch.isfinite(grid).reshape(len(views), -1)
        pts = pts.reshape(-1, 3)
        anchor = torch.arange(len(views), device=depth.device).repeat_interleave(ok_anchor.shape[1])
        keep = ok_anchor.reshape(-1)
        pts, anchor = pts[keep], anchor[keep]
        vis = visible_in(pts, cams.K, cams.rot, cams.trans, depth)                 # (V, M)
        is_anchor = torch.zeros_like(vis)
        is_anchor[anchor, torch.arange(pts.shape[0], device=pts.device)] = True
        vis = vis | is_anchor
        uv, _ = project(pts, cams.K, cams.rot, cams.trans)
        noise = torch.randn(uv.shape, generator=gen, device=uv.device) * self.noise_px
        bad = torch.rand(uv.shape[:2], generator=gen, device=uv.device) < self.outliers
        rnd = torch.rand(uv.shape, generator=gen, device=uv.device) * torch.tensor([W, H], device=uv.device)
        uv = torch.where(is_anchor[..., None], uv, torch.where(bad[..., None], rnd, uv + noise))
        return uv, vis, anchor


class NCCMatcher:
    """Epipolar search by normalised cross-correlation between selected images (see the module docstring)."""

    name = "ncc"

    def __init__(self, step: int = 3, patch: int = 5, samples: int = 40, k: int = 3, min_ncc: float = 0.8,
                 margin: float = 0.02, lr_tol_px: float = 1.0, min_std: float = 0.03):
        self.step = checks.positive_int("step", step)
        self.patch = checks.positive_int("patch", patch)
        if self.patch % 2 == 0:
            raise ValueError(f"patch must be odd; got {patch}")
        self.samples = checks.positive_int("samples", samples)
        if self.samples < 3:
            raise ValueError(f"samples must be >= 3; got {samples}")
        self.k = checks.positive_int("k", k)
        self.min_ncc = checks.in_range("min_ncc", min_ncc, -1.0, 1.0)
        self.margin = checks.nonnegative_number("margin", margin)
        self.lr_tol_px = checks.positive_number("lr_tol_px", lr_tol_px)
        self.min_std = checks.nonnegative_number("min_std", min_std)
        r = self.patch // 2
        o = torch.arange(-r, r + 1, dtype=torch.float32)
        oy, ox = torch.meshgrid(o, o, indexing="ij")
        self._offsets = torch.stack([ox.reshape(-1), oy.reshape(-1)], -1)               # (p*p, 2)

    def _normalise(self, vals: torch.Tensor):
        vals = vals - vals.mean(-1, keepdim=True)
        std = vals.pow(2).mean(-1).sqrt()
        return vals / (vals.norm(dim=-1, keepdim=True) + 1e-6), std

    def _sample(self, imgs: torch.Tensor, uv: torch.Tensor) -> torch.Tensor:
        """Bilinear RGB values ``(B, 3, *uv.shape[1:-1])`` of images ``(B, 3, H, W)`` at pixel positions ``uv``."""
        b, _, h, w = imgs.shape
        grid = torch.stack([uv[..., 0] / w, uv[..., 1] / h], -1).reshape(b, -1, 1, 2) * 2.0 - 1.0
        vals = F.grid_sample(imgs, grid, mode="bilinear", padding_mode="border", align_corners=False)
        return vals.reshape(b, 3, *uv.shape[1:-1])

    def patches(self, imgs: torch.Tensor, uv: torch.Tensor):
        """Zero-mean, unit-norm RGB windows ``(B, N, 3 p^2)`` of images ``(B, 3, H, W)`` around continuous pixel
        positions ``uv`` ``(B, N, 2)`` (bilinear), and their standard deviations ``(B, N)``."""
        vals = self._sample(imgs, uv[:, :, None, :] + self._offsets.to(uv))                 # (B, 3, N, p*p)
        return self._normalise(vals.permute(0, 2, 1, 3).flatten(2))

    def _scores(self, ref, src, uv_src, z, tgt, imgs_tgt):
        """NCC ``(B, N, S)`` of reference windows ``ref`` ``(B, N, D)`` at pixels ``uv_src`` of cameras ``src``
        against the target images' windows induced by fronto-parallel planes at source z-depths ``z``
        ``(B, N, S)``: every window pixel is back-projected onto the plane and projected into the target
        (plane-sweep warping, which follows the rotation and scale between the views); -2 where the window's
        centre leaves the target image."""
        b, n, s = z.shape
        K = src.K.to(src.rot)
        win = uv_src[:, :, None, :] + self._offsets.to(uv_src)                              # (B, N, P, 2)
        ray = torch.stack([(win[..., 0] - K[0, 2]) / K[0, 0], (win[..., 1] - K[1, 2]) / K[1, 1],
                           torch.ones_like(win[..., 0])], -1)                                # (B, N, P, 3)
        Xc = ray[:, :, None] * z[..., None, None]                                           # (B, N, S, P, 3)
        X = torch.einsum("bji,bnspj->bnspi", src.rot, Xc) + src.centers[:, None, None, None]
        uv, depth = project(X.reshape(b, -1, 3), tgt.K, tgt.rot, tgt.trans)
        uv = uv.reshape(b, n, s, -1, 2)
        centre = uv[..., self.patch * self.patch // 2, :]                                    # (B, N, S, 2)
        r = self.patch // 2
        inside = (depth.reshape(b, n, s, -1).amin(-1) > 0.05) & (centre[..., 0] >= r) \
            & (centre[..., 0] <= tgt.width - r) & (centre[..., 1] >= r) & (centre[..., 1] <= tgt.height - r)
        vals = self._sample(imgs_tgt, uv)                                                    # (B, 3, N, S, P)
        cand, _ = self._normalise(vals.permute(0, 2, 3, 1, 4).flatten(3))
        score = (cand * ref[:, :, None]).sum(-1)
        return torch.where(inside, score, torch.full_like(score, -2.0))

    def _search(self, ref, src, uv_src, tgt, imgs_tgt):
        """Best match along the epipolar segments: reference windows ``ref`` ``(B, N, D)`` at ``uv_src`` of
        cameras ``src``, searched in cameras ``tgt`` with images ``imgs_tgt`` ``(B, 3, H, W)``: a coarse pass of
        ``samples`` inverse z-depths over the part of the ray inside the scene's box, then a fine pass of 9
        around the coarse peak with a parabola through the fine peak. Returns the matched pixels ``(B, N, 2)``,
        their 3D points ``(B, N, 3)`` and whether the peak is acceptable (strong enough, unambiguous, ray inside
        the box)."""
        o, d = pixel_ray(src, uv_src)                                                        # (B, 3), (B, N, 3)
        t0, t1, hit = box_interval(o[:, None], d)
        cos = torch.einsum("bnk,bk->bn", d, src.axes)                                       # z-depth per distance
        lo, hi = 1.0 / (t1 * cos).clamp_min(1e-3), 1.0 / (t0 * cos).clamp_min(1e-3)
        u = torch.linspace(0.0, 1.0, self.samples, device=d.device, dtype=d.dtype)
        inv = lo[..., None] + u * (hi - lo)[..., None]                                       # (B, N, S)
        score = self._scores(ref, src, uv_src, 1.0 / inv, tgt, imgs_tgt)
        best, k = score.max(-1)
        near = (torch.arange(self.samples, device=d.device) - k[..., None]).abs() <= 2
        second = torch.where(near, torch.full_like(score, -2.0), score).amax(-1)
        step = (hi - lo) / (self.samples - 1)
        fine = (inv.gather(-1, k[..., None]) + torch.linspace(-1.0, 1.0, 9, device=d.device) * step[..., None])
        fine = fine.clamp_min(1e-3)
        fs = self._scores(ref, src, uv_src, 1.0 / fine, tgt, imgs_tgt)
        fbest, fk = fs.max(-1)
        sm = fs.gather(-1, (fk - 1).clamp_min(0)[..., None])[..., 0]
        sp = fs.gather(-1, (fk + 1).clamp_max(8)[..., None])[..., 0]
        den = sm - 2 * fbest + sp
        frac = torch.where((fk > 0) & (fk < 8) & (den < -1e-9),
                           0.5 * (sm - sp) / den.clamp_max(-1e-9), torch.zeros_like(fbest)).clamp(-0.5, 0.5)
        inv_star = (fine.gather(-1, fk[..., None])[..., 0] + frac * step / 4.0).clamp_min(1e-3)
        Xs = o[:, None] + d / (inv_star * cos)[..., None]
        uv_star, _ = project(Xs, tgt.K, tgt.rot, tgt.trans)
        ok = hit & (torch.maximum(best, fbest) >= self.min_ncc) & (best - second >= self.margin)
        return uv_star, Xs, ok

    def tracks(self, store: ViewStore, views, gen: torch.Generator | None = None):
        """Multi-view tracks over ``views``; ``gen`` is unused (the matcher is deterministic)."""
        views = _views(store, views)
        cams = store.cams[views]
        imgs = torch.stack([store.image(v) for v in views]).permute(0, 3, 1, 2)           # selected views only
        grid = _grid_pixels(cams.height, cams.width, self.step, imgs.device)                 # (P, 2)
        nbrs = _nearest_views(store.cams, views, self.k)
        uv_all, mask_all, anchors = [], [], []
        for a, nb in enumerate(nbrs):
            ref, std = self.patches(imgs[a:a + 1], grid[None])
            textured = std[0] >= self.min_std
            p = grid[textured]                                                               # (N, 2)
            if p.shape[0] == 0:
                continue
            kk = len(nb)
            src, tgt = cams[[a] * kk], cams[nb]
            uv_b, _, ok = self._search(ref[:, textured].expand(kk, -1, -1), src, p[None].expand(kk, -1, -1), tgt,
                                       imgs[nb])
            # left-right check: search back from the matched pixel and require it to return near the anchor pixel
            ref_b, std_b = self.patches(imgs[nb], uv_b)
            uv_back, _, ok_back = self._search(ref_b, tgt, uv_b, src, imgs[[a] * kk])
            ok = ok & ok_back & (std_b >= self.min_std) & ((uv_back - p[None]).norm(dim=-1) <= self.lr_tol_px)
            uv = torch.zeros(len(views), p.shape[0], 2, device=p.device)
            mask = torch.zeros(len(views), p.shape[0], dtype=torch.bool, device=p.device)
            uv[a], mask[a] = p, True
            uv[nb], mask[nb] = uv_b, ok
            keep = ok.any(0)
            uv_all.append(uv[:, keep])
            mask_all.append(mask[:, keep])
            anchors.append(torch.full((int(keep.sum()),), a, dtype=torch.long, device=p.device))
        if not uv_all:
            z = torch.zeros(len(views), 0, device=imgs.device)
            return torch.zeros(len(views), 0, 2, device=imgs.device), z.bool(), torch.zeros(0, dtype=torch.long)
        return torch.cat(uv_all, 1), torch.cat(mask_all, 1), torch.cat(anchors)


MATCHERS = {"ncc": NCCMatcher, "oracle": OracleNoisyMatcher}


def make_matcher(name: str, **kw):
    """A matcher by name (``"ncc"`` or ``"oracle"``) with keyword settings."""
    return MATCHERS[checks.one_of("name", name, MATCHERS)](**kw)
