import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs_and_prints_what_it_says():
    block = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    label, score = lines[0].split()
    assert label == "hallucinated" and float(score) > 0.9
    assert lines[1:] == ["'2019' number not in the context", "'Falcon Heavy' name not in the context"]
