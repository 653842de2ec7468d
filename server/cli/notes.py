"""``ctxnotes note ...``, ``ctxnotes reindex`` and ``ctxnotes doctor``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from notes_store import NOTE_TYPES
from notes_store.notes import SORTS

from . import CommandError


def _content_arg(args: argparse.Namespace) -> str | None:
    """--content TEXT, or --content-file PATH ('-' for stdin)."""
    if getattr(args, "content_file", None):
        if args.content is not None:
            raise CommandError("give --content or --content-file, not both")
        try:
            if args.content_file == "-":
                return sys.stdin.read()
            with open(args.content_file, encoding="utf-8") as fh:
                return fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {args.content_file}: {exc}") from exc
    content: str | None = args.content
    return content


def _tags_arg(values: list[str] | None) -> list[str] | None:
    """--tag may repeat and may hold comma-separated tags."""
    if values is None:
        return None
    return [t.strip() for v in values for t in v.split(",") if t.strip()]


def _note_line(n: dict[str, Any]) -> str:
    tags = f"  [{', '.join(n['tags'])}]" if n.get("tags") else ""
    return f"{n['id']}  {n['type']:<11} {n['updated_at']}  {n['title']}{tags}"


def _note_text(n: dict[str, Any]) -> str:
    head = [f"id:       {n['id']}", f"title:    {n['title']}", f"type:     {n['type']}",
            f"tags:     {', '.join(n['tags']) or '-'}", f"created:  {n['created_at']}",
            f"updated:  {n['updated_at']}", f"file:     {n['path']}"]
    if "content" in n:
        head += ["", n["content"]]
    return "\n".join(head)


def cmd_create(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    content = _content_arg(args)
    note = ws.notes.create(args.title, content or "", note_type=args.type, tags=_tags_arg(args.tag) or [],
                           folder=args.folder, name_from_title=args.name_from_title)
    data = note.to_dict()
    return data, f"created {note.id}\n{note.path}"


def cmd_read(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    data = ws.notes.read(args.note_id).to_dict()
    links = ws.notes.links(data["id"])
    data["links"] = links
    text = _note_text(data)
    extra = [f"links to: {', '.join(links['links_to'])}" if links["links_to"] else "",
             f"linked from: {', '.join(links['linked_from'])}" if links["linked_from"] else ""]
    if any(extra):
        head, sep, rest = text.partition("\n\n")
        text = head + "".join(f"\n{line}" for line in extra if line) + sep + rest
    return data, text


def cmd_links(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    data = ws.notes.links(args.note_id)
    lines = [f"{data['id']} links to {data['links_to_total']} note(s):"] + [f"  {i}" for i in data["links_to"]]
    lines += [f"linked from {data['linked_from_total']} note(s):"] + [f"  {i}" for i in data["linked_from"]]
    if data["unresolved"]:
        lines += ["unresolved links:"] + [f"  {u['link']} ({u['reason']})" for u in data["unresolved"]]
    return data, "\n".join(lines)


def cmd_update(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    note = ws.notes.update(args.note_id, title=args.title, content=_content_arg(args), note_type=args.type,
                           tags=_tags_arg(args.tag) if not args.clear_tags else [], expected_revision=args.expect)
    return note.to_dict(), f"updated {note.id} ({note.updated_at})"


def cmd_delete(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    result = ws.notes.delete(args.note_id, expected_revision=args.expect)
    return result, f"deleted {result['id']}" + (f" ({result['title']})" if result.get("title") else "")


def cmd_search(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    result = ws.notes.search(args.query, limit=args.limit, offset=args.offset, note_type=args.type,
                             tags=_tags_arg(args.tag), updated_after=args.updated_after,
                             updated_before=args.updated_before, links_to=args.links_to)
    data = result.to_dict()
    count = f"at least {data['total']}" if data["total_is_lower_bound"] else str(data["total"])
    lines = [f"{count} hit(s) for {args.query!r}" + (
        f" ({data['total_all_words']} with every word, listed first)" if data["matched"] == "any" else "")]
    for i, hit in enumerate(data["hits"], start=args.offset + 1):
        lines.append(f"{i:>3}. {hit['score']:7.3f}  {_note_line(hit)}")
        lines.append(f"       {hit['snippet']}")
    return data, "\n".join(lines)


def cmd_list(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    result = ws.notes.list(note_type=args.type, tags=_tags_arg(args.tag), limit=args.limit, offset=args.offset,
                           sort=args.sort)
    data = result.to_dict()
    shown = len(data["notes"])
    lines = [f"{data['total']} note(s)" + (f", showing {args.offset + 1}-{args.offset + shown}" if shown else "")]
    lines += [_note_line(n) for n in data["notes"]]
    return data, "\n".join(lines)


def cmd_summary(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    data = ws.notes.summary().to_dict()
    lines = [f"{data['total']} note(s)", "by type: " + ", ".join(f"{t} {c}" for t, c in data["by_type"].items() if c)]
    if data["top_tags"]:
        lines.append("top tags: " + ", ".join(f"{t['tag']} ({t['count']})" for t in data["top_tags"]))
    if data["recent"]:
        lines.append("recently updated:")
        lines += ["  " + _note_line(n) for n in data["recent"]]
    if data["unreadable"]:
        lines.append(f"unreadable files ({data['unreadable_total']}):")
        lines += [f"  {p['path']}: {p['reason']}" for p in data["unreadable"]]
    if data.get("links", {}).get("links"):
        stats = data["links"]
        lines.append(f"links: {stats['links']}, {stats['resolved']} resolved, {stats['unresolved']} unresolved")
        lines += [f"  {u['source']}: {u['link']} ({u['reason']})" for u in data["unresolved_links"]]
    return data, "\n".join(lines)


def cmd_reindex(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    count = ws.rebuild()
    return {"indexed": count, "unreadable": len(ws.problems)}, f"reindexed {count} file(s)" + (
        f"; {len(ws.problems)} unreadable (see 'ctxnotes doctor')" if ws.problems else "")


def cmd_doctor(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    from notes_store.doctor import diagnose
    report = diagnose(ws)
    return report.to_dict(), "\n".join(report.lines())


def _expect(p: argparse.ArgumentParser) -> None:
    p.add_argument("--expect", metavar="REV", default=None,
                   help="only if the note is still at this revision (from read/--json); else exit 2 and change "
                        "nothing. Without it the last writer wins")


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--type", choices=NOTE_TYPES, help="only notes of this type")
    p.add_argument("--tag", action="append", metavar="TAG", help="only notes with this tag (repeatable)")
    p.add_argument("--limit", type=int, default=10, help="how many (default 10)")
    p.add_argument("--offset", type=int, default=0, help="skip this many (paging)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    note = sub.add_parser("note", help="create, read, update, delete, search, list and summarise notes")
    nsub = note.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = nsub.add_parser("create", help="create a note")
    p.add_argument("title")
    p.add_argument("--content", "-c", help="the note's Markdown content")
    p.add_argument("--content-file", "-f", metavar="PATH", help="read content from a file ('-' for stdin)")
    p.add_argument("--type", "-t", default="general", choices=NOTE_TYPES)
    p.add_argument("--tag", action="append", metavar="TAG", help="a tag (repeatable, or comma-separated)")
    p.add_argument("--folder", metavar="PATH", help="a folder under notes/ to put it in (made if missing)")
    p.add_argument("--name-from-title", action="store_true", help="name the file from the title, as editors do")
    p.set_defaults(handler=cmd_create)

    p = nsub.add_parser("read", help="print a note with its content")
    p.add_argument("note_id")
    p.set_defaults(handler=cmd_read)

    p = nsub.add_parser("update", help="change a note's title, content, type or tags")
    p.add_argument("note_id")
    p.add_argument("--title")
    p.add_argument("--content", "-c", help="new content ('' empties it)")
    p.add_argument("--content-file", "-f", metavar="PATH")
    p.add_argument("--type", "-t", choices=NOTE_TYPES)
    p.add_argument("--tag", action="append", metavar="TAG", help="replace the tags (repeatable)")
    p.add_argument("--clear-tags", action="store_true", help="remove all tags")
    _expect(p)
    p.set_defaults(handler=cmd_update)

    p = nsub.add_parser("delete", help="delete a note")
    p.add_argument("note_id")
    _expect(p)
    p.set_defaults(handler=cmd_delete)

    p = nsub.add_parser("search", help="full-text search (English and Chinese; \"quoted phrases\")")
    p.add_argument("query")
    _filters(p)
    p.add_argument("--updated-after", metavar="ISO", help="only notes updated at or after this time")
    p.add_argument("--updated-before", metavar="ISO", help="only notes updated at or before this time")
    p.add_argument("--links-to", metavar="NOTE", help="only notes that link to this note (id or name)")
    p.set_defaults(handler=cmd_search)

    p = nsub.add_parser("links", help="what a note links to, what links to it, its unresolved links")
    p.add_argument("note_id")
    p.set_defaults(handler=cmd_links)

    p = nsub.add_parser("list", help="list notes without content")
    _filters(p)
    p.add_argument("--sort", default="updated_desc", choices=SORTS)
    p.set_defaults(handler=cmd_list)

    p = nsub.add_parser("summary", help="counts by type, top tags, recent notes, unreadable files")
    p.set_defaults(handler=cmd_summary)

    p = sub.add_parser("reindex", help="rebuild the search index from the files")
    p.set_defaults(handler=cmd_reindex)

    p = sub.add_parser("doctor", help="check the workspace: unreadable files, index health, counts")
    p.set_defaults(handler=cmd_doctor)
