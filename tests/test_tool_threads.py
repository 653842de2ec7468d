"""Sync tools run in worker threads handed the call directly (``tool_kit.in_thread``), through a real client."""

from __future__ import annotations

import contextvars
import threading

import pytest
from mcp import Client

from server import tool_kit

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
