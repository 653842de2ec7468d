"""Markdown files with YAML front matter: parse and write them byte-stably.

Writing the same document twice gives the same bytes, keys keep a fixed order
(known keys first, then a person's extra keys in the order they wrote them),
non-ASCII text is written as is, and timestamps stay the strings they were, so
``git diff`` after an update shows only what changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


class BadFile(Exception):
    """A file in the workspace that cannot be read as a note or memory."""


@dataclass
class Document:
    """Front matter (ordered) plus the Markdown body."""

    meta: dict[str, Any]
    body: str = ""
    extra_order: list[str] = field(default_factory=list)


def parse_document(raw: bytes) -> Document:
    """Parse file bytes; raise ``BadFile`` with the reason when they are not a valid document."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadFile(f"not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise BadFile("contains NUL bytes (binary file?)")
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
    try:
        meta = yaml.load(header, Loader=_Loader) if header.strip() else {}
    except yaml.YAMLError as exc:
        reason = str(exc).splitlines()[0]
        raise BadFile(f"invalid YAML front matter: {reason}") from None
    if not isinstance(meta, dict):
        raise BadFile("front matter must be a YAML mapping of keys to values")
    return Document(meta=meta, body=body)


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
