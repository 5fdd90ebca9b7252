"""What a tool repeated of the model's own words: text the model wrote is not evidence, wherever it comes back from.

An agent can launder its own fabrication: it passes "The treaty was signed in 1850." to a tool (a ``save_note``
that returns what it was given, a formatter, a tool that stores the note and a later one that reads it back), and
the tool's output then "supports" the answer. :class:`ModelWords` holds what the model wrote in its tool calls'
arguments, statement by statement; :meth:`ModelWords.strip` takes out of a tool's output every statement of the
model's that the output repeats. What is left is what the tool said on its own: a retrieval tool's documents, a
calculator's result, the "Saved note #3" around an echo.

A statement is repeated when the output holds at least :data:`ECHO_SHARE` of its words in runs of at least
:data:`ECHO_MIN_WORDS` words in a row. A search query's words also come back inside the documents it finds
("James Webb Space Telescope" in "The James Webb Space Telescope launched..."): a query repeated only in part stays
in the document; one that a document repeats whole is taken out of it where it is repeated, since text cannot say
whether a tool found the model's words or returned them. A name or a title alone (no word in lower case: what a
search query often is) is not a statement, so documents keep it. Tools whose output is the world's even then (a fact-check
search queried with a whole claim) are named by the caller (``HalguardMiddleware(trusted_tools=...)``).

Words are compared after NFKC folding, with invisible format characters removed and case folded, so a tool that
lowercases, drops zero-width characters or re-encodes the text as JSON still echoes it. A tool that rewrites the
words (a paraphraser, a translator, "1,850" for "1850") is not caught: what it returns is then its own text.

Time and memory are linear in the text read: one pass over each argument and each output, and sets of hashed
word runs.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from halguard.text.lexical import word_spans
from halguard.text.normalize import normalize_text

__all__ = ["ASSEMBLED_MIN_WORDS", "ECHO_MIN_WORDS", "ECHO_SHARE", "ModelWords"]

# Runs of this many words in a row are compared: a fact needs at least four ("It was built in 1850" has five),
# and shorter runs of a query ("launch of JWST") appear in the documents it finds by chance.
ECHO_MIN_WORDS = 4
# A statement of the model's is repeated when the output holds this share of its words in such runs: a whole
# statement wrapped by the tool ("Saved: ...", JSON) or cut short by a word or two; "James Webb Space Telescope
# launch date" as a query, of which a document holds four of six words, is not.
ECHO_SHARE = 0.8
# Arguments are walked without recursion, to this many values (a tool call's arguments are JSON the model wrote).
_MAX_ARGUMENT_VALUES = 10_000
# A statement of a tool's output made of at least this many words, every one written by the model, is its words
# come back (fragments of three words each, across calls, reassembled): not evidence. Two-word pieces ("It rained")
# are too common in documents to call assembled.
ASSEMBLED_MIN_WORDS = 3
# The model's distinct words kept for that test (a thread's worth; bounded memory on a crafted thread).
_MAX_VOCABULARY_WORDS = 200_000
# A statement ends at sentence punctuation followed by a space, at a semicolon or at a line break.
_STATEMENT = re.compile(r"[^\n;.!?]+(?:[.!?]+(?!\s|$)[^\n;.!?]*)*")


def _words(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The folded words of ``text`` and their spans in ``text`` as given."""
    folded = normalize_text(text)
    spans = word_spans(folded.text)
    return [folded.text[a:b].casefold() for a, b in spans], [folded.span(a, b) for a, b in spans]


def _runs(words: list[str]) -> list[int]:
    """The hashes of the runs of :data:`ECHO_MIN_WORDS` words, one per starting word."""
    return [hash(tuple(words[i:i + ECHO_MIN_WORDS])) for i in range(len(words) - ECHO_MIN_WORDS + 1)]


def _strings(value: Any) -> Iterable[str]:
    """The strings in a tool call's arguments, keys included (a model can write its sentence as a key)."""
    stack, seen = [value], 0
    while stack and seen < _MAX_ARGUMENT_VALUES:
        item = stack.pop()
        seen += 1
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            stack.extend(item.values())
            stack.extend(k for k in item if isinstance(k, str))
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _states(text: str) -> bool:
    """Whether ``text`` can state something: it has a word in lower case. A name or a title alone ("James Webb Space
    Telescope", what a search query often is) states nothing, and documents repeat it whole."""
    return any(text[a].islower() for a, _ in word_spans(text))


@dataclass(frozen=True)
class _Statement:
    runs: tuple[int, ...]  # run hashes, in order
    words: int


class ModelWords:
    """The statements the model wrote into its tool calls, to take out of what the tools returned.

    Example:
        .. code-block:: python

            written = ModelWords()
            written.add({"text": "The treaty was signed in 1850 by Napoleon."})
            written.strip("Saved note 3: The treaty was signed in 1850 by Napoleon.")  # "Saved note 3:"
    """

    __slots__ = ("_statements", "_vocabulary")

    def __init__(self) -> None:
        self._statements: list[_Statement] = []
        self._vocabulary: set[str] = set()  # every word the model wrote (folded), for pieces assembled from them

    def __bool__(self) -> bool:
        return bool(self._statements or self._vocabulary)

    def add(self, arguments: Any, *, assembled: bool = True) -> None:
        """Record what was written: a tool call's arguments (any JSON-like value, keys included), a message's text.

        ``assembled``: also count its words as ones a tool's output can be assembled from (the model's own words:
        its calls' arguments and its messages). A user's turn is recorded with ``assembled=False``: a document
        made of the question's words is what a search for it finds; only the question's statements, repeated whole,
        are taken out."""
        for text in _strings(arguments):
            # Bounded: a thread of megabytes keeps the words it wrote first.
            room = _MAX_VOCABULARY_WORDS - len(self._vocabulary)
            if assembled and room > 0:
                self._vocabulary.update(_words(text)[0][:room])
            for match in _STATEMENT.finditer(text):
                words = _words(match.group())[0]
                if len(words) >= ECHO_MIN_WORDS and _states(match.group()):
                    self._statements.append(_Statement(tuple(_runs(words)), len(words)))

    def _assembled(self, text: str) -> str:
        """``text`` without its statements made only of words the model wrote (fragments of its sentence sent
        across calls, its sentence as a key, the fact clause of a longer argument): at least
        :data:`ASSEMBLED_MIN_WORDS` words, every one of them the model's, function words included; and nothing of
        an output all of whose words are the model's, however short."""
        if not self._vocabulary:
            return text
        words, spans = _words(text)
        if words and all(w in self._vocabulary for w in words):
            return ""  # the whole output is the model's words (a fragment of two words, "Ariane 5" it asked for)
        starts = [a for a, _ in spans]
        cut = []
        for match in _STATEMENT.finditer(text):
            first, last = bisect.bisect_left(starts, match.start()), bisect.bisect_left(starts, match.end())
            inside = words[first:last]
            if len(inside) >= ASSEMBLED_MIN_WORDS and all(w in self._vocabulary for w in inside):
                cut.append(match.span())
        return _without(text, cut) if cut else text

    def strip(self, text: str) -> str:
        """``text`` without the statements of the model's it repeats (what is left between them, joined by spaces),
        nor those it could be assembled from the model's words alone (:meth:`_assembled`)."""
        if not text:
            return text
        text = self._assembled(text)
        if not self._statements or not text:
            return text
        words, spans = _words(text)
        runs = _runs(words)
        found = set(runs)
        echoed_runs: set[int] = set()
        for statement in self._statements:
            covered = [False] * statement.words
            for i, run in enumerate(statement.runs):
                if run in found:
                    covered[i:i + ECHO_MIN_WORDS] = [True] * ECHO_MIN_WORDS
            if sum(covered) >= ECHO_SHARE * statement.words:
                echoed_runs.update(statement.runs)
        if not echoed_runs:
            return text
        echoed = [False] * len(words)
        for i, run in enumerate(runs):
            if run in echoed_runs:
                echoed[i:i + ECHO_MIN_WORDS] = [True] * ECHO_MIN_WORDS
        cut, i = [], 0
        while i < len(words):
            if not echoed[i]:
                i += 1
                continue
            first = i
            while i < len(words) and echoed[i]:
                i += 1
            cut.append((spans[first][0], spans[i - 1][1]))
        return _without(text, cut)


def _without(text: str, cut: list[tuple[int, int]]) -> str:
    """``text`` without the ``cut`` spans (in order, not overlapping): what is left between them, joined by spaces;
    a piece without a word (an echo's full stop, a closing quote) is dropped."""
    kept, at = [], 0
    for start, end in cut:
        kept.append(text[at:start])
        at = end
    kept.append(text[at:])
    return " ".join(part.strip() for part in kept if any(ch.isalnum() for ch in part))

