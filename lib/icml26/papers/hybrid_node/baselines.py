"""Baselines of the paper's Table 1, trained with the same rollout trainer, curriculum and budget as CHyLL++.

- :func:`train_state_node`: Neural ODE in state space, ẋ = f(x) (Chen et al. 2018); width matched so the
  parameter count equals CHyLL++'s three networks.
- :func:`train_latent_ode`: encode–integrate–decode without the geometric terms (CHyLL++'s networks with
  the state loss only, :data:`method.LATENT_ODE`). The experiment trains it as a member of the CHyLL++
  ensemble (same initialisation and windows), which is the same computation.
- :func:`train_chyll`: project approximation of CHyLL (inferred; see the docs page): phase 1 trains the
  encoder and latent field with latent dynamics + gluing + conformal + covariance terms (no L_v); phase 2
  trains the decoder on the frozen latent rollouts. Same total iterations.
- :func:`train_event_ode`: a Neural Event ODE (Chen, Amos & Nickel 2021) *discretised* on the RK4 grid
  (inferred simplification of ``odeint_event``): a learned event function g(x) and instantaneous update
  map u(x); when g changes sign from + to − within a step, the state jumps to x + u(x). The event time is
  located by linear interpolation of g, so the jump is differentiable with respect to g's values.

All models are ensembles (``members``; see :mod:`.method`), so several initialisations train as one model.
"""

from __future__ import annotations

import torch
from torch import nn

from icml26 import checks
from icml26.papers.hybrid_node.jumps import detect_jumps
from icml26.papers.hybrid_node.method import (
    LATENT_ODE,
    CHyLLpp,
    Field,
    _check_data,
    _cov_floor,
    _glue_velocity,
    mlp,
    n_params,
    normaliser,
    rollout_ode,
    train_chyllpp,
    train_rollout,
)


def matched_width(target: int, d_in: int, d_out: int, depth: int = 2) -> int:
    """Hidden width of a ``depth``-layer MLP d_in -> d_out whose parameter count is closest to ``target``."""
    checks.positive_int("target", target)
    for name, v in (("d_in", d_in), ("d_out", d_out), ("depth", depth)):
        checks.positive_int(name, v)
    def count(w):  # parameters of mlp(d_in, d_out, w, depth), in closed form
        return d_in * w + w + (depth - 1) * (w * w + w) + w * d_out + d_out

    return min(range(4, 1024), key=lambda w: abs(count(w) - target))


class StateNODE(nn.Module):
    """ẋ = f_φ(x) in (standardised) state space; an ensemble of ``members`` fields."""

    def __init__(self, n: int, width: int, depth: int = 2, last: str = "relu", members: int = 1,
                 shared_init: bool = True):
        super().__init__()
        self.members = checks.positive_int("members", members)
        self.field = Field(mlp(n, n, width, depth, last, members, shared_init))

    def forward(self, x0, n_steps, dt):
        return rollout_ode(self.field, x0 if x0.ndim == 3 else x0.expand(self.members, *x0.shape), n_steps, dt)


class EventODE(nn.Module):
    """Discretised Neural Event ODE: RK4 flow of f, event function g, update map u (see module doc)."""

    def __init__(self, n: int, width: int, depth: int = 2, last: str = "relu", members: int = 1,
                 shared_init: bool = True):
        super().__init__()
        self.members = checks.positive_int("members", members)
        self.f = mlp(n, n, width, depth, last, members, shared_init)
        self.g = mlp(n, 1, width, depth, last, members, shared_init)
        self.u = mlp(n, n, width, depth, last, members, shared_init)

    def _rk4(self, x, h):
        k1 = self.f(x)
        k2 = self.f(x + 0.5 * h * k1)
        k3 = self.f(x + 0.5 * h * k2)
        k4 = self.f(x + h * k3)
        return x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def forward(self, x0, n_steps, dt):
        n_steps = checks.positive_int("n_steps", n_steps)
        x = x0 if x0.ndim == 3 else x0.expand(self.members, *x0.shape)
        xs = [x]
        for _ in range(n_steps):
            g0 = self.g(x)
            y = self._rk4(x, dt)
            g1 = self.g(y)
            fired = (g0 > 0) & (g1 <= 0)
            # event fraction s = g0 / (g0 - g1); jump at the event point, then flow the rest of the step
            s = (g0 / (g0 - g1 + 1e-6)).clamp(0, 1)
            xe = x + s * (y - x)
            xj = xe + self.u(xe)
            xj = xj + (1 - s) * dt * self.f(xj)
            x = torch.where(fired, xj, y)
            xs.append(x)
        return torch.stack(xs, 2)


def _chyllpp_budget(n, m, width, depth):
    return n_params(CHyLLpp(n, m, width, depth))


def _fit_state_rollout(model, x, dt, stages, iters, batch, lr, seed, desc):
    """Train a full-state rollout model (loss L_x on standardised rollouts, CHyLL++'s curriculum); returns it
    and the training info. The shared tail of the state-space baselines."""
    mu, sd = normaliser(x)
    model = model.to(x.device)
    model.mu, model.sd = mu, sd
    xs = (x - mu) / sd
    mask = torch.zeros(x.shape[0], x.shape[1] - 1, dtype=torch.bool, device=x.device)

    def loss_fn(win, wm, step):
        return ((model(win[:, 0], win.shape[1] - 1, dt) - win) ** 2).mean((1, 2, 3))

    info = train_rollout(model.parameters(), loss_fn, xs, mask, stages, iters, batch, lr, seed=seed,
                         members=model.members, desc=desc)
    return model, info


def train_state_node(x, dt, m=None, stages=(4, 10, 20), iters=400, batch=64, lr=3e-3, width=64, depth=2,
                     last="relu", members=1, seed=0):
    """State-space Neural ODE with CHyLL++'s parameter count, loss L_x on rollouts, same curriculum.

    ``members`` > 1 trains that many independent initialisations together."""
    dt = _check_data(x, dt)
    torch.manual_seed(checks.seed("seed", seed))
    n = x.shape[-1]
    w_state = matched_width(_chyllpp_budget(n, 2 * n + 1 if m is None else m, width, depth), n, n, depth)
    model = StateNODE(n, w_state, depth, last, members, shared_init=members == 1)
    return _fit_state_rollout(model, x, dt, stages, iters, batch, lr, seed, "state NODE")


def train_latent_ode(x, dt, **kw):
    """Latent ODE baseline: CHyLL++'s networks with only the state loss (w_z = w_g = w_v = w_c = 0)."""
    if "weights" in kw:
        raise ValueError("weights are fixed for the Latent ODE baseline (state loss only)")
    return train_chyllpp(x, dt, weights=LATENT_ODE, **kw)


def _conformal_penalty(enc: nn.Module, x: torch.Tensor, log_c: torch.Tensor, n_probe: int = 32) -> torch.Tensor:
    """Per-member ‖J_fᵀ J_f − c I‖² on ``n_probe`` states of ``x`` (K, B, ..., n) (CHyLL's conformal term, form
    inferred); J_f by forward-mode products along each state axis, ``log_c`` (K,) the learned log-scale."""
    k, n = x.shape[0], x.shape[-1]
    xp = x.reshape(k, -1, n)[:, :n_probe]
    cols = [torch.func.jvp(enc, (xp,), (torch.zeros_like(xp).index_fill_(-1, torch.tensor([j], device=x.device),
                                                                         1.0),))[1] for j in range(n)]
    jac = torch.stack(cols, -1)  # (K, P, m, n)
    gram = jac.transpose(-1, -2) @ jac
    eye = torch.eye(n, device=x.device, dtype=x.dtype)
    return ((gram - log_c.exp().reshape(k, 1, 1, 1) * eye) ** 2).mean((1, 2, 3))


def train_chyll(x, dt, m=None, stages=(4, 10, 20), iters=400, batch=64, lr=3e-3, width=64, depth=2, last="relu",
                jump_factor=5.0, floor_frac=0.1, w_conf=0.1, seed=0):
    """CHyLL-style two-phase model (inferred; see the module doc). Half the iterations per phase."""
    dt = _check_data(x, dt)
    iters = checks.positive_int("iters", iters)
    w_conf = checks.nonnegative_number("w_conf", w_conf)
    torch.manual_seed(checks.seed("seed", seed))
    n = x.shape[-1]
    mu, sd = normaliser(x)
    xs = (x - mu) / sd
    model = CHyLLpp(n, m, width, depth, last).to(x.device)
    model.mu, model.sd = mu, sd
    log_c = torch.zeros(1, device=x.device, requires_grad=True)
    mask = detect_jumps(x, dt, checks.positive_number("jump_factor", jump_factor))
    with torch.no_grad():
        floor = checks.nonnegative_number("floor_frac", floor_frac) * model.enc(xs.reshape(1, -1, n)).var(1).mean()

    def phase1(win, wm, step):
        zhat = model.latent(win[:, 0], win.shape[1] - 1, dt)
        zenc = model.enc(win[None])
        lg, _ = _glue_velocity(zenc, wm[None], dt)
        return (((zhat - zenc) ** 2).mean((1, 2, 3)) + lg + w_conf * _conformal_penalty(model.enc, win[None], log_c)
                + 0.1 * _cov_floor(zenc, floor))

    def phase2(win, wm, step):
        with torch.no_grad():
            zhat = model.latent(win[:, 0], win.shape[1] - 1, dt)
            zenc = model.enc(win[None])
        return ((model.dec(zhat) - win) ** 2).mean((1, 2, 3)) + ((model.dec(zenc) - win) ** 2).mean((1, 2, 3))

    half = max(iters // 2, 1)
    p1 = list(model.enc.parameters()) + list(model.field.parameters()) + [log_c]
    i1 = train_rollout(p1, phase1, xs, mask, stages, half, batch, lr, seed=seed, desc="CHyLL phase 1")
    i2 = train_rollout(model.dec.parameters(), phase2, xs, mask, stages, max(iters - half, 1), batch, lr,
                       seed=seed + 1, desc="CHyLL phase 2")
    return model, {"losses": list(i1["losses"][:, 0]) + list(i2["losses"][:, 0]),
                   "seconds": i1["seconds"] + i2["seconds"], "detected": mask}


def train_event_ode(x, dt, m=None, stages=(4, 10, 20), iters=400, batch=64, lr=3e-3, width=64, depth=2,
                    last="relu", members=1, seed=0):
    """Neural Event ODE with CHyLL++'s parameter count (three networks f, g, u of equal width).

    ``members`` independent initialisations train together as one ensemble (the paper's point is the
    sensitivity to initialisation; claim 6c takes their median)."""
    dt = _check_data(x, dt)
    torch.manual_seed(checks.seed("seed", seed))
    n = x.shape[-1]
    target = _chyllpp_budget(n, 2 * n + 1 if m is None else m, width, depth)
    per_net = target / 3  # f: n -> n, g: n -> 1, u: n -> n, all of one width
    w_ev = matched_width(max(round(per_net), 1), n, n, depth)
    model = EventODE(n, w_ev, depth, last, members, shared_init=False)
    return _fit_state_rollout(model, x, dt, stages, iters, batch, lr, seed, "event ODE")
