import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["halguard", "langchain_halguard", "llamaindex_halguard"])
def test_all_names_import(package):
    module = importlib.import_module(package)
    assert len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        obj = getattr(module, name)  # AttributeError names a listed name the package does not define
        if isinstance(obj, str):  # the constants: tags, keys, the version
            assert obj, name
        else:  # classes and functions: the package's own, exported under their own name
            assert obj.__module__.split(".")[0] == package and obj.__name__ == name, name


@pytest.mark.slow  # a fresh interpreter
def test_core_never_imports_the_frameworks():
    code = (
        "import sys, halguard, halguard.tools.cli, halguard.tools.render, halguard.tools.metrics\n"
        "halguard.verify('The sky is blue.', ['The sky is blue.'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('langchain_core', 'langchain', 'llama_index'))\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_errors_subclass_builtins():
    import halguard

    assert issubclass(halguard.InvalidInputError, ValueError)
    assert issubclass(halguard.InputTypeError, TypeError)
    assert issubclass(halguard.ModelLoadError, RuntimeError)
    assert issubclass(halguard.UnverifiedError, halguard.HallucinationError)
    err = halguard.HallucinationError("flagged", verdict=None)
    assert err.verdict is None and str(err) == "flagged"


def _imported_modules(path):
    """Every halguard module a file imports, at any depth (top-level and inside functions)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m.split(".")[0] == "halguard"}


def test_the_audit_engine_and_the_tools_share_the_core_registry_not_each_other():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "halguard"
    audit = {m for f in (root / "audit").glob("*.py") for m in _imported_modules(f)}
    assert not {m for m in audit if m.startswith("halguard.tools")}, audit
    registry = _imported_modules(root / "detectors.py")
    assert not {m for m in registry if m.startswith(("halguard.tools", "halguard.audit"))}, registry
    from halguard.audit.verify import DetectorSpec
    from halguard.detectors import DETECTORS
    from halguard.tools.cli import _parser

    assert DetectorSpec("naive").build().name == "naive-minilm-similarity"
    import argparse

    import pytest

    bench_type = next(a.type for a in _parser()._subparsers._group_actions[0].choices["bench"]._actions
                      if a.dest == "detector")
    assert [bench_type(n) for n in (*DETECTORS, "nli:owner/model")] == [*DETECTORS, "nli:owner/model"]
    with pytest.raises(argparse.ArgumentTypeError, match="unknown detector"):  # the registry's check, not a copy
        bench_type("no-such-detector")
