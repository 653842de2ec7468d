"""BM25 ranking over the index's postings, decoded once and kept in memory.

Whoosh's own matchers are pure Python and re-decode posting blocks for every
query (~20 ms for a three-word query at 10k notes). Here each (segment, term)
posting list is decoded once into compact arrays with its BM25 term-frequency
part precomputed; a query then only adds numbers. Segments never change after
they are written (deletions are handled by the caller's ``allowed`` set), so
the cache stays valid until Whoosh merges a segment away.
"""

from __future__ import annotations

import contextlib
import heapq
import math
from array import array
from bisect import bisect_left
from itertools import chain
from operator import add, itemgetter, neg, truediv
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any


from whoosh.codec.whoosh3 import LENGTHS_COLUMN
from whoosh.util.numeric import byte_to_length, length_to_byte

from ..analysis.analyzer import QueryUnit
from ..analysis.bm25 import B, K1
from .postings_file import PostingsFile, open_postings, postings_path

__all__ = ["B", "K1", "FIELD", "Ranker", "read_ids"]

FIELD = "text"
MAX_ABSENT = 100_000  # terms remembered as absent from one segment; past it the memory starts again


class _SegmentPostings:
    """Decoded postings of one segment, least recently used terms evicted first."""

    def __init__(self, reader: Any, avgdl: float, side: PostingsFile | None = None) -> None:
        self.reader = reader
        self.avgdl = avgdl
        self.side = side  # the segment's long lists as raw arrays, when its build wrote them
        doc_count = reader.doc_count_all()
        # One norm per stored length byte (256 values), then a table lookup per document in C:
        # a 100k-document segment is ready in milliseconds instead of a second of method calls.
        table = [K1 * (1 - B + B * (byte_to_length(b) if b else 0) / avgdl) for b in range(256)]
        self.norms = array("f", map(table.__getitem__, _length_bytes(reader, doc_count)))
        self.doc_count = doc_count
        self.terms: OrderedDict[str, tuple[array[int], array[float], float]] = OrderedDict()
        self.size = 0
        # A segment never changes its terms: one it lacks is looked up in its term table once (each
        # lookup hashes the term and reads the table; with the small segments that background commits
        # add, most query terms are absent from most segments: 4% of the event loop under the mixed load).
        self.absent: set[str] = set()

    def postings(self, term: str) -> tuple[array[int], array[float], float] | None:
        """(doc ids, BM25 tf parts, the largest part) of a term in this segment, None if absent."""
        cached = self.terms.get(term)
        if cached is not None:
            self.terms.move_to_end(term)
            return cached
        if term in self.absent:
            return None
        raw = self.side.get(term) if self.side is not None else None
        if raw is not None:
            ids, parts = raw[0], _parts(raw[0], raw[1], self.norms)
        elif (FIELD, term) not in self.reader:
            if len(self.absent) >= MAX_ABSENT:
                self.absent.clear()
            self.absent.add(term)
            return None
        else:
            ids, parts = _decode(self.reader.postings(FIELD, term), self.norms)
        entry = (ids, parts, max(parts) if parts else 0.0)
        self.terms[term] = entry
        self.size += len(ids)
        return entry

    def evict(self, budget: int) -> None:
        while self.size > budget and self.terms:
            _term, (ids, _parts, _top) = self.terms.popitem(last=False)
            self.size -= len(ids)


def _length_bytes(reader: Any, doc_count: int) -> bytes:
    """The field's stored length byte of every document of a segment, read in one go when the codec
    allows (Whoosh 3's fixed-width length column), else one call per document."""
    with contextlib.suppress(Exception):
        column = reader._perdoc._cached_reader(f"_{FIELD}_len", LENGTHS_COLUMN)
        if column is None:
            return bytes(doc_count)
        raw = bytes(column._dbfile.get(column._basepos, min(column._count, doc_count)))
        return raw + bytes(doc_count - len(raw))
    return bytes(length_to_byte(reader.doc_field_length(d, FIELD, 0)) for d in range(doc_count))


def read_ids(matcher: Any) -> array[int]:
    """The document numbers of a posting list, a block at a time where the codec allows."""
    return _read(matcher, weights=False)[0]


def _read(matcher: Any, weights: bool = True) -> tuple[array[int], array[float]]:
    ids = array("i")
    tfs = array("f")
    block_reader = all(hasattr(matcher, a) for a in ("_read_ids", "_read_weights", "_next_block", "_ids"))
    while matcher.is_active():
        if block_reader:  # whoosh3 codec: take a whole block at a time
            matcher._read_ids()
            ids.extend(matcher._ids)
            if weights:
                matcher._read_weights()
                tfs.extend(matcher._weights)
            matcher._next_block()
        else:
            ids.append(matcher.id())
            if weights:
                tfs.append(matcher.weight())
            matcher.next()
    return ids, tfs


def _decode(matcher: Any, norms: array[float]) -> tuple[array[int], array[float]]:
    """Read a posting list into (doc ids, BM25 tf parts)."""
    ids, tfs = _read(matcher)
    return ids, _parts(ids, tfs, norms)


def _parts(ids: array[int], tfs: array[float], norms: array[float]) -> array[float]:
    """BM25's tf part, tf * (K1 + 1) / (tf + norm[d]), element by element in C."""
    return array("f", map(truediv, map((K1 + 1).__mul__, tfs), map(add, tfs, map(norms.__getitem__, ids))))


class _PhraseChecker:
    """Whether a document holds each phrase with its words in order, from the positions in the postings."""

    def __init__(self, searcher: Any, phrases: list[tuple[str, ...]]) -> None:
        self._searcher = searcher
        self._phrases = phrases
        self._matchers: dict[str, Any] = {}

    def _positions(self, term: str, doc: int) -> list[int]:
        matcher = self._matchers.get(term)
        if matcher is None or not matcher.is_active() or matcher.id() > doc:  # candidates come best first
            matcher = self._matchers[term] = self._searcher.reader().postings(FIELD, term)
        if matcher.is_active() and matcher.id() < doc:
            matcher.skip_to(doc)
        if matcher.is_active() and matcher.id() == doc:
            return list(matcher.value_as("positions"))
        return []

    def matches(self, doc: int) -> bool:
        for phrase in self._phrases:
            starts = set(self._positions(phrase[0], doc))
            for offset, term in enumerate(phrase[1:], 1):
                starts &= {p - offset for p in self._positions(term, doc)}
                if not starts:
                    return False
        return True


class Ranker:
    """Scores queries against a Whoosh searcher with cached postings.

    Totals are exact (set operations in C); ranking prunes with MaxScore: once
    the k-th best score so far beats what the remaining low-idf words could
    add, those words only update documents already seen.
    """

    def __init__(self, max_postings: int = 3_000_000, count_bound: int = 1000,
                 dict_postings: int = 700_000, folder: Path | None = None) -> None:
        self.folder = folder  # where segments' postings files (``postings_file``) may be
        self.max_postings = max_postings
        self.count_bound = count_bound  # phrase matches counted exactly up to this many
        self._segments: dict[str, _SegmentPostings] = {}
        self._generation: object = None
        # Decoded postings live twice: per segment as compact arrays (8 bytes a posting, up to
        # ``max_postings``), and per term as a {docnum: part} dict for the set and map work of a
        # query (~90 bytes a posting: ints and floats are objects), up to ``dict_postings``,
        # least recently used first out. A dict is remade from the arrays in C when needed again.
        # 700k (~60 MB) measured at 100k notes over MCP: search p95 33 -> 24 ms against 400k, server
        # peak 351 MB after searches and build_context; 1M gave the same p95 at 394 MB.
        self.dict_postings = dict_postings
        self._terms: OrderedDict[str, tuple[dict[int, float], float]] = OrderedDict()
        self._terms_size = 0
        # term -> (a prefix of its (docnum, tf part), highest part first; whether that is all of them)
        self._by_score: dict[str, tuple[list[tuple[int, float]], bool]] = {}
        self._by_score_size = 0

    def _leaves(self, searcher: Any) -> list[tuple[_SegmentPostings, int]]:
        avgdl = searcher.avg_field_length(FIELD, 1.0) or 1.0
        leaves = []
        live = set()
        for sub, offset in searcher.leaf_searchers():
            reader = sub.reader()
            segment = reader.segment() if hasattr(reader, "segment") else None
            seg_id = segment.segment_id() if segment is not None else str(id(reader))
            live.add(seg_id)
            seg = self._segments.get(seg_id)
            # Length normalisation uses the collection's average length; redo
            # the (cheap) per-segment work when it has drifted noticeably.
            if seg is None or abs(seg.avgdl - avgdl) > 0.05 * avgdl:
                side = seg.side if seg is not None else (
                    open_postings(postings_path(self.folder, seg_id)) if self.folder else None)
                seg = self._segments[seg_id] = _SegmentPostings(reader, avgdl, side)
            else:
                seg.reader = reader
            leaves.append((seg, offset))
        for seg_id in [s for s in self._segments if s not in live]:
            del self._segments[seg_id]
        return leaves

    def _term(self, term: str, leaves: list[tuple[_SegmentPostings, int]]) -> tuple[dict[int, float], float]:
        """{global docnum: BM25 tf part} and its maximum, for one term."""
        cached = self._terms.get(term)
        if cached is not None:
            self._terms.move_to_end(term)
            return cached
        docs: dict[int, float] = {}
        top = 0.0
        for ids, parts, seg_top, off, _end in self._lists(term, leaves):
            docs.update(zip(map(off.__add__, ids) if off else ids, parts))
            top = max(top, seg_top)
        entry = (docs, top)
        if not docs:  # a term in no note is not kept: the segments' ``absent`` sets answer it again cheaply
            return entry
        self._terms[term] = entry
        self._terms_size += len(docs)
        while self._terms_size > self.dict_postings and len(self._terms) > 1:
            _old, (old_docs, _top) = self._terms.popitem(last=False)
            self._terms_size -= len(old_docs)
        return entry

    @staticmethod
    def _lists(term: str, leaves: list[tuple[_SegmentPostings, int]]) -> list[_List]:
        """The term's posting arrays per segment: (ids, parts, top part, offset, end of the segment)."""
        lists = []
        for seg, off in leaves:
            found = seg.postings(term)
            if found is not None:
                lists.append((found[0], found[1], found[2], off, off + seg.doc_count))
        return lists

    def _stats(self, term: str, leaves: list[tuple[_SegmentPostings, int]]) -> tuple[int, float]:
        """(document frequency, largest tf part) of a term, from its arrays: no dict is built."""
        cached = self._terms.get(term)
        if cached is not None:
            return len(cached[0]), cached[1]
        lists = self._lists(term, leaves)
        return sum(len(ids) for ids, *_rest in lists), max((top for _i, _p, top, _o, _e in lists), default=0.0)

    def _parts_of(self, term: str, leaves: list[tuple[_SegmentPostings, int]], docs: Collection[int],
                  df: int) -> Mapping[int, float]:
        """{docnum: tf part} holding at least every one of ``docs`` that has the term.

        A few candidates against a long list are looked up by bisection in its arrays (~0.5 us a
        candidate) rather than by building the whole list's dict (~0.2 us a posting): a common
        word's 50k postings are not turned into objects for a thousand candidates.
        """
        cached = self._terms.get(term)
        if cached is not None:
            self._terms.move_to_end(term)
            return cached[0]
        if len(docs) * _PROBE_RATIO >= df:
            return self._term(term, leaves)[0]
        return _probe(self._lists(term, leaves), docs)

    def _doc_ids(self, term: str, leaves: list[tuple[_SegmentPostings, int]]) -> Iterable[int]:
        """Every global docnum holding the term (each once)."""
        cached = self._terms.get(term)
        if cached is not None:
            return cached[0].keys()
        return chain.from_iterable(map(off.__add__, ids) if off else ids
                                   for ids, _p, _t, off, _e in self._lists(term, leaves))

    def _best_first(self, term: str, leaves: list[tuple[_SegmentPostings, int]], allowed: set[int],
                    limit: int, df: int) -> list[tuple[int, float]]:
        """The term's first ``limit`` allowed (docnum, tf part), highest part first, lower docnum on ties.

        ``heapq.nlargest`` over the arrays finds a prefix of that order in C (~6 ms at 50k postings
        against ~30 ms for sorting all of them with a key function); the prefix is cached per commit
        and widened only when too few of it are allowed.
        """
        order, complete = self._by_score.get(term, ([], False))
        while True:
            best: list[tuple[int, float]] = []
            for d, part in order:
                if d in allowed:
                    best.append((d, part))
                    if len(best) == limit:
                        return best
            if complete:
                return best
            want = max(4 * len(order), 4 * limit, 64)
            lists = self._lists(term, leaves)
            top = heapq.nlargest(want, chain.from_iterable(zip(parts, map((-off).__sub__, ids))
                                                           for ids, parts, _t, off, _e in lists))
            order, complete = [(-negdoc, part) for part, negdoc in top], want >= df
            if 0 < len(order) <= _BEST_CACHED:  # a term in no note is not kept (any query word would be)
                self._keep_best(term, order, complete)

    def _keep_best(self, term: str, order: list[tuple[int, float]], complete: bool) -> None:
        """Keep a term's best-first prefix, the oldest prefixes going first beyond _BEST_CACHED_TOTAL
        postings in all (each query word adds one: the count of words is the client's)."""
        old = self._by_score.pop(term, None)
        if old is not None:
            self._by_score_size -= len(old[0])
        self._by_score[term] = (order, complete)
        self._by_score_size += len(order)
        while self._by_score_size > _BEST_CACHED_TOTAL and len(self._by_score) > 1:
            gone = self._by_score.pop(next(iter(self._by_score)))
            self._by_score_size -= len(gone[0])

    def search(self, searcher: Any, units: Sequence[QueryUnit], allowed: set[int], limit: int,
               match_all: bool, generation: object = None) -> tuple[list[tuple[int, float]], int, bool]:
        """Top ``limit`` (docnum, score) among ``allowed`` docs, how many matched, and whether that
        count is a lower bound."""
        leaves = self._leaves(searcher)
        if generation != self._generation:
            self._generation, self._terms, self._terms_size = generation, OrderedDict(), 0
            self._by_score, self._by_score_size = {}, 0
        budget = self.max_postings // max(len(self._segments), 1)
        for seg in self._segments.values():
            if seg.size > budget:
                seg.evict(budget)
        n_docs = max(searcher.doc_count(), 1)
        if match_all and len(units) == 1 and len(set(units[0].terms)) == 1:
            # One word: its top ``limit`` allowed documents, best first, without scoring every match.
            term, df, idf, _ub = self._weighted(units[0].terms[0], leaves, n_docs)
            best = [(d, idf * part) for d, part in self._best_first(term, leaves, allowed, limit, df)]
            return best, len(allowed.intersection(self._doc_ids(term, leaves))), False
        terms = [self._weighted(t, leaves, n_docs) for t in dict.fromkeys(t for u in units for t in u.terms)]
        if match_all:
            return self._search_all(searcher, units, terms, leaves, allowed, limit)
        terms.sort(key=lambda t: -t[3])
        return self._search_any(terms, leaves, allowed, limit)

    def _weighted(self, term: str, leaves: list[tuple[_SegmentPostings, int]],
                  n_docs: int) -> tuple[str, int, float, float]:
        """(term, document frequency, idf, the most it can add to a score)."""
        df, top = self._stats(term, leaves)
        idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) if df else 0.0
        return term, df, idf, top * idf

    def _search_all(self, searcher: Any, units: Sequence[QueryUnit], all_terms: list[tuple[str, int, float, float]],
                    leaves: list[tuple[_SegmentPostings, int]], allowed: set[int],
                    limit: int) -> tuple[list[tuple[int, float]], int, bool]:
        """``search`` when every term of every unit must be there (``all_terms``: weighted, query order)."""
        # Intersect from the rarest term up, each step in C over the smaller side (no set is built
        # from a common term's postings, and a common term's few candidates are looked up in its
        # arrays: ``_parts_of``).
        by_size = sorted(all_terms, key=lambda t: t[1])
        maps: dict[str, Mapping[int, float]] = {}
        matched = set(self._doc_ids(by_size[0][0], leaves)) if by_size else set()
        for term, df, _idf, _ub in by_size[1:]:
            if not matched:
                break
            docs = maps[term] = self._parts_of(term, leaves, matched, df)
            # set & dict walks the whole dict; filtering the (smaller) set walks only it.
            if len(matched) < len(docs):
                matched = set(filter(docs.__contains__, matched))
            else:
                matched.intersection_update(docs)
        matched.intersection_update(allowed)
        docs_list = list(matched)
        totals = _sum_scores([(maps[t] if t in maps else self._parts_of(t, leaves, docs_list, df), idf, ub)
                              for t, df, idf, ub in all_terms], docs_list)
        phrases = [u.terms for u in units if u.is_phrase]
        if not phrases:
            leaders = heapq.nlargest(limit, zip(totals, map(neg, docs_list)))  # ties: lower docnum first
            return [(-negdoc, score) for score, negdoc in leaders], len(docs_list), False
        scored = [(doc, -negscore) for negscore, doc in sorted(zip(map(neg, totals), docs_list))]
        # Every word is there; phrases also need their words in order. Positions are read only
        # for these candidates, best first, and counting stops at ``count_bound`` matches.
        return self._phrase_matches(searcher, phrases, scored, limit)

    def _search_any(self, terms: list[tuple[str, int, float, float]], leaves: list[tuple[_SegmentPostings, int]],
                    allowed: set[int], limit: int) -> tuple[list[tuple[int, float]], int, bool]:
        """``search`` when any term may match (``terms``: weighted, highest possible contribution first)."""
        scores, pruned_from = self._max_score(terms, leaves, allowed, limit)
        rest = terms[pruned_from:]
        seen = list(scores) if rest else []
        for term, df, idf, _ub in rest:
            docs = self._parts_of(term, leaves, seen, df)
            old = list(scores.keys() & docs.keys())
            scores.update(zip(old, map(add, map(scores.__getitem__, old), map(idf.__mul__, map(docs.__getitem__, old)))))
        total, bounded = len(scores), False
        if rest:
            # Documents holding only the words left out: counted exactly while the count stays
            # under the bound, else the count of those seen is a lower bound.
            if total >= self.count_bound:
                bounded = True
            else:
                unseen = set().union(*(self._doc_ids(t, leaves) for t, _df, _idf, _ub in rest)).difference(scores)
                total += len(unseen & allowed) if unseen else 0
        leaders = heapq.nlargest(limit, zip(scores.values(), map(neg, scores)))  # ties: lower docnum first
        return [(-negdoc, score) for score, negdoc in leaders], total, bounded

    def _max_score(self, terms: list[tuple[str, int, float, float]], leaves: list[tuple[_SegmentPostings, int]],
                   allowed: set[int], limit: int) -> tuple[dict[int, float], int]:
        """The scores of every allowed document the first words hold, and where the words left out start."""
        remaining = [0.0] * (len(terms) + 1)
        for i in range(len(terms) - 1, -1, -1):
            remaining[i] = remaining[i + 1] + terms[i][3]
        # MaxScore, term at a time: words with the highest possible contribution first, every
        # allowed document they hold scored; once the k-th best score beats what the remaining
        # words could add together, no unseen document can reach the top (that stays true: the
        # bound only shrinks, the k-th score only grows), so those words only add to documents
        # already seen, looked up in their arrays when they are few (``_parts_of``). Every step is
        # set and map work in C.
        # The k-th best partial score is a weak bar while documents hold only the first words' parts;
        # the full scores of the best few partial ones (their other words looked up, ``_full_scores``)
        # are a far higher lower bound on the final k-th best, so pruning starts words earlier.
        # Only the decision uses them: ``scores`` is summed word by word in the same order as ever.
        scores: dict[int, float] = {}
        full: dict[int, float] = {}
        for i, (term, _df, idf, _ub) in enumerate(terms):
            if i and len(scores) >= limit:
                best_partial: list[tuple[int, float]] = heapq.nlargest(_PROBED * limit, scores.items(), key=itemgetter(1))
                if best_partial[limit - 1][1] > remaining[i]:
                    return scores, i
                fresh = [doc for doc, _partial in best_partial if doc not in full]
                if fresh:
                    full.update(zip(fresh, self._full_scores(terms, leaves, fresh)))
                if len(full) >= limit and heapq.nlargest(limit, full.values())[-1] * _SAFE > remaining[i]:
                    return scores, i
            docs = self._term(term, leaves)[0]
            hit = docs.keys() & allowed
            old = list(hit & scores.keys()) if scores else []
            new = hit.difference(old) if old else hit
            scores.update(zip(new, map(idf.__mul__, map(docs.__getitem__, new))))
            if old:
                scores.update(zip(old, map(add, map(scores.__getitem__, old),
                                           map(idf.__mul__, map(docs.__getitem__, old)))))
        return scores, len(terms)

    def _full_scores(self, terms: list[tuple[str, int, float, float]], leaves: list[tuple[_SegmentPostings, int]],
                     docs: list[int]) -> list[float]:
        """Each of ``docs``' score over every word of ``terms`` (a few documents: looked up, not scanned)."""
        totals = [0.0] * len(docs)
        for term, df, idf, _ub in terms:
            parts = self._parts_of(term, leaves, docs, df)
            totals = [t + idf * parts[d] if d in parts else t for t, d in zip(totals, docs)]
        return totals

    def _phrase_matches(self, searcher: Any, phrases: list[tuple[str, ...]], scored: list[tuple[int, float]],
                        limit: int) -> tuple[list[tuple[int, float]], int, bool]:
        """The first ``limit`` of ``scored`` (best first) holding every phrase, how many do (counted up
        to ``count_bound``), and whether that count is a lower bound.

        Candidates are checked a slice at a time in docnum order, so each word's postings are walked
        forward once per slice (a block's positions decoded once) instead of being reopened and
        skipped through from the start for every candidate that lies behind the previous one.
        """
        bound = max(self.count_bound, limit)
        checker = _PhraseChecker(searcher, phrases)
        top: list[tuple[int, float]] = []
        total = 0
        start = 0
        while start < len(scored):
            # Enough candidates to reach the bound if most hold the phrases; more while they do not.
            size = max(bound - total + (bound - total) // 4, 64, start)
            chunk = scored[start:start + size]
            hits = {doc for doc in sorted(doc for doc, _score in chunk) if checker.matches(doc)}
            for doc, score in chunk:
                if total >= bound:
                    return top, total, True
                if doc in hits:
                    total += 1
                    if len(top) < limit:
                        top.append((doc, score))
            start += len(chunk)
        return top, total, False


_List = tuple["array[int]", "array[float]", float, int, int]
_PROBED = 2  # documents whose full score MaxScore looks up, per result asked for
_SAFE = 1 - 1e-9  # those sums run in another order than the final ones: keep off exact ties
_PROBE_RATIO = 3  # bisect a list for its candidates when it holds over 3x as many postings
_BEST_CACHED = 4096  # a one-word query's best-first prefix kept per commit up to this length
_BEST_CACHED_TOTAL = 400_000  # and all terms' prefixes together up to this many postings (~40 MB)


def _probe(lists: list[_List], docs: Iterable[int]) -> dict[int, float]:
    """{docnum: tf part} of the ``docs`` found in ``lists`` (sorted per segment), by bisection."""
    found: dict[int, float] = {}
    for ids, parts, _top, off, end in lists:
        n = len(ids)
        for d in docs:
            if off <= d < end:
                local = d - off
                i = bisect_left(ids, local)
                if i < n and ids[i] == local:
                    found[d] = parts[i]
    return found


def _sum_scores(terms: list[tuple[Mapping[int, float], float, float]], docs: list[int]) -> list[float]:
    """Each document's sum of idf * tf part over ``terms`` (every document holds every term)."""
    totals: list[float] | None = None
    for postings, idf, _ub in terms:
        parts = map(idf.__mul__, map(postings.__getitem__, docs))
        totals = list(parts) if totals is None else list(map(add, totals, parts))
    return totals if totals is not None else [0.0] * len(docs)
