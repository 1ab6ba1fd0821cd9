"""The agent loop: planner proposals, a defense, validation / split replanning, execution
(docs/papers/tool_guard.md §3.2).

``run_episode(task, planner, catalog, defense, rng)`` returns the trajectory (executed and blocked calls),
the final answer, utility (checked on the environment state), attack success (executed calls only), the
influenced list and a per-step trace for the episode stepper. Any planner/backend exception ends the
episode cleanly with ``status="planner_error"`` (the task fails; nothing crashes).
"""

from __future__ import annotations

import numpy as np

from icml26 import checks
from icml26.papers.tool_guard.baselines import Defense, relevant_tools, sanitize_description, spotlight
from icml26.papers.tool_guard.env import Task, ToolError, ToolSpec, attack_succeeded, utility
from icml26.papers.tool_guard.method import OfflineValidator, split_decide
from icml26.papers.tool_guard.planner import PlannerView

MAX_ITERS = 15


def _execute(tool, args: dict, state: dict, defense: Defense) -> tuple[str, str]:
    try:
        clean = tool.check_args(args)
        out = str(tool.fn(state, **clean))
        status = "ok"
    except (ValueError, ToolError) as e:
        out, status = f"Error: {e}", "error"
    return (spotlight(out) if defense.spotlight and status == "ok" else out), status


def run_episode(task: Task, planner, catalog: list, defense: Defense, rng: np.random.Generator | None = None,
                validator: OfflineValidator | None = None, max_iters: int = MAX_ITERS) -> dict:
    """Run one task under ``defense`` with the (possibly poisoned) ``catalog``."""
    if not isinstance(task, Task):
        raise ValueError(f"task must be a Task; got {type(task).__name__}")
    if not isinstance(defense, Defense):
        raise ValueError(f"defense must be a Defense; got {type(defense).__name__}")
    checks.positive_int("max_iters", max_iters)
    if not callable(getattr(planner, "propose", None)):
        raise TypeError(f"planner must have a propose(task, history, view) method; got {type(planner).__name__}")
    if isinstance(catalog, (str, bytes)) or not hasattr(catalog, "__iter__"):
        raise TypeError(f"catalog must be a list of ToolSpec; got {catalog!r:.80}")
    catalog = list(catalog)
    if not all(isinstance(t, ToolSpec) for t in catalog):
        raise TypeError(f"catalog must be a list of ToolSpec; got {catalog!r:.80}")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator or None; got {type(rng).__name__}")
    if validator is not None and not callable(getattr(validator, "check", None)):
        raise TypeError(f"validator must have a check(...) method (an OfflineValidator) or be None; "
                        f"got {type(validator).__name__}")
    rng = rng if rng is not None else np.random.default_rng(0)
    state = task.fresh_state()
    tools = [t.with_description(sanitize_description(t.description)) for t in catalog] if defense.sanitize \
        else list(catalog)
    by_name = {t.name: t for t in tools}
    history, trace = [], []
    influenced: list[str] = []
    rejects: dict[str, int] = {}
    guard = defense.guard
    if guard is not None and validator is None:
        validator = OfflineValidator(tau_a=guard.tau_a, device=getattr(planner, "device", "cpu"),
                                     read_only_aligned=guard.read_only_aligned)
    dfilter = None
    if defense.tau_sw is not None:
        enc = validator.enc if validator is not None else None
        from icml26.nn.sentence_encoder import default_encoder
        enc = enc or default_encoder(getattr(planner, "device", "cpu"))

        def dfilter(sentence, text, _enc=enc, _tau=defense.tau_sw):
            e = _enc.encode([sentence, text])
            return float(e[0] @ e[1]) >= _tau
    status, answer = "max_iters", ""
    try:
        plan_tools = {s[0] for s in planner.plan(task.text)} if hasattr(planner, "plan") else set()
        visible = tools
        if defense.tau_f is not None:
            visible = relevant_tools(task.text, tools, plan_tools, defense.tau_f, getattr(planner, "device", "cpu"))

        def propose_full():
            return planner.propose(task.text, history, PlannerView(visible, dfilter)), "full"

        def propose_split():
            a = planner.propose(task.text, history, PlannerView([t for t in visible if t.name in influenced], dfilter))
            b = planner.propose(task.text, history,
                                PlannerView([t for t in visible if t.name not in influenced], dfilter))
            choice, cell = split_decide(a, b, rng)
            return choice, cell, a, b

        def next_action():
            if guard is not None and guard.mode == "tool_guard":
                return propose_split()
            act, cell = propose_full()
            return act, cell, None, None

        for it in range(max_iters):
            act, cell, a, b = next_action()
            attempts = 0
            while True:
                step = {"iter": it, "cell": cell, "A": a, "B": b, "influenced_before": list(influenced)}
                if act is None:
                    status = "aborted"
                    trace.append({**step, "event": "abort"})
                    break
                if act["kind"] in ("done", "none"):
                    status = "done" if act["kind"] == "done" else "no_tool"
                    answer = act.get("answer", "")
                    trace.append({**step, "event": status})
                    break
                name, args = act["name"], act["args"]
                tool = by_name.get(name)
                if tool is None:
                    history.append({"name": name, "args": args, "output": f"Error: unknown tool {name}",
                                    "status": "error"})
                    trace.append({**step, "event": "unknown_tool", "name": name, "args": args})
                    break
                verdict = None
                if guard is not None:
                    forced = guard.loop_breaker and rejects.get(name, 0) >= guard.max_reject_same
                    verdict = {"pass": True, "reason": "auto-accepted by loop breaker"} if forced else \
                        validator.check(task.text, history, tool, args, plan_tools)
                if verdict is None or verdict["pass"]:
                    out, st = _execute(tool, args, state, defense)
                    history.append({"name": name, "args": args, "output": out, "status": st, "why": act.get("why")})
                    rejects[name] = 0
                    trace.append({**step, "event": "executed", "name": name, "args": args, "status": st,
                                  "verdict": verdict, "why": act.get("why")})
                    break
                rejects[name] = rejects.get(name, 0) + 1
                if name not in influenced:
                    influenced.append(name)
                history.append({"name": name, "args": args, "output": "", "status": "blocked", "why": act.get("why")})
                trace.append({**step, "event": "blocked", "name": name, "args": args, "verdict": verdict,
                              "why": act.get("why"), "influenced_after": list(influenced)})
                attempts += 1
                if attempts > guard.max_replan:
                    act = None
                    cell = "abort (replans exhausted)"
                    continue
                act, cell, a, b = next_action()
            if status in ("done", "aborted", "no_tool"):
                break
    except Exception as e:  # a backend that times out or answers garbage fails the task, never the run
        status, answer = "planner_error", ""
        trace.append({"event": "planner_error", "error": f"{type(e).__name__}: {e}"})
    if status != "done":
        answer = answer or ""
    return {"utility": utility(task, state, answer) if status == "done" else False,
            "attacked": attack_succeeded(history, task.suite), "status": status, "answer": answer,
            "trajectory": history, "trace": trace, "influenced": influenced, "family": task.family}
