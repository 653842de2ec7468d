"""The catalogue: one row per indexed file (what listings, summaries and search hits show).

It lives in memory, kept in step with the files by the workspace, and is saved to a compact
file under ``.index/`` so that a restart with nothing changed needs neither a scan nor the
search engine to list notes. Each row's front-matter fields (``meta``) stay as JSON text until
something reads them: a 100k-row catalogue loads in a split per line, and a search touches only
the rows it returns.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger("ctxnotes.catalogue")

FORMAT = 1
_versions = itertools.count(1)


class Entry:
    """The catalogue's row for one indexed file (``meta``: its front-matter fields, parsed on first use)."""

    __slots__ = ("key", "kind", "mtime_ns", "size", "_root", "_meta", "_raw")

    def __init__(self, key: str, kind: str, root: Path | str, mtime_ns: int, size: int,
                 meta: dict[str, Any] | None = None, raw: str | None = None) -> None:
        self.key = key
        self.kind = kind
        self.mtime_ns = mtime_ns
        self.size = size
        self._root = str(root)
        self._meta = meta
        self._raw = raw

    @property
    def meta(self) -> dict[str, Any]:
        if self._meta is None:
            self._meta = json.loads(self._raw or "{}")
        return self._meta

    @property
    def path(self) -> Path:
        return Path(self._root, self.key)

    @property
    def id(self) -> str:
        name = self.key.rsplit("/", 1)[-1]
        return name[:-3] if name.endswith(".md") else name

    def raw_meta(self) -> str:
        """The row's fields as JSON text (re-encoded once parsed: a reader may have changed them)."""
        if self._meta is not None or self._raw is None:
            return json.dumps(self._meta or {}, ensure_ascii=False, separators=(",", ":"))
        return self._raw

    def __repr__(self) -> str:
        return f"Entry({self.key!r}, {self.kind!r}, mtime_ns={self.mtime_ns}, size={self.size})"


class Catalogue:
    """Rows by key, with a ``version`` that changes on every mutation (sorted listings are cached
    against it). Mutations and snapshots take a short lock, so readers never see a half-made change
    and never wait behind a file write."""

    def __init__(self, rows: dict[str, Entry] | None = None) -> None:
        self._rows: dict[str, Entry] = dict(rows or {})
        self._lock = threading.Lock()
        self.version = next(_versions)
        self._cache: dict[str, tuple[int, list[Entry]]] = {}

    # -- dict-like access ------------------------------------------------------
    def get(self, key: str, default: Entry | None = None) -> Entry | None:
        return self._rows.get(key, default)

    def __getitem__(self, key: str) -> Entry:
        return self._rows[key]

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._rows)

    def values(self) -> list[Entry]:
        with self._lock:
            return list(self._rows.values())

    def __setitem__(self, key: str, entry: Entry) -> None:
        with self._lock:
            self._rows[key] = entry
            self.version = next(_versions)

    def __delitem__(self, key: str) -> None:
        self.pop(key)

    def pop(self, key: str, default: Entry | None = None) -> Entry | None:
        with self._lock:
            entry = self._rows.pop(key, default)
            self.version = next(_versions)
            return entry

    def replace_all(self, rows: dict[str, Entry]) -> None:
        with self._lock:
            self._rows = dict(rows)
            self.version = next(_versions)

    # -- listings ----------------------------------------------------------------
    def entries(self, kind: str) -> list[Entry]:
        """The rows of one kind (a fresh list; the scan is cached until the catalogue changes)."""
        return list(self._of_kind(kind))

    def _of_kind(self, kind: str) -> list[Entry]:
        version = self.version
        cached = self._cache.get(kind)
        if cached is None or cached[0] != version:
            cached = (version, [e for e in self.values() if e.kind == kind])
            self._cache[kind] = cached
        return cached[1]

    def sorted_entries(self, kind: str, key: Callable[[Entry], Any], name: str, reverse: bool) -> list[Entry]:
        """Rows of one kind in ``key`` order, cached per ``name`` until the catalogue changes."""
        cache_key = f"{kind}:{name}:{reverse}"
        version = self.version
        cached = self._cache.get(cache_key)
        if cached is None or cached[0] != version:
            cached = (version, sorted(self._of_kind(kind), key=key, reverse=reverse))
            self._cache[cache_key] = cached
        return cached[1]

    # -- the compact file ----------------------------------------------------------
    def save(self, path: Path, record: dict[str, Any], rows: list[Entry] | None = None) -> None:
        """Write ``rows`` (default: every row) and ``record`` (what they were checked against) to ``path``
        atomically. Rows never change once made, so a list taken earlier can be written unlocked.

        A derived cache: no fsync. A torn file fails the row count check and is ignored.
        """
        rows = self.values() if rows is None else rows
        if any("\t" in e.key or "\n" in e.key for e in rows):
            return  # a file name this format cannot hold: such a workspace reopens with a scan
        header = json.dumps({"format": FORMAT, "rows": len(rows), **record}, separators=(",", ":"))
        lines = [header]
        lines.extend(f"{e.key}\t{e.kind}\t{e.mtime_ns}\t{e.size}\t{e.raw_meta()}" for e in rows)
        lines.append("end")
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            log.info("could not save the catalogue to %s: %s", path, exc)
            tmp.unlink(missing_ok=True)

    @staticmethod
    def load(path: Path, root: Path, kinds: set[str]) -> tuple[dict[str, Entry], dict[str, Any]] | None:
        """Rows and record saved by ``save``; None when the file is missing, torn or of another format."""
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        lines = text.split("\n")
        try:
            record = json.loads(lines[0])
            if (not isinstance(record, dict) or record.get("format") != FORMAT
                    or len(lines) != record.get("rows", -1) + 3 or lines[-2] != "end"):
                return None
            rows: dict[str, Entry] = {}
            root_text = str(root)
            for line in lines[1:-2]:
                key, kind, mtime, size, raw = line.split("\t", 4)
                if kind in kinds:
                    rows[key] = Entry(key, kind, root_text, int(mtime), int(size), raw=raw)
        except (ValueError, TypeError):
            return None
        return rows, record
