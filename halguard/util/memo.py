"""Caches bounded by the memory they hold, not by how many entries they have.

Contexts can be anything from a sentence to a megabyte, so a cache capped at N entries can hold N megabytes of
text (4,096 entries of one-megabyte passages is 4 GB). These caches count an estimate of each entry's bytes
(key and value) and drop the least recently used entries past their budget.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import wraps
from typing import Any, Generic, TypeVar

__all__ = ["BytesLRU", "CacheUsage", "cache_usage", "deep_entry_size", "deep_size_of", "entry_size", "memoize_text",
           "named_caches", "size_of"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


# Measured with tracemalloc on CPython 3.11.7 (100,000 entries each):
# - what an entry costs a BytesLRU besides its key and value: the OrderedDict's slot and node, the (value, cost)
#   tuple and the cost's int: 179 bytes.
_ENTRY_BYTES = 180
# - what a record object (a dataclass without slots: Chunk, Frame, Argument) holds beyond sys.getsizeof, which
#   counts only its header: its fields' values array, 33 to 129 bytes for 2 to 9 fields; 24 + 12 a field covers
#   each.
_RECORD_BASE_BYTES = 24
_RECORD_BYTES_PER_FIELD = 12


def _fields(item: Any) -> tuple[list[Any], int]:
    """The values of ``item``'s fields, and the bytes they take in the object beyond ``sys.getsizeof(item)``.

    Read without touching ``item.__dict__`` where that can be helped: since CPython 3.11 an object keeps its
    fields in a values array, and reading ``__dict__`` makes it a dict for good (64 bytes more per object, a cost
    that measuring a cache entry used to add to every cached Chunk)."""
    cls = type(item)
    slots = [name for name in getattr(cls, "__slots__", ()) if hasattr(item, name)]
    if dataclasses.is_dataclass(cls) and not hasattr(cls, "__slots__"):
        values = [getattr(item, f.name) for f in dataclasses.fields(item)]
        return values, _RECORD_BASE_BYTES + _RECORD_BYTES_PER_FIELD * len(values)
    fields = getattr(item, "__dict__", None)  # another object with a dict: read (and count) the dict
    if isinstance(fields, dict):
        return [*fields.values(), *(getattr(item, name) for name in slots)], sys.getsizeof(fields)
    return [getattr(item, name) for name in slots], 0  # slots are inside sys.getsizeof(item)


def _shallow(item: Any) -> int:
    size = sys.getsizeof(item)
    if isinstance(item, (str, bytes, int, float, bool)) or item is None:
        return size
    values, inline = _fields(item)  # small records (a Chunk): their fields too
    return size + inline + sum(sys.getsizeof(v) for v in values)


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


def entry_size(key: Any, value: Any) -> int:
    """What a :class:`BytesLRU` entry holds: its key and value (:func:`size_of`) and the cache's own cost of an
    entry."""
    return _ENTRY_BYTES + size_of(key) + size_of(value)


def deep_entry_size(key: Any, value: Any) -> int:
    """:func:`entry_size` with the key and value counted every level down (:func:`deep_size_of`)."""
    return _ENTRY_BYTES + deep_size_of((key, value))


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
            values, inline = _fields(item)
            total += inline
            stack.extend(values)
    return total


@dataclass(frozen=True)
class CacheUsage:
    """What one live cache holds: its name, its counted bytes and entries, and its budget."""

    name: str
    bytes: int
    entries: int
    max_bytes: int


# Every live cache that was given a name, so a long-running process (and the memory soak) can see what each holds.
_named: weakref.WeakSet[BytesLRU] = weakref.WeakSet()


def named_caches() -> list[BytesLRU]:
    """The caches alive in this process that have a name (halguard's own all do), sorted by name."""
    return sorted((c for c in list(_named) if c.name), key=lambda c: c.name)  # type: ignore[arg-type, return-value]


def cache_usage() -> list[CacheUsage]:
    """What each of :func:`named_caches` holds now, sorted by name."""
    return [CacheUsage(c.name, c.bytes, len(c), c.max_bytes) for c in named_caches()]  # type: ignore[arg-type]


class BytesLRU(Generic[K, V]):
    """A thread-safe LRU mapping that keeps at most ``max_bytes`` of keys and values (estimated), and at most
    ``max_entries`` entries when that is given.

    An entry larger than the whole budget is not kept. ``sizer`` estimates an entry's bytes (default
    :func:`entry_size`: the key's and the value's :func:`size_of` and what holding an entry costs the cache). A
    cache with a ``name`` is listed by :func:`cache_usage`.
    """

    def __init__(self, max_bytes: int, *, max_entries: int | None = None,
                 sizer: Callable[[Any, Any], int] | None = None, name: str | None = None) -> None:
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.name = name
        self._sizer = sizer
        self.bytes = 0
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        if name:
            _named.add(self)

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
        cost = self._sizer(key, value) if self._sizer is not None else entry_size(key, value)
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
        return {"max_bytes": self.max_bytes, "max_entries": self.max_entries, "sizer": self._sizer,
                "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["max_bytes"], max_entries=state.get("max_entries"),  # type: ignore[misc]
                      sizer=state.get("sizer"), name=state.get("name"))


_MISSING = object()


def memoize_text(max_bytes: int, *, sizer: Callable[[Any, Any], int] | None = None
                 ) -> Callable[[Callable[[str], V]], Callable[[str], V]]:
    """Memoise a function of one str, within ``max_bytes`` (see :class:`BytesLRU`; ``sizer`` estimates an
    entry's bytes from its key and value, default :func:`entry_size`). The cache is named after the function
    (``module.qualname``) for :func:`cache_usage`."""

    def wrap(fn: Callable[[str], V]) -> Callable[[str], V]:
        cache: BytesLRU[str, V] = BytesLRU(max_bytes, sizer=sizer, name=f"{fn.__module__}.{fn.__qualname__}")

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
