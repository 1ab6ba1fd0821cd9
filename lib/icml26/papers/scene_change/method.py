"""VSCDNet-mini: query-centric video scene change detection (arXiv 2605.20821 §3; released code model/*.py).

Per query keyframe t: (i) soft frame matching to every reference keyframe with global descriptors (§3.1-3.2),
(ii) a candidate set S_t from matched segment proposals and the top-k of P_frame (§3.3), (iii) local 5x5
soft-argmax correspondence and warping of each candidate's tokens to the query grid (§3.4), (iv) one change
feature per candidate (§3.5), (v) confidence-weighted fusion with C_f * C_sp (§3.6), (vi) one decoding per
query frame with RGB guidance (§3.7). Loss: BCE + soft Dice (§3.8); metrics: per-frame F1/IoU (§3.9).

Deviations (all configurable, see docs/papers/scene_change.md): a small CNN encoder pretrained by our own code
on renders of our rooms and frozen (:mod:`~icml26.papers.scene_change.encoder`) instead of frozen SAM ViT-B;
L2-normalised tokens with a learnable correlation temperature instead of a raw dot product at T_p = 1
(*inferred*: on 64-d features the raw local softmax is flat; the change head still sees the raw tokens unless
``head_normalized``); optional GroupNorm in the change head and decoder (``norm``, *inferred*); a 2-stage decoder.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from icml26 import checks
from icml26.papers.scene_change.encoder import FrameEncoder
from icml26.render.warp import warp

EPS = 1e-6


# ----------------------------------------------------------------------------------------------- input checks

def check_videos(query: torch.Tensor, reference: torch.Tensor) -> None:
    """Raise ``ValueError`` unless ``query`` and ``reference`` are finite ``(B, T, 3, H, W)`` videos of one
    resolution and batch size."""
    for name, v in (("query", query), ("reference", reference)):
        checks.tensor(name, v, ndim=5, dtype_kind="float")
        if v.shape[2] != 3:
            raise ValueError(f"{name} must be a (B, T, 3, H, W) video tensor; got shape {tuple(v.shape)}")
    if query.shape[-2:] != reference.shape[-2:]:
        raise ValueError(f"reference resolution {tuple(reference.shape[-2:])} must equal the query resolution "
                         f"{tuple(query.shape[-2:])}")
    if query.shape[0] != reference.shape[0]:
        raise ValueError(f"query and reference batch sizes differ: {query.shape[0]} vs {reference.shape[0]}")


def keyframe_indices(length: int, t_key: int) -> torch.Tensor:
    """``round(linspace(0, L - 1, T_key))`` (§3.0); short videos repeat indices."""
    checks.positive_int("length", length)
    checks.positive_int("t_key", t_key)
    return torch.linspace(0, length - 1, t_key).round().long()


# ----------------------------------------------------------------------------------------------- §3.1 descriptors

class AlignmentToken(nn.Module):
    """Learnable Alignment Token with one query-only block (§3.1): pre-LN self-attention on the single token,
    pre-LN cross-attention to the LayerNorm-ed patch tokens, pre-LN FFN (4x, GELU), each with a residual.

    (The shared :class:`icml26.nn.attention.MultiHeadAttention` is self-attention only; the cross-attention
    here uses ``torch.nn.MultiheadAttention``.)
    """

    def __init__(self, dim: int, heads: int = 4):
        super().__init__()
        checks.positive_int("dim", dim)
        checks.positive_int("heads", heads)
        if dim % heads:
            raise ValueError(f"heads must divide dim ({dim}); got {heads}")
        self.token = nn.Parameter(nn.init.trunc_normal_(torch.empty(dim), std=0.02))
        self.ln1, self.ln2, self.ln_kv, self.ln3 = (nn.LayerNorm(dim) for _ in range(4))
        self.self_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ffn = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """``tokens (M, N, D) -> a' (M, D)``."""
        a = self.token.expand(tokens.shape[0], 1, -1)
        h = self.ln1(a)
        a = a + self.self_attn(h, h, h, need_weights=False)[0]
        kv = self.ln_kv(tokens)
        a = a + self.cross_attn(self.ln2(a), kv, kv, need_weights=False)[0]
        a = a + self.ffn(self.ln3(a))
        return a[:, 0]


def frame_descriptors(tokens: torch.Tensor, at: AlignmentToken | None) -> torch.Tensor:
    """``v = mean_n E + a'`` (or ``v = mean_n E`` without the AT), ``(B, T, D)`` (§3.1)."""
    checks.tensor("tokens", tokens, ndim=4, dtype_kind="float")
    if at is not None and not isinstance(at, AlignmentToken):
        raise TypeError(f"at must be an AlignmentToken or None; got {type(at).__name__}")
    return _frame_descriptors(tokens, at)


def _frame_descriptors(tokens, at):
    v = tokens.mean(2)
    if at is not None:
        v = v + at(tokens.flatten(0, 1)).view_as(v)
    return v


# ----------------------------------------------------------------------------------------------- §3.2 alignment

class AlignmentRefiner(nn.Module):
    """``L = S + g(S)``, ``g`` = conv3x3(1->16), ReLU, conv1x1(16->1) with the last layer zero-initialised."""

    def __init__(self, hidden: int = 16):
        super().__init__()
        checks.positive_int("hidden", hidden)
        self.conv1 = nn.Conv2d(1, hidden, 3, padding=1)
        self.conv2 = nn.Conv2d(hidden, 1, 1)
        nn.init.zeros_(self.conv2.weight)
        nn.init.zeros_(self.conv2.bias)

    def forward(self, S: torch.Tensor) -> torch.Tensor:
        return S + self.conv2(F.relu(self.conv1(S[:, None])))[:, 0]


def frame_similarity(vq: torch.Tensor, vr: torch.Tensor) -> torch.Tensor:
    """Cosine similarity grid ``S[b, t, s] = cos(v_q^t, v_r^s)`` (§3.2) of descriptors ``(B, T_q, D)``, ``(B, T_r,
    D)``."""
    checks.tensor("vq", vq, ndim=3, dtype_kind="float")
    checks.tensor("vr", vr, ndim=3, dtype_kind="float")
    if vq.shape[0] != vr.shape[0] or vq.shape[-1] != vr.shape[-1]:
        raise ValueError(f"vq and vr must share batch and descriptor sizes; got {tuple(vq.shape)} and "
                         f"{tuple(vr.shape)}")
    return _frame_similarity(vq, vr)


def _frame_similarity(vq, vr):
    return torch.einsum("btd,bsd->bts", F.normalize(vq, dim=-1), F.normalize(vr, dim=-1))


def _check_msp(delta, l_max) -> None:
    checks.nonnegative_int("delta", delta)
    checks.positive_int("l_max", l_max)


def segment_labels(top1: torch.Tensor, delta: int = 2, l_max: int = 5) -> torch.Tensor:
    """Matched segment proposals (§3.2) as labels: ``seg (..., T_q)`` numbers the segment of each query frame along
    the top-1 path ``s*(t)`` ``(..., T_q)``, counting from 0 in each row.

    A segment grows while ``|(s*(t) - s*(t-1)) - 1| <= delta`` and it has at most ``l_max`` frames: frame t opens
    a new segment where the step condition fails or where its position in the current run of good steps is a
    multiple of ``l_max``. (The released code drops segments shorter than 2 and then gives every uncovered frame a
    singleton; a dropped segment of one frame and its singleton are the same, so the labels cover both.) Tensor
    ops only (cumsum / cummax): no Python loop over frames, no device synchronisation.
    """
    checks.tensor("top1", top1, ndim=(1, 2), dtype_kind="int")
    _check_msp(delta, l_max)
    return _segment_labels(top1, delta, l_max)


def _segment_labels(top1, delta, l_max):
    t_q = top1.shape[-1]
    t = torch.arange(t_q, device=top1.device).expand_as(top1)
    step_ok = ((top1[..., 1:] - top1[..., :-1]) - 1).abs() <= delta
    run_start = torch.cat([torch.ones_like(top1[..., :1], dtype=torch.bool), ~step_ok], -1)
    pos = t - torch.where(run_start, t, torch.zeros_like(t)).cummax(-1).values
    return torch.cumsum((pos % l_max == 0).long(), -1) - 1


def matched_segments(top1: torch.Tensor, delta: int = 2, l_max: int = 5) -> list[tuple[int, int, int, int]]:
    """The matched segments of one top-1 path ``s*(t)`` (1-D) as ``(t0, t1, s0, s1)`` tuples (inclusive ends,
    ``s0 <= s1``), singletons included (§3.2); for display and inspection (:func:`segment_labels` is the op)."""
    checks.tensor("top1", top1, ndim=1, dtype_kind="int")
    seg = segment_labels(top1, delta, l_max).tolist()
    path = top1.tolist()
    out: dict[int, list[int]] = {}
    for t, (g, s) in enumerate(zip(seg, path)):
        t0, t1, s0, s1 = out.get(g, [t, t, s, s])
        out[g] = [min(t0, t), max(t1, t), min(s0, s), max(s1, s)]
    return [tuple(v) for v in out.values()]


def candidate_sets(P: torch.Tensor, s_max: int, top_k: int = 4, delta: int = 2, l_max: int = 5,
                   use_msp: bool = True) -> torch.Tensor:
    """Reference candidates ``S_t`` ``(B, T_q, s_max)`` (§3.3): the MSP-consistent anchor first (the reference in the
    span ``[s0, s1]`` of frame t's matched segment with the highest ``P_frame[t]``), then the top-k of ``P_frame[t]``
    with ``k = max(top_k, s_max)`` (as in the released code, ``top_k`` is silent when smaller than ``s_max``),
    skipping the anchor. Non-differentiable; batched tensor ops on ``P``'s device, no Python loop."""
    checks.tensor("P", P, ndim=3, dtype_kind="float")
    t_r = P.shape[-1]
    checks.int_between("s_max (top-K candidates)", s_max, 1, t_r, what="the reference length")
    checks.positive_int("top_k", top_k)
    _check_msp(delta, l_max)
    return _candidate_sets(P, s_max, top_k, delta, l_max, use_msp)


def _candidate_sets(P, s_max, top_k, delta, l_max, use_msp):
    t_r = P.shape[-1]
    P = P.detach()
    k = min(max(top_k, s_max), t_r)
    order = P.topk(k, dim=-1).indices                                    # (B, T_q, k)
    if not use_msp:
        return order[..., :s_max]
    top1 = P.argmax(-1)
    seg = _segment_labels(top1, delta, l_max)
    n_seg = P.shape[1]
    big = torch.full((P.shape[0], n_seg), t_r, device=P.device, dtype=torch.long)
    s0 = big.scatter_reduce(1, seg, top1, "amin", include_self=True).gather(1, seg)
    s1 = torch.zeros_like(big).scatter_reduce(1, seg, top1, "amax", include_self=True).gather(1, seg)
    s = torch.arange(t_r, device=P.device)
    in_span = (s >= s0[..., None]) & (s <= s1[..., None])
    anchor = P.masked_fill(~in_span, -math.inf).argmax(-1, keepdim=True)  # (B, T_q, 1)
    rest = order.gather(-1, torch.argsort((order == anchor).to(torch.uint8), dim=-1, stable=True))
    return torch.cat([anchor, rest[..., :s_max - 1]], -1)


# ----------------------------------------------------------------------------------------------- §3.4 correspondence

def local_correlation(q: torch.Tensor, r: torch.Tensor, k: int = 5) -> torch.Tensor:
    """``c_o(p) = <Q(p), R(p + o)>`` for offsets ``o`` in a ``k x k`` window (zero padding), ``(M, k*k, h, w)``.

    Offsets are ordered row-major: index ``i * k + j`` is ``(dy, dx) = (i - r, j - r)``, ``r = k // 2``.
    """
    checks.tensor("q", q, ndim=4, dtype_kind="float")
    checks.tensor("r", r, shape=tuple(q.shape), dtype_kind="float")
    _check_window(k)
    return _local_correlation(q, r, k)


def _local_correlation(q, r, k):
    h, w = q.shape[-2:]
    rp = F.pad(r, (k // 2,) * 4)
    # one channel-reduction per window offset (k^2 of them), cheaper than materialising the unfolded window
    return torch.stack([(q * rp[..., i:i + h, j:j + w]).sum(1) for i in range(k) for j in range(k)], 1)


def _check_window(k) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k % 2 == 0:
        raise ValueError(f"k must be a positive odd int, got {k!r}")


def window_offsets(k: int, device=None, dtype=torch.float32) -> torch.Tensor:
    """The ``(k*k, 2)`` offsets ``(dx, dy)`` of :func:`local_correlation`'s window, in tokens."""
    _check_window(k)
    if device is not None:
        device = checks.device("device", device)
    return _window_offsets(k, device, dtype)


def _window_offsets(k, device, dtype):
    r = k // 2
    dy, dx = torch.meshgrid(torch.arange(-r, r + 1, device=device), torch.arange(-r, r + 1, device=device),
                            indexing="ij")
    return torch.stack([dx.flatten(), dy.flatten()], -1).to(dtype)


def soft_correspondence(q: torch.Tensor, r: torch.Tensor, k: int = 5, temperature: float | torch.Tensor = 1.0,
                        values: torch.Tensor | None = None):
    """Local soft-argmax correspondence (§3.4): ``P_patch = softmax_o(c_o / T_p)``, ``d = sum_o P o`` and the
    reference map warped to the query grid, ``R~(p) = R(p + d(p))`` (bilinear, border, align_corners).

    ``values`` (default ``r``) is the map that gets warped, e.g. the raw tokens when the correlation uses
    L2-normalised ones. Returns ``(warped (M, D', h, w), P_patch (M, k*k, h, w), flow (M, 2, h, w))``;
    flow channel 0 = x.
    """
    checks.tensor("q", q, ndim=4, dtype_kind="float")
    checks.tensor("r", r, shape=tuple(q.shape), dtype_kind="float")
    _check_window(k)
    if isinstance(temperature, torch.Tensor):
        checks.tensor("temperature", temperature.detach(), ndim=0)
        if float(temperature.detach()) <= 0:
            raise ValueError(f"temperature must be > 0; got {float(temperature.detach())!r}")
    else:
        checks.positive_number("temperature", temperature)
    if values is not None:
        checks.tensor("values", values, ndim=4, dtype_kind="float")
        if values.shape[0] != r.shape[0] or values.shape[-2:] != r.shape[-2:]:
            raise ValueError(f"values must be a (M, D', h, w) map with M, h, w of r {tuple(r.shape)}; "
                             f"got {tuple(values.shape)}")
    return _soft_correspondence(q, r, k, temperature, values)


def _soft_correspondence(q, r, k, temperature, values):
    P = torch.softmax(_local_correlation(q, r, k) / temperature, dim=1)
    off = _window_offsets(k, q.device, q.dtype)
    flow = torch.einsum("mohw,oc->mchw", P, off)
    return warp(r if values is None else values, flow, padding="border"), P, flow


def patch_confidence(P: torch.Tensor, c_peak: float = 1.0, c_ent: float = 1.0) -> torch.Tensor:
    """``C_sp = c_p max_o P + c (1 - H(P) / log k^2)`` (§3.6), probabilities clamped at 1e-9 in the entropy;
    ``P (M, k*k, h, w)`` is a distribution over the window offsets (dim 1)."""
    checks.tensor("P", P, ndim=4, dtype_kind="float")
    if bool((P < 0).any()):
        raise ValueError("P must be non-negative (probabilities over the window offsets)")
    checks.finite_number("c_peak", c_peak)
    checks.finite_number("c_ent", c_ent)
    return _patch_confidence(P, c_peak, c_ent)


def _patch_confidence(P, c_peak=1.0, c_ent=1.0):
    kk = P.shape[1]
    ent = -(P * P.clamp_min(1e-9).log()).sum(1)
    norm = 1.0 - ent / math.log(kk) if kk > 1 else torch.ones_like(ent)
    return c_peak * P.amax(1) + c_ent * norm


# ----------------------------------------------------------------------------------------------- §3.5-3.7 heads

def _stack_1x1(cin: int, cout: int, layers: int) -> nn.Sequential:
    mods: list[nn.Module] = []
    for i in range(layers):
        mods.append(nn.Conv2d(cin if i == 0 else cout, cout, 1))
        if i < layers - 1:
            mods.append(nn.ReLU())
    return nn.Sequential(*mods)


def _norm(channels: int, on: bool) -> nn.Module:
    """GroupNorm (4 groups) when ``on``, else identity: an optional training aid for the from-scratch mini model
    (*inferred*, not in the paper's head/decoder, which sit on frozen SAM features)."""
    return nn.GroupNorm(4, channels) if on else nn.Identity()


class ChangeHead(nn.Module):
    """Per-candidate change feature (§3.5): ``[F_q, F_r, cos(F_q, F_r), F_r - F_q] -> conv3x3, ReLU, conv3x3, ReLU``."""

    def __init__(self, dim: int, reduce: int = 32, fuse: int = 32, layers: int = 5, norm: bool = False):
        super().__init__()
        for name, v in (("dim", dim), ("reduce", reduce), ("fuse", fuse), ("layers", layers)):
            checks.positive_int(name, v)
        if norm and fuse % 4:
            raise ValueError(f"fuse must be a multiple of 4 with norm=True (GroupNorm); got {fuse}")
        self.proj_q = _stack_1x1(dim, reduce, layers)
        self.proj_r = _stack_1x1(dim, reduce, layers)
        self.fuse = nn.Sequential(nn.Conv2d(3 * reduce + 1, fuse, 3, padding=1), _norm(fuse, norm), nn.ReLU(),
                                  nn.Conv2d(fuse, fuse, 3, padding=1), _norm(fuse, norm), nn.ReLU())

    def forward(self, q: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        fq, fr = self.proj_q(q), self.proj_r(r)
        cos = F.cosine_similarity(fq, fr, dim=1, eps=1e-6)[:, None]
        return self.fuse(torch.cat([fq, fr, cos, fr - fq], 1))


class Decoder(nn.Module):
    """Query-guided decoder (§3.7, scaled): two x2 up-sampling stages from the token grid, RGB projections
    injected at the two finest scales, then a 1x1 conv to one logit map."""

    def __init__(self, fuse: int = 32, width: int = 16, rgb: int = 8, norm: bool = False):
        super().__init__()
        for name, v in (("fuse", fuse), ("width", width), ("rgb", rgb)):
            checks.positive_int(name, v)
        if norm and width % 4:
            raise ValueError(f"width must be a multiple of 4 with norm=True (GroupNorm); got {width}")
        self.up1 = nn.Sequential(nn.Conv2d(fuse, 2 * width, 3, padding=1), _norm(2 * width, norm), nn.ReLU())
        self.rgb1 = nn.Sequential(nn.Conv2d(3, rgb, 3, padding=1), nn.ReLU())
        self.mix1 = nn.Sequential(nn.Conv2d(2 * width + rgb, 2 * width, 3, padding=1), _norm(2 * width, norm),
                                  nn.ReLU())
        self.up2 = nn.Sequential(nn.Conv2d(2 * width, width, 3, padding=1), _norm(width, norm), nn.ReLU())
        self.rgb2 = nn.Sequential(nn.Conv2d(3, rgb, 3, padding=1), nn.ReLU())
        self.mix2 = nn.Sequential(nn.Conv2d(width + rgb, width, 3, padding=1), _norm(width, norm), nn.ReLU(),
                                  nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.out = nn.Conv2d(width, 1, 1)

    def forward(self, feat: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
        h, w = image.shape[-2:]
        x = self.up1(F.interpolate(feat, size=(h // 2, w // 2), mode="bilinear", align_corners=False))
        x = self.mix1(torch.cat([x, self.rgb1(F.interpolate(image, size=(h // 2, w // 2), mode="bilinear",
                                                            align_corners=False))], 1))
        x = self.up2(F.interpolate(x, size=(h, w), mode="bilinear", align_corners=False))
        x = self.mix2(torch.cat([x, self.rgb2(image)], 1))
        return self.out(x)[:, 0]


# ----------------------------------------------------------------------------------------------- the model

CANDIDATE_MODES = ("learned", "same_index", "reversed_index", "given")


class VSCDNet(nn.Module):
    """VSCDNet-mini. ``forward(query, reference, candidates=None, tokens=None) -> dict`` with ``logits (B, T_q, H,
    W)`` and the intermediate quantities (``P_frame``, ``candidates``, ``weights``, ``C_sp``, ``flow``).

    ``candidate_mode``: ``"learned"`` (the method), ``"same_index"`` (the siamese image-CD baseline: reference
    frame t for query frame t, no warping, no weighting), ``"reversed_index"`` (the video AOD baseline for a
    reversed trajectory: reference frame T-1-t, no warping) or ``"given"`` (candidates passed in, e.g. the oracle
    of maximum true overlap). Ablations: ``s_max=1`` (top-1 only), ``use_cf``/``use_csp`` (plain mean when both
    are off), ``use_at``, ``k=1`` (no warping). ``encoder`` (default: a fresh :class:`FrameEncoder`) is the
    backbone; ``tokens=(tok_q, tok_r)`` passes its outputs precomputed (a frozen encoder is run once per video).
    """

    def __init__(self, dim: int = 64, width: int = 32, heads: int = 4, s_max: int = 3, top_k: int = 4, k: int = 5,
                 tau_f: float = 0.5, delta: int = 2, l_max: int = 5, use_at: bool = True, use_cf: bool = True,
                 use_csp: bool = True, use_msp: bool = True, normalize_tokens: bool = True,
                 corr_temperature: float = 0.1, learn_temperature: bool = True, reduce: int = 32, fuse: int = 32,
                 head_layers: int = 5, dec_width: int = 16, candidate_mode: str = "learned",
                 encoder: nn.Module | None = None, head_normalized: bool = False, norm: bool = False):
        super().__init__()
        checks.one_of("candidate_mode", candidate_mode, CANDIDATE_MODES)
        _check_window(k)
        for name, v in (("dim", dim), ("width", width), ("heads", heads), ("s_max", s_max), ("top_k", top_k),
                        ("reduce", reduce), ("fuse", fuse), ("head_layers", head_layers), ("dec_width", dec_width)):
            checks.positive_int(name, v)
        checks.positive_number("tau_f", tau_f)
        checks.positive_number("corr_temperature", corr_temperature)
        _check_msp(delta, l_max)
        if norm and any(c % 4 for c in (fuse, dec_width)):
            raise ValueError(f"fuse and dec_width must be multiples of 4 with norm=True; got {fuse}, {dec_width}")
        self.cfg = dict(s_max=s_max, top_k=top_k, k=k, tau_f=tau_f, delta=delta, l_max=l_max, use_cf=use_cf,
                        use_csp=use_csp, use_msp=use_msp, normalize_tokens=normalize_tokens,
                        head_normalized=head_normalized)
        self.candidate_mode = candidate_mode
        self.encoder = encoder if encoder is not None else FrameEncoder(dim, width)
        dim = getattr(self.encoder, "dim", dim)
        self.at = AlignmentToken(dim, heads) if use_at and candidate_mode == "learned" else None
        self.refine = AlignmentRefiner()
        log_t = torch.tensor(math.log(corr_temperature))
        self.log_temp = nn.Parameter(log_t) if learn_temperature else None
        self.register_buffer("log_temp_fixed", log_t)
        self.head = ChangeHead(dim, reduce, fuse, head_layers, norm)
        self.decoder = Decoder(fuse, dec_width, norm=norm)

    @property
    def temperature(self) -> torch.Tensor:
        return (self.log_temp if self.log_temp is not None else self.log_temp_fixed).exp()

    def trainable_parameters(self) -> list[nn.Parameter]:
        """The parameters that get gradients (a frozen encoder's are left out)."""
        return [p for p in self.parameters() if p.requires_grad]

    def frame_matching(self, tq: torch.Tensor, tr: torch.Tensor):
        """``P_frame (B, T_q, T_r)`` from the tokens (§3.1-3.2)."""
        S = _frame_similarity(_frame_descriptors(tq, self.at), _frame_descriptors(tr, self.at))
        return torch.softmax(self.refine(S) / self.cfg["tau_f"], dim=-1)

    def _candidates(self, b, tq, tr, P, candidates, device):
        if self.candidate_mode == "learned":
            c = self.cfg
            return _candidate_sets(P, c["s_max"], c["top_k"], c["delta"], c["l_max"], c["use_msp"])
        if self.candidate_mode in ("same_index", "reversed_index"):
            if tq != tr:
                raise ValueError(f"index pairing needs equal lengths, got query {tq} and reference {tr}")
            idx = torch.arange(tq, device=device)
            idx = idx if self.candidate_mode == "same_index" else tq - 1 - idx
            return idx.view(1, tq, 1).expand(b, tq, 1)
        if candidates is None:
            raise ValueError("candidates must be a (B, T_q, S) index tensor in 'given' mode, got None")
        checks.tensor("candidates", candidates, ndim=3, dtype_kind="int")
        if candidates.shape[:2] != (b, tq):
            raise ValueError(f"candidates must be a (B, T_q, S) = ({b}, {tq}, S) index tensor in 'given' mode, got "
                             f"{tuple(candidates.shape)}")
        if int(candidates.min()) < 0 or int(candidates.max()) >= tr:
            raise ValueError(f"candidates must index the reference frames 0..{tr - 1}")
        return candidates.to(device)

    def forward(self, query: torch.Tensor, reference: torch.Tensor, candidates: torch.Tensor | None = None,
                tokens: tuple[torch.Tensor, torch.Tensor] | None = None, validate: bool = True) -> dict:
        """``validate=False`` skips the input checks (a training loop over data checked once)."""
        if validate:
            check_videos(query, reference)
        b, tq = query.shape[:2]
        tr = reference.shape[1]
        c = self.cfg
        if self.candidate_mode == "learned" and c["s_max"] > tr:
            raise ValueError(f"s_max (top-K candidates) = {c['s_max']} exceeds the reference length {tr}")
        if tokens is None:
            tok_q, (h, w) = self.encoder(query)
            tok_r, _ = self.encoder(reference)
        else:
            tok_q, tok_r = tokens
            h, w = _token_grid(tok_q, tok_r, query, reference, validate)
        P = self.frame_matching(tok_q, tok_r) if self.candidate_mode == "learned" else None
        cand = self._candidates(b, tq, tr, P, candidates, query.device)
        n_c = cand.shape[-1]
        d = tok_q.shape[-1]
        q_map = tok_q.transpose(2, 3).reshape(b, tq, d, h, w)
        r_map = tok_r.transpose(2, 3).reshape(b, tr, d, h, w)
        # correlation on L2-normalised tokens (inferred, see the docs page), normalised once per frame; the change
        # head sees the raw tokens as in §3.5 unless ``head_normalized`` (then both use the normalised ones)
        nq, nr = (F.normalize(q_map, dim=2), F.normalize(r_map, dim=2)) if c["normalize_tokens"] else (q_map, r_map)
        hq_map, hr_map = (nq, nr) if c["head_normalized"] else (q_map, r_map)
        bidx = torch.arange(b, device=query.device).view(b, 1, 1)
        flat = (-1, d, h, w)                                          # batched over (query frame, candidate)
        hq = hq_map[:, :, None].expand(b, tq, n_c, d, h, w).reshape(flat)
        hr = hr_map[bidx, cand].reshape(flat)
        if self.candidate_mode in ("same_index", "reversed_index") or c["k"] == 1:
            warped, Pp = hr, torch.ones(hr.shape[0], 1, h, w, device=query.device, dtype=hr.dtype)
            flow = torch.zeros(hr.shape[0], 2, h, w, device=query.device, dtype=hr.dtype)
        else:
            cq = nq[:, :, None].expand(b, tq, n_c, d, h, w).reshape(flat)
            warped, Pp, flow = _soft_correspondence(cq, nr[bidx, cand].reshape(flat), c["k"], self.temperature, hr)
        feats = self.head(hq, warped).view(b, tq, n_c, -1, h, w)
        csp = _patch_confidence(Pp).view(b, tq, n_c, h, w)
        wt = torch.ones_like(csp)
        if c["use_csp"] and self.candidate_mode == "learned":
            wt = wt * csp
        if c["use_cf"] and P is not None:
            wt = wt * torch.gather(P, 2, cand)[..., None, None]
        fused = (wt[:, :, :, None] * feats).sum(2) / (wt.sum(2)[:, :, None] + EPS)
        logits = self.decoder(fused.flatten(0, 1), query.flatten(0, 1)).view(b, tq, *query.shape[-2:])
        return {"logits": logits, "P_frame": P, "candidates": cand, "weights": wt, "C_sp": csp,
                "flow": flow.view(b, tq, n_c, 2, h, w), "grid": (h, w)}


def _token_grid(tok_q, tok_r, query, reference, validate: bool = True) -> tuple[int, int]:
    """Check precomputed tokens ``(B, T, N, D)`` against the videos; the token grid ``(h, w)`` (stride from H/h)."""
    if validate:
        checks.tensor("tokens[0]", tok_q, ndim=4, dtype_kind="float")
        checks.tensor("tokens[1]", tok_r, ndim=4, dtype_kind="float")
    if tok_q.shape[:2] != query.shape[:2] or tok_r.shape[:2] != reference.shape[:2] \
            or tok_q.shape[2:] != tok_r.shape[2:]:
        raise ValueError(f"tokens must be (B, T, N, D) for the query {tuple(query.shape[:2])} and the reference "
                         f"{tuple(reference.shape[:2])}; got {tuple(tok_q.shape)} and {tuple(tok_r.shape)}")
    H, W = query.shape[-2:]
    n = tok_q.shape[2]
    stride = round(math.sqrt(H * W / n))
    h, w = H // max(stride, 1), W // max(stride, 1)
    if h * w != n:
        raise ValueError(f"tokens hold {n} tokens per frame, which is no grid of the {H}x{W} frames")
    return h, w


# ----------------------------------------------------------------------------------------------- §3.8-3.9

def bce_dice_loss(logits: torch.Tensor, target: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """``BCE-with-logits + soft Dice`` (§3.8); Dice per frame, ``(2 I + eps) / (sum P + sum G + eps)``."""
    checks.tensor("logits", logits, ndim=(2, 3, 4), dtype_kind="float")
    checks.tensor("target", target, shape=tuple(logits.shape))
    checks.positive_number("eps", eps)
    return _bce_dice_loss(logits, target, eps)


def _bce_dice_loss(logits: torch.Tensor, target: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """:func:`bce_dice_loss` on checked inputs (the training step)."""
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits).flatten(-2)
    g = target.flatten(-2)
    dice = (2 * (p * g).sum(-1) + eps) / (p.sum(-1) + g.sum(-1) + eps)
    return bce + (1 - dice).mean()


def frame_scores(pred: torch.Tensor, target: torch.Tensor, eps: float = EPS) -> dict[str, torch.Tensor]:
    """Per-frame F1 ``(2TP + eps) / (2TP + FP + FN + eps)`` and IoU ``(TP + eps) / (|P u G| + eps)`` (§3.9);
    ``pred``/``target`` are binary ``(..., H, W)``. An empty prediction on an empty GT scores 1."""
    checks.tensor("pred", pred, ndim=(2, 3, 4, 5))
    checks.tensor("target", target, shape=tuple(pred.shape))
    checks.positive_number("eps", eps)
    p, g = pred.bool().flatten(-2), target.bool().flatten(-2)
    tp = (p & g).sum(-1).double()
    fp = (p & ~g).sum(-1).double()
    fn = (~p & g).sum(-1).double()
    return {"f1": (2 * tp + eps) / (2 * tp + fp + fn + eps), "iou": (tp + eps) / (tp + fp + fn + eps)}
