"""The memory the uncommitted writes hold is bounded: commits take a chunk at a time, and writers wait for the
committer (then are told to retry) instead of the overlay growing at the client's pace.

Before: 150 ``memory_add`` calls of 1 MiB of never-seen words took the process to 15.8 GB (the overlay's
analyses plus one engine commit of everything). Real files, a real Whoosh index; the bounds are shrunk so the
test is quick, and the engine's commit is held back by an event where a test needs a committer that is behind.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from notes_store import Busy, open_workspace, workspace
from notes_store.index.backend import IndexEntry
from notes_store.index.write_batch import WriteBatch

KIB = 1024


def _entry(key: str, size: int) -> IndexEntry:
    return IndexEntry(key=key, kind="note", type="general", tags=(), updated=0.0, title="",
                      text="word " * (size // 5))


def _count_commits(ws: Any) -> list[int]:
    """The number of puts of each engine commit of ``ws`` from now on."""
    commits: list[int] = []
    real = ws._index.write

    def write(puts: list[IndexEntry], deletes: list[str]) -> Any:
        commits.append(len(puts))
        return real(puts, deletes)

    ws._index.write = write
    return commits


def _hold_commits(ws: Any) -> threading.Event:
    """Make ``ws``'s engine commits wait until the returned event is set (a committer that is behind)."""
    release = threading.Event()
    real = ws._index.write

    def write(puts: list[IndexEntry], deletes: list[str]) -> Any:
        release.wait(30)
        return real(puts, deletes)

    ws._index.write = write
    return release


def test_a_commit_takes_the_oldest_writes_up_to_a_chunk() -> None:
    batch = WriteBatch(lambda: None, chunk_bytes=10 * KIB)
    for k in range(5):
        batch.put(_entry(f"notes/n{k}.md", 4 * KIB))
    batch.put(_entry("notes/n0.md", 4 * KIB))  # rewritten: now the newest
    chunk, _lazy = batch.take()
    assert list(chunk) == ["notes/n1.md", "notes/n2.md"]  # 8 KiB; a third would pass 10 KiB
    batch.done(chunk)
    chunk, _lazy = batch.take()
    assert list(chunk) == ["notes/n3.md", "notes/n4.md"]
    batch.done(chunk)
    chunk, _lazy = batch.take()
    assert list(chunk) == ["notes/n0.md"]
    batch.put(_entry("notes/big.md", 50 * KIB))
    batch.done(chunk)
    assert list(batch.take()[0]) == ["notes/big.md"]  # a write bigger than a chunk is committed alone


def test_flush_commits_every_chunk(tmp_path: Path) -> None:
    ws = open_workspace(tmp_path / "w", commit_delay=60.0)
    try:
        ws._batch.chunk_bytes = 8 * KIB
        ids = [ws.notes.create(f"note {k}", f"flushneedle{k} " + "filler " * 700).id for k in range(10)]
        assert ws.uncommitted == 10
        ws.flush()
        assert ws.uncommitted == 0
        assert ws.indexed_now("note") == (10, 0)
        assert [h.note.id for h in ws.notes.search("flushneedle7").hits] == [ids[7]]
    finally:
        ws.close()


def test_the_committer_drains_a_backlog_in_chunks_without_further_writes(tmp_path: Path) -> None:
    ws = open_workspace(tmp_path / "w", commit_delay=0.05)
    try:
        ws._batch.chunk_bytes = 8 * KIB
        commits = _count_commits(ws)
        with ws.writing():  # registered together: one burst
            for k in range(12):
                ws.notes.create(f"note {k}", "filler " * 700)
        deadline = threading.Event()
        for _ in range(200):
            if not ws.uncommitted:
                break
            deadline.wait(0.05)
        assert ws.uncommitted == 0
        assert len(commits) >= 6 and max(commits) <= 2, commits  # ~4.9 KiB each: two per 8 KiB chunk
    finally:
        ws.close()


@pytest.fixture
def stalled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A workspace whose engine commits wait for ``release`` (a committer that is behind)."""
    monkeypatch.setattr(workspace, "BACKLOG_WAIT_S", 0.5)
    ws = open_workspace(tmp_path / "w", commit_delay=0.01)
    release = _hold_commits(ws)
    ws._batch.max_backlog = 20 * KIB
    ws._batch.chunk_bytes = 8 * KIB
    yield ws, release
    release.set()
    ws.close()


def test_a_writer_is_told_to_retry_when_the_index_stays_behind(stalled: Any) -> None:
    ws, release = stalled
    written = []
    for k in range(5):  # 5 x ~4.9 KiB: the overlay passes 20 KiB
        written.append(ws.memory.add(f"backlog{k} " + "filler " * 700, memory_type="semantic").id)
    assert ws._batch.over_backlog()
    files = sorted(p.name for p in (ws.root / "memory").iterdir())
    with pytest.raises(Busy, match=r"behind .* nothing was written: retry"):
        ws.memory.add("one too many " + "filler " * 700, memory_type="semantic")
    assert sorted(p.name for p in (ws.root / "memory").iterdir()) == files  # no file, no half write
    assert ws.memory.search("backlog3", touch=False).hits  # searches never wait for the backlog
    release.set()
    late = ws.memory.add("after the commit caught up", memory_type="semantic")  # waits, then goes in
    assert late.id and not ws._batch.over_backlog()
    ws.flush()
    assert {h.memory.id for h in ws.memory.search("backlog0 OR backlog4", touch=False).hits} >= {written[0], written[4]}


def test_waiting_writers_go_in_as_the_committer_catches_up(stalled: Any) -> None:
    ws, release = stalled
    for k in range(5):
        ws.notes.create(f"note {k}", "filler " * 700)
    assert ws._batch.over_backlog()
    done: list[str] = []
    writer = threading.Thread(target=lambda: done.append(ws.notes.create("late", "filler " * 10).id))
    writer.start()
    writer.join(0.2)
    assert writer.is_alive() and not done  # waiting for room, holding no lock
    assert ws.notes.list().total == 5  # readers go on meanwhile
    release.set()
    writer.join(10)
    assert done and ws.notes.read(done[0]).title == "late"


def test_files_changed_behind_our_back_are_committed_as_they_are_read(tmp_path: Path) -> None:
    """A ``git pull`` of many large notes: the refresh commits chunks while it reads them, so the overlay
    never holds more than its bound (plus one file), and every note is found."""
    ws = open_workspace(tmp_path / "w", commit_delay=60.0)
    try:
        ws._batch.max_backlog = 20 * KIB
        ws._batch.chunk_bytes = 8 * KIB
        most = 0
        real_put = ws._batch.put

        def put(entry: IndexEntry, lazy: bool = False) -> None:
            nonlocal most
            real_put(entry, lazy)
            most = max(most, ws._batch._bytes)

        ws._batch.put = put  # type: ignore[method-assign]
        for k in range(12):
            (ws.root / "notes" / f"pulled{k}.md").write_text(
                f"---\nid: pulled{k}\ntitle: Pulled {k}\n---\npullneedle{k} " + "filler " * 700 + "\n",
                encoding="utf-8")
        ws.refresh(force=True)
        assert 0 < most <= 20 * KIB + 5 * KIB, most
        assert ws.uncommitted < 12
        assert [h.note.id for h in ws.notes.search("pullneedle11").hits] == ["pulled11"]
        assert [h.note.id for h in ws.notes.search("pullneedle0").hits] == ["pulled0"]
    finally:
        ws.close()


@pytest.mark.anyio
async def test_an_mcp_client_gets_a_tool_error_not_a_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over MCP (the SDK's in-process client): the write past the backlog is a tool error that says to retry,
    and the same session goes on reading."""
    from mcp import Client

    from server.app import create_server

    monkeypatch.setattr(workspace, "BACKLOG_WAIT_S", 0.3)
    srv = create_server(tmp_path / "w")
    ws = srv.workspace_handle.get()
    release = _hold_commits(ws)
    ws._batch.max_backlog = 20 * KIB
    try:
        async with Client(srv) as client:
            for k in range(5):
                r = await client.call_tool("memory_add", {"content": f"mcpbacklog{k} " + "filler " * 700,
                                                          "memory_type": "semantic"})
                assert not r.is_error, r.content[0].text
            r = await client.call_tool("memory_add", {"content": "one more", "memory_type": "semantic"})
            assert r.is_error and "nothing was written: retry" in r.content[0].text, r.content[0].text
            r = await client.call_tool("memory_search", {"query": "mcpbacklog2"})
            assert not r.is_error and "mcpbacklog2" in r.content[0].text
            # A write that waits for the index waits on the event loop, not in one of the worker threads reads need.
            in_threads = 0
            real_wait = ws._batch.wait_for_room

            def counted(timeout: float) -> bool:
                nonlocal in_threads
                in_threads += 1
                return real_wait(timeout)

            ws._batch.wait_for_room = counted  # type: ignore[method-assign]
            monkeypatch.setattr(workspace, "BACKLOG_WAIT_S", 30.0)
            results: list[Any] = []
            async with anyio.create_task_group() as tg:
                async def late_add() -> None:
                    results.append(await client.call_tool("memory_add", {"content": "one more",
                                                                         "memory_type": "semantic"}))
                tg.start_soon(late_add)
                await anyio.sleep(0.3)
                assert not results and in_threads == 0
                release.set()
            assert not results[0].is_error, results[0].content[0].text
            assert in_threads == 0
    finally:
        release.set()
        srv.workspace_handle.close()


def test_a_burst_of_small_writes_is_still_one_commit(tmp_path: Path) -> None:
    """Chunks bound the text per commit, not the number of writes: 200 small notes (under the batch's 256-write
    trigger) commit at once."""
    ws = open_workspace(tmp_path / "w", commit_delay=60.0)
    try:
        commits = _count_commits(ws)
        for k in range(200):
            ws.notes.create(f"small {k}", "a short note")
        ws.flush()
        assert commits == [200]
    finally:
        ws.close()


def test_large_texts_are_analysed_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writers analysing 1 MiB texts side by side finish no sooner (pure Python, one GIL) and each is one more
    thread the searches share the GIL with: a flood of 6 writers over HTTP gave another client's searches p95
    267-290 ms side by side, 117-150 ms one at a time (``python -m bench.write_flood_http --writers 6``).
    Small texts are not held up by each other."""
    from notes_store.index import write_batch

    running = 0
    most = 0
    lock = threading.Lock()
    meet = threading.Barrier(3, timeout=5)
    real = write_batch.index_positions

    def positions(text: str) -> dict[str, list[int]]:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            if len(text) < write_batch.LARGE_TEXT:
                meet.wait()  # all three small analyses at once, or this times out
            else:
                threading.Event().wait(0.05)
            return real(text)
        finally:
            with lock:
                running -= 1

    monkeypatch.setattr(write_batch, "index_positions", positions)

    def run(size: int) -> None:
        threads = [threading.Thread(target=write_batch.analyse, args=(_entry(f"notes/{size}-{k}.md", size),))
                   for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)

    run(write_batch.LARGE_TEXT + 10)
    assert most == 1
    most = 0
    run(1000)
    assert most == 3 and not meet.broken
