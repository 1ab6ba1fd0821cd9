"""Synthetic reasoning data for AIR (note §7): a tokenizer, copy probes and pointer-chasing traces.

Vocabulary (fixed ids, :data:`SPECIAL` first, then filler words, values, variables)::

    PAD BOS = ? NL ans ok | filler words | digits 0..9 | variables v0..v{n_vars-1}

(``=`` is kept in the vocabulary for display only: a binding ``q = x`` is written as the two tokens ``q x``,
which makes the lookup a plain induction-style copy and lets retrieval heads emerge within seconds of CPU.)

* **Copy probe** (note §3.1, inferred form): ``BOS k1 x1 k2 x2 ... ? ka xa ? kb xb ...``; the
  needle tokens are the ``x`` after each ``? k`` (values are distinct inside a probe so the C2 rule of
  Wu et al. is never ambiguous).
* **Trace** (note §7): a shuffled context of bindings ``q0 q1  q1 q2 ... q{H-1} d`` plus distractor
  bindings, the question ``? q0 NL``, then the response, one step per line: *lookup* lines ``qi q{i+1} NL``
  (copy a binding from the context), *filler* lines ``ok w NL`` (``w`` a random filler word, no retrieval)
  and the final line ``ans d NL``. Step types: :data:`STEP_TYPES`.
* Pool kinds: ``clean`` (0..1 filler lines), ``padded`` (many filler lines: long, low information),
  ``noisy`` (a fraction of response tokens replaced by variables that are *not* in the context, note §10,
  and, with some probability, a wrong final answer).

Everything is generated from a ``torch.Generator`` (traces via a Python RNG seeded from it); no data is downloaded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

SPECIAL = ("PAD", "BOS", "=", "?", "NL", "ans", "ok")
PAD, BOS, EQ, QUERY, NL, ANS, OK = range(len(SPECIAL))
N_FILLER = 3
N_DIGITS = 10
STEP_TYPES = ("prompt", "lookup", "filler", "answer")
KINDS = ("clean", "padded", "noisy")


@dataclass(frozen=True)
class Vocab:
    """Token ids of the task for ``n_vars`` variable names."""

    n_vars: int = 16

    def __post_init__(self):
        if isinstance(self.n_vars, bool) or not isinstance(self.n_vars, int) or self.n_vars < 4:
            raise ValueError(f"n_vars must be an integer >= 4; got {self.n_vars!r}")

    @property
    def filler0(self) -> int:
        return len(SPECIAL)

    @property
    def digit0(self) -> int:
        return self.filler0 + N_FILLER

    @property
    def var0(self) -> int:
        return self.digit0 + N_DIGITS

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
            if i < len(SPECIAL):
                out.append("\n" if i == NL else SPECIAL[i])
            elif i < self.digit0:
                out.append(("so", "hmm", "well")[i - self.filler0])
            elif i < self.var0:
                out.append(str(i - self.digit0))
            else:
                j = i - self.var0
                out.append(chr(ord("a") + j % 26) + ("" if j < 26 else str(j // 26)))
        return " ".join(out).replace(" \n ", "\n").replace(" \n", "\n")


def _int(name, value, lo=1):
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ValueError(f"{name} must be an integer >= {lo}; got {value!r}")
    return value


def copy_probes(n: int, vocab: Vocab, n_pairs: int = 6, n_queries: int = 3, *, generator=None):
    """``n`` copy probes ``(idx, needle)``: ``idx`` ``(n, T)`` long, ``needle`` ``(n, T)`` bool marks the answers."""
    _int("n", n)
    _int("n_pairs", n_pairs)
    _int("n_queries", n_queries)
    if n_pairs > vocab.n_vars or n_queries > n_pairs:
        raise ValueError(f"need n_queries <= n_pairs <= n_vars={vocab.n_vars}; got {n_queries}, {n_pairs}")
    g = generator
    keys = torch.rand(n, vocab.n_vars, generator=g).argsort(1)[:, :n_pairs] + vocab.var0
    n_vals = N_DIGITS + vocab.n_vars
    vals = torch.rand(n, n_vals, generator=g).argsort(1)[:, :n_pairs] + vocab.digit0  # distinct values
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
    """A padded batch of traces. ``idx`` ``(n, T)``; ``step`` ``(n, T)`` step index of each token (-1 for
    prompt and padding); ``stype`` ``(n, T)`` step type id (0 prompt/pad); ``prompt_len`` ``(n,)``; ``answer``
    ``(n,)`` the correct answer token; ``kind`` ``(n,)`` index into :data:`KINDS`; ``hops`` ``(n,)``."""

    idx: torch.Tensor
    step: torch.Tensor
    stype: torch.Tensor
    prompt_len: torch.Tensor
    answer: torch.Tensor
    kind: torch.Tensor
    hops: torch.Tensor

    def __len__(self) -> int:
        return self.idx.shape[0]

    def subset(self, rows) -> TraceBatch:
        rows = torch.as_tensor(rows, dtype=torch.long)
        return TraceBatch(*(getattr(self, f)[rows] for f in self.__dataclass_fields__))

    def to(self, device) -> TraceBatch:
        return TraceBatch(*(getattr(self, f).to(device) for f in self.__dataclass_fields__))

    @property
    def lengths(self) -> torch.Tensor:
        """Number of non-pad tokens per trace."""
        return (self.idx != PAD).sum(1)

    @property
    def response_mask(self) -> torch.Tensor:
        return self.step >= 0


def _one_trace(vocab, hops, n_distract, n_filler, kind, noise, wrong_p, g: random.Random):
    """Token list, step ids, step types for one trace (a short Python build; batching happens in :func:`traces`)."""
    perm = [vocab.var0 + i for i in g.sample(range(vocab.n_vars), vocab.n_vars)]
    chain = perm[: hops]
    digit = vocab.digit0 + g.randrange(N_DIGITS)
    links = chain[1:] + [digit]
    binds = list(zip(chain, links))
    others = perm[hops: hops + 2 * n_distract]
    for j in range(n_distract):  # distractors: var -> var or var -> digit outside the chain
        tgt = others[n_distract + j] if j % 2 else vocab.digit0 + g.randrange(N_DIGITS)
        binds.append((others[j], tgt))
    order = g.sample(range(len(binds)), len(binds))
    toks = [BOS]
    for o in order:
        toks += [binds[o][0], binds[o][1]]
    toks += [QUERY, chain[0], NL]
    plen = len(toks)
    lines = [("lookup", [a, b, NL]) for a, b in zip(chain, links)]
    for _ in range(n_filler):
        pos = g.randrange(len(lines) + 1)
        lines.insert(pos, ("filler", [OK, vocab.filler0 + g.randrange(N_FILLER), NL]))
    answer = digit
    final = digit
    if kind == "noisy" and g.random() < wrong_p:
        shift = 1 + g.randrange(N_DIGITS - 1)
        final = vocab.digit0 + (digit - vocab.digit0 + shift) % N_DIGITS
    lines.append(("answer", [ANS, final, NL]))
    step, stype = [-1] * plen, [0] * plen
    for s, (typ, line) in enumerate(lines):
        toks += line
        step += [s] * len(line)
        stype += [STEP_TYPES.index(typ)] * len(line)
    if kind == "noisy" and noise > 0:
        unused = perm[hops + 2 * n_distract:]
        for p in range(plen, len(toks)):
            if toks[p] != NL and unused and g.random() < noise:
                toks[p] = unused[g.randrange(len(unused))]
    return toks, step, stype, plen, answer


def traces(n: int, vocab: Vocab, *, hops=(1, 4), n_distract: int = 2, kind: str = "clean", n_filler=(0, 1),
           noise: float = 0.3, wrong_p: float = 0.5, generator=None, length: int | None = None) -> TraceBatch:
    """``n`` traces of one ``kind`` (see the module docstring) with ``hops`` drawn uniformly in ``hops``
    (inclusive) and ``n_filler`` filler lines drawn uniformly in ``n_filler`` (inclusive)."""
    _int("n", n)
    _int("n_distract", n_distract, 0)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    if len(hops) != 2 or not 1 <= hops[0] <= hops[1]:
        raise ValueError(f"hops must be (lo, hi) with 1 <= lo <= hi; got {hops!r}")
    if hops[1] + 2 * n_distract > vocab.n_vars:
        raise ValueError(f"hops[1] + 2*n_distract must be <= n_vars={vocab.n_vars}; got {hops[1]}, {n_distract}")
    if len(n_filler) != 2 or not 0 <= n_filler[0] <= n_filler[1]:
        raise ValueError(f"n_filler must be (lo, hi) with 0 <= lo <= hi; got {n_filler!r}")
    if not 0.0 <= noise <= 1.0 or not 0.0 <= wrong_p <= 1.0:
        raise ValueError(f"noise and wrong_p must lie in [0, 1]; got {noise}, {wrong_p}")
    # one draw from the torch generator seeds a Python RNG for the per-trace build (fast, still reproducible)
    rng = random.Random(int(torch.randint(2**62, (1,), generator=generator)))
    rows = []
    for _ in range(n):
        h = rng.randint(hops[0], hops[1])
        f = rng.randint(n_filler[0], n_filler[1])
        rows.append(_one_trace(vocab, h, n_distract, f, kind, noise, wrong_p, rng) + (h,))
    t = max(len(r[0]) for r in rows) if length is None else length
    if any(len(r[0]) > t for r in rows):
        raise ValueError(f"length={t} is shorter than the longest trace ({max(len(r[0]) for r in rows)})")
    idx = torch.full((n, t), PAD)
    step = torch.full((n, t), -1)
    stype = torch.zeros((n, t), dtype=torch.long)
    for i, (toks, st, ty, _, _, _) in enumerate(rows):
        idx[i, : len(toks)] = torch.tensor(toks)
        step[i, : len(st)] = torch.tensor(st)
        stype[i, : len(ty)] = torch.tensor(ty)
    return TraceBatch(idx, step, stype, torch.tensor([r[3] for r in rows]), torch.tensor([r[4] for r in rows]),
                      torch.full((n,), KINDS.index(kind)), torch.tensor([r[5] for r in rows]))


def concat(batches: list[TraceBatch]) -> TraceBatch:
    """Concatenate trace batches, right-padding to the longest."""
    if not batches:
        raise ValueError("batches must be a non-empty list of TraceBatch")
    t = max(b.idx.shape[1] for b in batches)

    def pad(x, value):
        return torch.nn.functional.pad(x, (0, t - x.shape[1]), value=value)

    return TraceBatch(torch.cat([pad(b.idx, PAD) for b in batches]), torch.cat([pad(b.step, -1) for b in batches]),
                      torch.cat([pad(b.stype, 0) for b in batches]), torch.cat([b.prompt_len for b in batches]),
                      torch.cat([b.answer for b in batches]), torch.cat([b.kind for b in batches]),
                      torch.cat([b.hops for b in batches]))


def make_pool(n: int, vocab: Vocab, *, frac=(0.5, 0.25, 0.25), hops=(1, 4), n_distract: int = 2,
              padded_filler=(4, 6), noise: float = 0.3, wrong_p: float = 0.5, generator=None) -> TraceBatch:
    """A shuffled pool of ``n`` traces with fractions ``frac`` of (clean, padded, noisy) (note §6 claim 3)."""
    _int("n", n)
    frac = tuple(float(f) for f in frac)
    if len(frac) != 3 or any(f < 0 for f in frac) or abs(sum(frac) - 1) > 1e-6:
        raise ValueError(f"frac must be three non-negative fractions summing to 1; got {frac}")
    counts = [int(round(f * n)) for f in frac]
    counts[0] = n - counts[1] - counts[2]
    parts = []
    for kind, c in zip(KINDS, counts):
        if c > 0:
            parts.append(traces(c, vocab, hops=hops, n_distract=n_distract, kind=kind,
                                n_filler=padded_filler if kind == "padded" else (0, 1), noise=noise,
                                wrong_p=wrong_p, generator=generator))
    pool = concat(parts)
    return pool.subset(torch.randperm(n, generator=generator))
