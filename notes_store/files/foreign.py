"""Markdown files we did not write: read their metadata leniently, change them byte by byte.

A page from an Obsidian or Foam vault may have no front matter, or front matter with other keys
(``aliases``, ``description``, ``permalink``, ``tags: a, b``), CRLF line endings, a BOM, comments and
its own quoting style. ``read_page`` takes what it can:

* title: front matter ``title``, else the first ``# heading`` outside code, else the file name;
* tags: ``tags`` (or ``tag``) as a list or a string (``a, b`` or ``#a #b``), without the ``#``;
* aliases: ``aliases`` (or ``alias``), a list or a comma-separated string;
* description, headings (for search), created / updated from the usual keys when they hold a time.

Front matter that is not valid YAML does not make the page unreadable: its keys are ignored and
the reason is kept in ``problems`` (for doctor).

``edit_front_matter`` changes only the keys it is given: every other line of the front matter (keys,
comments, quoting, order), the body's bytes, the BOM and the line endings stay as they were, and
a front matter block is added only when a key must be set on a file that has none. The result is
parsed again and compared with what was meant; a front matter too irregular to edit line by line
is written again whole (values kept, formatting not), never half-edited.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..timestamps import NotATime, to_epoch
from .code_fences import in_code
from .front_matter import MAX_FRONT_MATTER_BYTES, BadFile, decode, _BaseDumper, _check_shape, _Loader, _simple_meta

MAX_HEADINGS = 200
MAX_HEADING_CHARS = 300
MAX_PAGE_TAGS = 200
MAX_PAGE_ALIASES = 100
MAX_DESCRIPTION_CHARS = 4000

CREATED_KEYS = ("created_at", "created", "date created", "creation_date", "date")
UPDATED_KEYS = ("updated_at", "updated", "modified", "date modified", "last_modified", "lastmod")

_LINE_SPLIT_RE = re.compile(r"(?<=\n)")
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_TAG_SPLIT_RE = re.compile(r"[,\s]+")


class Delete:
    """The value that removes a key in ``edit_front_matter``."""

    def __repr__(self) -> str:
        return "DELETE"


DELETE = Delete()


@dataclass
class Split:
    """A file's text cut into BOM, front matter lines (with their endings) and body."""

    bom: str
    opening: str          # the '---' line with its ending ("" when there is no front matter)
    header: list[str]     # front matter lines between the markers, each with its line ending
    closing: str          # the closing '---' (or '...') line with its ending
    body: str             # everything after, untouched
    newline: str          # "\r\n" or "\n": the file's own, for lines we add

    @property
    def has_front_matter(self) -> bool:
        return bool(self.opening)

    @property
    def header_text(self) -> str:
        return "".join(self.header)


def split_text(text: str) -> Split:
    """Find the front matter: a first line ``---`` and a later line ``---`` or ``...``; else none."""
    bom = ""
    if text.startswith("\ufeff"):
        bom, text = "\ufeff", text[1:]
    first_nl = text.find("\n")
    newline = "\r\n" if first_nl > 0 and text[first_nl - 1] == "\r" else "\n"
    if not text.startswith("---") or text[:first_nl + 1].rstrip("\r\n") != "---":
        return Split(bom, "", [], "", text, newline)
    lines = _LINE_SPLIT_RE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    for i in range(1, len(lines)):   # linear in the file, which the caller bounded
        stripped = lines[i].rstrip("\r\n")
        if stripped in ("---", "..."):
            return Split(bom, lines[0], lines[1:i], lines[i], "".join(lines[i + 1:]), newline)
    return Split(bom, "", [], "", text, newline)   # no closing line: a rule, not front matter


def parse_header(header: str) -> dict[str, Any]:
    """Front matter text as a mapping, within the bounds of ``front_matter``; BadFile with the reason."""
    size = len(header.encode("utf-8"))
    if size > MAX_FRONT_MATTER_BYTES:
        raise BadFile(f"front matter is {size} bytes, over the limit of {MAX_FRONT_MATTER_BYTES}")
    header = header.replace("\r\n", "\n")
    if not header.strip():
        return {}
    try:
        simple = _simple_meta(header)
        if simple is not None:
            return simple
        _check_shape(header)
        meta = yaml.load(header, Loader=_Loader)
    except yaml.YAMLError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BadFile(f"invalid YAML front matter: {reason}") from None
    except RecursionError:
        raise BadFile("front matter is nested too deeply") from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise BadFile("front matter is not a mapping of keys to values")
    return {str(k): v for k, v in meta.items()}


@dataclass
class PageMeta:
    """What a Markdown page says about itself."""

    title: str
    title_from: str                   # "front matter" | "heading" | "file name"
    tags: list[str]
    aliases: list[str]
    description: str
    headings: list[str]
    created: float | None             # epoch seconds from the front matter, when it holds a time
    updated: float | None
    meta: dict[str, Any]              # the whole front matter as parsed ({} when none or invalid)
    body: str                         # the text after the front matter, line endings as "\n"
    has_front_matter: bool = False
    problems: list[str] = field(default_factory=list)


def _strings(value: Any, *, split: re.Pattern[str] | None, limit: int) -> list[str]:
    if value is None:
        return []
    items: list[Any]
    if isinstance(value, str):
        items = [p for p in split.split(value)] if split is not None else [value]
    elif isinstance(value, list):
        items = value
    else:
        items = [value]
    out: dict[str, None] = {}
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            continue
        text = str(item).strip()
        if text:
            out.setdefault(text, None)
        if len(out) >= limit:
            break
    return list(out)


def page_tags(value: Any) -> list[str]:
    """``tags`` as a list of tags: a YAML list or a string of tags split by commas or spaces; ``#`` dropped."""
    tags = _strings(value, split=_TAG_SPLIT_RE, limit=MAX_PAGE_TAGS)
    out: dict[str, None] = {}
    for tag in tags:
        tag = tag.lstrip("#").strip()
        if tag and "\n" not in tag:
            out.setdefault(tag, None)
    return list(out)


def page_aliases(value: Any) -> list[str]:
    """``aliases``: a YAML list, or a string of aliases separated by commas."""
    return [a for a in _strings(value, split=re.compile(r"\s*,\s*"), limit=MAX_PAGE_ALIASES) if "\n" not in a]


def _first_time(meta: Mapping[str, Any], keys: tuple[str, ...]) -> float | None:
    lowered = {str(k).lower(): v for k, v in meta.items()}
    for key in keys:
        value = lowered.get(key)
        if isinstance(value, str) and value.strip():
            try:
                return to_epoch(value)
            except NotATime:
                continue
    return None


def headings_of(body: str, limit: int = MAX_HEADINGS) -> list[tuple[int, str]]:
    """``(level, text)`` of the ATX headings outside fenced code, at most ``limit``."""
    out: list[tuple[int, str]] = []
    lines = body.split("\n")
    for line, code in zip(lines, in_code(lines)):
        if code:
            continue
        if "#" not in line[:10]:
            continue
        h = _HEADING_RE.match(line)
        if h and h.group(2).strip():
            out.append((len(h.group(1)), h.group(2).strip()[:MAX_HEADING_CHARS]))
            if len(out) >= limit:
                break
    return out


def read_page(raw: bytes, name: str) -> PageMeta:
    """A page's metadata; ``name`` is its file name without ``.md``. BadFile only for bytes that are not text."""
    return page_from_text(decode(raw), name)


def page_from_text(text: str, name: str) -> PageMeta:
    split = split_text(text)
    problems: list[str] = []
    meta: dict[str, Any] = {}
    if split.has_front_matter:
        try:
            meta = parse_header(split.header_text)
        except BadFile as exc:
            problems.append(str(exc))
    body = split.body.replace("\r\n", "\n")
    heads = headings_of(body)
    title_value = meta.get("title")
    if isinstance(title_value, (int, float)) and not isinstance(title_value, bool):
        title_value = str(title_value)
    if isinstance(title_value, str) and title_value.strip() and "\n" not in title_value.strip():
        title, title_from = title_value.strip(), "front matter"
    else:
        first = next((text for level, text in heads if level == 1), None)
        if first:
            title, title_from = first, "heading"
        else:
            title, title_from = name, "file name"
    description = meta.get("description")
    if not isinstance(description, str):
        description = ""
    tags = page_tags(meta.get("tags") if "tags" in meta else meta.get("tag"))
    aliases = page_aliases(meta.get("aliases") if "aliases" in meta else meta.get("alias"))
    return PageMeta(title=title[:MAX_HEADING_CHARS], title_from=title_from, tags=tags, aliases=aliases,
                    description=description.strip()[:MAX_DESCRIPTION_CHARS],
                    headings=[h for _level, h in heads], created=_first_time(meta, CREATED_KEYS),
                    updated=_first_time(meta, UPDATED_KEYS), meta=meta, body=body,
                    has_front_matter=split.has_front_matter, problems=problems)


# -- editing -------------------------------------------------------------------------------------
_KEY_LINE_RE = re.compile(r"""^(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\n]|'')*)'|([^\s#'"\-?:,\[\]{}&*!|>%@`][^:\n]*?|-[^\s:\n][^:\n]*?))[ \t]*:(?=[ \t\r\n]|$)""")


@dataclass
class _Chunk:
    key: str | None         # the key, as YAML reads it; None for comments and blank lines between keys
    key_text: str           # the key as written ("title", "'title'")
    lines: list[str]


def _chunks(header: list[str]) -> list[_Chunk] | None:
    """The front matter cut into top-level keys with their lines; None when a line fits no simple shape."""
    chunks: list[_Chunk] = []
    pending: list[str] = []   # blank lines whose owner is known only at the next non-blank line
    for line in header:
        bare = line.rstrip("\r\n")
        if not bare.strip():
            pending.append(line)
            continue
        if bare[0] in " \t" or bare.startswith("- ") or bare == "-":
            if not chunks or chunks[-1].key is None:
                return None
            chunks[-1].lines.extend(pending)
            chunks[-1].lines.append(line)
            pending = []
            continue
        if pending:
            chunks.append(_Chunk(None, "", pending))
            pending = []
        if bare.startswith("#"):
            chunks.append(_Chunk(None, "", [line]))
            continue
        m = _KEY_LINE_RE.match(bare)
        if m is None:
            return None
        if m.group(1) is not None:
            key = bytes(m.group(1), "utf-8").decode("unicode_escape") if "\\" in m.group(1) else m.group(1)
        elif m.group(2) is not None:
            key = m.group(2).replace("''", "'")
        else:
            key = m.group(3)
        chunks.append(_Chunk(key, bare[:m.end()].rstrip(":").rstrip(), [line]))
    if pending:
        chunks.append(_Chunk(None, "", pending))
    return chunks


def dump_value_lines(key_text: str, value: Any, newline: str) -> list[str]:
    """``key: value`` as YAML lines (flow lists, plain or quoted scalars, unicode as is), with ``newline``."""
    if isinstance(value, list) and all(v is None or isinstance(v, (str, int, float, bool)) for v in value):
        flow = yaml.dump(value, Dumper=_BaseDumper, allow_unicode=True, default_flow_style=True, width=1 << 20)
        text = f"{key_text}: {flow.strip()}"
    else:
        text = yaml.dump({"k": value}, Dumper=_BaseDumper, sort_keys=False, allow_unicode=True,
                         default_flow_style=False, width=1 << 20)
        text = key_text + text[1:]
    return [line + newline for line in text.rstrip("\n").split("\n")]


def _key_text(key: str) -> str:
    return yaml.dump({key: 0}, Dumper=_BaseDumper, allow_unicode=True, width=1 << 20).rsplit(":", 1)[0]


def edit_front_matter(raw: bytes, changes: Mapping[str, Any]) -> bytes:
    """``raw`` with the front matter keys in ``changes`` set (``DELETE`` removes one), nothing else changed.

    Keys that exist are rewritten where they are (their spelling kept); new keys are appended. A file
    without front matter gets a block only when a key is set. BadFile when the file is not UTF-8 text.
    """
    text = decode(raw)
    split = split_text(text)
    nl = split.newline
    sets = {k: v for k, v in changes.items() if not isinstance(v, Delete)}
    deletes = {k for k, v in changes.items() if isinstance(v, Delete)}
    if not split.has_front_matter:
        if not sets:
            return raw
        lines: list[str] = []
        for key, value in sets.items():
            lines.extend(dump_value_lines(_key_text(key), value, nl))
        return (split.bom + "---" + nl + "".join(lines) + "---" + nl + split.body).encode("utf-8")
    try:
        old_meta = parse_header(split.header_text)
    except BadFile as exc:
        raise BadFile(f"its front matter cannot be read, so it cannot be changed safely ({exc}); "
                      "fix the front matter by hand first") from None
    expected = {k: v for k, v in old_meta.items() if k not in deletes}
    for key, value in sets.items():
        expected[key] = value
    header = _edited_lines(split.header, sets, deletes, nl)
    if header is not None:
        try:
            if parse_header("".join(header)) == expected:
                return (split.bom + split.opening + "".join(header) + split.closing + split.body).encode("utf-8")
        except BadFile:
            pass
    # Too irregular to edit line by line (or the line edit would not read back as meant): write the
    # front matter again whole, in its key order, values kept.
    lines = []
    for key, value in expected.items():
        lines.extend(dump_value_lines(_key_text(key), value, nl))
    if parse_header("".join(lines)) != expected:
        raise BadFile("its front matter could not be rewritten to read back the same; nothing was changed")
    return (split.bom + split.opening + "".join(lines) + split.closing + split.body).encode("utf-8")


def _edited_lines(header: list[str], sets: Mapping[str, Any], deletes: set[str], nl: str) -> list[str] | None:
    chunks = _chunks(header)
    if chunks is None:
        return None
    last_index = {c.key: i for i, c in enumerate(chunks) if c.key is not None}
    out: list[str] = []
    for i, chunk in enumerate(chunks):
        if chunk.key is None:
            out.extend(chunk.lines)
        elif chunk.key in deletes:
            continue
        elif chunk.key in sets:
            if last_index[chunk.key] == i:   # a duplicated key: YAML reads the last one; the others go
                out.extend(dump_value_lines(chunk.key_text, sets[chunk.key], nl))
        else:
            out.extend(chunk.lines)
    if out and not out[-1].endswith("\n"):
        out[-1] += nl
    for key, value in sets.items():
        if key not in last_index:
            out.extend(dump_value_lines(_key_text(key), value, nl))
    return out


def replace_body(raw: bytes, body: str) -> bytes:
    """``raw`` with its body (everything after the front matter) replaced by ``body`` (``\\n`` line ends),
    written with the file's own line endings; the BOM and the front matter's bytes stay."""
    split = split_text(decode(raw))
    old_body = split.body
    nl = split.newline
    first_nl = old_body.find("\n")
    if first_nl != -1:
        nl = "\r\n" if first_nl > 0 and old_body[first_nl - 1] == "\r" else "\n"
    new = body.replace("\r\n", "\n")
    if nl == "\r\n":
        new = new.replace("\n", "\r\n")
    return (split.bom + split.opening + split.header_text + split.closing + new).encode("utf-8")


def set_first_heading(raw: bytes, title: str) -> bytes | None:
    """``raw`` with the text of its first level-1 heading (outside code) set to ``title``; None when it has none."""
    split = split_text(decode(raw))
    lines = _LINE_SPLIT_RE.split(split.body)
    for i, (line, code) in enumerate(zip(lines, in_code(lines))):
        if code:
            continue
        bare = line.rstrip("\r\n")
        h = _HEADING_RE.match(bare)
        if h and len(h.group(1)) == 1 and h.group(2).strip():
            ending = line[len(bare):]
            lines[i] = bare[:h.start(2)] + title + ending
            return (split.bom + split.opening + split.header_text + split.closing + "".join(lines)).encode("utf-8")
    return None
