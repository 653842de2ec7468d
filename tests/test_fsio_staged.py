"""Note writes fsync their data before taking the workspace lock (issue 16).

Under the lock only the revision check, the rename, the folder fsync and the catalogue update remain;
the durable order stays file fsync -> rename -> folder fsync -> acknowledge. A writer that dies between
its temp write and the rename leaves no note and no index entry, only a temp file the next open sweeps.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from notes_store import open_workspace
from notes_store.errors import Conflict
from notes_store.files.durable import TEMP_PREFIX

REPO = Path(__file__).resolve().parents[1]


class LockedSyscalls:
    """fsync / replace calls in order, each with whether this process held the workspace lock then."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, ws) -> None:
        self.events: list[tuple[str, bool]] = []
        real_fsync, real_replace = os.fsync, os.replace

        def held() -> bool:
            return ws.lock._depth > 0

        def fsync(fd: int) -> None:
            kind = "fsync_dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync_file"
            self.events.append((kind, held()))
            real_fsync(fd)

        def replace(src, dst, *a, **k):
            self.events.append(("rename", held()))
            real_replace(src, dst, *a, **k)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)


def test_create_and_update_fsync_the_file_before_the_lock(tmp_path, monkeypatch):
    ws = open_workspace(tmp_path / "w", commit_delay=3600)  # no background commit fsyncs in between
    try:
        log = LockedSyscalls(monkeypatch, ws)
        note = ws.notes.create("Staged", "written before the lock")
        assert log.events == [("fsync_file", False), ("rename", True), ("fsync_dir", True)]
        log.events.clear()
        ws.notes.update(note.id, content="changed before the lock too")
        assert log.events == [("fsync_file", False), ("rename", True), ("fsync_dir", True)]
        assert ws.notes.read(note.id).content == "changed before the lock too"
        assert not [p for p in ws.notes.files.folder.iterdir() if p.name.startswith(TEMP_PREFIX)]
    finally:
        ws.close()


def test_a_writer_killed_between_temp_write_and_rename_leaves_no_note(tmp_path):
    root = tmp_path / "w"
    ws = open_workspace(root)
    ws.notes.create("Kept", "an earlier note")
    ws.close()
    child = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(REPO)!r})
        from notes_store import open_workspace
        ws = open_workspace({str(root)!r})
        meta = {{"id": ws.notes.files.new_id(), "title": "Never acknowledged", "type": "general", "tags": [],
                 "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}}
        ws.notes._stage(meta, "zqstagedword")
        os._exit(0)  # dies before the rename: no lock taken, nothing acknowledged
    """)
    subprocess.run([sys.executable, "-c", child], check=True, timeout=120)
    folder = root / "notes"
    assert [p for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX)], "the child should leave a temp file"
    ws = open_workspace(root)
    try:
        assert [n.title for n in ws.notes.list().notes] == ["Kept"]
        assert ws.notes.search("zqstagedword").total == 0
        assert not [p for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX)]  # swept at open
    finally:
        ws.close()


def _stage_swept_note(files):
    """A note staged (temp file written and fsynced, not yet renamed): its id, bytes and staged write."""
    item_id = files.new_id()
    data = (f"---\nid: {item_id}\ntitle: Swept\ntype: general\ntags: []\ncreated_at: 2026-01-01T00:00:00Z\n"
            "updated_at: 2026-01-01T00:00:00Z\n---\n# Swept\n\nzqsweptword\n").encode()
    return item_id, data, files.stage(item_id, data)


def test_a_temp_file_swept_before_the_rename_is_written_again(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        files = ws.notes.files
        item_id, data, staged = _stage_swept_note(files)
        os.unlink(staged.file.tmp)  # what a workspace opening in another process does to temp files
        with ws.writing():
            files.commit(staged)
        assert files.path(item_id).read_bytes() == data
        assert [h.note.id for h in ws.notes.search("zqsweptword").hits] == [item_id]
    finally:
        ws.close()


def _interleave(monkeypatch, ws, other) -> None:
    """Run ``other()`` (another writer, in another thread) right after the next update staged its file."""
    real = ws.notes._stage
    fired = []

    def stage(meta, content):
        staged = real(meta, content)
        if not fired:
            fired.append(True)
            t = threading.Thread(target=other)
            t.start()
            t.join(30)
        return staged
    monkeypatch.setattr(ws.notes, "_stage", stage)


def test_an_update_staged_on_an_old_revision_is_redone_under_the_lock(tmp_path, monkeypatch):
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("Old title", "old content")
        _interleave(monkeypatch, ws, lambda: ws.notes.update(note.id, content="the other writer's content"))
        ws.notes.update(note.id, title="New title")  # staged on "old content": must not undo the other write
        got = ws.notes.read(note.id)
        assert (got.title, got.content) == ("New title", "the other writer's content")
        assert not [p for p in ws.notes.files.folder.iterdir() if p.name.startswith(TEMP_PREFIX)]
    finally:
        ws.close()


def test_expected_revision_is_checked_under_the_lock(tmp_path, monkeypatch):
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("Title", "first")
        _interleave(monkeypatch, ws, lambda: ws.notes.update(note.id, content="second"))
        with pytest.raises(Conflict):
            ws.notes.update(note.id, content="third", expected_revision=note.revision)
        assert ws.notes.read(note.id).content == "second"
        assert not [p for p in ws.notes.files.folder.iterdir() if p.name.startswith(TEMP_PREFIX)]
    finally:
        ws.close()


def test_the_sweep_keeps_live_writers_temp_files_and_removes_dead_ones(tmp_path):
    from notes_store.files.durable import remove_temp_files, stage_write
    folder = tmp_path / "notes"
    folder.mkdir()
    mine = stage_write(folder / "a.md", b"in flight")  # this process: alive, its write may commit any moment
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True, timeout=60).stdout.strip()
    leftover = folder / f"{TEMP_PREFIX}b.md.{dead}.140000.0"  # a writer that has exited
    leftover.write_bytes(b"stale")
    old_style = folder / f"{TEMP_PREFIX}c.md.1.2"  # an older writer's name: those wrote under the lock only
    old_style.write_bytes(b"stale")
    bare = folder / f"{TEMP_PREFIX}d.md"
    bare.write_bytes(b"stale")
    assert sorted(remove_temp_files(folder)) == sorted([leftover.name, old_style.name, bare.name])
    assert mine.tmp.exists()
    mine.commit()
    assert (folder / "a.md").read_bytes() == b"in flight"


def test_a_temp_file_swept_again_after_the_rewrite_is_a_clear_error(tmp_path, monkeypatch):
    from notes_store.files import durable as fsio
    from notes_store.errors import StorageError

    ws = open_workspace(tmp_path / "w")
    try:
        files = ws.notes.files
        item_id, data, staged = _stage_swept_note(files)
        os.unlink(staged.file.tmp)
        real = fsio.stage_write

        def swept_at_once(path, raw):  # every rewrite is swept too before its rename
            again = real(path, raw)
            os.unlink(again.tmp)
            return again
        monkeypatch.setattr(fsio, "stage_write", swept_at_once)
        with ws.writing(), pytest.raises(StorageError, match="deleted before the rename, twice"):
            files.commit(staged)
        assert not files.path(item_id).exists()
        assert not [p for p in files.path(item_id).parent.iterdir() if p.name.startswith(fsio.TEMP_PREFIX)]
    finally:
        ws.close()
