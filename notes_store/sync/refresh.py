"""Applying outside changes to a workspace: which files changed (inotify, scans) into its catalogue and index.

Kept apart from ``workspace``, whose state and locks it works on: the refresh on every read, the full
scan, the rebuild from the files and the background thread that watches the folders.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..errors import StorageError, WouldBlock
from ..files.front_matter import BadFile, clipped_reason
from ..files.safe_read import read_regular_file
from ..index.backend import IndexCorrupt, IndexEntry
from ..index.catalogue import Catalogue, Entry
from .folders import PAUSE_EVERY, Found, Problem
from .saved_catalogue import sweep_temp_files
from ..workspace_state import Collection, WorkspaceState


__all__ = ["Collection", "FolderRefresh", "SAFETY_RESCAN_INTERVAL", "RETRY_AFTER_ERROR", "SAVE_WHEN_IDLE",
           "PAUSE_AT_MOST"]

log = logging.getLogger("ctxnotes.workspace")

SAFETY_RESCAN_INTERVAL = 300.0  # seconds between full scans in a watching server, whatever inotify says
RETRY_AFTER_ERROR = 2.0         # seconds before a refresh that failed is tried again (in the background)
SAVE_WHEN_IDLE = 10.0           # seconds without writes before a changed catalogue is saved
PAUSE_AT_MOST = 0.05            # seconds a background scan waits for running searches at one check


class _FolderUnreadable(Exception):
    """A folder could not be read right now: apply nothing, keep the changes pending, retry."""


class FolderRefresh:
    """Keeps one workspace's catalogue and index in step with its folders (see ``Workspace.refresh``).

    Works under the workspace's locks on its state (catalogue, problems, batch, stamps); owns the
    background thread, the count of searches running now (a background scan steps aside for them)
    and when the next full scan is due.
    """

    def __init__(self, ws: WorkspaceState) -> None:
        self.ws = ws
        self.last_scan = 0.0
        self.next_safety_scan = 0.0
        self.retry_at: float | None = None
        self.watcher: threading.Thread | None = None
        self.stop = threading.Event()
        self._reads = 0  # searches running now: the background scan steps aside for them
        self._reads_lock = threading.Lock()

    # -- the look before a read ----------------------------------------------------
    def refresh(self, force: bool = False, wait: bool | None = None, polite: bool = False) -> None:
        """``Workspace.refresh``: apply what inotify names, or scan when a scan may find something."""
        ws = self.ws
        if wait is None:
            wait = force
        if ws._scan_before_reading and self.watcher is None:
            force = True  # opened from the saved catalogue with no watching thread: check the files once
        try:
            if not force and ws._sync.watcher is not None:
                keys = ws._sync.poll()
                if keys is not None:
                    if keys:
                        self._apply_keys(keys, wait)
                    return
                # events were lost (queue overflow, a folder replaced): scan everything
            elif not force:
                due = (self.watcher is None
                       and time.monotonic() - self.last_scan >= ws.rescan_interval)
                if (not due and ws._sync.read_token() == ws._seen_changes
                        and ws._sync.stamps() == ws._stamps):
                    return
            if ws._quick.on:
                raise WouldBlock("a scan of the folders is due")
            self.full_refresh(wait, polite)
        except _FolderUnreadable as exc:
            log.warning("%s: %s; the changes stay queued and are tried again", ws.root, exc)
            self.retry_at = time.monotonic() + RETRY_AFTER_ERROR

    def _apply_keys(self, keys: set[str], wait: bool) -> None:
        # Most keys inotify reports are this process's own writes, already in the catalogue: when every
        # reported file still matches its row (and none is a known problem), nothing needs the mutex,
        # which a writer may be holding. A file changed after this stat is reported again by inotify.
        ws = self.ws
        try:
            found = ws._sync.stat_keys(keys)
        except OSError as exc:
            raise _FolderUnreadable(f"cannot look at changed files ({exc})") from exc
        stamp = ws.catalogue.stamp
        if len(found) == len(keys) and all(stamp(k) == (row[1], row[2]) and k not in ws.problems
                                           for k, row in found.items()):
            ws._sync.applied(keys)
            return
        if ws._quick.on:  # reading and analysing changed files (a `git pull`: thousands) is a worker's job
            raise WouldBlock(f"{len(keys)} file(s) changed outside this process")
        if not ws._mutex.acquire(blocking=wait):
            return
        try:
            try:
                found = ws._sync.stat_keys(keys)
            except OSError as exc:
                raise _FolderUnreadable(f"cannot look at changed files ({exc})") from exc
            changes = self._reconcile_safely(found, None, keys)
            ws._sync.applied(keys)
        finally:
            ws._mutex.release()
        if changes:
            ws._listeners.tell_changes(changes)

    def full_refresh(self, wait: bool, polite: bool = False) -> None:
        """Scan every file and apply what changed. ``polite`` (the background thread): the scan and the
        comparison with the catalogue pause while searches run (at 100k files they are ~1 s of CPU
        that a search would otherwise share), and only the files that differ are looked at again
        under the mutex."""
        ws = self.ws
        pause = ws._yield_to_reads if polite else None
        before = ws._sync.begin_scan()  # what was reported until now: the scan settles that
        token = ws._sync.read_token()  # before the scan: a write after it is seen next time
        try:
            found, stamps = ws._sync.scan(pause)  # the slow part (a stat per file) runs unlocked
        except OSError as exc:
            ws._sync.recheck(set())
            raise _FolderUnreadable(f"cannot scan the folders ({exc})") from exc
        differ = self._differing(found, pause) if pause is not None else None
        if not ws._mutex.acquire(blocking=wait):
            return
        try:
            ws._seen_changes = token
            changes = self._reconcile_safely(found, stamps, None, differ)
            ws._sync.applied(before)
            ws._scan_before_reading = False
            self.next_safety_scan = time.monotonic() + SAFETY_RESCAN_INTERVAL
        finally:
            ws._mutex.release()
        if changes:
            ws._listeners.tell_changes(changes)

    def _differing(self, found: Found, pause: Callable[[], None]) -> list[str]:
        """The scanned files whose stamp differs from their catalogue row, found without the mutex.

        A write racing this only adds work: a file it rewrote after the scan shows the old stamp
        here and is read again under the mutex; one whose row already matched needs nothing.
        """
        stamp = self.ws.catalogue.stamp
        out = []
        for i, (key, (_kind, mtime_ns, size)) in enumerate(found.items()):
            if i % PAUSE_EVERY == 0:
                pause()
            if stamp(key) != (mtime_ns, size):
                out.append(key)
        return out

    def yield_to_reads(self) -> None:
        """Wait (a bounded time) while a search runs: background work must not slow the request path."""
        deadline = time.monotonic() + PAUSE_AT_MOST
        while self._reads and time.monotonic() < deadline and not self.stop.is_set():
            time.sleep(0.001)

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Count a search as running while the block runs (see ``yield_to_reads``)."""
        with self._reads_lock:
            self._reads += 1
        try:
            yield
        finally:
            with self._reads_lock:
                self._reads -= 1

    # -- applying what changed -------------------------------------------------------
    def _reconcile_safely(self, found: Found, stamps: dict[str, int] | None,
                          scope: set[str] | None, differ: Sequence[str] | None = None) -> dict[str, str]:
        rebuilds = self.ws._live.rebuilds
        try:
            return self._reconcile(found, stamps, scope, differ)
        except IndexCorrupt as exc:
            self.ws._recover(f"index failed during refresh ({exc})", rebuilds)
            return {}

    def _reconcile(self, found: Found, stamps: dict[str, int] | None, scope: set[str] | None,
                   differ: Sequence[str] | None = None) -> dict[str, str]:
        """Apply the differences between ``found`` and the catalogue (within ``scope`` when given;
        ``differ``: the only keys of ``found`` that may have changed, see ``_differing``).

        Caller holds ``_mutex``. Returns what changed, for change listeners.
        """
        ws = self.ws
        if scope is None:
            self.last_scan = time.monotonic()
            ws._stamps = stamps or {}
        changed = self._changed_keys(found, differ)
        candidates = ws.catalogue.keys() if scope is None else [k for k in scope if k in ws.catalogue]
        # Our own uncommitted writes are not spared: a file removed right after its write must
        # leave the catalogue too (the existence check below covers a write racing the scan).
        removed = [key for key in candidates if key not in found]
        for key in [k for k in (list(ws.problems) if scope is None else scope)
                    if k in ws.problems and k not in found]:
            del ws.problems[key]
        if not changed and not removed:
            return {}
        changes: dict[str, str] = {}
        for key in changed:
            kind, mtime_ns, size = found[key]
            existed = key in ws.catalogue
            loaded = self.load_file(key, kind, mtime_ns, size)
            if loaded is None:
                if ws.catalogue.pop(key) is not None:
                    ws._batch.delete(key)
                    changes[key] = "deleted"
                continue
            ws._batch.put(loaded)
            changes[key] = "updated" if existed else "created"
            if ws._batch.over_backlog():
                ws._live.catch_up()
        for key in removed:
            if not os.path.lexists(ws.root / key):  # not written since the scan
                ws.catalogue.pop(key)
                ws._batch.delete(key)
                changes[key] = "deleted"
        if changes:
            log.info("%s: picked up %d changed file(s)", ws.root, len(changes))
        return changes

    def _changed_keys(self, found: Found, differ: Sequence[str] | None) -> list[str]:
        """The keys of ``found`` whose stamp differs from their row, less unchanged known problems."""
        stamp, problems = self.ws.catalogue.stamp, self.ws.problems
        changed = []
        looked_at = found.items() if differ is None else ((k, found[k]) for k in differ)
        for key, (_kind, mtime_ns, size) in looked_at:
            if stamp(key) == (mtime_ns, size):  # no Entry built for an unchanged row
                continue
            problem = problems.get(key)
            if (problem is not None and not problem.transient
                    and problem.mtime_ns == mtime_ns and problem.size == size):
                continue
            changed.append(key)
        return changed

    def load_file(self, key: str, kind: str, mtime_ns: int = -1, size: int = -1) -> IndexEntry | None:
        """Parse one file into an index entry and catalogue row; record a problem on failure.

        Raises ``_FolderUnreadable`` when the file's folder cannot be read right now: its
        files must not be taken for unreadable or deleted.
        """
        ws = self.ws
        path = ws.root / key
        try:
            raw, st = read_regular_file(path, ws.max_content_bytes * 2)
            entry = ws.collections[kind].parse(path, raw)
        except FileNotFoundError:
            ws.problems.pop(key, None)
            return None
        except (BadFile, OSError, RecursionError, ValueError) as exc:
            transient = isinstance(exc, OSError)
            if transient and not os.access(path.parent, os.R_OK | os.X_OK):
                raise _FolderUnreadable(f"{path.parent.name}/ cannot be read ({exc})") from exc
            reason = clipped_reason(str(exc)) if not isinstance(exc, RecursionError) else "nested too deeply to read"
            if key not in ws.problems:
                log.warning("%s: cannot read %s: %s", ws.root, key, reason)
            ws.problems[key] = Problem(key, reason, mtime_ns, size, transient)
            return None
        ws.problems.pop(key, None)
        ws.catalogue[key] = Entry(key, kind, ws.root, st.st_mtime_ns, st.st_size, entry.meta)
        return entry

    # -- rebuilding ------------------------------------------------------------------
    def rebuild_locked(self, reason: str, quiet: bool = False) -> None:
        """Rebuild the index and the catalogue from the files. Caller holds ``_mutex`` and ``lock``."""
        ws = self.ws
        ws._event(f"rebuilding the index from the files: {reason}", quiet)
        before = ws._sync.begin_scan()  # what was reported until now: the scan settles that
        token = ws._sync.read_token()
        try:
            found, stamps = ws._sync.scan()
        except OSError as exc:
            raise StorageError(f"cannot read the workspace folders to rebuild the index ({exc}); "
                               "fix their permissions and run 'ctxnotes reindex'") from exc
        ws.catalogue = Catalogue()  # filled file by file: its size is the rebuild's progress
        ws._batch.clear()
        ws.problems = {k: p for k, p in ws.problems.items() if k in found}

        def entries() -> Iterable[IndexEntry]:
            for key, (kind, mtime_ns, size) in sorted(found.items()):
                try:
                    entry = self.load_file(key, kind, mtime_ns, size)
                except _FolderUnreadable as exc:
                    raise StorageError(f"cannot rebuild the index: {exc}") from exc
                if entry is not None:
                    yield entry

        count = ws._live.create(entries())
        ws._stamps = stamps
        ws._seen_changes = token
        self.last_scan = time.monotonic()
        self.next_safety_scan = self.last_scan + SAFETY_RESCAN_INTERVAL
        ws._sync.applied(before)
        ws._event(f"index rebuilt with {count} file(s)", quiet)
        with contextlib.suppress(StorageError):
            ws.save_catalogue()

    # -- background work (servers) -------------------------------------------------
    def start_watching(self, interval: float | None = None) -> None:
        """``Workspace.start_watching``: the background thread that applies outside changes."""
        ws = self.ws
        if self.watcher is not None:
            return
        if interval is not None:
            ws.rescan_interval = interval
        if ws._scan_before_reading:  # opened from the saved catalogue: check it in the background
            self.next_safety_scan = time.monotonic() + min(ws.rescan_interval, 1.0)

        def loop() -> None:
            while not self.stop.wait(min(ws.rescan_interval, RETRY_AFTER_ERROR)):
                try:
                    self._background_step()
                except Exception:  # never let the watcher die silently
                    log.exception("%s: background refresh failed", ws.root)
                    self.retry_at = time.monotonic() + RETRY_AFTER_ERROR

        self.watcher = threading.Thread(target=loop, name="ctxnotes-watch", daemon=True)
        self.watcher.start()

    def _background_step(self) -> None:
        ws = self.ws
        now = time.monotonic()
        retry, self.retry_at = self.retry_at is not None and now >= self.retry_at, None
        safety = now >= self.next_safety_scan
        ws.refresh(force=ws._sync.watcher is None or retry or safety, polite=True)
        if ws._temp_sweep_due and safety:
            with ws._mutex, ws.lock.hold():
                if ws._temp_sweep_due:
                    sweep_temp_files(ws)
        if self.retry_at is None and (retry or safety):
            self.next_safety_scan = time.monotonic() + SAFETY_RESCAN_INTERVAL
        if (ws.catalogue.version != ws._saved_version and not len(ws._batch)
                and time.monotonic() - ws._writes.last_write >= SAVE_WHEN_IDLE):
            ws.save_catalogue()

    def stop_watching(self) -> None:
        """Stop the background thread, if one runs (waits up to 10 s for its current step)."""
        if self.watcher is not None:
            self.stop.set()
            self.watcher.join(timeout=10)
            self.watcher = None
