"""The index's Whoosh schema and its name on disk: one home for the backend and the build's child processes."""

from __future__ import annotations

from whoosh import fields

from .whoosh_analyzer import ANALYZER

INDEX_NAME = "ctxnotes_v6"  # bump when the schema or analyzer changes: old indexes are rebuilt


def schema() -> fields.Schema:
    """A fresh schema object (Whoosh keeps per-writer state on its fields)."""
    return fields.Schema(
        key=fields.ID(unique=True, stored=True),
        kind=fields.ID(),
        type=fields.ID(),
        tags=fields.KEYWORD(commas=True, lowercase=False, scorable=False),
        updated=fields.NUMERIC(numtype=float, bits=64),
        text=fields.TEXT(analyzer=ANALYZER, phrase=True),
        meta=fields.STORED(),  # unused since the catalogue moved to its own file; tests still write it
    )
