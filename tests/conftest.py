import json
import os
import re
from pathlib import Path

import pytest

from halguard import LocalVerifier


def pytest_configure(config):
    # The suite proves the model loads from the wheel's path: the hub must never be needed.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # No network in tests: never let a developer's LangSmith settings switch tracing on.
    for var in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
        os.environ[var] = "false"


@pytest.fixture(scope="session")
def verifier() -> LocalVerifier:
    v = LocalVerifier()
    v.warm_up()
    return v


@pytest.fixture
def eiffel_context() -> list[tuple[str, str]]:
    return [
        ("tower", "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair in Paris."),
        ("design", "The tower was designed and built by the engineering company of Gustave Eiffel."),
        ("visits", "About 6 million people visit the Eiffel Tower every year, making it a popular monument."),
    ]


# -- stand-ins for the README's and docs' code blocks ---------------------------------------------------

JWST = [
    ("launch", "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."),
    ("mirror", "Webb's primary mirror is 6.5 metres across and made of 18 hexagonal segments."),
]
JWST_BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."


def python_blocks(path: Path) -> list[str]:
    """The ```python blocks of a Markdown file, in order."""
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


@pytest.fixture(scope="module")
def standins():
    from langchain_core.documents import Document
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.vectorstores import InMemoryVectorStore
    from llama_index.core import Document as LIDocument
    from llama_index.core import Settings, VectorStoreIndex

    from langchain_halguard import HalguardEmbeddings
    from llamaindex_halguard import HalguardEmbedding
    from tests.test_llamaindex_real_apps import Routed

    import itertools

    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from tests.jwst import ToolCallingFake

    search_call = AIMessage(content="", tool_calls=[{"name": "search_docs", "args": {"query": "JWST launch"},
                                                       "id": "call-1"}])
    mixed = f"{JWST_BAD} Webb's primary mirror is 6.5 metres across."
    store = InMemoryVectorStore(HalguardEmbeddings())
    store.add_documents([Document(id=i, page_content=t) for i, t in JWST])
    Settings.llm = Routed(default=JWST_BAD, prompts=[])
    index = VectorStoreIndex.from_documents([LIDocument(text=t, id_=i) for i, t in JWST],
                                            embed_model=HalguardEmbedding())
    answer = f"{JWST_BAD} Webb's primary mirror is 6.5 metres across."
    return {
        "retriever": store.as_retriever(search_kwargs={"k": 2}),
        "llm": FakeListChatModel(responses=[JWST_BAD]),
        # an agent's model: it searches, then answers (every agent run in the docs is these two calls)
        "model": ToolCallingFake(responses=[search_call, AIMessage(content=mixed)]),
        "streaming_llm": GenericFakeChatModel(messages=itertools.repeat(AIMessage(content=mixed))),
        "index": index,
        "chat_llm": Routed(rules=[("standalone question", "When did JWST launch?")], default=answer, prompts=[]),
        "json_llm": Routed(default=json.dumps({"date": "25 December 2019", "rocket": "Falcon Heavy"}), prompts=[]),
        "my_rag_answer": lambda q: "Napoleon's horse was white.",
        "first_answer": "Napoleon's horse was grey.",
    }




@pytest.fixture
def root_handler():
    """Adds LlamaIndex event handlers to the root dispatcher for one test: ``root_handler(handler)``; removed after."""
    from llama_index.core.instrumentation import get_dispatcher

    added = []

    def add(handler):
        get_dispatcher().add_event_handler(handler)
        added.append(handler)
        return handler

    yield add
    for h in added:
        get_dispatcher().event_handlers.remove(h)


# -- tiny Hugging Face models (tests/tiny_models.py), built once per session --------------------------------------

@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    """Folders of tiny random models, loaded by path through the real loading code: ``nli-<family>`` (entailment,
    contradiction, neutral) and ``spans-<family>`` (token classification, LABEL_0/LABEL_1) for each family."""
    from tests import tiny_models as tm

    root = tmp_path_factory.mktemp("tiny-models")
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    out = {}
    for family in tm.FAMILIES:
        out[f"nli-{family}"] = tm.save(family, "sequence", root / f"nli-{family}", id2label=labels,
                                       label2id={v: k for k, v in labels.items()})
        out[f"spans-{family}"] = tm.save(family, "token", root / f"spans-{family}")
    return out
