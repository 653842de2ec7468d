"""The interface through which the builder finds notes and memories in a workspace.

The builder depends only on this Protocol, never on the store or the server:
the lead's adapter turns the real workspace into ``Evidence`` items.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable


@dataclass
class Evidence:
    """One note or memory found in the workspace for a query."""

    source: str                 # "note" | "memory"
    id: str
    title: str
    content: str
    score: float                # the index's relevance score (BM25, unnormalised)
    timestamp: datetime | None = None
    label: str = ""             # note type (task_state, blocker, ...) or memory type (working/episodic/semantic)
    importance: float | None = None  # memories only, 0..1
    uri: str = ""               # "note://<id>" or "memory://<id>"
    linked_from: str = ""       # a note added because this note (a search hit) links to it: one hop

    def __post_init__(self) -> None:
        if not self.uri:
            self.uri = f"{self.source}://{self.id}"


@runtime_checkable
class EvidenceProvider(Protocol):
    """Finds notes and memories relevant to a query, best first."""

    def find_notes(self, query: str, limit: int, note_types: list[str] | None,
                   tags: list[str] | None) -> list[Evidence]: ...

    def find_memories(self, query: str, limit: int) -> list[Evidence]: ...
