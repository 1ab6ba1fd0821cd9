"""CHyLL++: encoder f_θ, latent vector field V_θ, decoder f_θ⁻¹ trained as a latent Neural ODE (paper §4).

Rollout: ẑ_k = f_θ(x_0) + ∫ V_θ(z) dt (torchdiffeq fixed-step RK4), x̂_k = f_θ⁻¹(ẑ_k).
Loss: L = w_x L_x + w_z L_z + w_g L_g + w_v L_v + w_c L_c with
  L_x state consistency, L_z latent consistency, L_g gluing (C-1) on detected reset pairs,
  L_v velocity compatibility (C-2): the MSE of one-sided finite-difference latent *velocities*,
  L_c covariance floor (anti-collapse).
Weights, Λ, the jump threshold, the stencil and network sizes are project choices (inferred; see
``docs/papers/hybrid_node.md``).

Every network here is an *ensemble* of ``members`` independent MLPs evaluated as one batched program
(weights (K, d_in, d_out), ``torch.baddbmm``): a sweep of loss variants, or several initialisations, trains
as one model whose members share the data windows but nothing else (per-member losses are summed, so
their gradients are independent, and gradient clipping is per member). Tensors carry the member axis
first: states (K, B, ..., n).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence

import torch
from torch import nn
from torchdiffeq import odeint

from icml26 import checks, progress
from icml26.papers.hybrid_node.jumps import detect_jumps

TERMS = ("x", "z", "g", "v", "c")
DEFAULT_WEIGHTS = {"x": 1.0, "z": 1.0, "g": 1.0, "v": 1.0, "c": 0.1}
"""Loss weights (inferred; the paper does not give them). w_v weighs the paper's velocity MSE."""
LATENT_ODE = {"x": 1.0, "z": 0.0, "g": 0.0, "v": 0.0, "c": 0.0}
"""The Latent ODE baseline: the same networks trained with the state loss alone."""


class Linear(nn.Module):
    """``members`` independent affine maps d_in -> d_out applied to x (K, ..., d_in) in one batched matmul.

    PyTorch's default ``nn.Linear`` initialisation per member; ``shared_init`` gives every member the same
    initial weights (a paired comparison of loss variants), otherwise each member draws its own.
    """

    def __init__(self, d_in: int, d_out: int, members: int = 1, shared_init: bool = True):
        super().__init__()
        self.members = checks.positive_int("members", members)
        bound = 1 / math.sqrt(checks.positive_int("d_in", d_in))
        draws = 1 if shared_init else members
        w = torch.empty(draws, d_in, checks.positive_int("d_out", d_out)).uniform_(-bound, bound)
        b = torch.empty(draws, 1, d_out).uniform_(-bound, bound)
        self.weight = nn.Parameter(w.expand(members, -1, -1).clone())
        self.bias = nn.Parameter(b.expand(members, -1, -1).clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        y = torch.baddbmm(self.bias, x.reshape(shape[0], -1, shape[-1]), self.weight)
        return y.reshape(*shape[:-1], y.shape[-1])


class _Sin(nn.Module):
    def forward(self, x):
        return torch.sin(x)


def mlp(d_in: int, d_out: int, width: int = 64, depth: int = 2, last: str = "relu", members: int = 1,
        shared_init: bool = True) -> nn.Sequential:
    """MLP ensemble with ``depth`` hidden layers; ``last`` = "relu" | "sin" is the last hidden activation
    (the paper's Table 2 ablation; its main table uses ReLU everywhere)."""
    for name, v in (("d_in", d_in), ("d_out", d_out), ("width", width), ("depth", depth), ("members", members)):
        checks.positive_int(name, v)
    checks.one_of("last", last, ("relu", "sin"))
    layers, d = [], d_in
    for i in range(depth):
        layers += [Linear(d, width, members, shared_init), _Sin() if (last == "sin" and i == depth - 1) else nn.ReLU()]
        d = width
    layers.append(Linear(d, d_out, members, shared_init))
    return nn.Sequential(*layers)


def n_params(module: nn.Module) -> int:
    """Trainable parameters of one member of an ensemble (all of them for a plain module)."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be an nn.Module; got {type(module).__name__}")
    members = getattr(module, "members", 1)
    return sum(p.numel() for p in module.parameters()) // members


class Field(nn.Module):
    """Autonomous vector field wrapper for torchdiffeq: f(t, z) = net(z)."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, t, z):
        return self.net(z)


def rollout_ode(field: nn.Module, z0: torch.Tensor, n_steps: int, dt: float, substeps: int = 1) -> torch.Tensor:
    """Fixed-step RK4 rollout of ż = field(z) from z0 (K, B, m) for ``n_steps`` steps of Δt; (K, B, n_steps+1, m)."""
    checks.tensor("z0", z0, ndim=3, dtype_kind="float")
    n_steps = checks.positive_int("n_steps", n_steps)
    dt = checks.positive_number("dt", dt)
    substeps = checks.positive_int("substeps", substeps)
    t = torch.arange(n_steps + 1, dtype=z0.dtype, device=z0.device) * dt
    out = odeint(field, z0, t, method="rk4", options={"step_size": dt / substeps})
    return out.movedim(0, 2)


class CHyLLpp(nn.Module):
    """Encoder / latent field / decoder MLP ensembles (§4). ``m`` latent dimension (default 2n + 1)."""

    def __init__(self, n: int, m: int | None = None, width: int = 64, depth: int = 2, last: str = "relu",
                 members: int = 1, shared_init: bool = True):
        super().__init__()
        n = checks.positive_int("n", n)
        m = 2 * n + 1 if m is None else checks.positive_int("m", m)
        self.n, self.m, self.members = n, m, checks.positive_int("members", members)
        self.enc = mlp(n, m, width, depth, last, members, shared_init)
        self.field = Field(mlp(m, m, width, depth, last, members, shared_init))
        self.dec = mlp(m, n, width, depth, last, members, shared_init)

    def latent(self, x0: torch.Tensor, n_steps: int, dt: float) -> torch.Tensor:
        """Latent rollout (K, B, n_steps+1, m) from standardised initial states x0 (B, n) or (K, B, n)."""
        z0 = self.enc(x0 if x0.ndim == 3 else x0.expand(self.members, *x0.shape))
        return rollout_ode(self.field, z0, n_steps, dt)

    def forward(self, x0: torch.Tensor, n_steps: int, dt: float) -> torch.Tensor:
        """Predicted standardised states (K, B, n_steps+1, n) from x0 (B, n) or (K, B, n)."""
        return self.dec(self.latent(x0, n_steps, dt))


def _masked_mean(sq: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-member mean of ``sq`` (K, B, L) over the entries where ``mask`` (K, B, L) holds (0 where none)."""
    mask = mask.to(sq.dtype)
    return (sq * mask).sum((1, 2)) / mask.sum((1, 2)).clamp_min(1.0)


def glue_velocity_terms(zenc: torch.Tensor, jumps: torch.Tensor, dt: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-member L_g and L_v on an encoded window ``zenc`` (K, B, L+1, m) with reset mask ``jumps`` (K, B, L).

    L_g = MSE(f(x_k), f(x_{k+1})) over k ∈ 𝓘 (C-1). L_v = MSE(ż⁻, ż⁺) (C-2) with the one-sided velocities
    ż⁻ = (f(x_k) − f(x_{k−1}))/Δt and ż⁺ = (f(x_{k+2}) − f(x_{k+1}))/Δt (the stencil is inferred), over the
    resets whose neighbouring steps are reset-free.
    """
    checks.tensor("zenc", zenc, ndim=4, dtype_kind="float")
    want = (zenc.shape[0], zenc.shape[1], zenc.shape[2] - 1)
    if not isinstance(jumps, torch.Tensor) or tuple(jumps.shape) != want or jumps.dtype != torch.bool:
        got = getattr(jumps, "shape", jumps)
        raise ValueError(f"jumps must be a bool tensor of shape (K, B, L) = {want}; got {got}")
    return _glue_velocity(zenc, jumps, checks.positive_number("dt", dt))


def _glue_velocity(zenc, jumps, dt):
    """:func:`glue_velocity_terms` without the input checks (the training loop's hot path)."""
    d = zenc[:, :, 1:] - zenc[:, :, :-1]
    lg = _masked_mean((d ** 2).mean(-1), jumps)
    if d.shape[2] < 3:
        return lg, torch.zeros_like(lg)
    ok = jumps[:, :, 1:-1] & ~jumps[:, :, :-2] & ~jumps[:, :, 2:]
    lv = _masked_mean((((d[:, :, 2:] - d[:, :, :-2]) / dt) ** 2).mean(-1), ok)
    return lg, lv


def covariance_floor(z: torch.Tensor, floor) -> torch.Tensor:
    """L_c = Σ_i ReLU(Λ − Var(z_i)) per member (§4); ``z`` (K, ..., m), ``floor`` Λ a number or (K,)."""
    checks.tensor("z", z, dtype_kind="float")
    if z.ndim < 2:
        raise ValueError(f"z must have shape (K, ..., m); got {tuple(z.shape)}")
    floor = torch.as_tensor(floor, dtype=z.dtype, device=z.device)
    checks.tensor("floor", floor)
    return _cov_floor(z, floor)


def _cov_floor(z, floor):
    """:func:`covariance_floor` without the input checks."""
    var = z.reshape(z.shape[0], -1, z.shape[-1]).var(1)
    return torch.relu(torch.as_tensor(floor, dtype=z.dtype, device=z.device).reshape(-1, 1) - var).sum(-1)


def weight_table(weights, device=None) -> torch.Tensor:
    """Loss weights of each member as a (K, 5) tensor in the order of ``TERMS`` from a dict or a list of dicts."""
    table = [weights] if isinstance(weights, Mapping) else list(weights)
    if not table:
        raise ValueError("weights must name at least one member")
    rows = []
    for w in table:
        if not isinstance(w, Mapping) or set(w) - set(TERMS):
            raise ValueError(f"weights must be dicts with keys from {TERMS}; got {w!r}")
        row = [checks.nonnegative_number(f"weights[{k!r}]", w.get(k, 0.0)) for k in TERMS]
        if row[0] <= 0:
            raise ValueError(f"weights need w_x > 0 (the state loss anchors the model); got {w!r}")
        rows.append(row)
    return torch.tensor(rows, device=device)


def chyllpp_loss(model: CHyLLpp, window: torch.Tensor, jumps: torch.Tensor, dt: float, weights: torch.Tensor,
                 floor: torch.Tensor) -> torch.Tensor:
    """The five-term CHyLL++ loss per member (K,) on windows (B, L+1, n) with reset masks (K, B, L) (§4).

    ``weights`` (K, 5) from :func:`weight_table`; ``floor`` Λ per member (K,).
    """
    checks.instance("model", model, CHyLLpp)
    checks.tensor("window", window, ndim=3, dtype_kind="float")
    if window.shape[-1] != model.n or window.shape[1] < 2:
        raise ValueError(f"window must have shape (B, L+1 >= 2, {model.n}); got {tuple(window.shape)}")
    checks.tensor("jumps", jumps, dtype_kind="bool")
    if tuple(jumps.shape[-2:]) != (window.shape[0], window.shape[1] - 1):
        raise ValueError(f"jumps must have shape (K, B, L) with (B, L) = {(window.shape[0], window.shape[1] - 1)}; "
                         f"got {tuple(jumps.shape)}")
    checks.tensor("weights", weights, shape=(model.members, len(TERMS)))
    floor = checks.tensor("floor", torch.as_tensor(floor, dtype=window.dtype, device=window.device))
    return _chyllpp_loss(model, window, jumps, checks.positive_number("dt", dt), weights, floor)


def _chyllpp_loss(model, window, jumps, dt, weights, floor):
    """:func:`chyllpp_loss` without the input checks (the training loop's hot path)."""
    k = model.members
    L = window.shape[-2] - 1
    zhat = model.latent(window[:, 0], L, dt)
    zenc = model.enc(window.expand(k, *window.shape))
    lx = ((model.dec(zhat) - window) ** 2).mean((1, 2, 3))
    lz = ((zhat - zenc) ** 2).mean((1, 2, 3))
    lg, lv = _glue_velocity(zenc, jumps.expand(k, *jumps.shape[-2:]), dt)
    lc = _cov_floor(zenc, floor)
    return (weights * torch.stack([lx, lz, lg, lv, lc], -1)).sum(-1)


def curriculum_lengths(stages, iters: int) -> list[int]:
    """Window length for every iteration: ``stages`` lengths in increasing order, equal shares (§4)."""
    stages = list(stages) if isinstance(stages, Sequence) else stages
    if not isinstance(stages, list) or not stages or any(not isinstance(s, int) or isinstance(s, bool) or s < 1
                                                         for s in stages) or stages != sorted(stages):
        raise ValueError(f"stages must be increasing positive integers; got {stages!r}")
    iters = checks.positive_int("iters", iters)
    return [stages[min(i * len(stages) // iters, len(stages) - 1)] for i in range(iters)]


def sample_windows(x: torch.Tensor, mask: torch.Tensor, length: int, batch: int, gen: torch.Generator):
    """Random windows (batch, length+1, n) of trajectories ``x`` (B, T, n) and their mask slices
    (..., batch, length) of ``mask`` (..., B, T-1) (one mask per member, or one for all)."""
    checks.tensor("x", x, ndim=3, dtype_kind="float")
    B, T, _ = x.shape
    length, batch = checks.positive_int("length", length), checks.positive_int("batch", batch)
    if length >= T:
        raise ValueError(f"length {length} must be below the trajectory length {T}")
    if not isinstance(mask, torch.Tensor) or tuple(mask.shape[-2:]) != (B, T - 1):
        got = getattr(mask, "shape", mask)
        raise ValueError(f"mask must have shape (..., B, T-1) = (..., {B}, {T - 1}); got {got}")
    i = torch.randint(0, B, (batch,), generator=gen).to(x.device)
    s = torch.randint(0, T - length, (batch,), generator=gen).to(x.device)
    idx = s[:, None] + torch.arange(length + 1, device=x.device)[None]
    return x[i[:, None], idx], mask[..., i[:, None], idx[:, :-1]]


def _clip_per_member(params: list[torch.Tensor], members: int, clip: float) -> None:
    """Scale each member's gradient to norm <= ``clip`` (parameters carry the member axis first)."""
    sq = sum(p.grad.reshape(members, -1).pow(2).sum(1) for p in params if p.grad is not None)
    scale = (clip / (sq.sqrt() + 1e-6)).clamp(max=1.0)
    for p in params:
        if p.grad is not None:
            p.grad.mul_(scale.reshape(-1, *([1] * (p.ndim - 1))))


def train_rollout(params, loss_fn, x: torch.Tensor, mask: torch.Tensor, stages, iters: int, batch: int = 64,
                  lr: float = 3e-3, clip: float = 1.0, seed: int = 0, members: int = 1, desc: str = "training") -> dict:
    """Multi-step rollout trainer with a horizon curriculum, shared by the method and the baselines.

    ``loss_fn(windows, window_mask, step)`` returns the per-member losses (K,); ``x`` (B, T, n) training
    trajectories, ``mask`` (..., B, T-1) the *detected* reset masks (never the simulator's). Adam, per-member
    gradient clipping, cosine learning rate. Returns the loss curve (iters, K) and the seconds taken.
    """
    params = [p for p in params if p.requires_grad]
    if not params:
        raise ValueError("params must contain trainable parameters")
    checks.tensor("x", x, ndim=3, dtype_kind="float")
    if not isinstance(mask, torch.Tensor) or tuple(mask.shape[-2:]) != (x.shape[0], x.shape[1] - 1):
        raise ValueError("mask must have shape (..., B, T-1) matching x")
    lengths = curriculum_lengths(stages, iters)
    lr, clip = checks.positive_number("lr", lr), checks.positive_number("clip", clip)
    members = checks.positive_int("members", members)
    if any(p.shape[0] != members for p in params):
        raise ValueError(f"every parameter must carry the member axis ({members}) first")
    opt = torch.optim.Adam(params, lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, iters, eta_min=lr * 0.05)
    gen = torch.Generator().manual_seed(checks.seed("seed", seed))
    t0, losses = time.perf_counter(), []
    for step in progress.steps(range(iters), desc=desc):
        w, wm = sample_windows(x, mask, lengths[step], batch, gen)
        loss = loss_fn(w, wm, step)
        opt.zero_grad()
        loss.sum().backward()
        _clip_per_member(params, members, clip)
        opt.step()
        sched.step()
        losses.append(loss.detach())
    return {"losses": torch.stack(losses).cpu().numpy(), "seconds": time.perf_counter() - t0}


def normaliser(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-coordinate mean and std of trajectories (B, T, n), used to train in standardised coordinates."""
    checks.tensor("x", x, ndim=3, dtype_kind="float")
    flat = x.reshape(-1, x.shape[-1])
    return flat.mean(0), flat.std(0).clamp_min(1e-6)


def _check_data(x, dt):
    checks.tensor("x", x, ndim=3, dtype_kind="float")
    if x.shape[1] < 3:
        raise ValueError(f"x must hold trajectories of at least 3 samples; got shape {tuple(x.shape)}")
    return checks.positive_number("dt", dt)


def train_chyllpp(x: torch.Tensor, dt: float, m: int | None = None, weights=None, masks=None,
                  stages=(4, 10, 20), iters: int = 400, batch: int = 64, lr: float = 3e-3, width: int = 64,
                  depth: int = 2, last: str = "relu", jump_factor: float = 5.0, floor_frac: float = 0.1,
                  seed: int = 0) -> tuple[CHyLLpp, dict]:
    """Train CHyLL++ on trajectories ``x`` (B, T, n) sampled at Δt = ``dt`` (paper §4).

    ``weights``: one dict of loss weights (default :data:`DEFAULT_WEIGHTS`) or a list of dicts, one per
    member of an ensemble trained together from one initialisation (e.g. the method, its ablations and the
    Latent ODE baseline :data:`LATENT_ODE`). Resets 𝓘 come from :func:`detect_jumps` (speed >
    ``jump_factor`` × median speed) unless ``masks`` gives a (B, T-1) mask per member (the oracle ablation).
    Λ = ``floor_frac`` × the mean per-coordinate encoder variance at initialisation (inferred). Trains on
    standardised states; the returned model carries the normaliser (``model.mu``, ``model.sd``) and
    predicts in original units via :func:`predict`.
    """
    dt = _check_data(x, dt)
    table = weight_table(DEFAULT_WEIGHTS if weights is None else weights, x.device)
    k = table.shape[0]
    jump_factor = checks.positive_number("jump_factor", jump_factor)
    floor_frac = checks.nonnegative_number("floor_frac", floor_frac)
    torch.manual_seed(checks.seed("seed", seed))
    mu, sd = normaliser(x)
    xs = (x - mu) / sd
    model = CHyLLpp(x.shape[-1], m, width, depth, last, members=k).to(x.device)
    model.mu, model.sd = mu, sd
    detected = detect_jumps(x, dt, jump_factor)
    if masks is None:
        mask = detected.expand(k, *detected.shape)
    else:
        if len(masks) != k:
            raise ValueError(f"masks must give one (B, T-1) mask per member ({k}); got {len(masks)}")
        mask = torch.stack([detected if mk is None else checks.tensor("masks", mk, shape=detected.shape,
                                                                      dtype_kind="bool") for mk in masks])
    with torch.no_grad():
        floor = floor_frac * model.enc(xs.reshape(1, -1, xs.shape[-1]).expand(k, -1, -1)).var(1).mean(-1)

    def loss_fn(win, wm, step):
        return _chyllpp_loss(model, win, wm, dt, table, floor)

    info = train_rollout(model.parameters(), loss_fn, xs, mask, stages, iters, batch, lr, seed=seed, members=k,
                         desc=f"CHyLL++ x{k}")
    info.update(floor=floor, detected=detected)
    return model, info


def _standardise(model, x0):
    checks.tensor("x0", x0, ndim=(2, 3), dtype_kind="float")
    if not hasattr(model, "mu"):
        raise ValueError("model must be trained here (it carries the normaliser mu, sd)")
    return (x0 - model.mu) / model.sd


@torch.no_grad()
def predict(model: nn.Module, x0: torch.Tensor, n_steps: int, dt: float) -> torch.Tensor:
    """Rollouts (K, B, n_steps+1, n) in original units of any model here, from x0 (B, n) in original units."""
    return model(_standardise(model, x0), checks.positive_int("n_steps", n_steps), checks.positive_number("dt", dt)) \
        * model.sd + model.mu


@torch.no_grad()
def encode(model: CHyLLpp, x: torch.Tensor) -> torch.Tensor:
    """f_θ(x) of states (B, ..., n) in original units for every member: (K, B, ..., m)."""
    checks.tensor("x", x, dtype_kind="float")
    if not hasattr(model, "mu"):
        raise ValueError("model must be trained here (it carries the normaliser mu, sd)")
    xs = (x - model.mu) / model.sd
    return model.enc(xs.expand(model.members, *xs.shape))
