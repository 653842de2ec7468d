"""A workspace's write side: the hold of its locks for a write (``Workspace.writing``) and the registering
of what a store wrote or deleted (catalogue, write batch, listeners).

Kept apart from ``workspace`` so what a writer does under the locks reads as one piece.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

from .index.backend import IndexEntry
from .index.catalogue import Entry
from .listeners import WriteEvent
from .workspace_state import WorkspaceState


__all__ = ["WriteHold"]


class WriteHold:
    """One workspace's writers: who holds it (``writer``, ``depth`` for nested holds) and what they changed."""

    def __init__(self, ws: WorkspaceState) -> None:
        self.ws = ws
        self.depth = 0
        self.writer: int | None = None  # the thread inside ``hold()``
        self.last_write = 0.0  # time.monotonic() of the last hold that wrote something
        self._wrote = False
        self._clean = False
        self._changes: dict[str, str] = {}  # what this write changed, for change listeners

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """``Workspace.writing``: the mutex, then the inter-process lock; the change token on the way out."""
        ws = self.ws
        ws._wait_for_index()
        changes: dict[str, str] = {}
        bump_after = False
        with ws._mutex, ws.lock.hold():
            self.depth += 1
            if self.depth == 1:
                self.writer = threading.get_ident()
                self._wrote = False
                self._clean = (ws._sync.watcher is None and ws._sync.read_token() == ws._seen_changes
                               and ws._sync.stamps() == ws._stamps)
            try:
                yield
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.writer = None
                    if self._wrote:
                        self.last_write = time.monotonic()
                        if ws._sync.watcher is not None:
                            bump_after = True
                        else:
                            token = ws._sync.bump_token()
                            if self._clean and token is not None:
                                ws._seen_changes = token
                                ws._stamps = ws._sync.stamps() or ws._stamps
                    changes, self._changes = self._changes, {}
        if bump_after:
            ws._sync.bump_token()
        if changes:
            ws._listeners.tell_changes(changes)

    def record_write(self, entry: IndexEntry, st: os.stat_result, lazy: bool = False) -> Entry:
        """``Workspace.record_write``: the file's row, its pending index entry, its listeners."""
        ws = self.ws
        with ws._mutex:
            row = Entry(entry.key, entry.kind, ws.root, st.st_mtime_ns, st.st_size, entry.meta)
            action = "update" if entry.key in ws.catalogue else "create"
            ws.catalogue[entry.key] = row
            ws.problems.pop(entry.key, None)
            ws._batch.put(entry, lazy=lazy)
            self._wrote = True
            if not lazy:
                self._changes[entry.key] = action + "d"
        ws._listeners.notify(WriteEvent(action, entry.kind, row.id, str(entry.meta.get("title") or entry.title),
                                        row.path))
        return row

    def record_delete(self, key: str) -> None:
        """``Workspace.record_delete``: the row and the index entry go, listeners hear of it."""
        ws = self.ws
        with ws._mutex:
            old = ws.catalogue.pop(key, None)
            ws.problems.pop(key, None)
            ws._batch.delete(key)
            self._wrote = True
            self._changes[key] = "deleted"
        path = ws.root / key
        title = str(old.meta.get("title", "")) if old is not None else ""
        item_id = key.split("/", 1)[-1].removesuffix(".md")   # notes/a/b.md -> a/b
        ws._listeners.notify(WriteEvent("delete", old.kind if old else key.split("/")[0], item_id, title, path))
