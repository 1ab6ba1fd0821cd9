"""A learned planner: a small policy network trained by imitation on generated tool-use traces
(docs/papers/tool_guard.md §2, "The learned planner").

The rule planner (:class:`~icml26.papers.tool_guard.planner.EmbeddingPlanner`) obeys any sentence its detector
flags; here nothing decides by rule *whether* to follow a sentence. At every step the planner lists what it
could do next (the candidate actions), and a trained network scores them:

* one candidate per tool it knows (the suite's tools it was trained with) and per visible tool: call it,
  arguments filled by type from the task and earlier outputs (:func:`fill_args`); when the chosen tool is not
  in view the answer is ``none`` (no visible tool suits the next step, as in Tool-Guard's split contexts);
* one candidate per description sentence that writes a visible tool's name in call position (the same
  generic reader as the rule planner, :func:`~icml26.papers.tool_guard.planner.parse_directive`): call that
  tool with the sentence's ``key=value`` arguments; a benign usage note and a poison both yield one;
* ``done`` (answer with the last output).

**Network** (``PolicyNet``): every text (task, the tool's ``name: purpose``, the sentence, the tools the sentence
talks about = its host tool and the other tool names it writes, the tools already executed) is a frozen
all-MiniLM-L6-v2 vector, projected to ``d`` dimensions by one learned matrix; the candidate's feature vector
holds the projections, their pairwise products and a few scalars (kind, "already executed", cosines); a
two-layer MLP gives its score; a softmax over one step's candidates gives the policy. Trained with
cross-entropy against an expert's choice (AdamW, full batch).

**Traces**: training tasks use the *train* phrasings only (the experiments use the disjoint test phrasings).
Their catalogs carry benign usage notes that matter: the real ones (``update_scheduled_transaction`` needs the
id from ``get_scheduled_transactions``) plus random extra prerequisite notes, written either in the tool's own
description or in another tool's description naming one to four tools, in wordings unlike any attack text,
and distractor notes about tools the task does not need. The expert follows a visible note whose tools include
its next plan step while the prerequisite has not run, calls the plan step otherwise, and ``done`` at the end
(traces are in the full catalog: "not in view" needs no training). Training tasks are the rule planner's own
demonstrations (:func:`~icml26.papers.tool_guard.env.demo_tasks`, same seed). Prerequisites of the benign
notes are read-only look-ups. Whether the network follows a poisoned sentence (attacker call, side-effect
target, many scope tools, unseen wording) is thus decided by what it learned, never by a rule.

The defences get the same knowledge of the task's plan as with the rule planner (:meth:`LearnedPlanner.plan`,
the demonstration retrieval that Tool-Guard's alignment check and the tool filter use); the policy does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import torch

from icml26 import checks
from icml26.nn.sentence_encoder import default_encoder
from icml26.papers.tool_guard.env import FAMILIES, ToolSpec, demo_tasks, split_sentences, suite_tools
from icml26.papers.tool_guard.planner import (
    PARAM_SPAN,
    PLANS,
    EmbeddingPlanner,
    PlannerView,
    parse_directive,
    plan_key,
    spans,
)

KINDS = ("tool", "note", "done")
_OWN = ["To use this tool on a {o}, first call {y} to obtain its {f}.",
        "This tool needs the {f} that {y} returns, so call {y} before it.",
        "Look up the {f} with {y} before calling this tool."]
_CROSS = ["Before calling {x}, call {y} to obtain the {f}.",
          "Calls to {x} need the {f} from {y}; run {y} first.",
          "If you plan to use {x}, get the {f} from {y} beforehand."]
_ARGS = {"get_most_recent_transactions": "n=5"}
_OBJ = ["account", "payment", "record", "request"]
_FIELD = ["reference", "current value", "token", "state"]


def fill_args(task: str, history: list[dict], tool: ToolSpec, given: dict) -> dict:
    """Complete ``given`` with the tool's required parameters, by type: from the task, else from the most recent
    output, where the output's lines sharing the most words with the task come first (ties keep their order)."""
    checks.instance("task", task, str)
    checks.mapping_items("history", history)
    checks.instance("tool", tool, ToolSpec)
    checks.instance("given", given, dict)
    args = dict(given)
    words = set(re.findall(r"[a-z]+", task.lower()))
    texts = [task]
    for h in [h for h in history if h.get("status") == "ok"][::-1]:
        lines = [ln for ln in h["output"].split("\n") if ln.strip() and not ln.startswith("<<")]
        order = sorted(range(len(lines)), key=lambda i: -len(words & set(re.findall(r"[a-z]+", lines[i].lower()))))
        texts += [lines[i] for i in order]
    for p in tool.required:
        if p in args:
            continue
        hit = next((s for kind in PARAM_SPAN.get(p, ()) for text in texts for s in spans(text, kind)), None)
        if hit is not None:
            args[p] = hit
    return args


def _executed(history) -> list[str]:
    return [h["name"] for h in history if h.get("status") in ("ok", "error")]


def candidates(task: str, history: list[dict], view: PlannerView, known=()) -> list[dict]:
    """The actions a planner may take (module docstring): a call of each ``known`` tool (the tools it was trained
    with; visible or not) and of each visible tool, sentence-derived calls of visible tools, and ``done``. Each
    carries its call and the names of the tools its features describe."""
    checks.instance("task", task, str)
    checks.mapping_items("history", history)
    checks.instance("view", view, PlannerView)
    if isinstance(known, (str, bytes)) or not all(isinstance(k, str) for k in known):
        raise TypeError(f"known must be a collection of tool names; got {known!r}")
    visible = {t.name: t for t in view.tools}
    names, params = list(visible), {t.name: t.params for t in view.tools}
    out = [{"kind": "tool", "name": n, "sentence": None, "scope": (), "args": {}}
           for n in dict.fromkeys([*known, *names])]
    seen = set()
    for t in view.tools:
        for s in split_sentences(t.description)[1:]:
            target, args, mentions = parse_directive(s, names, params)
            if target not in visible:
                continue
            if view.directive_filter is not None and not view.directive_filter(s, task):
                continue
            scope = tuple(n for n in dict.fromkeys([t.name, *mentions]) if n != target)
            key = (target, s, scope)
            if key not in seen:
                seen.add(key)
                out.append({"kind": "note", "name": target, "sentence": s, "scope": scope, "args": args})
    out.append({"kind": "done", "name": None, "sentence": None, "scope": (), "args": {}})
    return out


class PolicyNet(torch.nn.Module):
    """Scores candidates from frozen MiniLM vectors (module docstring); ``d`` = projection size."""

    N_SCALAR = len(KINDS) + 6

    def __init__(self, dim: int = 384, d: int = 16, hidden: int = 32):
        for k, v in (("dim", dim), ("d", d), ("hidden", hidden)):
            checks.positive_int(k, v)
        super().__init__()
        self.proj = torch.nn.Linear(dim, d, bias=False)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(11 * d + self.N_SCALAR, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, 1))

    def forward(self, table: torch.Tensor, idx: torch.Tensor, scal: torch.Tensor) -> torch.Tensor:
        """``idx`` (..., 5) rows of ``table`` (task, tool, sentence, scope, executed); ``scal`` (..., N_SCALAR)
        -> scores (...). The projection is applied to the table once, then gathered."""
        z = self.proj(table)[idx]
        t, o, s, c, h = z.unbind(-2)
        feats = torch.cat([t * o, t * s, t * c, h * o, h * c, s * o, t, o, s, c, h, scal], -1)
        return self.mlp(feats).squeeze(-1)


@dataclass
class LearnedPlanner:
    """A policy network trained on generated traces (module docstring); same ``propose`` interface as the rule
    planner. Trained on ``per_phrasing`` tasks per train phrasing (the rule planner's demonstrations, same seed),
    ``steps`` AdamW steps."""

    suite: str
    device: str = "cpu"
    seed: int = 0
    per_phrasing: int = 3
    steps: int = 100
    lr: float = 1e-2
    weight_decay: float = 1.0
    d: int = 16
    hidden: int = 32
    note_rate: float = 0.7
    _rows: dict = field(default_factory=dict, repr=False)
    _table: list = field(default_factory=lambda: [torch.zeros(384)], repr=False)

    def __post_init__(self):
        checks.one_of("suite", self.suite, tuple(FAMILIES))
        checks.device("device", self.device)
        checks.seed("seed", self.seed)
        checks.positive_int("per_phrasing", self.per_phrasing)
        checks.positive_int("steps", self.steps)
        checks.positive_number("lr", self.lr)
        checks.nonnegative_number("weight_decay", self.weight_decay)
        checks.positive_int("d", self.d)
        checks.positive_int("hidden", self.hidden)
        checks.probability("note_rate", self.note_rate)
        self.enc = default_encoder(self.device)
        self.tools = {t.name: t for t in suite_tools(self.suite)}
        self.read_only = [n for n, t in self.tools.items() if not t.side_effect]
        # the defences' knowledge of the task's plan (validator alignment, tool filter): the same demonstration
        # retrieval as for the rule planner, so the validator does not change with the planner; the policy never
        # reads it
        self._retriever = EmbeddingPlanner(self.suite, device=self.device, demos_per_phrasing=self.per_phrasing,
                                           seed=self.seed)
        torch.manual_seed(self.seed)
        self.net = PolicyNet(d=self.d, hidden=self.hidden)
        self.history_loss, self.train_acc = self._train()

    # ------------------------------------------------------------------------------------------ features
    def _row(self, key, make) -> int:
        """Index of a memoised vector in the planner's table (row 0 is the zero vector)."""
        if key not in self._rows:
            self._rows[key] = len(self._table)
            self._table.append(make())
        return self._rows[key]

    def _tools_row(self, names) -> int:
        key = ("tools", tuple(names))
        if not key[1]:
            return 0
        return self._row(key, lambda: self.enc.encode(
            [f"{n}: {self.tools[n].purpose if n in self.tools else n}" for n in key[1]]).mean(0))

    def _text_row(self, text: str) -> int:
        return self._row(("text", text), lambda: self.enc.encode([text])[0])

    def _features(self, task: str, history: list[dict], cands: list[dict]) -> tuple[torch.Tensor, torch.Tensor]:
        """Row indices (n, 5) into the vector table and scalars (n, N_SCALAR) of ``cands``."""
        done = _executed(history)
        t, h = self._text_row(task), self._tools_row(dict.fromkeys(done))
        idx, scal = [], []
        tv = self._table[t]
        last = self._tools_row(done[-1:])  # ``done`` answers with the last output: its tool describes it
        for c in cands:
            o = self._tools_row([c["name"]]) if c["name"] else last
            s = self._text_row(c["sentence"]) if c["sentence"] else 0
            sc = self._tools_row(c["scope"])
            idx.append([t, o, s, sc, h])
            kind = [float(c["kind"] == k) for k in KINDS]
            ex_o = float(c["name"] in done)
            ex_s = float(np.mean([n in done for n in c["scope"]])) if c["scope"] else 0.0
            scal.append(kind + [ex_o, ex_s, len(done) / 4.0, float(tv @ self._table[o]), float(tv @ self._table[sc]),
                                float(tv @ self._table[s])])
        return torch.tensor(idx), torch.tensor(scal)

    def plan(self, task: str) -> list:
        """The retrieved demonstration plan of ``task``, for the defences only (see ``__post_init__``)."""
        return self._retriever.plan(task)

    # ------------------------------------------------------------------------------------------ acting
    def scores(self, task: str, history: list[dict], view: PlannerView) -> tuple[list[dict], torch.Tensor]:
        """The candidates and their policy probabilities."""
        cands = candidates(task, history, view, known=self.tools)
        idx, scal = self._features(task, history, cands)
        rows, inv = torch.unique(idx, return_inverse=True)
        with torch.no_grad():
            p = torch.softmax(self.net(torch.stack([self._table[r] for r in rows.tolist()]), inv, scal), 0)
        return cands, p

    def propose(self, task: str, history: list[dict], view: PlannerView) -> dict:
        """The most probable candidate as an action: ``call``, ``done``, or ``none`` when it is a tool not in view
        (the planner knows its next step but cannot take it here, as in Tool-Guard's split contexts)."""
        cands, p = self.scores(task, history, view)
        i = int(torch.argmax(p))
        c = cands[i]
        if c["kind"] == "done":
            ok = [h for h in history if h.get("status") == "ok"]
            return {"kind": "done", "answer": ok[-1]["output"] if ok else ""}
        tool = next((t for t in view.tools if t.name == c["name"]), None)
        if tool is None:
            return {"kind": "none"}
        why = f"{c['kind']} (p={float(p[i]):.2f})" + (f": {c['sentence']}" if c["sentence"] else "")
        return {"kind": "call", "name": c["name"], "args": fill_args(task, history, tool, c["args"]), "why": why}

    # ------------------------------------------------------------------------------------------ training
    def _notes(self, rng, plan_tools: list[str]) -> tuple[dict, list[ToolSpec]]:
        """Random benign prerequisite notes for one training catalog: {tool -> prerequisite}, catalog."""
        extra: dict[str, list[str]] = {}
        req = {}
        names = list(self.tools)
        n_notes = int(rng.integers(1, 3)) if rng.random() < self.note_rate else 0
        for _ in range(n_notes):
            pool = plan_tools if rng.random() < 0.7 else [n for n in names if n not in plan_tools]
            x = str(rng.choice(pool))
            ys = [y for y in self.read_only if y != x and y not in plan_tools]
            if not ys:
                continue
            y = str(rng.choice(ys))
            yy = f"{y} with {_ARGS[y]}" if y in _ARGS and rng.random() < 0.5 else y
            o, f = str(rng.choice(_OBJ)), str(rng.choice(_FIELD))
            if rng.random() < 0.5:
                host, text = x, str(rng.choice(_OWN)).format(y=yy, o=o, f=f)
            else:
                others = [n for n in names if n not in (x, y)]
                host = str(rng.choice(others))
                xs = [x] + [str(n) for n in rng.choice([n for n in others if n != host] or others,
                                                       int(rng.integers(0, 4)), replace=False)]
                rng.shuffle(xs)
                text = str(rng.choice(_CROSS)).format(x=", ".join(xs), y=yy, f=f)
            extra.setdefault(host, []).append(text)
            req.setdefault(x, y)
        cat = [t.with_description(" ".join([t.description, *extra[t.name]])) if t.name in extra else t
               for t in suite_tools(self.suite)]
        return req, cat

    def _expert(self, task, history, cands, plan) -> int:
        """Index of the expert's choice among ``cands`` (module docstring)."""
        done = _executed(history)
        i = 0
        for n in done:
            if i < len(plan) and n == plan[i][0]:
                i += 1
        kinds = [c["kind"] for c in cands]
        if i >= len(plan):
            return kinds.index("done")
        x = plan[i][0]
        for j, c in enumerate(cands):
            if c["kind"] == "note" and x in c["scope"] and c["name"] not in done \
                    and c["name"] not in [p[0] for p in plan]:
                return j
        return next(j for j, c in enumerate(cands) if c["kind"] == "tool" and c["name"] == x)

    def _traces(self):
        from icml26.papers.tool_guard.agent import _execute  # the episode loop's tool execution
        from icml26.papers.tool_guard.baselines import make_defense
        rng = np.random.default_rng([self.seed, 31])
        none = make_defense("none")
        data = []
        for task in demo_tasks(self.suite, self.per_phrasing, self.seed):
            plan = PLANS[plan_key(self.suite, task.family)]
            req, cat = self._notes(rng, [p[0] for p in plan])
            by = {t.name: t for t in cat}
            state, history = task.fresh_state(), []
            for _ in range(8):
                cands = candidates(task.text, history, PlannerView(cat), known=self.tools)
                j = self._expert(task, history, cands, plan)
                data.append((task.text, list(history), cands, j))
                c = cands[j]
                if c["kind"] == "done":
                    break
                args = fill_args(task.text, history, by[c["name"]], c["args"])
                out, st = _execute(by[c["name"]], args, state, none)
                history.append({"name": c["name"], "args": args, "output": out, "status": st})
        return data

    def _train(self):
        data = self._traces()
        self.enc.encode(list(dict.fromkeys([t for t, *_ in data] + [c["sentence"] for _, _, cs, _ in data for c in cs
                                                                      if c["sentence"]])))
        feats = [self._features(t, h, c) for t, h, c, _ in data]
        idx = torch.cat([i for i, _ in feats])
        scal = torch.cat([s for _, s in feats])
        sizes = torch.tensor([len(i) for i, _ in feats])
        seg = torch.repeat_interleave(torch.arange(len(feats)), sizes)
        pos = torch.arange(len(seg)) - torch.repeat_interleave(torch.cumsum(sizes, 0) - sizes, sizes)
        y = torch.tensor([j for *_, j in data])
        table = torch.stack(self._table)
        opt = torch.optim.AdamW(self.net.parameters(), lr=self.lr, weight_decay=self.weight_decay)

        def logits():
            out = torch.full((len(feats), int(sizes.max())), float("-inf"))
            return out.index_put((seg, pos), self.net(table, idx, scal))

        losses = []
        for _ in range(self.steps):
            loss = torch.nn.functional.cross_entropy(logits(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        with torch.no_grad():
            acc = float((logits().argmax(1) == y).float().mean())
        return losses, acc
