"""The module map of the packages: files, lines, and the longest functions.

Used for ``docs/architecture.md`` (before/after of the layout change). Pure standard library::

    python benchmarks/module_map.py [ROOT] [--top 10]
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

PACKAGES = ("halguard", "langchain_halguard", "llamaindex_halguard")


def functions(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """(lines, qualified name) of every function and method in a parsed module."""
    found: list[tuple[int, str]] = []
    stack: list[tuple[ast.AST, str]] = [(tree, module)]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}.{child.name}"
                found.append((child.end_lineno - child.lineno + 1, name))
                stack.append((child, name))
            elif isinstance(child, ast.ClassDef):
                stack.append((child, f"{prefix}.{child.name}"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--top", type=int, default=10, help="how many of the longest functions to list")
    args = parser.parse_args()
    root = Path(args.root)
    longest: list[tuple[int, str]] = []
    print("| package | modules | lines | largest module (lines) |")
    print("|---|---|---|---|")
    for package in PACKAGES:
        files = sorted((root / package).rglob("*.py"))
        sizes = []
        for path in files:
            text = path.read_text(encoding="utf-8")
            module = str(path.relative_to(root).with_suffix("")).replace("/", ".")
            sizes.append((len(text.splitlines()), module))
            longest.extend(functions(ast.parse(text), module))
        biggest = max(sizes)
        print(f"| `{package}` | {len(files)} | {sum(n for n, _ in sizes)} | `{biggest[1]}` ({biggest[0]}) |")
    print()
    print(f"Longest functions (top {args.top}):")
    print()
    for lines, name in sorted(longest, reverse=True)[: args.top]:
        print(f"- `{name}`: {lines} lines")


if __name__ == "__main__":
    main()
