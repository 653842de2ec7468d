"""Uncommitted writes hide their committed copies, whoever committed them (issue 16).

A search excludes the committed copy of every key the overlay holds. The backend learns each key's
document per segment and keeps what it learnt across commits (a segment never gains documents), so it
must still find a key that a commit (its own, or another writer's: a CLI, another server) added after a
lookup found none. A key looked up wrongly would show its old committed text beside (or instead of) its
new uncommitted one. Real files, a real Whoosh index.
"""

from __future__ import annotations

import random

from notes_store import open_workspace
from notes_store.analysis.analyzer import query_units
from notes_store.index.backend import Filters, IndexEntry
from notes_store.index.whoosh_backend import WhooshBackend


def _entry(key: str, text: str) -> IndexEntry:
    return IndexEntry(key=key, kind="note", type="general", tags=[], updated=1.0, title="t", text=text)


def _keys(backend: WhooshBackend, query: str, exclude: set[str]) -> list[str]:
    hits = backend.search(query_units(query), Filters(kind="note"), 10, True, exclude=exclude)
    return [key for key, _score in hits.ranked]


def test_a_note_rewritten_after_its_commit_hides_its_committed_text(tmp_path):
    ws = open_workspace(tmp_path / "w", commit_delay=60.0)  # commits only when flushed here
    try:
        note = ws.notes.create("absent check", "zebraword in the first version")
        assert [h.note.id for h in ws.notes.search("zebraword").hits] == [note.id]  # from the overlay: not committed
        ws.flush()  # committed now, by this backend's own commit
        ws.notes.update(note.id, content="quokkaword in the second version")
        assert ws.uncommitted == 1
        assert ws.notes.search("zebraword").hits == []  # the committed first version is hidden
        assert [h.note.id for h in ws.notes.search("quokkaword").hits] == [note.id]
        ws.flush()
        assert ws.notes.search("zebraword").hits == []
        assert [h.note.id for h in ws.notes.search("quokkaword").hits] == [note.id]
    finally:
        ws.close()


def test_a_key_another_writer_committed_after_a_lookup_found_none_is_excluded(tmp_path):
    folder = tmp_path / "whoosh"
    mine = WhooshBackend(folder)
    mine.create([_entry("notes/a.md", "alpha")])
    assert _keys(mine, "zebraword", {"notes/k.md"}) == []  # learns: notes/k.md is not in the index
    other = WhooshBackend(folder)  # another process's backend on the same index
    assert other.open()
    other.write([_entry("notes/k.md", "zebraword from the other writer")], [])
    other.close()
    mine.write([_entry("notes/b.md", "beta")], [])  # our own commit, installed below
    assert mine.refresh()
    # notes/k.md is in the index now (the other writer's commit): excluded, it must stay hidden.
    assert _keys(mine, "zebraword", {"notes/k.md"}) == []
    assert _keys(mine, "zebraword", set()) == ["notes/k.md"]
    mine.close()


def test_key_lookups_by_segment_equal_whooshs_own_across_updates_deletes_and_merges(tmp_path):
    """``_docnums_of`` learns each key per segment and checks deletions on use: it must name the same live
    document as ``Searcher.document_number`` after every commit (updates and deletes leave deleted
    documents behind in old segments; merges make new segments)."""
    rng = random.Random(11)
    ws = open_workspace(tmp_path / "w")
    ids = [ws.notes.create(f"n{i}", f"body {i}").id for i in range(40)]
    ws.flush()
    backend = ws._index
    gone: set[str] = set()
    for round_ in range(8):
        for note_id in rng.sample([i for i in ids if i not in gone], 6):
            ws.notes.update(note_id, content=f"round {round_} {rng.random()}")
        for note_id in rng.sample([i for i in ids if i not in gone], 2):
            ws.notes.delete(note_id)
            gone.add(note_id)
        ids += [ws.notes.create(f"r{round_} {i}", "fresh").id for i in range(3)]
        ws.flush()
        searcher = backend._searcher
        for note_id in rng.sample(ids, len(ids)):  # in a new order each time: answers cached or not
            key = f"notes/{note_id}.md"
            want = searcher.document_number(key=key)
            assert backend._docnums_of(searcher, [key]) == (set() if want is None else {want}), (round_, key)
            assert (want is None) == (note_id in gone)
    ws.close()
