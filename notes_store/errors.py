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
