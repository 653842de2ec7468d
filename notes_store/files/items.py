"""The item-file layer shared by notes and memories: path, id, load, revision, durable write, delete.

A note and a memory are both ``<workspace>/<folder>/<id>.md`` files of YAML front matter and a
Markdown body; everything that does not depend on which one lives here, once: reading a file without
trusting it (regular files only, one size limit, bounded front matter), the errors that say what to
do, the revision (a short hash of the bytes) that makes compare-and-swap updates possible, and the
list of files that cannot be read.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from .front_matter import BadFile, Document, clipped_reason, parse_document
from ..errors import Conflict, InvalidInput, NotFound, StorageError
from .durable import StagedWrite, TempFileGone, commit_staged, durable_unlink, stage_write
from .safe_read import read_regular_file
from ..settings import max_file_bytes
from ..validation import MAX_FILE_TAGS, check_id
from .note_paths import check_note_id, safe_note_path

if TYPE_CHECKING:  # the index's entry type, for annotations only: files/ never imports the index
    from ..index.backend import IndexEntry

REVISION_CHARS = 12
UNREADABLE = "unreadable"  # every reason a file cannot be read starts with "unreadable: "


class ItemCollection(Protocol):
    """How the files of one folder become index entries (``NoteCollection``, ``MemoryCollection``)."""

    kind: str
    folder_name: str

    def parse(self, path: Path, raw: bytes, doc: Document | None = None,
              mtime: float | None = None) -> IndexEntry: ...


def revision_of(raw: bytes) -> str:
    """A short hash of a file's bytes: the first 12 hex digits of its Git blob id.

    Any change to the file (a tool write, a hand edit, a ``git pull``) changes it, and
    ``git hash-object notes/<id>.md`` shows the same digits, so a person can match them.
    """
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest()[:REVISION_CHARS]


def check_revision(value: Any) -> str | None:
    """``expected_revision`` as given by a caller: None, or the hex digits a result showed."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("expected_revision must be the 'revision' string of a note or memory you read "
                           "(e.g. '1a2b3c4d5e6f'), or left out for last-writer-wins")
    text = value.strip().lower()
    if not (4 <= len(text) <= 40) or any(ch not in "0123456789abcdef" for ch in text):
        raise InvalidInput(f"expected_revision {value[:50]!r} is not a revision: use the 'revision' string "
                           "(12 hex digits) of the item as you read it")
    return text


def file_tags(value: Any) -> list[str]:
    """The ``tags`` of a file's front matter as strings; BadFile when they are not a short list."""
    tags = value or []
    if not isinstance(tags, list) or not all(isinstance(t, (str, int, float)) for t in tags):
        raise BadFile("tags must be a YAML list of strings")
    if len(tags) > MAX_FILE_TAGS:
        raise BadFile(f"{len(tags)} tags, over the limit of {MAX_FILE_TAGS}; keep the few that matter")
    return [str(t) for t in tags]


@dataclass
class LoadedItem:
    """One item read from disk: its front matter, index entry (catalogue row in ``entry.meta``),
    path and revision."""

    front: dict[str, Any]
    entry: IndexEntry
    path: Path
    revision: str
    raw: bytes = b""   # the file's bytes as read (an update of a page we did not write edits them)


@dataclass
class StagedItem:
    """An item's new bytes, parsed and durable in a temp file, waiting for ``ItemFiles.commit``."""

    item_id: str
    data: bytes
    entry: IndexEntry
    revision: str
    file: StagedWrite

    def discard(self) -> None:
        """Drop the temp file when the write is not committed after all."""
        self.file.discard()


@dataclass
class Page:
    """One page of a listing: ``items`` after ``offset``, at most ``limit``, of ``total``.

    The one list-result shape of the stores; ``NoteList`` and ``MemoryList`` are this with the
    name the items are listed under (``notes`` / ``memories``).
    """

    items: list[Any]
    total: int
    limit: int
    offset: int
    items_key = "items"

    def item_dict(self, item: Any) -> dict[str, Any]:
        return dict(item.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "limit": self.limit, "offset": self.offset,
                self.items_key: [self.item_dict(i) for i in self.items]}


T = TypeVar("T")


@dataclass
class WithWarnings(Generic[T]):
    """A value and the warnings raised while producing it (e.g. a Git commit that failed after a save)."""

    value: T
    warnings: list[str] = field(default_factory=list)


@contextlib.contextmanager
def collecting_warnings(ws: Any) -> Iterator[list[str]]:
    """The warnings write listeners raise inside the block, for the caller to put on its result.

    They are read without being taken: the workspace keeps them too (``take_warnings``) until every
    caller reads warnings from results instead.
    """
    got: list[str] = []
    pending = getattr(ws, "_pending_warnings", None)
    start = len(pending()) if callable(pending) else 0
    try:
        yield got
    finally:
        if callable(pending):
            got.extend(pending()[start:])


class ItemFiles:
    """The files of one kind of item in a workspace."""

    def __init__(self, ws: Any, collection: ItemCollection, *, what: str, id_name: str, id_prefix: str,
                 find_hint: str, parse: Callable[[bytes], Document] = parse_document, nested: bool = False) -> None:
        self.ws = ws
        self.collection = collection
        self.what = what            # "note" | "memory"
        self.id_name = id_name      # "note_id" | "memory_id": the argument named in errors
        self.id_prefix = id_prefix  # "note" | "mem"
        self.find_hint = find_hint  # how a caller finds valid ids
        self._parse = parse
        self.nested = nested        # ids are paths under the folder (notes), not flat names (memories)
        self._lock = threading.Lock()
        self._unreadable: dict[str, str] = {}  # key -> reason, for files that failed when read by id
        self._special: tuple[int, dict[str, str]] | None = None  # (folder mtime_ns, special files)

    # -- layout -------------------------------------------------------------------
    @property
    def folder(self) -> Path:
        return Path(self.ws.root) / self.collection.folder_name

    def key(self, item_id: str) -> str:
        return f"{self.collection.folder_name}/{item_id}.md"

    def path(self, item_id: str) -> Path:
        """The file of a checked id; for path ids, InvalidInput when a folder on the way is a symbolic link."""
        if self.nested:
            return safe_note_path(self.folder, item_id)
        return self.folder / f"{item_id}.md"

    def check_id(self, item_id: Any) -> str:
        if self.nested:
            return check_note_id(item_id, self.id_name)
        return check_id(item_id, self.id_name)

    def id_of_key(self, key: str) -> str:
        """``notes/a/b.md`` -> ``a/b``."""
        name = key.split("/", 1)[-1]
        return name[:-3] if name.endswith(".md") else name

    def new_id(self) -> str:
        """``<prefix>_<UTC time>_<8 hex>``: the time for readability, 32 random bits so that two
        processes creating items in the same second never collide and a deleted id never returns."""
        stamp = time.strftime("%Y%m%d_%H%M%S", time.gmtime(self.ws.clock()))
        while True:
            item_id = f"{self.id_prefix}_{stamp}_{secrets.token_hex(4)}"
            if not os.path.lexists(self.path(item_id)):
                return item_id

    @property
    def max_file_bytes(self) -> int:
        return max_file_bytes(int(self.ws.max_content_bytes))

    # -- reading -------------------------------------------------------------------
    def read_bytes(self, item_id: str) -> tuple[bytes, os.stat_result]:
        """The file's bytes (regular files only, within the size limit); NotFound / InvalidInput otherwise."""
        path = self.path(item_id)
        try:
            return read_regular_file(path, self.max_file_bytes)
        except FileNotFoundError:
            self._forget_unreadable(item_id)
            raise NotFound(f"no {self.what} with id {item_id!r}; {self.find_hint}") from None
        except BadFile as exc:
            raise self._unreadable_error(item_id, str(exc)) from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self._note_unreadable(item_id, f"cannot be opened: {reason}")
            raise StorageError(f"cannot read {self.what} {item_id}: {reason}") from exc

    def load(self, item_id: Any) -> LoadedItem:
        """Read and parse one item; raises NotFound, InvalidInput (unreadable, with the reason) or
        StorageError (the file system refused)."""
        item_id = self.check_id(item_id)
        raw, st = self.read_bytes(item_id)
        path = self.path(item_id)
        try:
            doc = self._parse(raw)
            entry = self.collection.parse(path, raw, doc, mtime=st.st_mtime)
        except BadFile as exc:
            raise self._unreadable_error(item_id, str(exc)) from None
        revision = revision_of(raw)
        entry.meta["revision"] = revision
        self._forget_unreadable(item_id)
        return LoadedItem(doc.meta, entry, path, revision, raw)

    def current_revision(self, item_id: str) -> str | None:
        """The revision of the file as it is now (None when it is gone or cannot be read as bytes)."""
        try:
            raw, _st = read_regular_file(self.path(item_id), self.max_file_bytes)
        except (OSError, BadFile):
            return None
        return revision_of(raw)

    def require_revision(self, item_id: str, expected: str | None, current: str | None) -> None:
        """Raise ``Conflict`` (nothing is written) when ``expected`` is given and differs from ``current``."""
        if expected is None or (current is not None and current.startswith(expected)):
            return
        if current is None:
            raise Conflict(f"{self.what} {item_id} cannot be checked against expected_revision {expected}: "
                           f"it is unreadable now; nothing was changed. Read it again, or retry without "
                           "expected_revision to overwrite (last writer wins)")
        raise Conflict(f"{self.what} {item_id} changed since it was read: expected revision {expected}, "
                       f"current revision {current}; nothing was changed. Read it again, apply your change "
                       f"to what is there now, and retry with expected_revision={current!r}", current)

    # -- writing -------------------------------------------------------------------
    def write(self, item_id: str, data: bytes, entry: IndexEntry | None = None) -> tuple[IndexEntry, str]:
        """Write the file durably (caller holds the lock) and register it: (index entry, revision).

        ``entry`` is parsed from ``data`` when not given, so a file is indexed exactly as a later
        read would see it.
        """
        return self.commit(self.stage(item_id, data, entry))

    def stage(self, item_id: str, data: bytes, entry: IndexEntry | None = None) -> StagedItem:
        """Parse ``data`` into its index entry and write it to a durable temp file, without the lock:
        the fsync of the data is the slow part of a write and needs no lock (``commit`` follows under it)."""
        path = self.path(item_id)
        if entry is None:
            try:
                entry = self.collection.parse(path, data, self._parse(data), mtime=self.ws.clock())
            except BadFile as exc:  # what we serialise always parses: this is a bug, not bad input
                raise StorageError(f"refusing to write {self.what} {item_id}: {exc}") from exc
        revision = revision_of(data)
        entry.meta["revision"] = revision
        return StagedItem(item_id, data, entry, revision, stage_write(path, data))

    def commit(self, staged: StagedItem) -> tuple[IndexEntry, str]:
        """Rename a staged file into place, fsync the folder and register it (caller holds the lock)."""
        return self.register(staged, self.rename(staged, sync_folder=True))

    def rename(self, staged: StagedItem, sync_folder: bool = False) -> os.stat_result:
        """Rename a staged file into place (caller holds the lock); the new file's stat.

        Without ``sync_folder`` the rename is not durable yet: the caller fsyncs the folder
        (``Workspace.write_group`` does, once for every write of a group) before ``register``.
        """
        try:  # a temp file deleted by something else before the rename is written again, here under the lock
            return commit_staged(staged.file, staged.data, attempts=2, sync_folder=sync_folder)
        except TempFileGone:
            raise StorageError(f"could not write {self.what} {staged.item_id}: its temp file was deleted "
                               "before the rename, twice (is something removing .tmp- files?)") from None

    def register(self, staged: StagedItem, st: os.stat_result) -> tuple[IndexEntry, str]:
        """Make a durable renamed file visible: catalogue, search overlay, listeners (caller holds the lock)."""
        self.ws.record_write(staged.entry, st)
        self._forget_unreadable(staged.item_id)
        return staged.entry, staged.revision

    def delete(self, item_id: str) -> None:
        """Delete the file durably and drop it from the index (caller holds the lock)."""
        durable_unlink(self.path(item_id))
        self.ws.record_delete(self.key(item_id))
        self._forget_unreadable(item_id)

    # -- unreadable files ---------------------------------------------------------------
    def _unreadable_error(self, item_id: str, reason: str) -> InvalidInput:
        reason = clipped_reason(reason)
        self._note_unreadable(item_id, reason)
        return InvalidInput(f"{self.what} {item_id} cannot be read ({UNREADABLE}: {reason}); fix the file by "
                            f"hand ({self.path(item_id)}) or delete it")

    def _note_unreadable(self, item_id: str, reason: str) -> None:
        with self._lock:
            self._unreadable[self.key(item_id)] = reason

    def _forget_unreadable(self, item_id: str) -> None:
        with self._lock:
            self._unreadable.pop(self.key(item_id), None)

    def _special_files(self) -> dict[str, str]:
        """``*.md`` entries that are neither regular files nor links (FIFOs, sockets, devices, folders).

        Folder scans skip them, so they are found here; ``d_type`` answers without a ``stat``, and the
        answer is kept until the folder's mtime changes (creating or renaming an entry changes it).
        """
        out: dict[str, str] = {}
        try:
            stamp = os.stat(self.folder).st_mtime_ns
        except OSError:
            return out
        cached = self._special
        if cached is not None and cached[0] == stamp:
            return dict(cached[1])
        try:
            with os.scandir(self.folder) as it:
                for de in it:
                    if (de.name.endswith(".md") and not de.name.startswith(".")
                            and not de.is_symlink() and not de.is_file(follow_symlinks=False)):
                        out[f"{self.collection.folder_name}/{de.name}"] = (
                            "is not a regular file (a FIFO, socket, device or folder); remove it or rename it "
                            "so it does not end in .md")
        except OSError:
            return out
        self._special = (stamp, out)
        return dict(out)

    def unreadable(self) -> list[dict[str, str]]:
        """Files of this kind that cannot be read: what the workspace's scans found, plus files that
        failed when read by id (e.g. a FIFO, or a file that became unreadable after it was indexed).
        Each is ``{"path": "<folder>/<name>", "reason": "..."}``."""
        folder = self.collection.folder_name + "/"
        found = {p.path: p.reason for p in list(self.ws.problems.values()) if p.path.startswith(folder)}
        found.update(self._special_files())
        with self._lock:
            extra = dict(self._unreadable)
        for key, reason in extra.items():
            if key in found:
                continue
            if os.path.lexists(Path(self.ws.root) / key):
                found[key] = reason
            else:
                self._forget_unreadable(self.id_of_key(key))
        return [{"path": key, "reason": found[key]} for key in sorted(found)]
