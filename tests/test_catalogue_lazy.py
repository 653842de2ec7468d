"""The catalogue file: rows loaded lazily (one line each until used), stamps without making rows,
rows compacted to JSON text on save, damaged files and lines handled. Real files in a tmp dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from notes_store.index import catalogue
from notes_store.index.catalogue import Catalogue, Entry, LazyRows


def _saved(tmp_path: Path, n: int = 50) -> tuple[Path, Catalogue]:
    cat = Catalogue()
    for i in range(n):
        key = f"notes/n{i}.md"
        cat[key] = Entry(key, "note", tmp_path, 1000 + i, 10 + i, {"title": f"t{i}", "tags": ["a", "数据"]})
    path = tmp_path / "catalogue"
    cat.save(path, {"index": "x:1", "stamps": {"notes": 5}})
    return path, cat


def test_saved_rows_come_back_lazily_and_equal(tmp_path: Path) -> None:
    path, original = _saved(tmp_path)
    # Saving compacted the rows: the parsed fields were dropped, the JSON text kept.
    assert all(e._meta is None and e._raw for e in original.values())
    loaded = Catalogue.load(path, tmp_path, {"note", "memory"})
    assert loaded is not None
    rows, record = loaded
    assert isinstance(rows, LazyRows) and record["index"] == "x:1" and record["stamps"] == {"notes": 5}
    cat = Catalogue()
    cat.replace_all(rows)
    assert len(cat) == 50 and "notes/n7.md" in cat and "notes/zz.md" not in cat
    assert cat.stamp("notes/n7.md") == (1007, 17) and cat.stamp("notes/zz.md") is None
    assert not cat._rows  # nothing was made yet: stamps and membership read the saved lines
    row = cat.get("notes/n7.md")
    assert row is not None and row.meta == {"title": "t7", "tags": ["a", "数据"]} and row.path == tmp_path / "notes/n7.md"
    assert cat.get("notes/n7.md") is row and len(cat._rows) == 1
    assert rows["notes/n3.md"] is cat.get("notes/n3.md")  # the loader's mapping and the catalogue share rows
    assert sorted(cat.keys()) == sorted(original.keys())
    assert cat.pop("notes/n9.md") is not None and "notes/n9.md" not in cat and len(cat) == 49
    assert {e.key: (e.mtime_ns, e.size, e.meta) for e in cat.values()} == {
        e.key: (e.mtime_ns, e.size, e.meta) for e in original.values() if e.key != "notes/n9.md"}


def test_torn_or_foreign_files_are_not_loaded(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    assert Catalogue.load(path, tmp_path, {"note"}) is None
    path.write_text("not json\nend\n", encoding="utf-8")
    assert Catalogue.load(path, tmp_path, {"note"}) is None
    lines = text.split("\n")
    lines[3] = lines[3].replace("\t", " ")  # a row line without its tabs: the whole file is refused
    path.write_text("\n".join(lines), encoding="utf-8")
    assert Catalogue.load(path, tmp_path, {"note"}) is None
    assert Catalogue.load(tmp_path / "missing", tmp_path, {"note"}) is None


def test_a_damaged_stamp_makes_the_row_look_changed(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path, 3)
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[1] = lines[1].replace("\t1000\t", "\tNaN\t")
    path.write_text("\n".join(lines), encoding="utf-8")
    loaded = Catalogue.load(path, tmp_path, {"note"})
    assert loaded is not None
    cat = Catalogue(loaded[0])
    assert cat.stamp("notes/n0.md") == (-3, -3)  # no file has this stamp: the next scan reads it again
    row = cat.get("notes/n0.md")
    assert row is not None and row.mtime_ns == -3 and row.meta["title"] == "t0"


def test_rows_of_a_kind_no_longer_served_are_dropped(tmp_path: Path) -> None:
    cat = Catalogue()
    cat["notes/a.md"] = Entry("notes/a.md", "note", tmp_path, 1, 1, {"title": "a"})
    cat["memory/b.md"] = Entry("memory/b.md", "memory", tmp_path, 2, 2, {"title": "b"})
    cat.save(tmp_path / "c", {})
    loaded = Catalogue.load(tmp_path / "c", tmp_path, {"note"})
    assert loaded is not None and list(loaded[0]) == ["notes/a.md"]


def test_sorting_keeps_keys_not_parsed_rows_and_follows_changes(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path, 20)
    loaded = Catalogue.load(path, tmp_path, {"note"})
    assert loaded is not None
    cat = Catalogue(loaded[0])
    by_title = lambda e: e.meta["title"]  # noqa: E731
    rows = cat.sorted_entries("note", by_title, "title", False)
    assert all(e._meta is None for e in rows)  # each parsed only while its key was taken
    assert [e.meta["title"] for e in rows] == sorted(f"t{i}" for i in range(20))
    # A changed row gets a new key; the others keep theirs.
    cat["notes/n5.md"] = Entry("notes/n5.md", "note", tmp_path, 1, 1, {"title": "a-first"})
    rows = cat.sorted_entries("note", by_title, "title", False)
    assert rows[0].key == "notes/n5.md" and len(rows) == 20
    cat.pop("notes/n5.md")
    assert "notes/n5.md" not in [e.key for e in cat.sorted_entries("note", by_title, "title", False)]


def test_a_listing_of_one_kind_outlives_writes_of_another(tmp_path: Path) -> None:
    """Note listings are sorted again only when a note row changes: a memory write re-sorted all notes (~15 ms at
    30k, ~90 ms at 100k, paid by the next note_list, note_summary or completion keystroke)."""
    _, cat = _saved(tmp_path, 30)
    by_title = lambda e: e.meta["title"]  # noqa: E731
    rows = cat.sorted_entries("note", by_title, "title", False)
    cat["memory/m1.md"] = Entry("memory/m1.md", "memory", tmp_path, 1, 1, {"id": "m1"})
    cat.pop("memory/m1.md")
    assert cat.sorted_entries("note", by_title, "title", False) is rows
    assert cat.entries("memory") == []
    cat["notes/n3.md"] = Entry("notes/n3.md", "note", tmp_path, 1, 1, {"title": "a-first"})
    again = cat.sorted_entries("note", by_title, "title", False)
    assert again is not rows and again[0].key == "notes/n3.md" and len(again) == 30


def test_path_text_is_the_path_as_text(tmp_path):
    from notes_store.index.catalogue import Entry
    entry = Entry("notes/a.md", "note", tmp_path.resolve(), 1, 1)
    assert entry.path_text == str(entry.path)


_ops = st.lists(st.tuples(st.sampled_from(["set", "pop", "memory", "list"]), st.integers(0, 11),
                          st.sampled_from(["b", "a", "c", "bb", ""])), max_size=60)


def _apply(cat: Catalogue, root: Path, op: str, i: int, title: str, note_id: str) -> None:
    """One of ``_ops``: write or remove note ``i`` (its id ``note_id``), or write memory ``i``; "list" changes nothing."""
    key = f"notes/n{i}.md"
    if op == "set":
        cat[key] = Entry(key, "note", root, i, i, {"title": title, "id": note_id})
    elif op == "pop":
        cat.pop(key)
    elif op == "memory":
        cat[f"memory/m{i}.md"] = Entry(f"memory/m{i}.md", "memory", root, i, i, {"title": title, "id": f"m{i}"})


@settings(max_examples=60, deadline=None)
@given(_ops, st.booleans())
def test_a_listing_stepped_from_its_cache_equals_sorting_again(tmp_path_factory: Any, ops: list[Any],
                                                              reverse: bool) -> None:
    """After any writes, deletes and other kinds' writes, the stepped listing is the full sort's."""
    root = tmp_path_factory.mktemp("cat")
    cat = Catalogue()
    key_of = lambda e: (e.meta["title"], e.meta["id"])  # noqa: E731  (unique: ends with the id)
    for op, i, title in ops:
        _apply(cat, root, op, i, title, f"n{i}")
        listed = cat.sorted_entries("note", key_of, "title", reverse)
        assert listed == sorted(cat.entries("note"), key=key_of, reverse=reverse)
        if op == "list":  # the other order's cache falls behind between these, and steps further at once
            listed = cat.sorted_entries("note", key_of, "title", not reverse)
            assert listed == sorted(cat.entries("note"), key=key_of, reverse=not reverse)


def test_one_changed_row_is_placed_not_sorted_with_the_rest(tmp_path: Path, monkeypatch: Any) -> None:
    """A note write re-sorted every note for the next listing (~90 ms at 100k notes); now the cached order is
    stepped (a filter and a binary-search insert). Past STEP_AT_MOST changes it sorts everything again."""
    _, cat = _saved(tmp_path, 200)
    sorts = 0

    def counted_sorted(*args: Any, **kwargs: Any) -> Any:
        nonlocal sorts
        sorts += 1
        return sorted(*args, **kwargs)

    monkeypatch.setattr(catalogue, "sorted", counted_sorted, raising=False)
    by_title = lambda e: str(e.meta["title"]) + e.key  # noqa: E731
    cat.sorted_entries("note", by_title, "title", True)
    assert sorts == 1
    cat["notes/n7.md"] = Entry("notes/n7.md", "note", tmp_path, 1, 1, {"title": "zz-last"})
    cat["notes/new.md"] = Entry("notes/new.md", "note", tmp_path, 1, 1, {"title": "m-middle"})
    cat.pop("notes/n9.md")
    rows = cat.sorted_entries("note", by_title, "title", True)
    assert sorts == 1  # stepped
    assert rows[0].key == "notes/n7.md" and len(rows) == 200
    assert rows == sorted(cat.entries("note"), key=by_title, reverse=True)
    monkeypatch.setattr(catalogue, "STEP_AT_MOST", 1)
    cat["notes/n1.md"] = Entry("notes/n1.md", "note", tmp_path, 1, 1, {"title": "x"})
    cat["notes/n2.md"] = Entry("notes/n2.md", "note", tmp_path, 1, 1, {"title": "y"})
    cat.sorted_entries("note", by_title, "title", True)
    assert sorts == 2  # two changes > STEP_AT_MOST: sorted again


@settings(max_examples=60, deadline=None)
@given(_ops, st.booleans())
def test_rows_sharing_an_id_are_still_all_listed_in_order(tmp_path_factory: Any, ops: list[Any],
                                                           reverse: bool) -> None:
    """Files of an untrusted repository may share an id (ties in the sort key): every row is still listed once,
    in order (ties in either order)."""
    root = tmp_path_factory.mktemp("cat")
    cat = Catalogue()
    key_of = lambda e: (e.meta["title"], e.meta["id"])  # noqa: E731
    for op, i, title in ops:
        _apply(cat, root, op, i, title, f"n{i % 3}")
        listed = cat.sorted_entries("note", key_of, "title", reverse)
        assert sorted(e.key for e in listed) == sorted(e.key for e in cat.entries("note"))
        keys = [key_of(e) for e in listed]
        assert keys == sorted(keys, reverse=reverse)
        assert all(cat.get(e.key) is e for e in listed)
