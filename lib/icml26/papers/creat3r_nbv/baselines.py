"""Baseline next-best-view selectors (paper §4, as described by the reviews), all behind the same
``select(store, gen) -> index`` interface.

* :class:`RandomSelector`: a uniformly random unselected candidate.
* :class:`FarthestViewSelector`: maximises the smallest angle (camera centres about the scene centre) to the
  selected set.
* :class:`CoverageHeuristicSelector`: Kopanas & Drettakis-like; sums, over the points of the same intermediate
  cloud Creat3r uses, an under-observation weight times the angular novelty of the candidate's ray.
* :class:`FisherDiagSelector`: FisherRF-style; fits 3DGS on the selected views (same trainer as the final fit),
  estimates ``diag(J^T J)`` of each candidate's rendered colour w.r.t. all Gaussian parameters with Hutchinson
  probes, and picks ``argmax_c sum_k H_c[k] / (H_S[k] + lambda_reg)``.
* :class:`OpacityUncertaintySelector`: fits 3DGS the same way and picks the candidate with the lowest mean
  rendered alpha.

Every selector reads images/depth of selected views only (through the leak-guarded view store) and initialises
its 3DGS from its own selected views.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.papers.creat3r_nbv.gs_fit import PARAMS, FitConfig, fit_gaussians, init_gaussians, render_gaussians
from icml26.papers.creat3r_nbv.matching import NCCMatcher
from icml26.papers.creat3r_nbv.method import (
    Creat3rConfig,
    _cfg,
    _matcher,
    available_mask,
    build_point_cloud,
    point_confidence,
    point_zbuffer,
)
from icml26.papers.creat3r_nbv.scenes import SCENE_CENTRE, ViewStore
from icml26.render import visible_in


class RandomSelector:
    name = "random"

    def select(self, store: ViewStore, gen: torch.Generator) -> int:
        idx = available_mask(store).nonzero().squeeze(-1)
        return int(idx[torch.randint(idx.numel(), (1,), generator=gen, device=gen.device)])


class FarthestViewSelector:
    name = "farthest"

    def select(self, store: ViewStore, gen: torch.Generator) -> int:
        avail = available_mask(store)
        c = store.cams.centers - torch.tensor(SCENE_CENTRE, device=store.cams.rot.device)
        d = torch.nn.functional.normalize(c, dim=-1)
        cos = d @ d[store.selected].T                                           # (C, S)
        min_angle = torch.arccos(cos.clamp(-1, 1)).amin(1)
        return int(torch.where(avail, min_angle, torch.full_like(min_angle, -1.0)).argmax())


class CoverageHeuristicSelector:
    """Counts under-observed points a candidate would see, weighted by the novelty of its viewing angle."""

    name = "coverage"

    def __init__(self, cfg: Creat3rConfig | None = None, matcher=None):
        self.cfg = _cfg(cfg) if cfg is not None else Creat3rConfig()
        self.matcher = _matcher(matcher) if matcher is not None else NCCMatcher()

    def select(self, store: ViewStore, gen: torch.Generator) -> int:
        avail = available_mask(store)
        cloud = build_point_cloud(store, store.selected, self.matcher, self.cfg, gen)
        pts = cloud["points"]
        if pts.shape[0] == 0:
            return FarthestViewSelector().select(store, gen)
        conf = point_confidence(pts, store, store.selected, self.cfg)
        under = torch.exp(-(conf["support"] - 1.0).clamp_min(0) / self.cfg.kappa_s)   # (N,)
        cams = store.cams.scaled(self.cfg.map_scale)
        vis = visible_in(pts, cams.K, cams.rot, cams.trans, point_zbuffer(pts, cams), rel_tol=0.03)  # (C, N)
        centers = store.cams.centers
        ray = torch.nn.functional.normalize(centers[:, None] - pts[None], dim=-1)       # (C, N, 3)
        cos = torch.einsum("cnk,snk->cns", ray, ray[store.selected]).amax(-1)
        novelty = 1.0 - cos.clamp(-1, 1)
        score = (vis.float() * under[None] * novelty).sum(1)
        return int(torch.where(avail, score, torch.full_like(score, -1.0)).argmax())


class _FittedSelector:
    """Shared part of the 3DGS-coupled baselines: fit 3DGS on the selected views every round."""

    def __init__(self, fit: FitConfig | None = None, cfg: Creat3rConfig | None = None, matcher=None):
        if fit is not None and not isinstance(fit, FitConfig):
            raise TypeError(f"fit must be a FitConfig; got {type(fit).__name__}")
        self.fit_cfg = fit or FitConfig()
        self.cfg = _cfg(cfg) if cfg is not None else Creat3rConfig()
        self.matcher = _matcher(matcher) if matcher is not None else NCCMatcher()

    def fit(self, store: ViewStore, gen: torch.Generator) -> dict:
        cloud = build_point_cloud(store, store.selected, self.matcher, self.cfg, gen)
        conf = point_confidence(cloud["points"], store, store.selected, self.cfg)
        g = init_gaussians(cloud["points"], conf["colors"], self.fit_cfg.init_gaussians, gen)
        images = torch.stack([store.image(v) for v in store.selected])
        return fit_gaussians(g, images, store.cams[store.selected], self.fit_cfg, gen)["gaussians"]


def fisher_diagonal(g: dict, cams, gen: torch.Generator, probes: int = 2) -> torch.Tensor:
    """Hutchinson estimate of ``diag(J^T J)`` per camera ``(B, D)``: ``E_v[(J^T v)^2]`` with Rademacher ``v``
    over the rendered pixels, ``J`` the Jacobian of the camera's colour w.r.t. all Gaussian parameters."""
    probes = checks.positive_int("probes", probes)
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch.Generator; got {type(gen).__name__}")
    render_gaussians(g, cams[:1])                                       # validates g and cams
    params = {k: v.detach().clone().requires_grad_(True) for k, v in g.items()}
    rows = []
    for b in range(len(cams)):
        rgb = render_gaussians(params, cams[b])["rgb"]
        acc = None
        for p in range(probes):
            v = torch.randint(0, 2, rgb.shape, generator=gen, device=rgb.device).to(rgb) * 2 - 1
            grads = torch.autograd.grad((rgb * v).sum(), [params[k] for k in PARAMS], retain_graph=p < probes - 1)
            sq = torch.cat([gr.reshape(-1) for gr in grads]) ** 2
            acc = sq if acc is None else acc + sq
        rows.append(acc / probes)
    return torch.stack(rows)


class FisherDiagSelector(_FittedSelector):
    """FisherRF-style expected information gain under a diagonal Laplace approximation (paper §4)."""

    name = "fisher"

    def __init__(self, *args, probes: int = 2, lam_reg: float = 1e-2, **kw):
        super().__init__(*args, **kw)
        self.probes = checks.positive_int("probes", probes)
        self.lam_reg = checks.positive_number("lam_reg", lam_reg)

    def select(self, store: ViewStore, gen: torch.Generator) -> int:
        avail = available_mask(store)
        g = self.fit(store, gen)
        cand = avail.nonzero().squeeze(-1)
        h_s = fisher_diagonal(g, store.cams[store.selected], gen, self.probes).sum(0)
        h_c = fisher_diagonal(g, store.cams[cand], gen, self.probes)
        reg = self.lam_reg * h_s.mean().clamp_min(1e-12)
        eig = (h_c / (h_s + reg)).sum(-1)
        return int(cand[eig.argmax()])


class OpacityUncertaintySelector(_FittedSelector):
    """Lowest mean rendered alpha of the current 3DGS: the least covered candidate."""

    name = "opacity"

    def select(self, store: ViewStore, gen: torch.Generator) -> int:
        avail = available_mask(store)
        g = self.fit(store, gen)
        with torch.no_grad():
            alpha = render_gaussians(g, store.cams, camera_chunk=8)["alpha"].flatten(1).mean(1)
        return int(torch.where(avail, alpha, torch.full_like(alpha, float("inf"))).argmin())
