"""Notes: the seven actions (create, read, update, delete, search, list, summary).

A note is ``<workspace>/notes/<id>.md``: YAML front matter (id, title, type,
tags, created_at, updated_at, plus any keys a person adds) and a Markdown body
``# <title>`` + content.
"""

from __future__ import annotations

import builtins
import copy
import functools
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from .analysis.analyzer import QueryUnit, content_units, query_units, without_clitics
from .index.completion import NoteCompletions
from .files.front_matter import (MAX_LISTED_UNREADABLE, BadFile, Document, content_from_body, dump_document, ordered_meta,
                       titled_body)
from .errors import InvalidInput, NotFound
from .sync.git_conflicts import CONFLICT_REASON
from .index.hit_bodies import HitBodies
from .index import Filters, IndexEntry
from .files.items import (ItemFiles, LoadedItem, Page, StagedItem, check_revision, collecting_warnings, revision_of)
from .files.safe_read import read_regular_file
from .index.snippets import make_snippet, snippet_query
from .validation import (check_choice, check_content, check_paging, check_query, check_query_terms, check_tags,
                         check_title, iso_now, parse_time)
from .workspace import Entry, Workspace
from .index.write_batch import Analysis, analyse
from .vault import NoteLinks, foreign_update, lenient_document, note_entry
from .files.foreign import split_text
from .files.note_paths import filename_from_title, join_id, safe_note_path

NOTE_TYPES = ("task_state", "conclusion", "blocker", "action", "reference", "general")
NOTE_KEYS = ("id", "title", "type", "tags", "created_at", "updated_at")
SORTS = ("updated_desc", "updated_asc", "created_desc", "created_asc", "title")
MAX_LINKS_SHOWN = 50        # ids per direction in ``links`` (note_read shows them)
MAX_LINKS_TO_RANKED = 1000  # matches a ``links_to`` search filters (the engine's own bound on totals)
MAX_UNRESOLVED_LISTED = 50  # unresolved links in a summary (the rest are counted)


@dataclass
class Note:
    """A note; ``content`` is None in listings and search hits."""

    id: str
    title: str
    type: str
    tags: list[str]
    created_at: str
    updated_at: str
    path: str
    content: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Short hash of the file's bytes: pass it back as expected_revision to update/delete only
    # if nobody changed the note since (see item_files.revision_of).
    revision: str = ""
    warnings: list[str] = field(default_factory=list)  # e.g. saved, but the Git commit failed

    def to_dict(self, with_content: bool = True) -> dict[str, Any]:
        # Built by hand, not dataclasses.asdict: this runs for every hit and listing row,
        # and asdict deep-copies recursively (a third of a search's serialisation time).
        data: dict[str, Any] = {"id": self.id, "title": self.title, "type": self.type, "tags": list(self.tags),
                                "created_at": self.created_at, "updated_at": self.updated_at, "path": self.path,
                                "revision": self.revision}
        if with_content and self.content is not None:
            data["content"] = self.content
        if self.extra:
            data["extra"] = copy.deepcopy(self.extra)
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


@dataclass
class SearchHit:
    note: Note
    score: float
    snippet: str

    def to_dict(self) -> dict[str, Any]:
        return {**self.note.to_dict(with_content=False), "score": round(self.score, 4), "snippet": self.snippet}


@dataclass
class SearchResult:
    query: str
    hits: list[SearchHit]
    total: int            # notes you can page through
    total_all_words: int  # of those, notes that contain every word / phrase of the query
    limit: int
    offset: int
    matched: str  # "all": every hit has every word; "any": notes with some of the words follow
    # True when ``total`` stopped counting at the engine's bound (1,000 matches): at least that many match.
    total_is_lower_bound: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "total": self.total, "total_all_words": self.total_all_words,
                "total_is_lower_bound": self.total_is_lower_bound,
                "limit": self.limit, "offset": self.offset, "matched": self.matched,
                "hits": [h.to_dict() for h in self.hits]}


@dataclass
class NoteList(Page):
    """A page of notes (without content), listed under ``notes``."""

    items_key = "notes"

    def item_dict(self, item: Any) -> dict[str, Any]:
        return dict(item.to_dict(with_content=False))

    @property
    def notes(self) -> list[Note]:
        return self.items


class NoteHeader(NamedTuple):
    """What completion needs of a note."""

    id: str
    title: str
    tags: list[str]


@dataclass
class NoteSummary:
    total: int
    by_type: dict[str, int]
    top_tags: list[dict[str, Any]]
    recent: list[Note]
    unreadable: list[dict[str, str]]    # the first MAX_LISTED_UNREADABLE, by path
    # Notes holding Git merge-conflict markers: [{"id", "path", "readable"}]
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    unreadable_total: int = 0
    links: dict[str, int] = field(default_factory=dict)                  # notes, links, resolved, unresolved
    unresolved_links: list[dict[str, Any]] = field(default_factory=list)  # the first MAX_UNRESOLVED_LISTED
    # Pages read without their front matter (not valid YAML, an anchor, a YAML tag): [{"id", "path", "reason"}]
    front_matter_problems: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "by_type": self.by_type, "top_tags": self.top_tags,
                "recent": [n.to_dict(with_content=False) for n in self.recent], "unreadable": self.unreadable,
                "unreadable_total": self.unreadable_total, "conflicts": self.conflicts, "links": dict(self.links),
                "unresolved_links": list(self.unresolved_links),
                "front_matter_problems": list(self.front_matter_problems)}


class NoteCollection:
    """Turns files in ``notes/`` (at any depth) into index entries; a file's id is its path under ``notes/``."""

    kind = "note"
    folder_name = "notes"
    nested = True   # scans walk sub-folders (see ``sync.folders``)

    def __init__(self) -> None:
        self.folder: Path | None = None   # ``<workspace>/notes``, set by ``bind``

    def bind(self, root: Path) -> None:
        """The workspace this collection reads (before its first scan)."""
        self.folder = Path(root) / self.folder_name

    def note_id(self, path: Path) -> str:
        """The id of the file at ``path``: its path under ``notes/`` without ``.md``."""
        if self.folder is not None:
            try:
                rel = path.relative_to(self.folder).as_posix()
            except ValueError:
                rel = path.name
        else:
            rel = path.name
        return rel[:-3] if rel.endswith(".md") else rel

    def parse(self, path: Path, raw: bytes, doc: Document | None = None,
              mtime: float | None = None) -> IndexEntry:
        """Turn a file's bytes into an entry; ``mtime`` (else a ``stat``) dates a file without timestamps."""
        note_id = self.note_id(path)
        return note_entry(note_id, f"{self.folder_name}/{note_id}.md", path, raw, mtime, NOTE_TYPES)


def _note_from_meta(m: dict[str, Any], path: Path | str, content: str | None = None,
                    extra: dict[str, Any] | None = None, revision: str | None = None) -> Note:
    """A ``Note`` from a catalogue row (``IndexEntry.meta``)."""
    return Note(id=m["id"], title=m["title"], type=m["type"], tags=list(m["tags"]), created_at=m["created_at"],
                updated_at=m["updated_at"], path=str(path), content=content, extra=extra or {},
                revision=revision or m.get("revision") or "")


@functools.lru_cache(maxsize=1024)
def _search_units(query: str) -> tuple[QueryUnit, ...]:
    """A query's content units: a pure function of its text, worked out once for a query asked again (a
    next page, another agent's same question)."""
    return tuple(content_units(query_units(without_clitics(query))))


def _note_from_row(entry: Entry, content: str | None = None, revision: str | None = None) -> Note:
    return _note_from_meta(entry.meta, entry.path_text, content, revision=revision)


class NoteStore:
    """The seven note actions over a ``Workspace``.

    Concurrent writers: ``update`` and ``delete`` take ``expected_revision`` (the ``revision`` of the
    note as the caller read it); when the file changed since, nothing is written and ``Conflict``
    says so with the current revision. Without it the last writer wins.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.ws = workspace
        self.collection: NoteCollection = workspace.collections["note"]  # type: ignore[assignment]
        self.files = ItemFiles(workspace, self.collection, what="note", id_name="note_id", id_prefix="note",
                               find_hint="use note_search or note_list to find existing ids",
                               parse=lenient_document, nested=True)  # conflicted notes and vault pages stay readable
        self._links = NoteLinks(workspace)
        self._counts: tuple[int, dict[str, int], list[tuple[str, int]], list[dict[str, Any]],
                            list[dict[str, Any]]] | None = None
        self._hit_bodies = HitBodies()
        self._completions: NoteCompletions | None = None
        self._completions_lock = threading.Lock()

    # -- helpers ---------------------------------------------------------------
    def _path(self, note_id: str) -> Path:
        return self.files.path(note_id)

    def _to_note(self, item: LoadedItem) -> Note:
        return _note_from_meta(item.entry.meta, item.path, item.entry.text, _extra(item.front), item.revision)

    def _write(self, meta: dict[str, Any], data: bytes) -> Note:
        """Write under the lock the caller holds (temp file, fsync, rename, folder fsync, register)."""
        return self._commit(self._stage(meta, data))

    def _stage(self, meta: dict[str, Any], data: bytes | str) -> tuple[dict[str, Any], StagedItem]:
        """The note's file written and fsynced to a temp file: no lock needed (``_commit`` follows under it).
        ``meta``: the front matter as written, with the note's ``id``; ``data``: the file's bytes, or the
        content of a note of ours (written as ``meta`` plus a ``# title`` body)."""
        if isinstance(data, str):
            data = dump_document(meta, titled_body(meta["title"], data))
        return meta, self.files.stage(meta["id"], data)

    def _commit(self, staged: tuple[dict[str, Any], StagedItem]) -> Note:
        """Rename a staged note into place durably and register it (caller holds ``writing()``)."""
        return self._register(staged, self.files.rename(staged[1], sync_folder=True))

    def _register(self, staged: tuple[dict[str, Any], StagedItem], st: os.stat_result) -> Note:
        """Register a staged note whose rename is durable (caller holds ``writing()``); the note."""
        meta, item = staged
        with collecting_warnings(self.ws) as warnings:
            entry, revision = self.files.register(item, st)
        note = _note_from_meta(entry.meta, self.files.path(meta["id"]), entry.text, _extra(meta), revision)
        note.warnings = warnings
        return note

    def _grouped(self, staged: tuple[dict[str, Any], StagedItem]) -> tuple[Path, Callable[[], Note]]:
        """For ``Workspace.write_group``: rename now (under the locks), register once the folder is fsynced."""
        st = self.files.rename(staged[1])
        return staged[1].file.path.parent, lambda: self._register(staged, st)

    # -- the seven actions -------------------------------------------------------
    def create(self, title: str, content: str = "", note_type: str = "general",
               tags: Sequence[str] | None = (), *, folder: str | None = None, name_from_title: bool = False) -> Note:
        """Create a note; return it with its new id and revision.

        ``folder`` (a path under ``notes/``, made if missing) places it in a folder; ``name_from_title`` names
        its file from the title as editors do (``Plan Q1.md``; `` 1``, `` 2``... when taken) instead of a
        generated id. Either way the file lands inside ``notes/`` or nowhere (InvalidInput says why).
        """
        title = check_title(title)
        content = check_content(content, self.ws.max_content_bytes)
        note_type = check_choice(note_type, NOTE_TYPES, "note_type")
        tags = check_tags(list(tags) if isinstance(tags, tuple) else tags)
        if folder is not None and not isinstance(folder, str):
            raise InvalidInput("folder must be a path under notes/ such as 'projects/2026', or left out")
        place = (folder or "").strip().rstrip("/")
        if place:
            join_id(place, "x")  # the folder alone is checked first: its error names it
        if place or name_from_title:
            safe_note_path(self.files.folder, join_id(place, "x"), create_folders=True)

        def fresh_id() -> str:
            if not name_from_title:
                generated = self.files.new_id()
                return join_id(place, generated) if place else generated
            base = filename_from_title(title)
            for n in range(0, 10_000):
                candidate = join_id(place, base if n == 0 else f"{base} {n}")
                if not os.path.lexists(self.files.path(candidate)):
                    return candidate
            raise InvalidInput(f"10,000 notes are already named {base!r} in {place or 'notes/'}: choose another title")

        # The file is written and fsynced before the lock is taken (searches and other writers do not wait
        # for that fsync); under the lock only the rename, the folder fsync and the catalogue update remain.
        now = iso_now(self.ws.clock())
        meta: dict[str, Any] = {"id": fresh_id(), "title": title, "type": note_type, "tags": tags,
                                "created_at": now, "updated_at": now}
        staged = self._stage(meta, dump_document(meta, titled_body(title, content)))
        # Its text is analysed for the index now, before the lock, too: under it the group's leader would
        # analyse every queued writer's text while all of them wait (1 MiB is ~0.1-0.6 s). Registering the
        # staged entry reuses this analysis (``write_batch.analyse``); held until then.
        analysis = analyse(staged[1].entry)

        def apply() -> tuple[Path | None, Callable[[], Note]]:  # under the locks, with other writers' writes
            if os.path.lexists(self._path(meta["id"])):  # taken meanwhile (32 random bits collided): a new id
                meta["id"] = fresh_id()
                return None, lambda: self._write(meta, dump_document(meta, titled_body(title, content)))
            return self._grouped(staged)

        try:
            return self.ws.write_group(apply)
        finally:
            staged[1].discard()
            del analysis

    def read(self, note_id: str) -> Note:
        """The full note, content and revision included (unreadable files raise InvalidInput with the reason)."""
        return self._to_note(self.files.load(note_id))

    def update(self, note_id: str, title: str | None = None, content: str | None = None,
               note_type: str | None = None, tags: Sequence[str] | None = None, *,
               expected_revision: str | None = None) -> Note:
        """Change the given fields (None = unchanged; "" is a real value for content).

        With ``expected_revision``, only if the file is still that revision (else ``Conflict``,
        nothing written); without it, last writer wins.
        """
        if title is not None:
            title = check_title(title)
        if content is not None:
            content = check_content(content, self.ws.max_content_bytes)
        if note_type is not None:
            note_type = check_choice(note_type, NOTE_TYPES, "note_type")
        if tags is not None:
            tags = check_tags(list(tags) if isinstance(tags, tuple) else tags)
        expected = check_revision(expected_revision)

        def plan(item: LoadedItem) -> Note | tuple[dict[str, Any], bytes]:
            """The note unchanged, or the (front matter, bytes) to write over ``item``."""
            self.files.require_revision(item.entry.meta["id"], expected, item.revision)
            current = self._to_note(item)
            title_from = item.entry.meta.get("foreign")
            if title_from:  # a page we did not write: only what the caller changed changes, in place
                if all(new is None or new == old for new, old in ((title, current.title), (content, current.content),
                                                                  (note_type, current.type), (tags, current.tags))):
                    return current
                try:
                    data = foreign_update(item.raw, str(title_from), title=title, content=content,
                                          note_type=note_type, tags=tags)
                except BadFile as exc:
                    raise InvalidInput(f"note {current.id} cannot be changed: {exc}") from None
                return {**lenient_document(data).meta, "id": current.id}, data
            old_meta, old_content = item.front, item.entry.text
            new = {"id": current.id,
                   "title": title if title is not None else current.title,
                   "type": note_type if note_type is not None else current.type,
                   "tags": tags if tags is not None else current.tags,
                   "created_at": current.created_at,
                   "updated_at": current.updated_at}
            new_content = content if content is not None else old_content
            unchanged = (all(new[k] == old_meta.get(k) for k in ("title", "type", "tags"))
                         and new_content == old_content)
            if unchanged:
                return current
            new["updated_at"] = iso_now(self.ws.clock())
            meta = ordered_meta(new, old_meta, NOTE_KEYS)
            return meta, dump_document(meta, titled_body(meta["title"], new_content))

        # Optimistic: read, merge and stage (write + fsync a temp file) before the lock. Under the lock the
        # file must still be the revision the change was made on; if it is not (another writer came first),
        # or anything went wrong before the lock, everything is done again under it, as a locked write would.
        staged = None
        analysis: Analysis | None = None  # kept alive until the staged entry is registered
        try:
            first = self.files.load(note_id)
            planned = plan(first)
            if not isinstance(planned, Note):
                staged = self._stage(*planned)
                analysis = analyse(staged[1].entry)  # before the lock, as create's (held until registered)
        except Exception:
            first = None
        def locked() -> Note:
            planned = plan(self.files.load(note_id))
            return planned if isinstance(planned, Note) else self._write(*planned)

        def apply() -> tuple[Path | None, Callable[[], Note]]:  # under the locks, with other writers' writes
            if staged is not None and first is not None \
                    and self.files.current_revision(first.entry.meta["id"]) == first.revision:
                return self._grouped(staged)
            return None, locked  # after the group's renames are durable, in queue order

        try:
            return self.ws.write_group(apply)
        finally:
            if staged is not None:
                staged[1].discard()
            del analysis

    def delete(self, note_id: str, *, expected_revision: str | None = None) -> dict[str, Any]:
        """Delete a note's file; it disappears from search and list at once.

        Returns ``{"deleted": True, "id", "title", "revision", "warnings"}`` (the revision deleted).
        With ``expected_revision``, only if the file is still that revision (else ``Conflict``);
        without it, last writer wins. An unreadable file can be deleted without it.
        """
        note_id = self.files.check_id(note_id)
        expected = check_revision(expected_revision)
        with self.ws.writing():
            path = self._path(note_id)
            if not os.path.lexists(path):
                raise NotFound(f"no note with id {note_id!r}; nothing was deleted (use note_list to see ids)")
            revision = self.files.current_revision(note_id)
            self.files.require_revision(note_id, expected, revision)
            title = None
            entry = self.ws.catalogue.get(self.files.key(note_id))
            if entry is not None:
                title = entry.meta.get("title")
            with collecting_warnings(self.ws) as warnings:
                self.files.delete(note_id)
        return {"deleted": True, "id": note_id, "title": title, "revision": revision, "warnings": warnings}

    def search(self, query: str, limit: int = 10, offset: int = 0, note_type: str | Sequence[str] | None = None,
               tags: Sequence[str] | None = None, updated_after: str | None = None,
               updated_before: str | None = None, links_to: str | None = None) -> SearchResult:
        """Ranked notes for a query: notes with every word first, then (if too few) notes with some.

        ``links_to``: only notes that link to that note (an id, or a name or alias as a ``[[link]]`` would
        give it); among the engine's first ``MAX_LINKS_TO_RANKED`` matches."""
        query = check_query(query, "give words or a \"quoted phrase\" to search for")
        limit, offset = check_paging(limit, offset)
        sources = self._linking_to(links_to) if links_to is not None else None
        filters = Filters(kind="note", types=_check_types(note_type), tags=check_tags(tags) or None,
                          updated_after=parse_time(updated_after, "updated_after") if updated_after else None,
                          updated_before=parse_time(updated_before, "updated_before") if updated_before else None)
        units = list(_search_units(query))
        check_query_terms(sum(len(u.terms) for u in units))
        want = offset + limit
        asked = want if sources is None else MAX_LINKS_TO_RANKED
        ranked = self.ws.search_ranked(units, filters, asked, match_all=True)
        rows, total, lower_bound = ranked.rows, ranked.total, ranked.total_is_lower_bound
        if sources is not None:
            rows = [(e, sc) for e, sc in rows if e.key in sources]
            total, lower_bound = len(rows), lower_bound and ranked.total > len(ranked.rows)
        total_all = total
        if total < want and (len(units) > 1 or (units and units[0].is_phrase)):
            # Fewer notes have every word than asked for: follow them with notes
            # that have some of the words, best first.
            some = self.ws.search_ranked(units, filters, asked, match_all=False)
            total, lower_bound = some.total, some.total_is_lower_bound
            seen = {entry.key for entry, _ in rows}
            extra = [(entry, score) for entry, score in some.rows if entry.key not in seen]
            if sources is not None:
                extra = [(e, sc) for e, sc in extra if e.key in sources]
                total = len(rows) + len(extra)
                lower_bound = lower_bound and some.total > len(some.rows)
            rows += extra
        matched = "all" if total == total_all else "any"
        terms = snippet_query(frozenset(t for u in units for t in u.terms))

        def cut(body: str) -> str:
            return make_snippet(body, terms)

        hits = []
        for entry, score in rows[offset:offset + limit]:
            snippet, revision = self._hit_bodies.snippet(entry.key, (entry.mtime_ns, entry.size),
                                                         functools.partial(self._read_body, entry), terms.key, cut)
            hits.append(SearchHit(_note_from_row(entry, revision=revision), score, snippet))
        return SearchResult(query=query, hits=hits, total=total, total_all_words=total_all, limit=limit,
                            offset=offset, matched=matched, total_is_lower_bound=lower_bound)

    # -- links ---------------------------------------------------------------------
    def _target_id(self, target: Any, what: str) -> str:
        """The id ``target`` names: an existing id, else what ``[[target]]`` resolves to (name, alias)."""
        if not isinstance(target, str) or not target.strip():
            raise InvalidInput(f"{what} must be a note id or name, e.g. 'projects/Plan' or 'Plan'")
        text = target.strip()
        if text.endswith(".md"):
            text = text[:-3]
        index = self._links.index()
        if text in index:
            return text
        res = index.resolve(text)
        if res.target is not None:
            return res.target
        if res.reason == "ambiguous":
            raise InvalidInput(f"{what} {text!r} names several notes ({', '.join(res.candidates)}): pass one id")
        raise InvalidInput(f"{what} {text!r} is not a note (no id, file name or alias matches); "
                           "use an id from note_search or note_list")

    def _linking_to(self, target: Any) -> set[str]:
        """Catalogue keys of the notes that link to ``target`` (see ``_target_id``)."""
        target_id = self._target_id(target, "links_to")
        return {f"notes/{source}.md" for source in self._links.index().links_to(target_id)}

    def links(self, note_id: str, limit: int = MAX_LINKS_SHOWN) -> dict[str, Any]:
        """What ``note_id`` links to and what links to it (ids, at most ``limit`` each, with totals), and its
        links that resolve to no note. Reads no file: the link index is kept beside the catalogue."""
        note_id = self.files.check_id(note_id)
        self.ws.refresh()
        if self.ws.catalogue.get(self.files.key(note_id)) is None:
            self.files.path(note_id)  # a folder that is a link says so
            raise NotFound(f"no note with id {note_id!r}; use note_search or note_list to find existing ids")
        index = self._links.index()
        out, back = index.links_from(note_id), index.links_to(note_id)
        unresolved = [u.to_dict() for u in index.unresolved(note_id, limit)]
        return {"id": note_id, "links_to": out[:limit], "links_to_total": len(out),
                "linked_from": back[:limit], "linked_from_total": len(back), "unresolved": unresolved}

    def link_stats(self) -> dict[str, int]:
        """Links in all notes: how many, how many resolve to a note, how many do not."""
        self.ws.refresh()
        return self._links.index().stats()

    def _read_body(self, entry: Entry) -> tuple[str, str | None, bool]:
        """(text to cut a snippet from, revision, whether to keep it) of a hit's file as its catalogue row
        knows it; the title if unreadable. ``HitBodies`` reuses it (and the snippets cut from it) while the
        row's stamp is unchanged: no file read per hit."""
        title = str(entry.meta.get("title", ""))
        try:
            raw, st = read_regular_file(entry.path, self.files.max_file_bytes)
        except (OSError, BadFile):
            return title, None, False
        text = raw.decode("utf-8", errors="replace")
        body = split_text(text).body.replace("\r\n", "\n")
        if entry.meta.get("foreign"):
            return body or title, revision_of(raw), (st.st_mtime_ns, st.st_size) == (entry.mtime_ns, entry.size)
        # kept only if the file is still what the row describes (else the next hit reads it again)
        same = (st.st_mtime_ns, st.st_size) == (entry.mtime_ns, entry.size)
        return content_from_body(body, title) or title, revision_of(raw), same

    def list(self, note_type: str | Sequence[str] | None = None, tags: Sequence[str] | None = None,
             limit: int = 10, offset: int = 0, sort: str = "updated_desc") -> NoteList:
        """Notes without content, filtered and sorted, with the total before paging."""
        limit, offset = check_paging(limit, offset, max_limit=1000)
        sort = check_choice(sort, SORTS, "sort")
        types = _check_types(note_type)
        tags = check_tags(tags)
        self.ws.refresh()
        rows = self.ws.sorted_entries("note", _sort_key(sort), sort.removesuffix("_desc").removesuffix("_asc"),
                                      sort.endswith("_desc"))
        if types:
            rows = [r for r in rows if r.meta["type"] in types]
        if tags:
            rows = [r for r in rows if set(tags) <= set(r.meta["tags"])]
        page = rows[offset:offset + limit]
        return NoteList([_note_from_row(r, revision=self._row_revision(r)) for r in page], total=len(rows),
                        limit=limit, offset=offset)

    def headers(self) -> builtins.list[NoteHeader]:
        """Id, title and tags of every note, most recently updated first, from the catalogue: no file is read
        and no ``Note`` is built. Completion uses ``completions`` (this reads every row on each call: 40-400 ms
        at 30k); this is what its answers are checked against (``server.completions.match_notes``)."""
        self.ws.refresh()
        rows = self.ws.sorted_entries("note", _sort_key("updated_desc"), "updated", True)
        return [NoteHeader(r.meta["id"], r.meta["title"], r.meta["tags"]) for r in rows]

    def completions(self) -> NoteCompletions:
        """The completion index of the notes as they are now (after a ``refresh``, as ``headers``): made again
        only when a note row changed since the last one (``Catalogue.kind_version``), reusing what it read
        of the unchanged rows. Completion asks on every keystroke; this reads no row between changes."""
        self.ws.refresh()
        index = self._completions
        if index is not None and index.version == self.ws.catalogue.kind_version("note"):
            return index
        with self._completions_lock:
            # The version is read before the rows: a write in between only makes the next call build again.
            version = self.ws.catalogue.kind_version("note")
            index = self._completions
            if index is None or index.version != version:
                rows = self.ws.sorted_entries("note", _sort_key("updated_desc"), "updated", True)
                index = self._completions = NoteCompletions.make(version, rows, index)
            return index

    def _row_revision(self, entry: Entry) -> str | None:
        """The catalogue's revision; for rows indexed before revisions existed, the file's."""
        revision = entry.meta.get("revision")
        return str(revision) if revision else self.files.current_revision(entry.id)

    def summary(self) -> NoteSummary:
        """Totals by type, top tags, the five most recent notes and unreadable files."""
        self.ws.refresh()
        rows = self.ws.entries("note")
        version = self.ws.catalogue.version
        if self._counts is None or self._counts[0] != version:
            by_type = {t: 0 for t in NOTE_TYPES}
            tag_counts: Counter[str] = Counter()
            for r in rows:
                by_type[r.meta["type"]] = by_type.get(r.meta["type"], 0) + 1
                tag_counts.update(r.meta["tags"])
            conflicted = [{"id": r.id, "path": r.key, "readable": True} for r in rows if r.meta.get("conflict")]
            problems = [{"id": r.id, "path": r.key, "reason": r.meta["front_matter_problem"]}
                        for r in rows if r.meta.get("front_matter_problem")]
            self._counts = (version, by_type, tag_counts.most_common(10), conflicted, problems)
        _version, by_type, top_tags, conflicted, problems = self._counts
        recent = self.ws.sorted_entries("note", _sort_key("updated_desc"), "updated", True)[:5]
        links = self._links.index()
        unreadable = self.files.unreadable()
        # Conflicted notes (readable ones are indexed with a flag; others are unreadable)
        conflicts = sorted(conflicted + [{"id": self.files.id_of_key(p["path"]), "path": p["path"], "readable": False}
                                         for p in unreadable if CONFLICT_REASON in p["reason"]],
                           key=lambda c: str(c["path"]))
        return NoteSummary(total=len(rows), by_type=dict(by_type),
                           top_tags=[{"tag": t, "count": c} for t, c in top_tags],
                           recent=[_note_from_row(r, revision=self._row_revision(r)) for r in recent],
                           unreadable=unreadable[:MAX_LISTED_UNREADABLE],
                           conflicts=conflicts[:MAX_LISTED_UNREADABLE], unreadable_total=len(unreadable),
                           links=links.stats(), front_matter_problems=problems[:MAX_LISTED_UNREADABLE],
                           unresolved_links=[u.to_dict() for u in links.unresolved(limit=MAX_UNRESOLVED_LISTED)])


def _extra(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k not in NOTE_KEYS}


def _check_types(note_type: str | Sequence[str] | None) -> list[str] | None:
    if note_type is None or note_type == "" or note_type == []:
        return None
    types = [note_type] if isinstance(note_type, str) else list(note_type)
    return [check_choice(t, NOTE_TYPES, "note_type") for t in types]


def _sort_key(sort: str) -> Callable[[Entry], tuple[str, str]]:
    if sort.startswith("updated"):
        return lambda r: (r.meta["updated_at"], r.meta["id"])
    if sort.startswith("created"):
        return lambda r: (r.meta["created_at"], r.meta["id"])
    return lambda r: (r.meta["title"].casefold(), r.meta["id"])
