"""Adapter: the notes and memories of a workspace as an ``EvidenceProvider``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from notes_store.errors import StoreError

from .sources import Evidence


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


class WorkspaceEvidence:
    """Finds notes (with their content) and memories in an open workspace.

    Memory hits found for a context are not counted as accesses: building a
    context is not the agent recalling a memory (``touch=False``).
    """

    def __init__(self, workspace: Any) -> None:
        self.ws = workspace

    def find_notes(self, query: str, limit: int, note_types: list[str] | None,
                   tags: list[str] | None) -> list[Evidence]:
        result = self.ws.notes.search(query, limit=min(max(limit, 1), 100), note_type=note_types or None,
                                      tags=tags or None)
        found = []
        for hit in result.hits:
            try:
                note = self.ws.notes.read(hit.note.id)
            except StoreError:  # deleted or broken since the search: skip it
                continue
            found.append(Evidence(source="note", id=note.id, title=note.title, content=note.content or "",
                                  score=hit.score, timestamp=_when(note.updated_at), label=note.type,
                                  uri=f"note://{note.id}"))
        return found

    def find_memories(self, query: str, limit: int) -> list[Evidence]:
        memory = getattr(self.ws, "memory", None)
        if memory is None:
            return []
        result = memory.search(query, limit=min(max(limit, 1), 100), touch=False)
        return [Evidence(source="memory", id=h.memory.id, title=h.memory.memory_type, content=h.memory.content or "",
                         score=h.bm25, timestamp=_when(h.memory.last_accessed_at or h.memory.created_at),
                         label=h.memory.memory_type, importance=h.memory.importance, uri=f"memory://{h.memory.id}")
                for h in result.hits]
