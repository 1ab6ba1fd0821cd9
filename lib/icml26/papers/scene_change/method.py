"""VSCDNet-mini: query-centric video scene change detection (note §3; arXiv 2605.20821, code model/*.py).

Per query keyframe t: (i) soft frame matching to every reference keyframe with global descriptors (§3.1-3.2),
(ii) a candidate set S_t from matched segment proposals and the top-k of P_frame (§3.3), (iii) local 5x5
soft-argmax correspondence and warping of each candidate's tokens to the query grid (§3.4), (iv) one change
feature per candidate (§3.5), (v) confidence-weighted fusion with C_f * C_sp (§3.6), (vi) one decoding per
query frame with RGB guidance (§3.7). Loss: BCE + soft Dice (§3.8); metrics: per-frame F1/IoU (§3.9).

Deviations (all configurable): a small CNN encoder trained from scratch instead of frozen SAM ViT-B (§7), and
L2-normalised tokens with a learnable correlation temperature instead of a raw dot product at T_p = 1
(*inferred*, §10: on 64-d features the raw local softmax is flat; the change head still sees the raw tokens unless
``head_normalized``), and optional GroupNorm in the change head and decoder (``norm``, *inferred*: without it the
from-scratch networks did not fire above 0.5 within a CPU budget).
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from icml26.render.warp import warp

EPS = 1e-6


# ----------------------------------------------------------------------------------------------- input checks

def check_videos(query: torch.Tensor, reference: torch.Tensor) -> None:
    """Raise ``ValueError`` unless ``query`` and ``reference`` are ``(B, T, 3, H, W)`` videos of one resolution."""
    for name, v in (("query", query), ("reference", reference)):
        if not isinstance(v, torch.Tensor) or v.dim() != 5 or v.shape[2] != 3:
            raise ValueError(f"{name} must be a (B, T, 3, H, W) video tensor, got {getattr(v, 'shape', v)!r}")
        if v.shape[1] == 0 or v.shape[0] == 0:
            raise ValueError(f"{name} must hold at least one frame, got shape {tuple(v.shape)}")
        if not torch.isfinite(v).all():
            raise ValueError(f"{name} must be finite")
    if query.shape[-2:] != reference.shape[-2:]:
        raise ValueError(f"reference resolution {tuple(reference.shape[-2:])} must equal the query resolution "
                         f"{tuple(query.shape[-2:])}")
    if query.shape[0] != reference.shape[0]:
        raise ValueError(f"query and reference batch sizes differ: {query.shape[0]} vs {reference.shape[0]}")


def keyframe_indices(length: int, t_key: int) -> torch.Tensor:
    """``round(linspace(0, L - 1, T_key))`` (§3.0); short videos repeat indices."""
    if not isinstance(length, int) or length < 1:
        raise ValueError(f"length must be a positive int (a non-empty video), got {length!r}")
    if not isinstance(t_key, int) or t_key < 1:
        raise ValueError(f"t_key must be a positive int, got {t_key!r}")
    return torch.linspace(0, length - 1, t_key).round().long()


# ----------------------------------------------------------------------------------------------- encoder

class FrameEncoder(nn.Module):
    """Pluggable backbone: ``frames (B, T, 3, H, W) -> tokens (B, T, N, D), (h, w)``.

    Here a small CNN (4 conv stages, stride 4, trained from scratch; §7). A user can swap in frozen SAM ViT-B
    at 1024^2 (tokens before the neck, 64x64x768) with the same interface.
    """

    def __init__(self, dim: int = 64, width: int = 32):
        super().__init__()
        self.dim = dim
        self.net = nn.Sequential(
            nn.Conv2d(3, width, 3, 2, 1), nn.GroupNorm(4, width), nn.ReLU(),
            nn.Conv2d(width, width, 3, 1, 1), nn.GroupNorm(4, width), nn.ReLU(),
            nn.Conv2d(width, dim, 3, 2, 1), nn.GroupNorm(4, dim), nn.ReLU(), nn.Conv2d(dim, dim, 3, 1, 1))
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, frames: torch.Tensor):
        b, t = frames.shape[:2]
        x = self.net((frames.flatten(0, 1) - self.mean) / self.std)
        h, w = x.shape[-2:]
        return x.flatten(2).transpose(1, 2).reshape(b, t, h * w, self.dim), (h, w)


# ----------------------------------------------------------------------------------------------- §3.1 descriptors

class AlignmentToken(nn.Module):
    """Learnable Alignment Token with one query-only block (§3.1): pre-LN self-attention on the single token,
    pre-LN cross-attention to the LayerNorm-ed patch tokens, pre-LN FFN (4x, GELU), each with a residual.

    (The shared :class:`icml26.nn.attention.MultiHeadAttention` is self-attention only; the cross-attention
    here uses ``torch.nn.MultiheadAttention``.)
    """

    def __init__(self, dim: int, heads: int = 4):
        super().__init__()
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
    v = tokens.mean(2)
    if at is not None:
        v = v + at(tokens.flatten(0, 1)).view_as(v)
    return v


# ----------------------------------------------------------------------------------------------- §3.2 alignment

class AlignmentRefiner(nn.Module):
    """``L = S + g(S)``, ``g`` = conv3x3(1->16), ReLU, conv1x1(16->1) with the last layer zero-initialised."""

    def __init__(self, hidden: int = 16):
        super().__init__()
        self.conv1 = nn.Conv2d(1, hidden, 3, padding=1)
        self.conv2 = nn.Conv2d(hidden, 1, 1)
        nn.init.zeros_(self.conv2.weight)
        nn.init.zeros_(self.conv2.bias)

    def forward(self, S: torch.Tensor) -> torch.Tensor:
        return S + self.conv2(F.relu(self.conv1(S[:, None])))[:, 0]


def frame_similarity(vq: torch.Tensor, vr: torch.Tensor) -> torch.Tensor:
    """Cosine similarity grid ``S[b, t, s] = cos(v_q^t, v_r^s)`` (§3.2)."""
    return torch.einsum("btd,bsd->bts", F.normalize(vq, dim=-1), F.normalize(vr, dim=-1))


def matched_segments(top1: torch.Tensor, delta: int = 2, l_max: int = 5) -> list[tuple[int, int, int, int]]:
    """Matched segment proposals (§3.2) from the top-1 path ``s*(t)`` (1-D long tensor).

    A segment grows while ``|(s*(t) - s*(t-1)) - 1| <= delta`` and it has at most ``l_max`` frames; segments
    shorter than 2 are dropped, then every uncovered query frame gets a singleton. Returns ``(t0, t1, s0, s1)``
    (inclusive ends, ``s0 <= s1``).
    """
    path = [int(x) for x in top1.tolist()]
    if not path:
        raise ValueError("top1 must hold at least one query frame")
    segs, start = [], 0
    for t in range(1, len(path) + 1):
        extend = t < len(path) and abs((path[t] - path[t - 1]) - 1) <= delta and (t - start) < l_max
        if not extend:
            if t - start >= 2:
                seg = path[start:t]
                segs.append((start, t - 1, min(seg), max(seg)))
            start = t
    covered = {t for (t0, t1, _, _) in segs for t in range(t0, t1 + 1)}
    segs += [(t, t, path[t], path[t]) for t in range(len(path)) if t not in covered]
    return sorted(segs)


def candidate_sets(P: torch.Tensor, s_max: int, top_k: int = 4, delta: int = 2, l_max: int = 5,
                   use_msp: bool = True) -> torch.Tensor:
    """Reference candidates ``S_t`` ``(B, T_q, s_max)`` (§3.3): the MSP-consistent anchor first, then the top-k of
    ``P_frame[t]`` with ``k = max(top_k, s_max)`` (as in the released code, ``top_k`` is silent when smaller
    than ``s_max``), skipping duplicates. Non-differentiable; loops over the (short) query axis only."""
    if P.dim() != 3:
        raise ValueError(f"P must be (B, T_q, T_r), got {tuple(P.shape)}")
    t_r = P.shape[-1]
    if not isinstance(s_max, int) or s_max < 1 or s_max > t_r:
        raise ValueError(f"s_max (top-K candidates) must be an int in [1, {t_r}] (the reference length), got {s_max!r}")
    if not isinstance(top_k, int) or top_k < 1:
        raise ValueError(f"top_k must be a positive int, got {top_k!r}")
    k = min(max(top_k, s_max), t_r)
    order = P.topk(k, dim=-1).indices.cpu()
    Pc = P.detach().cpu()
    out = torch.empty(P.shape[0], P.shape[1], s_max, dtype=torch.long)
    for b in range(P.shape[0]):
        segs = matched_segments(Pc[b].argmax(-1), delta, l_max) if use_msp else []
        for t in range(P.shape[1]):
            chosen = []
            if use_msp:
                pool = {s for (t0, t1, s0, s1) in segs if t0 <= t <= t1 for s in range(s0, s1 + 1)}
                if pool:
                    chosen.append(max(pool, key=lambda s: float(Pc[b, t, s])))
            for s in order[b, t].tolist():
                if len(chosen) == s_max:
                    break
                if s not in chosen:
                    chosen.append(s)
            out[b, t] = torch.tensor(chosen[:s_max])
    return out.to(P.device)


# ----------------------------------------------------------------------------------------------- §3.4 correspondence

def local_correlation(q: torch.Tensor, r: torch.Tensor, k: int = 5) -> torch.Tensor:
    """``c_o(p) = <Q(p), R(p + o)>`` for offsets ``o`` in a ``k x k`` window (zero padding), ``(M, k*k, h, w)``.

    Offsets are ordered row-major: index ``i * k + j`` is ``(dy, dx) = (i - r, j - r)``, ``r = k // 2``.
    """
    if q.shape != r.shape or q.dim() != 4:
        raise ValueError(f"q and r must be equal (M, D, h, w) maps, got {tuple(q.shape)} and {tuple(r.shape)}")
    if not isinstance(k, int) or k < 1 or k % 2 == 0:
        raise ValueError(f"k must be a positive odd int, got {k!r}")
    h, w = q.shape[-2:]
    rp = F.pad(r, (k // 2,) * 4)
    # one channel-reduction per window offset (k^2 of them), cheaper than materialising the unfolded window
    return torch.stack([(q * rp[..., i:i + h, j:j + w]).sum(1) for i in range(k) for j in range(k)], 1)


def window_offsets(k: int, device=None, dtype=torch.float32) -> torch.Tensor:
    """The ``(k*k, 2)`` offsets ``(dx, dy)`` of :func:`local_correlation`'s window, in tokens."""
    r = k // 2
    dy, dx = torch.meshgrid(torch.arange(-r, r + 1), torch.arange(-r, r + 1), indexing="ij")
    return torch.stack([dx.flatten(), dy.flatten()], -1).to(device=device, dtype=dtype)


def soft_correspondence(q: torch.Tensor, r: torch.Tensor, k: int = 5, temperature: float | torch.Tensor = 1.0,
                        values: torch.Tensor | None = None):
    """Local soft-argmax correspondence (§3.4): ``P_patch = softmax_o(c_o / T_p)``, ``d = sum_o P o`` and the
    reference map warped to the query grid, ``R~(p) = R(p + d(p))`` (bilinear, border, align_corners).

    ``values`` (default ``r``) is the map that gets warped, e.g. the raw tokens when the correlation uses
    L2-normalised ones. Returns ``(warped (M, D', h, w), P_patch (M, k*k, h, w), flow (M, 2, h, w))``;
    flow channel 0 = x.
    """
    P = torch.softmax(local_correlation(q, r, k) / temperature, dim=1)
    off = window_offsets(k, q.device, q.dtype)
    flow = torch.einsum("mohw,oc->mchw", P, off)
    return warp(r if values is None else values, flow, padding="border"), P, flow


def patch_confidence(P: torch.Tensor, c_peak: float = 1.0, c_ent: float = 1.0) -> torch.Tensor:
    """``C_sp = c_p max_o P + c (1 - H(P) / log k^2)`` (§3.6), probabilities clamped at 1e-9 in the entropy."""
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

CANDIDATE_MODES = ("learned", "same_index", "given")


class VSCDNet(nn.Module):
    """VSCDNet-mini. ``forward(query, reference, candidates=None) -> dict`` with ``logits (B, T_q, H, W)`` and the
    intermediate quantities (``P_frame``, ``candidates``, ``weights``, ``C_sp``, ``flow``) for inspection.

    ``candidate_mode``: ``"learned"`` (the method), ``"same_index"`` (the siamese image-CD baseline: reference
    frame t for query frame t, no warping, no weighting) or ``"given"`` (candidates passed in, e.g. the
    oracle of maximum true overlap). Ablations: ``s_max=1`` (top-1 only), ``use_cf``/``use_csp`` (plain mean
    when both are off), ``use_at``, ``k=1`` (no warping).
    """

    def __init__(self, dim: int = 64, width: int = 32, heads: int = 4, s_max: int = 3, top_k: int = 4, k: int = 5,
                 tau_f: float = 0.5, delta: int = 2, l_max: int = 5, use_at: bool = True, use_cf: bool = True,
                 use_csp: bool = True, use_msp: bool = True, normalize_tokens: bool = True,
                 corr_temperature: float = 0.1, learn_temperature: bool = True, reduce: int = 32, fuse: int = 32,
                 head_layers: int = 5, dec_width: int = 16, candidate_mode: str = "learned",
                 encoder: nn.Module | None = None, head_normalized: bool = False, norm: bool = False):
        super().__init__()
        if candidate_mode not in CANDIDATE_MODES:
            raise ValueError(f"candidate_mode must be one of {CANDIDATE_MODES}, got {candidate_mode!r}")
        if not isinstance(k, int) or k < 1 or k % 2 == 0:
            raise ValueError(f"k must be a positive odd int, got {k!r}")
        if tau_f <= 0:
            raise ValueError(f"tau_f must be > 0, got {tau_f}")
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

    def frame_matching(self, tq: torch.Tensor, tr: torch.Tensor):
        """``P_frame (B, T_q, T_r)`` from the tokens (§3.1-3.2)."""
        S = frame_similarity(frame_descriptors(tq, self.at), frame_descriptors(tr, self.at))
        return torch.softmax(self.refine(S) / self.cfg["tau_f"], dim=-1)

    def forward(self, query: torch.Tensor, reference: torch.Tensor, candidates: torch.Tensor | None = None) -> dict:
        check_videos(query, reference)
        b, tq = query.shape[:2]
        tr = reference.shape[1]
        c = self.cfg
        tok_q, (h, w) = self.encoder(query)
        tok_r, _ = self.encoder(reference)
        if self.candidate_mode == "learned":
            if c["s_max"] > tr:
                raise ValueError(f"s_max (top-K candidates) = {c['s_max']} exceeds the reference length {tr}")
            P = self.frame_matching(tok_q, tok_r)
            cand = candidate_sets(P, c["s_max"], c["top_k"], c["delta"], c["l_max"], c["use_msp"])
        elif self.candidate_mode == "same_index":
            if tq != tr:
                raise ValueError(f"same_index pairing needs equal lengths, got query {tq} and reference {tr}")
            P = None
            cand = torch.arange(tq, device=query.device).view(1, tq, 1).expand(b, tq, 1)
        else:
            if candidates is None or candidates.dim() != 3 or candidates.shape[:2] != (b, tq):
                raise ValueError(f"candidates must be a (B, T_q, S) index tensor in 'given' mode, got "
                                 f"{getattr(candidates, 'shape', None)}")
            if int(candidates.min()) < 0 or int(candidates.max()) >= tr:
                raise ValueError(f"candidates must index the reference frames 0..{tr - 1}")
            P, cand = None, candidates.to(query.device)
        n_c = cand.shape[-1]
        d = tok_q.shape[-1]
        q_map = tok_q.transpose(2, 3).reshape(b, tq, d, h, w)
        r_map = tok_r.transpose(2, 3).reshape(b, tr, d, h, w)
        bidx = torch.arange(b, device=query.device).view(b, 1, 1)
        r_sel = r_map[bidx, cand]                                     # (B, T_q, S, D, h, w): batched over candidates
        q_rep = q_map[:, :, None].expand_as(r_sel)
        flat_q, flat_r = q_rep.reshape(-1, d, h, w), r_sel.reshape(-1, d, h, w)
        # correlation on L2-normalised tokens (inferred, §10); the change head sees the raw tokens as in §3.5
        # unless ``head_normalized`` (then both use the normalised ones)
        cq, cr = (F.normalize(flat_q, dim=1), F.normalize(flat_r, dim=1)) if c["normalize_tokens"] else (flat_q, flat_r)
        hq, hr = (cq, cr) if c["head_normalized"] else (flat_q, flat_r)
        if self.candidate_mode == "same_index" or c["k"] == 1:
            warped, Pp = hr, torch.ones(flat_r.shape[0], 1, h, w, device=query.device, dtype=flat_r.dtype)
            flow = torch.zeros(flat_r.shape[0], 2, h, w, device=query.device, dtype=flat_r.dtype)
        else:
            warped, Pp, flow = soft_correspondence(cq, cr, c["k"], self.temperature, values=hr)
        feats = self.head(hq, warped).view(b, tq, n_c, -1, h, w)
        csp = patch_confidence(Pp).view(b, tq, n_c, h, w)
        wt = torch.ones_like(csp)
        if c["use_csp"] and self.candidate_mode == "learned":
            wt = wt * csp
        if c["use_cf"] and P is not None:
            wt = wt * torch.gather(P, 2, cand)[..., None, None]
        fused = (wt[:, :, :, None] * feats).sum(2) / (wt.sum(2)[:, :, None] + EPS)
        logits = self.decoder(fused.flatten(0, 1), query.flatten(0, 1)).view(b, tq, *query.shape[-2:])
        return {"logits": logits, "P_frame": P, "candidates": cand, "weights": wt, "C_sp": csp,
                "flow": flow.view(b, tq, n_c, 2, h, w), "grid": (h, w)}


# ----------------------------------------------------------------------------------------------- §3.8-3.9

def bce_dice_loss(logits: torch.Tensor, target: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """``BCE-with-logits + soft Dice`` (§3.8); Dice per frame, ``(2 I + eps) / (sum P + sum G + eps)``."""
    if logits.shape != target.shape:
        raise ValueError(f"logits {tuple(logits.shape)} and target {tuple(target.shape)} must have the same shape")
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits).flatten(-2)
    g = target.flatten(-2)
    dice = (2 * (p * g).sum(-1) + eps) / (p.sum(-1) + g.sum(-1) + eps)
    return bce + (1 - dice).mean()


def frame_scores(pred: torch.Tensor, target: torch.Tensor, eps: float = EPS) -> dict[str, torch.Tensor]:
    """Per-frame F1 ``(2TP + eps) / (2TP + FP + FN + eps)`` and IoU ``(TP + eps) / (|P u G| + eps)`` (§3.9);
    ``pred``/``target`` are binary ``(..., H, W)``. An empty prediction on an empty GT scores 1."""
    if pred.shape != target.shape:
        raise ValueError(f"pred {tuple(pred.shape)} and target {tuple(target.shape)} must have the same shape")
    p, g = pred.bool().flatten(-2), target.bool().flatten(-2)
    tp = (p & g).sum(-1).double()
    fp = (p & ~g).sum(-1).double()
    fn = (~p & g).sum(-1).double()
    return {"f1": (2 * tp + eps) / (2 * tp + fp + fn + eps), "iou": (tp + eps) / (tp + fp + fn + eps)}
