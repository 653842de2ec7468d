"""The note_* tools (group ``notes``) and the admin tools ``note_history`` and ``reindex`` (group ``admin``).

Texts are sized for a model: a search or listing hit is one line plus one snippet line (about 60 tokens);
``detail`` adds dates, scores and the full snippet. The structured content keeps every field.
"""

from __future__ import annotations

import json
import re
import time
from typing import Annotated, Any, Optional

import anyio
import pydantic_core
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from .models import (NoteDeleteOut, NoteHistoryOut, NoteListOut, NoteOut, NoteSearchOut, NoteSort,
                         NoteSummaryOut, NoteType, ReindexOut)
from notes_store.files.note_paths import encode_uri_id

from ..state import WorkspaceHandle
from .kit import (ADDS_TEXT, DELETES, OVERWRITES, READ_ONLY, WRITES, Limits, Reply, add_tool, count_tokens,
                       cut_to_tokens, fits)

NoteId = str
Tags = Annotated[Optional[list[str]], Field(description="All required")]
Revision = Optional[str]
# Filters take the type as a plain string (the store names the valid ones in its error): the enum is
# published once per writing tool, not again on every filter.
TypeFilter = Optional[str]  # validated by the store (which names the valid ones); the name says what it is
Detail = bool  # self-explanatory: dates, scores and whole snippets in the text
SNIPPET_CHARS = 110  # one line of snippet in the default (non-detail) text


def result(text: str, data: Any) -> CallToolResult:
    """A tool result from text and structured data (kept for tools registered outside ``tools.kit``)."""
    structured = data.model_dump(mode="json") if hasattr(data, "model_dump") else data
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


# -- serialisation of the library's models -----------------------------------------------------------------

def note_data(note: Any, with_content: bool = True) -> dict[str, Any]:
    """The library's own serialisation of a note, without the server-side path, with its resource URI."""
    data: dict[str, Any] = note.to_dict(with_content=with_content)
    data.pop("path", None)
    data["uri"] = f"note://{encode_uri_id(data['id'])}"
    return data


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def note_line(n: dict[str, Any], detail: bool = False) -> str:
    tags = f" [{', '.join(n['tags'])}]" if n.get("tags") else ""
    line = f"- {n['id']} ({n['type']}) {n['title']}{tags}"
    if detail:
        line += f" — updated {n['updated_at']}" + (f", score {n['score']}" if "score" in n else "")
    if n.get("snippet"):
        line += "\n  " + (" ".join(n["snippet"].split()) if detail else _one_line(n["snippet"], SNIPPET_CHARS))
    return line


def _json_bytes_bound(items: list[dict[str, Any]]) -> int | None:
    """At least the UTF-8 size of ``json.dumps(items, ensure_ascii=False)``, five times faster: pydantic's
    compact JSON (same escapes, same text) plus a space for every ``:`` and ``,`` in it (the separators
    ``json.dumps`` spaces are among them), two bytes for every ``e`` (``1e-05`` against ``1e-5``) and a
    margin. None when it cannot say (a value pydantic will not serialise)."""
    try:
        compact = pydantic_core.to_json(items)
    except Exception:
        return None
    return len(compact) + compact.count(b":") + compact.count(b",") + 2 * compact.count(b"e") + 16


def fit_lines(head: str, lines: list[str], items: list[dict[str, Any]], budget: int) -> int:
    """How many of ``lines`` (and their structured ``items``) fit in ``budget`` tokens after ``head``."""
    text = head + "\n".join(lines)
    bound = _json_bytes_bound(items)
    if bound is not None and len(text.encode("utf-8")) + bound <= budget:  # tokens never outnumber bytes
        return len(lines)
    whole = text + json.dumps(items, ensure_ascii=False)
    if fits(whole, budget):
        return len(lines)
    used = count_tokens(head) + 50
    for i, (line, item) in enumerate(zip(lines, items)):
        used += count_tokens(line) + count_tokens(json.dumps(item, ensure_ascii=False))
        if used > budget:
            return i
    return len(lines)


def paged(kind: str, items: list[dict[str, Any]], lines: list[str], head: str, total: int, offset: int,
          limit: int, budget: int, unpaged_hint: str | None = None) -> tuple[str, dict[str, Any]]:
    """A page of hits or rows bounded by ``budget``: the text and the paging fields of the structured result.

    ``unpaged_hint``: for a tool without ``offset``, what to say instead of "next page with offset=…"."""
    shown = fit_lines(head, lines, items, budget - 100)
    end = offset + shown
    more = total - end
    text_lines = [head + (f"; showing {offset + 1}-{end}:" if shown else ":")] + lines[:shown]
    if more > 0:
        why = " (result size limit)" if shown < len(lines) else ""
        text_lines.append(f"[{more} more {kind}{why}: {unpaged_hint or f'next page with offset={end}'}]")
    page = {"total": total, "limit": limit, "offset": offset, "shown": shown,
            "next_offset": end if more > 0 else None}
    return "\n".join(text_lines), page


# -- note_read windows -------------------------------------------------------------------------------------

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


class Window(BaseModel):
    """Part of a long note: from ``offset``, or the section under ``heading``."""

    model_config = ConfigDict(extra="forbid")

    offset: int = Field(0, ge=0)
    max_chars: Optional[int] = Field(None, ge=200)
    heading: Optional[str] = None


def _section(content: str, heading: str) -> tuple[int, int]:
    """Start and end of the section whose heading matches ``heading`` (case-insensitive, exact text first)."""
    want = " ".join(heading.lstrip("#").split()).lower()
    found = [(m, " ".join(m.group(2).split()).lower()) for m in _HEADING.finditer(content)]
    match = next((m for m, t in found if t == want), None) or next((m for m, t in found if want in t), None)
    if match is None:
        names = ", ".join(repr(m.group(2)) for m, _ in found[:15]) or "none"
        from notes_store.errors import InvalidInput
        raise InvalidInput(f"no heading matching {heading!r} in this note; its headings: {names}")
    level = len(match.group(1))
    end = len(content)
    for m, _ in found:
        if m.start() > match.start() and len(m.group(1)) <= level:
            end = m.start()
            break
    return match.start(), end


# A note longer than this is read in a worker thread, not on the event loop (see note_read): tokenizing
# 64 KiB takes ~5 ms.
QUICK_READ_MAX_CHARS = 64 * 1024


def window_of(content: str, window: Window | None, budget_tokens: int) -> tuple[str, dict[str, Any] | None, str]:
    """The part of ``content`` to return, its position, and a marker saying what is left and how to get it."""
    total = len(content)
    if window is None and fits(content, budget_tokens):
        return content, None, ""
    start, stop = 0, total
    if window is not None and window.heading:
        start, stop = _section(content, window.heading)
    if window is not None:
        start = min(start + window.offset if window.heading else window.offset, total)
    end = stop if window is None or window.max_chars is None else min(stop, start + window.max_chars)
    part = cut_to_tokens(content[start:end], budget_tokens)
    end = start + len(part)
    if start == 0 and end == total:
        return part, None, ""
    position = {"offset": start, "end": end, "total_chars": total,
                "next_offset": end if end < total else None}
    heads = [m.group(0).strip() for m in _HEADING.finditer(content, end)][:8]
    marker = f"\n\n[… window: characters {start}-{end} of {total}."
    if end < total:
        marker += f" Next: note_read with window {{\"offset\": {end}}}"
        if heads:
            marker += " or {\"heading\": ...} for one of: " + "; ".join(heads)
    marker += ". The note:// resource returns the whole file.]"
    return part, position, marker


MAX_LINKS_IN_READ = 20  # ids per direction note_read shows (the totals say how many in all)


def _links_line(links: dict[str, Any]) -> str:
    """`` | links to: a, b | linked from: c (+3 more)`` for note_read's header, empty without links."""
    parts = []
    for key, label in (("links_to", "links to"), ("linked_from", "linked from")):
        ids, total = links[key], links[f"{key}_total"]
        if total:
            more = f" (+{total - len(ids)} more)" if total > len(ids) else ""
            parts.append(f"{label}: " + ", ".join(ids) + more)
    return "".join(f"\n{p}" for p in parts)


# -- the tools ---------------------------------------------------------------------------------------------

def register(server: MCPServer, handle: WorkspaceHandle, limits: Limits) -> None:
    """The ``notes`` group."""
    ws = handle.get

    def take() -> list[str]:
        return handle.take_warnings()

    def tool(fn: Any, title: str, description: str, annotations: ToolAnnotations, output: Any,
             inline: Any = None) -> None:
        add_tool(server, fn, name=fn.__name__, title=title, description=description, annotations=annotations,
                 output=output, limits=limits, take_warnings=take, inline=inline,
                 before=handle.room_to_write if fn.__name__ in ADDS_TEXT else None)

    def quick_reads() -> Any:
        """Searches and reads run on the event loop while they cannot wait (``Workspace.quick_reads``: inotify
        reports changes, so a look at the folders is a few ``stat`` calls, and no rebuild holds the searcher),
        else in a worker thread."""
        if not handle.is_open:  # opening the workspace waits: a worker thread does it
            return None
        opened = handle.get()
        return opened.quick_reads() if opened.reads_are_quick else None

    def note_create(
        title: str,
        content: Annotated[str, Field(description="Markdown")] = "",
        note_type: NoteType = "general",
        tags: Optional[list[str]] = None,
        folder: str = "",
        name_from_title: bool = False,
    ) -> Reply:
        n = note_data(ws().notes.create(title, content, note_type=note_type, tags=tags or [], folder=folder or None,
                                        name_from_title=name_from_title))
        return Reply(f"Created note {n['id']} ({n['type']}): {n['title']}", n)
    tool(note_create, "Create a note",
         "Save a note that outlives this conversation: a task_state, conclusion, blocker, action or reference.", WRITES, NoteOut)

    def note_read(
        note_id: NoteId,
        window: Annotated[Optional[Window], Field(description="Part of a long note")] = None,
    ) -> Reply:
        opened = ws()
        n = note_data(opened.notes.read(note_id))
        links = opened.notes.links(n["id"], limit=MAX_LINKS_IN_READ)
        n["links"] = {k: links[k] for k in ("links_to", "links_to_total", "linked_from", "linked_from_total")}
        link_line = _links_line(links)
        content = n["content"]
        if len(content) > QUICK_READ_MAX_CHARS and opened.reading_quickly:
            # Cutting a long note to the result's budget counts its tokens several times (84 ms a MiB):
            # not on the event loop that serves every client. Nothing was changed: a worker thread reads it.
            from notes_store.workspace import WouldBlock
            raise WouldBlock("a long note is cut to size where it may take its time")
        # The text and the structured result both carry the window; JSON escapes make the second larger.
        budget = max(limits.max_result_tokens * 2 // 5 - 200, 200)
        for _ in range(4):
            part, position, marker = window_of(content, window, budget)
            n["content"] = part
            n.pop("window", None)
            if position is not None:
                n["window"] = position
            tags = ", ".join(n["tags"]) or "none"
            revision = f" | revision {n['revision']}" if n.get("revision") else ""
            text = (f"Note {n['id']} — {n['title']}\ntype: {n['type']} | tags: {tags} | updated "
                    f"{n['updated_at']}{revision}{link_line}\n\n{part}{marker}")
            whole = text + json.dumps(n, ensure_ascii=False)
            if fits(whole, limits.max_result_tokens) or budget <= 200:  # bytes first: no tokenizer on small notes
                break
            used = count_tokens(text) + count_tokens(whole[len(text):])
            if used <= limits.max_result_tokens:
                break
            budget = max(200, budget * limits.max_result_tokens // used - 50)
        return Reply(text, n)
    tool(note_read, "Read a note",
         "Read a note's full text (search and list show snippets).",
         READ_ONLY, NoteOut, inline=quick_reads)  # one file read, no lock; a long note goes to a thread

    def note_update(
        note_id: NoteId,
        title: Optional[str] = None,
        content: Optional[str] = None,
        note_type: TypeFilter = None,
        tags: Optional[list[str]] = None,
        expected_revision: Revision = None,
    ) -> Reply:
        n = note_data(ws().notes.update(note_id, title=title, content=content, note_type=note_type, tags=tags,
                                        expected_revision=expected_revision))
        return Reply(f"Updated note {n['id']} ({n['type']}): {n['title']}", n)
    tool(note_update, "Update a note",
         "Replace the given fields of a note, e.g. to move a task_state on, instead of a duplicate.", OVERWRITES, NoteOut)

    def note_delete(note_id: NoteId, expected_revision: Revision = None) -> Reply:
        d = dict(ws().notes.delete(note_id, expected_revision=expected_revision))
        return Reply(f"Deleted note {d['id']}" + (f" ({d['title']})" if d.get("title") else ""), d)
    tool(note_delete, "Delete a note", "Delete a note for good.", DELETES, NoteDeleteOut)

    def note_search(
        query: Annotated[str, Field(description="Words or \"a phrase\"")],
        note_type: TypeFilter = None,
        tags: Tags = None,
        updated_after: Annotated[Optional[str], Field(description="ISO date")] = None,
        updated_before: Optional[str] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        offset: Annotated[int, Field(ge=0)] = 0,
        detail: Detail = False,
        links_to: str = "",
    ) -> Reply:
        r = ws().notes.search(query, limit=limit, offset=offset, note_type=note_type, tags=tags,
                              updated_after=updated_after, updated_before=updated_before, links_to=links_to or None)
        hits = [{**note_data(h.note, with_content=False), "score": round(h.score, 4), "snippet": h.snippet}
                for h in r.hits]
        if not hits:
            text = f"No notes match {query!r}" + (" on this page" if r.total else "") + "."
            return Reply(text, {"query": r.query, "total": r.total, "limit": r.limit, "offset": r.offset,
                                "shown": 0, "next_offset": None, "matched": r.matched,
                                "total_is_lower_bound": r.total_is_lower_bound, "hits": []})
        count = f"at least {r.total}" if r.total_is_lower_bound else str(r.total)
        head = f"{count} note(s) match {query!r}" + (" (some words only)" if r.matched == "any" else "")
        text, page = paged("hits", hits, [note_line(h, detail) for h in hits], head, r.total, offset, limit,
                           limits.max_result_tokens)
        return Reply(text, {"query": r.query, **page, "matched": r.matched,
                            "total_is_lower_bound": r.total_is_lower_bound, "hits": hits[:page["shown"]]})
    tool(note_search, "Search notes",
         "Full-text search of notes (English, Chinese), best first, with snippets.", READ_ONLY, NoteSearchOut,
         inline=quick_reads)

    def note_list(
        note_type: TypeFilter = None,
        tags: Tags = None,
        sort: NoteSort = "updated_desc",
        limit: Annotated[int, Field(ge=1, le=1000)] = 10,
        offset: Annotated[int, Field(ge=0)] = 0,
        detail: Detail = False,
    ) -> Reply:
        r = ws().notes.list(note_type=note_type, tags=tags, limit=limit, offset=offset, sort=sort)
        notes = [note_data(n, with_content=False) for n in r.notes]
        if not notes:
            return Reply(f"No notes on this page ({r.total} match the filters).",
                         {"total": r.total, "limit": r.limit, "offset": r.offset, "shown": 0, "next_offset": None,
                          "notes": []})
        text, page = paged("notes", notes, [note_line(n, detail) for n in notes], f"{r.total} note(s)", r.total,
                           offset, limit, limits.max_result_tokens)
        return Reply(text, {**page, "notes": notes[:page["shown"]]})
    tool(note_list, "List notes",
         "List notes by type and tags, e.g. open blockers or the latest task_state.",
         READ_ONLY, NoteListOut)

    def note_summary() -> Reply:
        s = ws().notes.summary()
        data = s.to_dict()
        data["recent"] = [note_data(n, with_content=False) for n in s.recent]
        lines = [f"{data['total']} note(s): " + ", ".join(f"{k} {v}" for k, v in data["by_type"].items() if v)]
        if data["top_tags"]:
            lines.append("Top tags: " + ", ".join(f"{t['tag']} ({t['count']})" for t in data["top_tags"]))
        if data["recent"]:
            lines.append("Most recent:")
            lines += [note_line(n) for n in data["recent"]]
        if data["unreadable"]:
            lines.append(f"{data['unreadable_total']} unreadable file(s)"
                         + (f", the first {len(data['unreadable'])}:" if data["unreadable_total"] > len(data["unreadable"]) else ":"))
            lines += [f"- {u['path']}: {u['reason']}" for u in data["unreadable"]]
        if data.get("conflicts"):
            lines.append(f"{len(data['conflicts'])} note(s) with Git merge-conflict markers (resolve by hand):")
            lines += [f"- {c['id']} ({c['path']})" for c in data["conflicts"]]
        data.setdefault("conflicts", [])
        return Reply("\n".join(lines), data)
    tool(note_summary, "Summarise the notes",
         "What the notes hold (counts, top tags, recent notes); call it first in a session.",
         READ_ONLY, NoteSummaryOut)


def register_admin(server: MCPServer, handle: WorkspaceHandle, limits: Limits) -> None:
    """The ``admin`` group: a note's Git history and rebuilding the index."""
    ws = handle.get

    def note_history(note_id: NoteId, limit: Annotated[int, Field(ge=1, le=200)] = 20) -> Reply:
        from notes_store.sync.git import note_history as history
        data = dict(history(ws(), note_id, limit=limit))
        data.pop("path", None)
        return Reply(data["message"] + "".join(f"\n- {c['short_hash']} {c['date']} {c['author']}: {c['message']}"
                                               for c in data["commits"]), data)
    add_tool(server, note_history, name="note_history", title="A note's Git history",
             description="Git commits that changed a note.", annotations=READ_ONLY,
             output=NoteHistoryOut, limits=limits, take_warnings=handle.take_warnings)

    async def reindex(ctx: Context) -> Reply:
        w = await anyio.to_thread.run_sync(ws)
        started = time.monotonic()
        progress = _progress_reporter(ctx)
        count = await anyio.to_thread.run_sync(lambda: _rebuild(w, progress))
        problems = len(getattr(w, "problems", ()) or ())
        out = {"indexed": count, "unreadable": problems, "seconds": round(time.monotonic() - started, 3)}
        return Reply(f"Reindexed {count} file(s) in {out['seconds']} s"
                     + (f"; {problems} unreadable" if problems else ""), out)
    add_tool(server, reindex, name="reindex", title="Rebuild the search index",
             description="Rebuild the search index; only if search looks stale.",
             annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False),
             output=ReindexOut, limits=limits, take_warnings=handle.take_warnings)


def _progress_reporter(ctx: Context) -> Any:
    """A thread-side ``progress(done, total)`` that forwards to the caller's progress token."""
    import anyio.from_thread

    def progress(done: float, total: float, message: str = "rebuilding the index") -> None:
        try:
            anyio.from_thread.run(ctx.report_progress, done, total, message)
        except Exception:  # progress is best effort
            pass
    return progress


def _rebuild(w: Any, progress: Any) -> int:
    """The library's rebuild, with its progress callback when it offers one."""
    import inspect
    params = inspect.signature(w.rebuild).parameters
    if "progress" in params:
        return int(w.rebuild(progress=progress))
    total = max(w.index_count(), 1) if hasattr(w, "index_count") else 1
    progress(0, total)
    count = int(w.rebuild())
    progress(count, max(count, 1))
    return count
