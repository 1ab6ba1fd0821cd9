"""Strategic PFN (SPN): prior alignment by strategic in-context examples.

Section numbers below are those of docs/papers/strategic_pfn.md (the paper's method section was not available to us).

Everything here is batched over ``R`` independent tasks: rows are ``(R, n, d)`` tensors.

* Strategic response model (§3.2, standard strategic classification): an agent at ``x`` facing the
  rule ``h`` moves to ``argmax_x' u h(x') - c(x, x')`` with quadratic cost
  ``c = 1/2 (x' - x)^T C (x' - x)``, ``C = diag(c_j)``, ``c_j = inf`` for immutable features.
  The budget ``r`` is the largest move in the cost norm ``|d|_C = sqrt(d^T C d)`` an agent accepts
  (``u = r^2 / 2``), in standardised feature units. For a linear score ``s = w.x + b`` the cheapest
  crossing move is along ``C^-1 w`` with length ``-s / sqrt(w^T C^-1 w)`` (:func:`linear_best_response`).
* Black-box rules (the PFN) are handled by a *linear surrogate* (``"surrogate"``, §3.2, inferred)
  fitted to the rule's own logits, optionally followed by a *line search* along the surrogate
  direction that checks the true decision (``"line"``), or by *gradient* responses through the
  differentiable PFN (``"gradient"``). Agents the rule already accepts never move, and agents never
  use their label (§3.2, §6).
* SPN (§3.4): build the strategic context ``D_s = {(Delta_{h_0}(x_i), y_i)}`` and predict the
  (manipulated) queries with the same frozen PFN conditioned on ``D_s`` (``"replace"``) or on
  ``D + D_s`` (``"augment"``); the iterated variant repeats the construction against its own rule
  (a repeated-risk-minimisation fixed point, protocol P2).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from icml26 import checks, linalg
from icml26.nn.pfn import TinyPFN

RESPONSES = ("surrogate", "line", "gradient")
VARIANTS = ("replace", "augment")


def _check_rows(name: str, x) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or x.ndim != 3 or not x.is_floating_point():
        raise ValueError(f"{name} must be a float tensor of shape (R, n, d); got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    return checks.tensor(name, x)


def _check_labels(name: str, y, shape) -> torch.Tensor:
    if not isinstance(y, torch.Tensor) or y.shape != shape:
        raise ValueError(f"{name} must be a tensor of shape {tuple(shape)}; got "
                         f"{getattr(y, 'shape', type(y).__name__)}")
    return checks.tensor(name, y)


def _check_model(model) -> TinyPFN:
    if not isinstance(model, TinyPFN) or model.task != "cls":
        raise TypeError(f"model must be a classification TinyPFN; got {type(model).__name__}")
    return model


def _check_threshold(threshold) -> float:
    return checks.in_range("threshold", threshold, 0.0, 1.0, low_open=True, high_open=True)


def _check_cost(cost, d: int) -> torch.Tensor:
    if not isinstance(cost, torch.Tensor) or cost.ndim not in (1, 2) or cost.shape[-1] != d or not cost.numel():
        raise ValueError(f"cost must be a tensor of shape (d,) or (R, d) with d={d}; got "
                         f"{getattr(cost, 'shape', type(cost).__name__)}")
    if torch.isnan(cost).any() or (cost <= 0).any():
        raise ValueError("cost must hold positive numbers (inf marks an immutable feature)")
    return cost


def _budget(budget, shape, device) -> torch.Tensor:
    if isinstance(budget, bool):
        raise TypeError(f"budget must be a number or a tensor; got {budget!r}")
    try:
        r = torch.as_tensor(budget, dtype=torch.float32, device=device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise TypeError(f"budget must be a number or a tensor; got {type(budget).__name__} ({exc})") from None
    if not r.numel() or not torch.isfinite(r).all() or (r < 0).any():
        raise ValueError(f"budget must be finite and >= 0; got {budget!r}")
    try:
        return r.expand(shape)
    except RuntimeError as exc:
        raise ValueError(f"budget must be a number or broadcast to {tuple(shape)}; got shape {tuple(r.shape)}") from exc


# --------------------------------------------------------------------------- agents
@dataclass(frozen=True)
class Agents:
    """Who manipulates and how much (docs §3.2, inferred variants).

    ``budget``: the budget ``r`` (cost-norm units); ``pi``: probability that an agent is strategic;
    ``random_budget``: per-agent budgets ``r_i ~ U[0, budget]`` instead of a common ``r``.
    """

    budget: float
    pi: float = 1.0
    random_budget: bool = False

    def __post_init__(self):
        if not (isinstance(self.budget, (int, float)) and self.budget >= 0 and math.isfinite(self.budget)):
            raise ValueError(f"budget must be a finite number >= 0; got {self.budget!r}")
        checks.probability("pi", self.pi)
        if not isinstance(self.random_budget, bool):
            raise TypeError(f"random_budget must be a bool; got {self.random_budget!r}")

    def draw(self, shape, generator: torch.Generator | None, device) -> torch.Tensor:
        """Per-agent budgets ``(R, n)``: 0 for non-strategic agents. Never looks at labels."""
        if self.pi >= 1.0 and not self.random_budget:
            return torch.full(shape, float(self.budget), device=device)
        if generator is None:
            raise ValueError("a generator is needed for stochastic agents (pi < 1 or random_budget)")
        r = torch.full(shape, float(self.budget), device=device)
        if self.random_budget:
            r = r * torch.rand(shape, generator=generator, device=device)
        if self.pi < 1.0:
            r = r * (torch.rand(shape, generator=generator, device=device) < self.pi)
        return r


# --------------------------------------------------------------------------- linear responses
def cost_norm(delta: torch.Tensor, cost: torch.Tensor) -> torch.Tensor:
    """``sqrt(delta^T C delta)`` per row (``inf`` if an immutable feature moved)."""
    delta = _check_rows("delta", delta)
    _check_cost(cost, delta.shape[-1])
    if cost.ndim == 2 and cost.shape[0] != delta.shape[0]:
        raise ValueError(f"cost of shape (R, d) must have R={delta.shape[0]} rows; got {cost.shape[0]}")
    return _cost_norm(delta, cost)


def _cost_norm(delta: torch.Tensor, cost: torch.Tensor) -> torch.Tensor:
    moved = delta != 0
    c = torch.where(moved, cost.expand_as(delta) if cost.ndim == 1 else cost[:, None, :].expand_as(delta),
                    torch.zeros_like(delta))
    return torch.sqrt((c * delta**2).sum(-1))


def _inv_cost(cost: torch.Tensor) -> torch.Tensor:
    inv = 1.0 / cost  # inf -> 0
    return inv if inv.ndim == 2 else inv[None, :]


def move_direction(w: torch.Tensor, cost: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Unit (cost-norm) direction of the cheapest score increase, ``C^-1 w / sqrt(w^T C^-1 w)``, and
    ``sqrt(w^T C^-1 w)`` (score gained per unit of cost-norm distance). Shapes ``(R, d)``, ``(R,)``."""
    checks.tensor("w", w, ndim=2)
    _check_cost(cost, w.shape[-1])
    return _move_direction(w, cost)


def _move_direction(w: torch.Tensor, cost: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    inv = _inv_cost(cost)
    cw = inv * w
    gain = torch.sqrt((w * cw).sum(-1))
    return cw / gain.clamp_min(1e-12)[:, None], gain


def linear_best_response(X: torch.Tensor, w: torch.Tensor, b: torch.Tensor, cost: torch.Tensor, budget,
                         margin: float = 1e-3) -> torch.Tensor:
    """Closed-form best response to the linear rule ``1[w.x + b >= 0]`` (§3.2).

    ``X (R, n, d)``, ``w (R, d)``, ``b (R,)``, ``cost (d,)|(R, d)``, ``budget`` a number or ``(R, n)``.
    An agent with ``s < 0`` moves iff the distance ``-s / sqrt(w^T C^-1 w)`` plus ``margin`` is within
    its budget; it lands ``margin`` past the boundary. Others stay put.
    """
    X = _check_rows("X", X)
    R, n, d = X.shape
    if w.shape != (R, d) or b.shape != (R,):
        raise ValueError(f"w must be (R, d)={R, d} and b (R,)={R,}; got {tuple(w.shape)}, {tuple(b.shape)}")
    checks.tensor("w", w)
    checks.tensor("b", b)
    cost = _check_cost(cost, d)
    checks.nonnegative_number("margin", margin)
    r = _budget(budget, (R, n), X.device)
    u, gain = _move_direction(w, cost)
    s = torch.einsum("rnd,rd->rn", X, w) + b[:, None]
    dist = -s / gain.clamp_min(1e-12)[:, None] + margin
    move = (s < 0) & (dist <= r) & (gain[:, None] > 0)
    return X + torch.where(move, dist, torch.zeros_like(dist))[..., None] * u[:, None, :]


def fit_linear_surrogate(X: torch.Tensor, logits: torch.Tensor, ridge: float = 1e-3, clip: float = 8.0):
    """Weighted least squares ``logit ~ w.x + b`` per task, weights ``p(1-p) + 0.01`` (near-boundary rows
    count most); rows with ``|logit| > clip`` are left out (clamped only if fewer than ``d + 2`` remain).
    Returns ``w (R, d)``, ``b (R,)`` (float32)."""
    X = _check_rows("X", X)
    _check_labels("logits", logits, X.shape[:2])
    checks.nonnegative_number("ridge", ridge)
    checks.positive_number("clip", clip)
    return _fit_linear_surrogate(X, logits, ridge, clip)


def _fit_linear_surrogate(X: torch.Tensor, logits: torch.Tensor, ridge: float = 1e-3, clip: float = 8.0):
    # Rows with |logit| > clip are left out of the fit rather than clamped: a clamped far-off row pulls the
    # line towards a flat logit and tilts it (issue 34: 1.8% of closed-form movers missed the boundary).
    # A task with fewer than d + 2 rows inside the clip falls back to clamping, so the fit stays defined.
    z = logits.double()
    inside = z.abs() <= clip
    few = inside.sum(-1, keepdim=True) < X.shape[-1] + 2
    inside = inside | few
    z = z.clamp(-clip, clip)
    p = torch.sigmoid(z)
    wt = (p * (1 - p) + 0.01) * inside
    A = torch.cat([X.double(), torch.ones_like(z)[..., None]], -1)
    Aw = A * wt[..., None]
    G = Aw.transpose(1, 2) @ A + ridge * torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    coef = linalg._solve(G, (Aw * z[..., None]).sum(1))
    return coef[:, :-1].float(), coef[:, -1].float()


# --------------------------------------------------------------------------- black-box responses
ScoreFn = Callable[[torch.Tensor], torch.Tensor]
"""Maps rows ``(R, m, d)`` to decision scores ``(R, m)``; the rule accepts where the score is >= 0."""


def best_response(score_fn: ScoreFn, X: torch.Tensor, cost: torch.Tensor, budget, method: str = "line",
                  surrogate_X: torch.Tensor | None = None, margin: float = 1e-3, n_grid: int = 8,
                  steps: int = 50, lr: float = 0.05, kappa: float = 4.0, n_bisect: int = 10,
                  tol: float = 1e-3) -> torch.Tensor:
    """Best responses of agents at ``X`` to the black-box rule ``score_fn >= 0`` (§3.2).

    ``surrogate``: closed form for a linear surrogate fitted to ``score_fn`` on ``surrogate_X`` (default
    ``X``), kept only where the true rule then accepts. ``line``: additionally searches distances
    ``{closed form} U {k r / n_grid}`` along the surrogate direction, takes the cheapest accepted one and
    bisects (up to ``n_bisect`` halvings, to ``tol``) between it and the rejected candidate before it, so
    that movers land about ``margin`` (at most ``margin + tol``) past the true boundary along that direction.
    ``gradient``: Adam on ``x'`` maximising ``r^2/2 * sigmoid(kappa * score) - cost`` through ``score_fn``
    (which must then be differentiable), projected back to ``x`` unless accepted within budget.
    Agents already accepted, or with no accepted point within budget, stay where they are.
    """
    if not callable(score_fn):
        raise TypeError(f"score_fn must be callable (rows -> scores); got {type(score_fn).__name__}")
    X = _check_rows("X", X)
    R, n, d = X.shape
    cost = _check_cost(cost, d)
    checks.one_of("method", method, RESPONSES)
    checks.int_at_least("n_grid", n_grid, 1)
    checks.int_at_least("n_bisect", n_bisect, 0)
    checks.positive_number("tol", tol)
    if surrogate_X is not None:
        _check_rows("surrogate_X", surrogate_X)
        if surrogate_X.shape[0] != R or surrogate_X.shape[-1] != d:
            raise ValueError(f"surrogate_X must have shape (R={R}, m, d={d}); got {tuple(surrogate_X.shape)}")
    checks.nonnegative_number("margin", margin)
    checks.positive_int("steps", steps)
    checks.positive_number("lr", lr)
    checks.positive_number("kappa", kappa)
    r = _budget(budget, (R, n), X.device)
    with torch.no_grad():
        s0 = score_fn(X)
    if not isinstance(s0, torch.Tensor) or s0.shape != (R, n):
        raise ValueError(f"score_fn must map rows (R, n, d) to scores (R, n)={R, n}; got "
                         f"{getattr(s0, 'shape', type(s0).__name__)}")
    rejected = s0 < 0
    if method == "gradient":
        return _gradient_response(score_fn, X, cost, r, rejected, steps, lr, kappa)
    ref = X if surrogate_X is None else surrogate_X
    with torch.no_grad():
        w, b = _fit_linear_surrogate(ref, score_fn(ref))
        u, gain = _move_direction(w, cost)
        s = torch.einsum("rnd,rd->rn", X, w) + b[:, None]
        d0 = (-s / gain.clamp_min(1e-12)[:, None]).clamp_min(0) + margin
        if method == "surrogate":
            cand = d0[..., None]
        else:
            grid = r[..., None] * torch.arange(1, n_grid + 1, device=X.device) / n_grid
            cand = torch.cat([d0[..., None], grid], -1).sort(-1).values
        K = cand.shape[-1]
        Xc = X[:, :, None, :] + cand[..., None] * u[:, None, None, :]
        ok = (score_fn(Xc.reshape(R, n * K, d)).reshape(R, n, K) >= 0) & (cand <= r[..., None])
        ok = ok & rejected[..., None] & (gain[:, None, None] > 0)
        first = torch.where(ok, torch.arange(K, device=X.device), K).min(-1).values
        moves = ok.any(-1)
        dist = cand.gather(-1, first.clamp_max(K - 1)[..., None]).squeeze(-1)
        if method == "line" and K > 1:
            # the first accepted grid point can lie up to r / n_grid past the boundary (issue 34: 0.18 at
            # r = 1.5): bisect between it and the rejected candidate before it, keeping an accepted distance
            lo = torch.where(first > 0, cand.gather(-1, (first - 1).clamp(0, K - 1)[..., None]).squeeze(-1),
                             torch.zeros_like(dist))
            hi = dist
            for _ in range(n_bisect):
                if not bool((moves & (hi - lo > tol)).any()):
                    break
                mid = 0.5 * (lo + hi)
                acc = score_fn(X + mid[..., None] * u[:, None, :]) >= 0
                hi, lo = torch.where(acc, mid, hi), torch.where(acc, lo, mid)
            # land ``margin`` past the bracketed boundary (never further than the accepted candidate), as the
            # closed form does for a linear rule, unless the true rule rejects that point
            land = torch.minimum(dist, hi + margin)
            keep = score_fn(X + land[..., None] * u[:, None, :]) >= 0
            dist = torch.where(keep, land, hi)
        return X + torch.where(moves, dist, torch.zeros_like(dist))[..., None] * u[:, None, :]


def _gradient_response(score_fn, X, cost, r, rejected, steps, lr, kappa):
    mutable = torch.isfinite(cost).to(X.dtype)
    mutable = mutable if mutable.ndim == 1 else mutable[:, None, :]
    c = torch.where(torch.isfinite(cost), cost, torch.zeros_like(cost))
    c = c if c.ndim == 1 else c[:, None, :]
    delta = torch.zeros_like(X, requires_grad=True)
    opt = torch.optim.Adam([delta], lr=lr)
    gain = 0.5 * r**2
    for _ in range(steps):
        step = delta * mutable
        util = gain * torch.sigmoid(kappa * score_fn(X + step)) - 0.5 * (c * step**2).sum(-1)
        opt.zero_grad()
        (-util.sum()).backward()
        opt.step()
    with torch.no_grad():
        step = delta.detach() * mutable
        accepted = score_fn(X + step) >= 0
        within = _cost_norm(step, cost) <= r + 1e-6
        moves = rejected & accepted & within
        return X + torch.where(moves[..., None], step, torch.zeros_like(step))


# --------------------------------------------------------------------------- the PFN as a rule
def pfn_scores(model: TinyPFN, x_ctx: torch.Tensor, y_ctx: torch.Tensor, x: torch.Tensor,
               threshold: float = 0.5, chunk_size: int = 4096) -> torch.Tensor:
    """Decision score of the PFN rule ``1[q(1 | x, D) >= threshold]``: ``logit q(1|x,D) - logit(threshold)``."""
    _check_pfn_context(model, x_ctx, y_ctx, threshold)
    _check_rows("x", x)
    checks.positive_int("chunk_size", chunk_size)
    return _pfn_scores(model, x_ctx, y_ctx, x, threshold, chunk_size)


def _check_pfn_context(model, x_ctx, y_ctx, threshold) -> None:
    _check_model(model)
    _check_rows("x_ctx", x_ctx)
    _check_labels("y_ctx", y_ctx, x_ctx.shape[:2])
    _check_threshold(threshold)


def _pfn_scores(model, x_ctx, y_ctx, x, threshold=0.5, chunk_size=4096):
    out = model.predict(x_ctx, y_ctx, x, chunk_size=chunk_size)
    return (out[..., 1] - out[..., 0]) - math.log(threshold / (1 - threshold))


def pfn_rule(model: TinyPFN, x_ctx: torch.Tensor, y_ctx: torch.Tensor, threshold: float = 0.5) -> ScoreFn:
    """The deployed PFN rule as a score function (differentiable in the query rows)."""
    _check_pfn_context(model, x_ctx, y_ctx, threshold)
    return _pfn_rule(model, x_ctx, y_ctx, threshold)


def _pfn_rule(model, x_ctx, y_ctx, threshold=0.5) -> ScoreFn:
    return lambda x: _pfn_scores(model, x_ctx, y_ctx, x, threshold)


# --------------------------------------------------------------------------- SPN
RuleFactory = Callable[[torch.Tensor], ScoreFn]
"""Rebuilds the deployed rule from the context rows of the agents kept (a boolean mask over the ``n`` rows)."""


def context_rule_factory(model: TinyPFN, x_ctx: torch.Tensor, y_ctx: torch.Tensor, n: int,
                         threshold: float = 0.5) -> RuleFactory:
    """:data:`RuleFactory` for a PFN rule whose context ``(x_ctx, y_ctx)`` stacks ``k >= 1`` blocks of ``n``
    rows (one block per agent: D, D_s, or D + D_s); ``keep`` selects agents in every block."""
    _check_pfn_context(model, x_ctx, y_ctx, threshold)
    checks.positive_int("n", n)
    if x_ctx.shape[1] % n:
        raise ValueError(f"x_ctx must hold a multiple of n={n} rows; got {x_ctx.shape[1]}")
    reps = x_ctx.shape[1] // n

    def factory(keep: torch.Tensor) -> ScoreFn:
        kk = keep.repeat(reps)
        return _pfn_rule(model, x_ctx[:, kk], y_ctx[:, kk], threshold)

    return factory


def strategic_context(rule: ScoreFn | RuleFactory, x_ctx: torch.Tensor, y_ctx: torch.Tensor, cost: torch.Tensor,
                      agents: Agents, generator: torch.Generator | None = None, method: str = "line",
                      variant: str = "replace", cross_fit: int = 0, **response_kw):
    """Step 2 of SPN (§3.4): simulate the context rows' responses to the deployed rule, keep their labels.

    ``rule`` is the deployed score function, or with ``cross_fit = K >= 2`` a :data:`RuleFactory`: the
    rows are split into ``K`` folds and each fold responds to the rule rebuilt from the other folds
    (*inferred* choice: an in-context learner "remembers" its own context rows, so rows facing a rule
    that contains them respond like no fresh agent would; cross-fitting simulates fresh agents).
    ``variant="replace"`` returns ``D_s``; ``"augment"`` returns ``D + D_s``. Labels never reach the
    response model.
    """
    if not callable(rule):
        raise TypeError(f"rule must be a score function or a rule factory; got {type(rule).__name__}")
    x_ctx = _check_rows("x_ctx", x_ctx)
    checks.one_of("variant", variant, VARIANTS)
    checks.one_of("method", method, RESPONSES)
    _check_labels("y_ctx", y_ctx, x_ctx.shape[:2])
    _check_cost(cost, x_ctx.shape[-1])
    _check_cross_fit(cross_fit)
    if not isinstance(agents, Agents):
        raise TypeError(f"agents must be an Agents; got {type(agents).__name__}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None; got {type(generator).__name__}")
    n = x_ctx.shape[1]
    budgets = agents.draw(x_ctx.shape[:2], generator, x_ctx.device)
    if cross_fit:
        if cross_fit > n // 2:
            raise ValueError(f"cross_fit must be <= n_ctx // 2 = {n // 2}; got {cross_fit}")
        xs = x_ctx.clone()
        folds = torch.arange(n, device=x_ctx.device) % cross_fit
        for k in range(cross_fit):
            inside, outside = folds == k, folds != k
            fold_rule = rule(outside)
            xs[:, inside] = best_response(fold_rule, x_ctx[:, inside], cost, budgets[:, inside], method=method,
                                          surrogate_X=x_ctx[:, outside], **response_kw)
    else:
        xs = best_response(rule, x_ctx, cost, budgets, method=method, surrogate_X=x_ctx, **response_kw)
    if variant == "augment":
        return torch.cat([x_ctx, xs], 1), torch.cat([y_ctx, y_ctx], 1)
    return xs, y_ctx.clone()


def _check_cross_fit(cross_fit) -> int:
    if isinstance(cross_fit, bool) or not isinstance(cross_fit, int) or cross_fit < 0 or cross_fit == 1:
        raise ValueError(f"cross_fit must be 0 (off) or an integer >= 2; got {cross_fit!r}")
    return cross_fit


@dataclass
class StrategicPFN:
    """Strategic PFN around a frozen :class:`TinyPFN` (§3.4): no parameter changes, only the context.

    ``fit(x_ctx, y_ctx)`` deploys the base rule ``h_0`` and builds the strategic context against it
    (``rounds`` > 1 iterates: ``D_s^(t+1) = Delta_{h_t}(D)``, with ``h_t`` the SPN rule of round ``t``).
    ``scores(x)`` are SPN's decision scores, ``base_scores(x)`` those of the plain PFN.
    """

    model: TinyPFN
    cost: torch.Tensor
    agents: Agents
    variant: str = "replace"
    rounds: int = 1
    method: str = "line"
    threshold: float = 0.5
    cross_fit: int = 4

    def __post_init__(self):
        if not isinstance(self.model, TinyPFN) or self.model.task != "cls":
            raise ValueError("model must be a classification TinyPFN")
        if not isinstance(self.cost, torch.Tensor) or self.cost.ndim not in (1, 2) or not self.cost.numel():
            raise ValueError(f"cost must be a non-empty tensor of shape (d,) or (R, d); got "
                             f"{getattr(self.cost, 'shape', type(self.cost).__name__)}")
        _check_cost(self.cost, self.cost.shape[-1])
        if not isinstance(self.agents, Agents):
            raise TypeError(f"agents must be an Agents; got {type(self.agents).__name__}")
        _check_threshold(self.threshold)
        _check_cross_fit(self.cross_fit)
        checks.int_at_least("rounds", self.rounds, 1)
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}; got {self.variant!r}")
        if self.method not in RESPONSES:
            raise ValueError(f"method must be one of {RESPONSES}; got {self.method!r}")

    def fit(self, x_ctx: torch.Tensor, y_ctx: torch.Tensor, generator: torch.Generator | None = None):
        self.x_ctx, self.y_ctx = _check_rows("x_ctx", x_ctx), y_ctx
        _check_cost(self.cost, x_ctx.shape[-1])
        rule = pfn_rule(self.model, x_ctx, y_ctx, self.threshold)
        self.base_rule = rule
        self.history = []
        xc, yc = x_ctx, y_ctx  # context of the current rule h_t (D at t = 0)
        for _ in range(self.rounds):
            src = context_rule_factory(self.model, xc, yc, x_ctx.shape[1], self.threshold) if self.cross_fit else rule
            xs, ys = strategic_context(src, x_ctx, y_ctx, self.cost, self.agents, generator,
                                       method=self.method, variant=self.variant, cross_fit=self.cross_fit)
            self.history.append(xs[:, -x_ctx.shape[1]:])
            xc, yc = xs, ys
            rule = pfn_rule(self.model, xs, ys, self.threshold)
        self.x_s, self.y_s, self.rule = xs, ys, rule
        return self

    def scores(self, x: torch.Tensor) -> torch.Tensor:
        return self.rule(x)

    def base_scores(self, x: torch.Tensor) -> torch.Tensor:
        return self.base_rule(x)

    def predict(self, x: torch.Tensor) -> torch.Tensor:
        return (self.scores(x) >= 0).long()
