"""LangChain integration for halguard.

- :class:`RunnableWithHalguard` / :func:`with_halguard`: wrap a RAG chain; every answer is checked.
- :class:`HalguardCheck`: a step for chains that already output ``{question, context, answer}``.
- :class:`HalguardCallbackHandler` / :func:`get_halguard_callback`: observe-only verification of runs.
- :class:`HalguardEmbeddings`: the local MiniLM as LangChain embeddings (offline).
- :class:`HalguardActiveRAG`: retrieval + generation that validates and repairs each sentence as it is written.
- :class:`HalguardMiddleware`: agent middleware for ``langchain.agents.create_agent`` (needs ``langchain``).
- :func:`halguard_node` / :func:`route_on_verdict`: a LangGraph node that checks a state's answer, and a router
  for the conditional edge after it (need ``langgraph``).
"""

import logging

from langchain_halguard.active import HalguardActiveRAG
from langchain_halguard.callbacks import HalguardCallbackHandler, get_halguard_callback
from langchain_halguard.check import HalguardCheck
from langchain_halguard.embeddings import HalguardEmbeddings
from langchain_halguard.guard import (
    FALLBACK_TAG,
    RAW_TAG,
    SAMPLE_TAG,
    VERDICT_EVENT,
    VERIFY_RUN_NAME,
    RunnableWithHalguard,
    with_halguard,
)

_LAZY = {  # names whose modules need packages langchain-core alone does not bring (imported on first use)
    "HalguardMiddleware": "langchain_halguard.middleware",
    "HalguardState": "langchain_halguard.middleware",
    "halguard_node": "langchain_halguard.graph_node",
    "route_on_verdict": "langchain_halguard.graph_node",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    msg = f"module 'langchain_halguard' has no attribute {name!r}"
    raise AttributeError(msg)


# A library logs; the application decides where logs go (no "No handlers" fallback to stderr).
logging.getLogger("langchain_halguard").addHandler(logging.NullHandler())

__all__ = [
    "FALLBACK_TAG",
    "RAW_TAG",
    "SAMPLE_TAG",
    "VERDICT_EVENT",
    "VERIFY_RUN_NAME",
    "HalguardActiveRAG",
    "HalguardCallbackHandler",
    "HalguardCheck",
    "HalguardEmbeddings",
    "HalguardMiddleware",
    "HalguardState",
    "RunnableWithHalguard",
    "get_halguard_callback",
    "halguard_node",
    "route_on_verdict",
    "with_halguard",
]
