"""ctxnotes as an MCP server: notes, memory and the context builder as tools.

    >>> server = create_server("./workspace")
    >>> server.run()                      # stdio
    >>> server.run("streamable-http", host="127.0.0.1", port=8765)

One workspace is shared by every connection of the process; it is opened on the
first request that needs it (so ``tools/list`` does not wait for the store).
Heavy libraries (the store's index, tiktoken) are imported lazily for the same
reason: nothing here may print to stdout (stdio carries the protocol).
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from typing import Annotated, Any, Optional

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from pydantic import Field

from . import tools_notes
from .mcp_state import WorkspaceHandle

log = logging.getLogger("ctxnotes.server")

SERVER_NAME = "ctxnotes"
INSTRUCTIONS = """\
ctxnotes keeps persistent notes and memories for you across conversations.
- At the start of a task: note_summary (what exists), then note_search / note_list (e.g. note_type
  task_state or blocker), or build_context to get a packed, budgeted context for the task.
- While working: record conclusions, blockers, next actions and the task state with note_create;
  move existing notes forward with note_update instead of creating duplicates.
- Memories (memory_*) hold facts and experiences about the user and the work that are not tied to
  one task; notes hold task artefacts.
- Raw note files are readable as resources note://<id>; notes://recent lists recent notes.
"""


def _module_exists(name: str) -> bool:
    """Whether ``pkg`` or ``pkg.sub`` exists, without importing anything (find_spec on a submodule
    would import its package, and with it the store's index library)."""
    top, _, sub = name.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    if spec is None or not sub:
        return spec is not None
    return any((Path(loc) / f"{sub}.py").is_file() or (Path(loc) / sub / "__init__.py").is_file()
               for loc in spec.submodule_search_locations or ())


def create_server(workspace: str | Path, *, handle: WorkspaceHandle | None = None, **server_options: Any) -> MCPServer:
    """Build the MCP server over the workspace folder (created on first use if missing).

    ``server_options`` go to ``MCPServer`` (e.g. ``token_verifier``/``auth``).
    """
    handle = handle or WorkspaceHandle(workspace)
    server = MCPServer(SERVER_NAME, title="ctxnotes: notes and memory for agents", instructions=INSTRUCTIONS,
                       version=_version(), log_level="WARNING", **server_options)
    server.workspace_handle = handle  # type: ignore[attr-defined]  # for the CLI and tests

    tools_notes.register(server, handle)
    if _module_exists("notes_store.memory"):
        from . import tools_memory
        tools_memory.register(server, handle)
    else:
        log.info("notes_store.memory not available: memory_* tools are not served")
    if _module_exists("context"):
        from . import tools_context
        tools_context.register(server, handle)
    _register_resources(server, handle)
    _register_prompts(server, handle)
    return server


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("ctxnotes")
    except Exception:
        return "0"


# -- resources ---------------------------------------------------------------------------------------------

def _register_resources(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.resource("note://{note_id}", name="note", title="A note's Markdown file", mime_type="text/markdown",
                     description="The note's file exactly as stored: YAML front matter and Markdown body.")
    async def note_file(note_id: str) -> str | bytes:
        def read() -> bytes:
            from notes_store.errors import NotFound, StoreError
            ws = handle.get()
            try:
                note = ws.notes.read(note_id)  # validates the id and resolves the file
            except NotFound as exc:
                raise ResourceNotFoundError(str(exc)) from None
            except StoreError as exc:
                raise ResourceNotFoundError(str(exc)) from None
            with open(note.path, "rb") as fh:
                return fh.read()
        raw = await anyio.to_thread.run_sync(read)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw

    @server.resource("notes://recent", name="recent_notes", title="Recently updated notes",
                     mime_type="application/json",
                     description="The 20 most recently updated notes (id, title, type, tags, updated_at, uri).")
    async def recent_notes() -> str:
        def run() -> str:
            from .mcp_models import note_meta
            r = handle.get().notes.list(limit=20, sort="updated_desc").to_dict()
            return json.dumps({"total": r["total"], "notes": [note_meta(n) for n in r["notes"]]},
                              ensure_ascii=False, indent=1)
        return await anyio.to_thread.run_sync(run)


# -- prompts -----------------------------------------------------------------------------------------------

def _register_prompts(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.prompt(name="resume_task", title="Resume a task",
                   description="Pick a task up where it was left: the latest task_state notes, open blockers "
                               "and notes related to the task, with instructions on how to continue.")
    async def resume_task(
        task: Annotated[Optional[str], Field(description="What the task is about (words to search for); "
                                                         "empty = the most recent task state")] = None,
    ) -> list[Message]:
        def gather() -> str:
            ws = handle.get()
            parts: list[str] = []
            states = ws.notes.list(note_type="task_state", limit=3).notes
            related: list[Any] = []
            if task and task.strip():
                from notes_store.errors import StoreError
                try:
                    related = ws.notes.search(task, limit=8).hits
                except StoreError:
                    related = []
                hit_states = [h.note for h in related if h.note.type == "task_state"]
                if hit_states:
                    states = hit_states[:3]
            for n in states:
                full = ws.notes.read(n.id)
                parts.append(f"## Task state: {full.title} ({full.id}, updated {full.updated_at})\n{full.content}")
            blockers = ws.notes.list(note_type="blocker", limit=10).notes
            if blockers:
                parts.append("## Open blockers\n" + "\n".join(
                    f"- {b.id}: {b.title} (updated {b.updated_at})" for b in blockers))
            others = [h for h in related if h.note.type not in ("task_state", "blocker")]
            if others:
                parts.append("## Related notes\n" + "\n".join(
                    f"- {h.note.id} ({h.note.type}): {h.note.title} — {h.snippet}" for h in others))
            return "\n\n".join(parts) or "No task_state or blocker notes exist yet."
        found = await anyio.to_thread.run_sync(gather)
        what = f" on: {task}" if task else ""
        return [UserMessage(
            f"I want to resume my work{what}.\n\nHere is what ctxnotes has recorded:\n\n{found}\n\n"
            "Read the full text of any listed note you need with note_read. Check whether each blocker still "
            "holds; when one is resolved, note_update it to a conclusion. Then continue from the task state "
            "and keep it current with note_update as you go.")]

    @server.prompt(name="record_progress", title="Record progress",
                   description="Instructions for saving the outcome of a work step as notes "
                               "(task state, conclusions, blockers, next actions).")
    def record_progress(
        step: Annotated[Optional[str], Field(description="The step just finished, in a few words")] = None,
    ) -> list[Message]:
        done = f" (\"{step}\")" if step else ""
        return [UserMessage(
            f"You just finished a step{done}. Record it in ctxnotes before moving on:\n"
            "1. Task state: find the current task_state note (note_list with note_type=\"task_state\" or "
            "note_search) and note_update its content with what is done, what is in progress and what is next. "
            "If there is none, note_create one with note_type=\"task_state\".\n"
            "2. Conclusions: for each decision or finding worth keeping, note_create with "
            "note_type=\"conclusion\" (one idea per note, a title that says the finding).\n"
            "3. Blockers: note_create with note_type=\"blocker\" for anything stopping progress; when a "
            "blocker is resolved, note_update it (note_type=\"conclusion\", say how it was resolved).\n"
            "4. Next actions: note_create with note_type=\"action\" for concrete follow-ups.\n"
            "Use the same tags across a task (e.g. the project or feature name) so note_list can filter by them. "
            "Keep notes short and factual; do not paste whole files.")]
