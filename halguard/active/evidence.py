"""Evidence for a validation question or a repair, picked from the context by shared content words.

The pool is every passage the answer was generated from (plus what the app's retriever returned for validation
questions), cut into sentence windows; the windows sharing the most content-word stems and numbers with the query
win. Cheap and bounded (linear in the context), no model: the validation prompt does the reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from halguard.grounding.candidates import key_terms
from halguard.text.contexts import Source, chunk_source

__all__ = ["EvidencePool"]

# Words that only frame a validation question; sharing them says nothing about a passage.
_QUESTION_WORDS = frozenset({"evidence", "say", "says", "state", "states", "true", "correct", "context", "passage"})


def _stems(text: str) -> frozenset[str]:
    """Stems of the content words and numbers of ``text`` (numbers are what validation questions are often about)."""
    return key_terms(text, ignore=_QUESTION_WORDS)


@dataclass
class EvidencePool:
    """The passages of one answer (never shared between answers), with their windows' stems computed once."""

    sources: list[Source] = field(default_factory=list)
    _windows: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)
    _seen: set[tuple[str, str]] = field(default_factory=set)

    def add(self, sources: list[Source]) -> list[Source]:
        """Add passages (a passage already in the pool is skipped); returns the new ones."""
        new = []
        for s in sources:
            if (s.id, s.text) in self._seen:
                continue
            self._seen.add((s.id, s.text))
            self.sources.append(s)
            new.append(s)
            for chunk in chunk_source(s.text, sentences_per_chunk=2, max_chars=600):
                self._windows.append((s.id, chunk.text, _stems(chunk.text)))
        return new

    def best(self, query: str, *, k: int, max_chars: int, among: set[str] | None = None) -> list[tuple[str, str]]:
        """Up to ``k`` windows (source id, text) sharing content words with ``query``, best first, within
        ``max_chars`` together; ``among``: only these source ids."""
        wanted = _stems(query)
        scored = [(len(wanted & stems), -i, sid, text) for i, (sid, text, stems) in enumerate(self._windows)
                  if (among is None or sid in among) and wanted & stems]
        out, used = [], 0
        for _, _, sid, text in sorted(scored, reverse=True):
            if len(out) == k:
                break
            if used + len(text) > max_chars:  # a smaller window further down may still fit
                continue
            if any(text in t or t in text for _, t in out):  # overlapping windows repeat each other
                continue
            out.append((sid, text))
            used += len(text)
        return out

    def context(self, max_chars: int) -> list[tuple[str, str]]:
        """The passages in order, cut to ``max_chars`` together (the generation prompt's context)."""
        out, used = [], 0
        for s in self.sources:
            room = max_chars - used
            if room <= 0:
                break
            out.append((s.id, s.text[:room]))
            used += min(len(s.text), room)
        return out
