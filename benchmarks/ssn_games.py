"""Benchmark for ssn_games: the hybrid PRM+ -> SSN against its peers, in one run.

1. the peer a user would pick for one matrix game, the LP solver HiGHS (scipy, dual simplex), against the hybrid,
   wall clock to gap 1e-10 and to 1e-6 (HiGHS returns a vertex: its time does not depend on the target), on dense
   Gaussian games of 100 to 2000 actions and on sparse ones (5% of the entries non-zero, the rest Gaussian);
2. first-order peers to gap 1e-10 in mat-vec equivalents (overhead-neutral: the same count for every method) and
   wall clock: alternating PRM+ (best averaging) and restarted PDHG, each given 10x the hybrid's cost;
3. batched PRM+ over many games vs a Python loop over the same games (the library's batching).

    python benchmarks/ssn_games.py [--device cpu|cuda] [--quick]

Measured on the 2-core CPU machine (2026-12-03, one run; the 2000 x 2000 row alone takes about 8 minutes), hybrid
vs HiGHS at 1e-10: dense 100 x 100 0.12x, 300 x 300 0.31x, 400 x 800 1.45x, 1000 x 1000 2.13x, 2000 x 2000 3.51x
(HiGHS 307 s, hybrid 88 s); to 1e-6 about the same (the cost is the Newton phase, not the last digits). On sparse
games (5% non-zero) HiGHS exploits the sparsity and the hybrid's dense algebra does not: 0.01x at 300 x 300 (HiGHS
0.03 s, hybrid 3.3 s) and 0.31x at 1000 x 1000 (3.0 s against 9.5 s). Batched PRM+ over 32 games, 2000 iterations
(two runs): 20-31x a loop over the games at 30 x 30, 3.1-4.6x at 200 x 200 (batched 2.1-2.8 s, loop 8.7-9.7 s).
A single-thread re-run of this benchmark (issue 66) measured hybrid / HiGHS at 1e-10 = 0.06x (100), 0.23x (300),
0.99x (400 x 800), 0.85x (1000 x 1000): the crossover moves with the machine's load and threads, so one run does not
settle it (docs/papers/ssn_games.md §5).
"""

from __future__ import annotations

import torch

from icml26.bench import parse_args, time_call
from icml26.papers.ssn_games.baselines import lp_solve, restarted_pdhg
from icml26.papers.ssn_games.games import random_games
from icml26.papers.ssn_games.method import hybrid
from icml26.papers.ssn_games.regret import RegretMatching

TARGET, LOW = 1e-10, 1e-6


def _timed(fn, device):
    """One timed call of ``fn`` (no warm-up) and its result."""
    box = []
    seconds = time_call(lambda: box.append(fn()), repeats=1, device=device, warmup=0)
    return box[0], seconds


def _first(costs, gaps, target):
    return next((c for c, g in zip(costs, gaps) if g <= target), None)


def _hybrid_cost(h, target):
    return _first([c for c, _ in h.trace[0]], [g for _, g in h.trace[0]], target)


def sparse_games(n: int, m: int, *, density: float = 0.05, seed: int = 0, device="cpu"):
    """One Gaussian game ``(1, n, m)`` with all but a ``density`` share of its entries set to zero."""
    A = random_games(1, n, m, seed=seed, device=device)
    keep = torch.rand(A.shape, generator=torch.Generator().manual_seed(seed + 99), dtype=A.dtype) < density
    return A * keep.to(A.device)


def main(argv=None):
    args, device = parse_args(__doc__.splitlines()[0], argv)
    sizes = [(30, 30)] if args.quick else [(100, 100), (300, 300), (400, 800), (1000, 1000), (2000, 2000)]
    sparse_sizes = [(30, 30)] if args.quick else [(300, 300), (1000, 1000)]
    hybrid(random_games(1, 8, 8, device=device))  # warm-up
    lp_solve(random_games(1, 4, 4))  # warm-up (scipy import)

    # 1. The peer: HiGHS, on dense and on sparse games.
    games = {}
    cases = [("dense", n, m, random_games(1, n, m, seed=1 + k, device=device)) for k, (n, m) in enumerate(sizes)]
    cases += [("sparse", n, m, sparse_games(n, m, seed=20 + k, device=device)) for k, (n, m) in enumerate(sparse_sizes)]
    for kind, n, m, G in cases:
        h, t_h = _timed(lambda G=G: hybrid(G, tol=TARGET), device)
        _, t_low = _timed(lambda G=G: hybrid(G, tol=LOW), device)
        lp, t_lp = _timed(lambda G=G: lp_solve(G), device)
        if kind == "dense":
            games[(n, m)] = (G, h, t_h)
        who = "hybrid" if t_h < t_lp else "HiGHS"
        print(f"hybrid vs HiGHS (peer) {kind} {n}x{m}: to 1e-10 {t_lp / t_h:.2f}x, to 1e-6 {t_lp / t_low:.2f}x "
              f"(HiGHS {t_lp:.3f} s, gap {lp['gap'][0]:.1e}; hybrid {t_h:.3f} s / {t_low:.3f} s; {who} wins at 1e-10)")

    # 2. First-order peers in mat-vec equivalents (and seconds).
    n, m = sizes[0]
    G, h, t_h = games[(n, m)]
    c_h = _hybrid_cost(h, TARGET)
    budget = int(10 * c_h / 2)
    rm = RegretMatching(G, alternating=True)
    rec, t_p = _timed(lambda: rm.run(budget, record_every=50), device)
    c_p = min((_first(rec["cost"], [row[0] for row in rec["gap"][a]], TARGET) or 2 * budget) for a in rec["gap"])
    pd, t_pd = _timed(lambda: restarted_pdhg(G, budget, target=TARGET), device)
    c_pd = _first(pd["cost"], [row[0] for row in pd["gap"]], TARGET) or pd["cost"][-1]
    print(f"hybrid vs alternating PRM+ {n}x{m}, mat-vecs to 1e-10: {c_p / c_h:.1f}x "
          f"({'reached' if c_p < 2 * budget else 'not reached in 10x'}; wall {t_p:.2f} s for {rm.t} it vs "
          f"hybrid {t_h:.3f} s)")
    print(f"hybrid vs restarted PDHG {n}x{m}, mat-vecs to 1e-10: {c_pd / c_h:.1f}x "
          f"({'reached' if c_pd < pd['cost'][-1] or pd['gap'][-1][0] <= TARGET else 'not reached in 10x'}; "
          f"wall {t_pd:.2f} s, {pd['restarts'][0]} restarts)")

    # 3. Batched vs loop (the naive loop), on small games and on 200 x 200 ones
    iters = 200 if args.quick else 2000
    for B, nb in ([(8, 30)] if args.quick else [(32, 30), (32, 200)]):
        A = random_games(B, nb, nb, seed=0, device=device)
        RegretMatching(A[:1]).run(5)  # warm-up
        _, t_batch = _timed(lambda A=A: RegretMatching(A).run(iters), device)
        _, t_loop = _timed(lambda A=A, B=B: [RegretMatching(A[b:b + 1]).run(iters) for b in range(B)], device)
        print(f"PRM+ batched vs loop ({B} games {nb}x{nb}, {iters} iterations): {t_loop / t_batch:.1f}x "
              f"(batched {t_batch:.3f} s, loop {t_loop:.3f} s)")


if __name__ == "__main__":
    main()
