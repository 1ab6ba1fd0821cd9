"""Bad-input probes of Tool-Guard (icml26.papers.tool_guard; see tests/inputs/harness.py).

The cheap probes run the episode loop with a stub planner; the planner, validator, detector, grid and
episode probes load the packaged MiniLM encoder once per process (a few seconds)."""

import importlib.util

import numpy as np
from harness import Probe

from icml26.papers.tool_guard import (
    agent,
    agentdojo_suite,
    attacks,
    backend,
    baselines,
    env,
    experiment,
    explore,
    learned,
    method,
    planner,
)

P = "icml26.papers.tool_guard"


class _Stub:
    """A planner that answers at once (no encoder): the episode loop's cheapest valid partner."""

    device = "cpu"

    def propose(self, task, history, view):
        return {"kind": "done", "answer": ""}


STUB = _Stub()
TOOLS = env.suite_tools("banking")
TASK = env.make_tasks("banking", 1, seed=0)[0]
NONE = baselines.make_defense("none")
URL = "http://127.0.0.1:9/v1"
FAKE = {"grid": {"banking": {"authority": {"none": {"asr": 0.9, "utility": 0.5},
                                           "tool_guard": {"asr": 0.0, "utility": 0.5},
                                           "poisoned_tools": ["get_iban"]}}}}
RUN = {"suites": ["workspace"], "n_tasks": 1, "strategies": ["append"], "defenses": ["none"],
       "num_poison": {"workspace": 1}, "scope": {"workspace": 2}, "tie_seeds": 1, "learned": None}
LRUN = {"suite": "workspace", "strategies": ["append"], "defenses": ["none"], "per_phrasing": 1, "steps": 1}
SEED = ("seed", 1.5, "float seed")
HAVE_ADOJO = importlib.util.find_spec("agentdojo") is not None


def ADOJO_SUITE():  # noqa: N802 (a constant-like factory)
    return agentdojo_suite.load_suite() if HAVE_ADOJO else None
ZERO_POISON = {"num_poison": "0 poisoned tools is valid (the clean catalog)"}

PROBES = [
    Probe(experiment.unrequested_side_effects, valid=lambda: {"result": {"trajectory": []}, "task": TASK,
                                                              "catalog": TOOLS},
          extra=[("result", {"answer": ""}, "no trajectory"), ("task", 3, "not a task"), ("catalog", 3, "not tools")]),
    # ---- env
    Probe(env.ToolSpec, valid=lambda: {"name": "get_x", "description": "Returns x.", "params": {"n": "int"}},
          extra=[("name", "Get X", "not snake_case"), ("description", " ", "blank"), ("params", {"n": "list"}, "type"),
                 ("params", ["n"], "a list"), ("required", ("m",), "unknown parameter"), ("required", "n", "a string"),
                 ("fn", 3, "not callable")]),
    Probe(env.tool_from_schema, valid=lambda: {"schema": TOOLS[3].schema()},
          extra=[("schema", 3, "not a dict"), ("schema", {"name": "t"}, "no description"),
                 ("schema", {"name": "Bad Name", "description": "d"}, "bad tool name"),
                 ("schema", {"name": "t", "description": "d",
                             "parameters": {"properties": {"a": {"type": "array"}}}}, "unknown property type"),
                 ("schema", {"name": "t", "description": "d",
                             "parameters": {"properties": {}, "required": ["a"]}}, "required names no property"),
                 ("fn", 3, "not callable")]),
    Probe(env.split_sentences, valid=lambda: {"text": "One. Two!"},
          extra=[("text", 3, "an int"), ("text", None, "None")]),
    Probe(env.suite_tools, valid=lambda: {"suite": "workspace"}, extra=[("suite", "travel", "unknown suite")]),
    Probe(env.Task, valid=lambda: {"suite": "banking", "family": "balance", "text": "What is my balance?",
                                   "state": {}, "check": lambda st, ans: True},
          extra=[("suite", "travel", "unknown suite"), ("text", "", "empty"), ("state", [], "a list"),
                 ("check", 3, "not callable"), ("slots", [], "a list")]),
    Probe(env.make_tasks, valid=lambda: {"suite": "workspace", "n": 2, "seed": 0, "split": "train"},
          extra=[("split", "val", "unknown split"), ("suite", "travel", "unknown suite"), ("n", 2.5, "float n"),
                 SEED]),
    Probe(env.contains_attacker, valid=lambda: {"args": {"recipient": "x"}, "suite": "banking"},
          extra=[("args", ["x"], "a list"), ("suite", "travel", "unknown suite")]),
    Probe(env.attack_succeeded, valid=lambda: {"trajectory": [{"name": "get_iban", "args": {}, "status": "ok"}],
                                               "suite": "banking"},
          extra=[("trajectory", [3], "not steps"), ("trajectory", "abc", "a string"), ("suite", "travel", "unknown")]),
    Probe(env.utility, valid=lambda: {"task": TASK, "state": TASK.fresh_state(), "answer": ""},
          extra=[("task", 3, "not a Task"), ("state", [], "a list"), ("answer", 3, "an int answer")]),
    Probe(env.demo_tasks, valid=lambda: {"suite": "workspace", "per_phrasing": 1, "seed": 0},
          extra=[("suite", "travel", "unknown suite"), ("per_phrasing", 0, "no demonstration"), SEED]),
    # ---- attacks
    Probe(attacks.poison_text, valid=lambda: {"suite": "banking", "strategy": "append", "scope": ["get_iban"],
                                              "variant": 0},
          extra=[("scope", [], "no tool"), ("scope", "get_iban", "a string"), ("strategy", "jailbreak", "unknown"),
                 ("suite", "travel", "unknown suite"), ("variant", 1.5, "float variant")]),
    Probe(attacks.poison_catalog, valid=lambda: {"tools": TOOLS, "suite": "banking", "strategy": "append",
                                                 "num_poison": 1, "scope_size": 2, "seed": 0},
          skip=ZERO_POISON,
          extra=[("num_poison", -1, "negative"), ("num_poison", 11, "more than the other tools"),
                 ("scope_size", 12, "more than the catalog"), ("tools", [], "no tool"),
                 ("tools", TOOLS + TOOLS[:1], "duplicate names"), ("tools", ["get_iban"], "names, not specs"),
                 ("suite", "travel", "unknown suite"), ("strategy", "jailbreak", "unknown strategy"), SEED]),
    # ---- baselines
    Probe(baselines.sanitize_description, valid=lambda: {"text": "Sends money. You must call x first."},
          extra=[("text", 3, "an int"), ("patterns", "must", "one string"), ("patterns", [3], "not patterns")]),
    Probe(baselines.spotlight, valid=lambda: {"output": "Current balance: 10.00"}, extra=[("output", 3, "an int")]),
    Probe(baselines.relevant_tools, valid=lambda: {"task": "Send 10 euros to my friend.", "tools": TOOLS[:3],
                                                   "plan_tools": {"send_money"}, "tau": 0.2, "device": "cpu"},
          extra=[("tau", 1.5, "above 1"), ("tools", [3], "not tools"), ("plan_tools", "send_money", "a string"),
                 ("task", "", "empty task")]),
    Probe(baselines.Defense, valid=lambda: {"name": "custom", "tau_sw": 0.15, "tau_f": 0.15},
          extra=[("name", "", "empty"), ("tau_f", 2.0, "above 1"), ("guard", "tool_guard", "a string"),
                 ("extra", [], "a list")]),
    Probe(baselines.make_defense, valid=lambda: {"name": "tool_guard", "tau_a": 0.25, "tau_f": 0.15, "tau_sw": 0.15,
                                                 "max_reject_same": 2},
          extra=[("name", "firewall", "unknown defense"), ("loop_breaker", "yes", "not a bool"),
                 ("tau_f", -2.0, "below -1")]),
    # ---- method
    Probe(method.GuardConfig, valid=lambda: {"mode": "validation_only", "tau_a": 0.25, "max_replan": 1,
                                             "max_reject_same": 2},
          skip={"max_replan": "0 replans is valid (abort at the first block)"},
          extra=[("max_replan", -1, "negative"), ("mode", "strict", "unknown mode"), ("tau_a", 1.5, "above 1"),
                 ("tau_a", "high", "text"), ("loop_breaker", "yes", "not a bool")]),
    Probe(method.OfflineValidator, valid=lambda: {"tau_a": 0.25, "device": "cpu", "read_only_aligned": False},
          extra=[("tau_a", -1.5, "below -1"), ("read_only_aligned", "no", "not a bool")]),
    Probe(method.split_decide, valid=lambda: {"a": {"kind": "call", "name": "get_iban", "args": {}},
                                              "b": {"kind": "none"}, "rng": np.random.default_rng(0)},
          extra=[("a", 3, "not a dict"), ("b", {"kind": "jump"}, "unknown kind"), ("rng", 3, "not a Generator")]),
    # ---- planner
    Probe(planner.spans, valid=lambda: {"text": "pay 10 to x@y.com", "kind": "email"},
          extra=[("kind", "phone", "unknown kind"), ("text", 3, "an int")]),
    Probe(planner.plan_key, valid=lambda: {"suite": "workspace", "family": "send"},
          extra=[("suite", "travel", "unknown suite"), ("family", "balance", "not a workspace family")]),
    Probe(planner.parse_directive, valid=lambda: {"sentence": "First call get_iban(n=3).", "names": ["get_iban"],
                                                  "params": {"get_iban": {"n": "int"}}},
          extra=[("sentence", 3, "an int"), ("names", "get_iban", "a string"), ("params", [], "a list")]),
    Probe(planner.EmbeddingPlanner, valid=lambda: {"suite": "workspace", "device": "cpu", "k": 1, "tau_d": 0.5,
                                                   "demos_per_phrasing": 1, "seed": 0},
          extra=[("suite", "travel", "unknown suite"), ("tau_d", 1.0, "tau_d 1"), ("k", True, "a bool"),
                 ("follow_directives", "yes", "not a bool"), ("demos_per_phrasing", 1.5, "float"), SEED]),
    Probe(planner.DirectiveDetector, valid=lambda: {"device": "cpu", "C": 1.0},
          extra=[("C", 0.0, "zero regularisation strength"), ("C", -1.0, "negative")]),
    # ---- learned planner
    Probe(learned.fill_args, valid=lambda: {"task": "Pay 10 to DE00123456789012345678.", "history": [],
                                            "tool": TOOLS[3], "given": {}},
          extra=[("task", 3, "an int"), ("history", [3], "not steps"), ("tool", "send_money", "a name"),
                 ("given", [], "a list")]),
    Probe(learned.candidates, valid=lambda: {"task": "What is my balance?", "history": [],
                                             "view": planner.PlannerView(TOOLS), "known": ("get_balance",)},
          extra=[("task", 3, "an int"), ("history", "abc", "a string"), ("view", TOOLS, "a list, not a view"),
                 ("known", "get_balance", "a string")]),
    Probe(learned.PolicyNet, valid=lambda: {"dim": 8, "d": 2, "hidden": 3},
          extra=[("d", 0, "zero width"), ("hidden", 1.5, "float width")]),
    Probe(learned.LearnedPlanner, valid=lambda: {"suite": "workspace", "per_phrasing": 1, "steps": 2, "seed": 0},
          extra=[("suite", "travel", "unknown suite"), ("per_phrasing", 0, "no demonstration"),
                 ("steps", 0, "no step"), ("lr", 0.0, "zero lr"), ("weight_decay", -1.0, "negative decay"),
                 ("note_rate", 1.5, "above 1"), SEED]),
    # ---- AgentDojo (the valid calls need the optional package)
    Probe(agentdojo_suite.load_suite, valid=lambda: {"version": "v1.2"}, run_valid=HAVE_ADOJO,
          extra=[("version", 1.2, "a float"), ("version", "1.2", "no leading v")]),
    Probe(agentdojo_suite.banking_tools, valid=lambda: {"suite": ADOJO_SUITE()}, run_valid=HAVE_ADOJO,
          extra=[("suite", 3, "not a suite")]),
    Probe(agentdojo_suite.banking_tasks, valid=lambda: {"suite": ADOJO_SUITE()}, run_valid=HAVE_ADOJO,
          extra=[("suite", "banking", "a name, not a suite")]),
    Probe(agentdojo_suite.poisoned, valid=lambda: {"tools": TOOLS, "strategy": "append", "num_poison": 1, "scope": 2},
          skip=ZERO_POISON,
          extra=[("tools", [3], "not tools"), ("strategy", "jailbreak", "unknown strategy"),
                 ("num_poison", -1, "negative"), ("scope", 0, "no scope tool"), SEED]),
    Probe(agentdojo_suite.evaluate, valid=lambda: {"planner": STUB, "defenses": ("none",), "strategies": ("append",)},
          run_valid=HAVE_ADOJO,
          extra=[("planner", 3, "no propose"), ("defenses", ("firewall",), "unknown defense"),
                 ("strategies", ("jailbreak",), "unknown strategy"), SEED]),
    # ---- agent
    Probe(agent.run_episode, valid=lambda: {"task": TASK, "planner": STUB, "catalog": TOOLS, "defense": NONE,
                                            "rng": np.random.default_rng(0), "max_iters": 1},
          extra=[("task", 3, "not a Task"), ("defense", "none", "a name, not a Defense"),
                 ("catalog", [3], "not tools"), ("catalog", "get_iban", "a string"), ("rng", 3, "not a Generator"),
                 ("planner", object(), "no propose"), ("validator", 3, "no check"), ("max_iters", True, "a bool")]),
    # ---- backend
    Probe(backend.OpenAICompatibleBackend, valid=lambda: {"base_url": URL, "model": "m", "temperature": 0.0,
                                                          "timeout": 1.0},
          extra=[("base_url", "ftp://x", "not http"), ("model", "", "no model"), ("temperature", 3.0, "above 2"),
                 ("timeout", 0.0, "zero timeout"), ("api_key", 3, "an int key")]),
    Probe(backend.LLMPlanner, valid=lambda: {"backend": backend.OpenAICompatibleBackend(URL), "suite": "banking"},
          extra=[("backend", 3, "no complete"), ("suite", "", "empty suite")]),
    # The valid call builds an AgentDojo element, so it runs only where the optional extra is installed.
    Probe(backend.agentdojo_pipeline_element, valid=lambda: {"planner": STUB},
          run_valid=importlib.util.find_spec("agentdojo") is not None, extra=[("planner", 3, "no propose")]),
    # ---- experiment
    Probe(experiment.evaluate, valid=lambda: {"tasks": [TASK], "plan": STUB, "catalog": TOOLS, "defense": NONE,
                                              "seeds": (0,)},
          extra=[("tasks", [], "no task"), ("tasks", [3], "not tasks"), ("seeds", (), "no seed"),
                 ("seeds", (-1,), "negative seed"), ("plan", 3, "no propose"), ("defense", "none", "a name"),
                 ("catalog", [3], "not tools")]),
    Probe(experiment.run, valid=lambda: {"config": dict(RUN), "device": "cpu", "seed": 0},
          extra=[("config", {"suites": ["banking"]}, "incomplete"), ("config", {**RUN, "suites": []}, "no suite"),
                 ("config", {**RUN, "suites": ["travel"]}, "unknown suite"),
                 ("config", {**RUN, "defenses": ["firewall"]}, "unknown defense"),
                 ("config", {**RUN, "strategies": ["jailbreak"]}, "unknown strategy"),
                 ("config", {**RUN, "n_tasks": 0}, "no task"), ("config", {**RUN, "tie_seeds": 0}, "no tie seed"),
                 ("config", {**RUN, "num_poison": {"workspace": 9}}, "more poisons than tools"),
                 ("config", {**RUN, "scope": {"banking": 2}}, "scope lacks the suite"),
                 ("config", {**RUN, "learned": {"suite": "workspace"}}, "incomplete learned config"),
                 ("config", {**RUN, "learned": {**LRUN, "suite": "banking"}}, "learned suite not in the grid"),
                 ("config", {**RUN, "learned": {**LRUN, "defenses": ["firewall"]}}, "unknown learned defense"),
                 ("config", {**RUN, "learned": {**LRUN, "per_phrasing": 0}}, "no demonstration"), SEED]),
    # ---- explore
    Probe(explore.grid, valid=lambda: {"suite": "workspace", "strategy": "append", "num_poison": 1, "scope": 2,
                                       "n_tasks": 1, "defenses": ["none"], "seed": 0},
          skip=ZERO_POISON,
          extra=[("num_poison", -1, "negative"), ("scope", 7, "more than the catalog"),
                 ("defenses", ["firewall"], "unknown defense"), ("suite", "travel", "unknown suite"),
                 ("strategy", "jailbreak", "unknown strategy")]),
    Probe(explore.plot_matrix, valid=lambda: {"suite": "banking", "strategy": "authority", "results": FAKE},
          extra=[("strategy", "append", "not in the results"), ("results", [1], "a list"),
                 ("suite", "workspace", "not in the results")]),
    Probe(explore.plot_heatmap, valid=lambda: {"results": FAKE, "suite": "banking", "key": "asr"},
          extra=[("key", "f1", "unknown key"), ("suite", "workspace", "not in the results"),
                 ("results", {}, "no grid")]),
    Probe(explore.episode, valid=lambda: {"suite": "banking", "task_index": 0, "strategy": "append",
                                          "defense": "none", "num_poison": 1, "scope": 2, "seed": 0},
          skip=ZERO_POISON,
          extra=[("num_poison", -1, "negative"), ("strategy", "jailbreak", "unknown strategy"),
                 ("defense", "firewall", "unknown defense"), ("task_index", 1.5, "float index")]),
    Probe(explore.plot_trace, valid=lambda: {"suite": "banking", "task_index": 0, "strategy": "authority",
                                             "defense": "none", "step": 2},
          extra=[("defense", "firewall", "unknown defense"), ("strategy", "jailbreak", "unknown strategy")]),
]
EXEMPT = {
    f"{P}.backend.BackendError": "an exception class (a message only)",
    f"{P}.backend.Completion": "a dataclass of plain fields returned by the backend",
    f"{P}.env.ToolError": "an exception class (a message only)",
    f"{P}.planner.Directive": "a dataclass of plain fields made by EmbeddingPlanner.directives",
    f"{P}.planner.PlannerView": "a dataclass of plain fields built once per planner call by the episode loop",
    f"{P}.planner.detector_corpus": "takes no argument; the fixed benign training sentences",
}
