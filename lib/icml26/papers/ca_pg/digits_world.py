"""A two-stage retrieval world on real pixels: scikit-learn's bundled digits (docs/papers/ca_pg.md §2 (d),
substitute for the paper's real-world data set, which was not available; everything here is *inferred*).

Items are the 1797 8x8 digit images. A user has a preferred class ``c_u`` and a style prototype
``m_u`` (mean of a few images of ``c_u`` plus noise). With ``z`` the per-user standardised cosine of
the 64-pixel image to ``m_u``, the mean reward is ``q = sigmoid(alpha z + beta 1[label = c_u] - gamma)``.
The ESR sees cheap, lossy features: PCA-8 of the pixels for items and PCA-8 of ``m_u`` plus the
one-hot class for users. The LSR scores with the full 64-d cosine plus the probability of ``c_u``
from a logistic-regression classifier fitted on a small labelled subset: aligned but imperfect.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.papers.ca_pg.training import World


def make_digits_world(n_users: int = 200, alpha: float = 2.0, beta: float = 3.0, gamma: float = 7.0,
                      n_proto: int = 3, proto_noise: float = 0.02, n_label: int = 300, pca_dim: int = 8,
                      device="cpu", seed: int = 0) -> World:
    """Build the digits world (no download: the images ship with scikit-learn)."""
    if isinstance(n_users, bool) or not isinstance(n_users, int) or n_users < 1:
        raise ValueError(f"n_users must be a positive integer; got {n_users!r}")
    if isinstance(pca_dim, bool) or not isinstance(pca_dim, int) or not 1 <= pca_dim <= 64:
        raise ValueError(f"pca_dim must be an integer in [1, 64]; got {pca_dim!r}")
    for name, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
        checks.finite_number(name, v)
    if not 1 <= checks.positive_int("n_proto", n_proto) <= 100:
        raise ValueError(f"n_proto must lie in [1, 100] (images per class to average); got {n_proto}")
    checks.nonnegative_number("proto_noise", proto_noise)
    if not 10 <= checks.positive_int("n_label", n_label) <= 1797:
        raise ValueError(f"n_label must lie in [10, 1797] (labelled images for the LSR's classifier); got {n_label}")
    checks.device("device", device)
    checks.seed("seed", seed)
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    data = load_digits()
    x, labels = data.data.astype(np.float64), data.target
    xn = x / np.linalg.norm(x, axis=1, keepdims=True)
    classes = rng.integers(0, 10, n_users)
    protos = np.stack([xn[rng.choice(np.flatnonzero(labels == c), n_proto, replace=False)].mean(0) for c in classes])
    protos = protos + proto_noise * rng.standard_normal(protos.shape)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    cos = protos @ xn.T  # (U, N)
    z = (cos - cos.mean(1, keepdims=True)) / cos.std(1, keepdims=True)
    same = (labels[None, :] == classes[:, None]).astype(np.float64)
    q = 1.0 / (1.0 + np.exp(-(alpha * z + beta * same - gamma)))
    # LSR: full cosine + a classifier trained on a small labelled subset (imperfect)
    sub = rng.choice(len(x), n_label, replace=False)
    if len(np.unique(labels[sub])) < 10:
        raise ValueError(f"n_label={n_label} labelled images miss a digit class; use more (e.g. 300)")
    clf = LogisticRegression(max_iter=300, C=0.05).fit(x[sub] / 16.0, labels[sub])
    proba = clf.predict_proba(x / 16.0)  # (N, 10)
    g = alpha * z + beta * proba[:, classes].T - gamma
    # ESR features: PCA of the pixels (items) and of the prototypes + one-hot class (users)
    pca = PCA(pca_dim, random_state=seed).fit(xn)
    items = pca.transform(xn)
    scale = items.std(0, keepdims=True)
    items = items / scale
    users = np.concatenate([pca.transform(protos) / scale, np.eye(10)[classes]], axis=1)
    t = lambda a: torch.tensor(a, dtype=torch.float32, device=device)  # noqa: E731
    return World(users=t(users), items=t(items), q=t(q), g=t(g))
