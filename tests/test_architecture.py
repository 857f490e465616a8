"""The library's layout (issue 22): no import cycle between any two of ``qwem_lib``'s modules.

The layers and independence contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and are checked by
``make lint``; this test adds what a layers contract cannot say: inside a layer, no two modules import each
other, directly or through others, at module level or inside a function.
"""

from __future__ import annotations

import grimp
import pytest


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v) & modules:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(modules):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("qwem_lib", cache_dir=None)  # no .grimp_cache in the working tree


def test_no_import_cycle_between_modules(graph):
    # packages' __init__ re-export their children by design; the cycles that matter are between modules
    modules = {m for m in graph.modules if not graph.find_children(m)}
    assert _cycles(graph, modules) == []


def test_the_cycle_finder_finds_a_planted_cycle():
    g = grimp.ImportGraph()
    for m in ("p", "p.a", "p.b", "p.c"):
        g.add_module(m)
    g.add_import(importer="p.a", imported="p.b")
    g.add_import(importer="p.b", imported="p.c")
    g.add_import(importer="p.c", imported="p.a")
    assert _cycles(g, {"p.a", "p.b", "p.c"}) == [["p.a", "p.b", "p.c"]]
