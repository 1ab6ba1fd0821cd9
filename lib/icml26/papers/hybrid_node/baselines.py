"""Baselines of the paper's Table 1 (note §4), trained with the same rollout trainer, curriculum and budget.

- :func:`train_state_node`: Neural ODE in state space, ẋ = f(x) (Chen et al. 2018); width matched so the
  parameter count equals CHyLL++'s three networks.
- :func:`train_latent_ode`: encode–integrate–decode without geometric terms (CHyLL++ with only L_x).
- :func:`train_chyll`: project approximation of CHyLL (note §3.5, inferred): phase 1 trains encoder and
  latent field with latent dynamics + gluing + conformal + covariance terms (no L_v); phase 2 trains the
  decoder on the frozen latent rollouts. Same total iterations.
- :func:`train_event_ode`: a Neural Event ODE (Chen, Amos & Nickel 2021) *discretised* on the RK4 grid
  (inferred simplification of ``odeint_event``): a learned event function g(x) and instantaneous update
  map u(x); when g changes sign from + to − within a step, the state jumps to x + u(x). The event time is
  located by linear interpolation of g, so the jump is differentiable with respect to g's values.
"""

from __future__ import annotations

import torch
from torch import nn

from icml26.papers.hybrid_node.jumps import detect_jumps
from icml26.papers.hybrid_node.method import (
    CHyLLpp,
    Field,
    covariance_floor,
    glue_velocity_terms,
    mlp,
    n_params,
    normaliser,
    rollout_ode,
    train_chyllpp,
    train_rollout,
)


def matched_width(target: int, d_in: int, d_out: int, depth: int = 2) -> int:
    """Hidden width of a ``depth``-layer MLP d_in -> d_out whose parameter count is closest to ``target``."""
    if target < 1:
        raise ValueError(f"target must be positive; got {target!r}")
    return min(range(4, 1024), key=lambda w: abs(n_params(mlp(d_in, d_out, w, depth)) - target))


class StateNODE(nn.Module):
    """ẋ = f_φ(x) in (standardised) state space."""

    def __init__(self, n: int, width: int, depth: int = 2, last: str = "relu"):
        super().__init__()
        self.field = Field(mlp(n, n, width, depth, last))

    def forward(self, x0, n_steps, dt):
        return rollout_ode(self.field, x0, n_steps, dt)


def _state_budget(n, m, width, depth):
    return n_params(CHyLLpp(n, m, width, depth))


def _fit_state_rollout(model, x, dt, stages, iters, batch, lr, seed):
    """Train a full-state rollout model (loss L_x on normalised rollouts, CHyLL++'s curriculum); returns it and
    the training info. The shared tail of the state-space baselines."""
    mu, sd = normaliser(x)
    model = model.to(x.device)
    model.mu, model.sd = mu, sd
    xs = (x - mu) / sd
    mask = torch.zeros(x.shape[0], x.shape[1] - 1, dtype=torch.bool, device=x.device)

    def loss_fn(win, wm, step):
        return ((model(win[:, 0], win.shape[1] - 1, dt) - win) ** 2).mean()

    info = train_rollout(model.parameters(), loss_fn, xs, mask, stages, iters, batch, lr, seed=seed)
    return model, info


def train_state_node(x, dt, m=None, stages=(4, 10, 20), iters=400, batch=64, lr=3e-3, width=64, depth=2,
                     last="relu", seed=0):
    """State-space Neural ODE with CHyLL++'s parameter count, loss L_x on rollouts, same curriculum."""
    torch.manual_seed(seed)
    n = x.shape[-1]
    w_state = matched_width(_state_budget(n, 2 * n + 1 if m is None else m, width, depth), n, n, depth)
    return _fit_state_rollout(StateNODE(n, w_state, depth, last), x, dt, stages, iters, batch, lr, seed)


def train_latent_ode(x, dt, **kw):
    """Latent ODE baseline: CHyLL++ architecture with only the state loss (w_z = w_g = w_v = w_c = 0)."""
    return train_chyllpp(x, dt, weights={"x": 1.0, "z": 0.0, "g": 0.0, "v": 0.0, "c": 0.0}, **kw)


def conformal_penalty(enc: nn.Module, x: torch.Tensor, log_c: torch.Tensor, n_probe: int = 32) -> torch.Tensor:
    """‖J_fᵀ J_f − c I‖² on a batch (CHyLL's conformal term, form inferred, note §3.5)."""
    xp = x.reshape(-1, x.shape[-1])[:n_probe]
    jac = torch.func.vmap(torch.func.jacrev(enc))(xp)  # (P, m, n)
    gram = jac.transpose(1, 2) @ jac
    eye = torch.eye(x.shape[-1], device=x.device, dtype=x.dtype)
    return ((gram - log_c.exp() * eye) ** 2).mean()


def train_chyll(x, dt, m=None, stages=(4, 10, 20), iters=400, batch=64, lr=3e-3, width=64, depth=2, last="relu",
                jump_factor=5.0, floor_frac=0.1, w_conf=0.1, seed=0):
    """CHyLL-style two-phase model (note §3.5, inferred). Half the iterations per phase."""
    torch.manual_seed(seed)
    n = x.shape[-1]
    mu, sd = normaliser(x)
    xs = (x - mu) / sd
    model = CHyLLpp(n, m, width, depth, last).to(x.device)
    model.mu, model.sd = mu, sd
    log_c = torch.zeros((), device=x.device, requires_grad=True)
    mask = detect_jumps(x, dt, jump_factor)
    with torch.no_grad():
        floor = floor_frac * model.enc(xs.reshape(-1, n)).var(0).mean().item()

    def phase1(win, wm, step):
        zhat = model.latent(win[:, 0], win.shape[1] - 1, dt)
        zenc = model.enc(win)
        lg, _ = glue_velocity_terms(zenc, wm, dt)
        return (((zhat - zenc) ** 2).mean() + lg + w_conf * conformal_penalty(model.enc, win, log_c)
                + 0.1 * covariance_floor(zenc, floor))

    def phase2(win, wm, step):
        with torch.no_grad():
            zhat = model.latent(win[:, 0], win.shape[1] - 1, dt)
            zenc = model.enc(win)
        return ((model.dec(zhat) - win) ** 2).mean() + ((model.dec(zenc) - win) ** 2).mean()

    half = max(iters // 2, 1)
    p1 = list(model.enc.parameters()) + list(model.field.parameters()) + [log_c]
    i1 = train_rollout(p1, phase1, xs, mask, stages, half, batch, lr, seed=seed)
    i2 = train_rollout(model.dec.parameters(), phase2, xs, mask, stages, max(iters - half, 1), batch, lr, seed=seed + 1)
    return model, {"losses": i1["losses"] + i2["losses"], "seconds": i1["seconds"] + i2["seconds"], "detected": mask}


class EventODE(nn.Module):
    """Discretised Neural Event ODE: RK4 flow of f, event function g, update map u (see module doc)."""

    def __init__(self, n: int, width: int, depth: int = 2, last: str = "relu"):
        super().__init__()
        self.f = mlp(n, n, width, depth, last)
        self.g = mlp(n, 1, width, depth, last)
        self.u = mlp(n, n, width, depth, last)

    def _rk4(self, x, h):
        k1 = self.f(x)
        k2 = self.f(x + 0.5 * h * k1)
        k3 = self.f(x + 0.5 * h * k2)
        k4 = self.f(x + h * k3)
        return x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def forward(self, x0, n_steps, dt):
        if isinstance(n_steps, bool) or not isinstance(n_steps, int) or n_steps < 1:
            raise ValueError(f"n_steps must be a positive integer; got {n_steps!r}")
        xs, x = [x0], x0
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
        return torch.stack(xs, 1)


def train_event_ode(x, dt, m=None, stages=(4, 10, 20), iters=400, batch=64, lr=3e-3, width=64, depth=2,
                    last="relu", seed=0):
    """Neural Event ODE with CHyLL++'s parameter count (three networks f, g, u of equal width)."""
    torch.manual_seed(seed)
    n = x.shape[-1]
    target = _state_budget(n, 2 * n + 1 if m is None else m, width, depth)
    w_ev = min(range(4, 512), key=lambda w: abs(n_params(EventODE(n, w, depth)) - target))
    return _fit_state_rollout(EventODE(n, w_ev, depth, last), x, dt, stages, iters, batch, lr, seed)
