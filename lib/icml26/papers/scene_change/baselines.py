"""Baselines (note §4, §7): image-based siamese change detection fed one reference frame, PixelDiff, and the
training-free raw-pixel frame matching used by the mechanism claims C1/C2.

* :func:`siamese_cd`: the SAME encoder, change head and decoder as VSCDNet-mini, fed only the same-index
  reference frame (no frame matching, no warping, no fusion). This is the image-based SCD family run under
  unsynchronised videos, where the reader has no better partner than frame t.
* :func:`oracle_siamese`: the same network fed the reference frame of maximum true view overlap (uses GT poses
  and depth; an upper bound for single-frame pairing, never available at test time).
* :func:`pixel_diff`: training-free, ``|query - same-index reference|`` after a per-frame photometric
  normalisation, thresholded.
* :func:`raw_descriptors`/:func:`raw_topk`: cosine similarity of downsampled, mean-centred frames.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26.papers.scene_change.method import VSCDNet, check_videos


def siamese_cd(**kwargs) -> VSCDNet:
    """The siamese image CD baseline: VSCDNet-mini's own blocks in ``same_index`` mode."""
    return VSCDNet(candidate_mode="same_index", **kwargs)


def oracle_siamese(**kwargs) -> VSCDNet:
    """The siamese baseline fed the reference of maximum true overlap (pass ``candidates`` to ``forward``)."""
    kwargs = {**kwargs, "s_max": 1}
    return VSCDNet(candidate_mode="given", use_cf=False, use_csp=False, **kwargs)


def oracle_candidates(overlap: torch.Tensor) -> torch.Tensor:
    """``argmax_s omega(t, s)`` as a ``(B, T_q, 1)`` candidate tensor from overlaps ``(B, T_q, T_r)``."""
    if overlap.dim() != 3:
        raise ValueError(f"overlap must be (B, T_q, T_r), got {tuple(overlap.shape)}")
    return overlap.argmax(-1, keepdim=True)


def _normalise(x: torch.Tensor) -> torch.Tensor:
    mu = x.mean((-1, -2), keepdim=True)
    sd = x.std((-1, -2), keepdim=True).clamp_min(1e-3)
    return (x - mu) / sd


def pixel_diff(query: torch.Tensor, reference: torch.Tensor, threshold: float = 1.5) -> torch.Tensor:
    """Binary change masks ``(B, T, H, W)``: mean over channels of ``|norm(q_t) - norm(r_t)|`` above ``threshold``
    (per-frame, per-channel standardisation as the global photometric normalisation)."""
    check_videos(query, reference)
    if query.shape[1] != reference.shape[1]:
        raise ValueError(f"pixel_diff pairs frames by index and needs equal lengths, got {query.shape[1]} and "
                         f"{reference.shape[1]}")
    return (_normalise(query) - _normalise(reference)).abs().mean(2) > threshold


def raw_descriptors(frames: torch.Tensor, size: int = 8) -> torch.Tensor:
    """Frame descriptors ``(B, T, 3 * size^2)``: frames average-pooled to ``size x size``, mean-centred per frame."""
    if frames.dim() != 5:
        raise ValueError(f"frames must be (B, T, 3, H, W), got {tuple(frames.shape)}")
    x = F.adaptive_avg_pool2d(frames.flatten(0, 1), size).flatten(1)
    x = x - x.mean(-1, keepdim=True)
    return x.view(*frames.shape[:2], -1)


def raw_topk(query: torch.Tensor, reference: torch.Tensor, k: int, size: int = 8) -> torch.Tensor:
    """Indices ``(B, T_q, k)`` of the ``k`` reference frames most cosine-similar to each query frame."""
    check_videos(query, reference)
    if not isinstance(k, int) or k < 1 or k > reference.shape[1]:
        raise ValueError(f"k (top-K) must be an int in [1, {reference.shape[1]}] (the reference length), got {k!r}")
    vq = F.normalize(raw_descriptors(query, size), dim=-1)
    vr = F.normalize(raw_descriptors(reference, size), dim=-1)
    return torch.einsum("btd,bsd->bts", vq, vr).topk(k, dim=-1).indices


def color_histograms(frames: torch.Tensor, bins: int = 6) -> torch.Tensor:
    """Joint RGB histograms ``(B, T, bins^3)`` of exposure-normalised frames (each frame scaled to mean 0.5): a
    viewpoint-tolerant training-free descriptor, reported next to the note's raw downsampled frames."""
    if frames.dim() != 5:
        raise ValueError(f"frames must be (B, T, 3, H, W), got {tuple(frames.shape)}")
    x = frames.flatten(0, 1)
    x = (x / x.flatten(1).mean(-1).clamp_min(1e-6)[:, None, None, None] * 0.5).clamp(0, 0.999)
    q = (x * bins).long()
    idx = (q[:, 0] * bins + q[:, 1]) * bins + q[:, 2]
    return F.one_hot(idx.flatten(1), bins ** 3).float().mean(1).view(*frames.shape[:2], -1)


def top1_by(vq: torch.Tensor, vr: torch.Tensor) -> torch.Tensor:
    """``argmax_s cos(vq_t, vr_s)`` as ``(B, T_q, 1)``."""
    return torch.einsum("btd,bsd->bts", F.normalize(vq, dim=-1), F.normalize(vr, dim=-1)).argmax(-1, keepdim=True)

