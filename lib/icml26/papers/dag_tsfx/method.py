"""DAG: dual correlation network for forecasting with exogenous variables (arXiv 2509.14933 §4;
docs/papers/dag_tsfx.md §3, whose section numbers are cited below).

Input convention (§3): ``x (B, T, N + D)`` with the N endogenous channels first, optional future
covariates ``y_exo (B, F, D)``. :class:`DAG` returns a dict with the blended forecast ``pred (B, F, N)``,
the branch forecasts ``pred_t`` (TCM) and ``pred_c`` (CCM), the predicted covariates ``exo_hat``, the
auxiliary discovery losses ``loss_t``, ``loss_c``, the gates ``alpha_t``, ``alpha_c`` and the attention maps.
"""

from __future__ import annotations

import torch
from torch import nn

from icml26 import checks
from icml26.papers.dag_tsfx.layers import (
    INJECT_MODES,
    CompressAndProject,
    Encoder,
    ExogProjector,
    FlattenHead,
    PatchEmbedding,
    VariateEmbedding,
    _instance_stats,
    n_patches,
)


def check_inputs(x: torch.Tensor, y_exo: torch.Tensor | None, seq_len: int, pred_len: int, n_endo: int,
                 n_exo: int) -> None:
    """Raise ``ValueError`` unless ``x`` is ``(B, seq_len, n_endo + n_exo)`` and ``y_exo`` ``(B, pred_len, n_exo)``."""
    for name, v in (("seq_len", seq_len), ("pred_len", pred_len), ("n_endo", n_endo)):
        checks.positive_int(name, v)
    checks.nonnegative_int("n_exo", n_exo)
    if not torch.is_tensor(x) or x.dim() != 3 or x.shape[1:] != (seq_len, n_endo + n_exo) or x.shape[0] == 0:
        raise ValueError(f"x must be a tensor (B >= 1, seq_len={seq_len}, n_endo + n_exo={n_endo + n_exo}); got "
                         f"{tuple(x.shape) if torch.is_tensor(x) else type(x).__name__}")
    if y_exo is not None and (not torch.is_tensor(y_exo) or y_exo.shape != (x.shape[0], pred_len, n_exo)):
        raise ValueError(f"y_exo must be a tensor (B={x.shape[0]}, pred_len={pred_len}, n_exo={n_exo}); got "
                         f"{tuple(y_exo.shape) if torch.is_tensor(y_exo) else type(y_exo).__name__}")
    x_ok = torch.isfinite(x).all()  # one host sync per forward pass for both tensors
    if not bool(x_ok if y_exo is None else x_ok & torch.isfinite(y_exo).all()):
        raise ValueError("x must be finite" if not bool(x_ok) else "y_exo must be finite")


def mixed_attention(native: torch.Tensor, injected: torch.Tensor, alpha: torch.Tensor,
                    mode: str = "softmax_sum") -> torch.Tensor:
    """Reference of the injection rule on probability maps (§3.2 step 5, §6).

    ``"softmax_sum"``: ``softmax(A + alpha * A_inj)`` (official code); ``"convex"``: ``(1-alpha) A + alpha A_inj``.
    """
    if mode not in INJECT_MODES:
        raise ValueError(f"mode must be one of {INJECT_MODES}; got {mode!r}")
    checks.tensor("native", native, ndim=(2, 3, 4))
    checks.tensor("injected", injected, shape=tuple(native.shape))
    checks.tensor("alpha", alpha, shape=(native.shape[0],))
    if bool(((alpha < 0) | (alpha > 1)).any()):
        raise ValueError("alpha must lie in [0, 1]")
    a = alpha.view(-1, *([1] * (native.dim() - 1)))
    if mode == "softmax_sum":
        return torch.softmax(native + a * injected, dim=-1)
    return (1 - a) * native + a * injected


class DAG(nn.Module):
    """The dual correlation network (§3.2-3.4).

    Flags (ablations, §3.4): ``use_t``/``use_c`` switch the temporal / channel correlation module off,
    ``use_t_exog``/``use_c_exog`` switch only their injections off; ``infer_use_future=False`` replaces the true
    future covariates by TCM's prediction at evaluation time; ``inject_mode`` is ``"softmax_sum"`` (faithful)
    or ``"convex"``; ``alpha`` blends ``alpha * pred_t + (1 - alpha) * pred_c``.
    """

    def __init__(self, seq_len: int, pred_len: int, n_endo: int, n_exo: int, *, d_model: int = 32, d_ff: int = 64,
                 n_heads: int = 4, e_layers: int = 1, patch_len: int = 24, stride: int = 24, dropout: float = 0.0,
                 alpha: float = 0.5, use_t: bool = True, use_c: bool = True, use_t_exog: bool = True,
                 use_c_exog: bool = True, infer_use_future: bool = True, inject_mode: str = "softmax_sum"):
        super().__init__()
        for name, v in (("seq_len", seq_len), ("pred_len", pred_len), ("n_endo", n_endo), ("n_exo", n_exo)):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer; got {v!r}")
        checks.probability("alpha", alpha)
        for name, v in (("d_model", d_model), ("d_ff", d_ff), ("n_heads", n_heads), ("e_layers", e_layers)):
            checks.positive_int(name, v)
        checks.probability("dropout", dropout)
        n_patches(seq_len, patch_len, stride)
        if not (use_t or use_c):
            raise ValueError("at least one of use_t, use_c must be True")
        if not infer_use_future and not use_t:
            raise ValueError("infer_use_future=False needs use_t=True (the predicted covariates come from TCM)")
        if inject_mode not in INJECT_MODES:
            raise ValueError(f"inject_mode must be one of {INJECT_MODES}; got {inject_mode!r}")
        self.seq_len, self.pred_len, self.n_endo, self.n_exo = seq_len, pred_len, n_endo, n_exo
        self.alpha, self.use_t, self.use_c = alpha, use_t, use_c
        self.use_t_exog, self.use_c_exog, self.infer_use_future = use_t_exog, use_c_exog, infer_use_future
        enc = dict(d_model=d_model, n_heads=n_heads, d_ff=d_ff, e_layers=e_layers, dropout=dropout,
                   inject_mode=inject_mode)
        # temporal correlation module (§3.2)
        self.emb_exo = PatchEmbedding(seq_len, patch_len, stride, d_model, dropout)
        self.emb_x = PatchEmbedding(seq_len, patch_len, stride, d_model, dropout)
        m = self.emb_x.m
        self.enc_exo, self.enc_x = Encoder(**enc), Encoder(**enc)
        self.head_exo, self.head_x = FlattenHead(m, d_model, pred_len), FlattenHead(m, d_model, pred_len)
        self.cp_x = CompressAndProject(n_endo, seq_len, d_model)
        self.cp_exo = CompressAndProject(n_exo, seq_len, d_model)
        # channel correlation module (§3.3)
        self.tok_h = VariateEmbedding(seq_len, n_exo, d_model, dropout)
        self.tok_f = VariateEmbedding(pred_len, n_exo, d_model, dropout)
        self.enc_h, self.enc_f = Encoder(**enc), Encoder(**enc)
        self.proj_h = ExogProjector(n_exo, d_model, seq_len)
        self.proj_f = ExogProjector(n_exo, d_model, pred_len)
        self.cp_h = CompressAndProject(n_exo, seq_len, d_model)
        self.cp_f = CompressAndProject(n_exo, pred_len, d_model)

    def temporal(self, xe: torch.Tensor, xx: torch.Tensor, y_exo: torch.Tensor | None) -> dict:
        """TCM: discovery on covariates, correlation maps from the target through E_exo, injected forecast."""
        n, d = self.n_endo, self.n_exo
        mu_e, sd_e = _instance_stats(xe)
        mu_x, sd_x = _instance_stats(xx)
        xe_n, xx_n = (xe - mu_e) / sd_e, (xx - mu_x) / sd_x
        z_exo, _ = self.enc_exo(self.emb_exo(xx_n.transpose(1, 2)))
        exo_hat = self.head_exo(z_exo, d) * sd_x + mu_x  # (B, F, D)
        loss_t = (exo_hat - y_exo).abs().mean() if y_exo is not None else xe.new_zeros(())
        tok_x = self.emb_x(xe_n.transpose(1, 2))  # (B*N, M, d)
        alpha_t = torch.sigmoid((self.cp_x(xe_n) * self.cp_exo(xx_n)).sum(-1))  # (B,)
        maps_t = None
        if self.use_t_exog:
            _, maps_t = self.enc_exo(tok_x)  # not detached: the forecast loss also trains E_exo (§3.2 step 3)
        alpha_rep = alpha_t.repeat_interleave(n)  # (B*N,) matches the (B, C) -> B*C patch layout
        z_x, native = self.enc_x(tok_x, maps_t, alpha_rep if maps_t is not None else None)
        pred_t = self.head_x(z_x, n) * sd_e + mu_e
        return {"pred_t": pred_t, "exo_hat": exo_hat, "loss_t": loss_t, "alpha_t": alpha_t, "maps_t": maps_t,
                "attn_x": native}

    def channel(self, xe: torch.Tensor, xx: torch.Tensor, fut: torch.Tensor) -> dict:
        """CCM (§3.3), looping over endogenous channels; output is in target units (no de-normalisation)."""
        mu_x, sd_x = _instance_stats(xx)
        xx_n, fut_n = (xx - mu_x) / sd_x, (fut - mu_x) / sd_x
        mu_e, sd_e = _instance_stats(xe)
        preds, losses, alphas, maps_all, natives = [], [], [], [], []
        for i in range(self.n_endo):  # N = 1 in every experiment (§6)
            h = xx_n * sd_e[:, :, i:i + 1] + mu_e[:, :, i:i + 1]
            f = fut_n * sd_e[:, :, i:i + 1] + mu_e[:, :, i:i + 1]
            z_h, _ = self.enc_h(self.tok_h(h))
            recon = self.proj_h(z_h)  # (B, T)
            losses.append((recon - xe[:, :, i]).abs().mean())
            tok_f = self.tok_f(f)
            maps_c = None
            if self.use_c_exog:
                _, maps_c = self.enc_h(tok_f)
            alpha_c = torch.sigmoid((self.cp_h(h) * self.cp_f(f)).sum(-1))
            z_f, native = self.enc_f(tok_f, maps_c, alpha_c if maps_c is not None else None)
            preds.append(self.proj_f(z_f))
            alphas.append(alpha_c)
            maps_all.append(maps_c)
            natives.append(native)
        return {"pred_c": torch.stack(preds, -1), "loss_c": torch.stack(losses).mean(),
                "alpha_c": torch.stack(alphas, -1), "maps_c": maps_all[0], "attn_f": natives[0]}

    def forward(self, x: torch.Tensor, y_exo: torch.Tensor | None = None) -> dict:
        check_inputs(x, y_exo, self.seq_len, self.pred_len, self.n_endo, self.n_exo)
        xe, xx = x[..., :self.n_endo], x[..., self.n_endo:]
        out = {"loss_t": x.new_zeros(()), "loss_c": x.new_zeros(())}
        if self.use_t:
            out.update(self.temporal(xe, xx, y_exo))
        if self.use_c:
            use_pred = y_exo is None or (not self.training and not self.infer_use_future)
            if use_pred and not self.use_t:
                raise ValueError("y_exo is required when use_t is False")
            fut = out["exo_hat"] if use_pred else y_exo
            out.update(self.channel(xe, xx, fut))
        if self.use_t and self.use_c:
            out["pred"] = self.alpha * out["pred_t"] + (1 - self.alpha) * out["pred_c"]
        else:
            out["pred"] = out["pred_t"] if self.use_t else out["pred_c"]
        out["aux"] = out["loss_t"] + out["loss_c"]
        return out


def dag_loss(out: dict, y: torch.Tensor, beta: float = 0.1) -> torch.Tensor:
    """``L = MAE(pred, y) + beta (L_t + L_c)`` (§3.4)."""
    checks.nonnegative_number("beta", beta)
    checks.config("out", out, required=("pred", "aux"))
    checks.tensor("y", y)
    if not torch.is_tensor(out["pred"]):
        raise TypeError(f"out['pred'] must be a tensor; got {type(out['pred']).__name__}")
    if out["pred"].shape != y.shape:
        raise ValueError(f"y must have the forecast's shape {tuple(out['pred'].shape)}; got {tuple(y.shape)}")
    return (out["pred"] - y).abs().mean() + beta * out["aux"]
