"""``completion/complete``: note and memory ids for the ``note://{note_id}`` / ``memory://{memory_id}``
templates (by id prefix or by title words), tags and note types for prompt arguments."""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import Completion, PromptReference, ResourceTemplateReference

from notes_store.notes import NOTE_TYPES

from .mcp_state import WorkspaceHandle

MAX_VALUES = 100  # the protocol's cap per completion answer


def match_notes(notes: list[Any], value: str) -> list[str]:
    """Ids that start with ``value``, then ids whose title has a word starting with each word of ``value``."""
    value = value.strip()
    if not value:
        return [n.id for n in notes]
    by_id = [n.id for n in notes if n.id.startswith(value)]
    words = value.lower().split()
    by_title = [n.id for n in notes if n.id not in by_id
                and all(any(t.startswith(w) for t in n.title.lower().split()) or w in n.title.lower()
                        for w in words)]
    return by_id + by_title


def _answer(values: list[str]) -> Completion:
    return Completion(values=values[:MAX_VALUES], total=len(values), has_more=len(values) > MAX_VALUES)


def register(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.completion()  # type: ignore[no-untyped-call,untyped-decorator]
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        name, value = argument.name, argument.value or ""
        if isinstance(ref, ResourceTemplateReference):
            if ref.uri == "note://{note_id}" and name == "note_id":
                notes = await anyio.to_thread.run_sync(lambda: handle.get().notes.headers())
                return _answer(match_notes(notes, value))
            if ref.uri == "memory://{memory_id}" and name == "memory_id":
                ids = await anyio.to_thread.run_sync(lambda: handle.get().memory.ids(value.strip()))
                return _answer(ids)
            return None
        if isinstance(ref, PromptReference):
            if name == "note_type":
                return _answer([t for t in NOTE_TYPES if t.startswith(value.strip().lower())])
            if name in ("tag", "tags"):
                notes = await anyio.to_thread.run_sync(lambda: handle.get().notes.headers())
                counts: dict[str, int] = {}
                for n in notes:
                    for t in n.tags:
                        counts[t] = counts.get(t, 0) + 1
                want = value.strip().lower()
                return _answer(sorted((t for t in counts if t.lower().startswith(want)),
                                      key=lambda t: (-counts[t], t)))
        return None
