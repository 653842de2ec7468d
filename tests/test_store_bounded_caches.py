"""The store's caches keep nothing per word or query a client makes up (each kept entry is bounded)."""

from __future__ import annotations

import random
import string

from notes_store import open_workspace
from notes_store.analysis.analyzer import _WORD_TERMS, CACHED_WORD_CHARS, index_positions


def test_a_long_word_of_a_note_is_indexed_but_not_kept_in_the_word_table() -> None:
    word = "walk" * 11 + "ing"
    assert len(word) > CACHED_WORD_CHARS
    positions = index_positions(f"short words and {word}")
    assert "walk" * 11 in positions and word not in _WORD_TERMS
    assert "short" in _WORD_TERMS          # ordinary words still are


def test_searches_for_words_in_no_note_keep_nothing_in_the_ranker(tmp_path) -> None:
    ws = open_workspace(tmp_path / "w")
    try:
        for k in range(5):
            ws.notes.create(f"Deploy {k}", f"the deploy plan number {k} for the kayak club")
        ws.flush()
        ranker = ws.search_backend._ranker  # type: ignore[attr-defined]
        ws.notes.search("deploy kayak", limit=5)
        terms, best = len(ranker._terms), len(ranker._by_score)
        rnd = random.Random(3)
        for _ in range(200):
            made_up = ["".join(rnd.choice(string.ascii_lowercase) for _ in range(19)) for _ in range(20)]
            assert ws.notes.search(" ".join(made_up), limit=5).total == 0
            assert ws.notes.search(made_up[0], limit=5).total == 0      # one word: the best-first path
        assert len(ranker._terms) == terms and len(ranker._by_score) == best
        assert ws.notes.search("kayak", limit=5).total == 5                 # a real word is kept
        assert "kayak" in ranker._by_score
    finally:
        ws.close()


def test_a_snippet_kept_counts_its_query_terms_against_the_body_cache() -> None:
    """One-word notes cost almost nothing in text; the keys of their snippets (a query's terms) are
    what a client makes large, so they count: the cache evicts instead of holding them all."""
    from notes_store.index.hit_bodies import HitBodies
    bodies = HitBodies(max_chars=200_000)
    rnd = random.Random(5)
    for note in range(50):
        for _ in range(16):
            terms = frozenset("".join(rnd.choice(string.ascii_lowercase) for _ in range(20)) for _ in range(100))
            bodies.snippet(f"n{note}", (1, 1), lambda: ("hi", None, True), terms, lambda text: text)
    assert bodies._chars <= bodies.max_chars
    kept_terms = sum(len(t) for item in bodies._items.values() for key in item.snippets for t in key)
    assert kept_terms <= bodies.max_chars     # before: 50 x 16 x 100 x 20 = 1.6M characters of keys kept


def test_search_filter_parts_are_bounded_by_members(tmp_path, monkeypatch) -> None:
    # Every distinct date span is a set of up to every note's number: 64 of them at 100k notes were ~0.5 GB.
    from notes_store.index import whoosh_backend
    monkeypatch.setattr(whoosh_backend, "FILTER_PART_MEMBERS", 100)
    ws = open_workspace(tmp_path / "w")
    try:
        for k in range(40):
            ws.notes.create(f"Deploy {k}", f"the deploy plan number {k}")
        ws.flush()
        for second in range(20):
            found = ws.notes.search("deploy", limit=50, updated_after=f"2000-01-01T00:00:{second:02d}Z")
            assert found.total == 40  # the answers are unchanged
        parts = ws.search_backend._filter_parts  # type: ignore[attr-defined]
        assert 1 <= len(parts) <= 3 and sum(len(v) for v in parts.values()) <= 100
        # The newest part is kept even when it alone is over the bound.
        monkeypatch.setattr(whoosh_backend, "FILTER_PART_MEMBERS", 10)
        ws.notes.search("deploy", limit=5, updated_after="2000-01-02T00:00:00Z")
        assert len(parts) == 1 and len(next(iter(parts.values()))) == 40
    finally:
        ws.close()


def test_unreadable_files_are_listed_with_short_reasons_and_bounded_lists(tmp_path) -> None:
    """Reasons quote a file's own values: 1,000 files with a 60 KB ``id:`` made note_summary 60 MB and 30 s of
    CPU per call (the helper's attack pass). Reasons are clipped and a summary lists at most 200 files."""
    from notes_store.files.front_matter import MAX_LISTED_UNREADABLE, MAX_REASON_CHARS
    root = tmp_path / "w"
    (root / "notes").mkdir(parents=True)
    for k in range(MAX_LISTED_UNREADABLE + 20):
        (root / "notes" / f"bad{k:03d}.md").write_text(f"---\nid: bad{k:03d}\ntype: {'x' * 60_000}\n---\nbody\n")
    ws = open_workspace(root)
    try:
        s = ws.notes.summary().to_dict()
        assert s["unreadable_total"] == MAX_LISTED_UNREADABLE + 20 and len(s["unreadable"]) == MAX_LISTED_UNREADABLE
        reason = s["unreadable"][0]["reason"]
        assert len(reason) <= MAX_REASON_CHARS and "is not one of" in reason
        assert "characters in all" in reason
    finally:
        ws.close()
