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
