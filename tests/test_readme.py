"""Every Python block of the README runs, in order, and prints what the README says.

The README's blocks use ``retriever``, ``llm`` and ``index`` as a user would have them; here they are offline
stand-ins (the ``standins`` fixture in conftest.py). The pages under docs/ are run by tests/test_docs.py, whose
docstring says how a comment shows printed values (``print(...)  # hallucinated 1.0``); the README's are checked
the same way.
"""

from pathlib import Path

from tests.conftest import JWST_BAD
from tests.test_docs import run_blocks

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_python_block_runs_and_prints_what_it_says(standins):
    outputs, answers = [], []
    namespace = dict(standins)
    for printed in run_blocks(README, namespace):
        outputs.append(printed)
        answers.append(namespace.get("answer"))
    core, agent, langchain, llamaindex = outputs
    # The core quickstart: the changed year and the wrong rocket are the spans
    assert core[0].split()[0] == "hallucinated" and float(core[0].split()[1]) > 0.9
    assert core[1:] == ["'2019' number not in the context", "'Falcon Heavy' name not in the context"]
    # LangChain: an agent with the middleware; the unsupported sentence is filtered out
    assert agent == ["hallucinated -> Webb's primary mirror is 6.5 metres across."]
    # the docs' LCEL chain; the str is unchanged, the verdict came from the retriever's run
    assert langchain == ["hallucinated ['2019', 'Falcon Heavy']"]
    assert answers[2] == JWST_BAD and isinstance(answers[2], str)  # the str, not a dict
    # LlamaIndex: the verdict is on the response, as a Verdict and as JSON-safe metadata
    assert llamaindex == ["hallucinated hallucinated"]
