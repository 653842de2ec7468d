"""Search ranking against a plain, exhaustive BM25 computed from the notes' own text.

The exhaustive scorer uses only the analyzer and the BM25 formula, so it checks the pruned
ranker over the committed index and the scoring of writes not committed yet alike.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from whoosh.util.numeric import byte_to_length, length_to_byte

from notes_store import open_workspace
from notes_store.analysis.analyzer import index_terms, query_units
from notes_store.analysis.bm25 import idf, tf_part
from notes_store.index.backend import Filters, IndexEntry, indexed_text

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma "
         "tau upsilon phi chi psi omega common frequent").split()


def _brute_force(texts: dict[str, str], terms: list[str]) -> dict[str, float]:
    counts = {key: Counter(index_terms(text)) for key, text in texts.items()}
    lengths = {key: sum(c.values()) for key, c in counts.items()}
    avg = sum(lengths.values()) / len(lengths)
    n_docs = len(texts)
    scores: dict[str, float] = {}
    for term in terms:
        df = sum(1 for c in counts.values() if term in c)
        for key, c in counts.items():
            if term in c:
                stored = byte_to_length(length_to_byte(lengths[key]))  # Whoosh keeps lengths in one byte
                scores[key] = scores.get(key, 0.0) + idf(n_docs, df) * tf_part(c[term], stored, avg)
    return scores


@pytest.mark.parametrize("committed", [True, False], ids=["committed-index", "uncommitted-writes"])
def test_ranking_equals_exhaustive_bm25(tmp_path, committed):
    rng = random.Random(3)
    ws = open_workspace(tmp_path / "w", commit_delay=3600)  # nothing commits unless flushed
    texts = {}
    for i in range(250):  # under the batch size (256), so nothing commits by size either
        words = " ".join(rng.choices(WORDS, weights=[1] * 24 + [30, 20], k=rng.randint(3, 40)))
        note = ws.notes.create(f"doc {i}", words)
        key = f"notes/{note.id}.md"
        texts[key] = indexed_text(IndexEntry(key, "note", "general", [], 0.0, f"doc {i}", words))
    if committed:
        ws.flush()
    assert ws.uncommitted == (0 if committed else 250)
    for _ in range(60):
        query = " ".join(rng.sample(WORDS, rng.randint(1, 6)))
        units = query_units(query)
        terms = list(dict.fromkeys(t for u in units for t in u.terms))
        expected = _brute_force(texts, terms)
        got = ws.search_ranked(units, Filters("note"), 10, match_all=False)
        assert got.total == len(expected) and not got.total_is_lower_bound
        best = sorted(expected.items(), key=lambda x: -x[1])[:10]
        assert [math.isclose(score, expected[row.key], rel_tol=1e-4) for row, score in got.rows] == [True] * 10
        # Equal scores may come in either order; the scores, rank by rank, may not differ.
        for (_row, score), (_key, want) in zip(got.rows, best):
            assert math.isclose(score, want, rel_tol=1e-4), query
    for word in WORDS:  # one word: the cached best-first order
        expected = _brute_force(texts, index_terms(word))
        got = ws.search_ranked(query_units(word), Filters("note"), 10)
        best = sorted(expected.values(), reverse=True)[:10]
        assert got.total == len(expected) and len(got.rows) == len(best), word
        for (_row, score), want in zip(got.rows, best):
            assert math.isclose(score, want, rel_tol=1e-4), word
    ws.close()


def _close(got: list[float], want: list[float]) -> bool:
    return len(got) == len(want) and all(math.isclose(a, b, rel_tol=1e-4) for a, b in zip(got, want))


def test_pruned_totals_are_exact_under_the_bound_and_lower_bounds_past_it(tmp_path):
    """'Some words' search with a small count bound: the top 10 stay exact; a total is exact or, past
    the bound, flagged as a lower bound that is still at least the bound and never above the truth."""
    rng = random.Random(5)
    ws = open_workspace(tmp_path / "w", commit_delay=3600)
    texts = {}
    for i in range(200):
        words = " ".join(rng.choices(WORDS, weights=[1] * 24 + [40, 25], k=rng.randint(3, 30)))
        note = ws.notes.create(f"doc {i}", words)
        key = f"notes/{note.id}.md"
        texts[key] = indexed_text(IndexEntry(key, "note", "general", [], 0.0, f"doc {i}", words))
    ws.flush()
    ws.search_backend.count_bound = 20
    flagged = 0
    for _ in range(60):
        query = " ".join(rng.sample(WORDS, rng.randint(2, 6)))
        units = query_units(query)
        terms = list(dict.fromkeys(t for u in units for t in u.terms))
        expected = _brute_force(texts, terms)
        got = ws.search_ranked(units, Filters("note"), 10, match_all=False)
        if got.total_is_lower_bound:
            flagged += 1
            assert 20 <= got.total <= len(expected), query
        else:
            assert got.total == len(expected), query
        best = sorted(expected.values(), reverse=True)[:10]
        assert _close([s for _r, s in got.rows], best), query
        # Every word: the documents holding all of them, ranked by the same scores.
        every = {k: v for k, v in expected.items()
                 if set(terms) <= set(index_terms(texts[k]))}
        got_all = ws.search_ranked(units, Filters("note"), 10, match_all=True)
        assert got_all.total == len(every) and not got_all.total_is_lower_bound, query
        assert _close([s for _r, s in got_all.rows], sorted(every.values(), reverse=True)[:10]), query
    assert flagged  # common words made some totals pass the bound
    ws.close()


def test_a_term_a_segment_lacks_is_looked_up_in_its_term_table_once(tmp_path, monkeypatch):
    """Segments never change their terms: after the first search, one a segment lacks costs no lookup there."""
    from whoosh.reading import SegmentReader
    ws = open_workspace(tmp_path / "w")
    ws.notes.create("first", "alpha beta")
    ws.flush()
    ws.notes.create("second", "gamma delta")  # a second segment, without alpha
    ws.flush()
    assert [r.meta["title"] for r, _s in ws.search_ranked(query_units("alpha"), Filters("note"), 10).rows] == ["first"]
    segments = list(ws._index._ranker._segments.values())
    assert len(segments) == 2 and sum("alpha" in seg.absent for seg in segments) == 1
    lookups = []
    real = SegmentReader.__contains__
    monkeypatch.setattr(SegmentReader, "__contains__", lambda self, key: lookups.append(key) or real(self, key))
    rows = ws.search_ranked(query_units("alpha"), Filters("note"), 10).rows
    assert [r.meta["title"] for r, _s in rows] == ["first"]
    assert ("text", "alpha") not in lookups
    ws.close()


def test_hits_name_the_right_notes_across_commits_that_renumber_documents(tmp_path):
    """A hit's key is learnt once per commit (``WhooshBackend._key_of``): merges and deletions renumber
    documents, and every search after them must still name the note that holds the word."""
    rng = random.Random(5)
    ws = open_workspace(tmp_path / "w")
    words: dict[str, str] = {}
    for round_ in range(6):
        for i in range(25):
            word = "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(9))
            words[ws.notes.create(f"r{round_} n{i}", f"{word} common filler {i}").id] = word
        for note_id in rng.sample(sorted(words), 8):  # deletions: documents renumbered by the next merge
            ws.notes.delete(note_id)
            del words[note_id]
        if round_ % 2:
            ws.rebuild()  # a new index: every document numbered anew
        else:
            ws.flush()
        for note_id, word in words.items():
            assert [h.note.id for h in ws.notes.search(word).hits] == [note_id], (round_, word)
    ws.close()


def test_overlay_scores_follow_each_commits_statistics(tmp_path):
    """Uncommitted writes are scored as if committed, with the committed corpus' document frequencies (read
    once per commit): after each commit their scores must match an exhaustive BM25 over every note."""
    rng = random.Random(8)
    ws = open_workspace(tmp_path / "w", commit_delay=3600)
    texts: dict[str, str] = {}

    def add(n: int) -> set[str]:
        added = set()
        for _i in range(n):
            words = " ".join(rng.choices(WORDS, weights=[1] * 24 + [30, 20], k=rng.randint(3, 30)))
            note = ws.notes.create(f"doc {len(texts)}", words)
            key = f"notes/{note.id}.md"
            texts[key] = indexed_text(IndexEntry(key, "note", "general", [], 0.0, f"doc {len(texts)}", words))
            added.add(key)
        return added

    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(25)]
    for round_ in range(3):
        fresh = add(60)  # uncommitted, scored against what the last commit holds
        checked = 0
        for query in queries:
            units = query_units(query)
            expected = _brute_force(texts, list(dict.fromkeys(t for u in units for t in u.terms)))
            got = ws.search_ranked(units, Filters("note"), 100, match_all=False)
            for row, score in got.rows:
                if row.key in fresh:
                    checked += 1
                    assert math.isclose(score, expected[row.key], rel_tol=1e-4), (round_, query)
        assert checked > 100
        ws.flush()
    ws.close()
