"""``ctxnotes memory add|search|read|list|update|forget|consolidate|summary``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from notes_store.memory.model import MEMORY_SORTS, MEMORY_TYPES, STRATEGIES

from . import CommandError

PREVIEW_CHARS = 100


def _content_arg(value: str | None, content_file: str | None) -> str | None:
    """Positional/--content text, or --content-file PATH ('-' for stdin)."""
    if content_file:
        if value is not None:
            raise CommandError("give the content as text or with --content-file, not both")
        try:
            if content_file == "-":
                return sys.stdin.read()
            with open(content_file, encoding="utf-8") as fh:
                return fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {content_file}: {exc}") from exc
    return value


def _tags_arg(values: list[str] | None) -> list[str] | None:
    """--tag may repeat and may hold comma-separated tags."""
    if values is None:
        return None
    return [t.strip() for v in values for t in v.split(",") if t.strip()]


def _preview(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat[:PREVIEW_CHARS] + ("…" if len(flat) > PREVIEW_CHARS else "")


def _line(m: dict[str, Any]) -> str:
    tags = f"  [{', '.join(m['tags'])}]" if m.get("tags") else ""
    return f"{m['id']}  {m['memory_type']:<8} imp {m['importance']:.2f}  {_preview(m.get('content'))}{tags}"


def _full(m: dict[str, Any]) -> str:
    lines = [f"id:            {m['id']}", f"type:          {m['memory_type']}",
             f"importance:    {m['importance']}", f"tags:          {', '.join(m['tags']) or '-'}",
             f"created:       {m['created_at']}",
             f"last accessed: {m['last_accessed_at']} ({m['access_count']} access(es))"]
    if m.get("expires_at"):
        lines.append(f"expires:       {m['expires_at']}")
    if m.get("source"):
        lines.append(f"source:        {m['source']}")
    lines.append(f"file:          {m['path']}")
    if m.get("content") is not None:
        lines += ["", m["content"]]
    return "\n".join(lines)


def cmd_add(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    content = _content_arg(args.content, args.content_file)
    if content is None:
        raise CommandError("give the text to remember, e.g. ctxnotes memory add \"the user prefers tabs\"")
    memory = ws.memory.add(content, memory_type=args.type, importance=args.importance,
                           tags=_tags_arg(args.tag) or [], source=args.source, ttl_minutes=args.ttl_minutes)
    text = f"added {memory.id} ({memory.memory_type}, importance {memory.importance}"
    text += f", expires {memory.expires_at})" if memory.expires_at else ")"
    if memory.evicted:
        text += f"\nworking memory full: evicted {', '.join(memory.evicted)}"
    return memory.to_dict(), text


def cmd_search(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    result = ws.memory.search(args.query, memory_type=args.type, min_importance=args.min_importance,
                              limit=args.limit)
    data = result.to_dict()
    note = " (no memory has every word; showing memories with any)" if data["matched"] == "any" else ""
    lines = [f"{len(data['hits'])} of {data['candidates']} matching memory(ies) for {args.query!r}{note}"]
    for i, hit in enumerate(data["hits"], start=1):
        p = hit["score_parts"]
        lines.append(f"{i:>3}. {hit['score']:.3f}  {_line(hit)}")
        lines.append(f"       relevance {p['relevance']:.2f}  recency {p['recency']:.2f}  "
                     f"importance {p['importance']:.2f}")
    return data, "\n".join(lines)


def cmd_read(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    data = ws.memory.read(args.memory_id).to_dict()
    return data, _full(data)


def cmd_list(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    result = ws.memory.list(memory_type=args.type, limit=args.limit, offset=args.offset, sort=args.sort)
    data = result.to_dict()
    shown = len(data["memories"])
    lines = [f"{data['total']} memory(ies)" + (f", showing {args.offset + 1}-{args.offset + shown}" if shown else "")]
    lines += [_line(m) for m in data["memories"]]
    return data, "\n".join(lines)


def cmd_update(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    content = _content_arg(args.content, args.content_file)
    tags = [] if args.clear_tags else _tags_arg(args.tag)
    memory = ws.memory.update(args.memory_id, content=content, importance=args.importance, tags=tags,
                              ttl_minutes=args.ttl_minutes, expected_revision=args.expect)
    return memory.to_dict(), f"updated {memory.id}"


def cmd_forget(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    if args.memory_id is None and args.strategy is None:
        raise CommandError("give a memory id, or --strategy " + "|".join(STRATEGIES))
    result = ws.memory.forget(args.memory_id, strategy=args.strategy, threshold=args.threshold,
                              max_age_days=args.max_age_days, capacity=args.capacity, dry_run=args.dry_run,
                              memory_type=args.type, expected_revision=args.expect)
    data = result.to_dict()
    verb = "would forget" if data["dry_run"] else "forgot"
    lines = [f"{verb} {data['count']} memory(ies)" + (f" ({data['strategy']})" if data["strategy"] else "")]
    lines += ["  " + _line(m) if m.get("memory_type") else f"  {m['id']} (unreadable file)" for m in data["removed"]]
    return data, "\n".join(lines)


def cmd_consolidate(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    result = ws.memory.consolidate(from_type=args.from_type, to_type=args.to_type,
                                   importance_threshold=args.threshold, min_access_count=args.min_access_count,
                                   dry_run=args.dry_run)
    data = result.to_dict()
    verb = "would move" if data["dry_run"] else "moved"
    lines = [f"{verb} {data['count']} memory(ies) {data['from_type']} -> {data['to_type']} ({data['criterion']})"]
    lines += [f"  {m['id']}  imp {m['importance_before']:.2f} -> {m['importance']:.2f}  {_preview(m.get('content'))}"
              for m in data["moved"]]
    return data, "\n".join(lines)


def cmd_summary(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    data = ws.memory.summary().to_dict()
    lines = [f"{data['total']} memory(ies)"]
    for t, s in data["by_type"].items():
        mean = f", mean importance {s['mean_importance']:.2f}" if s["mean_importance"] is not None else ""
        lines.append(f"  {t:<9} {s['count']}{mean}")
    if data["oldest"]:
        lines.append(f"oldest: {data['oldest']['id']} ({data['oldest']['created_at']})")
        lines.append(f"newest: {data['newest']['id']} ({data['newest']['created_at']})")
    if data["expired_unpurged"]:
        lines.append(f"expired working memories not yet purged: {data['expired_unpurged']}")
    if data["unreadable"]:
        lines.append(f"unreadable files ({data['unreadable_total']}):")
        lines += [f"  {p['path']}: {p['reason']}" for p in data["unreadable"]]
    return data, "\n".join(lines)


def _fraction(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (expected 0.0 to 1.0)") from None


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mem = sub.add_parser("memory", help="agent memory: add, search, read, list, update, forget, consolidate, summary")
    msub = mem.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = msub.add_parser("add", help="remember something")
    p.add_argument("content", nargs="?", help="the text to remember")
    p.add_argument("--content-file", "-f", metavar="PATH", help="read the text from a file ('-' for stdin)")
    p.add_argument("--type", "-t", default="working", choices=MEMORY_TYPES,
                   help="working (expires), episodic (events) or semantic (facts); default working")
    p.add_argument("--importance", "-i", type=_fraction, default=0.5, help="0.0 to 1.0 (default 0.5)")
    p.add_argument("--tag", action="append", metavar="TAG", help="a tag (repeatable, or comma-separated)")
    p.add_argument("--source", metavar="ID", help="where it came from, e.g. a session or note id")
    p.add_argument("--ttl-minutes", type=float, metavar="MIN", help="working memory lifetime (default 120)")
    p.set_defaults(handler=cmd_add)

    p = msub.add_parser("search", help="memories ranked by relevance, recency and importance")
    p.add_argument("query")
    p.add_argument("--type", "-t", action="append", choices=MEMORY_TYPES, help="only this type (repeatable)")
    p.add_argument("--min-importance", type=_fraction, default=0.0, help="skip memories below this importance")
    p.add_argument("--limit", type=int, default=5, help="how many (default 5)")
    p.set_defaults(handler=cmd_search)

    p = msub.add_parser("read", help="print one memory")
    p.add_argument("memory_id")
    p.set_defaults(handler=cmd_read)

    p = msub.add_parser("list", help="list memories")
    p.add_argument("--type", "-t", action="append", choices=MEMORY_TYPES, help="only this type (repeatable)")
    p.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    p.add_argument("--offset", type=int, default=0, help="skip this many (paging)")
    p.add_argument("--sort", default="created_desc", choices=MEMORY_SORTS)
    p.set_defaults(handler=cmd_list)

    p = msub.add_parser("update", help="change a memory's content, importance, tags or expiry")
    p.add_argument("memory_id")
    p.add_argument("--content", "-c", help="new content")
    p.add_argument("--content-file", "-f", metavar="PATH", help="read new content from a file ('-' for stdin)")
    p.add_argument("--importance", "-i", type=_fraction)
    p.add_argument("--tag", action="append", metavar="TAG", help="replace the tags (repeatable)")
    p.add_argument("--clear-tags", action="store_true", help="remove all tags")
    p.add_argument("--ttl-minutes", type=float, metavar="MIN", help="working memory: expire this long from now")
    p.add_argument("--expect", metavar="REV", default=None,
                   help="only if the memory is still at this revision; else exit 2 and change nothing")
    p.set_defaults(handler=cmd_update)

    p = msub.add_parser("forget", help="remove a memory by id, or by a strategy")
    p.add_argument("memory_id", nargs="?")
    p.add_argument("--strategy", "-s", choices=STRATEGIES)
    p.add_argument("--threshold", type=_fraction, default=0.1, help="importance_based: below this (default 0.1)")
    p.add_argument("--max-age-days", type=float, default=30, help="time_based: untouched this long (default 30)")
    p.add_argument("--capacity", type=int, help="capacity_based: keep the best N per type")
    p.add_argument("--type", "-t", action="append", choices=MEMORY_TYPES, help="strategy: only this type (repeatable)")
    p.add_argument("--dry-run", "-n", action="store_true", help="show what would be forgotten, change nothing")
    p.add_argument("--expect", metavar="REV", default=None,
                   help="only if the memory is still at this revision; else exit 2 and change nothing")
    p.set_defaults(handler=cmd_forget)

    p = msub.add_parser("consolidate", help="promote working -> episodic (important) or episodic -> semantic "
                                            "(often accessed)")
    p.add_argument("--from", dest="from_type", default="working", choices=MEMORY_TYPES)
    p.add_argument("--to", dest="to_type", default="episodic", choices=MEMORY_TYPES)
    p.add_argument("--threshold", type=_fraction, default=0.7,
                   help="from working: minimum importance (default 0.7)")
    p.add_argument("--min-access-count", type=int, help="from episodic: minimum accesses (default 3)")
    p.add_argument("--dry-run", "-n", action="store_true", help="show what would move, change nothing")
    p.set_defaults(handler=cmd_consolidate)

    p = msub.add_parser("summary", help="counts and mean importance by type, oldest/newest, expired")
    p.set_defaults(handler=cmd_summary)
