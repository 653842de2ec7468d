"""Memories: the data types, the file format and the scoring rules.

A memory is ``<workspace>/memory/<id>.md``: YAML front matter (id, memory_type,
importance, tags, created_at, last_accessed_at, access_count, source,
expires_at, plus any keys a person adds) and the content as the Markdown body::

    ---
    id: mem_20261129_153000_1a2b3c4d
    memory_type: episodic
    importance: 0.8
    tags: [project-x]
    created_at: '2026-11-29T15:30:00+00:00'
    last_accessed_at: '2026-11-29T15:30:00+00:00'
    access_count: 0
    source: note_20261129_150000_0badcafe
    ---
    The user prefers tabs over spaces.

Scoring (all parts are in 0..1; weights and half-lives are ``MemoryConfig``):

* ``relevance`` = BM25 score / the best BM25 score among the matching memories;
* ``recency``   = 0.5 ** (age / half_life), where age is the time since the
  memory was last accessed (its creation, if never); half-life 1 h for
  working, 7 days for episodic, none (recency is always 1) for semantic;
* ``importance`` as stored.

``score = 0.5 * relevance + 0.25 * recency + 0.25 * importance``. Recency
and importance weigh the same, so at equal relevance an old important
memory ranks above a fresh unimportant one exactly while its recency lead is
smaller than its importance lead: an episodic memory of importance 0.9 last
touched one half-life (7 days) ago (0.25*0.5 + 0.25*0.9 = 0.35) beats a
fresh one of importance 0.2 (0.25*1 + 0.25*0.2 = 0.30); after three
half-lives (0.25*0.125 + 0.25*0.9 = 0.256) the fresh one wins.

The *value* used to pick what to evict or forget first is
``importance * recency`` (same recency as above).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from ..files.front_matter import BadFile, Document, parse_document
from ..errors import InvalidInput
from ..index import IndexEntry
from ..files.items import Page, file_tags, revision_of
from ..validation import is_number, iso_now, parse_time

MEMORY_TYPES = ("working", "episodic", "semantic")
STRATEGIES = ("importance_based", "time_based", "capacity_based")
MEMORY_SORTS = ("created_desc", "created_asc", "importance_desc", "accessed_desc")
# Promotions consolidate() accepts: (from, to).
PROMOTIONS = (("working", "episodic"), ("working", "semantic"), ("episodic", "semantic"))
MEMORY_KEYS = ("id", "memory_type", "importance", "tags", "created_at", "last_accessed_at", "access_count",
               "source", "expires_at")
DEFAULT_TYPE_ON_DISK = "episodic"  # a hand-written file without memory_type
IMPORTANCE_DIGITS = 4
MAX_SOURCE_CHARS = 300


@dataclass
class MemoryConfig:
    """Tunable memory behaviour; ``open_workspace(root, memory_config=MemoryConfig(...))``."""

    working_ttl_minutes: float = 120.0
    working_capacity: int = 50
    # Default "best N per type" for forget(strategy="capacity_based") when no capacity is given.
    long_term_capacity: int = 1000
    half_life_hours: Mapping[str, float | None] = field(
        default_factory=lambda: {"working": 1.0, "episodic": 24.0 * 7, "semantic": None})
    weight_relevance: float = 0.5
    weight_recency: float = 0.25
    weight_importance: float = 0.25
    # episodic -> semantic promotes memories accessed at least this often.
    min_access_count: int = 3

    def __post_init__(self) -> None:
        if not is_number(self.working_ttl_minutes) or self.working_ttl_minutes <= 0:
            raise InvalidInput("working_ttl_minutes must be a number of minutes > 0")
        for name in ("working_capacity", "long_term_capacity"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"{name} must be a whole number >= 1")
        if isinstance(self.min_access_count, bool) or not isinstance(self.min_access_count, int) \
                or self.min_access_count < 1:
            raise InvalidInput("min_access_count must be a whole number >= 1")
        half = dict(self.half_life_hours)
        for t in MEMORY_TYPES:
            h = half.setdefault(t, None)
            if h is not None and (not is_number(h) or h <= 0):
                raise InvalidInput(f"half_life_hours[{t!r}] must be a number of hours > 0, or None for no decay")
        self.half_life_hours = half
        weights = (self.weight_relevance, self.weight_recency, self.weight_importance)
        if not all(is_number(w) and w >= 0 for w in weights) or sum(weights) <= 0:
            raise InvalidInput("score weights must be numbers >= 0 and not all 0")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["half_life_hours"] = dict(self.half_life_hours)
        return data


@dataclass
class Memory:
    """One memory. ``expires_at`` is set for working memories only."""

    id: str
    content: str | None
    memory_type: str
    importance: float
    tags: list[str]
    created_at: str
    last_accessed_at: str
    access_count: int
    source: str | None
    expires_at: str | None
    path: str
    extra: dict[str, Any] = field(default_factory=dict)
    evicted: list[str] = field(default_factory=list)  # add(): working memories evicted to make room
    # Short hash of the file's bytes as read or written: pass it back as expected_revision to
    # update/forget only if nobody changed the memory since (see item_files.revision_of).
    revision: str = ""
    warnings: list[str] = field(default_factory=list)  # e.g. saved, but the Git commit failed

    def to_dict(self, with_content: bool = True) -> dict[str, Any]:
        data = asdict(self)
        if not with_content or self.content is None:
            data.pop("content")
        for optional in ("extra", "evicted", "warnings"):
            if not data[optional]:
                data.pop(optional)
        return data


@dataclass
class MemoryHit:
    """A search hit with the parts of its score (each 0..1 except ``bm25``)."""

    memory: Memory
    score: float
    relevance: float
    recency: float
    importance: float
    bm25: float

    def to_dict(self) -> dict[str, Any]:
        return {**self.memory.to_dict(), "score": round(self.score, 4),
                "score_parts": {"relevance": round(self.relevance, 4), "recency": round(self.recency, 4),
                                "importance": round(self.importance, 4), "bm25": round(self.bm25, 4)}}


@dataclass
class MemorySearchResult:
    query: str
    hits: list[MemoryHit]
    candidates: int   # memories the query matched (of the asked types), before min_importance and limit
    limit: int
    matched: str      # "all": every word matched; "any": fallback, some words matched; "none"
    weights: dict[str, float]
    warnings: list[str] = field(default_factory=list)  # e.g. the access statistics could not be saved

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"query": self.query, "candidates": self.candidates, "limit": self.limit, "matched": self.matched,
                "weights": self.weights, "hits": [h.to_dict() for h in self.hits]}
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


@dataclass
class ForgetResult:
    strategy: str | None   # None when one memory was removed by id
    dry_run: bool
    removed: list[Memory]  # with dry_run: what would be removed
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"strategy": self.strategy, "dry_run": self.dry_run, "count": len(self.removed),
                "removed": [m.to_dict() for m in self.removed]}
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


@dataclass
class Moved:
    memory: Memory            # after the move
    importance_before: float

    def to_dict(self) -> dict[str, Any]:
        return {**self.memory.to_dict(), "importance_before": self.importance_before}


@dataclass
class ConsolidateResult:
    from_type: str
    to_type: str
    criterion: str
    dry_run: bool
    moved: list[Moved]
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"from_type": self.from_type, "to_type": self.to_type, "criterion": self.criterion,
                "dry_run": self.dry_run, "count": len(self.moved), "moved": [m.to_dict() for m in self.moved]}
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


@dataclass
class MemoryList(Page):
    """A page of memories (content included), listed under ``memories``."""

    items_key = "memories"

    @property
    def memories(self) -> list[Memory]:
        return self.items


@dataclass
class MemorySummary:
    total: int
    by_type: dict[str, dict[str, Any]]   # {type: {"count": n, "mean_importance": x | None}}
    oldest: dict[str, Any] | None        # {"id", "memory_type", "created_at"}
    newest: dict[str, Any] | None
    expired_unpurged: int                # working memories past expires_at whose files are still there
    unreadable: list[dict[str, str]]     # the first MAX_LISTED_UNREADABLE, by path
    config: dict[str, Any]
    unreadable_total: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- the file format -------------------------------------------------------------

class MemoryCollection:
    """Turns files in ``memory/`` into index entries (catalogue rows hold every field but the content)."""

    kind = "memory"
    folder_name = "memory"

    def parse(self, path: Path, raw: bytes, doc: Document | None = None,
              mtime: float | None = None) -> IndexEntry:
        """Turn a file's bytes into an entry; ``mtime`` (else a ``stat``) dates a file without created_at."""
        doc = doc or parse_document(raw)
        m = doc.meta
        mem_id = m.get("id")
        if mem_id is None:
            raise BadFile("front matter has no 'id' (it must equal the file name without .md)")
        if str(mem_id) != path.stem:
            raise BadFile(f"front matter id {str(mem_id)!r} disagrees with the file name {path.name!r}")
        mtype = m.get("memory_type", DEFAULT_TYPE_ON_DISK)
        if mtype not in MEMORY_TYPES:
            raise BadFile(f"memory_type {mtype!r} is not one of {', '.join(MEMORY_TYPES)}")
        importance = m.get("importance", 0.5)
        if not is_number(importance) or not 0.0 <= importance <= 1.0:
            raise BadFile(f"importance {importance!r} must be a number from 0.0 to 1.0")
        tags = file_tags(m.get("tags"))
        if m.get("created_at") is None:
            created_at = iso_now(mtime if mtime is not None else os.stat(path, follow_symlinks=False).st_mtime)
        else:
            created_at = str(m["created_at"])
        created = _file_time(created_at, "created_at")
        accessed_at = str(m["last_accessed_at"]) if m.get("last_accessed_at") is not None else created_at
        accessed = _file_time(accessed_at, "last_accessed_at")
        count = m.get("access_count", 0)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise BadFile(f"access_count {count!r} must be a whole number >= 0")
        source = m.get("source")
        source = None if source is None or source == "" else str(source)
        expires_at, expires = None, None
        if mtype == "working" and m.get("expires_at") is not None:
            expires_at = str(m["expires_at"])
            expires = _file_time(expires_at, "expires_at")
        content = body_to_content(doc.body)
        if not content.strip():
            raise BadFile("memory has no content (write the text below the closing '---' line)")
        row = {"id": path.stem, "memory_type": mtype, "importance": float(importance), "tags": tags,
               "created_at": created_at, "last_accessed_at": accessed_at, "access_count": count,
               "source": source, "expires_at": expires_at, "revision": revision_of(raw),
               "_created": created, "_accessed": accessed, "_expires": expires}
        return IndexEntry(key=f"{self.folder_name}/{path.name}", kind=self.kind, type=mtype, tags=tags,
                          updated=created, title="", text=content, meta=row)


def content_to_body(content: str) -> str:
    return content + "\n"


def body_to_content(body: str) -> str:
    """Inverse of ``content_to_body``, lenient with files edited by hand."""
    return body[:-1] if body.endswith("\n") else body


def _file_time(value: str, what: str) -> float:
    try:
        return parse_time(value, what)
    except InvalidInput:
        raise BadFile(f"{what} {value!r} is not an ISO 8601 datetime (e.g. 2026-11-29T15:30:00+00:00)") from None


# -- scoring ---------------------------------------------------------------------

def recency(age_seconds: float, half_life_hours: float | None) -> float:
    """1.0 now, 0.5 after one half-life, ...; always 1.0 without a half-life."""
    if half_life_hours is None:
        return 1.0
    return float(0.5 ** (max(0.0, age_seconds) / (half_life_hours * 3600.0)))


def row_recency(row: Mapping[str, Any], now: float, config: MemoryConfig) -> float:
    return recency(now - float(row["_accessed"]), config.half_life_hours.get(row["memory_type"]))


def row_value(row: Mapping[str, Any], now: float, config: MemoryConfig) -> float:
    """importance × recency: what eviction and capacity-based forgetting keep the best of."""
    return float(row["importance"]) * row_recency(row, now, config)
