"""Turn an answer into checkable claims: sentences with offsets, citations, and what was skipped."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from halguard.text.lexical import (
    affirms,
    content_terms,
    entity_mentions,
    is_enumerator,
    number_mentions,
    number_values,
    stem,
    term_set,
    word_spans,
)
from halguard.text.script import is_mostly_latin
from halguard.text.segment import check_deadline, split_sentences

__all__ = [
    "Claim",
    "ClaimSplit",
    "TOO_SHORT",
    "CitationMarker",
    "asked_sentence_of",
    "extract_claims",
    "find_citations",
    "is_foreign",
    "is_non_answer",
    "resolve_citation",
]

TOO_SHORT = "too short to carry a fact"
"""Why a sentence of under three words, with no number, in an answer of several sentences is skipped ("Yes.")."""
# A one-sentence answer of at most this many words is checked together with the question ("1994" alone states
# nothing; "In what year did X open? 1994" does). Hand-set, not fitted: a short-answer length, past which a
# sentence carries its own subject.
QUESTION_AWARE_MAX_WORDS = 12
# A short answer is checked with at most this many words of the question's last sentence (``asked_sentence_of``).
# Hand-set, not fitted: a long question, past which the question outweighs a short answer in the embedding.
QUESTION_CONTEXT_MAX_WORDS = 40
# A sentence ending like a list intro ("... include:") of at most this many words, stating nothing beyond the
# question, is skipped. Hand-set, not fitted (the hardening issue's rule: skip only what states nothing).
LIST_INTRO_MAX_WORDS = 20

# [S0], [s3], [1], [2, 3], [S1][S2], [doc-7], [Source 2]. A bracket with no bracket inside and at most
# _MAX_MARKER characters; its labels are split on commas and checked one by one. (A single regex with nested
# quantifiers over the labels backtracked exponentially on an unclosed "[S1, S2, ... S22".)
_BRACKET = re.compile(r"\[([^\[\]\n]{1,200})\]")
_LABEL = re.compile(r"(?:(?:source|doc(?:ument)?)\s*)?[A-Za-z]?[\w\-]{1,24}", re.IGNORECASE)
_CITE_ITEM = re.compile(r"^(?:(?:source|doc(?:ument)?)\s*)?([A-Za-z]?)(\d+)$", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)]|[a-z][.)]|#+)\s+")
# Openers and pleasantries ("Overall,", "Sure, here is", "I hope this helps"). They hide nothing only when what
# follows them states nothing: see _states_nothing. (Skipping every sentence that merely began like this let
# "Overall, the tower was completed in 1925." through unchecked.)
_OPENER = re.compile(
    r"^(?:i hope (?:this|that) helps|let me know if|feel free to|is there anything else|"
    r"(?:in )?(?:summary|conclusion|short)\b[,:]?|overall\b,?|to summari[sz]e\b,?|"
    r"(?:sure|certainly|of course|absolutely|great question)\b[!,.]?(?:\s*here (?:is|are))?|"
    # what the answer is ("Here's an objective overview of Rusty's Pizza Parlor ..."): what it is of is checked
    r"here(?:'s| is| are) (?:an? |the |some )?(?:(?:brief|short|objective|concise|quick|general) )?"
    r"(?:overview|summary|description|breakdown|rundown)(?: of)?\b|"
    # where the answer says it read it ("Based on the given passages, ..."): what follows is checked, the
    # attribution is no word of the world to find in the passages
    r"(?:based on|according to) (?:the )?(?:given |provided |above |available )?(?:structured )?(?:context|passages?|"
    r"information|text|documents?|sources?|data)(?: in (?:the )?json format)?,)",
    re.IGNORECASE,
)
# Words pleasantries, refusals and list intros are made of, and the generic words a refusal names what it lacks
# with ("the launch date"). Beyond these (and the question's own words) a sentence states something.
_FILLER_WORDS = frozenset(
    stem(w)
    for w in """help helps helpful hope questions question ask asking know knowledge let further clarification
    anything else happy glad useful feel free reach need needs more details detail additional other concerns
    welcome assist assistance summary overview answer answers response points point key list following below
    information info date dates year years time times name names number numbers amount specific exact reason
    reasons cause location place price cost found find available provide provided mention mentioned contain
    contains state stated specify specified give given say says said determine data source sources text
    documents document passages passage context here sure certainly course unfortunately sorry apologies
    unable able unclear unknown clear possible idea record way tell height size length width depth weight age
    based according alone precise precisely accurate accurately sufficient enough confidence confidently clarify
    definitive definitively certainty without article
    population distance duration speed temperature area volume capacity value rate status origin author
    owner founder""".split()
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
    hedge_span: tuple[int, int] | None = None  # an opener ("Overall,", "Sure, here is") left out of the check
    foreign_script: bool = False  # mostly in a script the local checks cannot read: numbers and names only
    asked: str = ""  # for a question-aware claim, the question's sentence it is checked with


@dataclass
class ClaimSplit:
    claims: list[Claim]
    skipped: list[tuple[int, int, str]]  # start, end, reason


def find_citations(text: str) -> list[CitationMarker]:
    """Citation markers in ``text``; each may hold several labels (``[1, 3]``). Linear in ``len(text)``."""
    out = []
    for m in _BRACKET.finditer(text):
        labels = tuple(p.strip() for p in m.group(1).split(","))
        if labels and all(_LABEL.fullmatch(lab) and _looks_like_citation(lab) for lab in labels):
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


def _asked(question: str | None) -> tuple[set[str], set[float]]:
    return term_set(question or ""), {round(v, 6) for v in number_values(question or "")}


# "in 200 words", "five steps", "a 93-word summary": a count of the answer's own parts, not a fact about the world.
_META_COUNT = re.compile(
    r"[\s-]{0,3}(?:main |key |simple |easy |short |brief )?(?:words?|sentences?|steps?|points?|tips?|ways?|paragraphs?|"
    r"bullet points?|items?|reasons?|things|facts|options|methods|parts|sections|stages)\b",
    re.IGNORECASE,
)


def _names_nothing(text: str, asked: tuple[set[str], set[float]]) -> bool:
    """Whether ``text`` names and counts nothing beyond the question."""
    terms, numbers = asked
    if any(round(m.value, 6) not in numbers for m in number_mentions(text)
           if not is_enumerator(text, m.start, m.end) and not _META_COUNT.match(text, m.end)):
        return False
    return not any(st not in terms for s, e in entity_mentions(text) for _, _, st in content_terms(text[s:e]))


def _states_nothing(text: str, asked: tuple[set[str], set[float]]) -> bool:
    """Whether ``text`` names, counts and says nothing beyond the question and the filler vocabulary."""
    return _names_nothing(text, asked) and all(
        st in asked[0] or st in _FILLER_WORDS for _, _, st in content_terms(text))


# What a decline lacks, said in one clause: "the passages do not provide specific information on how technicians
# get paid or their typical salaries". A comma, a semicolon or a clause word may start a statement of its own
# ("..., so the drug is safe"): then the sentence is checked.
_ANOTHER_CLAUSE = re.compile(r"[,;:]|\b(?:so|but|because|therefore|thus|hence|although|though|while|yet|however)\b",
                             re.IGNORECASE)


def _declines(sentence: str, asked: tuple[set[str], set[float]]) -> bool:
    """A refusal ("I don't know.", "The context does not mention the launch date.") that states nothing else: past
    the refusal, only the question's and generic words, or, in one clause, words for what it lacks that name and
    count nothing beyond the question (a sentence that says the passages lack something asserts nothing of the
    world: none of the 98 such sentences of RAGTruth's dev answers is in a labelled span)."""
    m = _NON_ANSWER.match(sentence)
    if m is None:
        return False
    rest = sentence[m.end():]
    return _states_nothing(rest, asked) or (_names_nothing(rest, asked) and not _ANOTHER_CLAUSE.search(rest))


# A sentence of a longer answer about the answering itself, naming the passages, the question or the answer, that
# states nothing else: "Therefore, I can confidently answer the question.", "This is mentioned in passage 2.", "If
# the passages do not provide sufficient information, the response would be: ...". On RAGTruth's dev answers 14 such
# sentences were faithful and one overlapped a labelled span by a parenthesis ("(Passage 2)"); 4 faithful ones were
# flagged. Not a one-sentence answer, nor one that affirms or denies ("The answer is yes." claims the question).
_ABOUT_THE_ANSWERING = re.compile(r"\b(?:passages?|question|answer|response|context)\b", re.IGNORECASE)
_YES_OR_NO = re.compile(r"\b(?:yes|no|true|false|correct|incorrect)\b", re.IGNORECASE)


def _about_the_answering(text: str, asked: tuple[set[str], set[float]]) -> bool:
    return (_ABOUT_THE_ANSWERING.search(text) is not None and not affirms(text) and not _YES_OR_NO.search(text)
            and _states_nothing(text, asked))


def _skip_reason(body: str, n_sentences: int, question: str | None,
                 asked: tuple[set[str], set[float]]) -> str | None:
    """Why a sentence is not checked, or None. Only sentences that state nothing checkable are skipped: a hedge,
    a pleasantry or a list intro followed by a name, a number or a content word is checked like any other.
    ``asked`` is the question's terms and numbers (``_asked``), read once per answer, not once per sentence."""
    words = word_spans(body)
    if not words:
        return "no words"
    text = body.strip().lstrip("*_ ").replace("’", "'")
    if _declines(text, asked) or (n_sentences > 1 and _about_the_answering(text, asked)):
        return "non-answer"
    opener = _OPENER.match(text)
    if opener and _states_nothing(text[opener.end():], asked):
        return "hedge or filler"
    if (_LIST_INTRO.search(body) and len(words) <= LIST_INTRO_MAX_WORDS
            and _states_nothing(body, (asked[0] | term_set(body), asked[1]))):
        return "list introduction"
    short_answer = n_sentences == 1 and question is not None
    # Word counts mean nothing in scripts written without spaces: a whole Chinese sentence is one "word".
    if not short_answer and len(words) < 3 and not number_mentions(body) and not is_foreign(body):
        return TOO_SHORT
    return None


def asked_sentence_of(question: str) -> str:
    """What a short answer is checked together with: the question's last asking sentence, at most
    ``QUESTION_CONTEXT_MAX_WORDS`` words of it. A long preamble ("I have a router from 2019 ... Does it support
    Wi-Fi?") would otherwise outweigh the answer in the embedding: repeating "Where is it?" 20 times turned
    "The tower is in Paris." from supported to hallucinated."""
    text = question.strip()
    asked_at = text.rfind("?")  # the last sentence that asks, if one does ("When did it open? Answer briefly.")
    if asked_at >= 0:
        text = text[: asked_at + 1]
    cut = max(text.rfind(mark, 0, len(text) - 1) for mark in (". ", "? ", "! ", "\n"))
    last = text[cut + 1 :].strip() if cut >= 0 else text
    words = word_spans(last)
    if len(words) > QUESTION_CONTEXT_MAX_WORDS:
        last = last[words[-QUESTION_CONTEXT_MAX_WORDS][0] :]
    return last


def is_foreign(text: str) -> bool:
    """Whether most letters of ``text`` (at least two) are outside the Latin script."""
    return not is_mostly_latin(text, min_letters=2)


def extract_claims(answer: str, question: str | None = None, *, deadline: float | None = None) -> ClaimSplit:
    """Split ``answer`` into claims and skipped sentences.

    A single-sentence answer given with a question is always kept and checked together with the question
    ("Arthur's Magazine" alone carries no claim; "Q: which magazine came first? A: Arthur's Magazine" does).
    Sentences made only of citation markers attach their citations to the sentence before them.
    """
    markers = find_citations(answer)
    sentences = split_sentences(answer, deadline=deadline)
    claims: list[Claim] = []
    skipped: list[tuple[int, int, str]] = []
    n = len(sentences)
    asked = _asked(question)
    asked_sentence = asked_sentence_of(question) if question else ""
    next_marker = 0  # markers and sentences are both in order: one pass over each
    for i, (start, end) in enumerate(sentences):
        if i % 256 == 0:  # a 100 KB answer can hold 14,000 sentences; the budget holds here too
            check_deadline(deadline)
        while next_marker < len(markers) and markers[next_marker].start < start:
            next_marker += 1
        own = []
        while next_marker < len(markers) and markers[next_marker].end <= end:
            own.append(markers[next_marker])
            next_marker += 1
        labels = tuple(lab for m in own for lab in m.labels)
        rel_spans = [(m.start - start, m.end - start) for m in own]
        text = answer[start:end]
        body = _LIST_MARKER.sub("", _strip_spans(text, rel_spans))
        if not word_spans(body) and labels and claims:
            prev = claims[-1]  # "[2]" on its own after a sentence belongs to that sentence
            prev.citations = prev.citations + labels
            prev.citation_spans.extend((m.start, m.end) for m in own)
            continue
        reason = _skip_reason(body, n, question, asked)
        if reason:
            skipped.append((start, end, reason))
            continue
        hedge = _opener_span(text, start)
        if hedge is not None:  # the opener is not part of what the sentence states
            body = _LIST_MARKER.sub("", _strip_spans(answer[hedge[1] : end], [(a - hedge[1], b - hedge[1])
                                                     for a, b in ((m.start, m.end) for m in own) if a >= hedge[1]]))
            body = body.lstrip(" ,:;-")
        question_aware = bool(question) and n == 1 and len(word_spans(body)) <= QUESTION_AWARE_MAX_WORDS
        check = f"{asked_sentence} {body}" if question_aware else body
        claims.append(
            Claim(
                start=start,
                end=end,
                text=text,
                check_text=check,
                citations=labels,
                question_aware=question_aware,
                citation_spans=[(m.start, m.end) for m in own],
                hedge_span=hedge,
                foreign_script=is_foreign(body),
                asked=asked_sentence if question_aware else "",
            )
        )
    return ClaimSplit(claims=claims, skipped=skipped)


def _opener_span(sentence: str, offset: int) -> tuple[int, int] | None:
    """The span (in answer offsets) of an opener ("Overall,", "Sure, here is") at the start of a sentence."""
    lead = len(sentence) - len(sentence.lstrip().lstrip("*_ "))
    m = _OPENER.match(sentence[lead:].replace("’", "'"))
    if m is None or m.end() == 0:
        return None
    return offset + lead, offset + lead + m.end()


# A sentence that declines to answer. Matched at the start of each sentence, after an optional apology.
_NON_ANSWER = re.compile(
    r"^(?:(?:unfortunately|sorry|i'?m sorry|i am sorry|apologies|therefore|thus|hence|so|however|consequently|"
    r"as a result|in conclusion|ultimately|overall)[,.!]?\s{0,3}(?:but\s{1,3})?)?"
    r"(?:(?:based on|according to) (?:the )?(?:given |provided |above )?(?:context|passages?|information|text|"
    r"documents?|sources?)(?: alone)?,?\s{0,3})?(?:without (?:further|more|additional) (?:information|context|"
    r"details),?\s{0,3})?(?:"
    r"i (?:do not|don'?t|really don'?t) (?:know|have (?:enough |any |that )?(?:information|data|details|access))|"
    r"i'?m not (?:sure|certain|aware)|i am not (?:sure|certain|aware)|not sure|"
    r"i (?:can(?:no|')?t|could ?n[o']t|am unable to|'?m unable to) (?:answer|determine|find|help|say|tell|provide|"
    r"confirm|verify|know)|"
    # "Unable to answer based on given passages.", "it is unable to provide a precise answer" (RAGTruth's QA
    # answers decline so; none of the 98 such sentences of its dev answers is in a labelled span)
    r"(?:it is |it's )?(?:unable|not possible|impossible) to (?:answer|determine|provide|say|tell|confirm|verify)|"
    r"(?:it |this |that )?(?:cannot|can'?t|could not|couldn'?t) be (?:determined|answered|said|confirmed|known)|"
    r"please (?:provide|clarify|specify|rephrase)|"
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

    Every sentence must decline, and state nothing beyond the question and generic words: "I don't know when
    Apollo 11 landed." is a non-answer to "When did Apollo 11 land?"; "I'm not sure, but it landed in 1969."
    carries a fact of its own and is not. Used by paraphrase sampling, where a refusal among the sampled
    answers is not a contradiction of a grounded one, and by the claim splitter, which does not check them.
    """
    sentences = split_sentences(text)
    asked = _asked(question)
    return bool(sentences) and all(
        _declines(text[start:end].strip().lstrip("*_-• ").replace("’", "'"), asked) for start, end in sentences
    )
