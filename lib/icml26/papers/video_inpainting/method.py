"""Trajectory-stabilised inference (TSI) for diffusion video inpainting: a per-step control layer.

INFERRED FROM THE ABSTRACT ONLY (our reconstruction, docs/papers/video_inpainting.md §3; the paper's exact
rule is unknown).
Per sampling step (steps A-F of that section):
  A  clean estimates x0^f(t) of every frame (from the base sampler), composited with the known pixels;
  B  motion-aligned deviation D^f = sum_g ||Omega (x0^f - W_{f<-g} x0^g)||^2 / (sum ||Omega||_1 + e) over
     g = f +- 1, Omega = m^f V^{f,g}, normalised by the median over frames: D~ = D / (median_f D + e);
  C  leaky risk R^f <- beta R^f + max(0, D~^f - tau), accumulated inside the step window only (R = 0 before
     it); trigger iff R^f > rho inside that window; tau is calibrated per scale (experiment.calibrate_trigger);
  D  sparse anchors (every S-th frame and the last), sampled without correction, EMA references a~;
  E  reference r^f = sum_h w_h V W_{f<-h} z^h / (sum_h w_h V + e) over neighbours and the two nearest
     anchors, w_h = exp(-|f-h|/l) (x kappa_A for anchors);
  F  contraction x0^f <- x0^f + lam Pi (r^f - x0^f), lam = lam_max min(1, R/(2 rho)), then R^f reset.
The sampler re-derives eps from the corrected x0 (icml26.diffusion.ddim_sample), so NFE is unchanged.
"""

from __future__ import annotations

import math

import torch

from icml26 import checks
from icml26.render.warp import PADDINGS, _warp_video, warp_video

DEFAULTS = dict(stride=4, beta=0.8, tau=1.5, rho=1.0, lam_max=0.6, t_lo=0.2, t_hi=0.8, ell=2.0, kappa_a=2.0,
                gamma=0.5, reset="zero", norm="median", eps=1e-8)


def _video(x, name):
    """A finite 5-D (B, F, C, H, W) tensor."""
    checks.tensor(name, x, ndim=5)


def _clip(video, video_name, mask=None, flows=None, valid=None, region=None, region_name="region"):
    """Check a clip and its (optional) per-frame mask, all-pairs flows (B, F, F, 2, H, W) and validity
    (B, F, F, 1, H, W) against the clip's B, F, H, W; masks and regions carry one channel or C."""
    _video(video, video_name)
    B, Fn, C, H, W = video.shape
    for name, m in (("mask", mask), (region_name, region)):
        if m is not None:
            checks.tensor(name, m, ndim=5)
            if m.shape[:2] != (B, Fn) or m.shape[2] not in (1, C) or m.shape[-2:] != (H, W):
                raise ValueError(f"{name} must have shape ({B}, {Fn}, 1 or {C}, {H}, {W}) like {video_name}; "
                                 f"got {tuple(m.shape)}")
    if flows is not None:
        checks.tensor("flows", flows, shape=(B, Fn, Fn, 2, H, W))
    if valid is not None:
        checks.tensor("valid", valid, shape=(B, Fn, Fn, 1, H, W))


def _padding(padding):
    return checks.one_of("padding", padding, PADDINGS)


def anchor_set(frames: int, stride: int) -> list[int]:
    """Every ``stride``-th frame plus the last one (docs §3 D)."""
    checks.positive_int("frames", frames)
    checks.positive_int("stride", stride)
    return sorted(set(range(0, frames, stride)) | {frames - 1})


def source_table(frames: int, anchors: list[int], ell: float, kappa_a: float, use_anchors: bool = True):
    """Per frame f, 4 source slots [f-1, f+1, left anchor, right anchor]: (index, weight, slot-uses-anchor-EMA).

    A source that appears twice keeps one slot; anchors get the bonus kappa_a (docs §3 E).
    """
    checks.positive_int("frames", frames)
    checks.positive_number("ell", ell)
    checks.positive_number("kappa_a", kappa_a)
    if not isinstance(anchors, (list, tuple)) or \
            not all(checks.nonnegative_int("anchors", a) < frames for a in anchors):
        raise ValueError(f"anchors must be frame indices in [0, {frames - 1}]; got {anchors!r}")
    if not isinstance(use_anchors, bool):
        raise TypeError(f"use_anchors must be a bool; got {use_anchors!r}")
    aset = set(anchors)
    src = torch.zeros(frames, 4, dtype=torch.long)
    w = torch.zeros(frames, 4)
    is_a = torch.zeros(frames, 4, dtype=torch.bool)
    for f in range(frames):
        left = [a for a in anchors if a < f - 1]
        right = [a for a in anchors if a > f + 1]
        cands = [f - 1 if f > 0 else None, f + 1 if f < frames - 1 else None]
        if use_anchors:
            cands += [left[-1] if left else None, right[0] if right else None]
        else:
            cands += [None, None]
        for k, h in enumerate(cands):
            if h is None:
                src[f, k] = f
                continue
            anchor = use_anchors and h in aset
            src[f, k] = h
            w[f, k] = math.exp(-abs(f - h) / ell) * (kappa_a if anchor else 1.0)
            is_a[f, k] = anchor
    return src, w, is_a


class TemporalController:
    """The control layer, pluggable into ``ddim_sample(controller=...)``.

    ``mode``: ``"tsi"`` (risk-triggered, anchored; the method), ``"always_on"`` (anchored, no trigger:
    every non-anchor frame, every step in the window, lam_max), ``"uniform"`` (all frames, every step in
    the window, fixed lam toward the plain mean of the warped neighbours) or ``"monitor"`` (risk only).
    Inputs (B, F, ...) : ``mask`` and ``known`` (B,F,C,H,W), ``flows`` (B,F,F,2,H,W), ``valid`` (B,F,F,1,H,W).
    Logs ``trigger`` (steps x B x F booleans), ``risk`` and ``deviation`` per step.
    """

    MODES = ("tsi", "always_on", "uniform", "monitor")

    def __init__(self, mask, known, flows, valid, mode: str = "tsi", padding: str = "border", **params):
        checks.one_of("mode", mode, self.MODES)
        _padding(padding)
        _clip(known, "known", mask=mask, flows=flows, valid=valid)
        B, Fn = mask.shape[:2]
        unknown = set(params) - set(DEFAULTS) - {"lam"}
        if unknown:
            raise ValueError(f"unknown controller parameters {sorted(unknown)}; allowed {sorted(DEFAULTS)} and lam")
        p = dict(DEFAULTS, **params)
        checks.positive_int("stride", p["stride"])
        for name in ("beta", "gamma", "t_lo", "t_hi", "lam_max") + (("lam",) if "lam" in p else ()):
            checks.probability(name, p[name])
        checks.nonnegative_number("tau", p["tau"])
        for name in ("rho", "ell", "kappa_a", "eps"):
            checks.positive_number(name, p[name])
        if not 0 <= p["t_lo"] <= p["t_hi"] <= 1:
            raise ValueError(f"need 0 <= t_lo <= t_hi <= 1; got {p['t_lo']}, {p['t_hi']}")
        if not p["beta"] < 1 or not p["gamma"] < 1:
            raise ValueError(f"beta and gamma must lie in [0, 1); got beta={p['beta']}, gamma={p['gamma']}")
        checks.one_of("norm", p["norm"], ("median", "variance"))
        checks.one_of("reset", p["reset"], ("zero", "half", "none"))
        self.p, self.mode, self.padding = p, mode, padding
        self.mask, self.known = mask, known
        self.anchors = anchor_set(Fn, p["stride"]) if mode in ("tsi", "always_on", "monitor") else []
        is_anchor = torch.zeros(Fn, dtype=torch.bool)
        is_anchor[self.anchors] = True
        self.is_anchor = is_anchor.to(mask.device)
        src, w, is_a = source_table(Fn, self.anchors, p["ell"], p["kappa_a"], use_anchors=mode != "uniform")
        if mode == "uniform":
            w = (w > 0).to(w.dtype)
        self.src, self.w, self.is_a = src.to(mask.device), w.to(mask.device, mask.dtype), is_a.to(mask.device)
        fidx = torch.arange(Fn, device=mask.device).view(Fn, 1)
        self.flows_src = flows[:, fidx, self.src]            # (B, F, 4, 2, H, W)
        self.valid_src = valid[:, fidx, self.src] * (self.w > 0).view(1, Fn, 4, 1, 1, 1).to(valid.dtype)
        self.R = torch.zeros(B, Fn, device=mask.device, dtype=mask.dtype)
        self.ema = None
        self.trigger, self.risk, self.deviation, self.lams = [], [], [], []

    def _warp_sources(self, z, slots=slice(None)):  # z (B, F, C, H, W) -> (B, F, n_slots, C, H, W) warped into f
        # the flows were checked at construction (a non-finite sampler state would show in the final metrics)
        return _warp_video(z[:, self.src[:, slots]], self.flows_src[:, :, slots], self.padding)

    def deviation_stat(self, x0c):
        """Normalised motion-aligned deviation D~ (B, F) over the neighbour slots (docs §3 B)."""
        e = self.p["eps"]
        warped = self._warp_sources(x0c, slice(0, 2))          # the neighbour slots f-1, f+1 only
        omega = self.mask.unsqueeze(2) * self.valid_src[:, :, :2]
        num = (omega * (x0c.unsqueeze(2) - warped) ** 2).sum(dim=(2, 3, 4, 5))
        den = omega.expand_as(warped).sum(dim=(2, 3, 4, 5))
        D = num / (den + e)
        if self.p["norm"] == "median":
            scale = D.median(dim=1, keepdim=True).values
        else:  # "variance": 2 x the hole variance of the estimates = the deviation of independent frames
            m = self.mask
            n = m.sum(dim=(2, 3, 4)).clamp(min=1)
            mu = (m * x0c).sum(dim=(2, 3, 4)) / n
            var = (m * (x0c - mu[..., None, None, None]) ** 2).sum(dim=(2, 3, 4)) / n
            scale = 2 * var.mean(dim=1, keepdim=True)
        return D / (scale + e)

    def on_step(self, t, x0, z, state):
        if not isinstance(x0, torch.Tensor) or x0.dim() != 5:  # per step: a cheap shape check only
            raise ValueError(f"x0_hat must be a 5-D tensor (B, F, C, H, W); got {getattr(x0, 'shape', x0)!r}")
        p, m = self.p, self.mask
        i, n = state["step"], state["n_steps"]
        s = 1.0 - i / n                                        # remaining fraction of the trajectory
        active = p["t_lo"] <= s <= p["t_hi"]
        x0c = m * x0 + (1 - m) * self.known                     # composite with the known pixels
        if self.ema is None:
            self.ema = x0c.clone()
        else:
            self.ema = p["gamma"] * self.ema + (1 - p["gamma"]) * x0c
        Dn = self.deviation_stat(x0c)
        if active:  # risk accumulates only inside the window: before it x0 is too noisy to mean anything (its
            # hole variance is ~0 at the first step, so D~ would be ~1e5 and its decay would dominate R for 30 steps)
            self.R = p["beta"] * self.R + (Dn - p["tau"]).clamp(min=0)
        self.deviation.append(Dn.detach().cpu())
        self.risk.append(self.R.detach().cpu())
        B, Fn = self.R.shape
        if self.mode == "monitor" or not active:
            self.trigger.append(torch.zeros(B, Fn, dtype=torch.bool))
            return x0
        if self.mode == "tsi":
            fire = (self.R > p["rho"]) & ~self.is_anchor
            lam = p["lam_max"] * (self.R / (2 * p["rho"])).clamp(max=1.0)
        elif self.mode == "always_on":
            fire = (~self.is_anchor).expand(B, Fn)
            lam = torch.full_like(self.R, p["lam_max"])
        else:
            fire = torch.ones(B, Fn, dtype=torch.bool, device=m.device)
            lam = torch.full_like(self.R, p.get("lam", p["lam_max"]))
        content = torch.where(self.is_a.view(1, Fn, 4, 1, 1, 1), self.ema[:, self.src], x0c[:, self.src])
        warped = _warp_video(content, self.flows_src, self.padding)
        wv = self.w.view(1, Fn, 4, 1, 1, 1) * self.valid_src
        tot = wv.sum(2)
        ref = (wv * warped).sum(2) / (tot + p["eps"])
        pi = m * (tot > 0).to(m.dtype)
        step = (lam * fire.to(lam.dtype)).view(B, Fn, 1, 1, 1)
        out = x0 + step * pi * (ref - x0)
        if self.mode == "tsi":
            if p["reset"] == "zero":
                self.R = torch.where(fire, torch.zeros_like(self.R), self.R)
            elif p["reset"] == "half":
                self.R = torch.where(fire, self.R / 2, self.R)
        self.trigger.append(fire.detach().cpu())
        return out

    def trigger_raster(self) -> torch.Tensor:
        """(steps, B, F) booleans: where a correction was applied."""
        return torch.stack(self.trigger)


# ---------------------------------------------------------------- metrics (docs §3)

def _pairs(video, flows, valid, k, padding):
    Fn = video.shape[1]
    if not 1 <= checks.positive_int("k", k) < Fn:
        raise ValueError(f"k must lie in [1, F-1={Fn - 1}]; got {k}")
    a = torch.arange(Fn - k, device=video.device)
    w = warp_video(video[:, a + k], flows[:, a, a + k].contiguous(), padding=padding)
    return a, w, valid[:, a, a + k]


def e_warp(video, flows, valid, region=None, k: int = 1, padding: str = "border", per_frame: bool = False):
    """Flow-warping error (Lai et al. 2018) between frames f and f+k on O = V^{f,f+k} (x region^f): mean over pairs."""
    _clip(video, "video", flows=flows, valid=valid, region=region)
    _padding(padding)
    a, w, v = _pairs(video, flows, valid, k, padding)
    obs = v if region is None else v * region[:, a]
    num = (obs * (video[:, a] - w) ** 2).sum(dim=(2, 3, 4))
    den = obs.expand_as(w).sum(dim=(2, 3, 4)).clamp(min=1e-12)
    err = num / den                                            # (B, F-k)
    return err if per_frame else err.mean()


def psnr(pred, target, region, peak: float | None = None) -> torch.Tensor:
    """PSNR over the pixels where ``region`` = 1; ``peak`` defaults to the target's dynamic range / 2 (= max |x|)."""
    checks.tensor("pred", pred)
    checks.tensor("target", target)
    if pred.shape != target.shape:
        raise ValueError(f"pred and target must have the same shape; got {tuple(pred.shape)}, {tuple(target.shape)}")
    r = _region(region, pred)
    if peak is not None:
        checks.positive_number("peak", peak)
    n = r.sum()
    if n <= 0:
        raise ValueError("region must contain at least one pixel")
    mse = (r * (pred - target) ** 2).sum() / n
    peak = float(target.abs().max()) if peak is None else peak
    return 10 * torch.log10(peak ** 2 / mse.clamp(min=1e-20))


def _region(region, x):
    """``region`` (finite, broadcastable to ``x``) expanded to ``x``'s shape."""
    checks.tensor("region", region)
    try:
        return region.expand_as(x)
    except RuntimeError:
        raise ValueError(f"region must broadcast to shape {tuple(x.shape)}; got {tuple(region.shape)}") from None


def laplacian(x: torch.Tensor) -> torch.Tensor:
    """Periodic 5-point Laplacian over the last two dims."""
    _image(x)
    return _laplacian(x)


def _image(x):
    checks.tensor("x", x)
    if x.dim() < 2:
        raise ValueError(f"x must have at least two dimensions (..., H, W); got shape {tuple(x.shape)}")


def _laplacian(x):
    return (x.roll(1, -1) + x.roll(-1, -1) + x.roll(1, -2) + x.roll(-1, -2) - 4 * x)


def hf_energy(x: torch.Tensor, region: torch.Tensor) -> torch.Tensor:
    """||lap(x) (.) region||^2 (the numerator/denominator of the HF ratio of claim C3, docs §5)."""
    _image(x)
    _region(region, x)
    return ((_laplacian(x) * region) ** 2).sum()
