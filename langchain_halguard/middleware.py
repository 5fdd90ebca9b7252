"""HalguardMiddleware: check an agent's answers from inside ``create_agent``, against what its tools returned.

LangChain v1's way to add a guardrail to an agent is middleware. This one runs after each model call
(``after_model``): a final answer (an AI message without tool calls, or a structured response) is checked against
the documents the agent's tools returned in its thread; with ``check_intermediate=True`` so is the text an AI
message says before it calls tools. The guard core (:mod:`halguard.guard`) decides, and the middleware writes what
it decided into the agent's state:

- the verdict in the answer's ``response_metadata["halguard"]`` and in the state under ``"halguard"`` (a dict,
  ``Verdict.to_metadata()``: what a checkpointer keeps and a conditional edge reads);
- for ``filter``, ``fallback`` and ``repair``, the checked text in the answer message's place (same id, so the
  thread keeps what the user was shown);
- for ``end``, the fallback message in place of a flagged answer and the run ended (``jump_to="end"``), so an
  agent stops instead of acting on a flagged intermediate answer;
- for ``raise``, :class:`~halguard.errors.HallucinationError` out of the agent's ``invoke`` or ``stream``.

A tool with ``return_direct=True`` ends the agent with its output as the answer: that output is checked the same
way, inside the tools node (``wrap_tool_call``), so what the user sees or streams of it is what the policy let
through. A structured response is never retyped: ``filter``, ``fallback``, ``repair`` and ``end`` raise for it
instead.

Evidence is what the world said: a tool's output is read without the statements it repeats from the model's own
tool-call arguments (:mod:`halguard.text.echo`), so an agent cannot launder a fabrication through a tool that
returns what it was given.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from langchain.agents.middleware import AgentMiddleware, AgentState, hook_config
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.types import Command
from typing_extensions import NotRequired

from halguard.detector import Detector
from halguard.errors import InvalidInputError
from halguard.guard import GuardCore, GuardHooks, GuardOutcome, GuardRequest
from halguard.guard.sentences import SentenceGate
from halguard.policy import DEFAULT_FALLBACK, validate_policy
from halguard.schema import METADATA_KEY, Verdict
from halguard.text.structured import is_structured, question_with_fields, render_structured
from langchain_halguard._agent_sentences import (
    acall_model_checked,
    astream_model_by_sentence,
    call_model_checked,
    stream_model_by_sentence,
)
from langchain_halguard._call import VERDICT_EVENT, VERIFY_RUN_NAME
from langchain_halguard._convert import with_verdict
from langchain_halguard._tools import tool_contexts

__all__ = ["HalguardMiddleware", "HalguardState"]

SOURCE = "langchain:HalguardMiddleware"


class HalguardState(AgentState):
    """The agent's state with the latest verdict (``Verdict.to_metadata()``; :func:`halguard.get_verdict` reads it)."""

    halguard: NotRequired[dict[str, Any] | None]


def _config() -> RunnableConfig | None:
    """The config of the node the hook runs in (None outside a graph run)."""
    try:
        from langgraph.config import get_config

        return get_config()
    except RuntimeError:
        return None


class HalguardMiddleware(AgentMiddleware):
    """Check an agent's answers against what its tools returned, and apply a policy (sync and async).

    Example:
        .. code-block:: python

            from langchain.agents import create_agent
            from langchain_halguard import HalguardMiddleware

            agent = create_agent(model, tools=[search], middleware=[HalguardMiddleware(on_hallucination="filter")])
            state = agent.invoke({"messages": [{"role": "user", "content": "When did JWST launch?"}]})
            state["halguard"]["label"]  # "supported", "hallucinated" or "unverified"

    Args:
        detector: A halguard Detector or a detector name ("nli:<model>"; default: the shared LocalVerifier).
        on_hallucination: ``"annotate" | "raise" | "fallback" | "filter" | "repair" | "end"``.
        on_unverified: ``"fail_open" | "fail_closed"``: whether an answer that could not be checked passes.
        fallback: The message that replaces a rejected answer (default: halguard's).
        repairer: With ``"repair"``: the chat model that rewrites flagged sentences from the tools' documents.
        evidence_tools: The tools whose output is evidence (their names); None: every tool's. A tool returning Documents
            as its artifact (``response_format="content_and_artifact"``) gives them with their ids, any other gives
            its text, in both cases without what it repeats of the model's tool-call arguments.
        trusted_tools: Tools whose output is evidence whole, even where it repeats the model's arguments (a fact-check
            search queried with a whole claim returns documents that state it).
        check_intermediate: Also check what an AI message says before it calls tools.
        on_verdict: Called with every verdict once the policy is applied (errors in it are logged).
        warm_up: Load what the detector's first check would load now, not at the first request.
        streaming: ``"whole"`` (the answer is checked when the model is done, inside the model call, and the
            ``"messages"`` stream mode gets the checked message once: never the model's raw tokens) or
            ``"sentence"``: the model's
            answer reaches the ``"messages"`` stream mode sentence by sentence, each once it is complete and
            checked (``filter`` drops a flagged one, ``fallback`` sends the message instead of the rest); the
            model's raw tokens stay out of it. ``"end"``, ``"repair"`` and structured responses stream whole.
        stream_unchecked: With ``streaming="sentence"``: sentences the stream's time or length budget left unchecked
            are held back (``"hold"``, the default, under every policy but ``"annotate"``) or sent (``"send"``).
    """

    state_schema = HalguardState

    def __init__(self, *, detector: Detector | None = None,
                 on_hallucination: Literal["annotate", "raise", "fallback", "filter", "repair", "end"] = "annotate",
                 on_unverified: Literal["fail_open", "fail_closed"] = "fail_open", fallback: str | None = None,
                 repairer: Any = None, evidence_tools: Sequence[str] | None = None,
                 trusted_tools: Sequence[str] = (), check_intermediate: bool = False,
                 on_verdict: Callable[[Verdict], Any] | None = None, warm_up: bool = False,
                 streaming: Literal["whole", "sentence"] = "whole",
                 stream_unchecked: Literal["hold", "send"] = "hold") -> None:
        super().__init__()
        if fallback is not None and not isinstance(fallback, str):
            msg = f"fallback must be a message (a str), got {type(fallback).__name__}"
            raise InvalidInputError(msg)
        ends = on_hallucination == "end"
        validate_policy("fallback" if ends else on_hallucination, on_unverified)
        if repairer is not None:
            from langchain_halguard.providers import to_chat_model

            repairer = to_chat_model(repairer)
        self.on_hallucination = on_hallucination
        self.fallback = fallback if fallback is not None else DEFAULT_FALLBACK
        self.evidence_tools = None if evidence_tools is None else frozenset(evidence_tools)
        self.trusted_tools = frozenset(trusted_tools)
        self.check_intermediate = check_intermediate
        if streaming not in ("whole", "sentence"):
            msg = f"streaming must be 'whole' or 'sentence', got {streaming!r}"
            raise InvalidInputError(msg)
        # "end" and "repair" decide on the whole answer: their streams stay whole
        self.by_sentence = streaming == "sentence" and on_hallucination in ("annotate", "raise", "filter", "fallback")
        self._core = GuardCore(detector, on_hallucination="fallback" if ends else on_hallucination,
                               on_unverified=on_unverified, fallback_message=self.fallback, repairer=repairer,
                               on_verdict=on_verdict, warm_up=warm_up, stream_unchecked=stream_unchecked)

    @property
    def detector(self) -> Detector:
        return self._core.detector

    # -- hooks ------------------------------------------------------------------------------------------------

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """The model's answer checked before any of it is streamed: whole (the default; the checked message is sent
        once) or, with ``streaming="sentence"``, sentence by sentence."""
        if request.response_format is not None:
            return handler(request)
        if not self.by_sentence:
            hooks = self._hooks()  # made here: its runs and events belong to the node's config, not the hidden one
            return call_model_checked(lambda response: self._checked(request, response, hooks), request, handler)
        return stream_model_by_sentence(lambda: self._gate(request), request, handler,
                                        check_intermediate=self.check_intermediate)

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """Async twin of :meth:`wrap_model_call`."""
        if request.response_format is not None:
            return await handler(request)
        hooks = self._ahooks()
        if not self.by_sentence:
            return await acall_model_checked(lambda response: self._achecked(request, response, hooks), request,
                                             handler)
        return await astream_model_by_sentence(lambda: self._gate(request, hooks), request, handler,
                                               check_intermediate=self.check_intermediate)

    def _checked(self, request: Any, response: Any, hooks: GuardHooks) -> dict[str, Any] | None:
        """The state update for the model's ``response`` to ``request`` (None: no answer to check in it)."""
        found = self._response_request(request, response)
        if found is None:
            return None
        message, guard_request = found
        return self._update(message, self._core.run(guard_request, hooks))

    async def _achecked(self, request: Any, response: Any, hooks: GuardHooks) -> dict[str, Any] | None:
        """Async twin of :meth:`_checked`."""
        found = self._response_request(request, response)
        if found is None:
            return None
        message, guard_request = found
        return self._update(message, await self._core.arun(guard_request, hooks))

    def _response_request(self, request: Any, response: Any) -> tuple[AIMessage, GuardRequest] | None:
        last = response.result[-1] if getattr(response, "result", None) else None
        if not isinstance(last, AIMessage):
            return None
        return self._request({"messages": [*request.messages, last],
                              "structured_response": getattr(response, "structured_response", None)})

    def _gate(self, request: Any, hooks: GuardHooks | None = None) -> SentenceGate:
        messages = list(request.messages)
        question = _last_question(messages)
        evidence = GuardRequest(question, "", self._contexts(messages, set()), request_id=str(uuid.uuid4()),
                                source=SOURCE)
        return SentenceGate(self._core, evidence, hooks or self._hooks())

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """Check a ``return_direct`` tool's output, the agent's answer, before the tools node gives it out."""
        result = handler(request)
        found = self._direct_request(request, result)
        if found is None:
            return result
        return self._direct_update(result, self._core.run(found, self._hooks()))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """Async twin of :meth:`wrap_tool_call`."""
        result = await handler(request)
        found = self._direct_request(request, result)
        if found is None:
            return result
        return self._direct_update(result, await self._core.arun(found, self._ahooks()))

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: HalguardState, runtime: Any) -> dict[str, Any] | None:
        """Check the model's answer (a final one, or with ``check_intermediate`` one that calls tools)."""
        streamed = _checked_while_streaming(state)
        if streamed is not None:
            return self._recorded(streamed)
        found = self._request(state)
        if found is None:
            return None
        message, request = found
        return self._update(message, self._core.run(request, self._hooks()))

    @hook_config(can_jump_to=["end"])
    async def aafter_model(self, state: HalguardState, runtime: Any) -> dict[str, Any] | None:
        """Async twin of :meth:`after_model`."""
        streamed = _checked_while_streaming(state)
        if streamed is not None:
            return self._recorded(streamed)
        found = self._request(state)
        if found is None:
            return None
        message, request = found
        return self._update(message, await self._core.arun(request, self._ahooks()))

    def _recorded(self, verdict: dict[str, Any]) -> dict[str, Any]:
        """The state update for an answer checked in the model call: its verdict, and with ``"end"`` the jump."""
        action = verdict.get("action")
        if self.on_hallucination == "end" and isinstance(action, dict) and action.get("action") == "fallback":
            return {"halguard": verdict, "jump_to": "end"}
        return {"halguard": verdict}

    def _hooks(self) -> GuardHooks:
        config = _config()

        def traced(check: Any, request: GuardRequest, purpose: str) -> Verdict:
            return RunnableLambda(check, name=VERIFY_RUN_NAME).invoke(request, config)

        def on_checked(verdict: Verdict) -> None:
            if config is not None:
                from langchain_core.callbacks import dispatch_custom_event

                dispatch_custom_event(VERDICT_EVENT, verdict.to_metadata(), config=config)

        return GuardHooks(traced=traced, on_checked=on_checked)

    def _ahooks(self) -> GuardHooks:
        config = _config()

        async def traced(check: Any, request: GuardRequest, purpose: str) -> Verdict:
            return await RunnableLambda(check, name=VERIFY_RUN_NAME).ainvoke(request, config)

        async def on_checked(verdict: Verdict) -> None:
            if config is not None:
                from langchain_core.callbacks import adispatch_custom_event

                await adispatch_custom_event(VERDICT_EVENT, verdict.to_metadata(), config=config)

        return GuardHooks(traced=traced, on_checked=on_checked)

    # -- the state, in and out ---------------------------------------------------------------------------------

    def _answer(self, state: HalguardState) -> tuple[AIMessage, Any, set[str]] | None:
        """The answer the model just gave: its message, what is checked (its text or the structured response) and
        the tool calls that are not evidence; None when there is nothing to check."""
        messages = list(state.get("messages") or [])
        structured = state.get("structured_response")
        if len(messages) >= 2 and isinstance(messages[-1], ToolMessage) and structured is not None:
            # Right after the model, a tool message can only be the model node's own: the structured response
            # (ToolStrategy) it just returned. Tools the agent calls run later, in the tools node.
            message = messages[-2]
            if isinstance(message, AIMessage):
                return message, structured, {c["id"] for c in message.tool_calls}
        if not messages or not isinstance(messages[-1], AIMessage):
            return None
        message = messages[-1]
        if not message.tool_calls:  # a final answer (with ProviderStrategy, its structured response)
            return message, structured if structured is not None else message.text, set()
        if self.check_intermediate and message.text.strip():
            return message, message.text, set()
        return None

    def _request(self, state: HalguardState) -> tuple[AIMessage, GuardRequest] | None:
        """The answer's message and what to check in ``state``; None when the model's last message is no answer to
        check."""
        found = self._answer(state)
        if found is None:
            return None
        message, answer, skip = found
        messages = list(state["messages"])
        question = _last_question(messages)
        structured = is_structured(answer)
        return message, GuardRequest(
            question=question,
            answer=render_structured(answer) if structured else answer,
            contexts=self._contexts(messages, skip),
            check_question=(question_with_fields(question, answer) or None) if structured else None,
            structured=structured,
            request_id=str(uuid.uuid4()),
            source=SOURCE,
        )

    def _contexts(self, messages: list[BaseMessage], skip: set[str]) -> list[tuple[str, str]]:
        """``(id, text)`` pairs of what the agent's tools returned in the thread (the evidence tools only)."""
        def evidence(tool: ToolMessage) -> bool:
            return tool.tool_call_id not in skip and (self.evidence_tools is None or tool.name in self.evidence_tools)

        return tool_contexts(messages, keep=evidence, trusted=self.trusted_tools)

    def _direct_request(self, request: Any, result: Any) -> GuardRequest | None:
        """What to check of a ``return_direct`` tool's output (None: not such a tool, or not a message)."""
        if not getattr(request.tool, "return_direct", False) or not isinstance(result, ToolMessage):
            return None
        messages = [*(_state_value(request.state, "messages") or []), result]
        return GuardRequest(question=_last_question(messages), answer=result.text,
                            contexts=self._contexts(messages, set()), request_id=str(uuid.uuid4()), source=SOURCE)

    def _direct_update(self, tool_message: ToolMessage, outcome: GuardOutcome) -> Command:
        """The tools node's update for a checked ``return_direct`` answer: the checked text in the tool message's
        place (``end`` as ``fallback``: the agent ends there anyway), the verdict on it and in the state."""
        checked = with_verdict(tool_message, outcome.verdict, outcome.text)
        return Command(update={"messages": [checked], "halguard": outcome.verdict.to_metadata()})

    def _update(self, answer_message: AIMessage, outcome: GuardOutcome) -> dict[str, Any]:
        """The state update: the verdict on the answer message and in the state, the checked text in its place."""
        verdict = outcome.verdict  # "end" is recorded as the fallback it is (action "fallback"), plus the jump
        ends = self.on_hallucination == "end" and outcome.action == "fallback"
        update: dict[str, Any] = {"content": outcome.text} if outcome.text is not None else {}
        if ends:
            update["tool_calls"] = []  # the agent stops: nothing it meant to do next runs
        update["response_metadata"] = {**answer_message.response_metadata, METADATA_KEY: verdict.to_metadata()}
        out: dict[str, Any] = {"messages": [answer_message.model_copy(update=update)],
                               "halguard": verdict.to_metadata()}
        if ends:
            out["jump_to"] = "end"
        return out


def _checked_while_streaming(state: HalguardState) -> dict[str, Any] | None:
    """The verdict the sentence stream put on the model's new message (None: not streamed by sentence)."""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    if isinstance(last, AIMessage) and isinstance(last.response_metadata.get(METADATA_KEY), dict):
        return last.response_metadata[METADATA_KEY]
    return None


def _state_value(state: Any, key: str) -> Any:
    """``state[key]`` of a graph state (a dict, or an object with attributes)."""
    return state.get(key) if isinstance(state, dict) else getattr(state, key, None)


def _last_question(messages: list[BaseMessage]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text
    return None

