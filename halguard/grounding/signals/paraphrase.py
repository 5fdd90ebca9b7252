"""Novel words said in other words: a claim word its evidence says with another word, by the model's reading.

A content word of a claim that the context never uses (:func:`.words.novel_terms`, after WordNet's synonyms and
derivations) is looked up once more, by meaning: the verifier's own MiniLM reads the claim and its best evidence
chunk, and each word gets its contextual state (its word pieces' last-layer states, averaged:
:meth:`halguard.grounding.embedding.LocalEmbedder.word_states`). The word is *said in other words* when some
content word of the evidence has a state at least ``paraphrase_similarity`` close (greedy matching, as BERTScore
aligns tokens): "lowered" by "reduced", "firm" by "company", "biggest" by "largest".

Similar is not the same, so some pairs are never a match, whatever the model says (the failures measured in
``../shared/docs/token-alignment-start.md`` and on our adversarial set):

- **opposites and other comparisons**: two words of the antonym lexicon (:mod:`.antonyms`) that are not the same
  side of the same group ("larger" / "higher", "increase" / "decrease");
- **units, months and weekdays**: "miles" for "kilometres", "week" for "day", "November" for "December" are the
  sibling a fabrication swaps in (numbers and dates are compared by value elsewhere);
- words of one to two letters, numbers and names in the evidence: a word piece of a name is not a word.

Only ever clears a word: a claim with no novel word, no evidence, or no time left is read as before (its novel
words stay novel: not checked is never supported).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from halguard.grounding.embedding import WordStates
from halguard.grounding.signals.antonyms import lexicon_side
from halguard.text.dates import month_of
from halguard.text.lexical import content_terms, stem

__all__ = ["UNIT_AND_TIME_WORDS", "Paraphrase", "mid_sentence", "said_in_other_words"]

# Words a fabrication swaps for a sibling of the same kind (a unit for another unit, a time unit, a weekday): never
# said in other words by the model's reading. Hand-listed (general English, not from the dev data); stems compared.
UNIT_AND_TIME_WORDS = frozenset(stem(w) for w in (
    "second seconds minute minutes hour hours day days week weeks fortnight month months year years decade decades "
    "century centuries millennium quarter quarters weekend "
    "monday tuesday wednesday thursday friday saturday sunday "
    "metre metres meter meters kilometre kilometres kilometer kilometers centimetre centimetres millimetre "
    "millimetres mile miles foot feet inch inches yard yards nautical "
    "gram grams kilogram kilograms kilo kilos milligram milligrams pound pounds ounce ounces tonne tonnes ton tons "
    "stone litre litres liter liters millilitre millilitres gallon gallons pint pints "
    "degree degrees celsius fahrenheit kelvin percent per cent percentage "
    "acre acres hectare hectares "
    "dollar dollars euro euros yen yuan rupee rupees franc francs peso pesos cent cents penny pence "
    "watt watts kilowatt kilowatts volt volts amp amps calorie calories byte bytes megabyte gigabyte terabyte "
    "north south east west northern southern eastern western").split())


@dataclass(frozen=True)
class Paraphrase:
    """A claim word (offsets in the claim's text) said by an evidence word, and how close the model reads them."""

    start: int
    end: int
    evidence_word: str
    similarity: float


def _never_aligned(word: str) -> bool:
    return stem(word) in UNIT_AND_TIME_WORDS or month_of(word) is not None


def mid_sentence(text: str, start: int) -> bool:
    """Whether the word at ``start`` follows other words of its sentence (a capital there marks a name)."""
    j = start - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j >= 0 and text[j] not in ".!?:\"'\n"


def _opposed(claim_word: str, evidence_word: str) -> bool:
    ours, theirs = lexicon_side(claim_word), lexicon_side(evidence_word)
    return ours is not None and theirs is not None and ours != theirs


def said_in_other_words(claim: str, novel: Sequence[tuple[int, int]], claim_states: WordStates,
                        evidence: Sequence[tuple[str, WordStates]], threshold: float) -> list[Paraphrase]:
    """The ``novel`` words of ``claim`` (offsets in it) that a content word of the ``evidence`` texts says, by
    their contextual states (``claim_states`` of ``claim``; each evidence text with its states).

    Args:
        claim: The claim's text.
        novel: Its novel words' spans.
        claim_states: The claim's word states.
        evidence: The evidence texts with their word states, best first.
        threshold: The least cosine of two words' states that says they mean the same here.
    """
    words: list[str] = []
    rows: list[np.ndarray] = []
    for text, states in evidence:
        content = {(s, e) for s, e, _ in content_terms(text)}
        for (s, e), vec in zip(states.spans, states.vectors):
            word = text[s:e]
            if (s, e) in content and not _never_aligned(word) and not (word[:1].isupper() and mid_sentence(text, s)):
                words.append(word)
                rows.append(vec)
    if not rows:
        return []
    table = np.vstack(rows)
    out = []
    for start, end in novel:
        word = claim[start:end]
        if _never_aligned(word):
            continue
        inside = [i for i, (s, e) in enumerate(claim_states.spans) if start <= s and e <= end]
        if not inside:
            continue
        vec = claim_states.vectors[inside].mean(axis=0)
        vec = vec / max(float(np.linalg.norm(vec)), 1e-12)
        sims = table @ vec
        for j in np.argsort(-sims)[:3]:  # the closest few: an opposite at the top does not hide a synonym below
            if sims[j] < threshold:
                break
            if not _opposed(word, words[j]):
                out.append(Paraphrase(start, end, words[j], round(float(sims[j]), 3)))
                break
    return out
