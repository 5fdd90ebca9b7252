"""Headlines: a line in title case, whose grammar drops the words that say who acted.

"Dollar General Sued for Firing Pregnant Worker" has no "was": spaCy's parse reads the passive as active, and the
frames of such a line would say that Dollar General sued. The role check reads no frame from a headline
(:func:`halguard.grounding.roles.frames.frames_of`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["headline_tokens"]

# Short words a title leaves lower-case ("for", "of", "the").
_TITLE_SMALL_WORDS = frozenset({"a", "an", "the", "and", "or", "but", "nor", "for", "of", "on", "in", "at", "to", "by",
                                "as", "up", "with", "from", "into", "over", "vs"})


def headline_tokens(doc: Any) -> set[int]:
    """The indices of the tokens of headlines: a line or sentence in title case (at least four words, every one
    capitalised but the small ones, no end mark). The parser often runs a headline into the next line's sentence,
    so lines are cut at line breaks too."""
    out: set[int] = set()
    for sent in doc.sents:
        line: list[Any] = []
        for tok in [*sent, None]:
            if tok is None or "\n" in tok.text_with_ws:
                if tok is not None:
                    line.append(tok)
                words = [t.text for t in line if t.is_alpha]
                marks = [t.text for t in line if not t.is_space]
                if (len(words) >= 4 and marks[-1] not in (".", "!", "?")
                        and all(w[:1].isupper() or w.lower() in _TITLE_SMALL_WORDS for w in words)):
                    out.update(t.i for t in line)
                line = []
            else:
                line.append(tok)
    return out
