"""The Whoosh implementation of ``SearchBackend``: the only module that knows Whoosh's files and searchers.

One index holds notes and memories (field ``kind``), so both share one search path and one
analyzer. The index can always be thrown away and rebuilt from the files.

Ranking is BM25F over one weighted ``text`` field (``backend.indexed_text``: the title
written ``TITLE_WEIGHT`` times is exactly BM25F's per-field term-frequency weighting, and twice
as fast to query as one Whoosh field per part). Scores come from ``ranking.Ranker``,
which reads Whoosh's postings once and keeps them decoded.

Threads: ``write`` runs in one thread at a time (the workspace's committer); ``refresh``
swaps in a new searcher without closing the one a running search may still hold; searches
share the ranker's caches under ``_search_lock`` (they are CPU-bound: serialising them costs
nothing on a GIL interpreter and keeps the caches consistent).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import os
import secrets
import shutil
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh import query as Q
from whoosh.filedb.filestore import FileStorage
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25F
from whoosh.util.numeric import byte_to_length, length_to_byte

from ..analysis.analyzer import QueryUnit
from ..bounded_cache import evict_oldest
from ..errors import StorageError
from .parallel_build import BuildUnavailable, build_parallel
from .schema import INDEX_NAME, schema
from .ranking import FIELD, Ranker, read_ids
from .segment_writer import TEXT_POSITIONS, FastAdder
from .backend import CorpusStats, Filters, Hits, IndexCorrupt, IndexEntry, indexed_text
from .write_batch import analysis_of

log = logging.getLogger("ctxnotes.index")

MAX_SEGMENTS = 12  # past this many small segments, the next commit merges them
BUILD_BATCH = 5_000  # documents per writer while rebuilding: bounds the build's memory
BUILD_LIMIT_MB = 64  # the writer's pool: past it, sorted runs go to disk (same speed here, half the peak)
BUILD_ID_FILE = "build-id"
FILTER_PARTS = 64  # search filter parts (a kind, type, tag or date span) kept as sets of document numbers,
FILTER_PART_MEMBERS = 1_000_000  # and at most this many members in all (~86 MB); the newest part always stays
PARALLEL_MIN = 2_000  # documents from which a rebuild runs in child processes (below: in this process)


def build_workers() -> int:
    """Child processes for a rebuild: ``CTXNOTES_INDEX_WORKERS`` (0 = build in this process), else
    up to 2 (one per core; more only adds pickling on a small machine)."""
    value = os.environ.get("CTXNOTES_INDEX_WORKERS", "").strip()
    if value.isdigit():
        return int(value)
    return max(1, min(2, os.cpu_count() or 1))


class WhooshBackend:
    """Open, query, update and rebuild the Whoosh index in one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._ix: Any = None        # whoosh FileIndex
        self._searcher: Any = None  # whoosh Searcher: replaced, never mutated, so searches may hold it
        self._build_id = ""
        self._merge_next = False
        self._ranker = Ranker(folder=folder)
        self._search_lock = threading.Lock()
        self._filter_parts: OrderedDict[tuple[Any, ...], set[int]] = OrderedDict()  # filter part -> live docnums
        self._docnums: dict[str, int | None] = {}  # key -> docnum, for ``exclude``
        self._keys: dict[int, str] = {}  # docnum -> key, for hits (both learnt from the installed searcher)
        self._segment_keys: dict[str, dict[str, int | None]] = {}  # segment id -> key -> docnum in it
        self._doc_freqs: dict[str, int] = {}  # term -> document frequency in the installed searcher
        self._cache_generation = -1
        self._generation = 0  # bumps with every new searcher
        self._toc_stamp: tuple[int, int, int] | None = None
        self._toc_generation = -1

    # -- lifecycle -----------------------------------------------------------
    def open(self) -> bool:
        """Open the index; return False when it is missing, corrupt or of another version."""
        self.close()
        try:
            if not whoosh_index.exists_in(self.folder, indexname=INDEX_NAME):
                return False
            self._ix = _storage(self.folder).open_index(INDEX_NAME)
            self._build_id = _read_build_id(self.folder)
            self._new_searcher()
            self._searcher.doc_count_all()
            return True
        except Exception as exc:  # any damage to the files: rebuild
            log.warning("index at %s is unusable (%s: %s)", self.folder, type(exc).__name__, exc)
            self.close()
            return False

    def create(self, entries: Iterable[IndexEntry] = ()) -> int:
        """Throw away whatever is in the folder and build a fresh index from ``entries``.

        Large builds run in child processes (``parallel_build``): the analysis and Whoosh's writing
        spread over the cores while this process reads the files, and the build's memory is the
        children's, returned to the system when they exit. Small ones are written here in
        batches of ``BUILD_BATCH`` documents, each its own segment, merged at the end.
        """
        self.close()
        try:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder.mkdir(parents=True, exist_ok=True)
            self._ix = _storage(self.folder).create_index(schema(), indexname=INDEX_NAME)
            stream = iter(entries)
            head = list(itertools.islice(stream, PARALLEL_MIN))
            workers = build_workers()
            count = -1
            if workers and len(head) >= PARALLEL_MIN:
                docs = (_doc(e) for e in itertools.chain(head, stream))
                try:
                    count = build_parallel(self.folder, INDEX_NAME, schema(), docs, workers)
                    self._ix = _storage(self.folder).open_index(INDEX_NAME)
                except BuildUnavailable as exc:  # no entry was read yet: build here instead
                    log.warning("%s; building the index in this process", exc)
            if count < 0:
                count = 0
                batch: list[IndexEntry] = []
                for entry in itertools.chain(head, stream):
                    batch.append(entry)
                    if len(batch) >= BUILD_BATCH:
                        count += self._add_batch(batch, merge=False)
                        batch = []
                count += self._add_batch(batch, merge=True)
            self._build_id = secrets.token_hex(8)
            (self.folder / BUILD_ID_FILE).write_text(self._build_id, encoding="ascii")
            self._new_searcher()
            _release_memory()
            return count
        except OSError as exc:
            self.close()
            raise StorageError(f"the search index could not be rebuilt ({exc.strerror or exc}); the notes are "
                               "safe in their files: fix the problem (free space?) and run 'ctxnotes reindex'") from exc

    def _add_batch(self, batch: list[IndexEntry], merge: bool) -> int:
        writer = self._ix.writer(limitmb=BUILD_LIMIT_MB)
        try:
            for entry in batch:
                writer.add_document(**_doc(entry))
        except BaseException:
            writer.cancel()
            raise
        writer.commit(merge=merge, optimize=merge and len(self._ix._segments()) > 1)
        return len(batch)

    def _new_searcher(self) -> None:
        self._install(self._open_searcher())

    def _open_searcher(self) -> tuple[Any, int, tuple[int, int, int] | None]:
        """A searcher on the latest commit, with its generation and table-of-contents stamp (no state changed)."""
        generation = self._ix.latest_generation()
        searcher = self._ix.searcher(weighting=BM25F())
        return searcher, generation, self._stamp_of(generation)

    def _install(self, opened: tuple[Any, int, tuple[int, int, int] | None]) -> None:
        """Make ``opened`` the searcher of new searches (no search may run meanwhile, see ``install_refresh``)."""
        # The old searcher is not closed: a search in another thread may still be using it;
        # its files close when the last reference goes.
        self._searcher, self._toc_generation, self._toc_stamp = opened
        self._generation += 1

    def _stamp_of(self, generation: int) -> tuple[int, int, int] | None:
        """The table of contents file of ``generation``: (inode, size, mtime), None when it is gone."""
        try:
            st = os.stat(self.folder / f"_{INDEX_NAME}_{generation}.toc")
        except OSError:
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def _check_files(self, searcher: Any) -> Any:
        """One ``stat`` per search: when the index's files changed under the current searcher (another
        process committed, or someone damaged or deleted them), open the index again, which either
        shows the new state or fails with ``IndexCorrupt``: damage is found on the next call."""
        if self._toc_stamp is not None and self._stamp_of(self._toc_generation) == self._toc_stamp:
            return searcher
        try:
            self._ix = _storage(self.folder).open_index(INDEX_NAME)
            self._new_searcher()
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc
        return self._searcher

    def close(self) -> None:
        self._toc_generation = -1
        searcher, self._searcher = self._searcher, None
        if searcher is not None:
            with contextlib.suppress(Exception):
                searcher.close()
        if self._ix is not None:
            with contextlib.suppress(Exception):
                self._ix.close()
        self._ix = None

    @property
    def count_bound(self) -> int:
        """Phrase matches are counted exactly up to this many; past it, totals are lower bounds."""
        return self._ranker.count_bound

    @count_bound.setter
    def count_bound(self, value: int) -> None:
        self._ranker.count_bound = value

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def version(self) -> str:
        if self._ix is None:
            return ""
        try:
            return f"{self._build_id}:{self._ix.latest_generation()}"
        except Exception:
            return ""

    def refresh(self) -> bool:
        """Open a new searcher if the committed index changed since the current one."""
        return self.install_refresh(self.prepare_refresh())

    def prepare_refresh(self) -> object | None:
        """The slow half of ``refresh``: open a searcher on the latest commit (None if up to date), changing
        nothing searches see, so it may run while searches do; ``install_refresh`` swaps it in."""
        searcher = self._searcher
        if searcher is None or self._ix is None:
            raise IndexCorrupt("index is not open")
        try:
            if searcher.up_to_date():
                return None
            # Not Searcher.refresh(): it reuses segment readers with stale
            # deletion sets (deleted notes come back) and fails on an empty index.
            return self._open_searcher()
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc

    def install_refresh(self, prepared: object | None) -> bool:
        """Swap in what ``prepare_refresh`` opened (no search may run meanwhile: the ranker's caches are
        per generation); True if anything changed."""
        if prepared is None:
            return False
        self._install(prepared)  # type: ignore[arg-type]
        return True

    # -- reading -------------------------------------------------------------
    def _current(self) -> Any:
        searcher = self._searcher
        if searcher is None:
            raise IndexCorrupt("index is not open")
        return searcher

    def keys(self) -> Iterator[str]:
        searcher = self._current()
        try:
            keys = [stored["key"] for stored in searcher.reader().all_stored_fields()]
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc
        return iter(keys)

    def doc_count(self, kind: str | None = None) -> int:
        searcher = self._current()
        if kind is None:
            return int(searcher.doc_count())
        with self._search_lock:
            return len(self._filter_part(searcher, ("kind", kind), Q.Term("kind", kind)))

    def stats(self, terms: Iterable[str]) -> CorpusStats:
        """The installed searcher's statistics for ``terms``; each term's document frequency read once per
        commit (the overlay's scoring asks for them on every search while writes wait to be committed)."""
        searcher = self._current()
        try:
            self._caches_for(self._generation)
            known = self._doc_freqs
            reader = searcher.reader()
            doc_freq = {}
            for t in terms:
                df = known.get(t)
                if df is None:
                    df = known[t] = int(reader.doc_frequency(FIELD, t))
                doc_freq[t] = df
            return CorpusStats(n_docs=int(searcher.doc_count()),
                               avg_length=float(searcher.avg_field_length(FIELD, 1.0) or 1.0),
                               doc_freq=doc_freq, field_length=_stored_length)
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc

    def search(self, units: Sequence[QueryUnit], filters: Filters, limit: int, match_all: bool,
               exclude: Collection[str] = ()) -> Hits:
        if not units:
            return Hits([], 0)
        searcher = self._current()
        try:
            with self._search_lock:
                searcher = self._check_files(searcher)
                allowed = self._allowed(searcher, filters)
                if exclude:
                    allowed = allowed - self._docnums_of(searcher, exclude)
                if not allowed:
                    return Hits([], 0)
                top, total, bounded = self._ranker.search(searcher, units, allowed, limit, match_all,
                                                          self._generation)
                ranked = [(self._key_of(searcher, docnum), score) for docnum, score in top]
            return Hits(ranked, total, bounded)
        except (NameError, AssertionError):
            raise  # a bug of ours, not damage: a rebuild would not fix it and would run on every search
        except Exception as exc:
            raise IndexCorrupt(f"{type(exc).__name__}: {exc}") from exc

    def _caches_for(self, generation: int) -> None:
        if self._cache_generation != generation:
            self._filter_parts.clear()
            self._docnums.clear()
            self._keys.clear()
            self._doc_freqs.clear()
            self._cache_generation = generation

    def _key_of(self, searcher: Any, docnum: int) -> str:
        """A hit's key; learnt from the installed searcher once per commit (each lookup decompresses and
        unpickles the document's stored fields)."""
        if searcher is not self._searcher:
            return str(searcher.stored_fields(docnum)["key"])
        self._caches_for(self._generation)
        key = self._keys.get(docnum)
        if key is None:
            key = self._keys[docnum] = str(searcher.stored_fields(docnum)["key"])
        return key

    def _docnums_of(self, searcher: Any, keys: Collection[str]) -> set[int]:
        self._caches_for(self._generation)
        found: set[int] = set()
        leaves: list[tuple[Any, int, dict[str, int | None]]] | None = None
        for key in keys:
            if key not in self._docnums:
                if leaves is None:
                    leaves = self._key_leaves(searcher)
                self._docnums[key] = _live_docnum(leaves, key) if leaves else searcher.document_number(key=key)
            docnum = self._docnums[key]
            if docnum is not None:
                found.add(docnum)
        return found

    def _key_leaves(self, searcher: Any) -> list[tuple[Any, int, dict[str, int | None]]]:
        """Each segment's reader, document offset and {key: local docnum} learnt so far (empty when a
        reader is not a segment's: ``document_number`` then).

        A segment never gains documents and its deletions only grow, so what a key's lookup found in
        it stays true but for a deletion, checked on every use: after a commit only the new segments
        are looked into, not every segment again (``Searcher.document_number`` asks each in turn, ~0.3 ms
        a key; 3.5% of the event loop under the mixed load, where updated notes wait in the overlay).
        """
        leaves = []
        live = set()
        for sub, offset in searcher.leaf_searchers():
            reader = sub.reader()
            segment = reader.segment() if hasattr(reader, "segment") else None
            if segment is None:
                return []
            seg_id = segment.segment_id()
            live.add(seg_id)
            leaves.append((reader, offset, self._segment_keys.setdefault(seg_id, {})))
        for seg_id in [k for k in self._segment_keys if k not in live]:
            del self._segment_keys[seg_id]
        return leaves

    def _allowed(self, searcher: Any, filters: Filters) -> set[int]:
        """Live document numbers that pass the filters.

        Each part (kind, one type, one tag, a date range) is a set cached until the
        next commit; combining them is set arithmetic in C. Whoosh needs ~20 ms at
        10k notes to evaluate one such filter query.
        """
        # The cached set itself, not a copy (100k members at 100k notes): the steps below make new
        # sets (never ``&=``: that would change the cache), and neither caller nor ranker changes it.
        docs = self._filter_part(searcher, ("kind", filters.kind), Q.Term("kind", filters.kind))
        if filters.types:
            docs = docs & set().union(*(self._filter_part(searcher, ("type", t), Q.Term("type", t))
                                        for t in filters.types))
        for tag in filters.tags or ():
            docs = docs & self._filter_part(searcher, ("tag", tag), Q.Term("tags", tag))
        if filters.updated_after is not None or filters.updated_before is not None:
            span = (filters.updated_after, filters.updated_before)
            docs = docs & self._filter_part(searcher, ("updated", span), Q.NumericRange("updated", *span))
        return docs

    def _filter_part(self, searcher: Any, name: tuple[Any, ...], query: Any) -> set[int]:
        self._caches_for(self._generation)
        docs = self._filter_parts.get(name)
        if docs is None:
            if isinstance(query, Q.Term) and name[0] in ("kind", "type"):
                docs = _term_docs(searcher, query.fieldname, query.text)
            else:
                reader = searcher.reader()
                docs = set(searcher.docs_for_query(query))
                if reader.has_deletions():
                    docs = {d for d in docs if not reader.is_deleted(d)}
            # Bounded by members too: each is ~86 bytes, and every distinct date span a client sends is
            # a new part of up to every note (64 spans at 100k notes were ~0.5 GB).
            self._filter_parts[name] = docs
            evict_oldest(self._filter_parts, len, FILTER_PART_MEMBERS, FILTER_PARTS)
        return docs

    # -- writing -------------------------------------------------------------
    def write(self, puts: Sequence[IndexEntry], deletes: Sequence[str]) -> None:
        """Apply puts and deletes in one commit (visible to searches after ``refresh``)."""
        if not puts and not deletes:
            return
        if self._ix is None:
            raise IndexCorrupt("index is not open")
        try:
            writer = self._ix.writer(timeout=5.0)
            try:
                for key in deletes:
                    writer.delete_by_term("key", key)
                if self._merge_next:  # a merge reads old segments through the writer's posting pool
                    for entry in puts:
                        writer.update_document(**_doc(entry))
                else:
                    # The same segment files for a fraction of the CPU (``segment_writer``): a background
                    # commit holds the GIL for less, so the searches and writes around it wait less.
                    for entry in puts:
                        writer.delete_by_term("key", entry.key)
                    adder = FastAdder(writer)
                    for entry in puts:
                        doc = _doc(entry)
                        analysis = analysis_of(entry)  # analysed once, when it was written
                        if analysis is not None:
                            doc[TEXT_POSITIONS] = analysis.terms
                        adder.add(doc)
            except BaseException:
                writer.cancel()
                raise
            # A merge per commit costs ~70 ms at 10k notes; small segments are
            # merged only once enough of them have piled up.
            writer.commit(merge=self._merge_next)
            self._merge_next = len(self._ix._segments()) > MAX_SEGMENTS
        except whoosh_index.LockError as exc:
            # Another process is committing to this index: that is no damage, and a rebuild would
            # delete the folder under it. The writes stay pending and the next batch retries.
            raise StorageError(f"the search index is busy (another process holds its write lock: {exc}); "
                               "the files are saved and the index catches up on the next commit") from exc
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


def _term_docs(searcher: Any, field: str, text: str) -> set[int]:
    """Live documents whose ``field`` (a one-value ID field) is ``text``, read block by block.

    When the value is most of the index (``kind`` is "note" for nearly every document), it is every
    live document minus those with another value: the small posting lists are read, not the big one.
    """
    docs: set[int] = set()
    for sub, offset in searcher.leaf_searchers():
        reader = sub.reader()
        count = reader.doc_count_all()
        if reader.doc_frequency(field, text) * 2 > count:
            seg = set(range(count))
            for other in reader.lexicon(field):
                other_text = other.decode("utf-8") if isinstance(other, bytes) else other
                if other_text != text:
                    seg.difference_update(read_ids(reader.postings(field, other_text)))
        else:
            seg = set(read_ids(reader.postings(field, text))) if (field, text) in reader else set()
        if reader.has_deletions():
            perdoc: Any = getattr(reader, "_perdoc", None)  # Whoosh 3 keeps the deleted set there
            deleted = perdoc.deleted_docs() if hasattr(perdoc, "deleted_docs") else filter(reader.is_deleted,
                                                                                         range(count))
            seg.difference_update(deleted)
        docs.update(map(offset.__add__, seg) if offset else seg)
    return docs


def _storage(folder: Path) -> FileStorage:
    """The index's file storage, without mmap: a segment file truncated under a mapped reader (someone
    damaging ``.index/`` while the server runs) would kill the process with SIGBUS; plain reads fail with
    an exception instead, which ends in a recovery."""
    return FileStorage(str(folder), supports_mmap=False)


def _read_build_id(folder: Path) -> str:
    try:
        return (folder / BUILD_ID_FILE).read_text(encoding="ascii").strip()
    except OSError:
        return ""


def _stored_length(length: int) -> float:
    """A field length as Whoosh stores it (one byte, rounded), so uncommitted documents score alike."""
    return float(byte_to_length(length_to_byte(length)))


def _release_memory() -> None:
    """Give the memory a build used back to the system (glibc keeps freed arenas otherwise)."""
    gc.collect()
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _doc(entry: IndexEntry) -> dict[str, Any]:
    return {
        "key": entry.key,
        "kind": entry.kind,
        "type": entry.type,
        "tags": ",".join(entry.tags),
        "updated": float(entry.updated),
        "text": indexed_text(entry),
    }


def _live_docnum(leaves: list[tuple[Any, int, dict[str, int | None]]], key: str) -> int | None:
    """The docnum of ``key``'s live document, the first segment first (as ``Searcher.document_number``)."""
    for reader, offset, known in leaves:
        if key in known:
            local = known[key]
        else:
            try:
                local = known[key] = reader.first_id("key", key)  # the live document, deleted ones skipped
            except (KeyError, TermNotFound):
                local = known[key] = None
        if local is None:
            continue
        if local in reader.deleted_docs_set:  # deleted since it was learnt: never live again
            known[key] = None
            continue
        return int(offset + local)
    return None
