"""Caches bounded by the memory they hold, not by how many entries they have.

Contexts can be anything from a sentence to a megabyte, so a cache capped at N entries can hold N megabytes of
text (4,096 entries of one-megabyte passages is 4 GB). These caches count an estimate of each entry's bytes
(key and value) and drop the least recently used entries past their budget.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any, Generic, TypeVar

__all__ = ["BytesLRU", "deep_size_of", "memoize_text", "size_of"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _shallow(item: Any) -> int:
    size = sys.getsizeof(item)
    fields = getattr(item, "__dict__", None)  # small records (a Chunk): their fields too
    if isinstance(fields, dict):
        size += sum(sys.getsizeof(v) for v in fields.values())
    return size


def size_of(value: Any) -> int:
    """An estimate of the bytes ``value`` holds: containers count their items (and the fields of record items),
    one level deep; arrays count their buffer."""
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes + 112
    size = sys.getsizeof(value)
    if isinstance(value, (tuple, list, set, frozenset)):
        size += sum(_shallow(item) for item in value)
    elif isinstance(value, dict):
        size += sum(sys.getsizeof(k) + _shallow(v) for k, v in value.items())
    return size


def deep_size_of(value: Any) -> int:
    """The bytes ``value`` holds, every level down: containers, dicts and the fields of objects (dataclasses,
    slotted or not), each object counted once. For cached values made of many small records (a parse's frames),
    where :func:`size_of`'s one level counts a tenth of it. Iterative: no recursion limit."""
    seen: set[int] = set()
    stack = [value]
    total = 0
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, (str, bytes, int, float, bool)) or item is None:
            continue
        if isinstance(item, (tuple, list, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        else:
            fields = getattr(item, "__dict__", None)
            if isinstance(fields, dict):
                stack.extend(fields.values())
            stack.extend(getattr(item, name) for name in getattr(type(item), "__slots__", ()) if hasattr(item, name))
    return total


class BytesLRU(Generic[K, V]):
    """A thread-safe LRU mapping that keeps at most ``max_bytes`` of keys and values (estimated), and at most
    ``max_entries`` entries when that is given.

    An entry larger than the whole budget is not kept. ``sizer`` estimates an entry's bytes (default
    :func:`size_of` of the key plus that of the value).
    """

    def __init__(self, max_bytes: int, *, max_entries: int | None = None,
                 sizer: Callable[[Any, Any], int] | None = None) -> None:
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._sizer = sizer
        self.bytes = 0
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, default: Any = None) -> V | Any:
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return default
            self._data.move_to_end(key)
            return hit[0]

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._data

    def set(self, key: K, value: V) -> None:
        cost = self._sizer(key, value) if self._sizer is not None else size_of(key) + size_of(value)
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if cost > self.max_bytes:
                return
            self._data[key] = (value, cost)
            self.bytes += cost
            while self._data and (self.bytes > self.max_bytes
                                  or (self.max_entries is not None and len(self._data) > self.max_entries)):
                _, (_, dropped) = self._data.popitem(last=False)
                self.bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0

    def __len__(self) -> int:
        return len(self._data)

    def items(self) -> list[tuple[K, V]]:
        """The entries, least recently used first (a copy)."""
        with self._lock:
            return [(k, v) for k, (v, _) in self._data.items()]

    def __getstate__(self) -> dict[str, Any]:
        # The entries are not pickled: embedding caches run to hundreds of megabytes. Callers that want theirs
        # kept (the response cache) pickle items() themselves.
        return {"max_bytes": self.max_bytes, "max_entries": self.max_entries, "sizer": self._sizer}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["max_bytes"], max_entries=state.get("max_entries"),  # type: ignore[misc]
                      sizer=state.get("sizer"))


_MISSING = object()


def memoize_text(max_bytes: int, *, sizer: Callable[[Any, Any], int] | None = None
                 ) -> Callable[[Callable[[str], V]], Callable[[str], V]]:
    """Memoise a function of one str, within ``max_bytes`` (see :class:`BytesLRU`; ``sizer`` estimates an
    entry's bytes from its key and value, default :func:`size_of` of each)."""

    def wrap(fn: Callable[[str], V]) -> Callable[[str], V]:
        cache: BytesLRU[str, V] = BytesLRU(max_bytes, sizer=sizer)

        @wraps(fn)
        def memoised(text: str) -> V:
            hit = cache.get(text, _MISSING)
            if hit is not _MISSING:
                return hit
            value = fn(text)
            cache.set(text, value)
            return value

        memoised.cache = cache  # type: ignore[attr-defined]
        return memoised

    return wrap
