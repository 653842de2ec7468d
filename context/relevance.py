"""Lexical relevance of packets to a query, with the index's own analyzer.

Terms come from ``notes_store.analysis`` so stemming and CJK bigrams match the
note index exactly (Chinese works the same as English). Scoring is BM25 with
IDF over the candidates themselves (the history is its own corpus), weighted by
how much of the query a packet covers, plus one round of pseudo-relevance
feedback to reach turns that use the answer's words rather than the question's.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any
from collections.abc import Callable, Sequence

from notes_store.bm25 import B as BM25_B, K1 as BM25_K1, idf as bm25_idf
from notes_store.analysis import index_terms, is_cjk, is_content_term, query_terms

_MAX_CACHED = 100_000
_terms_cache: dict[str, tuple[str, ...]] = {}
_tf_cache: dict[tuple[str, ...], dict[str, int]] = {}


def terms_of(text: str) -> tuple[str, ...]:
    """Index terms of ``text``, cached (the same history is scored on every call)."""
    found: tuple[str, ...] = _cached(_terms_cache, text, lambda: tuple(index_terms(text)))
    return found


def _term_frequencies(doc: Sequence[str]) -> dict[str, int]:
    """Term -> count of a document, cached (the same turns are scored on every call; read-only)."""
    key = tuple(doc)
    found: dict[str, int] = _cached(_tf_cache, key, lambda: dict(Counter(key)))
    return found


def _cached(cache: dict[Any, Any], key: Any, compute: Callable[[], Any]) -> Any:
    """``cache[key]``, computed on a miss; the cache is emptied when it reaches ``_MAX_CACHED``."""
    value = cache.get(key)
    if value is None:
        value = compute()
        if len(cache) >= _MAX_CACHED:
            cache.clear()
        cache[key] = value
    return value


def terms_of_query(query: str) -> list[str]:
    """Distinct content terms of a query (question words and particles left out unless
    nothing else remains); index terms when the query analyzer finds none."""
    terms = query_terms(query) or list(dict.fromkeys(index_terms(query)))
    return [t for t in terms if is_content_term(t)] or terms


# CJK bigrams that hold a particle or pronoun straddle word edges ("我叔", "叔是"): weak
# evidence alone, but they tell "my uncle is..." from "their uncle said...", so they count a little.
CJK_EDGE_WEIGHT = 0.5


def weighted_query_terms(query: str) -> dict[str, float]:
    """Query terms with weights: content terms 1, CJK edge bigrams CJK_EDGE_WEIGHT."""
    content = terms_of_query(query)
    weights = {t: 1.0 for t in content}
    if CJK_EDGE_WEIGHT and content:
        for t in query_terms(query):
            if t not in weights and len(t) == 2 and is_cjk(t):
                weights[t] = CJK_EDGE_WEIGHT
    return weights


class LexicalScorer:
    """BM25 over a fixed list of documents (term tuples), with IDF from those documents.

    Postings are built lazily for the terms a query uses: a query has a handful of
    terms, a history has thousands, and the history changes on every call.
    """

    K1 = BM25_K1
    B = BM25_B

    def __init__(self, docs: Sequence[Sequence[str]]) -> None:
        self.n = len(docs)
        self.tfs = [_term_frequencies(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avg_len = (sum(self.lengths) / self.n) if self.n else 1.0
        self._postings: dict[str, list[tuple[int, int]]] = {}

    def postings(self, term: str) -> list[tuple[int, int]]:
        """(document index, term frequency) of every document containing ``term``."""
        found = self._postings.get(term)
        if found is None:
            found = [(i, tf[term]) for i, tf in enumerate(self.tfs) if term in tf]
            self._postings[term] = found
        return found

    def idf(self, term: str) -> float:
        return bm25_idf(self.n, len(self.postings(term)))

    def bm25(self, weights: dict[str, float]) -> list[float]:
        """BM25 of each document for weighted query terms."""
        scores = [0.0] * self.n
        k1, b, avg = self.K1, self.B, self.avg_len or 1.0
        for term, w in weights.items():
            posting = self.postings(term)
            if not posting:
                continue
            idf = self.idf(term) * w
            for i, tf in posting:
                norm = k1 * (1.0 - b + b * self.lengths[i] / avg)
                scores[i] += idf * tf * (k1 + 1.0) / (tf + norm)
        return scores

    def coverage(self, terms: Sequence[str]) -> list[float]:
        """Share of the query's IDF mass each document contains (0..1): all of the question beats part of it."""
        total = sum(self.idf(t) for t in terms) or 1.0
        cov = [0.0] * self.n
        for t in terms:
            idf = self.idf(t)
            for i, _tf in self.postings(t):
                cov[i] += idf / total
        return cov

    def feedback_terms(self, ranked: Sequence[int], query: Sequence[str], top_docs: int,
                       max_terms: int) -> dict[str, float]:
        """Pseudo-relevance feedback: terms shared by several top documents, weighted 0..1 by IDF."""
        if self.n < 20:
            return {}
        qset = set(query)
        hits: Counter[str] = Counter()
        for i in ranked[:top_docs]:
            hits.update(t for t in self.tfs[i] if t not in qset)
        scored = {t: c * self.idf(t) for t, c in hits.items() if c >= 2}
        best = sorted(scored, key=scored.__getitem__, reverse=True)[:max_terms]
        top = max((scored[t] for t in best), default=1.0)
        return {t: scored[t] / top for t in best}


def lexical_relevance(query: str, texts: Sequence[str], *, feedback_weight: float = 0.0,
                      coverage_weight: float = 0.25) -> list[float]:
    """Relevance 0..1 of each text to the query (0 when it shares no term with it)."""
    if not texts:
        return []
    scorer = _scorer_for(tuple(texts))
    weights = weighted_query_terms(query)
    qterms = list(weights)
    if not qterms:
        return [0.0] * len(texts)
    scores = scorer.bm25(weights)
    if coverage_weight:
        cov = scorer.coverage(qterms)
        scores = [s * ((1.0 - coverage_weight) + coverage_weight * c) for s, c in zip(scores, cov)]
    if feedback_weight and scorer.n >= 20:
        ranked = sorted(range(scorer.n), key=scores.__getitem__, reverse=True)
        extra = scorer.feedback_terms(ranked, qterms, top_docs=5, max_terms=8)
        if extra:
            more = scorer.bm25({t: w * feedback_weight for t, w in extra.items()})
            scores = [s + m for s, m in zip(scores, more)]
    top = max(scores)
    return [s / top for s in scores] if top > 0 else scores


def plain_bm25(query: str, texts: Sequence[str]) -> list[float]:
    """BM25 of each text for every term of the query (no question-word filtering, coverage or
    feedback): the baseline the selection guarantees its top turns to."""
    if not texts:
        return []
    return _scorer_for(tuple(texts)).bm25({t: 1.0 for t in query_terms(query)})


_scorers: OrderedDict[tuple[str, ...], LexicalScorer] = OrderedDict()


def _scorer_for(texts: tuple[str, ...]) -> LexicalScorer:
    """A scorer over ``texts``, reused while the same candidates come back (several queries
    against one history); only the few most recent corpora are kept."""
    scorer = _scorers.get(texts)
    if scorer is None:
        scorer = LexicalScorer([terms_of(t) for t in texts])
        _scorers[texts] = scorer
        while len(_scorers) > 4:
            _scorers.popitem(last=False)
    else:
        _scorers.move_to_end(texts)
    return scorer


def spread_to_neighbours(scores: Sequence[float], weight: float, window: int = 3,
                         decay: float = 0.6, segments: Sequence[object] | None = None) -> list[float]:
    """Let each item inherit part of the strongest score at each distance up to ``window``.

    Conversations stay on a topic for a few turns: the answer often sits a turn or
    two from the one that repeats the question's words ("Where did you go?" /
    "To the lake"). At distance d an item gains ``weight * decay**(d-1)`` times the
    better of its two neighbours at that distance. With ``segments`` (e.g. each turn's
    day), nothing spreads across a segment boundary: a new session is a new topic.
    """
    n = len(scores)
    out = list(scores)
    for d in range(1, window + 1):
        w = weight * decay ** (d - 1)
        for i in range(n):
            left = scores[i - d] if i >= d else 0.0
            right = scores[i + d] if i + d < n else 0.0
            if segments is not None:
                if left and segments[i - d] != segments[i]:
                    left = 0.0
                if right and segments[i + d] != segments[i]:
                    right = 0.0
            out[i] += w * (left if left > right else right)
    return out
