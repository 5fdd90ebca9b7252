"""A claim measured against the evidence: its best chunks and its signals, before the risk that turns them into a
verdict (the risk depends on the answer's other claims: :mod:`halguard.grounding.many_claims`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from halguard.grounding.embedding import LocalEmbedder
from halguard.grounding.index import EvidenceIndex
from halguard.grounding.job import Job
from halguard.grounding.meaning import ClaimChecker, join_evidence
from halguard.grounding.scoring import ScoringWeights
from halguard.grounding.signals import ClaimMeasurements
from halguard.grounding.signals.measure import measure_claim
from halguard.grounding.signals.paraphrase import said_in_other_words
from halguard.grounding.signals.roles import claim_role_conflicts, claim_verbs_said
from halguard.text.claims import Claim
from halguard.text.lexical import has_negation
from halguard.text.segment import check_deadline

__all__ = ["EARLY_DECISION_GRACE_S", "PARAPHRASE_CHUNKS", "PARAPHRASE_MIN_RISK", "MeasuredClaim",
           "align_paraphrases", "measure_against_evidence", "measure_claims", "read_meaning"]

# When the budget runs out among the claims' windows, the claims encoded in time are read for at most this long
# (measure_claims): a flag among them decides the answer. Hand-set: a tenth of a claim's reading for 14,000 tiny
# sentences, and a small share of the default 10 s budget.
EARLY_DECISION_GRACE_S = 0.5


@dataclass(frozen=True)
class MeasuredClaim:
    """A claim's search results and signals, before its risk."""

    claim_vectors: np.ndarray
    sims: np.ndarray  # the weakest window's top-k similarities
    idx: np.ndarray  # and their chunk indices
    signals: ClaimMeasurements
    foreign: bool = False  # a claim in a script the local checks cannot read (numbers and names only)

    def risk(self, weights: ScoringWeights, claims_in_answer: int = 1) -> float:
        """The claim's risk under ``weights``; a foreign-script claim's from its names and numbers only (its
        similarity means nothing)."""
        s = self.signals
        if self.foreign:
            if not (s.missing_numbers or s.missing_entities):
                return 0.0
            s = replace(s, similarity=weights.similarity_pivot)
        return weights.risk(s, claims_in_answer=claims_in_answer)


def measure_against_evidence(job: Job, claim: Claim, claim_vectors: np.ndarray, index: EvidenceIndex, *,
                             top_k: int, weights: ScoringWeights, roles: bool = True) -> MeasuredClaim:
    """One claim's evidence search and signals (no risk yet: that depends on the other claims).

    Args:
        job: The prepared answer the claim belongs to.
        claim: The claim.
        claim_vectors: The vectors of the claim's windows, one row each.
        index: The search index over the job's chunks.
        top_k: Evidence chunks kept.
        weights: The scoring weights (the signals read some of their gates).
        roles: Also check who did what to whom against the claim's evidence chunks (:mod:`halguard.grounding.roles`).
    """
    sims, idx = index.search(claim_vectors, top_k)
    # Every part of a long claim must be supported: its similarity is the weakest part's best match.
    weakest = int(np.argmin(sims[:, 0]))
    best = job.chunks[int(idx[weakest, 0])][1]
    evidence = [job.chunks[int(j)][1].text for j in idx[weakest] if j >= 0]
    signals = measure_claim(claim, float(sims[weakest, 0]), best.text, job.scope, weights, related=evidence)
    if roles and not claim.foreign_script:
        signals.role_conflicts, signals.moved_numbers = claim_role_conflicts(
            claim, evidence, job.scope, copy_overlap=weights.close_copy_overlap)
        # A novel verb its evidence says with a related verb of the same participants ("flew" / "carried"); read
        # only where clearing a word can matter (as align_paraphrases: parsing the claim and two sentences is the cost)
        if signals.novel_terms and weights.risk(signals) >= PARAPHRASE_MIN_RISK:
            said = claim_verbs_said(claim, evidence, signals.novel_terms)
            if said:
                _clear(signals, [(s, e, word, -1.0) for s, e, word in said])
    return MeasuredClaim(claim_vectors, sims[weakest], idx[weakest], signals, claim.foreign_script)


def read_meaning(job: Job, claims: list[Claim], measured: list[MeasuredClaim], checker: ClaimChecker, *,
                 num_threads: int | None, deadline: float | None) -> None:
    """The claim checker's reading of each claim against its best evidence chunks (joined in document order),
    into the claim's signals (``meaning_risk``, and ``meaning_spans`` in answer offsets).

    Foreign-script claims, claims without evidence and short answers read with their question (``"Paris"`` checked
    as "What is the capital of France? Paris") are not read: the model was trained on claims that are sentences, and
    on HaluEval's question-aware answers it ranked at 0.57 AUROC, so the rules judge those alone
    (docs/model-card.md, "Where it wins").
    """
    todo = [(c, m) for c, m in zip(claims, measured) if not m.foreign and len(m.idx) and not c.question_aware]
    if not todo:
        return
    texts = [s.text for s in job.sources]
    premises = []
    for _, m in todo:
        ranked = [(job.chunks[int(j)][0], job.chunks[int(j)][1].start, job.chunks[int(j)][1].end)
                  for j in m.idx if j >= 0]
        premises.append(join_evidence(ranked, texts))
    scores = checker.score(premises, [c.check_text for c, _ in todo], num_threads=num_threads, deadline=deadline)
    for (claim, m), score in zip(todo, scores):
        m.signals.meaning_risk = score.risk
        if claim.check_text == claim.text:  # offsets of the claim's own text: the answer's, shifted
            m.signals.meaning_spans = [(claim.start + a, claim.start + b) for a, b in score.spans]


# Evidence chunks a claim's novel words are aligned against (align_paraphrases): its best one, as the other word
# checks read its closest evidence, not the whole context (a word far away is too often another sense).
PARAPHRASE_CHUNKS = 1
# Claims are read only where clearing a word can matter: a risk (before the many-claims correction, which only
# lowers it) of at least this, the lowest weak threshold of any shape in the shipped calibration (0.4, short
# answers). Below it a claim is SUPPORTED whatever its words. Measured (issue 45, one thread, 300 HaluEval and 50
# RAGTruth QA answers back to back, p50 per answer): against the best three chunks +25 / +96 ms, against the best
# one +16 / +77 ms (the same verdicts on the hand-written set), with this gate +23 / +70 ms (noise: most claims
# with a novel word are over it). The word states come from the pass that embedded the texts (token_states.py).
PARAPHRASE_MIN_RISK = 0.4


def align_paraphrases(job: Job, claims: list[Claim], measured: list[MeasuredClaim], embedder: LocalEmbedder, *,
                      weights: ScoringWeights, num_threads: int | None, deadline: float | None) -> None:
    """Clear the novel words each claim's best evidence chunks say in other words (:mod:`.signals.paraphrase`),
    into the claim's signals (``novel_terms`` and ``novel_ratio`` lowered, ``paraphrased`` recorded). One batch of
    the model for every claim with a novel word, batch by batch until the budget is spent (a claim not read by then
    keeps its novel words)."""
    if deadline is not None and time.monotonic() > deadline:
        return
    todo = [(c, m) for c, m in zip(claims, measured)
            if m.signals.novel_terms and not m.foreign and len(m.idx) and not c.foreign_script
            and m.risk(weights) >= PARAPHRASE_MIN_RISK]
    if not todo:
        return
    evidence = [[job.chunks[int(j)][1].text for j in m.idx[:PARAPHRASE_CHUNKS] if j >= 0] for _, m in todo]
    texts = list(dict.fromkeys([c.text for c, _ in todo] + [t for ts in evidence for t in ts]))
    states = dict(zip(texts, embedder.word_states(texts, num_threads=num_threads, deadline=deadline)))
    for (claim, m), chunks in zip(todo, evidence):
        if states[claim.text] is None or any(states[t] is None for t in chunks):
            continue  # not read before the deadline: its words stay novel
        if has_negation(claim.text) and not any(has_negation(t) for t in chunks):
            # "Celeborn is not married" against "the husband of Galadriel": a word said otherwise under a negation
            # the evidence lacks says the opposite; its novelty stays (the negation check needs an aligned sentence)
            continue
        s = m.signals
        novel = [(a - claim.start, b - claim.start) for a, b in s.novel_terms]
        found = said_in_other_words(claim.text, novel, states[claim.text], [(t, states[t]) for t in chunks],
                                    weights.paraphrase_similarity)
        if not found:
            continue
        _clear(s, [(p.start + claim.start, p.end + claim.start, p.evidence_word, p.similarity) for p in found])


def _clear(s: ClaimMeasurements, found: list[tuple[int, int, str, float]]) -> None:
    """Novel words said in other words (answer offsets, the evidence word, the similarity; -1 for a verb said by
    its frame) leave the novel words, into ``paraphrased``."""
    cleared = {(a, b) for a, b, _, _ in found}
    s.paraphrased = s.paraphrased + found
    s.novel_terms = [span for span in s.novel_terms if span not in cleared]
    s.light_novel_terms = [span for span in s.light_novel_terms if span not in cleared]
    s.novel_ratio = len(s.novel_terms) / s.content_words if s.content_words else 0.0


def measure_claims(job: Job, vectors: dict[str, np.ndarray], index: EvidenceIndex, deadline: float | None, *,
                   top_k: int, weights: ScoringWeights, checker: ClaimChecker | None,
                   num_threads: int | None, roles: bool = True,
                   embedder: LocalEmbedder | None = None) -> tuple[list[Claim], list[MeasuredClaim]]:
    """Each claim encoded in full, measured against the evidence (and read by ``checker``, when given and every
    claim was encoded): ``(claims, their measurements)``, in answer order.

    With every window encoded, the budget is checked between claims. When the budget ran out among the claims'
    windows, the claims encoded in time are read for at most :data:`EARLY_DECISION_GRACE_S`.
    """
    complete = all(w in vectors for ws in job.windows for w in ws)
    if not complete:  # the budget ran out among the claims' windows: a short grace to read those encoded
        deadline = time.monotonic() + EARLY_DECISION_GRACE_S
    measured: list[MeasuredClaim] = []
    measured_claims: list[Claim] = []
    for claim, windows in zip(job.claims, job.windows):
        if complete:
            check_deadline(deadline)
        elif time.monotonic() > deadline:
            break
        encoded = [vectors[w] for w in windows if w in vectors]
        if len(encoded) < len(windows):  # the budget ran out before this claim was encoded in full
            continue
        measured.append(measure_against_evidence(job, claim, np.vstack(encoded), index, top_k=top_k, weights=weights,
                                                 roles=roles))
        measured_claims.append(claim)
    if embedder is not None and complete and weights.paraphrase_similarity <= 1.0:
        align_paraphrases(job, measured_claims, measured, embedder, weights=weights, num_threads=num_threads,
                          deadline=deadline)
    if checker is not None and complete:
        read_meaning(job, measured_claims, measured, checker, num_threads=num_threads, deadline=deadline)
    return measured_claims, measured
