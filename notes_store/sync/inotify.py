"""Which files in the workspace folders changed: Linux inotify, read without blocking.

With it, a read checks one file descriptor instead of stat-ing every file to
catch in-place edits (an editor save), so a 10k-note workspace never pays a
full scan on the request path. Where inotify is missing (macOS, some
containers), ``FolderWatcher.open`` returns None and the workspace falls back
to periodic scans.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import struct
import weakref
from pathlib import Path

log = logging.getLogger("ctxnotes.watch")

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
MAX_WATCH_DEPTH = 32

_MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
         | IN_DELETE_SELF | IN_MOVE_SELF)
_LOST = IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF
_HEADER = struct.Struct("iIII")


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    if not hasattr(libc, "inotify_init1"):
        return None
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    return libc


class FolderWatcher:
    """inotify watches on a few folders; ``changes()`` says which files changed since last asked."""

    def __init__(self, libc: ctypes.CDLL, fd: int, folders: dict[str, Path],
                 nested: frozenset[str] = frozenset()) -> None:
        self._libc = libc
        self._fd = fd
        # A workspace dropped without close() must not keep its inotify instance
        # (the default limit is 128 per user).
        self._finalizer = weakref.finalize(self, os.close, fd)
        self._folders = folders
        self._nested = nested          # folders whose sub-folders are watched too (a vault of notes)
        self._names: dict[int, str] = {}
        self._lost = False
        self.exhausted = False         # no watch left for a folder (max_user_watches): scan instead
        self._add_watches()

    @classmethod
    def open(cls, folders: dict[str, Path], nested: frozenset[str] = frozenset()) -> FolderWatcher | None:
        """A watcher on ``{name: path}`` folders, or None where inotify cannot be used."""
        if os.environ.get("CTXNOTES_NO_INOTIFY"):
            return None
        try:
            libc = _libc()
            if libc is None:
                return None
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd < 0:
                return None
            return cls(libc, fd, folders, nested)
        except (OSError, AttributeError) as exc:
            log.info("inotify unavailable (%s): falling back to periodic scans", exc)
            return None

    def _add_watches(self) -> None:
        self._names.clear()
        for name, path in self._folders.items():
            if self._watch(path, name) and name in self._nested:
                self._watch_below(path, name)

    def _watch(self, path: Path, name: str, top: bool = True) -> bool:
        """Watch one folder; a sub-folder only if it is a folder itself (never through a link)."""
        mask = _MASK if top else _MASK | IN_DONT_FOLLOW | IN_ONLYDIR
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), mask)
        if wd < 0:
            if ctypes.get_errno() == errno.ENOSPC:
                self.exhausted = True
            self._lost = True  # scan until the folder exists again
            return False
        self._names[wd] = name
        return True

    def _watch_below(self, path: Path, name: str, depth: int = 0) -> None:
        """Watch every sub-folder of ``path`` (key prefix ``name``) a scan would enter: no hidden names, no links."""
        if depth >= MAX_WATCH_DEPTH or self.exhausted:
            return
        try:
            with os.scandir(path) as it:
                subs = [de.name for de in it if not de.name.startswith(".") and de.is_dir(follow_symlinks=False)]
        except OSError:
            return
        for sub in subs:
            if self._watch(path / sub, f"{name}/{sub}", top=False):
                self._watch_below(path / sub, f"{name}/{sub}", depth + 1)

    def changes(self) -> set[str] | None:
        """Keys (``notes/x.md``) that changed since the last call; None when events were lost
        (queue overflow, a watched folder replaced): the caller must scan everything."""
        keys: set[str] = set()
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                self._lost = True
                break
            if not data:
                break
            pos = 0
            while pos + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, pos)
                raw = data[pos + _HEADER.size:pos + _HEADER.size + length].rstrip(b"\0")
                pos += _HEADER.size + length
                if mask & _LOST:
                    self._lost = True
                    continue
                folder = self._names.get(wd)
                if folder is not None and raw:
                    name = os.fsdecode(raw)
                    if mask & IN_ISDIR:
                        # A folder came, went or moved under a watched vault folder: its files were not
                        # watched (or are no longer where they were): scan everything, watching it anew.
                        if folder.split("/", 1)[0] in self._nested and not name.startswith("."):
                            self._lost = True
                    elif name.endswith(".md") and not name.startswith("."):
                        keys.add(f"{folder}/{name}")
        if self._lost:
            self._lost = False
            self._add_watches()
            return None
        return keys

    def close(self) -> None:
        self._finalizer()  # closes the descriptor once
        self._fd = -1
