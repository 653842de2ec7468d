"""A workspace: folders of Markdown files (the truth) plus the index (a cache).

``Workspace`` owns the lock, the index and an in-memory catalogue of every
indexed file, and keeps the three in step with the folders: on open, before
each read (cheaply: one ``stat`` per folder, a full scan only when a folder
changed or ``rescan_interval`` passed), and after its own writes.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import secrets
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from collections.abc import Callable, Iterable, Iterator, Sequence

from .analysis import QueryUnit
from .document import BadFile
from .errors import StorageError
from .fsio import WorkspaceLock, remove_temp_files
from .index import Filters, IndexCorrupt, IndexEntry, SearchIndex
from .watch import FolderWatcher

log = logging.getLogger("ctxnotes.workspace")

INDEX_DIR = ".index"
GITIGNORE = "# ctxnotes: the index and locks are derived from the notes; never commit them\n.index/\n.tmp-*\n"
DEFAULT_MAX_CONTENT_BYTES = 1 << 20


class Collection(Protocol):
    """How the files of one folder become index entries."""

    kind: str          # "note" | "memory"
    folder_name: str   # "notes" | "memory"

    def parse(self, path: Path, raw: bytes) -> IndexEntry:
        """Turn a file's bytes into an entry; raise ``BadFile`` with the reason when it can't."""
        ...


@dataclass
class Entry:
    """The catalogue's row for one indexed file."""

    key: str
    kind: str
    path: Path
    mtime_ns: int
    size: int
    meta: dict[str, Any]

    @property
    def id(self) -> str:
        return self.path.stem


_versions = itertools.count(1)


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


class Catalogue(dict):
    """The in-memory rows of every indexed file, with a version that changes on every mutation
    (listings cache their sorted order against it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.version = next(_versions)

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self.version = next(_versions)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.version = next(_versions)

    def pop(self, key: str, *default: Any) -> Any:
        self.version = next(_versions)
        return super().pop(key, *default)


@dataclass
class WriteEvent:
    """A file a store has just written or deleted durably (for listeners such as Git auto-commit)."""

    action: str        # "create" | "update" | "delete"
    kind: str          # "note" | "memory"
    id: str
    title: str
    path: Path


WriteListener = Callable[[WriteEvent], "str | None"]  # returns a warning to report, or None


@dataclass
class Problem:
    """A file that could not be read, and why."""

    path: str
    reason: str
    mtime_ns: int = 0
    size: int = 0


class Workspace:
    """The folder a store works on; shared by the note and memory stores."""

    def __init__(self, root: str | os.PathLike[str], collections: Sequence[Collection], *,
                 rescan_interval: float = 2.0, max_content_bytes: int | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.root = Path(root).expanduser().resolve()
        self.collections = {c.kind: c for c in collections}
        self.rescan_interval = rescan_interval
        self.max_content_bytes = max_content_bytes or _env_int("CTXNOTES_MAX_CONTENT_BYTES",
                                                               DEFAULT_MAX_CONTENT_BYTES)
        self.clock = clock
        self.index_dir = self.root / INDEX_DIR
        self.lock = WorkspaceLock(self.index_dir / "lock")
        self.catalogue: Catalogue = Catalogue()
        self._entries_cache: dict[str, tuple[int, list[Entry]]] = {}
        self.problems: dict[str, Problem] = {}
        self.events: list[str] = []  # what recovery did, for doctor/summary
        self._index = SearchIndex(self.index_dir / "whoosh")
        self._mutex = threading.RLock()
        self._pending: dict[str, tuple[IndexEntry | None, int, int]] = {}
        self._lazy: dict[str, tuple[IndexEntry | None, int, int]] = {}  # committed with the next flush, not before reads
        self._changes_path = self.index_dir / "changes"
        self._seen_changes: bytes | None = None
        self._write_depth = 0
        self._wrote = False
        self._clean = False
        self._stamps: dict[str, int] = {}
        self._last_scan = 0.0
        self.write_listeners: list[WriteListener] = []
        self._warnings = threading.local()
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()
        self._inotify: FolderWatcher | None = None
        self._open()

    # -- layout --------------------------------------------------------------
    def folder(self, kind: str) -> Path:
        return self.root / self.collections[kind].folder_name

    def key_for(self, kind: str, item_id: str) -> str:
        return f"{self.collections[kind].folder_name}/{item_id}.md"

    def _ensure_layout(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self.index_dir.mkdir(exist_ok=True)
            for coll in self.collections.values():
                (self.root / coll.folder_name).mkdir(exist_ok=True)
            gitignore = self.root / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text(GITIGNORE, encoding="utf-8")
        except OSError as exc:
            raise StorageError(f"cannot create workspace at {self.root}: {exc.strerror or exc}") from exc

    def _open(self) -> None:
        self._ensure_layout()
        # Watch before the first full scan: nothing that changes after it is missed.
        self._inotify = FolderWatcher.open({c.folder_name: self.root / c.folder_name
                                            for c in self.collections.values()})
        with self.lock.hold():
            for coll in self.collections.values():
                removed = remove_temp_files(self.root / coll.folder_name)
                if removed:
                    self._event(f"removed {len(removed)} temp file(s) left by an interrupted write in {coll.folder_name}/")
            if not self._index.open():
                fresh = not any(self._index.folder.iterdir()) if self._index.folder.exists() else True
                self._rebuild_locked("no index yet" if fresh else "no usable index found", quiet=fresh)
            else:
                try:
                    self._load_catalogue()
                except IndexCorrupt as exc:
                    self._rebuild_locked(f"index unreadable ({exc})")
        self.refresh(force=True)

    # -- the change token ------------------------------------------------------------
    # Every write through a store replaces .index/changes with a random token, so
    # other processes notice it with one tiny read (a folder's mtime alone is
    # too coarse: two writes within one clock tick leave it unchanged).
    def _read_changes(self) -> bytes | None:
        try:
            with open(self._changes_path, "rb") as fh:
                return fh.read(64)
        except OSError:
            return None

    def _bump_changes(self) -> bytes | None:
        token = secrets.token_hex(16).encode()
        try:
            fd = os.open(self._changes_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(fd, token)
            finally:
                os.close(fd)
        except OSError:  # the index folder is gone: the next read rebuilds it anyway
            return None
        return token

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the workspace for a write: this process's mutex, then the inter-process lock.

        On the way out, tell other processes that something changed and, when
        nothing else had changed since our last look, skip our own next rescan.
        """
        with self._mutex, self.lock.hold():
            self._write_depth += 1
            if self._write_depth == 1:
                self._wrote = False
                self._clean = (self._read_changes() == self._seen_changes
                               and self._folder_stamps() == self._stamps)
            try:
                yield
            finally:
                self._write_depth -= 1
                if self._write_depth == 0 and self._wrote:
                    token = self._bump_changes()
                    if self._clean and token is not None:
                        self._seen_changes = token
                        self._stamps = self._folder_stamps() or self._stamps

    def _event(self, message: str, quiet: bool = False) -> None:
        (log.info if quiet else log.warning)("%s: %s", self.root, message)
        self.events.append(message)
        del self.events[:-50]

    def _load_catalogue(self) -> None:
        catalogue = {}
        for key, row in self._index.stored():
            kind = row.get("kind")
            if kind not in self.collections:
                continue
            catalogue[key] = Entry(key, kind, self.root / key, row.get("_mtime_ns", 0), row.get("_size", -1), row)
        self.catalogue = Catalogue(catalogue)

    # -- scanning ------------------------------------------------------------
    def _scan(self) -> tuple[dict[str, tuple[str, int, int]], dict[str, int]]:
        """Stat every file: {key: (kind, mtime_ns, size)} and the folders' own mtimes."""
        found: dict[str, tuple[str, int, int]] = {}
        stamps: dict[str, int] = {}
        for kind, coll in self.collections.items():
            folder = self.root / coll.folder_name
            try:
                stamps[coll.folder_name] = folder.stat().st_mtime_ns
                entries = list(os.scandir(folder))
            except FileNotFoundError:
                folder.mkdir(parents=True, exist_ok=True)
                continue
            for de in entries:
                name = de.name
                if not name.endswith(".md") or name.startswith("."):
                    continue
                key = f"{coll.folder_name}/{name}"
                if de.is_symlink():
                    found[key] = (kind, -1, -1)
                    continue
                try:
                    st = de.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if de.is_file(follow_symlinks=False):
                    found[key] = (kind, st.st_mtime_ns, st.st_size)
        return found, stamps

    def _folder_stamps(self) -> dict[str, int] | None:
        stamps = {}
        for coll in self.collections.values():
            try:
                stamps[coll.folder_name] = (self.root / coll.folder_name).stat().st_mtime_ns
            except FileNotFoundError:
                return None
        return stamps

    def refresh(self, force: bool = False) -> None:
        """Bring the catalogue and index in step with the files, if anything may have changed.

        On Linux, inotify names the files that changed (an editor save, ``git
        pull``, another process): only those are looked at. Elsewhere, a folder's
        mtime changes whenever a file is added, removed or renamed in it, and
        other ctxnotes processes replace ``.index/changes`` on every write, so the
        common case costs a couple of ``stat`` calls; in-place edits are caught
        by a full scan every ``rescan_interval`` seconds (here when due, or in the
        background thread of ``start_watching``).
        """
        if not force and self._inotify is not None:
            with self._mutex:
                keys = self._inotify.changes()
                if keys is not None:
                    if keys:
                        try:
                            self._reconcile(self._stat_keys(keys), self._stamps, scope=keys)
                        except IndexCorrupt as exc:
                            with self.lock.hold():
                                self._rebuild_locked(f"index failed during refresh ({exc})")
                    return
            # events were lost (queue overflow, a folder replaced): scan everything
        if not force:
            with self._mutex:
                due = (self._watcher is None
                       and time.monotonic() - self._last_scan >= self.rescan_interval)
                if (not due and self._read_changes() == self._seen_changes
                        and self._folder_stamps() == self._stamps):
                    return
        changes = self._read_changes()  # before the scan: a write after it is seen next time
        found, stamps = self._scan()  # the slow part (a stat per file) runs unlocked
        with self._mutex:
            try:
                self._seen_changes = changes
                self._reconcile(found, stamps)
            except IndexCorrupt as exc:
                with self.lock.hold():
                    self._rebuild_locked(f"index failed during refresh ({exc})")

    def start_watching(self, interval: float | None = None) -> None:
        """Rescan and commit pending index updates in a background thread (for servers)."""
        if self._watcher is not None:
            return
        if interval is not None:
            self.rescan_interval = interval

        def loop() -> None:
            while not self._stop.wait(self.rescan_interval):
                try:
                    self.refresh(force=self._inotify is None)
                    self.flush()
                except Exception:  # never let the watcher die silently
                    log.exception("%s: background refresh failed", self.root)

        self._watcher = threading.Thread(target=loop, name="ctxnotes-watch", daemon=True)
        self._watcher.start()

    def _stat_keys(self, keys: set[str]) -> dict[str, tuple[str, int, int]]:
        """Like ``_scan``, for a few named files only."""
        kinds = {c.folder_name: kind for kind, c in self.collections.items()}
        found: dict[str, tuple[str, int, int]] = {}
        for key in keys:
            kind = kinds.get(key.split("/", 1)[0])
            if kind is None:
                continue
            try:
                st = os.lstat(self.root / key)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(st.st_mode):
                found[key] = (kind, -1, -1)
            elif stat.S_ISREG(st.st_mode):
                found[key] = (kind, st.st_mtime_ns, st.st_size)
        return found

    def _reconcile(self, found: dict[str, tuple[str, int, int]], stamps: dict[str, int],
                   scope: set[str] | None = None) -> None:
        """Apply the differences between ``found`` and the catalogue (within ``scope`` when given)."""
        if scope is None:
            self._last_scan = time.monotonic()
            self._stamps = stamps
        changed = []
        for key, (kind, mtime_ns, size) in found.items():
            entry = self.catalogue.get(key)
            if entry is not None and entry.mtime_ns == mtime_ns and entry.size == size:
                continue
            problem = self.problems.get(key)
            if problem is not None and problem.mtime_ns == mtime_ns and problem.size == size:
                continue
            changed.append(key)
        candidates = self.catalogue if scope is None else [k for k in scope if k in self.catalogue]
        removed = [key for key in candidates
                   if key not in found and key not in self._pending and key not in self._lazy]
        for key in [k for k in (self.problems if scope is None else scope) if k in self.problems and k not in found]:
            del self.problems[key]
        if not changed and not removed:
            return
        with self.lock.hold():
            puts: list[IndexEntry] = []
            deletes: list[str] = []
            for key in changed:
                kind, mtime_ns, size = found[key]
                # Another process may have indexed this very version already.
                row = self._index.stored_one(key)
                if row is not None and row.get("_mtime_ns") == mtime_ns and row.get("_size") == size:
                    self.catalogue[key] = Entry(key, kind, self.root / key, mtime_ns, size, row)
                    self.problems.pop(key, None)
                    continue
                entry = self._load_file(key, kind)
                if entry is None:
                    if key in self.catalogue:
                        del self.catalogue[key]
                        deletes.append(key)
                    continue
                puts.append(entry)
            for key in removed:
                if not os.path.lexists(self.root / key):  # not written since the scan
                    del self.catalogue[key]
                    deletes.append(key)
            self._index.write(puts, deletes)
        if puts or deletes:
            log.info("%s: picked up %d changed/new and %d removed file(s)", self.root, len(puts), len(deletes))

    def _load_file(self, key: str, kind: str) -> IndexEntry | None:
        """Parse one file into an index entry and catalogue row; record a problem on failure."""
        path = self.root / key
        try:
            st = os.stat(path, follow_symlinks=False)
            if os.path.islink(path):
                raise BadFile("is a symbolic link; links are not followed (copy the file in instead)")
            if st.st_size > self.max_content_bytes * 2:
                raise BadFile(f"file is {st.st_size} bytes, over the limit of {self.max_content_bytes * 2}")
            with open(path, "rb") as fh:
                raw = fh.read()
            entry = self.collections[kind].parse(path, raw)
        except FileNotFoundError:
            return None
        except (BadFile, OSError) as exc:
            mtime_ns, size = -1, -1
            try:
                st = os.stat(path, follow_symlinks=False)
                mtime_ns, size = st.st_mtime_ns, st.st_size
            except OSError:
                pass
            if key not in self.problems:
                log.warning("%s: cannot read %s: %s", self.root, key, exc)
            self.problems[key] = Problem(key, str(exc), mtime_ns, size)
            return None
        self.problems.pop(key, None)
        entry.meta["_mtime_ns"] = st.st_mtime_ns
        entry.meta["_size"] = st.st_size
        entry.meta["kind"] = kind
        self.catalogue[key] = Entry(key, kind, path, st.st_mtime_ns, st.st_size, entry.meta)
        return entry

    # -- rebuilding ----------------------------------------------------------
    def _rebuild_locked(self, reason: str, quiet: bool = False) -> None:
        self._event(f"rebuilding the index from the files: {reason}", quiet)
        found, stamps = self._scan()
        self.catalogue = Catalogue()
        self._pending.clear()
        self._lazy.clear()

        def entries() -> Iterable[IndexEntry]:
            for key, (kind, _m, _s) in sorted(found.items()):
                entry = self._load_file(key, kind)
                if entry is not None:
                    yield entry

        count = self._index.create(entries())
        self._stamps = stamps
        self._last_scan = time.monotonic()
        self._event(f"index rebuilt with {count} file(s)", quiet)

    def rebuild(self) -> int:
        """Rebuild the index from the files (``ctxnotes reindex``); return the number indexed."""
        with self._mutex, self.lock.hold():
            self._rebuild_locked("asked for", quiet=True)
            return len(self.catalogue)

    # -- writes from the stores ------------------------------------------------
    def record_write(self, entry: IndexEntry, st: os.stat_result, lazy: bool = False) -> Entry:
        """Register a file a store has just written durably (caller holds the lock).

        The catalogue reflects it at once; the index commit is deferred to the
        next read or ``flush`` so that bursts of writes share one commit. A crash
        before that commit loses nothing: the file is on disk and reopen indexes it.
        ``lazy`` writes (bookkeeping such as a memory's access count, which changes
        no indexed text) wait for the next real commit instead of the next read.
        """
        with self._mutex:
            entry.meta["_mtime_ns"] = st.st_mtime_ns
            entry.meta["_size"] = st.st_size
            entry.meta["kind"] = entry.kind
            row = Entry(entry.key, entry.kind, self.root / entry.key, st.st_mtime_ns, st.st_size, entry.meta)
            action = "update" if entry.key in self.catalogue else "create"
            self.catalogue[entry.key] = row
            self.problems.pop(entry.key, None)
            if lazy and entry.key not in self._pending:
                self._lazy[entry.key] = (entry, st.st_mtime_ns, st.st_size)
            else:
                self._lazy.pop(entry.key, None)
                self._pending[entry.key] = (entry, st.st_mtime_ns, st.st_size)
            self._wrote = True
        self._notify(WriteEvent(action, entry.kind, row.id, str(entry.meta.get("title") or entry.title), row.path))
        return row

    def record_delete(self, key: str) -> None:
        """Register a file a store has just deleted (caller holds the lock)."""
        with self._mutex:
            old = self.catalogue.pop(key, None)
            self.problems.pop(key, None)
            self._lazy.pop(key, None)
            self._pending[key] = (None, 0, 0)
            self._wrote = True
        path = self.root / key
        title = str(old.meta.get("title", "")) if old is not None else ""
        self._notify(WriteEvent("delete", old.kind if old else key.split("/")[0], path.stem, title, path))

    def _notify(self, event: WriteEvent) -> None:
        """Tell listeners about a durable write; their failures become warnings, never errors."""
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
        return self._warnings.items

    def take_warnings(self) -> list[str]:
        """Warnings raised by write listeners during this thread's last operations (then cleared)."""
        items = self._pending_warnings()
        self._warnings.items = []
        return items

    def flush(self, include_lazy: bool = True) -> None:
        """Commit deferred index updates (``include_lazy=False``: only if a real write is waiting)."""
        with self._mutex:
            if not self._pending and not (include_lazy and self._lazy):
                return
            with self.lock.hold():
                pending = {**self._lazy, **self._pending}
                self._pending, self._lazy = {}, {}
                puts, deletes = [], []
                for key, (entry, mtime_ns, size) in pending.items():
                    if entry is None:
                        deletes.append(key)
                        continue
                    try:
                        st = os.stat(self.root / key, follow_symlinks=False)
                    except FileNotFoundError:
                        deletes.append(key)
                        continue
                    if (st.st_mtime_ns, st.st_size) != (mtime_ns, size):
                        # Changed by someone else since we wrote it: index what is there now.
                        entry = self._load_file(key, entry.kind)
                        if entry is None:
                            deletes.append(key)
                            continue
                    puts.append(entry)
                try:
                    self._index.write(puts, deletes)
                except StorageError:
                    # Not applied: keep them pending (newer pending writes win) and say so.
                    for key, value in pending.items():
                        self._pending.setdefault(key, value)
                    raise
                except IndexCorrupt as exc:
                    self._rebuild_locked(f"index failed during a write ({exc})")

    # -- reading ---------------------------------------------------------------
    def prepare_read(self) -> None:
        """Pick up outside changes and commit our own pending writes before a query."""
        self.refresh()
        self.flush(include_lazy=False)

    def entries(self, kind: str) -> list[Entry]:
        """The catalogue rows of one kind (a fresh list; cached until the catalogue changes)."""
        with self._mutex:
            cached = self._entries_cache.get(kind)
            if cached is None or cached[0] != self.catalogue.version:
                cached = (self.catalogue.version, [e for e in self.catalogue.values() if e.kind == kind])
                self._entries_cache[kind] = cached
            return list(cached[1])

    def sorted_entries(self, kind: str, key: Callable[[Entry], Any], name: str, reverse: bool) -> list[Entry]:
        """Rows of one kind in ``key`` order, cached per ``name`` until the catalogue changes."""
        with self._mutex:
            cache_key = f"{kind}:{name}:{reverse}"
            cached = self._entries_cache.get(cache_key)
            if cached is None or cached[0] != self.catalogue.version:
                version = self.catalogue.version
                cached = (version, sorted(self.entries(kind), key=key, reverse=reverse))
                self._entries_cache[cache_key] = cached
            return cached[1]

    def search(self, units: Sequence[QueryUnit], filters: Filters, limit: int,
               match_all: bool = True) -> tuple[list[tuple[Entry, float]], int]:
        """Ranked catalogue rows for a query (the index is rebuilt if it turns out damaged)."""
        with self._mutex:
            self.prepare_read()
            for attempt in range(2):
                try:
                    hits, total = self._index.search(units, filters, limit, match_all)
                    break
                except IndexCorrupt as exc:
                    if attempt:
                        raise StorageError(f"the index cannot be searched: {exc}; run 'ctxnotes reindex'") from exc
                    with self.lock.hold():
                        self._rebuild_locked(f"index failed during a search ({exc})")
            rows = [(self.catalogue[key], score) for key, score in hits if key in self.catalogue]
            return rows, total

    def index_count(self, kind: str | None = None) -> int:
        """Documents in the index (for doctor and tests): must equal the readable files."""
        with self._mutex:
            self.prepare_read()
            if kind is None:
                return self._index.doc_count()
            return sum(1 for _key, row in self._index.stored() if row.get("kind") == kind)

    def close(self) -> None:
        if self._watcher is not None:
            self._stop.set()
            self._watcher.join(timeout=10)
            self._watcher = None
        with self._mutex:
            try:
                self.flush()
            finally:
                self._index.close()
                if self._inotify is not None:
                    self._inotify.close()
                    self._inotify = None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
