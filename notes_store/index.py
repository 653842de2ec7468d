"""The Whoosh full-text index: a derived cache of the workspace's files.

One index holds notes and memories (field ``kind``), so both share one search
path and one analyzer. The index can always be thrown away and rebuilt from the
files; nothing here is the source of truth.

Ranking is BM25F over one weighted ``text`` field: the title is written into it
``TITLE_WEIGHT`` times, which is exactly BM25F's per-field term-frequency
weighting (and twice as fast to query as one Whoosh field per part).
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Iterator, Sequence

from whoosh import fields, index as whoosh_index
from whoosh.filedb.filestore import FileStorage
from whoosh import query as Q
from whoosh.scoring import BM25F

from .analysis import ANALYZER, QueryUnit
from .errors import StorageError
from .ranking import Ranker

log = logging.getLogger("ctxnotes.index")

INDEX_NAME = "ctxnotes_v2"  # bump when the schema or analyzer changes: old indexes are rebuilt
TITLE_WEIGHT = 2
MAX_SEGMENTS = 12  # past this many small segments, the next commit merges them


class IndexCorrupt(Exception):
    """The index files cannot be used; the caller rebuilds from the files."""


@dataclass
class IndexEntry:
    """What the index stores for one file."""

    key: str                      # "notes/<id>.md": the file's path in the workspace
    kind: str                     # "note" | "memory"
    type: str                     # note type or memory type
    tags: Sequence[str]
    updated: float                # epoch seconds, for range filters
    title: str
    text: str                     # body text to index
    meta: dict[str, Any] = field(default_factory=dict)  # catalogue row, JSON-able


def _schema() -> fields.Schema:
    return fields.Schema(
        key=fields.ID(unique=True, stored=True),
        kind=fields.ID(),
        type=fields.ID(),
        tags=fields.KEYWORD(commas=True, lowercase=False, scorable=False),
        updated=fields.NUMERIC(numtype=float, bits=64),
        text=fields.TEXT(analyzer=ANALYZER, phrase=True),
        meta=fields.STORED(),
    )


@dataclass
class Filters:
    """Restrictions a search applies before ranking."""

    kind: str
    types: Sequence[str] | None = None
    tags: Sequence[str] | None = None          # every tag must be present
    updated_after: float | None = None
    updated_before: float | None = None


class SearchIndex:
    """Open, query, update and rebuild the Whoosh index in one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._ix: whoosh_index.FileIndex | None = None
        self._searcher = None
        self._merge_next = False
        self._ranker = Ranker()
        self._filter_parts: dict[tuple, set[int]] = {}  # filter part -> live docnums, for _filter_generation
        self._filter_generation = -1
        self._generation = 0  # bumps with every new searcher: keys the filter cache

    # -- lifecycle -----------------------------------------------------------
    def open(self) -> bool:
        """Open the index; return False when it is missing, corrupt or of another version."""
        self.close()
        try:
            if not whoosh_index.exists_in(self.folder, indexname=INDEX_NAME):
                return False
            self._ix = _storage(self.folder).open_index(INDEX_NAME)
            self._new_searcher()
            self._searcher.doc_count_all()
            return True
        except Exception as exc:  # any damage to the files: rebuild
            log.warning("index at %s is unusable (%s: %s)", self.folder, type(exc).__name__, exc)
            self.close()
            return False

    def create(self, entries: Iterable[IndexEntry] = ()) -> int:
        """Throw away whatever is in the folder and build a fresh index from ``entries``."""
        self.close()
        try:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder.mkdir(parents=True, exist_ok=True)
            self._ix = _storage(self.folder).create_index(_schema(), indexname=INDEX_NAME)
            count = 0
            writer = self._ix.writer(limitmb=128)
            try:
                for entry in entries:
                    writer.add_document(**_doc(entry))
                    count += 1
            except BaseException:
                writer.cancel()
                raise
            writer.commit(optimize=True)
            self._new_searcher()
            return count
        except OSError as exc:
            self.close()
            raise StorageError(f"the search index could not be rebuilt ({exc.strerror or exc}); the notes are "
                               "safe in their files: fix the problem (free space?) and run 'ctxnotes reindex'") from exc

    def _new_searcher(self) -> None:
        self._searcher = self._ix.searcher(weighting=BM25F())
        self._generation += 1

    def close(self) -> None:
        if self._searcher is not None:
            try:
                self._searcher.close()
            except Exception:
                pass
        self._searcher = None
        if self._ix is not None:
            try:
                self._ix.close()
            except Exception:
                pass
        self._ix = None

    # -- reading -------------------------------------------------------------
    def _fresh_searcher(self):
        if self._searcher is None:
            raise IndexCorrupt("index is not open")
        try:
            if not self._searcher.up_to_date():
                # Not Searcher.refresh(): it reuses segment readers with stale
                # deletion sets (deleted notes come back) and fails on an empty index.
                self._searcher.close()
                self._new_searcher()
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc
        return self._searcher

    def stored(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every (key, catalogue row) the index holds."""
        searcher = self._fresh_searcher()
        try:
            for _docnum, stored in searcher.reader().iter_docs():
                yield stored["key"], json.loads(stored["meta"])
        except IndexCorrupt:
            raise
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc

    def stored_one(self, key: str) -> dict[str, Any] | None:
        """The catalogue row the index holds for ``key``, if any."""
        searcher = self._fresh_searcher()
        try:
            stored = searcher.document(key=key)
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc
        return json.loads(stored["meta"]) if stored else None

    def doc_count(self) -> int:
        return self._fresh_searcher().doc_count()

    def search(self, units: Sequence[QueryUnit], filters: Filters, limit: int,
               match_all: bool = True) -> tuple[list[tuple[str, float]], int]:
        """Rank documents for ``units``; return the top ``limit`` (key, score) and the hit count.

        ``match_all`` requires every unit (words and phrases); otherwise any term counts.
        """
        if not units:
            return [], 0
        searcher = self._fresh_searcher()
        try:
            allowed = self._allowed(searcher, filters)
            if not allowed:
                return [], 0
            top, total = self._ranker.search(searcher, units, allowed, limit, match_all, self._generation)
            return [(searcher.stored_fields(docnum)["key"], score) for docnum, score in top], total
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc

    def _allowed(self, searcher, filters: Filters) -> set[int]:
        """Live document numbers that pass the filters.

        Each part (kind, one type, one tag, a date range) is a set cached until the
        next commit; combining them is set arithmetic in C. Whoosh needs ~20 ms at
        10k notes to evaluate one such filter query.
        """
        docs = set(self._filter_part(searcher, ("kind", filters.kind), Q.Term("kind", filters.kind)))
        if filters.types:
            docs &= set().union(*(self._filter_part(searcher, ("type", t), Q.Term("type", t))
                                  for t in filters.types))
        for tag in filters.tags or ():
            docs &= self._filter_part(searcher, ("tag", tag), Q.Term("tags", tag))
        if filters.updated_after is not None or filters.updated_before is not None:
            span = (filters.updated_after, filters.updated_before)
            docs &= self._filter_part(searcher, ("updated", span), Q.NumericRange("updated", *span))
        return docs

    def _filter_part(self, searcher, name: tuple, query: Q.Query) -> set[int]:
        if self._filter_generation != self._generation:
            self._filter_parts.clear()
            self._filter_generation = self._generation
        docs = self._filter_parts.get(name)
        if docs is None:
            reader = searcher.reader()
            docs = set(searcher.docs_for_query(query))
            if reader.has_deletions():
                docs = {d for d in docs if not reader.is_deleted(d)}
            if len(self._filter_parts) >= 64:
                self._filter_parts.pop(next(iter(self._filter_parts)))
            self._filter_parts[name] = docs
        return docs

    # -- writing -------------------------------------------------------------
    def write(self, puts: Sequence[IndexEntry], deletes: Sequence[str]) -> None:
        """Apply puts and deletes in one commit. Callers hold the workspace lock."""
        if not puts and not deletes:
            return
        if self._ix is None:
            raise IndexCorrupt("index is not open")
        try:
            writer = self._ix.writer(timeout=5.0)
            try:
                for key in deletes:
                    writer.delete_by_term("key", key)
                for entry in puts:
                    writer.update_document(**_doc(entry))
            except BaseException:
                writer.cancel()
                raise
            # A merge per commit costs ~70 ms at 10k notes; small segments are
            # merged only once enough of them have piled up.
            writer.commit(merge=self._merge_next)
            self._merge_next = len(self._ix._segments()) > MAX_SEGMENTS
        except FileNotFoundError as exc:
            # The index folder or its files were deleted under us: no retry can succeed, so rebuild.
            raise IndexCorrupt(f"index files missing: {exc}") from exc
        except OSError as exc:
            # Disk full, I/O error: the index keeps its previous, consistent generation.
            raise StorageError(f"the search index could not be updated ({exc.strerror or exc}); the files are "
                               "saved and the index catches up once the problem is fixed (free space, "
                               "then retry or run 'ctxnotes reindex')") from exc
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc


def _storage(folder: Path) -> FileStorage:
    """The index's file storage, without mmap: a segment file truncated under a mapped reader (someone
    damaging ``.index/`` while the server runs) would kill the process with SIGBUS; plain reads fail with
    an exception instead, which ends in a rebuild."""
    return FileStorage(str(folder), supports_mmap=False)


def _doc(entry: IndexEntry) -> dict[str, Any]:
    title = entry.title
    text = "\n".join([title] * TITLE_WEIGHT + [" ".join(entry.tags), entry.text])
    return {
        "key": entry.key,
        "kind": entry.kind,
        "type": entry.type,
        "tags": ",".join(entry.tags),
        "updated": float(entry.updated),
        "text": text,
        "meta": json.dumps(entry.meta, ensure_ascii=False, separators=(",", ":")),
    }
