"""Reading question, answer and documents out of chain inputs/outputs, and writing verdicts back.

Nothing here mutates the caller's objects: dicts are copied, messages are ``model_copy``-ed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage

from halguard.errors import InputTypeError, InvalidInputError
from halguard.schema import METADATA_KEY, Verdict

__all__ = ["Extracted", "attach_verdict", "documents_to_contexts", "extract"]


@dataclass(frozen=True)
class Extracted:
    question: str | None
    answer: str
    contexts: list[tuple[str, str]]


def _describe(value: Any) -> str:
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
        msg = f"'{key}' must hold a list of Documents or strings, found {_describe(docs)}"
        raise InputTypeError(msg)
    out = []
    for i, doc in enumerate(docs):
        if isinstance(doc, Document):
            out.append((_doc_id(doc, i), doc.page_content))
        elif isinstance(doc, str):
            out.append((str(i), doc))
        else:
            msg = f"'{key}' item {i} is {_describe(doc)}; expected a Document or a str"
            raise InputTypeError(msg)
    return out


def _answer_text(value: Any, where: str) -> str:
    if isinstance(value, BaseMessage):
        return value.text
    if isinstance(value, str):
        return value
    msg = f"{where} must be a str or a message, found {_describe(value)}"
    raise InputTypeError(msg)


def extract(
    chain_input: Any,
    chain_output: Any,
    *,
    question_key: str,
    context_key: str,
    answer_key: str,
) -> Extracted:
    """Find the question, the answer and the retrieved documents.

    The answer is the output itself (a str or a message) or ``output[answer_key]``. Documents come from
    ``output[context_key]``, else ``input[context_key]``. The question is ``input[question_key]``, the
    input itself when it is a str, or ``output[question_key]``.

    Raises:
        InvalidInputError: a key is missing (the message names the key and what was found).
        InputTypeError: the answer or the documents have the wrong type.
    """
    if isinstance(chain_output, Mapping):
        if answer_key not in chain_output:
            msg = f"the chain's output has no answer key '{answer_key}': found {_describe(chain_output)}"
            raise InvalidInputError(msg)
        answer = _answer_text(chain_output[answer_key], f"output['{answer_key}']")
    else:
        answer = _answer_text(chain_output, "the chain's output")

    if isinstance(chain_output, Mapping) and context_key in chain_output:
        docs = chain_output[context_key]
    elif isinstance(chain_input, Mapping) and context_key in chain_input:
        docs = chain_input[context_key]
    else:
        msg = (
            f"no retrieved documents under '{context_key}': the chain's output is {_describe(chain_output)} "
            f"and its input is {_describe(chain_input)}"
        )
        raise InvalidInputError(msg)
    contexts = documents_to_contexts(docs, context_key)

    if isinstance(chain_input, Mapping) and question_key in chain_input:
        question = chain_input[question_key]
    elif isinstance(chain_input, str):
        question = chain_input
    elif isinstance(chain_output, Mapping) and question_key in chain_output:
        question = chain_output[question_key]
    elif isinstance(chain_input, Mapping):
        msg = f"the chain's input has no question key '{question_key}': found {_describe(chain_input)}"
        raise InvalidInputError(msg)
    else:
        question = None
    if isinstance(question, BaseMessage):
        question = question.text
    if question is not None and not isinstance(question, str):
        msg = f"the question under '{question_key}' must be a str, found {_describe(question)}"
        raise InputTypeError(msg)
    return Extracted(question=question, answer=answer, contexts=contexts)


def _with_metadata(message: BaseMessage, verdict: Verdict, replacement: str | None) -> BaseMessage:
    update: dict[str, Any] = {
        "response_metadata": {**(message.response_metadata or {}), METADATA_KEY: verdict.to_metadata()}
    }
    if replacement is not None:
        update["content"] = replacement
    return message.model_copy(update=update)


def attach_verdict(
    output: Any,
    verdict: Verdict,
    *,
    answer_key: str,
    output_key: str,
    replacement: str | None = None,
) -> Any:
    """Return ``output`` with the verdict attached (and the answer replaced, when ``replacement`` is set).

    - a message: ``response_metadata["halguard"]`` (a new message via ``model_copy``);
    - a dict: a new dict with ``output[output_key] = verdict``; a message under ``answer_key`` also gets
      the metadata;
    - a str: the str (or the replacement); the verdict reaches the caller through the ``halguard_verdict``
      event and the ``halguard_verify`` run.
    """
    if isinstance(output, BaseMessage):
        return _with_metadata(output, verdict, replacement)
    if isinstance(output, Mapping):
        new = dict(output)
        answer = new.get(answer_key)
        if isinstance(answer, BaseMessage):
            new[answer_key] = _with_metadata(answer, verdict, replacement)
        elif replacement is not None:
            new[answer_key] = replacement
        new[output_key] = verdict
        return new
    return replacement if replacement is not None else output
