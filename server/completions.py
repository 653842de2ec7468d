"""``completion/complete``: note and memory ids for the ``note://{note_id}`` / ``memory://{memory_id}``
templates (by id prefix or by title words), tags and note types for prompt arguments.

Note ids and tags come from the notes' completion index (``notes_store.index.completion``), made once per
change of the notes: a keystroke reads no note row. ``match_notes`` is the plain scan it answers like."""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import Completion, PromptReference, ResourceTemplateReference

from notes_store.notes import NOTE_TYPES, NoteStore

from .state import WorkspaceHandle

MAX_VALUES = 100  # the protocol's cap per completion answer


def match_notes(notes: list[Any], value: str) -> list[str]:
    """Ids that start with ``value``, then ids whose title contains each word of ``value`` (case aside; the
    word-start test is implied by the substring one), in the order of ``notes``. The reference for
    ``complete_note_ids`` (tests, ``bench.completion``): it looks at every note, and its ``not in by_id`` is
    quadratic when many ids match (every id starts with "note_": ~5 s per keystroke at 30k notes)."""
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


def complete_note_ids(notes: NoteStore, value: str) -> Completion:
    """The ``note_id`` answer for ``value``: ``_answer(match_notes(notes.headers(), value))``, from the index."""
    values, total = notes.completions().complete(value, MAX_VALUES)
    return Completion(values=values, total=total, has_more=total > MAX_VALUES)


def complete_tags(notes: NoteStore, value: str) -> Completion:
    """Tags starting with ``value`` (case aside), the most used first, then by name."""
    return _answer(notes.completions().tags(value))


def register(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.completion()  # type: ignore[no-untyped-call,untyped-decorator]
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        name, value = argument.name, argument.value or ""
        if isinstance(ref, ResourceTemplateReference):
            if ref.uri in ("note://{note_id}", "note://{+note_id}") and name == "note_id":
                return await anyio.to_thread.run_sync(lambda: complete_note_ids(handle.get().notes, value))
            if ref.uri == "memory://{memory_id}" and name == "memory_id":
                ids = await anyio.to_thread.run_sync(lambda: handle.get().memory.ids(value.strip()))
                return _answer(ids)
            return None
        if isinstance(ref, PromptReference):
            if name == "note_type":
                return _answer([t for t in NOTE_TYPES if t.startswith(value.strip().lower())])
            if name in ("tag", "tags"):
                return await anyio.to_thread.run_sync(lambda: complete_tags(handle.get().notes, value))
        return None
