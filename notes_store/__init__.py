"""ctxnotes' storage library: Markdown notes and memories in a folder, with a Whoosh index.

    >>> from notes_store import open_workspace
    >>> ws = open_workspace("./workspace")
    >>> note = ws.notes.create("Refactor done", "已完成数据模型层的重构", note_type="conclusion")
    >>> ws.notes.search("重构").hits[0].note.id == note.id
    True

Layout (each subpackage's docstring says what it owns and may import; arrows point down):

    workspace, notes, memory/, sessions, doctor   the stores, with ``Workspace`` at the top
    reads, writes, listeners   the workspace's search path, its writers' lock hold, who hears of writes
    workspace_state   the protocol those parts name instead of ``Workspace`` (no import circle)
    vault, links   any Markdown folder as notes (path ids, foreign front matter) and its [[wikilinks]]
    sync/        folder watching (inotify, scans) and Git
    index/       the search engine: protocol, Whoosh backend, ranking, catalogue, completion
    files/       Markdown item files: front matter, safe reads, durable writes, the lock
    analysis/    pure text analysis and BM25 constants, shared with the context builder
    errors, settings, validation, timestamps, bounded_cache   leaves any layer may import
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from .errors import Busy, Conflict, InvalidInput, NotFound, StorageError, StoreError
from .memory.store import MemoryCollection, MemoryConfig, MemoryStore
from .notes import NOTE_TYPES, Note, NoteCollection, NoteStore
from .settings import Settings, load_settings
from .workspace import Workspace

__all__ = ["open_workspace", "OpenWorkspace", "Workspace", "NoteStore", "Note", "NOTE_TYPES", "MemoryConfig",
           "Settings", "load_settings", "StoreError", "InvalidInput", "NotFound", "StorageError", "Conflict", "Busy"]


class OpenWorkspace(Workspace):
    """A workspace with its stores attached: ``ws.notes`` (and ``ws.memory``)."""

    notes: NoteStore
    memory: MemoryStore


def open_workspace(root: str | os.PathLike[str], *, rescan_interval: float | None = None,
                   max_content_bytes: int | None = None, clock: Callable[[], float] = time.time,
                   git_autocommit: bool | None = None, memory_config: MemoryConfig | None = None,
                   settings: Settings | None = None, commit_delay: float = 0.25) -> OpenWorkspace:
    """Open (creating if needed) the workspace at ``root`` and attach its stores.

    ``rescan_interval`` (s), ``max_content_bytes`` and ``git_autocommit``: None means the
    environment, then ``.ctxnotes.yaml``, then the default (``notes_store.settings``; a resolved
    ``settings`` object may be passed instead). ``clock`` is a ``time.time``-like callable;
    ``memory_config`` a ``MemoryConfig`` (TTL, capacity, half-lives, score weights).
    ``commit_delay`` (s): how long writes gather, searchable from memory, before the index commits them.
    """
    settings = settings or load_settings(root, rescan_interval=rescan_interval,
                                         max_content_bytes=max_content_bytes, git_autocommit=git_autocommit)
    ws = OpenWorkspace(root, [NoteCollection(), MemoryCollection()], rescan_interval=settings.rescan_interval,
                       max_content_bytes=settings.max_content_bytes, clock=clock,
                       commit_delay=commit_delay)
    ws.notes = NoteStore(ws)
    ws.memory = MemoryStore(ws, memory_config)
    from .sync.git import configure_autocommit

    configure_autocommit(ws, settings.git_autocommit)
    return ws
