"""A workspace: folders of Markdown files (the truth), a catalogue of them and a search index (caches).

``Workspace`` wires the parts together and owns the locks:

- ``sync.folders.FolderSync`` says which files changed (inotify, change token, scans);
- ``catalogue.Catalogue`` holds a row per file for listings, saved to ``.index/catalogue``;
- ``write_batch.WriteBatch`` makes writes searchable at once and commits them in the background;
- a ``backend.SearchBackend`` (``whoosh_backend.WhooshBackend``) ranks documents.

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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from .analysis.analyzer import QueryUnit
from .index.catalogue import Catalogue, Entry
from .files.front_matter import BadFile, clipped_reason
from .errors import Busy, StorageError
from .sync.folders import PAUSE_EVERY, FolderSync, Found, Problem
from .files.durable import WorkspaceLock, fsync_dir, remove_temp_files
from .files.safe_read import read_regular_file
from .index.backend import Filters, IndexCorrupt, IndexEntry, SearchBackend
from .sync.inotify import FolderWatcher
from .index.whoosh_backend import WhooshBackend
from .index.write_batch import WriteBatch, search_overlay

__all__ = ["Workspace", "WouldBlock", "Collection", "Entry", "Catalogue", "Problem", "WriteEvent", "WriteListener",
           "ChangeListener", "RankedRows", "GITIGNORE", "INDEX_DIR", "LOCK_FILE"]

log = logging.getLogger("ctxnotes.workspace")

INDEX_DIR = ".index"
LOCK_FILE = ".ctxnotes.lock"
CATALOGUE_FILE = "catalogue"
GITIGNORE = ("# ctxnotes: the index and locks are derived from the notes; never commit them\n"
             f".index/\n.tmp-*\n{LOCK_FILE}\n")
DEFAULT_MAX_CONTENT_BYTES = 1 << 20
BACKLOG_WAIT_S = 30.0            # seconds a writer waits for the index to catch up before it is told to retry
SAFETY_RESCAN_INTERVAL = 300.0  # seconds between full scans in a watching server, whatever inotify says
RETRY_AFTER_ERROR = 2.0         # seconds before a refresh that failed is tried again (in the background)
SAVE_WHEN_IDLE = 10.0           # seconds without writes before a changed catalogue is saved
PAUSE_AT_MOST = 0.05            # seconds a background scan waits for running searches at one check
# ``quick_reads`` (a server's event loop) runs a search only if it is short and the searcher is free: a
# query of many terms can take tens of ms at 100k notes, and the loop serves every other client meanwhile.
QUICK_MAX_TERMS = 32


class Collection(Protocol):
    """How the files of one folder become index entries."""

    kind: str          # "note" | "memory"
    folder_name: str   # "notes" | "memory"

    def parse(self, path: Path, raw: bytes) -> IndexEntry:
        """Turn a file's bytes into an entry; raise ``BadFile`` with the reason when it can't."""
        ...


@dataclass
class WriteEvent:
    """A file a store has just written or deleted durably (for listeners such as Git auto-commit)."""

    action: str        # "create" | "update" | "delete"
    kind: str          # "note" | "memory"
    id: str
    title: str
    path: Path


WriteListener = Callable[[WriteEvent], "str | None"]  # returns a warning to report, or None
ChangeListener = Callable[[Mapping[str, str]], None]  # {"notes/<id>.md": "created" | "updated" | "deleted"}


@dataclass
class RankedRows:
    """Catalogue rows for a query, best first; ``total`` may be a lower bound (see ``backend.Hits``)."""

    rows: list[tuple[Entry, float]]
    total: int
    total_is_lower_bound: bool = False


T = TypeVar("T")

# What a grouped write does under the locks: its checks and its rename, no folder fsync. It returns the
# folder to fsync (None: nothing to fsync, e.g. it wrote durably itself) and what to run once that fsync
# is done, still under the locks: register the file (catalogue, overlay, listeners) and build the result.
GroupApply = Callable[[], "tuple[Path | None, Callable[[], T]]"]


class _GroupJob(Generic[T]):
    """One write waiting in ``Workspace.write_group``'s queue, and what came of it."""

    __slots__ = ("apply", "folder", "finish", "result", "error", "warnings", "ready", "lead", "has_result")

    def __init__(self, apply: GroupApply[T]) -> None:
        self.apply = apply
        self.folder: Path | None = None
        self.finish: Callable[[], T] | None = None
        self.result: T | None = None
        self.has_result = False
        self.error: BaseException | None = None
        self.warnings: list[str] = []
        self.ready = threading.Event()  # set when the job is done, or when it is to lead the next group
        self.lead = False


class WouldBlock(Exception):
    """A read in ``Workspace.quick_reads`` mode would wait (a scan of the folders, a lock, a recovery):
    nothing was changed; run it again where waiting is fine (a worker thread)."""


class _QuickReads(threading.local):
    """Per thread: inside ``Workspace.quick_reads`` (an event loop that must not wait)."""

    on = False


class _FolderUnreadable(Exception):
    """A folder could not be read right now: apply nothing, keep the changes pending, retry."""


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
        if number <= 0:
            raise ValueError
    except ValueError:
        raise StorageError(f"{name}={value!r} must be a positive whole number of bytes") from None
    return number


class Workspace:
    """The folder a store works on; shared by the note and memory stores."""

    def __init__(self, root: str | os.PathLike[str], collections: Sequence[Collection], *,
                 rescan_interval: float = 2.0, max_content_bytes: int | None = None,
                 clock: Callable[[], float] = time.time, commit_delay: float = 0.25) -> None:
        self.root = Path(root).expanduser().resolve()
        self.collections = {c.kind: c for c in collections}
        self.rescan_interval = rescan_interval
        self.max_content_bytes = max_content_bytes or _env_int("CTXNOTES_MAX_CONTENT_BYTES",
                                                               DEFAULT_MAX_CONTENT_BYTES)
        self.clock = clock
        self.index_dir = self.root / INDEX_DIR
        self.lock = WorkspaceLock(self.root / LOCK_FILE)
        self.catalogue = Catalogue()
        self.problems: dict[str, Problem] = {}
        self.events: list[str] = []  # what recovery did, for doctor/summary
        self.write_listeners: list[WriteListener] = []
        self._change_listeners: list[ChangeListener] = []
        self._index: SearchBackend = WhooshBackend(self.index_dir / "whoosh")
        self._sync = FolderSync(self.root, {k: c.folder_name for k, c in self.collections.items()},
                                self.index_dir / "changes")
        self._batch = WriteBatch(self._commit_batch, delay=commit_delay)
        self._mutex = threading.RLock()        # writers (and whatever changes the catalogue) in this process
        self._index_lock = threading.RLock()   # one engine writer in this process
        # Searches, and every swap of the engine's searcher: a search must rank with one searcher
        # and the caches built for it, never start with one and finish after the next is in place.
        self._searcher_lock = threading.Lock()
        self._rebuilds = 0
        self._seen_changes: bytes | None = None
        self._stamps: dict[str, int] = {}
        self._last_scan = 0.0
        self._scan_before_reading = False
        self._next_safety_scan = 0.0
        self._retry_at: float | None = None
        self._last_write = 0.0
        self._saved_version = -1
        self._write_depth = 0
        self._writer: int | None = None  # the thread inside ``writing()``
        self._group: list[_GroupJob[Any]] = []  # writes waiting for ``write_group``'s leader
        self._group_lock = threading.Lock()
        self._group_leading = False
        self._wrote = False
        self._clean = False
        self._changes: dict[str, str] = {}  # what this write (or reconcile) changed, for change listeners
        self._warnings = threading.local()
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()
        self._temp_sweep_due = False  # temp files left to delete (see ``_load_catalogue``)
        self._reads = 0  # searches running now: the background scan steps aside for them
        self._reads_lock = threading.Lock()
        self._quick = _QuickReads()  # ``quick_reads``: this thread must not wait (an event loop)
        self._open()

    # -- layout --------------------------------------------------------------
    def folder(self, kind: str) -> Path:
        return self.root / self.collections[kind].folder_name

    def key_for(self, kind: str, item_id: str) -> str:
        return f"{self.collections[kind].folder_name}/{item_id}.md"

    @property
    def _catalogue_path(self) -> Path:
        return self.index_dir / CATALOGUE_FILE

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

    def _ensure_layout(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.index_dir.mkdir(exist_ok=True)
            for coll in self.collections.values():
                (self.root / coll.folder_name).mkdir(exist_ok=True)
            gitignore = self.root / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text(GITIGNORE, encoding="utf-8")
            else:  # a workspace from before the lock moved out of .index/: ignore the lock file too
                text = gitignore.read_text(encoding="utf-8", errors="replace")
                if text.startswith("# ctxnotes:") and LOCK_FILE not in text.splitlines():
                    gitignore.write_text(text + ("" if text.endswith("\n") else "\n") + LOCK_FILE + "\n",
                                         encoding="utf-8")
        except OSError as exc:
            raise StorageError(f"cannot create workspace at {self.root}: {exc.strerror or exc}") from exc

    def _open(self) -> None:
        self._ensure_layout()
        self._sync.start()  # before the first look at the files: nothing changing after it is missed
        fresh = False
        with self._mutex, self.lock.hold():
            if not self._index.open():
                self._sweep_temp_files()
                folder = self.index_dir / "whoosh"
                empty = not folder.exists() or not any(folder.iterdir())
                self._rebuild_locked("no index yet" if empty else "no usable index found", quiet=empty)
                fresh = True
            else:
                fresh = self._load_catalogue()
        self._batch.start()
        if not fresh:
            self.refresh(force=True)

    def _load_catalogue(self) -> bool:
        """Load the saved catalogue; True when it is known to match the files and the index as they are.

        Then nothing else is read before the first answer (a watching server rescans in the
        background to catch in-place edits made while it was down). Otherwise the saved rows are
        the starting point of a full scan, and index entries no row explains are deleted.
        """
        kinds = set(self.collections)
        loaded = Catalogue.load(self._catalogue_path, self.root, kinds)
        if loaded is None:
            self._sweep_temp_files()
            self._rebuild_locked("no saved catalogue", quiet=True)
            return True
        rows, record = loaded
        self.catalogue.replace_all(rows)
        self._saved_version = self.catalogue.version
        self.problems = {p[0]: Problem(p[0], p[1], p[2], p[3], bool(p[4]))
                         for p in record.get("problems", []) if isinstance(p, list) and len(p) == 5}
        token = self._sync.read_token()
        stamps = self._sync.stamps()
        if (record.get("index") == self._index.version and record.get("stamps") == stamps
                and record.get("token") == (token or b"").decode("ascii", "replace")):
            self._stamps = stamps or {}
            self._seen_changes = token
            self._scan_before_reading = True  # unless a watching thread does it in the background
            # The folders are as saved: a temp file (a dot name, never a note) can only be one a writer in
            # another process left while this catalogue was saved. Listing 100k names for it is ~0.1-0.3 s
            # of the start-up: the background thread (or the next write) sweeps instead.
            self._temp_sweep_due = True
            return True
        self._sweep_temp_files()  # before the scan that follows: removing one changes the folder's mtime
        try:
            indexed = set(self._index.keys())
        except IndexCorrupt as exc:
            self._rebuild_locked(f"index unreadable ({exc})")
            return True
        for key in indexed.difference(rows):
            self._batch.delete(key)
        for key in set(rows).difference(indexed):  # not in the index: the scan reads the file again
            rows[key].mtime_ns = -3
        return False

    def _sweep_temp_files(self) -> None:
        """Delete the temp files of writes that died mid-write. Caller holds ``_mutex`` and ``lock``."""
        self._temp_sweep_due = False
        for coll in self.collections.values():
            removed = remove_temp_files(self.root / coll.folder_name)
            if removed:
                self._event(f"removed {len(removed)} temp file(s) left by an interrupted write in "
                            f"{coll.folder_name}/")

    def save_catalogue(self) -> None:
        """Write the catalogue and what it was checked against, so a restart with nothing changed reads no file.

        Commits pending index work first: the record names the index state the rows match. That
        commit runs before taking the writers' mutex (its searcher swap may wait for a running
        search, and a writer must never wait for a search); the one under the mutex then only
        commits what arrived in between, usually nothing.
        """
        self.flush()
        with self._mutex:
            stamps = self._sync.stamps()
            token = self._sync.read_token()
            if self._sync.watcher is not None:
                self.refresh()  # apply whatever inotify queued before ``stamps`` were read
                clean = not self._sync.has_pending
            else:
                clean = stamps == self._stamps and token == self._seen_changes
            self.flush()
            if not clean or stamps is None:
                stamps = {}  # not known to match: the next start scans
            version = self.catalogue.version
            rows = self.catalogue.values()
            record = {"index": self._index.version, "stamps": stamps,
                      "token": (token or b"").decode("ascii", "replace"),
                      "problems": [[p.path, p.reason, p.mtime_ns, p.size, p.transient]
                                   for p in self.problems.values()]}
        self.catalogue.save(self._catalogue_path, record, rows)  # the slow part, unlocked
        self._saved_version = version

    # -- writes from the stores ------------------------------------------------
    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the workspace for a write: this process's mutex, then the inter-process lock.

        On the way out, tell other processes that something changed (the change token) and, when
        nothing else had changed since our last look, skip our own next rescan. Change listeners
        hear about the write after the locks are released.

        With inotify the token and the folder stamps are not how this process learns of changes
        (inotify names them), so they are not read here, and the token is replaced after the locks
        are released (still before the write is acknowledged): every system call made with the
        locks held may wait for the GIL while the other writers queue.
        """
        self._wait_for_index()
        changes: dict[str, str] = {}
        bump_after = False
        with self._mutex, self.lock.hold():
            self._write_depth += 1
            if self._write_depth == 1:
                self._writer = threading.get_ident()
                self._wrote = False
                self._clean = (self._sync.watcher is None and self._sync.read_token() == self._seen_changes
                               and self._sync.stamps() == self._stamps)
            try:
                yield
            finally:
                self._write_depth -= 1
                if self._write_depth == 0:
                    self._writer = None
                    if self._wrote:
                        self._last_write = time.monotonic()
                        if self._sync.watcher is not None:
                            bump_after = True
                        else:
                            token = self._sync.bump_token()
                            if self._clean and token is not None:
                                self._seen_changes = token
                                self._stamps = self._sync.stamps() or self._stamps
                    changes, self._changes = self._changes, {}
        if bump_after:
            self._sync.bump_token()
        if changes:
            self._tell_change_listeners(changes)

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
        if self._writer == threading.get_ident():  # already inside writing() (a nested write): no queue
            folder, finish = apply()
            if folder is not None:
                self._sync_folder(folder)
            return finish()
        job: _GroupJob[T] = _GroupJob(apply)
        with self._group_lock:
            self._group.append(job)
            lead = not self._group_leading
            self._group_leading = True
        if not lead:
            job.ready.wait()
            lead = job.lead
        if lead:
            self._lead_group()
        if job.warnings:
            self._pending_warnings().extend(job.warnings)
        if job.error is not None:
            raise job.error
        assert job.has_result
        return job.result  # type: ignore[return-value]

    def _sync_folder(self, folder: Path) -> None:
        try:
            fsync_dir(folder)
        except OSError as exc:
            raise StorageError(f"could not make the write in {folder.name}/ durable: {exc.strerror or exc}") \
                from exc

    def _lead_group(self) -> None:
        """Apply every queued write in one hold of the locks (see ``write_group``); then hand the lead on."""
        mine = self._pending_warnings()
        group: list[_GroupJob[Any]] = []
        try:
            with self.writing():
                # Taken once the locks are held: every write queued while this one waited for them joins.
                with self._group_lock:
                    group, self._group = self._group, []
                for job in group:
                    try:
                        job.folder, job.finish = job.apply()
                    except BaseException as exc:  # this write's own failure, for its own caller
                        job.error = exc
                synced: dict[Path, BaseException | None] = {}
                for job in group:
                    if job.error is not None or job.folder is None:
                        continue
                    if job.folder not in synced:
                        try:
                            self._sync_folder(job.folder)
                            synced[job.folder] = None
                        except StorageError as exc:
                            synced[job.folder] = exc
                    job.error = synced[job.folder]
                for job in group:
                    if job.error is not None or job.finish is None:
                        continue
                    start = len(mine)
                    try:
                        job.result = job.finish()
                        job.has_result = True
                    except BaseException as exc:
                        job.error = exc
                    job.warnings = mine[start:]  # a listener's warnings go to the writer they concern
                    del mine[start:]
        except BaseException as exc:  # the locks could not be taken (or released): every unfinished write fails
            if not group:
                with self._group_lock:
                    group, self._group = self._group, []
            for job in group:
                if job.error is None and not job.has_result:
                    job.error = exc
        finally:
            with self._group_lock:
                nxt = self._group[0] if self._group else None
                if nxt is None:
                    self._group_leading = False
                else:
                    nxt.lead = True
            for job in group:
                job.finish = None
                job.apply = None  # type: ignore[assignment]
                job.ready.set()
            if nxt is not None:
                nxt.ready.set()

    def record_write(self, entry: IndexEntry, st: os.stat_result, lazy: bool = False) -> Entry:
        """Register a file a store has just written durably (caller holds ``writing()``).

        The catalogue and searches reflect it at once; the index commits it in the background
        with whatever else was written meanwhile. A crash before that commit loses nothing: the
        file is on disk and reopening indexes it. ``lazy`` writes (bookkeeping that changes no
        indexed text) wait for the next real commit and are not reported to change listeners.
        """
        with self._mutex:
            row = Entry(entry.key, entry.kind, self.root, st.st_mtime_ns, st.st_size, entry.meta)
            action = "update" if entry.key in self.catalogue else "create"
            self.catalogue[entry.key] = row
            self.problems.pop(entry.key, None)
            self._batch.put(entry, lazy=lazy)
            self._wrote = True
            if not lazy:
                self._changes[entry.key] = action + "d"
        self._notify(WriteEvent(action, entry.kind, row.id, str(entry.meta.get("title") or entry.title), row.path))
        return row

    def record_delete(self, key: str) -> None:
        """Register a file a store has just deleted (caller holds ``writing()``)."""
        with self._mutex:
            old = self.catalogue.pop(key, None)
            self.problems.pop(key, None)
            self._batch.delete(key)
            self._wrote = True
            self._changes[key] = "deleted"
        path = self.root / key
        title = str(old.meta.get("title", "")) if old is not None else ""
        self._notify(WriteEvent("delete", old.kind if old else key.split("/")[0], path.stem, title, path))

    def add_change_listener(self, listener: ChangeListener) -> Callable[[], None]:
        """Call ``listener(changes)`` whenever files change; returns a function that removes it.

        ``changes`` maps keys such as ``"notes/<id>.md"`` or ``"memory/<id>.md"`` to ``"created"``,
        ``"updated"`` or ``"deleted"``. It is called for this process's own writes (once per write,
        after the locks are released) and for changes found in the folders (an editor, ``git pull``,
        another process), from whichever thread noticed them. Keep it quick and thread-safe (e.g.
        schedule a notification); its exceptions are logged and never reach the writer.
        """
        self._change_listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._change_listeners.remove(listener)
        return remove

    def _tell_change_listeners(self, changes: dict[str, str]) -> None:
        for listener in list(self._change_listeners):
            try:
                listener(dict(changes))
            except Exception:
                log.exception("%s: change listener failed", self.root)

    def _notify(self, event: WriteEvent) -> None:
        """Tell write listeners about a durable write; their failures become warnings, never errors."""
        for listener in self.write_listeners:
            try:
                warning = listener(event)
            except Exception as exc:  # the file is saved: a listener can't undo that
                log.exception("%s: write listener failed", self.root)
                warning = f"{type(exc).__name__}: {exc}"
            if warning:
                self._pending_warnings().append(warning)

    def _pending_warnings(self) -> list[str]:
        if not hasattr(self._warnings, "items"):
            self._warnings.items = []
        items: list[str] = self._warnings.items
        return items

    def take_warnings(self) -> list[str]:
        """Warnings raised by write listeners during this thread's last operations (then cleared)."""
        items = self._pending_warnings()
        self._warnings.items = []
        return items

    # -- the engine commit ------------------------------------------------------
    def _commit_batch(self, include_lazy: bool = False) -> None:
        """Commit the writes waiting in the batch (the committer thread, or ``flush``)."""
        with self._index_lock:
            pending, lazy = self._batch.take(include_lazy)
            if not pending and not lazy:
                return
            puts = [p.entry for p in pending.values() if p.entry is not None]
            puts += [e for k, e in lazy.items() if k not in pending]
            deletes = [k for k, p in pending.items() if p.entry is None]
            rebuilds = self._rebuilds
            try:
                self._index.write(puts, deletes)
                # Opening the new searcher (files, system calls: each a wait for the GIL under load) happens
                # beside running searches; only the swap waits for them, and searches wait only for the swap.
                prepared = self._index.prepare_refresh()
                with self._searcher_lock:  # waits for a running search; writers never wait for this
                    self._index.install_refresh(prepared)
            except StorageError:  # disk full or similar: the writes stay pending and are retried
                self._batch.restore_lazy(lazy)
                raise
            except IndexCorrupt as exc:
                failure: IndexCorrupt | None = exc
            else:
                failure = None
                self._batch.done(pending)
        if failure is not None:
            self._recover(f"index failed during a write ({failure})", rebuilds)

    def _catch_up(self) -> None:
        """Commit chunks here until the overlay is back within its bound (caller holds ``_mutex``): files
        changed behind our back (a ``git pull`` of many large notes) would otherwise all sit analysed in
        memory at once. Stops early when a commit makes no progress (a full disk: the files stay pending)."""
        while self._batch.over_backlog():
            before = len(self._batch)
            try:
                self._commit_batch()
            except StorageError:
                return
            if len(self._batch) >= before:
                return

    def flush(self, include_lazy: bool = True) -> None:
        """Commit uncommitted index work now (``include_lazy=False``: only if a real write is waiting):
        every write registered before the call, a chunk per engine commit (``WriteBatch.take``)."""
        upto = self._batch.seq
        self._commit_batch(include_lazy)
        while self._batch.holds_writes_up_to(upto):
            self._commit_batch(include_lazy)

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
        if self._writer == threading.get_ident() or not self._batch.over_backlog():
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
        if wait is None:
            wait = force
        if self._scan_before_reading and self._watcher is None:
            force = True  # opened from the saved catalogue with no watching thread: check the files once
        try:
            if not force and self._sync.watcher is not None:
                keys = self._sync.poll()
                if keys is not None:
                    if keys:
                        self._apply_keys(keys, wait)
                    return
                # events were lost (queue overflow, a folder replaced): scan everything
            elif not force:
                due = (self._watcher is None
                       and time.monotonic() - self._last_scan >= self.rescan_interval)
                if (not due and self._sync.read_token() == self._seen_changes
                        and self._sync.stamps() == self._stamps):
                    return
            if self._quick.on:
                raise WouldBlock("a scan of the folders is due")
            self._full_refresh(wait, polite)
        except _FolderUnreadable as exc:
            log.warning("%s: %s; the changes stay queued and are tried again", self.root, exc)
            self._retry_at = time.monotonic() + RETRY_AFTER_ERROR

    def _apply_keys(self, keys: set[str], wait: bool) -> None:
        # Most keys inotify reports are this process's own writes, already in the catalogue: when every
        # reported file still matches its row (and none is a known problem), nothing needs the mutex,
        # which a writer may be holding. A file changed after this stat is reported again by inotify.
        try:
            found = self._sync.stat_keys(keys)
        except OSError as exc:
            raise _FolderUnreadable(f"cannot look at changed files ({exc})") from exc
        stamp = self.catalogue.stamp
        if len(found) == len(keys) and all(stamp(k) == (row[1], row[2]) and k not in self.problems
                                           for k, row in found.items()):
            self._sync.applied(keys)
            return
        if self._quick.on:  # reading and analysing changed files (a `git pull`: thousands) is a worker's job
            raise WouldBlock(f"{len(keys)} file(s) changed outside this process")
        if not self._mutex.acquire(blocking=wait):
            return
        try:
            try:
                found = self._sync.stat_keys(keys)
            except OSError as exc:
                raise _FolderUnreadable(f"cannot look at changed files ({exc})") from exc
            changes = self._reconcile_safely(found, None, keys)
            self._sync.applied(keys)
        finally:
            self._mutex.release()
        if changes:
            self._tell_change_listeners(changes)

    def _full_refresh(self, wait: bool, polite: bool = False) -> None:
        """Scan every file and apply what changed. ``polite`` (the background thread): the scan and the
        comparison with the catalogue pause while searches run (at 100k files they are ~1 s of CPU
        that a search would otherwise share), and only the files that differ are looked at again
        under the mutex."""
        pause = self._yield_to_reads if polite else None
        before = self._sync.begin_scan()  # what was reported until now: the scan settles that
        token = self._sync.read_token()  # before the scan: a write after it is seen next time
        try:
            found, stamps = self._sync.scan(pause)  # the slow part (a stat per file) runs unlocked
        except OSError as exc:
            self._sync.recheck(set())
            raise _FolderUnreadable(f"cannot scan the folders ({exc})") from exc
        differ = self._differing(found, pause) if pause is not None else None
        if not self._mutex.acquire(blocking=wait):
            return
        try:
            self._seen_changes = token
            changes = self._reconcile_safely(found, stamps, None, differ)
            self._sync.applied(before)
            self._scan_before_reading = False
            self._next_safety_scan = time.monotonic() + SAFETY_RESCAN_INTERVAL
        finally:
            self._mutex.release()
        if changes:
            self._tell_change_listeners(changes)

    def _differing(self, found: Found, pause: Callable[[], None]) -> list[str]:
        """The scanned files whose stamp differs from their catalogue row, found without the mutex.

        A write racing this only adds work: a file it rewrote after the scan shows the old stamp
        here and is read again under the mutex; one whose row already matched needs nothing.
        """
        stamp = self.catalogue.stamp
        out = []
        for i, (key, (_kind, mtime_ns, size)) in enumerate(found.items()):
            if i % PAUSE_EVERY == 0:
                pause()
            if stamp(key) != (mtime_ns, size):
                out.append(key)
        return out

    def _yield_to_reads(self) -> None:
        """Wait (a bounded time) while a search runs: background work must not slow the request path."""
        deadline = time.monotonic() + PAUSE_AT_MOST
        while self._reads and time.monotonic() < deadline and not self._stop.is_set():
            time.sleep(0.001)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        with self._reads_lock:
            self._reads += 1
        try:
            yield
        finally:
            with self._reads_lock:
                self._reads -= 1

    def _reconcile_safely(self, found: Found, stamps: dict[str, int] | None,
                          scope: set[str] | None, differ: Sequence[str] | None = None) -> dict[str, str]:
        rebuilds = self._rebuilds
        try:
            return self._reconcile(found, stamps, scope, differ)
        except IndexCorrupt as exc:
            self._recover(f"index failed during refresh ({exc})", rebuilds)
            return {}

    def _reconcile(self, found: Found, stamps: dict[str, int] | None, scope: set[str] | None,
                   differ: Sequence[str] | None = None) -> dict[str, str]:
        """Apply the differences between ``found`` and the catalogue (within ``scope`` when given;
        ``differ``: the only keys of ``found`` that may have changed, see ``_differing``).

        Caller holds ``_mutex``. Returns what changed, for change listeners.
        """
        if scope is None:
            self._last_scan = time.monotonic()
            self._stamps = stamps or {}
        changed = []
        looked_at = found.items() if differ is None else ((k, found[k]) for k in differ)
        for key, (_kind, mtime_ns, size) in looked_at:
            if self.catalogue.stamp(key) == (mtime_ns, size):  # no Entry built for an unchanged row
                continue
            problem = self.problems.get(key)
            if (problem is not None and not problem.transient
                    and problem.mtime_ns == mtime_ns and problem.size == size):
                continue
            changed.append(key)
        candidates = self.catalogue.keys() if scope is None else [k for k in scope if k in self.catalogue]
        # Our own uncommitted writes are not spared: a file removed right after its write must
        # leave the catalogue too (the existence check below covers a write racing the scan).
        removed = [key for key in candidates if key not in found]
        for key in [k for k in (list(self.problems) if scope is None else scope)
                    if k in self.problems and k not in found]:
            del self.problems[key]
        if not changed and not removed:
            return {}
        changes: dict[str, str] = {}
        for key in changed:
            kind, mtime_ns, size = found[key]
            existed = key in self.catalogue
            loaded = self._load_file(key, kind, mtime_ns, size)
            if loaded is None:
                if self.catalogue.pop(key) is not None:
                    self._batch.delete(key)
                    changes[key] = "deleted"
                continue
            self._batch.put(loaded)
            changes[key] = "updated" if existed else "created"
            if self._batch.over_backlog():
                self._catch_up()
        for key in removed:
            if not os.path.lexists(self.root / key):  # not written since the scan
                self.catalogue.pop(key)
                self._batch.delete(key)
                changes[key] = "deleted"
        if changes:
            log.info("%s: picked up %d changed file(s)", self.root, len(changes))
        return changes

    def _load_file(self, key: str, kind: str, mtime_ns: int = -1, size: int = -1) -> IndexEntry | None:
        """Parse one file into an index entry and catalogue row; record a problem on failure.

        Raises ``_FolderUnreadable`` when the file's folder cannot be read right now: its
        files must not be taken for unreadable or deleted.
        """
        path = self.root / key
        try:
            raw, st = read_regular_file(path, self.max_content_bytes * 2)
            entry = self.collections[kind].parse(path, raw)
        except FileNotFoundError:
            self.problems.pop(key, None)
            return None
        except (BadFile, OSError, RecursionError, ValueError) as exc:
            transient = isinstance(exc, OSError)
            if transient and not os.access(path.parent, os.R_OK | os.X_OK):
                raise _FolderUnreadable(f"{path.parent.name}/ cannot be read ({exc})") from exc
            reason = clipped_reason(str(exc)) if not isinstance(exc, RecursionError) else "nested too deeply to read"
            if key not in self.problems:
                log.warning("%s: cannot read %s: %s", self.root, key, reason)
            self.problems[key] = Problem(key, reason, mtime_ns, size, transient)
            return None
        self.problems.pop(key, None)
        self.catalogue[key] = Entry(key, kind, self.root, st.st_mtime_ns, st.st_size, entry.meta)
        return entry

    # -- background work (servers) -------------------------------------------------
    def start_watching(self, interval: float | None = None) -> None:
        """Pick up outside changes in a background thread (for servers).

        Every ``interval`` seconds it applies what inotify reported (or scans, without inotify);
        it also rescans everything every ``SAFETY_RESCAN_INTERVAL`` seconds and soon after any
        error, and saves the catalogue once writes have paused.
        """
        if self._watcher is not None:
            return
        if interval is not None:
            self.rescan_interval = interval
        if self._scan_before_reading:  # opened from the saved catalogue: check it in the background
            self._next_safety_scan = time.monotonic() + min(self.rescan_interval, 1.0)

        def loop() -> None:
            while not self._stop.wait(min(self.rescan_interval, RETRY_AFTER_ERROR)):
                try:
                    self._background_step()
                except Exception:  # never let the watcher die silently
                    log.exception("%s: background refresh failed", self.root)
                    self._retry_at = time.monotonic() + RETRY_AFTER_ERROR

        self._watcher = threading.Thread(target=loop, name="ctxnotes-watch", daemon=True)
        self._watcher.start()

    def _background_step(self) -> None:
        now = time.monotonic()
        retry, self._retry_at = self._retry_at is not None and now >= self._retry_at, None
        safety = now >= self._next_safety_scan
        self.refresh(force=self._sync.watcher is None or retry or safety, polite=True)
        if self._temp_sweep_due and safety:
            with self._mutex, self.lock.hold():
                if self._temp_sweep_due:
                    self._sweep_temp_files()
        if self._retry_at is None and (retry or safety):
            self._next_safety_scan = time.monotonic() + SAFETY_RESCAN_INTERVAL
        if (self.catalogue.version != self._saved_version and not len(self._batch)
                and time.monotonic() - self._last_write >= SAVE_WHEN_IDLE):
            self.save_catalogue()

    # -- rebuilding ----------------------------------------------------------
    def _recover(self, reason: str, rebuilds_seen: int) -> None:
        """The one way back from a damaged index: rebuild it from the files (once, however many noticed)."""
        if self._quick.on:
            raise WouldBlock(f"the index needs a rebuild: {reason}")
        with self._mutex, self.lock.hold(), self._index_lock:
            if self._rebuilds != rebuilds_seen:
                return  # another thread rebuilt it since this caller saw the damage
            self._rebuild_locked(reason)

    def _rebuild_locked(self, reason: str, quiet: bool = False) -> None:
        self._event(f"rebuilding the index from the files: {reason}", quiet)
        before = self._sync.begin_scan()  # what was reported until now: the scan settles that
        token = self._sync.read_token()
        try:
            found, stamps = self._sync.scan()
        except OSError as exc:
            raise StorageError(f"cannot read the workspace folders to rebuild the index ({exc}); "
                               "fix their permissions and run 'ctxnotes reindex'") from exc
        self.catalogue = Catalogue()  # filled file by file: its size is the rebuild's progress
        self._batch.clear()
        self.problems = {k: p for k, p in self.problems.items() if k in found}

        def entries() -> Iterable[IndexEntry]:
            for key, (kind, mtime_ns, size) in sorted(found.items()):
                try:
                    entry = self._load_file(key, kind, mtime_ns, size)
                except _FolderUnreadable as exc:
                    raise StorageError(f"cannot rebuild the index: {exc}") from exc
                if entry is not None:
                    yield entry

        with self._index_lock, self._searcher_lock:
            count = self._index.create(entries())
            self._rebuilds += 1
        self._stamps = stamps
        self._seen_changes = token
        self._last_scan = time.monotonic()
        self._next_safety_scan = self._last_scan + SAFETY_RESCAN_INTERVAL
        self._sync.applied(before)
        self._event(f"index rebuilt with {count} file(s)", quiet)
        with contextlib.suppress(StorageError):
            self.save_catalogue()

    def rebuild(self) -> int:
        """Rebuild the index from the files (``ctxnotes reindex``); return the number indexed."""
        with self._mutex, self.lock.hold():
            self._rebuild_locked("asked for", quiet=True)
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

    @contextlib.contextmanager
    def quick_reads(self) -> Iterator[None]:
        """Searches in this block either answer without waiting (no folder scan, no write lock, no
        rebuild; at most a searcher swap) or raise ``WouldBlock`` having changed nothing.

        For a server's event loop: a search run there skips two thread hand-offs of the GIL (each up to
        the 5 ms switch interval under load), and one that would wait is run again in a worker thread.
        """
        before = self._quick.on
        self._quick.on = True
        try:
            yield
        finally:
            self._quick.on = before

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
        with self._reading():
            return self._search_ranked(units, filters, limit, match_all)

    def _search_ranked(self, units: Sequence[QueryUnit], filters: Filters, limit: int,
                       match_all: bool) -> RankedRows:
        quick = self._quick.on
        if quick and sum(len(u.terms) for u in units) > QUICK_MAX_TERMS:  # before any other work
            raise WouldBlock("a long query is run where it may take its time")
        self.prepare_read()
        for attempt in range(3):
            rebuilds = self._rebuilds
            pending = self._batch.snapshot()  # before the engine's searcher: see WriteBatch.done
            # In ``quick_reads`` mode a search never waits for the searcher (a swap or a rebuild holds it).
            if not self._searcher_lock.acquire(blocking=not quick):
                raise WouldBlock("the searcher is busy")
            try:
                try:  # the lock is released before any recovery, which takes the write locks
                    hits = self._index.search(units, filters, limit, match_all, exclude=pending.keys())
                    extra = (search_overlay(pending, units, filters, match_all, self._index.stats)
                             if pending else [])
                finally:
                    self._searcher_lock.release()
                break
            except IndexCorrupt as exc:
                if attempt == 2:
                    raise StorageError(f"the index cannot be searched: {exc}; run 'ctxnotes reindex'") from exc
                if quick:
                    raise WouldBlock("the index needs a rebuild") from exc
                self._recover(f"index failed during a search ({exc})", rebuilds)
        ranked = sorted(hits.ranked + extra, key=lambda hit: -hit[1])[:limit] if extra else hits.ranked
        rows = [(row, score) for key, score in ranked if (row := self.catalogue.get(key)) is not None]
        return RankedRows(rows, hits.total + len(extra), hits.total_is_lower_bound)

    def indexed_now(self, kind: str | None = None) -> tuple[int, int]:
        """(documents in the index searches read now, writes still waiting to be committed), without
        waiting for anything: what a metrics scrape may ask every few seconds (``index_count`` scans the
        folder and waits for the pending commit, which after a burst of large writes takes seconds)."""
        return self._index.doc_count(kind), len(self._batch)

    def index_count(self, kind: str | None = None) -> int:
        """Documents in the committed index (for doctor and tests): must equal the readable files."""
        self.refresh()
        self.flush()
        with self._index_lock, self._searcher_lock:
            self._index.refresh()
            return self._index.doc_count(kind)

    def close(self) -> None:
        if self._watcher is not None:
            self._stop.set()
            self._watcher.join(timeout=10)
            self._watcher = None
        self._batch.stop()
        with self._mutex:
            if self._temp_sweep_due:  # opened from the saved catalogue and no background thread swept
                with contextlib.suppress(StorageError), self.lock.hold():
                    self._sweep_temp_files()
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
