"""The search index's public names in one import: the backend protocol's types and the Whoosh backend.

``SearchIndex`` is the engine the workspace uses (``whoosh_backend.WhooshBackend``); code that
only needs the types imports them from ``search_backend``.
"""

from __future__ import annotations

from .search_backend import CorpusStats, Filters, Hits, IndexCorrupt, IndexEntry, SearchBackend
from .whoosh_backend import WhooshBackend

SearchIndex = WhooshBackend

__all__ = ["CorpusStats", "Filters", "Hits", "IndexCorrupt", "IndexEntry", "SearchBackend", "SearchIndex",
           "WhooshBackend"]
