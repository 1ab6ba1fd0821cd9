"""Benchmark of the tabular-uncertainty hot paths (arXiv 2509.04430).

1. the real peer first: neighbour-target MSE (batched torch k-NN) vs scikit-learn ``NearestNeighbors``;
2. per-feature PLR embeddings (one einsum over all features) vs a Python loop of per-feature
   ``nn.Linear`` modules, forward + backward;
3. TabM-mini (k members in one batched pass) vs k separate MLPs trained in a loop, forward + backward, at the
   sizes the experiment trains at (quick: batch 64, width 64, k = 8; standard: batch 128, width 128, k = 8; full:
   batch 512, width 512, k = 32) and at the issue's 4096 x 256, k = 32. Both sides do the same matmul FLOPs (a
   shared backbone still runs every member's rows), so batching pays only where the loop is overhead-bound. On 2
   CPU cores (2026-12-03) it wins at the quick size (2.7x) and at standard (1.6x); at 512 x 512 and 4096 x 256 it
   loses (0.6x, 0.7x): its activations are k times larger (4096 x 32 rows x 256 = 134 MB each) and the
   element-wise ReLU and its backward then run from fresh, uncached memory (profile: 270-300 ms a call, against
   a cache-resident 4 MB per member in the loop; a ReLU into a preallocated buffer takes 11 ms against 68 ms into
   a fresh one). No CPU-side layout removes that (a member-major layout with in-place ReLU and ``baddbmm``
   measured 2.5 s against 2.1 s). On a GPU the loop's 32 x more kernel launches are what batching removes.

Run: ``python benchmarks/tabular_uncertainty.py [--device cpu|cuda] [--quick]``. No timing assertions.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.neighbors import NearestNeighbors
from torch import nn

from icml26.bench import parse_args, ratio_line, time_call
from icml26.papers.tabular_uncertainty import baselines as B
from icml26.papers.tabular_uncertainty import embeddings as E
from icml26.papers.tabular_uncertainty import method as M


def main(argv=None):
    a, device = parse_args(__doc__.splitlines()[0], argv)
    n, m, d = (256, 8, 8) if a.quick else (4096, 32, 16)
    rep = 3 if a.quick else 10
    x = torch.randn(n, m, device=device)

    Z = np.random.default_rng(0).normal(size=(n, m * 2))
    yy = np.random.default_rng(1).normal(size=n)

    def torch_knn():
        M.neighbour_target_mse(Z, yy, Z, yy, k=10, device=device)

    def sk_knn():
        idx = NearestNeighbors(n_neighbors=10).fit(Z).kneighbors(Z, return_distance=False)
        ((yy[idx] - yy[:, None]) ** 2).mean(1)

    t1, t2 = time_call(torch_knn, rep, device), time_call(sk_knn, rep, device)
    print(ratio_line("neighbour-target MSE", t2, t1, peer="sklearn NearestNeighbors", ours="torch batched"))

    emb = E.PeriodicEmbedding(m, d, n_frequencies=8).to(device)
    loops = nn.ModuleList([nn.Linear(16, d) for _ in range(m)]).to(device)

    def batched_emb():
        emb(x).sum().backward()

    def loop_emb():
        per = emb.periodic(x)
        torch.stack([torch.relu(lin(per[:, j])) for j, lin in enumerate(loops)], 1).sum().backward()

    t1, t2 = time_call(batched_emb, rep, device), time_call(loop_emb, rep, device)
    print(ratio_line("PLR embedding", t2, t1, peer=f"loop over {m} features", ours="batched einsum"))

    sizes = [(256, 8, 4, 32)] if a.quick else [(64, 8, 8, 64), (128, 8, 8, 128), (512, 8, 32, 512), (4096, 32, 32, 256)]
    for n_rows, n_feat, k_members, w in sizes:
        xt, yt = torch.randn(n_rows, n_feat, device=device), torch.randn(n_rows, device=device)
        tabm = B.TabM(n_feat, k=k_members, width=w).to(device)
        mlps = [B.MLPRegressor(n_feat, width=w).to(device) for _ in range(k_members)]

        def batched_tabm(tabm=tabm, xt=xt, yt=yt):
            tabm.loss(xt, yt).backward()

        def loop_mlps(mlps=mlps, xt=xt, yt=yt):
            sum(((mm(xt) - yt) ** 2).mean() for mm in mlps).backward()

        reps = rep if n_rows * w < 500_000 else 3
        t1, t2 = time_call(batched_tabm, reps, device), time_call(loop_mlps, reps, device)
        print(ratio_line(f"TabM-mini k={k_members}, batch {n_rows}, width {w}", t2, t1,
                         peer=f"{k_members} MLPs in a loop", ours="one batched pass"))


if __name__ == "__main__":
    main()
