"""Revisions and compare-and-swap writes (issue 12), through the real stores in temporary workspaces."""

from __future__ import annotations

import multiprocessing
import re
import shutil
import subprocess

import pytest

from notes_store import Conflict, InvalidInput, NotFound, open_workspace
from notes_store.files.front_matter import dump_document, parse_document

REV = re.compile(r"[0-9a-f]{12}")


@pytest.fixture
def ws(tmp_path):
    w = open_workspace(tmp_path / "ws")
    yield w
    w.close()


def edit_by_hand(path, **changes):
    doc = parse_document(open(path, "rb").read())
    meta = {**doc.meta, **{k: v for k, v in changes.items() if k != "body"}}
    with open(path, "wb") as fh:
        fh.write(dump_document(meta, changes.get("body", doc.body)))


def test_every_note_result_carries_the_same_revision(ws):
    note = ws.notes.create("Deploy plan", "roll out the kiwi service", tags=["ops"])
    assert REV.fullmatch(note.revision)
    assert ws.notes.read(note.id).revision == note.revision
    assert ws.notes.list().notes[0].revision == note.revision
    assert ws.notes.search("kiwi").hits[0].note.revision == note.revision
    assert ws.notes.summary().recent[0].revision == note.revision
    assert note.to_dict()["revision"] == note.revision
    assert ws.notes.search("kiwi").to_dict()["hits"][0]["revision"] == note.revision


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_revision_is_the_git_blob_id_prefix(ws):
    note = ws.notes.create("Blob", "content")
    out = subprocess.run(["git", "hash-object", note.path], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip()[:12] == note.revision


def test_update_with_the_current_revision_succeeds_and_a_stale_one_changes_nothing(ws):
    note = ws.notes.create("Counter", "1")
    updated = ws.notes.update(note.id, content="2", expected_revision=note.revision)
    assert updated.content == "2" and updated.revision != note.revision
    before = open(note.path, "rb").read()
    with pytest.raises(Conflict) as err:
        ws.notes.update(note.id, content="3", expected_revision=note.revision)
    message = str(err.value)
    assert "changed since it was read" in message and updated.revision in message
    assert err.value.current_revision == updated.revision
    assert open(note.path, "rb").read() == before
    assert ws.notes.read(note.id).content == "2"


def test_a_hand_edit_changes_the_revision_and_stops_a_stale_update(ws):
    note = ws.notes.create("Edited", "before")
    edit_by_hand(note.path, body="# Edited\n\nedited in vim\n")
    current = ws.notes.read(note.id)
    assert current.revision != note.revision and current.content == "edited in vim"
    with pytest.raises(Conflict, match=current.revision):
        ws.notes.update(note.id, title="Mine", expected_revision=note.revision)
    assert ws.notes.read(note.id).title == "Edited"


def test_without_expected_revision_the_last_writer_wins(ws):
    note = ws.notes.create("LWW", "a")
    ws.notes.update(note.id, content="first writer")
    ws.notes.update(note.id, content="second writer")  # read before the first write, still applied
    assert ws.notes.read(note.id).content == "second writer"


def test_delete_checks_the_revision(ws):
    note = ws.notes.create("Doomed", "x")
    newer = ws.notes.update(note.id, content="y")
    with pytest.raises(Conflict, match="changed since it was read"):
        ws.notes.delete(note.id, expected_revision=note.revision)
    assert ws.notes.read(note.id).content == "y"
    gone = ws.notes.delete(note.id, expected_revision=newer.revision)
    assert gone["deleted"] and gone["revision"] == newer.revision
    with pytest.raises(NotFound):
        ws.notes.read(note.id)


def test_unchanged_update_keeps_the_revision(ws):
    note = ws.notes.create("Same", "x", tags=["a"])
    again = ws.notes.update(note.id, content="x", expected_revision=note.revision)
    assert again.revision == note.revision


@pytest.mark.parametrize("bad", ["", "zz", "not-a-revision", "1" * 41, 12])
def test_malformed_expected_revision_is_refused(ws, bad):
    note = ws.notes.create("Bad rev", "x")
    with pytest.raises(InvalidInput, match="expected_revision"):
        ws.notes.update(note.id, content="y", expected_revision=bad)
    assert ws.notes.read(note.id).content == "x"


def test_memory_revisions_and_compare_and_swap(ws):
    m = ws.memory.add("the durian fact", memory_type="semantic")
    assert REV.fullmatch(m.revision)
    assert ws.memory.read(m.id).revision == m.revision
    assert ws.memory.list().memories[0].revision == m.revision
    assert ws.memory.search("durian").hits[0].memory.revision == m.revision  # recall rewrites nothing
    assert ws.memory.search("durian").to_dict()["hits"][0]["revision"] == m.revision
    changed = ws.memory.update(m.id, importance=0.9, expected_revision=m.revision)
    assert changed.revision != m.revision
    with pytest.raises(Conflict, match=changed.revision):
        ws.memory.update(m.id, importance=0.1, expected_revision=m.revision)
    assert ws.memory.read(m.id).importance == 0.9
    with pytest.raises(Conflict):
        ws.memory.forget(memory_id=m.id, expected_revision=m.revision)
    assert ws.memory.read(m.id).id == m.id
    with pytest.raises(InvalidInput, match="by memory_id"):
        ws.memory.forget(strategy="importance_based", expected_revision=m.revision)
    result = ws.memory.forget(memory_id=m.id, expected_revision=changed.revision)
    assert [r.revision for r in result.removed] == [changed.revision]
    with pytest.raises(NotFound):
        ws.memory.read(m.id)


def _increment(root, note_id, times):
    """Read-modify-write with compare-and-swap, retrying on conflicts."""
    w = open_workspace(root)
    try:
        for _ in range(times):
            while True:
                note = w.notes.read(note_id)
                try:
                    w.notes.update(note_id, content=str(int(note.content) + 1), expected_revision=note.revision)
                    break
                except Conflict:
                    continue
    finally:
        w.close()


def test_two_processes_incrementing_with_compare_and_swap_lose_nothing(tmp_path):
    root = tmp_path / "ws"
    w = open_workspace(root)
    note = w.notes.create("Counter", "0")
    w.close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_increment, args=(root, note.id, 15)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    w = open_workspace(root)
    try:
        assert w.notes.read(note.id).content == "30"
    finally:
        w.close()
