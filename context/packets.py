"""The Packet: one whole candidate item of context and the scores it was selected by."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# Sources a packet can come from. "system" and "query" are always kept.
SYSTEM = "system"
QUERY = "query"
TASK_STATE = "task_state"
HISTORY = "history"
TOOL_RESULT = "tool_result"
DOCUMENT = "document"
NOTE = "note"
MEMORY = "memory"
TOOL = "tool"
SUMMARY = "summary"          # the condensed "earlier conversation" packet

EVIDENCE_SOURCES = (NOTE, MEMORY, DOCUMENT)


@dataclass
class Packet:
    """One item that is either in the context whole or out of it.

    ``content`` is the item's own text; how it is laid out (tags, role prefix)
    is the structure stage's job, and ``tokens`` is what that layout costs in
    the chosen output format.
    """

    source: str
    id: str
    content: str
    timestamp: datetime | None = None
    position: int = 0                 # order within its source (history: turn index)
    role: str | None = None           # history turns
    title: str = ""
    label: str = ""                   # note/memory type, tool name, document source
    uri: str = ""
    given_score: float | None = None  # a score supplied with the item (index BM25, retriever score)
    importance: float | None = None   # memories, 0..1
    required: bool = False            # tools marked required, task state
    group: str = ""                   # history: the date its header shows (costed once per group)
    dated: bool = False               # history: the content states that date itself (no header shown for it)
    tool_call_id: str = ""            # history turns of role tool: the call they answer, when given
    show_role: bool = True            # history: False when the role says nothing (turn_cache.roles_say_nothing)

    # Filled by the select stage.
    relevance: float = 0.0
    plain: float = 0.0                # plain BM25 of the query (the baseline's ranking), 0 = no term shared
    recency: float = 0.0
    score: float = 0.0
    tokens: int = 0
    # (normalised text, term set) for near-duplicate checks; computed on first use.
    fingerprint: tuple[str, frozenset[str]] | None = field(default=None, repr=False, compare=False)

    # Filled by the compress stage when the content was shortened.
    compressed_from: int | None = None
    compression: str = ""             # "extractive" | "summarizer" | "condensed"

    @property
    def key(self) -> str:
        return f"{self.source}:{self.id}"

    @property
    def header(self) -> str:
        """The date header shown above this history turn ('' for none: no date, or the turn states it)."""
        return "" if self.dated else self.group

    @property
    def speaker_name(self) -> str:
        """The ``name`` a history turn was given, unless its content already opens with "name:" ('' for
        none): shown before the turn and searched with it, as "Name:" openings are."""
        name = self.label.strip() if self.source == HISTORY else ""
        return "" if not name or self.content.startswith(f"{name}:") else name

    @property
    def spoken(self) -> str:
        """A history turn as the reader sees who said it: "Name: content" for a named turn, else the
        content. What the turn is analysed as, so a ``name`` counts as a "Name:" opening does."""
        name = self.speaker_name
        return f"{name}: {self.content}" if name else self.content

    def report(self) -> dict[str, Any]:
        """The packet as a row of the result's ``selected``/``dropped`` lists."""
        row = {"source": self.source, "id": self.id, "tokens": self.tokens,
               "score": round(self.score, 3), "relevance": round(self.relevance, 3),
               "recency": round(self.recency, 3)}
        if self.uri:
            row["uri"] = self.uri
        if self.label:
            row["label"] = self.label
        return row
