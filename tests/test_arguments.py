"""Arguments a client gets wrong are refused with the right name, never ignored (tools.arguments).

Over a real in-memory MCP client session against a real workspace: every tool refuses an unknown argument
and a misspelt known one with the name meant, and writes nothing (the notes/ and memory/ folders are
unchanged); nested objects are refused with their path; validation errors are in our words; every input
schema says ``additionalProperties: false``. The library's ``build_context``, the CLI and the HTTP endpoint
follow the same rule.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from collections.abc import Iterable
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client

from server.app import create_server

from helpers import run_cli

pytestmark = pytest.mark.anyio

# Arguments that make each tool's call valid (so a refusal can only be the bad key's).
VALID: dict[str, dict[str, Any]] = {
    "note_create": {"title": "t"}, "note_read": {"note_id": "n"}, "note_update": {"note_id": "n"},
    "note_delete": {"note_id": "n"}, "note_search": {"query": "q"}, "note_list": {}, "note_summary": {},
    "note_history": {"note_id": "n"}, "reindex": {}, "memory_add": {"content": "c"},
    "memory_search": {"query": "q"}, "memory_read": {"memory_id": "m"}, "memory_list": {},
    "memory_update": {"memory_id": "m"}, "memory_forget": {"memory_id": "m"}, "memory_consolidate": {},
    "memory_summary": {}, "build_context": {"query": "q"},
    "session_append": {"session_id": "s", "turns": [{"role": "user", "content": "c"}]},
    "session_admin": {"action": "list"},
}


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under notes/, memory/ and sessions/ with its size and modification time."""
    out = {}
    for folder in ("notes", "memory", "sessions"):
        for dirpath, _dirs, files in os.walk(root / folder):
            for name in files:
                st_ = os.stat(os.path.join(dirpath, name))
                out[os.path.join(dirpath, name)] = (st_.st_size, st_.st_mtime_ns)
    return out


def text_of(r: Any) -> str:
    return r.content[0].text if r.content else ""


def assert_ours(text: str, echoed: Iterable[str] = ()) -> None:
    """No library's raw text: no pydantic banner, no documentation URL. ``echoed``: the caller's own argument
    names, which the refusal names back (a random key may well be "http"): they are not the library's text."""
    for name in echoed:
        for said in (repr(name)[1:-1], json.dumps(name)[1:-1]):
            text = text.replace(f"'{said}'", "'…'")
    assert "pydantic" not in text.lower() and "http" not in text and "validation error for" not in text, text


def misspell(name: str) -> str:
    """A misspelling a person makes: a letter dropped (inside the name)."""
    i = len(name) // 2
    return name[:i] + name[i + 1:]


@pytest.fixture
async def seeded(tmp_path: Path) -> Any:
    """A client over a workspace holding a note, a memory and a session (so the folders exist)."""
    server = create_server(tmp_path / "ws")
    async with Client(server) as client:
        for name, args in (("note_create", {"title": "seed", "content": "x"}), ("memory_add", {"content": "m"}),
                           ("session_append", VALID["session_append"])):
            r = await client.call_tool(name, args)
            assert not r.is_error, text_of(r)
        yield client, tmp_path / "ws"
    server.workspace_handle.close()  # type: ignore[attr-defined]


async def test_every_tool_refuses_unknown_and_misspelt_arguments_and_writes_nothing(seeded: Any) -> None:
    client, root = seeded
    tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == set(VALID), "a new tool needs its valid arguments in VALID"
    before = snapshot(root)
    for tool in tools:
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False, tool.name
        r = await client.call_tool(tool.name, {**VALID[tool.name], "zz_unknown": 1})
        assert r.is_error, tool.name
        assert "unknown argument 'zz_unknown'" in text_of(r), text_of(r)
        assert_ours(text_of(r))
        for name in schema.get("properties", {}):
            wrong = misspell(name)
            args = {k: v for k, v in VALID[tool.name].items() if k != name}
            args[wrong] = VALID[tool.name].get(name, 1)
            r = await client.call_tool(tool.name, args)
            assert r.is_error, (tool.name, wrong)
            assert f"unknown argument {wrong!r}: did you mean {name!r}?" in text_of(r), text_of(r)
            assert_ours(text_of(r))
    assert snapshot(root) == before, "a refused call wrote something"


async def test_the_issue_cases_are_refused_with_the_right_name(seeded: Any) -> None:
    client, root = seeded
    before = snapshot(root)
    cases = [
        ("note_create", {"title": "t1", "content": "c", "type": "blocker", "tag": ["x"]},
         ["unknown argument 'type': did you mean 'note_type'?", "unknown argument 'tag': did you mean 'tags'?"]),
        ("memory_add", {"content": "abc", "type": "semantic"},
         ["unknown argument 'type': did you mean 'memory_type'?"]),
        ("note_search", {"query": "c", "limt": 1}, ["unknown argument 'limt': did you mean 'limit'?"]),
        ("build_context", {"query": "q", "reserve_ratio": 0, "include_notes": False},
         ["unknown arguments 'reserve_ratio', 'include_notes': they go inside 'options'",
          '"options": {"reserve_ratio": 0, "include_notes": false}']),
        ("memory_forget", {"strategy": "importance_based", "threshold": 0.5},
         ["unknown arguments 'strategy', 'threshold': they go inside 'rule'"]),
        ("note_list", {"sort": "newest"},
         ["sort must be one of updated_desc, updated_asc, created_desc, created_asc, title; got 'newest'"]),
    ]
    for name, args, expected in cases:
        r = await client.call_tool(name, args)
        assert r.is_error, (name, text_of(r))
        for line in expected:
            assert line in text_of(r), text_of(r)
        assert "Nothing was done" in text_of(r)
        assert_ours(text_of(r))
    assert snapshot(root) == before


@pytest.mark.parametrize("args, expected", [
    ({"documents": [{"content": "x", "tittle": "t"}]}, "unknown key 'tittle' in documents[0]: did you mean 'source'?"),
    ({"documents": [{"content": "x", "id": "d1"}]}, "unknown key 'id' in documents[0]: did you mean 'source'?"),
    ({"tools": [{"name": "t", "inputSchema": {}}]}, "unknown key 'inputSchema' in tools[0]: did you mean 'input_schema'?"),
    ({"tool_results": [{"tool": "t", "reslt": 1}]}, "unknown key 'reslt' in tool_results[0]: did you mean 'content'?"),
    ({"tool_results": [{"tool": "t", "content": "x", "zzz": 1}]},
     "unknown key 'zzz' in tool_results[0]; tool_results[0] takes tool, content, id, timestamp"),
    ({"history": [{"role": "user", "content": "c"}, {"role": "user", "content": "c", "speaker": "bob"}]},
     "unknown key 'speaker' in history[1]: did you mean 'name'?"),
    ({"options": {"reserv_ratio": 0}}, "unknown key 'reserv_ratio' in options: did you mean 'reserve_ratio'?"),
    ({"options": {"max_tokens": 100}}, "'max_tokens' is an argument of its own, not a key of options"),
    ({"options": {"query_type": "recent"}}, "options.query_type must be one of auto, knowledge, chat, task; got 'recent'"),
    ({"max_tokens": 10}, "max_tokens must be at least 64; got 10"),
    ({"task_state": 5}, "task_state must be an object or a string; got 5"),
    ({"history": "hello"}, "history must be a list; got 'hello'"),
])
async def test_build_context_nested_keys_and_values_are_refused_with_their_path(client: Any, args: dict[str, Any],
                                                                                expected: str) -> None:
    r = await client.call_tool("build_context", {"query": "q", **args})
    assert r.is_error
    assert expected in text_of(r), text_of(r)
    assert_ours(text_of(r))


@pytest.mark.parametrize("name, args, expected", [
    ("note_read", {"note_id": "x", "window": {"offst": 3}}, "unknown key 'offst' in window: did you mean 'offset'?"),
    ("memory_forget", {"rule": {"strategy": "time_based", "max_age": 3}},
     "unknown key 'max_age' in rule: did you mean 'max_age_days'?"),
    ("memory_forget", {"type": "working", "capacity": 3},
     "they go inside 'rule' ('type' is spelt 'memory_type'), e.g. \"rule\": {\"memory_type\": \"working\", "
     "\"capacity\": 3}"),
    ("memory_forget", {}, "give memory_id (one memory) or rule"),
    ("session_append", {"session_id": "s", "turns": [{"role": "user", "content": "c", "mood": "ok"}]},
     "unknown key 'mood' in turns[0]; turns[0] takes role, content, timestamp, id, name, tool_call_id"),
    ("session_append", {"session_id": "s", "turns": []}, "turns must have at least 1 item(s); got []"),
    ("note_search", {"query": "q", "limit": 1000}, "limit must be at most 100; got 1000"),
    ("note_search", {"query": "q", "limit": "many"}, "limit must be a whole number; got 'many'"),
    ("note_create", {"titel": "x"}, "unknown argument 'titel': did you mean 'title'?"),
    ("note_summary", {"verbose": True}, "unknown argument 'verbose'; the tool takes no arguments"),
    ("memory_add", {"content": "c", "importance": 2}, "importance must be at most 1; got 2"),
])
async def test_other_tools_explain_in_our_words(client: Any, name: str, args: dict[str, Any], expected: str) -> None:
    r = await client.call_tool(name, args)
    assert r.is_error
    assert expected in text_of(r), text_of(r)
    assert_ours(text_of(r))


async def test_a_misspelt_required_argument_is_not_also_reported_missing(client: Any) -> None:
    r = await client.call_tool("note_create", {"titel": "x"})
    assert "title is required" not in text_of(r)
    r = await client.call_tool("note_create", {"content": "x"})
    assert "title is required" in text_of(r)


async def test_valid_calls_still_work_with_the_keys_the_schema_leaves_unlisted(client: Any) -> None:
    r = await client.call_tool("session_append", {"session_id": "s", "turns": [
        {"role": "tool", "content": "42", "name": "calc", "tool_call_id": "c1", "id": "t1"}]})
    assert not r.is_error, text_of(r)
    r = await client.call_tool("build_context", {
        "query": "q", "session_id": "s", "documents": [{"content": "doc", "source": "a", "score": 0.5,
                                                        "timestamp": "2024-01-01T00:00:00"}],
        "tool_results": [{"tool": "calc", "content": {"x": 1}, "id": "r1", "timestamp": 1700000000}],
        "tools": [{"name": "calc", "description": "adds", "input_schema": {"type": "object"}, "required": True}],
        "options": {"reserve_ratio": 0, "include_notes": False}})
    assert not r.is_error, text_of(r)


# -- property: any key a tool does not take is refused, names the key, writes nothing --------------------

_server_dir: dict[str, Path] = {}


def _key() -> st.SearchStrategy[str]:
    return st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(sorted(VALID)), extra=st.dictionaries(_key(), st.integers() | st.text(max_size=5),
                                                                  min_size=1, max_size=3))
@example(tool="build_context", extra={"http": 0})   # a key the refusal names back, which a URL check must not take
def test_random_extra_keys_are_always_refused(tmp_path: Path, tool: str, extra: dict[str, Any]) -> None:
    root = tmp_path / "ws"

    async def check() -> None:
        server = create_server(root)
        try:
            async with Client(server) as client:
                listed = {t.name: t for t in (await client.list_tools()).tools}
                known = set(listed[tool].input_schema.get("properties", {}))
                unknown = {k: v for k, v in extra.items() if k not in known}
                if not unknown:
                    return
                before = snapshot(root)
                r = await client.call_tool(tool, {**VALID[tool], **unknown})
                assert r.is_error
                text = text_of(r)
                assert all(repr(k)[1:-1] in text or json.dumps(k)[1:-1] in text for k in unknown), text
                assert_ours(text, echoed=unknown)
                assert snapshot(root) == before
        finally:
            server.workspace_handle.close()  # type: ignore[attr-defined]

    anyio.run(check)


# -- the library, the CLI and HTTP follow the same rule --------------------------------------------------

def test_server_models_take_the_keys_the_library_takes() -> None:
    from context.gather import inputs
    from notes_store.sessions import TURN_KEYS
    from server.tools.context import DocumentIn, ToolDefIn, ToolResultIn
    from server.tools.models import Turn
    assert set(Turn.model_fields) == set(TURN_KEYS) == set(inputs.TURN_KEYS)
    assert set(DocumentIn.model_fields) == set(inputs.DOCUMENT_KEYS)
    assert set(ToolDefIn.model_fields) == set(inputs.TOOL_KEYS)
    assert set(ToolResultIn.model_fields) == set(inputs.TOOL_RESULT_KEYS) - {"result"}  # older callers' name


@pytest.mark.parametrize("kwargs, expected", [
    ({"documents": [{"content": "x", "tittle": "t"}]}, "unknown key 'tittle' in documents[0]: did you mean 'source'?"),
    ({"tools": [{"name": "t", "parameters": {}}]}, "unknown key 'parameters' in tools[0]: did you mean 'input_schema'?"),
    ({"tool_results": [{"tool": "t", "content": "x", "name": "n"}]}, "unknown key 'name' in tool_results[0]"),
    ({"history": [{"role": "user", "content": "c", "mood": 1}]}, "unknown key 'mood' in history[0]"),
])
def test_the_library_refuses_unknown_item_keys(kwargs: dict[str, Any], expected: str) -> None:
    from context import ContextError, build_context
    with pytest.raises(ContextError) as info:
        build_context("q", include_notes=False, include_memory=False, **kwargs)
    assert expected in str(info.value)


def test_the_library_still_takes_every_documented_key() -> None:
    from context import build_context
    built = build_context("q", include_notes=False, include_memory=False,
                          history=[{"role": "tool", "content": "c", "timestamp": "2024-01-01", "id": "1",
                                    "name": "calc", "tool_call_id": "x"}],
                          documents=[{"content": "d", "source": "s", "score": 1, "timestamp": 0}],
                          tool_results=[{"tool": "t", "result": "r", "id": "1", "timestamp": 0}],
                          tools=[{"name": "t", "description": "d", "input_schema": {}, "required": False}])
    assert built.tokens > 0


def test_the_cli_names_the_option_meant(tmp_path: Path) -> None:
    r = run_cli(["--workspace", str(tmp_path / "ws"), "note", "search", "c", "--limt", "1"])
    assert r.returncode == 2
    assert "unknown option '--limt': did you mean '--limit'?" in r.stderr, r.stderr
    r = run_cli(["--workspace", str(tmp_path / "ws"), "note", "list", "--sort", "newest"])
    assert r.returncode == 2 and "invalid choice: 'newest'" in r.stderr, r.stderr
    assert not (tmp_path / "ws" / "notes").exists() or not any((tmp_path / "ws" / "notes").iterdir())


def test_http_request_problems_are_in_our_words() -> None:
    from server.http_security import request_problem
    assert "not valid JSON (line 1, column 2)" in request_problem(b"{x")
    assert "'jsonrpc' must be \"2.0\"; got \"1.0\"" in request_problem(b'{"jsonrpc": "1.0", "id": 1, "method": "x"}')
    assert "'params' must be an object; got [1]" in request_problem(
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}')
    assert "'method' must be a string" in request_problem(b'{"jsonrpc": "2.0", "id": 1, "method": 5}')
    assert "unknown key(s) 'methd'" in request_problem(b'{"jsonrpc": "2.0", "id": 1, "methd": "x"}')


def test_http_endpoint_rewrites_the_sdks_validation_error(tmp_path: Path) -> None:
    import httpx2

    from helpers import MCP_HEADERS, REQUEST_TIMEOUT, serve_http
    with serve_http(tmp_path / "ws") as srv:
        url = f"http://127.0.0.1:{srv.port}/mcp"
        for body, expected in ((b'{"jsonrpc": "2.0", "id": 1, "method": 5}', "'method' must be a string"),
                               (b"{not json", "the request body is not valid JSON")):
            r = httpx2.post(url, content=body, headers=MCP_HEADERS, timeout=REQUEST_TIMEOUT)
            assert r.status_code == 400
            message = r.json()["error"]["message"]
            assert expected in message, message
            assert_ours(message)
