"""The documents a guarded run retrieved, read from its retriever child runs.

The LangChain docs' RAG chain (``{"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt
| llm | StrOutputParser()``) returns a bare str: the documents exist only inside the run. The guard gives each
call a fresh :class:`RetrievedDocuments` handler in the inner run's callbacks, so every retriever run below the
guard reports its documents here, with their ids, whatever shape the chain has (LCEL, ``create_retrieval_chain``,
an agent calling a retriever tool).
"""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document

__all__ = ["RetrievedDocuments"]


class RetrievedDocuments(BaseCallbackHandler):
    """Collects the documents of the outermost retriever runs of one call (one instance per call).

    A retriever inside another retriever (a compression or ensemble retriever around a base one) is not
    counted: the outer retriever's documents are what the chain went on with.
    """

    run_inline = True  # keep retrieval order, and no executor hop for a few dict writes

    def __init__(self) -> None:
        self._parents: dict[UUID, UUID | None] = {}
        self._retrievers: set[UUID] = set()
        self._found: list[tuple[UUID, list[Document]]] = []
        self._lock = threading.Lock()

    def _started(self, run_id: UUID, parent_run_id: UUID | None) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        self._started(run_id, parent_run_id)

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: UUID, parent_run_id: UUID | None = None,
                      **kwargs: Any) -> None:
        self._started(run_id, parent_run_id)

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                     **kwargs: Any) -> None:
        self._started(run_id, parent_run_id)

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                            parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        self._started(run_id, parent_run_id)

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID, parent_run_id: UUID | None = None,
                           **kwargs: Any) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id
            self._retrievers.add(run_id)

    def on_retriever_end(self, documents: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                         **kwargs: Any) -> None:
        docs = [d for d in documents or [] if isinstance(d, Document)]
        with self._lock:
            self._found.append((run_id, docs))

    def _nested(self, run_id: UUID) -> bool:
        parent, seen = self._parents.get(run_id), 0
        while parent is not None and seen < 10_000:  # bounded even if a parent map were cyclic
            if parent in self._retrievers:
                return True
            parent, seen = self._parents.get(parent), seen + 1
        return False

    @property
    def ran(self) -> bool:
        """Whether any retriever ran (even one that found nothing)."""
        with self._lock:
            return bool(self._found)

    def documents(self) -> list[Document]:
        """The outermost retriever runs' documents in retrieval order, each (id, text) once."""
        with self._lock:
            found = [(run_id, docs) for run_id, docs in self._found if not self._nested(run_id)]
        out, seen = [], set()
        for _, docs in found:
            for doc in docs:
                key = (doc.id, doc.page_content, repr(sorted((doc.metadata or {}).items(), key=str)))
                if key not in seen:
                    seen.add(key)
                    out.append(doc)
        return out
