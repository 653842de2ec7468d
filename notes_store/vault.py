"""Notes as a vault: any Markdown file under ``notes/``, at any depth, with or without our front matter.

* ``note_entry``: a file's index entry and catalogue row. Its id is its path under ``notes/`` without
  ``.md``. A file we wrote (front matter with our ``id``) is read as before; any other page by the rules
  of ``files.foreign`` (title from ``title``, the first ``# heading`` or the file name; tags from ``tags``;
  times from the front matter, else the file's mtime). Both get their links and aliases in the row (for the
  link index) and their file name, folders, aliases and ``description`` in the searched text.
* ``foreign_update``: the new bytes of a page we did not write, changing only what the caller changed.
* ``NoteLinks``: the link index of a workspace's notes, kept beside the catalogue: built from the rows'
  ``links`` and ``aliases`` on first use (no file is read), then stepped by the catalogue's journal of
  changed rows, rebuilt when that does not reach back (a ``git pull`` of hundreds of files, a rebuild).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import WouldBlock
from .files.foreign import DELETE, edit_front_matter, page_from_text, replace_body, set_first_heading
from .files.front_matter import decode
from .files.front_matter import BadFile, Document, clipped_reason, content_from_body
from .files.items import file_tags, revision_of
from .files.note_paths import note_id_problem
from .index.backend import IndexEntry
from .index.catalogue import Catalogue, Entry
from .links import EMBED, MARKDOWN, WIKI, Link, LinkIndex, extract_links
from .sync.git_conflicts import has_conflict_markers, parse_conflicted
from .timestamps import NotATime, iso_utc, to_epoch

_KIND_CODES = {WIKI: "w", EMBED: "e", MARKDOWN: "m"}
_CODE_KINDS = {v: k for k, v in _KIND_CODES.items()}
MAX_ROW_LINKS = 500          # distinct links kept in a catalogue row
MAX_SEARCH_EXTRA_CHARS = 8000
QUICK_BUILD_MAX_ROWS = 2000  # catalogue rows the link index is built from on a server's event loop (a few ms)


def encode_links(links: Iterable[Link]) -> list[list[str]]:
    """Links as catalogue JSON: ``[[kind code, target], ...]``, distinct, in order, at most ``MAX_ROW_LINKS``."""
    out: dict[tuple[str, str], None] = {}
    for link in links:
        out.setdefault((_KIND_CODES[link.kind], link.target), None)
        if len(out) >= MAX_ROW_LINKS:
            break
    return [[code, target] for code, target in out]


def decode_links(value: Any) -> list[Link]:
    if not isinstance(value, list):
        return []
    out = []
    for item in value[:MAX_ROW_LINKS]:
        if isinstance(item, list) and len(item) == 2 and item[0] in _CODE_KINDS and isinstance(item[1], str):
            out.append(Link(item[1], _CODE_KINDS[item[0]]))
    return out


def _search_extra(note_id: str, title: str, aliases: Sequence[str], description: str) -> str:
    """What a note is found by beyond its title, tags and body: its file name and folders, aliases, description."""
    parts = []
    name = note_id.rsplit("/", 1)[-1]
    if name != title:
        parts.append(name)
    if "/" in note_id:
        parts.append(note_id.rsplit("/", 1)[0].replace("/", " "))
    parts.extend(aliases)
    if description:
        parts.append(description)
    return "\n".join(parts)[:MAX_SEARCH_EXTRA_CHARS]


def _time_text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        try:
            to_epoch(value)
            return value.strip()
        except NotATime:
            return None
    return None


def is_ours(meta: dict[str, Any], note_id: str) -> bool:
    """A file we wrote: front matter whose ``id`` is the note's id or its file name (flat notes)."""
    value = meta.get("id")
    return value is not None and str(value) in (note_id, note_id.rsplit("/", 1)[-1])


def note_entry(note_id: str, key: str, path: Path, raw: bytes, mtime: float | None,
               note_types: Sequence[str]) -> IndexEntry:
    """The index entry of the note file at ``path`` (id ``note_id``, catalogue key ``key``); BadFile when its
    bytes are not text or its name cannot be an id. ``mtime`` dates a file without times (else a ``stat``)."""
    problem = note_id_problem(note_id)
    if problem is not None:
        raise BadFile(f"its path cannot be a note id ({problem}); rename the file")

    def file_mtime() -> float:
        return mtime if mtime is not None else os.lstat(path).st_mtime

    conflict = has_conflict_markers(raw)
    try:
        doc = parse_conflicted(raw)[0]
        ours = is_ours(doc.meta, note_id)
    except BadFile:
        ours = False
    row: dict[str, Any]
    if ours:
        meta = doc.meta
        title = meta.get("title")
        if not isinstance(title, str) or not title.strip():
            first = doc.body.split("\n", 1)[0]
            title = first[2:].strip() if first.startswith("# ") and first[2:].strip() else note_id.rsplit("/", 1)[-1]
        note_type = meta.get("type", "general")
        if note_type not in note_types:
            raise BadFile(f"type {note_type!r} is not one of {', '.join(note_types)}")
        tags = file_tags(meta.get("tags"))
        created_at = str(meta.get("created_at") or iso_utc(file_mtime()))
        updated_at = str(meta.get("updated_at") or created_at)
        try:
            updated = to_epoch(updated_at)
        except NotATime:
            updated = file_mtime()
        content = content_from_body(doc.body, title)
        aliases: list[str] = []
        description = ""
        row = {"id": note_id, "title": title.strip(), "type": note_type, "tags": tags,
               "created_at": created_at, "updated_at": updated_at, "revision": revision_of(raw)}
    else:
        page = page_from_text(decode(raw), note_id.rsplit("/", 1)[-1])
        meta = page.meta
        title = page.title
        note_type = meta.get("type") if meta.get("type") in note_types else "general"
        tags = page.tags
        created_text = next((t for k in ("created_at", "created", "date") if (t := _time_text(meta.get(k)))), None)
        updated_text = next((t for k in ("updated_at", "updated", "modified", "lastmod")
                             if (t := _time_text(meta.get(k)))), None)
        stamp = None if (created_text and updated_text) else file_mtime()
        created_at = created_text or iso_utc(stamp if stamp is not None else 0.0)
        updated_at = updated_text or iso_utc(stamp if stamp is not None else 0.0)
        updated = to_epoch(updated_at)
        content = page.body
        aliases = page.aliases
        description = page.description
        row = {"id": note_id, "title": title, "type": note_type, "tags": tags, "created_at": created_at,
               "updated_at": updated_at, "revision": revision_of(raw), "foreign": page.title_from}
        if aliases:
            row["aliases"] = aliases
        if page.problems:  # front matter that could not be read: the page is, its keys are ignored
            row["front_matter_problem"] = clipped_reason(page.problems[0])
    links = extract_links(content)
    if links:
        row["links"] = encode_links(links)
    if conflict:
        row["conflict"] = True
    return IndexEntry(key=key, kind="note", type=str(note_type), tags=tags, updated=updated, title=title.strip(),
                      text=content, meta=row,
                      extra_text="" if ours else _search_extra(note_id, title.strip(), aliases, description))


def lenient_document(raw: bytes) -> Document:
    """A note file's front matter and body: ours strictly (conflict markers allowed), any other text page by
    the rules of ``files.foreign`` (no front matter, or front matter that is not ours, is fine)."""
    try:
        return parse_conflicted(raw)[0]
    except BadFile:
        page = page_from_text(decode(raw), "page")
        return Document(meta=page.meta, body=page.body)


# -- updating a page we did not write --------------------------------------------------------------
def foreign_update(raw: bytes, title_from: str, *, title: str | None, content: str | None,
                   note_type: str | None, tags: Sequence[str] | None) -> bytes:
    """The bytes of a page after the given changes (None: unchanged): the title where it came from (the
    ``title`` key, the first heading, or a new ``title`` key when it came from the file name), the body as
    given (in the file's line endings), ``type`` and ``tags`` keys; nothing else of the file changes."""
    out = raw
    keys: dict[str, Any] = {}
    if note_type is not None:
        keys["type"] = note_type
    if tags is not None:
        keys["tags"] = list(tags) if tags else DELETE
    if content is not None:
        out = replace_body(out, content)
    if title is not None:
        if title_from == "heading":
            changed = set_first_heading(out, title)
            if changed is None:   # the new body has no heading: the title goes to the front matter
                keys["title"] = title
            else:
                out = changed
        else:
            keys["title"] = title
    if keys:
        current = page_from_text(decode(out), "x").meta
        keys = {k: v for k, v in keys.items() if not (v is DELETE and k not in current)}
        if keys:
            out = edit_front_matter(out, keys)
    return out


# -- the link index beside the catalogue ------------------------------------------------------------
class NoteLinks:
    """The link index of one workspace's notes, in step with its catalogue (see the module docstring)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self._lock = threading.Lock()
        self._index: LinkIndex | None = None
        self._catalogue: Catalogue | None = None
        self._version = -1

    def index(self) -> LinkIndex:
        """The link index as of the catalogue now."""
        catalogue: Catalogue = self.ws.catalogue
        version = catalogue.kind_version("note")
        with self._lock:
            index = self._index
            if index is not None and self._catalogue is catalogue and self._version == version:
                return index
            changed = (catalogue._changed_since(self._version)
                       if index is not None and self._catalogue is catalogue else None)
            if index is None or changed is None:
                if getattr(self.ws, "reading_quickly", False) and len(catalogue) > QUICK_BUILD_MAX_ROWS:
                    # A server's event loop: a worker thread builds it from 100k rows (about a second).
                    raise WouldBlock("the link index is built from every note first")
                index = LinkIndex()
                for row in catalogue.entries("note"):
                    _apply(index, row)
            else:
                for key, _before in changed.items():
                    if not key.startswith("notes/"):
                        continue
                    entry = catalogue.get(key)
                    if entry is None or entry.kind != "note":
                        index.remove(key[len("notes/"):-3])
                    else:
                        _apply(index, entry)
            self._index, self._catalogue, self._version = index, catalogue, version
            return index


def _apply(index: LinkIndex, entry: Entry) -> None:
    fields = entry.fields()
    aliases = fields.get("aliases") or []
    index.update(str(fields.get("id") or entry.id), decode_links(fields.get("links")),
                 [a for a in aliases if isinstance(a, str)])
