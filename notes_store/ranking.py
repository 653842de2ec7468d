"""BM25 ranking over the index's postings, decoded once and kept in memory.

Whoosh's own matchers are pure Python and re-decode posting blocks for every
query (~20 ms for a three-word query at 10k notes). Here each (segment, term)
posting list is decoded once into compact arrays with its BM25 term-frequency
part precomputed; a query then only adds numbers. Segments never change after
they are written (deletions are handled by the caller's ``allowed`` set), so
the cache stays valid until Whoosh merges a segment away.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any


from .analysis import QueryUnit
from .bm25 import B, K1

__all__ = ["B", "K1", "FIELD", "Ranker"]

FIELD = "text"


class _SegmentPostings:
    """Decoded postings of one segment, least recently used terms evicted first."""

    def __init__(self, reader: Any, avgdl: float) -> None:
        self.reader = reader
        self.avgdl = avgdl
        doc_count = reader.doc_count_all()
        self.norms = array("f", (K1 * (1 - B + B * reader.doc_field_length(d, FIELD, 0) / avgdl)
                                 for d in range(doc_count)))
        self.terms: OrderedDict[str, tuple[array[int], array[float]]] = OrderedDict()
        self.size = 0

    def postings(self, term: str) -> tuple[array[int], array[float]] | None:
        cached = self.terms.get(term)
        if cached is not None:
            self.terms.move_to_end(term)
            return cached
        if (FIELD, term) not in self.reader:
            return None
        ids, parts = _decode(self.reader.postings(FIELD, term), self.norms)
        self.terms[term] = (ids, parts)
        self.size += len(ids)
        return ids, parts

    def evict(self, budget: int) -> None:
        while self.size > budget and self.terms:
            _term, (ids, _parts) = self.terms.popitem(last=False)
            self.size -= len(ids)


def _decode(matcher: Any, norms: array[float]) -> tuple[array[int], array[float]]:
    """Read a posting list into (doc ids, BM25 tf parts)."""
    ids = array("i")
    tfs = array("f")
    block_reader = all(hasattr(matcher, a) for a in ("_read_ids", "_read_weights", "_next_block", "_ids"))
    while matcher.is_active():
        if block_reader:  # whoosh3 codec: take a whole block at a time
            matcher._read_ids()
            matcher._read_weights()
            ids.extend(matcher._ids)
            tfs.extend(matcher._weights)
            matcher._next_block()
        else:
            ids.append(matcher.id())
            tfs.append(matcher.weight())
            matcher.next()
    parts = array("f", (tf * (K1 + 1) / (tf + norms[d]) for d, tf in zip(ids, tfs)))
    return ids, parts


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

    def __init__(self, max_postings: int = 2_000_000, count_bound: int = 1000) -> None:
        self.max_postings = max_postings
        self.count_bound = count_bound  # phrase matches counted exactly up to this many
        self._segments: dict[str, _SegmentPostings] = {}
        self._generation: object = None
        self._terms: dict[str, tuple[dict[int, float], float]] = {}
        self._terms_size = 0
        self._by_score: dict[str, list[int]] = {}  # term -> its documents, highest BM25 part first

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
                seg = self._segments[seg_id] = _SegmentPostings(reader, avgdl)
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
            return cached
        docs: dict[int, float] = {}
        for seg, off in leaves:
            found = seg.postings(term)
            if found is not None:
                ids, parts = found
                docs.update(zip(map(off.__add__, ids) if off else ids, parts))
        entry = (docs, max(docs.values()) if docs else 0.0)
        self._terms[term] = entry
        self._terms_size += len(docs)
        return entry

    def search(self, searcher: Any, units: Sequence[QueryUnit], allowed: set[int], limit: int,
               match_all: bool, generation: object = None) -> tuple[list[tuple[int, float]], int, bool]:
        """Top ``limit`` (docnum, score) among ``allowed`` docs, how many matched, and whether that
        count is a lower bound."""
        leaves = self._leaves(searcher)
        if generation != self._generation or self._terms_size > self.max_postings:
            self._generation, self._terms, self._terms_size = generation, {}, 0
            self._by_score = {}
            budget = self.max_postings // max(len(self._segments), 1)
            for seg in self._segments.values():
                seg.evict(budget)
        n_docs = max(searcher.doc_count(), 1)

        def weighted(term: str) -> tuple[dict[int, float], float, float]:
            docs, top = self._term(term, leaves)
            df = len(docs)
            idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) if df else 0.0
            return docs, idf, top * idf

        if match_all and len(units) == 1 and len(set(units[0].terms)) == 1:
            # One word: its documents, best first, are cached per commit; the top ``limit``
            # allowed ones are then found without scoring every match.
            term = units[0].terms[0]
            docs, idf, _ub = weighted(term)
            order = self._by_score.get(term)
            if order is None:
                order = self._by_score[term] = sorted(docs, key=lambda d: (-docs[d], d))
            best: list[tuple[int, float]] = []
            for d in order:
                if d in allowed:
                    best.append((d, idf * docs[d]))
                    if len(best) == limit:
                        break
            return best, len(allowed.intersection(docs)), False

        if match_all:
            per_group = []
            for unit in units:
                terms = [weighted(t) for t in dict.fromkeys(unit.terms)]
                keys = set(terms[0][0]).intersection(*(t[0] for t in terms[1:])) if terms else set()
                per_group.append((unit, terms, keys))
            per_group.sort(key=lambda g: len(g[2]))
            matched = allowed.intersection(per_group[0][2]) if per_group else set()
            for _unit, _terms, keys in per_group[1:]:
                matched &= keys
            all_terms = [t for _u, terms, _k in per_group for t in terms]
            scored = sorted(((d, sum(idf * docs[d] for docs, idf, _ub in all_terms)) for d in matched),
                            key=lambda x: (-x[1], x[0]))
            phrases = [u.terms for u, _t, _k in per_group if u.is_phrase]
            if not phrases:
                return scored[:limit], len(scored), False
            # Every word is there; phrases also need their words in order. Positions are read only
            # for these candidates, best first, and counting stops at ``count_bound`` matches.
            checker = _PhraseChecker(searcher, phrases)
            top: list[tuple[int, float]] = []
            total = 0
            for i, (doc, score) in enumerate(scored):
                if total >= max(self.count_bound, limit):
                    return top, total, i < len(scored)
                if checker.matches(doc):
                    total += 1
                    if len(top) < limit:
                        top.append((doc, score))
            return top, total, False

        terms = sorted((weighted(t) for t in dict.fromkeys(t for u in units for t in u.terms)),
                       key=lambda t: -t[2])
        total = len(allowed.intersection(*[]) if not terms else allowed.intersection(
            set().union(*(t[0].keys() for t in terms))))
        remaining = [0.0] * (len(terms) + 1)
        for i in range(len(terms) - 1, -1, -1):
            remaining[i] = remaining[i + 1] + terms[i][2]
        scores: dict[int, float] = {}
        pruning = False
        for i, (docs, idf, _ub) in enumerate(terms):
            if not pruning and i and len(scores) >= limit:
                kth = heapq.nlargest(limit, (s for d, s in scores.items() if d in allowed))
                # Once no unseen document can reach the top, that stays true: the
                # remaining bound only shrinks and the k-th score only grows.
                pruning = len(kth) >= limit and kth[-1] > remaining[i]
            if pruning:
                if len(docs) < len(scores):
                    for d, part in docs.items():
                        if d in scores:
                            scores[d] += idf * part
                else:
                    for d in scores:
                        found = docs.get(d)
                        if found:
                            scores[d] += idf * found
                continue
            get = scores.get
            for d, part in docs.items():
                scores[d] = get(d, 0.0) + idf * part
        candidates = ((d, s) for d, s in scores.items() if d in allowed)
        return heapq.nlargest(limit, candidates, key=lambda x: (x[1], -x[0])), total, False
