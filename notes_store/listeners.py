"""Who hears about a workspace's writes: write listeners (Git auto-commit), change listeners and their warnings.

Kept apart from ``workspace`` so the writers' lock code stays short; nothing here takes a lock.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["WriteEvent", "WriteListener", "ChangeListener", "Listeners"]

log = logging.getLogger("ctxnotes.workspace")


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


class Listeners:
    """The write and change listeners of one workspace, and each thread's pending warnings."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.write: list[WriteListener] = []
        self._change: list[ChangeListener] = []
        self._warnings = threading.local()

    def add_change_listener(self, listener: ChangeListener) -> Callable[[], None]:
        """Call ``listener(changes)`` whenever files change; returns a function that removes it."""
        self._change.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._change.remove(listener)
        return remove

    def tell_changes(self, changes: dict[str, str]) -> None:
        for listener in list(self._change):
            try:
                listener(dict(changes))
            except Exception:
                log.exception("%s: change listener failed", self.root)

    def notify(self, event: WriteEvent) -> None:
        """Tell write listeners about a durable write; their failures become warnings, never errors."""
        for listener in self.write:
            try:
                warning = listener(event)
            except Exception as exc:  # the file is saved: a listener can't undo that
                log.exception("%s: write listener failed", self.root)
                warning = f"{type(exc).__name__}: {exc}"
            if warning:
                self.pending_warnings().append(warning)

    def pending_warnings(self) -> list[str]:
        if not hasattr(self._warnings, "items"):
            self._warnings.items = []
        items: list[str] = self._warnings.items
        return items

    def take_warnings(self) -> list[str]:
        """Warnings raised by write listeners during this thread's last operations (then cleared)."""
        items = self.pending_warnings()
        self._warnings.items = []
        return items
