"""The toy "multi-stream diagnosis" world of APO (docs/papers/apo_alignment.md §2): cases, the student's
observation, the sources' private evidence, and sources whose error rates drift over steps and over time.

A case has ``K`` binary findings ``f`` drawn from a small chain Bayesian network
(``f_1 ~ Bern(0.35)``, ``f_k ~ Bern(0.2 + 0.35 f_{k-1})``). Its **public observation** ("the image", the only
thing the student sees) has one evidence token per finding: the positive token when present (missed with prob
``p_miss``), the negative token when absent (a spurious positive with prob ``p_spur``).

``N`` sources (stochastic programs, not networks) each have **specialities**: on its strong findings source ``u``
reads a **private** signal ``z_{u,k}`` (the truth, flipped with prob ``p_private``, independently per source)
that the student never sees, as a large model knows things a small one cannot read off the input; on its weak
findings it reads the public evidence like the student. It says present with probability ``tpr`` after a
positive signal and ``fpr`` after a negative one. Weak sets are complementary (the paper's sources are,
§1). **Drift** (§2): the hallucination rate moves along the trajectory step ``j`` **and over time**: the cases
arrive in ``rounds`` (a case's round is ``World.round``), and on every finding
``fpr_u(j, r) = fpr_u + s_{u,r} d (j + 1) / K`` with ``s_{u,r} = 1`` when ``u + r`` is even and ``0`` otherwise,
so the set of drifting sources alternates from one round to the next: which source hallucinates late in its
trajectory changes across rounds (concept drift of the streams over data time, not only along a trajectory).
The drift only adds hallucinations, so it costs the mixture of sources (what stage 1 imitates) on average; the
first version's "grows for some sources and falls for others" (``s = -1``) cancels across sources and leaves that
mixture unchanged (measured: stage 1 no worse at d = 0.3), so it could not test robustness to drift.
``correlation`` in [0, 1] makes the sources share their random draws (where a consensus cannot help).

:func:`bayes_ceiling` gives the Bayes-optimal decisions of two views, by exact enumeration of the ``2^K``
finding vectors: the **student's** (the public evidence only) and the sources' **pooled** one (the public
evidence and every private signal). No learner that reads only the observation can beat the first in
expectation; the consensus can, because it aggregates private signals.

Ground truth stays in :class:`World` field ``findings``; nothing in the APO pipeline reads it (the consensus is
built from source decisions only, §3.3); only the evaluation does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch

from icml26 import checks

__all__ = ["World", "make_world", "teacher_rates", "strong_sets", "bayes_ceiling", "PRESETS", "VIEWS"]

PRESETS = ("complementary", "uniform", "one_expert")
VIEWS = ("student", "pooled")
_P0, _P_BASE, _P_LINK = 0.35, 0.2, 0.35  # the chain network of the findings


def _check_prob(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}")
    return float(value)


def strong_sets(n_teachers: int, n_findings: int, preset: str = "complementary") -> torch.Tensor:
    """Bool ``(N, K)``: True where source ``u`` is strong on finding ``k`` (its speciality).

    ``complementary``: source ``u`` is weak on findings ``k`` with ``(k - u) mod N`` in ``{0, 1}`` (so
    every finding has at most two weak sources of five); ``uniform``: everyone weak on half the
    findings, the same half; ``one_expert``: source 0 strong everywhere, the rest weak everywhere.
    """
    n_teachers = checks.int_at_least("n_teachers", n_teachers, 1)
    n_findings = checks.int_at_least("n_findings", n_findings, 1)
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {PRESETS}; got {preset!r}")
    u = torch.arange(n_teachers)[:, None]
    k = torch.arange(n_findings)[None, :]
    if preset == "complementary":
        weak = ((k - u) % n_teachers) < 2
    elif preset == "uniform":
        weak = (k % 2 == 0).expand(n_teachers, n_findings)
    else:
        weak = (u > 0).expand(n_teachers, n_findings)
    return ~weak


def teacher_rates(n_teachers: int, n_findings: int, drift: float, tpr_strong: float = 0.95,
                  fpr_strong: float = 0.05, tpr_weak: float = 0.6, fpr_weak: float = 0.35,
                  preset: str = "complementary", rounds: int = 1, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-round, per-source, per-step rates ``(tpr, fpr)``, each ``(R, N, K)`` (step ``j`` = finding ``k``).

    Every finding gets ``fpr + s_{u,r} * drift * (j + 1) / K`` (``fpr_strong`` or ``fpr_weak``; a drifting
    rate is capped at 0.95), ``s_{u,r} = 1`` when ``u + r`` is even (hallucinations grow along the trajectory), ``0``
    otherwise (that source does not drift in that round).
    """
    for name, v in (("drift", drift), ("tpr_strong", tpr_strong), ("fpr_strong", fpr_strong),
                    ("tpr_weak", tpr_weak), ("fpr_weak", fpr_weak)):
        _check_prob(name, v)
    rounds = checks.int_at_least("rounds", rounds, 1)
    if device is not None:
        checks.device("device", device)
    strong = strong_sets(n_teachers, n_findings, preset).to(device)
    ur = torch.arange(rounds, device=device)[:, None] + torch.arange(n_teachers, device=device)[None, :]
    drifting = (ur % 2 == 0).float()[:, :, None]  # (R, N, 1)
    step = (torch.arange(n_findings, device=device, dtype=torch.float32)[None, None, :] + 1) / n_findings
    tpr = torch.where(strong, torch.tensor(tpr_strong, device=device),
                      torch.tensor(tpr_weak, device=device)).expand(rounds, -1, -1)
    fpr0 = torch.where(strong, torch.tensor(fpr_strong, device=device), torch.tensor(fpr_weak, device=device))
    fpr = torch.minimum(fpr0 + drifting * drift * step, fpr0.clamp(min=0.95))  # a drifting rate stops at 0.95
    return tpr.float().contiguous(), fpr.float()


@dataclass
class World:
    """One sampled data set: ground truth, observations, private signals and the N sources' decisions.

    ``findings`` ``(C, K)`` long (ground truth, evaluation only), ``evidence`` ``(C, K)`` long (the public
    observation, 1 = the positive evidence token), ``private`` ``(C, N, K)`` long (each source's private
    signal; used only where ``strong``), ``round`` ``(C,)`` long (the time round of each case),
    ``decisions`` ``(C, N, K)`` long (what each source writes), ``verbose`` ``(N,)`` bool (source style),
    ``strong`` ``(N, K)`` bool, ``tpr``/``fpr`` ``(R, N, K)``, and the noise levels of the observation model.
    """

    findings: torch.Tensor
    evidence: torch.Tensor
    private: torch.Tensor
    round: torch.Tensor
    decisions: torch.Tensor
    verbose: torch.Tensor
    strong: torch.Tensor
    tpr: torch.Tensor
    fpr: torch.Tensor
    p_miss: float
    p_spur: float
    p_private: float

    @property
    def n_cases(self) -> int:
        return self.findings.shape[0]

    @property
    def n_teachers(self) -> int:
        return self.decisions.shape[1]

    @property
    def n_findings(self) -> int:
        return self.findings.shape[1]

    def subset(self, idx: torch.Tensor) -> World:
        """The cases ``idx`` (same sources)."""
        return World(self.findings[idx], self.evidence[idx], self.private[idx], self.round[idx], self.decisions[idx],
                     self.verbose, self.strong, self.tpr, self.fpr, self.p_miss, self.p_spur, self.p_private)


def make_world(n_cases: int, n_findings: int = 4, n_teachers: int = 5, drift: float = 0.2,
               p_miss: float = 0.15, p_spur: float = 0.15, correlation: float = 0.0,
               preset: str = "complementary", generator: torch.Generator | None = None, device=None,
               p_private: float = 0.1, rounds: int = 4, **rates) -> World:
    """Sample ``n_cases`` cases, their private signals and every source's decisions (§2), batched.

    ``rates`` are passed to :func:`teacher_rates` (``tpr_strong``, ``fpr_strong``, ``tpr_weak``,
    ``fpr_weak``). Odd sources are verbose (they restate each decision), even ones concise. Each case
    falls in a round drawn uniformly from ``rounds`` (the time at which the sources wrote it).
    """
    n_cases = checks.int_at_least("n_cases", n_cases, 1)
    n_findings = checks.int_at_least("n_findings", n_findings, 1)
    n_teachers = checks.int_at_least("n_teachers", n_teachers, 1)
    p_miss, p_spur = _check_prob("p_miss", p_miss), _check_prob("p_spur", p_spur)
    p_private = _check_prob("p_private", p_private)
    correlation = _check_prob("correlation", correlation)
    rounds = checks.int_at_least("rounds", rounds, 1)
    if device is not None:
        checks.device("device", device)
    if generator is not None:
        checks.instance("generator", generator, torch.Generator)
        device = generator.device
    tpr, fpr = teacher_rates(n_teachers, n_findings, drift, preset=preset, rounds=rounds, device=device, **rates)
    strong = strong_sets(n_teachers, n_findings, preset).to(device)

    def rand(*shape):
        return torch.rand(*shape, generator=generator, device=device)

    # chain Bayesian network over findings
    u0 = rand(n_cases, n_findings)
    f = torch.zeros(n_cases, n_findings, dtype=torch.long, device=device)
    f[:, 0] = (u0[:, 0] < _P0).long()
    for k in range(1, n_findings):  # K is tiny (<= 8): a loop over findings, not over samples
        f[:, k] = (u0[:, k] < _P_BASE + _P_LINK * f[:, k - 1]).long()
    e_noise = rand(n_cases, n_findings)
    evidence = torch.where(f == 1, (e_noise >= p_miss).long(), (e_noise < p_spur).long())
    private = torch.where(rand(n_cases, n_teachers, n_findings) < p_private, 1 - f[:, None, :], f[:, None, :])
    rnd = torch.randint(0, rounds, (n_cases,), generator=generator, device=device)
    # source draws, optionally shared between sources (correlated errors)
    own = rand(n_cases, n_teachers, n_findings)
    common = rand(n_cases, 1, n_findings).expand_as(own)
    share = rand(n_cases, n_teachers, n_findings) < correlation
    draw = torch.where(share, common, own)
    signal = torch.where(strong[None], private, evidence[:, None, :].expand_as(private))
    p_present = torch.where(signal == 1, tpr[rnd], fpr[rnd])
    decisions = (draw < p_present).long()
    verbose = torch.arange(n_teachers, device=device) % 2 == 1
    return World(f, evidence, private, rnd, decisions, verbose, strong, tpr, fpr, p_miss, p_spur, p_private)


def bayes_ceiling(world: World, view: str = "student") -> torch.Tensor:
    """Bayes-optimal decisions ``(C, K)`` (posterior marginal > 1/2) of ``view`` in :data:`VIEWS`.

    ``"student"``: the posterior given the public evidence only; ``"pooled"``: given the public evidence and
    the private signal of every source on its strong findings. Exact: the ``2^K`` finding vectors are
    enumerated (the chain prior times the independent noise likelihoods), in float64.
    """
    checks.instance("world", world, World)
    checks.one_of("view", view, VIEWS)
    k = world.n_findings
    if k > 12:
        raise ValueError(f"world has K={k} findings; exact enumeration supports K <= 12")
    dev = world.evidence.device
    conf = torch.tensor(list(itertools.product((0, 1), repeat=k)), dtype=torch.float64, device=dev)  # (M, K)
    p1 = torch.cat([torch.full((conf.shape[0], 1), _P0, dtype=torch.float64, device=dev),
                    _P_BASE + _P_LINK * conf[:, :-1]], 1)
    log_prior = torch.log(torch.where(conf == 1, p1, 1 - p1)).sum(1)  # (M,)

    def loglik(obs, p_one_if_present, p_one_if_absent):  # obs (C, K) -> (C, M)
        obs = obs.double()[:, None, :]
        p = torch.where(conf[None] == 1, p_one_if_present, p_one_if_absent)
        p = p.clamp(1e-12, 1 - 1e-12)
        return (obs * torch.log(p) + (1 - obs) * torch.log1p(-p)).sum(-1)

    logp = log_prior[None] + loglik(world.evidence, 1 - world.p_miss, world.p_spur)
    if view == "pooled":
        for u in range(world.n_teachers):
            s = world.strong[u].to(dev)
            if bool(s.any()):
                sub = conf[:, s]
                obs = world.private[:, u][:, s].double()[:, None, :]
                p = torch.where(sub[None] == 1, 1 - world.p_private, world.p_private).clamp(1e-12, 1 - 1e-12)
                logp = logp + (obs * torch.log(p) + (1 - obs) * torch.log1p(-p)).sum(-1)
    post = torch.softmax(logp, dim=1)  # (C, M)
    marg = post @ conf  # (C, K)
    return (marg > 0.5).long()
