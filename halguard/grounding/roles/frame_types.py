"""What a frame is: a predicate and its arguments (:class:`Frame`, :class:`Argument`); :mod:`.frames` reads them from
a dependency parse, :mod:`.matching` compares them."""

from __future__ import annotations

from dataclasses import dataclass

from halguard.text.lexical import stem

__all__ = ["Argument", "Frame"]


@dataclass(frozen=True)
class Argument:
    """One argument of a frame: its words as offsets in the parsed text and what identifies it."""

    start: int
    end: int
    text: str
    head: str  # the head word's lemma, lower-cased
    names: frozenset[str]  # its proper-name words, lower-cased ("harold", "ii")
    numbers: frozenset[float]  # its numbers (years included)
    words: frozenset[str]  # its content words' stems
    pronoun: bool = False  # a pronoun that was not resolved: it says nothing about who
    # The names of the head itself, with its compounds, appositions and possessor ("by the Italian engineer Luigi
    # Menabrea on Charles Babbage's Analytical Engine": luigi, menabrea): who the argument is, not what it mentions.
    core_names: frozenset[str] = frozenset()
    core_text: str = ""  # those names as written, in order ("Luigi Menabrea", "the US"): for the mention matcher
    # A reported clause's pronoun read as its reporter ("Kovar said that it had been bought"): a guess, right for
    # a company's statement about itself, wrong for "Morris said she remains unconscious". It may agree, never
    # differ.
    reported: bool = False
    # The head is a name, or named by an apposition ("the Italian engineer Luigi Menabrea"), not a description ("the
    # grandmother of two"): only names differ from names.
    head_is_name: bool = False

    @property
    def identity(self) -> frozenset[str]:
        """The names that say who the argument is: its head's. An argument whose head is no name ("a business in
        Santa Barbara", "the trucking division from Palmera Freight") mentions names but is not one of them."""
        return self.core_names

    @property
    def described_by(self) -> frozenset[str]:
        """Its content words that are not names ("header" in "a header from Lena Okafor")."""
        return self.words - {stem(n) for n in self.names}


@dataclass(frozen=True)
class Frame:
    """A predicate and its arguments, in the order they were found (a role can hold several arguments)."""

    predicate: str  # the lemma ("buy", "make up", "purchase")
    stem: str  # its stem (halguard.text.lexical.stem), for matching synonyms and derivations
    negated: bool
    nominal: bool  # an event noun ("purchase of"), not a verb
    slots: tuple[tuple[str, Argument], ...]
    # the verb's offsets in the parsed text (a gapped or nominal frame: none; a copula's relation: its noun's)
    at: tuple[int, int] = (-1, -1)
    # the verb takes a clause ("saying he is ...", "helping to offset", "went on to win"): what it says is there
    clausal: bool = False

    def get(self, role: str) -> list[Argument]:
        return [a for r, a in self.slots if r == role]
