"""Fairness between readers and writers, through the real store (issue 16).

- A burst of writes cannot starve searches: searches keep answering (and find every acknowledged
  create) while writer threads write back to back, and while a writer holds the workspace locks.
- A long search cannot block writes: with a search parked inside the engine, creates, updates,
  reads and a catalogue save all finish.

Real files, real Whoosh index, real locks; the only addition is a gate in front of the engine's own
search lock that holds one named thread's search there.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from notes_store import open_workspace


def test_searches_keep_answering_during_a_burst_of_writes(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        for i in range(30):
            ws.notes.create(f"seed {i}", f"plain seed text {i}")
        acked: list[tuple[str, str]] = []  # (unique word, id), appended after each acknowledgement
        stop = threading.Event()
        failures: list[str] = []

        def writer(k: int) -> None:
            i = 0
            while not stop.is_set():
                word = f"zqburst{k}x{i:04d}"
                note = ws.notes.create(f"burst {k} {i}", f"written in the burst: {word}")
                acked.append((word, note.id))
                i += 1

        writers = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
        for t in writers:
            t.start()
        searched = 0
        deadline = time.monotonic() + 2.0
        try:
            while time.monotonic() < deadline:
                if not acked:
                    time.sleep(0.01)
                    continue
                word, note_id = acked[-1]  # acknowledged before this search started
                ids = [h.note.id for h in ws.notes.search(word).hits]
                if ids != [note_id]:
                    failures.append(f"{word}: {ids}")
                assert ws.notes.search("plain seed").total == 30
                searched += 1
        finally:
            stop.set()
            for t in writers:
                t.join(timeout=30)
        assert failures == []
        assert len(acked) >= 8, "the burst did not write"
        assert searched >= 5, f"only {searched} search rounds answered during a {len(acked)}-write burst"
    finally:
        ws.close()


def test_searches_answer_while_a_writer_holds_the_workspace(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("before", "zqheldword acknowledged before the writer took the locks")
        holding, release = threading.Event(), threading.Event()

        def stuck_writer() -> None:
            with ws.writing():  # a writer mid-write (slow disk): this process's mutex and the file lock
                holding.set()
                release.wait(30)

        t = threading.Thread(target=stuck_writer)
        t.start()
        try:
            assert holding.wait(10)
            answers: list[list[str]] = []
            s = threading.Thread(target=lambda: answers.append(
                [h.note.id for h in ws.notes.search("zqheldword").hits]))
            s.start()
            s.join(timeout=10)
            assert not s.is_alive(), "a search waited for the writer's locks"
            assert answers == [[note.id]]
            assert ws.notes.list().total == 1
        finally:
            release.set()
            t.join(timeout=30)
    finally:
        ws.close()


class _Park:
    """Wraps the engine's search lock: the named thread's first acquire waits until ``go`` is set."""

    def __init__(self, lock: Any, thread_name: str) -> None:
        self._lock = lock
        self._name = thread_name
        self.parked = threading.Event()
        self.go = threading.Event()

    def __enter__(self) -> None:
        if threading.current_thread().name == self._name and not self.parked.is_set():
            self.parked.set()
            self.go.wait(60)
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def test_a_long_search_does_not_block_writes(tmp_path):
    ws = open_workspace(tmp_path / "w", commit_delay=3600)  # only the save below commits
    backend = ws.search_backend
    real = backend._search_lock
    try:
        seed = ws.notes.create("seed", "plain seed text")
        ws.flush()
        park = _Park(real, "long-search")
        backend._search_lock = park
        long_search = threading.Thread(target=lambda: ws.notes.search("plain"), name="long-search")
        long_search.start()
        assert park.parked.wait(10)
        # While the search is held inside the engine: writes, reads and listings all finish.
        done: dict[str, Any] = {}

        def writes() -> None:
            created = [ws.notes.create(f"during {i}", f"zqparked{i} written while a search ran") for i in range(5)]
            done["updated"] = ws.notes.update(seed.id, content="changed while a search ran")
            done["created"] = created
            done["read"] = ws.notes.read(created[0].id)

        ws.notes.create("pending", "an uncommitted write for the save to commit")
        saver = threading.Thread(target=ws.save_catalogue)  # its commit waits for the search; writers must not
        saver.start()
        time.sleep(0.2)  # let the save reach its commit
        w = threading.Thread(target=writes)
        w.start()
        w.join(timeout=20)
        blocked = w.is_alive()
        listed = ws.notes.list(limit=100).total
        park.go.set()
        long_search.join(timeout=20)
        saver.join(timeout=20)
        w.join(timeout=20)
        assert not blocked, "writes waited for a running search"
        assert listed == 7
        assert done["read"].content == "zqparked0 written while a search ran"
        for i, note in enumerate(done["created"]):
            assert [h.note.id for h in ws.notes.search(f"zqparked{i}").hits] == [note.id]
        assert ws.notes.read(seed.id).content == "changed while a search ran"
    finally:
        backend._search_lock = real
        ws.close()
