"""A memo bounded by the size of what it holds, not only by its number of entries.

The caches of the analysis and of ``build_context`` are keyed by texts a client sends (turns,
documents, queries, words). A bound on entries alone does not bound memory: 65,536 entries of
100 KB turns are 6.5 GB, and a hostile client can send fresh 100 KB turns on every call. So each
cache also has a budget in characters (the key's length, by default): the oldest entries go first
when either bound is reached. Values are derived from their keys (terms, counts, flags), so their
memory follows the keys'.

Reads take no lock (a ``dict`` lookup is atomic in CPython); writes and evictions take one.

Within one call (``call_memo``) nothing computed is computed twice: a call whose own texts are more
than a cache holds (a 16 MiB history, against 4M characters) would otherwise evict each text before
its next use, and every stage would analyse every turn again (5 times, 31 s of CPU for 4 MB of
fresh words). What the call computes stays in a per-call memo until it returns.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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

class _Memo:
    """What one call computed through one cache, and the size of its keys."""

    __slots__ = ("values", "size")

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}
        self.size = 0


# The running call's memo: cache id -> what the call computed through it (None outside a call).
_CALL_MEMO: ContextVar[dict[int, _Memo] | None] = ContextVar("ctxnotes_call_memo", default=None)
# What one call's memo keeps per cache, in the cache's size units (characters): the 16 MiB a call may send,
# and again as much. Keys a call builds (growing joins of one document's sentences) could otherwise add
# up to the square of its input.
CALL_MEMO_SIZE = 32_000_000


@contextmanager
def call_memo() -> Iterator[None]:
    """Within the block, every value a ``BoundedCache`` computes stays available until the block ends,
    whatever the cache evicts meanwhile (bounded by the call's own input). Nested blocks share one memo."""
    if _CALL_MEMO.get() is not None:
        yield
        return
    token = _CALL_MEMO.set({})
    try:
        yield
    finally:
        _CALL_MEMO.reset(token)


def with_call_memo(function: Callable[..., R]) -> Callable[..., R]:
    """``function`` run inside ``call_memo``."""
    @wraps(function)
    def call(*args: Any, **kwargs: Any) -> R:
        with call_memo():
            return function(*args, **kwargs)
    return call


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

    def recall(self, key: K, default: Any = None) -> Any:
        """After a miss: the value the running call computed for ``key`` (``call_memo``), or ``default``."""
        memo = _CALL_MEMO.get()
        if memo is None:
            return default
        mine = memo.get(id(self))
        return default if mine is None else mine.values.get(key, default)

    def put(self, key: K, value: V) -> None:
        size = self._size_of(key)
        memo = _CALL_MEMO.get()
        if memo is not None:
            mine = memo.get(id(self))
            if mine is None:
                mine = memo[id(self)] = _Memo()
            if mine.size + size <= CALL_MEMO_SIZE:
                mine.values[key] = value
                mine.size += size
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
        if found is _MISSING:
            found = self.recall(key, _MISSING)
            if found is _MISSING:
                found = compute()
                self.put(key, found)
        value: V = found
        return value

    def clear(self) -> None:
        memo = _CALL_MEMO.get()
        if memo is not None:  # values that depend on state being reset (proximity's word codes) go too
            memo.pop(id(self), None)
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
            if found is _MISSING:
                found = cache.recall(text, _MISSING)
                if found is _MISSING:
                    found = function(text)
                    cache.put(text, found)
            result: R = found
            return result
        call.cache = cache  # type: ignore[attr-defined]
        return call
    return decorate
