"""Helpers shared by the reliability tests and the long fuzz run."""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path
from typing import Any
from collections.abc import Iterator

INTERNAL_ERROR = "Error executing tool"


def snapshot(root: str | os.PathLike[str], skip_index: bool = True) -> dict[str, tuple[str, int, str]]:
    """Every file and link under ``root`` (the index folder left out by default):
    {relative path: (kind, mtime_ns, sha256 or link target)}."""
    root = Path(root)
    out: dict[str, tuple[str, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if skip_index and rel_dir.parts[:1] == (".index",):
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(rel_dir / name)
            st = os.lstat(path)
            if os.path.islink(path):
                out[rel] = ("link", st.st_mtime_ns, os.readlink(path))
            elif os.path.isdir(path):
                out[rel] = ("dir", 0, "")
            else:
                out[rel] = ("file", st.st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def classify(name: str, result: Any) -> str:
    """'ok', 'tool_error' (is_error with an actionable message) or 'internal_error'
    (the SDK's bare "Error executing tool X": an unexpected exception in the tool)."""
    if not result.is_error:
        return "ok"
    text = result.content[0].text if result.content else ""
    if not text.strip() or text.strip() == f"{INTERNAL_ERROR} {name}" or "Traceback" in text:
        return "internal_error"
    return "tool_error"


def error_text(result: Any) -> str:
    return result.content[0].text if result.content else ""


class SyncClient:
    """An in-process MCP ``Client`` driven from synchronous code (Hypothesis rules, a plain loop):
    the client lives on an event loop in a background thread (an anyio blocking portal)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._stack = contextlib.ExitStack()
        self.portal: Any = None  # set on __enter__
        self.client: Any = None

    def __enter__(self) -> SyncClient:
        from anyio.from_thread import start_blocking_portal
        from mcp import Client
        self.portal = self._stack.enter_context(start_blocking_portal("asyncio"))
        self.client = self._stack.enter_context(self.portal.wrap_async_context_manager(Client(self.server)))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def call(self, name: str, args: dict[str, Any]) -> Any:
        return self.portal.call(self.client.call_tool, name, args)

    def read_resource(self, uri: str) -> Any:
        return self.portal.call(self.client.read_resource, uri)


@contextlib.contextmanager
def server_for(root: str | os.PathLike[str], **workspace_options: Any) -> Iterator[Any]:
    """``create_server`` over ``root`` with workspace options (e.g. ``max_content_bytes``); closed on exit."""
    from notes_store import open_workspace
    from server.app import create_server
    from server.state import WorkspaceHandle
    path = Path(root)
    handle = WorkspaceHandle(path, opener=lambda p: open_workspace(p, **workspace_options))
    server = create_server(path, handle=handle)
    try:
        yield server
    finally:
        handle.close()
