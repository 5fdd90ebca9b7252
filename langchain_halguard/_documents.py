"""Retrieved documents and chat messages as halguard reads them: ``(id, text)`` pairs and LangChain messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage, convert_to_messages

from halguard.errors import InputTypeError

__all__ = ["as_message", "describe", "documents_to_contexts"]


def describe(value: Any) -> str:
    if isinstance(value, Mapping):
        return f"a dict with keys {sorted(map(str, value))}"
    return f"a {type(value).__name__}"


def _doc_id(doc: Document, index: int) -> str:
    meta = doc.metadata or {}
    for ident in (doc.id, meta.get("id"), meta.get("doc_id"), meta.get("source")):
        if ident not in (None, ""):
            return str(ident)
    return str(index)


def documents_to_contexts(docs: Any, key: str) -> list[tuple[str, str]]:
    """Turn retrieved ``Document``s (or strings) into ``(id, text)`` pairs.

    Raises:
        InputTypeError: ``docs`` is not a list of Documents or strings.
    """
    if isinstance(docs, (Document, str)):
        docs = [docs]
    if not isinstance(docs, Sequence):
        msg = f"'{key}' must hold a list of Documents or strings, found {describe(docs)}"
        raise InputTypeError(msg)
    out = []
    for i, doc in enumerate(docs):
        if isinstance(doc, Document):
            out.append((_doc_id(doc, i), doc.page_content))
        elif isinstance(doc, str):
            out.append((str(i), doc))
        else:
            msg = f"'{key}' item {i} is {describe(doc)}; expected a Document or a str"
            raise InputTypeError(msg)
    return out


def as_message(message: Any) -> BaseMessage | None:
    """``message`` as a LangChain message, for any shape a chat model or a graph state takes; None if it is none.

    Dicts, tuples and strings go through LangChain's own ``convert_to_messages`` (a new object: the caller's is
    never touched); what it refuses (a dict with no role, an unknown role) is not a message.
    """
    if isinstance(message, BaseMessage):
        return message
    if not isinstance(message, (str, tuple, Mapping)):
        return None
    try:
        return convert_to_messages([message])[0]
    except Exception:  # noqa: BLE001 - LangChain raises ValueError, KeyError, NotImplementedError for non-messages
        return None
