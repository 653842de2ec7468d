"""ctxnotes as an MCP server: notes, memory and the context builder as tools.

    >>> server = create_server("./workspace")                     # every tool group
    >>> server = create_server("./workspace", tools="notes,memory")
    >>> server.run()                                                # stdio

One workspace is shared by every connection of the process; it is opened on the first request that needs it
(so ``tools/list`` does not wait for the store). Nothing here may print to stdout (stdio carries the protocol).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, Optional

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from pydantic import Field

from . import completions
from . import live
from .tools import memory as tools_memory
from .tools import notes as tools_notes
from .state import WorkspaceHandle
from .tools.kit import DEFAULT_MAX_RESULT_TOKENS, Limits, compact_schema, refuse_unknown_arguments, timed

log = logging.getLogger("ctxnotes.server")

SERVER_NAME = "ctxnotes"
TOOL_GROUPS = ("notes", "memory", "context", "admin")
ENV_TOOLS = "CTXNOTES_TOOLS"
ENV_MAX_RESULT_TOKENS = "CTXNOTES_MAX_RESULT_TOKENS"
INSTRUCTIONS = """\
ctxnotes keeps persistent notes and memories across conversations.
- Starting a task: note_summary, then note_search / note_list (e.g. note_type task_state or blocker), or
  build_context for a packed, budgeted context.
- While working: record task state, conclusions, blockers and next actions with note_create; move notes
  forward with note_update instead of duplicating them.
- Memories (memory_*) hold facts about the user and the work not tied to one task.
- Files are resources note://<id> and memory://<id> (subscribe to hear about changes); notes://recent lists
  recent notes.
"""


class ConfigError(ValueError):
    """A bad server setting (unknown tool group, bad result limit); the message says how to fix it."""


def parse_groups(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"notes,memory"`` (or a list) -> the groups, in a fixed order; None or "all" -> every group."""
    if value is None:
        return TOOL_GROUPS
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [str(v).strip().lower() for v in items if str(v).strip()]
    if not names or names == ["all"]:
        return TOOL_GROUPS
    unknown = sorted(set(names) - set(TOOL_GROUPS))
    if unknown:
        raise ConfigError(f"unknown tool group(s) {', '.join(map(repr, unknown))}: use a comma list of "
                          f"{', '.join(TOOL_GROUPS)} (or 'all'), e.g. --tools notes,memory")
    return tuple(g for g in TOOL_GROUPS if g in names)


def resolve_settings(workspace: str | Path, tools: str | Iterable[str] | None,
                     max_result_tokens: int | None) -> tuple[tuple[str, ...], int]:
    """Tool groups and result limit: argument, else environment, else ``.ctxnotes.yaml``, else default."""
    try:
        from notes_store.settings import read_config
    except ImportError:  # before the settings module
        from notes_store.sync.git import read_config  # type: ignore[attr-defined]
    config: dict[str, Any] | None = None

    def yaml_value(key: str) -> Any:
        nonlocal config
        if config is None:
            config = read_config(Path(workspace).expanduser())
        return config.get(key)

    if tools is None:
        tools = os.environ.get(ENV_TOOLS) or yaml_value("tools")
    groups = parse_groups(tools)
    limit: Any = max_result_tokens
    if limit is None:
        limit = os.environ.get(ENV_MAX_RESULT_TOKENS) or yaml_value("max_result_tokens") or DEFAULT_MAX_RESULT_TOKENS
    try:
        limit = int(limit)
    except (TypeError, ValueError):
        raise ConfigError(f"max_result_tokens {limit!r} is not a whole number of tokens (e.g. 10000)") from None
    if limit < 1000:
        raise ConfigError(f"max_result_tokens {limit} is too small: results need at least 1000 tokens")
    return groups, limit


def create_server(workspace: str | Path, *, handle: WorkspaceHandle | None = None,
                  tools: str | Iterable[str] | None = None, max_result_tokens: int | None = None,
                  **server_options: Any) -> MCPServer:
    """Build the MCP server over the workspace folder (created on first use if missing).

    ``tools``: the tool groups to serve (comma list or list of ``notes, memory, context, admin``; default: all,
    or ``$CTXNOTES_TOOLS`` / ``tools:`` in ``.ctxnotes.yaml``). ``max_result_tokens`` bounds every result
    (default 10,000, or ``$CTXNOTES_MAX_RESULT_TOKENS`` / ``max_result_tokens:``). ``server_options`` go to
    ``MCPServer`` (e.g. ``token_verifier``/``auth``). Raises ``ConfigError`` for a bad setting.
    """
    groups, limit = resolve_settings(workspace, tools, max_result_tokens)
    handle = handle or WorkspaceHandle(workspace)
    limits = Limits(max_result_tokens=limit)
    bus = live.CountingBus()
    server = MCPServer(SERVER_NAME, title="ctxnotes: notes and memory for agents", instructions=INSTRUCTIONS,
                       version=_version(), log_level="WARNING", subscriptions=bus, **server_options)
    server.workspace_handle = handle  # type: ignore[attr-defined]  # for the CLI and tests
    server.tool_groups = groups  # type: ignore[attr-defined]

    registrars: dict[str, list[Callable[[], None]]] = {
        "notes": [lambda: tools_notes.register(server, handle, limits)],
        "memory": [lambda: tools_memory.register(server, handle, limits)],
        "context": [lambda: _register_context(server, handle)],
        "admin": [lambda: tools_notes.register_admin(server, handle, limits)],
    }
    sessions = _sessions_module()
    if sessions is not None:
        registrars[getattr(sessions, "GROUP", "context")].append(lambda: sessions.register(server, handle, limits))
    for group in groups:
        for register in registrars[group]:
            register()
    _finish_tools(server)

    _register_resources(server, handle)
    _register_prompts(server, handle)
    completions.register(server, handle)
    live.install(server, handle, bus)
    return server


def _register_context(server: MCPServer, handle: WorkspaceHandle) -> None:
    from .tools import context as tools_context
    tools_context.register(server, handle)


def _sessions_module() -> Any:
    """``server.tools.sessions`` when it exists (it is optional: written separately)."""
    import importlib
    try:
        return importlib.import_module("server.tools.sessions")
    except ModuleNotFoundError as exc:
        if exc.name == "server.tools.sessions":
            return None
        raise


def _finish_tools(server: MCPServer) -> None:
    """Tools registered outside ``tools.kit`` get the same compact schemas and the same timing wrapper."""
    for tool in server._tool_manager.list_tools():  # the SDK has no public hook to post-process a tool
        if getattr(tool.fn, "_ctxnotes_wrapped", False):
            continue
        tool.parameters = compact_schema(tool.parameters, optional_as_plain=True)
        tool.fn = timed(tool.name, tool.fn)
    refuse_unknown_arguments(server)


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("ctxnotes")
    except Exception:
        return "0"


# -- resources ---------------------------------------------------------------------------------------------

def _canonical_id(kind: str, item_id: str) -> str:
    """The id, if ``<kind>://<id>`` is the canonical spelling; else ResourceNotFoundError naming the right one.

    The raw URI is checked before template matching (``_refuse_other_spellings``); this catches the decoded
    forms that reach the handler by other routes (a nested ``ctx.read_resource``)."""
    scheme = "note" if kind == "note" else "memory"
    if kind == "note":  # the template decoded the id: check it as an id, then its canonical URI
        from notes_store.files.note_paths import encode_uri_id, note_id_problem
        bad = note_id_problem(item_id)
        if bad is not None:
            raise ResourceNotFoundError(f"note id {item_id[:200]!r} is not valid: {bad}")
        item_id_uri = encode_uri_id(item_id)
    else:
        item_id_uri = item_id
    problem = live.uri_problem(f"{scheme}://{item_id_uri}")
    if problem is not None:
        raise ResourceNotFoundError(problem)
    return item_id


def _refuse_other_spellings(server: MCPServer) -> None:
    """Check ``resources/read`` URIs as the client sent them: the SDK %-decodes template variables before the
    handler sees them, so ``note://pl%61in`` would otherwise resolve to note ``plain``."""
    low = server._lowlevel_server  # the SDK's extension point for request handlers
    entry = low._request_handlers["resources/read"]
    original = entry.handler

    async def read_resource(ctx: Any, params: Any) -> Any:
        live.check_uri(str(params.uri))
        return await original(ctx, params)

    low.add_request_handler("resources/read", entry.params_type, read_resource)


def _read_file(handle: WorkspaceHandle, kind: str, item_id: str) -> str | bytes:
    """The item's file exactly as stored (text when it is UTF-8), read with the workspace's size bound."""
    from notes_store.files.front_matter import BadFile
    from notes_store.errors import StoreError
    from notes_store.files.safe_read import read_regular_file
    item_id = _canonical_id(kind, item_id)
    ws = handle.get()
    try:
        item = ws.notes.read(item_id) if kind == "note" else ws.memory.read(item_id)
        raw, _st = read_regular_file(item.path, ws.max_content_bytes * 2)
    except StoreError as exc:
        raise ResourceNotFoundError(str(exc)) from None
    except FileNotFoundError:
        raise ResourceNotFoundError(f"{kind} {item_id} was deleted while being read") from None
    except BadFile as exc:
        raise ResourceNotFoundError(f"{kind} {item_id} cannot be read (unreadable: {exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def _register_resources(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.resource("note://{+note_id}", name="note", title="A note's Markdown file", mime_type="text/markdown",
                     description="The note's file exactly as stored: YAML front matter and Markdown body.")
    async def note_file(note_id: str) -> str | bytes:
        return await anyio.to_thread.run_sync(_read_file, handle, "note", note_id)

    @server.resource("memory://{memory_id}", name="memory", title="A memory's Markdown file",
                     mime_type="text/markdown", description="The memory's file exactly as stored.")
    async def memory_file(memory_id: str) -> str | bytes:
        return await anyio.to_thread.run_sync(_read_file, handle, "memory", memory_id)

    @server.resource("notes://recent", name="recent_notes", title="Recently updated notes",
                     mime_type="application/json",
                     description="The 20 most recently updated notes (id, title, type, tags, updated_at, uri).")
    async def recent_notes() -> str:
        def run() -> str:
            r = handle.get().notes.list(limit=20, sort="updated_desc")
            return json.dumps({"total": r.total, "notes": [tools_notes.note_data(n, with_content=False)
                                                           for n in r.notes]}, ensure_ascii=False, indent=1)
        return await anyio.to_thread.run_sync(run)

    _refuse_other_spellings(server)


# -- prompts -----------------------------------------------------------------------------------------------

def _register_prompts(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.prompt(name="resume_task", title="Resume a task",
                   description="Pick a task up where it was left: the latest task_state notes, open blockers "
                               "and notes related to the task, with instructions on how to continue.")
    async def resume_task(
        task: Annotated[Optional[str], Field(description="What the task is about (words to search for); "
                                                         "empty = the most recent task state")] = None,
        tag: Annotated[Optional[str], Field(description="Only notes with this tag")] = None,
    ) -> list[Message]:
        def gather() -> str:
            ws = handle.get()
            tags = [tag] if tag else None
            parts: list[str] = []
            states = ws.notes.list(note_type="task_state", tags=tags, limit=3).notes
            related: list[Any] = []
            if task and task.strip():
                from notes_store.errors import StoreError
                try:
                    related = ws.notes.search(task, limit=8, tags=tags).hits
                except StoreError:
                    related = []
                hit_states = [h.note for h in related if h.note.type == "task_state"]
                if hit_states:
                    states = hit_states[:3]
            for n in states:
                full = ws.notes.read(n.id)
                content = full.content or ""
                if len(content) > 4000:  # a prompt is not the place for a whole long note
                    content = content[:4000] + f"\n[… cut: note_read {full.id} for the rest]"
                parts.append(f"## Task state: {full.title} ({full.id}, updated {full.updated_at})\n{content}")
            blockers = ws.notes.list(note_type="blocker", tags=tags, limit=10).notes
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
        note_type: Annotated[Optional[str], Field(description="The kind of note to start with, e.g. "
                                                              "conclusion")] = None,
    ) -> list[Message]:
        done = f" (\"{step}\")" if step else ""
        first = f"Start with a {note_type} note.\n" if note_type else ""
        return [UserMessage(
            f"You just finished a step{done}. Record it in ctxnotes before moving on:\n{first}"
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
