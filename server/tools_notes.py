"""The note_* tools and the reindex tool."""

from __future__ import annotations

import time
from typing import Annotated, Any, Optional

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from .mcp_models import (NoteDeleteOut, NoteHistoryOut, NoteListOut, NoteOut, NoteSearchOut, NoteSort,
                         NoteSummaryOut, NoteType, ReindexOut, note_meta)
from .mcp_state import WorkspaceHandle, store_call, take_call_warnings

NoteId = Annotated[str, Field(description="A note id as returned by note_create, note_search or note_list, "
                                          "e.g. 'note_20260101_120000_1a2b3c4d'")]
Tags = Annotated[Optional[list[str]], Field(description="Short labels, e.g. [\"project-x\", \"auth\"]")]

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


def result(text: str, data: Any) -> CallToolResult:
    """A tool result: readable text for the model plus the typed structured content.

    Warnings from the store call behind it (the write succeeded, but e.g. its Git
    commit did not) are appended to the text.
    """
    structured = data.model_dump(mode="json") if hasattr(data, "model_dump") else data
    warnings = take_call_warnings()
    if warnings:
        text += "".join(f"\nWarning: {w}" for w in warnings)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _line(n: dict[str, Any]) -> str:
    tags = f" [{', '.join(n['tags'])}]" if n["tags"] else ""
    return f"- {n['id']} ({n['type']}) {n['title']}{tags} — updated {n['updated_at']}"


def note_out(note: Any) -> NoteOut:
    d = note.to_dict()
    return NoteOut(**note_meta(d), content=d.get("content") or "", extra=d.get("extra") or {})


def render_note(n: NoteOut) -> str:
    tags = ", ".join(n.tags) or "none"
    return (f"Note {n.id} — {n.title}\ntype: {n.type} | tags: {tags} | created {n.created_at} | "
            f"updated {n.updated_at}\n\n{n.content}")


def register(server: MCPServer, handle: WorkspaceHandle) -> None:
    ws = handle.get

    @server.tool(
        name="note_create", title="Create a note",
        description=(
            "Save a new persistent note (it survives this conversation and is found by note_search and "
            "build_context later). Use it to record a conclusion, a blocker, the current task state, a "
            "next action or a reference, with note_type saying which. To change an existing note use "
            "note_update instead of creating a duplicate. Returns the note with its new id.\n"
            "Example: {\"title\": \"Auth refactor: state after step 2\", \"content\": \"Token refresh done; "
            "next: migrate sessions\", \"note_type\": \"task_state\", \"tags\": [\"auth\"]}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                    openWorldHint=False))
    def note_create(
        title: Annotated[str, Field(description="One line, under 300 characters, saying what the note is about")],
        content: Annotated[str, Field(description="The note body, Markdown (up to 1 MiB)")] = "",
        note_type: Annotated[NoteType, Field(
            description="task_state: where a task stands; conclusion: a finding or decision; blocker: what "
                        "stops progress; action: a next step to do; reference: a pointer or fact to keep; "
                        "general: anything else")] = "general",
        tags: Tags = None,
    ) -> Annotated[CallToolResult, NoteOut]:
        n = note_out(store_call(ws().notes.create, title, content, note_type=note_type, tags=tags or []))
        return result(f"Created note {n.id} ({n.type}): {n.title}", n)

    @server.tool(
        name="note_read", title="Read a note",
        description=(
            "Read one note in full (title, type, tags, timestamps and the whole content) by id. Search "
            "results and listings show only snippets: call this when you need the complete text.\n"
            "Example: {\"note_id\": \"note_20260101_120000_1a2b3c4d\"}"),
        annotations=READ)
    def note_read(note_id: NoteId) -> Annotated[CallToolResult, NoteOut]:
        n = note_out(store_call(ws().notes.read, note_id))
        return result(render_note(n), n)

    @server.tool(
        name="note_update", title="Update a note",
        description=(
            "Change an existing note: pass only the fields to change (omitted fields stay as they are; "
            "content replaces the whole body; tags replace the whole tag list). Prefer this over "
            "note_create when the note already exists, e.g. to move a task_state forward or turn a "
            "blocker into a conclusion. Returns the updated note.\n"
            "Example: {\"note_id\": \"note_20260101_120000_1a2b3c4d\", \"content\": \"Step 3 done\", "
            "\"note_type\": \"conclusion\"}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True,
                                    openWorldHint=False))
    def note_update(
        note_id: NoteId,
        title: Annotated[Optional[str], Field(description="New title (one line)")] = None,
        content: Annotated[Optional[str], Field(description="New body; replaces the old one. \"\" empties it")] = None,
        note_type: Annotated[Optional[NoteType], Field(description="New type")] = None,
        tags: Annotated[Optional[list[str]], Field(description="New tag list; replaces the old one. [] clears it")] = None,
    ) -> Annotated[CallToolResult, NoteOut]:
        n = note_out(store_call(ws().notes.update, note_id, title=title, content=content,
                                note_type=note_type, tags=tags))
        return result(f"Updated note {n.id} ({n.type}): {n.title} — updated {n.updated_at}", n)

    @server.tool(
        name="note_delete", title="Delete a note",
        description=(
            "Delete a note permanently (its file is removed; it disappears from search and listings at "
            "once). Use it for notes that are wrong or obsolete; to record that something is finished, "
            "prefer note_update (e.g. note_type 'conclusion').\n"
            "Example: {\"note_id\": \"note_20260101_120000_1a2b3c4d\"}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                                    openWorldHint=False))
    def note_delete(note_id: NoteId) -> Annotated[CallToolResult, NoteDeleteOut]:
        d = store_call(ws().notes.delete, note_id)
        out = NoteDeleteOut(deleted=bool(d.get("deleted")), id=d["id"], title=d.get("title"))
        return result(f"Deleted note {out.id}" + (f" ({out.title})" if out.title else ""), out)

    @server.tool(
        name="note_search", title="Search notes",
        description=(
            "Full-text search over the notes (titles and content; English and Chinese), ranked by "
            "relevance, with a snippet per hit. Words must all match; if none does, notes with some of the "
            "words are returned (matched='any'). Use \"quoted phrases\" for exact wording. Use note_list "
            "instead to browse by type/tag/recency without a query, and build_context to get a packed "
            "context for a task.\n"
            "Example: {\"query\": \"token refresh\", \"note_type\": \"blocker\", \"limit\": 5}"),
        annotations=READ)
    def note_search(
        query: Annotated[str, Field(description="Words or a \"quoted phrase\" to look for")],
        limit: Annotated[int, Field(ge=1, le=100, description="Hits per page (1-100)")] = 10,
        offset: Annotated[int, Field(ge=0, description="Hits to skip, for paging")] = 0,
        note_type: Annotated[Optional[NoteType], Field(description="Only notes of this type")] = None,
        tags: Annotated[Optional[list[str]], Field(description="Only notes carrying all these tags")] = None,
        updated_after: Annotated[Optional[str], Field(
            description="Only notes updated at or after this ISO 8601 date/time, e.g. 2026-11-29")] = None,
        updated_before: Annotated[Optional[str], Field(
            description="Only notes updated before this ISO 8601 date/time, e.g. 2026-11-30T12:00:00Z")] = None,
    ) -> Annotated[CallToolResult, NoteSearchOut]:
        r = store_call(ws().notes.search, query, limit=limit, offset=offset, note_type=note_type, tags=tags,
                       updated_after=updated_after, updated_before=updated_before).to_dict()
        hits = [{**note_meta(h), "score": h["score"], "snippet": h["snippet"]} for h in r["hits"]]
        out = NoteSearchOut(query=r["query"], total=r["total"], limit=r["limit"], offset=r["offset"],
                            matched=r["matched"], hits=hits)
        if not hits:
            text = f"No notes match {query!r}" + (" on this page" if r["total"] else "") + "."
        else:
            head = f"{r['total']} note(s) match {query!r}" + (" (some words only)" if r["matched"] == "any" else "")
            head += f"; showing {offset + 1}-{offset + len(hits)}:"
            text = "\n".join([head] + [f"{_line(h)}\n    {h['snippet']}" for h in hits])
        return result(text, out)

    @server.tool(
        name="note_list", title="List notes",
        description=(
            "List notes without content, filtered by type and/or tags and sorted (most recently updated "
            "first by default), with the total count. Use it to browse, e.g. all open blockers or the "
            "latest task_state; use note_search when you have words to look for.\n"
            "Example: {\"note_type\": \"blocker\", \"sort\": \"updated_desc\", \"limit\": 20}"),
        annotations=READ)
    def note_list(
        note_type: Annotated[Optional[NoteType], Field(description="Only notes of this type")] = None,
        tags: Annotated[Optional[list[str]], Field(description="Only notes carrying all these tags")] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="Notes per page (1-1000)")] = 10,
        offset: Annotated[int, Field(ge=0, description="Notes to skip, for paging")] = 0,
        sort: Annotated[NoteSort, Field(description="Order of the listing")] = "updated_desc",
    ) -> Annotated[CallToolResult, NoteListOut]:
        r = store_call(ws().notes.list, note_type=note_type, tags=tags, limit=limit, offset=offset,
                       sort=sort).to_dict()
        notes = [note_meta(n) for n in r["notes"]]
        out = NoteListOut(total=r["total"], limit=r["limit"], offset=r["offset"], notes=notes)
        if notes:
            text = "\n".join([f"{r['total']} note(s); showing {offset + 1}-{offset + len(notes)}:"]
                             + [_line(n) for n in notes])
        else:
            text = f"No notes on this page ({r['total']} match the filters)."
        return result(text, out)

    @server.tool(
        name="note_summary", title="Summarise the notes",
        description=(
            "An overview of the whole note collection: total, count per type, the most used tags, the five "
            "most recently updated notes and any files that could not be read. Call it first in a new "
            "session to see what is there. Example: {}"),
        annotations=READ)
    def note_summary() -> Annotated[CallToolResult, NoteSummaryOut]:
        r = store_call(ws().notes.summary).to_dict()
        out = NoteSummaryOut(total=r["total"], by_type=r["by_type"], top_tags=r["top_tags"],
                             recent=[note_meta(n) for n in r["recent"]], unreadable=r["unreadable"],
                             conflicts=r.get("conflicts", []))
        lines = [f"{out.total} note(s): " + ", ".join(f"{k} {v}" for k, v in out.by_type.items() if v)]
        if out.top_tags:
            lines.append("Top tags: " + ", ".join(f"{t.tag} ({t.count})" for t in out.top_tags))
        if out.recent:
            lines.append("Most recent:")
            lines += [_line(n.model_dump()) for n in out.recent]
        if out.unreadable:
            lines.append(f"{len(out.unreadable)} unreadable file(s):")
            lines += [f"- {u.path}: {u.reason}" for u in out.unreadable]
        if out.conflicts:
            lines.append(f"{len(out.conflicts)} note(s) with Git merge-conflict markers (resolve by hand):")
            lines += [f"- {c.id} ({c.path})" for c in out.conflicts]
        return result("\n".join(lines), out)

    @server.tool(
        name="note_history", title="A note's Git history",
        description=(
            "The Git commits that touched a note, newest first (date, author, message, short hash), when the "
            "workspace is kept in Git; otherwise says so. Use it to see how a note evolved or who changed it. "
            "Example: {\"note_id\": \"note_20260101_120000_1a2b3c4d\", \"limit\": 10}"),
        annotations=READ)
    def note_history(note_id: NoteId,
                     limit: Annotated[int, Field(ge=1, le=200, description="How many commits at most")] = 20,
                     ) -> Annotated[CallToolResult, NoteHistoryOut]:
        from notes_store.git_sync import note_history as history
        out = NoteHistoryOut(**store_call(history, ws(), note_id, limit=limit))
        return result(out.message + "".join(f"\n- {c.short_hash} {c.date} {c.author}: {c.message}"
                                            for c in out.commits), out)

    @server.tool(
        name="reindex", title="Rebuild the search index",
        description=(
            "Rebuild the search index from the note and memory files on disk. Only needed when search "
            "results look wrong or stale after files were edited outside ctxnotes (the index normally "
            "keeps itself up to date). Can take a while on large workspaces; reports progress when the "
            "caller sends a progress token. Example: {}"),
        annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True,
                                    openWorldHint=False))
    async def reindex(ctx: Context) -> Annotated[CallToolResult, ReindexOut]:
        w = await anyio.to_thread.run_sync(ws)
        total = await anyio.to_thread.run_sync(_count_files, w)
        started = time.monotonic()
        await ctx.report_progress(0, total, "rebuilding the index")
        done = anyio.Event()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["count"] = store_call(w.rebuild)
            except BaseException as exc:  # re-raised in the async task below
                box["error"] = exc

        async def run() -> None:
            await anyio.to_thread.run_sync(work)
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            while not done.is_set():
                with anyio.move_on_after(0.25):
                    await done.wait()
                if not done.is_set():
                    # The rebuild refills the catalogue file by file: its size is the progress.
                    await ctx.report_progress(min(len(w.catalogue), total), total, "indexing files")
        if "error" in box:
            raise box["error"]
        count = box["count"]
        unreadable = len(w.problems)
        await ctx.report_progress(total, total, "done")
        out = ReindexOut(indexed=count, unreadable=unreadable, seconds=round(time.monotonic() - started, 3))
        text = f"Index rebuilt: {count} file(s) indexed"
        text += f", {unreadable} unreadable (see note_summary)" if unreadable else ""
        return result(text + f" in {out.seconds:.2f}s.", out)


def _count_files(w: Any) -> int:
    total = 0
    for kind in w.collections:
        try:
            total += sum(1 for p in w.folder(kind).iterdir() if p.name.endswith(".md"))
        except OSError:
            pass
    return max(total, 1)
