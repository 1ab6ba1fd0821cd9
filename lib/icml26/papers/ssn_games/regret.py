"""The regret-matching family on a batch of matrix games: RM, RM+, PRM+, batched in torch.

See docs/papers/ssn_games.md §3.4.

Row player (minimiser): loss ``A y``, instantaneous regret ``r^x = <A y, x> 1 - A y``. Column player
(maximiser): utility ``A^T x``, regret ``r^y = A^T x - <A^T x, y> 1``. RM keeps the cumulative regret
``Q``; RM+ clips it, ``Q <- [Q + r]^+``; the predictive variant (Farina, Kroer & Sandholm 2021) plays
``x ∝ [Q + m]^+`` with the prediction ``m`` = the last instantaneous regret (uniform when all zero).

``alternating`` (bool or a boolean tensor of shape ``(B,)``) lets the column player respond to the
row player's *new* strategy; ``False`` is the simultaneous update the paper's tables appear to use.
One iteration costs 2 mat-vec equivalents. The uniform, linear (``w_t = t``) and quadratic
(``w_t = t^2``) averages are all tracked in the same run, so one run gives every averaging choice.
"""

from __future__ import annotations

import time

import torch

from icml26.papers.ssn_games.games import _duality_gap, check_games

AVERAGINGS = ("last", "uniform", "linear", "quadratic")


def _normalize(p: torch.Tensor) -> torch.Tensor:
    """``p / sum(p)`` row-wise for ``p >= 0``; the uniform vector where a row is all zeros."""
    s = p.sum(dim=-1, keepdim=True)
    zero = (s <= 0).to(p.dtype)
    return (p + zero / p.shape[-1]) / (s + zero)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class RegretMatching:
    """State of (P)RM(+) self-play on a batch of games; :meth:`run` continues from where it stopped."""

    def __init__(self, A: torch.Tensor, *, predictive: bool = True, plus: bool = True, alternating=True):
        A = check_games(A)
        B, n, m = A.shape
        for label, v in (("predictive", predictive), ("plus", plus)):
            if not isinstance(v, bool):
                raise ValueError(f"{label} must be a bool; got {v!r}")
        if isinstance(alternating, bool):
            alt = torch.full((B,), alternating, dtype=torch.bool, device=A.device)
        elif isinstance(alternating, torch.Tensor) and alternating.dtype == torch.bool and alternating.shape == (B,):
            alt = alternating.to(A.device)
        else:
            raise ValueError(f"alternating must be a bool or a boolean tensor of shape ({B},); got {alternating!r}")
        self.A, self.At, self.n, self.m = A, A.transpose(1, 2).contiguous(), n, m
        self.predictive, self.plus, self.alt = predictive, plus, alt.unsqueeze(-1)
        self.x = torch.full((B, n), 1.0 / n, dtype=A.dtype, device=A.device)
        self.y = torch.full((B, m), 1.0 / m, dtype=A.dtype, device=A.device)
        self.Qx, self.Qy = torch.zeros_like(self.x), torch.zeros_like(self.y)
        self.sz = torch.zeros(3, B, n + m, dtype=A.dtype, device=A.device)  # uniform, linear, quadratic sums
        self._wvec = torch.zeros(3, dtype=A.dtype, device=A.device)
        self.wsum = [0.0, 0.0, 0.0]
        self.t = 0

    @property
    def cost(self) -> int:
        """Mat-vec equivalents spent so far (2 per iteration)."""
        return 2 * self.t

    def _play(self, Q: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        p = Q + r if self.predictive else Q
        return _normalize(p.clamp(min=0))

    def step(self) -> None:
        """One iteration of both players (alternating or simultaneous, per game)."""
        lx = torch.bmm(self.y.unsqueeze(1), self.At).squeeze(1)  # A y as a row-vector product (fast on CPU)
        rx = (self.x * lx).sum(-1, keepdim=True) - lx
        self.Qx = (self.Qx + rx).clamp(min=0) if self.plus else self.Qx + rx
        x_new = self._play(self.Qx, rx)
        x_resp = torch.where(self.alt, x_new, self.x)
        uy = torch.bmm(x_resp.unsqueeze(1), self.A).squeeze(1)
        ry = uy - (self.y * uy).sum(-1, keepdim=True)
        self.Qy = (self.Qy + ry).clamp(min=0) if self.plus else self.Qy + ry
        self.y = self._play(self.Qy, ry)
        self.x = x_new
        self.t += 1
        t = float(self.t)
        self.wsum = [self.wsum[0] + 1.0, self.wsum[1] + t, self.wsum[2] + t * t]  # python floats: no sync
        z = torch.cat([self.x, self.y], dim=-1)
        self.sz.addcmul_(self._wvec.new_tensor([1.0, t, t * t]).view(3, 1, 1), z)

    def iterate(self, averaging: str = "quadratic") -> tuple[torch.Tensor, torch.Tensor]:
        """The current strategy pair for ``averaging`` in :data:`AVERAGINGS` (``last`` = last iterate)."""
        if averaging not in AVERAGINGS:
            raise ValueError(f"averaging must be one of {AVERAGINGS}; got {averaging!r}")
        if averaging == "last" or self.t == 0:
            return self.x, self.y
        k = AVERAGINGS.index(averaging) - 1
        return self.sz[k, :, :self.n] / self.wsum[k], self.sz[k, :, self.n:] / self.wsum[k]

    def gaps(self) -> torch.Tensor:
        """Duality gaps ``(4, B)`` of the last, uniform, linear and quadratic iterates (evaluation only)."""
        xs = torch.stack([self.iterate(a)[0] for a in AVERAGINGS])
        ys = torch.stack([self.iterate(a)[1] for a in AVERAGINGS])
        return _duality_gap(self.A, xs, ys)

    def run(self, iterations: int, record_every: int | None = None) -> dict:
        """Run ``iterations`` more steps; every ``record_every`` steps record the gaps of all averagings.

        Returns ``{"iterations": [...], "cost": [...], "seconds": [...], "gap": {averaging: (R, B) list}}``
        (gap evaluations are not charged to the cost: they are diagnostics, which favours the baseline).
        """
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
            raise ValueError(f"iterations must be a non-negative integer; got {iterations!r}")
        if record_every is not None and (not isinstance(record_every, int) or record_every < 1):
            raise ValueError(f"record_every must be a positive integer or None; got {record_every!r}")
        rec = {"iterations": [], "cost": [], "seconds": [], "gap": {a: [] for a in AVERAGINGS}}
        _sync(self.A.device)
        t0 = time.perf_counter()
        for i in range(iterations):
            self.step()
            if record_every and ((i + 1) % record_every == 0 or i + 1 == iterations):
                g = self.gaps().cpu()
                _sync(self.A.device)
                rec["seconds"].append(time.perf_counter() - t0)
                rec["iterations"].append(self.t)
                rec["cost"].append(self.cost)
                for a, row in zip(AVERAGINGS, g):
                    rec["gap"][a].append(row.tolist())
        return rec
