"""Pluggable LLM backend for users with a real model (docs/papers/tool_guard.md §3.3), and an AgentDojo adapter.

* :class:`OpenAICompatibleBackend` speaks the OpenAI chat-completions API (function calling) over plain
  ``urllib`` (vLLM, llama.cpp, ollama servers expose the same API). ``complete(messages, tools)`` returns a
  :class:`Completion`; ``judge(system, user)`` returns the JSON object of a validator prompt.
* :class:`LLMPlanner` turns a backend into a planner with the same ``propose`` interface as the offline
  planner, so :func:`~icml26.papers.tool_guard.agent.run_episode` runs Tool-Guard with a real model. A
  timeout or a garbage answer raises :class:`BackendError`, which the episode loop turns into a cleanly
  failed task.
* :func:`agentdojo_pipeline_element` (lazy import of ``agentdojo``) wraps a planner as an AgentDojo
  ``BasePipelineElement`` for users who install that package.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from icml26 import checks


class BackendError(RuntimeError):
    """The model server timed out, failed or answered something that is not a valid completion."""


@dataclass
class Completion:
    tool_calls: list = field(default_factory=list)  # [(name, args_json)]
    text: str | None = None


class OpenAICompatibleBackend:
    """Chat-completions client (standard library only)."""

    def __init__(self, base_url: str, api_key: str = "", model: str = "gpt-4o", temperature: float = 0.0,
                 timeout: float = 30.0):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL; got {base_url!r}")
        checks.positive_number("timeout", timeout)
        checks.in_range("temperature", temperature, 0.0, 2.0)
        if not isinstance(api_key, str):
            raise TypeError(f"api_key must be a string; got {type(api_key).__name__}")
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty model name; got {model!r}")
        self.base_url, self.api_key, self.model = base_url.rstrip("/"), api_key, model
        self.temperature, self.timeout = float(temperature), float(timeout)

    def _post(self, payload: dict) -> dict:
        req = urllib.request.Request(self.base_url + "/chat/completions", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {self.api_key}"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                body = resp.read()
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            raise BackendError(f"request failed: {e}") from e
        try:
            data = json.loads(body)
            return data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise BackendError(f"garbage answer: {body[:200]!r}") from e

    def complete(self, messages: list, tools: list) -> Completion:
        payload = {"model": self.model, "temperature": self.temperature, "messages": messages}
        if tools:
            payload["tools"] = [t.schema() for t in tools]
        msg = self._post(payload)
        calls = []
        for c in msg.get("tool_calls") or []:
            try:
                calls.append((c["function"]["name"], c["function"].get("arguments", "{}")))
            except (KeyError, TypeError) as e:
                raise BackendError(f"malformed tool call {c!r}") from e
        return Completion(calls, msg.get("content"))

    def judge(self, system: str, user: str) -> dict:
        msg = self._post({"model": self.model, "temperature": 0.0, "response_format": {"type": "json_object"},
                          "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})
        try:
            out = json.loads(msg.get("content") or "")
        except ValueError as e:
            raise BackendError("judge answer is not JSON") from e
        if not isinstance(out, dict):
            raise BackendError("judge answer is not a JSON object")
        return out


class LLMPlanner:
    """Planner over a chat backend: the visible catalog goes into ``tools``; one call or a final answer."""

    def __init__(self, backend, suite: str = "banking"):
        if not hasattr(backend, "complete"):
            raise ValueError("backend must have a complete(messages, tools) method")
        if not isinstance(suite, str) or not suite:
            raise ValueError(f"suite must be a non-empty suite name; got {suite!r}")
        self.backend, self.suite, self.device = backend, suite, "cpu"

    def propose(self, task: str, history: list, view) -> dict:
        msgs = [{"role": "system", "content": f"You are a helpful {self.suite} assistant."},
                {"role": "user", "content": task}]
        for h in history:
            if h.get("status") in ("ok", "error"):
                msgs.append({"role": "assistant", "content": f"called {h['name']}({json.dumps(h['args'])})"})
                msgs.append({"role": "user", "content": f"tool result: {h['output'][:500]}"})
        comp = self.backend.complete(msgs, view.tools)
        if comp.tool_calls:
            name, raw = comp.tool_calls[0]
            try:
                args = json.loads(raw) if isinstance(raw, str) else dict(raw)
            except (ValueError, TypeError) as e:
                raise BackendError(f"tool arguments are not JSON: {raw!r}") from e
            if name not in {t.name for t in view.tools}:
                return {"kind": "none"}  # coerced to no_tool_suitable, as in the official replan
            return {"kind": "call", "name": name, "args": args, "why": "llm"}
        if comp.text is None:
            raise BackendError("completion has neither tool calls nor text")
        return {"kind": "done", "answer": comp.text}


def agentdojo_pipeline_element(planner):
    """An AgentDojo ``BasePipelineElement`` that asks ``planner`` for the next call (needs ``agentdojo``)."""
    if not callable(getattr(planner, "propose", None)):
        raise TypeError(f"planner must have a propose(task, history, view) method; got {type(planner).__name__}")
    try:
        from agentdojo.agent_pipeline.base_pipeline_element import BasePipelineElement
    except ImportError as e:  # optional extra
        raise ImportError("agentdojo is not installed; `pip install agentdojo` to run its suites") from e
    from icml26.papers.tool_guard.env import ToolSpec
    from icml26.papers.tool_guard.planner import PlannerView

    class ToolGuardPlannerElement(BasePipelineElement):
        name = "tool_guard_planner"

        def query(self, query, runtime, env=None, messages=(), extra_args=None):
            tools = [ToolSpec(f.name, f.description or f.name, {k: "str" for k in f.parameters.model_fields}, None)
                     for f in runtime.functions.values()]
            act = planner.propose(query, [], PlannerView(tools))
            msg = {"role": "assistant", "content": act.get("answer"), "tool_calls": []}
            if act["kind"] == "call":
                from agentdojo.functions_runtime import FunctionCall

                msg["tool_calls"] = [FunctionCall(function=act["name"], args=act["args"])]
            return query, runtime, env, [*messages, msg], extra_args or {}

    return ToolGuardPlannerElement()
