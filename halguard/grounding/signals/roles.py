"""A claim's role conflicts (:mod:`halguard.grounding.roles`) as a signal: offsets in the answer, with reasons."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from halguard.grounding.roles import Argument, role_conflicts
from halguard.grounding.roles.arguments import months
from halguard.grounding.roles.parse import parsed_frames
from halguard.grounding.roles.verbs import verbs_said
from halguard.grounding.signals.affiliations import affiliations_moved
from halguard.grounding.signals.all_hours import all_hours_widened
from halguard.grounding.signals.closest import ClosestSentence, closest_sentence, fused_parts
from halguard.grounding.signals.excepted import exceptions_turned
from halguard.grounding.signals.excluded import exclusions_turned
from halguard.grounding.signals.joined import joined_otherwise
from halguard.grounding.signals.labels import labels_moved
from halguard.grounding.signals.list_items import figures_listed_otherwise
from halguard.grounding.signals.measure import checked_text
from halguard.grounding.signals.moved import moved_names
from halguard.grounding.signals.moved_numbers import numbers_exchanged, numbers_moved, units_swapped
from halguard.grounding.signals.only_added import only_added
from halguard.grounding.signals.ordinal_tiers import ordinal_swapped
from halguard.grounding.signals.priced_free import free_but_priced
from halguard.grounding.signals.prose_hours import hours_agreed, prose_hours_moved
from halguard.grounding.signals.scope import Scope
from halguard.grounding.signals.speakers import speakers_moved
from halguard.grounding.signals.times_moved import times_moved
from halguard.grounding.signals.titles import posts_moved
from halguard.grounding.signals.transposed import transposed_words
from halguard.grounding.signals.widened import widened_scopes
from halguard.grounding.signals.working_days import days_requalified
from halguard.text.claims import Claim
from halguard.text.clock import clock_times
from halguard.text.dates import MONTHS
from halguard.text.lexical import content_terms, stem

__all__ = ["VERB_EVIDENCE_TEXTS", "RoleFindings", "claim_role_conflicts", "claim_verbs_said"]


# The checks that read a claim's text against the passages' texts alone (each called as ``check(text, sources)``).
_SENTENCE_CHECKS = (labels_moved, widened_scopes, exceptions_turned, exclusions_turned, days_requalified, only_added,
                    prose_hours_moved, joined_otherwise, all_hours_widened, free_but_priced)


class RoleFindings(NamedTuple):
    """A claim's role conflicts (offsets in the answer, with reasons), and the spans of those that put a number of
    the passages where they give another number, no time of day (the finding kind ``moved_numbers``)."""

    conflicts: list[tuple[int, int, str]]
    moved_numbers: list[tuple[int, int]]


def claim_role_conflicts(claim: Claim, evidence: Sequence[str], scope: Scope, *, copy_overlap: float = 1.0
                         ) -> RoleFindings:
    """The role conflicts of ``claim`` with its evidence chunks' texts (best first), as ``(start, end, reason)``
    in the answer: the frames' (:mod:`halguard.grounding.roles`), a name of the passages moved into a copy of a
    sentence that names another in its place (:mod:`.moved`; a copy holds ``copy_overlap`` of the claim's other
    words) or a number that gives another, or a unit (:mod:`.moved_numbers`), or a time of day
    (:mod:`.times_moved`), two things of a copied sentence that trade places (:mod:`.transposed`), a one-holder post
    given to another of the passages' people (:mod:`.titles`), a group the passages restrict said whole
    (:mod:`.widened`), a thing they except said included or the reverse (:mod:`.excepted`), a thing their list
    excludes said included (:mod:`.excluded`), one of a list they give said the only one (:mod:`.only_added`), two
    things joined otherwise ("both" for "or", or for one said "only": :mod:`.joined`), a window of hours said as
    every hour (:mod:`.all_hours`), a day given another day's hours (:mod:`.prose_hours`), working days said as days
    (:mod:`.working_days`), a thing said free that they price (:mod:`.priced_free`), words another speaker said
    (:mod:`.speakers`), and a person given another's body (:mod:`.affiliations`); with the spans of those that are
    moved numbers (:class:`RoleFindings`). The claim is read as the other signals read it
    (:func:`.measure.checked_text`): "[2]" is no number, and "I think" no frame.

    A name or number moved within the passage counts only when the passage (not the question) has it: one the
    passage lacks is the missing names and numbers' finding.
    """
    text = checked_text(claim)

    def elsewhere(arg: Argument) -> bool:
        if arg.numbers & scope.context_numbers:
            return True
        return any(stem(name) in scope.context_terms for name in arg.names) or any(
            stem(MONTHS[int(m) - 1]) in scope.context_terms for m in months(arg))

    frame_conflicts = _hours_kept(role_conflicts(text, evidence, elsewhere), text, scope)
    found = [(c.start, c.end, c.reason) for c in frame_conflicts]
    numeric = [(c.start, c.end) for c in frame_conflicts if c.number]

    def unclaimed(start: int, end: int) -> bool:  # no earlier finding covers any of it: each span is said once
        return not any(a < end and start < b for a, b, _ in found)

    if evidence:
        # The copy checks read the claim against its best chunk's closest sentence, and each part of a fused claim
        # against the passages' closest sentence: one check each, whose offsets are shifted to the claim.
        sources = [src.text for src in scope.sources]
        copies = [(0, text, ClosestSentence.of(text, evidence[0])),
                  *((at, part, ClosestSentence.among(part, sources)) for at, part in fused_parts(text))]
        for at, part, closest in copies:
            moved_numbers = [*numbers_moved(part, closest, scope, copy_overlap),
                             *numbers_exchanged(part, closest, copy_overlap),
                             *ordinal_swapped(part, closest, copy_overlap)]
            # a moved number is recorded as one only where its finding is: a moved name found first claims the span
            candidates = [*((m, False) for m in moved_names(part, closest, scope, copy_overlap)),
                          *((m, True) for m in moved_numbers),
                          *((m, False) for m in units_swapped(part, closest, copy_overlap)),
                          *((m, False) for m in transposed_words(part, closest, sources, copy_overlap))]
            for (s, e, why), is_number in candidates:
                if unclaimed(at + s, at + e):
                    found.append((at + s, at + e, why))
                    if is_number:
                        numeric.append((at + s, at + e))
        found += [m for m in [*times_moved(text, scope, sources), *posts_moved(text, scope),
                              *figures_listed_otherwise(text, sources, scope.context_numbers),
                              *(m for check in _SENTENCE_CHECKS for m in check(text, sources)),
                              *speakers_moved(text, sources, scope.context_terms),
                              *affiliations_moved(text, scope)]
                  if unclaimed(m[0], m[1])]
    # a time of day given otherwise is the hours' and the times' to read: a record's "10:30" against a review's "10am"
    # is no moved number (and no finding that blocks), unless the claim's times of day, two or more, are each one the
    # passages give: it exchanged them ("Full-marathon runners start at 8:15 am ..., while the half marathon starts
    # at 7:30 am" where the full starts at 7:30 and the half at 8:15)
    clocks = clock_times(text)
    exchanged = len(clocks) >= 2 and all(t.minutes & scope.clocks for t in clocks)
    numbers = [(claim.start + s, claim.start + e) for s, e in numeric
               if exchanged or not any(t.start < e and s < t.end for t in clocks)]
    return RoleFindings([(claim.start + s, claim.start + e, why) for s, e, why in found], numbers)


def _hours_kept(conflicts: list, text: str, scope: Scope) -> list:
    """The frame conflicts, less those on the claim's times of day where a passage sentence gives each day the claim
    names the hours it gives (:func:`.prose_hours.hours_agreed`): "The practice opens 9am to 1pm on the first Saturday"
    is no 9am moved from "opens 8am to 6pm Monday to Thursday, ..., and 9am to 1pm on the first Saturday" (a frame
    reads the sentence's first range as the verb's)."""
    clocks = clock_times(text) if any(c.number for c in conflicts) else []
    if not clocks or not hours_agreed(text, [src.text for src in scope.sources]):
        return conflicts
    return [c for c in conflicts if not any(t.start < c.end and c.start < t.end for t in clocks)]


# Evidence chunks a claim's novel verbs are read against: its best two (a verb far away is too often another event).
VERB_EVIDENCE_TEXTS = 2


def claim_verbs_said(claim: Claim, evidence: Sequence[str], novel: Sequence[tuple[int, int]]
                     ) -> list[tuple[int, int, str]]:
    """The ``novel`` words of ``claim`` (answer offsets) that are verbs its best evidence chunks say with a related
    verb of the same participants (:mod:`halguard.grounding.roles.verbs`), as ``(start, end, evidence verb)`` in the
    answer. Nothing is parsed when no novel word is left or the role check cannot run."""
    if not novel:
        return []
    claim_frames = parsed_frames(checked_text(claim))
    if not claim_frames:
        return []
    wanted = {(s - claim.start, e - claim.start) for s, e in novel}
    if not any(frame.at in wanted for frame in claim_frames):
        return []
    # The sentence of each chunk that shares most words with the claim: the event it restates is there, and a
    # sentence parses in a fraction of a chunk's time (QA p50 +11 ms parsing whole chunks, 2026-11-28).
    terms = {st for _, _, st in content_terms(claim.text)}
    frames = [f for text in evidence[:VERB_EVIDENCE_TEXTS]
              for f in (parsed_frames(closest_sentence(terms, text)) or ())]
    return [(claim.start + s, claim.start + e, word) for s, e, word in verbs_said(
        [f for f in claim_frames if f.at in wanted], frames)]
