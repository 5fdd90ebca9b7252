"""A model named by Hugging Face id or folder, made into a checked local folder, and loaded from it.

What users of Hugging Face models expect, and nothing more:

- a folder is used as it is; an id is looked up in the usual Hugging Face cache (``HF_HOME``, ``HF_HUB_CACHE``)
  and downloaded only when the environment allows it (not with ``HF_HUB_OFFLINE=1``), without progress bars unless
  ``quiet=False``;
- offline and not cached, or a folder that is not there: :class:`ModelNotAvailableError` at once (a cache lookup,
  never a network wait), naming the model and the command that fetches it;
- ``revision=`` pins a branch, tag or commit of a hub model;
- weights are read from ``.safetensors`` only (a pickle ``.bin`` can run code when loaded);
- a model whose config asks for its own code (``auto_map``) loads only with ``trust_remote_code=True``.

Every check here runs before transformers is asked for anything, so a wrong model fails at construction with a
message that says what to do.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shlex
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from halguard.errors import InvalidInputError, ModelLoadError, ModelNotAvailableError
from halguard.util.files import read_text_limited

__all__ = ["CONFIG_BOUNDS", "MAX_MODEL_NAME_CHARS", "ModelNotAvailableError", "check_folder_bounds",
           "check_model_folder", "check_vocabulary", "load_pretrained", "offline", "resolve_model"]

# What a download fetches: the config, tokenizer files and safetensors weights (never a pickle .bin); a model's own
# code only with trust_remote_code.
_DOWNLOAD_PATTERNS = ("*.json", "*.safetensors", "*.txt", "*.model", "tokenizer*", "*.tiktoken")
_CODE_PATTERNS = ("*.py",)
_PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
# A Hugging Face repo id: "name" or "owner/name" (letters, digits, "-", "_", "."; at most 96 characters each).
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}(/[A-Za-z0-9][\w.-]{0,95})?")
_TRUE = ("1", "on", "yes", "true")
# A model's name (a folder path or a hub id) and a revision: longer ones are refused before the file system is
# asked (a 100,000-character name made the OS raise "File name too long"). 4,096 is Linux's PATH_MAX.
MAX_MODEL_NAME_CHARS = 4096
# A branch, tag or commit name: git's ref characters, at most 255 (the hub's limit on a ref name).
_REVISION = re.compile(r"[A-Za-z0-9][\w.\-/]{0,254}")
# What a model folder's files may hold, read before transformers sees them (a config that is a link to /dev/zero
# was read to 5.4 GB): the config and small text files, the tokenizer files (the largest hub tokenizers are ~20 MB),
# and weights (the largest models halguard runs on a CPU are a few GB; safetensors are mapped, not read).
MAX_CONFIG_BYTES = 1 << 20
MAX_TOKENIZER_FILE_BYTES = 128 << 20
MAX_WEIGHTS_FILE_BYTES = 32 << 30
# Config values that size tensors, bounded before anything is allocated (num_labels: 10,000,000 hung the load):
# each well above the largest encoder a guard runs (DeBERTa-v3-large, XLM-R large, ModernBERT: vocab 250,002,
# hidden 1,024, 24 layers, 8,192 positions) and below what makes a dense layer of gigabytes.
CONFIG_BOUNDS = {
    "num_labels": 1_000,
    "vocab_size": 1_000_000,
    "hidden_size": 16_384,
    "num_hidden_layers": 256,
    "num_attention_heads": 256,
    "intermediate_size": 65_536,
    "max_position_embeddings": 1_048_576,
    "type_vocab_size": 1_024,
}
# Modules that register halguard's own model types (its exported claim checker) with transformers; imported by
# name when a model is loaded (they need torch, and they belong to the grounding layer that builds on this one).
HALGUARD_MODEL_MODULES = ("halguard.grounding.meaning.hf_model",)


def offline() -> bool:
    """Whether the environment forbids downloads (``HF_HUB_OFFLINE``, read now, as huggingface_hub reads it)."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE:
        return True
    try:
        from huggingface_hub import constants
    except ImportError:  # pragma: no cover - transformers depends on huggingface_hub
        return False
    return bool(constants.HF_HUB_OFFLINE)


def _looks_like_path(name: str) -> bool:
    """A name a user meant as a folder: absolute, relative with ./ or ../, ~, or more than owner/name."""
    return (name.startswith((".", "/", "~", "\\")) or os.path.isabs(name) or name.count("/") > 1
            or "\\" in name or not _REPO_ID.fullmatch(name))


def _fetch_hint(name: str, revision: str | None) -> str:
    """The commands that fetch the model, with the name and revision quoted for a shell."""
    rev = f" --revision {shlex.quote(revision)}" if revision else ""
    quoted = shlex.quote(name)
    return f"`hf download {quoted}{rev}` (or `huggingface-cli download {quoted}{rev}`)"


def resolve_model(name: str | os.PathLike[str], *, revision: str | None = None, trust_remote_code: bool = False,
                  quiet: bool = True) -> Path:
    """The local folder of the model ``name`` (a folder, or a Hugging Face id looked up in / fetched to the cache).

    Args:
        name: A folder holding ``config.json``, or a hub id (``owner/name``).
        revision: A branch, tag or commit of a hub model (None: the default branch). Not for a folder.
        trust_remote_code: Also fetch the model's own Python files (the loader still checks the flag).
        quiet: No download progress bars.

    Raises:
        ModelNotAvailableError: The folder does not exist, or the id is not cached and cannot be downloaded now.
        ModelLoadError: The hub refused (unknown repo or revision, gated, a network error).
        InvalidInputError: ``revision`` given with a folder, or a name of the wrong type.
    """
    if not isinstance(name, (str, os.PathLike)) or not str(name).strip():
        msg = f"a model is named by a Hugging Face id or a folder, got {name!r}"
        raise InvalidInputError(msg)
    if revision is not None and (not isinstance(revision, str) or not _REVISION.fullmatch(revision)
                                 or ".." in revision):
        shown = revision[:80] + "..." if isinstance(revision, str) and len(revision) > 80 else revision
        msg = f"revision must be a branch, tag or commit name (letters, digits, '_', '.', '-', '/'), got {shown!r}"
        raise InvalidInputError(msg)
    text = os.fspath(name)
    if len(text) > MAX_MODEL_NAME_CHARS or "\x00" in text:
        msg = (f"a model name is a Hugging Face id or a folder path of at most {MAX_MODEL_NAME_CHARS:,} characters "
               f"without NUL, got {len(text):,} characters")
        raise InvalidInputError(msg)
    path = Path(text).expanduser()
    try:
        is_dir = path.is_dir()
        exists = is_dir or path.exists()
    except OSError as exc:  # a component over the file system's name limit, a loop of links
        msg = f"no model folder at {text[:200]}: {exc.strerror or exc}"
        raise ModelNotAvailableError(msg) from exc
    if is_dir:
        if revision is not None:
            msg = f"revision={revision!r} pins a hub model's version; {text} is a folder (it is used as it is)"
            raise InvalidInputError(msg)
        return path
    if isinstance(name, os.PathLike) or _looks_like_path(text) or exists:
        msg = f"no model folder at {text}: it does not exist or is not a folder"
        raise ModelNotAvailableError(msg)
    return _from_hub(text, revision=revision, trust_remote_code=trust_remote_code, quiet=quiet)


def _from_hub(repo_id: str, *, revision: str | None, trust_remote_code: bool, quiet: bool) -> Path:
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import (
            GatedRepoError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
    except ImportError as exc:  # pragma: no cover - transformers depends on huggingface_hub
        msg = "loading a model by id needs huggingface_hub: pip install huggingface_hub"
        raise ModelLoadError(msg) from exc
    patterns = [*_DOWNLOAD_PATTERNS, *(_CODE_PATTERNS if trust_remote_code else ())]
    is_offline = offline()
    try:
        folder = snapshot_download(repo_id, revision=revision, local_files_only=is_offline,
                                   allow_patterns=patterns, tqdm_class=_silent_tqdm() if quiet else None)
    except (LocalEntryNotFoundError, FileNotFoundError) as exc:
        why = ("HF_HUB_OFFLINE is set and it is not in the Hugging Face cache" if is_offline
               else "it is not in the Hugging Face cache and the hub could not be reached")
        at = f" at revision {revision}" if revision else ""
        msg = f"model {repo_id}{at} is not available: {why}. Fetch it once with {_fetch_hint(repo_id, revision)}"
        raise ModelNotAvailableError(msg) from exc
    except GatedRepoError as exc:
        msg = f"model {repo_id} is gated on the Hugging Face hub: accept its terms there and log in (`hf auth login`)"
        raise ModelNotAvailableError(msg) from exc
    except RevisionNotFoundError as exc:
        msg = f"model {repo_id} has no revision {revision!r} on the Hugging Face hub"
        raise ModelNotAvailableError(msg) from exc
    except RepositoryNotFoundError as exc:
        msg = f"no model {repo_id} on the Hugging Face hub (nor a folder of that name here)"
        raise ModelNotAvailableError(msg) from exc
    except Exception as exc:  # noqa: BLE001 - a network or disk failure, named with the model
        msg = f"could not fetch model {repo_id}: {type(exc).__name__}: {exc}"
        raise ModelLoadError(msg) from exc
    return Path(folder)


def _silent_tqdm() -> type:
    from tqdm.auto import tqdm

    class Silent(tqdm):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    return Silent


def check_model_folder(folder: Path, name: str, *, trust_remote_code: bool) -> dict[str, Any]:
    """The model's ``config.json`` as a dict, after the checks that need no transformers.

    Raises:
        ModelLoadError: No readable ``config.json``; no ``.safetensors`` weights (naming a pickle one found instead);
            a config that asks for its own code without ``trust_remote_code=True``.
    """
    config = _read_config(folder, name)
    if not isinstance(config, dict):
        msg = f"model {name}: {folder / 'config.json'} is not a JSON object"
        raise ModelLoadError(msg)
    _check_sizes(config, name)
    files = _checked_files(folder, name)
    if not any(f.endswith(".safetensors") for f in files):
        pickles = sorted(f for f in files if f.endswith(_PICKLE_SUFFIXES))
        found = f" (found {', '.join(pickles)}: pickle weights, which can run code when loaded)" if pickles else ""
        msg = (f"model {name}: no .safetensors weights in {folder}{found}. halguard loads safetensors only; "
               "convert the weights (model.save_pretrained(folder, safe_serialization=True)) or pick a revision "
               "that has them")
        raise ModelLoadError(msg)
    if config.get("auto_map") and not trust_remote_code:
        msg = (f"model {name} runs its own Python code (its config.json has auto_map): read that code, then pass "
               "trust_remote_code=True to load it")
        raise ModelLoadError(msg)
    return config


def check_folder_bounds(folder: Path, name: str) -> None:
    """The bounds every model folder halguard loads is held to, before any library reads it: each file regular
    and of bounded size, the config (if any) bounded in bytes and in the sizes it gives tensors.

    Raises:
        ModelLoadError: a file is a FIFO, socket or device, or too large; a size in the config out of bounds.
    """
    _checked_files(folder, name)
    if (folder / "config.json").exists():
        config = _read_config(folder, name)
        if isinstance(config, dict):
            _check_sizes(config, name)


def _read_config(folder: Path, name: str) -> Any:
    """The folder's ``config.json``, parsed, read as a regular file of at most :data:`MAX_CONFIG_BYTES`.

    Raises:
        ModelLoadError: it is missing, not a regular file (a FIFO, a device), too large or not JSON.
    """
    try:
        return json.loads(read_text_limited(folder / "config.json", MAX_CONFIG_BYTES, what="config.json"))
    except (OSError, ValueError) as exc:  # InvalidInputError (a FIFO, a device) and InputTooLargeError included
        msg = f"model {name}: no readable config.json in {folder} ({exc})"
        raise ModelLoadError(msg) from exc


def _check_sizes(config: dict[str, Any], name: str) -> None:
    """Refuse config values that would size tensors past :data:`CONFIG_BOUNDS` (and label maps as large)."""
    for key, bound in CONFIG_BOUNDS.items():
        value = config.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= bound:
            shown = value if isinstance(value, (int, float)) else type(value).__name__
            msg = (f"model {name}: config.json has {key} = {shown}, outside what halguard loads (a whole number "
                   f"up to {bound:,})")
            raise ModelLoadError(msg)
    for key in ("id2label", "label2id"):
        labels = config.get(key)
        if isinstance(labels, dict) and len(labels) > CONFIG_BOUNDS["num_labels"]:
            msg = f"model {name}: config.json's {key} has {len(labels):,} labels, over {CONFIG_BOUNDS['num_labels']:,}"
            raise ModelLoadError(msg)


def _checked_files(folder: Path, name: str) -> list[str]:
    """The names of the folder's files, each checked to be a regular file (links followed) of a bounded size: a
    FIFO or a device among them would hang or exhaust whatever reads it."""
    out = []
    try:
        entries = list(os.scandir(folder))
    except OSError as exc:
        msg = f"model {name}: cannot list {folder} ({exc})"
        raise ModelLoadError(msg) from exc
    for entry in entries:
        try:
            info = os.stat(entry.path)
        except OSError:
            continue  # a dangling link: nothing will read it
        if stat.S_ISDIR(info.st_mode):
            continue
        if not stat.S_ISREG(info.st_mode):
            msg = f"model {name}: {entry.name} in {folder} is not a regular file (a FIFO, socket or device)"
            raise ModelLoadError(msg)
        cap = MAX_WEIGHTS_FILE_BYTES if entry.name.endswith(".safetensors") else MAX_TOKENIZER_FILE_BYTES
        if info.st_size > cap:
            msg = f"model {name}: {entry.name} holds {info.st_size:,} bytes, over halguard's limit of {cap:,}"
            raise ModelLoadError(msg)
        out.append(entry.name)
    return out


@contextmanager
def quiet_transformers(quiet: bool = True) -> Iterator[None]:
    """No progress bars and no warnings from transformers while loading (its switches are process-wide: each is
    put back afterwards)."""
    if not quiet:
        yield
        return
    from transformers.utils import logging as hf_logging

    bar = hf_logging.is_progress_bar_enabled()
    level = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if bar:
            hf_logging.enable_progress_bar()


def load_pretrained(name: str | os.PathLike[str], auto_class: Callable[[], Any], *, revision: str | None = None,
                    trust_remote_code: bool = False, quiet: bool = True) -> tuple[Any, Any, Path]:
    """``(model, fast tokenizer, folder)`` of the model ``name``, built with the transformers auto class that
    ``auto_class()`` returns (e.g. ``AutoModelForSequenceClassification``), in eval mode on the CPU.

    Raises:
        ModelNotAvailableError: See :func:`resolve_model`.
        ModelLoadError: A failed check (:func:`check_model_folder`), a tokenizer without offsets (a slow one), or
            transformers could not build the model.
    """
    folder = resolve_model(name, revision=revision, trust_remote_code=trust_remote_code, quiet=quiet)
    check_model_folder(folder, os.fspath(name), trust_remote_code=trust_remote_code)
    try:
        from transformers import AutoTokenizer

        for module in HALGUARD_MODEL_MODULES:  # registers halguard's own model classes with transformers' auto classes
            importlib.import_module(module)
    except ImportError as exc:
        msg = "loading a Hugging Face model needs transformers and torch: pip install 'halguard[local]'"
        raise ModelLoadError(msg) from exc
    try:
        with quiet_transformers(quiet):
            tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True,
                                                      trust_remote_code=trust_remote_code)
            model = auto_class().from_pretrained(str(folder), local_files_only=True, use_safetensors=True,
                                                 trust_remote_code=trust_remote_code)
    except Exception as exc:  # noqa: BLE001 - whatever transformers raises, named with the model
        msg = f"could not load model {os.fspath(name)} from {folder}: {type(exc).__name__}: {exc}"
        raise ModelLoadError(msg) from exc
    if not getattr(tokenizer, "is_fast", False):
        msg = (f"model {os.fspath(name)}: its tokenizer is not a fast (Rust) one, and halguard needs the character "
               "offsets only a fast tokenizer gives")
        raise ModelLoadError(msg)
    check_vocabulary(model, tokenizer, os.fspath(name))
    model.eval()
    return model, tokenizer, folder


def check_vocabulary(model: Any, tokenizer: Any, name: str) -> None:
    """A tokenizer that makes ids past the model's embedding table would fail every check ("index out of range"):
    refused at load, naming both sizes."""
    try:
        embeddings = model.get_input_embeddings()
    except (AttributeError, NotImplementedError):  # a model class that does not say (halguard's own checker)
        return
    rows = getattr(embeddings, "num_embeddings", None)
    try:
        ids = len(tokenizer)
    except TypeError:
        return
    if isinstance(rows, int) and ids > rows:
        msg = (f"model {name}: its tokenizer has {ids:,} tokens but the model's embedding table has {rows:,} rows: "
               "they do not belong together (a tokenizer from another model?)")
        raise ModelLoadError(msg)
