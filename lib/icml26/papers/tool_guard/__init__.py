"""tool_guard: Tool-Guard, isolated planning against cross-tool tool-description poisoning (arXiv 2606.20922).

Modules: ``env`` (ToyDojo suites, tasks, utility and attack checks), ``attacks`` (description poisoning),
``planner`` (offline MiniLM embedding planner), ``method`` (validator, decision matrix, guard config),
``baselines`` (prompt-injection defenses), ``agent`` (the episode loop), ``backend`` (OpenAI-compatible
HTTP backend, AgentDojo adapter), ``experiment``, ``claims`` and ``explore``.
"""

from icml26.papers.tool_guard import agent, attacks, baselines, env, method, planner

__all__ = ["agent", "attacks", "baselines", "env", "method", "planner"]
