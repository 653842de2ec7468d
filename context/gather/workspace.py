"""Adapter: the notes and memories of a workspace as an ``EvidenceProvider``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from notes_store.errors import StoreError
from notes_store.files.note_paths import encode_uri_id

from .sources import Evidence


LINK_HOP_FROM = 3      # hits whose links are followed (the best ones)
LINK_HOP_MAX = 5       # linked notes added at most
LINK_HOP_WEIGHT = 0.5  # a linked note's score: this times the score of the hit linking to it


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
                                  uri=f"note://{encode_uri_id(note.id)}"))
        return found + self._one_hop(found, limit - len(found), note_types, tags)

    def _one_hop(self, found: list[Evidence], room: int, note_types: list[str] | None,
                 tags: list[str] | None) -> list[Evidence]:
        """Notes the best hits link to, when the search left room under ``limit`` (the budget's share of
        evidence): at most ``LINK_HOP_MAX``, from the first ``LINK_HOP_FROM`` hits, each scored
        ``LINK_HOP_WEIGHT`` times the hit that links to it, so selection weighs them below it. Each carries
        ``linked_from``, which the report names."""
        links = getattr(self.ws.notes, "links", None)
        if room <= 0 or not found or links is None:
            return []
        seen = {ev.id for ev in found}
        out: list[Evidence] = []
        for hit in found[:LINK_HOP_FROM]:
            try:
                targets = links(hit.id)["links_to"]
            except StoreError:
                continue
            for target in targets:
                if len(out) >= min(room, LINK_HOP_MAX):
                    return out
                if target in seen:
                    continue
                seen.add(target)
                try:
                    note = self.ws.notes.read(target)
                except StoreError:
                    continue
                if (note_types and note.type not in note_types) or (tags and not set(tags) <= set(note.tags)):
                    continue
                out.append(Evidence(source="note", id=note.id, title=note.title, content=note.content or "",
                                    score=hit.score * LINK_HOP_WEIGHT, timestamp=_when(note.updated_at),
                                    label=note.type, uri=f"note://{encode_uri_id(note.id)}", linked_from=hit.id))
        return out

    def find_memories(self, query: str, limit: int) -> list[Evidence]:
        memory = getattr(self.ws, "memory", None)
        if memory is None:
            return []
        result = memory.search(query, limit=min(max(limit, 1), 100), touch=False)
        return [Evidence(source="memory", id=h.memory.id, title=h.memory.memory_type, content=h.memory.content or "",
                         score=h.bm25, timestamp=_when(h.memory.last_accessed_at or h.memory.created_at),
                         label=h.memory.memory_type, importance=h.memory.importance, uri=f"memory://{h.memory.id}")
                for h in result.hits]
