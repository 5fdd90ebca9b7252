"""An agent's tool messages as evidence: what the world said through its tools, never what the model wrote."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from halguard.text.echo import ModelWords
from langchain_halguard._documents import as_message, documents_to_contexts

__all__ = ["tool_contexts"]


def tool_contexts(messages: list[Any], *, keep: Callable[[ToolMessage], bool] | None = None,
                  trusted: Collection[str] = ()) -> list[tuple[str, str]]:
    """``(id, text)`` pairs of the tool messages in an agent's state: the Documents of a tool that returns them as
    its artifact (``response_format="content_and_artifact"``), else the text it gave the model.

    What the model wrote into its tool calls is not evidence: each tool's output is read without the statements it
    repeats from the arguments of the calls made up to it (:mod:`halguard.text.echo`), except for the tools named
    in ``trusted``. ``keep``: which tool messages are evidence (None: all)."""
    out: list[tuple[str, str]] = []
    written = ModelWords()
    for message in messages:
        found = as_message(message)
        if isinstance(found, AIMessage):
            # What the model wrote, in its calls and in its own words (a memory or history tool that returns an
            # earlier answer returns the model's text, not the world's).
            written.add(found.text)
            for call in found.tool_calls:
                written.add(call.get("args"))
            continue
        if isinstance(found, HumanMessage):
            written.add(found.text, assembled=False)  # the user's statements, repeated whole, are no evidence
            continue
        if not isinstance(found, ToolMessage) or (keep is not None and not keep(found)):
            continue
        said = (lambda text: text) if found.name in trusted else written.strip
        artifact = found.artifact
        if isinstance(artifact, Sequence) and artifact and all(isinstance(d, Document) for d in artifact):
            out.extend((key, said(text)) for key, text in documents_to_contexts(artifact, "artifact"))
        else:
            out.append((found.tool_call_id or found.name or str(len(out)), said(found.text)))
    return [(key, text) for key, text in out if text.strip()]
