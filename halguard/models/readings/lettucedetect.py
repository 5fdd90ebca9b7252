"""LettuceDetect's reading of a (passages, question, answer) row, as its 0.2.3 ``TransformerDetector.predict(...,
output_format="spans")`` does it, step for step:

1. the passages are written into its English prompt ("passage i: ..." lines, numbered from 1 in each chunk; blank
   passages kept), the question-answering prompt with a question, the summary prompt without;
2. when prompt and answer exceed ``max_length`` pieces, whole passages are grouped greedily into chunks that fit
   beside the answer (a passage too long for a chunk on its own gets one, and is cut there), each chunk in the full
   prompt; the answer is never split;
3. each chunk is encoded as (prompt, answer) pairs with ``truncation="only_first"`` and no token types, one
   sequence per forward pass; the answer starts ``len(answer pieces) + 1`` from the end;
4. one chunk: a token is hallucinated when its argmax class is the hallucinated one; several: when the highest
   probability over the chunks is at least 0.5;
5. consecutive hallucinated tokens (zero-width ones skipped) make a span from the first token's start to the last
   one's end, whitespace included, with the highest probability as its confidence.

Offsets are the authors': relative to the first answer token's start (0 unless the answer begins with whitespace a
tokenizer trims). :func:`token_offsets` gives the tokens' true offsets for the verdict's sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_MAX_LENGTH", "QA_PROMPT", "SUMMARY_PROMPT", "AnswerTooLong", "ReferenceReading",
           "format_prompt", "passage_groups", "read"]

# TransformerDetector's default window (its ModernBERT models have 8,192 positions; it reads 4,096).
DEFAULT_MAX_LENGTH = 4096
# Its prompts/qa_prompt_en.txt and summary_prompt_en.txt (no trailing newline), as format strings.
QA_PROMPT = ("Briefly answer the following question:\n{question}\nBear in mind that your response should be strictly "
             "based on the following {count} passages:\n{context}\nIn case the passages do not contain the "
             "necessary information to answer the question, please reply with: \"Unable to answer based on given "
             "passages.\"\noutput:")
SUMMARY_PROMPT = "Summarize the following text:\n{context}\noutput:"
# Special pieces its budget reserves around a (prompt, answer) pair: [CLS] prompt [SEP] answer [SEP].
_PAIR_SPECIALS = 3
# At or above this highest probability over chunks a token is hallucinated (its _predict_chunked).
_CHUNKED_FLAG = 0.5


class AnswerTooLong(Exception):  # noqa: N818 - a reason code for the caller, not a failure of ours
    """The answer alone does not fit the window: the authors' code fails on it (it never splits an answer)."""


@dataclass(frozen=True)
class ReferenceReading:
    """What the authors' code returns for one row, and what a verdict needs besides.

    Attributes:
        spans: ``{"start", "end", "confidence", "text"}`` dicts, as ``predict(..., output_format="spans")``.
        tokens: ``(start, end, probability, hallucinated)`` per answer token with a width, in order, with true
            offsets in the answer.
        chunks: How many prompts the passages were read in.
        base: Where the authors' offsets start in the answer (their first answer token's start).
    """

    spans: tuple[dict[str, Any], ...]
    tokens: tuple[tuple[int, int, float, bool], ...]
    chunks: int
    base: int = 0


def format_prompt(passages: Sequence[str], question: str | None) -> str:
    """Its ``PromptUtils.format_context`` for English."""
    block = "\n".join(f"passage {i + 1}: {p}" for i, p in enumerate(passages))
    if question is None:
        return SUMMARY_PROMPT.format(context=block)
    return QA_PROMPT.format(question=question, count=len(passages), context=block)


def _count(tokenizer: Any, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])


def group_greedily(sizes: Sequence[int], budget: int, *, separator: int) -> list[list[int]]:
    """The indices of items of ``sizes`` pieces, in order, grouped greedily into groups of at most ``budget`` pieces
    with ``separator`` pieces between two items of a group; an item as large as the budget stands alone (the loop
    of its ``_group_passages_into_chunks``; halguard's own span windows use it too)."""
    groups: list[list[int]] = []
    current: list[int] = []
    used = 0
    for index, size in enumerate(sizes):
        cost = size + (separator if current else 0)
        if used + cost > budget and current:
            groups.append(current)
            current, used, cost = [], 0, size
        current.append(index)
        used += cost
    if current:
        groups.append(current)
    return groups


def passage_groups(tokenizer: Any, passages: Sequence[str], question: str | None, answer: str,
                   max_length: int, *, answer_pieces: int | None = None) -> list[list[str]]:
    """Its ``_group_passages_into_chunks``: the passages as they fit, whole, beside the answer (``answer_pieces``:
    the answer's length in pieces, when the caller has it)."""
    pieces = _count(tokenizer, answer) if answer_pieces is None else answer_pieces
    budget = max_length - pieces - _PAIR_SPECIALS
    if _count(tokenizer, format_prompt(passages, question)) <= budget:
        return [list(passages)]
    passage_budget = budget - _count(tokenizer, format_prompt([""], question))
    if passage_budget <= 0:
        return [list(passages)]
    sizes = [_count(tokenizer, f"passage {i + 1}: {p}") for i, p in enumerate(passages)]
    # One piece between two passages: the newline that joins their lines.
    groups = group_greedily(sizes, passage_budget, separator=1)
    return [[passages[i] for i in group] for group in groups] or [list(passages)]


def _encode(tokenizer: Any, prompt: str, answer: str, max_length: int, answer_pieces: int) -> tuple[Any, Any, int]:
    """(input ids and attention mask, offsets, index of the first answer token), as its
    ``HallucinationDataset.prepare_tokenized_input``."""
    try:
        encoding = tokenizer(prompt, answer, truncation="only_first", max_length=max_length,
                             return_offsets_mapping=True, return_tensors="pt", add_special_tokens=True)
    except Exception as exc:  # the Rust tokenizer: "Sequence to truncate too short to respect max_length"
        msg = f"the answer alone does not fit the model's {max_length}-piece window ({exc})"
        raise AnswerTooLong(msg) from exc
    offsets = encoding.pop("offset_mapping")[0]
    if encoding["input_ids"].shape[1] > max_length:
        msg = f"the answer alone does not fit the model's {max_length}-piece window"
        raise AnswerTooLong(msg)
    start = encoding["input_ids"].shape[1] - answer_pieces - 1
    inputs = {k: encoding[k] for k in ("input_ids", "attention_mask") if k in encoding}
    return inputs, offsets, start


def read(tokenizer: Any, run: Callable[[dict[str, Any]], Any], passages: Sequence[str], answer: str,
         question: str | None, *, max_length: int = DEFAULT_MAX_LENGTH, hallucinated: int = 1,
         before_each: Callable[[], None] | None = None) -> ReferenceReading:
    """The authors' reading of one row.

    Args:
        tokenizer: The model's fast tokenizer.
        run: One forward pass: model inputs (batch of one) -> logits ``[1, pieces, classes]``.
        passages: The passages as the caller gave them, blank ones included.
        answer: The answer.
        question: The question, or None for the summary prompt.
        max_length: The window (the authors' ``max_length``).
        hallucinated: The class that means hallucinated (1 for LettuceDetect's models).
        before_each: Called before each forward pass (a deadline check).

    Raises:
        AnswerTooLong: The answer does not fit the window.
    """
    import torch

    answer_pieces = _count(tokenizer, answer)
    groups = passage_groups(tokenizer, passages, question, answer, max_length, answer_pieces=answer_pieces)
    prompts = [format_prompt(g, question) for g in groups]
    per_chunk: list[list[float]] = []
    argmax_flags: list[bool] = []
    offsets = start = None
    for k, prompt in enumerate(prompts):
        if before_each is not None:
            before_each()
        inputs, chunk_offsets, chunk_start = _encode(tokenizer, prompt, answer, max_length, answer_pieces)
        logits = run(inputs)[0].float()
        probs = torch.softmax(logits, dim=-1)[:, hallucinated]
        # Every position from the answer's first token to the end, the closing special token included.
        per_chunk.append(probs[chunk_start:].tolist())
        if k == 0:
            offsets, start = chunk_offsets, chunk_start
            argmax_flags = (torch.argmax(logits, dim=-1)[chunk_start:] == hallucinated).tolist()
    assert offsets is not None and start is not None
    if len(prompts) == 1:
        probs0, flags = per_chunk[0], argmax_flags
    else:
        probs0 = [max(c[i] for c in per_chunk if i < len(c)) for i in range(len(per_chunk[0]))]
        flags = [p >= _CHUNKED_FLAG for p in probs0]
    base = int(offsets[start][0]) if start < offsets.size(0) else 0
    widths = [(int(offsets[i][0]), int(offsets[i][1])) for i in range(start, offsets.size(0))]
    if len(prompts) == 1:
        # _predict_single: positions in order, zero-width ones skipped without ending a span.
        marked = [(s - base, e - base, p, f) for (s, e), p, f in zip(widths, probs0, flags) if s != e]
    else:
        # _build_spans_from_tokens: the i-th aggregated position takes the i-th answer offset with a width.
        with_width = [(s - base, e - base) for s, e in widths if s != e]
        marked = [(*with_width[i], probs0[i], flags[i]) for i in range(min(len(with_width), len(probs0)))]
    return ReferenceReading(spans=tuple(_spans(marked, answer)),
                            tokens=tuple((s + base, e + base, p, f) for s, e, p, f in marked), chunks=len(prompts),
                            base=base)


def _spans(marked: list[tuple[int, int, float, bool]], answer: str) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for s, e, p, flagged in marked:
        if flagged:
            if current is None:
                current = {"start": s, "end": e, "confidence": p}
            else:
                current["end"] = e
                current["confidence"] = max(current["confidence"], p)
        elif current is not None:
            current["text"] = answer[current["start"]:current["end"]]
            spans.append(current)
            current = None
    if current is not None:
        current["text"] = answer[current["start"]:current["end"]]
        spans.append(current)
    return spans
