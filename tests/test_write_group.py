"""Group commit (issue 16): writes queued while another writer holds the workspace go through together.

``Workspace.write_group``: the first writer to find the workspace free leads; it takes the locks once
for every write queued by then, renames each, fsyncs the folder once, and only then registers and
acknowledges them. Each write's own failure (a revision check) reaches its own caller only; the others
land. Also: inotify reports of this process's own writes are settled without the writers' mutex, and
a key reported again while being applied stays pending.

Real files, real locks, real Whoosh index. The one addition is a counting wrapper around the folder
fsync (it still fsyncs), to see how many a group made.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from notes_store import open_workspace
from notes_store.files import group_commit as workspace_module
from notes_store.errors import Conflict
from test_guarantees_lock import COUNTER_START


def _wait_for(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.002)


class _CountingFsync:
    def __init__(self, real: Any) -> None:
        self.real = real
        self.calls: list[str] = []

    def __call__(self, folder: Any) -> None:
        self.calls.append(str(folder))
        self.real(folder)



def assert_reopened_count(root: Path, n: int) -> None:
    """A fresh open (another process's view) lists ``n`` notes and indexes as many."""
    again = open_workspace(root)
    try:
        assert again.notes.list(limit=200).total == n
        assert again.index_count("note") == n
    finally:
        again.close()


def test_a_group_lands_together_and_a_failed_revision_check_fails_alone(tmp_path, monkeypatch):
    ws = open_workspace(tmp_path / "w")
    try:
        target = ws.notes.create("shared", "version zero")
        counting = _CountingFsync(workspace_module.fsync_dir)
        monkeypatch.setattr(workspace_module, "fsync_dir", counting)
        warnings_by_title: dict[str, str] = {}

        def listener(event: Any) -> str | None:
            warnings_by_title[event.title] = f"listener saw {event.title}"
            return f"listener saw {event.title}"

        ws.write_listeners.append(listener)
        results: dict[str, Any] = {}
        holding = threading.Event()
        release = threading.Event()

        def hold() -> None:  # another writer holds the workspace: the writes below queue up
            with ws.writing():
                holding.set()
                release.wait(10)

        def run(name: str, fn: Any) -> None:
            try:
                results[name] = fn()
            except BaseException as exc:  # checked below: each write gets its own outcome
                results[name] = exc

        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(10)
        jobs = {f"create{i}": (lambda i=i: ws.notes.create(f"grouped {i}", f"zqgroup{i} body"))
                for i in range(4)}
        # Two updates staged on the same revision: the first in the group lands, the second then
        # fails its revision check (under the lock), alone.
        jobs["update_a"] = lambda: ws.notes.update(target.id, content="version a",
                                                    expected_revision=target.revision)
        threads = []
        for name, fn in jobs.items():
            t = threading.Thread(target=run, args=(name, fn))
            t.start()
            threads.append(t)
        # All five wait behind the holder (the first to arrive waits for the locks as the leader; the
        # others queue behind it and are taken into its group once it has the locks).
        _wait_for(lambda: len(ws._group) == 5)
        update_b = threading.Thread(target=run, args=("update_b", lambda: ws.notes.update(
            target.id, content="version b", expected_revision=target.revision)))
        update_b.start()
        threads.append(update_b)
        _wait_for(lambda: len(ws._group) == 6)
        release.set()
        holder.join(10)
        for t in threads:
            t.join(20)
        assert not any(t.is_alive() for t in threads)

        # One leader applied all six in one hold: one folder fsync for the group (not one per write).
        assert len(counting.calls) == 1, counting.calls
        assert isinstance(results["update_b"], Conflict), results["update_b"]
        assert results["update_a"].content == "version a"
        assert ws.notes.read(target.id).content == "version a"
        for i in range(4):
            note = results[f"create{i}"]
            assert not isinstance(note, BaseException), note
            assert (ws.root / "notes" / f"{note.id}.md").exists()
            assert [h.note.id for h in ws.notes.search(f"zqgroup{i}").hits] == [note.id]
            # each writer gets its own listener warning, not another's
            assert note.warnings == [f"listener saw grouped {i}"], note.warnings
        assert results["update_a"].warnings == ["listener saw shared"]
        # The group's files are durable and found by a fresh open (another process's view).
        ws.write_listeners.remove(listener)
    finally:
        ws.close()
    assert_reopened_count(tmp_path / "w", 5)


def test_a_write_nested_in_a_held_workspace_does_not_queue(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        with ws.writing():  # e.g. a caller holding the workspace for several writes
            a = ws.notes.create("nested a", "first")
            b = ws.notes.update(a.id, content="second", expected_revision=a.revision)
        assert ws.notes.read(a.id).content == "second" == b.content
    finally:
        ws.close()


def test_many_threads_writing_lose_nothing(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        counter = ws.notes.create("counter", "0")
        made: list[str] = []
        errors: list[BaseException] = []

        def worker(k: int) -> None:
            try:
                for i in range(15):
                    made.append(ws.notes.create(f"t{k} {i}", f"zqmany{k}x{i}").id)
                    while True:  # compare-and-swap increments through the groups
                        note = ws.notes.read(counter.id)
                        try:
                            ws.notes.update(counter.id, content=str(int(note.content) + 1),
                                            expected_revision=note.revision)
                            break
                        except Conflict:
                            pass
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        assert ws.notes.read(counter.id).content == str(6 * 15)
        assert len(set(made)) == 90
        assert ws._group == [] and not ws._group_leading
    finally:
        ws.close()
    assert_reopened_count(tmp_path / "w", 91)


THREADED_COUNTER = COUNTER_START + r"""
import threading
conflicts = [0]
created = []
def work():
    for _ in range(n):
        created.append(ws.notes.create("side", "created beside the counter").id)
        conflicts[0] += increment()
threads = [threading.Thread(target=work) for _ in range(3)]
for t in threads: t.start()
for t in threads: t.join()
ws.close()
print(json.dumps({"conflicts": conflicts[0], "created": created}))
"""


def test_two_processes_with_grouped_writes_lose_nothing(tmp_path):
    from test_guarantees_lock import _run_together  # the same barrier-started workers

    root = tmp_path / "ws"
    ws = open_workspace(root)
    note_id = ws.notes.create("counter", "0").id
    ws.close()
    per_thread = 12
    results = _run_together(THREADED_COUNTER, [[str(root), note_id, str(per_thread)]] * 2, tmp_path / "go")
    ws = open_workspace(root)
    try:
        assert ws.notes.read(note_id).content == str(2 * 3 * per_thread), results
        created = [i for r in results for i in r["created"]]
        assert len(created) == 2 * 3 * per_thread
        for nid in created:
            ws.notes.read(nid)
        assert ws.index_count("note") == 1 + len(created)
    finally:
        ws.close()
    assert sum(r["conflicts"] for r in results) > 0, results


@pytest.mark.skipif(sys.platform != "linux", reason="inotify")
def test_own_writes_reported_by_inotify_are_settled_without_the_writers_mutex(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        if not ws.watching_with_inotify:
            pytest.skip("no inotify here")
        ws.notes.create("own write", "text")
        taken = threading.Event()
        done = threading.Event()

        def hold_mutex() -> None:  # a writer busy in this process
            with ws._mutex:
                taken.set()
                done.wait(10)

        t = threading.Thread(target=hold_mutex)
        t.start()
        try:
            assert taken.wait(10)
            ws.refresh()  # a search's look: must not need the mutex for a file that matches its row
            assert not ws._sync.has_pending
        finally:
            done.set()
            t.join(10)
    finally:
        ws.close()


@pytest.mark.skipif(sys.platform != "linux", reason="inotify")
def test_a_key_reported_again_while_applied_stays_pending(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        if not ws.watching_with_inotify:
            pytest.skip("no inotify here")
        note = ws.notes.create("edited", "one")
        ws.refresh()
        path = ws.root / "notes" / f"{note.id}.md"
        path.write_bytes(path.read_bytes() + b"\nedit one\n")
        first = ws._sync.poll()
        assert first is not None and f"notes/{note.id}.md" in first
        path.write_bytes(path.read_bytes() + b"\nedit two\n")  # changed again after the first poll
        second = ws._sync.poll()  # another thread's look
        assert second is not None and f"notes/{note.id}.md" in second
        ws._sync.applied(first)  # the first looker applied what it saw
        assert ws._sync.has_pending  # the second report is not lost
        ws.refresh()
        assert "edit two" in ws.notes.read(note.id).content
    finally:
        ws.close()


def test_committed_index_has_one_document_per_key_after_rewrites(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        notes = [ws.notes.create(f"doc {i}", f"zqfirst{i} words") for i in range(5)]
        ws.flush()
        for n in notes:
            ws.notes.update(n.id, content=f"zqsecond{n.title[-1]} other words")
        ws.flush()
        ws.notes.delete(notes[0].id)
        ws.flush()
        assert ws.index_count("note") == 4
        for i, n in enumerate(notes[1:], 1):
            assert ws.notes.search(f"zqfirst{i}").hits == []
            assert [h.note.id for h in ws.notes.search(f"zqsecond{i}").hits] == [n.id]
    finally:
        ws.close()


def test_the_change_token_is_rewritten_in_place_and_survives_its_file_being_deleted(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        sync = ws._sync
        path = ws.index_dir / "changes"
        first = sync.bump_token()
        assert first is not None and sync.read_token() == first == path.read_bytes()
        inode = path.stat().st_ino
        second = sync.bump_token()
        assert second != first and path.read_bytes() == second and path.stat().st_ino == inode
        path.unlink()  # e.g. someone deleted .index/: the next bump makes a file other processes can see
        third = sync.bump_token()
        assert third is not None and path.read_bytes() == third
        path.write_bytes(b"x" * 60)  # a longer old content is cut off when the file is opened again
        path.unlink()
        path.write_bytes(b"y" * 60)
        fourth = sync.bump_token()
        assert path.read_bytes() == fourth
    finally:
        ws.close()
