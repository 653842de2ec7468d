"""One spelling per resource: note://<id> only; other spellings are refused with the right one."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from server.app import create_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_only_the_canonical_note_uri_resolves(tmp_path):
    server = create_server(tmp_path / "ws")
    async with Client(server) as c:
        made = await c.call_tool("note_create", {"title": "plain", "content": "body"})
        note_id = made.structured_content["id"]
        ok = await c.read_resource(f"note://{note_id}")
        assert "body" in ok.contents[0].text
        for spelling in (f"{note_id}%20", f"{note_id}%0A", f"{note_id}.md"):  # %-escapes of id characters are decoded by the SDK before we see them
            with pytest.raises(MCPError) as err:
                await c.read_resource(f"note://{spelling}")
            assert f"note://{note_id}" in str(err.value), (spelling, str(err.value))
