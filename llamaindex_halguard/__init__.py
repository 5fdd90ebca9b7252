"""LlamaIndex integration for halguard.

- :class:`HalguardNodePostprocessor`: premise-support and cross-node conflict checks before synthesis;
  per-node claim support after it.
- :class:`HalguardQueryEngine`: wrap any query engine; the verdict lands in ``response.metadata["halguard"]``.
- :class:`HalguardChatEngine`: wrap a chat engine (``index.as_chat_engine(...)``); the same, per turn.
- :class:`HalguardEvaluator`: the check as an evaluator (``BatchEvalRunner``, ``RetryQueryEngine``).
- :class:`HalguardVerdictEvent`, :class:`HalguardEventHandler`: instrumentation.
- :class:`HalguardEmbedding`: the local MiniLM as a LlamaIndex embedding model (offline).
- :class:`HalguardActiveQueryEngine`: a query engine that validates and repairs each sentence as it is written.
"""

import logging

from llamaindex_halguard.active import HalguardActiveQueryEngine
from llamaindex_halguard.chat_engine import HalguardChatEngine, HalguardStreamingChatResponse
from llamaindex_halguard.embeddings import HalguardEmbedding
from llamaindex_halguard.evaluator import HalguardEvaluationResult, HalguardEvaluator
from llamaindex_halguard.events import HalguardEventHandler, HalguardVerdictEvent
from llamaindex_halguard.postprocessor import HalguardNodePostprocessor
from llamaindex_halguard.query_engine import HalguardQueryEngine

logging.getLogger("llamaindex_halguard").addHandler(logging.NullHandler())

__all__ = [
    "HalguardActiveQueryEngine",
    "HalguardChatEngine",
    "HalguardEmbedding",
    "HalguardEvaluationResult",
    "HalguardEvaluator",
    "HalguardEventHandler",
    "HalguardNodePostprocessor",
    "HalguardQueryEngine",
    "HalguardStreamingChatResponse",
    "HalguardVerdictEvent",
]
