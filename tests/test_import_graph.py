"""Imports flow one way: no module of the package imports, directly or through others, a module that imports it
back (lazy imports inside functions count too)."""

import ast
from pathlib import Path

import icml26

ROOT = Path(icml26.__file__).resolve().parent


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    mods = {}
    for p in root.rglob("*.py"):
        name = ".".join(("icml26", *p.relative_to(root).with_suffix("").parts))
        mods[name.removesuffix(".__init__")] = p
    graph = {m: set() for m in mods}
    for m, p in mods.items():
        is_pkg = p.name == "__init__.py"
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                parts = m.split(".") if is_pkg else m.split(".")[:-1]
                if node.level:
                    parts = parts[:len(parts) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for a in node.names:
                    target = f"{base}.{a.name}"
                    if target in mods:
                        graph[m].add(target)
                    elif base in mods:
                        graph[m].add(base)
            elif isinstance(node, ast.Import):
                graph[m].update(a.name for a in node.names if a.name in mods)
    for m in graph:
        graph[m].discard(m)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_package_has_no_import_circles():
    found = cycles(import_graph())
    assert not found, f"import circles (move the shared piece down a level): {found}"


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
