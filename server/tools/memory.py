"""The memory_* tools (group ``memory``) over ``ws.memory`` (notes_store.memory.store.MemoryStore)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from .models import (MemoryBatchOut, MemoryListOut, MemoryOut, MemorySearchOut, MemorySort, MemorySummaryOut,
                         MemoryType, Strategy)
from ..state import WorkspaceHandle
from .kit import ADDS_TEXT, DELETES, OVERWRITES, READ_ONLY, WRITES, Limits, Reply, add_tool, cut_to_tokens
from .notes import paged

MemoryId = str
Importance = Annotated[Optional[float], Field(ge=0, le=1, description="0-1")]
Revision = Optional[str]
Detail = bool
# Filters and consolidate take the type as text (the store names the valid ones in its error): the enum is
# published once, on memory_add, not again on every parameter that names a type.
TypeName = Optional[str]
PREVIEW_CHARS = 160


def memory_data(m: Any, with_content: bool = True) -> dict[str, Any]:
    """The library's own serialisation of a memory, without the server-side path, with its resource URI."""
    data: dict[str, Any] = m.to_dict(with_content=with_content)
    data.pop("path", None)
    data["uri"] = f"memory://{data['id']}"
    return data


# A memory's content in list, search, forget and consolidate rows: memories are meant to be short facts, and a
# page of 1 MiB ones was 2.6 GB and 30 s of tokenizing (memory_read gives the whole, in windows).
MAX_ROW_CONTENT_CHARS = 2_000
MAX_BATCH_ROWS = 200   # rows a forget or consolidate result lists (all are counted)


def _unlisted(total: int, listed: int) -> list[str]:
    return [f"[{total - listed} more not listed (the first {listed} are); all {total} are counted]"] \
        if total > listed else []


def row_preview(m: dict[str, Any]) -> dict[str, Any]:
    """``m`` with its content cut to MAX_ROW_CONTENT_CHARS, marked ``content_cut``."""
    content = m.get("content")
    if isinstance(content, str) and len(content) > MAX_ROW_CONTENT_CHARS:
        m["content"] = content[:MAX_ROW_CONTENT_CHARS - 1] + "…"
        m["content_cut"] = True
    return m


def memory_line(m: dict[str, Any], detail: bool = False) -> str:
    text = " ".join((m.get("content") or "").split())
    if not detail and len(text) > PREVIEW_CHARS:
        text = text[:PREVIEW_CHARS - 1] + "…"
    tags = f" [{', '.join(m['tags'])}]" if m.get("tags") else ""
    line = f"- {m['id']} ({m['memory_type']}, importance {m['importance']}){tags}: {text}"
    if detail:
        line += f"\n  created {m['created_at']}, last accessed {m.get('last_accessed_at')}"
        if "score_parts" in m:
            line += f"; score {m['score']} " + ", ".join(f"{k} {v}" for k, v in m["score_parts"].items())
    return line


def _plural(n: int) -> str:
    return f"{n} memor{'y' if n == 1 else 'ies'}"


class ForgetRule(BaseModel):
    """Which memories a strategy forgets."""

    model_config = ConfigDict(extra="forbid")

    strategy: Strategy = Field(description="By threshold, max_age_days or capacity (per type)")
    threshold: float = Field(0.1, ge=0, le=1)
    max_age_days: float = Field(30, gt=0)
    capacity: Optional[int] = Field(None, ge=0)
    memory_type: Optional[str] = None


def register(server: MCPServer, handle: WorkspaceHandle, limits: Limits) -> None:
    """The ``memory`` group."""

    def mem() -> Any:
        return handle.get().memory

    def tool(fn: Any, title: str, description: str, annotations: ToolAnnotations, output: Any) -> None:
        add_tool(server, fn, name=fn.__name__, title=title, description=description, annotations=annotations,
                 output=output, limits=limits, take_warnings=handle.take_warnings,
                 before=handle.room_to_write if fn.__name__ in ADDS_TEXT else None)

    def memory_add(
        content: str,
        memory_type: Annotated[MemoryType, Field(description="working expires; episodic: an event; semantic: a fact")] = "working",
        importance: Importance = 0.5,
        tags: Optional[list[str]] = None,
        source: Optional[str] = None,
        ttl_minutes: Annotated[Optional[float], Field(gt=0)] = None,
    ) -> Reply:
        m = memory_data(mem().add(content, memory_type=memory_type,
                                  importance=0.5 if importance is None else importance, tags=tags or [],
                                  source=source, ttl_minutes=ttl_minutes))
        text = f"Remembered {m['id']} ({m['memory_type']}, importance {m['importance']})"
        if m.get("expires_at"):
            text += f"; expires {m['expires_at']}"
        if m.get("evicted"):
            text += f"; evicted to make room: {', '.join(m['evicted'])}"
        return Reply(text, m)
    tool(memory_add, "Remember something",
         "Remember a fact, preference or event for later conversations (task work goes in notes).",
         WRITES, MemoryOut)

    def memory_search(
        query: str,
        memory_type: TypeName = None,
        min_importance: Annotated[float, Field(ge=0, le=1)] = 0.0,
        limit: Annotated[int, Field(ge=1, le=100)] = 5,
        detail: Detail = False,
    ) -> Reply:
        r = mem().search(query, memory_type=memory_type, min_importance=min_importance, limit=limit)
        hits = []
        for h in r.hits:
            d = h.to_dict()
            d.pop("path", None)
            d["uri"] = f"memory://{d['id']}"
            hits.append(row_preview(d))
        base = {"query": r.query, "candidates": r.candidates, "matched": r.matched, "weights": r.weights}
        if not hits:
            return Reply(f"No memories match {query!r}.", {**base, "shown": 0, "hits": []})
        text, page = paged("memories", hits, [memory_line(h, detail) for h in hits],
                           f"{_plural(len(hits))} for {query!r}", len(hits), 0, limit, limits.max_result_tokens,
                           unpaged_hint="narrow the query or lower the limit; memory_read gives one whole")
        return Reply(text, {**base, "shown": page["shown"], "hits": hits[:page["shown"]]})
    tool(memory_search, "Recall memories",
         "Recall memories by relevance, recency and importance, e.g. before answering about the user.", ToolAnnotations(destructive_hint=False, open_world_hint=False),
         MemorySearchOut)

    def memory_read(memory_id: MemoryId) -> Reply:
        m = memory_data(mem().read(memory_id))
        content = m.get("content") or ""
        budget = max(limits.max_result_tokens // 2 - 200, 200)
        part = cut_to_tokens(content, budget)
        text = memory_line({**m, "content": ""}, detail=True)[2:] + "\n\n" + part
        if len(part) < len(content):
            m["content"] = part
            m["truncated"] = {"shown_chars": len(part), "total_chars": len(content)}
            text += (f"\n\n[… {len(content) - len(part)} more characters: read the resource {m['uri']} for the "
                     "whole memory]")
        return Reply(text, m)
    tool(memory_read, "Read a memory", "Read a memory in full.", READ_ONLY, MemoryOut)

    def memory_list(
        memory_type: TypeName = None,
        sort: MemorySort = "created_desc",
        limit: Annotated[int, Field(ge=1, le=1000)] = 20,
        offset: Annotated[int, Field(ge=0)] = 0,
    ) -> Reply:
        detail = False
        r = mem().list(memory_type=memory_type, limit=limit, offset=offset, sort=sort)
        rows = [row_preview(memory_data(m)) for m in r.memories]
        if not rows:
            return Reply(f"No memories on this page ({r.total} in all).",
                         {"total": r.total, "limit": r.limit, "offset": r.offset, "shown": 0, "next_offset": None,
                          "memories": []})
        text, page = paged("memories", rows, [memory_line(m, detail) for m in rows], _plural(r.total), r.total,
                           offset, limit, limits.max_result_tokens)
        return Reply(text, {**page, "memories": rows[:page["shown"]]})
    tool(memory_list, "List memories", "List memories.", READ_ONLY, MemoryListOut)

    def memory_update(
        memory_id: MemoryId,
        content: Optional[str] = None,
        importance: Importance = None,
        tags: Optional[list[str]] = None,
        ttl_minutes: Annotated[Optional[float], Field(gt=0)] = None,
        expected_revision: Revision = None,
    ) -> Reply:
        m = memory_data(mem().update(memory_id, content=content, importance=importance, tags=tags,
                                     ttl_minutes=ttl_minutes, expected_revision=expected_revision))
        return Reply(f"Updated memory {m['id']} (importance {m['importance']})", m)
    tool(memory_update, "Update a memory",
         "Replace the given fields of a memory; better than a near-duplicate.",
         OVERWRITES, MemoryOut)

    def memory_forget(
        memory_id: Optional[str] = None,
        rule: Annotated[Optional[ForgetRule], Field(description="Instead of an id")] = None,
        dry_run: bool = False,
        expected_revision: Revision = None,
    ) -> Reply:
        if (rule is None) == (memory_id is None):
            from notes_store.errors import InvalidInput
            from notes_store.memory.model import STRATEGIES
            raise InvalidInput(f"give memory_id (one memory) or rule (those a strategy selects, e.g. "
                               f"{{\"rule\": {{\"strategy\": \"{STRATEGIES[0]}\", \"threshold\": 0.1}}}}; "
                               f"strategies: {', '.join(STRATEGIES)}), "
                               + ("not both" if rule is not None else "neither was given"))
        kw: dict[str, Any] = {"dry_run": dry_run}
        if rule is not None:
            kw.update(strategy=rule.strategy, threshold=rule.threshold, max_age_days=rule.max_age_days,
                      capacity=rule.capacity, memory_type=rule.memory_type)
        if expected_revision:
            kw["expected_revision"] = expected_revision
        r = mem().forget(memory_id=memory_id, **kw)
        removed = [row_preview(memory_data(m)) for m in r.removed[:MAX_BATCH_ROWS]]
        verb = "Would forget" if r.dry_run else "Forgot"
        lines = [f"{verb} {_plural(len(r.removed))}" + (f" ({r.strategy})" if r.strategy else "")]
        lines += [memory_line(m) for m in removed] + _unlisted(len(r.removed), len(removed))
        return Reply("\n".join(lines), {"strategy": r.strategy, "dry_run": r.dry_run, "count": len(r.removed),
                                        "removed": removed})
    tool(memory_forget, "Forget memories",
         "Delete a memory, or those a rule selects (try dry_run).", DELETES, MemoryBatchOut)

    def memory_consolidate(
        from_type: str = "working",
        to_type: str = "episodic",
        importance_threshold: Annotated[float, Field(ge=0, le=1)] = 0.7,
        min_access_count: Annotated[Optional[int], Field(ge=1)] = None,
        dry_run: bool = False,
    ) -> Reply:
        r = mem().consolidate(from_type=from_type, to_type=to_type, importance_threshold=importance_threshold,
                              min_access_count=min_access_count, dry_run=dry_run)
        moved = []
        for mv in r.moved[:MAX_BATCH_ROWS]:
            d = row_preview(memory_data(mv.memory))
            d["importance_before"] = mv.importance_before
            moved.append(d)
        verb = "Would move" if r.dry_run else "Moved"
        lines = [f"{verb} {_plural(len(r.moved))} {r.from_type} → {r.to_type} ({r.criterion})"]
        lines += [memory_line(m) for m in moved] + _unlisted(len(r.moved), len(moved))
        return Reply("\n".join(lines), {"from_type": r.from_type, "to_type": r.to_type, "criterion": r.criterion,
                                        "dry_run": r.dry_run, "count": len(r.moved), "moved": moved})
    tool(memory_consolidate, "Consolidate memories",
         "Promote working memories by importance_threshold, episodic ones by min_access_count, to a "
         "longer-lived type; run at a session's end.",
         ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False), MemoryBatchOut)

    def memory_summary() -> Reply:
        data = mem().summary().to_dict()
        parts = ", ".join(f"{t} {v['count']}" for t, v in data["by_type"].items())
        text = f"{data['total']} memories: {parts}"
        if data.get("expired_unpurged"):
            text += f"; {data['expired_unpurged']} expired working memories not yet purged"
        if data.get("unreadable"):
            text += f"; {data['unreadable_total']} unreadable file(s)"
        return Reply(text, data)
    tool(memory_summary, "Summarise memories", "Memory counts per type.",
         READ_ONLY, MemorySummaryOut)
