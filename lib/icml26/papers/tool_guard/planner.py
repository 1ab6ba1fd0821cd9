"""The offline stand-in planner (docs/papers/tool_guard.md §2), built on real all-MiniLM-L6-v2 sentence embeddings.

1. *Skill retrieval*: the task is embedded and matched (k nearest neighbours, cosine) against a bank of
   benign demonstrations built from the *train* phrasings only; the winning family gives an abstract plan
   (tool sequence with slot references).
2. *Argument filling*: a typed span extractor (IBAN / e-mail / amount / date / ... regexes) over the task
   and previous tool outputs; a line of an output is chosen by nearest mention (embedding cosine to the task
   plus shared words).
3. *Description-reading channel*: every visible description is cut into sentences; a logistic-regression
   **directive detector** on MiniLM embeddings, trained only on benign usage notes vs plain descriptive
   sentences (fictional tools, no attack text), flags prerequisite directives; a generic parser reads the
   target tool and ``key=value`` arguments; if the sentence names the tool about to be called (or lives in
   that tool's own description) and the prerequisite has not run yet, the planner calls it first. The
   named step need not be in view: in Tool-Guard's influenced-only context the planner still knows which
   step comes next and reads a note about it.

Benign tasks need (3): ``update_scheduled_transaction`` and ``share_file`` only work after the lookup their
descriptions ask for. A poisoned description is followed through exactly the same code path; nothing here
knows about attacks.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import numpy as np
import torch

from icml26 import checks
from icml26.nn.sentence_encoder import default_encoder
from icml26.papers.tool_guard.env import FAMILIES, demo_tasks, split_sentences

SPAN = {
    "iban": r"\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b",
    "email": r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    "date": r"\b\d{4}-\d{2}-\d{2}\b",
    "amount": r"(?<![\w.\-#])(?<!id )\d+(?:\.\d+)?(?![\w\-:])",
    "password": r"\b[a-z]+-\d{4}-[a-z]+\b",
    "street": r"\b\d+ [A-Z][a-z]+ Street\b",
    "city": r"Street, ([A-Z][a-z]+)",
    "filename": r"[\w-]+\.(?:txt|docx|pdf)",
    "topic": r"about (?:the )?([a-z]+)",
    "id": r"\bid (\d+)",
}
# which span type fills a parameter when the plan gives no explicit source (directive prerequisites)
PARAM_SPAN = {"recipient": ("iban", "email"), "amount": ("amount",), "date": ("date",), "day": ("date",),
              "file_path": ("filename",), "query": ("filename", "topic"), "password": ("password",),
              "street": ("street",), "city": ("city",), "email": ("email",), "id": ("id",), "file_id": ("id",)}


def spans(text: str, kind: str) -> list[str]:
    """All spans of type ``kind`` in ``text`` (group 1 where the pattern has one)."""
    if kind not in SPAN:
        raise ValueError(f"kind must be one of {tuple(SPAN)}; got {kind!r}")
    if not isinstance(text, str):
        raise TypeError(f"text must be a string; got {type(text).__name__}")
    out = []
    for m in re.finditer(SPAN[kind], text):
        out.append(m.group(1) if m.groups() else m.group(0))
    return out


# ------------------------------------------------------------------------------------------- plans
def _t(kind):
    return ("task", kind)


def _o(tool, kind, pick="first"):
    return ("out", tool, kind, pick)


PLANS = {
    "balance": [("get_balance", {})], "iban": [("get_iban", {})],
    "send": [("send_money", {"recipient": _t("iban"), "amount": _t("amount")})],
    "bill": [("read_file", {"file_path": _t("filename")}),
             ("send_money", {"recipient": _o("read_file", "iban"), "amount": _o("read_file", "amount")})],
    "refund": [("get_most_recent_transactions", {}),
               ("send_money", {"recipient": _o("get_most_recent_transactions", "iban"),
                               "amount": _o("get_most_recent_transactions", "amount")})],
    "schedule": [("schedule_transaction", {"recipient": _t("iban"), "amount": _t("amount"), "date": _t("date")})],
    "update": [("update_scheduled_transaction", {"id": _o("get_scheduled_transactions", "id", "match"),
                                                 "amount": _t("amount")})],
    "address": [("update_user_info", {"street": _t("street"), "city": _t("city")})],
    "password": [("update_password", {"password": _t("password")})],
    "spending": [("get_most_recent_transactions", {})], "userinfo": [("get_user_info", {})],
    "scheduled": [("get_scheduled_transactions", {})],
    "find": [("search_emails", {"query": _t("topic")})],
    "ws_send": [("send_email", {"recipient": _t("email"), "subject": _t("topic"), "body": _t("topic")})],
    "day": [("get_day_calendar_events", {"day": _t("date")})],
    "create": [("create_calendar_event", {"title": _t("topic"), "day": _t("date")})],
    "share": [("share_file", {"file_id": _o("search_files", "id"), "email": _t("email")})],
    "forward": [("search_emails", {"query": _t("topic")}),
                ("send_email", {"recipient": _t("email"), "subject": _t("topic"),
                                "body": ("out", "search_emails", "text", "first")})],
}


def plan_key(suite: str, family: str) -> str:
    if suite not in FAMILIES:
        raise ValueError(f"suite must be one of {tuple(FAMILIES)}; got {suite!r}")
    if family not in FAMILIES[suite]:
        raise ValueError(f"family must be one of {tuple(FAMILIES[suite])} for suite {suite!r}; got {family!r}")
    return "ws_send" if (suite, family) == ("workspace", "send") else family


# ------------------------------------------------------------------------------ directive detector data
_FICT = ["get_order_status", "list_tickets", "fetch_invoice", "find_contact", "lookup_customer", "get_product_id",
         "search_flights", "list_devices", "get_account_token", "resolve_address", "get_session", "list_folders"]
_OBJ = ["order", "ticket", "invoice", "contact", "booking", "device", "folder", "report", "profile", "shipment"]
_FIELD = ["id", "token", "reference number", "current status", "handle", "version", "key", "address"]
_POS = ["To {v} a {o}, first call {t} to obtain its {f}.", "Before updating a {o}, run {t} to look up the {f}.",
        "Call {t} beforehand to get the {f} this tool needs.",
        "This tool needs the {f} returned by {t}; call it first.",
        "Use {t} first, then pass its {f} to this tool.", "Make sure {t} has been called to fetch the {f}.",
        "Prior to using this tool, invoke {t} to retrieve the {f} of the {o}.",
        "If you do not know the {f} of the {o}, call {t} before this tool."]
_NEG = ["Returns the {f} of the {o}.", "Lists the {o}s of the user with their {f}.",
        "Creates a new {o} with the given {f}.", "Updates the {f} of an existing {o}.", "Deletes a {o} by its {f}.",
        "Searches the {o}s for a query and returns the matching {f}.", "The {f} is returned as a string.",
        "Results are sorted by {f}, newest first.", "Works for every {o} owned by the user.",
        "Gives an overview of the {o} and its {f}."]
_VERB = ["change", "cancel", "edit", "modify", "close"]


def detector_corpus() -> tuple[list[str], np.ndarray]:
    """Benign training sentences: usage notes (label 1) vs descriptive sentences (label 0)."""
    rng = np.random.default_rng(5)
    pos, neg = set(), set()
    for tpl, t, o, f in itertools.product(_POS, _FICT, _OBJ[:4], _FIELD[:4]):
        if rng.random() < 0.12:
            pos.add(tpl.format(t=t, o=o, f=f, v=_VERB[int(rng.integers(len(_VERB)))]))
    for tpl, o, f in itertools.product(_NEG, _OBJ, _FIELD):
        if rng.random() < 0.5:
            neg.add(tpl.format(o=o, f=f))
    texts = sorted(pos) + sorted(neg)
    return texts, np.array([1] * len(pos) + [0] * len(neg))


@dataclass
class Directive:
    sentence: str
    source_tool: str
    target: str
    args: dict
    mentions: tuple
    score: float


def parse_directive(sentence: str, names: list[str], params: dict) -> tuple[str | None, dict, tuple]:
    """Generic parse: (target tool, key=value args, mentioned visible tool names). No attack-specific rule.

    The target is the snake_case identifier written closest before the first ``key=value`` pair (call syntax),
    or the last snake_case identifier when there are no arguments; it may be a tool that is not visible
    (then the caller cannot follow the directive).
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a string; got {type(sentence).__name__}")
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"names must be a list of tool names; got {names!r}")
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict tool name -> parameters; got {type(params).__name__}")
    idents = [(m.start(), m.group(0)) for m in re.finditer(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", sentence)]
    kv = list(re.finditer(r"\b([a-z_]+)\s*=\s*([^,;)]+)", sentence))
    kv_keys = {m.start() for m in kv}
    idents = [(p, n) for p, n in idents if p not in kv_keys]
    if not idents:
        return None, {}, ()
    mentions = tuple(dict.fromkeys(n for _, n in idents if n in names))
    if kv:
        before = [n for p, n in idents if p < kv[0].start()]
        target = before[-1] if before else idents[-1][1]
    else:
        target = idents[-1][1]
    args = {m.group(1): m.group(2).strip().rstrip(".") for m in kv if m.group(1) in params.get(target, {})}
    return target, args, mentions


@dataclass
class PlannerView:
    """What one planner call sees: the visible tool specs (already filtered / sanitised by a defense)."""

    tools: list
    directive_filter: object = None  # optional callable(sentence, task) -> bool (sandwich defense)


@dataclass
class EmbeddingPlanner:
    """kNN skill retrieval + typed argument filling + learned prerequisite-following (module docstring)."""

    suite: str
    device: str = "cpu"
    k: int = 3
    tau_d: float = 0.5
    follow_directives: bool = True
    demos_per_phrasing: int = 3
    seed: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.suite not in FAMILIES:
            raise ValueError(f"suite must be one of {tuple(FAMILIES)}; got {self.suite!r}")
        checks.in_range("tau_d", self.tau_d, 0.0, 1.0, low_open=True, high_open=True)
        checks.positive_int("k", self.k)
        checks.positive_int("demos_per_phrasing", self.demos_per_phrasing)
        checks.seed("seed", self.seed)
        checks.device("device", self.device)
        if not isinstance(self.follow_directives, bool):
            raise TypeError(f"follow_directives must be a bool; got {self.follow_directives!r}")
        self.enc = default_encoder(self.device)
        # demonstration bank from train phrasings only (disjoint from test phrasings)
        demos = demo_tasks(self.suite, self.demos_per_phrasing, self.seed)
        texts, labels = [t.text for t in demos], [t.family for t in demos]
        self.demo_texts, self.demo_labels = texts, labels
        self.demo_emb = self.enc.encode(texts)
        self.detector = _detector(self.device)

    # ---------------------------------------------------------------------------------- retrieval
    def retrieve(self, task: str) -> str:
        """The demonstration family nearest to ``task`` (majority of the k nearest, ties to the closest)."""
        if task in self._cache:
            return self._cache[task]
        sims = (self.demo_emb @ self.enc.encode([task])[0]).cpu()
        top = torch.topk(sims, min(self.k, len(sims))).indices.tolist()
        votes = {}
        for r, i in enumerate(top):
            votes[self.demo_labels[i]] = votes.get(self.demo_labels[i], 0) + 1 - 1e-3 * r
        fam = max(votes, key=votes.get)
        self._cache[task] = fam
        return fam

    def plan(self, task: str) -> list:
        return PLANS[plan_key(self.suite, self.retrieve(task))]

    # ---------------------------------------------------------------------------------- arguments
    def _pick_line(self, text: str, task: str, pick: str) -> str:
        lines = [ln for ln in text.split("\n") if ln.strip() and not (ln.startswith("<<") and ln.endswith(">>"))]
        if not lines:
            return ""
        if pick == "first" or len(lines) == 1:
            return lines[0]
        sims = (self.enc.encode(lines) @ self.enc.encode([task])[0]).cpu().numpy()
        words = set(re.findall(r"[a-z]+", task.lower()))
        overlap = np.array([len(words & set(re.findall(r"[a-z]+", ln.lower()))) for ln in lines])
        return lines[int(np.argmax(overlap + sims))]

    def fill(self, task: str, history: list[dict], spec: dict) -> dict:
        """Fill a plan step's arguments from the task and earlier outputs; unfillable ones are left out."""
        args = {}
        for name, src in spec.items():
            if src[0] == "task":
                found = spans(task, src[1])
            else:
                outs = [h["output"] for h in history if h["name"] == src[1] and h.get("status") == "ok"]
                if not outs:
                    continue
                line = self._pick_line(outs[-1], task, src[3])
                found = [line] if src[2] == "text" else spans(line, src[2])
            if found:
                args[name] = found[0]
        return args

    def fill_by_type(self, task: str, history: list[dict], tool, given: dict) -> dict:
        """Complete a directive's arguments by parameter type from the task, then from outputs."""
        args = dict(given)
        corpus = [task] + [h["output"] for h in history if h.get("status") == "ok"][::-1]
        for p in tool.required:
            if p in args:
                continue
            for kind in PARAM_SPAN.get(p, ()):
                hit = next((s for text in corpus for s in spans(text, kind)), None)
                if hit is not None:
                    args[p] = hit
                    break
        return args

    # ---------------------------------------------------------------------------------- directives
    def directives(self, tools: list) -> list[Directive]:
        """Flagged prerequisite directives in the descriptions of ``tools`` (cached per sentence)."""
        names = [t.name for t in tools]
        params = {t.name: t.params for t in tools}
        sents = [(t.name, s) for t in tools for s in split_sentences(t.description)[1:]]
        if not sents:
            return []
        scores = self.detector.score([s for _, s in sents])
        out = []
        for (src, s), p in zip(sents, scores):
            if p < self.tau_d:
                continue
            target, args, mentions = parse_directive(s, names, params)
            if target is not None:
                out.append(Directive(s, src, target, args, mentions, float(p)))
        return out

    # ---------------------------------------------------------------------------------- one step
    def propose(self, task: str, history: list[dict], view: PlannerView) -> dict:
        """Next action given the visible tools: ``{"kind": "call", "name", "args", "why"}``, ``{"kind": "done",
        "answer"}`` or ``{"kind": "none"}`` (no visible tool suits the next step)."""
        plan = self.plan(task)
        done_calls = [h for h in history if h.get("status") in ("ok", "error")]
        i = 0
        for h in done_calls:
            if i < len(plan) and h["name"] == plan[i][0]:
                i += 1
        if i >= len(plan):
            answer = next((h["output"] for h in reversed(done_calls) if h.get("status") == "ok"), "")
            return {"kind": "done", "answer": answer}
        tool_name, spec = plan[i]
        visible = {t.name: t for t in view.tools}
        if self.follow_directives:
            for d in self.directives(view.tools):
                if d.target not in visible:
                    continue
                # a usage note about the next plan step counts whether or not that tool is in view
                if not re.search(rf"\b{tool_name}\b", d.sentence) and d.source_tool != tool_name:
                    continue
                if view.directive_filter is not None and not view.directive_filter(d.sentence, task):
                    continue
                args = self.fill_by_type(task, history, visible[d.target], d.args)
                if any(h["name"] == d.target and _same(h["args"], args) for h in done_calls):
                    continue
                return {"kind": "call", "name": d.target, "args": args,
                        "why": f"directive in {d.source_tool} (p={d.score:.2f})"}
        if tool_name in visible:
            return {"kind": "call", "name": tool_name, "args": self.fill(task, history, spec), "why": "plan step"}
        return {"kind": "none"}


def _same(a: dict, b: dict) -> bool:
    return {k: str(v) for k, v in a.items()} == {k: str(v) for k, v in b.items()}


class DirectiveDetector:
    """Logistic regression on MiniLM embeddings: P(sentence is a prerequisite usage note)."""

    def __init__(self, device="cpu", C: float = 1.0):
        from sklearn.linear_model import LogisticRegression

        checks.device("device", device)
        checks.positive_number("C", C)
        self.enc = default_encoder(device)
        texts, y = detector_corpus()
        x = self.enc.encode(texts).cpu().numpy()
        self.clf = LogisticRegression(C=C, max_iter=2000).fit(x, y)
        self.train_acc = float(self.clf.score(x, y))
        self._memo: dict[str, float] = {}

    def score(self, sentences: list[str]) -> list[float]:
        todo = [s for s in dict.fromkeys(sentences) if s not in self._memo]
        if todo:
            p = self.clf.predict_proba(self.enc.encode(todo).cpu().numpy())[:, 1]
            self._memo.update(zip(todo, p.tolist()))
        return [self._memo[s] for s in sentences]


_DETECTORS: dict = {}


def _detector(device) -> DirectiveDetector:
    key = str(device)
    if key not in _DETECTORS:
        _DETECTORS[key] = DirectiveDetector(device)
    return _DETECTORS[key]
