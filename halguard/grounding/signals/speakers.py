"""Words put in another speaker's mouth: "The inspectors stated that the governors would appoint a dedicated
attendance officer" where the passage has "Headteacher Priya Nandakumar ... said the governors would appoint a dedicated
attendance officer"; "planning officer Derek Amsel said he would consider a legal challenge" where "Opponents ... said
they would consider a legal challenge".

Every word of such a claim is the passage's, and its closest sentence may be the speaker's own: what moved is who
said it. Read without a parse, from the verbs of saying (:data:`_SAYING`): a speech is its speaker (the words before
the verb, from the start of the sentence or of its clause after a semicolon, or after ", which": "the rate rises
1.8%, which the finance office estimates will add $46") and what was said (the words after it, "that" aside);
"Orders rose 17%, chief executive Jane Doe said." is read the other way round (what was said before the comma, the
speaker after it). A claim's speech is another speaker's where

- a passage speech says what the claim's says: at least :data:`MIN_SAID_WORDS` content words in common, and at least
  :data:`SAID_OVERLAP` of the shorter of the two (a claim may say more, fused from another sentence);
- the claim's speaker has a content word, every one of them in the passages (a speaker the passages lack is the
  missing names' finding; "he" or "they" is no speaker to compare), and none in the sentence of any passage speech
  that says what the claim's says ("The company said it expects ..." where "Chief executive Jane Doe said the company
  expects ...": the company is named there).

Bounded: a claim's first :data:`MAX_SPEECHES` speeches, each against the speeches of its sources' sentences
(:func:`.closest.source_sentences`: their first characters), at most :data:`MAX_SPEECHES` a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from itertools import islice
from typing import NamedTuple

from halguard.grounding.signals.closest import source_sentences
from halguard.text.lexical import content_terms

__all__ = ["MAX_SAID_WORDS", "MAX_SPEECHES", "MIN_SAID_WORDS", "SAID_OVERLAP", "speakers_moved"]

# What two speeches must share to say one thing: this many content words at least, and this share of the shorter's.
# Hand-set (2026-11-30), as close to a copy as a restatement in other words allows.
MIN_SAID_WORDS = 3
SAID_OVERLAP = 0.8
# Speeches read per claim and per passage sentence, and the words of what one says.
MAX_SPEECHES = 4
MAX_SAID_WORDS = 60

# (and three of attribution in the present, whose past forms are as often passive: "is estimated at", "is believed")
_SAYING = re.compile(r"\b(?:said|says|stated|states|told|announced|warned|added|noted|claimed|insisted|confirmed"
                     r"|explained|argued|estimates|predicts|believes)\b", re.IGNORECASE)
# A relative clause's subject is its speaker: "The rate rises 1.8%, which the finance office estimates will add $46".
_RELATIVE_OPENING = re.compile(r",\s+which\s+", re.IGNORECASE)  # (", who" opens an aside on the speaker)
_THAT = re.compile(r"\s*(?:that\b)?", re.IGNORECASE)
# Where what was said ends: the sentence's end, or another clause ("..., while the Biden administration claimed ...").
_SAID_END = re.compile(r"[;.!?]|,\s+(?:while|whereas|but|although|though)\b|" + _SAYING.pattern, re.IGNORECASE)
# A passage's speaker named by a pronoun or as some of a group ("As we said", "Others said") may be anyone: the
# claim's speaker may be the one meant.
_UNNAMED = frozenset("i we you he she they it others other some many one another someone".split())


class Speech(NamedTuple):
    """A speaker's words (their offsets in the text, and their stems) and the stems of what was said."""

    start: int
    end: int
    speaker: frozenset[str]
    said: frozenset[str]


def _stems(text: str) -> frozenset[str]:
    return frozenset(st for _, _, st in islice(content_terms(text), MAX_SAID_WORDS))


def speeches(sentence: str) -> list[Speech]:
    """The speeches of one sentence (see the module)."""
    out: list[Speech] = []
    for m in islice(_SAYING.finditer(sentence), MAX_SPEECHES):
        relative = [r.end() for r in _RELATIVE_OPENING.finditer(sentence, 0, m.start())]
        opens = max(sentence.rfind(";", 0, m.start()) + 1, sentence.rfind(":", 0, m.start()) + 1, *relative)
        after = sentence[_THAT.match(sentence, m.end()).end():]
        said = _stems(_SAID_END.split(after, maxsplit=1)[0])
        comma = sentence.rfind(",", opens, m.start())
        if len(said) < MIN_SAID_WORDS and comma > opens:  # "Orders rose 17%, chief executive Jane Doe said."
            start, said = comma + 1, _stems(sentence[opens:comma])
        else:
            start = opens
        while start < m.start() and not sentence[start].isalnum():
            start += 1
        out.append(Speech(start, m.start(), _stems(sentence[start:m.start()]), said))
    return out


def _unnamed(sentence: str, speech: Speech) -> bool:
    """Whether the speaker of a passage's ``speech`` is named by a pronoun or as some of a group (:data:`_UNNAMED`)."""
    return not _UNNAMED.isdisjoint(re.findall(r"[a-z]+", sentence[speech.start:speech.end].split(",", 1)[0].lower()))


def _named_from(text: str, speech: Speech) -> int:
    """Where the speaker of ``speech`` is named: after the last comma before its verb, if any."""
    return text.rfind(",", speech.start, speech.end) + 1 or speech.start


def _same_words(ours: frozenset[str], theirs: frozenset[str]) -> bool:
    shared = len(ours & theirs)
    return shared >= MIN_SAID_WORDS and shared >= SAID_OVERLAP * min(len(ours), len(theirs))


def speakers_moved(text: str, sources: Sequence[str], context_terms: AbstractSet[str]) -> list[tuple[int, int, str]]:
    """The speakers of the claim ``text`` (offsets in it) whose words the passages (``sources``; their stems
    ``context_terms``) give another speaker only, with the reason in words."""
    # the speaker as named (after the last comma before the verb: "After the vote, planning officer Derek Amsel
    # said") must be the passages'; all the words before the verb must be absent from the passage speech's sentence
    ours = []
    for speech in speeches(text):
        start = _named_from(text, speech)
        named = _stems(text[start:speech.end])
        if named and named <= context_terms:
            ours.append((speech, start))
    if not ours:
        return []
    # only the sentences that share enough words with some speech of the claim are read for their speeches
    said = set().union(*(speech.said for speech, _ in ours))
    theirs = [(sentence, terms, speech) for src in sources for sentence, terms in source_sentences(src)
              if len(said & terms) >= MIN_SAID_WORDS and _SAYING.search(sentence) for speech in speeches(sentence)]
    found = []
    for speech, start in ours:
        same = [(sentence, terms, s) for sentence, terms, s in theirs if _same_words(speech.said, s.said)]
        if same and all(speech.speaker.isdisjoint(terms) and not _unnamed(sentence, s) for sentence, terms, s in same):
            # the passage's speaker as named: before its first comma ("Headteacher Priya Nandakumar, who joined ...")
            sentence, _, other = same[0]
            named = sentence[other.start:other.end].split(",", 1)[0].strip()
            found.append((start, speech.end, f"{text[start:speech.end].strip()} said it where the passage has "
                                             f"{named}"))
    return found
