"""Memory access statistics (how often and when each memory was recalled), kept out of the tracked files.

Recall must not dirty a Git working tree: a search that rewrote ``memory/<id>.md`` to bump a counter
would show up in ``git status`` and block ``git pull``. The counts live in
``<workspace>/.index/memory-access.sqlite`` instead (``.index/`` is ignored by Git): per memory id,
the number of recalls and the time of the last one.

What survives what: ``ctxnotes reindex`` and an automatic index rebuild replace only
``.index/whoosh`` and keep these statistics. Deleting ``.index/`` loses them; ranking then falls back
to what each file says (``last_accessed_at``/``access_count`` if a person or an older ctxnotes wrote
them there, else the creation time and 0). A memory's effective statistics are the larger of the
file's and the sidecar's, so nothing ever counts backwards.

SQLite (standard library) because several processes share a workspace: its own locking makes each
update atomic without a read-modify-write of one big file, and an update costs well under 1 ms.
Each thread keeps one connection (opening one costs ~0.5 ms, a query ~0.05 ms); it is reopened when
the file was deleted or replaced, so a deleted ``.index/`` is simply recreated.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import StorageError

FILE_NAME = "memory-access.sqlite"
_SCHEMA = "CREATE TABLE IF NOT EXISTS access (id TEXT PRIMARY KEY, count INTEGER NOT NULL, last REAL NOT NULL)"
_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit


@dataclass(frozen=True)
class Access:
    """One memory's recalls: how many, and the last one's epoch seconds."""

    count: int
    last: float


class AccessStats:
    """The sidecar store of memory access statistics for one workspace."""

    def __init__(self, index_dir: Path) -> None:
        self.path = Path(index_dir) / FILE_NAME
        self._local = threading.local()

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, reopened when the file is gone or is another file now."""
        try:
            ino = os.stat(self.path).st_ino
        except OSError:
            ino = None
        held: tuple[sqlite3.Connection, int] | None = getattr(self._local, "conn", None)
        if held is not None and (ino is None or held[1] != ino):
            held[0].close()
            held = None
        if held is None:
            conn = self._connect()
            held = (conn, os.stat(self.path).st_ino)
            self._local.conn = held
        yield held[0]

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=True)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # statistics: losing the last recall in a power cut is fine
            conn.execute(_SCHEMA)
            return conn
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(f"cannot open the access statistics at {self.path}: {exc}; delete that file "
                               "to start counting afresh") from exc

    def get(self, ids: Iterable[str]) -> dict[str, Access]:
        """The statistics of the given ids that have any."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        out: dict[str, Access] = {}
        try:
            with self._connection() as conn:
                for i in range(0, len(wanted), _CHUNK):
                    chunk = wanted[i:i + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    for mem_id, count, last in conn.execute(
                            f"SELECT id, count, last FROM access WHERE id IN ({marks})", chunk):
                        out[mem_id] = Access(int(count), float(last))
        except sqlite3.Error as exc:
            raise StorageError(f"cannot read the access statistics at {self.path}: {exc}") from exc
        return out

    def all(self) -> dict[str, Access]:
        try:
            with self._connection() as conn:
                return {mem_id: Access(int(count), float(last))
                        for mem_id, count, last in conn.execute("SELECT id, count, last FROM access")}
        except sqlite3.Error as exc:
            raise StorageError(f"cannot read the access statistics at {self.path}: {exc}") from exc

    def record(self, accesses: Mapping[str, Access]) -> None:
        """Store new statistics for some memories (in one transaction)."""
        if not accesses:
            return
        try:
            with self._connection() as conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT INTO access (id, count, last) VALUES (?, ?, ?) "
                                 "ON CONFLICT(id) DO UPDATE SET count = excluded.count, last = excluded.last",
                                 [(k, a.count, a.last) for k, a in accesses.items()])
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StorageError(f"cannot save the access statistics at {self.path}: {exc}") from exc

    def touch(self, baseline: Mapping[str, Access], now: float) -> dict[str, Access]:
        """Count one recall of each memory now; return their new statistics.

        ``baseline`` is what each file says; the new count is one more than the larger of it and the
        sidecar's, in one transaction, so concurrent recalls in several processes are all counted.
        """
        if not baseline:
            return {}
        ids = list(baseline)
        try:
            with self._connection() as conn:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    stored: dict[str, Access] = {}
                    for i in range(0, len(ids), _CHUNK):
                        chunk = ids[i:i + _CHUNK]
                        marks = ",".join("?" * len(chunk))
                        for mem_id, count, last in conn.execute(
                                f"SELECT id, count, last FROM access WHERE id IN ({marks})", chunk):
                            stored[mem_id] = Access(int(count), float(last))
                    new = {}
                    for mem_id, base in baseline.items():
                        old = stored.get(mem_id, base)
                        new[mem_id] = Access(max(old.count, base.count) + 1, max(now, old.last, base.last))
                    conn.executemany("INSERT INTO access (id, count, last) VALUES (?, ?, ?) ON CONFLICT(id) "
                                     "DO UPDATE SET count = excluded.count, last = excluded.last",
                                     [(k, a.count, a.last) for k, a in new.items()])
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                return new
        except sqlite3.Error as exc:
            raise StorageError(f"cannot save the access statistics at {self.path}: {exc}") from exc

    def drop(self, ids: Iterable[str]) -> None:
        """Forget the statistics of deleted memories."""
        gone = [(i,) for i in ids]
        if not gone:
            return
        try:
            with self._connection() as conn:
                conn.executemany("DELETE FROM access WHERE id = ?", gone)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot save the access statistics at {self.path}: {exc}") from exc
