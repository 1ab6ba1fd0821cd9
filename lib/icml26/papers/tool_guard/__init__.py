"""tool_guard: Tool-Guard, isolated planning against cross-tool tool-description poisoning (arXiv 2606.20922).

Modules: ``env`` (ToyDojo suites, tasks, utility and attack checks), ``attacks`` (description poisoning),
``planner`` (offline MiniLM embedding planner, the rule stand-in), ``learned`` (a policy network trained on
benign traces), ``method`` (validator, decision matrix, guard config),
``baselines`` (prompt-injection defenses), ``agent`` (the episode loop), ``backend`` (OpenAI-compatible
HTTP backend, AgentDojo pipeline element), ``agentdojo_suite`` (the real AgentDojo banking suite offline; needs
the optional ``agentdojo``), ``experiment``, ``claims`` and ``explore``.
"""

from icml26.papers.tool_guard import agent, attacks, baselines, env, learned, method, planner

__all__ = ["agent", "attacks", "baselines", "env", "learned", "method", "planner"]
