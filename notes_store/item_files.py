"""Reading one note or memory file by id, with errors that say what to do."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from collections.abc import Callable

from .document import BadFile, Document, parse_document
from .errors import InvalidInput, NotFound, StorageError
from .index import IndexEntry


def read_item(path: Path, item_id: str, what: str, find_hint: str, collection: Any,
              parse: Callable[[bytes], Document] = parse_document) -> tuple[Document, IndexEntry]:
    """Parse ``path`` into (document, index entry) or raise NotFound / InvalidInput / StorageError.

    ``what`` names the item ("note", "memory"); ``find_hint`` says how to find valid ids.
    Symbolic links are refused, never followed.
    """
    if os.path.islink(path):
        raise InvalidInput(f"{what} {item_id} is a symbolic link, which ctxnotes does not follow; "
                           "replace it with a regular file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise NotFound(f"no {what} with id {item_id!r}; {find_hint}") from None
    except OSError as exc:
        raise StorageError(f"cannot read {what} {item_id}: {exc.strerror or exc}") from exc
    try:
        doc = parse(raw)
        return doc, collection.parse(path, raw, doc)
    except BadFile as exc:
        raise InvalidInput(f"{what} {item_id} cannot be read: {exc}; fix the file by hand ({path}) "
                           "or delete it") from None
