"""``ctxnotes session ...`` (record, import, show, list, delete, prune conversation sessions) and ``ctxnotes stats``.

These commands work on the workspace folder directly and never open the search index, so an agent
client's prompt hook can record a turn quickly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from . import CommandError, workspace_path

OPENAI_ROLES = {"developer": "system", "function": "tool"}
# notes_store.sessions.ROLES, repeated so building the parser does not import the store (a test keeps them equal)
ROLES = ("user", "assistant", "system", "tool")
BATCH = 500  # notes_store.sessions.MAX_TURNS_PER_APPEND
MAX_IMPORT_BYTES = 256 * 1024 * 1024


def _store(args: argparse.Namespace) -> Any:
    from notes_store.sessions import SessionStore
    return SessionStore(workspace_path(args.workspace))


def _text_of(content: Any) -> Any:
    """OpenAI-style content parts (``[{"type": "text", "text": ...}, ...]``) as one text; other values as is."""
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type', 'part')}]")
        return "\n".join(parts)
    return content


def normalize_turn(item: Any, where: str) -> dict[str, Any] | None:
    """A turn from our own format, a stored session line or an OpenAI-style message; None for a message with
    nothing to keep (e.g. an empty assistant turn)."""
    if not isinstance(item, dict):
        raise CommandError(f"{where} must be an object with role and content, got {type(item).__name__}")
    role = OPENAI_ROLES.get(str(item.get("role")), item.get("role"))
    content = _text_of(item.get("content"))
    calls = item.get("tool_calls")
    if isinstance(calls, list) and calls:  # an assistant turn that calls tools: keep the calls as text
        described = []
        for call in calls:
            fn = call.get("function", {}) if isinstance(call, dict) else {}
            described.append(f"[tool call {fn.get('name', '?')}({fn.get('arguments', '')})]")
        content = "\n".join(([content] if isinstance(content, str) and content.strip() else []) + described)
    if content is None or (isinstance(content, str) and not content.strip()):
        return None
    if not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    turn: dict[str, Any] = {"role": role, "content": content}
    for key in ("timestamp", "id", "tool_call_id", "name"):
        if item.get(key) is not None:
            turn[key] = item[key] if isinstance(item[key], str) or key == "timestamp" else str(item[key])
    return turn


def read_turns_file(path: str) -> list[Any]:
    """A JSON array of turns, ``{"messages": [...]}``, or JSON Lines (one turn per line); '-' reads stdin."""
    try:
        if path == "-":
            text = sys.stdin.read(MAX_IMPORT_BYTES + 1)
        else:
            from notes_store.files.front_matter import BadFile
            from notes_store.files.safe_read import read_regular_file
            try:
                raw, _ = read_regular_file(Path(path), MAX_IMPORT_BYTES)
            except BadFile as exc:
                raise CommandError(f"cannot import {path}: it {exc}") from None
            text = raw.decode("utf-8")
    except FileNotFoundError:
        raise CommandError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from None
    if len(text) > MAX_IMPORT_BYTES:
        raise CommandError(f"{path} is over {MAX_IMPORT_BYTES} bytes; split it")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data.append(json.loads(line))
            except json.JSONDecodeError as exc:
                if n == len(text.splitlines()) and not text.endswith("\n"):
                    break  # a torn last line (e.g. a session file copied mid-append): skip it
                raise CommandError(f"{path} is neither JSON nor JSON Lines (line {n}: {exc.msg})") from None
    if isinstance(data, dict):
        data = data.get("messages", data.get("turns", data.get("history")))
    if not isinstance(data, list):
        raise CommandError(f"{path} must hold a list of turns/messages (a JSON array, JSON Lines, or "
                           "{\"messages\": [...]})")
    return data


def cmd_append(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    content = sys.stdin.read() if args.content == "-" else args.content
    turn: dict[str, Any] = {"role": args.role, "content": content}
    for key in ("timestamp", "id", "tool_call_id", "name"):
        value = getattr(args, key)
        if value is not None:
            turn[key] = value
    r = _store(args).append(args.session_id, [turn])
    for w in r.warnings:
        print(f"ctxnotes: warning: {w}", file=sys.stderr)
    what = f"stored turn {r.ids[0]}" if r.ids else f"turn {r.duplicates[0]} was already stored"
    return r.to_dict(), f"{what} in session {r.session_id} ({r.total_turns} turns)"


def cmd_import(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    items = read_turns_file(args.file)
    turns = []
    skipped = 0
    for i, item in enumerate(items):
        turn = normalize_turn(item, f"{args.file} item {i}")
        if turn is None:
            skipped += 1
        else:
            turns.append(turn)
    if not turns:
        raise CommandError(f"{args.file} holds no turns with content")
    store = _store(args)
    appended = duplicates = 0
    total = 0
    for start in range(0, len(turns), BATCH):
        try:
            r = store.append(args.session_id, turns[start:start + BATCH])
        except ValueError as exc:  # name the item in the file, not in the batch
            msg = str(exc)
            if msg.startswith("turns["):
                index = int(msg[6:msg.index("]")]) + start
                msg = f"turn {index} of {args.file}" + msg[msg.index("]") + 1:]
            raise CommandError(msg + (f" ({appended} turn(s) before it were stored)" if appended else "")) from None
        appended += r.appended
        duplicates += len(r.duplicates)
        total = r.total_turns
        for w in r.warnings:
            print(f"ctxnotes: warning: {w}", file=sys.stderr)
    data = {"session_id": args.session_id, "appended": appended, "duplicates": duplicates,
            "skipped_empty": skipped, "total_turns": total}
    text = f"imported {appended} turn(s) into session {args.session_id} ({total} turns)"
    if duplicates:
        text += f"; {duplicates} already stored (same id), skipped"
    if skipped:
        text += f"; {skipped} message(s) without content skipped"
    return data, text


def cmd_show(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    page = _store(args).turns(args.session_id, offset=args.offset, limit=args.limit)
    for w in page.warnings:
        print(f"ctxnotes: warning: {w}", file=sys.stderr)
    lines = [f"session {page.session_id}: {page.total} turns; showing {page.offset + 1}-"
             f"{page.offset + len(page.turns)}"]
    for t in page.turns:
        when = f" {t['timestamp']}" if t.get("timestamp") else ""
        lines.append(f"[{t['id']}] {t['role']}{when}: {t['content']}")
    if page.next_offset is not None:
        lines.append(f"[more: --offset {page.next_offset}]")
    return page.to_dict(), "\n".join(lines)


def cmd_history(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    history = _store(args).history(args.session_id)
    return history, json.dumps(history, ensure_ascii=False)


def cmd_list(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    total, infos = _store(args).list(limit=args.limit, offset=args.offset)
    rows = [i.to_dict() for i in infos]
    lines = [f"{total} session(s)"]
    lines += [i.line(with_bytes=True) for i in infos]
    return {"total": total, "sessions": rows}, "\n".join(lines)


def cmd_delete(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    from notes_store.errors import NotFound
    if not _store(args).delete(args.session_id):
        raise NotFound(f"no session {args.session_id!r}; see ctxnotes session list")
    return {"deleted": args.session_id}, f"deleted session {args.session_id}"


def cmd_prune(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    from notes_store.sessions import parse_duration
    removed = _store(args).prune(parse_duration(args.older_than), dry_run=args.dry_run)
    verb = "would delete" if args.dry_run else "deleted"
    text = f"{verb} {len(removed)} session(s) idle for over {args.older_than}"
    return {"deleted": removed, "dry_run": args.dry_run}, text + "".join(f"\n- {s}" for s in removed)


def cmd_stats(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    from ..tools.build_log import build_stats, render_stats
    stats = build_stats(workspace_path(args.workspace))
    return stats, render_stats(stats)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("session", help="record and manage conversation sessions (sessions/<id>.jsonl)")
    ss = p.add_subparsers(dest="session_command", metavar="ACTION", required=True)

    a = ss.add_parser("append", help="append one turn (durable when the command returns)")
    a.add_argument("session_id", metavar="ID")
    a.add_argument("--role", required=True, choices=ROLES)
    a.add_argument("--content", required=True, help="the turn's text ('-' reads stdin)")
    a.add_argument("--timestamp", help="ISO 8601 time of the turn (optional)")
    a.add_argument("--id", help="the turn's id; appending an id already stored is skipped (safe retries)")
    a.add_argument("--tool-call-id", dest="tool_call_id", help="for role tool: the call it answers")
    a.add_argument("--name", help="tool or speaker name")
    a.set_defaults(handler=cmd_append, no_workspace=True)

    i = ss.add_parser("import", help="append turns from a file: JSON array, JSON Lines or OpenAI-style messages")
    i.add_argument("session_id", metavar="ID")
    i.add_argument("file", metavar="FILE", help="'-' reads stdin")
    i.set_defaults(handler=cmd_import, no_workspace=True)

    s = ss.add_parser("show", help="print turns of a session")
    s.add_argument("session_id", metavar="ID")
    s.add_argument("--offset", type=int, default=0, help="first turn (negative: from the end)")
    s.add_argument("--limit", type=int, default=50)
    s.set_defaults(handler=cmd_show, no_workspace=True)

    h = ss.add_parser("history", help="the whole session as JSON, in the shape `ctxnotes context --history` reads")
    h.add_argument("session_id", metavar="ID")
    h.set_defaults(handler=cmd_history, no_workspace=True)

    ls = ss.add_parser("list", help="sessions, most recently updated first")
    ls.add_argument("--limit", type=int, default=100)
    ls.add_argument("--offset", type=int, default=0)
    ls.set_defaults(handler=cmd_list, no_workspace=True)

    d = ss.add_parser("delete", help="delete a session file")
    d.add_argument("session_id", metavar="ID")
    d.set_defaults(handler=cmd_delete, no_workspace=True)

    pr = ss.add_parser("prune", help="delete sessions with no new turn for a while")
    pr.add_argument("--older-than", required=True, metavar="AGE", help="e.g. 30d, 12h, 90m")
    pr.add_argument("--dry-run", action="store_true", help="only list what would be deleted")
    pr.set_defaults(handler=cmd_prune, no_workspace=True)

    st = sub.add_parser("stats", help="build_context statistics from the build log (.index/builds.jsonl)")
    st.set_defaults(handler=cmd_stats, no_workspace=True)
