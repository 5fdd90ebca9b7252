"""Tiny Hugging Face models of the families the detectors docs name (BERT, RoBERTa, DeBERTa-v2, ModernBERT), built
offline with random weights and a WordPiece tokenizer made here, saved as safetensors folders the real loading
code reads. Built once per test session (tests/conftest.py's ``tiny_models``)."""

from __future__ import annotations

import json
import string
from pathlib import Path

WORDS = ("the a an is was in of on and to for by it its with at from not no who what when where how did does "
         "tower eiffel paris metres tall built completed designed company engineer gustave year years million "
         "people visit visits france capital city population launched rocket telescope mirror answer question "
         "passage context summarize following text output briefly bear mind that your response should be "
         "strictly based passages case do contain necessary information please reply with unable given "
         "café zürich 東京 naïve").split()
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
FAMILIES = ("bert", "roberta", "deberta-v2", "modernbert")
MAX_POSITIONS = 192


def tokenizer(max_length: int = MAX_POSITIONS):
    """A lower-casing WordPiece tokenizer whose pieces cover any Latin word (letters, digits and their ``##``
    continuations) and a few accented and CJK characters; BERT's pair template ([CLS] A [SEP] B [SEP])."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece
    from transformers import PreTrainedTokenizerFast

    chars = list(string.ascii_lowercase + string.digits + "éüïç東京") + list(string.punctuation)
    vocab: dict[str, int] = {}
    for piece in [*SPECIALS, *WORDS, *chars, *(f"##{c}" for c in chars)]:
        vocab.setdefault(piece, len(vocab))
    tok = Tokenizer(WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]", model_max_length=max_length)


def config(family: str, vocab_size: int, **extra):
    """A 2-layer, 32-wide config of ``family`` (extra: id2label, num_labels...); wide initial weights, so a random
    model's outputs differ from text to text."""
    from transformers import BertConfig, DebertaV2Config, ModernBertConfig, RobertaConfig

    positions = extra.pop("max_position_embeddings", MAX_POSITIONS)
    common = dict(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                  intermediate_size=64, pad_token_id=0, initializer_range=0.5, **extra)
    if family == "bert":
        return BertConfig(max_position_embeddings=positions, **common)
    if family == "roberta":  # positions start after the padding index
        return RobertaConfig(max_position_embeddings=MAX_POSITIONS + 1, type_vocab_size=1, bos_token_id=2,
                             eos_token_id=3, **common)
    if family == "deberta-v2":
        return DebertaV2Config(max_position_embeddings=MAX_POSITIONS, type_vocab_size=0, relative_attention=True,
                               position_buckets=16, pos_att_type=["p2c", "c2p"], **common)
    if family == "modernbert":
        return ModernBertConfig(max_position_embeddings=positions, global_attn_every_n_layers=2,
                                local_attention=16, cls_token_id=2, sep_token_id=3, bos_token_id=2, eos_token_id=3,
                                **common)
    raise ValueError(family)


def save(family: str, kind: str, folder: Path, *, seed: int = 0, tok=None, **extra) -> Path:
    """A random ``family`` model for ``kind`` ("sequence" or "token" classification) saved to ``folder``, with
    ``tok`` (default :func:`tokenizer`)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification

    tok = tok if tok is not None else tokenizer()
    if family in ("roberta", "deberta-v2", "modernbert"):  # no token types in these families' inputs
        tok.model_input_names = ["input_ids", "attention_mask"]
    torch.manual_seed(seed)
    cfg = config(family, len(tok), **extra)
    auto = AutoModelForSequenceClassification if kind == "sequence" else AutoModelForTokenClassification
    model = auto.from_config(cfg)
    model.eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    return folder


def edit_config(folder: Path, **changes) -> None:
    path = folder / "config.json"
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def byte_level_tokenizer(max_length: int = MAX_POSITIONS):
    """A byte-level BPE tokenizer (as ModernBERT's and RoBERTa's): pieces carry their leading space, and a character
    outside the merges (CJK, emoji) is several byte pieces that share one character range. Trained here on
    :data:`WORDS`; RoBERTa's pair template (<s> A </s></s> B </s>)."""
    from tokenizers import Tokenizer, decoders, pre_tokenizers, processors, trainers
    from tokenizers.models import BPE
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<pad>", "<unk>", "<s>", "</s>", "<mask>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([" ".join(WORDS)] * 4, trainer)
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")), trim_offsets=False)
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", cls_token="<s>", sep_token="</s>", mask_token="<mask>",
                                   model_max_length=max_length)


def save_byte_level(family: str, kind: str, folder: Path, *, seed: int = 0, **extra) -> Path:
    """:func:`save` with :func:`byte_level_tokenizer`."""
    tok = byte_level_tokenizer()
    tok.model_input_names = ["input_ids", "attention_mask"]
    return save(family, kind, folder, seed=seed, tok=tok, **extra)


def t5_tokenizer(max_length: int = 512):
    """A T5-style tokenizer: ``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2, ``</s>`` appended to every text (flan-t5's
    template), the pieces of :func:`tokenizer` otherwise."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece
    from transformers import PreTrainedTokenizerFast

    chars = list(string.ascii_lowercase + string.digits + "éüïç東京") + list(string.punctuation)
    vocab: dict[str, int] = {}
    for piece in ["<pad>", "</s>", "<unk>", *WORDS, *chars, *(f"##{c}" for c in chars)]:
        vocab.setdefault(piece, len(vocab))
    tok = Tokenizer(WordPiece(vocab, unk_token="<unk>", max_input_chars_per_word=100))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", 1)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                                   model_max_length=max_length)
    fast.model_input_names = ["input_ids", "attention_mask"]
    return fast


def t5_config(vocab_size: int, **extra):
    from transformers import T5Config

    return T5Config(vocab_size=vocab_size, d_model=32, d_kv=8, num_heads=2, num_layers=2, d_ff=64,
                    decoder_start_token_id=0, pad_token_id=0, eos_token_id=1, initializer_factor=1.0, **extra)


def save_hhem(folder: Path, foundation: Path, *, seed: int = 0, keep_tied: bool = False):
    """A tiny HHEM-2.1-open: ``foundation`` holds the T5 config and tokenizer (as google/flan-t5-base does), and
    ``folder`` the published layout: config.json with model_type HHEMv2, auto_map, foundation and prompt, and the
    wrapper's ``t5.``-prefixed weights. Returns the T5ForTokenClassification the weights came from."""
    import torch
    from safetensors.torch import save_file
    from transformers import T5ForTokenClassification

    tok = t5_tokenizer()
    foundation.mkdir(parents=True, exist_ok=True)
    cfg = t5_config(len(tok))
    cfg.save_pretrained(foundation)
    tok.save_pretrained(foundation)
    torch.manual_seed(seed)
    model = T5ForTokenClassification(cfg).eval()
    state = {f"t5.{k}": v.clone().contiguous() for k, v in model.state_dict().items()
             if keep_tied or k != "transformer.encoder.embed_tokens.weight"}
    folder.mkdir(parents=True, exist_ok=True)
    save_file(state, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["HHEMv2ForSequenceClassification"], "model_type": "HHEMv2",
        "auto_map": {"AutoConfig": "configuration_hhem_v2.HHEMv2Config",
                     "AutoModelForSequenceClassification": "modeling_hhem_v2.HHEMv2ForSequenceClassification"},
        "foundation": str(foundation),
        "prompt": "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: "
                  "{text2}"}))
    return model


def save_t5_seq2seq(folder: Path, *, seed: int = 0):
    """A tiny T5 encoder-decoder with a vocabulary past id 209 (MiniCheck-Flan-T5's label tokens are 3 and 209)."""
    import torch
    from transformers import T5ForConditionalGeneration

    tok = t5_tokenizer()
    assert len(tok) > 209
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(t5_config(len(tok))).eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    return folder
