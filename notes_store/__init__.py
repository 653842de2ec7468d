"""ctxnotes' storage library: Markdown notes and memories in a folder, with a Whoosh index.

    >>> from notes_store import open_workspace
    >>> ws = open_workspace("./workspace")
    >>> note = ws.notes.create("Refactor done", "已完成数据模型层的重构", note_type="conclusion")
    >>> ws.notes.search("重构").hits[0].note.id == note.id
    True
"""

from __future__ import annotations

import os

from .errors import InvalidInput, NotFound, StorageError, StoreError
from .memory import MemoryCollection, MemoryStore
from .notes import NOTE_TYPES, Note, NoteCollection, NoteStore
from .workspace import Workspace

__all__ = ["open_workspace", "OpenWorkspace", "Workspace", "NoteStore", "Note", "NOTE_TYPES",
           "StoreError", "InvalidInput", "NotFound", "StorageError"]


class OpenWorkspace(Workspace):
    """A workspace with its stores attached: ``ws.notes`` (and ``ws.memory``)."""

    notes: NoteStore
    memory: MemoryStore


def open_workspace(root: str | os.PathLike[str], **options) -> OpenWorkspace:
    """Open (creating if needed) the workspace at ``root`` and attach its stores.

    Options: ``rescan_interval`` (s), ``max_content_bytes``, ``clock`` (a ``time.time``-like callable),
    ``git_autocommit`` (commit every write; default from the environment or ``.ctxnotes.yaml``),
    ``memory_config`` (a ``MemoryConfig``: TTL, capacity, half-lives, score weights).
    """
    memory_config = options.pop("memory_config", None)
    git_autocommit = options.pop("git_autocommit", None)  # True/False, or None: $CTXNOTES_GIT_AUTOCOMMIT / .ctxnotes.yaml
    ws = OpenWorkspace(root, [NoteCollection(), MemoryCollection()], **options)
    ws.notes = NoteStore(ws)
    ws.memory = MemoryStore(ws, memory_config)
    from .git_sync import configure_autocommit

    configure_autocommit(ws, git_autocommit)
    return ws
