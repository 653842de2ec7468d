"""Attacks on the store: concurrent processes, SIGKILL mid-write, full disks, failing renames."""

from __future__ import annotations

import errno
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from notes_store import StorageError, open_workspace
from notes_store.files.front_matter import parse_document


def _round_one(root, prefix, count):
    ws = open_workspace(root)
    for i in range(count):
        ws.notes.create(f"{prefix} {i}", f"{prefix} body {i} shared")
    ws.close()


def _round_two(root, prefix):
    """Update the even notes of this prefix, delete every third."""
    ws = open_workspace(root)
    mine = [n for n in ws.notes.list(limit=1000).notes if n.title.startswith(prefix + " ")]
    for note in mine:
        i = int(note.title.split()[1])
        if i % 3 == 0:
            ws.notes.delete(note.id)
        elif i % 2 == 0:
            ws.notes.update(note.id, content=f"{prefix} updated {i} shared")
    ws.close()


def _run_all(target, args_list):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=target, args=args) for args in args_list]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
        assert p.exitcode == 0


def test_two_processes_500_creates_then_updates_and_deletes(tmp_path):
    root = tmp_path / "w"
    open_workspace(root).close()
    _run_all(_round_one, [(root, "alpha", 500), (root, "beta", 500)])
    ws = open_workspace(root)
    assert len(os.listdir(root / "notes")) == 1000
    assert ws.notes.search("shared", limit=100).total == 1000
    assert ws.index_count() == 1000
    assert len({n.id for n in ws.notes.list(limit=1000).notes}) == 1000
    ws.close()

    _run_all(_round_two, [(root, "alpha"), (root, "beta")])
    ws = open_workspace(root)
    expected_left = 2 * sum(1 for i in range(500) if i % 3)
    expected_updated = 2 * sum(1 for i in range(500) if i % 3 and i % 2 == 0)
    assert len(os.listdir(root / "notes")) == expected_left
    assert ws.index_count() == expected_left
    assert ws.notes.search("shared", limit=100).total == expected_left
    assert ws.notes.search("updated", limit=100).total == expected_updated
    titles = [n.title for n in ws.notes.list(limit=1000).notes]
    assert len(titles) == len(set(titles)) == expected_left
    ws.close()


WRITER = textwrap.dedent("""
    import sys
    from notes_store import open_workspace
    ws = open_workspace(sys.argv[1])
    print("ready", flush=True)
    i = 0
    while True:
        note = ws.notes.create(f"crash {sys.argv[2]} {i}", "survivor text " + "x" * (i % 50) * 100)
        print(note.id, flush=True)
        if i % 3 == 0:
            ws.notes.update(note.id, content="survivor updated " + "y" * 4000)
            print("updated", note.id, flush=True)
        i += 1
""")


def _all_ids(ws) -> set[str]:
    ids: set[str] = set()
    while True:
        page = ws.notes.list(limit=1000, offset=len(ids)).notes
        if not page:
            return ids
        ids |= {n.id for n in page}


def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path):
    root = tmp_path / "w"
    open_workspace(root).close()
    acknowledged: set[str] = set()
    rng = random.Random(7)
    for round_no in range(20):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(root), str(round_no)], stdout=subprocess.PIPE,
                                text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.01, 0.25))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        for line in out.splitlines():
            if line.startswith("note_"):
                acknowledged.add(line.strip())
    ws = open_workspace(root)
    files = os.listdir(root / "notes")
    assert not [f for f in files if f.startswith(".tmp-")], "temp files must be cleaned on open"
    for name in files:  # no partial or corrupt note
        parse_document((root / "notes" / name).read_bytes())
    assert ws.notes.summary().unreadable == []
    present = _all_ids(ws)
    assert acknowledged <= present
    assert len(acknowledged) > 20
    found = ws.notes.search("survivor", limit=100).total
    assert found == len(present) == ws.index_count()
    ws.close()


def test_failing_rename_keeps_old_version(ws, monkeypatch):
    note = ws.notes.create("Keep me", "old version")
    before = open(note.path, "rb").read()

    def failing_replace(src, dst):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(StorageError, match="previous version .* unchanged"):
        ws.notes.update(note.id, content="new version")
    with pytest.raises(StorageError):
        ws.notes.create("New", "never written")
    monkeypatch.undo()
    assert open(note.path, "rb").read() == before
    assert not [f for f in os.listdir(ws.root / "notes") if f.startswith(".tmp-")]
    assert ws.notes.read(note.id).content == "old version"
    assert ws.notes.search("version").total == 1 and ws.notes.list().total == 1


def test_failing_fsync_keeps_old_version(ws, monkeypatch):
    note = ws.notes.create("Keep me", "old version")
    real_fsync = os.fsync

    def failing_fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(StorageError, match="No space left"):
        ws.notes.update(note.id, content="new version")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert ws.notes.read(note.id).content == "old version"


@pytest.fixture
def tiny_fs(tmp_path):
    mount_point = tmp_path / f"tiny-{uuid.uuid4().hex[:6]}"
    mount_point.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount_point)],
                            capture_output=True)
    if result.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root): " + result.stderr.decode(errors="replace").strip())
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def test_full_disk_gives_clear_error_and_keeps_notes(tiny_fs):
    ws = open_workspace(tiny_fs / "w")
    first = ws.notes.create("First", "small and safe")
    errors = []
    created = [first.id]
    for i in range(200):
        try:
            created.append(ws.notes.create(f"filler {i}", "z" * 8000).id)
        except StorageError as exc:
            errors.append(str(exc))
            break
    assert errors, "the tiny filesystem should have filled up"
    assert "could not write" in errors[0] or "index" in errors[0]
    with pytest.raises(StorageError):
        ws.notes.update(first.id, content="q" * 200_000)
    assert ws.notes.read(first.id).content == "small and safe"
    assert not [f for f in os.listdir(tiny_fs / "w" / "notes") if f.startswith(".tmp-")]
    for note_id in created:  # everything acknowledged is still there
        assert (tiny_fs / "w" / "notes" / f"{note_id}.md").exists()
    try:
        ws.close()
    except StorageError:
        pass


def test_lock_held_by_a_hung_process_gives_a_clear_error(tmp_path):
    root = tmp_path / "w"
    ws = open_workspace(root)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(root / '.ctxnotes.lock')!r}, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0); os.pwrite(fd, b"pid %d" % os.getpid(), 0)
        print("locked", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        ws.lock.timeout = 0.3
        with pytest.raises(StorageError, match=f"locked by pid {holder.pid}"):
            ws.notes.create("blocked", "x")
        assert os.listdir(root / "notes") == []
    finally:
        holder.kill()
        holder.wait()
    assert ws.notes.create("free again", "x").title == "free again"
    ws.close()


def test_content_limit_from_the_environment(tmp_path, monkeypatch):
    from notes_store import InvalidInput
    monkeypatch.setenv("CTXNOTES_MAX_CONTENT_BYTES", "100")
    ws = open_workspace(tmp_path / "w")
    with pytest.raises(InvalidInput, match="limit of 100 bytes"):
        ws.notes.create("big", "x" * 101)
    ws.close()
