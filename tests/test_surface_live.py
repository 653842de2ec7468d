"""Live updates through real SDK clients: resources/subscribe (handshake era) and subscriptions/listen
(2026-07-28), over stdio and streamable HTTP; only subscribers hear, and only about what they subscribed to."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextContent
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

REPO = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.anyio]


def text_of(result: Any) -> str:
    """The text of a tool result's first content block."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text
WAIT_S = 10.0


def stdio(ws: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "server.cli", "serve", "--workspace", str(ws)],
                                 cwd=str(REPO))


@pytest.fixture
def http_url(tmp_path: Path) -> Iterator[str]:
    """A real `ctxnotes serve --http` process on a free port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "CTXNOTES_TOKEN"}
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--http", "--port", str(port),
                             "--workspace", str(tmp_path / "ws")], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Inbox:
    """Notifications a handshake-era client received."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str | None]] = []
        self.event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if method in ("notifications/resources/updated", "notifications/resources/list_changed"):
            params = getattr(root, "params", None)
            self.items.append((method, str(getattr(params, "uri", "")) or None))
            self.event.set()

    async def wait_for(self, method: str, uri: str | None = None) -> None:
        with anyio.fail_after(WAIT_S):
            while not any(m == method and (uri is None or u == uri) for m, u in self.items):
                self.event = anyio.Event()
                await self.event.wait()


async def _create(client: Client, title: str) -> dict[str, Any]:
    r = await client.call_tool("note_create", {"title": title, "content": "body"})
    assert not r.is_error, text_of(r)
    data: dict[str, Any] = r.structured_content
    return data


async def _legacy_route(target: Any, ws_path: Path | None) -> None:
    """Two sessions: one subscribes to note A. A change to A (by tool, then by hand) reaches it; a change to
    B does not; the other session, subscribed to nothing, hears nothing."""
    inbox, other_inbox = Inbox(), Inbox()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # subscribe_resource is deprecated in the 2026 era: that is the point
        async with Client(target, mode="legacy", message_handler=inbox) as c, \
                Client(target, mode="legacy", message_handler=other_inbox) as other:
            a, b = await _create(c, "watched"), await _create(c, "not watched")
            await c.subscribe_resource(a["uri"])
            await other.call_tool("note_update", {"note_id": b["id"], "content": "changed b"})
            await other.call_tool("note_update", {"note_id": a["id"], "content": "changed by a tool"})
            await inbox.wait_for("notifications/resources/updated", a["uri"])
            assert ("notifications/resources/updated", b["uri"]) not in inbox.items
            if ws_path is not None:  # an editor's save, outside ctxnotes
                inbox.items.clear()
                path = ws_path / "notes" / f"{a['id']}.md"
                path.write_text(path.read_text(encoding="utf-8") + "\nedited by hand\n", encoding="utf-8")
                await inbox.wait_for("notifications/resources/updated", a["uri"])
            await _create(other, "a new note")
            await inbox.wait_for("notifications/resources/list_changed")
            await c.unsubscribe_resource(a["uri"])
            inbox.items.clear()
            await other.call_tool("note_update", {"note_id": a["id"], "content": "after unsubscribe"})
            await anyio.sleep(1.0)
            assert ("notifications/resources/updated", a["uri"]) not in inbox.items
            assert not [i for i in other_inbox.items if i[0] == "notifications/resources/updated"]


async def _listen_route(target: Any) -> None:
    async with Client(target) as c, Client(target) as writer:
        a, b = await _create(c, "watched"), await _create(c, "other")
        async with c.listen(resource_subscriptions=[a["uri"]], resources_list_changed=True) as sub:
            await writer.call_tool("note_update", {"note_id": b["id"], "content": "not watched"})
            await writer.call_tool("note_update", {"note_id": a["id"], "content": "watched change"})
            seen: list[Any] = []
            with anyio.fail_after(WAIT_S):
                async for event in sub:
                    seen.append(event)
                    if isinstance(event, ResourceUpdated):
                        break
            assert ResourceUpdated(uri=a["uri"]) in seen
            assert ResourceUpdated(uri=b["uri"]) not in seen
            await _create(writer, "appears")
            with anyio.fail_after(WAIT_S):
                async for event in sub:
                    if isinstance(event, ResourcesListChanged):
                        break


async def test_subscribe_over_stdio(tmp_path: Path) -> None:
    await _legacy_route(stdio(tmp_path / "ws"), tmp_path / "ws")


async def test_subscribe_over_http(http_url: str, tmp_path: Path) -> None:
    await _legacy_route(http_url, tmp_path / "ws")


async def test_listen_over_stdio(tmp_path: Path) -> None:
    await _listen_route(stdio(tmp_path / "ws"))


async def test_listen_over_http(http_url: str) -> None:
    await _listen_route(http_url)


async def test_handshake_advertises_subscribe_and_list_changed(tmp_path: Path) -> None:
    from server.app import create_server
    server = create_server(tmp_path / "ws")
    async with Client(server, mode="legacy") as c:
        caps = c.session.get_server_capabilities() if hasattr(c.session, "get_server_capabilities") else None
        caps = caps or c.server_capabilities
        assert caps.resources is not None and caps.resources.subscribe and caps.resources.list_changed
        assert caps.completions is not None
    server.workspace_handle.close()  # type: ignore[attr-defined]
