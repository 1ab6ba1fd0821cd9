"""Real LLM loss tables in the authors' CSV format, read from a path the user gives (nothing is shipped).

The official repository (github.com/meiqwq/Explaining-Data-Mixing-Scaling-Laws, commit c2bf110) ships
``data/dmsl_llm_slimpajama.csv`` (7 SlimPajama domains, models of 122M-2.7B parameters, 2-52B tokens; the format
and the model sizes match the runs of Shukor et al. 2025) but carries **no licence**, so the companion does not
redistribute it. :func:`load_loss_table` reads such a file from a user path; :func:`fit_real` fits every law on it
with the one fitter (``fitting.fit_law``) and the one split (by mixture) the synthetic experiment uses.

Format: one row per (mixture, model size, token count); columns ``weight_<dom>`` (mixture weights summing to one),
``<dom>_loss`` for the same domains, ``model_size`` (parameters) and ``n_tokens``; other columns are ignored.
The law's units are the authors': N in millions of parameters, D in billions of tokens.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from icml26 import checks

from .fitting import check_weights, fit_law, mre, split_by_mixture


def load_loss_table(path) -> dict:
    """Read a loss table (see the module docstring). Returns ``domains``, ``h`` (M, K), ``N`` (M,, millions of
    parameters), ``D`` (M,, billions of tokens), ``L`` (M, K) and ``mixture`` (M,, an id per distinct mixture).
    Raises ``ValueError`` naming ``path`` when the file is missing, a column is missing or a value is bad."""
    if not isinstance(path, (str, Path)):
        raise ValueError(f"path must be a file path (str or Path); got {type(path).__name__}")
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"path must name an existing CSV file; got {str(p)!r}")
    with p.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise ValueError(f"path {str(p)!r} holds no data rows")
    cols = list(rows[0])
    domains = [c[len("weight_"):] for c in cols if c.startswith("weight_")]
    missing = [f"{d}_loss" for d in domains if f"{d}_loss" not in cols] + \
        [c for c in ("model_size", "n_tokens") if c not in cols]
    if len(domains) < 2 or missing:
        raise ValueError(f"path {str(p)!r} must have weight_<dom> columns for >= 2 domains, a <dom>_loss column "
                         f"for each, model_size and n_tokens; missing {missing or 'weight_ columns'}")
    try:
        h = np.array([[float(r[f"weight_{d}"]) for d in domains] for r in rows])
        # an empty loss cell (a run not evaluated on that domain) is read as missing and its row dropped
        L = np.array([[float(r[f"{d}_loss"]) if str(r[f"{d}_loss"]).strip() else np.nan for d in domains]
                      for r in rows])
        N = np.array([float(r["model_size"]) for r in rows]) / 1e6
        D = np.array([float(r["n_tokens"]) for r in rows]) / 1e9
    except (TypeError, ValueError) as exc:
        raise ValueError(f"path {str(p)!r} holds a value that is not a number ({exc})") from None
    h = check_weights(h / h.sum(1, keepdims=True) if np.all(np.abs(h.sum(1) - 1) < 1e-3) else h,
                      name="path's weights")
    keep = ~np.isnan(L).any(1)
    if not keep.any():
        raise ValueError(f"path {str(p)!r}: no row has every <dom>_loss")
    h, L, N, D = h[keep], L[keep], N[keep], D[keep]
    if not (np.all(np.isfinite(L)) and np.all(L > 0)):
        raise ValueError(f"path {str(p)!r}: every <dom>_loss must be finite and positive")
    if not (np.all(np.isfinite(N)) and np.all(N > 0) and np.all(np.isfinite(D)) and np.all(D > 0)):
        raise ValueError(f"path {str(p)!r}: model_size and n_tokens must be finite and positive")
    _, mixture = np.unique(np.round(h, 6), axis=0, return_inverse=True)
    return {"domains": domains, "h": h, "N": N, "D": D, "L": L, "mixture": mixture.ravel(),
            "dropped": int((~keep).sum())}


def scales_of(table: dict) -> list[tuple[float, float]]:
    """The distinct (N, D) pairs of a table, sorted."""
    checks.config("table", table, required=("N", "D"), allowed=("domains", "dropped", "h", "L", "mixture"))
    return sorted({(float(n), float(d)) for n, d in zip(table["N"], table["D"])})


def fit_real(table: dict, laws: dict, scales, *, train_frac: float = 0.7, split_seed: int = 11514,
             active: float = 0.1, restarts: int = 3, maxiter: int = 300, seed: int = 0, loss: str = "mse",
             joint: bool = False, device="cpu") -> dict:
    """Fit each law of ``laws`` (name -> LawSpec) at each (N, D) of ``scales`` on the train mixtures and report
    the held-out MRE over active entries (h >= ``active``, the official rule); the split holds out whole
    mixtures (one split for all scales). A law with fewer active training observations than parameters is
    reported as ``None``. With ``joint=True`` every law whose form uses N and D (``LawSpec.uses_scale``: ours,
    BiMix, Shukor's) is fitted once on the training mixtures of all ``scales`` together and evaluated at each
    scale; the laws without a scale term are still fitted per scale.
    Returns {"per_scale": [{"N", "D", "n_mix", "n_train", "mre": {law: test MRE or None}}], "mean": {law: mean
    test MRE over the scales where every law was fitted}, "joint": joint}."""
    checks.config("table", table, required=("h", "N", "D", "L", "mixture"), allowed=("domains", "dropped"))
    if not isinstance(laws, dict) or not laws:
        raise ValueError("laws must be a non-empty dict of name -> LawSpec")
    checks.in_range("train_frac", train_frac, 0.0, 1.0, low_open=True, high_open=True)
    checks.in_range("active", active, 0.0, 1.0, high_open=True)
    checks.seed("split_seed", split_seed)
    checks.seed("seed", seed)
    checks.positive_int("restarts", restarts)
    checks.positive_int("maxiter", maxiter)
    checks.one_of("loss", loss, ("mse", "huber", "log_mse"))
    checks.device("device", device)
    if isinstance(scales, (str, bytes)) or not hasattr(scales, "__len__") or len(scales) == 0 \
            or not all(hasattr(s, "__len__") and len(s) == 2 for s in scales):
        raise ValueError(f"scales must be a non-empty list of (N, D) pairs; got {scales!r}")
    checks.instance("joint", joint, bool)
    train_all = split_by_mixture(table["mixture"], train_frac, seed=split_seed)
    act_all = table["h"] >= active  # the official 7-domain script's rule (h_j >= 0.1 counts as active)
    sels = []
    for N, D in scales:
        sel = np.isclose(table["N"], N) & np.isclose(table["D"], D)
        if sel.sum() < 2:
            raise ValueError(f"scales must name (N, D) pairs of the table; ({N}, {D}) has {int(sel.sum())} rows")
        sels.append(sel)

    def fitted(spec, rows):
        tr = rows & train_all
        if int(act_all[tr].sum()) < spec.n_params(table["h"].shape[1]) or not tr.any() or tr.sum() == rows.sum():
            return None
        return fit_law(spec, table["h"][tr], table["N"][tr], table["D"][tr], table["L"][tr], act_all[tr],
                       restarts=restarts, maxiter=maxiter, seed=seed, loss=loss, device=device)

    every = np.any(sels, axis=0)
    shared = {name: fitted(spec, every) for name, spec in laws.items() if joint and spec.uses_scale}
    per_scale = []
    for (N, D), sel in zip(scales, sels):
        test = sel & ~train_all
        out = {}
        for name, spec in laws.items():
            fit = shared[name] if name in shared else fitted(spec, sel)
            out[name] = None if fit is None else mre(fit.predict(table["h"][test], N, D), table["L"][test],
                                                     act_all[test])
        per_scale.append({"N": N, "D": D, "n_mix": int(sel.sum()), "n_train": int((sel & train_all).sum()),
                          "mre": out})
    full = [p for p in per_scale if all(v is not None for v in p["mre"].values())]
    mean = {n: float(np.mean([p["mre"][n] for p in full])) if full else None for n in laws}
    return {"per_scale": per_scale, "mean": mean, "joint": joint}
