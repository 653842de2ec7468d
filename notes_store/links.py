"""Links between notes: extraction from Markdown, resolution as editors do it, and an incremental index.

* ``extract_links(body, source_id)``: ``[[Target]]``, ``[[Target|label]]``, ``[[Target#Heading]]``,
  ``[[folder/Target]]``, embeds ``![[...]]``, relative Markdown links ``[text](other%20note.md)`` and
  link reference definitions ``[label]: path.md``; nothing inside fenced code blocks or inline code.
  At most ``MAX_LINKS_PER_NOTE`` links a note, each target at most ``MAX_TARGET_CHARS``.
* ``Resolver``: a wikilink target is, in order, an exact path (``folder/Target``, from the top folder or the
  linking note's folder), else the one note whose path ends with it, case-insensitively (``[[Target]]``:
  a unique file name; when several share it, the one in the linking note's folder), else the one note that
  has it among its ``aliases``. A Markdown link is a path relative to the linking note (``/`` at its start:
  from the top folder), exact, else case-insensitive.
* ``LinkIndex``: forward links, backlinks and unresolved links of every note, updated one note at a time:
  adding, changing or removing a note re-resolves only the notes whose links could name it (by file name
  or alias), so a vault of 100k notes is not re-resolved on each write.

Pure: no files, no index. May import ``files.note_paths``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from .files.code_fences import in_code
from .files.note_paths import SUFFIX, note_id_problem

MAX_LINKS_PER_NOTE = 2000
MAX_TARGET_CHARS = 1024
MAX_ALIASES = 100

WIKI = "wiki"
EMBED = "embed"
MARKDOWN = "markdown"


@dataclass(frozen=True)
class Link:
    """One link as written: ``target`` is the note part (no ``#heading``, no label, no ``.md`` for wikilinks;
    for Markdown links the path as written, percent-decoded), ``kind`` wiki / embed / markdown."""

    target: str
    kind: str = WIKI
    heading: str = ""
    label: str = ""

    @property
    def written(self) -> str:
        """The link as a person would write it again (for lists of unresolved links)."""
        anchor = f"#{self.heading}" if self.heading else ""
        if self.kind == MARKDOWN:
            return f"[{self.label or self.target.rsplit('/', 1)[-1]}]({self.target}{anchor})"
        bang = "!" if self.kind == EMBED else ""
        label = f"|{self.label}" if self.label else ""
        return f"{bang}[[{self.target}{anchor}{label}]]"


# -- extraction ---------------------------------------------------------------------------------
_BACKTICKS_RE = re.compile(r"`+")
_N = str(MAX_TARGET_CHARS)
_WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n]{1,N})\]\]".replace("N", _N))
# [text](dest "title"): text without brackets inside (one level of nesting is enough for real pages),
# dest either <...> or without spaces and unbalanced parentheses.
_MD_RE = re.compile(r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\]){0,500})\]\(\s*(<[^<>\n]{1,N}>|[^\s()<>]{1,N})"
                    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)".replace("N}", _N + "}"))
_REFDEF_RE = re.compile(r"^ {0,3}\[([^\]\n]{1,500})\]:\s*(<[^<>\n]{1,N}>|\S{1,N})".replace("N}", _N + "}"),
                        re.MULTILINE)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def blank_code_spans(line: str) -> str:
    """``line`` with its code spans (a run of backticks to the next run of the same length) blanked out.

    Linear in the line: each run finds the next run of its length from a table built back to front (a
    regular expression backtracks over every run length of a hostile line of backticks).
    """
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(line)]
    following: list[int] = [-1] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = last.get(length, -1)
        last[length] = i
    pieces: list[str] = []
    pos = i = 0
    while i < len(runs):
        j = following[i]
        if j == -1:
            i += 1   # a run without a partner is literal backticks
            continue
        start, end = runs[i][0], runs[j][1]
        pieces.append(line[pos:start])
        pieces.append(" " * (end - start))
        pos = end
        i = j + 1
    pieces.append(line[pos:])
    return "".join(pieces)


def prose_lines(body: str) -> str:
    """``body`` with fenced code blocks and inline code blanked out (lengths kept, newlines kept)."""
    out: list[str] = []
    lines = body.split("\n")
    for line, code in zip(lines, in_code(lines)):
        if code:
            out.append("")  # an unclosed fence runs to the end of the document (CommonMark)
        elif "`" in line:
            out.append(blank_code_spans(line))
        else:
            out.append(line)
    return "\n".join(out)


def _wiki_link(bang: str, inner: str) -> Link | None:
    inner = inner.replace("\\|", "|")   # [[a\|b]] inside a table
    target, _, label = inner.partition("|")
    target, _, heading = target.partition("#")
    target = target.strip()
    if target.endswith(SUFFIX):
        target = target[:-len(SUFFIX)]
    if not target:
        return None   # [[#Heading]]: a link inside the note itself
    return Link(target, EMBED if bang else WIKI, heading.strip(), label.strip())


def _markdown_link(text: str, dest: str) -> Link | None:
    if dest.startswith("<") and dest.endswith(">"):
        dest = dest[1:-1]
    if not dest or dest.startswith("#") or _SCHEME_RE.match(dest) or dest.startswith("//"):
        return None
    path, _, heading = dest.partition("#")
    path = path.partition("?")[0]
    try:
        path = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    if not path.lower().endswith(SUFFIX):
        return None
    return Link(path, MARKDOWN, unquote(heading, errors="replace").strip(), text.strip())


def extract_links(body: str, *, limit: int = MAX_LINKS_PER_NOTE) -> list[Link]:
    """The links of a Markdown body, in order of appearance (duplicates kept), at most ``limit``."""
    if "[" not in body:
        return []
    text = prose_lines(body)
    found: list[tuple[int, Link]] = []
    for m in _WIKI_RE.finditer(text):
        link = _wiki_link(m.group(1), m.group(2))
        if link is not None:
            found.append((m.start(), link))
            if len(found) >= limit * 3:
                break
    if "](" in text:
        for m in _MD_RE.finditer(text):
            if m.group(1):
                continue   # ![alt](image.png): an image, not a link to a note
            link = _markdown_link(m.group(2), m.group(3))
            if link is not None:
                found.append((m.start(), link))
    if "]:" in text:
        for m in _REFDEF_RE.finditer(text):
            link = _markdown_link(m.group(1), m.group(2))
            if link is not None:
                found.append((m.start(), link))
    found.sort(key=lambda pair: pair[0])
    return [link for _pos, link in found[:limit]]


# -- resolution ---------------------------------------------------------------------------------
def _folder_of(note_id: str) -> str:
    return note_id.rpartition("/")[0]


def normalise_path(path: str, folder: str) -> str | None:
    """``path`` (POSIX, relative to ``folder``, or from the top when it starts with ``/``) as a path from the
    top folder; None when it climbs out of it or is not a note's path."""
    parts = [] if path.startswith("/") else [p for p in folder.split("/") if p]
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(seg)
    if not parts:
        return None
    return "/".join(parts)


@dataclass
class Resolution:
    """Where a link points: ``target`` (an id) or None, and why not (``missing`` / ``ambiguous`` / ``outside``)."""

    target: str | None
    reason: str = ""
    candidates: tuple[str, ...] = ()


class Resolver:
    """Resolves link targets against a set of ids and their aliases (maintained with ``add`` / ``remove``)."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self._by_lower: dict[str, set[str]] = {}    # lower-cased id -> ids
        self._by_name: dict[str, set[str]] = {}     # lower-cased file name -> ids
        self._by_alias: dict[str, set[str]] = {}    # lower-cased alias -> ids
        self._aliases: dict[str, tuple[str, ...]] = {}

    def add(self, note_id: str, aliases: Iterable[str] = ()) -> None:
        self.remove(note_id)
        self.ids.add(note_id)
        self._by_lower.setdefault(note_id.lower(), set()).add(note_id)
        self._by_name.setdefault(name_key(note_id), set()).add(note_id)
        kept = tuple(dict.fromkeys(a.strip() for a in aliases if a.strip()))[:MAX_ALIASES]
        if kept:
            self._aliases[note_id] = kept
            for alias in kept:
                self._by_alias.setdefault(alias.lower(), set()).add(note_id)

    def remove(self, note_id: str) -> None:
        if note_id not in self.ids:
            return
        self.ids.discard(note_id)
        _drop(self._by_lower, note_id.lower(), note_id)
        _drop(self._by_name, name_key(note_id), note_id)
        for alias in self._aliases.pop(note_id, ()):
            _drop(self._by_alias, alias.lower(), note_id)

    def aliases(self, note_id: str) -> tuple[str, ...]:
        return self._aliases.get(note_id, ())

    def resolve(self, link: Link, source_id: str) -> Resolution:
        folder = _folder_of(source_id)
        if link.kind == MARKDOWN:
            path = normalise_path(link.target, folder)
            if path is None:
                return Resolution(None, "outside")
            return self._exact(path[:-len(SUFFIX)] if path.lower().endswith(SUFFIX) else path) or Resolution(None, "missing")
        target = link.target.strip().lstrip("/")
        if "/" in target:
            found = self._exact(target)
            if found is not None:
                return found
            relative = normalise_path(target, folder)
            if relative is not None and relative != target:
                found = self._exact(relative)
                if found is not None:
                    return found
        lower = target.lower()
        candidates = self._by_name.get(name_key(target), set())
        if "/" in target:
            candidates = {c for c in candidates if c.lower().endswith("/" + lower)}
        if len(candidates) == 1:
            return Resolution(next(iter(candidates)))
        if len(candidates) > 1:
            near = [c for c in candidates if _folder_of(c) == folder]
            if len(near) == 1:
                return Resolution(near[0])
            if target in candidates:
                return Resolution(target)
            return Resolution(None, "ambiguous", tuple(sorted(candidates))[:10])
        by_alias = self._by_alias.get(lower, set())
        if len(by_alias) == 1:
            return Resolution(next(iter(by_alias)))
        if len(by_alias) > 1:
            return Resolution(None, "ambiguous", tuple(sorted(by_alias))[:10])
        return Resolution(None, "missing")

    def _exact(self, path: str) -> Resolution | None:
        if path in self.ids:
            return Resolution(path)
        same = self._by_lower.get(path.lower(), set())
        if len(same) == 1:
            return Resolution(next(iter(same)))
        if len(same) > 1:
            return Resolution(None, "ambiguous", tuple(sorted(same))[:10])
        return None


def name_key(target: str) -> str:
    """The key a link or a note is filed under for re-resolution: its last segment, lower-cased, without .md."""
    name = target.rpartition("/")[2].strip().lower()
    return name[:-len(SUFFIX)] if name.endswith(SUFFIX) else name


def _drop(table: dict[str, set[str]], key: str, value: str) -> None:
    bucket = table.get(key)
    if bucket is not None:
        bucket.discard(value)
        if not bucket:
            del table[key]


# -- the index ----------------------------------------------------------------------------------
@dataclass
class _Outgoing:
    links: tuple[Link, ...]
    resolved: dict[str, int] = field(default_factory=dict)       # target id -> times linked
    unresolved: list[tuple[Link, Resolution]] = field(default_factory=list)


@dataclass(frozen=True)
class UnresolvedLink:
    source: str
    link: Link
    reason: str
    candidates: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"source": self.source, "link": self.link.written, "target": self.link.target,
                                  "reason": self.reason}
        if self.candidates:
            out["candidates"] = list(self.candidates)
        return out


class LinkIndex:
    """Forward links, backlinks and unresolved links of every note; thread-safe, updated one note at a time."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.resolver = Resolver()
        self._out: dict[str, _Outgoing] = {}
        self._back: dict[str, dict[str, int]] = {}          # target -> source -> times
        self._waiting: dict[str, set[str]] = {}             # name key -> sources with a link filed under it
        self._unresolved_count = 0
        self._link_count = 0

    # -- updates ---------------------------------------------------------------------------------
    def update(self, note_id: str, links: Iterable[Link], aliases: Iterable[str] = ()) -> None:
        """Set one note's links and aliases (adding the note if new), re-resolving what they change."""
        links = tuple(links)[:MAX_LINKS_PER_NOTE]
        aliases = tuple(aliases)
        with self._lock:
            known = note_id in self.resolver.ids
            old_aliases = self.resolver.aliases(note_id)
            self._set_outgoing(note_id, links)
            if not known or set(old_aliases) != set(a.strip() for a in aliases if a.strip()):
                self.resolver.add(note_id, aliases)
                keys = {name_key(note_id), *(name_key(a) for a in old_aliases), *(name_key(a) for a in aliases)}
                self._reresolve(keys, skip=note_id)
            self._resolve_source(note_id)

    def remove(self, note_id: str) -> None:
        """Drop a note: its links go, and links to it become unresolved (or resolve elsewhere)."""
        with self._lock:
            if note_id not in self.resolver.ids and note_id not in self._out:
                return
            aliases = self.resolver.aliases(note_id)
            self._clear_source(note_id)
            out = self._out.pop(note_id, None)
            if out is not None:
                for key in {name_key(link.target) for link in out.links}:
                    _drop(self._waiting, key, note_id)
                self._link_count -= len(out.links)
            self.resolver.remove(note_id)
            self._reresolve({name_key(note_id), *(name_key(a) for a in aliases)})

    def rename(self, old_id: str, new_id: str, links: Iterable[Link], aliases: Iterable[str] = ()) -> None:
        """A note moved: the same as removing one id and adding the other."""
        with self._lock:
            self.remove(old_id)
            self.update(new_id, links, aliases)

    def _set_outgoing(self, note_id: str, links: tuple[Link, ...]) -> None:
        old = self._out.get(note_id)
        if old is not None:
            self._clear_source(note_id)
            for key in {name_key(link.target) for link in old.links}:
                _drop(self._waiting, key, note_id)
            self._link_count -= len(old.links)
        self._out[note_id] = _Outgoing(links)
        self._link_count += len(links)
        for key in {name_key(link.target) for link in links}:
            self._waiting.setdefault(key, set()).add(note_id)

    def _clear_source(self, source: str) -> None:
        out = self._out.get(source)
        if out is None:
            return
        for target in out.resolved:
            back = self._back.get(target)
            if back is not None:
                back.pop(source, None)
                if not back:
                    del self._back[target]
        self._unresolved_count -= len(out.unresolved)
        out.resolved = {}
        out.unresolved = []

    def _resolve_source(self, source: str) -> None:
        out = self._out.get(source)
        if out is None:
            return
        self._clear_source(source)
        for link in out.links:
            res = self.resolver.resolve(link, source)
            if res.target is None:
                out.unresolved.append((link, res))
            else:
                out.resolved[res.target] = out.resolved.get(res.target, 0) + 1
        for target, times in out.resolved.items():
            self._back.setdefault(target, {})[source] = times
        self._unresolved_count += len(out.unresolved)

    def _reresolve(self, keys: Iterable[str], skip: str | None = None) -> None:
        sources: set[str] = set()
        for key in keys:
            sources |= self._waiting.get(key, set())
        sources.discard(skip or "")
        for source in sources:
            self._resolve_source(source)

    # -- queries ---------------------------------------------------------------------------------
    def __contains__(self, note_id: object) -> bool:
        return note_id in self.resolver.ids

    def __len__(self) -> int:
        return len(self.resolver.ids)

    def links_from(self, note_id: str) -> list[str]:
        """Ids the note links to (resolved), in order of first appearance."""
        with self._lock:
            out = self._out.get(note_id)
            return list(out.resolved) if out is not None else []

    def links_to(self, note_id: str) -> list[str]:
        """Ids of the notes that link to ``note_id``, sorted."""
        with self._lock:
            return sorted(self._back.get(note_id, {}))

    def backlink_count(self, note_id: str) -> int:
        with self._lock:
            return len(self._back.get(note_id, {}))

    def unresolved(self, note_id: str | None = None, limit: int | None = None) -> list[UnresolvedLink]:
        """Unresolved links (of one note, or of all, sorted by source), at most ``limit``."""
        with self._lock:
            sources = [note_id] if note_id is not None else sorted(s for s, o in self._out.items() if o.unresolved)
            found: list[UnresolvedLink] = []
            for source in sources:
                out = self._out.get(source)
                if out is None:
                    continue
                for link, res in out.unresolved:
                    found.append(UnresolvedLink(source, link, res.reason, res.candidates))
                    if limit is not None and len(found) >= limit:
                        return found
            return found

    def resolve(self, target: str, source_id: str = "") -> Resolution:
        """Where ``[[target]]`` written in ``source_id`` points (for a ``links_to`` filter naming a note)."""
        with self._lock:
            link = _wiki_link("", target)
            if link is None:
                return Resolution(None, "missing")
            return self.resolver.resolve(link, source_id)

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"notes": len(self.resolver.ids), "links": self._link_count,
                    "resolved": self._link_count - self._unresolved_count, "unresolved": self._unresolved_count}

    def snapshot(self) -> Mapping[str, tuple[Link, ...]]:
        """Every note's links as extracted (for tests and checks)."""
        with self._lock:
            return {k: v.links for k, v in self._out.items()}


def is_linkable_id(value: str) -> bool:
    return note_id_problem(value) is None
