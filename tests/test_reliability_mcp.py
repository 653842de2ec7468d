"""Damage done to the workspace while a server runs: the next operation recovers, loses nothing, logs it.

In-process MCP server (``Client(server)``) and a real ``ctxnotes serve`` stdio subprocess (raw JSON-RPC,
so its stderr can be read). Store-level rebuilds on reopen are covered in ``test_notes_store.py``.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest
from mcp import Client

from bench.reliability.common import snapshot
from notes_store import open_workspace
from server.app import create_server

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[1]


def damage_index(root: Path, how: str) -> None:
    folder = root / ".index" / "whoosh"
    if how == "delete_folder":
        shutil.rmtree(root / ".index")  # the lock file goes too
        return
    for path in folder.iterdir():
        if how == "truncate":
            open(path, "wb").close()
        else:
            size = path.stat().st_size
            with open(path, "r+b") as fh:  # in place: readers that have the file open see the garbage
                fh.write(os.urandom(max(size, 64)))


@pytest.mark.parametrize("how", ["truncate", "garbage", "delete_folder"])
async def test_index_damaged_under_a_running_in_process_server(tmp_path, how):
    """Truncating the segment files used to kill the server with SIGBUS (Whoosh mmaps them): now the
    next call rebuilds from the files. Run in this process, so a crash would fail the whole run."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("ctxnotes.workspace")
    logger.addHandler(handler)
    root = tmp_path / "ws"
    server = create_server(root)
    try:
        async with Client(server) as c:
            ids = []
            for i in range(6):
                r = await c.call_tool("note_create", {"title": f"note {i}", "content": f"payload{i} common"})
                ids.append(r.structured_content["id"])
            r = await c.call_tool("note_search", {"query": "common", "limit": 50})  # commits and opens a searcher
            assert r.structured_content["total"] == 6
            before = snapshot(root)
            records.clear()
            damage_index(root, how)
            r = await c.call_tool("note_search", {"query": "common", "limit": 50})
            assert not r.is_error, r.content[0].text
            assert sorted(h["id"] for h in r.structured_content["hits"]) == sorted(ids)
            assert snapshot(root) == before  # recovery rewrote no note
            r = await c.call_tool("note_create", {"title": "after", "content": "payload9 common"})
            assert not r.is_error
            r = await c.call_tool("note_search", {"query": "payload3"})
            assert [h["id"] for h in r.structured_content["hits"]] == [ids[3]]
            r = await c.call_tool("note_list", {"limit": 100})
            assert r.structured_content["total"] == 7
            log = "\n".join(rec.getMessage() for rec in records)
            assert "rebuilding the index" in log and "index rebuilt with" in log, log
    finally:
        logger.removeHandler(handler)
        server.workspace_handle.close()
    ws = open_workspace(root)
    assert ws.index_count() == 7 and ws.notes.search("common", limit=50).total == 7
    ws.close()


class StdioServer:
    """``ctxnotes serve`` over stdio, spoken to in raw JSON-RPC lines (stderr kept for the log)."""

    def __init__(self, root: Path) -> None:
        self.err = open(root.parent / "serve.stderr", "w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--workspace", str(root)],
                                     cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     text=True)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        line = self.proc.stdout.readline()
        assert line, f"server died (exit {self.proc.poll()}): {self.stderr()[-2000:]}"
        msg = json.loads(line)
        assert msg.get("id") == self.next_id, msg
        return msg

    def tool(self, name: str, args: dict) -> dict:
        result = self.request("tools/call", {"name": name, "arguments": args})["result"]
        assert not result.get("isError"), result
        return result["structuredContent"]

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read()

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.err.close()


def test_stdio_server_survives_index_damage_and_deletion(tmp_path):
    root = tmp_path / "ws"
    srv = StdioServer(root)
    try:
        ids = [srv.tool("note_create", {"title": f"n{i}", "content": f"stdio{i} shared"})["id"] for i in range(5)]
        assert srv.tool("note_search", {"query": "shared", "limit": 50})["total"] == 5
        before = snapshot(root)

        damage_index(root, "truncate")
        hits = srv.tool("note_search", {"query": "shared", "limit": 50})["hits"]
        assert sorted(h["id"] for h in hits) == sorted(ids)
        assert srv.proc.poll() is None

        shutil.rmtree(root / ".index")  # the whole folder, lock file included, under the running server
        ids.append(srv.tool("note_create", {"title": "after rmdir", "content": "stdio9 shared"})["id"])
        hits = srv.tool("note_search", {"query": "shared", "limit": 50})["hits"]
        assert sorted(h["id"] for h in hits) == sorted(ids)
        assert srv.tool("note_search", {"query": "stdio2"})["hits"][0]["id"] == ids[2]
        after = snapshot(root)
        derived = (".index", ".ctxnotes.lock")  # the index folder and the lock file are not user data
        kept = {k: v for k, v in before.items() if k not in derived}
        assert {k: v for k, v in after.items() if k in kept} == kept  # nothing that was there changed
    finally:
        srv.close()
    log = (tmp_path / "serve.stderr").read_text()
    assert "rebuilding the index from the files" in log and "index rebuilt with 6 file(s)" in log, log
    ws = open_workspace(root)
    assert sorted(n.id for n in ws.notes.list(limit=100).notes) == sorted(ids)
    assert ws.index_count() == 6
    ws.close()


HOLD_AND_DIE = textwrap.dedent("""
    import fcntl, os, signal, sys
    from notes_store import open_workspace
    root = sys.argv[1]
    ws = open_workspace(root)
    ws.notes.create("from the doomed process", "doomed words")
    held = ws.lock.hold()
    held.__enter__()                           # the workspace flock ...
    writer = ws._index._ix.writer(timeout=20.0)  # ... and Whoosh's WRITELOCK, mid-write (after our own commit)
    writer.add_document(key="notes/ghost.md", kind="note", type="general", tags="", updated=0.0,
                        text="ghost", meta="{}")
    print("locked", flush=True)
    sys.stdin.readline()
    os.kill(os.getpid(), signal.SIGKILL)
""")


async def test_locks_left_by_a_killed_process_do_not_block_the_server(tmp_path):
    root = tmp_path / "ws"
    server = create_server(root)
    try:
        async with Client(server) as c:
            first = (await c.call_tool("note_create", {"title": "before", "content": "early words"})).structured_content
            assert (await c.call_tool("note_search", {"query": "early"})).structured_content["total"] == 1
            child = subprocess.Popen([sys.executable, "-c", HOLD_AND_DIE, str(root)], cwd=REPO, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                assert child.stdout.readline().strip() == "locked", child.stderr.read()
                # While it lives, the lock really is held: a write would have to wait.
                import fcntl
                fd = os.open(root / ".ctxnotes.lock", os.O_RDWR)
                with pytest.raises(BlockingIOError):
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.close(fd)
                child.stdin.write("go\n")
                child.stdin.flush()
                assert child.wait(timeout=20) == -signal.SIGKILL
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
                child.stdin.close(), child.stdout.close(), child.stderr.close()
            # Lock files are left behind on disk (the flock died with the process); also plant a stale one.
            assert (root / ".ctxnotes.lock").exists()
            assert any(p.name.endswith("WRITELOCK") for p in (root / ".index" / "whoosh").iterdir())
            (root / ".index" / "whoosh" / "ctxnotes_v2_WRITELOCK").write_text("pid 999999\n")
            with anyio.fail_after(30):
                r = await c.call_tool("note_create", {"title": "after", "content": "late words"})
                assert not r.is_error, r.content[0].text
                r = await c.call_tool("note_search", {"query": "words", "limit": 10})
            titles = sorted(h["title"] for h in r.structured_content["hits"])
            assert titles == ["after", "before", "from the doomed process"]
            assert all(h["id"] != "ghost" for h in r.structured_content["hits"])
            assert (await c.call_tool("note_read", {"note_id": first["id"]})).structured_content["content"] == \
                "early words"
    finally:
        server.workspace_handle.close()


async def test_line_breaks_come_back_as_saved(tmp_path):
    """Found by the long fuzz run: content with a lone or trailing CR came back different from what
    note_create returned (the writer normalised CRLF once, the reader again)."""
    server = create_server(tmp_path / "ws")
    try:
        async with Client(server) as c:
            for content in ("trailing\r", "a\r\r\nb", "mac\rline", "dos\r\nline", "\r\n\r"):
                told = (await c.call_tool("note_create", {"title": "cr", "content": content})).structured_content
                read = (await c.call_tool("note_read", {"note_id": told["id"]})).structured_content
                assert read["content"] == told["content"], content
                m = (await c.call_tool("memory_add", {"content": "m " + content})).structured_content
                got = (await c.call_tool("memory_read", {"memory_id": m["id"]})).structured_content
                assert got["content"] == m["content"], content
    finally:
        server.workspace_handle.close()
