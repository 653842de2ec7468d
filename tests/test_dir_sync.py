"""Group commit of folder fsyncs (notes_store.dir_sync) and the workspace hook stores call after a rename.

Real threads and real folders; the fsync is wrapped (it still runs) so that the calls can be counted
and timed against the renames they must cover.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from notes_store import open_workspace
from notes_store.dir_sync import DirSync
from notes_store.fsio import fsync_dir
from notes_store.errors import StorageError


class _Recorder:
    """The real folder fsync, slowed a little, with what each call was asked to cover."""

    def __init__(self, sync: DirSync | None = None, delay: float = 0.03) -> None:
        self.sync = sync
        self.delay = delay
        self.started: list[int] = []  # renames marked when each fsync began
        self.fail_next = False

    def __call__(self, folder: Path) -> None:
        assert self.sync is not None
        self.started.append(self.sync._folders[folder].renamed)
        if self.fail_next:
            self.fail_next = False
            raise OSError(5, "Input/output error")
        time.sleep(self.delay)
        fsync_dir(folder)


def test_concurrent_writers_share_fsyncs_and_each_waits_for_one_covering_its_rename(tmp_path):
    rec = _Recorder()
    sync = DirSync(rec)
    rec.sync = sync
    tickets: list[tuple[int, int]] = []  # (ticket, fsyncs started when the waiter returned)
    lock = threading.Lock()

    def writer() -> None:
        for _ in range(5):
            ticket = sync.renamed(tmp_path)
            sync.wait_durable(tmp_path, ticket)
            with lock:
                tickets.append((ticket, len(rec.started)))

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(tickets) == 40
    assert sync.fsyncs < 40, "no fsync was shared"
    for ticket, started in tickets:
        # Some fsync that had finished by the time this waiter returned began after its rename.
        assert any(covered >= ticket for covered in rec.started[:started]), (ticket, rec.started[:started])


def test_a_failed_fsync_reaches_its_waiter_and_the_next_one_retries(tmp_path):
    rec = _Recorder(delay=0)
    sync = DirSync(rec)
    rec.sync = sync
    rec.fail_next = True
    first = sync.renamed(tmp_path)
    with pytest.raises(OSError):
        sync.wait_durable(tmp_path, first)
    sync.wait_durable(tmp_path, first)  # tried again, and this time made durable
    assert sync.fsyncs == 1 and len(rec.started) == 2


def test_the_workspace_fsyncs_a_folder_after_releasing_the_locks_and_before_returning(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        folder = ws.folder("note")
        seen: list[bool] = []

        def fsync(path: Path) -> None:
            # Another thread can take the writers' mutex now: the locks are released.
            got: list[bool] = []
            t = threading.Thread(target=lambda: got.append(ws._mutex.acquire(timeout=5) and not ws._mutex.release()))
            t.start()
            t.join(10)
            seen.append(got == [True])
            fsync_dir(path)

        ws._dir_sync = DirSync(fsync)
        with ws.writing():
            (folder / "x.txt").write_bytes(b"x")
            os.replace(folder / "x.txt", folder / "y.txt")
            ws.folder_needs_sync(folder)
            assert seen == []  # not while the locks are held
        assert seen == [True]  # done by the time writing() returned
        ws.folder_needs_sync(folder)  # outside writing(): at once
        assert seen == [True, True]
    finally:
        ws.close()


def test_a_failed_folder_fsync_is_a_storage_error_for_the_writer(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        def broken(path: Path) -> None:
            raise OSError(28, "No space left on device")

        ws._dir_sync = DirSync(broken)
        with pytest.raises(StorageError, match="durable"):
            with ws.writing():
                ws.folder_needs_sync(ws.folder("note"))
        ws._dir_sync = DirSync()
        ws.notes.create("after", "the next write works")  # nothing left queued from the failed one
        assert ws.notes.list().total == 1
    finally:
        ws.close()
