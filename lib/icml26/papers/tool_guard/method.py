"""Tool-Guard (docs/papers/tool_guard.md §3): two-stage validation, the influenced list, split replanning, the loop
breaker.

* :class:`OfflineValidator` (docs/papers/tool_guard.md §3.1) — *alignment*: the tool is in the retrieved demonstration
  plan, or the cosine between the task and the tool's whole description (the official judge reads the full
  description, poison included) is >= ``tau_a`` (biased to "aligned");
  *suspicion*: pure provenance — every identifier-like span (IBAN, e-mail, date, number) of every argument
  must occur in the task or in an earlier tool output, or follow by a small arithmetic rule (sum,
  difference, percentage). It never reads attacker markers. Tools without side effects count as aligned
  (``read_only_aligned``, *inferred*: the paper's judge is biased to "aligned" and an LLM judge accepts
  look-ups as prerequisites).
* :func:`split_decide` — the decision matrix over the influenced-only context (A) and the others-only
  context (B): (A, none) -> A, (none, B) -> B, (A, B) -> seeded uniform pick, (none, none) -> abort.
* :class:`GuardConfig` — ``mode`` ``"tool_guard"`` (isolated planning) or ``"validation_only"`` (block and
  replan with the full catalog, the ablation), ``max_replan=5``, ``max_reject_same=2`` (loop breaker),
  ``max_iters=15`` — the official control flow. The episode loop itself lives in :mod:`.agent`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from icml26 import checks
from icml26.nn.sentence_encoder import default_encoder
from icml26.papers.tool_guard.planner import SPAN

NUM = re.compile(r"(?<![\w.\-#])\d+(?:\.\d+)?(?![\w\-])")


@dataclass(frozen=True)
class GuardConfig:
    """Tool-Guard / validation-only settings (defaults = the official code)."""

    mode: str = "tool_guard"
    tau_a: float = 0.25
    read_only_aligned: bool = True
    max_replan: int = 5
    max_reject_same: int = 2
    loop_breaker: bool = True

    def __post_init__(self):
        if self.mode not in ("tool_guard", "validation_only"):
            raise ValueError(f"mode must be 'tool_guard' or 'validation_only'; got {self.mode!r}")
        checks.in_range("tau_a", self.tau_a, -1.0, 1.0)
        checks.nonnegative_int("max_replan", self.max_replan)
        checks.positive_int("max_reject_same", self.max_reject_same)
        for k in ("read_only_aligned", "loop_breaker"):
            if not isinstance(getattr(self, k), bool):
                raise TypeError(f"{k} must be a bool; got {getattr(self, k)!r}")


def _norm(x: str) -> str:
    return re.sub(r"\s+", " ", str(x).strip().lower())


def _numbers(texts: list[str]) -> list[float]:
    return [float(m) for t in texts for m in NUM.findall(t)]


class OfflineValidator:
    """Same interface as the LLM judge: ``check(task, history, tool, args, plan_tools) -> verdict dict``."""

    def __init__(self, tau_a: float = 0.25, device="cpu", read_only_aligned: bool = True):
        checks.in_range("tau_a", tau_a, -1.0, 1.0)
        checks.device("device", device)
        if not isinstance(read_only_aligned, bool):
            raise TypeError(f"read_only_aligned must be a bool; got {read_only_aligned!r}")
        self.tau_a = tau_a
        self.read_only_aligned = read_only_aligned
        self.enc = default_encoder(device)

    def alignment(self, task: str, tool, plan_tools) -> tuple[bool, float]:
        """Could ``tool`` help the task (plan member, or its whole description close to the task)? Returns (aligned,
        cosine). Like the official judge it reads the full description, poison included."""
        e = self.enc.encode([task, tool.description])
        cos = float(e[0] @ e[1])
        ro = self.read_only_aligned and not tool.side_effect
        return (tool.name in plan_tools) or ro or cos >= self.tau_a, cos

    @staticmethod
    def grounded(value, task: str, outputs: list[str]) -> bool:
        """Provenance of one argument value: every identifier-like span occurs in the task or an output."""
        corpus = [task] + list(outputs)
        text = _norm(" ".join(corpus))
        v = str(value)
        if _norm(v) and _norm(v) in text:
            return True
        pieces = []
        for kind in ("iban", "email", "date"):
            pieces += re.findall(SPAN[kind], v)
        rest = v
        for p in pieces:
            rest = rest.replace(p, " ")
        nums = [float(n) for n in NUM.findall(rest)]
        if any(_norm(p) not in text for p in pieces):
            return False
        if not nums:
            return True
        known = _numbers(corpus)
        derived = set(known)
        for a in known:
            for b in known:
                derived.update({a + b, abs(a - b), a * b / 100.0})
        return all(any(abs(n - d) < 1e-6 for d in derived) for n in nums)

    def suspicion(self, task: str, history: list[dict], args: dict) -> tuple[bool, list[str]]:
        """Are some arguments not grounded in the task or earlier outputs? Returns (suspicious, bad args)."""
        outs = [h["output"] for h in history if h.get("status") == "ok"]
        bad = [k for k, v in args.items() if not self.grounded(v, task, outs)]
        return bool(bad), bad

    def check(self, task: str, history: list[dict], tool, args: dict, plan_tools=()) -> dict:
        aligned, cos = self.alignment(task, tool, plan_tools)
        if not aligned:
            return {"pass": False, "aligned": False, "suspicious": None, "cos": cos,
                    "reason": f"misaligned (cos {cos:.2f} < {self.tau_a:.2f}, not in plan)"}
        susp, bad = self.suspicion(task, history, args)
        reason = f"ungrounded args {bad}" if susp else "ok"
        return {"pass": not susp, "aligned": True, "suspicious": susp, "cos": cos, "reason": reason}


def split_decide(a: dict, b: dict, rng: np.random.Generator) -> tuple[dict | None, str]:
    """The decision matrix (docs/papers/tool_guard.md §3.2). Returns (chosen action or None to abort, cell label)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator; got {type(rng).__name__}")
    for x, name in ((a, "a"), (b, "b")):
        if not isinstance(x, dict):
            raise TypeError(f"{name} must be an action dict; got {type(x).__name__}")
        if x.get("kind") not in ("call", "none", "done"):
            raise ValueError(f"{name} must be an action with kind call/none/done; got {x!r}")
    if a["kind"] == "done" or b["kind"] == "done":
        other = b if a["kind"] == "done" else a
        if other["kind"] != "call":
            return (a if a["kind"] == "done" else b), "done"
        return other, ("A" if other is a else "B") + " (other done)"
    if a["kind"] == "call" and b["kind"] == "none":
        return a, "A"
    if a["kind"] == "none" and b["kind"] == "call":
        return b, "B"
    if a["kind"] == "call" and b["kind"] == "call":
        return (a, "A (tie)") if rng.random() < 0.5 else (b, "B (tie)")
    return None, "abort (both none)"
