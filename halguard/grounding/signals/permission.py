"""Permission granted where a passage refuses it: "children under 12 can visit Ward 9" against "Children under 12 may
visit only when accompanied by an adult, and are not permitted on Ward 9 (Oncology)"; and a requirement denied where a
passage states it: "you don't need to send the router back" against "You can cancel within 14 days ... as long as you
return the router".

The claim's "can" is a stopword, so the negation check reads no word of it that the passage negates. Read here: the
claim grants something plainly ("can", "may", "is allowed to", "is permitted to"; never negated: "can't", "cannot",
"may not" are the claim's own negation, and "if you can" grants nothing), and a passage clause refuses it ("not
permitted", "aren't allowed to", "never allowed") with the words that say what is refused ("on Ward 9", "in the
café"): the first of them is the claim's. A passage that refuses one thing and grants another ("Dogs are not allowed
in the café, but they can sit with you on the terrace") is read for the refused thing only. Read by
:func:`.negation.negation_mismatch`, where the claim states its evidence sentence's proposition (the aligned share of
its words, less its words of permission or requirement).

A requirement is read the same way: the claim denies one ("don't need to", "doesn't have to", "no need to", "not
required to") of a thing (the words after its verb: "the router") that a passage requires ("must", "need to",
"have to", "required to", "as long as", "provided", "only if", not negated) with each of those words after its own
verb ("return the router"); a price ("don't have to pay for the router") is the price checks' to read.

Bounded: at most :data:`MAX_REFUSALS` refusals or requirements read from a text.
"""

from __future__ import annotations

import re
from itertools import islice

from halguard.grounding.signals.closest import shared_share
from halguard.text.lexical import content_terms, term_set

__all__ = ["MAX_REFUSALS", "modality_turned", "permission_refused", "requirement_denied"]

MAX_REFUSALS = 4

_GRANTED = re.compile(r"\b(?:can|may|(?:is|are)\s{1,3}(?:allowed|permitted|able)\s{1,3}to)\b(?!\s{1,3}not\b)",
                      re.IGNORECASE)
_REFUSED_BY_CLAIM = re.compile(r"\b(?:cannot|can['’]t|mayn['’]t|if\s{1,3}(?:\w+\s{1,3})?(?:can|may))\b",
                               re.IGNORECASE)
# A refusal and what it refuses, to the clause's end: "are not permitted on Ward 9 (Oncology)".
_REFUSAL = re.compile(r"(?:\b(?:not|never)|n['’]t)\s{1,3}(?:be\s{1,3})?(?:allowed|permitted)\b([^,;:.!?]{0,80})",
                      re.IGNORECASE)
_CLAUSE_END = re.compile(r"\b(?:but|and|while|whereas|although|though|so)\b", re.IGNORECASE)


def permission_refused(claim: str, evidence: str) -> bool:
    """Whether ``claim`` grants plainly what a clause of ``evidence`` refuses, naming the refused thing (see the
    module)."""
    if not _GRANTED.search(claim) or _REFUSED_BY_CLAIM.search(claim):
        return False
    claim_terms = {st for _, _, st in content_terms(claim)}
    for m in islice(_REFUSAL.finditer(evidence), MAX_REFUSALS):
        refused = m.group(1)
        end = _CLAUSE_END.search(refused)
        terms = content_terms(refused[:end.start()] if end else refused)
        if terms and terms[0][2] in claim_terms:
            return True
    return False


# A requirement the claim denies, and what it requires: "don't need to send the router back".
_DENIED_NEED = re.compile(r"(?:(?:\b(?:not|never)|n['’]t)\s{1,3}(?:need|have|required)|\bno\s{1,3}need)\s{1,3}to\s{1,3}"
                          r"([^,;:.!?]{1,80})", re.IGNORECASE)
# A requirement a passage states: "must return the router", "as long as you return the router".
_REQUIRED = re.compile(r"\b(?:must|needs?\s{1,3}to|ha(?:ve|s)\s{1,3}to|(?:is|are)\s{1,3}required\s{1,3}to"
                       r"|as\s{1,3}long\s{1,3}as|provided(?:\s{1,3}that)?|only\s{1,3}if)\s{1,3}(?!not\b)([^,;:.!?]{1,80})",
                       re.IGNORECASE)
# A requirement the passage itself denies ("no need to dress to impress"): no requirement.
_NEGATED_BEFORE = re.compile(r"(?:\b(?:no|not|never)|n['’]t)\s{1,3}$", re.IGNORECASE)
_PRICE_VERBS = frozenset({"pay", "cost", "charg", "spend"})
# A phrasal verb's particle is its verb's ("send the router back" requires the router).
_PARTICLES = frozenset({"back", "out", "up", "down", "off", "away", "over", "in", "on"})
# The required act ends where its own condition begins: "send the router back if you cancel" requires the router, not
# the cancelling.
_CONDITION_START = re.compile(r"\b(?:if|unless|when|whenever|once|provided|as\s{1,3}long\s{1,3}as)\b", re.IGNORECASE)


def _things(text: str) -> set[str]:
    """The content words (stems) of a required act's words, after its verb, to the clause's end."""
    ends = [m.start() for m in (_CLAUSE_END.search(text), _CONDITION_START.search(text)) if m]
    terms = [st for _, _, st in content_terms(text[:min(ends)] if ends else text)]
    return set(terms[1:]) - _PARTICLES if terms and terms[0] not in _PRICE_VERBS else set()


def requirement_denied(claim: str, evidence: str) -> bool:
    """Whether ``claim`` denies a requirement of a thing that ``evidence`` requires (see the module)."""
    denied = [things for m in islice(_DENIED_NEED.finditer(claim), MAX_REFUSALS) if (things := _things(m.group(1)))]
    if not denied:
        return False
    required = [_things(m.group(1)) for m in islice(_REQUIRED.finditer(evidence), MAX_REFUSALS)
                if not _NEGATED_BEFORE.search(evidence[max(0, m.start() - 20):m.start()])]
    return any(things <= theirs for things in denied for theirs in required if theirs)


def modality_turned(claim: str, evidence: str, claim_terms: set[str], evidence_terms: set[str],
                    aligned_overlap: float) -> bool:
    """Whether ``claim`` grants what ``evidence`` refuses or denies what it requires, stating its proposition: at
    least ``aligned_overlap`` of the claim's words (``claim_terms``, stems) but its words of permission or requirement
    ("can", "don't need to": the passage says them its own way, "not permitted", "as long as") are in
    ``evidence_terms`` ("send the router back if you cancel within 14 days" against "You can cancel within 14 days
    ... as long as you return the router")."""
    if not (permission_refused(claim, evidence) or requirement_denied(claim, evidence)):
        return False
    modal = [m.group() for m in islice(_GRANTED.finditer(claim), MAX_REFUSALS)]
    modal += [claim[m.start():m.start(1)] for m in islice(_DENIED_NEED.finditer(claim), MAX_REFUSALS)]
    return shared_share(claim_terms - term_set(" ".join(modal)), evidence_terms) >= aligned_overlap
