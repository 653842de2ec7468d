"""The one home for reading and writing times: ISO 8601 strings, datetimes and epoch seconds.

Stores write times as ISO 8601 in UTC to the second (``iso_utc``); every reader of a time a
person or a caller gave goes through ``to_utc``, so "naive means UTC", a trailing ``Z`` and
the error wording are the same everywhere (notes, memories, the context builder).
"""

from __future__ import annotations

from datetime import datetime, timezone

EXAMPLES = "e.g. 2026-11-29 or 2026-11-29T15:30:00Z"


class NotATime(ValueError):
    """A value that is not a time; the message says what was expected (callers add where it came from)."""


def to_utc(value: object, *, numbers: bool = False) -> datetime:
    """A timezone-aware UTC datetime from a datetime or an ISO 8601 date/datetime string.

    Naive times are taken as UTC; a trailing ``Z`` is accepted. ``numbers=True`` also
    accepts epoch seconds. Raises ``NotATime`` (a ``ValueError``) otherwise.
    """
    if isinstance(value, datetime):
        dt = value
    elif numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            dt = datetime.fromtimestamp(float(value), tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise NotATime(f"{value!r} is out of range for epoch seconds") from None
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise NotATime(f"{value!r} is not an ISO 8601 date or datetime, {EXAMPLES}") from None
    else:
        kinds = "an ISO 8601 string, a datetime or epoch seconds" if numbers else "an ISO 8601 date or datetime"
        raise NotATime(f"must be {kinds}, {EXAMPLES}; got {type(value).__name__} {value!r}")
    if dt.tzinfo is None:
        return dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def to_epoch(value: object, *, numbers: bool = False) -> float:
    """Epoch seconds of ``to_utc(value)``."""
    return to_utc(value, numbers=numbers).timestamp()


def to_naive_utc(value: object, *, numbers: bool = False) -> datetime:
    """``to_utc`` without the timezone (for code comparing times that may have come naive)."""
    return to_utc(value, numbers=numbers).replace(tzinfo=None)


def try_to_utc(value: object) -> datetime | None:
    """Lenient ``to_utc`` for display: None when the value is missing or not a time."""
    if value is None or value == "":
        return None
    try:
        return to_utc(value)
    except NotATime:
        return None


def iso_utc(epoch: float) -> str:
    """ISO 8601 in UTC to the second, with its offset: the form written to front matter."""
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds")
