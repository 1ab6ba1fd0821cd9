"""CHyLL++: encoder f_θ, latent vector field V_θ, decoder f_θ⁻¹ trained as a latent Neural ODE (paper §3.3–3.4).

Rollout (§3.3): ẑ_k = f_θ(x_0) + ∫ V_θ(z) dt (torchdiffeq fixed-step RK4), x̂_k = f_θ⁻¹(ẑ_k).
Loss (§3.4): L = w_x L_x + w_z L_z + w_g L_g + w_v L_v + w_c L_c with
  L_x state consistency, L_z latent consistency, L_g gluing (C-1) on detected reset pairs,
  L_v velocity compatibility (C-2) from one-sided finite differences, L_c covariance floor (anti-collapse).
Weights, Λ, the jump threshold, the stencil and network sizes are project choices (inferred, note §3.4).
The generic rollout trainer with a horizon curriculum (:func:`train_rollout`) also trains the baselines.
"""

from __future__ import annotations

import time

import torch
from torch import nn
from torchdiffeq import odeint

from icml26.papers.hybrid_node.jumps import detect_jumps

DEFAULT_WEIGHTS = {"x": 1.0, "z": 1.0, "g": 1.0, "v": 1.0, "c": 0.1}  # inferred (note §3.4)


class Sin(nn.Module):
    def forward(self, x):
        return torch.sin(x)


def mlp(d_in: int, d_out: int, width: int = 64, depth: int = 2, last: str = "relu") -> nn.Sequential:
    """MLP with ``depth`` hidden ReLU layers; ``last`` = "relu" | "sin" is the last hidden activation (Table 2)."""
    for name, v in (("d_in", d_in), ("d_out", d_out), ("width", width), ("depth", depth)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer; got {v!r}")
    if last not in ("relu", "sin"):
        raise ValueError(f"last must be 'relu' or 'sin'; got {last!r}")
    layers, d = [], d_in
    for i in range(depth):
        layers += [nn.Linear(d, width), Sin() if (last == "sin" and i == depth - 1) else nn.ReLU()]
        d = width
    layers.append(nn.Linear(d, d_out))
    return nn.Sequential(*layers)


def n_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


class Field(nn.Module):
    """Autonomous vector field wrapper for torchdiffeq: f(t, z) = net(z)."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, t, z):
        return self.net(z)


def rollout_ode(field: nn.Module, z0: torch.Tensor, n_steps: int, dt: float, substeps: int = 1) -> torch.Tensor:
    """Fixed-step RK4 rollout of ż = field(z) from z0 (B, m) for ``n_steps`` steps of Δt; returns (B, n_steps+1, m)."""
    if not isinstance(z0, torch.Tensor) or z0.ndim != 2:
        raise ValueError(f"z0 must be a tensor of shape (B, m); got {getattr(z0, 'shape', type(z0))}")
    if isinstance(n_steps, bool) or not isinstance(n_steps, int) or n_steps < 1:
        raise ValueError(f"n_steps must be a positive integer; got {n_steps!r}")
    if not dt > 0 or substeps < 1:
        raise ValueError(f"dt must be positive and substeps >= 1; got dt={dt!r}, substeps={substeps!r}")
    t = torch.arange(n_steps + 1, dtype=z0.dtype, device=z0.device) * dt
    out = odeint(field, z0, t, method="rk4", options={"step_size": dt / substeps})
    return out.transpose(0, 1)


class CHyLLpp(nn.Module):
    """Encoder / latent field / decoder MLPs (§3.3). ``m`` latent dimension (default 2n + 1, inferred)."""

    def __init__(self, n: int, m: int | None = None, width: int = 64, depth: int = 2, last: str = "relu"):
        super().__init__()
        m = 2 * n + 1 if m is None else m
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ValueError(f"m must be a positive integer; got {m!r}")
        self.n, self.m = n, m
        self.enc = mlp(n, m, width, depth, last)
        self.field = Field(mlp(m, m, width, depth, last))
        self.dec = mlp(m, n, width, depth, last)

    def forward(self, x0: torch.Tensor, n_steps: int, dt: float) -> torch.Tensor:
        """Predicted states (B, n_steps+1, n) from initial states x0 (B, n)."""
        return self.dec(rollout_ode(self.field, self.enc(x0), n_steps, dt))

    def latent(self, x0, n_steps, dt):
        return rollout_ode(self.field, self.enc(x0), n_steps, dt)


def glue_velocity_terms(zenc: torch.Tensor, jumps: torch.Tensor, dt: float) -> tuple[torch.Tensor, torch.Tensor]:
    """L_g = MSE(f(x_k), f(x_{k+1})) over k ∈ 𝓘 and L_v = MSE(ż⁻, ż⁺) with the inferred one-sided stencil (§3.4).

    ``zenc`` (B, L+1, m) encoded window, ``jumps`` (B, L) detected reset mask of the window.
    """
    if jumps.shape != (zenc.shape[0], zenc.shape[1] - 1):
        want = (zenc.shape[0], zenc.shape[1] - 1)
        raise ValueError(f"jumps must have shape (B, L) = {want}; got {tuple(jumps.shape)}")
    d = zenc[:, 1:] - zenc[:, :-1]
    zero = zenc.sum() * 0
    lg = (d[jumps] ** 2).mean() if jumps.any() else zero
    if d.shape[1] >= 3:
        ok = jumps[:, 1:-1] & ~jumps[:, :-2] & ~jumps[:, 2:]
        lv = (((d[:, 2:] - d[:, :-2])[ok] / dt) ** 2).mean() if ok.any() else zero
    else:
        lv = zero
    return lg, lv


def covariance_floor(z: torch.Tensor, floor: float) -> torch.Tensor:
    """L_c = Σ_i ReLU(Λ − Var_batch(z_i)) (§3.4); ``z`` (..., m)."""
    return torch.relu(floor - z.reshape(-1, z.shape[-1]).var(0)).sum()


def chyllpp_loss(model: CHyLLpp, window: torch.Tensor, jumps: torch.Tensor, dt: float, weights: dict,
                 floor: float) -> torch.Tensor:
    """The five-term CHyLL++ loss on a batch of windows (B, L+1, n) with detected reset mask (B, L) (§3.4).

    L_v enters as the mismatch of one-sided latent *steps* (ż·Δt), i.e. the velocity MSE times Δt²
    (inferred scaling that keeps the term on the scale of L_g for any sampling interval).
    """
    L = window.shape[1] - 1
    zhat = model.latent(window[:, 0], L, dt)
    zenc = model.enc(window)
    loss = weights["x"] * ((model.dec(zhat) - window) ** 2).mean()
    if weights.get("z", 0):
        loss = loss + weights["z"] * ((zhat - zenc) ** 2).mean()
    if weights.get("g", 0) or weights.get("v", 0):
        lg, lv = glue_velocity_terms(zenc, jumps, dt)
        loss = loss + weights.get("g", 0) * lg + weights.get("v", 0) * lv * dt ** 2
    if weights.get("c", 0):
        loss = loss + weights["c"] * covariance_floor(zenc, floor)
    return loss


def curriculum_lengths(stages, iters: int) -> list[int]:
    """Window length for every iteration: ``stages`` lengths in increasing order, equal shares (§3.4)."""
    stages = list(stages)
    if not stages or any((not isinstance(s, int)) or s < 1 for s in stages) or stages != sorted(stages):
        raise ValueError(f"stages must be increasing positive integers; got {stages!r}")
    if isinstance(iters, bool) or not isinstance(iters, int) or iters < 1:
        raise ValueError(f"iters must be a positive integer; got {iters!r}")
    return [stages[min(i * len(stages) // iters, len(stages) - 1)] for i in range(iters)]


def sample_windows(x: torch.Tensor, mask: torch.Tensor, length: int, batch: int, gen: torch.Generator):
    """Random windows of ``length`` steps (B, length+1, n) and their reset mask slices (B, length)."""
    B, T, _ = x.shape
    if length >= T:
        raise ValueError(f"window length {length} must be below the trajectory length {T}")
    i = torch.randint(0, B, (batch,), generator=gen).to(x.device)
    s = torch.randint(0, T - length, (batch,), generator=gen).to(x.device)
    idx = s[:, None] + torch.arange(length + 1, device=x.device)[None]
    return x[i[:, None], idx], mask[i[:, None], idx[:, :-1]]


def train_rollout(params, loss_fn, x: torch.Tensor, mask: torch.Tensor, stages, iters: int, batch: int = 64,
                  lr: float = 3e-3, clip: float = 1.0, seed: int = 0) -> dict:
    """Generic multi-step rollout trainer with a horizon curriculum (note §9 shared block).

    ``loss_fn(windows, window_mask, step)`` returns a scalar; ``x`` (B, T, n) training trajectories,
    ``mask`` (B, T-1) the *detected* reset mask (never the simulator's). Adam + grad clipping + cosine lr.
    """
    params = [p for p in params if p.requires_grad]
    if not params:
        raise ValueError("params must contain trainable parameters")
    if mask.shape != (x.shape[0], x.shape[1] - 1):
        raise ValueError("mask must have shape (B, T-1) matching x")
    lengths = curriculum_lengths(stages, iters)
    opt = torch.optim.Adam(params, lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, iters, eta_min=lr * 0.05)
    gen = torch.Generator().manual_seed(seed)
    t0, losses = time.perf_counter(), []
    for step, length in enumerate(lengths):
        w, wm = sample_windows(x, mask, length, batch, gen)
        loss = loss_fn(w, wm, step)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, clip)
        opt.step()
        sched.step()
        losses.append(loss.item())
    return {"losses": losses, "seconds": time.perf_counter() - t0}


def normaliser(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-coordinate mean and std of trajectories (B, T, n), used to train in standardised coordinates."""
    flat = x.reshape(-1, x.shape[-1])
    return flat.mean(0), flat.std(0).clamp_min(1e-6)


def train_chyllpp(x: torch.Tensor, dt: float, m: int | None = None, weights: dict | None = None,
                  stages=(4, 10, 20), iters: int = 400, batch: int = 64, lr: float = 3e-3, width: int = 64,
                  depth: int = 2, last: str = "relu", jump_factor: float = 5.0, floor_frac: float = 0.1,
                  oracle_mask: torch.Tensor | None = None, seed: int = 0) -> tuple[CHyLLpp, dict]:
    """Train CHyLL++ on trajectories ``x`` (B, T, n) sampled at Δt = ``dt`` (paper §3.4).

    Resets 𝓘 come from :func:`detect_jumps` (speed > ``jump_factor`` × median speed) unless an
    ``oracle_mask`` is given (ablation only, claim 6b). Λ = ``floor_frac`` × the mean per-coordinate
    encoder variance at initialisation (inferred). Trains on standardised states; the returned model
    carries the normaliser (``model.mu``, ``model.sd``) and predicts in original units via :func:`predict`.
    """
    w = dict(DEFAULT_WEIGHTS if weights is None else weights)
    if set(w) - set(DEFAULT_WEIGHTS) or any(v < 0 for v in w.values()) or w.get("x", 0) <= 0:
        raise ValueError(f"weights must use keys {tuple(DEFAULT_WEIGHTS)} with w_x > 0 and no negative weight; got {w}")
    torch.manual_seed(seed)
    mu, sd = normaliser(x)
    xs = (x - mu) / sd
    model = CHyLLpp(x.shape[-1], m, width, depth, last).to(x.device)
    model.mu, model.sd = mu, sd
    mask = detect_jumps(x, dt, jump_factor) if oracle_mask is None else oracle_mask
    with torch.no_grad():
        floor = floor_frac * model.enc(xs.reshape(-1, xs.shape[-1])).var(0).mean().item()

    def loss_fn(win, wm, step):
        return chyllpp_loss(model, win, wm, dt, w, floor)

    info = train_rollout(model.parameters(), loss_fn, xs, mask, stages, iters, batch, lr, seed=seed)
    info.update(floor=floor, detected=mask)
    return model, info


@torch.no_grad()
def predict(model: nn.Module, x0: torch.Tensor, n_steps: int, dt: float) -> torch.Tensor:
    """Rollout in original units of any model here exposing ``forward(x0, n_steps, dt)`` and ``mu``/``sd``."""
    return model((x0 - model.mu) / model.sd, n_steps, dt) * model.sd + model.mu


@torch.no_grad()
def encode(model: CHyLLpp, x: torch.Tensor) -> torch.Tensor:
    """f_θ(x) of states in original units."""
    return model.enc((x - model.mu) / model.sd)
