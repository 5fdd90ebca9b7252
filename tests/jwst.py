"""The JWST documents and answers the agent, graph-node and sentence-streaming tests share, and a scripted chat
model an agent can bind its tools to."""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.language_models import FakeMessagesListChatModel

DOCS = [
    Document(id="launch", page_content="JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."),
    Document(id="mirror", page_content="Webb's primary mirror is 6.5 metres across and made of 18 hexagonal segments."),
]
CONTEXTS = [(d.id, d.page_content) for d in DOCS]
GOOD = "JWST was launched on 25 December 2021 on an Ariane 5 rocket."
BAD = "JWST was launched on 25 December 2019 on a Falcon Heavy rocket."
KEPT = "Webb's primary mirror is 6.5 metres across."
MIXED = f"{BAD} {KEPT}"


class ToolCallingFake(FakeMessagesListChatModel):
    """A scripted chat model an agent can bind tools to (its replies are the script, tools or not)."""

    def bind_tools(self, tools, **kwargs):
        return self


def search_tool():
    """A retriever tool over DOCS, as an agent's search (``search_jwst``)."""
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.tools import create_retriever_tool
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(DOCS)
    return create_retriever_tool(store.as_retriever(search_kwargs={"k": 2}), "search_jwst", "Search JWST docs.")
