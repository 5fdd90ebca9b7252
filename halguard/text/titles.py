"""Titles and their abbreviations: what stands before a person's name and is not the name ("Rep. George Santos",
"Dr. Park", "St. Louis"). One table for the name reader (:func:`halguard.text.lexical.entity_mentions`: the word
after "Dr." opens no sentence) and the mention matcher (:mod:`halguard.text.mentions`: "Rep. George Santos" is
George Santos)."""

from __future__ import annotations

__all__ = ["NAME_ABBREVIATIONS", "TITLES"]

# Titles and their abbreviations (one entry per title: the forms that say it). A title is not the name of whom it
# precedes: "Rep. George Santos" is found when "George Santos" is. Hand-typed (no maintained list exists in a
# package halguard installs); English honorifics and offices as news text abbreviates them.
TITLES = (
    ("rep", "representative", "congressman", "congresswoman"),
    ("sen", "senator"),
    ("gov", "governor"),
    ("pres", "president"),
    ("dr", "doctor"),
    ("prof", "professor"),
    ("gen", "general"),
    ("lt", "lieutenant"),
    ("col", "colonel"),
    ("capt", "captain"),
    ("sgt", "sergeant"),
    ("cmdr", "commander"),
    ("adm", "admiral"),
    ("supt", "superintendent"),
    ("insp", "inspector"),
    ("det", "detective"),
    ("atty", "attorney"),
    ("hon", "honourable", "honorable"),
    ("rev", "reverend"),
    ("sec", "secretary"),
    ("amb", "ambassador"),
    ("mr", "mister"),
    ("mrs",),
    ("ms",),
    ("mx",),
    ("sir",),
    ("dame",),
    ("lord",),
    ("lady",),
    ("st", "saint"),
    ("judge",),
    ("justice",),
    ("mayor",),
    ("chancellor",),
    ("minister",),
    ("premier",),
    ("bishop",),
    ("cardinal",),
    ("coach",),
)

# The abbreviations written with a full stop before a name ("Dr. Park", "Sen. Warren", "St. Louis", "Mt. Hood"): the
# short first form of each title that has a longer one, the forms with no longer one, and two place prefixes.
NAME_ABBREVIATIONS = frozenset(
    {forms[0] for forms in TITLES if len(forms) > 1 and len(forms[0]) <= 4} | {"mrs", "ms", "mx", "mt", "ft"})
