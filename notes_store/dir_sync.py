"""Group commit for folder fsyncs: writers that renamed into one folder share one ``fsync`` of it.

A durable write is temp file, fsync, rename, fsync of the folder. Done under the workspace lock,
every writer waits for every other writer's two fsyncs in turn. The folder fsync does not need
the lock: what it makes durable is every rename done in that folder before it started. So a writer
marks its rename (``renamed``, under the lock), releases the lock, and calls ``wait_durable``
before it acknowledges; one fsync then covers every writer that renamed before it began, and the
writers behind the lock no longer queue on it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from .fsio import fsync_dir

__all__ = ["DirSync"]


class _Folder:
    def __init__(self) -> None:
        self.renamed = 0    # renames marked so far
        self.durable = 0    # renames covered by a finished fsync
        self.syncing = False


class DirSync:
    """Coalesced folder fsyncs (``fsync`` is injectable so tests can count the calls)."""

    def __init__(self, fsync: Callable[[Path], None] = fsync_dir) -> None:
        self._fsync = fsync
        self._cond = threading.Condition()
        self._folders: dict[Path, _Folder] = {}
        self.fsyncs = 0  # folder fsyncs actually made (for tests and monitoring)

    def renamed(self, folder: Path) -> int:
        """Record a rename (or unlink) just done in ``folder``; returns the ticket for ``wait_durable``."""
        with self._cond:
            state = self._folders.setdefault(folder, _Folder())
            state.renamed += 1
            return state.renamed

    def wait_durable(self, folder: Path, ticket: int) -> None:
        """Return once an fsync of ``folder`` that started after rename ``ticket`` has finished.

        The first waiter fsyncs for everyone marked so far; the others wait for it (or, if their
        rename came after it started, for the next one). An ``OSError`` from the fsync reaches
        the waiter that made it, and the next waiter tries again.
        """
        with self._cond:
            state = self._folders.setdefault(folder, _Folder())
            while state.durable < ticket:
                if state.syncing:
                    self._cond.wait()
                    continue
                state.syncing = True
                target = state.renamed
                self._cond.release()
                try:
                    self._fsync(folder)
                finally:
                    self._cond.acquire()
                    state.syncing = False
                    self._cond.notify_all()
                self.fsyncs += 1  # reached only when the fsync succeeded
                state.durable = max(state.durable, target)
