"""The toy "multi-stream diagnosis" world of APO (docs/papers/apo_alignment.md §2): cases,
observations, drifting teachers.

A case has ``K`` binary findings ``f`` drawn from a small chain Bayesian network
(``f_1 ~ Bern(p0)``, ``f_k ~ Bern(p_base + p_link * f_{k-1})``). Its observation ("the image") has one
evidence token per finding: the finding's positive token when present (missed with prob ``p_miss``),
its negative token when absent (a spurious positive with prob ``p_spur``).

``N`` teachers (stochastic programs, not networks) read the observation and write a trajectory
(§2): for each finding ``k`` they say present with probability ``tpr[u, k]`` after positive
evidence and ``fpr[u, k](j)`` after negative evidence. Teacher ``u`` is reliable on its strong findings
and weak elsewhere; the weak sets are complementary (the paper's sources are complementary, §1). **Drift**
(§2): the hallucination rate on weak findings moves along the trajectory step ``j``:
``fpr_u(j) = fpr_weak + sign_u * d * j / K`` (rising for even ``u``, falling for odd ``u``), so the joint
state of the streams is non-stationary across steps. ``correlation`` in [0, 1] makes teachers share
their random draws (the correlated-error setting of §2, where a consensus cannot help).

Ground truth stays in :class:`World` fields ``findings``; nothing in the APO pipeline reads it (the
consensus is built from teacher decisions only, §3.3); only :mod:`.evaluation` does.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from icml26 import checks

__all__ = ["World", "make_world", "teacher_rates", "strong_sets", "PRESETS"]

PRESETS = ("complementary", "uniform", "one_expert")


def _check_prob(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}")
    return float(value)


def strong_sets(n_teachers: int, n_findings: int, preset: str = "complementary") -> torch.Tensor:
    """Bool ``(N, K)``: True where teacher ``u`` is strong on finding ``k``.

    ``complementary``: teacher ``u`` is weak on findings ``k`` with ``(k - u) mod N`` in ``{0, 1}`` (so
    every finding has at most two weak teachers of five); ``uniform``: everyone weak on half the
    findings, the same half; ``one_expert``: teacher 0 strong everywhere, the rest weak everywhere.
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
                  preset: str = "complementary", device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-teacher, per-step rates ``(tpr, fpr)``, each ``(N, K)`` (step ``j`` = finding ``k`` here).

    Weak findings get ``fpr_weak + sign_u * drift * (j + 1) / K`` (clipped to [0.01, 0.95]),
    ``sign_u = +1`` for even ``u`` (hallucinations grow along the trajectory), ``-1`` for odd ``u``.
    """
    for name, v in (("drift", drift), ("tpr_strong", tpr_strong), ("fpr_strong", fpr_strong),
                    ("tpr_weak", tpr_weak), ("fpr_weak", fpr_weak)):
        _check_prob(name, v)
    if device is not None:
        checks.device("device", device)
    strong = strong_sets(n_teachers, n_findings, preset).to(device)
    sign = torch.where(torch.arange(n_teachers, device=device) % 2 == 0, 1.0, -1.0)[:, None]
    step = (torch.arange(n_findings, device=device, dtype=torch.float32)[None, :] + 1) / n_findings
    fpr_w = (fpr_weak + sign * drift * step).clamp(0.01, 0.95)
    tpr = torch.where(strong, torch.tensor(tpr_strong, device=device), torch.tensor(tpr_weak, device=device))
    fpr = torch.where(strong, torch.tensor(fpr_strong, device=device), fpr_w)
    return tpr.float(), fpr.float()


@dataclass
class World:
    """One sampled data set: ground truth, observations and the N teachers' decisions.

    ``findings`` ``(C, K)`` long (ground truth, evaluation only), ``evidence`` ``(C, K)`` long (1 = the
    positive evidence token), ``decisions`` ``(C, N, K)`` long (what each teacher writes),
    ``verbose`` ``(N,)`` bool (teacher style), ``tpr``/``fpr`` ``(N, K)``.
    """

    findings: torch.Tensor
    evidence: torch.Tensor
    decisions: torch.Tensor
    verbose: torch.Tensor
    tpr: torch.Tensor
    fpr: torch.Tensor

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
        """The cases ``idx`` (same teachers)."""
        return World(self.findings[idx], self.evidence[idx], self.decisions[idx], self.verbose, self.tpr, self.fpr)


def make_world(n_cases: int, n_findings: int = 4, n_teachers: int = 5, drift: float = 0.2,
               p_miss: float = 0.1, p_spur: float = 0.1, correlation: float = 0.0,
               preset: str = "complementary", generator: torch.Generator | None = None, device=None,
               **rates) -> World:
    """Sample ``n_cases`` cases and every teacher's decisions on them (§2), batched over all of them.

    ``rates`` are passed to :func:`teacher_rates` (``tpr_strong``, ``fpr_strong``, ``tpr_weak``,
    ``fpr_weak``). Odd teachers are verbose (they restate each decision), even ones concise.
    """
    n_cases = checks.int_at_least("n_cases", n_cases, 1)
    n_findings = checks.int_at_least("n_findings", n_findings, 1)
    n_teachers = checks.int_at_least("n_teachers", n_teachers, 1)
    p_miss, p_spur = _check_prob("p_miss", p_miss), _check_prob("p_spur", p_spur)
    correlation = _check_prob("correlation", correlation)
    if device is not None:
        checks.device("device", device)
    if generator is not None:
        checks.instance("generator", generator, torch.Generator)
        device = generator.device
    tpr, fpr = teacher_rates(n_teachers, n_findings, drift, preset=preset, device=device, **rates)

    def rand(*shape):
        return torch.rand(*shape, generator=generator, device=device)

    # chain Bayesian network over findings
    u0 = rand(n_cases, n_findings)
    f = torch.zeros(n_cases, n_findings, dtype=torch.long, device=device)
    f[:, 0] = (u0[:, 0] < 0.35).long()
    for k in range(1, n_findings):  # K is tiny (<= 8): a loop over findings, not over samples
        f[:, k] = (u0[:, k] < 0.2 + 0.35 * f[:, k - 1]).long()
    e_noise = rand(n_cases, n_findings)
    evidence = torch.where(f == 1, (e_noise >= p_miss).long(), (e_noise < p_spur).long())
    # teacher draws, optionally shared between teachers (correlated errors)
    own = rand(n_cases, n_teachers, n_findings)
    common = rand(n_cases, 1, n_findings).expand_as(own)
    share = rand(n_cases, n_teachers, n_findings) < correlation
    draw = torch.where(share, common, own)
    p_present = torch.where(evidence[:, None, :] == 1, tpr[None], fpr[None])
    decisions = (draw < p_present).long()
    verbose = torch.arange(n_teachers, device=device) % 2 == 1
    return World(f, evidence, decisions, verbose, tpr, fpr)
