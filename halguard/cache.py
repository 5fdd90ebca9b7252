"""An opt-in cache for LLM requests (paraphrases, answers, judgments), in memory and optionally on disk.

Keys are SHA-256 digests of the request: a cache format version, the kind of request, the model name,
the exact messages (so a changed prompt template is a different key) and JSON mode; sampled answers are
keyed by ``(namespace, question)``. Nothing expires by itself: call :meth:`ResponseCache.clear`, delete
the directory, or use a new ``namespace`` when the model or the chain behind it changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

__all__ = ["ResponseCache"]

CACHE_VERSION = "halguard-cache-v1"


class ResponseCache:
    """A thread-safe LRU of request key -> reply text, mirrored to ``path`` (one JSON file per entry).

    Args:
        path: A directory for the on-disk copy; None keeps the cache in memory only.
        max_entries: In-memory entries kept (least recently used dropped first); disk is not pruned.
    """

    def __init__(self, path: str | Path | None = None, *, max_entries: int = 10_000) -> None:
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)
        self.max_entries = max_entries
        self._memory: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(*parts: Any) -> str:
        blob = json.dumps([CACHE_VERSION, *parts], sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get(self, key: str) -> str | None:
        with self._lock:
            value = self._memory.get(key)
            if value is not None:
                self._memory.move_to_end(key)
                self.hits += 1
                return value
        if self.path is not None:
            file = self.path / f"{key}.json"
            try:
                value = json.loads(file.read_text(encoding="utf-8"))["value"]
            except (OSError, ValueError, KeyError, TypeError):
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
            tmp = self.path / f".{key}.{os.getpid()}.{threading.get_ident()}.tmp"
            tmp.write_text(json.dumps({"value": value}, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self.path / f"{key}.json")  # atomic: readers never see half a file

    def _remember(self, key: str, value: str) -> None:
        with self._lock:
            self._memory[key] = value
            self._memory.move_to_end(key)
            while len(self._memory) > self.max_entries:
                self._memory.popitem(last=False)

    def clear(self) -> None:
        """Forget everything, in memory and on disk."""
        with self._lock:
            self._memory.clear()
        if self.path is not None:
            for file in self.path.glob("*.json"):
                file.unlink(missing_ok=True)

    def __len__(self) -> int:
        return len(self._memory)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)  # a lock does not pickle; the copy gets its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
