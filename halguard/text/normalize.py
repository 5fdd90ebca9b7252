"""Text as the checks read it: compatibility forms folded (NFKC) and invisible format characters removed.

A zero-width space inside "2\u200b019" hides the number 2019 from every check that reads digits, and a soft
hyphen or a word joiner inside a name hides the name. The checks therefore run on a normalised copy, and a map
from each of its characters back to the original text puts every offset in the verdict back on the text the
caller gave.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["FoldedTooLong", "Normalized", "is_blank", "normalize_text"]

# The format (Cf) characters of Unicode 14 (Python 3.11's unicodedata), as ranges: a table, because scanning
# every code point for its category at first use took 0.3 s. A format character added by a later Unicode
# version is not removed, only NFKC-folded like any other character.
_FORMAT_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
_FORMAT = re.compile("[" + "".join(
    re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _FORMAT_RANGES
) + "]")


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: only whitespace and format characters (zero-width spaces, soft hyphens,
    bidirectional marks, tags), which the checks remove. Linear in the text."""
    return not text.strip() or (not text.isascii() and not _FORMAT.sub("", text).strip())


class FoldedTooLong(ValueError):
    """The text grows past the caller's limit when folded (NFKC turns U+FDFA into 18 characters)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the text has more than {limit:,} characters once Unicode compatibility forms are folded")
        self.limit = limit


class Normalized:
    """A normalised text and the way back to the original.

    Attributes:
        text: The normalised text.
        original: The text as given.
    """

    __slots__ = ("_index", "original", "text")

    def __init__(self, original: str, text: str, index: list[int] | None) -> None:
        self.original = original
        self.text = text
        self._index = index  # index[j]: the original offset of normalised character j; None: the same text

    @property
    def changed(self) -> bool:
        return self._index is not None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the normalised span ``[start, end)``."""
        if self._index is None:
            return start, end
        if end <= start:
            pos = self._index[start] if start < len(self._index) else len(self.original)
            return pos, pos
        return self._index[start], self._index[end - 1] + 1


def normalize_text(text: str, *, max_chars: int | None = None) -> Normalized:
    """NFKC-fold ``text`` and drop its format characters, keeping a map back to the original offsets.

    ``max_chars``: raise :class:`FoldedTooLong` as soon as the folded text would be longer, so a size limit holds
    for the text the checks read, and memory stays bounded while folding (1 MB of U+FDFA is 18 MB folded).
    """
    if max_chars is not None and len(text) > max_chars:
        raise FoldedTooLong(max_chars)
    if text.isascii() or (unicodedata.is_normalized("NFKC", text) and not _FORMAT.search(text)):
        return Normalized(text, text, None)
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if _FORMAT.match(ch):
            continue
        folded = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        out.append(folded)
        index.extend([i] * len(folded))
        if max_chars is not None and len(folded) > 1 and len(index) > max_chars:
            raise FoldedTooLong(max_chars)
    return Normalized(text, "".join(out), index)
