"""scene_change (VSCD) benchmark, ratios only: the hot paths of VSCDNet-mini against the peer a user would write
first, then against the reference code's Python loops.

* local 5x5 correlation (§3.4): ours (one channel reduction per window offset) vs ``F.unfold`` + ``einsum``;
* the candidate stage (correspondence + change head for every (query frame, candidate) pair): one batch vs the
  released code's loop over (t, candidate);
* the candidate sets (§3.3): tensor ops (cumsum / cummax / scatter) vs the released code's Python loop per frame;
* a training step on tokens of the frozen encoder computed once per video vs re-encoding every step.

    python benchmarks/scene_change.py [--device cpu|cuda] [--quick]
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.scene_change import encoder, experiment, method


def correlation_unfold(q, r, k):
    """The peer: materialise the k x k window of every token with ``F.unfold`` and reduce over channels."""
    m, d, h, w = q.shape
    win = F.unfold(r, k, padding=k // 2).view(m, d, k * k, h * w)
    return torch.einsum("mdp,mdop->mop", q.flatten(2), win).view(m, k * k, h, w)


def candidate_stage_batched(model, q_map, r_sel):
    """The library path: every (t, candidate) pair in one batch."""
    b, tq, n_c, d, h, w = r_sel.shape
    fq = q_map[:, :, None].expand_as(r_sel).reshape(-1, d, h, w)
    warped, P, _ = method.soft_correspondence(fq, r_sel.reshape(-1, d, h, w), model.cfg["k"], model.temperature)
    return model.head(fq, warped), method.patch_confidence(P)


def candidate_stage_loop(model, q_map, r_sel):
    """The reference code's shape: one correspondence + change head call per (t, candidate)."""
    feats, confs = [], []
    for t in range(r_sel.shape[1]):
        for j in range(r_sel.shape[2]):
            warped, P, _ = method.soft_correspondence(q_map[:, t], r_sel[:, t, j], model.cfg["k"], model.temperature)
            feats.append(model.head(q_map[:, t], warped))
            confs.append(method.patch_confidence(P))
    return feats, confs


def candidate_sets_loop(P, s_max, top_k=4, delta=2, l_max=5):
    """The released code's candidate selection: matched segments and the top-k, frame by frame in Python."""
    order = P.topk(max(top_k, s_max), dim=-1).indices.tolist()
    out = []
    for b in range(P.shape[0]):
        segs = method.matched_segments(P[b].argmax(-1), delta, l_max)
        rows = []
        for t in range(P.shape[1]):
            s0, s1 = next((s0, s1) for (t0, t1, s0, s1) in segs if t0 <= t <= t1)
            chosen = [max(range(s0, s1 + 1), key=lambda s: float(P[b, t, s]))]
            chosen += [s for s in order[b][t] if s not in chosen]
            rows.append(chosen[:s_max])
        out.append(rows)
    return torch.tensor(out, device=P.device)


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    torch.manual_seed(0)
    repeats = 1 if args.quick else 3
    frames, batch = (4, 1) if args.quick else (8, 2)
    frozen = encoder.load_encoder(device=device)
    model = experiment.make_model("vscd", experiment.MODEL, frozen, device)
    d, h, w, n_c = frozen.dim, 16, 16, model.cfg["s_max"]

    q = F.normalize(torch.randn(batch * frames * n_c, d, h, w, device=device), dim=1)
    r = F.normalize(torch.randn_like(q), dim=1)
    ours = time_call(lambda: method.local_correlation(q, r, 5), repeats, device)
    peer = time_call(lambda: correlation_unfold(q, r, 5), repeats, device)
    print(ratio_line(f"local 5x5 correlation ({q.shape[0]} pairs, {d}-d tokens, {h}x{w} grid)", peer, ours,
                     peer="F.unfold+einsum", ours="shifted products"))

    q_map = F.normalize(torch.randn(batch, frames, d, h, w, device=device), dim=2)
    r_sel = F.normalize(torch.randn(batch, frames, n_c, d, h, w, device=device), dim=3)
    with torch.no_grad():
        t_b = time_call(lambda: candidate_stage_batched(model, q_map, r_sel), repeats, device)
        t_l = time_call(lambda: candidate_stage_loop(model, q_map, r_sel), repeats, device)
    print(ratio_line(f"candidate stage ({batch}x{frames}x{n_c} (pair, frame, candidate) triples)", t_l, t_b,
                     peer="per-(t, candidate) loop", ours="one batch"))

    P = torch.softmax(torch.randn(16 if args.quick else 64, 32, 32, device=device) * 3, -1)
    t_v = time_call(lambda: method.candidate_sets(P, 6), repeats, device)
    t_p = time_call(lambda: candidate_sets_loop(P, 6), repeats, device)
    assert torch.equal(method.candidate_sets(P, 6), candidate_sets_loop(P, 6))
    print(ratio_line(f"candidate sets ({P.shape[0]} videos of 32 keyframes, |S_t|max 6)", t_p, t_v,
                     peer="Python loop per frame", ours="tensor ops"))

    size = 64
    qv = torch.rand(batch, frames, 3, size, size, device=device)
    rv = torch.rand(batch, frames, 3, size, size, device=device)
    mask = (torch.rand(batch, frames, size, size, device=device) > 0.9).float()
    tokens = (frozen(qv)[0], frozen(rv)[0])
    opt = torch.optim.AdamW(model.trainable_parameters(), lr=1e-3)

    def step(cached):
        out = model(qv, rv, tokens=tokens if cached else None, validate=False)
        loss = method._bce_dice_loss(out["logits"], mask)  # the training step's core
        opt.zero_grad()
        loss.backward()
        opt.step()

    t_cached = time_call(lambda: step(True), repeats, device)
    t_enc = time_call(lambda: step(False), repeats, device)
    print(ratio_line(f"VSCDNet-mini training step ({batch} pairs x {frames} frames, {size}x{size})", t_enc, t_cached,
                     peer="encoder in the step", ours="tokens computed once"))


if __name__ == "__main__":
    main()
