"""Benchmark for ssn_games: the hybrid PRM+ -> SSN against its peers, in one run.

1. batched PRM+ over many games vs a Python loop over the same games (the library's batching);
2. hybrid to gap 1e-10 vs alternating PRM+ given 10x the hybrid's wall time (gap it reaches);
3. hybrid vs the LP solver HiGHS (scipy) on the same game (honest reference, not a claim).

    python benchmarks/ssn_games.py [--device cpu|cuda] [--quick]
"""

from __future__ import annotations

import time

from icml26.bench import parse_args, synchronize, time_call
from icml26.papers.ssn_games.baselines import lp_solve
from icml26.papers.ssn_games.games import random_games
from icml26.papers.ssn_games.method import hybrid
from icml26.papers.ssn_games.regret import RegretMatching


def _timed(fn, device):
    """One timed call of ``fn`` (no warm-up) and its result."""
    box = []
    seconds = time_call(lambda: box.append(fn()), repeats=1, device=device, warmup=0)
    return box[0], seconds


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    B, n, iters = (8, 30, 200) if args.quick else (32, 200, 2000)
    size = 30 if args.quick else 200

    # 1. Batched vs loop.
    A = random_games(B, n, n, seed=0, device=device)
    RegretMatching(A[:1]).run(5)  # warm-up
    _, t_batch = _timed(lambda: RegretMatching(A).run(iters), device)
    _, t_loop = _timed(lambda: [RegretMatching(A[b:b + 1]).run(iters) for b in range(B)], device)
    print(f"PRM+ {B} games {n}x{n}, {iters} iterations: batched {t_batch:.3f} s, loop {t_loop:.3f} s")
    print(f"batched vs loop: {t_loop / t_batch:.1f}x")

    # 2. Hybrid vs PRM+ at high precision.
    G = random_games(1, size, size, seed=1, device=device)
    hybrid(G[:, :8, :8])  # warm-up
    h, t_h = _timed(lambda: hybrid(G, tol=1e-10), device)
    rm = RegretMatching(G, alternating=True)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 10 * t_h:
        rm.run(50)
    synchronize(device)
    t_p = time.perf_counter() - t0
    g_p = float(rm.gaps().min())
    print(f"hybrid {size}x{size}: gap {h.gap[0]:.1e} in {t_h:.3f} s; alternating PRM+ (best averaging) after "
          f"{t_p:.3f} s ({rm.t} it): gap {g_p:.1e}")
    verdict = "did not reach" if g_p > 1e-10 else "reached"
    print(f"hybrid vs PRM+: PRM+ {verdict} 1e-10 in 10x the hybrid's time ({t_p / t_h:.1f}x)")

    # 3. Hybrid vs HiGHS.
    lp_solve(G[:, :4, :4])  # warm-up (scipy import)
    lp, t_lp = _timed(lambda: lp_solve(G), device)
    print(f"HiGHS {size}x{size}: {t_lp:.3f} s (value error vs hybrid "
          f"{abs(lp['value'][0] - float(h.x[0] @ G[0] @ h.y[0])):.1e})")
    print(f"hybrid vs HiGHS: {t_lp / t_h:.2f}x")


if __name__ == "__main__":
    main()
