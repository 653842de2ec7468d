"""Typed results of the MCP tools (they become each tool's ``outputSchema``).

Kept free of ``notes_store`` imports so that building the server (and
answering ``tools/list``) does not load the store or its index library.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, Field

NoteType = Literal["task_state", "conclusion", "blocker", "action", "reference", "general"]
NoteSort = Literal["updated_desc", "updated_asc", "created_desc", "created_asc", "title"]
MemoryType = Literal["working", "episodic", "semantic"]
ContextFormat = Literal["text", "messages"]
QueryType = Literal["auto", "factual", "task", "debug", "research", "conversation"]


class NoteMeta(BaseModel):
    """A note without its content (listings, search hits)."""

    id: str = Field(description="The note id; pass it to note_read/note_update/note_delete")
    title: str
    type: NoteType
    tags: list[str]
    created_at: str = Field(description="ISO 8601, UTC")
    updated_at: str = Field(description="ISO 8601, UTC")
    uri: str = Field(description="Resource URI of the raw Markdown file, note://<id>")


class NoteOut(NoteMeta):
    """A full note."""

    content: str = Field(description="The Markdown body without the '# title' line")
    extra: dict[str, Any] = Field(default_factory=dict,
                                  description="Front-matter keys a person added by hand (kept on update)")


class SearchHitOut(NoteMeta):
    score: float = Field(description="Relevance (BM25; only meaningful within one search)")
    snippet: str = Field(description="The matching passage")


class NoteSearchOut(BaseModel):
    query: str
    total: int = Field(description="Matches before paging")
    limit: int
    offset: int
    matched: Literal["all", "any"] = Field(
        description="'all': every word matched; 'any': nothing matched every word, so notes with some words")
    hits: list[SearchHitOut]


class NoteListOut(BaseModel):
    total: int = Field(description="Notes matching the filters before paging")
    limit: int
    offset: int
    notes: list[NoteMeta]


class TagCount(BaseModel):
    tag: str
    count: int


class Unreadable(BaseModel):
    path: str
    reason: str


class ConflictOut(BaseModel):
    id: str
    path: str
    readable: bool


class NoteSummaryOut(BaseModel):
    total: int
    by_type: dict[str, int]
    top_tags: list[TagCount]
    recent: list[NoteMeta]
    unreadable: list[Unreadable] = Field(description="Files in notes/ that could not be parsed, and why")
    conflicts: list[ConflictOut] = Field(default_factory=list, description=(
        "Notes with unresolved Git merge-conflict markers; resolve them by hand and commit"))


class CommitOut(BaseModel):
    hash: str
    short_hash: str
    date: str = Field(description="Author date, ISO 8601")
    author: str
    email: str
    message: str


class NoteHistoryOut(BaseModel):
    id: str
    path: str
    in_git: bool
    repository: Optional[str] = None
    commits: list[CommitOut]
    message: str


class NoteDeleteOut(BaseModel):
    deleted: bool
    id: str
    title: Optional[str] = None


class ReindexOut(BaseModel):
    indexed: int = Field(description="Files indexed (notes and memories)")
    unreadable: int = Field(description="Files skipped because they could not be parsed")
    seconds: float


def note_meta(d: dict[str, Any]) -> dict[str, Any]:
    out = {k: d[k] for k in ("id", "title", "type", "tags", "created_at", "updated_at")}
    out["uri"] = f"note://{d['id']}"
    return out
