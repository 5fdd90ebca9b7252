"""Turn an answer into checkable claims: sentences with offsets, citations, and what was skipped."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from halguard.lexical import content_terms, entity_mentions, number_mentions, number_values, term_set, word_spans
from halguard.segment import split_sentences

__all__ = [
    "Claim",
    "ClaimSplit",
    "CitationMarker",
    "extract_claims",
    "find_citations",
    "is_non_answer",
    "resolve_citation",
]

# [S0], [s3], [1], [2, 3], [S1][S2], [doc-7], [Source 2]
_CITATION = re.compile(r"\[((?:source\s*|doc(?:ument)?\s*)?[A-Za-z]?[\w\-]{0,24}(?:\s*,\s*[A-Za-z]?[\w\-]{1,24})*)\]")
_CITE_ITEM = re.compile(r"^(?:(?:source|doc(?:ument)?)\s*)?([A-Za-z]?)(\d+)$", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)]|[a-z][.)]|#+)\s+")
_HEDGES = re.compile(
    r"^(?:i hope (?:this|that) helps|let me know if|feel free to|i(?:'| a)m not sure|i do(?:n't| not) know|"
    r"i cannot (?:answer|determine|find)|i can(?:'|no)t (?:answer|determine|find)|"
    r"(?:unfortunately, )?(?:the|this) (?:provided )?(?:context|passages?|information|text) "
    r"(?:does not|doesn't) (?:provide|contain|mention|say|specify)|"
    r"(?:in )?(?:summary|conclusion|short)[,:]?$|overall,? |is there anything else|"
    r"(?:i am |i'm )?unable to (?:answer|determine|find)|"
    r"(?:the )?(?:given|provided) (?:passages?|context|information|documents?) (?:do(?:es)? not|don't|doesn't)|"
    r"(?:sure|certainly|of course)[!,.]? ?(?:here (?:is|are))?)",
    re.IGNORECASE,
)
_LIST_INTRO = re.compile(
    r"(?:\b(?:the following|as follows|include|includes|including|are|is|below)\s*:?|:)\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class CitationMarker:
    """A citation marker like ``[S0]`` found in the answer."""

    start: int
    end: int
    labels: tuple[str, ...]


@dataclass
class Claim:
    """One sentence of the answer to check.

    Attributes:
        start: Offset of the sentence in the answer.
        end: End offset (exclusive).
        text: ``answer[start:end]``.
        check_text: The text compared with the evidence: citation markers removed, and for a short
            answer to a question, the question prepended so "Arthur's Magazine" is checked as an answer.
        citations: Citation labels the sentence carries (e.g. ``("S0", "2")``).
        question_aware: Whether ``check_text`` includes the question.
    """

    start: int
    end: int
    text: str
    check_text: str
    citations: tuple[str, ...] = ()
    question_aware: bool = False
    citation_spans: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class ClaimSplit:
    claims: list[Claim]
    skipped: list[tuple[int, int, str]]  # start, end, reason


def find_citations(text: str) -> list[CitationMarker]:
    """Citation markers in ``text``; each may hold several labels (``[1, 3]``)."""
    out = []
    for m in _CITATION.finditer(text):
        labels = tuple(p.strip() for p in m.group(1).split(",") if p.strip())
        if labels and all(_looks_like_citation(lab) for lab in labels):
            out.append(CitationMarker(m.start(), m.end(), labels))
    return out


def _looks_like_citation(label: str) -> bool:
    return bool(_CITE_ITEM.match(label)) or ("-" in label or "_" in label)


def resolve_citation(label: str, source_ids: list[str]) -> str | None:
    """Map a citation label to a source id.

    Rules, first match wins: a label equal to a source id; ``S<n>`` is the n-th source counting from 0;
    a bare number ``<n>`` is the n-th source counting from 1 (the way people number references).
    Returns None when the label names no source.
    """
    if label in source_ids:
        return label
    m = _CITE_ITEM.match(label)
    if not m:
        return None
    prefix, n = m.group(1), int(m.group(2))
    if prefix.lower() == "s" and n < len(source_ids):
        return source_ids[n]
    if not prefix and 1 <= n <= len(source_ids):
        return source_ids[n - 1]
    return None


def _strip_spans(text: str, spans: list[tuple[int, int]]) -> str:
    out, cursor = [], 0
    for s, e in spans:
        out.append(text[cursor:s])
        cursor = e
    out.append(text[cursor:])
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", "".join(out))).strip()


def _skip_reason(body: str, n_sentences: int, question: str | None) -> str | None:
    words = word_spans(body)
    if not words:
        return "no words"
    if _HEDGES.match(body.strip().lstrip("*_ ")):
        return "hedge or filler"
    if _LIST_INTRO.search(body) and len(words) <= 20:
        return "list introduction"
    short_answer = n_sentences == 1 and question is not None
    if not short_answer and len(words) < 3 and not number_mentions(body):
        return "too short to carry a fact"
    return None


def extract_claims(answer: str, question: str | None = None) -> ClaimSplit:
    """Split ``answer`` into claims and skipped sentences.

    A single-sentence answer given with a question is always kept and checked together with the question
    ("Arthur's Magazine" alone carries no claim; "Q: which magazine came first? A: Arthur's Magazine" does).
    Sentences made only of citation markers attach their citations to the sentence before them.
    """
    markers = find_citations(answer)
    sentences = split_sentences(answer)
    claims: list[Claim] = []
    skipped: list[tuple[int, int, str]] = []
    n = len(sentences)
    for start, end in sentences:
        own = [m for m in markers if m.start >= start and m.end <= end]
        labels = tuple(lab for m in own for lab in m.labels)
        rel_spans = [(m.start - start, m.end - start) for m in own]
        text = answer[start:end]
        body = _LIST_MARKER.sub("", _strip_spans(text, rel_spans))
        if not word_spans(body) and labels and claims:
            prev = claims[-1]  # "[2]" on its own after a sentence belongs to that sentence
            prev.citations = prev.citations + labels
            prev.citation_spans.extend((m.start, m.end) for m in own)
            continue
        reason = _skip_reason(body, n, question)
        if reason:
            skipped.append((start, end, reason))
            continue
        question_aware = bool(question) and n == 1 and len(word_spans(body)) <= 12
        check = f"{question.strip()} {body}" if question_aware and question else body
        claims.append(
            Claim(
                start=start,
                end=end,
                text=text,
                check_text=check,
                citations=labels,
                question_aware=question_aware,
                citation_spans=[(m.start, m.end) for m in own],
            )
        )
    return ClaimSplit(claims=claims, skipped=skipped)


# A sentence that declines to answer. Matched at the start of each sentence, after an optional apology.
_NON_ANSWER = re.compile(
    r"^(?:(?:unfortunately|sorry|i'?m sorry|i am sorry|apologies)[,.!]?\s*(?:but\s+)?)?(?:"
    r"i (?:do not|don'?t|really don'?t) (?:know|have (?:enough |any |that )?(?:information|data|details|access))|"
    r"i'?m not (?:sure|certain|aware)|i am not (?:sure|certain|aware)|not sure|"
    r"i (?:can(?:no|')?t|could ?n[o']t|am unable to|'?m unable to) (?:answer|determine|find|help|say|tell|provide|"
    r"confirm|verify|know)|"
    r"i have no (?:information|idea|data|knowledge|details)|"
    r"(?:there is|there's) no (?:information|mention|data|answer|record|way to (?:know|tell|determine))|"
    r"no (?:information|answer|data) (?:is |was )?(?:available|provided|given|found)|"
    r"(?:the|this|that) (?:provided |given )?(?:context|passages?|information|text|documents?|sources?) "
    r"(?:does not|doesn'?t|do not|don'?t|did not|didn'?t) (?:provide|contain|mention|say|specify|include|state|give)|"
    r"(?:it is|it's) (?:not (?:possible|clear) to (?:say|determine|tell)|unclear|unknown)|"
    r"(?:the answer|this) (?:is|cannot be) (?:not )?(?:known|determined|found|available|unknown)|"
    r"unknown|n/?a|no answer|no idea)\b",
    re.IGNORECASE,
)


def is_non_answer(text: str, question: str | None = None) -> bool:
    """Whether ``text`` only declines to answer ("I don't know.", "The context does not mention it.").

    Every sentence must decline, and every name or number in it must come from ``question``: "I don't know
    when Apollo 11 landed." is a non-answer to "When did Apollo 11 land?"; "I'm not sure, but it landed in
    1969." carries a fact of its own and is not. Used by paraphrase sampling, where a refusal among the sampled
    answers is not a contradiction of a grounded one.
    """
    sentences = split_sentences(text)
    if not sentences:
        return False
    asked = term_set(question or "")
    asked_numbers = {round(v, 6) for v in number_values(question or "")}
    for start, end in sentences:
        sentence = text[start:end].strip().lstrip("*_-• ").replace("’", "'")
        if not _NON_ANSWER.match(sentence):
            return False
        names = [st for s, e in entity_mentions(sentence) for _, _, st in content_terms(sentence[s:e])]
        if any(st not in asked for st in names) or any(round(m.value, 6) not in asked_numbers
                                                        for m in number_mentions(sentence)):
            return False
    return True
