"""How much of each passage the per-claim scans read, in one place.

Several checks read the passages again for each claim that has what they look for (posts, persons said "of" a body,
the sentences a fused claim's parts are compared with, a choice question's options, weekday names). Each reads only
the head of a passage: a megabyte passage is not scanned once per claim, and what an answer restates is mostly near
a page's top. Past the head, not read is no finding (never a reason to flag).
"""

from __future__ import annotations

__all__ = ["PASSAGE_HEAD_CHARS"]

# Hand-set (2026-11-29, with the first of these checks): 20,000 characters is about 3,000 words, longer than every
# passage of the dev files; a crafted 660 KB passage with 300 such claims took 8.4 s to check with this bound.
PASSAGE_HEAD_CHARS = 20_000
