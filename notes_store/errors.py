"""Errors the stores raise for expected failures.

Every message says what was wrong and how to fix it: the CLI prints it as one
line and the MCP server returns it as a tool error, unchanged.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base class for expected, user-facing failures."""


class InvalidInput(StoreError, ValueError):
    """An argument is malformed (bad id, empty title, unknown type, ...)."""


class NotFound(StoreError, KeyError):
    """The note or memory asked for does not exist."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "not found"


class StorageError(StoreError, OSError):
    """The file system refused a write; the previous version is intact."""


class Busy(StoreError):
    """The index is too far behind the writes to take another now; nothing was written: retry shortly."""


class Conflict(StoreError):
    """The item changed since the caller read it (its revision differs from ``expected_revision``).

    Nothing was written. ``current_revision`` is the revision on disk now (None when the item is gone).
    """

    def __init__(self, message: str, current_revision: str | None = None) -> None:
        super().__init__(message)
        self.current_revision = current_revision


class WouldBlock(Exception):
    """A read in ``Workspace.quick_reads`` mode would wait (a scan of the folders, a lock, a recovery):
    nothing was changed; run it again where waiting is fine (a worker thread)."""
