"""A memo bounded by the size of what it holds, not only by its number of entries.

The caches of the analysis and of ``build_context`` are keyed by texts a client sends (turns,
documents, queries, words). A bound on entries alone does not bound memory: 65,536 entries of
100 KB turns are 6.5 GB, and a hostile client can send fresh 100 KB turns on every call. So each
cache also has a budget in characters (the key's length, by default): the oldest entries go first
when either bound is reached. Values are derived from their keys (terms, counts, flags), so their
memory follows the keys'.

Reads take no lock (a ``dict`` lookup is atomic in CPython); writes and evictions take one.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
R = TypeVar("R")
_MISSING: Any = object()
# The usual character budget of one cache of texts: ~600-turn histories of a few sessions, many times
# over. Worst case (every key a fresh client text) each such cache holds this many characters and
# 5-25 bytes of values per character (terms, term counts): ~0.5 GB over all of build_context's caches,
# measured with fresh 100 KB turns on every call (it grew ~0.3 GB per call of 10 MB before).
TEXT_CACHE_CHARS = 4_000_000
# The same for caches of queries (a question is short; a task description may run to pages).
QUERY_CACHE_CHARS = 1_000_000
# The analyses of whole histories kept for agent loops (turn packets, BM25 postings, link statistics):
# each kind keeps at most this many characters of turns (two histories of the 16 MiB a call may send,
# or many ordinary ones). A 14.5 MB history of fresh words costs ~0.6 GB of them in all.
HISTORY_STATE_CHARS = 32_000_000


# Every cache made, so that a test (or a memory report) can check each stays within its bounds.
ALL_CACHES: weakref.WeakSet[BoundedCache[Any, Any]] = weakref.WeakSet()


class BoundedCache(Generic[K, V]):
    """``key -> value``, at most ``max_entries`` entries whose sizes add up to at most ``max_size``
    (``size(key)``: characters of a text key). An entry bigger than a quarter of ``max_size`` is
    never kept: it would push out many ordinary ones, and computing it again is proportional to it."""

    def __init__(self, max_size: int, max_entries: int, size: Callable[[K], int] | None = None) -> None:
        self.max_size = max_size
        self.max_entries = max_entries
        self._size_of: Callable[[Any], int] = size or len
        self._items: OrderedDict[K, V] = OrderedDict()
        self._sizes: dict[K, int] = {}
        self._size = 0
        self._lock = threading.Lock()
        # The hot path: ``lookup(key, default)`` is the dict's own ``get`` (no Python frame per hit).
        self.lookup: Callable[[K, Any], Any] = self._items.get
        ALL_CACHES.add(self)

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        size = self._size_of(key)
        if size > self.max_size // 4:
            return
        with self._lock:
            if key in self._items:
                del self._items[key]
                self._size -= self._sizes.pop(key)
            while self._items and (self._size + size > self.max_size or len(self._items) >= self.max_entries):
                gone, _value = self._items.popitem(last=False)
                self._size -= self._sizes.pop(gone)
            self._items[key] = value
            self._sizes[key] = size
            self._size += size

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        found = self._items.get(key, _MISSING)
        if found is not _MISSING:
            value: V = found
            return value
        value = compute()
        self.put(key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._sizes.clear()
            self._size = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    @property
    def size(self) -> int:
        """The sizes of the kept entries, added up."""
        return self._size


def evict_oldest(items: OrderedDict[Any, V], size: Callable[[V], int], max_size: int, max_entries: int) -> None:
    """Drop the oldest entries of ``items`` (in place, oldest first) until at most ``max_entries``
    remain and their ``size``s add up to at most ``max_size``; the newest entry always stays."""
    sizes = {key: size(value) for key, value in items.items()}
    total = sum(sizes.values())
    while len(items) > 1 and (len(items) > max_entries or total > max_size):
        key, _value = items.popitem(last=False)
        total -= sizes[key]


def cached_by_size(max_size: int, max_entries: int) -> Callable[[Callable[[str], R]], Callable[[str], R]]:
    """Memoise a function of one text in a ``BoundedCache`` of ``max_size`` characters and
    ``max_entries`` entries (``functools.lru_cache`` bounds entries only)."""
    def decorate(function: Callable[[str], R]) -> Callable[[str], R]:
        cache: BoundedCache[str, R] = BoundedCache(max_size, max_entries)
        lookup = cache.lookup

        @wraps(function)
        def call(text: str) -> R:
            found = lookup(text, _MISSING)
            if found is not _MISSING:
                hit: R = found
                return hit
            result = function(text)
            cache.put(text, result)
            return result
        call.cache = cache  # type: ignore[attr-defined]
        return call
    return decorate
