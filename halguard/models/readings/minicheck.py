"""MiniCheck (Tang, Laban and Durrett, 2024) as its ``minicheck`` package reads it: the RoBERTa-L and DeBERTa-L
classifiers and the Flan-T5-L model.

What its ``Inferencer`` does with one (document, claim), and :func:`document_chunks` repeats:

- the document is cut at newlines, each block into sentences with NLTK's ``sent_tokenize`` (punkt), a ``"\\n"``
  kept between blocks;
- whole sentences are grouped into chunks of about ``chunk_size`` pieces (400 by the classifier's tokenizer;
  Flan-T5: 500 whitespace words), joined with single spaces, newlines restored, empty chunks dropped;
- each chunk is read with the claim as one string (:mod:`.pair_inputs`), truncated to ``max_input_length`` (512
  for RoBERTa, 2,048 for DeBERTa and Flan-T5), and the claim's support is the highest over the chunks.

Loading (:func:`load_minicheck`) reads the architecture from the config: a RoBERTa or DeBERTa-v2 sequence
classifier with two classes (class 1 supported, whatever ``id2label`` says: the RoBERTa model's says ``"0"``/``"1"``),
or a T5 encoder-decoder; anything else is refused naming what it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from halguard.errors import ModelLoadError

__all__ = ["CHUNK_SIZE", "MAX_INPUT_LENGTH", "document_chunks", "load_minicheck", "punkt_sentences"]

# The minicheck package's defaults: MiniCheck._score_inferencer's chunk_size, Inferencer's max_input_length.
CHUNK_SIZE = {"minicheck": 400, "minicheck-t5": 500}
MAX_INPUT_LENGTH = {"roberta": 512, "deberta-v2": 2048, "t5": 2048}


def punkt_sentences() -> Callable[[str], list[str]]:
    """NLTK's ``sent_tokenize`` (English punkt), as MiniCheck splits documents.

    Raises:
        ModelLoadError: NLTK or its punkt data is not installed (naming the commands that install them).
    """
    try:
        import nltk

        nltk.data.find("tokenizers/punkt_tab/english/")
    except (ImportError, LookupError) as exc:
        msg = ("minicheck reading='reference' splits documents into sentences with NLTK's punkt, as MiniCheck "
               "does: pip install nltk && python -m nltk.downloader punkt_tab (or use reading='evidence')")
        raise ModelLoadError(msg) from exc
    return nltk.sent_tokenize


def _with_newlines(text: str, split: Callable[[str], list[str]]) -> list[str]:
    out: list[str] = []
    for block in text.split("\n"):
        out.extend(split(block))
        out.append("\n")
    return out[:-1]


def _groups(sentences: Sequence[str], size: int, count: Callable[[str], int]) -> Iterator[str]:
    current: list[str] = []
    used = 0
    for sentence in sentences:
        n = count(sentence)
        if used + n > size:
            yield " ".join(current)
            current, used = [sentence], n
        else:
            current.append(sentence)
            used += n
    if current:
        yield " ".join(current)


def document_chunks(document: str, *, family: str, tokenizer: Any, split: Callable[[str], list[str]],
                    chunk_size: int | None = None, max_input_length: int = 512) -> list[str]:
    """The chunks MiniCheck reads ``document`` in (see the module docstring)."""
    size = chunk_size or CHUNK_SIZE[family]

    def count(sentence: str) -> int:
        if family == "minicheck-t5":
            return len(sentence.split())
        return len(tokenizer(sentence, padding=False, add_special_tokens=False, max_length=max_input_length,
                             truncation=True, verbose=False)["input_ids"])

    sentences = _with_newlines(document, split) or [""]
    chunks = [c.replace(" \n ", "\n").strip() for c in _groups(sentences, size, count)]
    return [c for c in chunks if c != ""]


def load_minicheck(name: str | os.PathLike[str], *, revision: str | None = None, device: str | None = None,
                   batch_size: int | None = None, max_length: int | None = None, quiet: bool = True) -> Any:
    """The :class:`~halguard.models.entailment.EntailmentScorer` of a MiniCheck model (a hub id or folder).

    Raises:
        ModelNotAvailableError: See :mod:`halguard.models.hub`.
        ModelLoadError: Not a MiniCheck architecture (named), not safetensors, or transformers could not load it.
    """
    from halguard.models.entailment import EntailmentScorer
    from halguard.models.hub import check_model_folder, load_pretrained, resolve_model
    from halguard.models.labels import LabelMap
    from halguard.models.readings.pair_inputs import MINICHECK_T5_LABEL_IDS, PairInputs

    text = os.fspath(name)
    # The architecture first: a model of another family is named as such, whatever else is wrong with it.
    config = check_model_folder(resolve_model(name, revision=revision, quiet=quiet), text, trust_remote_code=True)
    kind = config.get("model_type")
    if kind not in MAX_INPUT_LENGTH:
        msg = (f"model {text} is not a MiniCheck model: its model_type is {kind!r}, and minicheck: reads RoBERTa "
               "and DeBERTa-v2 classifiers (MiniCheck-RoBERTa-Large, MiniCheck-DeBERTa-v3-Large) and T5 "
               "(MiniCheck-Flan-T5-Large); an NLI model is nli:<model>")
        raise ModelLoadError(msg)
    family = "minicheck-t5" if kind == "t5" else "minicheck"
    labels = len(config.get("id2label") or {}) or config.get("num_labels") or 2
    if family == "minicheck" and labels != 2:
        msg = f"model {text}: a MiniCheck classifier has 2 classes (unsupported, supported), this one has {labels}"
        raise ModelLoadError(msg)

    def auto():
        import transformers

        return (transformers.AutoModelForSeq2SeqLM if family == "minicheck-t5"
                else transformers.AutoModelForSequenceClassification)

    model, tokenizer, _ = load_pretrained(name, auto, revision=revision, quiet=quiet)
    if family == "minicheck-t5" and (getattr(model.config, "vocab_size", 0) or 0) <= max(MINICHECK_T5_LABEL_IDS):
        msg = (f"model {text}: MiniCheck-Flan-T5 reads vocabulary ids {MINICHECK_T5_LABEL_IDS} as its labels, and "
               f"this T5 has {model.config.vocab_size} ids")
        raise ModelLoadError(msg)
    if not tokenizer.eos_token:
        msg = f"model {text}: its tokenizer has no end-of-sequence token, which MiniCheck puts between doc and claim"
        raise ModelLoadError(msg)
    window = MAX_INPUT_LENGTH[kind]
    if kind == "roberta":  # absolute positions: the authors' 512 is RoBERTa-large's whole table
        from halguard.models.entailment import _model_window

        window = min(window, _model_window(model, tokenizer))
    return EntailmentScorer(model, tokenizer, LabelMap(("unsupported", "supported")), name=text,
                            max_length=max_length or window, batch_size=batch_size, device=device,
                            int8=False, inputs=PairInputs(family, separator=tokenizer.eos_token))
