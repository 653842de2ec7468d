"""Rebuilds in child processes (``notes_store.index.parallel_build``): the same index as an in-process build,
failures reported, nothing left behind. Real files, real Whoosh index, real child processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from notes_store import open_workspace
from notes_store.index import whoosh_backend as wb
from notes_store.errors import StorageError
from notes_store.index.backend import Filters, IndexEntry
from notes_store.analysis.analyzer import query_units
from notes_store.index.postings_file import open_postings

WORDS = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma".split()


def _entries(n: int) -> list[IndexEntry]:
    return [IndexEntry(key=f"notes/n{i:04d}.md", kind="note", type="general" if i % 3 else "blocker",
                       tags=[f"t{i % 4}"], updated=1_700_000_000 + i, title=f"note {i} {WORDS[i % 10]}",
                       text=f"{WORDS[(i * 7) % 10]} {WORDS[(i * 3) % 10]} 数据模型 body {i}")
            for i in range(n)]


def _search(backend: wb.WhooshBackend, query: str, **filters: object) -> list[tuple[str, float]]:
    units = list(query_units(query))
    return backend.search(units, Filters(kind="note", **filters), 500, match_all=True).ranked  # type: ignore[arg-type]


def _scored(ranked: list[tuple[str, float]]) -> list[tuple[float, str]]:
    return sorted((-round(score, 4), key) for key, score in ranked)


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wb, "PARALLEL_MIN", 10)
    monkeypatch.setattr("notes_store.index.parallel_build.CHUNK", 7)  # several chunks per child


def test_child_build_matches_in_process_build(tmp_path: Path, small_threshold: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    entries = _entries(300)  # ~150 a child: "body" and "note" pass postings_file.MIN_POSTINGS
    monkeypatch.setenv("CTXNOTES_INDEX_WORKERS", "2")
    parallel = wb.WhooshBackend(tmp_path / "p")
    assert parallel.create(entries) == 300
    monkeypatch.setenv("CTXNOTES_INDEX_WORKERS", "0")
    serial = wb.WhooshBackend(tmp_path / "s")
    assert serial.create(entries) == 300
    try:
        assert parallel.doc_count() == serial.doc_count() == 300
        # Each child wrote its segment's long lists beside it; scores below come from them.
        sides = [open_postings(p) for p in (tmp_path / "p").glob("*.ctxpost")]
        assert len(sides) == 2 and all(side is not None and len(side) >= 2 for side in sides)
        side = sides[0]
        assert side is not None and side.get("bodi") is not None and side.get("nowhere") is None
        assert sorted(parallel.keys()) == sorted(serial.keys())
        assert len(parallel._ix._segments()) == 2  # one per child: the child path ran
        for query in ("alpha", "beta gamma", '"数据模型"', "body 17", "note lambda", "body", "note body"):
            # Same documents, same scores (ties may come in another order: document numbers differ).
            assert _scored(_search(parallel, query)) == _scored(_search(serial, query)), query
        assert _scored(_search(parallel, "alpha", tags=["t1"])) == _scored(_search(serial, "alpha", tags=["t1"]))
        # The build folders are gone and the index reopens from its files.
        assert not [p for p in (tmp_path / "p").iterdir() if p.name.startswith(".build-")]
        parallel.close()
        assert parallel.open() and parallel.doc_count() == 300
        # A damaged postings file only means Whoosh's own (slower) lists: same answers.
        for path in (tmp_path / "p").glob("*.ctxpost"):
            path.write_bytes(path.read_bytes()[:-100])
        again = wb.WhooshBackend(tmp_path / "p")
        assert again.open()
        try:
            for query in ("body", "note body", "alpha"):
                assert _scored(_search(again, query)) == _scored(_search(serial, query)), query
        finally:
            again.close()
    finally:
        parallel.close()
        serial.close()


def test_child_build_then_writes_and_deletes(tmp_path: Path, small_threshold: None,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXNOTES_INDEX_WORKERS", "2")
    backend = wb.WhooshBackend(tmp_path / "ix")
    backend.create(_entries(40))
    try:
        backend.write([IndexEntry("notes/new.md", "note", "general", [], 1.0, "fresh", "omega words")],
                      ["notes/n0001.md"])
        backend.refresh()
        assert [k for k, _ in _search(backend, "omega")] == ["notes/new.md"]
        assert "notes/n0001.md" not in set(backend.keys())
        assert backend.doc_count() == 40
    finally:
        backend.close()


def test_a_failing_child_is_a_clear_storage_error(tmp_path: Path, small_threshold: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXNOTES_INDEX_WORKERS", "2")
    # A child that cannot import the builder dies at once: the parent must say so, not hang.
    monkeypatch.setattr("notes_store.index.parallel_build.sys.executable", "/bin/false")
    backend = wb.WhooshBackend(tmp_path / "ix")
    with pytest.raises(StorageError, match="index build process"):
        backend.create(_entries(60))
    assert not [p for p in (tmp_path / "ix").iterdir() if p.name.startswith(".build-")]


def test_workspace_rebuild_in_children_keeps_every_note_searchable(tmp_path: Path, small_threshold: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXNOTES_INDEX_WORKERS", "2")
    root = tmp_path / "w"
    ws = open_workspace(root)
    ids = [ws.notes.create(f"title {i}", f"{WORDS[i % 10]} text {i}").id for i in range(30)]
    ws.close()
    ws = open_workspace(root)
    try:
        assert ws.rebuild() == 30
        assert ws.index_count("note") == 30
        assert {h.note.id for h in ws.notes.search("alpha", limit=50).hits} == {ids[i] for i in range(0, 30, 10)}
        assert os.listdir(root / ".index" / "whoosh")
    finally:
        ws.close()


def test_no_child_can_start_so_the_build_runs_in_process(tmp_path: Path, small_threshold: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXNOTES_INDEX_WORKERS", "2")
    monkeypatch.setattr("notes_store.index.parallel_build.sys.executable", str(tmp_path / "no-such-python"))
    backend = wb.WhooshBackend(tmp_path / "ix")
    try:
        assert backend.create(_entries(60)) == 60
        assert backend.doc_count() == 60 and len(_search(backend, "body")) == 60
    finally:
        backend.close()
