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
lines between ``<<<<<<<`` and ``=======``); the body keeps its markers if the
front matter's closing ``---`` lies outside every conflict, else the ours side
of the body is used. Either way the caller learns ``conflicted=True`` and the
file on disk is never changed by reading it.
"""

from __future__ import annotations

import re

from .document import BadFile, Document, parse_document

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
    pos = 0
    while True:
        start = _START.search(text, pos)
        if start is None:
            return False
        mid = _MID.search(text, start.end())
        if mid is None:
            return False
        if _END.search(text, mid.end()) is not None:
            return True
        pos = start.end()


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


def _body_after_header(text: str) -> str | None:
    """The original body (markers kept) if the front matter closes outside every conflict block."""
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        return None
    inside = False
    for i, line in enumerate(lines[1:], start=1):
        if not inside and _START.fullmatch(line):
            inside = True
        elif inside and _END.fullmatch(line):
            inside = False
        elif not inside and line == "---":
            return "\n".join(lines[i + 1:])
    return None


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
