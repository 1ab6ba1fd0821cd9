"""Synthetic EPF-like data with known exogenous drivers, TFB-style splits and rolling windows
(docs/papers/dag_tsfx.md §2).

Covariates are generated first and the target from them (never the reverse), so future covariates carry
no information about the future *target noise* (docs/papers/dag_tsfx.md §2: no leakage).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26 import checks


def _check_pos(name, value, low=0.0, strict=False):
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value < low or (strict and value <= low):
        raise ValueError(f"{name} must be a finite number {'>' if strict else '>='} {low}; got {value!r}")


def _check_series(endo, exo) -> None:
    """endo (n, N) and exo (n, D): finite 2-D arrays of one length."""
    checks.array("endo", endo, ndim=2)
    checks.array("exo", exo, ndim=2)
    if len(endo) != len(exo):
        raise ValueError(f"endo and exo must have the same length; got {len(endo)} and {len(exo)}")


def _ar1(rng, n, rho, scale):
    e = rng.standard_normal(n) * scale
    out = np.empty(n)
    acc = 0.0
    for t in range(n):  # O(n) scalar recursion on numpy floats; a few thousand steps
        acc = rho * acc + e[t]
        out[t] = acc
    return out


def _softplus(x):
    return np.logaddexp(0.0, x)


def synthetic_epf(n_steps: int = 3000, *, sigma_shock: float = 1.0, kappa: float = 1.0, lag: int = 0,
                  phi: float = 0.9, sigma_eps: float = 0.1, gamma: float = 4.0, z0: float = 0.6,
                  spike: float = 0.5, seed: int = 0) -> dict:
    """Hourly EPF-like series (docs/papers/dag_tsfx.md §2): load and renewables forecasts (covariates) drive
    a price (target).

    ``L_t = 1 + 0.3 sin(2 pi h/24 - 1) + 0.1 1[weekday] + u_t`` with ``u`` AR(1) (rho 0.9, shock
    ``0.2 sigma_shock``); ``R_t`` = solar (daylight bump times a logistic AR(1) cloudiness) + wind
    (softplus of an AR(1), shock ``sigma_shock``); ``Z = L - R``;
    ``P_t = 1 + kappa softplus(gamma (Z_{t-lag} - z0))^2 / gamma + kappa spike 1[Z_{t-lag} > q_97(Z)] + v_t``,
    ``v`` AR(1) with coefficient ``phi`` and innovation std ``sigma_eps`` (the part only history predicts).
    Returns ``endo (n, 1)``, ``exo (n, 2)`` float32 arrays, ``v`` and the parameters.
    """
    if not isinstance(n_steps, int) or n_steps < 200:
        raise ValueError(f"n_steps must be an integer >= 200; got {n_steps!r}")
    _check_pos("sigma_shock", sigma_shock)
    _check_pos("kappa", kappa)
    _check_pos("sigma_eps", sigma_eps)
    _check_pos("gamma", gamma, strict=True)
    if not isinstance(lag, int) or not 0 <= lag < 48:
        raise ValueError(f"lag must be an integer in [0, 48); got {lag!r}")
    if not isinstance(phi, (int, float)) or not -1 < phi < 1:
        raise ValueError(f"phi must be in (-1, 1); got {phi!r}")
    checks.finite_number("z0", z0)
    checks.nonnegative_number("spike", spike)
    checks.seed("seed", seed)
    rng = np.random.default_rng(seed)
    n = n_steps + lag
    t = np.arange(n)
    h, weekday = t % 24, ((t // 24) % 7) < 5
    load = 1 + 0.3 * np.sin(2 * np.pi * h / 24 - 1.0) + 0.1 * weekday + _ar1(rng, n, 0.9, 0.2 * sigma_shock)
    cloud = 1 / (1 + np.exp(-(0.5 + _ar1(rng, n, 0.95, 0.3 * sigma_shock))))
    solar = 0.4 * np.maximum(0.0, np.sin(np.pi * (h - 6) / 12)) * cloud
    wind = 0.3 * _softplus(_ar1(rng, n, 0.95, 0.3 * sigma_shock))
    z = load - (solar + wind)
    zl = z[:n_steps] if lag else z  # Z_{t-lag} aligned with P_t, t = lag..n-1
    thr = np.quantile(z, 0.97)
    drive = kappa * (_softplus(gamma * (zl - z0)) ** 2 / gamma + spike * (zl > thr))
    v = _ar1(rng, n_steps, phi, sigma_eps)
    price = 1.0 + drive + v
    exo = np.stack([load[lag:], (solar + wind)[lag:]], axis=1)
    return {"endo": price[:, None].astype(np.float32), "exo": exo.astype(np.float32), "v": v,
            "params": {"sigma_shock": sigma_shock, "kappa": kappa, "lag": lag, "phi": phi, "sigma_eps": sigma_eps,
                       "gamma": gamma, "z0": z0, "spike": spike}}


def oracle_floor(phi: float, sigma_eps: float, horizon: int, target_var: float) -> float:
    """MSE (on the z-scored target) of the Bayes forecast that knows the drive and the last ``v`` exactly.

    The residual ``v`` is AR(1): ``Var(v_{t+k} | v_t) = sigma_eps^2 (1 - phi^{2k}) / (1 - phi^2)``, averaged
    over ``k = 1..horizon`` and divided by the training variance of the target.
    """
    checks.in_range("phi", phi, -1.0, 1.0, low_open=True, high_open=True)
    checks.nonnegative_number("sigma_eps", sigma_eps)
    checks.positive_int("horizon", horizon)
    checks.positive_number("target_var", target_var)
    k = np.arange(1, horizon + 1)
    return float((sigma_eps ** 2 * (1 - phi ** (2 * k)) / (1 - phi ** 2)).mean() / target_var)


def split_and_scale(endo: np.ndarray, exo: np.ndarray, train: float = 0.7, val: float = 0.1) -> dict:
    """Chronological 70/10/20 split and z-scoring with train statistics (TFB ``norm: true``,
    docs/papers/dag_tsfx.md §2)."""
    endo, exo = np.asarray(endo, dtype=np.float32), np.asarray(exo, dtype=np.float32)
    if endo.ndim != 2 or exo.ndim != 2 or len(endo) != len(exo):
        raise ValueError(f"endo and exo must be 2-D with the same length; got {endo.shape}, {exo.shape}")
    if not (np.isfinite(endo).all() and np.isfinite(exo).all()):
        raise ValueError("endo and exo must be finite")
    if not (0 < train < 1 and 0 <= val < 1 and train + val < 1):
        raise ValueError(f"train and val must be fractions with train + val < 1; got {train}, {val}")
    n = len(endo)
    if int(n * train) < 2 or endo.shape[1] == 0 or exo.shape[1] == 0:
        raise ValueError(f"endo and exo must have at least one channel each and enough rows for a training split "
                         f"of >= 2 rows; got {endo.shape}, {exo.shape} with train={train}")
    b1, b2 = int(n * train), int(n * (train + val))
    mu_n, sd_n = endo[:b1].mean(0), endo[:b1].std(0) + 1e-8
    mu_x, sd_x = exo[:b1].mean(0), exo[:b1].std(0) + 1e-8
    return {"endo": (endo - mu_n) / sd_n, "exo": (exo - mu_x) / sd_x, "borders": (b1, b2, n),
            "target_var": float(endo[:b1].var(0)[0])}


def make_windows(endo, exo, seq_len: int, pred_len: int, start: int, stop: int, stride: int = 1,
                 device="cpu") -> dict:
    """Rolling windows whose *forecast* part lies in ``[start, stop)`` (history may reach back), stride ``stride``.

    Returns tensors ``x (W, T, N + D)`` (endogenous first), ``y (W, F, N)`` and ``y_exo (W, F, D)``.
    """
    for name, v in (("seq_len", seq_len), ("pred_len", pred_len), ("stride", stride)):
        checks.positive_int(name, v)
    _check_series(endo, exo)
    checks.nonnegative_int("start", start)
    checks.positive_int("stop", stop)
    if stop > len(endo):
        raise ValueError(f"stop must be <= the series length {len(endo)}; got {stop}")
    checks.device("device", device)
    first = max(start, seq_len)
    if stop - first < pred_len:
        raise ValueError(f"segment [start={start}, stop={stop}) is too short for seq_len={seq_len}, "
                         f"pred_len={pred_len}")
    full = torch.as_tensor(np.concatenate([endo, exo], axis=1), device=device)
    win = full[first - seq_len:stop].unfold(0, seq_len + pred_len, stride).permute(0, 2, 1)  # (W, T+F, C)
    n = endo.shape[1]
    return {"x": win[:, :seq_len].contiguous(), "y": win[:, seq_len:, :n].contiguous(),
            "y_exo": win[:, seq_len:, n:].contiguous()}


def tfb_windows(endo, exo, seq_len: int, pred_len: int, train_stride: int = 1, device="cpu") -> dict:
    """Train/val/test window sets of the TFB rolling protocol on already-scaled arrays (docs/papers/dag_tsfx.md §2)."""
    for name, v in (("seq_len", seq_len), ("pred_len", pred_len), ("train_stride", train_stride)):
        checks.positive_int(name, v)
    _check_series(endo, exo)
    checks.device("device", device)
    n = len(endo)
    b1, b2 = int(n * 0.7), int(n * 0.8)
    return {"train": make_windows(endo, exo, seq_len, pred_len, 0, b1, train_stride, device),
            "val": make_windows(endo, exo, seq_len, pred_len, b1, b2, 1, device),
            "test": make_windows(endo, exo, seq_len, pred_len, b2, n, 1, device)}


def seasonal_naive_exo(x: torch.Tensor, n_endo: int, pred_len: int, period: int = 24) -> torch.Tensor:
    """Seasonal-naive forecast of the covariates: repeat the last ``period`` steps of their history."""
    checks.tensor("x", x, ndim=3)
    checks.positive_int("pred_len", pred_len)
    checks.positive_int("period", period)
    if not isinstance(n_endo, int) or isinstance(n_endo, bool) or not 1 <= n_endo < x.shape[2]:
        raise ValueError(f"n_endo must be an integer in [1, {x.shape[2]}) (x's channels, covariates last); "
                         f"got {n_endo!r}")
    if x.shape[1] < period:
        raise ValueError(f"history length {x.shape[1]} must be >= period {period}")
    last = x[:, -period:, n_endo:]
    reps = -(-pred_len // period)
    return last.repeat(1, reps, 1)[:, :pred_len]


def load_tsfx_csv(path, target: str | None = None, date_col: str = "date", exo=None) -> dict:
    """Read a TSF-X data set in the paper's format (the TFB CSV convention: a ``date`` column, then the series,
    the target last) from a user path; nothing is downloaded.

    ``target`` defaults to the last non-date column, ``exo`` (a list of column names) to every other column.
    Returns ``endo (n, 1)`` and ``exo (n, D)`` float32 arrays (ready for :func:`split_and_scale`), the ``dates``
    as text and the column names ``target`` and ``exo_names``.
    """
    import csv

    p = checks.path("path", path, must_exist=True, kind="file")
    if not isinstance(date_col, str) or not date_col:
        raise ValueError(f"date_col must be a non-empty column name; got {date_col!r}")
    with open(p, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 3:
        raise ValueError(f"path must be a CSV with a header and at least two rows; got {len(rows)} lines")
    if date_col not in rows[0]:
        raise ValueError(f"date_col must name a column of the header {rows[0]}; got {date_col!r}")
    head = rows[0]
    cols = [c for c in head if c != date_col]
    target = cols[-1] if target is None else target
    if target not in cols:
        raise ValueError(f"target must be one of the columns {cols}; got {target!r}")
    exo = [c for c in cols if c != target] if exo is None else list(exo)
    if not exo or any(c not in cols or c == target for c in exo):
        raise ValueError(f"exo must be a non-empty list of columns among {[c for c in cols if c != target]}; "
                         f"got {exo!r}")
    idx = {c: head.index(c) for c in [target, *exo]}
    try:
        values = np.array([[float(r[idx[c]]) for c in [target, *exo]] for r in rows[1:]], dtype=np.float64)
    except (ValueError, IndexError) as exc:
        raise ValueError(f"path: every row must hold numbers in the columns {[target, *exo]} ({exc})") from None
    if not np.isfinite(values).all():
        raise ValueError(f"path: the columns {[target, *exo]} must be finite (no NaN or empty cells)")
    return {"endo": values[:, :1].astype(np.float32), "exo": values[:, 1:].astype(np.float32),
            "dates": [r[head.index(date_col)] for r in rows[1:]], "target": target, "exo_names": exo}
