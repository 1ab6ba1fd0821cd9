"""Offline data for the strategic-classification experiments (docs/papers/strategic_pfn.md §2).

* :func:`strategic_gauss`: class-conditional Gaussians with means ``+-mu`` (decaying over features)
  under a random rotation, a mask of mutable features and anisotropic per-feature costs;
* :func:`credit_like`: a synthetic credit table whose default risk is a logistic SCM with interactions;
* :func:`breast_cancer_task`: scikit-learn's bundled breast-cancer table (6 most predictive features,
  3 of them mutable), our offline real-data substitute.

All loaders return a :class:`StrategicTask`, batched over ``R`` independent repetitions, standardised
with the statistics of the clean **context** rows (the deployed model's statistics; never
re-standardised on manipulated data, docs §2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks


@dataclass
class StrategicTask:
    """``R`` repetitions of one task: context, test and spare rows (standardised), labels and costs.

    ``cost`` has shape ``(d,)`` with ``inf`` for immutable features; ``x_extra`` are independent clean
    rows from the same law (used by the "oracle" baseline).
    """

    x_ctx: torch.Tensor
    y_ctx: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    x_extra: torch.Tensor
    y_extra: torch.Tensor
    cost: torch.Tensor
    names: tuple[str, ...] = ()

    @property
    def mutable(self) -> torch.Tensor:
        return torch.isfinite(self.cost)


def _check_common(generator, device) -> None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")
    checks.device("device", device)


def default_costs(d: int, n_mutable: int, anisotropy: float = 4.0, device="cpu") -> torch.Tensor:
    """Per-feature quadratic costs: the first ``n_mutable`` features cost ``1 .. anisotropy`` (geometric
    spacing, normalised to geometric mean 1), the others are immutable (``inf``)."""
    checks.int_at_least("d", d)
    checks.int_at_least("n_mutable", n_mutable, 0)
    if n_mutable > d:
        raise ValueError(f"n_mutable must be <= d={d}; got {n_mutable}")
    if not checks.finite_number("anisotropy", anisotropy) >= 1:
        raise ValueError(f"anisotropy must be >= 1; got {anisotropy}")
    checks.device("device", device)
    c = torch.full((d,), math.inf, device=device)
    if n_mutable:
        e = torch.linspace(-0.5, 0.5, n_mutable, device=device) if n_mutable > 1 else torch.zeros(1, device=device)
        c[:n_mutable] = anisotropy ** e
    return c


def _split(X, y, n_ctx, n_test, n_extra, cost, names=()):
    ctx = X[:, :n_ctx]
    mean = ctx.mean(1, keepdim=True)
    std = ctx.std(1, keepdim=True, unbiased=False).clamp_min(1e-6)
    X = (X - mean) / std
    a, b = n_ctx, n_ctx + n_test
    return StrategicTask(X[:, :a], y[:, :a], X[:, a:b], y[:, a:b], X[:, b:], y[:, b:], cost, tuple(names))


def strategic_gauss(R: int, n_ctx: int, n_test: int, d: int = 6, n_mutable: int = 3, n_extra: int = 0,
                    separation: float = 1.1, decay: float = 0.7, anisotropy: float = 4.0,
                    generator: torch.Generator | None = None, seed: int = 0, device="cpu") -> StrategicTask:
    """Two balanced Gaussian classes ``N(+-mu, I)`` rotated by a random orthogonal matrix per repetition.

    ``mu_j`` decays geometrically (``decay**j``) and is scaled to ``|2 mu| = 2 * separation``, so the
    Bayes accuracy is ``Phi(separation)`` (about 0.86 at 1.1, as in our first pilot). The first
    ``n_mutable`` coordinates (after rotation) are mutable with anisotropic costs (:func:`default_costs`).
    """
    for name, v, lo in (("R", R, 1), ("n_ctx", n_ctx, 2), ("n_test", n_test, 1), ("d", d, 1), ("n_extra", n_extra, 0)):
        checks.int_at_least(name, v, lo)
    checks.positive_number("separation", separation)
    checks.in_range("decay", decay, 0.0, 1.0, low_open=True)
    checks.int_at_least("n_mutable", n_mutable, 0)
    if n_mutable > d:
        raise ValueError(f"n_mutable must be <= d={d}; got {n_mutable}")
    if not checks.finite_number("anisotropy", anisotropy) >= 1:
        raise ValueError(f"anisotropy must be >= 1; got {anisotropy}")
    _check_common(generator, device)
    g = generator if generator is not None else torch.Generator(device=device).manual_seed(seed)
    n = n_ctx + n_test + n_extra
    mu = decay ** torch.arange(d, device=device, dtype=torch.float32)
    mu = separation * mu / mu.norm()
    y = (torch.rand((R, n), generator=g, device=device) < 0.5).long()
    z = (2 * y[..., None] - 1) * mu + torch.randn((R, n, d), generator=g, device=device)
    Q, _ = torch.linalg.qr(torch.randn((R, d, d), generator=g, device=device))
    X = z @ Q
    cost = default_costs(d, n_mutable, anisotropy, device)
    return _split(X, y, n_ctx, n_test, n_extra, cost)


CREDIT_FEATURES = ("income", "debt_ratio", "utilisation", "n_accounts", "late_payments", "age")


def credit_like(R: int, n_ctx: int, n_test: int, n_extra: int = 0, generator: torch.Generator | None = None,
                seed: int = 0, device="cpu") -> StrategicTask:
    """A synthetic credit table; ``y = 1`` means "repays" (the favourable decision is to approve).

    Default risk is a logistic SCM with an income x debt interaction and a utilisation hinge.
    Mutable: stated income, utilisation, number of accounts; immutable: debt ratio, late payments, age.
    """
    for name, v, lo in (("R", R, 1), ("n_ctx", n_ctx, 2), ("n_test", n_test, 1), ("n_extra", n_extra, 0)):
        checks.int_at_least(name, v, lo)
    _check_common(generator, device)
    g = generator if generator is not None else torch.Generator(device=device).manual_seed(seed)
    n = n_ctx + n_test + n_extra
    e = lambda: torch.randn((R, n), generator=g, device=device)  # noqa: E731
    age = 20 + 45 * torch.rand((R, n), generator=g, device=device)
    income = 0.02 * (age - 40) + 0.8 * e()
    debt = torch.sigmoid(-0.5 * income + e())
    util = torch.sigmoid(0.8 * debt + 0.7 * e())
    accounts = torch.poisson(torch.exp(0.3 * income + 0.5), generator=g)
    late = torch.poisson(torch.exp(-1.0 + 1.5 * debt - 0.3 * income), generator=g)
    risk = (-0.8 * income + 2.0 * debt * (1 - 0.5 * torch.tanh(income)) + 3.0 * torch.relu(util - 0.6)
            + 0.6 * late - 0.02 * (age - 40) - 0.15 * accounts - 0.4)
    y = (torch.rand((R, n), generator=g, device=device) >= torch.sigmoid(risk)).long()
    X = torch.stack([income, debt, util, accounts, late, age], -1)
    cost = torch.tensor([1.0, math.inf, 0.5, 2.0, math.inf, math.inf], device=device)
    return _split(X, y, n_ctx, n_test, n_extra, cost, CREDIT_FEATURES)


def breast_cancer_task(R: int, n_ctx: int = 256, n_features: int = 6, n_mutable: int = 3,
                       generator: torch.Generator | None = None, seed: int = 0, device="cpu") -> StrategicTask:
    """scikit-learn's bundled breast-cancer data (569 rows), ``R`` random context/test splits.

    Keeps the ``n_features`` features with the largest absolute univariate correlation with the label;
    the first ``n_mutable`` of them (in that order) are mutable with :func:`default_costs`. ``y = 1``
    (benign) plays the favourable class. Everything not in the context is test data.
    """
    from sklearn.datasets import load_breast_cancer

    checks.int_at_least("R", R)
    checks.int_at_least("n_features", n_features)
    checks.int_at_least("n_ctx", n_ctx, 2)
    checks.int_at_least("n_mutable", n_mutable, 0)
    _check_common(generator, device)
    data = load_breast_cancer()
    X = torch.tensor(data.data, dtype=torch.float32, device=device)
    y = torch.tensor(data.target, dtype=torch.long, device=device)
    if not 2 <= n_ctx < X.shape[0]:
        raise ValueError(f"n_ctx must lie in [2, {X.shape[0] - 1}]; got {n_ctx}")
    if n_features > X.shape[1] or not 0 <= n_mutable <= n_features:
        raise ValueError(f"need n_features <= {X.shape[1]} and 0 <= n_mutable <= n_features; "
                         f"got {n_features}, {n_mutable}")
    Xs = (X - X.mean(0)) / X.std(0)
    corr = ((Xs * (y.float() - y.float().mean())[:, None]).mean(0)).abs()
    keep = corr.argsort(descending=True)[:n_features]
    names = tuple(str(data.feature_names[i]) for i in keep.tolist())
    g = generator if generator is not None else torch.Generator(device=device).manual_seed(seed)
    perm = torch.stack([torch.randperm(X.shape[0], generator=g, device=device) for _ in range(R)])
    Xr, yr = X[:, keep][perm], y[perm]
    cost = default_costs(n_features, n_mutable, device=device)
    return _split(Xr, yr, n_ctx, X.shape[0] - n_ctx, 0, cost, names)
