"""A workspace's read side: ranked catalogue rows for a query (the committed index plus the writes not committed
yet), and ``quick_reads``, the mode in which a search answers without waiting or raises ``WouldBlock``.

Kept apart from ``workspace``: this is the request path of every search, which takes none of its write locks.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .analysis.analyzer import QueryUnit
from .errors import WouldBlock
from .index.backend import Filters
from .index.catalogue import Entry
from .workspace_state import WorkspaceState


__all__ = ["QUICK_MAX_TERMS", "RankedRows", "Reads"]

# ``quick_reads`` (a server's event loop) runs a search only if it is short and the searcher is free: a
# query of many terms can take tens of ms at 100k notes, and the loop serves every other client meanwhile.
QUICK_MAX_TERMS = 32


@dataclass
class RankedRows:
    """Catalogue rows for a query, best first; ``total`` may be a lower bound (see ``backend.Hits``)."""

    rows: list[tuple[Entry, float]]
    total: int
    total_is_lower_bound: bool = False


class _QuickReads(threading.local):
    """Per thread: inside ``Workspace.quick_reads`` (an event loop that must not wait)."""

    on = False


class Reads:
    """One workspace's searches (``Workspace.search_ranked``) and its per-thread ``quick_reads`` flag."""

    def __init__(self, ws: WorkspaceState) -> None:
        self.ws = ws
        self.quick = _QuickReads()  # ``quick_reads``: this thread must not wait (an event loop)

    @contextlib.contextmanager
    def quick_reads(self) -> Iterator[None]:
        """``Workspace.quick_reads``: set this thread's flag for the block."""
        before = self.quick.on
        self.quick.on = True
        try:
            yield
        finally:
            self.quick.on = before

    def search_ranked(self, units: Sequence[QueryUnit], filters: Filters, limit: int,
                      match_all: bool) -> RankedRows:
        """``Workspace.search_ranked``, counted as a running search (a polite background scan steps aside)."""
        with self.ws._refresh.reading():
            return self._search_ranked(units, filters, limit, match_all)

    def _search_ranked(self, units: Sequence[QueryUnit], filters: Filters, limit: int,
                       match_all: bool) -> RankedRows:
        ws = self.ws
        quick = self.quick.on
        if quick and sum(len(u.terms) for u in units) > QUICK_MAX_TERMS:  # before any other work
            raise WouldBlock("a long query is run where it may take its time")
        ws.prepare_read()
        hits, extra = ws._live.search(units, filters, limit, match_all, quick)
        ranked = sorted(hits.ranked + extra, key=lambda hit: -hit[1])[:limit] if extra else hits.ranked
        rows = [(row, score) for key, score in ranked if (row := ws.catalogue.get(key)) is not None]
        return RankedRows(rows, hits.total + len(extra), hits.total_is_lower_bound)
