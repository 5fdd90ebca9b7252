"""LangGraph graphs under the guard: every stream mode passes through, and the check reads the final state.

A compiled graph (``create_agent``, a ``StateGraph``) streams what ``stream_mode`` asks for: whole states
(``"values"``), ``{node: update}`` dicts (``"updates"``, a ``StateGraph``'s default), ``(token, metadata)`` pairs
(``"messages"``), what nodes write (``"custom"``), task and checkpoint records (``"debug"``, ``"tasks"``,
``"checkpoints"``), or ``(mode, chunk)`` pairs for a list of modes. Adding those chunks up does not give the
output (updates go through the state's reducers, tokens are no state at all), so the guard also asks the graph
for its ``"values"`` when the caller did not, keeps the root graph's last state as the output to check, and
gives the caller exactly the chunks of the modes it asked for, in the shape it asked for (``subgraphs=True``
namespaces and ``version="v2"`` parts included).

After the check, each asked-for mode that has a place for the verdict gets one more chunk of its own shape:

- ``"values"``: the checked final state, with the verdict under ``output_key`` (what ``invoke`` returns);
- ``"updates"``: ``{output_key: {output_key: verdict}}``, as if a last node named after the key had run;
- ``"messages"``: an empty ``AIMessageChunk`` whose ``response_metadata[output_key]`` holds the verdict, with
  ``{"langgraph_node": output_key}`` as its metadata;
- ``"custom"``, ``"debug"``, ``"tasks"``, ``"checkpoints"``: none (the verdict is in ``on_verdict``, the
  ``halguard_verdict`` event and the ``halguard_verify`` run).

With a policy that may change the answer (``"filter"``, ``"fallback"``, ``"repair"``) the chunks are held back
until the check, then given in their order with the checked answer in the raw one's place: a state or node update
holding the answer gets the checked one (the same message by id, or the same answer value); in ``"messages"``
the answer's tokens (the answer message's id, else the last AI message that streamed text) become one chunk
holding the checked text. Nothing the user is given holds a sentence the policy removed.

A graph with a checkpointer also keeps the answer in the thread's state. When the policy changed the answer, the
guard writes the checked one back (``update_state``, as the node that wrote it), so the next turn of the thread
sees what the user was shown.

Paraphrase sampling on a graph's thread is in ``_graph_thread.py``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig

from halguard.schema import METADATA_KEY, Verdict
from langchain_halguard._convert import MESSAGES_KEY, answer_text, find_answer

__all__ = [
    "GraphStream",
    "awrite_back",
    "find_graph",
    "interrupted",
    "rewrap",
    "split_output",
    "write_back",
]

logger = logging.getLogger("langchain_halguard")

VALUES = "values"
_INTERRUPT = "__interrupt__"
# LangGraph's config key of a graph running as a task of another graph: its default stream mode is then "values".
_TASK_ID = "__pregel_task_id"
_MAX_DEPTH = 8  # how deep a chunk is searched for the answer (states, updates, debug payloads are shallow)


def find_graph(runnable: Runnable[Any, Any]) -> tuple[Any, dict[str, Any]] | None:
    """The LangGraph graph ``runnable`` runs (under ``with_config`` / ``bind``) and the kwargs bound on the way."""
    bound_kwargs: dict[str, Any] = {}
    while isinstance(runnable, RunnableBinding):
        bound_kwargs = {**runnable.kwargs, **bound_kwargs}  # the outer binding's kwargs win, as they do when called
        runnable = runnable.bound
    if type(runnable).__module__.startswith("langgraph") and hasattr(runnable, "stream_mode"):
        return runnable, bound_kwargs
    return None


@dataclass(frozen=True)
class _Part:
    """One chunk of a graph's stream, whatever its shape: namespace, mode, data, and the chunk itself."""

    ns: tuple[str, ...]
    mode: str
    data: Any
    raw: Any


class GraphStream:
    """One streamed call of a graph: what to ask it for, what to give the caller, and the final state.

    Args:
        graph: The compiled graph (see :func:`find_graph`).
        kwargs: The caller's stream kwargs, with the ones bound on the way (``stream_mode``, ``subgraphs``,
            ``version``...).
        config: The call's config (a graph running inside another graph defaults to ``"values"``).
        hold: Hold the chunks back until the check (a policy that may change the answer).
        output_key: The key the verdict goes under.
        answer_key: Where the answer is in the state (see :func:`langchain_halguard._convert.find_answer`).
    """

    def __init__(self, graph: Any, kwargs: dict[str, Any], config: RunnableConfig, *, hold: bool, output_key: str,
                 answer_key: str | None) -> None:
        requested = kwargs.get("stream_mode")
        if requested is None:
            in_task = _TASK_ID in (config.get("configurable") or {})
            requested = VALUES if in_task else graph.stream_mode
        self.single = isinstance(requested, str)
        self.modes: list[str] = [requested] if isinstance(requested, str) else list(requested)
        self.v2 = kwargs.get("version") == "v2"
        self.subgraphs = bool(kwargs.get("subgraphs"))
        # Always a list, so every chunk says its mode; "values" added when the caller did not ask for it.
        self.inner_kwargs = {**kwargs, "stream_mode": self.modes if VALUES in self.modes else [*self.modes, VALUES]}
        self.hold = hold
        self.output_key = output_key
        self.answer_key = answer_key
        self.state: Any = None
        self._held: list[_Part] = []

    # -- chunks in -----------------------------------------------------------------------------------------

    def _parse(self, chunk: Any) -> _Part:
        if self.v2:
            return _Part(tuple(chunk.get("ns") or ()), chunk["type"], chunk["data"], chunk)
        if self.subgraphs:
            ns, mode, data = chunk
            return _Part(tuple(ns), mode, data, chunk)
        mode, data = chunk
        return _Part((), mode, data, chunk)

    def add(self, chunk: Any) -> Iterator[Any]:
        """Record one chunk of the graph's stream; yield what the caller gets of it now."""
        part = self._parse(chunk)
        if part.mode == VALUES and not part.ns:
            self.state = _with_interrupt(self.state, part.data)
        if part.mode not in self.modes:
            return
        if self.hold:
            self._held.append(part)
            return
        yield self._shape(part.ns, part.mode, part.data, part)

    def _shape(self, ns: tuple[str, ...], mode: str, data: Any, part: _Part | None = None) -> Any:
        """``data`` in the shape the caller asked for."""
        if self.v2:
            if part is not None:
                return part.raw if data is part.data else {**part.raw, "data": data}
            return {"type": mode, "ns": ns, "data": data, **({"interrupts": ()} if mode == VALUES else {})}
        if self.single:
            return (ns, data) if self.subgraphs else data
        if part is not None and data is part.data:
            return part.raw
        return (ns, mode, data) if self.subgraphs else (mode, data)

    # -- chunks out ----------------------------------------------------------------------------------------

    def output(self) -> Any:
        """What the graph returned: its root's last state."""
        return self.state

    def unchecked(self) -> Iterator[Any]:
        """The held-back chunks as they were, when there is nothing to check (the graph paused at an interrupt)."""
        for part in self._held:
            yield self._shape(part.ns, part.mode, part.data, part)

    def final(self, output: Any, result: Any) -> Iterator[Any]:
        """After the check: the held-back chunks with the checked answer in place, then the verdict chunks."""
        if self.hold:
            yield from self._replay(output, result)
        verdict = result.get(self.output_key) if isinstance(result, Mapping) else None
        if not isinstance(verdict, Verdict):  # a graph whose output is no state (the functional API's str)
            return
        for mode in self.modes:
            data = self._verdict_data(mode, result, verdict)
            if data is not None:
                yield self._shape((), mode, data)

    def _verdict_data(self, mode: str, result: Any, verdict: Verdict) -> Any:
        if mode == VALUES:
            return result
        if mode == "updates":
            return {self.output_key: {self.output_key: verdict}}
        if mode == "messages":
            chunk = AIMessageChunk(content="", response_metadata={METADATA_KEY: verdict.to_metadata()})
            return chunk, {"langgraph_node": self.output_key}
        return None

    def _replay(self, output: Any, result: Any) -> Iterator[Any]:
        old, new = _answer(output, self.answer_key), _answer(result, self.answer_key)
        changed = old is not new and _text(output, self.answer_key) != _text(result, self.answer_key)
        if not changed:
            for part in self._held:
                yield self._shape(part.ns, part.mode, part.data, part)
            return
        tokens_of = _answer_message_id(old, [p for p in self._held if p.mode == "messages"])
        replaced = False
        for part in self._held:
            if part.mode != "messages":
                yield self._shape(part.ns, part.mode, _swap(part.data, old, new), part)
                continue
            message, metadata = part.data
            if not (isinstance(message, AIMessage) and tokens_of is not None and message.id == tokens_of):
                yield self._shape(part.ns, part.mode, part.data, part)
            elif not replaced:  # the answer's first token: the whole checked text, once
                replaced = True
                checked = type(message)(content=_text(result, self.answer_key), id=message.id)
                yield self._shape(part.ns, part.mode, (checked, metadata), part)


def interrupted(output: Any) -> bool:
    """Whether a graph's output is a pause at ``interrupt()`` (its interrupts under ``__interrupt__``, or in a
    ``GraphOutput``'s ``interrupts``)."""
    if _is_graph_output(output):
        return bool(output.interrupts)
    return isinstance(output, Mapping) and bool(output.get(_INTERRUPT))


def _is_graph_output(output: Any) -> bool:
    """``invoke(..., version="v2")`` returns ``GraphOutput(value, interrupts)``, a frozen dataclass."""
    cls = type(output)
    return cls.__name__ == "GraphOutput" and cls.__module__.startswith("langgraph") and dataclasses.is_dataclass(output)


def split_output(output: Any) -> tuple[Any, Any]:
    """``(wrapper, value)``: a ``GraphOutput`` and its value (what is checked), or ``(None, output)``."""
    return (output, output.value) if _is_graph_output(output) else (None, output)


def rewrap(wrapper: Any, result: Any) -> Any:
    """``result`` in the wrapper :func:`split_output` took it out of (a new ``GraphOutput``), or as it is."""
    return result if wrapper is None else dataclasses.replace(wrapper, value=result)


def _with_interrupt(state: Any, values: Any) -> Any:
    """The root's state after a "values" chunk (an interrupt chunk adds ``__interrupt__`` to the last state)."""
    if isinstance(values, Mapping) and set(values) == {_INTERRUPT} and isinstance(state, Mapping):
        return {**state, **values}
    return values


def _answer(output: Any, answer_key: str | None) -> Any:
    try:
        return find_answer(output, answer_key)
    except Exception:  # noqa: BLE001 - a state without an answer has nothing to put in place
        return None


def _text(output: Any, answer_key: str | None) -> str | None:
    try:
        return answer_text(output, answer_key)
    except Exception:  # noqa: BLE001
        return None


def _answer_message_id(old: Any, parts: list[_Part]) -> str | None:
    """The message id of the answer's tokens: the answer message's, else the last AI message that streamed text."""
    if isinstance(old, BaseMessage) and old.id is not None:
        return old.id
    last = None
    for part in parts:
        message = part.data[0]
        if isinstance(message, AIMessage) and message.text:
            last = message.id
    return last


def _same(value: Any, old: Any) -> bool:
    if value is old:
        return True
    if isinstance(old, BaseMessage):
        return isinstance(value, BaseMessage) and old.id is not None and value.id == old.id and value.type == old.type
    return isinstance(old, str) and isinstance(value, str) and value == old


def _swap(value: Any, old: Any, new: Any, depth: int = 0) -> Any:
    """``value`` with ``old`` replaced by ``new`` wherever it is (the same object when nothing changed)."""
    if _same(value, old):
        return new
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        items = {key: _swap(item, old, new, depth + 1) for key, item in value.items()}
        if all(items[key] is value[key] for key in value):
            return value
        try:
            return type(value)(items)
        except Exception:  # noqa: BLE001 - a mapping type that cannot be rebuilt from a dict
            return items
    if isinstance(value, (list, tuple)):
        swapped = [_swap(item, old, new, depth + 1) for item in value]
        if all(a is b for a, b in zip(swapped, value)):
            return value
        if hasattr(value, "_fields"):  # a named tuple
            return type(value)._make(swapped)
        return type(value)(swapped)
    return value


# -- the thread's state --------------------------------------------------------------------------------------


def thread_config(graph: Any, config: RunnableConfig) -> RunnableConfig | None:
    """The config that addresses the latest state of the call's thread, or None when the graph keeps none."""
    configurable = config.get("configurable") or {}
    checkpointer = getattr(graph, "checkpointer", None)
    if checkpointer in (None, True, False) or "thread_id" not in configurable:
        return None
    # A checkpoint_id (time travel) would fork from that checkpoint: the write goes on top of the thread instead.
    return {"configurable": {k: v for k, v in configurable.items() if k != "checkpoint_id"}}


def checked_state_update(output: Any, result: Any, answer_key: str | None) -> dict[str, Any] | None:
    """The state update that puts the checked answer where the graph wrote the raw one; None when it is the same."""
    if not isinstance(output, Mapping) or not isinstance(result, Mapping):
        return None
    if _text(output, answer_key) == _text(result, answer_key):
        return None
    if answer_key is not None and answer_key in output:
        return {answer_key: result[answer_key]}
    if isinstance(result.get(MESSAGES_KEY), Sequence):
        # Every message, ids kept: add_messages replaces each by id, and a plain list channel takes the list.
        return {MESSAGES_KEY: list(result[MESSAGES_KEY])}
    return None


def write_back(graph: Any, config: RunnableConfig, output: Any, result: Any, answer_key: str | None) -> None:
    """Put the checked answer into the thread's state when the policy changed it (a failure is logged: the verdict
    and what the user gets stand, and the thread keeps the raw answer)."""
    target, update = thread_config(graph, config), checked_state_update(output, result, answer_key)
    if target is None or update is None:
        return
    try:
        graph.update_state(target, update)
    except Exception as exc:  # noqa: BLE001 - the answer is checked and returned; only the thread's copy is stale
        _write_failed(exc)


async def awrite_back(graph: Any, config: RunnableConfig, output: Any, result: Any, answer_key: str | None) -> None:
    """Async twin of :func:`write_back`."""
    target, update = thread_config(graph, config), checked_state_update(output, result, answer_key)
    if target is None or update is None:
        return
    try:
        await graph.aupdate_state(target, update)
    except Exception as exc:  # noqa: BLE001
        _write_failed(exc)


def _write_failed(exc: BaseException) -> None:
    logger.warning("halguard could not write the checked answer into the thread's state (it keeps the raw "
                   "answer): %s: %s", type(exc).__name__, exc)
