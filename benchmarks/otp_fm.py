"""Benchmark OTP-FM's hot paths against their peers, in one run; ratios only, no timing assertions.

1. The peer a user would pick first: POT's log-domain Sinkhorn (``ot.sinkhorn(..., method="sinkhorn_log")``,
   torch backend) against our device Sinkhorn plan (:func:`icml26.transport.sinkhorn_plan`, same eps and the
   same number of iterations) for the couplings of a batch of snapshots;
2. the OTP-FM target draw against piecewise OT-CFM's (the baseline a user would otherwise train);
3. the naive loop: the batched closed-form targets (one K x K solve shared by every tuple, one einsum)
   against solving and evaluating each tuple on its own.
"""

from __future__ import annotations

import warnings

import ot
import torch

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.otp_fm import baselines, data
from icml26.papers.otp_fm.method import OTPPath, otp_target_sampler
from icml26.transport import chain_indices


def loop_targets(path: OTPPath, x0, x1, ys, t):
    """Naive reference: solve and evaluate each tuple on its own (what the batched code avoids)."""
    out_x, out_u = [], []
    eye = torch.eye(path.K, dtype=torch.float64)
    a = path.A
    for b in range(x0.shape[0]):
        tk = path.centers[:, None]
        xb = (1 - tk) * x0[b].double() + tk * x1[b].double()
        xk = torch.linalg.solve(eye - a, xb - a @ ys[b].double())
        c, cd = path.profiles(t[b : b + 1])
        f = xk - ys[b].double()
        s = path.strengths
        out_x.append((1 - t[b]) * x0[b] + t[b] * x1[b] + ((c[0] * s)[:, None] * f).sum(0))
        out_u.append(x1[b] - x0[b] + ((cd[0] * s)[:, None] * f).sum(0))
    return torch.stack(out_x).to(x0.dtype), torch.stack(out_u).to(x0.dtype)


def sinkhorn_peer(x, y, iters: int, rel_eps: float = 0.05):
    """Our plan and POT's log-domain Sinkhorn plan at the same eps and iteration count (no eps-scaling)."""
    from icml26.transport import sinkhorn_plan

    c = torch.cdist(x, y).pow(2)
    reg = rel_eps * float(c.mean())
    a = torch.full((x.shape[0],), 1.0 / x.shape[0], dtype=c.dtype, device=c.device)
    b = torch.full((y.shape[0],), 1.0 / y.shape[0], dtype=c.dtype, device=c.device)

    def ours():
        return sinkhorn_plan(x, y, rel_eps=rel_eps, iters=iters, scales=1)

    def pot():
        with warnings.catch_warnings():  # a fixed iteration count, no stopping rule: POT warns it "did not converge"
            warnings.simplefilter("ignore", UserWarning)
            return ot.sinkhorn(a, b, c, reg, method="sinkhorn_log", numItermax=iters, stopThr=0.0)

    return ours, pot


def main(argv=None):
    args, device = parse_args(__doc__, argv)
    n_ot, iters_ot = (200, 50) if args.quick else (1500, 200)
    g0 = torch.Generator().manual_seed(0)
    xo = torch.randn(n_ot, 2, generator=g0, dtype=torch.float64).to(device)
    yo = torch.randn(n_ot, 2, generator=g0, dtype=torch.float64).to(device) + 1
    ours, pot = sinkhorn_peer(xo, yo, iters_ot)
    mine, theirs = ours(), pot().to(torch.float64)
    gap = float((mine - theirs).abs().max() / theirs.max())
    assert gap < 0.02, f"our plan and POT's differ by {gap:.2e} of the largest entry"  # same problem, same iterations
    print(ratio_line(f"Sinkhorn plan {n_ot}x{n_ot}, {iters_ot} iterations", time_call(pot, 2, device),
                     time_call(ours, 2, device), peer="POT sinkhorn_log", ours="ours"))
    batch = 64 if args.quick else 4096
    loop_batch = 32 if args.quick else 512
    repeats = 3 if args.quick else 20
    n = 200 if args.quick else 2000

    g = torch.Generator().manual_seed(0)
    path = OTPPath([0.25, 0.5, 0.75], 1000.0, kernel="gaussian", widths=0.1)
    x0, x1 = torch.randn(batch, 2, generator=g).to(device), torch.randn(batch, 2, generator=g).to(device)
    ys, t = torch.randn(batch, 3, 2, generator=g).to(device), torch.rand(batch, generator=g).to(device)
    snaps = [s.to(device) for s in data.rotating_blobs(n=n, T=9, n_blobs=1)]
    train = [snaps[s] for s in (0, 2, 4, 6, 8)]
    times = [0.0, 0.25, 0.5, 0.75, 1.0]
    gen = torch.Generator().manual_seed(1)
    chains = chain_indices(train)
    draw_otp = otp_target_sampler(train, times, path, batch, 10, gen, chains=chains, curriculum="constant1")
    draw_cfm = baselines.piecewise_cfm_sampler(train, times, batch, gen, coupling="ot")
    t_otp = time_call(lambda: draw_otp(5), repeats, device)
    t_cfm = time_call(lambda: draw_cfm(5), repeats, device)
    print(f"target draw per step (batch {batch}): OTP-FM {t_otp * 1e3:.2f} ms, piecewise OT-CFM {t_cfm * 1e3:.2f} ms")
    print(f"target draw vs the OT-CFM peer: OTP-FM costs {t_otp / t_cfm:.2f}x piecewise OT-CFM per step")
    t_batched = time_call(lambda: path.path(x0, x1, ys, t), repeats, device) / batch
    xb, yb, tb = x0[:loop_batch].cpu(), ys[:loop_batch].cpu(), t[:loop_batch].cpu()
    t_loop = time_call(lambda: loop_targets(path, xb, x1[:loop_batch].cpu(), yb, tb), 1, "cpu") / loop_batch
    ref_x, ref_u = loop_targets(path, xb, x1[:loop_batch].cpu(), yb, tb)
    got_x, got_u = path.path(xb, x1[:loop_batch].cpu(), yb, tb)
    assert torch.allclose(ref_x, got_x, atol=1e-4) and torch.allclose(ref_u, got_u, atol=1e-3)
    # scaled to 1000 tuples, so that ratio_line's ms read as us per tuple
    print(ratio_line("target cost per 1000 tuples (ms here = us per tuple)", t_loop * 1e3, t_batched * 1e3,
                     peer="loop", ours="batched"))


if __name__ == "__main__":
    main()
