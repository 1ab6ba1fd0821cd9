"""Baselines (paper §1-2 and the experiments' baseline families; see docs/papers/scene_change.md): siamese change
detection fed one reference frame chosen by index or by the true poses, PixelDiff, and the training-free
raw-pixel frame matching used by the mechanism claims C1/C2.

* :func:`siamese_cd`: the SAME frozen encoder, change head and decoder as VSCDNet-mini, fed only the same-index
  reference frame (no frame matching, no warping, no fusion): image-based SCD, and the video AOD family for
  trajectories recorded in the same direction, run under unsynchronised videos.
* :func:`reversed_cd`: the same network fed reference frame T-1-t (the AOD family for a reversed trajectory).
* :func:`oracle_siamese`: the same network fed the reference frame of maximum true view overlap (uses GT poses
  and depth: the pose-oracle matcher, an upper bound for single-frame pairing, never available at test time),
  with VSCDNet-mini's local warping.
* :func:`pixel_diff`: training-free, ``|query - same-index reference|`` after a per-frame photometric
  normalisation, thresholded.
* :func:`raw_descriptors`/:func:`raw_topk`: cosine similarity of downsampled, mean-centred frames.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26 import checks
from icml26.papers.scene_change.method import VSCDNet, check_videos, frame_similarity


def siamese_cd(**kwargs) -> VSCDNet:
    """The siamese image CD baseline: VSCDNet-mini's own blocks in ``same_index`` mode."""
    return VSCDNet(candidate_mode="same_index", **kwargs)


def reversed_cd(**kwargs) -> VSCDNet:
    """The reversed-trajectory video baseline: VSCDNet-mini's own blocks in ``reversed_index`` mode."""
    return VSCDNet(candidate_mode="reversed_index", **kwargs)


def oracle_siamese(**kwargs) -> VSCDNet:
    """The siamese baseline fed the reference of maximum true overlap (pass ``candidates`` to ``forward``)."""
    kwargs = {**kwargs, "s_max": 1}
    return VSCDNet(candidate_mode="given", use_cf=False, use_csp=False, **kwargs)


def oracle_candidates(overlap: torch.Tensor) -> torch.Tensor:
    """``argmax_s omega(t, s)`` as a ``(B, T_q, 1)`` candidate tensor from overlaps ``(B, T_q, T_r)``."""
    checks.tensor("overlap", overlap, ndim=3, dtype_kind="float")
    return overlap.argmax(-1, keepdim=True)


def normalise_frames(x: torch.Tensor) -> torch.Tensor:
    """Per-frame, per-channel standardisation over the pixels (the last two dims): a global photometric
    normalisation against the exposure jitter."""
    checks.tensor("x", x, ndim=(3, 4, 5), dtype_kind="float")
    return _normalise(x)


def _normalise(x: torch.Tensor) -> torch.Tensor:
    mu = x.mean((-1, -2), keepdim=True)
    sd = x.std((-1, -2), keepdim=True).clamp_min(1e-3)
    return (x - mu) / sd


def pixel_diff(query: torch.Tensor, reference: torch.Tensor, threshold: float = 1.5) -> torch.Tensor:
    """Binary change masks ``(B, T, H, W)``: mean over channels of ``|norm(q_t) - norm(r_t)|`` above ``threshold``
    (per-frame, per-channel standardisation as the global photometric normalisation)."""
    check_videos(query, reference)
    checks.finite_number("threshold", threshold)
    if query.shape[1] != reference.shape[1]:
        raise ValueError(f"reference must have the query's length: pixel_diff pairs frames by index, got "
                         f"{query.shape[1]} and {reference.shape[1]}")
    return (_normalise(query) - _normalise(reference)).abs().mean(2) > threshold


def raw_descriptors(frames: torch.Tensor, size: int = 8) -> torch.Tensor:
    """Frame descriptors ``(B, T, 3 * size^2)``: frames average-pooled to ``size x size``, mean-centred per frame."""
    checks.tensor("frames", frames, ndim=5, dtype_kind="float")
    checks.positive_int("size", size)
    x = F.adaptive_avg_pool2d(frames.flatten(0, 1), size).flatten(1)
    x = x - x.mean(-1, keepdim=True)
    return x.view(*frames.shape[:2], -1)


def raw_topk(query: torch.Tensor, reference: torch.Tensor, k: int, size: int = 8) -> torch.Tensor:
    """Indices ``(B, T_q, k)`` of the ``k`` reference frames most cosine-similar to each query frame."""
    check_videos(query, reference)
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > reference.shape[1]:
        raise ValueError(f"k (top-K) must be an int in [1, {reference.shape[1]}] (the reference length), got {k!r}")
    checks.positive_int("size", size)
    return frame_similarity(raw_descriptors(query, size), raw_descriptors(reference, size)).topk(k, dim=-1).indices


def color_histograms(frames: torch.Tensor, bins: int = 6) -> torch.Tensor:
    """Joint RGB histograms ``(B, T, bins^3)`` of exposure-normalised frames (each frame scaled to mean 0.5): a
    viewpoint-tolerant training-free descriptor, reported next to the raw downsampled frames."""
    checks.tensor("frames", frames, ndim=5, dtype_kind="float")
    checks.positive_int("bins", bins)
    x = frames.flatten(0, 1)
    x = (x / x.flatten(1).mean(-1).clamp_min(1e-6)[:, None, None, None] * 0.5).clamp(0, 0.999)
    q = (x * bins).long()
    idx = (q[:, 0] * bins + q[:, 1]) * bins + q[:, 2]
    idx = idx.flatten(1)
    counts = torch.zeros(idx.shape[0], bins ** 3, device=frames.device).scatter_add_(1, idx, torch.ones_like(
        idx, dtype=torch.float32))   # bin counts without materialising a (pixels x bins^3) one-hot
    return (counts / idx.shape[1]).view(*frames.shape[:2], -1)


def top1_by(vq: torch.Tensor, vr: torch.Tensor) -> torch.Tensor:
    """``argmax_s cos(vq_t, vr_s)`` as ``(B, T_q, 1)`` from descriptors ``(B, T_q, D)`` and ``(B, T_r, D)``."""
    return frame_similarity(vq, vr).argmax(-1, keepdim=True)
