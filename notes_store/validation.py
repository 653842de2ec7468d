"""Checks on user input shared by the note and memory stores.

Each failure raises ``InvalidInput`` with a message that says what was wrong
and how to fix it.
"""

from __future__ import annotations

import math
import re
from typing import Any
from collections.abc import Iterable

from .errors import InvalidInput
from .timestamps import NotATime, iso_utc, to_epoch

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
MAX_TITLE_CHARS = 300
MAX_TAG_CHARS = 64
MAX_TAGS = 50
MAX_FILE_TAGS = 200  # a hand-edited file may hold more tags than a tool call may set; a bound all the same


def is_id(value: str) -> bool:
    """Whether ``value`` is an id exactly as stored (a file name stem: no ``..``, nothing to strip)."""
    return ID_RE.fullmatch(value) is not None and ".." not in value


def check_id(value: Any, what: str = "note_id") -> str:
    """An id is a file name stem: letters, digits, ``_ . -``; no paths, no ``..``."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} is required: pass the id returned by create/search/list")
    value = value.strip()
    if value.endswith(".md"):
        value = value[:-3]
    if not is_id(value):
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise InvalidInput(f"{what} {shown!r} is not a valid id: ids contain only letters, digits, '_', '.' "
                           "and '-' (no slashes, '..' or control characters); use an id returned by search/list")
    return str(value)


def check_title(value: Any) -> str:
    """A note title: one non-empty line of at most ``MAX_TITLE_CHARS`` characters, stripped."""
    if not isinstance(value, str):
        raise InvalidInput("title must be a string")
    value = value.strip()
    if not value:
        raise InvalidInput("title must not be empty: give the note a short descriptive title")
    if _CONTROL_RE.search(value):
        raise InvalidInput("title must be a single line without control characters (no newlines or tabs)")
    if len(value) > MAX_TITLE_CHARS:
        raise InvalidInput(f"title is {len(value)} characters; keep it under {MAX_TITLE_CHARS} and put details in content")
    return str(value)


def check_content(value: Any, max_bytes: int, what: str = "content") -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string")
    if "\x00" in value:
        raise InvalidInput(f"{what} contains NUL characters; notes hold text, not binary data")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise InvalidInput(f"{what} is {size} bytes, over the limit of {max_bytes} bytes: split it into several "
                           "notes or store a summary")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{what} contains unpaired surrogate characters; send valid Unicode text") from None
    # Every line break becomes "\n" (a lone "\r" too): the file reader turns CRLF into LF, so content keeping
    # a "\r" before a "\n" (e.g. a trailing "\r", or "\r\r\n") would come back different from what was saved.
    return value.replace("\r\n", "\n").replace("\r", "\n")


def check_tags(value: Any) -> list[str]:
    """Tags: a list of short strings without commas or newlines; duplicates are dropped."""
    if value is None:
        return []
    if isinstance(value, str):
        raise InvalidInput("tags must be a list of strings, e.g. [\"project-x\", \"urgent\"], not one string")
    if not isinstance(value, (list, tuple)):
        raise InvalidInput("tags must be a list of strings")
    if len(value) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags per item")
    out: dict[str, None] = {}
    for tag in value:
        if not isinstance(tag, str):
            raise InvalidInput(f"tags must be strings; got {type(tag).__name__} {tag!r}")
        tag = tag.strip()
        if not tag:
            raise InvalidInput("tags must not be empty strings")
        if "," in tag or _CONTROL_RE.search(tag):
            raise InvalidInput(f"tag {tag!r} may not contain commas, newlines or control characters")
        if len(tag) > MAX_TAG_CHARS:
            raise InvalidInput(f"tag {tag[:20]!r}… is longer than {MAX_TAG_CHARS} characters")
        out.setdefault(tag, None)
    return list(out)


def check_choice(value: Any, allowed: Iterable[str], what: str) -> str:
    allowed = tuple(allowed)
    if value not in allowed:
        raise InvalidInput(f"{what} {value!r} is not allowed; use one of: {', '.join(allowed)}")
    return str(value)


def check_paging(limit: Any, offset: Any, max_limit: int = 100) -> tuple[int, int]:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= max_limit:
        raise InvalidInput(f"limit must be a whole number from 1 to {max_limit}")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidInput("offset must be a whole number >= 0")
    return limit, offset


def iso_now(clock_value: float) -> str:
    """ISO 8601 with timezone (UTC), to the second: the form written to front matter."""
    return iso_utc(clock_value)


def parse_time(value: Any, what: str) -> float:
    """ISO 8601 date or datetime -> epoch seconds; naive times are taken as UTC."""
    try:
        return to_epoch(value)
    except NotATime as exc:
        raise InvalidInput(f"{what} {exc}") from None


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool): what importance, ttl and weights must be."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# A query's cost grows with its terms (each is looked up, phrases are matched position by position)
# and the search holds the workspace's index mutex: a 300 KB query once held it for 28 s.
MAX_QUERY_CHARS = 2000
MAX_QUERY_TERMS = 100


def check_query(value: Any, hint: str) -> str:
    """A search query: a non-empty string of at most ``MAX_QUERY_CHARS`` characters."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"query must not be empty: {hint}")
    if len(value) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is {len(value)} characters, over the limit of {MAX_QUERY_CHARS}: "
                           "search for the few words that matter")
    return value


def check_query_terms(count: int) -> None:
    """After analysis: at most ``MAX_QUERY_TERMS`` terms (a CJK sentence yields a term per character pair)."""
    if count > MAX_QUERY_TERMS:
        raise InvalidInput(f"query has {count} search terms, over the limit of {MAX_QUERY_TERMS}: "
                           "search for the few words that matter")
