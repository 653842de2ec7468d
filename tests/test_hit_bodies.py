"""Search hits reuse a note's body while its catalogue row is unchanged, and never show a stale one."""

from __future__ import annotations

import os
import time

from notes_store import open_workspace
from notes_store.index.hit_bodies import HitBodies


def _snippets(ws, query: str) -> dict[str, str]:
    return {h.note.id: h.snippet for h in ws.notes.search(query).hits}


def test_a_second_search_reads_no_file(tmp_path, monkeypatch):
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("Otters", "otters hold hands while sleeping")
        first = _snippets(ws, "otters")
        reads = []
        import notes_store.notes as notes_mod
        real = notes_mod.read_regular_file
        monkeypatch.setattr(notes_mod, "read_regular_file", lambda *a, **k: reads.append(a) or real(*a, **k))
        assert _snippets(ws, "otters") == first
        assert reads == []  # served from HitBodies
        assert "otters" in first[note.id].lower()
    finally:
        ws.close()


def test_an_update_through_the_store_shows_at_once(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("Otters", "otters hold hands while sleeping")
        assert "hands" in _snippets(ws, "otters")[note.id]
        updated = ws.notes.update(note.id, content="otters crack shellfish on stones")
        hit = ws.notes.search("otters").hits[0]
        assert "shellfish" in hit.snippet and "hands" not in hit.snippet
        assert hit.note.revision == updated.revision
    finally:
        ws.close()


def test_an_edit_behind_the_store_is_seen_once_the_catalogue_sees_it(tmp_path):
    ws = open_workspace(tmp_path / "w", rescan_interval=0.2)
    try:
        note = ws.notes.create("Otters", "otters hold hands while sleeping")
        assert "hands" in _snippets(ws, "otters")[note.id]
        path = ws.notes.files.path(note.id)
        text = path.read_text(encoding="utf-8").replace("hold hands while sleeping", "float on their backs")
        path.write_text(text, encoding="utf-8")
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a new stamp even on coarse clocks
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            snippet = _snippets(ws, "otters").get(note.id, "")
            if "backs" in snippet:
                break
            time.sleep(0.1)
        assert "backs" in snippet and "hands" not in snippet
    finally:
        ws.close()


def test_lru_is_bounded_and_keyed_by_stamp():
    cache = HitBodies(max_chars=100)
    calls = []

    def reader(text: str, keep: bool = True):
        def read():
            calls.append(text)
            return text, "rev-" + text[:3], keep
        return read

    assert cache.get("a", (1, 5), reader("a" * 20)) == ("a" * 20, "rev-aaa")
    assert cache.get("a", (1, 5), reader("x" * 20)) == ("a" * 20, "rev-aaa")  # same stamp: cached
    assert cache.get("a", (2, 5), reader("b" * 20))[0] == "b" * 20           # new stamp: read again
    assert calls == ["a" * 20, "b" * 20]
    for i in range(10):
        cache.get(f"k{i}", (1, 1), reader(str(i) * 20))
    assert sum(item.chars for item in cache._items.values()) <= 100
    assert "a" not in cache._items  # least recently used went first
    cache.get("gone", (1, 1), reader("unreadable", keep=False))
    assert "gone" not in cache._items


def test_a_repeated_query_cuts_no_snippet_and_a_new_stamp_cuts_again(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("Otters", "otters hold hands while sleeping; sea otters float")
        ws.notes.create("Stones", "otters crack shellfish on stones")
        bodies = ws.notes._hit_bodies
        first = _snippets(ws, "otters")
        cut = bodies.snippets_cut
        assert _snippets(ws, "otters") == first and bodies.snippets_cut == cut  # served from the cache
        other = _snippets(ws, "otters sleeping")
        assert bodies.snippets_cut > cut and other[note.id] != first[note.id]  # other terms: cut again
        ws.notes.update(note.id, content="otters now juggle pebbles")
        cut = bodies.snippets_cut
        again = _snippets(ws, "otters")
        assert bodies.snippets_cut == cut + 1 and "juggle" in again[note.id]  # the changed note only
    finally:
        ws.close()


def test_snippets_count_against_the_bound_and_go_with_their_body():
    from notes_store.index.hit_bodies import MAX_SNIPPETS_PER_BODY
    cache = HitBodies(max_chars=1000)

    def read():
        return "b" * 100, "rev", True

    for i in range(MAX_SNIPPETS_PER_BODY + 3):
        snippet, revision = cache.snippet("a", (1, 1), read, f"q{i}", lambda body, i=i: f"s{i}" * 5)
        assert (snippet, revision) == (f"s{i}" * 5, "rev")
    item = cache._items["a"]
    assert len(item.snippets) <= MAX_SNIPPETS_PER_BODY
    # A snippet counts with its key (here a string: its characters; a query's terms count theirs).
    assert item.chars == 100 + sum(len(s) + len(k) for k, s in item.snippets.items()) == cache._chars
    assert cache.snippet("a", (1, 1), read, "q18", lambda body: "never cut")[0] == "s18" * 5
    assert cache.snippet("a", (2, 1), read, "q18", lambda body: "new stamp")[0] == "new stamp"
    assert cache._chars == 100 + len("new stamp") + len("q18")
    for i in range(12):  # other bodies push it out, snippets and all
        cache.get(f"k{i}", (1, 1), lambda: ("x" * 100, None, True))
    assert "a" not in cache._items and cache._chars == sum(item.chars for item in cache._items.values()) <= 1000
