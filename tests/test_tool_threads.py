"""Sync tools run in worker threads handed the call directly (``tools.kit.in_thread``), through a real client."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest
from mcp import Client

from server.tools import kit as tool_kit

pytestmark = pytest.mark.anyio

_VAR: contextvars.ContextVar[str] = contextvars.ContextVar("_VAR", default="unset")


async def test_in_thread_runs_elsewhere_with_the_callers_context_and_raises_its_errors():
    _VAR.set("from the caller")

    def where(x: int) -> tuple[str, str, int]:
        return threading.current_thread().name, _VAR.get(), x * 2

    name, seen, doubled = await tool_kit.in_thread(where, x=21)
    assert name.startswith("ctxnotes-call") and name != threading.current_thread().name
    assert (seen, doubled) == ("from the caller", 42)

    def fails() -> None:
        raise ValueError("told to")

    with pytest.raises(ValueError, match="told to"):
        await tool_kit.in_thread(fails)


async def test_a_thread_result_is_answered_before_work_queued_on_the_loop_meanwhile():
    """The awaiting task resumes first in the loop's queue, not behind everything queued while the thread
    worked (under load that queue is every other client's requests, passed twice)."""
    loop = asyncio.get_running_loop()
    go = threading.Event()
    order: list[str] = []

    def work() -> int:
        assert go.wait(10)
        return 42

    async def caller() -> None:
        assert await tool_kit.in_thread(work) == 42
        order.append("resumed")

    def busy() -> None:  # the loop is busy while the thread finishes; five callbacks are queued behind
        queued = len(loop._ready)
        go.set()
        deadline = time.monotonic() + 10
        while len(loop._ready) == queued and time.monotonic() < deadline:  # until the thread has delivered
            time.sleep(0.001)

    task = asyncio.ensure_future(caller())
    await asyncio.sleep(0)  # the caller hands the call to its thread
    loop.call_soon(busy)
    for _ in range(5):
        loop.call_soon(order.append, "queued")
    await task
    assert order == ["resumed"] + ["queued"] * 5


async def test_a_call_cancelled_before_its_thread_starts_never_runs_and_a_late_result_is_dropped():
    tool_kit._workers()  # the pool exists: its threads are what is kept busy here
    hold = threading.Event()
    blockers = [asyncio.ensure_future(tool_kit.in_thread(hold.wait, 10)) for _ in range(tool_kit.WORKER_THREADS)]
    ran: list[str] = []
    queued = asyncio.ensure_future(tool_kit.in_thread(ran.append, "ran"))
    await asyncio.sleep(0.05)
    queued.cancel()
    blockers[0].cancel()  # started: it runs to its end, its result is dropped
    await asyncio.sleep(0)
    hold.set()
    assert all(await asyncio.gather(*blockers[1:]))
    with pytest.raises(asyncio.CancelledError):
        await queued
    with pytest.raises(asyncio.CancelledError):
        await blockers[0]
    await tool_kit.in_thread(lambda: None)  # every queued call has been through a thread by now
    assert ran == []


async def test_a_write_runs_in_a_call_thread_and_its_warnings_stay_with_it(server, monkeypatch):
    import notes_store.notes as notes_mod
    threads: list[str] = []
    real = notes_mod.NoteStore.create

    def create(self, *args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(notes_mod.NoteStore, "create", create)
    async with Client(server) as c:
        made = await c.call_tool("note_create", {"title": "Threads", "content": "handed over at once"})
        assert not made.is_error
        nid = made.structured_content["id"]
        found = await c.call_tool("note_search", {"query": "handed over"})
        assert [h["id"] for h in found.structured_content["hits"]] == [nid]
        bad = await c.call_tool("note_create", {"title": ""})
        assert bad.is_error
    assert threads and all(t.startswith("ctxnotes-call") for t in threads)


async def test_a_call_the_pool_drops_is_an_error_not_a_wait_for_ever(monkeypatch):
    """A pool shut down with queued calls (``cancel_futures``) cancels them: their callers get an error."""
    from concurrent.futures import ThreadPoolExecutor
    pool = ThreadPoolExecutor(1, thread_name_prefix="test-pool")
    monkeypatch.setattr(tool_kit, "_pool", pool)
    release = threading.Event()
    busy = asyncio.ensure_future(tool_kit.in_thread(release.wait, 5))  # holds the only thread
    await asyncio.sleep(0.05)
    queued = asyncio.ensure_future(tool_kit.in_thread(lambda: "ran"))
    await asyncio.sleep(0.05)
    pool.shutdown(wait=False, cancel_futures=True)
    with pytest.raises(RuntimeError, match="cancelled"):
        await asyncio.wait_for(queued, 5)
    release.set()
    assert await asyncio.wait_for(busy, 5) is True
