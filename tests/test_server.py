"""The MCP server through the SDK's in-process client: every tool, resource and prompt."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from server.app import create_server

pytestmark = pytest.mark.anyio

NOTE_TOOLS = {"note_create", "note_read", "note_update", "note_delete", "note_search", "note_list",
              "note_summary", "reindex", "build_context"}


async def create(client, title="Auth refactor", content="Token refresh is done; next migrate sessions",
                 note_type="task_state", tags=("auth",)):
    r = await client.call_tool("note_create", {"title": title, "content": content, "note_type": note_type,
                                               "tags": list(tags)})
    assert not r.is_error, r.content[0].text
    return r.structured_content


def error_text(r) -> str:
    assert r.is_error
    return r.content[0].text


# -- listing and schemas --------------------------------------------------------------------------------------

async def test_tools_listed_with_schemas_annotations_and_descriptions(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert NOTE_TOOLS <= set(tools)
    for t in tools.values():
        assert t.description and t.description.count(". ") <= 1, t.name  # one or two sentences
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
        assert t.annotations is not None, t.name
        assert "title" not in t.input_schema and "$defs" not in t.input_schema, t.name
    assert tools["note_read"].annotations.read_only_hint is True
    assert tools["note_delete"].annotations.destructive_hint is True
    assert not tools["note_create"].annotations.read_only_hint
    assert tools["note_create"].input_schema["properties"]["note_type"]["enum"] == [
        "task_state", "conclusion", "blocker", "action", "reference", "general"]
    sort = tools["note_list"].input_schema["properties"]["sort"]
    assert "title" in sort["enum"] and sort["default"] == "updated_desc"
    assert tools["build_context"].input_schema["properties"]["format"]["enum"] == ["text", "messages"]


async def test_tools_list_does_not_open_the_workspace(server, client):
    await client.list_tools()
    assert not server.workspace_handle.is_open


# -- note tools: success ------------------------------------------------------------------------------------

async def test_create_read_update_delete_roundtrip(client):
    n = await create(client)
    assert set(n) >= {"id", "title", "type", "tags", "created_at", "updated_at", "uri", "content"}
    assert n["type"] == "task_state" and n["tags"] == ["auth"] and n["uri"] == f"note://{n['id']}"

    r = await client.call_tool("note_read", {"note_id": n["id"]})
    assert not r.is_error
    assert r.structured_content["content"] == "Token refresh is done; next migrate sessions"
    assert n["id"] in r.content[0].text and "Token refresh" in r.content[0].text

    r = await client.call_tool("note_update", {"note_id": n["id"], "note_type": "conclusion", "tags": ["auth", "done"]})
    assert not r.is_error
    u = r.structured_content
    assert u["type"] == "conclusion" and u["tags"] == ["auth", "done"] and u["title"] == "Auth refactor"
    assert u["content"] == n["content"]

    r = await client.call_tool("note_delete", {"note_id": n["id"]})
    assert not r.is_error
    d = r.structured_content
    assert {k: d[k] for k in ("deleted", "id", "title")} == {"deleted": True, "id": n["id"], "title": "Auth refactor"}
    r = await client.call_tool("note_read", {"note_id": n["id"]})
    assert "no note with id" in error_text(r)


async def test_search_with_filters_and_chinese(client):
    a = await create(client, "Refactor data model", "已完成数据模型层的重构", "conclusion", ["db"])
    await create(client, "Login blocker", "refresh token expires too early", "blocker", ["auth"])
    r = await client.call_tool("note_search", {"query": "重构"})
    assert not r.is_error
    s = r.structured_content
    assert s["total"] == 1 and s["hits"][0]["id"] == a["id"] and s["matched"] == "all"
    assert {"score", "snippet", "uri"} <= set(s["hits"][0])
    r = await client.call_tool("note_search", {"query": "token", "note_type": "blocker", "tags": ["auth"]})
    assert r.structured_content["total"] == 1
    r = await client.call_tool("note_search", {"query": "token", "note_type": "conclusion"})
    assert r.structured_content["total"] == 0 and "No notes" in r.content[0].text
    r = await client.call_tool("note_search", {"query": "token", "updated_after": "2000-01-01",
                                               "updated_before": "2999-01-01T00:00:00Z"})
    assert r.structured_content["total"] == 1


async def test_list_paging_sort_and_summary(client):
    for i in range(3):
        await create(client, f"Note {i}", f"body {i}", "action" if i else "blocker", ["x"] if i else [])
    r = await client.call_tool("note_list", {"limit": 2, "sort": "title"})
    s = r.structured_content
    assert s["total"] == 3 and [n["title"] for n in s["notes"]] == ["Note 0", "Note 1"]
    r = await client.call_tool("note_list", {"limit": 2, "offset": 2, "sort": "title"})
    assert [n["title"] for n in r.structured_content["notes"]] == ["Note 2"]
    r = await client.call_tool("note_list", {"note_type": "action", "tags": ["x"]})
    assert r.structured_content["total"] == 2
    r = await client.call_tool("note_summary", {})
    s = r.structured_content
    assert s["total"] == 3 and s["by_type"]["action"] == 2 and s["by_type"]["blocker"] == 1
    assert s["top_tags"] == [{"tag": "x", "count": 2}] and len(s["recent"]) == 3 and s["unreadable"] == []
    assert "3 note(s)" in r.content[0].text


async def test_summary_reports_unreadable_files(server, client):
    await create(client)
    (server.workspace_handle.path / "notes" / "broken.md").write_bytes(b"---\nid: other\n---\n# x \xff\n")
    r = await client.call_tool("note_summary", {})
    assert [u["path"] for u in r.structured_content["unreadable"]] == ["notes/broken.md"]


async def test_reindex_reports_progress(client):
    for i in range(3):
        await create(client, f"n{i}")
    seen = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, message))

    r = await client.call_tool("reindex", {}, progress_callback=on_progress)
    assert not r.is_error and r.structured_content["indexed"] == 3
    assert seen and seen[-1][0] == seen[-1][1]
    r = await client.call_tool("note_search", {"query": "n1"})
    assert r.structured_content["total"] == 1


# -- note tools: expected errors --------------------------------------------------------------------------

@pytest.mark.parametrize("tool,args,expected", [
    ("note_read", {"note_id": "note_missing"}, "no note with id 'note_missing'"),
    ("note_read", {"note_id": "../x"}, "is not a valid id"),
    ("note_read", {"note_id": "a/../b"}, "is not a valid id"),
    ("note_update", {"note_id": "note_missing", "title": "t"}, "no note with id"),
    ("note_delete", {"note_id": "note_missing"}, "nothing was deleted"),
    ("note_delete", {"note_id": "../../etc/passwd"}, "is not a valid id"),
    ("note_create", {"title": "   "}, "title must not be empty"),
    ("note_create", {"title": "two\nlines"}, "single line"),
    ("note_create", {"title": "t", "note_type": "bogus"}, "note_type"),
    ("note_create", {"title": "t", "tags": ["a,b"]}, "may not contain commas"),
    ("note_search", {"query": "  "}, "query must not be empty"),
    ("note_search", {"query": "x", "updated_after": "yesterday"}, "not an ISO 8601"),
    ("note_search", {"query": "x", "limit": 0}, "limit"),
    ("note_list", {"sort": "random"}, "sort"),
    ("note_list", {"note_type": "nope"}, "note_type"),
    ("no_such_tool", {}, "no_such_tool"),
])
async def test_expected_errors_are_tool_errors(client, tool, args, expected):
    r = await client.call_tool(tool, args)
    assert expected in error_text(r)
    assert "Traceback" not in r.content[0].text


async def test_oversize_content_is_refused(tmp_path):
    from notes_store import open_workspace

    from server.state import WorkspaceHandle
    handle = WorkspaceHandle(tmp_path / "ws", opener=lambda p: open_workspace(p, max_content_bytes=1000))
    srv = create_server(tmp_path / "ws", handle=handle)
    async with Client(srv) as c:
        r = await c.call_tool("note_create", {"title": "big", "content": "x" * 2000})
        assert "over the limit of 1000 bytes" in error_text(r)
    handle.close()


async def test_unexpected_exception_hides_internals(server, client, caplog):
    await create(client)
    ws = server.workspace_handle.get()

    def boom(*a, **k):
        raise RuntimeError("secret internal detail /srv/path")

    ws.notes.list = boom
    r = await client.call_tool("note_list", {})
    text = error_text(r)
    assert "secret" not in text and "note_list" in text
    assert any("secret internal detail" in (rec.exc_text or "") or rec.exc_info for rec in caplog.records)


# -- resources --------------------------------------------------------------------------------------------

async def test_note_resource_returns_the_file_as_stored(server, client):
    n = await create(client, content="line one\n\n中文 line")
    r = await client.read_resource(f"note://{n['id']}")
    c = r.contents[0]
    assert c.mime_type == "text/markdown"
    raw = (server.workspace_handle.path / "notes" / f"{n['id']}.md").read_bytes()
    assert c.text.encode("utf-8") == raw and c.text.startswith("---\n")


async def test_missing_or_bad_note_resource_is_an_mcp_error(client):
    with pytest.raises(MCPError) as exc:
        await client.read_resource("note://note_missing")
    assert "no note with id" in str(exc.value)
    with pytest.raises(MCPError):
        await client.read_resource("note://..%2F..%2Fetc%2Fpasswd")


async def test_resource_listing_and_recent(client):
    n = await create(client)
    templates = (await client.list_resource_templates()).resource_templates
    assert any(t.uri_template == "note://{+note_id}" for t in templates)   # ids are paths: folders allowed
    resources = (await client.list_resources()).resources
    assert any(str(r.uri) == "notes://recent" for r in resources)
    import json
    r = await client.read_resource("notes://recent")
    data = json.loads(r.contents[0].text)
    assert data["total"] == 1 and data["notes"][0]["id"] == n["id"]


# -- prompts ----------------------------------------------------------------------------------------------

async def test_prompts(client):
    names = {p.name for p in (await client.list_prompts()).prompts}
    assert {"resume_task", "record_progress"} <= names
    state = await create(client, "Auth refactor state", "step 2 of 4 done", "task_state", ["auth"])
    blocker = await create(client, "CI is red", "flaky test", "blocker", [])
    p = await client.get_prompt("resume_task", {"task": "auth refactor"})
    text = p.messages[0].content.text
    assert state["id"] in text and "step 2 of 4 done" in text and blocker["id"] in text
    p = await client.get_prompt("resume_task", {})
    assert state["id"] in p.messages[0].content.text
    p = await client.get_prompt("record_progress", {"step": "migrated sessions"})
    text = p.messages[0].content.text
    assert "note_update" in text and "note_create" in text and "migrated sessions" in text


# -- build_context ----------------------------------------------------------------------------------------

async def test_build_context_text_and_messages(client):
    n = await create(client, "Token refresh bug", "refresh fails when the clock skews by 5 minutes",
                     "blocker", ["auth"])
    r = await client.call_tool("build_context", {"query": "why does token refresh fail?", "max_tokens": 800,
                                                 "task_state": {"goal": "fix auth"}})
    assert not r.is_error, r.content[0].text
    s = r.structured_content
    assert s["tokens"] <= s["budget"] == 640
    assert "clock skews" in s["context"] and n["id"] in s["context"]
    assert "tokens" in r.content[0].text
    r = await client.call_tool("build_context", {"query": "token refresh", "format": "messages",
                                                 "history": [{"role": "user", "content": "hi"}]})
    assert not r.is_error and isinstance(r.structured_content["messages"], list)
    # Who spoke and a tool turn's call id reach the client (a chat API needs both).
    r = await client.call_tool("build_context", {"query": "did the tests pass?", "format": "messages", "history": [
        {"role": "user", "content": "run the tests please", "name": "ann"},
        {"role": "assistant", "content": "running pytest"},
        {"role": "tool", "content": "2 failed, 40 passed", "tool_call_id": "call_1", "name": "pytest"}]})
    assert not r.is_error, r.content[0].text
    msgs = r.structured_content["messages"]
    assert {"role": "user", "content": "run the tests please", "name": "ann"} in msgs
    assert {"role": "tool", "content": "2 failed, 40 passed", "tool_call_id": "call_1"} in msgs
    assert all(None not in m.values() for m in msgs)


async def test_build_context_errors(client):
    r = await client.call_tool("build_context", {"query": "x", "max_tokens": 10})
    assert r.is_error
    r = await client.call_tool("build_context", {"query": "x", "format": "html"})
    assert r.is_error
    r = await client.call_tool("build_context", {"query": "   "})
    assert r.is_error and "Traceback" not in r.content[0].text
    # A query too long to be a question, or bigger than the budget: told what to do, before any work.
    assert "at most 32,000 are accepted" in error_text(
        await client.call_tool("build_context", {"query": "why " * 9000, "max_tokens": 100_000}))
    assert "raise max_tokens" in error_text(
        await client.call_tool("build_context", {"query": "why " * 2000, "max_tokens": 1000}))


async def test_build_context_uses_sampling_when_the_client_offers_it(server, tmp_path):
    from mcp.types import CreateMessageResult, TextContent
    calls = []

    async def sampling(context, params):
        calls.append(params)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="SUMMARY: skew"),
                                   model="fake")

    async with Client(server, mode="legacy", sampling_callback=sampling) as c:
        long = " ".join(f"Sentence {i} about token refresh and clock skew in the auth service." for i in range(400))
        r = await c.call_tool("build_context", {"query": "token refresh", "max_tokens": 400,
                                                "documents": [{"source": "log", "content": long}]})
        assert not r.is_error, r.content[0].text
        assert r.structured_content["tokens"] <= r.structured_content["budget"]
    # Whether the library asks depends on its compression choices; when it asked, the answer was used.
    if calls:
        assert "SUMMARY: skew" in (r.structured_content.get("context") or "")


# -- memory -----------------------------------------------------------------------------------------------

async def test_memory_tools(client):
    tools = {t.name for t in (await client.list_tools()).tools}
    assert {"memory_add", "memory_search", "memory_forget", "memory_consolidate", "memory_summary",
            "memory_update", "memory_read", "memory_list"} <= tools
    r = await client.call_tool("memory_add", {"content": "The user prefers pytest", "memory_type": "semantic",
                                              "importance": 0.8, "tags": ["pref"]})
    assert not r.is_error
    m = r.structured_content
    assert m["memory_type"] == "semantic" and m["importance"] == 0.8 and "path" not in m
    r = await client.call_tool("memory_add", {"content": "scratch idea", "importance": 0.9})
    w = r.structured_content
    assert w["memory_type"] == "working" and w["expires_at"]
    r = await client.call_tool("memory_search", {"query": "pytest"})
    s = r.structured_content
    assert [h["id"] for h in s["hits"]] == [m["id"]] and set(s["hits"][0]["score_parts"]) >= {"relevance", "recency"}
    r = await client.call_tool("memory_read", {"memory_id": m["id"]})
    assert r.structured_content["content"] == "The user prefers pytest"
    r = await client.call_tool("memory_list", {"sort": "importance_desc"})
    assert [x["id"] for x in r.structured_content["memories"]] == [w["id"], m["id"]]
    r = await client.call_tool("memory_update", {"memory_id": m["id"], "importance": 0.3})
    assert r.structured_content["importance"] == 0.3
    r = await client.call_tool("memory_consolidate", {"dry_run": True})
    assert r.structured_content["count"] == 1 and r.structured_content["dry_run"] is True
    r = await client.call_tool("memory_forget", {"rule": {"strategy": "importance_based", "threshold": 0.5},
                                                 "dry_run": True})
    assert [x["id"] for x in r.structured_content["removed"]] == [m["id"]]
    r = await client.call_tool("memory_summary", {})
    assert r.structured_content["total"] == 2 and r.structured_content["by_type"]["semantic"]["count"] == 1
    r = await client.call_tool("memory_forget", {"memory_id": m["id"]})
    assert r.structured_content["count"] == 1
    r = await client.call_tool("build_context", {"query": "scratch idea", "options": {"include_notes": False}})
    assert w["id"] in r.structured_content["context"]


@pytest.mark.parametrize("tool,args,expected", [
    ("memory_read", {"memory_id": "mem_missing"}, "no memory with id"),
    ("memory_read", {"memory_id": "../x"}, "is not a valid id"),
    ("memory_forget", {}, "give memory_id (one memory) or rule"),
    ("memory_add", {"content": "x", "memory_type": "forever"}, "memory_type"),
    ("memory_add", {"content": "x", "importance": 2}, "importance"),
    ("memory_forget", {"rule": {"strategy": "random"}}, "strategy"),
    ("memory_forget", {"memory_id": "mem_x", "rule": {"strategy": "time_based"}}, "not both"),
    ("memory_update", {"memory_id": "mem_missing", "importance": 0.2}, "no memory with id"),
])
async def test_memory_errors(client, tool, args, expected):
    r = await client.call_tool(tool, args)
    assert expected in error_text(r)


async def test_memory_rows_are_previews_and_a_huge_memory_never_stalls_paging(tmp_path):
    """The helper's attack pass: memory_list over 1 MiB memories tokenized every row whole (200 of them:
    30 s CPU, 2.6 GB), and one memory bigger than the result budget showed 0 rows with 'next page with
    offset=0', a loop for a client that pages. Rows now carry previews; memory_read has the whole."""
    from mcp import Client

    from server.app import create_server
    from server.tools.memory import MAX_ROW_CONTENT_CHARS
    srv = create_server(tmp_path / "ws")
    try:
        async with Client(srv) as c:
            big = "giraffe facts. " * 60_000          # ~0.9 MB (the content limit is 1 MiB)
            added = (await c.call_tool("memory_add", {"content": big})).structured_content
            await c.call_tool("memory_add", {"content": "giraffes are tall"})
            page = (await c.call_tool("memory_list", {"limit": 10})).structured_content
            assert page["shown"] == 2 and page["next_offset"] is None
            row = next(m for m in page["memories"] if m["id"] == added["id"])
            assert row["content_cut"] and len(row["content"]) == MAX_ROW_CONTENT_CHARS
            hits = (await c.call_tool("memory_search", {"query": "giraffe facts"})).structured_content
            assert hits["shown"] >= 1 and all(len(h["content"]) <= MAX_ROW_CONTENT_CHARS for h in hits["hits"])
            gone = await c.call_tool("memory_forget", {"rule": {"strategy": "importance_based", "threshold": 1.0},
                                                       "dry_run": True})
            assert not gone.is_error and len(str(gone.structured_content)) < 20_000
    finally:
        srv.workspace_handle.close()


def test_fits_and_cut_to_tokens_tokenize_a_bounded_head_of_a_long_text(monkeypatch):
    from server.tools import kit as tool_kit
    seen: list[int] = []
    real = tool_kit.count_tokens

    def counting(text: str) -> int:
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(tool_kit, "count_tokens", counting)
    long = "giraffe facts and more words. " * 200_000          # 6 MB
    assert not tool_kit.fits(long, 1000) and max(seen) <= 1000 * tool_kit.HEAD_CHARS_PER_TOKEN
    cut = tool_kit.cut_to_tokens(long, 1000)
    assert 0 < real(cut) <= 1000 and long.startswith(cut)
    spaces = "a" + " " * 100_000 + "b"                     # few tokens in many characters: still exact
    assert tool_kit.fits(spaces, 1000) == (real(spaces) <= 1000)
