"""The cached-postings ranker against a plain, exhaustive BM25 over the same index."""

from __future__ import annotations

import math
import random

from notes_store import open_workspace
from notes_store.analysis import query_units
from notes_store.index import Filters
from notes_store.ranking import B, FIELD, K1

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma "
         "tau upsilon phi chi psi omega common frequent").split()


def _brute_force(searcher, terms, allowed):
    n_docs = searcher.doc_count()
    avgdl = searcher.avg_field_length(FIELD, 1.0)
    reader = searcher.reader()
    scores: dict[int, float] = {}
    for term in terms:
        if (FIELD, term) not in reader:
            continue
        df = searcher.doc_frequency(FIELD, term)
        idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        for docnum, weight in reader.postings(FIELD, term).items_as("weight"):
            dl = reader.doc_field_length(docnum, FIELD, 0)
            part = weight * (K1 + 1) / (weight + K1 * (1 - B + B * dl / avgdl))
            scores[docnum] = scores.get(docnum, 0.0) + idf * part
    return {d: s for d, s in scores.items() if d in allowed}


def test_pruned_ranking_equals_exhaustive_bm25(tmp_path):
    rng = random.Random(3)
    ws = open_workspace(tmp_path / "w")
    for i in range(300):
        words = rng.choices(WORDS, weights=[1] * 24 + [30, 20], k=rng.randint(3, 40))
        ws.notes.create(f"doc {i}", " ".join(words))
    ws.flush()
    index = ws._index
    searcher = index._fresh_searcher()
    allowed = index._allowed(searcher, Filters("note"))
    for _ in range(60):
        query = " ".join(rng.sample(WORDS, rng.randint(1, 6)))
        units = query_units(query)
        terms = list(dict.fromkeys(t for u in units for t in u.terms))
        expected = _brute_force(searcher, terms, allowed)
        top, total = index._ranker.search(searcher, units, allowed, 10, match_all=False)
        assert total == len(expected)
        best = sorted(expected.items(), key=lambda x: (-x[1], x[0]))[:10]
        assert [d for d, _ in top] == [d for d, _ in best], query
        for (_d, got), (_e, want) in zip(top, best):
            assert math.isclose(got, want, rel_tol=1e-4)
    ws.close()
