"""A workspace: folders of Markdown files (the truth), a catalogue of them and a search index (caches).

``Workspace`` wires the parts together and owns the locks:

- ``sync.folders.FolderSync`` says which files changed (inotify, change token, scans), and
  ``sync.refresh.FolderRefresh`` applies them (and rebuilds from the files);
- ``catalogue.Catalogue`` holds a row per file for listings, saved to ``.index/catalogue``;
- ``index.live.LiveIndex``: a ``write_batch.WriteBatch`` makes writes searchable at once and commits them
  in the background to a ``backend.SearchBackend`` (``whoosh_backend.WhooshBackend``), which ranks documents;
- ``writes.WriteHold`` holds the locks for a write and registers it, ``files.group_commit.GroupCommit``
  lands concurrent writes in one hold, and ``listeners.Listeners`` tells Git auto-commit and others;
- ``reads.Reads`` answers searches (and ``quick_reads``); ``sync.saved_catalogue`` opens and saves.

Locks: writers hold ``_mutex`` (this process) and ``lock`` (every process, the file
``<workspace>/.ctxnotes.lock``) for the file write and the catalogue update only. The engine
commit runs in the committer thread under ``_index_lock``. Searches and listings take neither:
they read the catalogue, the overlay of uncommitted writes and the last committed index.
A damaged index has one way back: ``_recover`` (rebuild from the files).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .analysis.analyzer import QueryUnit
from .errors import Busy, StorageError, WouldBlock
from .files.durable import WorkspaceLock
from .files.group_commit import GroupApply, GroupCommit
from .files.layout import GITIGNORE, INDEX_DIR, LOCK_FILE, ensure_layout
from .index.backend import Filters, IndexEntry, SearchBackend
from .index.catalogue import Catalogue, Entry
from .index.live import LiveIndex
from .listeners import ChangeListener, Listeners, WriteEvent, WriteListener
from .reads import QUICK_MAX_TERMS, RankedRows, Reads
from .settings import DEFAULT_MAX_CONTENT_BYTES, env_bytes
from .sync import saved_catalogue
from .sync.folders import FolderSync, Problem
from .sync.inotify import FolderWatcher
from .sync.refresh import FolderRefresh
from .workspace_state import Collection
from .writes import WriteHold

__all__ = ["Workspace", "WouldBlock", "Collection", "Entry", "Catalogue", "Problem", "WriteEvent", "WriteListener",
           "ChangeListener", "RankedRows", "GITIGNORE", "INDEX_DIR", "LOCK_FILE", "QUICK_MAX_TERMS"]

log = logging.getLogger("ctxnotes.workspace")

BACKLOG_WAIT_S = 30.0  # seconds a writer waits for the index to catch up before it is told to retry

T = TypeVar("T")


class Workspace:
    """The folder a store works on; shared by the note and memory stores."""

    def __init__(self, root: str | os.PathLike[str], collections: Sequence[Collection], *,
                 rescan_interval: float = 2.0, max_content_bytes: int | None = None,
                 clock: Callable[[], float] = time.time, commit_delay: float = 0.25) -> None:
        self.root = Path(root).expanduser().resolve()
        self.collections = {c.kind: c for c in collections}
        for coll in collections:  # a collection whose ids are paths needs the folder they are relative to
            bind = getattr(coll, "bind", None)
            if callable(bind):
                bind(self.root)
        self.rescan_interval = rescan_interval
        self.max_content_bytes = max_content_bytes or env_bytes("CTXNOTES_MAX_CONTENT_BYTES",
                                                                DEFAULT_MAX_CONTENT_BYTES)
        self.clock = clock
        self.index_dir = self.root / INDEX_DIR
        self.lock = WorkspaceLock(self.root / LOCK_FILE)
        self.catalogue = Catalogue()
        self.problems: dict[str, Problem] = {}
        self.events: list[str] = []  # what recovery did, for doctor/summary
        self._listeners = Listeners(self.root)
        self.write_listeners: list[WriteListener] = self._listeners.write
        self._pending_warnings = self._listeners.pending_warnings  # also read by ``files.items``
        self._live = LiveIndex(self.index_dir / "whoosh", self._recover, commit_delay)
        self._index: SearchBackend = self._live.backend
        self._batch = self._live.batch
        self._index_lock = self._live.index_lock  # one engine writer in this process
        self._searcher_lock = self._live.searcher_lock  # searches and searcher swaps (see ``LiveIndex``)
        self._sync = FolderSync(self.root, {k: c.folder_name for k, c in self.collections.items()},
                                self.index_dir / "changes",
                                nested={c.folder_name for c in self.collections.values() if getattr(c, "nested", False)})
        self._refresh = FolderRefresh(self)
        self._writes = WriteHold(self)
        self._groups = GroupCommit(self.writing, self._pending_warnings)
        self._mutex = threading.RLock()        # writers (and whatever changes the catalogue) in this process
        self._seen_changes: bytes | None = None
        self._stamps: dict[str, int] = {}
        self._scan_before_reading = False
        self._saved_version = -1
        self._temp_sweep_due = False  # temp files left to delete (see ``saved_catalogue.load``)
        self._reader = Reads(self)
        self._quick = self._reader.quick  # ``quick_reads``: this thread must not wait (an event loop)
        self._open()

    # -- layout --------------------------------------------------------------
    def folder(self, kind: str) -> Path:
        return self.root / self.collections[kind].folder_name

    def key_for(self, kind: str, item_id: str) -> str:
        return f"{self.collections[kind].folder_name}/{item_id}.md"

    @property
    def _inotify(self) -> FolderWatcher | None:  # kept for older tests; use ``watching_with_inotify``
        return self._sync.watcher

    @property
    def watching_with_inotify(self) -> bool:
        """True when inotify reports changes to the folders (Linux); False: periodic scans instead."""
        return self._sync.watcher is not None

    @property
    def search_backend(self) -> SearchBackend:
        """The engine behind searches (``whoosh_backend.WhooshBackend``)."""
        return self._index

    @property
    def index_generation(self) -> int:
        """Changes whenever searches start seeing a new committed index (each background commit)."""
        return self._index.generation

    @property
    def uncommitted(self) -> int:
        """Writes searchable from memory that the index has not committed yet."""
        return len(self._batch)

    @property
    def _rebuilds(self) -> int:
        return self._live.rebuilds

    @property
    def _write_depth(self) -> int:  # nested holds of ``writing()`` by the writing thread
        return self._writes.depth

    @property
    def _group(self) -> list[Any]:  # writes waiting for ``write_group``'s leader
        return self._groups.queue

    @property
    def _group_leading(self) -> bool:
        return self._groups.leading

    def _open(self) -> None:
        ensure_layout(self.root, [coll.folder_name for coll in self.collections.values()])
        self._sync.start()  # before the first look at the files: nothing changing after it is missed
        with self._mutex, self.lock.hold():
            fresh = saved_catalogue.open_index(self)
        self._batch.start()
        if not fresh:
            self.refresh(force=True)

    def save_catalogue(self) -> None:
        """Write the catalogue and what it was checked against, so a restart with nothing changed reads no
        file (``saved_catalogue.save``: commits pending index work first)."""
        saved_catalogue.save(self)

    # -- writes from the stores ------------------------------------------------
    def writing(self) -> contextlib.AbstractContextManager[None]:
        """Hold the workspace for a write: this process's mutex, then the inter-process lock.

        On the way out, tell other processes that something changed (the change token) and, when
        nothing else had changed since our last look, skip our own next rescan. Change listeners
        hear about the write after the locks are released.

        With inotify the token and the folder stamps are not how this process learns of changes
        (inotify names them), so they are not read here, and the token is replaced after the locks
        are released (still before the write is acknowledged): every system call made with the
        locks held may wait for the GIL while the other writers queue.
        """
        return self._writes.hold()

    def write_group(self, apply: GroupApply[T]) -> T:
        """Run one write under ``writing()`` together with the writes other threads queued meanwhile.

        ``apply`` runs under the locks: its checks and its rename, without the folder fsync; it returns
        ``(folder to fsync or None, finish)``. The first writer to arrive leads: it takes the locks once
        for every write queued by then, applies each, fsyncs each folder once, then runs each write's
        ``finish`` (register it and build its result) and hands every waiting writer its own result or
        its own exception. No write is visible or acknowledged before its rename is durable; a write
        that fails (a revision check, a full disk) fails alone. Writes queued while a group is being
        applied form the next group, led by the first of them.

        Why: each system call made with the locks held may wait for the GIL (up to the switch interval)
        while request threads run Python, and the other writers queue behind it; one lock hold, one
        change token and one folder fsync for a group make that wait once per group, not once per write.
        """
        # Already inside writing() (a nested write): no queue.
        return self._groups.run(apply, nested=self._writes.writer == threading.get_ident())


    def record_write(self, entry: IndexEntry, st: os.stat_result, lazy: bool = False) -> Entry:
        """Register a file a store has just written durably (caller holds ``writing()``).

        The catalogue and searches reflect it at once; the index commits it in the background
        with whatever else was written meanwhile. A crash before that commit loses nothing: the
        file is on disk and reopening indexes it. ``lazy`` writes (bookkeeping that changes no
        indexed text) wait for the next real commit and are not reported to change listeners.
        """
        return self._writes.record_write(entry, st, lazy)

    def record_delete(self, key: str) -> None:
        """Register a file a store has just deleted (caller holds ``writing()``)."""
        self._writes.record_delete(key)

    def add_change_listener(self, listener: ChangeListener) -> Callable[[], None]:
        """Call ``listener(changes)`` whenever files change; returns a function that removes it.

        ``changes`` maps keys such as ``"notes/<id>.md"`` or ``"memory/<id>.md"`` to ``"created"``,
        ``"updated"`` or ``"deleted"``. It is called for this process's own writes (once per write,
        after the locks are released) and for changes found in the folders (an editor, ``git pull``,
        another process), from whichever thread noticed them. Keep it quick and thread-safe (e.g.
        schedule a notification); its exceptions are logged and never reach the writer.
        """
        return self._listeners.add_change_listener(listener)

    def take_warnings(self) -> list[str]:
        """Warnings raised by write listeners during this thread's last operations (then cleared)."""
        return self._listeners.take_warnings()

    # -- the engine commit ------------------------------------------------------
    def flush(self, include_lazy: bool = True) -> None:
        """Commit uncommitted index work now (``include_lazy=False``: only if a real write is waiting):
        every write registered before the call, a chunk per engine commit (``WriteBatch.take``)."""
        self._live.flush(include_lazy)

    @property
    def backlog(self) -> tuple[int, int]:
        """(characters of indexed text written but not committed yet, the bound past which writers wait)."""
        return self._batch._bytes, self._batch.max_backlog

    @property
    def index_behind(self) -> bool:
        """More uncommitted text than ``WriteBatch.max_backlog``: a write now waits for the committer first (a
        server may wait for this to clear without holding a thread)."""
        return self._batch.over_backlog()

    def backlog_error(self) -> Busy:
        """The error for a write that waited ``BACKLOG_WAIT_S`` while ``index_behind``."""
        return Busy(f"the search index is more than {self._batch.max_backlog >> 20} MiB of writes behind "
                    f"(waited {BACKLOG_WAIT_S:.0f} s for it to commit); nothing was written: retry in a few "
                    "seconds, or write less at once")

    def _wait_for_index(self) -> None:
        """Before a write takes the locks: while the index is more than ``WriteBatch.max_backlog`` of text
        behind, wait for the committer (at most ``BACKLOG_WAIT_S``), so a client writing faster than the
        engine commits cannot grow the overlay's memory without bound. A nested write does not wait."""
        if self._writes.writer == threading.get_ident() or not self._batch.over_backlog():
            return
        if not self._batch.wait_for_room(BACKLOG_WAIT_S):
            raise self.backlog_error()

    # -- keeping up with the files ------------------------------------------------
    def refresh(self, force: bool = False, wait: bool | None = None, polite: bool = False) -> None:
        """Bring the catalogue and index in step with the files, if anything may have changed.

        On Linux, inotify names the files that changed: only those are looked at.
        Elsewhere, a folder's mtime changes whenever a file is added, removed or
        renamed in it, and other ctxnotes processes replace ``.index/changes`` on
        every write, so the common case costs a couple of ``stat`` calls; in-place
        edits are caught by a full scan every ``rescan_interval`` seconds (here when
        due, or in the background thread of ``start_watching``). Unless ``wait`` (default:
        only when ``force``), changes are not applied while a writer holds the workspace: they
        stay queued for the next look, and reads go on with the last applied state. ``polite``: a
        full scan steps aside for running searches (for the background thread only: a search's own
        refresh would wait for itself).
        """
        self._refresh.refresh(force, wait, polite)

    def _full_refresh(self, wait: bool, polite: bool = False) -> None:
        self._refresh.full_refresh(wait, polite)

    def _yield_to_reads(self) -> None:  # the pause of a polite scan (``FolderRefresh.full_refresh``)
        self._refresh.yield_to_reads()

    def _reading(self) -> contextlib.AbstractContextManager[None]:  # a search runs: polite scans step aside
        return self._refresh.reading()

    # -- background work (servers) -------------------------------------------------
    def start_watching(self, interval: float | None = None) -> None:
        """Pick up outside changes in a background thread (for servers).

        Every ``interval`` seconds it applies what inotify reported (or scans, without inotify);
        it also rescans everything every ``SAFETY_RESCAN_INTERVAL`` seconds and soon after any
        error, and saves the catalogue once writes have paused.
        """
        self._refresh.start_watching(interval)

    # -- rebuilding ----------------------------------------------------------
    def _recover(self, reason: str, rebuilds_seen: int) -> None:
        """The one way back from a damaged index: rebuild it from the files (once, however many noticed)."""
        if self._quick.on:
            raise WouldBlock(f"the index needs a rebuild: {reason}")
        with self._mutex, self.lock.hold(), self._index_lock:
            if self._rebuilds != rebuilds_seen:
                return  # another thread rebuilt it since this caller saw the damage
            self._refresh.rebuild_locked(reason)

    def rebuild(self) -> int:
        """Rebuild the index from the files (``ctxnotes reindex``); return the number indexed."""
        with self._mutex, self.lock.hold():
            self._refresh.rebuild_locked("asked for", quiet=True)
            return len(self.catalogue)

    def _event(self, message: str, quiet: bool = False) -> None:
        (log.info if quiet else log.warning)("%s: %s", self.root, message)
        self.events.append(message)
        del self.events[:-50]

    # -- reading ---------------------------------------------------------------
    def prepare_read(self) -> None:
        """Pick up outside changes before a query, without waiting behind a writer."""
        self.refresh()

    def entries(self, kind: str) -> list[Entry]:
        """The catalogue rows of one kind (a fresh list; cached until the catalogue changes)."""
        return self.catalogue.entries(kind)

    def sorted_entries(self, kind: str, key: Callable[[Entry], Any], name: str, reverse: bool) -> list[Entry]:
        """Rows of one kind in ``key`` order, cached per ``name`` until the catalogue changes."""
        return self.catalogue.sorted_entries(kind, key, name, reverse)

    def search(self, units: Sequence[QueryUnit], filters: Filters, limit: int,
               match_all: bool = True) -> tuple[list[tuple[Entry, float]], int]:
        """Ranked catalogue rows for a query, and how many matched (see ``search_ranked``)."""
        ranked = self.search_ranked(units, filters, limit, match_all)
        return ranked.rows, ranked.total

    def quick_reads(self) -> contextlib.AbstractContextManager[None]:
        """Searches in this block either answer without waiting (no folder scan, no write lock, no
        rebuild; at most a searcher swap) or raise ``WouldBlock`` having changed nothing.

        For a server's event loop: a search run there skips two thread hand-offs of the GIL (each up to
        the 5 ms switch interval under load), and one that would wait is run again in a worker thread.
        """
        return self._reader.quick_reads()

    @property
    def reading_quickly(self) -> bool:
        """This thread is inside ``quick_reads``: work that may take long raises ``WouldBlock`` first."""
        return self._quick.on

    @property
    def reads_are_quick(self) -> bool:
        """Whether a search now is likely to answer without waiting (see ``quick_reads``): inotify
        reports changes, none were lost, and no rebuild holds the searcher."""
        return (self._sync.watcher is not None and not self._sync.lost and not self._scan_before_reading
                and not self._searcher_lock.locked())

    def search_ranked(self, units: Sequence[QueryUnit], filters: Filters, limit: int,
                      match_all: bool = True) -> RankedRows:
        """Ranked catalogue rows for a query: the committed index plus writes not committed yet.

        Takes no write lock: a search sees every acknowledged write (from memory until the
        background commit) and never waits for one. A damaged index is rebuilt once.
        """
        return self._reader.search_ranked(units, filters, limit, match_all)

    def indexed_now(self, kind: str | None = None) -> tuple[int, int]:
        """(documents in the index searches read now, writes still waiting to be committed), without
        waiting for anything: what a metrics scrape may ask every few seconds (``index_count`` scans the
        folder and waits for the pending commit, which after a burst of large writes takes seconds)."""
        return self._index.doc_count(kind), len(self._batch)

    def index_count(self, kind: str | None = None) -> int:
        """Documents in the committed index (for doctor and tests): must equal the readable files."""
        self.refresh()
        self.flush()
        return self._live.committed_count(kind)

    def close(self) -> None:
        self._refresh.stop_watching()
        self._batch.stop()
        with self._mutex:
            if self._temp_sweep_due:  # opened from the saved catalogue and no background thread swept
                with contextlib.suppress(StorageError), self.lock.hold():
                    saved_catalogue.sweep_temp_files(self)
            try:
                if self.catalogue.version != self._saved_version or len(self._batch) or self._batch.has_lazy:
                    self.save_catalogue()  # commits what is pending first
                else:
                    self.flush()
            finally:
                self._index.close()
                self._sync.close()
                self.lock.close()  # the lock file stays open between holds (fsio.WorkspaceLock)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
