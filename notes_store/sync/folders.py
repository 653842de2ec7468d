"""Which files changed in the workspace folders: inotify, the change token, folder stamps, scans.

The workspace asks ``FolderSync`` what may have changed and applies the answer to its catalogue
and index. Three sources, cheapest first:

- inotify (Linux) names the files an editor, ``git pull`` or another process touched;
- ``.index/changes`` holds a random token every ctxnotes process replaces after a write, and
  each folder's mtime changes when a file is added, removed or renamed: two tiny reads say
  whether a full scan is needed where inotify is missing;
- a full scan (one ``lstat`` per file) when nothing cheaper can tell.

Keys that inotify reported stay pending until they were applied: an error while applying
them (``notes/`` briefly unreadable) keeps them for the next attempt instead of dropping them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..files.note_paths import MAX_DEPTH, IgnoreRules, walk_notes
from .inotify import FolderWatcher

PAUSE_EVERY = 1000  # entries between two calls of a scan's ``pause``

log = logging.getLogger("ctxnotes.sync")

Found = dict[str, tuple[str, int, int]]  # key -> (kind, mtime_ns, size); (-1, -1) for a symbolic link


@dataclass
class Problem:
    """A file that could not be read, and why."""

    path: str
    reason: str
    mtime_ns: int = 0
    size: int = 0
    transient: bool = False  # an OS error (permissions): tried again at every look, not only when the file changes


class Reported(set[str]):
    """Keys ``FolderSync.poll`` returned, with the report each was pending under (see ``applied``)."""

    def __init__(self, pending: dict[str, int]) -> None:
        super().__init__(pending)
        self.seen = dict(pending)


class ScanStart:
    """Taken just before a full scan (``FolderSync.begin_scan``): what the scan may settle in ``applied``."""

    __slots__ = ("reports", "losses")

    def __init__(self, reports: int, losses: int) -> None:
        self.reports = reports  # keys reported up to this report number
        self.losses = losses    # and the lost events up to this count


class FolderSync:
    """Change detection for the folders of one workspace (``{kind: folder name}``)."""

    def __init__(self, root: Path, folders: dict[str, str], token_path: Path,
                 nested: set[str] | frozenset[str] = frozenset()) -> None:
        self.root = root
        self.folders = folders
        # Folders whose sub-folders hold items too (notes: a vault), walked with the skip rules of
        # ``files.note_paths``; the others (memory) are flat.
        self.nested = frozenset(nested)
        self._subfolders: dict[str, list[str]] = {}  # nested folder -> its sub-folders at the last scan
        self._kinds = {name: kind for kind, name in folders.items()}
        self._token_path = token_path
        self.watcher: FolderWatcher | None = None
        self._pending: dict[str, int] = {}  # keys inotify reported and nobody has applied yet -> report number
        self._reports = 0
        self._lost = False               # events were lost: the next look must be a full scan
        self._losses = 0                 # times events were lost (see ``ScanStart``)
        self._lock = threading.Lock()
        self._token_lock = threading.Lock()
        self._token_fd: int | None = None  # ``bump_token``'s kept descriptor (in the process that opened it)

    def start(self) -> None:
        """Start watching (before the first full scan, so that nothing changing after it is missed)."""
        self.watcher = FolderWatcher.open({name: self.root / name for name in self.folders.values()},
                                          nested=self.nested)

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None
        with self._token_lock:
            self._close_token()

    # -- inotify ----------------------------------------------------------------
    def poll(self) -> set[str] | None:
        """Keys changed since they were last applied (``applied`` clears them); None: scan everything."""
        if self.watcher is None:
            return None
        with self._lock:
            if self.watcher.exhausted:
                # More folders than inotify watches (fs.inotify.max_user_watches): changes are found by
                # scans from now on, as where inotify is missing.
                log.warning("%s: too many folders for inotify watches; falling back to periodic scans", self.root)
                self.watcher.close()
                self.watcher = None
                return None
            self._drain()
            if self._lost:
                return None
            return Reported(self._pending)

    def begin_scan(self) -> ScanStart:
        """Call just before a full scan; pass the result to ``applied`` once the scan is applied: keys
        reported (and events lost) after this stay pending, the scan may have looked before they changed."""
        with self._lock:
            if self.watcher is not None:
                self._drain()
            return ScanStart(self._reports, self._losses)

    def _drain(self) -> None:
        assert self.watcher is not None
        keys = self.watcher.changes()
        if keys is None:
            self._lost = True
            self._losses += 1
        else:
            self._report(keys)

    def _report(self, keys: set[str]) -> None:
        for key in keys:
            self._reports += 1
            self._pending[key] = self._reports

    def applied(self, keys: set[str] | ScanStart) -> None:
        """The changes to ``keys`` (a ``ScanStart``: all reported before that full scan began) are in the
        catalogue now.

        Keys a ``poll`` returned stay pending when reported again since that poll (by another
        thread's poll): the file changed after whoever applied it looked at it."""
        with self._lock:
            if isinstance(keys, ScanStart):
                for key, report in list(self._pending.items()):
                    if report <= keys.reports:
                        del self._pending[key]
                if self._losses == keys.losses:
                    self._lost = False
                return
            seen = keys.seen if isinstance(keys, Reported) else None
            for key in keys:
                if seen is None or self._pending.get(key) == seen.get(key):
                    self._pending.pop(key, None)

    def recheck(self, keys: set[str]) -> None:
        """Look at ``keys`` again at the next refresh (a commit found them changed or gone)."""
        with self._lock:
            self._report(keys)
            if self.watcher is None:
                self._lost = True
                self._losses += 1

    @property
    def lost(self) -> bool:
        """Events were lost: the next look is a full scan."""
        return self._lost

    @property
    def has_pending(self) -> bool:
        return bool(self._pending) or self._lost

    # -- the change token ---------------------------------------------------------
    # Every write through a store replaces .index/changes with a random token, so
    # other processes notice it with one tiny read (a folder's mtime alone is
    # too coarse: two writes within one clock tick leave it unchanged).
    def read_token(self) -> bytes | None:
        try:
            with open(self._token_path, "rb") as fh:
                return fh.read(64)
        except OSError:
            return None

    def bump_token(self) -> bytes | None:
        """Write a new token over the old one, in place: one ``pwrite`` of the same length on a kept
        descriptor (an ``fstat`` checks the file still has a name), not an open, a truncation and a
        close per write: each system call is a wait for the GIL, and a truncation a journal entry."""
        token = secrets.token_hex(16).encode()
        with self._token_lock:
            try:
                fd = self._token_fd
                if fd is not None and os.fstat(fd).st_nlink == 0:  # deleted (with .index/): a new file
                    self._close_token()
                    fd = None
                if fd is None:
                    fd = os.open(self._token_path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
                    self._token_fd = fd
                    os.ftruncate(fd, len(token))  # readers read the whole file: nothing older after it
                os.pwrite(fd, token, 0)
            except OSError:  # the index folder is gone: the next read rebuilds it anyway
                self._close_token()
                return None
        return token

    def _close_token(self) -> None:
        fd, self._token_fd = self._token_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    # -- stat ----------------------------------------------------------------------
    def stamps(self) -> dict[str, int] | None:
        """Each folder's mtime, sub-folders of nested folders included (those the last scan entered: a new
        one changes its parent's mtime); None when one is missing."""
        stamps = {}
        for name in self.folders.values():
            try:
                stamps[name] = (self.root / name).stat().st_mtime_ns
                for sub in self._subfolders.get(name, ()):
                    stamps[f"{name}/{sub}"] = (self.root / name / sub).stat().st_mtime_ns
            except (FileNotFoundError, NotADirectoryError):
                return None
        return stamps

    def scan(self, pause: Callable[[], None] | None = None) -> tuple[Found, dict[str, int]]:
        """Stat every file: ``{key: (kind, mtime_ns, size)}`` and the folders' own mtimes.

        ``pause`` is called every ``PAUSE_EVERY`` entries (a background scan lets searches go first).
        A folder that cannot be read raises (``PermissionError``): its files must not look deleted.
        """
        found: Found = {}
        stamps: dict[str, int] = {}
        seen = 0
        for kind, name in self.folders.items():
            folder = self.root / name
            if name in self.nested:
                try:
                    folder.stat()
                except FileNotFoundError:
                    folder.mkdir(parents=True, exist_ok=True)
                    continue
                seen = self._scan_nested(kind, name, found, stamps, pause, seen)
                continue
            try:
                stamps[name] = folder.stat().st_mtime_ns
                entries = os.scandir(folder)
            except FileNotFoundError:
                folder.mkdir(parents=True, exist_ok=True)
                continue
            # One entry at a time: a list of 100k DirEntry objects (each with its stat) was ~50 MB of peak.
            with entries:
                for de in entries:
                    if pause is not None:
                        seen += 1
                        if seen % PAUSE_EVERY == 0:
                            pause()
                    file_name = de.name
                    if not file_name.endswith(".md") or file_name.startswith("."):
                        continue
                    key = f"{name}/{file_name}"
                    try:
                        st = de.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    found[key] = _row(kind, st)
        return found, stamps

    def _scan_nested(self, kind: str, name: str, found: Found, stamps: dict[str, int],
                     pause: Callable[[], None] | None, seen: int) -> int:
        """``scan`` of a folder with sub-folders: every ``*.md`` the skip rules keep, at any depth."""
        folders: list[tuple[str, int]] = []
        for rel, de in walk_notes(self.root / name, folders=folders, strict=True):
            if pause is not None:
                seen += 1
                if seen % PAUSE_EVERY == 0:
                    pause()
            try:
                st = de.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            found[f"{name}/{rel}"] = _row(kind, st)
        for rel, mtime_ns in folders:
            stamps[f"{name}/{rel}" if rel else name] = mtime_ns
        self._subfolders[name] = [rel for rel, _ in folders if rel]
        return seen

    def remember_subfolders(self, stamps: dict[str, object]) -> None:
        """The sub-folders of nested folders named in saved ``stamps`` (``notes/a/b``), so that ``stamps()``
        after a restart looks at the same folders as the scan before it (and no scan is needed to match)."""
        for name in self.nested:
            prefix = name + "/"
            self._subfolders[name] = [k[len(prefix):] for k in stamps if isinstance(k, str) and k.startswith(prefix)]

    def subfolders(self, name: str) -> list[str]:
        """The sub-folders (relative paths) of a nested folder that the last scan entered; [] for flat ones."""
        return list(self._subfolders.get(name, ()))

    def _skipped(self, name: str, rel: str) -> bool:
        """Whether a nested folder's file at ``rel`` is skipped by a scan (hidden or ignored name, a folder
        on the way that is a symbolic link or is not a folder): reported changes to it are not items."""
        parts = rel.split("/")
        if len(parts) > MAX_DEPTH + 1:
            return True
        rules = IgnoreRules()
        folder = self.root / name
        rules.add_folder(folder)
        for i, part in enumerate(parts[:-1]):
            folder = folder / part
            try:
                st = os.lstat(folder)
            except OSError:
                return True
            if not stat.S_ISDIR(st.st_mode):
                return True
            rules.add_folder(folder, "/".join(parts[:i + 1]))
        return rules.ignored_path(rel)

    def stat_keys(self, keys: set[str]) -> Found:
        """Like ``scan``, for a few named files only (errors other than "gone" raise)."""
        found: Found = {}
        for key in keys:
            name, _, rel = key.partition("/")
            kind = self._kinds.get(name)
            if kind is None:
                continue
            if name in self.nested:
                if self._skipped(name, rel):
                    continue
            elif "/" in rel:
                continue
            try:
                st = os.lstat(self.root / key)
            except FileNotFoundError:
                continue
            found[key] = _row(kind, st)
        return found


def _row(kind: str, st: os.stat_result) -> tuple[str, int, int]:
    """A scanned file as (kind, mtime_ns, size); links are (-1, -1) and FIFOs, sockets or devices named
    *.md (-2, -2): both are listed as unreadable, never opened."""
    if stat.S_ISLNK(st.st_mode):
        return (kind, -1, -1)
    if stat.S_ISREG(st.st_mode):
        return (kind, st.st_mtime_ns, st.st_size)
    return (kind, -2, -2)
