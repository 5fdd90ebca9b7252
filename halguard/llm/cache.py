"""An opt-in cache for LLM requests (paraphrases, answers, judgments), in memory and optionally on disk.

Keys are SHA-256 digests of the request: a cache format version, the kind of request, the model name,
the exact messages (so a changed prompt template is a different key) and JSON mode; sampled answers are
keyed by ``(namespace, question)``. Nothing expires by itself: call :meth:`ResponseCache.clear`, delete
the directory, or use a new ``namespace`` when the model or the chain behind it changes.

On disk the entries live in a folder of their own, ``<path>/halguard-cache-v1/`` (mode 0700), one file per key
named by its digest (mode 0600, written to a fresh temporary file and renamed into place, never through a
symlink). A key that is not a digest is hashed before it names a file, so no key can reach outside the folder,
and :meth:`ResponseCache.clear` deletes only the digest-named files in it.

A cache hit skips the LLM call, so whoever can write the folder decides the replies. ``path`` and its
``halguard-cache-v1`` folder are created with mode 0700 when missing; an existing one is used only if it is a real
folder (not a symlink), owned by the user and not writable by group or others, as ssh requires of ``~/.ssh``
(:class:`~halguard.errors.UnsafePathError` otherwise). An entry file is read only if it is a regular file owned by
the user, not a symlink, and no larger than a reply the cache could hold; anything else is a miss.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path
from typing import Any

from halguard.util.cache_budgets import RESPONSE_CACHE_BYTES, RESPONSE_CACHE_ENTRIES
from halguard.util.files import private_dir, read_private, write_private
from halguard.util.memo import BytesLRU
from halguard.util.safejson import loads
from halguard.util.options import require_positive_int

__all__ = ["ResponseCache"]

CACHE_VERSION = "halguard-cache-v1"
_FOLDER = "halguard-cache-v1"
_DIGEST = re.compile(r"[0-9a-f]{64}")
_CACHE_NAME = f"{__name__}.ResponseCache"  # its name in util.memo.cache_usage()
# An entry file is {"value": reply} as JSON: at most 6 bytes per character of the reply (a control character
# escaped as \u00XX; UTF-8 needs at most 4) plus the wrapper. A file larger than that for a reply of max_bytes
# characters holds nothing this cache could remember, so it is not read.
_JSON_BYTES_PER_CHAR = 6
_ENTRY_OVERHEAD = 64


def _text_bytes(key: str, value: str) -> int:
    """A reply's cost in the memory budget: its key and text, in characters (as documented for ``max_bytes``)."""
    return len(key) + len(value)


class ResponseCache:
    """A thread-safe LRU of request key -> reply text, mirrored to ``path`` (one JSON file per entry).

    Args:
        path: A directory for the on-disk copy (entries go in its ``halguard-cache-v1`` folder); None keeps the
            cache in memory only. Both folders are created 0700, or must already be private to the user.
        max_entries: In-memory entries kept (least recently used dropped first); disk is not pruned.
        max_bytes: In-memory characters kept (keys and replies), whatever the number of entries.

    Raises:
        UnsafePathError: ``path`` or its ``halguard-cache-v1`` folder is a symlink, is not owned by the user, or is
            writable by group or others (planted replies would be read as hits).
    """

    def __init__(self, path: str | Path | None = None, *, max_entries: int = RESPONSE_CACHE_ENTRIES,
                 max_bytes: int = RESPONSE_CACHE_BYTES) -> None:
        require_positive_int("max_entries", max_entries)
        require_positive_int("max_bytes", max_bytes)
        self.path = Path(path) / _FOLDER if path is not None else None
        if self.path is not None:
            private_dir(self.path.parent, what="cache folder")  # whoever can write it can swap the folder below
            private_dir(self.path, what="cache folder")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._memory: BytesLRU[str, str] = BytesLRU(max_bytes, max_entries=max_entries, sizer=_text_bytes,
                                                    name=_CACHE_NAME)
        self._lock = threading.Lock()  # guards the hit and miss counters
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(*parts: Any) -> str:
        blob = json.dumps([CACHE_VERSION, *parts], sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _file(self, key: str) -> Path:
        """The file of ``key``: its own name when it is a digest, else the digest of it (never a path)."""
        name = key if _DIGEST.fullmatch(key) else hashlib.sha256(key.encode("utf-8")).hexdigest()
        return self.path / f"{name}.json"  # type: ignore[operator]

    def get(self, key: str) -> str | None:
        value = self._memory.get(key)
        if value is not None:
            with self._lock:
                self.hits += 1
            return value
        if self.path is not None:
            try:
                limit = _JSON_BYTES_PER_CHAR * self.max_bytes + _ENTRY_OVERHEAD
                value = loads(read_private(self._file(key), limit))["value"]
            except (OSError, ValueError, KeyError, TypeError):  # missing, planted, foreign, too big, not an entry
                value = None
            if isinstance(value, str):
                self._remember(key, value)
                with self._lock:
                    self.hits += 1
                return value
        with self._lock:
            self.misses += 1
        return None

    def set(self, key: str, value: str) -> None:
        self._remember(key, value)
        if self.path is not None:
            # atomic: readers never see half a file; mode 0600; a planted symlink is replaced, not followed
            write_private(self._file(key), json.dumps({"value": value}, ensure_ascii=False))

    def _remember(self, key: str, value: str) -> None:
        self._memory.set(key, value)

    def clear(self) -> None:
        """Forget everything, in memory and on disk (only the files this cache wrote: digest-named, in its folder)."""
        self._memory.clear()
        if self.path is not None:
            for file in self.path.iterdir():
                if _DIGEST.fullmatch(file.stem) and file.suffix == ".json" and not file.is_symlink():
                    file.unlink(missing_ok=True)

    def __len__(self) -> int:
        return len(self._memory)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)  # a lock does not pickle; the copy gets its own
        state["_memory"] = self._memory.items()  # the remembered replies travel with the copy
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        entries = state.pop("_memory")
        self.__dict__.update(state)
        self._memory = BytesLRU(self.max_bytes, max_entries=self.max_entries, sizer=_text_bytes,
                                name=_CACHE_NAME)
        for key, value in entries:
            self._memory.set(key, value)
        self._lock = threading.Lock()
