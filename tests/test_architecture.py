"""The library's layout (issues 22 and 40): no import cycle between any two of ``qwem_lib``'s modules, and the
layer contracts of ``pyproject.toml`` fail on an upward or sideways import.

The layers and independence contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and are checked by
``make lint``. The cycle test adds what the contracts do not say for modules they leave unordered (inside a
package, or a sibling joined with ``:``): no two modules import each other, directly or through others, at module
level or inside a function. The planted-import tests show the contracts can fail: import-linter is run on a copy
of the package with one forbidden import added.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]


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


def _lint_copy(tmp: Path, plant: tuple[str, str] | None = None) -> subprocess.CompletedProcess:
    """``lint-imports`` on a copy of ``qwem_lib`` and ``pyproject.toml`` in ``tmp``, with ``import <target>``
    appended to the module file ``plant[0]`` (a path under ``qwem_lib/``) when ``plant`` is given."""
    shutil.copytree(
        ROOT / "qwem_lib", tmp / "qwem_lib", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    if plant is not None:
        path = tmp / plant[0]
        path.write_text(path.read_text() + f"\nimport {plant[1]}  # planted\n")
    run = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run(
        [sys.executable, "-c", run, "--no-cache", "--no-logo", "pyproject.toml"],
        cwd=tmp,
        env={**os.environ, "PYTHONPATH": str(tmp)},  # the copy, not the installed package
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_layer_contracts_hold_on_an_unchanged_copy(tmp_path):
    out = _lint_copy(tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


@pytest.mark.parametrize(
    "module, target, contract",
    [
        # QWEM's layers are ordered: a lower concept does not use a higher one (the review's planted import)
        ("qwem_lib/qwem/theory.py", "qwem_lib.qwem.runs", "Inside QWEM's room"),
        # Part V sits above QWEM: QWEM's modules do not use it
        ("qwem_lib/qwem/trainers.py", "qwem_lib.beyond.untied", "Rooms: Part V above"),
        # siblings joined with `|` are independent
        ("qwem_lib/qwem/spectral.py", "qwem_lib.qwem.w2v", "Inside QWEM's room"),
        ("qwem_lib/beyond/symmetry.py", "qwem_lib.beyond.contrastive", "Inside Part V's room"),
        # QWEM and Feature Collapse are independent rooms
        ("qwem_lib/qwem/measures.py", "qwem_lib.fc.collapse", "Rooms: Part V above"),
        ("qwem_lib/fc/training.py", "qwem_lib.qwem.trainers", "Rooms: Part V above"),
        # Part V does not use Feature Collapse
        ("qwem_lib/beyond/untied.py", "qwem_lib.fc.theory", "Part V does not use Feature Collapse"),
        # the shared maths is below both QWEM and Feature Collapse
        ("qwem_lib/maths/linalg.py", "qwem_lib.qwem.theory", "Rooms: Part V above"),
        ("qwem_lib/maths/stats.py", "qwem_lib.fc.collapse", "Rooms: Part V above"),
    ],
)
def test_a_planted_upward_or_sideways_import_breaks_the_layer_contract(
    tmp_path, module, target, contract
):
    out = _lint_copy(tmp_path, (module, target))
    importer = module.removesuffix(".py").replace("/", ".")
    assert out.returncode == 1, out.stdout + out.stderr
    broken = out.stdout.split("Broken contracts", 1)[
        1
    ]  # the contracts' names and their offending chains
    assert contract in broken, broken
    assert f"{importer} -> {target} (l." in broken.split(contract, 1)[1], broken


# -- no function too long to read (issue 40) ---------------------------------------------------------
MAX_FUNCTION_LINES = 120
"""The most lines of code (its docstring not counted) a function of the library may have."""


def _long_functions(source: str, limit: int) -> list[tuple[str, int]]:
    import ast

    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0]
            doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            start = first.end_lineno + 1 if doc and len(node.body) > 1 else first.lineno
            lines = node.end_lineno - start + 1
            if lines > limit:
                out.append((node.name, lines))
    return out


def test_no_library_function_is_longer_than_the_limit():
    long = {
        str(p.relative_to(ROOT)): found
        for p in sorted((ROOT / "qwem_lib").rglob("*.py"))
        if (found := _long_functions(p.read_text(encoding="utf-8"), MAX_FUNCTION_LINES))
    }
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines of code: {long}; split them"


def test_the_length_check_counts_code_not_the_docstring():
    body = "\n".join(f"    x{i} = {i}" for i in range(5))
    doc = '    """' + "\n".join(["doc"] * 50) + '"""\n'
    assert _long_functions(f"def f():\n{doc}{body}\n", 5) == []
    assert _long_functions(f"def f():\n{doc}{body}\n    y = 1\n", 5) == [("f", 6)]
    assert _long_functions(f"async def g():\n{body}\n", 4) == [("g", 5)]
