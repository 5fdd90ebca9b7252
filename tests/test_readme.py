"""Every Python block of the README runs, in order, and prints what the README says.

The README's blocks use ``retriever``, ``llm``, ``index``, ``chat_llm``, ``json_llm`` and an OpenAI client as a
user would have them; here they are offline stand-ins (the ``standins`` fixture in conftest.py) and the OpenAI SDK
pointed at the loopback stub server.
"""

import contextlib
import io
import json
from pathlib import Path

from tests.conftest import python_blocks
from tests.stub_llm_server import StubLLMServer, completion

README = Path(__file__).resolve().parents[1] / "README.md"

BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."


def test_every_python_block_runs_and_prints_what_it_says(standins, monkeypatch):
    blocks = python_blocks(README)
    outputs, answers = [], []
    namespace = dict(standins)
    with StubLLMServer() as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.url + "/v1")
        paraphrases = ["Which colour was Napoleon's horse?", "Napoleon's horse was what colour?",
                       "What was the colour of Napoleon's horse?"]
        stub.script.append((200, {}, completion(json.dumps({"paraphrases": paraphrases}))))
        stub.script.append((200, {}, completion(json.dumps({
            "hallucination_detected": True, "confidence_score": 0.9, "conflicting_facts": [{"fact": "colour"}],
            "reasoning": "grey vs white", "summary": "conflict"}))))
        for block in blocks:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block, "README.md", "exec"), namespace)
            outputs.append(out.getvalue().splitlines())
            answers.append(namespace.get("answer"))
    lcel, chat, structured, history, quick, langchain, llamaindex, pas2 = outputs
    # The Python quickstart
    assert quick[0].split()[0] == "hallucinated" and float(quick[0].split()[1]) > 0.9
    assert quick[1:] == ["'2019' number not in the context", "'Falcon Heavy' name not in the context"]
    # 1. the docs' LCEL chain: the str is unchanged, the verdict came from the retriever's run
    assert lcel == ["hallucinated ['2019', 'Falcon Heavy']"]
    assert answers[0] == BAD and type(answers[0]) is not dict
    # 2. a chat engine with "filter": the unsupported sentence is gone, from the answer and the memory
    assert chat == ["hallucinated -> Webb's primary mirror is 6.5 metres across.", "True"]
    # 3. structured output keeps its type
    assert structured[0] == "PydanticResponse date='25 December 2019' rocket='Falcon Heavy'"
    assert structured[1] == "hallucinated ['date: 25 December 2019', 'rocket: Falcon Heavy']"
    # 4. history: three answers judged, and the session holds one turn
    assert history == ["hallucinated 3 2"]
    assert langchain == ["hallucinated When did JWST launch?", "{'answer': \"I can't answer that reliably.\"}"]
    assert llamaindex == ["hallucinated"]
    assert pas2[0].startswith("inconsistent [{'fact': 'colour'}]")
