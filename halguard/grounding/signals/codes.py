"""A code's number changed: "SARS-CoV-4" where the passages write "SARS-CoV-2", "F-35" where they write "F-16".

The digits joined to a name by a hyphen are part of a code, not a quantity (:func:`.words.missing_numbers` skips
them, so "4" is not looked up on its own), and the name before them is found in the passages: the code as a whole
is what a fabrication changes. A code is changed where the passages write its name with other numbers and never
with the claim's ("SARS-CoV-2" only); a name they never write with a number says nothing ("COVID-19" against
"COVID" is the same disease).
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.grounding.signals.scope import Scope

__all__ = ["changed_codes"]

Span = tuple[int, int]

# A name (a capital somewhere in it, hyphenated parts allowed) and the digits joined to it by a hyphen.
_CODE = re.compile(r"\b([A-Za-z][A-Za-z0-9]{0,19}(?:-[A-Za-z][A-Za-z0-9]{0,19}){0,3})-(\d{1,4})\b")
# The most codes of one claim read (each is one scan of every passage).
_MAX_CODES = 8


def changed_codes(text: str, scope: Scope) -> list[Span]:
    """The codes of the claim whose name the passages write only with other numbers (spans in ``text``)."""
    found: list[Span] = []
    for m in islice(_CODE.finditer(text), _MAX_CODES):
        name, number = m.group(1), int(m.group(2))
        if not any(c.isupper() for c in name):
            continue  # "top-10", "run-3": words, not a code's name
        written = _numbers_written_with(name, scope)
        if written and number not in written:
            found.append((m.start(), m.end()))
    return found


def _numbers_written_with(name: str, scope: Scope) -> set[int]:
    """The numbers the passages join to ``name`` ("SARS-CoV-2", "SARS-CoV 2", "F16"), case aside."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}[- ]?(\d{{1,4}})(?![\d.,]\d)", re.IGNORECASE)
    return {int(m.group(1)) for src in scope.sources for m in pattern.finditer(src.text)}
