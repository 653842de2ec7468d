"""The default tool surface stays within issue 15's budget: at most 2,500 model-visible tokens (name +
description + inputSchema, what agent clients put in the prompt) and 5,000 tokens for the whole
``tools/list`` (output schemas, titles and annotations too), counted with cl100k as bench/tool_surface.py
counts them, from a real in-memory MCP client's ``tools/list`` in both protocol eras."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from bench.tool_surface import as_dicts, surface_tokens, tool_costs
from server.app import TOOL_GROUPS, create_server

pytestmark = pytest.mark.anyio

MAX_MODEL_VISIBLE = 2_500
MAX_TOOLS_LIST = 5_000


def _table(tools: list[dict[str, Any]]) -> str:
    rows = sorted(tool_costs(tools), key=lambda r: -r["visible"])
    return "\n".join(f"  {r['name']:<22} {r['visible']:>5} {r['full']:>5}" for r in rows)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_default_surface_is_within_the_token_budget(tmp_path: Path, monkeypatch: Any, mode: str) -> None:
    monkeypatch.delenv("CTXNOTES_TOOLS", raising=False)  # the default surface: every group
    server = create_server(tmp_path / "ws")
    assert server.tool_groups == TOOL_GROUPS  # type: ignore[attr-defined]
    async with Client(server, mode=mode) as client:
        tools = as_dicts((await client.list_tools()).tools)
    names = {t["name"] for t in tools}
    # Every group is listed (a surface that lost its tools would pass the budget for the wrong reason).
    assert {"note_create", "memory_add", "build_context", "session_append", "reindex"} <= names, names
    assert all(t.get("outputSchema") for t in tools), "every tool publishes an output schema"
    visible, whole = surface_tokens(tools)
    assert visible > 1_000 and whole > visible  # the counting sees real schemas
    assert visible <= MAX_MODEL_VISIBLE, f"model-visible {visible} > {MAX_MODEL_VISIBLE}:\n{_table(tools)}"
    assert whole <= MAX_TOOLS_LIST, f"tools/list {whole} > {MAX_TOOLS_LIST}:\n{_table(tools)}"
