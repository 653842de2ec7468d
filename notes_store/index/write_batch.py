"""Writes the search engine has not committed yet: searchable at once, committed in the background.

A store writes its file durably first, then hands the new entry to ``WriteBatch.put``, which analyses
its text once (``Analysis``). From that moment every search sees it: the entry sits in a small in-memory
overlay, scored with BM25 beside the committed index (and the committed copy of the same key is skipped);
a search only looks its query terms up in each write's analysis, and the commit indexes that same analysis. A committer thread folds
the overlay into the engine in batches, so readers never wait for an engine commit and a stream of
writes costs a commit every ``max_wait`` seconds, not one each: a commit has a fixed cost (~12 ms of
CPU here, on the server's GIL) and every new searcher empties the engine's decoded-postings caches.
A batch is committed once writes pause for ``delay`` seconds, its oldest write is ``max_wait``
seconds old, or it holds ``max_docs`` writes or ``max_bytes`` of text.

Memory is bounded on both sides of the commit. The engine holds a commit's postings in memory, so a commit
takes at most ``chunk_bytes`` of text (oldest writes first; the rest follows at once). The overlay holds
each write's analysis (about 25 MB per MiB of never-seen words), so when its text passes ``max_backlog``
writers wait for the committer (``wait_for_room``) instead of the overlay growing with the client's pace:
before these bounds, 150 memories of 1 MiB of distinct words took the process to 15.8 GB.

Nothing acknowledged depends on the overlay: the files are already on disk, and a restart
indexes whatever the engine missed.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..analysis.analyzer import QueryUnit, index_positions
from ..analysis.bm25 import idf, tf_part
from .backend import CorpusStats, Filters, IndexEntry, indexed_text

log = logging.getLogger("ctxnotes.writes")


class Analysis:
    """A written entry's indexed text analysed: term -> positions (as the index stores them), and its length.

    Made once per write, when the write is registered (``WriteBatch.put``, in the writer's call: the cost
    is that of its own text), and used by every search of the overlay and by the engine's commit
    (``analysis_of``). Before, each search analysed every uncommitted write it had not analysed yet and the
    commit analysed them all again: after 100 writes of 1 MiB the first search ran ~13 s of analysis
    (34 s beside the committer), bounded by nothing but the backlog.

    ``index_positions`` is the analyzer's index mode without a token object per word (the same
    output: ``tests/test_analysis_positions.py``).
    """

    __slots__ = ("entry", "terms", "length", "__weakref__")

    def __init__(self, entry: IndexEntry) -> None:
        self.entry = entry
        self.terms: dict[str, list[int]] = index_positions(indexed_text(entry))
        self.length = sum(map(len, self.terms.values()))  # tokens in the indexed text


# The analyses of writes still in an overlay, by the id of their entry (an analysis holds its entry, so the
# id is not reused while it lives); an entry leaves with the last reference to its ``Pending``.
_ANALYSES: weakref.WeakValueDictionary[int, Analysis] = weakref.WeakValueDictionary()


def analysis_of(entry: IndexEntry) -> Analysis | None:
    """The analysis ``put`` made of ``entry`` (this very object), if its write is still uncommitted."""
    found = _ANALYSES.get(id(entry))
    return found if found is not None and found.entry is entry else None


# Large texts are analysed one at a time: each analysis is pure Python (~0.15 s per MiB), so writers analysing
# side by side finish no sooner, and every one of them is another thread the searches share the GIL with.
LARGE_TEXT = 64 << 10
_LARGE = threading.Lock()


def analyse(entry: IndexEntry) -> Analysis:
    """``entry``'s analysis: the one already made, else made now and kept for the commit (``analysis_of``)."""
    found = analysis_of(entry)
    if found is None:
        with _LARGE if len(entry.text) + len(entry.title) >= LARGE_TEXT else contextlib.nullcontext():
            found = _ANALYSES[id(entry)] = Analysis(entry)
    return found


_NO_TERMS: dict[str, list[int]] = {}


@dataclass
class Pending:
    """One uncommitted write: an entry (None for a delete) and its analysis (made by ``WriteBatch.put``)."""

    entry: IndexEntry | None
    seq: int
    analysis: Analysis | None = None

    @property
    def terms(self) -> dict[str, list[int]]:
        return self.analysis.terms if self.analysis is not None else _NO_TERMS

    @property
    def length(self) -> int:
        """Tokens in the indexed text."""
        return self.analysis.length if self.analysis is not None else 0

    @property
    def size(self) -> int:
        """Characters of indexed text, for the overlay's memory bound."""
        return 0 if self.entry is None else len(self.entry.text) + len(self.entry.title)


def _has_phrase(terms: dict[str, list[int]], phrase: Sequence[str]) -> bool:
    starts = set(terms.get(phrase[0], ()))
    for i, term in enumerate(phrase[1:], 1):
        starts &= {p - i for p in terms.get(term, ())}
        if not starts:
            return False
    return bool(starts)


def search_overlay(pending: dict[str, Pending], units: Sequence[QueryUnit], filters: Filters,
                   match_all: bool, stats: Callable[[Iterable[str]], CorpusStats]) -> list[tuple[str, float]]:
    """Every uncommitted entry that matches, with its BM25 score against the committed corpus' statistics."""
    query_terms = list(dict.fromkeys(t for u in units for t in u.terms))
    wanted = set(query_terms)
    # Every unit's terms present is every query term present (a set test in C per entry); phrases of
    # two or more terms also need their order. Filters last: few entries hold the terms.
    phrases = [u.terms for u in units if u.is_phrase] if match_all else []
    matches: list[tuple[str, Pending]] = []
    for key, item in pending.items():
        entry = item.entry
        if entry is None:
            continue
        terms = item.terms
        if match_all:
            if not wanted <= terms.keys() or (phrases and not all(_has_phrase(terms, p) for p in phrases)):
                continue
        elif terms.keys().isdisjoint(wanted):
            continue
        if filters.accepts(entry):
            matches.append((key, item))
    if not matches:
        return []
    # Statistics as if the uncommitted documents were committed, so that their scores match
    # what they will score once the background commit folds them in.
    corpus = stats(query_terms)
    puts = [item for item in pending.values() if item.entry is not None]
    n_docs = corpus.n_docs + len(puts)
    avg_length = (corpus.avg_length * corpus.n_docs + sum(p.length for p in puts)) / max(n_docs, 1)
    weights = {t: idf(n_docs, corpus.doc_freq.get(t, 0) + sum(1 for p in puts if t in p.terms))
               for t in query_terms}
    scored = []
    for key, item in matches:
        length = corpus.field_length(item.length)
        score = sum(weights[t] * tf_part(len(item.terms[t]), length, avg_length)
                    for t in query_terms if t in item.terms)
        scored.append((key, score))
    return scored


class WriteBatch:
    """Uncommitted writes by key, and the thread that commits them (``commit`` does the work)."""

    def __init__(self, commit: Callable[[], None], delay: float = 0.25, max_docs: int = 256,
                 max_wait: float | None = None, max_bytes: int = 16 << 20, chunk_bytes: int = 4 << 20,
                 max_backlog: int = 16 << 20) -> None:
        self.delay = delay
        self.max_wait = max_wait if max_wait is not None else 8 * delay
        self.max_docs = max_docs
        self.max_bytes = max_bytes
        self.chunk_bytes = chunk_bytes  # text per engine commit (its in-memory postings)
        self.max_backlog = max_backlog  # uncommitted text beyond which writers wait (``wait_for_room``)
        self._commit = commit
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # notified when commits shrink the overlay
        self._cut = False  # the last ``take`` left older writes for the next commit
        self._pending: dict[str, Pending] = {}
        self._bytes = 0  # indexed text held by ``_pending`` (approximate: rewrites count twice until ``done``)
        self._lazy: dict[str, IndexEntry] = {}  # no indexed text changed: committed with the next batch
        self._seq = 0
        self._wake = threading.Event()
        self._full = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- what writers call ----------------------------------------------------------
    def put(self, entry: IndexEntry, lazy: bool = False) -> None:
        """Register a written entry (``lazy``: bookkeeping that changes no indexed text).

        A real write is analysed here, once, before it is visible (``Analysis``): searches of the overlay
        only look its terms up, and the commit reuses the analysis."""
        if lazy:
            with self._lock:
                if entry.key not in self._pending:
                    self._lazy[entry.key] = entry
                    return
        analysis = analyse(entry)  # not under the batch's lock: searches take their snapshot meanwhile
        with self._lock:
            self._lazy.pop(entry.key, None)
            self._seq += 1
            item = Pending(entry, self._seq, analysis)
            self._pending[entry.key] = item
            self._bytes += item.size
            due = len(self._pending) >= self.max_docs or self._bytes >= self.max_bytes
        self._wake.set()
        if due:
            self._full.set()

    def delete(self, key: str) -> None:
        with self._lock:
            self._lazy.pop(key, None)
            self._seq += 1
            self._pending[key] = Pending(None, self._seq)
        self._wake.set()

    def clear(self) -> None:
        """Forget everything (a rebuild read every file again)."""
        with self._lock:
            self._pending.clear()
            self._lazy.clear()
            self._bytes = 0
            self._room.notify_all()

    def over_backlog(self) -> bool:
        """More uncommitted text than ``max_backlog``: the next writer should ``wait_for_room``."""
        return self._bytes > self.max_backlog

    def wait_for_room(self, timeout: float) -> bool:
        """Wait until the uncommitted text is back within ``max_backlog``; False if ``timeout`` passed first.

        Writers call it before they take the workspace's locks (searches never wait here): a client that
        writes faster than the engine commits is slowed to the commit's pace."""
        deadline = time.monotonic() + timeout
        with self._room:
            while self._bytes > self.max_backlog:
                self._full.set()  # commit now: no point gathering a bigger batch
                self._wake.set()
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._room.wait(min(left, 1.0))
        return True

    def holds_writes_up_to(self, seq: int) -> bool:
        """Some write registered at or before ``seq`` (see ``seq``) is still uncommitted."""
        with self._lock:
            return any(item.seq <= seq for item in self._pending.values())

    @property
    def seq(self) -> int:
        """The sequence number of the latest registered write."""
        return self._seq

    # -- what searches call ----------------------------------------------------------
    def snapshot(self) -> dict[str, Pending]:
        """The uncommitted writes now (take it before the engine's searcher: see ``done``)."""
        with self._lock:
            return dict(self._pending)

    def __len__(self) -> int:
        return len(self._pending)

    @property
    def has_lazy(self) -> bool:
        return bool(self._lazy)

    # -- what the committer calls --------------------------------------------------------
    def take(self, include_lazy: bool = True) -> tuple[dict[str, Pending], dict[str, IndexEntry]]:
        """What to commit now: the oldest writes, up to ``chunk_bytes`` of text (at least one; a burst of
        small writes stays one commit), and the lazy entries. They stay in the overlay until ``done``."""
        with self._lock:
            chunk: dict[str, Pending] = {}
            size = 0
            for key, item in sorted(self._pending.items(), key=lambda kv: kv[1].seq):
                if chunk and size + item.size > self.chunk_bytes:
                    break
                chunk[key] = item
                size += item.size
            self._cut = len(chunk) < len(self._pending)
            lazy = dict(self._lazy) if include_lazy or self._pending else {}
            if lazy:
                self._lazy.clear()
            return chunk, lazy

    def done(self, committed: dict[str, Pending]) -> None:
        """Drop committed writes from the overlay, unless rewritten meanwhile.

        Called after the engine's new searcher is in place: a search that took its overlay
        snapshot before this sees the entry twice at worst, and skips the committed copy.
        """
        with self._lock:
            for key, item in committed.items():
                if self._pending.get(key) is item:
                    del self._pending[key]
            self._bytes = sum(item.size for item in self._pending.values())
            self._room.notify_all()

    def restore_lazy(self, lazy: dict[str, IndexEntry]) -> None:
        """Put back lazy entries a failed commit did not apply (newer writes win)."""
        with self._lock:
            for key, entry in lazy.items():
                if key not in self._pending:
                    self._lazy.setdefault(key, entry)

    # -- the committer thread -------------------------------------------------------------
    def start(self) -> None:
        """Commit in a background thread from now on."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=_committer, args=(weakref.ref(self),),
                                        name="ctxnotes-commit", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._full.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None



def _gather(batch: WriteBatch) -> None:
    """Wait while writes keep coming: until a ``delay`` passes without one, the batch is ``max_wait``
    seconds old, or it is full (``_full``: size bound reached, a flush or close)."""
    started = time.monotonic()
    seen = batch._seq
    while True:
        left = batch.max_wait - (time.monotonic() - started)
        if left <= 0 or batch._full.wait(min(batch.delay, left)):
            return
        if batch._seq == seen:  # a quiet ``delay``: the burst is over
            return
        seen = batch._seq


def _committer(ref: weakref.ReferenceType[WriteBatch]) -> None:
    """Wait for writes, let the batch gather (``_gather``), commit it."""
    while True:
        batch = ref()
        if batch is None:
            return
        wake, stop = batch._wake, batch._stop
        del batch  # hold no reference while idle: a dropped workspace can be collected
        if not stop.is_set():  # stop() may have come while the last batch was committing
            wake.wait(timeout=5.0)
        if stop.is_set():
            return
        batch = ref()
        if batch is None:
            return
        if not wake.is_set() or not batch._pending:
            wake.clear()
            continue
        _gather(batch)
        wake.clear()
        batch._full.clear()
        try:
            batch._commit()
        except Exception:  # the writes are safe in their files; the next batch or a restart retries
            log.exception("background index commit failed")
            stop.wait(1.0)
            wake.set()
        else:
            if batch._cut:  # older writes wait for the next chunk: commit it without gathering
                batch._full.set()
                wake.set()
        del batch
