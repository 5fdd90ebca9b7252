"""Paraphrase samples through a graph with a checkpointer, each on a throwaway copy of the user's thread.

Paraphrase sampling (``consistency="on"``) sends reworded questions through the same graph. Sent with the call's
``thread_id`` they would become turns of the user's thread (and, run side by side, overwrite each other), so the
guard reads the thread's latest checkpoint before the turn (:meth:`GraphThread.snapshot`, like the history
wrapper's session in ``_history.py``) and each sample runs on its own throwaway thread in a copy of the graph
whose checkpointer is an ``InMemorySaver`` holding a copy of that checkpoint: the samples see the conversation so
far, and nothing they say is kept. A graph's long-term ``store`` is shared by every thread and is not copied.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableLambda

from langchain_halguard._graph import find_graph, thread_config

__all__ = ["SAMPLE_THREAD_RUN_NAME", "GraphThread", "ThreadSnapshot", "find_thread"]

SAMPLE_THREAD_RUN_NAME = "halguard_sample_thread"
_CHECKPOINT_KEYS = ("checkpoint_id", "checkpoint_ns", "checkpoint_map")  # what addresses one checkpoint


@dataclass(frozen=True)
class ThreadSnapshot:
    """The thread's latest checkpoint before the turn (None: a new thread), or why it could not be read."""

    checkpoint: Any = None
    error: str | None = None


class GraphThread:
    """A guarded graph with a checkpointer: snapshot its thread before a turn, and sample on copies of it.

    Args:
        bound: The guarded runnable (the graph, possibly under ``with_config`` / ``bind``).
        graph: The compiled graph inside it (see :func:`find_graph`).
    """

    def __init__(self, bound: Runnable[Any, Any], graph: Any) -> None:
        self.bound = bound
        self.graph = graph

    def _checkpoint_config(self, config: RunnableConfig) -> RunnableConfig | None:
        """Where the turn starts from: the thread's latest checkpoint, or the one ``checkpoint_id`` names."""
        configurable = config.get("configurable") or {}
        if thread_config(self.graph, config) is None:
            return None
        keys = ("thread_id", "checkpoint_id")
        return {"configurable": {"checkpoint_ns": "", **{k: configurable[k] for k in keys if k in configurable}}}

    def snapshot(self, config: RunnableConfig) -> ThreadSnapshot | None:
        """The thread before the turn; None when the call keeps no thread (then samples need no copy)."""
        target = self._checkpoint_config(config)
        if target is None:
            return None
        try:
            return ThreadSnapshot(self.graph.checkpointer.get_tuple(target))
        except Exception as exc:  # noqa: BLE001 - then the samples fail (consistency unverified), not the turn
            return ThreadSnapshot(error=f"{type(exc).__name__}: {exc}")

    async def asnapshot(self, config: RunnableConfig) -> ThreadSnapshot | None:
        """Async twin of :meth:`snapshot`."""
        target = self._checkpoint_config(config)
        if target is None:
            return None
        try:
            return ThreadSnapshot(await self.graph.checkpointer.aget_tuple(target))
        except Exception as exc:  # noqa: BLE001
            return ThreadSnapshot(error=f"{type(exc).__name__}: {exc}")

    def sampler(self, snapshot: ThreadSnapshot) -> Runnable[Any, Any]:
        """The guarded runnable with the graph replaced by one that runs each call on a new throwaway thread."""
        from langgraph.checkpoint.memory import InMemorySaver

        saver = InMemorySaver()
        copy = self.graph.copy({"checkpointer": saver})

        def on_new_thread(config: RunnableConfig) -> RunnableConfig:
            if snapshot.error is not None:
                msg = f"the thread's checkpoint could not be read to sample on a copy of it: {snapshot.error}"
                raise RuntimeError(msg)
            thread = f"halguard-sample-{uuid.uuid4().hex}"
            saved = snapshot.checkpoint
            if saved is not None:
                saver.put({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}, saved.checkpoint,
                          saved.metadata, saved.checkpoint["channel_versions"])
            configurable = {k: v for k, v in (config.get("configurable") or {}).items() if k not in _CHECKPOINT_KEYS}
            return {**config, "configurable": {**configurable, "thread_id": thread}}

        def sample(input_: Any, config: RunnableConfig, **kwargs: Any) -> Any:
            return copy.invoke(input_, on_new_thread(config), **kwargs)

        async def asample(input_: Any, config: RunnableConfig, **kwargs: Any) -> Any:
            return await copy.ainvoke(input_, on_new_thread(config), **kwargs)

        return _replace(self.bound, self.graph, RunnableLambda(sample, afunc=asample, name=SAMPLE_THREAD_RUN_NAME))


def _replace(runnable: Runnable[Any, Any], old: Any, new: Runnable[Any, Any]) -> Runnable[Any, Any]:
    if runnable is old:
        return new
    assert isinstance(runnable, RunnableBinding)  # find_graph only walks bindings
    return runnable.model_copy(update={"bound": _replace(runnable.bound, old, new)})


def find_thread(bound: Runnable[Any, Any]) -> GraphThread | None:
    """The graph whose threads paraphrase samples must stay out of; None when ``bound`` keeps no checkpointer."""
    found = find_graph(bound)
    if found is None or getattr(found[0], "checkpointer", None) in (None, True, False):
        return None
    return GraphThread(bound, found[0])
