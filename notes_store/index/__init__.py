"""The search index's public names in one import: the backend protocol's types and the Whoosh backend.

``SearchIndex`` is the engine the workspace uses (``whoosh_backend.WhooshBackend``); code that
only needs the types imports them from ``backend``. Owns everything that knows the engine: the
protocol (``backend``), the Whoosh schema, adapter and backend, ranking over decoded postings, the
segment writer and parallel build, the write batch, the live index a workspace searches while it
writes (``live``: engine commit, backlog, committed plus uncommitted search), the catalogue, id
completion, hit bodies and snippets. May import: ``analysis``, ``bounded_cache``, ``errors``; never a
store nor ``workspace``.
"""

from __future__ import annotations

from .backend import CorpusStats, Filters, Hits, IndexCorrupt, IndexEntry, SearchBackend
from .whoosh_backend import WhooshBackend

SearchIndex = WhooshBackend

__all__ = ["CorpusStats", "Filters", "Hits", "IndexCorrupt", "IndexEntry", "SearchBackend", "SearchIndex",
           "WhooshBackend"]
