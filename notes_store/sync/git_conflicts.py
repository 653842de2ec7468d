"""Git merge-conflict markers in note files: detect them, and read around them.

After a ``git pull`` that could not merge two edits of one note, the file holds
both sides between marker lines::

    <<<<<<< HEAD
    our lines
    ||||||| base        (only with merge.conflictStyle=diff3/zdiff3)
    the common ancestor's lines
    =======
    their lines
    >>>>>>> origin/main

Such a note must not be indexed as if it were clean. ``parse_conflicted``
parses the file as usual when the front matter is intact (the markers are in
the body, which is kept as is so a reader sees both sides). When the markers
break the front matter, the front matter is read from the *ours* side (the
lines between ``<<<<<<<`` and ``=======``) and the body keeps its markers
(when Git joined the front matter's end and the body's start into one conflict
block, the block is cut at the ``---`` so the body still shows both sides; if
that fails, the ours side of the body is used). Either way the caller learns ``conflicted=True`` and the
file on disk is never changed by reading it.
"""

from __future__ import annotations

import re
from typing import Any

from ..files.front_matter import BadFile, Document, parse_document

CONFLICT_REASON = "unresolved Git merge-conflict markers"

_START = re.compile(r"^<{7}(?:[ \t].*)?\r?$", re.M)
_BASE = re.compile(r"^\|{7}(?:[ \t].*)?\r?$", re.M)
_MID = re.compile(r"^={7}\r?$", re.M)
_END = re.compile(r"^>{7}(?:[ \t].*)?\r?$", re.M)


def has_conflict_markers(text: str | bytes) -> bool:
    """Whether ``text`` holds a complete conflict block: ``<<<<<<<``, then ``=======``, then ``>>>>>>>`` lines.

    All three are required, in that order, so that a Markdown setext heading
    (a line of ``=``) or a quoted ``>>>>>>>`` line alone never counts.
    """
    if isinstance(text, bytes):
        if b"<<<<<<<" not in text:  # the fast path: almost every file
            return False
        text = text.decode("utf-8", errors="replace")
    elif "<<<<<<<" not in text:
        return False
    # One pass: a block exists iff there is an end line after the first middle line that follows the
    # first start line (any later start's middle and end lines would also follow those). Retrying from
    # each start line scanned to the end of the text once per start: quadratic, 30 min for 2 MiB.
    start = _START.search(text)
    if start is None:
        return False
    mid = _MID.search(text, start.end())
    return mid is not None and _END.search(text, mid.end()) is not None


def ours_side(text: str) -> str:
    """The text with every conflict block replaced by its first ("ours") side."""
    out: list[str] = []
    state = None  # None | "ours" | "base" | "theirs"
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if state is None and _START.fullmatch(bare):
            state = "ours"
            continue
        if state == "ours" and _BASE.fullmatch(bare):
            state = "base"
            continue
        if state in ("ours", "base") and _MID.fullmatch(bare):
            state = "theirs"
            continue
        if state == "theirs" and _END.fullmatch(bare):
            state = None
            continue
        if state in (None, "ours"):
            out.append(line)
    return "".join(out)


def _segments(lines: list[str]) -> list[tuple[Any, ...]]:
    """Split lines into ("plain", lines) and ("conflict", start, ours, base_marker, base, mid, theirs, end)."""
    segments: list[tuple[Any, ...]] = []
    plain: list[str] = []
    block: list[Any] = []  # [start, ours, base_marker, base, mid, theirs, end] while in a block
    state = None
    for line in lines:
        if state is None and _START.fullmatch(line):
            if plain:
                segments.append(("plain", plain))
                plain = []
            block, state = [line, [], None, [], None, [], None], "ours"
        elif state == "ours" and _BASE.fullmatch(line):
            block[2], state = line, "base"
        elif state in ("ours", "base") and _MID.fullmatch(line):
            block[4], state = line, "theirs"
        elif state == "theirs" and _END.fullmatch(line):
            block[6], state = line, None
            segments.append(("conflict", *block))
            block = []
        elif state is None:
            plain.append(line)
        else:
            block[{"ours": 1, "base": 3, "theirs": 5}[state]].append(line)
    if block:  # an unterminated block: keep its lines as they are
        plain = [block[0], *block[1]] + ([block[2], *block[3]] if block[2] else []) + (
            [block[4], *block[5]] if block[4] else []) + plain
    if plain:
        segments.append(("plain", plain))
    return segments


def _after(lines: list[str]) -> list[str] | None:
    return lines[lines.index("---") + 1:] if "---" in lines else None


def _body_after_header(text: str) -> str | None:
    """The body after the front matter's closing ``---``, conflict markers kept.

    When the closing line sits inside a conflict block (Git joins nearby
    conflicting lines into one block), the block is cut there: the body starts
    with a block holding what each side has after its ``---``. None when the
    front matter's end cannot be found on both sides.
    """
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        return None
    segments = _segments(lines[1:])
    for i, seg in enumerate(segments):
        rest = [line for s in segments[i + 1:] for line in _render(s)]
        if seg[0] == "plain":
            after = _after(seg[1])
            if after is not None:
                return "\n".join(after + rest)
            continue
        _tag, start, ours, base_marker, base, mid, theirs, end = seg
        ours_after, theirs_after = _after(ours), _after(theirs)
        if ours_after is None and theirs_after is None:
            continue
        if ours_after is None or theirs_after is None:
            return None
        base_after = _after(base) if base_marker else None
        head = [start, *ours_after] + ([base_marker, *base_after] if base_after is not None else []) + [
            mid, *theirs_after, end]
        return "\n".join(head + rest)
    return None


def _render(seg: tuple[Any, ...]) -> list[str]:
    if seg[0] == "plain":
        return list(seg[1])
    _tag, start, ours, base_marker, base, mid, theirs, end = seg
    return [start, *ours] + ([base_marker, *base] if base_marker else []) + [mid, *theirs, end]


def parse_conflicted(raw: bytes) -> tuple[Document, bool]:
    """Parse a note file that may hold conflict markers: (document, conflicted).

    Raises ``BadFile`` like ``parse_document`` when the file cannot be read even
    from the ours side (the reason then names the conflict markers).
    """
    try:
        doc = parse_document(raw)
    except BadFile as exc:
        if not has_conflict_markers(raw):
            raise
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise exc from None
        text = text.lstrip("\ufeff").replace("\r\n", "\n")
        try:
            doc = parse_document(ours_side(text).encode("utf-8"))
        except BadFile as ours_exc:
            raise BadFile(f"{CONFLICT_REASON} break the front matter and the 'ours' side cannot be read "
                          f"either ({ours_exc}); resolve the conflict by hand and commit") from None
        body = _body_after_header(text)
        if body is not None:
            doc.body = body
        return doc, True
    return doc, has_conflict_markers(raw)
