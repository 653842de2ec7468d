"""The index a workspace searches while it writes: the engine, the write batch in front of it and their locks.

Kept apart from ``workspace`` so the engine commit, the backlog bound and the search over committed
plus uncommitted writes read as one piece; a damaged index is handed back to ``recover`` (the workspace).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ..analysis.analyzer import QueryUnit
from ..errors import StorageError, WouldBlock
from .backend import Filters, Hits, IndexCorrupt, IndexEntry, SearchBackend
from .whoosh_backend import WhooshBackend
from .write_batch import WriteBatch, search_overlay

__all__ = ["LiveIndex"]


class LiveIndex:
    """The engine (``backend``), the writes it has not committed yet (``batch``) and the locks around them.

    ``index_lock``: one engine writer in this process. ``searcher_lock``: searches, and every swap of
    the engine's searcher: a search must rank with one searcher and the caches built for it, never
    start with one and finish after the next is in place. ``rebuilds`` counts rebuilds, so that a
    damage noticed by many threads is repaired once (``recover(reason, rebuilds_seen)``).
    """

    def __init__(self, folder: Path, recover: Callable[[str, int], None], commit_delay: float) -> None:
        self.backend: SearchBackend = WhooshBackend(folder)
        self.batch = WriteBatch(self.commit, delay=commit_delay)
        self.index_lock = threading.RLock()
        self.searcher_lock = threading.Lock()
        self.rebuilds = 0
        self._recover = recover

    def commit(self, include_lazy: bool = False) -> None:
        """Commit the writes waiting in the batch (the committer thread, or ``flush``)."""
        with self.index_lock:
            pending, lazy = self.batch.take(include_lazy)
            if not pending and not lazy:
                return
            puts = [p.entry for p in pending.values() if p.entry is not None]
            puts += [e for k, e in lazy.items() if k not in pending]
            deletes = [k for k, p in pending.items() if p.entry is None]
            rebuilds = self.rebuilds
            try:
                self.backend.write(puts, deletes)
                # Opening the new searcher (files, system calls: each a wait for the GIL under load) happens
                # beside running searches; only the swap waits for them, and searches wait only for the swap.
                prepared = self.backend.prepare_refresh()
                with self.searcher_lock:  # waits for a running search; writers never wait for this
                    self.backend.install_refresh(prepared)
            except StorageError:  # disk full or similar: the writes stay pending and are retried
                self.batch.restore_lazy(lazy)
                raise
            except IndexCorrupt as exc:
                failure: IndexCorrupt | None = exc
            else:
                failure = None
                self.batch.done(pending)
        if failure is not None:
            self._recover(f"index failed during a write ({failure})", rebuilds)

    def catch_up(self) -> None:
        """Commit chunks here until the overlay is back within its bound (caller holds the writers' mutex):
        files changed behind our back (a ``git pull`` of many large notes) would otherwise all sit analysed
        in memory at once. Stops early when a commit makes no progress (a full disk: the files stay pending)."""
        while self.batch.over_backlog():
            before = len(self.batch)
            try:
                self.commit()
            except StorageError:
                return
            if len(self.batch) >= before:
                return

    def flush(self, include_lazy: bool = True) -> None:
        """Commit uncommitted index work now (``include_lazy=False``: only if a real write is waiting):
        every write registered before the call, a chunk per engine commit (``WriteBatch.take``)."""
        upto = self.batch.seq
        self.commit(include_lazy)
        while self.batch.holds_writes_up_to(upto):
            self.commit(include_lazy)

    def search(self, units: Sequence[QueryUnit], filters: Filters, limit: int, match_all: bool,
               quick: bool) -> tuple[Hits, list[tuple[str, float]]]:
        """The engine's hits and the uncommitted writes' (scored with the engine's statistics) for a query.

        ``quick`` (``Workspace.quick_reads``): raise ``WouldBlock`` rather than wait for the searcher or
        recover. A damaged index is recovered and searched again, at most twice.
        """
        for attempt in range(3):
            rebuilds = self.rebuilds
            pending = self.batch.snapshot()  # before the engine's searcher: see WriteBatch.done
            # In ``quick_reads`` mode a search never waits for the searcher (a swap or a rebuild holds it).
            if not self.searcher_lock.acquire(blocking=not quick):
                raise WouldBlock("the searcher is busy")
            try:
                try:  # the lock is released before any recovery, which takes the write locks
                    hits = self.backend.search(units, filters, limit, match_all, exclude=pending.keys())
                    extra = (search_overlay(pending, units, filters, match_all, self.backend.stats)
                             if pending else [])
                finally:
                    self.searcher_lock.release()
                break
            except IndexCorrupt as exc:
                if attempt == 2:
                    raise StorageError(f"the index cannot be searched: {exc}; run 'ctxnotes reindex'") from exc
                if quick:
                    raise WouldBlock("the index needs a rebuild") from exc
                self._recover(f"index failed during a search ({exc})", rebuilds)
        return hits, extra

    def create(self, entries: Iterable[IndexEntry]) -> int:
        """Build the index afresh from ``entries`` (a rebuild); return how many were indexed."""
        with self.index_lock, self.searcher_lock:
            count = self.backend.create(entries)
            self.rebuilds += 1
        return count

    def committed_count(self, kind: str | None = None) -> int:
        """Documents in the committed index, its latest commit opened first."""
        with self.index_lock, self.searcher_lock:
            self.backend.refresh()
            return self.backend.doc_count(kind)
