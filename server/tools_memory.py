"""The memory_* tools over ``ws.memory`` (notes_store.memory.MemoryStore)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from .mcp_models import MemoryType
from .mcp_state import WorkspaceHandle, store_call
from .tools_notes import READ, result

Strategy = Literal["importance_based", "time_based", "capacity_based"]
MemorySort = Literal["created_desc", "created_asc", "importance_desc", "accessed_desc"]
MemoryId = Annotated[str, Field(description="A memory id as returned by memory_add/memory_search, "
                                            "e.g. 'mem_20260101_120000_1a2b3c4d'")]
Importance = Annotated[float, Field(ge=0, le=1, description="How much it matters, 0 (trivial) to 1 (critical)")]


class MemoryOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    content: Optional[str] = None
    memory_type: MemoryType
    importance: float
    tags: list[str]
    created_at: str
    last_accessed_at: str
    access_count: int
    source: Optional[str] = None
    expires_at: Optional[str] = Field(default=None, description="Working memories only")
    evicted: list[str] = Field(default_factory=list, description="memory_add: working memories evicted to make room")


class ScoreParts(BaseModel):
    relevance: float
    recency: float
    importance: float
    bm25: float


class MemoryHitOut(MemoryOut):
    score: float
    score_parts: ScoreParts


class MemorySearchOut(BaseModel):
    query: str
    candidates: int = Field(description="Memories that matched and passed the filters, before limit")
    limit: int
    matched: str = Field(description="all | any | none")
    weights: dict[str, float]
    hits: list[MemoryHitOut]


class MemoryListOut(BaseModel):
    total: int
    limit: int
    offset: int
    memories: list[MemoryOut]


class ForgetOut(BaseModel):
    strategy: Optional[str]
    dry_run: bool
    count: int
    removed: list[MemoryOut]


class MovedOut(MemoryOut):
    importance_before: float


class ConsolidateOut(BaseModel):
    from_type: str
    to_type: str
    criterion: str
    dry_run: bool
    count: int
    moved: list[MovedOut]


class MemorySummaryOut(BaseModel):
    total: int
    by_type: dict[str, dict[str, Any]]
    oldest: Optional[dict[str, Any]] = None
    newest: Optional[dict[str, Any]] = None
    expired_unpurged: int
    unreadable: list[dict[str, str]]
    config: dict[str, Any]


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    d = dict(d)
    d.pop("path", None)
    return d


def _line(m: dict[str, Any]) -> str:
    text = (m.get("content") or "").replace("\n", " ")
    text = text if len(text) <= 160 else text[:157] + "…"
    tags = f" [{', '.join(m['tags'])}]" if m.get("tags") else ""
    return f"- {m['id']} ({m['memory_type']}, importance {m['importance']}){tags}: {text}"


def register(server: MCPServer, handle: WorkspaceHandle) -> None:
    def mem() -> Any:
        return handle.get().memory

    @server.tool(
        name="memory_add", title="Remember something",
        description=(
            "Store a memory: a fact, preference or experience worth recalling in later conversations, not tied "
            "to one task (use note_create for task artefacts such as task state, conclusions or blockers). "
            "memory_type: working = short-lived scratch (expires after a TTL, capacity-limited), episodic = "
            "something that happened, semantic = a durable fact or preference.\n"
            "Example: {\"content\": \"The user prefers pytest over unittest\", \"memory_type\": \"semantic\", "
            "\"importance\": 0.8, \"tags\": [\"preferences\"]}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                    openWorldHint=False))
    def memory_add(
        content: Annotated[str, Field(description="What to remember, in one or a few sentences")],
        memory_type: Annotated[MemoryType, Field(description="working | episodic | semantic")] = "working",
        importance: Importance = 0.5,
        tags: Annotated[Optional[list[str]], Field(description="Short labels")] = None,
        source: Annotated[Optional[str], Field(description="Where it came from, e.g. a note id or URL")] = None,
        ttl_minutes: Annotated[Optional[float], Field(gt=0, description="Working memory only: minutes until it "
                                                                         "expires (default from config)")] = None,
    ) -> Annotated[CallToolResult, MemoryOut]:
        m = store_call(mem().add, content, memory_type=memory_type, importance=importance, tags=tags or [],
                       source=source, ttl_minutes=ttl_minutes).to_dict()
        out = MemoryOut(**_clean(m))
        text = f"Remembered {out.id} ({out.memory_type}, importance {out.importance})"
        if out.expires_at:
            text += f"; expires {out.expires_at}"
        if out.evicted:
            text += f"; evicted to make room: {', '.join(out.evicted)}"
        return result(text, out)

    @server.tool(
        name="memory_search", title="Recall memories",
        description=(
            "Find memories relevant to a query, ranked by relevance, recency and importance (score parts are "
            "returned). Counts as an access (frequently recalled memories can be consolidated to semantic). Use "
            "it before answering questions about the user's preferences or past work; use note_search for notes.\n"
            "Example: {\"query\": \"test framework preference\", \"limit\": 5}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                    openWorldHint=False))
    def memory_search(
        query: Annotated[str, Field(description="Words to look for")],
        memory_type: Annotated[Optional[MemoryType], Field(description="Only this type")] = None,
        min_importance: Annotated[float, Field(ge=0, le=1, description="Only memories at least this important")] = 0.0,
        limit: Annotated[int, Field(ge=1, le=100, description="Hits to return")] = 5,
    ) -> Annotated[CallToolResult, MemorySearchOut]:
        r = store_call(mem().search, query, memory_type=memory_type, min_importance=min_importance,
                       limit=limit).to_dict()
        r["hits"] = [_clean(h) for h in r["hits"]]
        out = MemorySearchOut(**r)
        if not out.hits:
            return result(f"No memories match {query!r}.", out)
        lines = [f"{len(out.hits)} memor{'y' if len(out.hits) == 1 else 'ies'} for {query!r}:"]
        lines += [_line(h) + f" (score {h['score']})" for h in r["hits"]]
        return result("\n".join(lines), out)

    @server.tool(
        name="memory_read", title="Read a memory",
        description="Read one memory in full by id (does not count as an access). "
                    "Example: {\"memory_id\": \"mem_20260101_120000_1a2b3c4d\"}",
        annotations=READ)
    def memory_read(memory_id: MemoryId) -> Annotated[CallToolResult, MemoryOut]:
        out = MemoryOut(**_clean(store_call(mem().read, memory_id).to_dict()))
        return result(_line(out.model_dump())[2:], out)

    @server.tool(
        name="memory_list", title="List memories",
        description="List live memories (content included), filtered by type and sorted; use memory_search to "
                    "find by words. Example: {\"memory_type\": \"semantic\", \"sort\": \"importance_desc\"}",
        annotations=READ)
    def memory_list(
        memory_type: Annotated[Optional[MemoryType], Field(description="Only this type")] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="Memories per page")] = 20,
        offset: Annotated[int, Field(ge=0, description="Memories to skip, for paging")] = 0,
        sort: Annotated[MemorySort, Field(description="Order of the listing")] = "created_desc",
    ) -> Annotated[CallToolResult, MemoryListOut]:
        r = store_call(mem().list, memory_type=memory_type, limit=limit, offset=offset, sort=sort).to_dict()
        r["memories"] = [_clean(m) for m in r["memories"]]
        out = MemoryListOut(**r)
        text = "\n".join([f"{out.total} memor{'y' if out.total == 1 else 'ies'}:"] + [_line(m) for m in r["memories"]])
        return result(text, out)

    @server.tool(
        name="memory_update", title="Update a memory",
        description=(
            "Correct or re-weigh a memory: new content, importance or tags (omitted = unchanged); ttl_minutes "
            "extends a working memory. Prefer it over adding a near-duplicate.\n"
            "Example: {\"memory_id\": \"mem_20260101_120000_1a2b3c4d\", \"importance\": 0.9}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True,
                                    openWorldHint=False))
    def memory_update(
        memory_id: MemoryId,
        content: Annotated[Optional[str], Field(description="New content (replaces the old)")] = None,
        importance: Annotated[Optional[float], Field(ge=0, le=1, description="New importance 0..1")] = None,
        tags: Annotated[Optional[list[str]], Field(description="New tag list (replaces the old)")] = None,
        ttl_minutes: Annotated[Optional[float], Field(gt=0, description="Working memory: expire this many "
                                                                         "minutes from now")] = None,
    ) -> Annotated[CallToolResult, MemoryOut]:
        m = store_call(mem().update, memory_id, content=content, importance=importance, tags=tags,
                       ttl_minutes=ttl_minutes).to_dict()
        out = MemoryOut(**_clean(m))
        return result(f"Updated memory {out.id} (importance {out.importance})", out)

    @server.tool(
        name="memory_forget", title="Forget memories",
        description=(
            "Delete one memory by memory_id, or every memory a strategy selects: importance_based (importance "
            "below threshold), time_based (not created or accessed for max_age_days), capacity_based (keep the "
            "best `capacity` per type). Give memory_id or strategy, not both. Use dry_run=true first to see what "
            "would go.\n"
            "Example: {\"strategy\": \"importance_based\", \"threshold\": 0.2, \"dry_run\": true}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True,
                                    openWorldHint=False))
    def memory_forget(
        memory_id: Annotated[Optional[str], Field(description="Forget this one memory")] = None,
        strategy: Annotated[Optional[Strategy], Field(description="Forget what this rule selects")] = None,
        threshold: Annotated[float, Field(ge=0, le=1, description="importance_based: remove below this")] = 0.1,
        max_age_days: Annotated[float, Field(gt=0, description="time_based: remove older than this")] = 30,
        capacity: Annotated[Optional[int], Field(ge=0, description="capacity_based: memories to keep per type")] = None,
        memory_type: Annotated[Optional[MemoryType], Field(description="Restrict a strategy to this type")] = None,
        dry_run: Annotated[bool, Field(description="Only report what would be removed")] = False,
    ) -> Annotated[CallToolResult, ForgetOut]:
        r = store_call(mem().forget, memory_id=memory_id, strategy=strategy, threshold=threshold,
                       max_age_days=max_age_days, capacity=capacity, dry_run=dry_run,
                       memory_type=memory_type).to_dict()
        r["removed"] = [_clean(m) for m in r["removed"]]
        out = ForgetOut(**r)
        verb = "Would forget" if out.dry_run else "Forgot"
        text = "\n".join([f"{verb} {out.count} memor{'y' if out.count == 1 else 'ies'}"
                          + (f" ({out.strategy})" if out.strategy else "")] + [_line(m) for m in r["removed"]])
        return result(text, out)

    @server.tool(
        name="memory_consolidate", title="Consolidate memories",
        description=(
            "Promote memories to a longer-lived type: from working, those with importance >= "
            "importance_threshold; from episodic to semantic, those recalled at least min_access_count times. "
            "Run it at the end of a session so useful working memories survive. dry_run=true shows what would "
            "move.\nExample: {\"from_type\": \"working\", \"to_type\": \"episodic\", \"importance_threshold\": 0.7}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True,
                                    openWorldHint=False))
    def memory_consolidate(
        from_type: Annotated[MemoryType, Field(description="Type to promote from")] = "working",
        to_type: Annotated[MemoryType, Field(description="Type to promote to")] = "episodic",
        importance_threshold: Annotated[float, Field(ge=0, le=1, description="From working: minimum importance")] = 0.7,
        min_access_count: Annotated[Optional[int], Field(ge=1, description="From episodic: minimum recalls "
                                                                             "(default from config)")] = None,
        dry_run: Annotated[bool, Field(description="Only report what would move")] = False,
    ) -> Annotated[CallToolResult, ConsolidateOut]:
        r = store_call(mem().consolidate, from_type=from_type, to_type=to_type,
                       importance_threshold=importance_threshold, min_access_count=min_access_count,
                       dry_run=dry_run).to_dict()
        r["moved"] = [_clean(m) for m in r["moved"]]
        out = ConsolidateOut(**r)
        verb = "Would move" if out.dry_run else "Moved"
        text = "\n".join([f"{verb} {out.count} memor{'y' if out.count == 1 else 'ies'} {out.from_type} → "
                          f"{out.to_type} ({out.criterion})"] + [_line(m) for m in r["moved"]])
        return result(text, out)

    @server.tool(
        name="memory_summary", title="Summarise memories",
        description="Counts and mean importance per memory type, oldest/newest memory, expired working memories "
                    "not yet purged, unreadable files and the memory configuration. Example: {}",
        annotations=READ)
    def memory_summary() -> Annotated[CallToolResult, MemorySummaryOut]:
        out = MemorySummaryOut(**store_call(mem().summary).to_dict())
        parts = ", ".join(f"{t} {v['count']}" for t, v in out.by_type.items())
        text = f"{out.total} memories: {parts}"
        if out.expired_unpurged:
            text += f"; {out.expired_unpurged} expired working memories not yet purged"
        if out.unreadable:
            text += f"; {len(out.unreadable)} unreadable file(s)"
        return result(text, out)
