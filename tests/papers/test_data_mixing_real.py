"""The real-data loader and fitter of data_mixing (realdata.py), on a small loss table we make here (the authors'
table carries no licence and is not shipped)."""

import numpy as np
import pytest

from icml26.papers.data_mixing import baselines, experiment, method, realdata

DOMS = ("arxiv", "book", "c4")


def _write_table(path, n_mix=12, scales=((122e6, 2e9), (310e6, 4e9)), seed=0, blank=None):
    rng = np.random.default_rng(seed)
    h = rng.dirichlet(np.ones(3), n_mix)
    p = {"b": [0.5, 0.8, 1.1], "c": [2.0, 3.0, 1.0], "A": [0.3, 0.2, 0.1], "a": [0.3, 0.4, 0.5],
         "E": [1.5, 1.4, 1.3], "H": 1.0}
    lines = [",".join([f"weight_{d}" for d in DOMS] + ["model_size", "n_tokens"] + [f"{d}_loss" for d in DOMS]
                      + ["other_loss"])]
    for N, D in scales:
        L = method.evaluate_law(p, h, N / 1e6, D / 1e9)["loss"]
        for m in range(n_mix):
            cells = [repr(float(v)) for v in h[m]] + [repr(N), repr(D)] + [repr(float(v)) for v in L[m]] + ["1.0"]
            lines.append(",".join(cells))
    if blank is not None:
        row = lines[blank].split(",")
        row[6] = ""
        lines[blank] = ",".join(row)
    path.write_text("\n".join(lines) + "\n")
    return h


def test_loader_reads_the_authors_format_in_their_units_and_drops_incomplete_rows(tmp_path):
    f = tmp_path / "t.csv"
    h = _write_table(f, blank=3)
    t = realdata.load_loss_table(f)
    assert t["domains"] == list(DOMS) and t["dropped"] == 1
    assert t["h"].shape == (23, 3) and t["L"].shape == (23, 3)
    assert realdata.scales_of(t) == [(122.0, 2.0), (310.0, 4.0)]
    assert len(np.unique(t["mixture"])) == 12
    np.testing.assert_allclose(t["h"][:2], h[:2])


def test_loader_names_the_path_on_a_missing_column(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("weight_a,weight_b,a_loss,model_size,n_tokens\n0.5,0.5,2.0,1e8,1e9\n")
    with pytest.raises(ValueError, match="path"):
        realdata.load_loss_table(f)
    with pytest.raises(ValueError, match="path"):
        realdata.load_loss_table(tmp_path / "absent.csv")


def test_fit_real_recovers_a_table_made_by_the_law_and_skips_laws_with_too_few_rows(tmp_path):
    f = tmp_path / "t.csv"
    _write_table(f, n_mix=14)
    t = realdata.load_loss_table(f)
    laws = {"ours": method.LAW, "linear": baselines.LINEAR, "shukor": baselines.SHUKOR}
    out = realdata.fit_real(t, laws, realdata.scales_of(t)[:1], restarts=2, maxiter=300, split_seed=1)
    ps = out["per_scale"][0]
    assert ps["n_mix"] == 14 and ps["n_train"] == 10
    assert ps["mre"]["ours"] < 0.01  # the table is the law itself (noise-free): the fit must find it
    # Shukor's law has 2K^2+5K = 33 parameters, more than the <= 10 x 3 = 30 active training entries
    assert ps["mre"]["shukor"] is None and ps["mre"]["linear"] is not None
    assert out["mean"] == {"ours": None, "linear": None, "shukor": None}  # no scale where every law was fitted
    assert set(experiment.LAWS) >= set(laws)


def test_joint_fit_uses_every_scale_for_the_scale_aware_laws_only(tmp_path):
    f = tmp_path / "t.csv"
    _write_table(f, n_mix=14, scales=((122e6, 2e9), (310e6, 4e9), (680e6, 8e9)))
    t = realdata.load_loss_table(f)
    laws = {"ours": method.LAW, "linear": baselines.LINEAR}
    kw = dict(restarts=2, maxiter=300, split_seed=1)
    joint = realdata.fit_real(t, laws, realdata.scales_of(t), joint=True, **kw)
    apart = realdata.fit_real(t, laws, realdata.scales_of(t), **kw)
    assert joint["joint"] and not apart["joint"]
    # the table is the law itself at three scales: one fit over all of them must recover it at each scale
    assert all(p["mre"]["ours"] < 0.01 for p in joint["per_scale"])
    # the linear law has no N, D terms: it is still fitted per scale, so both calls agree on it
    assert [p["mre"]["linear"] for p in joint["per_scale"]] == [p["mre"]["linear"] for p in apart["per_scale"]]
    with pytest.raises(TypeError, match="joint"):
        realdata.fit_real(t, laws, realdata.scales_of(t), joint=1)
