"""Search hits reuse a note's body while its catalogue row is unchanged, and never show a stale one."""

from __future__ import annotations

import os
import time

from notes_store import open_workspace
from notes_store.hit_bodies import HitBodies


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
    assert sum(len(t) for _s, t, _r in cache._items.values()) <= 100
    assert "a" not in cache._items  # least recently used went first
    cache.get("gone", (1, 1), reader("unreadable", keep=False))
    assert "gone" not in cache._items
