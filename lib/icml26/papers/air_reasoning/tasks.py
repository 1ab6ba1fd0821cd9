"""Synthetic reasoning data for AIR (docs/papers/air_reasoning.md, "The toy task"): copy probes and chained
arithmetic traces, with two pools of teacher traces to select from.

Vocabulary (fixed ids): :data:`SPECIAL`, then the digits ``0..9``, three filler words, then the variables.

* **Copy probe** (the probe of Wu et al.'s retrieval-head detection, inferred form):
  ``BOS k1 x1 k2 x2 ... ? ka xa ? kb xb``; the *needle* tokens are the ``x`` after each ``? k``. Values are
  distinct inside a probe, so the copy-paste rule (C2) is never ambiguous.
* **Problem**: a shuffled context of bindings ``x y c`` (three tokens, "x = y + c mod 10"; ``y`` is another
  variable or ``#``, worth 0), then the question ``? q NL``: the value of ``q``. ``q`` heads a chain of ``H``
  bindings ``q_{H-1} -> ... -> q_0 -> #``; the other (distractor) bindings form chains of their own.
* **Trace** (the teacher's response), one step per line. A *lookup* line ``x y c NL`` copies the binding of the
  current variable from the context (retrieval); a *compute* line ``= s NL`` writes the running sum ``s`` of the
  offsets read so far, mod 10 (a result that must be computed, it appears nowhere before); after the root
  ``#`` the line ``ans s NL`` gives the answer. *Filler* lines ``ok w NL`` carry no information.

Two pools (what the selectors choose from):

* :func:`contrast_pool` (our design): ``clean`` traces (0-1 filler lines), ``padded`` traces (6-8
  filler lines with a random filler word: long, low information) and ``noisy`` traces (response tokens replaced
  by variables absent from the context, often a wrong answer). Length, entropy and loss are fooled *by
  construction* here; it shows what AIS does on data built to mislead the heuristics.
* :func:`natural_pool`: every trace draws its style from continuous rates, with no kind that any score was built
  for: verbosity (lines ``ok s NL`` restating the running sum), arithmetic slips (a wrong sum, carried on to a
  wrong answer, as a fallible teacher does), skipped computation (lookups only, then the answer), and the
  chain length and number of distractors. Long traces are long because the chain is long *or* the teacher
  verbose; high-loss traces carry slips *or* skipped steps *or* long chains.

Evaluation problems (:func:`problems`) are held out: chains longer than any in the pools, with as many
distractors removed that the context has the length of the longest training contexts.

Everything is generated from a ``torch.Generator`` (traces via a Python RNG seeded from one draw of it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields

import torch

from icml26 import checks

SPECIAL = ("PAD", "BOS", "?", "NL", "ans", "ok", "=", "#")
PAD, BOS, QUERY, NL, ANS, OK, EQ, ROOT = range(len(SPECIAL))
N_DIGITS = 10
FILLER_WORDS = ("so", "hmm", "well")
STEP_TYPES = ("prompt", "lookup", "compute", "filler", "answer")
LOOKUP, COMPUTE, FILLER, ANSWER = 1, 2, 3, 4
KINDS = ("clean", "padded", "noisy", "natural")


@dataclass(frozen=True)
class Vocab:
    """Token ids of the task for ``n_vars`` variable names."""

    n_vars: int = 16

    def __post_init__(self):
        checks.positive_int("n_vars", self.n_vars)
        if self.n_vars < 4:
            raise ValueError(f"n_vars must be an integer >= 4; got {self.n_vars!r}")

    digit0 = len(SPECIAL)

    @property
    def filler0(self) -> int:
        return self.digit0 + N_DIGITS

    @property
    def var0(self) -> int:
        return self.filler0 + len(FILLER_WORDS)

    @property
    def size(self) -> int:
        return self.var0 + self.n_vars

    def decode(self, ids) -> str:
        """Readable text of a list/tensor of ids (PAD dropped, NL as a line break)."""
        out = []
        for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids):
            i = int(i)
            if i == PAD:
                continue
            if i < self.digit0:
                out.append("\n" if i == NL else SPECIAL[i])
            elif i < self.filler0:
                out.append(str(i - self.digit0))
            elif i < self.var0:
                out.append(FILLER_WORDS[i - self.filler0])
            else:
                j = i - self.var0
                out.append(chr(ord("a") + j % 26) + ("" if j < 26 else str(j // 26)))
        return " ".join(out).replace(" \n ", "\n").replace(" \n", "\n")


def _vocab(vocab) -> Vocab:
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab must be a Vocab; got {type(vocab).__name__}")
    return vocab


def _span(name: str, value, lo: int = 0) -> tuple[int, int]:
    """An inclusive integer range ``(a, b)`` with ``lo <= a <= b``."""
    ok = isinstance(value, (tuple, list)) and len(value) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)
    if not ok or not lo <= value[0] <= value[1]:
        raise ValueError(f"{name} must be an integer range (a, b) with {lo} <= a <= b; got {value!r}")
    return int(value[0]), int(value[1])


def copy_probes(n: int, vocab: Vocab, n_pairs: int = 6, n_queries: int = 3, *, generator=None):
    """``n`` copy probes ``(idx, needle)``: ``idx`` ``(n, T)`` long, ``needle`` ``(n, T)`` bool marks the answers."""
    checks.positive_int("n", n)
    vocab = _vocab(vocab)
    checks.positive_int("n_pairs", n_pairs)
    checks.positive_int("n_queries", n_queries)
    if n_pairs > vocab.n_vars or n_queries > n_pairs:
        raise ValueError(f"need n_queries <= n_pairs <= n_vars={vocab.n_vars}; got n_queries={n_queries}, "
                         f"n_pairs={n_pairs}")
    g = generator
    keys = torch.rand(n, vocab.n_vars, generator=g).argsort(1)[:, :n_pairs] + vocab.var0
    n_vals = N_DIGITS + vocab.n_vars  # values: digits and variables, distinct inside a probe
    vals = torch.rand(n, n_vals, generator=g).argsort(1)[:, :n_pairs]
    vals = torch.where(vals < N_DIGITS, vals + vocab.digit0, vals - N_DIGITS + vocab.var0)
    q = torch.rand(n, n_pairs, generator=g).argsort(1)[:, :n_queries]
    ctx = torch.stack([keys, vals], 2).reshape(n, -1)
    qk, qv = keys.gather(1, q), vals.gather(1, q)
    qry = torch.stack([torch.full_like(qk, QUERY), qk, qv], 2).reshape(n, -1)
    idx = torch.cat([torch.full((n, 1), BOS), ctx, qry], 1)
    needle = torch.zeros_like(idx, dtype=torch.bool)
    needle[:, 1 + ctx.shape[1] + 2::3] = True
    return idx, needle


@dataclass
class TraceBatch:
    """A right-padded batch of traces.

    ``idx`` ``(n, T)``; ``step`` ``(n, T)`` the step (line) index of each response token (-1 for prompt and
    padding); ``stype`` ``(n, T)`` its step type (index into :data:`STEP_TYPES`, 0 for prompt and padding);
    ``prompt_len`` ``(n,)``; ``answer`` ``(n,)`` the correct answer token; ``kind`` ``(n,)`` index into
    :data:`KINDS`; ``hops`` ``(n,)``; ``correct`` ``(n,)`` whether the trace's own final answer is right;
    ``fillers`` ``(n,)`` filler lines; ``slips`` ``(n,)`` wrong compute lines; ``skipped`` ``(n,)`` whether the
    compute lines were skipped.
    """

    idx: torch.Tensor
    step: torch.Tensor
    stype: torch.Tensor
    prompt_len: torch.Tensor
    answer: torch.Tensor
    kind: torch.Tensor
    hops: torch.Tensor
    correct: torch.Tensor
    fillers: torch.Tensor
    slips: torch.Tensor
    skipped: torch.Tensor

    def __len__(self) -> int:
        return self.idx.shape[0]

    def _map(self, fn) -> TraceBatch:
        return TraceBatch(*(fn(getattr(self, f.name)) for f in fields(self)))

    def subset(self, rows) -> TraceBatch:
        """The traces ``rows`` (indices), trimmed to their longest."""
        rows = torch.as_tensor(rows, dtype=torch.long, device=self.idx.device)
        out = self._map(lambda x: x[rows])
        t = max(1, int((out.idx != PAD).sum(1).max())) if len(out) else 1
        out.idx, out.step, out.stype = out.idx[:, :t], out.step[:, :t], out.stype[:, :t]
        return out

    def to(self, device) -> TraceBatch:
        return self._map(lambda x: x.to(device))

    @property
    def lengths(self) -> torch.Tensor:
        """Number of non-pad tokens per trace."""
        return (self.idx != PAD).sum(1)

    @property
    def response_mask(self) -> torch.Tensor:
        return self.step >= 0


@dataclass(frozen=True)
class Style:
    """How one teacher trace is written: ``n_filler`` filler lines (``"word"``: ``ok w`` with a random filler
    word, ``"restate"``: ``ok s`` restating the running sum), a per-compute-line ``slip`` probability (a wrong sum,
    carried on), ``skip`` (no compute lines), ``noise`` (share of response tokens replaced by variables absent from
    the context) and ``wrong`` (a wrong final answer)."""

    n_filler: int = 0
    filler: str = "word"
    slip: float = 0.0
    skip: bool = False
    noise: float = 0.0
    wrong: bool = False


def _problem(vocab: Vocab, hops: int, n_distract: int, g: random.Random):
    """Context tokens, question variable, the chain's bindings (from the question down) and the answer digit."""
    perm = [vocab.var0 + i for i in g.sample(range(vocab.n_vars), vocab.n_vars)]
    chain = perm[:hops]  # chain[0] is the root, chain[-1] the asked variable
    offs = [g.randrange(N_DIGITS) for _ in range(hops)]
    binds = [(chain[i], chain[i - 1] if i else ROOT, vocab.digit0 + offs[i]) for i in range(hops)]
    others = perm[hops: hops + n_distract]
    for j, x in enumerate(others):  # distractor chains: each points to an earlier distractor or to the root
        y = others[g.randrange(j)] if j and g.random() < 0.6 else ROOT
        binds.append((x, y, vocab.digit0 + g.randrange(N_DIGITS)))
    order = g.sample(range(len(binds)), len(binds))
    ctx = [BOS]
    for o in order:
        ctx += list(binds[o])
    ctx += [QUERY, chain[-1], NL]
    walk = binds[:hops][::-1]
    return ctx, walk, vocab.digit0 + sum(offs) % N_DIGITS, set(perm[: hops + n_distract])


def _one_trace(vocab: Vocab, hops: int, n_distract: int, style: Style, g: random.Random):
    """Tokens, step ids, step types and bookkeeping of one trace (a short Python build; batching is in
    :func:`_batch`)."""
    ctx, walk, answer, used = _problem(vocab, hops, n_distract, g)
    lines, total, wrong_sum, slips = [], 0, 0, 0
    for x, y, c in walk:
        lines.append((LOOKUP, [x, y, c, NL]))
        total = (total + c - vocab.digit0) % N_DIGITS
        if style.skip:
            continue
        if g.random() < style.slip:  # a slip: the written sum is off, and later sums build on it
            wrong_sum = (wrong_sum + 1 + g.randrange(N_DIGITS - 1)) % N_DIGITS
            slips += 1
        lines.append((COMPUTE, [EQ, vocab.digit0 + (total + wrong_sum) % N_DIGITS, NL]))
    final = vocab.digit0 + (total + wrong_sum) % N_DIGITS
    if style.wrong:
        final = vocab.digit0 + (final - vocab.digit0 + 1 + g.randrange(N_DIGITS - 1)) % N_DIGITS
    for _ in range(style.n_filler):
        if style.filler == "word":
            pos = g.randrange(len(lines) + 1)
            lines.insert(pos, (FILLER, [OK, vocab.filler0 + g.randrange(len(FILLER_WORDS)), NL]))
        else:  # restate, right after a reasoning line: the sum just written, or the variable just reached
            pos = g.choice([i for i, (t, _) in enumerate(lines) if t != FILLER])
            t, line = lines[pos]
            lines.insert(pos + 1, (FILLER, [OK, line[1], NL]))
    lines.append((ANSWER, [ANS, final, NL]))
    toks, plen = list(ctx), len(ctx)
    step, stype = [-1] * plen, [0] * plen
    for s, (typ, line) in enumerate(lines):
        toks += line
        step += [s] * len(line)
        stype += [typ] * len(line)
    if style.noise > 0:
        unused = [vocab.var0 + i for i in range(vocab.n_vars) if vocab.var0 + i not in used]
        for p in range(plen, len(toks)):
            if toks[p] != NL and unused and g.random() < style.noise:
                toks[p] = unused[g.randrange(len(unused))]
    ok = final == answer and toks[-2] == answer
    return toks, step, stype, plen, answer, hops, ok, style.n_filler, slips, style.skip


def longest_response(hops: int, n_filler: int) -> int:
    """Tokens of the longest response a trace of ``hops`` hops with ``n_filler`` filler lines can have: a lookup
    line (4 tokens) and a compute line (3) per hop, the filler lines (3 each) and the answer line (3)."""
    checks.positive_int("hops", hops)
    checks.nonnegative_int("n_filler", n_filler)
    return 7 * hops + 3 * n_filler + 3


def _batch(rows: list, kind: int, length: int | None = None) -> TraceBatch:
    t = max(len(r[0]) for r in rows) if length is None else length
    if any(len(r[0]) > t for r in rows):
        raise ValueError(f"length={t} is shorter than the longest trace ({max(len(r[0]) for r in rows)})")
    n = len(rows)
    idx, step, stype = torch.full((n, t), PAD), torch.full((n, t), -1), torch.zeros((n, t), dtype=torch.long)
    for i, r in enumerate(rows):
        idx[i, : len(r[0])] = torch.tensor(r[0])
        step[i, : len(r[1])] = torch.tensor(r[1])
        stype[i, : len(r[2])] = torch.tensor(r[2])
    col = [torch.tensor([r[j] for r in rows]) for j in range(3, 10)]
    return TraceBatch(idx, step, stype, col[0], col[1], torch.full((n,), kind), col[2], col[3], col[4], col[5],
                      col[6])


def _rng(generator) -> random.Random:
    """A Python RNG seeded by one draw of ``generator`` (fast per-trace builds, still reproducible)."""
    return random.Random(int(torch.randint(2**62, (1,), generator=generator)))


def _check_sizes(vocab: Vocab, hops, n_distract) -> tuple[tuple[int, int], tuple[int, int]]:
    hops, n_distract = _span("hops", hops, 1), _span("n_distract", n_distract, 0)
    if hops[1] + n_distract[1] > vocab.n_vars:
        raise ValueError(f"hops and n_distract need hops[1] + n_distract[1] <= n_vars={vocab.n_vars}; got "
                         f"{hops[1]} + {n_distract[1]}")
    return hops, n_distract


def traces(n: int, vocab: Vocab, *, hops=(1, 4), n_distract=(0, 4), kind: str = "clean", n_filler=(0, 1),
           noise: float = 0.3, wrong_p: float = 0.5, generator=None, length: int | None = None) -> TraceBatch:
    """``n`` traces of one contrast ``kind`` (``"clean"``, ``"padded"``, ``"noisy"``), with ``hops``,
    ``n_distract`` and ``n_filler`` (filler words) drawn uniformly in their inclusive ranges. ``noise`` and
    ``wrong_p`` (a wrong final answer's probability) apply to ``"noisy"`` traces only."""
    checks.positive_int("n", n)
    vocab = _vocab(vocab)
    hops, n_distract = _check_sizes(vocab, hops, n_distract)
    n_filler = _span("n_filler", n_filler, 0)
    checks.one_of("kind", kind, KINDS[:3])
    checks.probability("noise", noise)
    checks.probability("wrong_p", wrong_p)
    if length is not None:
        checks.positive_int("length", length)
    rng = _rng(generator)
    rows = []
    for _ in range(n):
        h, d, f, u = rng.randint(*hops), rng.randint(*n_distract), rng.randint(*n_filler), rng.random()
        noisy = kind == "noisy"  # (u is drawn for every kind, so a clean and a noisy trace of one seed share a problem)
        style = Style(n_filler=f, noise=noise if noisy else 0.0, wrong=noisy and u < wrong_p)
        rows.append(_one_trace(vocab, h, d, style, rng))
    return _batch(rows, KINDS.index(kind), length)


def concat(batches: list[TraceBatch]) -> TraceBatch:
    """Concatenate trace batches, right-padding to the longest."""
    if not isinstance(batches, (list, tuple)) or not batches or not all(isinstance(b, TraceBatch) for b in batches):
        raise ValueError("batches must be a non-empty list of TraceBatch")
    t = max(b.idx.shape[1] for b in batches)

    def pad(x, value):
        return torch.nn.functional.pad(x, (0, t - x.shape[1]), value=value)

    out = {}
    for f in fields(TraceBatch):
        parts = [getattr(b, f.name) for b in batches]
        if f.name in ("idx", "step", "stype"):
            parts = [pad(p, {"idx": PAD, "step": -1, "stype": 0}[f.name]) for p in parts]
        out[f.name] = torch.cat(parts)
    return TraceBatch(**out)


def contrast_pool(n: int, vocab: Vocab, *, frac=(0.5, 0.25, 0.25), hops=(1, 4), n_distract=(0, 4),
                  padded_filler=(6, 8), noise: float = 0.3, wrong_p: float = 0.5, generator=None) -> TraceBatch:
    """A shuffled pool of ``n`` traces with fractions ``frac`` of (clean, padded, noisy) (see the module
    docstring: the heuristics are fooled by construction)."""
    checks.positive_int("n", n)
    vocab = _vocab(vocab)
    if not isinstance(frac, (tuple, list)) or len(frac) != 3:
        raise ValueError(f"frac must be three fractions (clean, padded, noisy); got {frac!r}")
    fr = checks.probability_vector("frac", torch.tensor([float(f) for f in frac], dtype=torch.float64))
    counts = [int(round(float(f) * n)) for f in fr]
    counts[0] = n - counts[1] - counts[2]
    parts = [traces(c, vocab, hops=hops, n_distract=n_distract, kind=kind,
                    n_filler=padded_filler if kind == "padded" else (0, 1), noise=noise, wrong_p=wrong_p,
                    generator=generator) for kind, c in zip(KINDS[:3], counts) if c > 0]
    return concat(parts).subset(torch.randperm(n, generator=generator))


NATURAL = dict(verbose=(0.0, 0.6), slip_p=0.3, slip=(0.2, 0.6), skip_p=0.2)
"""Style rates of :func:`natural_pool`: each trace draws a verbosity ``v`` uniformly in ``verbose`` (about ``v``
restating lines per reasoning line); with probability ``slip_p`` it is a careless trace whose compute lines slip
with a rate drawn in ``slip``; with probability ``skip_p`` it skips the compute lines."""


def natural_pool(n: int, vocab: Vocab, *, hops=(1, 4), n_distract=(0, 4), verbose=NATURAL["verbose"],
                 slip_p: float = NATURAL["slip_p"], slip=NATURAL["slip"], skip_p: float = NATURAL["skip_p"],
                 generator=None) -> TraceBatch:
    """``n`` traces whose style varies continuously (see the module docstring and :data:`NATURAL`)."""
    checks.positive_int("n", n)
    vocab = _vocab(vocab)
    hops, n_distract = _check_sizes(vocab, hops, n_distract)
    for name, span in (("verbose", verbose), ("slip", slip)):
        if not isinstance(span, (tuple, list)) or len(span) != 2:
            raise ValueError(f"{name} must be a range (lo, hi); got {span!r}")
        lo, hi = checks.probability(f"{name}[0]", span[0]), checks.probability(f"{name}[1]", span[1])
        if lo > hi:
            raise ValueError(f"{name} must be a range (lo, hi) with lo <= hi; got {span!r}")
    checks.probability("slip_p", slip_p)
    checks.probability("skip_p", skip_p)
    rng = _rng(generator)
    rows = []
    for _ in range(n):
        h, d = rng.randint(*hops), rng.randint(*n_distract)
        skip = rng.random() < skip_p
        lines = h * (1 if skip else 2)
        v = rng.uniform(*verbose)
        n_fill = sum(rng.random() < v for _ in range(lines))
        rate = rng.uniform(*slip) if rng.random() < slip_p else 0.0
        rows.append(_one_trace(vocab, h, d, Style(n_filler=n_fill, filler="restate", slip=rate, skip=skip), rng))
    return _batch(rows, KINDS.index("natural"))


def problems(n: int, vocab: Vocab, *, hops: int, context_bindings: int, generator=None) -> TraceBatch:
    """``n`` held-out evaluation problems with exactly ``hops`` hops and ``context_bindings - hops`` distractor
    bindings (so every prompt has the same length), each with its clean reference trace."""
    checks.positive_int("n", n)
    vocab = _vocab(vocab)
    checks.positive_int("hops", hops)
    checks.positive_int("context_bindings", context_bindings)
    if context_bindings < hops or context_bindings > vocab.n_vars:
        raise ValueError(f"context_bindings must lie in [hops={hops}, n_vars={vocab.n_vars}]; got {context_bindings}")
    return traces(n, vocab, hops=(hops, hops), n_distract=(context_bindings - hops,) * 2, n_filler=(0, 0),
                  generator=generator)
