"""Shared fixtures: real workspaces in temporary folders."""

from __future__ import annotations

import pytest

from mcp import Client

from notes_store import open_workspace
from server.app import create_server


class FakeClock:
    """A settable clock for tests that move time without sleeping."""

    def __init__(self, start: float = 1_764_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def ws(tmp_path):
    workspace = open_workspace(tmp_path / "ws")
    yield workspace
    workspace.close()


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def server(tmp_path):
    """An MCP server over a fresh workspace (opened on first use)."""
    srv = create_server(tmp_path / "ws")
    yield srv
    srv.workspace_handle.close()


@pytest.fixture
async def client(server):
    """The SDK's in-process client connected to ``server``."""
    async with Client(server) as c:
        yield c


@pytest.fixture
def http_server(tmp_path):
    """Start ``ctxnotes serve --http`` processes on ports they pick (``--port 0``); all stopped afterwards.

    ``http_server(*flags, env=..., host=..., workspace=..., global_args=...)`` returns a ``helpers.HttpServer``.
    """
    from helpers import HttpServer

    started: list[HttpServer] = []

    def start(*extra: str, env: dict | None = None, host: str = "127.0.0.1", workspace=None,
              global_args: tuple[str, ...] = ()) -> HttpServer:
        server = HttpServer(workspace or tmp_path / "ws", extra, env=env, host=host, log_dir=tmp_path / "logs",
                            global_args=global_args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
