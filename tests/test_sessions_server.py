"""Sessions through the context builder and over MCP: identical builds, tools, paging resource."""

from __future__ import annotations

import json

import pytest

from context import build_context
from notes_store.sessions import SessionStore, session_history
from server.tools.sessions import history_for_build

WORDS = ("backfill", "rate limit", "quota", "deploy", "migration", "dashboard", "adoption", "painting",
         "token refresh", "retry")


def conversation(n: int) -> list[dict]:
    """A conversation with timestamps on some days, tool turns and topics that recur."""
    out = []
    for i in range(n):
        topic = WORDS[(i * 7) % len(WORDS)]
        turn = {"role": ("user", "assistant", "tool")[i % 3 if i % 9 == 8 else i % 2],
                "content": f"Turn {i}: we talked about the {topic} again. The decision was to fix the {topic} by "
                           f"step {i % 5}. " + ("Details follow. " * (i % 4))}
        if i % 4 != 3:
            turn["timestamp"] = f"2026-11-{1 + i // 40:02d}T{8 + i % 10:02d}:00:00Z"
        if i % 11 == 0:
            turn["id"] = f"caller-{i}"
        out.append(turn)
    return out


@pytest.mark.parametrize("fmt", ["text", "messages"])
@pytest.mark.parametrize("max_tokens", [300, 1200, 4000])
def test_a_session_build_packs_exactly_what_the_same_history_packs(tmp_path, fmt, max_tokens):
    turns = conversation(240)
    store = SessionStore(tmp_path)
    for start in range(0, len(turns), 100):
        store.append("conv", turns[start:start + 100])
    query = "what did we decide about the rate limit and the quota?"
    given = build_context(query, history=turns, max_tokens=max_tokens, format=fmt)
    stored = build_context(query, history=session_history(tmp_path, "conv"), max_tokens=max_tokens, format=fmt)
    assert stored.to_dict() == given.to_dict()
    assert given.tokens <= given.budget and any(s["source"] == "history" for s in given.selected)
    # Passed history comes after the stored session.
    extra = [{"role": "user", "content": "And the quota for the backfill, is it fixed now?"}]
    combined = build_context(query, history=turns + extra, max_tokens=max_tokens, format=fmt)
    via_session = build_context(query, history=history_for_build(tmp_path, "conv", extra), max_tokens=max_tokens,
                                format=fmt)
    assert via_session.to_dict() == combined.to_dict()


def test_history_for_build_without_a_session_is_the_passed_history(tmp_path):
    extra = [{"role": "user", "content": "hi"}]
    assert history_for_build(tmp_path, None, extra) is extra
    from notes_store.errors import NotFound
    with pytest.raises(NotFound):
        history_for_build(tmp_path, "missing", extra)


# -- over MCP ---------------------------------------------------------------------------------------------

@pytest.mark.anyio
async def test_session_append_over_mcp_and_page_through_the_resource(client, server):
    turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "words " * 400}
             for i in range(130)]
    r = await client.call_tool("session_append", {"session_id": "chat-1", "turns": turns[:100]})
    assert not r.is_error, r.content[0].text
    assert r.structured_content["appended"] == 100 and r.structured_content["total_turns"] == 100
    r = await client.call_tool("session_append", {"session_id": "chat-1", "turns": turns[100:]})
    assert r.structured_content["total_turns"] == 130 and "130 in all" in r.content[0].text
    # Retrying a batch with ids does not duplicate it.
    batch = [{"role": "user", "content": "with id", "id": "u-1"}]
    await client.call_tool("session_append", {"session_id": "chat-1", "turns": batch})
    r = await client.call_tool("session_append", {"session_id": "chat-1", "turns": batch})
    assert r.structured_content["duplicates"] == ["u-1"] and r.structured_content["appended"] == 0

    seen: list[str] = []
    uri: str | None = "session://chat-1"
    pages = 0
    while uri:
        res = await client.read_resource(uri)
        text = res.contents[0].text
        assert len(text) < 80_000  # bounded page
        page = json.loads(text)
        assert page["total"] == 131
        seen += [t["content"] for t in page["turns"]]
        uri = page["next_uri"]
        pages += 1
    assert pages > 3 and len(seen) == 131 and seen[0].startswith("turn 0 ") and seen[-1] == "with id"
    last = json.loads((await client.read_resource("session://chat-1/-1")).contents[0].text)
    assert [t["id"] for t in last["turns"]] == ["u-1"]

    stored = session_history(server.workspace_handle.path, "chat-1")
    assert len(stored) == 131 and stored[100]["content"] == turns[100]["content"]


@pytest.mark.anyio
async def test_bad_session_input_is_a_tool_error_that_says_what_to_fix(client):
    r = await client.call_tool("session_append", {"session_id": "../../etc", "turns": [{"role": "user",
                                                                                         "content": "x"}]})
    assert r.is_error and "not a valid id" in r.content[0].text
    r = await client.call_tool("session_append", {"session_id": "s", "turns": [{"role": "user", "content": "  "}]})
    assert r.is_error and "content is empty" in r.content[0].text
    r = await client.call_tool("session_append", {"session_id": "s", "turns": []})
    assert r.is_error
    r = await client.call_tool("session_admin", {"action": "delete"})
    assert r.is_error and "session_id is required" in r.content[0].text
    r = await client.call_tool("session_admin", {"action": "prune", "older_than": "later"})
    assert r.is_error and "30d" in r.content[0].text
    from mcp.shared.exceptions import MCPError
    with pytest.raises(MCPError, match="no session"):
        await client.read_resource("session://missing")


@pytest.mark.anyio
async def test_session_admin_lists_deletes_and_prunes(client):
    for sid in ("a", "b"):
        await client.call_tool("session_append", {"session_id": sid, "turns": [{"role": "user", "content": sid}]})
    r = await client.call_tool("session_admin", {"action": "list"})
    assert r.structured_content["total"] == 2 and {s["id"] for s in r.structured_content["sessions"]} == {"a", "b"}
    r = await client.call_tool("session_admin", {"action": "delete", "session_id": "a", "dry_run": True})
    assert r.structured_content["deleted"] == ["a"] and r.structured_content["dry_run"]
    r = await client.call_tool("session_admin", {"action": "delete", "session_id": "a"})
    assert r.structured_content["deleted"] == ["a"]
    r = await client.call_tool("session_admin", {"action": "prune", "older_than": "30d"})
    assert r.structured_content["deleted"] == []  # "b" was just written
    r = await client.call_tool("session_admin", {"action": "list"})
    assert [s["id"] for s in r.structured_content["sessions"]] == ["b"]


@pytest.mark.anyio
async def test_session_tools_are_small_and_counted_in_metrics(client):
    from context.tokens import get_encoding
    from server import metrics
    enc = get_encoding("cl100k_base")
    tools = {t.name: t for t in (await client.list_tools()).tools}
    for name, limit in (("session_append", 210), ("session_admin", 130)):
        t = tools[name]
        visible = json.dumps({"name": t.name, "description": t.description, "inputSchema": t.input_schema})
        assert len(enc.encode(visible)) <= limit, name
    before = metrics.TOOL_CALLS.labels(tool="session_append")._value.get()
    await client.call_tool("session_append", {"session_id": "m", "turns": [{"role": "user", "content": "x"}]})
    await client.call_tool("session_append", {"session_id": "../m", "turns": [{"role": "user", "content": "x"}]})
    assert metrics.TOOL_CALLS.labels(tool="session_append")._value.get() == before + 2
    text = metrics.render().decode()
    assert 'ctxnotes_tool_errors_total{tool="session_append"}' in text


def test_acknowledged_appends_survive_killing_the_http_server(http_server, tmp_path):
    import os
    import signal

    import anyio
    from mcp import Client

    srv = http_server()
    acked: list[str] = []

    async def append_until_killed() -> None:
        async with Client(srv.url) as c:
            for i in range(10_000):
                if i == 40:
                    os.kill(srv.proc.pid, signal.SIGKILL)  # mid-conversation, while more calls are in flight
                try:
                    with anyio.fail_after(20):
                        r = await c.call_tool("session_append", {"session_id": "live", "turns": [
                            {"role": "user", "content": f"turn {i} " + "text " * 200, "id": f"t{i}"}]})
                except Exception:
                    return
                if r.is_error:
                    return
                acked.append(f"t{i}")

    try:
        anyio.run(append_until_killed)
    except Exception:  # the client's own teardown after the server died
        pass
    srv.proc.wait(timeout=30)
    assert len(acked) >= 40
    page = SessionStore(tmp_path / "ws").turns("live", limit=500)
    stored = [t["id"] for t in page.turns]
    assert set(acked) <= set(stored) and not page.bad_lines
    # Appending again works and leaves no torn line behind.
    SessionStore(tmp_path / "ws").append("live", [{"role": "user", "content": "after restart"}])
    assert SessionStore(tmp_path / "ws").turns("live", offset=-1).incomplete_tail_bytes == 0
