"""The experiment on synthetic data with known uncertainty (docs/papers/tabular_uncertainty.md §2, §5).

``run(config, device, seed)``:

1. **C1** draws ``hetero_sine`` (train/val/test) and estimates ``u`` on the test rows with the joint likelihood
   fit (the paper's estimator), the two-stage GBDT and the heteroscedastic MLP: rank correlation with the true
   ``sigma^2`` and with each other, and the over-statement ``u_hat / sigma^2`` overall and per noise quintile;
2. **C2** trains the plain MLP (``mlp_restarts`` independently initialised runs, their per-row errors averaged, so
   that one run's optimisation noise does not decide the shares) and the compared models (TabM-mini, kNN,
   ModernNCA, GBDT, MLP-PLR, MLP-PLE; same width/epochs/early stopping for the networks), computes
   per-test-sample excess error against the noiseless ``f`` and the signed quintile shares ``S_q`` of the
   improvement over the MLP, with test samples sorted by the *estimated* ``u`` (joint likelihood fit);
   the same for TabM-mini and MLP-PLR on the ``"multi"`` variant whose noise depends on all four features, and on
   scikit-learn's bundled diabetes table (out-of-fold squared errors against ``y``, :func:`_real`);
3. **C3** repeats MLP vs TabM-mini on the same ``f`` with the global noise multiplier ``s``;
4. **C4** neighbour-target MSE (k = 10) in raw standardised inputs vs the trained MLP-PLR/PLE embedding
   spaces, overall and per uncertainty quintile;
5. **C5** LRLR vs LRLR + triplet over ``c5_seeds`` x datasets (hetero_sine, sawtooth);
6. **C6** (full) a tiny regression PFN pretrained on the hetero-sine prior vs an MLP on the same
   ``n_ctx`` rows, excess error in the top-u quintile.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from icml26 import checks, progress

from . import baselines as B
from . import data as D
from . import method as M

# quick: our first plan had lr 1e-3 / batch 256; with 40 epochs that leaves every network badly under-fit (excess
# error dominated by bias), so all networks get lr 3e-3 / batch 64 (same budget for all models)
NN = dict(width=64, n_blocks=2, epochs=40, lr=3e-3, batch_size=64, patience=None)

CONFIGS = {
    "quick": dict(
        n_train=2000, n_val=400, n_test=2000, d=4, noise_dir="axis", nn=NN, tabm_k=8, knn_k=20,
        gbdt_iter=200, est=dict(n_folds=3, max_iter=60, mlp_epochs=20),
        models=["tabm", "knn", "plr"], plr=dict(n_frequencies=16, frequency_init_scale=0.3), mlp_restarts=3,
        noise_scales=None, c4=None, c5=None, pfn=None,
    ),
    "standard": dict(
        # our first plan had n=8000 and a 3x256 MLP; on the shared 2-core machine we run n=4000, 2x128
        n_train=4000, n_val=800, n_test=4000, d=4, noise_dir="axis",
        nn=dict(width=128, n_blocks=2, epochs=60, lr=2e-3, batch_size=128, patience=12), tabm_k=8, knn_k=20,
        gbdt_iter=300, est=dict(n_folds=5, max_iter=200, mlp_epochs=40), mlp_restarts=3,
        models=["tabm", "knn", "nca", "gbdt", "plr", "ple"], plr=dict(n_frequencies=16, frequency_init_scale=0.3),
        variant=dict(noise_dir="multi", models=["tabm", "plr"]), real=dict(table="diabetes", n_folds=5,
                                                                             models=["tabm", "gbdt"]),
        noise_scales=[0.0, 0.25, 0.5, 1.0], c3_n=(2000, 400, 2000), c4=dict(k=10, embedding="plr"),
        c5=dict(seeds=3, datasets=["hetero_sine", "sawtooth"], n_train=2000, n_val=400, n_test=2000,
                triplet_weight=0.1, q=0.2, margin=0.5, k=10),
        pfn=None,
    ),
    # full, sized for <= 10 min on one H200 (not run: no GPU was lent to us). Arithmetic from standard, where one
    # seed is ~35,000 optimiser steps of 2 x 128 networks (C2 5 nets x 60 epochs x 32 steps, the multi-noise variant
    # 3 x 1,920, C3 8 x 960, C5 12 x 960) plus the estimators, GBDT and the diabetes folds: 80 s of CPU on one
    # thread, ~2 ms a step. Full: C2 5 nets x 100 epochs x 98 steps (n = 50,000, batch 512) = 49,000 steps, the
    # variant 3 x 9,800 = 29,400, C3 8 x 100 x 40 (n = 20,000) = 31,000, C5 20 x 100 x 16 = 32,000: ~141,000 steps;
    # 3 x 512 (TabM k = 32) steps are launch-bound on an H200, ~1.5 ms each (assumed, not measured) -> ~210 s. Plus
    # the PFN's pretraining (time_limit 200 s), the CPU estimators on 40,000 rows (joint boosting ~300 rounds x 2
    # trees x ~30 ms = 20 s, twice; the two-stage GBDT 5 folds x 400 iterations ~60 s; HistGBDT 1,000 iterations
    # ~20 s) ~120 s, ModernNCA's candidate encoding ~30 s, the diabetes folds ~20 s: ~580 s, within 10 minutes.
    "full": dict(
        n_train=50000, n_val=10000, n_test=10000, d=4, noise_dir="axis",
        nn=dict(width=512, n_blocks=3, epochs=100, lr=1e-3, batch_size=512, patience=16), tabm_k=32, knn_k=20,
        gbdt_iter=1000, est=dict(n_folds=5, max_iter=400, mlp_epochs=60), mlp_restarts=3,
        models=["tabm", "knn", "nca", "gbdt", "plr", "ple"], plr=dict(n_frequencies=48, frequency_init_scale=0.3),
        variant=dict(noise_dir="multi", models=["tabm", "plr"]), real=dict(table="diabetes", n_folds=5,
                                                                             models=["tabm", "gbdt"]),
        noise_scales=[0.0, 0.25, 0.5, 1.0], c3_n=(20000, 4000, 10000), c4=dict(k=10, embedding="plr"),
        c5=dict(seeds=5, datasets=["hetero_sine", "sawtooth"], n_train=8000, n_val=1600, n_test=4000,
                triplet_weight=0.1, q=0.2, margin=0.5, k=10),
        pfn=dict(d_max=4, d_model=128, n_layers=4, n_heads=4, d_ff=256, steps=6000, batch_size=64,
                 n_ctx=(64, 512), n_qry=128, lr=5e-4, time_limit=200, tasks=16, ctx=512, n_test=1000, d=2),
    ),
}


REQUIRED = ("n_train", "n_val", "n_test", "d", "noise_dir", "nn", "tabm_k", "knn_k", "gbdt_iter", "est", "models")
MODEL_KINDS = ("mlp", "tabm", "knn", "nca", "gbdt", "plr", "ple", "lr", "lrlr", "lrlr_triplet")
EMBEDDING_KINDS = ("plr", "ple", "lr", "lrlr")
C5_KEYS = ("seeds", "datasets", "n_train", "n_val", "n_test", "triplet_weight", "q", "margin", "k")
PFN_KEYS = ("d_max", "d_model", "n_layers", "n_heads", "d_ff", "steps", "batch_size", "n_ctx", "n_qry", "lr",
            "time_limit", "tasks", "ctx", "n_test", "d")


def _check_sizes(prefix: str, block, keys) -> None:
    for k in keys:
        checks.positive_int(f"{prefix}[{k!r}]", block[k])


def _check_config(config) -> None:
    """The settings :func:`run` reads (see :data:`CONFIGS`), each named in the error as ``config[...]``."""
    checks.config("config", config, required=REQUIRED)
    _check_sizes("config", config, ("n_train", "n_val", "n_test", "tabm_k", "knn_k", "gbdt_iter"))
    if config["n_test"] < 5 or config["knn_k"] > config["n_train"]:
        raise ValueError(f"config needs n_test >= 5 (uncertainty quintiles) and knn_k <= n_train; got n_test="
                         f"{config['n_test']}, knn_k={config['knn_k']}, n_train={config['n_train']}")
    checks.one_of("config['noise_dir']", config["noise_dir"], D.NOISE_DIRS)
    checks.int_at_least("config['d']", config["d"], 3 if config["noise_dir"] == "axis" else 4)
    if config.get("variant") is not None:
        var = checks.config("config['variant']", config["variant"], required=("noise_dir", "models"))
        checks.one_of("config['variant']['noise_dir']", var["noise_dir"], D.NOISE_DIRS[1:])
        if config["d"] < 4 or any(m not in ("tabm", "plr", "gbdt", "knn") for m in var["models"]):
            raise ValueError(f"config['variant'] needs d >= 4 and models among tabm, plr, gbdt, knn; got d="
                             f"{config['d']}, models {var['models']!r}")
    nn_cfg = checks.config("config['nn']", config["nn"], required=("width", "n_blocks", "epochs", "lr", "batch_size",
                                                                    "patience"))
    _check_sizes("config['nn']", nn_cfg, ("width", "n_blocks", "epochs", "batch_size"))
    checks.positive_number("config['nn']['lr']", nn_cfg["lr"])
    if nn_cfg["patience"] is not None:
        checks.positive_int("config['nn']['patience']", nn_cfg["patience"])
    est = checks.config("config['est']", config["est"], required=("n_folds", "max_iter", "mlp_epochs"))
    _check_sizes("config['est']", est, ("max_iter", "mlp_epochs"))
    checks.int_between("config['est']['n_folds']", est["n_folds"], 2, config["n_train"], what="n_train =")
    models = config["models"]
    if isinstance(models, (str, bytes)) or not isinstance(models, (list, tuple)) or \
            any(m not in MODEL_KINDS for m in models):
        raise ValueError(f"config['models'] must be a list of model kinds among {', '.join(MODEL_KINDS)}; "
                         f"got {models!r}")
    if config.get("real") is not None:
        real = checks.config("config['real']", config["real"], required=("table", "n_folds", "models"))
        checks.one_of("config['real']['table']", real["table"], tuple(D.REAL_TABLES))
        checks.int_between("config['real']['n_folds']", real["n_folds"], 2, 20)
        if isinstance(real["models"], (str, bytes)) or any(m not in ("tabm", "gbdt", "plr", "knn")
                                                          for m in real["models"]):
            raise ValueError(f"config['real']['models'] must be among tabm, gbdt, plr, knn; got {real['models']!r}")
    if config.get("mlp_restarts") is not None:
        checks.positive_int("config['mlp_restarts']", config["mlp_restarts"])
    if config.get("plr") is not None:
        checks.config("config['plr']", config["plr"], allowed=("n_frequencies", "frequency_init_scale"))
    if config.get("noise_scales"):
        for s in config["noise_scales"]:
            checks.nonnegative_number("config['noise_scales'] entries", s)
        if config.get("c3_n") is not None:
            c3_n = config["c3_n"]
            if isinstance(c3_n, (str, bytes)) or not hasattr(c3_n, "__len__") or len(c3_n) != 3:
                raise ValueError(f"config['c3_n'] must be (n_train, n_val, n_test); got {c3_n!r}")
            for v in c3_n:
                checks.positive_int("config['c3_n'] entries", v)
    if config.get("c4"):
        c4 = checks.config("config['c4']", config["c4"], required=("k", "embedding"))
        checks.positive_int("config['c4']['k']", c4["k"])
        checks.one_of("config['c4']['embedding']", c4["embedding"], EMBEDDING_KINDS)
    if config.get("c5"):
        c5 = checks.config("config['c5']", config["c5"], required=C5_KEYS)
        _check_sizes("config['c5']", c5, ("seeds", "n_train", "n_val", "n_test", "k"))
        if isinstance(c5["datasets"], (str, bytes)) or any(ds not in D.DATASETS for ds in c5["datasets"]):
            raise ValueError(f"config['c5']['datasets'] must name datasets among {', '.join(D.DATASETS)}; "
                             f"got {c5['datasets']!r}")
        checks.nonnegative_number("config['c5']['triplet_weight']", c5["triplet_weight"])
        checks.in_range("config['c5']['q']", c5["q"], 0.0, 0.5, low_open=True)
        checks.nonnegative_number("config['c5']['margin']", c5["margin"])
    if config.get("pfn"):
        checks.config("config['pfn']", config["pfn"], required=PFN_KEYS)


def _split(n_train, n_val, n_test, seed, dataset="hetero_sine", **kw):
    X, y, f, var = D.make_dataset(dataset, n_train + n_val + n_test, seed, **kw)
    a, b = n_train, n_train + n_val
    return dict(Xtr=X[:a], ytr=y[:a], Xva=X[a:b], yva=y[a:b], Xte=X[b:], yte=y[b:], fte=f[b:], vte=var[b:], ftr=f[:a])


def _nn(kind, S, cfg, seed, device, **extra):
    """Build and train one network on split ``S`` with the shared budget ``cfg['nn']``."""
    c = cfg["nn"]
    torch.manual_seed(seed)
    d = S["Xtr"].shape[1]
    Xt = torch.as_tensor(S["Xtr"], dtype=torch.float32)
    common = dict(width=c["width"], n_blocks=c["n_blocks"])
    plr = cfg.get("plr", {})
    if kind == "mlp":
        model = B.MLPRegressor(d, **common)
    elif kind == "tabm":
        model = B.TabM(d, k=cfg["tabm_k"], **common)
    elif kind == "nca":
        model = B.ModernNCA(d, width=c["width"], n_blocks=c["n_blocks"] - 1, embedding="plr", X_train=Xt, **plr)
    elif kind in ("plr", "ple", "lr", "lrlr"):
        model = B.MLPRegressor(d, embedding=kind, X_train=Xt, **common, **(plr if kind == "plr" else {}))
    elif kind == "lrlr_triplet":
        model = M.make_triplet_lrlr(d, **common, **extra)
    else:
        raise ValueError(f"unknown model kind {kind!r}")
    B.fit_nn(model, S["Xtr"], S["ytr"], S["Xva"], S["yva"], epochs=c["epochs"], lr=c["lr"],
             batch_size=c["batch_size"], patience=c["patience"], seed=seed, device=device)
    return model


def _predict(kind, S, cfg, seed, device, models):
    if kind == "knn":
        return B.knn_predict(S["Xtr"], S["ytr"], S["Xte"], k=cfg["knn_k"], device=device)
    if kind == "gbdt":
        return B.fit_gbdt(S["Xtr"], S["ytr"], max_iter=cfg["gbdt_iter"], seed=seed).predict(S["Xte"])
    models[kind] = _nn(kind, S, cfg, seed, device)
    return B.predict(models[kind], S["Xte"], device)


def _shares_block(e_base, e_m, u, vte, u_shuffled=None):
    """Signed quintile shares of the gain over the MLP, sorted by the estimated ``u`` (and by the true variance);
    ``u_shuffled`` (the same scores permuted over the rows) gives the negative control's shares."""
    delta = e_base - e_m
    out = {"shares": M.quintile_shares(delta, u).tolist(), "shares_oracle": M.quintile_shares(delta, vte).tolist(),
           "excess": float(e_m.mean()), "excess_by_q": M.group_means(e_m, u).tolist()}
    if u_shuffled is not None:
        out["shares_shuffled"] = M.quintile_shares(delta, u_shuffled).tolist()
    return out


def _c1(S, est, seed, device):
    """Estimators of ``u`` on the test rows vs the true ``sigma^2``: the joint likelihood fit (the paper's, used to
    sort the C2 plots), the two-stage GBDT and the heteroscedastic MLP; rank agreement and over-statement."""
    u_joint = M.joint_uncertainty(S["Xtr"], S["ytr"], S["Xte"], seed=seed)
    u_gbdt = M.gbdt_uncertainty(S["Xtr"], S["ytr"], S["Xte"], n_folds=est["n_folds"], max_iter=est["max_iter"],
                                seed=seed)
    u_mlp = M.hetero_mlp_uncertainty(S["Xtr"], S["ytr"], S["Xte"], epochs=est["mlp_epochs"], seed=seed, device=device)
    out = {"joint_vs_true": M.spearman(u_joint, S["vte"]), "gbdt_vs_true": M.spearman(u_gbdt, S["vte"]),
           "mlp_vs_true": M.spearman(u_mlp, S["vte"]), "joint_vs_mlp": M.spearman(u_joint, u_mlp),
           "gbdt_vs_mlp": M.spearman(u_gbdt, u_mlp), "u": u_joint}
    for name, est_u in (("joint", u_joint), ("gbdt", u_gbdt), ("mlp", u_mlp)):
        overall, by_q = M.overstatement(est_u, S["vte"])
        out[f"over_{name}"], out[f"over_{name}_by_q"] = overall, by_q.tolist()
    return out


def _c2(S, u, cfg, kinds, seed, device, models):
    """The MLP and each model of ``kinds`` on split ``S``: excess error per u-quintile and the shares ``S_q``, also
    with the per-row ``u`` shuffled over the rows (the headline's negative control: the scores keep their values
    but no longer belong to their rows, so any contrast between quintiles must vanish)."""
    u_shuffled = np.random.default_rng([seed, 23]).permutation(u)
    # the MLP baseline's per-row excess error averaged over ``mlp_restarts`` independently initialised runs (issue 67):
    # one run's optimisation noise must not decide where a model's gain over the MLP sits
    restarts = cfg.get("mlp_restarts", 1)
    e_runs = [M.excess(_predict("mlp", S, cfg, seed + 7919 * i, device, models if i == 0 else {}), S["fte"])
              for i in range(restarts)]
    e_mlp = np.mean(e_runs, axis=0)
    out = {"mlp": {"excess": float(e_mlp.mean()), "excess_by_q": M.group_means(e_mlp, u).tolist(), "restarts": restarts,
                   "excess_per_restart": [float(e.mean()) for e in e_runs]}}
    order, curves = np.argsort(u), {}
    for kind in kinds:
        e = M.excess(_predict(kind, S, cfg, seed, device, models), S["fte"])
        out[kind] = _shares_block(e_mlp, e, u, S["vte"], u_shuffled)
        curves[kind] = (e_mlp - e)[order][:: max(1, len(order) // 400)].tolist()
    return out, curves


def _real(cfg, seed, device):
    """The uncertainty plot on a real table (paper §4 reads MLP vs GBDT on real data): ``n_folds``-fold
    cross-validation gives every row an out-of-fold squared error against its observed ``y`` for the MLP and each
    model, and an out-of-fold ``u`` from :func:`.method.joint_uncertainty`; ``f`` is unknown, so the gain is the
    difference of squared errors against ``y`` (the noise cancels in expectation). 20% of each training part is the
    networks' validation split."""
    real = cfg["real"]
    X, y = D.REAL_TABLES[real["table"]]()
    folds = np.random.default_rng([seed, 17]).permutation(len(y)) % real["n_folds"]
    kinds = ["mlp"] + list(real["models"])
    err, u = {m: np.empty(len(y)) for m in kinds}, np.empty(len(y))
    for k in range(real["n_folds"]):
        te, rest = folds == k, np.flatnonzero(folds != k)
        va = np.random.default_rng([seed, k]).choice(rest, len(rest) // 5, replace=False)
        tr = np.setdiff1d(rest, va)
        S = dict(Xtr=X[tr], ytr=y[tr], Xva=X[va], yva=y[va], Xte=X[te])
        u[te] = M.joint_uncertainty(X[rest], y[rest], X[te], seed=seed)
        for m in kinds:
            err[m][te] = (_predict(m, S, cfg, seed, device, {}) - y[te]) ** 2
    by_q = M.group_means(err["mlp"], u)
    out = {"table": real["table"], "n": len(y), "mlp": {"mse": float(err["mlp"].mean()), "mse_by_q": by_q.tolist()},
           "mlp_top_over_bottom": float(by_q[-1] / by_q[0])}
    for m in real["models"]:
        out[m] = {"mse": float(err[m].mean()), "shares": M.quintile_shares(err["mlp"] - err[m], u).tolist(),
                  "mse_by_q": M.group_means(err[m], u).tolist()}
    return out


def _c3(cfg, seed, device):
    out = {"scales": list(cfg["noise_scales"]), "mlp": [], "tabm": [], "ratio": []}
    n_tr, n_va, n_te = cfg.get("c3_n", (cfg["n_train"], cfg["n_val"], cfg["n_test"]))
    for s in cfg["noise_scales"]:
        S = _split(n_tr, n_va, n_te, seed, d=cfg["d"], noise_dir=cfg["noise_dir"],
                   noise_scale=float(s))
        em = M.excess(B.predict(_nn("mlp", S, cfg, seed, device), S["Xte"], device), S["fte"]).mean()
        et = M.excess(B.predict(_nn("tabm", S, cfg, seed, device), S["Xte"], device), S["fte"]).mean()
        out["mlp"].append(float(em))
        out["tabm"].append(float(et))
        out["ratio"].append(float(em / et))
    out["spearman"] = M.spearman(out["scales"], out["ratio"])
    return out


def _c4(S, u, model, c4, device):
    raw_mu, raw_sd = S["Xtr"].mean(0), S["Xtr"].std(0)
    Ztr, Zte = (S["Xtr"] - raw_mu) / raw_sd, (S["Xte"] - raw_mu) / raw_sd
    raw = M.neighbour_target_mse(Ztr, S["ytr"], Zte, S["yte"], k=c4["k"], device=device)
    with torch.no_grad():
        Etr = model.embed(torch.as_tensor(S["Xtr"], dtype=torch.float32, device=device))
        Ete = model.embed(torch.as_tensor(S["Xte"], dtype=torch.float32, device=device))
    emb = M.neighbour_target_mse(Etr, S["ytr"], Ete, S["yte"], k=c4["k"], device=device)
    rq, eq = M.group_means(raw, u), M.group_means(emb, u)
    return {"raw": float(raw.mean()), "emb": float(emb.mean()), "reduction": float(1 - emb.mean() / raw.mean()),
            "raw_by_q": rq.tolist(), "emb_by_q": eq.tolist(), "gap_top": float(rq[-1] - eq[-1]),
            "gap_bottom": float(rq[0] - eq[0])}


def _c5(cfg, seed, device):
    c5 = cfg["c5"]
    runs = []
    for ds in c5["datasets"]:
        for r in range(c5["seeds"]):
            s = 1000 * seed + r
            kw = dict(d=cfg["d"], noise_dir=cfg["noise_dir"]) if ds == "hetero_sine" else {}
            S = _split(c5["n_train"], c5["n_val"], c5["n_test"], s, dataset=ds, **kw)
            row = {"dataset": ds, "seed": s}
            for name in ("lrlr", "lrlr_triplet"):
                extra = dict(triplet_weight=c5["triplet_weight"], q=c5["q"], margin=c5["margin"]) \
                    if name == "lrlr_triplet" else {}
                model = _nn(name, S, cfg, s, device, **extra)
                pred = B.predict(model, S["Xte"], device)
                with torch.no_grad():
                    Etr = model.embed(torch.as_tensor(S["Xtr"], dtype=torch.float32, device=device))
                    Ete = model.embed(torch.as_tensor(S["Xte"], dtype=torch.float32, device=device))
                row[name] = {"rmse": float(np.sqrt(((pred - S["yte"]) ** 2).mean())),
                             "excess": float(M.excess(pred, S["fte"]).mean()),
                             "ntmse": float(M.neighbour_target_mse(Etr, S["ytr"], Ete, S["yte"], k=c5["k"],
                                                                   device=device).mean())}
            runs.append(row)
    rm = np.array([[r["lrlr"]["rmse"], r["lrlr_triplet"]["rmse"]] for r in runs])
    ex = np.array([[r["lrlr"]["excess"], r["lrlr_triplet"]["excess"]] for r in runs])
    nt = np.array([[r["lrlr"]["ntmse"], r["lrlr_triplet"]["ntmse"]] for r in runs])
    return {"runs": runs, "rmse_lrlr": float(rm[:, 0].mean()), "rmse_triplet": float(rm[:, 1].mean()),
            "win_frac": float((rm[:, 1] < rm[:, 0]).mean()), "excess_gain": float((1 - ex[:, 1] / ex[:, 0]).mean()),
            "ntmse_reduction": float(1 - nt[:, 1].mean() / nt[:, 0].mean())}


def _c6(cfg, seed, device):
    from icml26.nn.pfn import TinyPFN, train_pfn

    p = cfg["pfn"]
    model = TinyPFN(d_max=p["d_max"], d_model=p["d_model"], n_layers=p["n_layers"], n_heads=p["n_heads"],
                    d_ff=p["d_ff"], task="reg")
    log = train_pfn(model, D.hetero_sine_prior, steps=p["steps"], batch_size=p["batch_size"], n_ctx=tuple(p["n_ctx"]),
                    n_qry=p["n_qry"], d=p["d"], lr=p["lr"], seed=seed, device=device, time_limit=p["time_limit"])
    pf, mf = [], []
    for t in range(p["tasks"]):
        S = _lowdim_split(p, seed, t)  # a fresh hetero-sine task from the PFN's prior family (d <= 4)
        u = S["vte"]
        e_pfn = M.excess(M.pfn_regress(model, S["Xtr"], S["ytr"], S["Xte"], device), S["fte"])
        e_mlp = M.excess(B.predict(_nn("mlp", S, cfg, seed + t, device), S["Xte"], device), S["fte"])
        pf.append(M.group_means(e_pfn, u).tolist())
        mf.append(M.group_means(e_mlp, u).tolist())
    pf, mf = np.array(pf), np.array(mf)
    return {"pfn_by_q": pf.mean(0).tolist(), "mlp_by_q": mf.mean(0).tolist(),
            "top_ratio": float(mf[:, -1].mean() / pf[:, -1].mean()), "pretrain_steps": log["steps"],
            "pretrain_seconds": log["seconds"], "final_loss": float(np.mean(log["loss"][-50:]))}


def _lowdim_split(p, seed, t):
    """A hetero-sine task from the PFN prior family (same generator as the pretraining prior)."""
    n_ctx, n_val, n_te = p["ctx"], max(64, p["ctx"] // 5), p["n_test"]
    X, y, meta = D.hetero_sine_prior(1, n_ctx + n_val, n_te, p["d"], seed=70000 + 100 * seed + t)
    X, y, f, var = (a[0].double().numpy() for a in (X, y, meta["f"], meta["var"]))
    a, b = n_ctx, n_ctx + n_val
    return dict(Xtr=X[:a], ytr=y[:a], Xva=X[a:b], yva=y[a:b], Xte=X[b:], yte=y[b:], fte=f[b:], vte=var[b:], ftr=f[:a])


def run(config: dict, device="cpu", seed: int = 0) -> dict:
    """Run the configured parts; returns a JSON-able dict (see the module docstring)."""
    checks.config_like("config", config, CONFIGS.values())
    _check_config(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    checks.device("device", device)
    device = torch.device(device)
    t0 = time.perf_counter()
    cfg = config
    bar = progress.StageBar(["C1 uncertainty", "C2 models"] + (["C2 multi-feature noise"] if cfg.get("variant") else [])
                            + (["C2 real table"] if cfg.get("real") else [])
                            + (["C3 noise scales"] if cfg.get("noise_scales") else [])
                            + (["C4 embeddings"] if cfg.get("c4") else []) + (["C5 LRLR"] if cfg.get("c5") else [])
                            + (["C6 PFN"] if cfg.get("pfn") else []), desc="tabular_uncertainty")
    bar.next("C1 uncertainty")
    S = _split(cfg["n_train"], cfg["n_val"], cfg["n_test"], seed, d=cfg["d"], noise_dir=cfg["noise_dir"])
    res = {"c1": _c1(S, cfg["est"], seed, device)}
    u = res["c1"].pop("u")
    bar.next("C2 models")
    models = {}
    res["c2"], curves = _c2(S, u, cfg, cfg["models"], seed, device, models)
    res["curves"] = curves
    res["u_sorted_true_var"] = S["vte"][np.argsort(u)][:: max(1, len(u) // 400)].tolist()
    if cfg.get("variant"):
        bar.next("C2 multi-feature noise")
        V = _split(cfg["n_train"], cfg["n_val"], cfg["n_test"], seed, d=cfg["d"], noise_dir=cfg["variant"]["noise_dir"])
        u_v = M.joint_uncertainty(V["Xtr"], V["ytr"], V["Xte"], seed=seed)
        res["c2_variant"], _ = _c2(V, u_v, cfg, cfg["variant"]["models"], seed, device, {})
        res["c2_variant"]["noise_dir"] = cfg["variant"]["noise_dir"]
    if cfg.get("real"):
        bar.next("C2 real table")
        res["c2_real"] = _real(cfg, seed, device)
    if cfg.get("noise_scales"):
        bar.next("C3 noise scales")
        res["c3"] = _c3(cfg, seed, device)
    if cfg.get("c4"):
        bar.next("C4 embeddings")
        kind = cfg["c4"]["embedding"]
        model = models.get(kind) or _nn(kind, S, cfg, seed, device)
        res["c4"] = _c4(S, u, model, cfg["c4"], device)
    if cfg.get("c5"):
        bar.next("C5 LRLR")
        res["c5"] = _c5(cfg, seed, device)
    if cfg.get("pfn"):
        bar.next("C6 PFN")
        res["c6"] = _c6(cfg, seed, device)
    res["seconds"] = time.perf_counter() - t0
    bar.close()
    return res
