"""APO (arXiv 2510.04142): trajectory format, consensus operator and the multi-negative PL objective.

Pieces (docs/papers/apo_alignment.md §3; bare § numbers below are that page's):

* :class:`Vocab` / :func:`render` / :func:`parse`: the trajectory language of the toy (§2). A trajectory
  is ``[signature] ([evidence] [finding k] [present|absent] ([check] [present|absent])?)_k [summary]
  [present findings...] [eos]``; verbose writers add the bracketed restatement. :func:`parse` is strict:
  a trajectory that is not exactly the canonical rendering of its own decisions is malformed (§2).
* :func:`consensus` (§3.3): per-finding majority over the sources' *stated* decisions; no ground truth.
  This is the *(inferred)* deterministic stand-in for the paper's in-context extraction by ``pi_SFT``.
* :func:`negative_mask` (§3.5, *inferred* rule): a source trajectory whose content (its decisions)
  equals the consensus is not used as a negative.
* :func:`implicit_reward` (§3.4): ``r(y) = beta * (log pi(y|x) - log pi_ref(y|x))``, optionally
  length-normalised (§6; the stabilised variant ``apo_ln`` of ``training.preference`` uses it).
* :func:`apo_loss` (§3.4): ``-r(t+) + logsumexp(r(t+), r(tau_1..tau_N))``, i.e. the Plackett-Luce top-1
  loss with all N source trajectories as negatives; built on the shared
  :func:`icml26.ranking.plackett_luce.top1_nll`. With one negative it is exactly DPO.
* :func:`anchored_apo_loss` (*our stabilised variant*, not the paper's): the PL loss plus the token-averaged
  NLL of ``t+`` (an "NLL anchor" as in RPO-style DPO), which stops the likelihood of ``t+`` from falling
  together with the negatives' (likelihood displacement).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.ranking.plackett_luce import top1_nll

__all__ = ["Vocab", "render", "parse", "prompt_tokens", "consensus", "negative_mask", "most_divergent",
           "implicit_reward", "apo_loss", "anchored_apo_loss", "pl_weights"]

PAD, BOS, SEP, EOS, PRES, ABS, CHECK, SUMMARY = range(8)


@dataclass(frozen=True)
class Vocab:
    """Token ids for ``K`` findings and ``N`` sources (signature ``N`` is the target's own voice)."""

    n_findings: int
    n_teachers: int

    def __post_init__(self):
        for name in ("n_findings", "n_teachers"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer; got {v!r}")

    def ev(self, positive: torch.Tensor) -> torch.Tensor:
        """Evidence token of finding k (last dim) given 1 = positive evidence."""
        k = torch.arange(self.n_findings, device=positive.device)
        return torch.where(positive == 1, 8 + k, 8 + self.n_findings + k)

    def finding(self, k: torch.Tensor) -> torch.Tensor:
        return 8 + 2 * self.n_findings + k

    def sig(self, u) -> torch.Tensor | int:
        return 8 + 3 * self.n_findings + u

    @property
    def target_sig(self) -> int:
        return self.sig(self.n_teachers)

    @property
    def size(self) -> int:
        return 8 + 3 * self.n_findings + self.n_teachers + 1

    @property
    def traj_len(self) -> int:
        """Maximum trajectory length (verbose, all findings present)."""
        return 6 * self.n_findings + 3

    @property
    def prompt_len(self) -> int:
        return self.n_findings + 2

    @property
    def context(self) -> int:
        return self.prompt_len + self.traj_len

    def is_verbose(self, sig: torch.Tensor) -> torch.Tensor:
        """Odd teachers write verbosely; the target voice (signature N) is concise."""
        u = sig - self.sig(0)
        return (u % 2 == 1) & (u < self.n_teachers)


def _check_binary(name: str, x, shape_last: int) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or x.dim() < 1 or x.shape[-1] != shape_last:
        raise ValueError(f"{name} must be a tensor (..., K={shape_last}); got {getattr(x, 'shape', x)!r}")
    if x.dtype == torch.bool:
        x = x.long()
    if x.is_floating_point() or (x.numel() and not ((x == 0) | (x == 1)).all()):
        raise ValueError(f"{name} must hold 0/1 integers")
    return x


def _check_vocab(vocab) -> Vocab:
    return checks.instance("vocab", vocab, Vocab)


def _check_rewards(r_pos, r_neg, neg_mask) -> None:
    """``r_pos`` (C,), ``r_neg`` (C, N) finite floats and ``neg_mask`` None or a (C, N) bool tensor."""
    checks.tensor("r_pos", r_pos, ndim=1, dtype_kind="float")
    checks.tensor("r_neg", r_neg, ndim=2, dtype_kind="float")
    if r_neg.shape[0] != r_pos.shape[0]:
        raise ValueError(f"r_neg must have one row per entry of r_pos ({r_pos.shape[0]}); "
                         f"got shape {tuple(r_neg.shape)}")
    if neg_mask is not None:
        checks.tensor("neg_mask", neg_mask, shape=tuple(r_neg.shape), dtype_kind="bool")


def _check_some_negative(neg_mask) -> None:
    """The PL loss of a case with no real negative is 0 whatever its rewards: refuse it (a pairwise expansion, where
    a masked pair is how a padded negative drops out, does not call this)."""
    if neg_mask is not None:
        empty = (~neg_mask.any(-1)).nonzero().flatten()
        if empty.numel():
            raise ValueError(f"neg_mask must mark at least one real negative per case (a case with none has no "
                             f"ranking to learn from); cases {empty[:5].tolist()} have none")


def prompt_tokens(vocab: Vocab, evidence: torch.Tensor) -> torch.Tensor:
    """``[bos] evidence_1..K [sep]`` for every case: ``(C, K + 2)``."""
    _check_vocab(vocab)
    evidence = _check_binary("evidence", evidence, vocab.n_findings)
    c = evidence.shape[0]
    bos = torch.full((c, 1), BOS, dtype=torch.long, device=evidence.device)
    sep = torch.full((c, 1), SEP, dtype=torch.long, device=evidence.device)
    return torch.cat([bos, vocab.ev(evidence), sep], dim=1)


def render(vocab: Vocab, evidence: torch.Tensor, decisions: torch.Tensor, sig: torch.Tensor) -> torch.Tensor:
    """Trajectories ``(B, 6K + 3)`` (right-padded with PAD) for rows of evidence/decisions ``(B, K)``.

    Vectorised: every row fills the same slot template; slots a row does not use are dropped by a
    stable sort of the keep mask, so variable lengths need no loop.
    """
    _check_vocab(vocab)
    k = vocab.n_findings
    evidence = _check_binary("evidence", evidence, k)
    decisions = _check_binary("decisions", decisions, k)
    if evidence.shape != decisions.shape or evidence.dim() != 2:
        raise ValueError(f"evidence and decisions must both be (B, K); got {tuple(evidence.shape)} and "
                         f"{tuple(decisions.shape)}")
    b, dev = evidence.shape[0], evidence.device
    sig = torch.as_tensor(sig, device=dev)
    if sig.ndim > 1 or (sig.ndim == 1 and sig.shape[0] not in (1, b)):
        raise ValueError(f"sig must be one signature token or one per row ({b}); got shape {tuple(sig.shape)}")
    sig = sig.long().expand(b)
    if ((sig < vocab.sig(0)) | (sig > vocab.target_sig)).any():
        raise ValueError(f"sig must hold signature tokens in [{vocab.sig(0)}, {vocab.target_sig}]")
    verbose = vocab.is_verbose(sig)[:, None].expand(b, k)
    ks = torch.arange(k, device=dev).expand(b, k)
    dec_tok = torch.where(decisions == 1, PRES, ABS)
    step = torch.stack([vocab.ev(evidence), vocab.finding(ks), dec_tok,
                        torch.full_like(dec_tok, CHECK), dec_tok], dim=-1)  # (B, K, 5)
    step_keep = torch.stack([torch.ones_like(verbose)] * 3 + [verbose, verbose], dim=-1)
    one = torch.ones(b, 1, dtype=torch.long, device=dev)
    tokens = torch.cat([sig[:, None], step.reshape(b, 5 * k), SUMMARY * one, vocab.finding(ks), EOS * one], dim=1)
    keep = torch.cat([one.bool(), step_keep.reshape(b, 5 * k), one.bool(), decisions == 1, one.bool()], dim=1)
    order = torch.sort((~keep).to(torch.int8), dim=1, stable=True).indices
    out = torch.gather(tokens, 1, order)
    return out.masked_fill(~torch.gather(keep, 1, order), PAD)


def parse(vocab: Vocab, evidence: torch.Tensor, traj: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Strictly parse trajectories ``(B, L)`` written for ``evidence`` ``(B, K)``.

    Returns ``(decisions (B, K) long, well_formed (B,) bool)``. A trajectory is well formed only if it
    equals (up to and including its EOS) the canonical rendering of the decisions it states, with its
    own signature: evidence cited correctly, restatements and summary consistent with the steps.
    """
    _check_vocab(vocab)
    k = vocab.n_findings
    evidence = _check_binary("evidence", evidence, k)
    if not isinstance(traj, torch.Tensor) or traj.dim() != 2 or traj.shape[0] != evidence.shape[0]:
        raise ValueError("traj must be a (B, L) token tensor with one row per evidence row")
    b, dev = traj.shape[0], traj.device
    width = vocab.traj_len
    if traj.shape[1] < width:
        traj = torch.cat([traj, torch.full((b, width - traj.shape[1]), PAD, dtype=traj.dtype, device=dev)], 1)
    traj = traj[:, :width].long()
    sig = traj[:, 0]
    sig_ok = (sig >= vocab.sig(0)) & (sig <= vocab.target_sig)
    sig = torch.where(sig_ok, sig, torch.full_like(sig, vocab.target_sig))
    stride = torch.where(vocab.is_verbose(sig), 5, 3)[:, None]
    pos = 1 + stride * torch.arange(k, device=dev)[None, :] + 2
    dec_tok = torch.gather(traj, 1, pos)
    dec_ok = ((dec_tok == PRES) | (dec_tok == ABS)).all(1)
    decisions = (dec_tok == PRES).long()
    canon = render(vocab, evidence, decisions, sig)
    used = canon != PAD
    match = ((canon == traj) | ~used).all(1)
    return decisions, sig_ok & dec_ok & match


def consensus(decisions: torch.Tensor) -> torch.Tensor:
    """Per-finding majority of the sources' decisions ``(C, N, K)`` -> ``(C, K)`` (ties -> absent).

    The *(inferred)* stand-in for in-context consensus extraction (§3.3); uses no labels.
    """
    if not isinstance(decisions, torch.Tensor) or decisions.dim() != 3:
        raise ValueError(f"decisions must be a (C, N, K) tensor; got {getattr(decisions, 'shape', decisions)!r}")
    decisions = _check_binary("decisions", decisions, decisions.shape[-1])
    return (2 * decisions.sum(1) > decisions.shape[1]).long()


def negative_mask(decisions: torch.Tensor, positive: torch.Tensor) -> torch.Tensor:
    """``(C, N)`` bool: source ``u`` is a usable negative (its content differs from ``t+``; §3.5)."""
    if not isinstance(decisions, torch.Tensor) or decisions.dim() != 3:
        raise ValueError("decisions must be a (C, N, K) tensor")
    if not isinstance(positive, torch.Tensor) or positive.shape != (decisions.shape[0], decisions.shape[2]):
        raise ValueError(f"positive must be (C, K) = {(decisions.shape[0], decisions.shape[2])}")
    _check_binary("decisions", decisions, decisions.shape[-1])
    _check_binary("positive", positive, positive.shape[-1])
    return (decisions != positive[:, None, :]).any(-1)


def most_divergent(decisions: torch.Tensor, positive: torch.Tensor) -> torch.Tensor:
    """Index ``(C,)`` of the source that disagrees with ``t+`` on the most findings (first on ties)."""
    negative_mask(decisions, positive)
    return (decisions != positive[:, None, :]).sum(-1).argmax(-1)


def implicit_reward(logp: torch.Tensor, logp_ref: torch.Tensor, beta: float = 0.1,
                    n_tokens: torch.Tensor | None = None) -> torch.Tensor:
    """DPO implicit reward ``beta * (log pi - log pi_ref)`` (§3.4); divided by ``n_tokens`` if given."""
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
        raise ValueError(f"beta must be a positive number; got {beta!r}")
    checks.positive_number("beta", beta)
    if not isinstance(logp, torch.Tensor) or not isinstance(logp_ref, torch.Tensor) or logp.shape != logp_ref.shape:
        raise ValueError("logp and logp_ref must be tensors of the same shape")
    checks.tensor("logp", logp, dtype_kind="float")
    checks.tensor("logp_ref", logp_ref, dtype_kind="float")
    if n_tokens is not None:
        if not isinstance(n_tokens, torch.Tensor) or n_tokens.shape != logp.shape:
            raise ValueError("n_tokens must be positive with the shape of logp")
        checks.tensor("n_tokens", n_tokens)
        if (n_tokens <= 0).any():
            raise ValueError("n_tokens must be positive with the shape of logp")
    return _implicit_reward(logp, logp_ref, beta, n_tokens)


def _implicit_reward(logp, logp_ref, beta, n_tokens=None):
    diff = logp - logp_ref
    if n_tokens is not None:
        diff = diff / n_tokens
    return beta * diff


def apo_loss(r_pos: torch.Tensor, r_neg: torch.Tensor, neg_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Multi-negative PL loss per case ``(C,)``: ``-r+ + logsumexp(r+, r_1..r_N)`` (§3.4).

    ``r_pos`` ``(C,)``, ``r_neg`` ``(C, N)``, ``neg_mask`` ``(C, N)`` (True = a real negative). A thin
    wrapper over the shared ``top1_nll``; one negative gives the DPO loss ``-log sigmoid(r+ - r-)``.
    """
    _check_rewards(r_pos, r_neg, neg_mask)
    _check_some_negative(neg_mask)
    return _apo_loss(r_pos, r_neg, neg_mask)


def _apo_loss(r_pos, r_neg, neg_mask=None):
    return top1_nll(r_pos, r_neg, neg_mask)


def anchored_apo_loss(r_pos: torch.Tensor, r_neg: torch.Tensor, logp_pos_per_token: torch.Tensor,
                      neg_mask: torch.Tensor | None = None, weight: float = 1.0) -> torch.Tensor:
    """``apo_loss + weight * (-logp_pos_per_token)`` per case ``(C,)``: PL with an NLL anchor on ``t+``.

    ``logp_pos_per_token`` ``(C,)`` is the policy's token-averaged log-probability of ``t+`` (our
    stabilisation; the paper's objective is ``weight = 0``).
    """
    _check_rewards(r_pos, r_neg, neg_mask)
    _check_some_negative(neg_mask)
    checks.tensor("logp_pos_per_token", logp_pos_per_token, shape=tuple(r_pos.shape), dtype_kind="float")
    checks.nonnegative_number("weight", weight)
    return _anchored_apo_loss(r_pos, r_neg, logp_pos_per_token, neg_mask, weight)


def _anchored_apo_loss(r_pos, r_neg, logp_pos_per_token, neg_mask=None, weight=1.0):
    return _apo_loss(r_pos, r_neg, neg_mask) - weight * logp_pos_per_token


def pl_weights(r_pos: torch.Tensor, r_neg: torch.Tensor, neg_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax weights ``(C, 1 + N)`` of (t+, tau_1..tau_N) under the PL model: how hard each negative is pushed."""
    _check_rewards(r_pos, r_neg, neg_mask)
    if neg_mask is not None:
        r_neg = r_neg.masked_fill(~neg_mask, float("-inf"))
    return torch.softmax(torch.cat([r_pos[:, None], r_neg], 1), dim=1)
