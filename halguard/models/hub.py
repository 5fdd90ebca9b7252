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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from halguard.errors import InvalidInputError, ModelLoadError, ModelNotAvailableError

__all__ = ["ModelNotAvailableError", "check_model_folder", "load_pretrained", "offline", "resolve_model"]

# What a download fetches: the config, tokenizer files and safetensors weights (never a pickle .bin); a model's own
# code only with trust_remote_code.
_DOWNLOAD_PATTERNS = ("*.json", "*.safetensors", "*.txt", "*.model", "tokenizer*", "*.tiktoken")
_CODE_PATTERNS = ("*.py",)
_PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
# A Hugging Face repo id: "name" or "owner/name" (letters, digits, "-", "_", "."; at most 96 characters each).
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}(/[A-Za-z0-9][\w.-]{0,95})?")
_TRUE = ("1", "on", "yes", "true")
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
    rev = f" --revision {revision}" if revision else ""
    return f"`hf download {name}{rev}` (or `huggingface-cli download {name}{rev}`)"


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
    if revision is not None and (not isinstance(revision, str) or not revision.strip()):
        msg = f"revision must be a branch, tag or commit name, got {revision!r}"
        raise InvalidInputError(msg)
    text = os.fspath(name)
    path = Path(text).expanduser()
    if path.is_dir():
        if revision is not None:
            msg = f"revision={revision!r} pins a hub model's version; {text} is a folder (it is used as it is)"
            raise InvalidInputError(msg)
        return path
    if isinstance(name, os.PathLike) or _looks_like_path(text) or path.exists():
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
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        msg = f"model {name}: no readable config.json in {folder} ({exc})"
        raise ModelLoadError(msg) from exc
    if not isinstance(config, dict):
        msg = f"model {name}: {folder / 'config.json'} is not a JSON object"
        raise ModelLoadError(msg)
    files = [p.name for p in folder.iterdir() if p.is_file()]
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
    model.eval()
    return model, tokenizer, folder
