"""Reading question, answer and documents out of chain inputs/outputs, and writing verdicts back.

Nothing here mutates the caller's objects: dicts are copied, messages are ``model_copy``-ed.

Shapes understood (see docs/langchain.md):

- messages: every shape LangChain takes in a chat model's input or a graph's state: message objects, dicts
  (``{"role": "user" | "assistant" | "system" | "tool", "content": ...}``, or ``"type"`` for ``"role"``),
  ``("user", "...")`` tuples and plain strings (a human message), with a str or a list of content blocks as content;
  a graph state's ``"messages"`` may also hold one such message instead of a list (as ``add_messages`` allows);
- answers: a str, a message, a structured output (pydantic model, dataclass, dict, list: checked as
  ``field: value`` lines), ``output[answer_key]`` holding any of these, or in an agent's ``{"messages": [...]}``
  state its ``structured_response`` (``create_agent(response_format=...)``), else its last AI message;
- documents: ``output[context_key]`` or ``input[context_key]`` holding Documents or strings, or the documents
  the chain's own retriever runs returned (read by the guard from the run, with their ids); for an agent whose
  call ran no retriever, the tool messages of its state (a retriever tool's output, a search tool's text);
- questions: ``input[question_key]``, a str input, ``output[question_key]``, or the last human message of a
  messages input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage, HumanMessage

from halguard.errors import InputTypeError, InvalidInputError
from halguard.guard import GuardRequest
from halguard.schema import METADATA_KEY, Verdict
from halguard.text.structured import is_structured, question_with_fields, render_structured
from langchain_halguard._documents import as_message, describe, documents_to_contexts
from langchain_halguard._tools import tool_contexts

__all__ = [
    "MESSAGES_KEY",
    "STRUCTURED_KEY",
    "Extracted",
    "answer_text",
    "attach_verdict",
    "extract",
    "find_answer",
    "is_structured_answer",
    "message_list",
    "replace_answer",
    "with_last_question",
    "with_verdict",
]

MESSAGES_KEY = "messages"  # the state key of LangGraph agents (create_agent, create_react_agent)
STRUCTURED_KEY = "structured_response"  # where create_agent(response_format=...) puts the structured answer


@dataclass(frozen=True)
class Extracted:
    """What one guarded call is checked on.

    Attributes:
        question: The user's question (None when there is none).
        answer: The text that is checked: the answer, or a structured answer as ``field: value`` lines.
        contexts: ``(id, text)`` pairs of the retrieved documents.
        structured: Whether the answer is a structured output (then ``answer`` is its rendering).
        check_question: The question given to the detector (a structured answer's field names are added).
        documents_from: Where the documents came from: ``"output"``, ``"input"``, ``"retriever"``, ``"tools"`` (an
            agent's tool messages) or ``"none"``.
    """

    question: str | None
    answer: str
    contexts: list[tuple[str, str]]
    structured: bool = False
    check_question: str | None = None
    documents_from: str = "output"

    def request(self, *, request_id: str, source: str) -> GuardRequest:
        """What the guard core checks, recorded under ``request_id`` and ``source``."""
        return GuardRequest(question=self.question, answer=self.answer, contexts=self.contexts,
                            check_question=self.check_question, structured=self.structured, request_id=request_id,
                            source=source)


def _message_text(message: Any) -> str | None:
    """The text of a message in any shape (content blocks joined), or None when it is not a message."""
    converted = as_message(message)
    return converted.text if converted is not None else None


def _is_role(message: Any, role: str) -> bool:
    converted = as_message(message)
    return converted is not None and converted.type == ("ai" if role == "ai" else "human")


def message_list(value: Any) -> list[Any] | None:
    """A graph state's messages as a list: ``add_messages`` also takes one message (a str, a dict, a tuple)."""
    if value is None:
        return None
    return list(value) if isinstance(value, list) else [value]


def _last(messages: Any, role: str) -> int | None:
    """Index of the last message of ``role`` ("ai" or "human") in a list, or None."""
    if not isinstance(messages, Sequence) or isinstance(messages, str):
        return None
    for i in range(len(messages) - 1, -1, -1):
        if _is_role(messages[i], role):
            return i
    return None


def _state_messages(value: Any) -> list[Any] | None:
    """The messages of a graph's state (``{"messages": ...}``), or None."""
    return message_list(value.get(MESSAGES_KEY)) if isinstance(value, Mapping) else None


def _is_agent_state(value: Any) -> bool:
    return isinstance(value, Mapping) and _last(message_list(value.get(MESSAGES_KEY)), "ai") is not None


def _agent_answer(state: Mapping[str, Any]) -> Any:
    """An agent's answer: its structured response when it has one (the last AI message is then a tool call)."""
    if state.get(STRUCTURED_KEY) is not None:
        return state[STRUCTURED_KEY]
    messages = message_list(state[MESSAGES_KEY])
    return messages[_last(messages, "ai")]


def find_answer(output: Any, answer_key: str | None) -> Any:
    """The answer value in a chain's output (not yet text).

    Raises:
        InvalidInputError: a dict output has neither ``answer_key`` nor an agent's messages.
    """
    if answer_key is None or not isinstance(output, Mapping):
        return output
    if answer_key in output:
        return output[answer_key]
    if _is_agent_state(output):
        return _agent_answer(output)
    msg = (
        f"the chain's output has no answer key '{answer_key}': found {describe(output)} (set answer_key=..., or "
        "answer_key=None when the whole output is a structured answer)"
    )
    raise InvalidInputError(msg)


def answer_text(output: Any, answer_key: str | None) -> str:
    """The text of the answer in ``output`` (a structured answer as ``field: value`` lines).

    Raises:
        InvalidInputError: there is no answer where ``answer_key`` says.
        InputTypeError: the answer is neither text, a message nor a structured output.
    """
    return _answer_text(find_answer(output, answer_key), "the answer")[0]


def with_last_question(messages: list[Any], question: str) -> list[Any]:
    """A copy of ``messages`` whose last human message asks ``question`` (appended when there is none)."""
    copy = list(messages)
    i = _last(copy, "human")
    if i is None:
        copy.append(HumanMessage(content=question))
    else:
        copy[i] = HumanMessage(content=question)
    return copy


def is_structured_answer(value: Any) -> bool:
    """A structured output (a pydantic model, dataclass, dict or list), not text or a message."""
    return not isinstance(value, str) and _message_text(value) is None and is_structured(value)


def _answer_text(value: Any, where: str) -> tuple[str, bool]:
    """The text to check and whether it is a structured answer written as ``field: value`` lines."""
    if isinstance(value, str):
        return value, False
    text = _message_text(value)
    if text is not None:
        return text, False
    if is_structured(value):
        return render_structured(value), True
    msg = f"{where} must be a str, a message or a structured output, found {describe(value)}"
    raise InputTypeError(msg)


def _is_documents(value: Any) -> bool:
    return isinstance(value, Document) or (
        isinstance(value, Sequence) and not isinstance(value, str) and any(isinstance(d, Document) for d in value)
    )


def _documents(
    chain_input: Any, chain_output: Any, context_key: str, retrieved: list[Document] | None
) -> tuple[list[tuple[str, str]], str]:
    """The retrieved documents and where they came from (see :class:`Extracted`)."""
    keyed, where = None, "none"
    for name, holder in (("output", chain_output), ("input", chain_input)):
        if isinstance(holder, Mapping) and context_key in holder:
            if _is_documents(holder[context_key]):
                return documents_to_contexts(holder[context_key], context_key), name
            if keyed is None:
                keyed, where = holder[context_key], name
    # Documents from the chain's retriever runs keep their ids; a formatted string ("retriever | format_docs")
    # under the key is the same text with the ids gone.
    if retrieved is not None and (keyed is None or isinstance(keyed, str)):
        return documents_to_contexts(retrieved, "documents"), "retriever"
    if keyed is not None:
        return documents_to_contexts(keyed, context_key), where
    if _is_agent_state(chain_output):
        # No retriever ran in this call: the agent answered from what its tools returned (a search tool that is
        # not a LangChain retriever, or a retrieval of an earlier turn kept in the thread's state). None: it
        # answered without any, which is unverified (no_context), not an error.
        tools = tool_contexts(message_list(chain_output[MESSAGES_KEY]))
        return tools, ("tools" if tools else "none")
    msg = (
        f"no retrieved documents: no retriever ran inside the chain and there is nothing under '{context_key}' "
        f"(the chain's output is {describe(chain_output)} and its input is {describe(chain_input)})"
    )
    raise InvalidInputError(msg)


def _question(chain_input: Any, chain_output: Any, question_key: str) -> str | None:
    if isinstance(chain_input, Mapping) and question_key in chain_input:
        question = chain_input[question_key]
    elif isinstance(chain_input, str):
        question = chain_input
    elif isinstance(chain_output, Mapping) and question_key in chain_output:
        question = chain_output[question_key]
    elif isinstance(chain_input, Mapping) and _last(message_list(chain_input.get(MESSAGES_KEY)), "human") is not None:
        messages = message_list(chain_input[MESSAGES_KEY])
        question = messages[_last(messages, "human")]
    elif isinstance(chain_input, Mapping):
        msg = f"the chain's input has no question key '{question_key}': found {describe(chain_input)}"
        raise InvalidInputError(msg)
    elif _last(chain_input, "human") is not None:  # a list of messages, as a chat model takes
        question = chain_input[_last(chain_input, "human")]
    elif _last(_state_messages(chain_output), "human") is not None:
        # A graph resumed with Command(resume=...): the question is the thread's last user message.
        messages = _state_messages(chain_output)
        question = messages[_last(messages, "human")]
    else:
        question = None
    if isinstance(question, Sequence) and not isinstance(question, (str, tuple)) and _last(question, "human") is not None:
        question = question[_last(question, "human")]  # the messages under an input key
    text = _message_text(question)
    question = text if text is not None else question
    if question is not None and not isinstance(question, str):
        msg = f"the question under '{question_key}' must be a str, found {describe(question)}"
        raise InputTypeError(msg)
    return question


def extract(
    chain_input: Any,
    chain_output: Any,
    *,
    question_key: str,
    context_key: str,
    answer_key: str | None,
    retrieved: list[Document] | None = None,
) -> Extracted:
    """Find the question, the answer and the retrieved documents.

    Args:
        chain_input: What the chain was called with.
        chain_output: What it returned.
        question_key: Where the question is in a dict input (or output).
        context_key: Where the documents are in the output (or input).
        answer_key: Where the answer is in a dict output; None: the whole output is the answer.
        retrieved: The documents the chain's retriever runs returned, or None when no retriever ran.

    Raises:
        InvalidInputError: a key is missing (the message names the key and what was found).
        InputTypeError: the answer or the documents have the wrong type.
    """
    where = f"output['{answer_key}']" if answer_key and isinstance(chain_output, Mapping) else "the chain's output"
    answer, structured = _answer_text(find_answer(chain_output, answer_key), where)
    contexts, documents_from = _documents(chain_input, chain_output, context_key, retrieved)
    question = _question(chain_input, chain_output, question_key)
    check_question = question
    if structured:
        check_question = question_with_fields(question, find_answer(chain_output, answer_key)) or None
    return Extracted(question, answer, contexts, structured, check_question, documents_from)


def with_verdict(message: BaseMessage, verdict: Verdict, replacement: str | None) -> BaseMessage:
    """A copy of ``message`` with the verdict in its ``response_metadata`` and ``replacement`` (if any) as content."""
    update: dict[str, Any] = {
        "response_metadata": {**(message.response_metadata or {}), METADATA_KEY: verdict.to_metadata()}
    }
    if replacement is not None:
        update["content"] = replacement
    return message.model_copy(update=update)


def _as_like(old: Any, new: Any, verdict: Verdict | None) -> Any:
    """``new`` (a str, a message, a structured value) in the place and type of ``old``, the verdict on messages."""
    if isinstance(old, BaseMessage):
        text = new if isinstance(new, str) else (_message_text(new) if _message_text(new) is not None else None)
        if isinstance(new, BaseMessage) and verdict is not None:
            return with_verdict(new, verdict, None)
        if text is None:
            return new
        return with_verdict(old, verdict, text) if verdict is not None else old.model_copy(update={"content": text})
    if isinstance(old, str):
        text = _message_text(new)
        return text if text is not None else new
    return new


def _in_shape(message: Any, text: str) -> Any:
    """``text`` as a message of the same shape as ``message`` (a dict, a tuple or a str in a messages list)."""
    if isinstance(message, Mapping):
        return {**message, "content": text}
    if isinstance(message, tuple):
        return (message[0], text)
    return text


def replace_answer(output: Any, answer_key: str | None, new: Any, verdict: Verdict | None = None) -> Any:
    """A copy of ``output`` with its answer replaced by ``new`` (same place, same type where it can be)."""
    if answer_key is None or not isinstance(output, Mapping):
        return _as_like(output, new, verdict)
    copy = dict(output)
    if answer_key in copy:
        copy[answer_key] = _as_like(copy[answer_key], new, verdict)
    elif _is_agent_state(copy) and copy.get(STRUCTURED_KEY) is not None:
        copy[STRUCTURED_KEY] = new  # a fallback runnable's structured answer (the policy refused any other type)
    elif _is_agent_state(copy):
        messages = message_list(copy[MESSAGES_KEY])
        i = _last(messages, "ai")
        if isinstance(messages[i], BaseMessage):
            messages[i] = _as_like(messages[i], new, verdict)
        else:
            text = _message_text(new)
            messages[i] = _in_shape(messages[i], text if text is not None else str(new))
        copy[MESSAGES_KEY] = messages
    return copy


def attach_verdict(
    output: Any,
    verdict: Verdict,
    *,
    answer_key: str | None,
    output_key: str,
    replacement: str | None = None,
) -> Any:
    """Return ``output`` with the verdict attached (and the answer replaced, when ``replacement`` is set).

    - a message: ``response_metadata["halguard"]`` (a new message via ``model_copy``);
    - a dict: a new dict with ``output[output_key] = verdict``; a message answer (under ``answer_key``, or an
      agent's last AI message) also gets the metadata;
    - a str or a structured output: returned as it is (or the replacement); the verdict reaches the caller
      through the ``halguard_verdict`` event, ``on_verdict`` and the ``halguard_verify`` run.
    """
    if isinstance(output, BaseMessage):
        return with_verdict(output, verdict, replacement)
    if isinstance(output, Mapping) and answer_key is not None:
        new = dict(output)
        if answer_key in new and isinstance(new[answer_key], BaseMessage):
            new[answer_key] = with_verdict(new[answer_key], verdict, replacement)
        elif answer_key in new and replacement is not None:
            new[answer_key] = replacement
        elif answer_key not in new and _is_agent_state(new) and new.get(STRUCTURED_KEY) is None:
            # A structured response is never replaced (the policy refuses), and its verdict is not the tool call's.
            messages = message_list(new[MESSAGES_KEY])
            i = _last(messages, "ai")
            if isinstance(messages[i], BaseMessage):
                messages[i] = with_verdict(messages[i], verdict, replacement)
            elif replacement is not None:
                messages[i] = _in_shape(messages[i], replacement)
            new[MESSAGES_KEY] = messages
        new[output_key] = verdict
        return new
    return replacement if replacement is not None else output

