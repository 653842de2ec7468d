"""Conversation sessions over MCP: ``session_append`` (group ``context``), ``session_admin`` (group ``admin``)
and the paging resource ``session://{session_id}`` (``session://{session_id}/{offset}`` for later pages).

The store is ``notes_store.sessions``; it needs only the workspace folder, so recording a turn never waits
for the search index to open. build_context reads the same files through ``history_for_build``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from pydantic import BaseModel, ConfigDict, Field

from .models import Turn
from .kit import DELETES, WRITES, Limits, Reply, add_tool

log = logging.getLogger("ctxnotes.server")

GROUP = "context"                      # app.py registers ``register`` with this tool group
PAGE_TURNS = 50                        # turns per resource page
PAGE_CHARS = 60_000                    # JSON characters per resource page (about 15k tokens at most)



class SessionAppendOut(BaseModel):
    session_id: str
    appended: int
    ids: list[str]
    duplicates: list[str]
    total_turns: int


class SessionAdminOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    action: str


_stores: dict[Path, Any] = {}
_stores_lock = threading.Lock()


def root_of(workspace: Any) -> Path:
    """The workspace folder from a ``WorkspaceHandle`` (``.path``), an open workspace (``.root``), a
    callable returning either, or a path."""
    if isinstance(workspace, (str, os.PathLike)):
        return Path(workspace).expanduser()
    if hasattr(workspace, "path") and not callable(workspace.path):
        return Path(workspace.path).expanduser()
    if hasattr(workspace, "root"):
        return Path(workspace.root)
    if callable(workspace):
        return root_of(workspace())
    return Path(workspace).expanduser()


def store_for(workspace: Any) -> Any:
    """One ``SessionStore`` per workspace folder (it keeps no open files; the parse cache is shared)."""
    from notes_store.sessions import SessionStore
    root = root_of(workspace).resolve()
    with _stores_lock:
        store = _stores.get(root)
        if store is None:
            store = _stores[root] = SessionStore(root)
        return store


def history_for_build(workspace: Any, session_id: str | None,
                      history: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """build_context's ``history``: the stored session first, then the passed turns (or just the passed
    turns when there is no session_id). Raises ``StoreError`` (unknown session, bad id)."""
    from notes_store.sessions import history_with_session
    return history_with_session(root_of(workspace), session_id, history)


def register(server: MCPServer, handle: Any, limits: Limits | None = None) -> None:
    """``session_append`` and the ``session://`` resource; ``session_admin`` too when the server serves the
    ``admin`` group (``server.tool_groups``, all groups when unset)."""
    limits = limits or Limits()
    _bind_metrics(handle)

    def session_append(session_id: str,
                       turns: Annotated[list[Turn], Field(min_length=1, max_length=500)]) -> Reply:
        r = store_for(handle).append(session_id, [t.model_dump(exclude_none=True) for t in turns])
        text = f"Stored {r.appended} turn(s) in session {r.session_id} ({r.total_turns} in all)"
        if r.duplicates:
            text += f"; {len(r.duplicates)} already stored (same id), skipped"
        data = {"session_id": r.session_id, "appended": r.appended, "ids": r.ids, "duplicates": r.duplicates,
                "total_turns": r.total_turns}
        return Reply(text, data, r.warnings)

    add_tool(server, session_append, name="session_append", title="Record conversation turns",
             description="Store conversation turns (oldest first) for build_context(session_id); turns with "
                         "an id already stored are skipped.",
             annotations=WRITES,
             output=SessionAppendOut, limits=limits)

    groups = getattr(server, "tool_groups", None)
    if groups is None or "admin" in groups:
        register_admin(server, handle, limits)
    _register_resources(server, handle)


def register_admin(server: MCPServer, handle: Any, limits: Limits | None = None) -> None:
    """``session_admin``: list, delete or prune sessions (one tool keeps the surface small). Registering it twice
    (from ``register`` and from an ``admin`` group hook) is harmless: the second call does nothing."""
    if server._tool_manager.get_tool("session_admin") is not None:  # the SDK has no public lookup
        return
    limits = limits or Limits()

    def session_admin(action: Literal["list", "delete", "prune"],
                      session_id: Optional[str] = None,
                      older_than: Optional[str] = None,
                      dry_run: bool = False) -> Reply:
        from notes_store.errors import InvalidInput
        from notes_store.sessions import parse_duration
        store = store_for(handle)
        if action == "list":
            total, infos = store.list(limit=100)
            rows = [i.to_dict() for i in infos]
            lines = [i.line() for i in infos]
            head = f"{total} session(s)" + ("; the 100 most recent:" if total > 100 else ":" if total else "")
            return Reply("\n".join([head] + lines), {"action": action, "total": total, "sessions": rows})
        if action == "delete":
            if not session_id:
                raise InvalidInput("session_id is required for action=delete")
            if dry_run:
                exists = store.exists(session_id)
                return Reply(f"Would delete session {session_id}" if exists else f"No session {session_id}",
                             {"action": action, "deleted": [session_id] if exists else [], "dry_run": True})
            gone = store.delete(session_id)
            return Reply(f"Deleted session {session_id}" if gone else f"No session {session_id}",
                         {"action": action, "deleted": [session_id] if gone else [], "dry_run": False})
        if not older_than:
            raise InvalidInput("older_than is required for action=prune, e.g. 30d")
        removed = store.prune(parse_duration(older_than), dry_run=dry_run)
        verb = "Would delete" if dry_run else "Deleted"
        return Reply(f"{verb} {len(removed)} session(s) idle for over {older_than}"
                     + (": " + ", ".join(removed[:50]) if removed else ""),
                     {"action": action, "deleted": removed, "dry_run": dry_run})

    add_tool(server, session_admin, name="session_admin", title="List, delete or prune sessions",
             description="List stored sessions, delete one, or prune those idle longer than older_than "
                         "(e.g. 30d).",
             annotations=DELETES,
             output=SessionAdminOut, limits=limits)


def _register_resources(server: MCPServer, handle: Any) -> None:
    import anyio

    def page(session_id: str, offset: int) -> str:
        from notes_store.errors import StoreError
        try:
            p = store_for(handle).turns(session_id, offset=offset, limit=PAGE_TURNS, max_chars=PAGE_CHARS)
        except StoreError as exc:
            raise ResourceNotFoundError(str(exc)) from None
        data = p.to_dict()
        data["next_uri"] = f"session://{p.session_id}/{p.next_offset}" if p.next_offset is not None else None
        if not data["bad_lines"]:
            del data["bad_lines"]
        return json.dumps(data, ensure_ascii=False, indent=1)

    @server.resource("session://{session_id}", name="session", title="A conversation session",
                     mime_type="application/json",
                     description=f"The first {PAGE_TURNS} turns of a session (JSON); next_uri gives the next page.")
    async def session_first_page(session_id: str) -> str:
        return await anyio.to_thread.run_sync(page, session_id, 0)

    @server.resource("session://{session_id}/{offset}", name="session_page", title="A page of a session",
                     mime_type="application/json",
                     description=f"{PAGE_TURNS} turns from offset (negative: from the end).")
    async def session_page(session_id: str, offset: str) -> str:
        try:
            start = int(offset)
        except ValueError:
            raise ResourceNotFoundError(f"offset {offset!r} is not a whole number: use e.g. "
                                        f"session://{session_id}/50 or /-50 for the last 50 turns") from None
        return await anyio.to_thread.run_sync(page, session_id, start)


def _bind_metrics(handle: Any) -> None:
    """Let /metrics report this server's workspace (index size, generation, sessions)."""
    try:
        from .. import metrics
        metrics.bind_workspace(handle)
    except Exception:  # metrics are optional; a failure here must not stop the server
        log.debug("metrics.bind_workspace failed", exc_info=True)

