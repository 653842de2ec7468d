"""The layout keeps its promises: no import circles, imports only downward between the layers, the analyzer
never imports Whoosh, and no function in the libraries grows past what a reader holds in view."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("notes_store", "context", "server")
MAX_FUNCTION_LINES = 80
MAX_WORKSPACE_LINES = 400


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every module of ours ``path`` imports, anywhere in it (type-checking and late imports included)."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle between modules that are not packages' ``__init__`` re-exports, or None."""
    inits = {m for m in graph if (ROOT / m.replace(".", "/") / "__init__.py").exists()}
    edges = {m: {t for t in ts if t not in inits} for m, ts in graph.items() if m not in inits}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state and (found := visit(t)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_circles_between_modules():
    assert _cycle(_graph()) is None


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize(("lower", "upper"), [("notes_store", "context"), ("notes_store", "server"),
                                               ("context", "server")])
def test_imports_point_down(lower, upper):
    wrong = sorted(f"{m} -> {t}" for m, ts in _graph().items() if m.split(".")[0] == lower
                   for t in ts if t.split(".")[0] == upper)
    assert not wrong


def test_the_analyzer_never_imports_whoosh_nor_the_rest_of_the_store():
    for path in (ROOT / "notes_store" / "analysis").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("whoosh"), path
                assert node.level <= 1, f"{path} imports outside notes_store.analysis"
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("whoosh") for a in node.names), path


def test_no_function_in_the_libraries_is_longer_than_a_screen():
    long = []
    for pkg in ("notes_store", "context"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long


def test_the_workspace_module_stays_an_assembly():
    lines = (ROOT / "notes_store" / "workspace.py").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_WORKSPACE_LINES
