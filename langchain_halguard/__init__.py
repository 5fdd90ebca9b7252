"""LangChain integration for halguard.

- :class:`RunnableWithHalguard` / :func:`with_halguard`: wrap a RAG chain; every answer is checked.
- :class:`HalguardCheck`: a step for chains that already output ``{question, context, answer}``.
- :class:`HalguardCallbackHandler` / :func:`get_halguard_callback`: observe-only verification of runs.
- :class:`HalguardEmbeddings`: the local MiniLM as LangChain embeddings (offline).
- :class:`HalguardActiveRAG`: retrieval + generation that validates and repairs each sentence as it is written.
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
    "RunnableWithHalguard",
    "get_halguard_callback",
    "with_halguard",
]
