"""The engine's guarantees: the lock outside the index, change listeners, writes searchable before
their commit, ghost notes, watcher errors. Real files, real index, real processes."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from notes_store import open_workspace

REPO = Path(__file__).resolve().parents[1]


def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_lock_lives_outside_the_index_and_survives_its_deletion(tmp_path):
    root = tmp_path / "w"
    ws = open_workspace(root)
    assert ws.lock.path == root / ".ctxnotes.lock"
    assert ".ctxnotes.lock" in (root / ".gitignore").read_text().splitlines()
    with ws.lock.hold():
        shutil.rmtree(root / ".index")  # the derived folder goes; the lock does not
        fd = os.open(root / ".ctxnotes.lock", os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):  # a second writer still cannot get in
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    ws.notes.create("after", "the index comes back")
    assert ws.notes.search("index").total == 1
    ws.close()


def test_a_replaced_lock_file_is_not_trusted(tmp_path):
    """Deleting the lock file while a process holds it: the next holder locks the file now at the path."""
    root = tmp_path / "w"
    ws = open_workspace(root)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys
        fd = os.open({str(root / '.ctxnotes.lock')!r}, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.unlink({str(root / '.ctxnotes.lock')!r})   # someone removes it while held
        fd2 = os.open({str(root / '.ctxnotes.lock')!r}, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd2, fcntl.LOCK_EX)               # ... and holds the new one
        print("locked", flush=True)
        sys.stdin.readline()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        ws.lock.timeout = 0.5
        from notes_store import StorageError
        with pytest.raises(StorageError, match="locked by"):
            ws.notes.create("blocked", "x")
    finally:
        holder.stdin.write("\n"), holder.stdin.flush()
        holder.wait(timeout=10)
        holder.stdin.close(), holder.stdout.close()
    assert ws.notes.create("free", "x").title == "free"
    ws.close()


def test_change_listeners_hear_own_writes_and_outside_changes(tmp_path):
    ws = open_workspace(tmp_path / "w")
    heard: list[dict[str, str]] = []
    remove = ws.add_change_listener(heard.append)
    note = ws.notes.create("Listened", "words")
    key = f"notes/{note.id}.md"
    assert heard == [{key: "created"}]
    ws.notes.update(note.id, content="other words")
    assert heard[-1] == {key: "updated"}
    outside = ws.root / "notes" / "dropped.md"
    outside.write_text("---\nid: dropped\ntitle: Dropped\n---\nfrom an editor\n", encoding="utf-8")
    ws.notes.list()
    assert heard[-1] == {"notes/dropped.md": "created"}
    outside.unlink()
    ws.notes.list()
    assert heard[-1] == {"notes/dropped.md": "deleted"}
    ws.notes.delete(note.id)
    assert heard[-1] == {key: "deleted"}
    remove()
    ws.notes.create("unheard", "x")
    assert len(heard) == 5
    ws.close()


def test_writes_are_searchable_before_the_index_commits_them(tmp_path):
    ws = open_workspace(tmp_path / "w", commit_delay=3600)
    other = open_workspace(tmp_path / "w", commit_delay=3600)  # another client of the same folder
    kept = ws.notes.create("Kept", "zebra crossing")
    gone = ws.notes.create("Gone", "zebra stripes")
    ws.notes.update(kept.id, content="zebra crossing at night")
    ws.notes.delete(gone.id)
    assert ws.uncommitted > 0
    generation = ws.index_generation
    result = ws.notes.search("zebra night")
    assert [h.note.id for h in result.hits] == [kept.id] and result.total == 1
    assert ws.index_generation == generation  # the search committed nothing
    assert [h.note.id for h in other.notes.search("zebra").hits] == [kept.id]
    ws.flush()
    assert ws.uncommitted == 0 and ws.index_generation != generation
    assert [h.note.id for h in ws.notes.search("zebra night").hits] == [kept.id]
    other.close(), ws.close()


def test_background_commit_folds_writes_in(tmp_path):
    ws = open_workspace(tmp_path / "w", commit_delay=0.05)
    for i in range(5):
        ws.notes.create(f"n{i}", f"word{i} shared")
    assert wait_for(lambda: ws.uncommitted == 0)
    assert ws.notes.search("shared").total == 5
    ws.close()


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "periodic-scan"])
def test_a_note_removed_right_after_its_write_leaves_the_list(tmp_path, monkeypatch, inotify):
    if not inotify:
        monkeypatch.setenv("CTXNOTES_NO_INOTIFY", "1")
    ws = open_workspace(tmp_path / "w", rescan_interval=0.2, commit_delay=3600)
    ws.start_watching()
    notes = [ws.notes.create(f"ghost {i}", "boo") for i in range(3)]
    os.unlink(notes[0].path)  # before the index committed it
    ws.flush()
    os.unlink(notes[1].path)  # after the commit
    assert wait_for(lambda: ws.notes.list().total == 1 and ws.notes.summary().total == 1)
    assert [n.id for n in ws.notes.list().notes] == [notes[2].id]
    assert ws.notes.search("boo").total == 1
    ws.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_an_unreadable_folder_drops_no_change(tmp_path):
    _unreadable_folder_case(tmp_path)


def _unreadable_folder_case(tmp_path):
    ws = open_workspace(tmp_path / "w", rescan_interval=0.2)
    ws.start_watching()
    keep = ws.notes.create("keep", "stays")
    removed = ws.notes.create("removed", "goes")
    folder = ws.root / "notes"
    (folder / "made.md").write_text("---\nid: made\ntitle: Made by hand\n---\nhand words\n", encoding="utf-8")
    os.unlink(removed.path)
    os.chmod(folder, 0)
    try:
        time.sleep(1.0)  # the watcher meets the unreadable folder
        assert {n.id for n in ws.notes.list(limit=100).notes} >= {keep.id}
    finally:
        os.chmod(folder, 0o755)
    assert wait_for(lambda: {n.id for n in ws.notes.list(limit=100).notes} == {keep.id, "made"})
    assert ws.notes.search("hand").total == 1
    ws.close()


def test_a_folder_briefly_gone_drops_no_change(tmp_path):
    """``notes/`` replaced by a file for a moment (root reads any folder, so this stands in for
    an unreadable one): looking at it fails, and once it is back every change is applied."""
    ws = open_workspace(tmp_path / "w", rescan_interval=0.2)
    ws.start_watching()
    keep = ws.notes.create("keep", "stays")
    removed = ws.notes.create("removed", "goes")
    folder = ws.root / "notes"
    (folder / "made.md").write_text("---\nid: made\ntitle: Made by hand\n---\nhand words\n", encoding="utf-8")
    os.unlink(removed.path)
    aside = ws.root / "notes-aside"
    folder.rename(aside)
    folder.write_text("not a folder")
    try:
        time.sleep(1.0)  # the watcher meets it
        assert keep.id in {n.id for n in ws.notes.list(limit=100).notes}  # nothing taken for deleted
    finally:
        folder.unlink()
        aside.rename(folder)
    assert wait_for(lambda: {n.id for n in ws.notes.list(limit=100).notes} == {keep.id, "made"})
    assert ws.notes.search("hand").total == 1 and ws.notes.search("goes").total == 0
    ws.close()


def test_restart_with_nothing_changed_reads_the_saved_catalogue(tmp_path):
    ws = open_workspace(tmp_path / "w")
    ids = {ws.notes.create(f"n{i}", f"saved words {i}").id for i in range(20)}
    ws.close()
    ws = open_workspace(tmp_path / "w")
    ws.start_watching(0.1)
    assert ws.notes.search("saved").total == 20
    assert {n.id for n in ws.notes.list(limit=100).notes} == ids
    ws.close()
    # Changed while closed, in place (same size, the folder's mtime untouched): the background check finds it.
    path = tmp_path / "w" / "notes" / f"{sorted(ids)[0]}.md"
    text = path.read_text(encoding="utf-8")
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(text.replace("saved words", "fresh words", 1))
    ws = open_workspace(tmp_path / "w")
    ws.start_watching(0.1)
    assert wait_for(lambda: ws.notes.search("fresh").total == 1)
    ws.close()
    ws = open_workspace(tmp_path / "w")  # no watching thread (the CLI): the first read checks the files
    assert ws.notes.search("fresh").total == 1
    ws.close()


def test_phrase_totals_are_exact_up_to_the_bound_then_a_lower_bound(tmp_path):
    ws = open_workspace(tmp_path / "w")
    for i in range(30):
        ws.notes.create(f"alias {i}", "此命令为 `x` 的别名。" if i % 3 else "命令为此 `x` 别名的。")
    ws.flush()
    assert ws.notes.search("此命令为").total == 20  # the words in order: not the shuffled ten
    ws.search_backend.count_bound = 5  # type: ignore[attr-defined]
    from notes_store.analysis.analyzer import query_units
    from notes_store.index.backend import Filters
    ranked = ws.search_ranked(query_units("此命令为"), Filters("note"), 3)
    assert len(ranked.rows) == 3 and ranked.total == 5 and ranked.total_is_lower_bound
    ranked = ws.search_ranked(query_units("此命令为"), Filters("note"), 10)
    assert len(ranked.rows) == 10 and ranked.total == 10 and ranked.total_is_lower_bound
    ws.close()


def test_reads_do_not_wait_behind_a_writer(tmp_path):
    import threading
    ws = open_workspace(tmp_path / "w")
    note = ws.notes.create("Visible", "searchable words")
    entered, release = threading.Event(), threading.Event()

    def slow_writer() -> None:
        with ws.writing():  # a write that takes its time (a slow disk, a hung fsync)
            entered.set()
            release.wait(10)

    writer = threading.Thread(target=slow_writer)
    writer.start()
    try:
        assert entered.wait(10)
        started = time.monotonic()
        assert [h.note.id for h in ws.notes.search("searchable").hits] == [note.id]
        assert ws.notes.list().total == 1 and ws.notes.read(note.id).title == "Visible"
        assert ws.notes.summary().total == 1
        assert time.monotonic() - started < 2.0  # nowhere near the writer's 10 s
    finally:
        release.set()
        writer.join(10)
    ws.close()


def test_a_bug_in_ranking_is_not_taken_for_index_damage(tmp_path):
    """Fault injection: a NameError inside ranking surfaces as itself; the index is not rebuilt for it."""
    import pytest

    ws = open_workspace(tmp_path / "w")
    ws.notes.create("Deploy", "the deploy plan")
    ws.flush()
    ranker = ws.search_backend._ranker  # type: ignore[attr-defined]
    real = ranker.search

    def buggy(*args, **kwargs):
        raise NameError("name '_sum_scores' is not defined")

    rebuilds = ws._rebuilds
    ranker.search = buggy
    try:
        with pytest.raises(NameError):
            ws.notes.search("deploy")
        assert ws._rebuilds == rebuilds
    finally:
        ranker.search = real
    assert ws.notes.search("deploy").total == 1
    ws.close()
