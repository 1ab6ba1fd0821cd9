"""Offline synthetic multimarginal data (docs/papers/otp_fm.md, "Data"): snapshots of a population at several times.

Every generator returns a list of (n, d) float32 tensors, one unpaired sample per snapshot, drawn
fresh per snapshot (no particle identity is kept, as in snapshot data).
"""

from __future__ import annotations

import math

import torch

from icml26 import checks


def _gen(seed: int) -> torch.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    return torch.Generator().manual_seed(seed)


def _count(n, name="n") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"{name} must be an integer >= 2; got {n!r}")
    return n


def gaussian_marginals(means, stds, n: int = 512, seed: int = 0) -> list[torch.Tensor]:
    """One isotropic Gaussian sample per snapshot: ``means`` (T, d) or (T,), ``stds`` (T,) or a scalar."""
    n = _count(n)
    means = torch.as_tensor(means, dtype=torch.float32)
    if not torch.isfinite(means).all():
        raise ValueError("means must be finite")
    if means.ndim == 1:
        means = means[:, None]
    if means.ndim != 2 or means.shape[0] < 2:
        raise ValueError(f"means must have shape (T, d) with T >= 2; got {tuple(means.shape)}")
    stds = torch.as_tensor(stds, dtype=torch.float32).reshape(-1)
    if stds.numel() == 1:
        stds = stds.expand(means.shape[0])
    if stds.numel() != means.shape[0] or not ((stds > 0) & torch.isfinite(stds)).all():
        raise ValueError("stds must be positive, one per snapshot or a single value")
    g = _gen(seed)
    return [m + s * torch.randn(n, means.shape[1], generator=g) for m, s in zip(means, stds)]


def steering_gaussians(n: int = 512, std: float = 0.1, seed: int = 0) -> list[torch.Tensor]:
    """The 2-D steering set-up of claim 2: N((0,0)), N((2,2)) at t=0.5, N((4,0)), all with std 0.1."""
    std = checks.positive_number("std", std)
    return gaussian_marginals([[0.0, 0.0], [2.0, 2.0], [4.0, 0.0]], std, n=n, seed=seed)


def rotating_blobs(n: int = 1000, T: int = 9, deg_per_step: float = 45.0, radius: float = 2.0,
                   blob_std: float = 0.25, n_blobs: int = 2, seed: int = 0) -> list[torch.Tensor]:
    """An eddy: ``n_blobs`` off-centre Gaussian blobs rotating by ``deg_per_step`` per snapshot.

    The blobs are deliberately asymmetric (unequal weights, unequal angular spacing) so that the
    snapshots carry rotation information (a rotating ring would not; docs/papers/otp_fm.md, "Pitfalls").
    """
    n, T = _count(n), _count(T, "T")
    if isinstance(n_blobs, bool) or not isinstance(n_blobs, int) or n_blobs < 1:
        raise ValueError(f"n_blobs must be a positive integer; got {n_blobs!r}")
    deg_per_step = checks.finite_number("deg_per_step", deg_per_step)
    radius = checks.positive_number("radius", radius)
    blob_std = checks.positive_number("blob_std", blob_std)
    g = _gen(seed)
    base_angles = torch.tensor([2 * math.pi * b / n_blobs * (0.8 if b else 1.0) for b in range(n_blobs)])
    weights = torch.tensor([n_blobs - b + 1.0 for b in range(n_blobs)])
    weights = weights / weights.sum()
    out = []
    for s in range(T):
        which = torch.multinomial(weights, n, replacement=True, generator=g)
        ang = base_angles[which] + math.radians(deg_per_step) * s
        centre = radius * torch.stack([torch.cos(ang), torch.sin(ang)], dim=1)
        out.append(centre + blob_std * torch.randn(n, 2, generator=g))
    return out


def branching(n: int = 1000, T: int = 5, d: int = 5, spread: float = 1.0, latent_noise: float = 0.15,
              ambient_noise: float = 0.05, seed: int = 0) -> list[torch.Tensor]:
    """Cells drift along x and split into two branches after snapshot 2, embedded in ``d`` dimensions.

    The 2-D latent (x, y) = (s, +-spread * max(s - 2, 0)) + noise is mapped into R^d by a fixed random
    orthogonal map, plus small isotropic noise.
    """
    n, T = _count(n), _count(T, "T")
    if isinstance(d, bool) or not isinstance(d, int) or d < 2:
        raise ValueError(f"d must be an integer >= 2; got {d!r}")
    spread = checks.finite_number("spread", spread)
    latent_noise = checks.nonnegative_number("latent_noise", latent_noise)
    ambient_noise = checks.nonnegative_number("ambient_noise", ambient_noise)
    g = _gen(seed)
    q, _ = torch.linalg.qr(torch.randn(d, d, generator=g))
    out = []
    for s in range(T):
        sign = torch.randint(0, 2, (n,), generator=g).float() * 2 - 1
        lat = torch.stack([torch.full((n,), float(s)), sign * spread * max(s - 2, 0)], dim=1)
        lat = lat + latent_noise * torch.randn(n, 2, generator=g)
        out.append(lat @ q[:, :2].T + ambient_noise * torch.randn(n, d, generator=g))
    return out


# --------------------------------------------------------------------------- real data: Gapminder
GAPMINDER_SHA256 = "c53831dd4f11cb3df77f2100eb02cd48ea72f86252ab7772b1dcc75abefa1c8a"
"""sha256 of ``assets/gapminder.csv``: the Gapminder excerpt (country, continent, year, lifeExp, gdpPercap) of the
R package ``gapminder`` (Jennifer Bryan), data by the Gapminder Foundation under CC BY 4.0; copied from the
``gapminder.csv.gz`` that plotly 6 ships in its wheel (columns pop, iso and centroids dropped). See
``assets/README.md``."""
GAPMINDER_FEATURES = ("log10 GDP per capita", "life expectancy")


def bundled_gapminder_path():
    """The Gapminder table vendored with this package (no plotly needed, so bare GPU machines read it too)."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "assets" / "gapminder.csv"


def gapminder(path=None) -> tuple[list[torch.Tensor], list[int]]:
    """The Gapminder panel as snapshots: for each year 1952, 1957, ..., 2007 the (142, 2) cloud of countries in
    (log10 GDP per capita, life expectancy); returns ``(snapshots, years)``.

    ``path=None`` reads the copy vendored in ``assets/`` (no download) and checks its sha256;
    otherwise a CSV (optionally gzipped) with at least the columns ``year``, ``lifeExp``, ``gdpPercap``
    (Gapminder's own export, the R/plotly format). Country identity is dropped, as in snapshot data.
    Source: Gapminder Foundation (gapminder.org), CC BY 4.0, as excerpted by the R package gapminder.
    """
    import csv
    import gzip
    import hashlib
    import io
    import os
    from pathlib import Path

    bundled = path is None
    if not bundled and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a path to a CSV file; got {type(path).__name__}")
    path = bundled_gapminder_path() if bundled else Path(path)
    if not path.is_file():
        raise ValueError(f"path: no Gapminder CSV at {path}")
    raw = path.read_bytes()
    text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    if bundled and hashlib.sha256(text).hexdigest() != GAPMINDER_SHA256:
        raise ValueError(f"the Gapminder table at {path} does not have the expected sha256 {GAPMINDER_SHA256}")
    rows = list(csv.DictReader(io.StringIO(text.decode("utf-8"))))
    need = {"year", "lifeExp", "gdpPercap"}
    if not rows or not need <= set(rows[0]):
        raise ValueError(f"path: the CSV must have the columns {sorted(need)}; got {sorted(rows[0]) if rows else []}")
    by_year: dict[int, list[list[float]]] = {}
    for r in rows:
        gdp, life = float(r["gdpPercap"]), float(r["lifeExp"])
        if not (math.isfinite(gdp) and gdp > 0 and math.isfinite(life)):
            raise ValueError(f"path: row {r} has a non-positive or non-finite gdpPercap or lifeExp")
        by_year.setdefault(int(r["year"]), []).append([math.log10(gdp), life])
    years = sorted(by_year)
    if len(years) < 3 or any(len(by_year[y]) < 2 for y in years):
        raise ValueError("path: the CSV must hold at least 3 years with at least 2 rows each")
    return [torch.tensor(by_year[y], dtype=torch.float32) for y in years], years
