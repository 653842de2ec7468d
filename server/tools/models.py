"""The shapes the MCP surface publishes: parameter enums from the library's own constants, the conversation
turn both context tools take, and the output schemas of the tools (each shape defined once and reused).

The output models only describe results: tools build their structured content from the library's own
serialisation (``to_dict``) and the SDK does not re-validate it per call (see ``tools.kit``); the tests check
every result against the published schema.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Literal, Optional, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model
from pydantic.json_schema import SkipJsonSchema

from notes_store.memory.model import MEMORY_SORTS, MEMORY_TYPES, STRATEGIES
from notes_store.notes import NOTE_TYPES, SORTS, Note
from notes_store.sessions import ROLES

# Literal[...] over a tuple is the same type as listing its members: the library's tuples stay the one source.
NoteType = Literal[NOTE_TYPES]  # type: ignore[valid-type]
NoteSort = Literal[SORTS]  # type: ignore[valid-type]
MemoryType = Literal[MEMORY_TYPES]  # type: ignore[valid-type]
MemorySort = Literal[MEMORY_SORTS]  # type: ignore[valid-type]
Strategy = Literal[STRATEGIES]  # type: ignore[valid-type]
Role = Literal[ROLES]  # type: ignore[valid-type]


def _open_schema(schema: dict[str, Any]) -> None:
    schema.pop("additionalProperties", None)


class Turn(BaseModel):
    """One conversation turn: build_context's ``history`` and session_append's ``turns`` (one shape, since a
    stored session becomes history). Takes the session store's ``TURN_KEYS``, no other (a test checks they
    agree); ``name`` and ``tool_call_id`` are accepted without being advertised (few calls need them)."""

    # Unknown keys are refused, but the published schema does not say ``additionalProperties: false``: it
    # leaves out name and tool_call_id, which a schema-checking client must still be able to send.
    model_config = ConfigDict(extra="forbid", json_schema_extra=lambda schema: _open_schema(schema))
    role: Role
    content: str
    timestamp: Optional[str] = None
    id: Optional[str] = None
    name: SkipJsonSchema[Optional[str]] = None
    tool_call_id: SkipJsonSchema[Optional[str]] = None


class _Open(BaseModel):
    """Results may carry more keys than listed (e.g. ``warnings``, ``revision``) without breaking clients."""

    model_config = ConfigDict(extra="allow")


def row_fields(cls: type, *, skip: Iterable[str] = ()) -> dict[str, Any]:
    """The fields every serialised ``cls`` (a library dataclass) carries, i.e. those without a default, as
    ``create_model`` field specs: the library's class stays the one definition of a row."""
    hints = get_type_hints(cls)
    return {f.name: (hints[f.name], ...) for f in dataclasses.fields(cls)
            if f.name not in set(skip) and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING}


# A note's row as the tools return it: notes_store's Note without the server-side path, plus its resource URI.
NoteMeta = create_model("NoteMeta", __base__=_Open, **row_fields(Note, skip=("path",)), uri=(str, ...))


class NoteOut(NoteMeta):  # type: ignore[misc,valid-type]
    content: str
    window: Optional[dict[str, Any]] = None


class NoteHit(NoteMeta):  # type: ignore[misc,valid-type]
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
    total_is_lower_bound: bool = False
    hits: list[NoteHit]


class NoteListOut(Page):
    notes: list[NoteMeta]  # type: ignore[valid-type]


class NoteSummaryOut(_Open):
    total: int
    by_type: dict[str, int]
    top_tags: list[dict[str, Any]]
    recent: list[NoteMeta]  # type: ignore[valid-type]
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
