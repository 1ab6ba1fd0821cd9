"""Benchmark of the tabular-uncertainty hot paths (arXiv 2509.04430).

1. the real peer first: neighbour-target MSE (batched torch k-NN) vs scikit-learn ``NearestNeighbors``;
2. per-feature PLR embeddings (one einsum over all features) vs a Python loop of per-feature
   ``nn.Linear`` modules, forward + backward;
3. TabM-mini (k members in one batched pass) vs k separate MLPs trained in a loop, forward + backward.

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
    n, m, d, k, width = (256, 8, 8, 4, 32) if a.quick else (4096, 32, 16, 32, 256)
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

    y = torch.randn(n, device=device)
    tabm = B.TabM(m, k=k, width=width).to(device)
    mlps = [B.MLPRegressor(m, width=width).to(device) for _ in range(k)]

    def batched_tabm():
        tabm.loss(x, y).backward()

    def loop_mlps():
        sum(((mm(x) - y) ** 2).mean() for mm in mlps).backward()

    t1, t2 = time_call(batched_tabm, rep, device), time_call(loop_mlps, rep, device)
    print(ratio_line(f"TabM-mini k={k}", t2, t1, peer=f"{k} MLPs in a loop", ours="one batched pass"))


if __name__ == "__main__":
    main()
