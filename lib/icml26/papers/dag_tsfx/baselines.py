"""Baseline zoo of docs/papers/dag_tsfx.md §4 (compact, generic): DLinear, PatchTST-lite, TimeXer-lite, TiDE, NBEATSx,
a small static-free TFT, and a closed-form ridge reference on the target history and the past and future covariates.

Every model takes ``x (B, T, N + D)`` (endogenous first) and optional ``y_exo (B, F, D)`` and returns
``{"pred": (B, F, N), "aux": 0}`` like :class:`~icml26.papers.dag_tsfx.method.DAG`, so one trainer serves all.
Which inputs each model may use: DLinear, PatchTST: endogenous history only; TimeXer: endogenous + historical
covariates; TiDE, NBEATSx, TFT: endogenous + historical and future covariates.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks
from icml26.nn.attention import attention, causal_mask
from icml26.papers.dag_tsfx.layers import Encoder, FlattenHead, PatchEmbedding, _instance_stats, _moving_average
from icml26.papers.dag_tsfx.method import DAG, check_inputs


class _Base(nn.Module):
    def __init__(self, seq_len, pred_len, n_endo, n_exo):
        super().__init__()
        for name, v in (("seq_len", seq_len), ("pred_len", pred_len), ("n_endo", n_endo), ("n_exo", n_exo)):
            if not isinstance(v, int) or v < 0 or (v == 0 and name != "n_exo"):
                raise ValueError(f"{name} must be a positive integer; got {v!r}")
        self.seq_len, self.pred_len, self.n_endo, self.n_exo = seq_len, pred_len, n_endo, n_exo

    def _split(self, x, y_exo):
        check_inputs(x, y_exo, self.seq_len, self.pred_len, self.n_endo, self.n_exo)
        return x[..., :self.n_endo], x[..., self.n_endo:]

    def _out(self, pred):
        return {"pred": pred, "aux": pred.new_zeros(())}


class DLinear(_Base):
    """Moving-average decomposition + two linear maps T -> F, endogenous only (Zeng et al., 2023)."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, kernel: int = 25, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        checks.positive_int("kernel", kernel)
        self.kernel = kernel
        self.seasonal, self.trend = nn.Linear(seq_len, pred_len), nn.Linear(seq_len, pred_len)

    def forward(self, x, y_exo=None):
        xe, _ = self._split(x, y_exo)
        trend = _moving_average(xe, self.kernel)
        out = self.seasonal((xe - trend).transpose(1, 2)) + self.trend(trend.transpose(1, 2))
        return self._out(out.transpose(1, 2))


class PatchTST(_Base):
    """Channel-independent patch Transformer on the endogenous history with instance norm (Nie et al., 2023)."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_model=32, d_ff=64, n_heads=4, e_layers=1,
                 patch_len=24, stride=24, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        self.emb = PatchEmbedding(seq_len, patch_len, stride, d_model, dropout)
        self.enc = Encoder(d_model, n_heads, d_ff, e_layers, dropout)
        self.head = FlattenHead(self.emb.m, d_model, pred_len)

    def forward(self, x, y_exo=None):
        xe, _ = self._split(x, y_exo)
        mu, sd = _instance_stats(xe)
        z, _ = self.enc(self.emb(((xe - mu) / sd).transpose(1, 2)))
        return self._out(self.head(z, self.n_endo) * sd + mu)


class TimeXer(_Base):
    """TimeXer-lite (Wang et al., 2024): endogenous patch tokens + a learned global token that cross-attends to
    variate tokens of the *historical* covariates; future covariates are not used (docs/papers/dag_tsfx.md §4)."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_model=32, d_ff=64, n_heads=4, e_layers=1,
                 patch_len=24, stride=24, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        self.n_heads = n_heads
        self.emb = PatchEmbedding(seq_len, patch_len, stride, d_model, dropout)
        self.glob = nn.Parameter(torch.randn(1, 1, d_model) * 0.02)
        self.var_tok = nn.Linear(seq_len, d_model)
        self.self_enc = Encoder(d_model, n_heads, d_ff, e_layers, dropout)
        self.q, self.kv = nn.Linear(d_model, d_model), nn.Linear(d_model, 2 * d_model)
        self.o, self.norm = nn.Linear(d_model, d_model), nn.LayerNorm(d_model)
        self.head = FlattenHead(self.emb.m + 1, d_model, pred_len)

    def forward(self, x, y_exo=None):
        xe, xx = self._split(x, y_exo)
        mu, sd = _instance_stats(xe)
        mux, sdx = _instance_stats(xx)
        tok = self.emb(((xe - mu) / sd).transpose(1, 2))  # (B*N, M, d)
        bn, _, d = tok.shape
        z, _ = self.self_enc(torch.cat([tok, self.glob.expand(bn, -1, -1)], dim=1))
        ex = self.var_tok(((xx - mux) / sdx).transpose(1, 2)).repeat_interleave(self.n_endo, 0)  # (B*N, D, d)
        h = self.n_heads
        q = self.q(z[:, -1:]).view(bn, 1, h, -1).transpose(1, 2)
        k, v = self.kv(ex).view(bn, ex.shape[1], 2, h, -1).permute(2, 0, 3, 1, 4)
        g = attention(q, k, v, causal=False).out.transpose(1, 2).reshape(bn, 1, d)
        z = torch.cat([z[:, :-1], self.norm(z[:, -1:] + self.o(g))], dim=1)
        return self._out(self.head(z, self.n_endo) * sd + mu)


class _ResBlock(nn.Module):
    def __init__(self, d_in, d_hidden, d_out, dropout=0.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out), nn.Dropout(dropout))
        self.skip = nn.Linear(d_in, d_out)
        self.norm = nn.LayerNorm(d_out) if d_out > 1 else nn.Identity()  # LayerNorm of width 1 is constant

    def forward(self, x):
        return self.norm(self.net(x) + self.skip(x))


class TiDE(_Base):
    """TiDE (Das et al., 2023): covariate projection, dense encoder/decoder, per-step temporal decoder, linear skip.
    Uses past and future covariates."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_model=32, d_ff=64, proj_dim=4, dec_dim=8, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        for name, v in (("d_model", d_model), ("d_ff", d_ff), ("proj_dim", proj_dim), ("dec_dim", dec_dim)):
            checks.positive_int(name, v)
        checks.probability("dropout", dropout)
        self.dec_dim = dec_dim
        self.feat = _ResBlock(n_exo, d_ff, proj_dim, dropout)
        self.enc = _ResBlock(seq_len + (seq_len + pred_len) * proj_dim, d_ff, d_model, dropout)
        self.dec = _ResBlock(d_model, d_ff, pred_len * dec_dim, dropout)
        self.temporal = _ResBlock(dec_dim + proj_dim, d_ff, 1, dropout)
        self.skip = nn.Linear(seq_len, pred_len)

    def forward(self, x, y_exo=None):
        xe, xx = self._split(x, y_exo)
        if y_exo is None:
            raise ValueError("TiDE needs y_exo (future covariates)")
        mu, sd = _instance_stats(xe)
        y = ((xe - mu) / sd).transpose(1, 2).reshape(-1, self.seq_len)  # (B*N, T)
        cov = self.feat(torch.cat([xx, y_exo], dim=1))  # (B, T+F, p)
        cov_n = cov.repeat_interleave(self.n_endo, 0)
        e = self.enc(torch.cat([y, cov_n.flatten(1)], dim=-1))
        dec = self.dec(e).view(-1, self.pred_len, self.dec_dim)
        out = self.temporal(torch.cat([dec, cov_n[:, self.seq_len:]], dim=-1)).squeeze(-1) + self.skip(y)
        return self._out(out.view(-1, self.n_endo, self.pred_len).transpose(1, 2) * sd + mu)


class NBEATSx(_Base):
    """NBEATSx (Olivares et al., 2023), generic blocks with exogenous inputs (historical + future) fed to each
    block; doubly residual backcast/forecast. ``n_blocks`` blocks of ``n_layers`` ReLU layers."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, d_ff=64, n_blocks=2, n_layers=2, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        for name, v in (("d_ff", d_ff), ("n_blocks", n_blocks), ("n_layers", n_layers)):
            checks.positive_int(name, v)
        checks.probability("dropout", dropout)
        d_in = seq_len + (seq_len + pred_len) * n_exo

        def block():
            layers, w = [], d_in
            for _ in range(n_layers):
                layers += [nn.Linear(w, d_ff), nn.ReLU(), nn.Dropout(dropout)]
                w = d_ff
            return nn.Sequential(*layers, nn.Linear(w, seq_len + pred_len))

        self.blocks = nn.ModuleList(block() for _ in range(n_blocks))

    def forward(self, x, y_exo=None):
        xe, xx = self._split(x, y_exo)
        if y_exo is None:
            raise ValueError("NBEATSx needs y_exo (future covariates)")
        mu, sd = _instance_stats(xe)
        res = ((xe - mu) / sd).transpose(1, 2).reshape(-1, self.seq_len)
        cov = torch.cat([xx, y_exo], dim=1).flatten(1).repeat_interleave(self.n_endo, 0)
        fc = res.new_zeros(res.shape[0], self.pred_len)
        for blk in self.blocks:  # a handful of blocks, each batched
            theta = blk(torch.cat([res, cov], dim=-1))
            res = res - theta[:, :self.seq_len]
            fc = fc + theta[:, self.seq_len:]
        return self._out(fc.view(-1, self.n_endo, self.pred_len).transpose(1, 2) * sd + mu)


class _Dense(nn.Module):
    """``groups`` independent affine maps ``(groups, n, d_in) -> (groups, n, d_out)`` (one per input variable of a
    variable selection network, one batched matmul), or one map ``(..., d_in) -> (..., d_out)`` when ``groups`` is 0."""

    def __init__(self, d_in, d_out, groups=0):
        super().__init__()
        self.groups, g = groups, max(groups, 1)
        bound = 1.0 / d_in ** 0.5
        self.weight = nn.Parameter(torch.empty(g, d_in, d_out).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.empty(g, 1, d_out).uniform_(-bound, bound))

    def forward(self, x):
        if self.groups:
            return torch.baddbmm(self.bias, x, self.weight)
        return x @ self.weight[0] + self.bias[0, 0]


def _check_sizes(**sizes) -> None:
    for name, v in sizes.items():
        checks.positive_int(name, v)


class GatedResidualNetwork(nn.Module):
    """TFT's gated residual network (Lim et al. 2021, eq. 2-5) without a static context:
    ``LayerNorm(skip(a) + GLU(W1 ELU(W2 a + b2) + b1))``, the skip a linear map when ``d_in != d_out``.
    ``groups > 0`` runs that many independent GRNs (one per variable) on ``(groups, n, d_in)``."""

    def __init__(self, d_in: int, d_hidden: int, d_out: int, groups: int = 0, dropout: float = 0.0):
        super().__init__()
        _check_sizes(d_in=d_in, d_hidden=d_hidden, d_out=d_out)
        checks.nonnegative_int("groups", groups)
        checks.probability("dropout", dropout)
        self.fc2, self.fc1 = _Dense(d_in, d_hidden, groups), _Dense(d_hidden, d_hidden, groups)
        self.gate = _Dense(d_hidden, 2 * d_out, groups)  # GLU: value half times sigmoid of the gate half
        self.skip = _Dense(d_in, d_out, groups) if d_in != d_out else None
        shape = (groups, 1, d_out) if groups else (d_out,)  # one LayerNorm per group
        self.norm_w, self.norm_b = nn.Parameter(torch.ones(shape)), nn.Parameter(torch.zeros(shape))
        self.d_out = d_out
        self.drop = nn.Dropout(dropout)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        h = self.fc1(F.elu(self.fc2(a)))
        out = (a if self.skip is None else self.skip(a)) + F.glu(self.gate(self.drop(h)), dim=-1)
        return F.layer_norm(out, (self.d_out,)) * self.norm_w + self.norm_b


class GatedSkip(nn.Module):
    """TFT's gate, add and norm: ``LayerNorm(residual + GLU(x))`` (the skips around the LSTM, attention and GRN)."""

    def __init__(self, d_model: int, dropout: float = 0.0):
        super().__init__()
        _check_sizes(d_model=d_model)
        checks.probability("dropout", dropout)
        self.glu, self.norm, self.drop = nn.Linear(d_model, 2 * d_model), nn.LayerNorm(d_model), nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.norm(residual + F.glu(self.glu(self.drop(x)), dim=-1))


class VariableSelection(nn.Module):
    """TFT's variable selection network without a static context: each scalar input gets its own linear embedding
    and GRN; a GRN on all embeddings gives softmax weights over the variables; ``(B, L, V) -> (B, L, d), (B, L, V)``."""

    def __init__(self, n_vars: int, d_model: int, dropout: float = 0.0):
        super().__init__()
        _check_sizes(n_vars=n_vars, d_model=d_model)
        self.emb_w = nn.Parameter(torch.randn(n_vars, 1, d_model))
        self.emb_b = nn.Parameter(torch.zeros(n_vars, 1, d_model))
        self.select = GatedResidualNetwork(n_vars * d_model, d_model, n_vars, dropout=dropout)
        self.per_var = GatedResidualNetwork(d_model, d_model, d_model, groups=n_vars, dropout=dropout)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, length, v = x.shape
        e = x.reshape(-1, v).T.unsqueeze(-1) * self.emb_w + self.emb_b  # (V, B*L, d): variables lead
        w = torch.softmax(self.select(e.transpose(0, 1).reshape(b, length, -1)), dim=-1)  # (B, L, V)
        out = (w.permute(2, 0, 1).unsqueeze(-1) * self.per_var(e).view(v, b, length, -1)).sum(0)
        return out, w


class InterpretableAttention(nn.Module):
    """TFT's interpretable multi-head attention (Lim et al. 2021, eq. 13-16): per-head query and key projections,
    one value projection shared by all heads, the heads' outputs averaged, then one output map. Queries are the last
    ``q_len`` positions of ``x`` and see only keys up to their own position (causal mask over the decoder)."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        _check_sizes(d_model=d_model, n_heads=n_heads)
        if d_model % n_heads:
            raise ValueError(f"n_heads must divide d_model; got d_model={d_model}, n_heads={n_heads}")
        self.h, self.dh = n_heads, d_model // n_heads
        self.q, self.k = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.v, self.o = nn.Linear(d_model, self.dh), nn.Linear(self.dh, d_model)

    def forward(self, x: torch.Tensor, q_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        b, s, _ = x.shape
        q = self.q(x[:, s - q_len:]).view(b, q_len, self.h, self.dh).transpose(1, 2)
        k = self.k(x).view(b, s, self.h, self.dh).transpose(1, 2)
        scores = (q / self.dh ** 0.5) @ k.transpose(-1, -2)
        scores = scores.masked_fill(~causal_mask(q_len, s, device=x.device), float("-inf"))
        weights = torch.softmax(scores, dim=-1).mean(1)  # heads share V: averaging outputs = averaging weights
        return self.o(weights @ self.v(x)), weights


class TFT(_Base):
    """Temporal Fusion Transformer (Lim et al. 2021), small and static-free (our world has no static covariates, so
    there are no static encoders or contexts): variable selection over the past inputs (target, historical
    covariates) and over the known-future covariates, an LSTM encoder over the past and an LSTM decoder over the future
    started from the encoder's state, gated skips, a position-wise GRN (the enrichment layer, without context),
    interpretable multi-head attention with a causal mask over the decoder, a position-wise GRN and one linear output
    map applied at every horizon step.

    Simplifications: a point forecast of the target (instance-normalised, like the other baselines) trained with the
    protocol's MAE, which is the pinball loss at the median up to a factor 2 (the multi-quantile head is not built);
    one LSTM layer each; no dropout under the shared protocol. ``hidden`` is TFT's width (its own name, so the
    shared ``d_model`` of the patch models does not reach it), 16 here because every time step is a token: one
    training step at batch 128, T = 168 costs about 0.17 s of one CPU thread at 16 and 0.28 s at 32 (DAG: 0.04 s).
    Also returns the attention weights ``attn (B, F, T + F)`` and the variable selection weights
    ``past_weights (B, T, N + D)`` and ``future_weights (B, F, D)``."""

    def __init__(self, seq_len, pred_len, n_endo, n_exo, hidden=16, n_heads=4, dropout=0.0, **_):
        super().__init__(seq_len, pred_len, n_endo, n_exo)
        if n_exo < 1:
            raise ValueError(f"n_exo must be >= 1 for TFT (its decoder reads the known-future covariates); got {n_exo}")
        _check_sizes(hidden=hidden, n_heads=n_heads)
        d_model = hidden
        checks.probability("dropout", dropout)
        self.vsn_past = VariableSelection(n_endo + n_exo, d_model, dropout)
        self.vsn_future = VariableSelection(n_exo, d_model, dropout)
        self.encoder = nn.LSTM(d_model, d_model, batch_first=True)
        self.decoder = nn.LSTM(d_model, d_model, batch_first=True)
        self.lstm_skip = GatedSkip(d_model, dropout)
        self.enrich = GatedResidualNetwork(d_model, d_model, d_model, dropout=dropout)
        self.attn = InterpretableAttention(d_model, n_heads)
        self.attn_skip = GatedSkip(d_model, dropout)
        self.ff = GatedResidualNetwork(d_model, d_model, d_model, dropout=dropout)
        self.out_skip = GatedSkip(d_model)
        self.head = nn.Linear(d_model, n_endo)

    def forward(self, x, y_exo=None):
        xe, xx = self._split(x, y_exo)
        if y_exo is None:
            raise ValueError("TFT needs y_exo (future covariates)")
        mu, sd = _instance_stats(xe)
        past, w_past = self.vsn_past(torch.cat([(xe - mu) / sd, xx], dim=-1))
        fut, w_fut = self.vsn_future(y_exo)
        h_enc, state = self.encoder(past)
        h_dec, _ = self.decoder(fut, state)
        phi = self.lstm_skip(torch.cat([h_enc, h_dec], 1), torch.cat([past, fut], 1))
        theta = self.enrich(phi)
        att, weights = self.attn(theta, self.pred_len)
        delta = self.attn_skip(att, theta[:, self.seq_len:])
        psi = self.out_skip(self.ff(delta), phi[:, self.seq_len:])
        out = self._out(self.head(psi) * sd + mu)
        return {**out, "attn": weights, "past_weights": w_past, "future_weights": w_fut}


RIDGE_LAMBDAS = (0.1, 1.0, 10.0, 100.0, 1000.0)


def ridge_features(win: dict, hist_exo: bool = True, future: bool = True) -> torch.Tensor:
    """Float64 design matrix of one window set: the flattened target history, [the historical covariates],
    [the future covariates and their squares], and a bias column (docs/papers/dag_tsfx.md §4)."""
    checks.config("win", win, required=("x", "y_exo"))
    checks.tensor("win['x']", win["x"], ndim=3)
    checks.tensor("win['y_exo']", win["y_exo"], ndim=3)
    n_exo = win["y_exo"].shape[-1]
    x = win["x"].double()
    parts = [x[..., :x.shape[-1] - n_exo].flatten(1)]
    if hist_exo:
        parts.append(x[..., x.shape[-1] - n_exo:].flatten(1))
    if future:
        ye = win["y_exo"].double().flatten(1)
        parts += [ye, ye ** 2]
    parts.append(x.new_ones(len(x), 1))
    return torch.cat(parts, 1)


def ridge_solve(a: torch.Tensor, y: torch.Tensor, lam: float) -> torch.Tensor:
    """Closed-form ridge weights ``(A^T A + lam I)^{-1} A^T y`` (the bias is penalised too; inputs are z-scored)."""
    checks.tensor("a", a, ndim=2)
    checks.tensor("y", y, ndim=2, shape=(a.shape[0], None))
    checks.positive_number("lam", lam)
    eye = torch.eye(a.shape[1], dtype=a.dtype, device=a.device)
    return torch.linalg.solve(a.T @ a + lam * eye, a.T @ y.to(a.dtype))


def ridge_reference(wins: dict, lambdas=RIDGE_LAMBDAS, hist_exo: bool = True, future: bool = True) -> dict:
    """Ridge forecaster fitted on the training windows, ``lam`` chosen by validation MSE; returns ``lam`` and the
    test forecast ``pred (W, F, N)`` (the reference that issue 28 measured beating an undertrained DAG)."""
    checks.config("wins", wins, required=("train", "val", "test"))
    if not isinstance(lambdas, (list, tuple)) or not lambdas:
        raise ValueError(f"lambdas must be a non-empty list of positive numbers; got {lambdas!r}")
    for lam in lambdas:
        checks.positive_number("lambdas", lam)
    feats = {k: ridge_features(wins[k], hist_exo, future) for k in ("train", "val", "test")}
    shape = wins["test"]["y"].shape
    ys = {k: wins[k]["y"].transpose(1, 2).flatten(1) if wins[k]["y"].shape[-1] == 1 else None
          for k in ("train", "val")}
    if ys["train"] is None:
        raise ValueError("wins must hold one target channel (y of shape (W, F, 1)) for the ridge reference")
    best = None
    for lam in lambdas:
        w = ridge_solve(feats["train"], ys["train"], lam)
        val = float(((feats["val"] @ w - ys["val"]) ** 2).mean())
        if best is None or val < best[0]:
            best = (val, lam, w)
    pred = (feats["test"] @ best[2]).to(wins["test"]["y"].dtype).view(shape[0], shape[2], shape[1]).transpose(1, 2)
    return {"lam": best[1], "val_mse": best[0], "pred": pred}


MODELS = {"DAG": DAG, "DLinear": DLinear, "PatchTST": PatchTST, "TimeXer": TimeXer, "TiDE": TiDE, "NBEATSx": NBEATSx,
          "TFT": TFT}
USES_FUTURE = {"DAG": True, "DLinear": False, "PatchTST": False, "TimeXer": False, "TiDE": True, "NBEATSx": True,
               "TFT": True}


def make_model(name: str, seq_len: int, pred_len: int, n_endo: int, n_exo: int, **kwargs) -> nn.Module:
    """Build a model of :data:`MODELS` by name; unused keyword arguments are ignored by the baselines."""
    if name not in MODELS:
        raise ValueError(f"name must be one of {sorted(MODELS)}; got {name!r}")
    if name == "DAG":
        keep = {"d_model", "d_ff", "n_heads", "e_layers", "patch_len", "stride", "dropout", "alpha", "use_t", "use_c",
                "use_t_exog", "use_c_exog", "infer_use_future", "inject_mode"}
        kwargs = {k: v for k, v in kwargs.items() if k in keep}
    return MODELS[name](seq_len, pred_len, n_endo, n_exo, **kwargs)
