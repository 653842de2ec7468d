"""What the workspace needs from a full-text engine: the ``SearchBackend`` protocol and its types.

The workspace talks to the engine only through this protocol, so another engine (Tantivy,
SQLite FTS5, OpenSearch) is one class that implements it. Catalogue rows (titles, dates,
tags for listings) are not the engine's business: they live in ``catalogue.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..analysis.analyzer import QueryUnit


class IndexCorrupt(Exception):
    """The index files cannot be used; the workspace recovers by reopening or rebuilding from the files."""


@dataclass
class IndexEntry:
    """What the index stores for one file."""

    key: str                      # "notes/<id>.md": the file's path in the workspace
    kind: str                     # "note" | "memory"
    type: str                     # note type or memory type
    tags: Sequence[str]
    updated: float                # epoch seconds, for range filters
    title: str
    text: str                     # body text to index
    meta: dict[str, Any] = field(default_factory=dict)  # catalogue row, JSON-able
    # Searched but not part of the content: a vault page's file name, folders, aliases and description.
    extra_text: str = ""


TITLE_WEIGHT = 2  # the title counts twice: BM25F's per-field weight, in one field


def indexed_text(entry: IndexEntry) -> str:
    """The text a document is ranked on: the title ``TITLE_WEIGHT`` times, the tags, the body (and the
    ``extra_text`` of a vault page, when it has one)."""
    parts = [entry.title] * TITLE_WEIGHT + [" ".join(entry.tags), entry.text]
    if entry.extra_text:
        parts.append(entry.extra_text)
    return "\n".join(parts)


@dataclass
class Filters:
    """Restrictions a search applies before ranking."""

    kind: str
    types: Sequence[str] | None = None
    tags: Sequence[str] | None = None          # every tag must be present
    updated_after: float | None = None
    updated_before: float | None = None

    def accepts(self, entry: IndexEntry) -> bool:
        """Whether ``entry`` passes these filters (for entries not in the engine yet)."""
        if entry.kind != self.kind or (self.types and entry.type not in self.types):
            return False
        if self.tags and not set(self.tags) <= set(entry.tags):
            return False
        if self.updated_after is not None and entry.updated < self.updated_after:
            return False
        return self.updated_before is None or entry.updated <= self.updated_before


@dataclass
class Hits:
    """Ranked keys for one query, best first, and how many documents matched.

    ``total_is_lower_bound``: counting stopped once ``total`` passed the engine's bound
    (a query of common words can match most of the corpus; an exact count would cost a scan).
    """

    ranked: list[tuple[str, float]]
    total: int
    total_is_lower_bound: bool = False


@dataclass(frozen=True)
class CorpusStats:
    """Collection statistics for scoring documents the engine has not committed yet (BM25)."""

    n_docs: int
    avg_length: float
    doc_freq: dict[str, int]
    field_length: Callable[[int], float] = float  # a document's length as the engine records it (rounded)


class SearchBackend(Protocol):
    """A derived, rebuildable full-text index of the workspace's files.

    Writers call ``write``; the new state becomes visible to ``search`` after ``refresh``
    (the workspace refreshes in its background committer, never on a search's request path).
    """

    def open(self) -> bool:
        """Open an existing index; False when it is missing, damaged or of another version."""
        ...

    def create(self, entries: Iterable[IndexEntry] = ()) -> int:
        """Throw away whatever is there and build a fresh index from ``entries``; return the count."""
        ...

    def write(self, puts: Sequence[IndexEntry], deletes: Sequence[str]) -> None:
        """Add or replace ``puts`` and delete ``deletes`` (keys) in one commit."""
        ...

    def refresh(self) -> bool:
        """Make committed changes (ours or another process's) visible to searches; True if anything changed."""
        ...

    def prepare_refresh(self) -> object | None:
        """The slow half of ``refresh`` (opening the new state), safe while searches run; None if nothing
        changed. ``install_refresh`` then makes it visible, with no search running."""
        ...

    def install_refresh(self, prepared: object | None) -> bool:
        """Make what ``prepare_refresh`` opened the state searches see; True if anything changed."""
        ...

    def search(self, units: Sequence[QueryUnit], filters: Filters, limit: int, match_all: bool,
               exclude: Collection[str] = ()) -> Hits:
        """Top ``limit`` keys for the query among documents that pass ``filters``, skipping ``exclude``.

        ``match_all`` requires every unit (a word, or a phrase whose words stand in order);
        otherwise any word counts.
        """
        ...

    def stats(self, terms: Iterable[str]) -> CorpusStats:
        """Document count, average length and document frequencies of ``terms``."""
        ...

    def keys(self) -> Iterator[str]:
        """Every key the index holds."""
        ...

    def doc_count(self, kind: str | None = None) -> int:
        """Documents in the index (of one kind when given)."""
        ...

    @property
    def generation(self) -> int:
        """Changes whenever searches see a new committed state (keys caches of derived data)."""
        ...

    @property
    def version(self) -> str:
        """An identifier of the committed state on disk, stable across processes and restarts."""
        ...

    def close(self) -> None:
        """Release files and searchers."""
        ...
