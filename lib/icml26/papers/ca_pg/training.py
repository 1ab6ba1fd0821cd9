"""Synthetic two-tower world and the training loop shared by CA-PG and every baseline (docs/papers/ca_pg.md §2 (b), §3).

World: user features ``x_u``, item features ``y_a`` ~ N(0, I_d), a true bilinear ``W*``; the per-user
standardised score ``z`` gives a sparse mean reward ``q = sigmoid(sharp * (z - shift))``. The ESR is a
linear two-tower on the same features (it can represent the truth); the LSR is fixed and scores with
``lsr_scores(q, alignment)``. All estimators get the same optimiser, learning rate, batches of users,
number of steps and evaluation draws (equal footing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.papers.ca_pg.baselines import _distill_loss, _topk_wr_loss, _vpg_loss
from icml26.papers.ca_pg.method import (
    ALIGNMENTS,
    TwoTowerESR,
    _capg_loss,
    _check_k,
    _check_lsr,
    _lsr_choose,
    _lsr_probs,
    lsr_scores,
)
from icml26.ranking import sample_topk

ESTIMATORS = ("capg", "capg_mean", "capg_quad", "vpg_mean", "vpg", "topk_wr", "distill")
LABELS = {"capg": "CA-PG (no baseline)", "capg_mean": "CA-PG (batch-mean baseline)",
          "capg_quad": "CA-PG (quadrature rho)", "vpg_mean": "V-PG (batch-mean baseline)",
          "vpg": "V-PG (no baseline)", "topk_wr": "top-K WR correction (Chen'19)", "distill": "distil LSR (ListMLE)"}


@dataclass
class World:
    users: torch.Tensor  # (U, d)
    items: torch.Tensor  # (N, d)
    q: torch.Tensor  # (U, N) mean reward
    g: torch.Tensor  # (U, N) LSR scores


def _check_world(world) -> None:
    """A :class:`World` whose users (U, d), items (N, d_item), q and g (U, N) agree and are finite."""
    if not isinstance(world, World):
        raise TypeError(f"world must be a World (see make_world); got {type(world).__name__}")
    checks.tensor("world.q", world.q, ndim=2, dtype_kind="float")
    U, N = world.q.shape
    checks.tensor("world.g", world.g, shape=(U, N), dtype_kind="float")
    checks.tensor("world.users", world.users, shape=(U, None), dtype_kind="float")
    checks.tensor("world.items", world.items, shape=(N, None), dtype_kind="float")


def make_world(n_items: int, n_users: int, d: int = 16, sharp: float = 3.0, shift: float = 2.5,
               alignment: str = "aligned", noise: float = 0.0, device="cpu", seed: int = 0) -> World:
    """The two-tower world of docs/papers/ca_pg.md §2 (b) with sparse good items."""
    for name, v in (("n_items", n_items), ("n_users", n_users), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer; got {v!r}")
    if n_items < 2:
        raise ValueError(f"n_items must be >= 2 (the rewards are standardised over items); got {n_items}")
    checks.finite_number("sharp", sharp)
    checks.finite_number("shift", shift)
    checks.one_of("alignment", alignment, ALIGNMENTS)
    checks.nonnegative_number("noise", noise)
    checks.device("device", device)
    checks.seed("seed", seed)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    users = torch.randn(n_users, d, generator=gen)
    items = torch.randn(n_items, d, generator=gen)
    w_star = torch.randn(d, d, generator=gen)
    s = users @ w_star @ items.T
    z = (s - s.mean(-1, keepdim=True)) / s.std(-1, keepdim=True)
    q = torch.sigmoid(sharp * (z - shift))
    g = lsr_scores(q, alignment, noise, generator=gen)
    return World(users.to(device), items.to(device), q.to(device), g.to(device))


def evaluate_value(scores: torch.Tensor, q: torch.Tensor, g: torch.Tensor, k: int, tau: float,
                   n_sets: int, generator: torch.Generator) -> float:
    """Expected reward of the two-stage policy: mean over users and ``n_sets`` ESR draws of sum_a pi0 q."""
    _check_world_scores(scores, q, g, k, tau)
    checks.positive_int("n_sets", n_sets)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    return _evaluate_value(scores, q, g, k, tau, n_sets, generator)


def _check_world_scores(scores, q, g, k, tau) -> None:
    """ESR logits, mean rewards and LSR scores of one shape (U, N); ``k`` in [1, N]; ``tau`` >= 0."""
    checks.tensor("q", q, ndim=2, dtype_kind="float")
    for name, t in (("scores", scores), ("g", g)):
        if t is not None:
            checks.tensor(name, t, shape=q.shape, dtype_kind="float")
    _check_k(k, q.shape[-1])
    _check_lsr(g, torch.zeros(*g.shape[:-1], 1, dtype=torch.long, device=g.device), tau)


def _evaluate_value(scores, q, g, k, tau, n_sets, generator):
    cand = sample_topk(scores, k, n=n_sets, generator=generator)  # (S, U, K)
    ge = g.expand(n_sets, *g.shape)
    p0 = _lsr_probs(ge, cand, tau)
    qc = torch.gather(q.expand(n_sets, *q.shape), -1, cand)
    return float((p0 * qc).sum(-1).mean())


def oracle_value(q: torch.Tensor, g: torch.Tensor, k: int, tau: float) -> float:
    """Value of the oracle ESR (top-K by q) under the LSR."""
    _check_world_scores(None, q, g, k, tau)
    return _oracle_value(q, g, k, tau)


def _oracle_value(q, g, k, tau):
    cand = torch.topk(q, k, dim=-1).indices
    return float((_lsr_probs(g, cand, tau) * torch.gather(q, -1, cand)).sum(-1).mean())


def train(world: World, estimator: str, k: int, steps: int, batch: int = 32, lr: float = 0.05,
          tau: float = 0.01, n_mc: int = 16, eval_every: int = 10, eval_users: int = 60, eval_sets: int = 8,
          seed: int = 0, init_scale: float = 0.0, quad_nodes: int = 256) -> dict:
    """Train a fresh two-tower ESR with ``estimator`` for ``steps`` Adam steps; return the value curve.

    One candidate set per sampled user and step; rewards Bernoulli(q(x, a)) of the LSR-chosen item.
    The evaluation users and Gumbel draws are the same for every estimator with this ``seed``.
    """
    _check_world(world)
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}; got {estimator!r}")
    n_users, n_items = world.q.shape
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n_items:
        raise ValueError(f"k must be an integer in [1, {n_items}]; got {k!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer; got {steps!r}")
    for name, v in (("batch", batch), ("n_mc", n_mc), ("eval_every", eval_every), ("eval_users", eval_users),
                    ("eval_sets", eval_sets), ("quad_nodes", quad_nodes)):
        checks.positive_int(name, v)
    checks.positive_number("lr", lr)
    _check_lsr(world.g, torch.zeros(n_users, 1, dtype=torch.long, device=world.g.device), tau)
    checks.seed("seed", seed)
    checks.finite_number("init_scale", init_scale)
    dev = world.q.device
    gen = torch.Generator(device=dev).manual_seed(1000 + seed)
    init_gen = torch.Generator(device=dev).manual_seed(2000 + seed)
    model = TwoTowerESR(world.users.shape[1], init_scale=init_scale, generator=init_gen, device=dev,
                        d_item=world.items.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    eval_gen_seed = 3000 + seed
    eu = torch.randperm(n_users, generator=torch.Generator().manual_seed(eval_gen_seed))[:eval_users].to(dev)
    curve_steps, curve = [], []

    def evaluate(step):
        with torch.no_grad():
            sc = model(world.users[eu], world.items)
            eg = torch.Generator(device=dev).manual_seed(eval_gen_seed + step)
            curve.append(_evaluate_value(sc, world.q[eu], world.g[eu], k, tau, eval_sets, eg))
            curve_steps.append(step)

    evaluate(0)
    for step in range(1, steps + 1):
        u = torch.randint(n_users, (batch,), generator=gen, device=dev)
        scores = model(world.users[u], world.items)
        cand = sample_topk(scores, k, generator=gen)
        gu, qu = world.g[u], world.q[u]
        chosen = _lsr_choose(gu, cand, tau, gen)
        r = (torch.rand(batch, generator=gen, device=dev) < torch.gather(qu, -1, chosen[:, None])[:, 0]).float()
        if estimator == "capg":
            loss = _capg_loss(scores, chosen, r, k, rho="mc", n_mc=n_mc, generator=gen)
        elif estimator == "capg_mean":
            loss = _capg_loss(scores, chosen, r, k, rho="mc", n_mc=n_mc, baseline="mean", generator=gen)
        elif estimator == "capg_quad":
            loss = -(r * _quad_log_rho(scores, chosen, k, quad_nodes)).mean()
        elif estimator == "vpg_mean":
            loss = _vpg_loss(scores, cand, r, baseline="mean")
        elif estimator == "vpg":
            loss = _vpg_loss(scores, cand, r, baseline="none")
        elif estimator == "topk_wr":
            loss = _topk_wr_loss(scores, chosen, r, k)
        else:
            loss = _distill_loss(scores, cand, gu)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % eval_every == 0 or step == steps:
            evaluate(step)
    oracle = _oracle_value(world.q[eu], world.g[eu], k, tau)
    return {"steps": curve_steps, "value": curve, "oracle": oracle}


def _check_curve(curve, target, curve_steps=None) -> None:
    checks.finite_number("target", target)
    checks.array("curve", curve, ndim=1, finite=False, nonempty=False)  # a diverged run's NaN values are data
    if curve_steps is not None:
        checks.array("curve_steps", curve_steps, ndim=1, finite=False, nonempty=False)
        checks.same_length(("curve_steps", "curve"), (curve_steps, curve))


def _quad_log_rho(scores, chosen, k, n_nodes):
    from icml26.ranking import log_inclusion_prob

    return log_inclusion_prob(scores, chosen[:, None], k, method="quadrature", n_nodes=n_nodes)[:, 0]


def steps_to(curve_steps, curve, target: float, censor: float | None = None) -> float:
    """First evaluated step whose value reaches ``target``; ``censor`` (or inf) when never reached."""
    _check_curve(curve, target, curve_steps)
    if censor is not None:
        checks.finite_number("censor", censor)
    for s, v in zip(curve_steps, curve):
        if v >= target:
            return float(s)
    return float(censor) if censor is not None else math.inf


def max_drop_after(curve, target: float) -> float:
    """Largest drop below the running maximum after the curve first reaches ``target`` (0 if never)."""
    _check_curve(curve, target)
    best, drop, reached = -math.inf, 0.0, False
    for v in curve:
        if v >= target:
            reached = True
        best = max(best, v)
        if reached:
            drop = max(drop, best - v)
    return drop
