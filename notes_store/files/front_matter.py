"""Markdown files with YAML front matter: parse and write them byte-stably.

Writing the same document twice gives the same bytes, keys keep a fixed order
(known keys first, then a person's extra keys in the order they wrote them),
non-ASCII text is written as is, and timestamps stay the strings they were, so
``git diff`` after an update shows only what changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterable

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe YAML without timestamp resolution: dates stay strings, round trips are exact."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


# Bounds on the front matter of a file we read. Our writer stays far inside them (a few keys, at most
# MAX_TAGS tags, no nesting); they exist so that a hostile file (a YAML bomb, 900 levels of nesting,
# a megabyte header) costs a bounded, small amount of work and is reported as unreadable.
MAX_FRONT_MATTER_BYTES = 64 * 1024
MAX_DEPTH = 10          # nested mappings/lists, counting the top mapping
MAX_KEYS = 200          # keys in one mapping
MAX_LIST_ITEMS = 1000   # items in one list
MAX_NODES = 10_000      # values of every kind in the whole front matter


class BadFile(Exception):
    """A file in the workspace that cannot be read as a note or memory."""


MAX_REASON_CHARS = 300
MAX_LISTED_UNREADABLE = 200   # unreadable files listed by a summary (the rest are counted)


def clipped_reason(reason: str) -> str:
    """A reason a file cannot be read, at most MAX_REASON_CHARS: reasons quote the file's own values (an
    ``id:`` of 60 KB), and they are kept for the server's life and listed by every summary."""
    if len(reason) <= MAX_REASON_CHARS:
        return reason
    # Head and tail: the quoted value sits in the middle, what is wrong is said around it.
    note = f" […{len(reason):,} characters in all…] "
    head = (MAX_REASON_CHARS - len(note)) * 2 // 3
    return reason[:head] + note + reason[-(MAX_REASON_CHARS - len(note) - head):]


@dataclass
class Document:
    """Front matter (ordered) plus the Markdown body."""

    meta: dict[str, Any]
    body: str = ""


def decode(raw: bytes) -> str:
    """UTF-8 text of a file; BadFile when it is not UTF-8 or holds NUL bytes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadFile(f"not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise BadFile("contains NUL bytes (binary file?)")
    return text


def parse_document(raw: bytes) -> Document:
    """Parse file bytes; raise ``BadFile`` with the reason when they are not a valid document."""
    text = decode(raw)
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise BadFile("no YAML front matter (the file must start with a '---' line)")
    end = text.find("\n---\n", 3)
    if end == -1:
        if text.endswith("\n---"):
            end = len(text) - 4
        else:
            raise BadFile("front matter is not closed by a '---' line")
    header = text[4:end + 1]
    body = text[end + 5:]
    header_bytes = len(header.encode("utf-8"))
    if header_bytes > MAX_FRONT_MATTER_BYTES:
        raise BadFile(f"front matter is {header_bytes} bytes, over the limit of {MAX_FRONT_MATTER_BYTES}; "
                      "move long text into the body below the closing '---'")
    try:
        if header.strip():
            simple = _simple_meta(header)
            if simple is not None:
                meta = simple
            else:
                _check_shape(header)
                meta = yaml.load(header, Loader=_Loader)
        else:
            meta = {}
    except yaml.YAMLError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BadFile(f"invalid YAML front matter: {reason}") from None
    except RecursionError:  # cannot happen within MAX_DEPTH; kept so that none ever escapes
        raise BadFile(f"front matter is nested too deeply (the limit is {MAX_DEPTH} levels)") from None
    if not isinstance(meta, dict):
        raise BadFile("front matter must be a YAML mapping of keys to values")
    return Document(meta=meta, body=body)


# The front matter our writer produces, line by line: ``key: value`` where the value is a one-line
# single-quoted string, a flow list of plain words or a plain word. Anything else goes to YAML.
_LINE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*): (.+)")
_PLAIN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_ ./()+-]*")  # no indicator, quote, comma, colon or '#'
_QUOTED_RE = re.compile(r"'((?:[^']|'')*)'")


def _is_plain_str(value: str) -> bool:
    """A plain scalar YAML reads as this very string: the safe characters, no trailing space, and
    no implicit resolver (bool, null, int, float; timestamps are off in ``_Loader``) claiming it."""
    if _PLAIN_RE.fullmatch(value) is None or value.endswith(" ") or "  " in value:
        return False
    return not any(regexp.match(value) for _tag, regexp in _Loader.yaml_implicit_resolvers.get(value[0], ()))


def _simple_meta(header: str) -> dict[str, Any] | None:
    """The front matter as ``yaml.load`` would read it, when every line is of the simple forms our
    writer uses (``tests/test_document_fast.py`` holds the two to the same result); else None.

    YAML's event stream and constructors cost ~0.25 ms a file, most of a rebuild's reading; these
    lines cannot hold anchors, nesting or more than ``MAX_KEYS`` keys, so no shape check is needed.
    """
    lines = header.split("\n")
    if lines[-1] != "" or len(lines) > MAX_KEYS + 1:
        return None
    meta: dict[str, Any] = {}
    for line in lines[:-1]:
        m = _LINE_RE.fullmatch(line)
        if m is None or not line.isprintable():
            return None
        key, value = m.group(1), m.group(2)
        if not _is_plain_str(key):
            return None
        if value[0] == "'":
            q = _QUOTED_RE.fullmatch(value)
            if q is None:
                return None
            meta[key] = q.group(1).replace("''", "'")
        elif value[0] == "[":
            if value[-1] != "]":
                return None
            inner = value[1:-1]
            items = inner.split(", ") if inner else []
            if len(items) > MAX_LIST_ITEMS or not all(_is_plain_str(item) for item in items):
                return None
            meta[key] = items
        elif _is_plain_str(value):
            meta[key] = value
        else:
            return None
    return meta


def _check_shape(header: str) -> None:
    """Refuse anchors, aliases and oversized or deep structures from the event stream, before any
    value is built: the bound holds whatever the file says (a billion-laughs file stops at its first
    anchor, 900 levels of nesting stop at level MAX_DEPTH+1)."""
    open_counts: list[int] = []   # per open collection: values seen so far (a mapping's keys count too)
    open_mapping: list[bool] = []
    nodes = 0
    for event in yaml.parse(header, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent):
            raise BadFile(f"front matter uses a YAML alias (*{event.anchor}); ctxnotes does not accept "
                          "anchors or aliases: write each value out")
        if not isinstance(event, yaml.NodeEvent):
            if isinstance(event, yaml.CollectionEndEvent):
                open_counts.pop()
                open_mapping.pop()
            continue
        if event.anchor is not None:
            raise BadFile(f"front matter defines a YAML anchor (&{event.anchor}); ctxnotes does not accept "
                          "anchors or aliases: write each value out")
        nodes += 1
        if nodes > MAX_NODES:
            raise BadFile(f"front matter holds more than {MAX_NODES} values; keep it to a few keys")
        if open_counts:
            open_counts[-1] += 1
            if open_mapping[-1] and (open_counts[-1] + 1) // 2 > MAX_KEYS:
                raise BadFile(f"a mapping in the front matter has more than {MAX_KEYS} keys")
            if not open_mapping[-1] and open_counts[-1] > MAX_LIST_ITEMS:
                raise BadFile(f"a list in the front matter has more than {MAX_LIST_ITEMS} items")
        if isinstance(event, yaml.CollectionStartEvent):
            open_counts.append(0)
            open_mapping.append(isinstance(event, yaml.MappingStartEvent))
            if len(open_counts) > MAX_DEPTH:
                raise BadFile(f"front matter is nested more than {MAX_DEPTH} levels deep; "
                              "keep it to flat keys and lists")


def dump_document(meta: dict[str, Any], body: str) -> bytes:
    """Serialise front matter (in the dict's order) and body to bytes."""
    header = yaml.dump(meta, Dumper=_BaseDumper, sort_keys=False, allow_unicode=True,
                       default_flow_style=None, width=1 << 20)
    return f"---\n{header}---\n{body}".encode()


def ordered_meta(known: dict[str, Any], previous: dict[str, Any] | None, known_keys: Iterable[str]) -> dict[str, Any]:
    """Known keys in their fixed order, then the extra keys a person added, in their order."""
    out = dict(known)
    if previous:
        skip = set(known_keys)
        for key, value in previous.items():
            if key not in skip:
                out[key] = value
    return out


def titled_body(title: str, content: str) -> str:
    """The Markdown body of a note: a ``# title`` heading, a blank line, the content."""
    return f"# {title}\n" + (f"\n{content}\n" if content else "")


def content_from_body(body: str, title: str) -> str:
    """Inverse of ``titled_body``, lenient with files edited by hand."""
    lines = body.split("\n", 1)
    if lines[0].startswith("# "):
        rest = lines[1] if len(lines) > 1 else ""
        if rest.startswith("\n"):
            rest = rest[1:]
    else:
        rest = body
    if rest.endswith("\n"):
        rest = rest[:-1]
    return rest
