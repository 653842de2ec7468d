"""Recently read search-hit bodies, and the snippets cut from them, keyed by the catalogue row's file stamp
(issue 16).

Every search hit needs its note's body for the snippet and its revision. Reading the file
(open, fstat, read, close) was a quarter of a search's server CPU; popular notes are hit again
and again. A body is reused only while the catalogue row still has the stamp (mtime_ns, size)
it was read under: any write through the store, or an edit the folder watcher saw, gives the
row a new stamp and the next hit reads the file again. The snippets cut from a body for a query's
terms are kept beside it (a query asked again, or its next page, cuts none; cutting them was the
largest part of a search after the file reads), and go with it. Bounded by total characters of
bodies and snippets, least recently used out first; safe to share between search threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

DEFAULT_MAX_CHARS = 16 << 20
MAX_SNIPPETS_PER_BODY = 16  # queries whose snippet of one body is kept; past it they start again
KEY_TERM_OVERHEAD = 64      # what a term of a snippet's key costs beyond its characters (str object, set slot)


def _key_chars(terms: Hashable) -> int:
    """What a snippet's key costs, in characters: its terms (a query's frozenset of terms)."""
    if isinstance(terms, str):
        return len(terms)
    if isinstance(terms, (frozenset, tuple)):
        return sum(len(t) + KEY_TERM_OVERHEAD if isinstance(t, str) else KEY_TERM_OVERHEAD for t in terms)
    return KEY_TERM_OVERHEAD

Body = tuple[str, "str | None"]  # (text to cut a snippet from, revision)


class _Item:
    __slots__ = ("stamp", "text", "revision", "snippets", "chars")

    def __init__(self, stamp: tuple[int, int], text: str, revision: str | None) -> None:
        self.stamp = stamp
        self.text = text
        self.revision = revision
        self.snippets: dict[Hashable, str] = {}
        self.chars = len(text)


class HitBodies:
    """An LRU of (stamp, body, revision, snippets) per catalogue key, at most ``max_chars`` of text in all."""

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.max_chars = max_chars
        self._items: OrderedDict[str, _Item] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.snippets_cut = 0

    def get(self, key: str, stamp: tuple[int, int], read: Callable[[], tuple[str, str | None, bool]]) -> Body:
        """The body of ``key`` as of ``stamp``; ``read()`` gives (text, revision, keep) on a miss.

        ``keep`` False (the file could not be read, say) leaves nothing cached.
        """
        with self._lock:
            item = self._fresh(key, stamp)
            if item is not None:
                return item.text, item.revision
        text, revision, keep = read()  # outside the lock: searches read files in parallel
        with self._lock:
            self.misses += 1
            old = self._items.pop(key, None)
            if old is not None:
                self._chars -= old.chars
            if keep and len(text) <= self.max_chars // 4:
                self._items[key] = _Item(stamp, text, revision)
                self._chars += len(text)
                self._evict()
        return text, revision

    def snippet(self, key: str, stamp: tuple[int, int], read: Callable[[], tuple[str, str | None, bool]],
                terms: Hashable, cut: Callable[[str], str]) -> tuple[str, str | None]:
        """(snippet, revision) of ``key``'s body as of ``stamp``: ``cut(body)`` for the query ``terms``,
        once while the body stays cached at that stamp (``get`` reads the body)."""
        with self._lock:
            item = self._fresh(key, stamp)
            if item is not None:
                kept = item.snippets.get(terms)
                if kept is not None:
                    return kept, item.revision
                text, revision = item.text, item.revision
        if item is None:
            text, revision = self.get(key, stamp, read)
        snippet = cut(text)  # outside the lock
        with self._lock:
            self.snippets_cut += 1
            item = self._items.get(key)
            if item is not None and item.stamp == stamp and item.text is text and terms not in item.snippets:
                if len(item.snippets) >= MAX_SNIPPETS_PER_BODY:
                    self._chars -= item.chars - len(item.text)
                    item.chars = len(item.text)
                    item.snippets.clear()
                item.snippets[terms] = snippet
                # The key counts too: a one-word note's snippet is short, its query's terms need not be.
                cost = len(snippet) + _key_chars(terms)
                item.chars += cost
                self._chars += cost
                self._evict()
        return snippet, revision

    def _fresh(self, key: str, stamp: tuple[int, int]) -> _Item | None:
        """The cached item of ``key`` if it is as of ``stamp`` (counted as a hit); call with the lock held."""
        item = self._items.get(key)
        if item is None or item.stamp != stamp:
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return item

    def _evict(self) -> None:
        while self._chars > self.max_chars and self._items:
            _k, old = self._items.popitem(last=False)
            self._chars -= old.chars

    def __len__(self) -> int:
        return len(self._items)
