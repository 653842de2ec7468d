"""Recently read search-hit bodies, keyed by the catalogue row's file stamp (issue 16).

Every search hit needs its note's body for the snippet and its revision. Reading the file
(open, fstat, read, close) was a quarter of a search's server CPU; popular notes are hit again
and again. A body is reused only while the catalogue row still has the stamp (mtime_ns, size)
it was read under: any write through the store, or an edit the folder watcher saw, gives the
row a new stamp and the next hit reads the file again. Bounded by total characters, least recently
used out first; safe to share between search threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

DEFAULT_MAX_CHARS = 16 << 20

Body = tuple[str, "str | None"]  # (text to cut a snippet from, revision)


class HitBodies:
    """An LRU of (stamp, body, revision) per catalogue key, at most ``max_chars`` of text in all."""

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.max_chars = max_chars
        self._items: OrderedDict[str, tuple[tuple[int, int], str, str | None]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str, stamp: tuple[int, int], read: Callable[[], tuple[str, str | None, bool]]) -> Body:
        """The body of ``key`` as of ``stamp``; ``read()`` gives (text, revision, keep) on a miss.

        ``keep`` False (the file could not be read, say) leaves nothing cached.
        """
        with self._lock:
            item = self._items.get(key)
            if item is not None and item[0] == stamp:
                self._items.move_to_end(key)
                self.hits += 1
                return item[1], item[2]
        text, revision, keep = read()  # outside the lock: searches read files in parallel
        with self._lock:
            self.misses += 1
            old = self._items.pop(key, None)
            if old is not None:
                self._chars -= len(old[1])
            if keep and len(text) <= self.max_chars // 4:
                self._items[key] = (stamp, text, revision)
                self._chars += len(text)
                while self._chars > self.max_chars and self._items:
                    _k, (_s, t, _r) = self._items.popitem(last=False)
                    self._chars -= len(t)
        return text, revision

    def __len__(self) -> int:
        return len(self._items)
