"""What the workspace's parts may touch of it: a protocol below ``workspace`` and its parts.

``reads``, ``writes``, ``sync.refresh`` and ``sync.saved_catalogue`` each work on one workspace's state
under its locks; they name this protocol, never ``Workspace``, so no part imports the module that
assembles them (``Workspace`` satisfies it, which mypy checks where the parts are built).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Protocol

from .files.durable import WorkspaceLock
from .index.backend import IndexEntry, SearchBackend
from .index.catalogue import Catalogue
from .index.live import LiveIndex
from .index.write_batch import WriteBatch
from .listeners import Listeners
from .sync.folders import FolderSync, Problem


class Collection(Protocol):
    """How the files of one folder become index entries."""

    kind: str          # "note" | "memory"
    folder_name: str   # "notes" | "memory"

    def parse(self, path: Path, raw: bytes) -> IndexEntry:
        """Turn a file's bytes into an entry; raise ``BadFile`` with the reason when it can't."""
        ...


class Rebuilding(Protocol):
    """Of ``sync.refresh.FolderRefresh``: what searches and the saved catalogue ask of it."""

    def reading(self) -> contextlib.AbstractContextManager[None]: ...

    def rebuild_locked(self, reason: str, quiet: bool = False) -> None: ...


class LastWrite(Protocol):
    """Of ``writes.WriteHold``: when it last wrote (a background save waits for a quiet spell)."""

    last_write: float


class QuickFlag(Protocol):
    """Of ``reads.Reads.quick``: whether this thread is a quick read (an event loop that must not wait)."""

    on: bool


class WorkspaceState(Protocol):
    """The attributes and steps of a ``Workspace`` that its parts use (read-only where they only read)."""

    @property
    def root(self) -> Path: ...

    @property
    def collections(self) -> dict[str, Collection]: ...

    @property
    def index_dir(self) -> Path: ...

    @property
    def lock(self) -> WorkspaceLock: ...

    @property
    def _listeners(self) -> Listeners: ...

    @property
    def _live(self) -> LiveIndex: ...

    @property
    def _index(self) -> SearchBackend: ...

    @property
    def _batch(self) -> WriteBatch: ...

    @property
    def _sync(self) -> FolderSync: ...

    @property
    def _refresh(self) -> Rebuilding: ...

    @property
    def _writes(self) -> LastWrite: ...

    @property
    def _quick(self) -> QuickFlag: ...

    @property
    def _mutex(self) -> threading.RLock: ...

    @property
    def max_content_bytes(self) -> int: ...

    catalogue: Catalogue
    problems: dict[str, Problem]
    rescan_interval: float
    _seen_changes: bytes | None
    _stamps: dict[str, int]
    _scan_before_reading: bool
    _saved_version: int
    _temp_sweep_due: bool

    def refresh(self, force: bool = False, wait: bool | None = None, polite: bool = False) -> None: ...

    def flush(self, include_lazy: bool = True) -> None: ...

    def save_catalogue(self) -> None: ...

    def prepare_read(self) -> None: ...

    def _wait_for_index(self) -> None: ...

    def _yield_to_reads(self) -> None: ...

    def _recover(self, reason: str, rebuilds_seen: int) -> None: ...

    def _event(self, message: str, quiet: bool = False) -> None: ...
