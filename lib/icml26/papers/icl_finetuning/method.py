"""Fine-tuning a one-layer linear-attention model without forgetting in-context learning.

See docs/papers/icl_finetuning.md §3 (section numbers below are that page's).

Model (§3.2): one head of *bilinear* linear attention with a residual stream over tokens
``z_j = (1, x_j, y_j)``:

    out_n = z_n + (1/N) sum_m (z_n^T Q z_m) V z_m,      y_hat = [out_N]_{d+2},

with a merged key-query matrix ``Q`` (``parameterisation="merged"``) or split ``W_q, W_k`` with
``Q = W_q^T W_k`` (``"split"``, used for the Q-only / K-only / KQ-only fine-tuning of §4). ``N`` counts
the query token (§6). The shared :mod:`icml26.nn.attention` block's ``"linear"`` variant uses an
``elu + 1`` kernel and a row normalisation, which is a different operator, so this exact bilinear form lives here.

The paper's proposal is to fine-tune only ``V`` on the zero-shot (ZS) loss, optionally with an auxiliary
few-shot (FS) loss whose weight is annealed linearly from 1 to 0 (§3.4); that keeps the query-key
channel that reads the context. Closed-form optima (§3.5) are in :func:`theory_params` and :func:`w_star`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from icml26 import checks

from .data import (
    PairDataset,
    _check_pool,
    _check_pos,
    _sample_prompts,
    _truncate_shots,
    sample_tasks,
)

PARAMETERISATIONS = ("merged", "split")
SUBSETS = ("all", "v", "q", "k", "kq")
OBJECTIVES = ("zs", "zs+fs")


class LinearAttentionICL(nn.Module):
    """One-layer, one-head linear attention for in-context regression (docs §3.2).

    ``forward(z)`` maps prompts ``(B, N, d+2)`` to predictions ``(B,)`` read from the query token.
    ``forward_all(z)`` returns every output token ``(B, N, d+2)`` (slow reference form used by the tests).
    Init: every entry ``N(0, init_std^2)`` (0.05 in the paper's code).
    """

    def __init__(self, d: int, parameterisation: str = "merged", init_std: float = 0.05,
                 generator: torch.Generator | None = None, device="cpu", dtype=torch.float32):
        super().__init__()
        self.d = checks.int_at_least("d", d, 1)
        if parameterisation not in PARAMETERISATIONS:
            raise ValueError(f"parameterisation must be one of {PARAMETERISATIONS}; got {parameterisation!r}")
        init_std = _check_pos("init_std", init_std, allow_zero=True)
        checks.generator("generator", generator)
        checks.device("device", device)
        self.parameterisation = parameterisation
        size = self.d + 2

        def init():
            return nn.Parameter(init_std * torch.randn(size, size, generator=generator, device=device, dtype=dtype))

        self.V = init()
        if parameterisation == "merged":
            self.Q = init()
        else:
            self.Wq, self.Wk = init(), init()

    def score_matrix(self) -> torch.Tensor:
        """The bilinear score matrix ``Q`` (``W_q^T W_k`` when split)."""
        return self.Q if self.parameterisation == "merged" else self.Wq.T @ self.Wk

    def _check(self, z: torch.Tensor) -> None:
        if not isinstance(z, torch.Tensor) or z.dim() != 3 or z.shape[-1] != self.d + 2 or z.shape[1] < 1:
            raise ValueError(f"z must be a (B, N >= 1, d+2={self.d + 2}) tensor; got {getattr(z, 'shape', z)!r}")

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        self._check(z)
        q = z[:, -1]                                                   # (B, D) query token
        scores = (z @ (q @ self.score_matrix()).unsqueeze(-1)).squeeze(-1)   # z_N^T Q z_m, (B, N)
        vals = z @ self.V[-1]                                          # last row of V z_m, (B, N)
        return q[:, -1] + (scores * vals).sum(1) / z.shape[1]

    def shot_curve(self, z: torch.Tensor, shots) -> torch.Tensor:
        """Predictions ``(len(shots), B)`` on the prompts keeping the first ``n`` demonstrations of ``z`` plus its
        query, for every ``n`` in ``shots``, from one pass (prefix sums of the per-token terms).
        """
        self._check(z)
        q = z[:, -1]
        terms = (z @ (q @ self.score_matrix()).unsqueeze(-1)).squeeze(-1) * (z @ self.V[-1])   # (B, N)
        prefix = torch.cumsum(terms[:, :-1], dim=1)
        prefix = torch.cat([torch.zeros_like(prefix[:, :1]), prefix], dim=1)                   # prefix[:, n]
        out = []
        for n in shots:
            if not 0 <= n <= z.shape[1] - 1:
                raise ValueError(f"shots must lie in [0, {z.shape[1] - 1}]; got {n}")
            out.append(q[:, -1] + (prefix[:, n] + terms[:, -1]) / (n + 1))
        return torch.stack(out)

    def forward_all(self, z: torch.Tensor) -> torch.Tensor:
        self._check(z)
        scores = torch.einsum("bnd,de,bme->bnm", z, self.score_matrix(), z)
        return z + torch.einsum("bnm,bme->bne", scores, z @ self.V.T) / z.shape[1]

    def effective_w(self) -> float:
        """``V[-1,-1]`` times the mean diagonal of ``Q``'s x-block: the scale on ``y`` that Q and V share (docs §6)."""
        with torch.no_grad():
            q = self.score_matrix()[1:-1, 1:-1]
            return float(self.V[-1, -1] * q.diagonal().mean())

    def params_dict(self) -> dict[str, torch.Tensor]:
        return {"Q": self.score_matrix().detach().clone(), "V": self.V.detach().clone()}


def set_trainable(model: LinearAttentionICL, subset: str) -> list[nn.Parameter]:
    """Freeze every matrix outside ``subset`` (docs §3.4) and return the trainable parameters.

    ``"all"``: every matrix; ``"v"``: the value matrix only (the paper's proposal); ``"q"``, ``"k"``, ``"kq"``: the
    query and/or key side (for the merged model all three mean the merged ``Q``).
    """
    if not isinstance(model, LinearAttentionICL):
        raise ValueError(f"model must be a LinearAttentionICL; got {type(model).__name__}")
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {SUBSETS}; got {subset!r}")
    if model.parameterisation == "merged":
        names = {"all": ("Q", "V"), "v": ("V",), "q": ("Q",), "k": ("Q",), "kq": ("Q",)}[subset]
    else:
        names = {"all": ("Wq", "Wk", "V"), "v": ("V",), "q": ("Wq",), "k": ("Wk",), "kq": ("Wq", "Wk")}[subset]
    out = []
    for name, p in model.named_parameters():
        p.requires_grad_(name in names)
        if name in names:
            out.append(p)
    return out


def gamma_pretrained(d: int, m: int) -> float:
    """The pretrained x-block scale ``Gamma = m/(m+1+d)`` for ``Sigma = I`` (docs §3.5, the official theory code)."""
    d, m = checks.int_at_least("d", d, 1), checks.int_at_least("m", m, 1)
    return m / (m + 1 + d)


def gamma_exact(d: int, n: int, sigma2: float) -> float:
    """The exact population-optimal scale for ``n`` demonstrations and ``N = n+1``: ``(n+1)/(n+1+d(1+sigma2))``.

    Derived here (docs §3.5) from ``E[S S^T] = n(n+1) theta theta^T + n(1+sigma2) I`` with ``S = sum x_j y_j``;
    it differs from :func:`gamma_pretrained` by about 3% at d=5, n=20. Used only for comparison.
    """
    d, n = checks.int_at_least("d", d, 1), checks.int_at_least("n", n, 1)
    sigma2 = _check_pos("sigma2", sigma2, allow_zero=True)
    return (n + 1) / (n + 1 + d * (1 + sigma2))


def w_star(n: int | float, d: int, sigma2: float) -> float:
    """Few-shot-optimal ``w`` for value-only fine-tuning on the target task (docs §3.5):

    ``w*(n) = ((n+1) - (n+3+2d)/(d+4)) / (n+1+d+d sigma2)``; ``w*(20) = 0.654`` at d=5, sigma2=0.1,
    ``w*(inf) = (d+3)/(d+4)``.
    """
    if not isinstance(n, (int, float)) or not n >= 0:
        raise ValueError(f"n must be a number >= 0; got {n!r}")
    d = checks.int_at_least("d", d, 1)
    sigma2 = _check_pos("sigma2", sigma2, allow_zero=True)
    if math.isinf(n):
        return (d + 3) / (d + 4)
    return ((n + 1) - (n + 3 + 2 * d) / (d + 4)) / (n + 1 + d + d * sigma2)


def zs_v_floor(d: int, sigma2: float) -> float:
    """The lowest zero-shot error of value-only fine-tuning, ``sigma2 + 2/(d+4)`` (docs §3.5)."""
    return _check_pos("sigma2", sigma2, allow_zero=True) + 2 / (checks.int_at_least("d", d, 1) + 4)


def theory_params(kind: str, d: int, *, m: int = 20, theta0: torch.Tensor | None = None, w: float | None = None,
                  gamma: float | None = None, device="cpu", dtype=torch.float32) -> LinearAttentionICL:
    """A merged model set to a closed-form optimum (docs §3.5).

    * ``"pretrained"``: ``V`` copies ``y`` (``V[-1,-1] = 1``), ``Q``'s x-block is ``gamma I``
      (default ``m/(m+1+d)``).
    * ``"zs_all"``: last row of ``V`` is ``(0, w theta0, 1)``, ``Q[0,0] = 1/w``, all else 0 (ZS optimum, any w > 0).
    * ``"zs_v"``: ``Q`` frozen at the pretrained ``gamma I``; last row of ``V`` is ``(0, theta0/((d+4) gamma),
      w/gamma)`` so that the *effective* w (V[-1,-1] times gamma) is ``w`` (default: the pretrained ``gamma``).
    """
    d = checks.int_at_least("d", d, 1)
    if kind not in ("pretrained", "zs_all", "zs_v"):
        raise ValueError(f"kind must be 'pretrained', 'zs_all' or 'zs_v'; got {kind!r}")
    if kind != "pretrained" and isinstance(theta0, torch.Tensor):
        checks.tensor("theta0", theta0)
    g = gamma_pretrained(d, m) if gamma is None else _check_pos("gamma", gamma)
    model = LinearAttentionICL(d, "merged", init_std=0.0, device=device, dtype=dtype)
    if kind != "pretrained":
        if not isinstance(theta0, torch.Tensor) or theta0.shape != (d,):
            raise ValueError(f"theta0 must be a ({d},) tensor for kind {kind!r}; got {getattr(theta0, 'shape', None)}")
        theta0 = theta0.to(device=device, dtype=dtype)
    with torch.no_grad():
        if kind == "pretrained":
            model.V[-1, -1] = 1.0
            model.Q[1:-1, 1:-1] = g * torch.eye(d, device=device, dtype=dtype)
        elif kind == "zs_all":
            w = 0.52 if w is None else _check_pos("w", w)
            model.V[-1, 1:-1] = w * theta0
            model.V[-1, -1] = 1.0
            model.Q[0, 0] = 1.0 / w
        else:
            w = g if w is None else _check_pos("w", w)
            model.Q[1:-1, 1:-1] = g * torch.eye(d, device=device, dtype=dtype)
            model.V[-1, 1:-1] = theta0 / ((d + 4) * g)
            model.V[-1, -1] = w / g
    return model


@dataclass
class TrainConfig:
    """SGD with momentum and global-norm clipping (docs §3.3-§3.4); ``lr=0.01, momentum=0.9, clip=1``."""

    steps: int = 800
    batch: int = 1000
    n_shots: int = 20
    lr: float = 0.01
    momentum: float = 0.9
    clip: float = 1.0

    def __post_init__(self):
        checks.int_at_least("steps", self.steps, 0)
        checks.int_at_least("batch", self.batch, 1)
        checks.int_at_least("n_shots", self.n_shots, 0)
        _check_pos("lr", self.lr)
        if not 0 <= self.momentum < 1:
            raise ValueError(f"momentum must be in [0, 1); got {self.momentum!r}")
        _check_pos("clip", self.clip)


class HeavyBallSGD:
    """SGD with heavy-ball momentum and global-norm clipping, as ``torch.optim.SGD(lr, momentum)`` computes it
    (``buf = momentum * buf + grad``; ``p -= lr * buf``). Written out to keep the quick scale free of the
    one-off optimiser-module import cost; the tests check it against ``torch.optim.SGD``.
    """

    def __init__(self, params, lr: float, momentum: float, clip: float | None):
        self.params = list(params)
        if not self.params or not all(isinstance(p, torch.Tensor) for p in self.params):
            raise ValueError("params must hold at least one tensor (and only tensors)")
        checks.positive_number("lr", lr)
        if not 0 <= checks.finite_number("momentum", momentum) < 1:
            raise ValueError(f"momentum must be in [0, 1); got {momentum!r}")
        if clip is not None:
            checks.positive_number("clip", clip)
        self.lr, self.momentum, self.clip = lr, momentum, clip
        self.bufs = [torch.zeros_like(p) for p in self.params]

    def step(self, loss: torch.Tensor) -> None:
        grads = torch.autograd.grad(loss, self.params)
        if self.clip is not None:
            norm = torch.sqrt(sum((g * g).sum() for g in grads))
            scale = torch.clamp(self.clip / (norm + 1e-6), max=1.0)
            grads = [g * scale for g in grads]
        with torch.no_grad():
            for p, b, g in zip(self.params, self.bufs, grads):
                b.mul_(self.momentum).add_(g)
                p.sub_(self.lr * b)


def pretrain(model: LinearAttentionICL, cfg: TrainConfig, *, sigma2: float = 0.1, x_std: float = 1.0,
             pool: torch.Tensor | None = None, generator: torch.Generator | None = None) -> list[float]:
    """Pretrain every matrix on in-context regression with a fresh task per prompt (docs §3.3); return losses."""
    if not isinstance(cfg, TrainConfig):
        raise ValueError(f"cfg must be a TrainConfig; got {type(cfg).__name__}")
    if not isinstance(model, LinearAttentionICL):
        raise ValueError(f"model must be a LinearAttentionICL; got {type(model).__name__}")
    sigma2 = _check_pos("sigma2", sigma2, allow_zero=True)
    x_std = _check_pos("x_std", x_std)
    _check_pool(pool, model.d)
    checks.generator("generator", generator)
    params = set_trainable(model, "all")
    opt = HeavyBallSGD(params, cfg.lr, cfg.momentum, cfg.clip)
    dev, dt = model.V.device, model.V.dtype
    losses = []
    for _ in range(cfg.steps):
        theta = sample_tasks(cfg.batch, model.d, generator, device=dev, dtype=dt)
        z, y = _sample_prompts(theta, cfg.n_shots, cfg.batch, sigma2, x_std, pool, generator)
        loss = ((model(z) - y) ** 2).mean()
        opt.step(loss)
        losses.append(float(loss.detach()))
    return losses


def finetune_loss(model: LinearAttentionICL, z: torch.Tensor, y: torch.Tensor, fs_weight: float) -> torch.Tensor:
    """``L_ZS + fs_weight * L_FS`` on one batch (docs §3.4): ZS uses the query token alone, FS the whole prompt."""
    if not isinstance(model, LinearAttentionICL):
        raise ValueError(f"model must be a LinearAttentionICL; got {type(model).__name__}")
    model._check(z)
    checks.tensor("z", z)
    if not isinstance(y, torch.Tensor) or y.shape != z.shape[:1]:
        raise ValueError(f"y must be a ({z.shape[0]},) tensor of query labels; got {getattr(y, 'shape', y)!r}")
    checks.tensor("y", y)
    checks.nonnegative_number("fs_weight", fs_weight)
    return _finetune_loss(model, z, y, fs_weight)


def _finetune_loss(model: LinearAttentionICL, z: torch.Tensor, y: torch.Tensor, fs_weight: float) -> torch.Tensor:
    return _finetune_terms(model, z, y, fs_weight)[0]


def _finetune_terms(model, z, y, fs_weight: float) -> tuple[torch.Tensor, torch.Tensor]:
    """``(L_ZS + fs_weight L_FS, L_ZS)`` on one batch."""
    zs = ((model(z[:, -1:]) - y) ** 2).mean()
    if fs_weight == 0:
        return zs, zs
    return zs + fs_weight * ((model(z) - y) ** 2).mean(), zs


def fs_schedule(step: int, steps: int) -> float:
    """The annealed auxiliary weight ``lambda_t = (T-1-t)/(T-1)``: 1 at the first step, 0 at the last (docs §3.4)."""
    steps, step = checks.int_at_least("steps", steps, 1), checks.int_at_least("step", step, 0)
    if step >= steps:
        raise ValueError(f"step must be < steps={steps}; got {step}")
    return 1.0 if steps == 1 else (steps - 1 - step) / (steps - 1)


def finetune(model: LinearAttentionICL, data: PairDataset, cfg: TrainConfig, *, subset: str = "v",
             objective: str = "zs", fs_anneal: bool = True, generator: torch.Generator | None = None) -> list[float]:
    """Fine-tune ``subset`` of ``model`` in place on the target data (docs §3.4); return the ZS loss of every step
    (the zero-shot term alone, also under ``"zs+fs"``, so that its last steps show whether training has plateaued).

    ``objective="zs"``: the zero-shot loss only. ``"zs+fs"``: plus the few-shot loss with weight annealed from 1 to
    0 (``fs_anneal=False`` keeps it at 1, docs §6, offered for comparison).
    """
    if not isinstance(model, LinearAttentionICL):
        raise ValueError(f"model must be a LinearAttentionICL; got {type(model).__name__}")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}; got {objective!r}")
    checks.generator("generator", generator)
    if not isinstance(data, PairDataset):
        raise ValueError(f"data must be a PairDataset; got {type(data).__name__}")
    if not isinstance(cfg, TrainConfig):
        raise ValueError(f"cfg must be a TrainConfig; got {type(cfg).__name__}")
    if data.x.shape[1] != model.d:
        raise ValueError(f"data has d={data.x.shape[1]} but the model has d={model.d}")
    params = set_trainable(model, subset)
    opt = HeavyBallSGD(params, cfg.lr, cfg.momentum, cfg.clip)
    losses = []
    for t in range(cfg.steps):
        z, y = data.prompts(cfg.n_shots, cfg.batch, generator)
        lam = 0.0 if objective == "zs" else (fs_schedule(t, cfg.steps) if fs_anneal else 1.0)
        loss, zs = _finetune_terms(model, z, y, lam)
        opt.step(loss)
        losses.append(float(zs.detach()))
    for p in model.parameters():
        p.requires_grad_(True)
    return losses


class EvalSet:
    """Fixed evaluation prompts for a list of tasks: common random numbers for every model compared (docs §3.1).

    Holds, per task and evaluation seed, ``batch`` prompts with ``max_shots`` demonstrations; the ``n``-shot
    error uses the first ``n`` demonstrations and the same query.
    """

    def __init__(self, tasks: dict[str, torch.Tensor], max_shots: int, batch: int, seeds: int = 1, *,
                 sigma2: float = 0.1, x_std: float = 1.0, pool: torch.Tensor | None = None, seed: int = 12345):
        if not isinstance(tasks, dict) or not tasks:
            raise ValueError("tasks must be a non-empty dict name -> (d,) task tensor")
        self.max_shots = checks.int_at_least("max_shots", max_shots, 0)
        checks.int_at_least("seeds", seeds, 1)
        checks.int_at_least("batch", batch, 1)
        _check_pos("sigma2", sigma2, allow_zero=True)
        _check_pos("x_std", x_std)
        checks.seed("seed", seed)
        for name, theta in tasks.items():
            if not isinstance(theta, torch.Tensor) or theta.dim() != 1:
                raise ValueError(f"tasks[{name!r}] must be a (d,) tensor; got {getattr(theta, 'shape', theta)!r}")
            checks.tensor(f"tasks[{name!r}]", theta)
            _check_pool(pool, theta.shape[0])
        self.prompts: dict[str, list[tuple[torch.Tensor, torch.Tensor]]] = {}
        for i, (name, theta) in enumerate(tasks.items()):  # every input was checked above
            self.prompts[name] = []
            for s in range(seeds):
                g = torch.Generator(device=theta.device)
                g.manual_seed(seed + 1000 * s + i)
                self.prompts[name].append(_sample_prompts(theta, max_shots, batch, sigma2, x_std, pool, g))

    @torch.no_grad()
    def curve(self, model: nn.Module, task: str, shots, calibrated: bool = False) -> list[float]:
        """Mean squared error (noise included) at each number of demonstrations in ``shots``.

        ``calibrated=True``: the error after the best scalar rescaling of the predictions,
        ``min_a E(a y_hat - y)^2 = E y^2 - (E y_hat y)^2 / E y_hat^2`` (ours, for claim C5): it measures whether the
        prediction carries the label's information whatever its scale, and never exceeds ``E y^2`` (predicting 0).
        """
        if not isinstance(calibrated, bool):
            raise TypeError(f"calibrated must be a bool; got {calibrated!r}")
        if task not in self.prompts:
            raise ValueError(f"task must be one of {list(self.prompts)}; got {task!r}")
        shots = [checks.int_at_least("shots", n, 0) for n in shots]
        if any(n > self.max_shots for n in shots):
            raise ValueError(f"shots must lie in [0, max_shots={self.max_shots}]; got {shots}")
        total = torch.zeros(len(shots), dtype=torch.float64)
        for z, y in self.prompts[task]:
            if hasattr(model, "shot_curve"):
                pred = model.shot_curve(z, shots)
            else:
                pred = torch.stack([model(_truncate_shots(z, n)) for n in shots])
            if calibrated:
                pred, yd = pred.double(), y.double()
                cross, power = (pred * yd).mean(1), (pred * pred).mean(1).clamp_min(1e-300)
                total += ((yd * yd).mean() - cross * cross / power).cpu()
            else:
                total += ((pred - y) ** 2).mean(1).double().cpu()
        return (total / len(self.prompts[task])).tolist()
