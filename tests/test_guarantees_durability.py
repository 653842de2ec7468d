"""Durable writes, observed: file fsync, then rename over the target, then fsync of the folder.

A power cut after the rename but before the folder is synced can lose the rename itself (the old file,
or no file, comes back). These tests watch the system calls the store makes (by wrapping the ``os``
functions for the duration of one write) and fail if the folder fsync is missing or out of order.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from notes_store import open_workspace


class SyscallLog:
    """Records fsync (of a file or a folder, by inode), replace/rename and unlink, in call order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, object]] = []
        real_fsync, real_replace, real_rename, real_unlink = os.fsync, os.replace, os.rename, os.unlink

        def fsync(fd: int) -> None:
            st = os.fstat(fd)
            kind = "fsync_dir" if stat.S_ISDIR(st.st_mode) else "fsync_file"
            self.events.append((kind, st.st_ino))
            real_fsync(fd)

        def replace(src, dst, *a, **k):
            real_replace(src, dst, *a, **k)
            self.events.append(("rename", (Path(src).name, Path(dst).resolve())))

        def rename(src, dst, *a, **k):
            real_rename(src, dst, *a, **k)
            self.events.append(("rename", (Path(src).name, Path(dst).resolve())))

        def unlink(path, *a, **k):
            real_unlink(path, *a, **k)
            self.events.append(("unlink", Path(path).resolve()))

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)
        monkeypatch.setattr(os, "rename", rename)
        monkeypatch.setattr(os, "unlink", unlink)

    def clear(self) -> None:
        self.events.clear()


def assert_durable_replace(events: list[tuple[str, object]], target: Path) -> None:
    """The temp file was fsynced, renamed onto ``target``, and then ``target``'s folder was fsynced."""
    target = target.resolve()
    renames = [i for i, (kind, arg) in enumerate(events) if kind == "rename" and arg[1] == target]  # type: ignore[index]
    assert renames, f"no rename onto {target.name}: {events}"
    at = renames[-1]
    file_syncs = [i for i, (kind, _) in enumerate(events[:at]) if kind == "fsync_file"]
    assert file_syncs, f"the new bytes were not fsynced before the rename onto {target.name}: {events}"
    folder_ino = os.stat(target.parent).st_ino
    dir_syncs = [i for i, (kind, ino) in enumerate(events) if kind == "fsync_dir" and ino == folder_ino and i > at]
    assert dir_syncs, f"the folder {target.parent.name}/ was not fsynced after the rename: {events}"


def assert_durable_unlink(events: list[tuple[str, object]], target: Path) -> None:
    target = target.resolve()
    unlinks = [i for i, (kind, arg) in enumerate(events) if kind == "unlink" and arg == target]
    assert unlinks, f"{target.name} was not unlinked: {events}"
    folder_ino = os.stat(target.parent).st_ino
    assert any(kind == "fsync_dir" and ino == folder_ino for kind, ino in events[unlinks[-1] + 1:]), \
        f"the folder {target.parent.name}/ was not fsynced after deleting {target.name}: {events}"


def test_atomic_write_order(tmp_path, monkeypatch):
    from notes_store.files.durable import atomic_write
    log = SyscallLog(monkeypatch)
    target = tmp_path / "sub" / "file.md"
    target.parent.mkdir()
    atomic_write(target, b"first")
    assert_durable_replace(log.events, target)
    log.clear()
    atomic_write(target, b"second")  # replacing an existing file
    assert_durable_replace(log.events, target)
    assert target.read_bytes() == b"second"
    assert [p.name for p in target.parent.iterdir()] == ["file.md"]  # no temp file left


def test_note_and_memory_writes_are_durable_in_order(tmp_path, monkeypatch):
    ws = open_workspace(tmp_path / "ws")
    try:
        ws.notes.list()  # opening work (index build) happens before we watch
        log = SyscallLog(monkeypatch)
        note = ws.notes.create("durable", "body")
        note_path = tmp_path / "ws" / "notes" / f"{note.id}.md"
        assert_durable_replace(log.events, note_path)
        log.clear()
        ws.notes.update(note.id, content="changed")
        assert_durable_replace(log.events, note_path)
        log.clear()
        ws.notes.delete(note.id)
        assert_durable_unlink(log.events, note_path)
        log.clear()
        mem = ws.memory.add("a durable memory")
        mem_id = mem.id if hasattr(mem, "id") else mem["id"]
        assert_durable_replace(log.events, tmp_path / "ws" / "memory" / f"{mem_id}.md")
    finally:
        monkeypatch.undo()
        ws.close()


def test_the_checker_notices_a_missing_folder_fsync(tmp_path, monkeypatch):
    """The assertion above is not vacuous: with ``fsync_dir`` made a no-op it fails."""
    import notes_store.files.durable as fsio
    monkeypatch.setattr(fsio, "fsync_dir", lambda folder: None)
    log = SyscallLog(monkeypatch)
    target = tmp_path / "file.md"
    fsio.atomic_write(target, b"x")
    with pytest.raises(AssertionError, match="was not fsynced after the rename"):
        assert_durable_replace(log.events, target)
