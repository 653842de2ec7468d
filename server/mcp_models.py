"""The shapes the MCP surface publishes: parameter enums from the library's own constants, and the output
schemas of the tools (each shape defined once and reused).

The output models only describe results: tools build their structured content from the library's own
serialisation (``to_dict``) and the SDK does not re-validate it per call (see ``tool_kit``); the tests check
every result against the published schema.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict

from notes_store.memory_model import MEMORY_SORTS, MEMORY_TYPES, STRATEGIES
from notes_store.notes import NOTE_TYPES, SORTS

# Literal[...] over a tuple is the same type as listing its members: the library's tuples stay the one source.
NoteType = Literal[NOTE_TYPES]  # type: ignore[valid-type]
NoteSort = Literal[SORTS]  # type: ignore[valid-type]
MemoryType = Literal[MEMORY_TYPES]  # type: ignore[valid-type]
MemorySort = Literal[MEMORY_SORTS]  # type: ignore[valid-type]
Strategy = Literal[STRATEGIES]  # type: ignore[valid-type]


class _Open(BaseModel):
    """Results may carry more keys than listed (e.g. ``warnings``, ``revision``) without breaking clients."""

    model_config = ConfigDict(extra="allow")


class NoteMeta(_Open):
    id: str
    title: str
    type: str
    tags: list[str]
    created_at: str
    updated_at: str
    uri: str


class NoteOut(NoteMeta):
    content: str
    window: Optional[dict[str, Any]] = None


class NoteHit(NoteMeta):
    score: float
    snippet: str


class Page(_Open):
    total: int
    limit: int
    offset: int
    shown: int
    next_offset: Optional[int] = None


class NoteSearchOut(Page):
    query: str
    matched: str
    hits: list[NoteHit]


class NoteListOut(Page):
    notes: list[NoteMeta]


class NoteSummaryOut(_Open):
    total: int
    by_type: dict[str, int]
    top_tags: list[dict[str, Any]]
    recent: list[NoteMeta]
    unreadable: list[dict[str, str]]
    conflicts: list[dict[str, Any]]


class NoteDeleteOut(_Open):
    deleted: bool
    id: str


class NoteHistoryOut(_Open):
    id: str
    in_git: bool
    commits: list[dict[str, str]]
    message: str


class ReindexOut(_Open):
    indexed: int
    unreadable: int
    seconds: float


class MemoryOut(_Open):
    id: str
    memory_type: str
    importance: float
    tags: list[str]
    created_at: str
    uri: str
    content: Optional[str] = None


class MemoryHit(MemoryOut):
    score: float


class MemorySearchOut(_Open):
    query: str
    candidates: int
    shown: int
    matched: str
    hits: list[MemoryHit]


class MemoryListOut(Page):
    memories: list[MemoryOut]


class MemoryBatchOut(_Open):
    """memory_forget and memory_consolidate: what was (or, with dry_run, would be) removed or moved."""

    dry_run: bool
    count: int


class MemorySummaryOut(_Open):
    total: int
    by_type: dict[str, dict[str, Any]]


# Used by tools_context (H3's module) until it takes its choices from the context package.
ContextFormat = Literal["text", "messages"]
