"""``ctxnotes context QUERY ...``: build a token-budgeted context from the workspace and given inputs."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from notes_store import NOTE_TYPES

from . import CommandError


def _read_json(path: str | None, what: str) -> Any:
    """A JSON file (or JSON Lines, one object per line); '-' reads stdin."""
    if path is None:
        return None
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {what} file {path}: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise CommandError(f"{what} file {path} is neither JSON nor JSON Lines: {exc}") from exc


def cmd_context(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    from context import build_context
    from context.gather.workspace import WorkspaceEvidence

    history = _read_json(args.history, "history")
    if isinstance(history, dict) and "history" in history:
        history = history["history"]
    if args.session:
        from notes_store.sessions import history_with_session
        history = history_with_session(ws.root, args.session, history)
    task_state: Any = args.task_state
    if task_state and task_state.startswith("@"):
        task_state = _read_json(task_state[1:], "task state")
    import time

    from ..tools.build_log import record_build
    started = time.perf_counter()
    result = build_context(
        args.query, history=history, system_instructions=args.system, task_state=task_state,
        tool_results=_read_json(args.tool_results, "tool results"), documents=_read_json(args.documents, "documents"),
        tools=_read_json(args.tools, "tools"), max_tokens=args.max_tokens, reserve_ratio=args.reserve_ratio,
        format=args.format, include_notes=not args.no_notes, include_memory=not args.no_memory,
        note_types=args.note_type, tags=args.tag, query_type=args.query_type, encoding=args.encoding,
        evidence=WorkspaceEvidence(ws))
    record_build(ws.root, result, time.perf_counter() - started, session_id=args.session)
    data = result.to_dict()
    if args.format == "messages":
        text = "\n\n".join(f"<{m['role']}>\n{m['content']}" for m in data.get("messages", []))
    else:
        text = data.get("context", "")
    report = (f"\n\n--- {data['tokens']} of {data['budget']} tokens; {len(data['selected'])} item(s) selected, "
              f"{len(data['dropped'])} dropped, {len(data.get('compressed', []))} compressed")
    return data, text + report


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("context", help="pack notes, memories and history into a token budget (build_context)")
    p.add_argument("query", help="what the agent is about to do or answer")
    p.add_argument("--session", metavar="ID", help="use the stored session as history (--history turns come after it)")
    p.add_argument("--history", metavar="FILE", help="conversation turns: JSON list or JSON Lines of "
                                                     "{role, content, timestamp?, id?}, oldest first ('-' = stdin)")
    p.add_argument("--system", metavar="TEXT", help="system instructions (always kept)")
    p.add_argument("--task-state", metavar="TEXT|@FILE", help="task state as text, or @file.json")
    p.add_argument("--tool-results", metavar="FILE", help="JSON list of {tool, content, id?, timestamp?}")
    p.add_argument("--documents", metavar="FILE", help="JSON list of {content, source?, score?}")
    p.add_argument("--tools", metavar="FILE", help="JSON list of tool definitions {name, description, input_schema}")
    p.add_argument("--max-tokens", type=int, default=3000, help="token budget (default 3000)")
    p.add_argument("--reserve-ratio", type=float, default=0.2, help="share kept free for the answer (default 0.2)")
    p.add_argument("--format", choices=("text", "messages"), default="text")
    p.add_argument("--query-type", choices=("auto", "knowledge", "chat", "task"), default="auto")
    p.add_argument("--note-type", action="append", choices=NOTE_TYPES, help="only notes of this type (repeatable)")
    p.add_argument("--tag", action="append", help="only notes with this tag (repeatable)")
    p.add_argument("--no-notes", action="store_true", help="do not search the workspace's notes")
    p.add_argument("--no-memory", action="store_true", help="do not search the workspace's memories")
    p.add_argument("--encoding", default="cl100k_base", help="tiktoken encoding used to count tokens")
    p.set_defaults(handler=cmd_context)
