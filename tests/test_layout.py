"""The code's shape: small modules and functions, and no import circles between modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("halguard", "langchain_halguard", "llamaindex_halguard")
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 70


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def test_every_module_is_short():
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, long


def test_every_function_is_short():
    long = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if node.end_lineno - start + 1 > MAX_FUNCTION_LINES:
                    long[f"{name}.{node.name}"] = node.end_lineno - start + 1
    assert not long, long


def _imported(name: str, path: Path) -> set[str]:
    """The project modules ``name`` imports anywhere (lazy imports too), with the sub-packages on the way."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            if target not in MODULES or target == name:
                continue
            out.add(target)
            parts = target.split(".")
            for i in range(2, len(parts)):  # importing a.b.c runs a.b's __init__ (the top package's runs first)
                parent = ".".join(parts[:i])
                if parent in MODULES and not name.startswith(parent + "."):
                    out.add(parent)
    return out


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_no_import_circles():
    edges = {name: _imported(name, path) for name, path in MODULES.items()}
    assert not _circles(edges)


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_circle_finder_finds_circles(edges, expected):
    assert _circles(edges) == expected
