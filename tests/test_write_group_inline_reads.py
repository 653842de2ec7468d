"""Searches on the server's event loop (issue 16): no thread hand-off when a search cannot wait.

A sync tool registered with ``inline`` runs on the event loop when its guard allows it; a search there
runs in ``Workspace.quick_reads`` mode, where anything that would wait (a rebuild holding the searcher,
a scan of the folders, a recovery) raises ``WouldBlock`` before changing anything, and the call runs
again in a worker thread. Real workspaces and a real server (the SDK's in-process client).
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from notes_store import open_workspace
from notes_store.workspace import QUICK_MAX_TERMS, WouldBlock
from server.app import create_server
from server.tools.kit import READ_ONLY, Limits, Reply, add_tool


@pytest.mark.anyio
async def test_an_inline_tool_runs_on_the_event_loop_and_falls_back_to_a_thread():
    server = MCPServer("t")
    seen: dict[str, list[int]] = {"quick": [], "blocked": []}
    guards: list[str] = []

    @contextlib.contextmanager
    def guard() -> Any:
        guards.append("entered")
        yield

    def quick(word: str) -> Reply:
        seen["quick"].append(threading.get_ident())
        return Reply(f"quick {word}", {"word": word})

    def blocked(word: str) -> Reply:
        seen["blocked"].append(threading.get_ident())
        if len(seen["blocked"]) == 1:
            raise WouldBlock("would wait")
        return Reply(f"blocked {word}", {"word": word})

    for fn in (quick, blocked):
        add_tool(server, fn, name=fn.__name__, title=fn.__name__, description="t", annotations=READ_ONLY,
                 output=None, limits=Limits(), inline=guard)
    loop_thread = threading.get_ident()
    async with Client(server) as client:
        r = await client.call_tool("quick", {"word": "a"})
        assert not r.is_error and r.structured_content == {"word": "a"}
        r = await client.call_tool("blocked", {"word": "b"})
        assert not r.is_error and r.structured_content == {"word": "b"}
    assert seen["quick"] == [loop_thread]  # no worker thread
    assert seen["blocked"][0] == loop_thread and seen["blocked"][1] != loop_thread  # tried inline, then a thread
    assert guards == ["entered", "entered"]


def hold_the_searcher(ws: Any, release: threading.Event) -> threading.Thread:
    """A thread holding the workspace's searcher lock, as a rebuild does, until ``release`` is set."""
    held = threading.Event()

    def hold() -> None:
        with ws._searcher_lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    assert held.wait(10)
    return t


def test_quick_reads_never_wait_for_a_held_searcher(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("quick", "zqquick body")
        with ws.quick_reads():
            assert [h.note.id for h in ws.notes.search("zqquick").hits] == [note.id]
        release = threading.Event()
        t = hold_the_searcher(ws, release)
        try:
            assert not ws.reads_are_quick
            started = time.monotonic()
            with pytest.raises(WouldBlock), ws.quick_reads():
                ws.notes.search("zqquick")
            assert time.monotonic() - started < 2.0
        finally:
            release.set()
            t.join(10)
        assert [h.note.id for h in ws.notes.search("zqquick").hits] == [note.id]
    finally:
        ws.close()


def test_quick_reads_leave_long_queries_to_a_thread(tmp_path):
    """A query of many terms may take tens of ms on a large workspace: not on the event loop."""
    ws = open_workspace(tmp_path / "w")
    try:
        note = ws.notes.create("long", "zqlong body")
        long_query = "zqlong " + " ".join(f"word{i}" for i in range(QUICK_MAX_TERMS))
        with pytest.raises(WouldBlock), ws.quick_reads():
            ws.notes.search(long_query)
        short_query = "zqlong " + " ".join(f"word{i}" for i in range(QUICK_MAX_TERMS - 1))
        with ws.quick_reads():
            assert [h.note.id for h in ws.notes.search(short_query).hits] == [note.id]
        assert [h.note.id for h in ws.notes.search(long_query).hits] == [note.id]
    finally:
        ws.close()


def test_quick_reads_leave_a_due_scan_to_a_thread(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXNOTES_NO_INOTIFY", "1")  # no inotify: a look at the folders may mean a full scan
    ws = open_workspace(tmp_path / "w", rescan_interval=0.0)
    try:
        ws.notes.create("scan", "zqscan body")
        assert not ws.reads_are_quick
        (ws.root / "notes" / "note_20200101_000000_deadbeef.md").write_text(
            "---\nid: note_20200101_000000_deadbeef\ntitle: outside\ntype: general\ntags: []\n"
            "created_at: '2020-01-01T00:00:00Z'\nupdated_at: '2020-01-01T00:00:00Z'\n---\n\nzqoutside\n",
            encoding="utf-8")
        with pytest.raises(WouldBlock), ws.quick_reads():
            ws.notes.search("zqoutside")
        # the thread's attempt scans and finds it
        assert [h.note.id for h in ws.notes.search("zqoutside").hits] == ["note_20200101_000000_deadbeef"]
    finally:
        ws.close()


@pytest.mark.anyio
async def test_a_search_waiting_for_a_rebuild_does_not_stop_the_server(tmp_path):
    server = create_server(tmp_path / "ws")
    try:
        async with Client(server) as client:
            r = await client.call_tool("note_create", {"title": "served", "content": "zqserved body"})
            assert not r.is_error
            ws = server.workspace_handle.get()  # type: ignore[attr-defined]
            release = threading.Event()
            t = hold_the_searcher(ws, release)
            try:
                results: dict[str, Any] = {}

                async def search() -> None:
                    results["search"] = await client.call_tool("note_search", {"query": "zqserved"})
                    results["search_at"] = time.monotonic()

                async with anyio.create_task_group() as tg:
                    tg.start_soon(search)
                    await anyio.sleep(0.2)
                    # The loop answers other calls while the search waits (in a worker thread).
                    listed = await client.call_tool("note_list", {})
                    listed_at = time.monotonic()
                    assert not listed.is_error and "search" not in results
                    release.set()
                assert results["search_at"] > listed_at
                assert not results["search"].is_error
                assert "zqserved" in str(results["search"].structured_content)
            finally:
                release.set()
                t.join(10)
    finally:
        server.workspace_handle.close()  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_a_long_note_is_read_in_a_worker_thread_a_short_one_on_the_loop(tmp_path, monkeypatch):
    """Cutting a long note to the result's budget tokenizes it (tens of ms a MiB): not on the event loop."""
    import server.tools.notes as tools_notes

    threads: list[int] = []
    cut = tools_notes.window_of

    def window_of(*args: Any) -> Any:  # the real cut, noting the thread it runs in
        threads.append(threading.get_ident())
        return cut(*args)

    monkeypatch.setattr(tools_notes, "window_of", window_of)
    server = create_server(tmp_path / "ws")
    try:
        async with Client(server) as client:
            short = await client.call_tool("note_create", {"title": "short", "content": "zq short body"})
            long = await client.call_tool("note_create", {
                "title": "long", "content": "zq long body word\n" * (tools_notes.QUICK_READ_MAX_CHARS // 17)})
            ws = server.workspace_handle.get()  # type: ignore[attr-defined]
            assert ws.reads_are_quick
            loop_thread = threading.get_ident()
            r = await client.call_tool("note_read", {"note_id": short.structured_content["id"]})
            assert not r.is_error and threads == [loop_thread]
            threads.clear()
            r = await client.call_tool("note_read", {"note_id": long.structured_content["id"]})
            assert not r.is_error and r.structured_content["window"] is not None  # cut to the budget
            assert threads and loop_thread not in threads
    finally:
        server.workspace_handle.close()  # type: ignore[attr-defined]


def test_quick_reads_leave_files_changed_outside_to_a_thread(tmp_path):
    """inotify reports files another process wrote (a `git pull`: thousands, each read and analysed): applying
    them is a worker's job, not the event loop's."""
    ws = open_workspace(tmp_path / "w")
    try:
        ws.notes.create("inside", "zqinside body")
        if not ws.reads_are_quick:
            pytest.skip("no inotify here")
        (ws.root / "notes" / "note_20200101_000000_feedbeef.md").write_text(
            "---\nid: note_20200101_000000_feedbeef\ntitle: pulled\ntype: general\ntags: []\n"
            "created_at: '2020-01-01T00:00:00Z'\nupdated_at: '2020-01-01T00:00:00Z'\n---\n\nzqpulled\n",
            encoding="utf-8")
        deadline = time.monotonic() + 5
        while True:  # until inotify has reported the file
            try:
                with ws.quick_reads():
                    ws.notes.search("zqpulled")
            except WouldBlock:
                break
            assert time.monotonic() < deadline, "the outside file was never reported"
            time.sleep(0.02)
        assert "notes/note_20200101_000000_feedbeef.md" not in ws.catalogue  # nothing applied on the loop
        assert [h.note.id for h in ws.notes.search("zqpulled").hits] == ["note_20200101_000000_feedbeef"]
    finally:
        ws.close()
