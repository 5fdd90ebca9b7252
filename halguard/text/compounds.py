"""A word the passages write as two: "liftoff" of "lifted off", "takeover" of "took over", "healthcare" of "health
care", "layoffs" of "laid off", "outbreak" of "broke out". The claim's closed-up word says what the two say; its stem
is none of theirs, so without this it is a novel word.

Read from adjacent words only (two content words, or a word and a particle: "up", "off", "over", ...), an irregular
past read as its verb ("laid" as "lay"), a particle also before its verb ("broke out": "outbreak"). A crafted claim
word equal to a closed-up pair says the pair's words, which is what a word check asks. Bounded: the first
:data:`MAX_WORDS` words of a text.
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.text.lexical import STOPWORDS, base_form, stem

__all__ = ["MAX_WORDS", "closed_compounds"]

# Words of one text read for pairs (a claim's evidence chunks are far shorter).
MAX_WORDS = 5_000
# The particles a verb closes up with ("lift off", "take over", "break out"), stopwords otherwise.
_PARTICLES = frozenset("up down off out over back in on away through".split())
_WORD = re.compile(r"[^\W\d_]+")


def closed_compounds(text: str) -> set[str]:
    """The stems of the words each two adjacent words of ``text`` make closed up (see the module)."""
    words = [m.group().lower() for m in islice(_WORD.finditer(text), MAX_WORDS)]
    out: set[str] = set()
    for first, second in zip(words, words[1:]):
        if (first in STOPWORDS and first not in _PARTICLES) or (second in STOPWORDS and second not in _PARTICLES):
            continue
        if first in _PARTICLES and second in _PARTICLES:
            continue
        verb = base_form(stem(first))
        out.add(stem(verb + second))
        if second in _PARTICLES:
            out.add(stem(second + verb))  # "broke out": "outbreak"
    return out
